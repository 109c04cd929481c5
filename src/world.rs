//! The world: a model, its state and the method that advances it. `World::step` is the list of stages; the
//! stages themselves (collision, analysis, correction, dynamics, shock propagation, integration for `lcp`) are
//! the method's, built from the shared collision and dynamics modules.

use crate::collision::surface_check::SurfaceCheck;
use crate::dynamics::proxy::Target;
use crate::error::{InputError, SimError};
use crate::math::{Quat, Vec3};
use crate::methods::{create, Method, StepStats};
use crate::model::Model;
use crate::state::State;

/// A running simulation.
pub struct World {
    pub model: Model,
    pub state: State,
    method: Box<dyn Method>,
    /// The intersection check of `[world] check_intersections` (its surfaces tessellated once, here).
    check: Option<SurfaceCheck>,
}

impl World {
    /// A world at the scene's initial state, with the method the model names.
    pub fn new(model: Model) -> Result<Self, InputError> {
        let method = create(&model)?;
        let state = State::from_model(&model);
        let check = model.check_intersections.then(|| SurfaceCheck::new(&model, &state));
        Ok(World { model, state, method, check })
    }

    /// A world from scene text (TOML, format 1), named `name`; paths in it are relative to the current folder.
    pub fn from_scene_text(text: &str, name: &str) -> Result<Self, InputError> {
        let model = crate::scene::load_str(text, name, name, std::path::Path::new("."), &[])?;
        Self::new(model)
    }

    /// The method's timed stage names.
    pub fn stage_names(&self) -> &'static [&'static str] {
        self.method.stage_names()
    }

    /// Sets the target of proxy `k` (in the model's `[[proxy]]` order) for the coming steps: the pose of the
    /// body's reference frame and its velocities. From then on the scene's path no longer moves that proxy.
    /// What the proxy receives comes back in each step's `StepStats::proxies`.
    /// An error names the proxy when `k` is out of range or the target is not finite.
    pub fn set_proxy_target(
        &mut self,
        k: usize,
        position: Vec3,
        rotation: Quat,
        velocity: Vec3,
        angular_velocity: Vec3,
    ) -> Result<(), InputError> {
        let n = self.state.proxies.len();
        let t = self
            .state
            .proxies
            .get_mut(k)
            .ok_or_else(|| InputError::at(&self.model.name, format!("proxy #{k} does not exist (the scene has {n} proxies)")))?;
        if !(position.is_finite() && rotation.is_finite() && velocity.is_finite() && angular_velocity.is_finite())
            || (rotation.length() - 1.0).abs() > 1e-6
        {
            return Err(InputError::at(&self.model.name, format!("proxy #{k}: the target must be finite with a unit rotation")));
        }
        *t = Target { position, rotation: rotation.normalize(), velocity, angular_velocity, external: true };
        Ok(())
    }

    /// Advances one time step of the model's `dt`. With `[world] check_intersections`, the stats' `intersections`
    /// and `min_distance` are then the world's check of the new state (replacing what the method reported).
    pub fn step(&mut self) -> Result<StepStats, SimError> {
        let dt = self.model.dt;
        crate::dynamics::proxy::follow_paths(&self.model, &mut self.state);
        let mut stats = self.method.step(&self.model, &mut self.state, dt)?;
        self.state.step += 1;
        self.state.time = self.state.step as f64 * dt;
        if let Some(check) = &mut self.check {
            let r = check.run(&self.state);
            stats.intersections = Some(r.intersections);
            stats.min_distance = r.min_distance;
        }
        Ok(stats)
    }
}
