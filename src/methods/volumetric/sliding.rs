//! Stage 3b: the friction of every contact of the substep, after all normal forces (stage 3a). The anchor
//! spring's damper acts on the tangential velocity the contact point would have at the end of the substep
//! without friction (gravity, loads, proxy couplings and the normal forces applied), so that with
//! `friction_damper = "stop"` a contact below its friction limit holds within the substep instead of creeping
//! while its spring stretches. See docs/methods/volumetric-penalty.md, "Friction that holds at its limit".

use super::friction::{self, Anchor, Gains};
use super::penalty::Patch;
use super::tipping::Balance;
use super::{FrictionDamper, PieceKey, Volumetric};
use crate::dynamics::integrate::inv_inertia_world;
use crate::math::{Mat3, Pose, Vec3};
use crate::method::ContactPoint;
use crate::model::{BodyKind, Model};
use crate::state::State;

/// A contact between its normal force and its friction.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    pub key: PieceKey,
    pub a: usize,
    pub b: usize,
    pub patch: Patch,
    /// The penetration along the patch's normal, m, and the rate at which the pair separates at its centre of
    /// pressure at the substep's start, m/s.
    pub depth: f64,
    pub rate: f64,
    pub gains: Gains,
    pub balance: Balance,
    pub anchor: Anchor,
    pub pose_a: Pose,
    pub pose_b: Pose,
}

/// Body `i`'s velocities at the end of a substep of `h` under the force `f` and torque `tau` (the kick of
/// symplectic Euler: ω from the angular momentum).
pub(super) fn kicked(model: &Model, state: &State, i: usize, f: Vec3, tau: Vec3, h: f64) -> (Vec3, Vec3) {
    let (body, s) = (&model.bodies[i], &state.bodies[i]);
    if body.kind != BodyKind::Dynamic || state.sleep.asleep(i) {
        return (s.v, s.w);
    }
    let r = Mat3::from_quat(s.q);
    let l = r * (body.inertia * (r.transpose() * s.w)) + tau * h;
    (s.v + f * (h / body.mass), inv_inertia_world(model, i, s.q) * l)
}

impl Volumetric {
    /// Each dynamic body's wrench from gravity, loads, the user's forces and the proxy couplings at time `t`
    /// (zero for the others), into `free`: the substep's friction prediction and its kick both use it.
    pub(super) fn free_wrenches(&mut self, model: &Model, state: &State, t: f64) {
        self.free.clear();
        self.free.extend((0..model.bodies.len()).map(|i| {
            if model.bodies[i].kind != BodyKind::Dynamic || state.sleep.asleep(i) {
                return (Vec3::ZERO, Vec3::ZERO);
            }
            let (f, tau) = crate::dynamics::integrate::external_wrench(model, &state.applied, i, t);
            let (fc, tc) = crate::dynamics::proxy::coupling_on(model, state, i);
            (f + fc, tau + tc)
        }));
    }
}

impl Volumetric {
    /// Friction of the pending contacts into the per-body wrenches (which hold the normal forces), the anchors
    /// for the next substep and the contact points. Returns (contacts, Σ |friction force|).
    pub(super) fn friction_forces(&mut self, model: &Model, state: &State, h: f64) -> (usize, f64) {
        // the velocities each touched body would end the substep with, without friction
        let mut predicted: Vec<(usize, Vec3, Vec3)> = Vec::with_capacity(2 * self.pending.len());
        for p in &self.pending {
            predicted.push((p.a, Vec3::ZERO, Vec3::ZERO));
            predicted.push((p.b, Vec3::ZERO, Vec3::ZERO));
        }
        predicted.sort_unstable_by_key(|e| e.0);
        predicted.dedup_by_key(|e| e.0);
        for e in &mut predicted {
            (e.1, e.2) = if self.params.friction_damper == FrictionDamper::Source {
                // the source's damper acts on the current velocities
                (state.bodies[e.0].v, state.bodies[e.0].w)
            } else {
                let (f, tau) = self.free[e.0];
                kicked(model, state, e.0, f + self.force[e.0], tau + self.torque[e.0], h)
            };
        }
        let velocity = |i: usize, x: Vec3| {
            let k = predicted.binary_search_by_key(&i, |e| e.0).expect("every pending body is predicted");
            let (_, v, w) = predicted[k];
            v + w.cross(x - state.bodies[i].x)
        };
        let mut sum_t = 0.0;
        let pending = std::mem::take(&mut self.pending);
        for p in &pending {
            let (a, b, patch) = (p.a, p.b, p.patch);
            let (sa, sb) = (state.bodies[a], state.bodies[b]);
            let mut anchor = p.anchor;
            let omega = |i: usize| predicted[predicted.binary_search_by_key(&i, |e| e.0).expect("predicted")].2;
            let fc = friction::Contact {
                n: patch.normal,
                point: patch.point,
                normal_force: patch.force,
                arm: patch.arm,
                anchor_a: p.pose_a.transform_point(anchor.a),
                anchor_b: p.pose_b.transform_point(anchor.b),
                v_rel: velocity(b, patch.point) - velocity(a, patch.point),
                w_rel: omega(b) - omega(a),
            };
            let (ft, tn, wa, wb) = friction::friction(&mut anchor, &fc, &p.gains, h);
            anchor.a = p.pose_a.inverse_transform_point(wa);
            anchor.b = p.pose_b.inverse_transform_point(wb);
            self.next_anchors.push((p.key, anchor));
            // the normal force's centre of pressure moves by δ to balance ft's tipping moment (tipping.rs)
            let (tilt, delta) = p.balance.moment(ft, patch.normal, patch.force);
            let tau_n = patch.normal * tn + tilt;
            self.force[b] += ft;
            self.torque[b] += (patch.point - sb.x).cross(ft) + tau_n;
            self.force[a] -= ft;
            self.torque[a] -= (patch.point - sa.x).cross(ft) + tau_n;
            // A receives −f
            let f = patch.normal * patch.force + ft;
            let point = patch.point + delta;
            self.contact_points.push((p.key, ContactPoint { point, normal: patch.normal, bodies: [a, b], force: -f }));
            sum_t += ft.length();
        }
        self.pending = pending;
        (self.pending.len(), sum_t)
    }

    /// Adds the substep's contact points, of weight `w` in the frame, to the frame's (`frame_points`).
    pub(super) fn collect_points(&mut self, w: f64) {
        let known = self.frame_points.len();
        for &(key, c) in &self.contact_points {
            match self.frame_points[..known].binary_search_by_key(&key, |e| e.0) {
                Ok(i) => {
                    let e = &mut self.frame_points[i].1;
                    (e.point, e.normal) = (c.point, c.normal);
                    e.force += c.force * w;
                }
                Err(_) => self.frame_points.push((key, ContactPoint { force: c.force * w, ..c })),
            }
        }
        if self.frame_points.len() > known {
            // (the keys are distinct: one point per piece pair and substep)
            self.frame_points.sort_unstable_by_key(|e| e.0);
        }
    }
}
