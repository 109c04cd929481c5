//! Friction taken anew at the step's solution (`friction_iterations`): kinetic friction is μ_k times a normal
//! force held over the step, at first k|d| at the step's start; backward Euler applies the spring at the step's
//! end. Where they differ much (a body set down touching falls freely for one step and lands far deeper than it
//! rests: the start's k|d| is several times the force the step applies), friction is taken again with the
//! solution's normal forces and the step solved again, as IPC lags friction at its latest solution.
//! See docs/methods/implicit-penalty.md, "Kinetic friction, implicit".

use super::{Assembled, Grip, ImplicitPenalty, PairContact};
use crate::math::Vec3;
use crate::methods::implicit::gradients::{Jacobian, Motion};
use crate::methods::implicit::Integrator;
use crate::model::{BodyKind, Model};
use crate::state::State;

/// The relative change of a sliding patch's normal force beyond which friction is taken anew.
pub const CHANGE: f64 = 0.1;

impl ImplicitPenalty {
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
    /// than [`CHANGE`]; if so, every hit's load becomes its spring at the solution, k·max(0, −d_end) with
    /// d_end = d + ∇φ·(δx_B − δx_A + a × δθ_A − b × δθ_B), and each pair's Jacobian goes back to `contact`
    /// (its contact terms, before friction added to it), ready for the friction stage again.
    pub(super) fn lag_loads(
        &self,
        model: &Model,
        state: &State,
        (asm, solutions): (&Assembled, &[Vec<f64>]),
        pairs: &mut [PairContact],
        contact: &[Jacobian],
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
                    let d = c.d + c.g.dot(xb - xa + c.a.cross(ta) - c.b.cross(tb));
                    let f = (p.gains.k * -d).max(0.0);
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
            for ((p, end), jac) in pairs.iter_mut().zip(ends).zip(contact) {
                p.loads = end;
                p.jac = *jac;
                p.grips = Default::default();
            }
        }
        again
    }
}
