//! The spring's work over a contact, settled as it ends. An elastic spring gives back at separation exactly what
//! it took in compression; symplectic Euler across the spring's switch-on and switch-off (the contact starts
//! and ends between substeps) does not: ±0.06% of the impact's energy for a spring linear in the depth, up
//! to ±0.4% for one that grows as its square (a sphere's cap), whatever the substep (the spring follows h). Each contact keeps the work
//! its spring did on the pair; in the substep whose drift takes it out of contact, a surplus (energy the
//! spring made) is taken from the pair's normal separation, never more than it has; a deficit is left (never
//! add energy). See docs/methods/volumetric-penalty.md, "Energy of a rebound".

use super::Volumetric;
use crate::dynamics::collision_matrix::collision_matrix_at;
use crate::dynamics::integrate::inv_inertia_world;
use crate::model::{BodyKind, Model};
use crate::state::State;

/// The speed `u` (> 0) of a mode of mass `m` after `work` (J, > 0) is taken from it: never below zero.
pub fn slowed(u: f64, m: f64, work: f64) -> f64 {
    (u * u - 2.0 * work / m).max(0.0).sqrt()
}

impl Volumetric {
    /// After the substep's kick (the velocities its drift will use): adds each contact's spring work over the
    /// drift to its anchor, and settles it where the drift ends the contact (`spring_work` on). The settling
    /// impulse joins the contact's force and the bodies' wrenches in the frame of `n` substeps, as a force over
    /// the substep. Returns the settling impulses' sum along their normals, N·s (≤ 0: a settlement slows a
    /// separation).
    pub(super) fn settle_spring_work(&mut self, model: &Model, state: &mut State, h: f64, substeps: u32) -> f64 {
        if !self.params.spring_work {
            return 0.0;
        }
        let moves = |state: &State, i: usize| model.bodies[i].kind == BodyKind::Dynamic && !state.sleep.asleep(i);
        // every contact's work from the velocities after the kick, then the settlements, each from the rate its
        // pair has then: piece pairs of one body pair share the mode, and each takes only what is left of it
        let mut settle = Vec::new();
        for p in &self.pending {
            if !(p.patch.spring > 0.0) {
                continue;
            }
            let Ok(k) = self.anchors.binary_search_by_key(&p.key, |e| e.0) else { continue };
            let (a, b, n, x) = (p.a, p.b, p.patch.normal, p.patch.point);
            let at = |i: usize| state.bodies[i].v + state.bodies[i].w.cross(x - state.bodies[i].x);
            let u = (at(b) - at(a)).dot(n);
            let anchor = &mut self.anchors[k].1;
            // the kinetic energy the spring's impulse gives the pair over the kick: impulse × mean of the rates
            anchor.work += p.patch.spring * h * 0.5 * (p.rate + u);
            // the drift leaves the contact: depth − u·h ≤ 0
            if !(u > 0.0 && p.depth <= u * h && anchor.work > 0.0) {
                continue;
            }
            settle.push((p.key, a, b, x, n, anchor.work));
            anchor.work = 0.0;
        }
        let w = 1.0 / (h * f64::from(substeps));
        let mut total = 0.0;
        for (key, a, b, x, n, work) in settle {
            let at = |i: usize| state.bodies[i].v + state.bodies[i].w.cross(x - state.bodies[i].x);
            let u = (at(b) - at(a)).dot(n);
            let m = 1.0 / n.dot(collision_matrix_at(model, state, a, b, x) * n);
            if !(u > 0.0 && m.is_finite() && m > 0.0) {
                continue;
            }
            let j = n * (m * (slowed(u, m, work) - u));
            total += j.dot(n);
            if let Ok(i) = self.frame_points.binary_search_by_key(&key, |e| e.0) {
                self.frame_points[i].1.force -= j * w; // the point reports the force on A
            }
            for (i, sign) in [(b, 1.0), (a, -1.0)] {
                self.frame_force[i] += j * (sign * w);
                self.frame_torque[i] += (x - state.bodies[i].x).cross(j * (sign * w));
                if moves(state, i) {
                    let s = &mut state.bodies[i];
                    s.v += j * (sign / model.bodies[i].mass);
                    s.w += inv_inertia_world(model, i, s.q) * (x - s.x).cross(j * sign);
                }
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::slowed;

    #[test]
    fn taking_work_from_a_mode_lowers_its_energy_by_that_work_and_never_below_zero() {
        let (u, m) = (2.0, 3.0);
        let after = slowed(u, m, 0.6);
        assert!((0.5 * m * (u * u - after * after) - 0.6).abs() < 1e-12);
        assert_eq!(slowed(u, m, 100.0), 0.0);
    }
}
