//! Haptic proxies under `abd` (issue 16 item 3): the virtual coupling of `dynamics/proxy.rs` as a quadratic
//! potential in the incremental energy, backward Euler like the rest of the step, so it is implicit and stable
//! for any gains. The coupling and contact wrenches are read from the gradients at the end of the step.
//! See docs/methods/abd.md, "Haptic proxies".

use crate::math::{quat_exp, Mat3};
use crate::model::Model;
use crate::state::State;

/// One proxy's coupling for a step: per coordinate of its body, two quadratic wells (weight, target).
#[derive(Debug, Clone)]
pub struct Coupling {
    pub body: usize,
    wells: [[(f64, f64); 2]; 12],
}

/// The couplings of the model's proxies for a step of `h` with the state's targets; the dampers act on the
/// velocity (q − q̂)/h_e of the integrator (q̂ = q^t and h_e = h for backward Euler).
pub fn begin(model: &Model, state: &State, qhat: &[f64], h: f64, he: f64) -> Vec<Coupling> {
    model
        .proxies
        .iter()
        .zip(&state.proxies)
        .map(|(p, t)| {
            let b = p.body;
            let arm = t.rotation * model.bodies[b].com;
            let v_t = t.velocity + t.angular_velocity.cross(arm);
            let x_end = t.position + arm + v_t * h;
            let r_end = Mat3::from_quat(quat_exp(t.angular_velocity * h) * t.rotation);
            let qb = &qhat[12 * b..12 * b + 12];
            let a_t = super::affine::a_of(qb);
            let a_damp = a_t
                + Mat3::from_cols(
                    t.angular_velocity.cross(a_t.x_axis),
                    t.angular_velocity.cross(a_t.y_axis),
                    t.angular_velocity.cross(a_t.z_axis),
                ) * he;
            let mut wells = [[(0.0, 0.0); 2]; 12];
            for r in 0..3 {
                for j in 0..3 {
                    wells[4 * r + j] = [(0.5 * p.angular_stiffness, r_end.col(j)[r]), (0.5 * p.angular_damping / he, a_damp.col(j)[r])];
                }
                wells[4 * r + 3] = [(p.stiffness, x_end[r]), (p.damping / he, qb[4 * r + 3] + he * v_t[r])];
            }
            Coupling { body: b, wells }
        })
        .collect()
}

impl Coupling {
    /// h² Σ ½w(q − z)² over the body's coordinates.
    pub fn energy(&self, q: &[f64], h: f64) -> f64 {
        let mut e = 0.0;
        for (k, wells) in self.wells.iter().enumerate() {
            for &(w, z) in wells {
                let d = q[12 * self.body + k] - z;
                e += 0.5 * w * d * d;
            }
        }
        h * h * e
    }

    /// The gradient in the body's coordinates and the (diagonal) Hessian.
    pub fn derivatives(&self, q: &[f64], h: f64) -> ([f64; 12], [f64; 12]) {
        let (mut g, mut d) = ([0.0; 12], [0.0; 12]);
        for (k, wells) in self.wells.iter().enumerate() {
            for &(w, z) in wells {
                g[k] += h * h * w * (q[12 * self.body + k] - z);
                d[k] += h * h * w;
            }
        }
        (g, d)
    }
}

impl super::Abd {
    /// What each proxy received in the step that ended at `self.q` (with `self.x`, the pairs culled there and the
    /// step's lagged friction): the contact wrench from the barrier's and friction's gradients on its body, and
    /// the coupling's wrench from the coupling's gradient.
    pub(super) fn proxy_readings(&self, h: f64) -> Vec<crate::dynamics::proxy::Reading> {
        use super::assemble;
        let proxied = |b: u32| self.couplings.iter().any(|c| c.body as u32 == b);
        let groups: Vec<super::Group> = self.groups.iter().filter(|g| g.bodies.iter().any(|&b| proxied(b))).cloned().collect();
        let dh2 = self.dhat * self.dhat;
        let mut terms =
            assemble::barrier_terms(&self.surfaces, &self.x, &self.pairs, &groups, &self.moving, dh2, h * h * self.kappa, true, None);
        terms.extend(assemble::friction_terms(&self.surfaces, &self.x, &self.xbase, &self.contacts, &self.moving, self.eps_v * h, h * h));
        self.couplings
            .iter()
            .map(|c| {
                let b = c.body;
                let qb = &self.q[12 * b..12 * b + 12];
                let mut g = [0.0; 12];
                for t in &terms {
                    for side in 0..2 {
                        if t.bodies[side] as usize == b && t.active[side] {
                            for k in 0..12 {
                                g[k] += t.g[side][k];
                            }
                        }
                    }
                }
                let (contact_force, contact_torque) = super::affine::wrench_of_gradient(&g, qb, h);
                let (gc, _) = c.derivatives(&self.q, h);
                let (coupling_force, coupling_torque) = super::affine::wrench_of_gradient(&gc, qb, h);
                crate::dynamics::proxy::Reading {
                    contact_force: contact_force.to_array(),
                    contact_torque: contact_torque.to_array(),
                    coupling_force: coupling_force.to_array(),
                    coupling_torque: coupling_torque.to_array(),
                }
            })
            .collect()
    }
}
