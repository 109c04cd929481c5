//! The evolving state of a run: per body the centre of mass, orientation and velocities.

use crate::math::{Quat, Vec3};
use crate::model::Model;

/// State of one body. Positions are of the centre of mass; velocities are world frame.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BodyState {
    pub x: Vec3,
    pub q: Quat,
    pub v: Vec3,
    pub w: Vec3,
}

/// The whole evolving state of a run: what the next step depends on. A method's workspace holds only
/// buffers rebuilt every step, so a copy of this value restores a run bit for bit (`World::snapshot`).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct State {
    pub time: f64,
    pub step: u64,
    pub bodies: Vec<BodyState>,
    /// Targets of the model's proxies, in their order.
    pub proxies: Vec<crate::dynamics::proxy::Target>,
    /// Targets of the joints' motors, one entry per joint in the model's order (`None`: no motor).
    #[serde(default)]
    pub motor_targets: Vec<Option<crate::dynamics::joint::MotorTarget>>,
    /// The actuators' controls and activations.
    #[serde(default)]
    pub inputs: crate::dynamics::actuator::Inputs,
    /// Each body's affine map about its centre of mass, row-major [A | p] (A close to, but not exactly, the
    /// rotation `q`), for a method whose bodies deform affinely (`abd`); empty for the rigid methods.
    #[serde(default)]
    pub affine: Vec<[f64; 12]>,
    /// Each body's affine velocity, row-major [Ȧ | ṗ], beside `affine`; empty for the rigid methods.
    #[serde(default)]
    pub affine_velocity: Vec<[f64; 12]>,
    /// The persistent contact manifolds with their warm-start data (methods built on `collision::narrow`).
    #[serde(default)]
    pub contacts: crate::collision::narrow::PairCache,
    /// Forces and torques applied from outside for the next step only (`World::apply_force`), world frame about
    /// each body's centre of mass; every method adds them to the scene's loads, and the step clears them.
    #[serde(default)]
    pub applied: Vec<crate::dynamics::integrate::Applied>,
    /// Each joint's actuator force for the next step only that the method carries on the joint's coordinate row
    /// instead of as body wrenches (`Method::carries_joint_force`); empty when none. The step clears it.
    #[serde(default)]
    pub joint_forces: Vec<f64>,
    /// What is asleep (dynamics/sleep.rs); empty while nothing has slept.
    #[serde(default)]
    pub sleep: crate::dynamics::sleep::Sleep,
    /// What the method carries from one step to the next, of the method's own type (warm starts, friction
    /// anchors, barrier stiffness); empty before the first step.
    #[serde(default)]
    pub carry: crate::method::carry::Carry,
}

impl State {
    /// Initial state from the model.
    pub fn from_model(model: &Model) -> Self {
        let bodies = model
            .bodies
            .iter()
            .map(|b| BodyState { x: b.position + b.rotation * b.com, q: b.rotation, v: b.velocity, w: b.angular_velocity })
            .collect();
        let proxies = model
            .proxies
            .iter()
            .map(|p| {
                crate::dynamics::proxy::path_target(&p.path, 0.0).unwrap_or(crate::dynamics::proxy::Target {
                    position: model.bodies[p.body].position,
                    rotation: model.bodies[p.body].rotation,
                    velocity: Vec3::ZERO,
                    angular_velocity: Vec3::ZERO,
                    external: false,
                })
            })
            .collect();
        let motor_targets = crate::dynamics::joint::initial_targets(model);
        let inputs = crate::dynamics::actuator::Inputs::initial(model, &motor_targets);
        State { time: 0.0, step: 0, bodies, proxies, motor_targets, inputs, ..Default::default() }
    }

    /// Origin of body `i`'s reference frame in the world.
    pub fn origin(&self, model: &Model, i: usize) -> Vec3 {
        let s = &self.bodies[i];
        s.x - s.q * model.bodies[i].com
    }

    /// The body's pose as a row-major 3×4 matrix [R | p] of its reference frame (for `abd`, the affine map
    /// [A | p]: x = A x_ref + p).
    pub fn pose_3x4(&self, model: &Model, i: usize) -> [f64; 12] {
        if let Some(q) = self.affine.get(i) {
            let c = model.bodies[i].com;
            let mut out = *q;
            for r in 0..3 {
                out[4 * r + 3] -= q[4 * r] * c.x + q[4 * r + 1] * c.y + q[4 * r + 2] * c.z;
            }
            return out;
        }
        let r = crate::math::Mat3::from_quat(self.bodies[i].q);
        let p = self.origin(model, i);
        [r.x_axis.x, r.y_axis.x, r.z_axis.x, p.x, r.x_axis.y, r.y_axis.y, r.z_axis.y, p.y, r.x_axis.z, r.y_axis.z, r.z_axis.z, p.z]
    }

    /// Kinetic energy of the dynamic bodies.
    pub fn kinetic_energy(&self, model: &Model) -> f64 {
        let mut e = 0.0;
        for (i, b) in model.bodies.iter().enumerate() {
            if b.kind == crate::model::BodyKind::Dynamic {
                e += self.body_kinetic_energy(model, i);
            }
        }
        e
    }

    /// Kinetic energy of body `i` (translation and rotation), whatever its kind.
    pub fn body_kinetic_energy(&self, model: &Model, i: usize) -> f64 {
        let (b, s) = (&model.bodies[i], &self.bodies[i]);
        let wl = crate::math::Mat3::from_quat(s.q).transpose() * s.w;
        0.5 * b.mass * s.v.length_squared() + 0.5 * wl.dot(b.inertia * wl)
    }

    /// Potential energy of the dynamic bodies in the uniform gravity field.
    pub fn potential_energy(&self, model: &Model) -> f64 {
        model
            .bodies
            .iter()
            .zip(&self.bodies)
            .filter(|(b, _)| b.kind == crate::model::BodyKind::Dynamic)
            .map(|(b, s)| -b.mass * model.gravity.dot(s.x))
            .sum()
    }
}
