//! Joint kinematics shared by every method: a joint seen in the world at given poses, its coordinate (hinge angle,
//! prismatic displacement) and rate, the constraint rows a joint holds at zero, and the motor's target.
//!
//! A *row* is one scalar constraint function C of both bodies' poses with its velocity Jacobian:
//! Ċ = lin₁·v₁ + ang₁·ω₁ + lin₂·v₂ + ang₂·ω₂ (v at the centre of mass, ω world frame). The rows are exact
//! derivatives of their C at any pose (checked against central differences in the tests), so a method may use
//! them for velocity rows (lcp), impulses (impulse), spring–dampers (volumetric-penalty) or stabilisation
//! (implicit-penalty). For the world side (`body2 = None`) the side-2 blocks are to be ignored.
//!
//! Conventions: body 1 is the parent and body 2 the child (as the scene format's `body1 = "arm"`, `body2 =
//! "bucket"`), and the coordinate q is the child's relative to the parent — a hinge's angle from body 1's
//! reference direction to body 2's about body 1's axis, in (−π, π]; a prismatic joint's displacement of body 2's
//! anchor from body 1's along body 1's axis. A joint to the world (`body2` left out) measures body 1 relative to
//! the world instead (the row negated), so a body on a hinge to the world has q = its own angle about the axis.
//! q = `Joint::offset` (0 but for an MJCF `ref`) at the load pose. Limits are `lo ≤ q ≤ hi`; a motor drives q
//! towards its target.

use crate::math::{Quat, Vec3};
use crate::model::{Joint, JointType, Model, Motor};
use crate::state::{BodyState, State};
use std::f64::consts::PI;

/// A joint in the world at the current poses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointPose {
    /// The anchor on each side (for the world side, the world point).
    pub p: [Vec3; 2],
    /// Each side's centre of mass (the world side: its anchor), so that the lever arms are `p − c`.
    pub c: [Vec3; 2],
    /// The unit axis and the reference direction (perpendicular to it) of each side.
    pub axis: [Vec3; 2],
    pub reference: [Vec3; 2],
    /// −1 for a joint to the world (q measures body 1 relative to the world), else 1.
    pub sign: f64,
    /// The coordinate at the load pose (`Joint::offset`).
    pub offset: f64,
}

/// One scalar constraint: its value `c` and velocity Jacobian blocks for side 1 and side 2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub c: f64,
    pub lin: [Vec3; 2],
    pub ang: [Vec3; 2],
}

impl Row {
    /// Ċ for the given velocities of the two sides.
    pub fn rate(&self, v: [Vec3; 2], w: [Vec3; 2]) -> f64 {
        self.lin[0].dot(v[0]) + self.ang[0].dot(w[0]) + self.lin[1].dot(v[1]) + self.ang[1].dot(w[1])
    }

    /// The same row with value `−c` and negated Jacobian (an upper limit `hi − q ≥ 0` from the coordinate row).
    pub fn negated(&self) -> Row {
        Row { c: -self.c, lin: [-self.lin[0], -self.lin[1]], ang: [-self.ang[0], -self.ang[1]] }
    }
}

impl JointPose {
    /// The joint at side poses given as (centre of mass, orientation); `None` for side 2 is the world.
    pub fn at(model: &Model, j: &Joint, s1: (Vec3, Quat), s2: Option<(Vec3, Quat)>) -> JointPose {
        let side = |k: usize, body: usize, (x, q): (Vec3, Quat)| {
            let f = &j.frames[k];
            let p = x + q * (f.anchor - model.bodies[body].com);
            (p, x, q * f.axis, q * f.reference)
        };
        let (p1, c1, a1, r1) = side(0, j.body1, s1);
        let (p2, c2, a2, r2) = match (j.body2, s2) {
            (Some(b), Some(s)) => side(1, b, s),
            _ => {
                let f = &j.frames[1];
                (f.anchor, f.anchor, f.axis, f.reference)
            }
        };
        let sign = if j.body2.is_some() { 1.0 } else { -1.0 };
        JointPose { p: [p1, p2], c: [c1, c2], axis: [a1, a2], reference: [r1, r2], sign, offset: j.offset }
    }

    /// The joint at the bodies' states.
    pub fn of(model: &Model, j: &Joint, bodies: &[BodyState]) -> JointPose {
        let s = |b: usize| (bodies[b].x, bodies[b].q);
        JointPose::at(model, j, s(j.body1), j.body2.map(s))
    }

    /// Body 1's frame: axis, reference, axis × reference.
    fn frame1(&self) -> [Vec3; 3] {
        [self.axis[0], self.reference[0], self.axis[0].cross(self.reference[0])]
    }

    /// Row of `t·(p₂ − p₁)` for a direction `t` fixed in body 1.
    fn point_row(&self, t: Vec3) -> Row {
        let d = self.p[1] - self.p[0];
        Row { c: t.dot(d), lin: [-t, t], ang: [-(self.p[1] - self.c[0]).cross(t), (self.p[1] - self.c[1]).cross(t)] }
    }

    /// Row of `u·a₂` for a direction `u` fixed in body 1 (zero when body 2's axis is perpendicular to `u`).
    fn axis_row(&self, u: Vec3) -> Row {
        let a2 = self.axis[1];
        Row { c: u.dot(a2), lin: [Vec3::ZERO; 2], ang: [u.cross(a2), a2.cross(u)] }
    }

    /// Row `k` of the relative rotation `½ Σᵢ u₁ᵢ × u₂ᵢ` (sin θ times the axis, world component `k`).
    fn rotation_row(&self, k: usize) -> Row {
        let e = Vec3::AXES[k];
        let u1 = self.frame1();
        let u2 = [self.axis[1], self.reference[1], self.axis[1].cross(self.reference[1])];
        let mut row = Row { c: 0.0, lin: [Vec3::ZERO; 2], ang: [Vec3::ZERO; 2] };
        for i in 0..3 {
            let (a, b) = (u1[i], u2[i]);
            row.c += 0.5 * e.dot(a.cross(b));
            row.ang[0] -= 0.5 * (e * a.dot(b) - b * e.dot(a));
            row.ang[1] += 0.5 * (e * a.dot(b) - a * e.dot(b));
        }
        row
    }

    /// Appends the rows the joint holds at zero: ball 3 (anchors coincide), hinge 5 (and the axes align),
    /// prismatic 5 (anchors on the axis line, orientations equal), fixed 6.
    pub fn bilateral_rows(&self, kind: JointType, out: &mut Vec<Row>) {
        let [a, r, s] = self.frame1();
        match kind {
            JointType::Ball => out.extend([a, r, s].map(|t| self.point_row(t))),
            JointType::Hinge => {
                out.extend([a, r, s].map(|t| self.point_row(t)));
                out.extend([r, s].map(|u| self.axis_row(u)));
            }
            JointType::Prismatic => {
                out.extend([r, s].map(|t| self.point_row(t)));
                out.extend((0..3).map(|k| self.rotation_row(k)));
            }
            JointType::Fixed => {
                out.extend([a, r, s].map(|t| self.point_row(t)));
                out.extend((0..3).map(|k| self.rotation_row(k)));
            }
        }
    }

    /// The joint coordinate's row (`c` = q): hinge angle in (−π, π] plus the offset, or prismatic displacement (see the module's
    /// conventions for joints to the world); `None` for ball and fixed joints, which have none.
    pub fn coordinate_row(&self, kind: JointType) -> Option<Row> {
        let row = self.child_row(kind)?;
        let mut row = if self.sign < 0.0 { row.negated() } else { row };
        row.c += self.offset;
        Some(row)
    }

    /// The coordinate of body 2 relative to body 1, whichever side is the world.
    fn child_row(&self, kind: JointType) -> Option<Row> {
        match kind {
            JointType::Prismatic => Some(self.point_row(self.axis[0])),
            JointType::Hinge => {
                let (a1, r1, r2) = (self.axis[0], self.reference[0], self.reference[1]);
                let n = r1.cross(r2);
                let (s, c) = (n.dot(a1), r1.dot(r2));
                let den = s * s + c * c;
                let ds1 = r1.cross(r2.cross(a1)) + a1.cross(n);
                let ds2 = r2.cross(a1.cross(r1));
                Some(Row { c: s.atan2(c), lin: [Vec3::ZERO; 2], ang: [(ds1 * c - n * s) / den, (ds2 * c + n * s) / den] })
            }
            JointType::Ball | JointType::Fixed => None,
        }
    }
}

/// `x` wrapped into (−π, π].
pub fn wrap_angle(x: f64) -> f64 {
    let y = x.rem_euclid(2.0 * PI);
    if y > PI {
        y - 2.0 * PI
    } else {
        y
    }
}

/// A motor's current target: value, rate, and whether it was set from the library (`World::set_motor_target`),
/// after which the scene's path no longer moves it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MotorTarget {
    pub value: f64,
    pub rate: f64,
    pub external: bool,
}

/// The target of `motor` at time `t`: its path's value (linear between waypoints, held outside) and slope, or
/// its constant target with rate 0.
pub fn path_target(motor: &Motor, t: f64) -> MotorTarget {
    let path = &motor.path;
    let target = |value, rate| MotorTarget { value, rate, external: false };
    match (path.first(), path.last()) {
        (None, _) | (_, None) => target(motor.target, 0.0),
        (Some(first), _) if t <= first.time => target(first.value, 0.0),
        (_, Some(last)) if t >= last.time => target(last.value, 0.0),
        _ => {
            let k = path.windows(2).position(|w| t < w[1].time).unwrap_or(path.len() - 2);
            let (a, b) = (path[k], path[k + 1]);
            let rate = (b.value - a.value) / (b.time - a.time);
            target(a.value + rate * (t - a.time), rate)
        }
    }
}

/// The motors' targets at time 0, one entry per joint (`None` for a joint without a motor).
pub fn initial_targets(model: &Model) -> Vec<Option<MotorTarget>> {
    model.joints.iter().map(|j| j.motor.as_ref().map(|m| path_target(m, 0.0))).collect()
}

/// Moves every motor target that follows its path to the path's value at `state.time`.
pub fn follow_paths(model: &Model, state: &mut State) {
    if state.motor_targets.len() != model.joints.len() {
        state.motor_targets = initial_targets(model);
    }
    for (j, t) in model.joints.iter().zip(state.motor_targets.iter_mut()) {
        if let (Some(m), Some(t)) = (&j.motor, t.as_mut()) {
            if !t.external {
                *t = path_target(m, state.time);
            }
        }
    }
}

/// The motor's generalised force on the coordinate for coordinate `q` and rate `qd`:
/// `stiffness·(q* − q) + damping·(q̇* − q̇)` (the angle error wrapped into (−π, π] for a hinge), clamped to
/// ±`max_force`.
pub fn motor_force(kind: JointType, motor: &Motor, target: &MotorTarget, q: f64, qd: f64) -> f64 {
    let mut e = target.value - q;
    if kind == JointType::Hinge {
        e = wrap_angle(e);
    }
    let f = motor.stiffness * e + motor.damping * (target.rate - qd);
    match motor.max_force {
        Some(m) => f.clamp(-m, m),
        None => f,
    }
}

/// Every joint's coordinate and rate at the state, for joints that have one (hinge, prismatic):
/// (joint index, q, q̇). This is what metrics.csv writes as `joint<k>_q`, `joint<k>_qd`.
pub fn coordinates(model: &Model, state: &State) -> Vec<(usize, f64, f64)> {
    let mut out = Vec::new();
    for (k, j) in model.joints.iter().enumerate() {
        let pose = JointPose::of(model, j, &state.bodies);
        if let Some(row) = pose.coordinate_row(j.kind) {
            let vel = |b: Option<usize>| b.map_or((Vec3::ZERO, Vec3::ZERO), |b| (state.bodies[b].v, state.bodies[b].w));
            let ((v1, w1), (v2, w2)) = (vel(Some(j.body1)), vel(j.body2));
            out.push((k, row.c, row.rate([v1, v2], [w1, w2])));
        }
    }
    out
}

#[cfg(test)]
#[path = "joint_tests.rs"]
mod tests;
