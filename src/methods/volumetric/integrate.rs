//! Stages 4–5 of a substep: symplectic Euler's kick and the poses (docs/methods/volumetric-penalty.md, "One step").

use super::Volumetric;
use crate::dynamics::integrate::integrate_pose;
use crate::model::{BodyKind, Model};
use crate::state::State;

impl Volumetric {
    /// Stage 4 (first half): symplectic Euler's kick with gravity, loads (at the substep's time), proxy
    /// couplings and the contact wrenches.
    pub(super) fn kick(&mut self, model: &Model, state: &mut State, h: f64) {
        for i in 0..model.bodies.len() {
            if model.bodies[i].kind == BodyKind::Dynamic && !state.sleep.asleep(i) {
                let (f, tau) = self.free[i];
                let (v, w) = super::sliding::kicked(model, state, i, f + self.force[i], tau + self.torque[i], h);
                (state.bodies[i].v, state.bodies[i].w) = (v, w);
            }
        }
    }

    /// Stage 5: the poses from the end-of-substep velocities.
    pub(super) fn integrate(&mut self, model: &Model, state: &mut State, h: f64) {
        for i in 0..model.bodies.len() {
            if !state.sleep.asleep(i) {
                integrate_pose(model, i, &mut state.bodies[i], h);
            }
        }
    }
}
