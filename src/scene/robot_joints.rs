//! A placed robot's joints: each tree joint between its link's body and its parent's (or the world), with
//! its armature, friction and damping, and the joints that close loops (MJCF connect and weld equalities).

use super::robot::{Placed, Placement, Robot, RobotJoint, RobotLoop};
use crate::math::{Mat3, Pose, Quat, Vec3};
use crate::model::{BodyKind, Joint, JointFrame, JointType, Motor};

/// Adds the model joint that closes loop `l`: a ball or fixed joint between the bodies of its links (or the
/// world), at its anchor, holding link 2 at its zero-configuration pose relative to link 1 or at the weld's
/// `relative` pose.
pub(super) fn loop_joint(
    robot: &Robot,
    l: &RobotLoop,
    body_of: &[usize],
    members: &[Vec<usize>],
    out: &mut Placed,
    base: usize,
    p: &Placement,
) -> Result<(), String> {
    let body1 = body_of[l.link1];
    let body2 = l.link2.map(|k| body_of[k]);
    if body2 == Some(body1) {
        return Err(format!("{}: joins two links welded into one body", l.at));
    }
    let moving = |b: usize| out.bodies[b].kind == BodyKind::Dynamic;
    if !moving(body1) && !body2.is_some_and(moving) {
        return Err(format!("{}: joins two bodies that cannot move", l.at));
    }
    let world = |pose: Pose| Pose::from_parts(p.position + p.rotation * pose.translation, p.rotation * pose.rotation);
    // the frame held in common: at link 2's pose (its wanted pose for a weld with `relative`), through the anchor
    let link1 = robot.links[l.link1].pose;
    let target = match (l.relative, l.link2) {
        (Some(rel), _) => link1 * rel,
        (None, Some(k)) => robot.links[k].pose,
        (None, None) => Pose::IDENTITY,
    };
    let (axis, reference) = (target.rotation * Vec3::Z, target.rotation * Vec3::X);
    let anchor = if l.kind == JointType::Fixed { target.translation } else { l.anchor };
    let w = world(Pose::from_parts(anchor, Quat::IDENTITY)).translation;
    let (wa, wr) = (p.rotation * axis, p.rotation * reference);
    let pose = |b: usize| (out.bodies[b].position, out.bodies[b].rotation);
    let frame1 = JointFrame::from_world(w, wa, wr, Some(pose(body1)));
    // body 2's frame: where the common frame sits on it at the wanted pose (the zero configuration's unless
    // the weld gives one), from its head link
    let frame2 = match (body2, l.link2) {
        (Some(b2), Some(k)) => {
            // H⁻¹ · L_k · target⁻¹ · F: the common frame F on link k at its wanted pose, in body 2's frame (H: its
            // head link's pose)
            let f = Pose::from_parts(anchor, target.rotation);
            let on = robot.links[members[b2][0]].pose.inverse() * robot.links[k].pose * target.inverse() * f;
            JointFrame { anchor: on.translation, axis: on.rotation * Vec3::Z, reference: on.rotation * Vec3::X }
        }
        _ if l.relative.is_some() => return Err(format!("{}: a weld to the world with `relpose` is not supported", l.at)),
        _ => JointFrame::from_world(w, wa, wr, None),
    };
    out.joints.push(Joint {
        kind: l.kind,
        body1: base + body1,
        body2: body2.map(|b| base + b),
        frames: [frame1, frame2],
        anchor: w,
        axis: wa,
        limits: None,
        motor: None,
        offset: 0.0,
        armature: 0.0,
        armature_folded: false,
        ball_damping: 0.0,
        ball_stiffness: 0.0,
        ball_rest: Quat::IDENTITY,
        name: format!("{}{}", p.prefix, l.name),
    });
    Ok(())
}

/// Adds the model joint of `j` between body `child` and `parent` (robot-local indices).
pub(super) fn joint_of(
    j: &RobotJoint,
    out: &mut Placed,
    child: usize,
    parent: Option<usize>,
    base: usize,
    p: &Placement,
    file: &str,
) -> Result<(), String> {
    let anchor = p.position + p.rotation * j.anchor;
    let axis = (p.rotation * j.axis).normalize();
    let reference = crate::math::tangent_basis(axis).0;
    let parent_static = parent.is_none_or(|q| out.bodies[q].kind != BodyKind::Dynamic);
    if out.bodies[child].kind != BodyKind::Dynamic && parent_static {
        return Err(format!("{}: joins two bodies that cannot move (both welded to the world)", j.at));
    }
    // armature: rotor inertia on the coordinate, kept on the joint (every method puts it on the coordinate's
    // row); folded into the child's inertia where that is exact (the parent cannot move), so that the methods
    // then add nothing (`Joint::rotor_inertia`): about the axis for a hinge; for a ball joint, MuJoCo's
    // armature·I on its three rotational coordinates, which is armature·I added to the child's inertia (an
    // isotropic inertia is the same about every point)
    let (armature, mut armature_folded) = (j.armature, false);
    if j.armature > 0.0 {
        let body = &mut out.bodies[child];
        if j.kind == JointType::Hinge && parent_static {
            let a = body.rotation.inverse() * axis;
            body.inertia += Mat3::from_cols(a * a.x, a * a.y, a * a.z) * j.armature;
            body.inv_inertia = body.inertia.inverse();
            armature_folded = true;
        } else if j.kind == JointType::Ball && parent_static {
            body.inertia += Mat3::IDENTITY * j.armature;
            body.inv_inertia = body.inertia.inverse();
            armature_folded = true;
        } else if !matches!(j.kind, JointType::Hinge | JointType::Prismatic) {
            out.notes.push(format!(
                "{file}: joint `{}`: armature {} on a {} joint is not applied (only hinges and sliders have a coordinate row, and a ball joint on a body that cannot move takes it into the child's inertia)",
                j.name,
                j.armature,
                format!("{:?}", j.kind).to_lowercase()
            ));
        }
    }
    if j.friction > 0.0 {
        out.notes.push(format!(
            "{file}: joint `{}`: friction {} not applied (no method runs Coulomb friction on a joint coordinate)",
            j.name, j.friction
        ));
    }
    // a ball joint's damping acts on its relative rotation (`Joint::ball_damping`), not through a motor
    let damping = if j.kind == JointType::Ball { 0.0 } else { j.damping };
    let motor = match (&j.motor, damping) {
        (Some(m), d) => Some(Motor { damping: m.damping + d, ..m.clone() }),
        (None, d) if d > 0.0 => Some(Motor { target: 0.0, stiffness: 0.0, damping: d, max_force: None, path: Vec::new() }),
        (None, _) => None,
    };
    // dynamics/joint.rs: body 1 is the parent and body 2 the child, so q is the child's coordinate relative to
    // the parent; a joint to the world has the child as body 1 and measures it relative to the world
    let (body1, body2) = match parent {
        Some(q) => (q, Some(child)),
        None => (child, None),
    };
    let pose = |b: usize| (out.bodies[b].position, out.bodies[b].rotation);
    let frames = [
        JointFrame::from_world(anchor, axis, reference, Some(pose(body1))),
        JointFrame::from_world(anchor, axis, reference, body2.map(pose)),
    ];
    let (body1, body2) = (base + body1, body2.map(|b| base + b));
    out.joints.push(Joint {
        kind: j.kind,
        body1,
        body2,
        frames,
        anchor,
        axis,
        limits: j.limits,
        motor,
        offset: j.offset,
        armature,
        armature_folded,
        ball_damping: if j.kind == JointType::Ball { j.damping } else { 0.0 },
        ball_stiffness: if j.kind == JointType::Ball { j.ball_stiffness } else { 0.0 },
        ball_rest: match body2 {
            Some(c) => out.bodies[body1 - base].rotation.inverse() * out.bodies[c - base].rotation,
            None => out.bodies[body1 - base].rotation,
        },
        name: format!("{}{}", p.prefix, j.name),
    });
    Ok(())
}
