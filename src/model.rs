//! The model: what a scene says, validated once and read-only during a run.
//!
//! Bodies keep their initial state here; the evolving state lives in [`crate::state::State`], and each
//! method keeps its own workspace.

use crate::geometry::Geometry;
use crate::math::{Mat3, Quat, Vec3};
use crate::methods::lcp::LcpParams;

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// Moved by forces and contacts.
    Dynamic,
    /// Fixed in the world.
    Static,
    /// Moves with its prescribed (constant) velocity, unaffected by contacts.
    Kinematic,
}

/// Contact material. Pair values: friction coefficients combine by geometric mean, restitution by maximum.
#[derive(Debug, Clone)]
pub struct Material {
    pub name: String,
    /// kg/m³
    pub density: f64,
    /// Kinetic (sliding) Coulomb coefficient.
    pub friction: f64,
    /// Static Coulomb coefficient, ≥ `friction`.
    pub static_friction: f64,
    /// Newton restitution coefficient in [0, 1].
    pub restitution: f64,
}

impl Material {
    /// The built-in default material (density 1000, μ = 0.5, e = 0).
    pub fn default_material() -> Self {
        Material { name: "default".into(), density: 1000.0, friction: 0.5, static_friction: 0.5, restitution: 0.0 }
    }
}

/// One rigid body.
#[derive(Debug, Clone)]
pub struct Body {
    pub name: String,
    pub kind: BodyKind,
    pub geometry: Geometry,
    pub material: usize,
    /// Mass in kg (for static and kinematic bodies: what their density gives; not used by the dynamics).
    pub mass: f64,
    /// Centre of mass in the body's reference frame.
    pub com: Vec3,
    /// Inertia tensor about the centre of mass, body axes.
    pub inertia: Mat3,
    /// Inverse of `inertia`.
    pub inv_inertia: Mat3,
    /// Initial pose of the reference frame.
    pub position: Vec3,
    pub rotation: Quat,
    /// Initial velocity of the centre of mass and angular velocity (world frame).
    pub velocity: Vec3,
    pub angular_velocity: Vec3,
}

impl Body {
    /// Inverse mass: 0 for static and kinematic bodies.
    pub fn inv_mass(&self) -> f64 {
        if self.kind == BodyKind::Dynamic {
            1.0 / self.mass
        } else {
            0.0
        }
    }
}

/// Joint types of the scene format. Parsed and validated; the `lcp` method does not run joints yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointType {
    Ball,
    Hinge,
    Prismatic,
    Fixed,
}

/// A PD servo on a joint coordinate.
#[derive(Debug, Clone)]
pub struct Motor {
    pub target: f64,
    pub stiffness: f64,
    pub damping: f64,
}

/// A joint between two bodies (`body2 = None` is the world).
#[derive(Debug, Clone)]
pub struct Joint {
    pub kind: JointType,
    pub body1: usize,
    pub body2: Option<usize>,
    pub anchor: Vec3,
    pub axis: Vec3,
    pub limits: Option<[f64; 2]>,
    pub motor: Option<Motor>,
}

/// An external force and torque on a body over the time window [start, end).
#[derive(Debug, Clone)]
pub struct Load {
    pub body: usize,
    pub force: Vec3,
    pub torque: Vec3,
    pub start: f64,
    pub end: f64,
}

/// Solver parameters of every method (only the table of the chosen method is used).
#[derive(Debug, Clone, Default)]
pub struct SolverParams {
    pub lcp: LcpParams,
    pub impulse: crate::methods::impulse::ImpulseParams,
    pub volumetric: crate::methods::volumetric::VolumetricParams,
    pub abd: crate::methods::abd::AbdParams,
}

/// A validated scene.
#[derive(Debug, Clone)]
pub struct Model {
    /// Name of the scene (file stem).
    pub name: String,
    pub gravity: Vec3,
    pub dt: f64,
    pub duration: f64,
    pub method: String,
    pub solver: SolverParams,
    /// What the loader accepted but cairn cannot use (e.g. a `.scn` file's camera and colours), one note each.
    pub notes: Vec<String>,
    pub materials: Vec<Material>,
    pub bodies: Vec<Body>,
    pub joints: Vec<Joint>,
    pub loads: Vec<Load>,
    /// Haptic proxies (`[[proxy]]`): bodies driven through a virtual coupling (dynamics/proxy.rs).
    pub proxies: Vec<crate::dynamics::proxy::Proxy>,
}

impl Model {
    /// Index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// Pair material coefficients (kinetic μ, static μ, restitution) of bodies `a` and `b`.
    pub fn pair_material(&self, a: usize, b: usize) -> (f64, f64, f64) {
        let ma = &self.materials[self.bodies[a].material];
        let mb = &self.materials[self.bodies[b].material];
        ((ma.friction * mb.friction).sqrt(), (ma.static_friction * mb.static_friction).sqrt(), ma.restitution.max(mb.restitution))
    }
}
