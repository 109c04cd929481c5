//! The world: a model, its state and the method that advances it. `World::step` is the list of stages; the
//! stages themselves (collision, analysis, correction, dynamics, shock propagation, integration for `lcp`) are
//! the method's, built from the shared collision and dynamics modules.

use crate::collision::surface_check::SurfaceCheck;
use crate::dynamics::generalized::Layout;
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
    /// What the last step produced: its contacts, the actuators' forces and the sensors' data.
    readout: Readout,
    /// Where qpos and qvel's entries come from.
    layout: Layout,
    /// The medium's drag (`[world] fluid_density`, …), when there is one.
    drag: Option<crate::dynamics::fluid::Drag>,
    /// Per joint: whether the method takes its actuators' force on the joint's row (`Method::carries_joint_force`;
    /// fixed by the model and the method, so found once).
    carried: Vec<bool>,
}

/// The outputs of the last step (before the first: no contacts, the forces and sensors at the initial state).
#[derive(Debug, Clone, Default)]
struct Readout {
    contacts: Vec<crate::method::ContactPoint>,
    joints: Vec<crate::method::JointReading>,
    actuator_forces: Vec<f64>,
    sensordata: Vec<f64>,
}

/// The frame in which a force, torque or point given to [`World::apply_force`] / [`World::apply_torque`] is
/// expressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// World axes; a point in world coordinates.
    World,
    /// The body's reference frame (the frame its shape is given in): its axes, a point in its coordinates.
    Body,
}

impl Frame {
    /// `"world"` or `"body"`; anything else is an error listing both.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "world" => Ok(Frame::World),
            "body" => Ok(Frame::Body),
            _ => Err(format!("unknown frame `{s}` (expected \"world\" or \"body\")")),
        }
    }
}

impl World {
    /// A world at the scene's initial state, with the method the model names.
    pub fn new(model: Model) -> Result<Self, InputError> {
        model.check_lengths().map_err(|e| InputError::at(&model.name, e))?;
        let method = crate::METHODS.create(&model)?;
        let state = State::from_model(&model);
        let check = model.check_intersections.then(|| SurfaceCheck::new(&model, &state));
        let layout = Layout::of(&model);
        let carried = (0..model.joints.len())
            .map(|j| !crate::dynamics::actuator::in_chain(&model, j) && method.carries_joint_force(&model.joints[j]))
            .collect();
        let drag = crate::dynamics::fluid::Drag::new(&model);
        let mut w = World { model, state, method, check, readout: Readout::default(), layout, drag, carried };
        w.initial_readout();
        Ok(w)
    }

    /// The readout of a state nothing has stepped from yet: the actuators' forces now, the sensors with no
    /// acceleration and no contact.
    fn initial_readout(&mut self) {
        let forces = crate::dynamics::actuator::forces(&self.model, &self.state);
        let rec = crate::dynamics::sensor::StepRecord {
            before: &self.state.bodies,
            applied: &[],
            time: self.state.time,
            contacts: &[],
            actuator_forces: &forces,
        };
        let mut data = Vec::new();
        crate::dynamics::sensor::read(&self.model, &self.state, &rec, &mut data);
        self.readout = Readout { contacts: Vec::new(), joints: Vec::new(), actuator_forces: forces, sensordata: data };
    }

    /// The actuators' names, in the order of [`World::ctrl`].
    pub fn actuator_names(&self) -> Vec<&str> {
        self.model.actuators.iter().map(|a| a.name.as_str()).collect()
    }

    /// The actuators' controls now (a servo's: its motor's target over its scale).
    pub fn ctrl(&self) -> Vec<f64> {
        let mut c = self.state.inputs.ctrl.clone();
        c.resize(self.model.actuators.len(), 0.0);
        for (k, a) in self.model.actuators.iter().enumerate() {
            if let (Some(s), Some(Some(t))) = (a.servo, self.state.motor_targets.get(a.servo.map_or(0, |s| s.joint))) {
                c[k] = s.ctrl(t);
            }
        }
        c
    }

    /// Sets every actuator's control for the coming steps (one number per actuator, in the order of
    /// [`World::actuator_names`]); from then on the scene's schedules no longer move them. A control outside
    /// an actuator's `ctrlrange` is clamped when the force is computed, as MuJoCo does. An error says the
    /// expected length, or names the actuator whose control is not finite.
    pub fn set_ctrl(&mut self, ctrl: &[f64]) -> Result<(), InputError> {
        let n = self.model.actuators.len();
        if ctrl.len() != n {
            return Err(InputError::at(
                &self.model.name,
                format!("set_ctrl: expected {n} controls (one per actuator), got {}", ctrl.len()),
            ));
        }
        if let Some(k) = ctrl.iter().position(|c| !c.is_finite()) {
            return Err(InputError::at(
                &self.model.name,
                format!("set_ctrl: the control of actuator `{}` must be finite, got {}", self.model.actuators[k].name, ctrl[k]),
            ));
        }
        if self.state.inputs.ctrl.len() != n {
            self.state.inputs = crate::dynamics::actuator::Inputs::initial(&self.model, &self.state.motor_targets);
        }
        if self.state.motor_targets.len() != self.model.joints.len() {
            self.state.motor_targets = crate::dynamics::joint::initial_targets(&self.model);
        }
        for (k, a) in self.model.actuators.iter().enumerate() {
            self.state.inputs.ctrl[k] = ctrl[k];
            self.state.inputs.external[k] = true;
            if let Some(s) = a.servo {
                let u = a.ctrl_range.map_or(ctrl[k], |[lo, hi]| ctrl[k].clamp(lo, hi));
                self.state.motor_targets[s.joint] = Some(s.target(&self.model, u));
            }
        }
        Ok(())
    }

    /// The actuators' activations (0 for an actuator without dynamics).
    pub fn act(&self) -> &[f64] {
        &self.state.inputs.act
    }

    /// The scalar force of each actuator during the last step (before the first: at the initial state).
    pub fn actuator_forces(&self) -> &[f64] {
        &self.readout.actuator_forces
    }

    /// The sensors' names, in their order.
    pub fn sensor_names(&self) -> Vec<&str> {
        self.model.sensors.iter().map(|s| s.name.as_str()).collect()
    }

    /// Every sensor's numbers after the last step, flat, in the sensors' order (MuJoCo's `sensordata`);
    /// [`crate::dynamics::sensor::layout`] gives each sensor's offset.
    pub fn sensordata(&self) -> &[f64] {
        &self.readout.sensordata
    }

    /// What each joint transmitted during the last step, in the model's joint order: the force and the torque
    /// (about body 1's anchor), world frame, that it applied to its body 1 (empty before the first step, and for
    /// a method that does not report them).
    pub fn joint_reactions(&self) -> &[crate::method::JointReading] {
        &self.readout.joints
    }

    /// The contacts of the last step with their forces (empty before the first step).
    pub fn contacts(&self) -> &[crate::method::ContactPoint] {
        &self.readout.contacts
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
        self.initial_readout();
        Ok(())
    }

    /// Brings the world back to the scene's initial state (as `World::new` made it): the method's workspace is
    /// rebuilt (pending forces go with the state), so the following steps are those of a fresh world.
    pub fn reset(&mut self) -> Result<(), InputError> {
        self.method = crate::METHODS.create(&self.model)?;
        self.state = State::from_model(&self.model);
        self.check = self.model.check_intersections.then(|| SurfaceCheck::new(&self.model, &self.state));
        self.initial_readout();
        Ok(())
    }

    /// Checks that body `i` exists, the values are finite, and (with `what`, the action) that the body is not
    /// static: the methods never move a static body, so setting its state would be silently undone.
    fn body_checked(&self, i: usize, values: &[Vec3], what: &str, dynamic_only: bool) -> Result<(), InputError> {
        let n = self.model.bodies.len();
        if i >= n {
            return Err(InputError::at(&self.model.name, format!("body #{i} does not exist (the scene has {n} bodies)")));
        }
        let b = &self.model.bodies[i];
        if values.iter().any(|v| !v.is_finite()) {
            return Err(InputError::at(&self.model.name, format!("body `{}`: the values must be finite", b.name)));
        }
        let kind = match b.kind {
            crate::model::BodyKind::Static => "static",
            crate::model::BodyKind::Kinematic if dynamic_only => "kinematic",
            _ => return Ok(()),
        };
        let allowed = if dynamic_only { "dynamic bodies" } else { "dynamic and kinematic bodies" };
        Err(InputError::at(&self.model.name, format!("body `{}` is {kind}: cannot {what} (only {allowed})", b.name)))
    }

    /// Applies `force` to body `i` during the next step only (as MuJoCo's `xfrc_applied` or PyBullet's
    /// `applyExternalForce`), at `point` (`None`: the centre of mass), both in `frame`; a point off the centre of
    /// mass adds its moment. Every method honours it, as it honours the scene's `[[load]]`s. Forces given for
    /// the same step add up. An error names the body when it does not exist, is not dynamic, or a value is not
    /// finite.
    pub fn apply_force(&mut self, i: usize, force: Vec3, point: Option<Vec3>, frame: Frame) -> Result<(), InputError> {
        self.body_checked(i, &[force, point.unwrap_or(Vec3::ZERO)], "apply a force to it", true)?;
        self.push_applied(i, force, Vec3::ZERO, point, frame);
        Ok(())
    }

    /// Applies `torque` to body `i` during the next step only, its axes those of `frame`; see
    /// [`World::apply_force`].
    pub fn apply_torque(&mut self, i: usize, torque: Vec3, frame: Frame) -> Result<(), InputError> {
        self.body_checked(i, &[torque], "apply a torque to it", true)?;
        self.push_applied(i, Vec3::ZERO, torque, None, frame);
        Ok(())
    }

    /// Adds a force (at `point`, `None`: the centre of mass) and a torque given in `frame` to the next step's
    /// `State::applied`, turned into world axes about the centre of mass at the body's pose now.
    fn push_applied(&mut self, i: usize, force: Vec3, torque: Vec3, point: Option<Vec3>, frame: Frame) {
        let s = &self.state.bodies[i];
        let origin = self.state.origin(&self.model, i);
        let (force, torque, point) = match frame {
            Frame::World => (force, torque, point),
            Frame::Body => (s.q * force, s.q * torque, point.map(|p| origin + s.q * p)),
        };
        let arm = point.map_or(Vec3::ZERO, |p| p - s.x);
        self.state.applied.push(crate::dynamics::integrate::Applied { body: i, force, torque: torque + arm.cross(force) });
    }

    /// Moves body `i` (in the model's order) to `position` (of its reference frame) and `rotation` before the
    /// next step; every method honours it. An error names the body when `i` is out of range or the pose is not
    /// finite with a unit rotation, or the body is static.
    pub fn set_body_pose(&mut self, i: usize, position: Vec3, rotation: Quat) -> Result<(), InputError> {
        self.body_checked(i, &[position], "set its pose", false)?;
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
        self.state.sleep.stir(i);
        Ok(())
    }

    /// Sets body `i`'s velocity (of its centre of mass) and angular velocity, world frame, before the next
    /// step; every method honours it. An error names the body when `i` is out of range, a value is not finite,
    /// or the body is static.
    pub fn set_body_velocity(&mut self, i: usize, velocity: Vec3, angular_velocity: Vec3) -> Result<(), InputError> {
        self.body_checked(i, &[velocity, angular_velocity], "set its velocity", false)?;
        let s = &mut self.state.bodies[i];
        s.v = velocity;
        s.w = angular_velocity;
        self.method.body_moved(&self.model, &mut self.state, i);
        self.state.sleep.stir(i);
        Ok(())
    }

    /// The generalised coordinates' layout (MuJoCo's qpos and qvel; see `dynamics::generalized`).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The generalised coordinates now: each free root's origin and orientation, then each hinge and prismatic
    /// joint's coordinate.
    pub fn qpos(&self) -> Vec<f64> {
        self.layout.qpos(&self.model, &self.state)
    }

    /// The generalised velocities now: each free root's origin velocity (world) and angular velocity (its own
    /// frame), then each joint's rate.
    pub fn qvel(&self) -> Vec<f64> {
        self.layout.qvel(&self.model, &self.state)
    }

    /// Sets every body's pose from generalised coordinates (forward kinematics, as writing MuJoCo's `qpos`); the
    /// generalised velocities are kept. An error names what is wrong: the length, a value that is not finite, a
    /// free root's quaternion that is zero.
    pub fn set_qpos(&mut self, qpos: &[f64]) -> Result<(), InputError> {
        self.check_generalized("qpos", qpos, self.layout.nq())?;
        for (i, &b) in self.layout.free.iter().enumerate() {
            let q = &qpos[7 * i + 3..7 * i + 7];
            if q.iter().map(|x| x * x).sum::<f64>() < 1e-24 {
                let name = &self.model.bodies[b].name;
                return Err(InputError::at(&self.model.name, format!("set_qpos: the quaternion of free body `{name}` is zero")));
            }
        }
        let qvel = self.qvel();
        self.layout.place(&self.model, &mut self.state.bodies, qpos);
        self.layout.set_velocities(&self.model, &mut self.state.bodies, &qvel);
        self.bodies_moved();
        Ok(())
    }

    /// Sets every body's velocity from generalised velocities at the poses now (as writing MuJoCo's `qvel`).
    pub fn set_qvel(&mut self, qvel: &[f64]) -> Result<(), InputError> {
        self.check_generalized("qvel", qvel, self.layout.nv())?;
        self.layout.set_velocities(&self.model, &mut self.state.bodies, qvel);
        self.bodies_moved();
        Ok(())
    }

    fn check_generalized(&self, what: &str, values: &[f64], n: usize) -> Result<(), InputError> {
        if values.len() != n {
            return Err(InputError::at(
                &self.model.name,
                format!("set_{what}: expected {n} values (n{}), got {}", &what[1..], values.len()),
            ));
        }
        if let Some(k) = values.iter().position(|x| !x.is_finite()) {
            let names = if what == "qpos" { self.layout.qpos_names(&self.model) } else { self.layout.qvel_names(&self.model) };
            return Err(InputError::at(&self.model.name, format!("set_{what}: entry {k} (`{}`) is not finite", names[k])));
        }
        Ok(())
    }

    /// Tells the method that every dynamic body may have moved.
    fn bodies_moved(&mut self) {
        for b in 0..self.model.bodies.len() {
            if self.model.bodies[b].kind == crate::model::BodyKind::Dynamic {
                self.method.body_moved(&self.model, &mut self.state, b);
            }
        }
        self.state.sleep.wake_all();
    }

    /// Each body's inertia tensor about its centre of mass in world axes now (kg·m²).
    pub fn inertia_world(&self, i: usize) -> crate::math::Mat3 {
        let r = crate::math::Mat3::from_quat(self.state.bodies[i].q);
        r * self.model.bodies[i].inertia * r.transpose()
    }

    /// The contact force and torque each body received over the last step, summed over its contact points:
    /// `[torque about its centre of mass, force]` in world axes (N·m, N).
    pub fn contact_wrenches(&self) -> Vec<[f64; 6]> {
        let mut out = vec![[0.0; 6]; self.model.bodies.len()];
        for c in &self.readout.contacts {
            for b in c.bodies {
                if b >= out.len() {
                    continue;
                }
                let f = c.force_on(b);
                let t = (c.point - self.state.bodies[b].x).cross(f);
                let w = &mut out[b];
                for k in 0..3 {
                    w[k] += t[k];
                    w[3 + k] += f[k];
                }
            }
        }
        out
    }

    /// Advances one time step of the model's `dt`. With `[world] check_intersections`, the stats' `intersections`
    /// and `min_distance` are then the world's check of the new state (replacing what the method reported).
    pub fn step(&mut self) -> Result<StepStats, SimError> {
        crate::dynamics::proxy::follow_paths(&self.model, &mut self.state);
        crate::dynamics::joint::follow_paths(&self.model, &mut self.state);
        crate::dynamics::actuator::follow_controls(&self.model, &mut self.state);
        // the actuators' forces at the start of the step, held over it, join the forces applied from outside
        let forces = crate::dynamics::actuator::forces(&self.model, &self.state);
        let sensing = !self.model.sensors.is_empty();
        let (before, applied) = if sensing { (self.state.bodies.clone(), self.state.applied.clone()) } else { Default::default() };
        let time = self.state.time;
        let mut actuated = Vec::new();
        // the couplings' forces between joint coordinates, at the start of the step like the actuators'
        let coupled = crate::dynamics::coupling::joint_forces(&self.model, &self.state);
        if self.carried.iter().any(|&c| c) {
            let mut q = crate::dynamics::actuator::joint_forces(&self.model, &forces);
            q.iter_mut().zip(&coupled).for_each(|(q, c)| *q += c);
            self.state.joint_forces = q.iter().zip(&self.carried).map(|(&q, &c)| if c { q } else { 0.0 }).collect();
        }
        crate::dynamics::actuator::wrenches(&self.model, &self.state, &forces, &coupled, &self.carried, &mut actuated);
        self.state.applied.extend(actuated);
        // ball joints' springs and damping, at the start of the step like the actuators' forces
        if crate::dynamics::ball_spring::any(&self.model) {
            let mut damping = Vec::new();
            crate::dynamics::ball_spring::wrenches(&self.model, &self.state, self.model.dt, &mut damping);
            self.state.applied.extend(damping);
        }
        // spatial tendons' tension, likewise
        if !self.model.site_tendons.is_empty() {
            let mut pulled = Vec::new();
            crate::dynamics::site_tendon::wrenches(&self.model, &self.state, &mut pulled);
            self.state.applied.extend(pulled);
        }
        // the medium's drag at the start of the step, held over it like the actuators' forces
        if let Some(d) = &self.drag {
            let mut drag = Vec::new();
            d.wrenches(&self.state, &mut drag);
            self.state.applied.extend(drag);
        }
        let sleeps = self.model.sleep.enabled && self.method.sleeps();
        if sleeps {
            crate::dynamics::sleep::wake_driven(&self.model, &mut self.state);
        }
        // forces applied from outside last this one step (every method reads them with the scene's loads)
        let result = self.method.step(&self.model, &mut self.state);
        self.state.applied.clear();
        self.state.joint_forces.clear();
        let mut stats = result?;
        crate::dynamics::actuator::advance_activations(&self.model, &mut self.state.inputs, self.model.dt);
        self.state.step += 1;
        self.state.time = self.state.step as f64 * self.model.dt;
        if sleeps {
            crate::dynamics::sleep::update(&self.model, &mut self.state, &mut stats);
        }
        self.state.sleep.stirred.clear();
        self.readout.contacts.clone_from(&stats.contact_points);
        self.readout.joints.clone_from(&stats.joints);
        self.readout.actuator_forces = forces;
        if sensing {
            let rec = crate::dynamics::sensor::StepRecord {
                before: &before,
                applied: &applied,
                time,
                contacts: &self.readout.contacts,
                actuator_forces: &self.readout.actuator_forces,
            };
            crate::dynamics::sensor::read(&self.model, &self.state, &rec, &mut self.readout.sensordata);
        }
        if let Some(check) = &mut self.check {
            let r = check.run(&self.state);
            stats.intersections = Some(r.intersections);
            stats.crossings = Some(r.crossings);
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
