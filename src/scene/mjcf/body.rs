//! MJCF `<body>` elements and their joints: the links of the kinematic tree, a multi-joint body chained through
//! intermediate links.

use super::context::Ctx;
use super::geom::{geom, inertial, orientation};
use crate::geometry::compound::combine;
use crate::math::{Pose, Vec3};
use crate::model::{JointType, SiteShape};
use crate::scene::robot::{Attach, Inertial, Link, RobotJoint, RobotSite};
use roxmltree::Node;
use std::collections::BTreeMap;

/// A `<body>` whose parent link is `parent` (None: the world) with frame `frame` in the robot frame.
#[allow(clippy::too_many_arguments)]
pub(super) fn body(
    cx: &mut Ctx,
    n: Node,
    parent: Option<usize>,
    frame: Pose,
    class: &str,
    links: &mut Vec<Link>,
    joint_link: &mut BTreeMap<String, usize>,
    body_link: &mut BTreeMap<String, usize>,
) -> Result<(), String> {
    let used = ["name", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "childclass", "gravcomp"];
    cx.src.attrs(n, &used, &["user"], &mut cx.notes)?;
    let class = n.attribute("childclass").unwrap_or(class).to_string();
    if !cx.classes.contains_key(&class) {
        return Err(cx.src.at(n, format!("unknown childclass `{class}`")));
    }
    let me = Node::clone(&n);
    let local = Pose::from_parts(Vec3::from_array(cx.src.fixed::<3>(n, "pos")?.unwrap_or([0.0; 3])), orientation(cx, &cx.el(me, &class)?)?);
    let pose = frame * local;
    let src = cx.src;
    let kids =
        src.children(n, &["inertial", "joint", "freejoint", "geom", "body", "site", "frame"], &["camera", "light"], &mut cx.notes)?;
    // the geoms, sites and bodies, with the `<frame>`s they are in folded into their poses
    let framed = super::frame::fold(cx, &kids, &class)?;
    let name = n.attribute("name").map(str::to_string).unwrap_or_else(|| format!("body{}", links.len()));
    // the joints: a body with several is chained through intermediate links (below)
    let joints: Vec<&super::frame::Framed> =
        framed.iter().filter(|k| k.node.has_tag_name("joint") || k.node.has_tag_name("freejoint")).collect();
    let mut attaches = Vec::new();
    for j in &joints {
        attaches.push(joint(cx, j.node, &j.class, pose * j.frame)?);
    }
    if attaches.len() > 1 && attaches.iter().any(|a| matches!(a, Attach::Free)) {
        return Err(src.at(
            joints[0].node,
            format!("body `{name}` has a free joint among its {} joints: a free joint must be a body's only joint", joints.len()),
        ));
    }
    // geoms and mass
    let mut geoms = Vec::new();
    let mut masses = Vec::new();
    let mut masks = Vec::new();
    let mut color = None;
    let mut named = Vec::new();
    for f in framed.iter().filter(|k| k.node.has_tag_name("geom")) {
        let mut out = geom(cx, f.node, &f.class, false)?;
        out.pose = f.frame * out.pose;
        if let Some(n) = f.node.attribute("name") {
            named.push((n.to_string(), out.pose));
        }
        color = color.or(out.rgba);
        if let Some(s) = out.shape {
            geoms.push((out.pose, s, out.material));
            masks.push((out.contype, out.conaffinity));
        }
        masses.push((out.pose, out.mass));
    }
    let explicit = kids.iter().find(|k| k.has_tag_name("inertial")).map(|i| inertial(cx, *i)).transpose()?;
    let from_geoms = || {
        let m = combine(&masses);
        (m.volume > 0.0).then_some(Inertial { mass: m.volume, com: m.com, inertia: m.inertia })
    };
    let inertial = match (cx.inertia_from_geom.as_str(), explicit) {
        ("true", _) | ("auto", None) => from_geoms(),
        (_, e) => e.flatten(),
    };
    let gravcomp = cx.src.num(n, "gravcomp")?.unwrap_or(0.0);
    let last = attaches.pop().unwrap_or(Attach::Weld);
    let chained = links.len();
    let (parent, inertial) = chain_joints(cx, n, &name, parent, pose, attaches, inertial, links, joint_link)?;
    // the intermediate links carry part of the body's mass, and so part of its compensated weight
    for l in &mut links[chained..] {
        l.gravcomp = gravcomp;
    }
    let index = links.len();
    if let Attach::Joint(j) = &last {
        joint_link.insert(j.name.clone(), index);
    }
    body_link.insert(name.clone(), index);
    cx.geom_frames.extend(named.into_iter().map(|(n, p)| (n, (index, p))));
    cx.masks.extend(masks.into_iter().map(|(t, a)| (index, t, a)));
    let at = src.at(n, "body");
    links.push(Link { name, parent, attach: last, pose, geoms, inertial, at, intermediate: false, gravcomp, color });
    for f in framed.iter().filter(|k| k.node.has_tag_name("site")) {
        framed_site(cx, f, index)?;
    }
    for f in framed.iter().filter(|k| k.node.has_tag_name("body")) {
        body(cx, f.node, Some(index), pose * f.frame, &f.class, links, joint_link, body_link)?;
    }
    Ok(())
}

/// The share of a body's mass and inertia that each intermediate link of a multi-joint body carries.
pub const INTERMEDIATE_SHARE: f64 = 0.01;

/// MJCF applies a body's joints one after the other (each axis fixed in the frame the previous ones moved). cairn
/// joins two bodies by one joint, so every joint but the last hangs an intermediate link (no geometry, named
/// `body/joint`) on the previous one, and the body hangs on the last. MuJoCo's intermediate frames are massless;
/// here each carries `INTERMEDIATE_SHARE` of the body's mass and inertia (same centre and axes), taken from the
/// body, so the total is exact at the model's pose. Returns the body's parent link and its remaining inertial.
#[allow(clippy::too_many_arguments)]
fn chain_joints(
    cx: &mut Ctx,
    n: Node,
    name: &str,
    mut parent: Option<usize>,
    pose: Pose,
    attaches: Vec<Attach>,
    inertial: Option<Inertial>,
    links: &mut Vec<Link>,
    joint_link: &mut BTreeMap<String, usize>,
) -> Result<(Option<usize>, Option<Inertial>), String> {
    if attaches.is_empty() {
        return Ok((parent, inertial));
    }
    // the body and its MJCF parent stay a parent–child pair that never collides
    if let Some(p) = parent {
        cx.exclusions.push((p, links.len() + attaches.len()));
    }
    let Some(full) = inertial.filter(|i| i.mass > 0.0) else {
        return Err(cx
            .src
            .at(n, format!("body `{name}` has {} joints but no mass to share with their intermediate links", attaches.len() + 1)));
    };
    let part = |share: f64| Inertial { mass: full.mass * share, com: full.com, inertia: full.inertia * share };
    let intermediates = attaches.len();
    for a in attaches {
        let Attach::Joint(j) = &a else { unreachable!("free joints are refused among several") };
        joint_link.insert(j.name.clone(), links.len());
        let at = format!("{} (intermediate link of joint `{}`)", cx.src.at(n, "body"), j.name);
        links.push(Link {
            name: format!("{name}/{}", j.name),
            parent,
            attach: a,
            pose,
            geoms: Vec::new(),
            inertial: Some(part(INTERMEDIATE_SHARE)),
            at,
            intermediate: true,
            gravcomp: 0.0,
            color: None,
        });
        parent = Some(links.len() - 1);
    }
    cx.notes.add(format!(
        "a body with several joints is chained through intermediate links carrying {}% of its mass each (MuJoCo's are massless)",
        INTERMEDIATE_SHARE * 100.0
    ));
    Ok((parent, Some(part(1.0 - INTERMEDIATE_SHARE * intermediates as f64))))
}

/// A `<joint>` or `<freejoint>` of a body whose frame is `frame` (robot frame).
fn joint(cx: &mut Ctx, n: Node, class: &str, frame: Pose) -> Result<Attach, String> {
    if n.has_tag_name("freejoint") {
        cx.src.attrs(n, &["name"], &["group", "align"], &mut cx.notes)?;
        return Ok(Attach::Free);
    }
    let el = cx.el(n, class)?;
    let used = [
        "name",
        "type",
        "pos",
        "axis",
        "range",
        "limited",
        "damping",
        "stiffness",
        "springref",
        "springdamper",
        "armature",
        "frictionloss",
        "ref",
    ];
    let noted = [
        "group",
        "user",
        "margin",
        "solreflimit",
        "solimplimit",
        "solreffriction",
        "solimpfriction",
        "actuatorfrcrange",
        "actuatorfrclimited",
        "actuatorgravcomp",
    ];
    el.check(cx, &used, &noted)?;
    let kind = match el.get("type").unwrap_or("hinge") {
        "hinge" => JointType::Hinge,
        "slide" => JointType::Prismatic,
        "ball" => JointType::Ball,
        "free" => return Ok(Attach::Free),
        t => return Err(cx.src.at(n, format!("joint type `{t}` is not supported; supported: `hinge`, `slide`, `ball`, `free`"))),
    };
    let reference = el.num(cx, "ref")?.unwrap_or(0.0);
    if kind == JointType::Ball && reference != 0.0 {
        return Err(cx.src.at(n, "`ref` on a ball joint is not supported (MuJoCo ignores it there too)"));
    }
    let offset = if kind == JointType::Hinge { cx.angle(reference) } else { reference };
    let pos = Vec3::from_array(el.fixed::<3>(cx, "pos")?.unwrap_or([0.0; 3]));
    let axis = Vec3::from_array(el.fixed::<3>(cx, "axis")?.unwrap_or([0.0, 0.0, 1.0]));
    if axis.length() < 1e-12 {
        return Err(cx.src.at(n, "the joint axis is zero"));
    }
    let limited = match el.get("limited") {
        Some("true") => true,
        Some("false") => false,
        None | Some("auto") => cx.autolimits && el.get("range").is_some(),
        Some(x) => return Err(cx.src.at(n, format!("`limited` must be true, false or auto, got `{x}`"))),
    };
    let mut limits = None;
    if limited {
        let [lo, hi] = el.fixed::<2>(cx, "range")?.ok_or_else(|| cx.src.at(n, "limited=\"true\" needs `range`"))?;
        if lo > hi {
            return Err(cx.src.at(n, format!("range is reversed: {lo} > {hi}")));
        }
        if kind == JointType::Ball {
            cx.notes.add("ball joint range (a cone limit) not applied: cairn's joint limits are on hinge and slide coordinates");
        } else {
            limits = Some(if kind == JointType::Hinge { [cx.angle(lo), cx.angle(hi)] } else { [lo, hi] });
        }
    }
    let nonneg = |k: &str| -> Result<f64, String> {
        let x = el.num(cx, k)?.unwrap_or(0.0);
        if x < 0.0 {
            return Err(cx.src.at(n, format!("`{k}` must be >= 0, got {x}")));
        }
        Ok(x)
    };
    let (damping, stiffness, armature, friction) = (nonneg("damping")?, nonneg("stiffness")?, nonneg("armature")?, nonneg("frictionloss")?);
    let springref = el.num(cx, "springref")?.unwrap_or(0.0);
    // MuJoCo's springdamper: a spring of that time constant and damping ratio for the joint's inertia, over
    // `stiffness` and `damping` (set once the model's inertias are known: scene::robot_scene)
    let springdamper = match el.fixed::<2>(cx, "springdamper")? {
        None | Some([0.0, 0.0]) => None,
        Some([tc, zeta]) if tc > 0.0 && zeta > 0.0 => Some([tc, zeta]),
        Some([tc, zeta]) => {
            return Err(cx.src.at(n, format!("`springdamper` needs two numbers > 0 (time constant, damping ratio), got {tc} {zeta}")))
        }
    };
    let stiffness = if springdamper.is_some() { stiffness.max(f64::MIN_POSITIVE) } else { stiffness };
    let motor = (stiffness > 0.0 && kind != JointType::Ball).then(|| {
        let target = if kind == JointType::Hinge { cx.angle(springref) } else { springref };
        crate::model::Motor { target, stiffness, damping: 0.0, max_force: None, path: Vec::new() }
    });
    if kind == JointType::Ball && springdamper.is_some() {
        return Err(cx.src.at(n, "`springdamper` on a ball joint is not supported (give `stiffness` and `damping`)"));
    }
    let ball_stiffness = if kind == JointType::Ball { stiffness } else { 0.0 };
    let name = el.get("name").map(str::to_string).unwrap_or_else(|| format!("joint@line{}", cx.src.line(n)));
    Ok(Attach::Joint(RobotJoint {
        name,
        kind,
        anchor: frame.transform_point(pos),
        axis: (frame.rotation * axis).normalize(),
        limits,
        offset,
        motor,
        damping,
        ball_stiffness,
        friction,
        armature,
        effort: None,
        springdamper,
        at: cx.src.at(n, "joint"),
    }))
}

/// A `<site>`: a frame on link `link` (sensors read there, site actuators act there) and its volume.
/// A `<site>` on `link` inside the frames `f` folds.
pub(super) fn framed_site(cx: &mut Ctx, f: &super::frame::Framed, link: usize) -> Result<(), String> {
    site(cx, f.node, &f.class, link)?;
    if let Some(s) = cx.sites.last_mut() {
        s.pose = f.frame * s.pose;
    }
    Ok(())
}

pub(super) fn site(cx: &mut Ctx, n: Node, class: &str, link: usize) -> Result<(), String> {
    let el = cx.el(n, class)?;
    let used = ["name", "type", "size", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "fromto"];
    el.check(cx, &used, &["rgba", "group", "material", "user"])?;
    let name = el.get("name").map(str::to_string).unwrap_or_else(|| format!("site@line{}", cx.src.line(n)));
    if cx.sites.iter().any(|s| s.name == name) {
        return Err(cx.src.at(n, format!("a second site called `{name}`")));
    }
    let mut size = el.nums(cx, "size")?.unwrap_or_else(|| vec![0.005]);
    // a capsule's or cylinder's `fromto`: its pose and half-length, as for geoms
    let ty = el.get("type").unwrap_or("sphere");
    let segment = match el.fixed::<6>(cx, "fromto")? {
        Some(_) if !matches!(ty, "capsule" | "cylinder") => {
            return Err(cx.src.at(n, format!("`fromto` is supported on capsule and cylinder sites, not `{ty}`")))
        }
        Some(f) => {
            let (pose, half) = super::geom::segment(cx, n, f)?;
            size.truncate(1);
            size.push(half);
            Some(pose)
        }
        None => None,
    };
    if size.iter().any(|&x| !(x > 0.0) || !x.is_finite()) {
        return Err(cx.src.at(n, "`size` must be positive numbers"));
    }
    let at = |k: usize| size.get(k).copied().unwrap_or(size[0]);
    let shape = match ty {
        "sphere" => SiteShape::Sphere(at(0)),
        "box" => SiteShape::Box(Vec3::new(at(0), at(1), at(2))),
        "capsule" => SiteShape::Capsule(at(0), at(1)),
        "cylinder" => SiteShape::Cylinder(at(0), at(1)),
        "ellipsoid" => SiteShape::Ellipsoid(Vec3::new(at(0), at(1), at(2))),
        t => return Err(cx.src.at(n, format!("site type `{t}` is not supported; supported: sphere, box, capsule, cylinder, ellipsoid"))),
    };
    let pose = match segment {
        Some(p) => p,
        None => Pose::from_parts(Vec3::from_array(el.fixed::<3>(cx, "pos")?.unwrap_or([0.0; 3])), orientation(cx, &el)?),
    };
    cx.sites.push(RobotSite { name, link, pose, shape });
    Ok(())
}
