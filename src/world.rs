//! The world: a model, its state and the method that advances it. `World::step` is the list of stages; the
//! stages themselves (collision, analysis, correction, dynamics, shock propagation, integration for `lcp`) are
//! the method's, built from the shared collision and dynamics modules.

use crate::error::{InputError, SimError};
use crate::methods::{create, Method, StepStats};
use crate::model::Model;
use crate::state::State;

/// A running simulation.
pub struct World {
    pub model: Model,
    pub state: State,
    method: Box<dyn Method>,
}

impl World {
    /// A world at the scene's initial state, with the method the model names.
    pub fn new(model: Model) -> Result<Self, InputError> {
        let method = create(&model)?;
        let state = State::from_model(&model);
        Ok(World { model, state, method })
    }

    /// The method's timed stage names.
    pub fn stage_names(&self) -> &'static [&'static str] {
        self.method.stage_names()
    }

    /// Advances one time step of the model's `dt`.
    pub fn step(&mut self) -> Result<StepStats, SimError> {
        let dt = self.model.dt;
        crate::dynamics::proxy::follow_paths(&self.model, &mut self.state);
        let stats = self.method.step(&self.model, &mut self.state, dt)?;
        self.state.step += 1;
        self.state.time = self.state.step as f64 * dt;
        Ok(stats)
    }
}
