//! Joint coordinates that start outside their limits (gym's ant: its ankles' range is 30°–70° and the file's
//! pose is 0; MuJoCo's soft limits push them in within a few steps). A method whose limits are barriers (abd)
//! cannot start there: this moves each such coordinate just inside its limit by turning (hinge) or sliding
//! (prismatic) the bodies below the joint about its axis, parents before children, and reports the moves.

use crate::math::{Quat, Vec3};
use crate::model::{BodyKind, JointType, Model};
use crate::state::State;

/// One coordinate moved into its limits: the joint, its value before and after.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moved {
    pub joint: usize,
    pub from: f64,
    pub to: f64,
}

/// Joint `j`'s coordinate at the state (hinge or prismatic with limits), or None.
fn coordinate(model: &Model, state: &State, j: usize) -> Option<f64> {
    let joint = &model.joints[j];
    let pose = super::joint::JointPose::of(model, joint, &state.bodies);
    pose.coordinate_row(joint.kind).map(|row| row.c)
}

/// Turns or slides the bodies `moved` by `amount` about (hinge) or along (prismatic) the world axis `axis`
/// through `anchor`.
fn displace(state: &mut State, moved: &[usize], kind: JointType, anchor: Vec3, axis: Vec3, amount: f64) {
    for &b in moved {
        let s = &mut state.bodies[b];
        if kind == JointType::Hinge {
            let r = Quat::from_axis_angle(axis, amount);
            s.x = anchor + r * (s.x - anchor);
            s.q = (r * s.q).normalize();
            s.v = r * s.v;
            s.w = r * s.w;
        } else {
            s.x += axis * amount;
        }
    }
}

/// Moves every limited hinge or prismatic coordinate that lies outside its limits to `margin(joint)` inside the
/// nearer one (the middle of a range narrower than two margins). The bodies moved are the ones
/// below the joint's child in the tree; a joint whose child cannot move is left. Returns the moves, in joint
/// order.
pub fn move_into_limits(model: &Model, state: &mut State, margin: impl Fn(usize) -> f64) -> Vec<Moved> {
    let parents = super::tree::parents(model);
    let mut out = Vec::new();
    for (j, joint) in model.joints.iter().enumerate() {
        let (Some([lo, hi]), JointType::Hinge | JointType::Prismatic) = (joint.limits, joint.kind) else { continue };
        let Some(q) = coordinate(model, state, j) else { continue };
        let m = margin(j).min(0.5 * (hi - lo));
        if !q.is_finite() || (lo..=hi).contains(&q) {
            continue;
        }
        let target = q.clamp(lo + m, hi - m);
        let child = joint.body2.unwrap_or(joint.body1);
        if model.bodies[child].kind != BodyKind::Dynamic {
            continue;
        }
        let moved: Vec<usize> = (0..model.bodies.len()).filter(|&b| super::tree::is_below(&parents, b, child)).collect();
        // the joint's world anchor and axis now, on its first body (or the world)
        let pose = super::joint::JointPose::of(model, joint, &state.bodies);
        let (anchor, axis) = (pose.p[0], pose.axis[0]);
        // turn one way; if the coordinate went the other, turn back twice as far
        displace(state, &moved, joint.kind, anchor, axis, target - q);
        if coordinate(model, state, j).is_some_and(|now| (now - target).abs() > (q - target).abs()) {
            displace(state, &moved, joint.kind, anchor, axis, -2.0 * (target - q));
        }
        out.push(Moved { joint: j, from: q, to: coordinate(model, state, j).unwrap_or(target) });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An arm on a hinge at the world origin whose range is [0.5, 1.2] rad and whose file pose is 0: moved to
    /// 0.5 + margin, turned about the hinge (its centre stays 0.5 m from it); a second arm below it turns with it;
    /// a coordinate inside its limits is left.
    #[test]
    fn a_coordinate_outside_its_limits_is_turned_just_inside_with_its_subtree() {
        let text = "format = 1\n[[body]]\nname = \"arm\"\nshape = { type = \"box\", size = [1.0, 0.1, 0.1] }\nposition = [0.5, 0.0, 0.0]\n\
[[body]]\nname = \"fore\"\nshape = { type = \"box\", size = [1.0, 0.1, 0.1] }\nposition = [1.5, 0.0, 0.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"arm\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nlimits = [0.5, 1.2]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"arm\"\nbody2 = \"fore\"\nanchor = [1.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nlimits = [-1.0, 1.0]\n";
        let model = crate::scene::load_str(text, "t", "t", std::path::Path::new("."), &[]).unwrap();
        let mut state = State::from_model(&model);
        let moved = move_into_limits(&model, &mut state, |_| 0.01);
        assert_eq!(moved.len(), 1);
        assert_eq!((moved[0].joint, moved[0].from), (0, 0.0));
        assert!((moved[0].to - 0.51).abs() < 1e-12, "{:?}", moved[0]);
        assert!((coordinate(&model, &state, 0).unwrap() - 0.51).abs() < 1e-12);
        assert!((state.bodies[0].x.length() - 0.5).abs() < 1e-12, "the arm turned about its hinge");
        assert!(coordinate(&model, &state, 1).unwrap().abs() < 1e-12, "the forearm kept its own coordinate");
        assert!((state.bodies[1].x.length() - 1.5).abs() < 1e-12, "the forearm turned with the arm");
        assert!(move_into_limits(&model, &mut state, |_| 0.01).is_empty());
    }
}
