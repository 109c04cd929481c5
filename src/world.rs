//! The world: a model, its state and the method that advances it. `World::step` is the list of stages; the
//! stages themselves (collision, analysis, correction, dynamics, shock propagation, integration for `lcp`) are
//! the method's, built from the shared collision and dynamics modules.

use crate::collision::surface_check::SurfaceCheck;
use crate::dynamics::proxy::Target;
use crate::error::{InputError, SimError};
use crate::math::{Quat, Vec3};
use crate::method::{Method, StepStats};
use crate::model::Model;
use crate::state::State;

/// A saved state of a world: restoring it makes the following steps bit-identical to those of the run it was
/// taken from. Serialisable (serde), so it can be written out and read back.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    /// The scene and method it belongs to, and its body count (checked on restore).
    pub scene: String,
    pub method: crate::model::MethodKey,
    pub bodies: usize,
    pub state: State,
}

/// A running simulation.
pub struct World {
    pub model: Model,
    pub state: State,
    method: Box<dyn Method + Send>,
    /// The intersection check of `[world] check_intersections` (its surfaces tessellated once, here).
    check: Option<SurfaceCheck>,
}

impl World {
    /// A world at the scene's initial state, with the method the model names.
    pub fn new(model: Model) -> Result<Self, InputError> {
        let method = crate::METHODS.create(&model)?;
        let state = State::from_model(&model);
        let check = model.check_intersections.then(|| SurfaceCheck::new(&model, &state));
        Ok(World { model, state, method, check })
    }

    /// A world from scene text (TOML, format 1), named `name`; paths in it are relative to the current folder.
    pub fn from_scene_text(text: &str, name: &str) -> Result<Self, InputError> {
        let model = crate::scene::load_str(text, name, name, std::path::Path::new("."), &[])?;
        Self::new(model)
    }

    /// The scene's notes (what the loader ignored) and the method's (what it changed on its own, e.g. `abd`'s
    /// separation of bodies touching at the start, known after the first step).
    pub fn notes(&self) -> Vec<String> {
        let mut n = self.model.notes.clone();
        n.extend(self.method.notes());
        n
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

    /// Sets the target of the motor of joint `k` (in the model's `[[joint]]` order) for the coming steps: the
    /// coordinate's value (rad for a hinge, within [−π, π]; m for a prismatic joint) and its rate. From then on the
    /// scene's path no longer moves that motor. An error names the joint when `k` is out of range, the joint has
    /// no motor, or the target is not finite or out of range.
    pub fn set_motor_target(&mut self, k: usize, value: f64, rate: f64) -> Result<(), InputError> {
        let n = self.model.joints.len();
        let j = self
            .model
            .joints
            .get(k)
            .ok_or_else(|| InputError::at(&self.model.name, format!("joint #{k} does not exist (the scene has {n} joints)")))?;
        if j.motor.is_none() {
            return Err(InputError::at(&self.model.name, format!("joint #{k} has no motor (give it `motor = {{ ... }}` in the scene)")));
        }
        if !(value.is_finite() && rate.is_finite()) {
            return Err(InputError::at(&self.model.name, format!("joint #{k}: the motor target must be finite, got {value}, rate {rate}")));
        }
        if j.kind == crate::model::JointType::Hinge && value.abs() > std::f64::consts::PI {
            return Err(InputError::at(
                &self.model.name,
                format!("joint #{k}: a hinge motor's target {value} must lie within [-π, π] rad"),
            ));
        }
        if self.state.motor_targets.len() != n {
            self.state.motor_targets = crate::dynamics::joint::initial_targets(&self.model);
        }
        self.state.motor_targets[k] = Some(crate::dynamics::joint::MotorTarget { value, rate, external: true });
        Ok(())
    }

    /// The whole state now, as a value.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot { scene: self.model.name.clone(), method: self.model.method, bodies: self.model.bodies.len(), state: self.state.clone() }
    }

    /// Brings the world back to `snapshot`: the method's workspace is rebuilt, so the following steps are those
    /// of the run the snapshot was taken from, bit for bit. An error names what does not match (another
    /// method, or another number of bodies).
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), InputError> {
        if snapshot.method != self.model.method || snapshot.bodies != self.model.bodies.len() {
            return Err(InputError::at(
                &self.model.name,
                format!(
                    "the snapshot is of a `{}` run with {} bodies (scene `{}`); this world runs `{}` with {} bodies",
                    snapshot.method,
                    snapshot.bodies,
                    snapshot.scene,
                    self.model.method,
                    self.model.bodies.len()
                ),
            ));
        }
        self.method = crate::METHODS.create(&self.model)?;
        self.state = snapshot.state.clone();
        Ok(())
    }

    fn body_checked(&self, i: usize, values: &[Vec3]) -> Result<(), InputError> {
        let n = self.model.bodies.len();
        if i >= n {
            return Err(InputError::at(&self.model.name, format!("body #{i} does not exist (the scene has {n} bodies)")));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(InputError::at(&self.model.name, format!("body `{}`: the values must be finite", self.model.bodies[i].name)));
        }
        Ok(())
    }

    /// Moves body `i` (in the model's order) to `position` (of its reference frame) and `rotation` before the
    /// next step; every method honours it. An error names the body when `i` is out of range or the pose is not
    /// finite with a unit rotation.
    pub fn set_body_pose(&mut self, i: usize, position: Vec3, rotation: Quat) -> Result<(), InputError> {
        self.body_checked(i, &[position])?;
        if !rotation.is_finite() || (rotation.length() - 1.0).abs() > 1e-6 {
            return Err(InputError::at(
                &self.model.name,
                format!("body `{}`: the rotation must be a finite unit quaternion", self.model.bodies[i].name),
            ));
        }
        let q = rotation.normalize();
        let s = &mut self.state.bodies[i];
        s.q = q;
        s.x = position + q * self.model.bodies[i].com;
        self.method.body_moved(&self.model, &mut self.state, i);
        Ok(())
    }

    /// Sets body `i`'s velocity (of its centre of mass) and angular velocity, world frame, before the next
    /// step; every method honours it. An error names the body when `i` is out of range or a value is not finite.
    pub fn set_body_velocity(&mut self, i: usize, velocity: Vec3, angular_velocity: Vec3) -> Result<(), InputError> {
        self.body_checked(i, &[velocity, angular_velocity])?;
        let s = &mut self.state.bodies[i];
        s.v = velocity;
        s.w = angular_velocity;
        self.method.body_moved(&self.model, &mut self.state, i);
        Ok(())
    }

    /// Advances one time step of the model's `dt`. With `[world] check_intersections`, the stats' `intersections`
    /// and `min_distance` are then the world's check of the new state (replacing what the method reported).
    pub fn step(&mut self) -> Result<StepStats, SimError> {
        crate::dynamics::proxy::follow_paths(&self.model, &mut self.state);
        crate::dynamics::joint::follow_paths(&self.model, &mut self.state);
        let mut stats = self.method.step(&self.model, &mut self.state)?;
        self.state.step += 1;
        self.state.time = self.state.step as f64 * self.model.dt;
        if let Some(check) = &mut self.check {
            let r = check.run(&self.state);
            stats.intersections = Some(r.intersections);
            stats.min_distance = r.min_distance;
        }
        Ok(stats)
    }
}

/// `World` moves between threads (a binding releases the interpreter's lock while it steps; `compare` runs
/// methods side by side).
const _: () = {
    const fn assert_send<T: Send>() {}
    assert_send::<World>();
    assert_send::<Snapshot>();
};
