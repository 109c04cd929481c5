//! The `[[joint]]` tables of a scene: type, bodies, anchor and axis (world frame at load), optional limits and an
//! optional PD motor on the joint coordinate (hinge angle in rad, prismatic displacement in m).
//!
//! ```toml
//! [[joint]]
//! type = "hinge"
//! body1 = "arm"
//! body2 = "world"
//! anchor = [0.0, 0.0, 1.0]
//! axis = [0.0, 1.0, 0.0]
//! limits = [-1.0, 1.0]
//! # torque = stiffness·(target − q) + damping·(target_rate − q̇), clamped to ±max_force (optional);
//! # `path` (an extension of format 1): waypoints of the target, linear between them, held outside
//! motor = { stiffness = 100.0, damping = 10.0, max_force = 50.0, path = [{ time = 0.0, value = 0.0 }, { time = 1.0, value = 0.5 }] }
//! ```

use super::{finite, vec3};
use crate::model::{Body, BodyKind, Joint, JointFrame, JointType, Motor, MotorWaypoint};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::f64::consts::PI;

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub(super) enum JointTypeT {
    Ball,
    Hinge,
    Prismatic,
    Fixed,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MotorT {
    target: Option<f64>,
    stiffness: f64,
    damping: f64,
    max_force: Option<f64>,
    #[serde(default)]
    path: Vec<MotorWaypointT>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MotorWaypointT {
    time: f64,
    value: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct JointT {
    #[serde(rename = "type")]
    kind: JointTypeT,
    /// Optional; what actuators, sensors and `joint_names` call the joint (default `joint<k>`).
    name: Option<String>,
    body1: String,
    body2: Option<String>,
    anchor: [f64; 3],
    axis: Option<[f64; 3]>,
    limits: Option<[f64; 2]>,
    motor: Option<MotorT>,
}

/// Checks a motor table: gains ≥ 0, `max_force` > 0, a target or a path (times strictly increasing), and for a
/// hinge every target within [-π, π].
fn motor(m: MotorT, kind: JointType, what: &str) -> Result<Motor, String> {
    if matches!(kind, JointType::Ball | JointType::Fixed) {
        return Err(format!("{what}: a motor needs a joint coordinate; only hinge and prismatic joints have one"));
    }
    for (v, k) in [(m.stiffness, "stiffness"), (m.damping, "damping")] {
        if finite(v, &format!("{what}: motor.{k}"))? < 0.0 {
            return Err(format!("{what}: motor.{k} must be >= 0, got {v}"));
        }
    }
    if let Some(f) = m.max_force {
        if !(finite(f, &format!("{what}: motor.max_force"))? > 0.0) {
            return Err(format!("{what}: motor.max_force must be > 0 (N or N·m), got {f}"));
        }
    }
    let mut path = Vec::with_capacity(m.path.len());
    for (k, w) in m.path.iter().enumerate() {
        let time = finite(w.time, &format!("{what}: motor.path[{k}].time"))?;
        let value = finite(w.value, &format!("{what}: motor.path[{k}].value"))?;
        if let Some(prev) = path.last().map(|p: &MotorWaypoint| p.time) {
            if time <= prev {
                return Err(format!("{what}: motor.path[{k}].time {time} must be greater than the previous waypoint's {prev}"));
            }
        }
        path.push(MotorWaypoint { time, value });
    }
    let target = match (m.target, path.first()) {
        (Some(t), _) => finite(t, &format!("{what}: motor.target"))?,
        (None, Some(w)) => w.value,
        (None, None) => return Err(format!("{what}: a motor needs `target` or a `path` of {{ time, value }} waypoints")),
    };
    if kind == JointType::Hinge {
        for v in std::iter::once(target).chain(path.iter().map(|w| w.value)) {
            if v.abs() > PI {
                return Err(format!("{what}: a hinge motor's target {v} must lie within [-π, π] rad"));
            }
        }
    }
    Ok(Motor { target, stiffness: m.stiffness, damping: m.damping, max_force: m.max_force, path })
}

/// The model's joints from the scene's `[[joint]]` tables; `names` maps body names to indices.
pub(super) fn joints(list: Vec<JointT>, bodies: &[Body], names: &BTreeMap<String, usize>) -> Result<Vec<Joint>, String> {
    let lookup =
        |n: &str, what: &str| -> Result<usize, String> { names.get(n).copied().ok_or_else(|| format!("{what}: unknown body `{n}`")) };
    let mut joints = Vec::new();
    for (ji, j) in list.into_iter().enumerate() {
        let what = format!("joint #{ji}");
        let body1 = lookup(&j.body1, &what)?;
        let body2 = match j.body2.as_deref() {
            None | Some("world") => None,
            Some(n) => Some(lookup(n, &what)?),
        };
        if body2 == Some(body1) {
            return Err(format!("{what}: joins body `{}` to itself", j.body1));
        }
        let fixed = |b: Option<usize>| b.is_none_or(|b| bodies[b].kind != BodyKind::Dynamic);
        if fixed(Some(body1)) && fixed(body2) {
            return Err(format!("{what}: both bodies are static or the world; a joint needs a moving body"));
        }
        let kind = match j.kind {
            JointTypeT::Ball => JointType::Ball,
            JointTypeT::Hinge => JointType::Hinge,
            JointTypeT::Prismatic => JointType::Prismatic,
            JointTypeT::Fixed => JointType::Fixed,
        };
        let anchor = vec3(j.anchor, &format!("{what}: anchor"))?;
        let axis = vec3(j.axis.unwrap_or([0.0, 0.0, 1.0]), &format!("{what}: axis"))?;
        if matches!(kind, JointType::Hinge | JointType::Prismatic) && j.axis.is_none() {
            return Err(format!("{what}: a {} joint needs `axis`", format!("{kind:?}").to_lowercase()));
        }
        if axis.length() < 1e-12 {
            return Err(format!("{what}: axis is zero"));
        }
        if let Some([lo, hi]) = j.limits {
            finite(lo, &format!("{what}: limits"))?;
            finite(hi, &format!("{what}: limits"))?;
            if lo > hi {
                return Err(format!("{what}: limits [{lo}, {hi}] are reversed"));
            }
            if kind == JointType::Hinge && (lo < -PI || hi > PI) {
                return Err(format!("{what}: hinge limits [{lo}, {hi}] must lie within [-π, π] rad (the angle is measured in (-π, π])"));
            }
            if matches!(kind, JointType::Ball | JointType::Fixed) {
                return Err(format!("{what}: `limits` need a coordinate; only hinge and prismatic joints have one"));
            }
        }
        let motor = j.motor.map(|m| motor(m, kind, &what)).transpose()?;
        let axis = axis.normalize();
        let reference = crate::math::tangent_basis(axis).0;
        let pose = |b: Option<usize>| b.map(|b| (bodies[b].position, bodies[b].rotation));
        let frames = [
            JointFrame::from_world(anchor, axis, reference, pose(Some(body1))),
            JointFrame::from_world(anchor, axis, reference, pose(body2)),
        ];
        joints.push(Joint {
            kind,
            body1,
            body2,
            frames,
            anchor,
            axis,
            limits: j.limits,
            motor,
            offset: 0.0,
            armature: 0.0,
            armature_folded: false,
            ball_damping: 0.0,
            ball_stiffness: 0.0,
            ball_rest: crate::math::Quat::IDENTITY,
            name: j.name.unwrap_or_default(),
        });
    }

    Ok(joints)
}
