//! Joints in `lcp`: their rows in the velocity-level problem beside the contact rows, in the correction
//! (projection) solve, their warm start and what they transmitted.
//!
//! Per joint (kinematics from dynamics/joint.rs): bilateral rows w = J u + κ/h with the row's curvature along
//! the step κ (C kept to second order, as SHAKE does), the error itself removed by the source's projection; limit
//! rows one-sided like a contact's normal; the PD motor as a soft row implicit in the coordinate (ERP/CFM form,
//! stable for any gains), bounded by ±max_force·h. See docs/methods/lcp.md, "Joints".

use super::{Lcp, SBody};
use crate::dynamics::joint::{path_target, wrap_angle, JointPose, Row};
use crate::dynamics::joint_block::JRow;
use crate::math::{Mat3, Vec3};
use crate::method::JointReading;
use crate::model::{JointType, Model};
use crate::state::State;

/// Row slots per joint: up to 6 bilateral rows, the lower and the upper limit, the motor.
pub const JOINT_SLOTS: usize = 9;
const LIMIT_LO: usize = 6;
const LIMIT_HI: usize = 7;
const MOTOR: usize = 8;

/// The warm-start impulses of one joint's rows (N·s or N·m·s), per pass (0: the dynamics pass, 1: shock
/// propagation) and slot (bilateral rows in `bilateral_rows` order, lower limit, upper limit, motor).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JointWarm {
    pub impulse: [[f64; JOINT_SLOTS]; 2],
}

/// What one row needs besides its Jacobian.
struct Kind {
    slot: usize,
    gamma: f64,
    bias: f64,
    lo: f64,
    hi: f64,
}

/// A row from the shared kinematics' `Row` for the bodies' current inverse masses (`None`: the world side).
fn make(row: &Row, sides: [Option<usize>; 2], n: usize, bodies: &[SBody], frozen: &[bool], joint: usize, k: Kind) -> JRow {
    let mut r = JRow {
        a: sides[0].unwrap_or(n) as u32,
        b: sides[1].unwrap_or(n) as u32,
        joint: joint as u32,
        slot: k.slot as u32,
        lin: row.lin,
        ang: row.ang,
        ml: [Vec3::ZERO; 2],
        mi: [Vec3::ZERO; 2],
        inv_diag: 0.0,
        gamma: k.gamma,
        bias: k.bias,
        lo: k.lo,
        hi: k.hi,
        lambda: 0.0,
    };
    let mut d = k.gamma;
    for s in 0..2 {
        let Some(i) = sides[s] else {
            r.lin[s] = Vec3::ZERO;
            r.ang[s] = Vec3::ZERO;
            continue;
        };
        if frozen[i] {
            continue;
        }
        let (inv_m, inv_i): (f64, &Mat3) = (bodies[i].inv_m, &bodies[i].inv_i);
        r.ml[s] = r.lin[s] * inv_m;
        r.mi[s] = *inv_i * r.ang[s];
        d += r.lin[s].dot(r.ml[s]) + r.ang[s].dot(r.mi[s]);
    }
    r.inv_diag = if d > 1e-300 { 1.0 / d } else { 0.0 };
    r
}

impl Lcp {
    /// Builds the velocity rows of the joints `list` for `pass` (0: dynamics, 1: shock propagation) into
    /// `out`, from the current poses and solver velocities, warm-started from the previous step when on.
    pub(super) fn joint_velocity_rows(&mut self, model: &Model, state: &State, h: f64, list: &[u32], pass: usize, out: &mut Vec<JRow>) {
        out.clear();
        let n = model.bodies.len();
        let mut buf = std::mem::take(&mut self.row_buf);
        let mut ahead = std::mem::take(&mut self.row_ahead);
        for &k in list {
            let k = k as usize;
            let j = &model.joints[k];
            let sides = [Some(j.body1), j.body2];
            let pose = JointPose::of(model, j, &state.bodies);
            self.joint_arm[k] = pose.c[0] - pose.p[0];
            let (va, vb) = (self.vel[j.body1], self.vel[j.body2.unwrap_or(n)]);
            let predicted = |b: usize| {
                let mut s = state.bodies[b];
                (s.v, s.w) = (self.vel[b].v, self.vel[b].w);
                self.turn(model, b, &mut s, h);
                (s.x, s.q)
            };
            ahead.clear();
            JointPose::at(model, j, predicted(j.body1), j.body2.map(predicted)).bilateral_rows(j.kind, &mut ahead);
            let warm = if self.params.warm_start { self.joint_warm.get(k).map(|w| w.impulse[pass]) } else { None };
            let start = out.len();
            buf.clear();
            pose.bilateral_rows(j.kind, &mut buf);
            for (slot, (row, end)) in buf.iter().zip(&ahead).enumerate() {
                let curvature = end.c - row.c - h * row.rate([va.v, vb.v], [va.w, vb.w]);
                let kind = Kind { slot, gamma: 0.0, bias: curvature / h, lo: f64::NEG_INFINITY, hi: f64::INFINITY };
                out.push(make(row, sides, n, &self.bodies, &self.frozen, k, kind));
            }
            if j.limits.is_some() || j.motor.is_some() || j.armature > 0.0 {
                let Some(cr) = pose.coordinate_row(j.kind) else { continue };
                let qd = cr.rate([va.v, vb.v], [va.w, vb.w]);
                if pass == 0 {
                    let (s1, s2) = (&state.bodies[j.body1], j.body2.map(|b| &state.bodies[b]));
                    let (v2, w2) = s2.map_or((Vec3::ZERO, Vec3::ZERO), |s| (s.v, s.w));
                    self.joint_rate0[k] = cr.rate([s1.v, v2], [s1.w, w2]);
                }
                let q = cr.c;
                if let Some([lo, hi]) = j.limits {
                    let reach = self.params.margin + 2.0 * h * qd.abs();
                    for (slot, row) in [(LIMIT_LO, Row { c: q - lo, ..cr }), (LIMIT_HI, Row { c: q - hi, ..cr }.negated())] {
                        if row.c < reach {
                            let kind = Kind { slot, gamma: 0.0, bias: row.c.max(0.0) / h, lo: 0.0, hi: f64::INFINITY };
                            out.push(make(&row, sides, n, &self.bodies, &self.frozen, k, kind));
                        }
                    }
                }
                // the motor's spring–damper and the rotor inertia (a damper of armature/h towards the rate at the
                // step's start), summed into one implicit row
                let (stiffness, damping, max_force, e, rate) = match &j.motor {
                    Some(m) => {
                        let target = state.motor_targets.get(k).copied().flatten().unwrap_or_else(|| path_target(m, state.time));
                        let mut e = target.value - q;
                        if j.kind == JointType::Hinge {
                            e = wrap_angle(e);
                        }
                        (m.stiffness, m.damping, m.max_force, e, target.rate)
                    }
                    None => (0.0, 0.0, None, 0.0, 0.0),
                };
                let rotor = j.armature / h;
                let den = h * stiffness + damping + rotor;
                if den > 0.0 {
                    let gamma = 1.0 / (h * den);
                    // an actuator's force the row carries (Method::carries_joint_force) adds its impulse h·τ
                    let tau = state.joint_forces.get(k).copied().unwrap_or(0.0);
                    let beta = (stiffness * e + damping * rate + rotor * self.joint_rate0[k] + tau) / den;
                    let before = if pass == 1 { self.joint_imp[k].impulse[0][MOTOR] } else { 0.0 };
                    let bound = max_force.map_or(f64::INFINITY, |f| f * h);
                    let kind = Kind { slot: MOTOR, gamma, bias: gamma * before - beta, lo: -bound - before, hi: bound - before };
                    out.push(make(&cr, sides, n, &self.bodies, &self.frozen, k, kind));
                }
            }
            if let Some(w) = warm {
                for r in &mut out[start..] {
                    r.lambda = w[r.slot as usize].clamp(r.lo, r.hi);
                }
            }
        }
        self.row_buf = buf;
        self.row_ahead = ahead;
    }

    /// Builds the correction rows of the joints `list` into `out`: the bilateral rows with bias C (A λ + C = 0)
    /// and the violated limits (A λ + c ≥ 0, λ ≥ 0). Returns the largest error.
    pub(super) fn joint_correction_rows(&mut self, model: &Model, state: &State, list: &[u32], out: &mut Vec<JRow>) -> f64 {
        out.clear();
        let n = model.bodies.len();
        let mut worst = 0.0f64;
        let mut buf = std::mem::take(&mut self.row_buf);
        for &k in list {
            let k = k as usize;
            let j = &model.joints[k];
            let sides = [Some(j.body1), j.body2];
            let pose = JointPose::of(model, j, &state.bodies);
            buf.clear();
            pose.bilateral_rows(j.kind, &mut buf);
            if let (Some([lo, hi]), Some(cr)) = (j.limits, pose.coordinate_row(j.kind)) {
                for (slot, row) in [(LIMIT_LO, Row { c: cr.c - lo, ..cr }), (LIMIT_HI, Row { c: cr.c - hi, ..cr }.negated())] {
                    if row.c < 0.0 {
                        worst = worst.max(-row.c);
                        let kind = Kind { slot, gamma: 0.0, bias: row.c, lo: 0.0, hi: f64::INFINITY };
                        out.push(make(&row, sides, n, &self.bodies, &self.frozen, k, kind));
                    }
                }
            }
            for (slot, row) in buf.iter().enumerate() {
                worst = worst.max(row.c.abs());
                let kind = Kind { slot, gamma: 0.0, bias: row.c, lo: f64::NEG_INFINITY, hi: f64::INFINITY };
                out.push(make(row, sides, n, &self.bodies, &self.frozen, k, kind));
            }
        }
        self.row_buf = buf;
        worst
    }

    /// Adds the impulses of the solved rows of `pass` to this step's totals (warm start of the next step and
    /// the joints' readings).
    pub(super) fn joint_impulses(&mut self, rows: &[JRow], pass: usize) {
        for r in rows {
            let k = r.joint as usize;
            self.joint_imp[k].impulse[pass][r.slot as usize] = r.lambda;
            let reading = &mut self.joint_readings[k];
            reading.force += r.lin[0] * r.lambda;
            reading.torque += r.ang[0] * r.lambda;
        }
    }

    /// The joints' readings of the step: force and torque about body 1's anchor, averaged over the step.
    pub(super) fn joint_stats(&self, h: f64) -> Vec<JointReading> {
        self.joint_readings
            .iter()
            .zip(&self.joint_arm)
            .map(|(r, arm)| JointReading { force: r.force / h, torque: (r.torque + arm.cross(r.force)) / h })
            .collect()
    }
}
