//! What a contact method is to the rest of cairn: the [`Method`] trait the world steps, the statistics a step
//! reports, the typed parameters a method reads from its `[solver.<key>]` table ([`params`]), what it carries
//! from one step to the next ([`carry`]) and the [`Catalog`] through which the scene loader and the world reach
//! the methods without knowing any of them.

pub mod carry;
pub mod params;
pub mod stages;

use crate::error::{InputError, SimError};
use crate::model::{MethodKey, Model};
use crate::state::State;

/// At most this many stages are timed per step.
pub const MAX_STAGES: usize = 8;

/// A contact point of a step, as `cairn run --contacts` records it (`contacts.npy`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContactPoint {
    /// World position, m (the method's contact point: between the surfaces, or the centre of pressure).
    pub point: crate::math::Vec3,
    /// Unit normal, world frame (the method's own convention of direction).
    pub normal: crate::math::Vec3,
    /// The two bodies in contact (model indices).
    pub bodies: [usize; 2],
    /// The force body `bodies[0]` receives from `bodies[1]` at `point`, world frame, N (a velocity-level method
    /// reports its impulse over the step divided by dt); `bodies[1]` receives its opposite.
    pub force: crate::math::Vec3,
}

impl ContactPoint {
    /// The force body `b` receives at this point (N): `force`, its opposite, or zero when `b` is neither body.
    pub fn force_on(&self, b: usize) -> crate::math::Vec3 {
        if self.bodies[0] == b {
            self.force
        } else if self.bodies[1] == b {
            -self.force
        } else {
            crate::math::Vec3::ZERO
        }
    }
}

/// The sum of the forces body `b` receives at `contacts` (N).
pub fn contact_force_on(contacts: &[ContactPoint], b: usize) -> crate::math::Vec3 {
    contacts.iter().map(|c| c.force_on(b)).sum()
}

/// What every method reports after a step.
#[derive(Debug, Clone, Default)]
pub struct StepStats {
    /// Contact points considered (with `[world] sleep`, the sleeping bodies' too: dynamics/sleep.rs).
    pub contacts: usize,
    /// Solver iterations (PGS sweeps of the main pass).
    pub iterations: usize,
    /// Solver residual (for `lcp`: the source's merit θ = ½‖H(λ)‖²).
    pub residual: f64,
    /// Largest penetration depth, m: the deepest seen in this step's collision detection (`impulse`: the depth
    /// its contact points are left after the step's position update and push-out, to first order).
    pub max_penetration: f64,
    /// Contact islands.
    pub islands: usize,
    /// Sum of normal impulses over all contacts, N·s.
    pub normal_impulse: f64,
    /// Sum of friction impulse magnitudes, N·s.
    pub friction_impulse: f64,
    /// Contact point pairs (`impulse`: pairs of convex pieces) still interfering and approaching after the
    /// fixed iterations of the collision and contact phases, summed over both phases (0 for other methods).
    pub unresolved: usize,
    /// Impulses computed by the collision law (`impulse`), and the wall time spent computing them, s.
    pub resolutions: usize,
    pub resolution_seconds: f64,
    /// What each haptic proxy received this step, in the model's order (empty without proxies).
    pub proxies: Vec<crate::dynamics::proxy::Reading>,
    /// `abd`: the smallest distance between surfaces of different bodies after the step (within the barrier's
    /// reach d̂; `None` when no pair is that close, and for other methods), m. With `[world] check_intersections`
    /// (any method): the world's check, within its reach (collision/surface_check.rs).
    pub min_distance: Option<f64>,
    /// `abd` with `check_intersections`, or any method with `[world] check_intersections`: intersecting
    /// triangle pairs of different bodies after the step, counted conservatively: pairs that touch (within
    /// rounding) and pairs that properly cross.
    pub intersections: Option<usize>,
    /// Filled with `intersections`: the triangle pairs of those that properly cross (an edge of one strictly
    /// through the other's interior, collision/tri_tri.rs); the other `intersections - crossings` touch.
    pub crossings: Option<usize>,
    /// Wall time per stage, seconds, in the order of [`Method::stage_names`] (the slot of a stage is its
    /// [`stages::Stage::index`]; methods fill it through a [`stages::StageTimer`]).
    pub stage_seconds: [f64; MAX_STAGES],
    /// The contact points of the step (empty for a method that does not report them).
    pub contact_points: Vec<ContactPoint>,
    /// What each joint transmitted this step, in the model's `[[joint]]` order (empty for a method that does
    /// not report it): the force (N) and the torque about body 1's anchor (N·m), world frame, that the joint
    /// (constraint rows, limit and motor together) applied to body 1, averaged over the step (impulse / dt).
    pub joints: Vec<JointReading>,
    /// `implicit-penalty`: shell points evaluated against a distance field this step (summed over its substeps;
    /// 0 for other methods).
    pub points_tested: usize,
    /// Bodies asleep after the step (dynamics/sleep.rs; 0 under a method that does not sleep).
    pub sleeping: usize,
}

/// What a joint applied to its body 1 during a step (see [`StepStats::joints`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JointReading {
    pub force: crate::math::Vec3,
    pub torque: crate::math::Vec3,
}

/// A contact method.
pub trait Method {
    /// The scene key of the method.
    fn name(&self) -> &'static str;
    /// Names of the timed stages, in order: the method's stage enum's [`stages::Stage::NAMES`].
    fn stage_names(&self) -> &'static [&'static str];
    /// Advances `state` by the model's time step `model.dt` (the one time step a method reads).
    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, SimError>;
    /// What the method changed or assumed on its own that the user should know (e.g. `abd` separating bodies
    /// that touch at the start), once each; empty by default.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// Called after the user set body `body`'s pose or velocity from outside (`World::set_body_pose`,
    /// `World::set_body_velocity`), for a method that keeps its own coordinates of the bodies in the state.
    fn body_moved(&self, _model: &Model, _state: &mut State, _body: usize) {}
    /// Whether the method applies an actuator's generalised force on `joint` through the joint's coordinate row
    /// (`State::joint_forces`) rather than as wrenches on its bodies: a method whose row carries the joint's
    /// rotor inertia takes the force there, so that a light link is not kicked by a torque the row then takes
    /// back.
    fn carries_joint_force(&self, _joint: &crate::model::Joint) -> bool {
        false
    }
    /// Whether the method leaves sleeping bodies out of its step (dynamics/sleep.rs): it detects no contact
    /// between two bodies that are asleep or fixed, wakes a sleeping body that a moving one touches, and neither
    /// loads nor moves a sleeping body. The world then puts islands at rest to sleep after each step.
    fn sleeps(&self) -> bool {
        false
    }
}

/// The methods of this build, as the scene loader and the world reach them: parses a `[solver.<key>]` table,
/// creates a model's method. The crate root provides the one catalog
/// ([`crate::METHODS`]); the core knows the methods only through it.
pub trait Catalog: Sync {
    /// The parameters of `[solver.<key>]`, checked (a message names the key and what is allowed).
    fn parse_params(&self, key: MethodKey, table: &toml::Table) -> Result<params::Value, String>;
    /// Creates the model's method.
    fn create(&self, model: &Model) -> Result<Box<dyn Method + Send>, InputError>;
}

/// Stops the run when a body's pose or velocity is not finite, naming the body, the step and the stage.
pub fn check_finite(model: &Model, state: &State, stage: &'static str) -> Result<(), SimError> {
    for (i, s) in state.bodies.iter().enumerate() {
        let bad = if !crate::math::finite3(s.x) || !(s.q.is_finite()) {
            Some("position")
        } else if !crate::math::finite3(s.v) || !crate::math::finite3(s.w) {
            Some("velocity")
        } else {
            None
        };
        if let Some(quantity) = bad {
            return Err(SimError::NonFinite { body: model.bodies[i].name.clone(), step: state.step, stage, quantity });
        }
    }
    Ok(())
}
