//! Friction in the step (stage 3): anchor springs and kinetic friction per patch (friction.rs's law), into the
//! step's system where implicit (gradients.rs) or as explicit wrenches.
//!
//! Friction taken anew at the step's solution (`friction_iterations`): kinetic friction is μ_k times a normal
//! force held over the step, at first k|d| at the step's start; backward Euler applies the spring at the step's
//! end. Where they differ much (a body set down touching falls freely for one step and lands far deeper than it
//! rests: the start's k|d| is several times the force the step applies), friction is taken again with the
//! solution's normal forces and the step solved again, as IPC lags friction at its latest solution.
//! See docs/methods/implicit-penalty.md, "Kinetic friction, implicit".

use super::{Assembled, Grip, ImplicitPenalty, PairContact, SLIP_FLOOR};
use crate::math::Vec3;
use crate::methods::implicit::contact::CENTRE;
use crate::methods::implicit::friction;
use crate::methods::implicit::gradients::{add_kinetic_friction, add_sticking_anchor, relative_velocity, Jacobian, Motion};
use crate::methods::implicit::{FrictionMode, Integrator};
use crate::model::{BodyKind, Model};
use crate::state::State;

/// One pair's friction for the step's sums: its anchors, its explicit wrenches (body, force, torque about the
/// centre of mass) and the magnitude of its friction forces.
struct PairFriction {
    anchors: Vec<(friction::Key, friction::Anchor)>,
    wrenches: Vec<(usize, Vec3, Vec3)>,
    total: f64,
}

/// The relative change of a sliding patch's normal force beyond which friction is taken anew.
pub const CHANGE: f64 = 0.1;

impl ImplicitPenalty {
    /// Stage 3: anchor friction; per body the explicit friction wrench (force, torque about the centre of mass).
    /// With implicit friction the springs of sticking points go into their pair's Jacobian instead.
    pub(super) fn friction(&mut self, model: &Model, state: &State, pairs: &mut [PairContact]) -> (Vec<(Vec3, Vec3)>, f64) {
        use rayon::prelude::*;
        let implicit = self.params.friction == FrictionMode::Implicit && self.params.integrator == Integrator::Implicit;
        let this = &*self;
        // per pair in parallel: its anchors, its explicit wrenches (body, force, torque) and its friction total;
        // folded in pair order below, so the sums do not depend on the thread count
        let per_pair: Vec<PairFriction> = pairs.par_iter_mut().map(|p| this.pair_friction(model, state, p, implicit)).collect();
        let mut wrench = vec![(Vec3::ZERO, Vec3::ZERO); model.bodies.len()];
        let mut next = Vec::new();
        let mut total = 0.0;
        for pf in per_pair {
            next.extend(pf.anchors);
            for (b, f, t) in pf.wrenches {
                wrench[b].0 += f;
                wrench[b].1 += t;
            }
            total += pf.total;
        }
        next.sort_by_key(|e| e.0);
        // taken up by the step once its friction is final (`stages`)
        self.next_anchors = next;
        (wrench, total)
    }

    /// One pair's friction (both roles): its grips and springs set on the pair, the rest returned.
    fn pair_friction(&self, model: &Model, state: &State, p: &mut PairContact, implicit: bool) -> PairFriction {
        let mut out = PairFriction { anchors: Vec::new(), wrenches: Vec::new(), total: 0.0 };
        p.grips = Default::default();
        let mut springs = [Jacobian::default(), Jacobian::default()];
        for (role, hits) in p.hits.iter().enumerate() {
            let (fb, pb) = if role == 0 { (p.a, p.b) } else { (p.b, p.a) };
            let field = Self::placement(model, state, fb);
            let (sf, sp) = (state.bodies[fb], state.bodies[pb]);
            let vel = [sf.v, sf.w, sp.v, sp.w];
            if p.loads[role].iter().all(|&f| f <= 0.0) {
                // only touching points (φ = 0), no normal force yet: no friction, and no anchors (they are set
                // where the points are once they carry a load)
                p.grips[role].extend(hits.iter().map(|_| Grip::Force(Vec3::ZERO)));
                continue;
            }
            let inputs: Vec<friction::PointIn> = hits
                .iter()
                .zip(&p.loads[role])
                .map(|(h, &fn_)| {
                    let key = (fb as u32, pb as u32, h.point);
                    let old = self.anchors.binary_search_by_key(&key, |e| e.0).ok().map(|i| self.anchors[i].1);
                    let sphere = (h.point == CENTRE).then(|| Self::placement(model, state, pb));
                    friction::PointIn { hit: h, fn_, vel_b_rel: -relative_velocity(&h.c, &vel), old, sphere }
                })
                .collect();
            for (h, (f, anchor)) in hits.iter().zip(friction::patch_friction(&inputs, &field, &p.friction)) {
                out.anchors.push(((fb as u32, pb as u32, h.point), anchor));
                out.total += f.length();
                if implicit && !anchor.sliding {
                    let alpha = field.origin + field.q * anchor.at - field.com;
                    add_sticking_anchor(&h.c, alpha, p.friction.kt, p.friction.ct, &vel, &mut springs[role]);
                    p.grips[role].push(Grip::Spring(alpha));
                    continue;
                }
                // kinetic friction as a slip damper at μ_k f_n against the slip at the start (see
                // add_kinetic_friction); explicit where the point does not slip (dragged from its anchor)
                let slip = -relative_velocity(&h.c, &vel);
                let slip = (slip - h.c.n * h.c.n.dot(slip)).length();
                if implicit && slip > SLIP_FLOOR && f.length() > 0.0 {
                    add_kinetic_friction(&h.c, f.length(), &vel, &mut springs[role]);
                    p.grips[role].push(Grip::Slip(f.length()));
                    continue;
                }
                p.grips[role].push(Grip::Force(f));
                out.wrenches.push((pb, f, h.c.b.cross(f)));
                out.wrenches.push((fb, -f, -h.c.a.cross(f)));
            }
        }
        p.grip_jac = springs;
        out
    }

    /// Each body's change over the step as the step's linearised system takes it (zero for the symplectic
    /// integrator, which applies the forces at the start of the step).
    pub(super) fn motions(&self, model: &Model, state: &State, asm: &Assembled, solutions: &[Vec<f64>], h: f64) -> Vec<Motion> {
        let linear = self.params.integrator == Integrator::Implicit;
        (0..model.bodies.len())
            .map(|i| match (&asm.kins[i], model.bodies[i].kind) {
                (Some(k), _) if linear => {
                    let (x, s) = (&solutions[asm.island[i]], asm.slot[i]);
                    k.motion(Vec3::from_slice(&x[6 * s..]), Vec3::from_slice(&x[6 * s + 3..]), h)
                }
                (None, BodyKind::Kinematic) if linear => [state.bodies[i].v * h, state.bodies[i].w * h, Vec3::ZERO, Vec3::ZERO],
                _ => [Vec3::ZERO; 4],
            })
            .collect()
    }

    /// Whether a sliding patch's normal force at the solution differs from the one its friction took by more
    /// than [`CHANGE`]; if so, every hit's load becomes its spring at the solution as the step linearised it,
    /// k'·max(0, −d'_end) with (k', d') = `Gains::spring_at(d)` (k, d below a load's knee) and
    /// d'_end = d' + ∇φ·(δx_B − δx_A + a × δθ_A − b × δθ_B), ready for the friction stage again.
    pub(super) fn lag_loads(
        &self,
        model: &Model,
        state: &State,
        (asm, solutions): (&Assembled, &[Vec<f64>]),
        pairs: &mut [PairContact],
        h: f64,
    ) -> bool {
        let motion = self.motions(model, state, asm, solutions, h);
        let mut ends = Vec::with_capacity(pairs.len());
        let mut again = false;
        for p in pairs.iter() {
            let mut per_role: [Vec<f64>; 2] = Default::default();
            for (role, (fb, pb)) in [(p.a, p.b), (p.b, p.a)].into_iter().enumerate() {
                let ([xa, ta, ..], [xb, tb, ..]) = (motion[fb], motion[pb]);
                let (mut start, mut end, mut sliding) = (0.0, 0.0, false);
                for ((hit, grip), &load) in p.hits[role].iter().zip(&p.grips[role]).zip(&p.loads[role]) {
                    let c = &hit.c;
                    let (k, d) = p.gains.spring_at(c.d);
                    let d = d + c.g.dot(xb - xa + c.a.cross(ta) - c.b.cross(tb));
                    let f = (k * -d).max(0.0);
                    per_role[role].push(f);
                    if !matches!(grip, Grip::Spring(_)) {
                        (start, end, sliding) = (start + load, end + f, true);
                    }
                }
                again |= sliding && (end - start).abs() > CHANGE * start.max(end);
            }
            ends.push(per_role);
        }
        if again {
            for (p, end) in pairs.iter_mut().zip(ends) {
                p.loads = end;
            }
        }
        again
    }
}
