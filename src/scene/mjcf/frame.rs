//! MJCF `<frame>`: a coordinate frame (and optionally a `childclass`) applied to the elements inside it, which
//! MuJoCo's compiler folds into them. Here a body's or the world's children are listed with the pose of the
//! frames they are nested in and the class they take.

use super::context::Ctx;
use super::geom::orientation;
use crate::math::{Pose, Vec3};
use roxmltree::Node;

/// What a `<frame>` may hold: what a body may but an inertial and a free joint (a joint in a frame is placed
/// by it, as MuJoCo does; in the world's frames it is refused by the world's own check).
pub(super) const IN_FRAME: [&str; 5] = ["geom", "body", "site", "joint", "frame"];

/// One child of a body (or of the world) after its frames are folded: the element, the pose of its enclosing
/// frames in the body's frame (identity outside any frame), and its class.
pub(super) struct Framed<'a> {
    pub node: Node<'a, 'a>,
    pub frame: Pose,
    pub class: String,
}

/// `kids` (a body's children) with every `<frame>` among them replaced by its children, recursively, each
/// with the frames' composed pose and the innermost `childclass` (else `class`).
pub(super) fn fold<'a>(cx: &mut Ctx, kids: &[Node<'a, 'a>], class: &str) -> Result<Vec<Framed<'a>>, String> {
    let mut out = Vec::new();
    fold_into(cx, kids, Pose::IDENTITY, class, &mut out)?;
    Ok(out)
}

fn fold_into<'a>(cx: &mut Ctx, kids: &[Node<'a, 'a>], at: Pose, class: &str, out: &mut Vec<Framed<'a>>) -> Result<(), String> {
    for &k in kids {
        if !k.has_tag_name("frame") {
            out.push(Framed { node: k, frame: at, class: class.to_string() });
            continue;
        }
        let used = ["name", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "childclass"];
        cx.src.attrs(k, &used, &[], &mut cx.notes)?;
        let inner = k.attribute("childclass").unwrap_or(class).to_string();
        if !cx.classes.contains_key(&inner) {
            return Err(cx.src.at(k, format!("unknown childclass `{inner}`")));
        }
        let pos = Vec3::from_array(cx.src.fixed::<3>(k, "pos")?.unwrap_or([0.0; 3]));
        let local = Pose::from_parts(pos, orientation(cx, &cx.el(k, &inner)?)?);
        let src = cx.src;
        let grand = src.children(k, &IN_FRAME, &["camera", "light"], &mut cx.notes)?;
        fold_into(cx, &grand, at * local, &inner, out)?;
    }
    Ok(())
}
