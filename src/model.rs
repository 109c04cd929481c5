//! The model: what a scene says, validated once and read-only during a run.
//!
//! Bodies keep their initial state here; the evolving state lives in [`crate::state::State`], and each
//! method keeps its own workspace.

use crate::geometry::Geometry;
use crate::math::{Mat3, Quat, Vec3};

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

/// Contact material. Pair values: friction coefficients combine by `Model::friction_combine` (geometric mean by
/// default), restitution by maximum.
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
    /// An intermediate link of an MJCF body with several joints: it stands for MuJoCo's massless frame between
    /// the joints, so actuator forces on its joints pass through it to the bodies at the chain's ends
    /// (dynamics/actuator.rs).
    pub intermediate: bool,
    /// The viewer's colour (RGBA in 0…1; no physics reads it): a scene's `color`, an MJCF geom's `rgba`, a URDF
    /// visual's material.
    pub color: Option<[f64; 4]>,
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

/// Joint types of the scene format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointType {
    Ball,
    Hinge,
    Prismatic,
    Fixed,
}

/// A PD servo on a joint coordinate q (hinge angle in rad, prismatic displacement in m): the generalised force
/// `stiffness·(q* − q) + damping·(q̇* − q̇)`, clamped to ±`max_force` when given. The target q* is `target`, or
/// follows `path` (linear between waypoints, held outside, q̇* the segment's slope), or is set from the library
/// (`World::set_motor_target`); the current one is in `State::motor_targets` (dynamics/joint.rs).
#[derive(Debug, Clone)]
pub struct Motor {
    pub target: f64,
    pub stiffness: f64,
    pub damping: f64,
    /// Largest force (prismatic, N) or torque (hinge, N·m) the motor exerts; `None` is unbounded.
    pub max_force: Option<f64>,
    /// Waypoints of the target in strictly increasing time; empty for a constant `target`.
    pub path: Vec<MotorWaypoint>,
}

/// One waypoint of a motor's target path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotorWaypoint {
    pub time: f64,
    pub value: f64,
}

/// One side of a joint in its body's reference frame (in the world for the world side): the anchor, the unit
/// axis, and a unit reference direction perpendicular to the axis (the zero of a hinge's angle). Converted
/// once at load from the scene's world values at the initial pose, so every method reads the same joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointFrame {
    pub anchor: Vec3,
    pub axis: Vec3,
    pub reference: Vec3,
}

/// A joint between two bodies (`body2 = None` is the world).
#[derive(Debug, Clone)]
pub struct Joint {
    pub kind: JointType,
    pub body1: usize,
    pub body2: Option<usize>,
    /// The joint on body1 and on body2 (or the world), each in its own frame.
    pub frames: [JointFrame; 2],
    /// The scene's anchor and unit axis, in the world at the initial pose (what `frames` were computed from).
    pub anchor: Vec3,
    pub axis: Vec3,
    pub limits: Option<[f64; 2]>,
    pub motor: Option<Motor>,
    /// The coordinate's value at the load pose (MJCF `ref`; 0 elsewhere): q = offset + the displacement from
    /// the load pose, so limits, targets and readings are in the file's units.
    pub offset: f64,
    /// Rotor inertia on the coordinate (MJCF `armature`, kg·m² or kg) of a hinge or prismatic joint: a damper of
    /// armature/h towards the coordinate's rate at the step's start on the coordinate row, in every method. The
    /// loader also folds it into the child's inertia where that is exact (`armature_folded`); the methods then
    /// add only [`Joint::rotor_inertia`] (`lcp` takes the folded part back out and keeps all on its row).
    pub armature: f64,
    /// Whether `armature` is also in the child's `Body::inertia` (about the axis; a hinge whose parent cannot
    /// move), for a method with the row to take back out.
    pub armature_folded: bool,
    /// Damping on a ball joint's relative rotation (MJCF `damping` on a ball joint), N·m·s/rad: a torque
    /// −d(ω₂ − ω₁), linearly implicit (dynamics/ball_spring.rs). Hinges and sliders take theirs in `motor`.
    pub ball_damping: f64,
    /// Stiffness of a ball joint's relative rotation (MJCF `stiffness` on a ball joint), N·m/rad: a torque −k·θ,
    /// θ the rotation vector from `ball_rest` to the child's rotation relative to its parent, in the world
    /// frame (dynamics/ball_spring.rs).
    pub ball_stiffness: f64,
    /// The child's rotation relative to its parent (or to the world) where a ball joint's spring rests: the
    /// model's pose.
    pub ball_rest: Quat,
    /// The robot file's joint name (with the robot's prefix); empty for a scene's `[[joint]]` (see
    /// `Model::joint_name`).
    pub name: String,
}

impl Joint {
    /// The rotor inertia a method adds on the coordinate row: the armature not folded into the child's inertia.
    pub fn rotor_inertia(&self) -> f64 {
        if self.armature_folded {
            0.0
        } else {
            self.armature
        }
    }
}

impl JointFrame {
    /// The frame of world anchor `anchor`, unit axis `axis` and reference `reference` seen from a body at
    /// initial pose (`position`, `rotation`) of its reference frame, or from the world when `pose` is `None`.
    pub fn from_world(anchor: Vec3, axis: Vec3, reference: Vec3, pose: Option<(Vec3, Quat)>) -> Self {
        match pose {
            None => JointFrame { anchor, axis, reference },
            Some((p, r)) => {
                let inv = r.inverse();
                JointFrame { anchor: inv * (anchor - p), axis: inv * axis, reference: inv * reference }
            }
        }
    }
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

/// A frame fixed to a body (MJCF `<site>`, a scene's `[[site]]`): where sensors read and site actuators act.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    pub name: String,
    pub body: usize,
    /// The frame in the body's reference frame.
    pub position: Vec3,
    pub rotation: Quat,
    /// The volume a touch sensor counts contacts in.
    pub shape: SiteShape,
}

/// A site's volume, in its frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SiteShape {
    /// Every point (a touch sensor counts all the body's contacts).
    Everywhere,
    Sphere(f64),
    /// Half-extents.
    Box(Vec3),
    /// Radius and half-length along z.
    Capsule(f64, f64),
    Cylinder(f64, f64),
    /// Semi-axes.
    Ellipsoid(Vec3),
}

impl SiteShape {
    /// Whether the point `p` (site frame) lies in the volume (on its surface included).
    pub fn contains(&self, p: Vec3) -> bool {
        let tol = 1e-9;
        match *self {
            SiteShape::Everywhere => true,
            SiteShape::Sphere(r) => p.length() <= r + tol,
            SiteShape::Box(h) => p.x.abs() <= h.x + tol && p.y.abs() <= h.y + tol && p.z.abs() <= h.z + tol,
            SiteShape::Capsule(r, h) => Vec3::new(p.x, p.y, p.z - p.z.clamp(-h, h)).length() <= r + tol,
            SiteShape::Cylinder(r, h) => p.z.abs() <= h + tol && (p.x * p.x + p.y * p.y).sqrt() <= r + tol,
            SiteShape::Ellipsoid(a) => (p / a).length() <= 1.0 + tol,
        }
    }
}

/// The contact methods of the scene format (`world.method`), as a typed key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MethodKey {
    Lcp,
    Impulse,
    VolumetricPenalty,
    ImplicitPenalty,
    Abd,
}

impl MethodKey {
    /// Every key, in the scene format's order.
    pub const ALL: [MethodKey; 5] =
        [MethodKey::Lcp, MethodKey::Impulse, MethodKey::VolumetricPenalty, MethodKey::ImplicitPenalty, MethodKey::Abd];

    /// The key as the scene format writes it (`"volumetric-penalty"`).
    pub fn as_str(self) -> &'static str {
        match self {
            MethodKey::Lcp => "lcp",
            MethodKey::Impulse => "impulse",
            MethodKey::VolumetricPenalty => "volumetric-penalty",
            MethodKey::ImplicitPenalty => "implicit-penalty",
            MethodKey::Abd => "abd",
        }
    }

    /// The key named `s`; the error lists the allowed keys.
    pub fn parse(s: &str) -> Result<MethodKey, String> {
        MethodKey::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| {
            format!(
                "unknown method `{s}`: allowed are {}",
                MethodKey::ALL.iter().map(|k| format!("`{}`", k.as_str())).collect::<Vec<_>>().join(", ")
            )
        })
    }
}

impl std::fmt::Display for MethodKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for MethodKey {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// How two materials' friction coefficients combine at a contact (`[world] friction_combine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrictionCombine {
    /// √(μ₁μ₂), the default.
    #[default]
    GeometricMean,
    /// max(μ₁, μ₂), as MuJoCo combines geoms' frictions (the default of an MJCF file loaded by itself).
    Max,
}

/// A validated scene.
#[derive(Debug, Clone)]
pub struct Model {
    /// Name of the scene (file stem).
    pub name: String,
    pub gravity: Vec3,
    pub dt: f64,
    pub duration: f64,
    pub method: MethodKey,
    /// `[world] check_intersections`: after every step, count intersecting triangle pairs of different bodies
    /// and find the smallest surface distance (collision/surface_check.rs), whatever the method.
    pub check_intersections: bool,
    /// `[world] check_resolution`: segments per full turn of a curved surface in that check's tessellation.
    pub check_resolution: u32,
    /// How the materials' frictions combine at a contact.
    pub friction_combine: FrictionCombine,
    /// `[world] sleep`, `sleep_speed`, `sleep_time`: islands at rest leave the step (dynamics/sleep.rs), under
    /// the methods that sleep.
    pub sleep: crate::dynamics::sleep::SleepParams,
    /// `[world] fluid_density`, `fluid_viscosity`, `wind`: the medium's drag on every dynamic body
    /// (dynamics/fluid.rs); `None`: vacuum.
    pub fluid: Option<crate::dynamics::fluid::Fluid>,
    /// The scene's `[solver.<key>]` tables, each parsed into its method's parameters at load (a method takes
    /// its own with `model.solver.get::<P>()`; a method without a table gets its defaults).
    pub solver: crate::method::params::SolverParams,
    /// What the loader accepted but cairn cannot use (e.g. a `.scn` file's camera and colours), one note each.
    pub notes: Vec<String>,
    pub materials: Vec<Material>,
    pub bodies: Vec<Body>,
    pub joints: Vec<Joint>,
    pub loads: Vec<Load>,
    /// Actuators (MJCF `<actuator>`, a scene's `[[actuator]]`, each joint motor as a servo, a URDF joint's
    /// effort input), in their order: the order of `World::ctrl`.
    pub actuators: Vec<crate::dynamics::actuator::Actuator>,
    /// Control schedules (`[[control]]`, `cairn run --ctrl`).
    pub controls: Vec<crate::dynamics::actuator::Control>,
    pub sites: Vec<Site>,
    /// Sensors, in their order: the order of `World::sensordata`.
    pub sensors: Vec<crate::dynamics::sensor::Sensor>,
    /// Haptic proxies (`[[proxy]]`): bodies driven through a virtual coupling (dynamics/proxy.rs).
    pub proxies: Vec<crate::dynamics::proxy::Proxy>,
    /// Body pairs (a, b), a < b, sorted, that never collide: a robot's parent and child links, and every pair
    /// with a body that has no collision geometry. Every method's pairs skip them (collision/broad.rs).
    pub exclusions: Vec<(u32, u32)>,
    /// Soft equalities between joint coordinates (MJCF `<equality><joint>`).
    pub couplings: Vec<crate::dynamics::coupling::Coupling>,
    /// Spatial tendons through sites (MJCF `<spatial>`): springs, dampers and length limits.
    pub site_tendons: Vec<crate::dynamics::site_tendon::SiteTendon>,
    /// The limits the scene was loaded under (the command line's over its `[limits]` table); a run checks its
    /// output's size against them.
    pub limits: crate::scene::Limits,
}

/// The largest size or distance from the origin a body may have, m: the collision library squares lengths,
/// and well before 1e154 m (where a square overflows) its bounding volumes lose their margins.
pub const MAX_LENGTH: f64 = 1e9;

impl Model {
    /// Refuses a body larger than [`MAX_LENGTH`] or placed farther than that from the origin, naming it, and a
    /// gravity or an initial velocity that would move a body farther than that in one step.
    pub fn check_lengths(&self) -> Result<(), String> {
        // |g| without squaring its components (1e307² overflows)
        let big = self.gravity.abs().max_element();
        let g = if big > 0.0 { big * (self.gravity / big).length() } else { 0.0 };
        let fall = g * self.dt * self.dt;
        if !(fall <= MAX_LENGTH) {
            return Err(format!(
                "world.gravity: a step of free fall, |g|·dt² = {} m, is beyond the lengths cairn simulates, up to {} m",
                crate::scene::limits::show(fall),
                crate::scene::limits::show(MAX_LENGTH)
            ));
        }
        for b in &self.bodies {
            let aabb = b.geometry.shape.compute_local_aabb();
            let size = (aabb.maxs - aabb.mins).max_element();
            let far = b.position.length();
            let (step, turn) = (b.velocity.length() * self.dt, b.angular_velocity.length() * self.dt);
            for (what, v) in [
                ("its largest extent", size),
                ("its distance from the origin", far),
                ("its initial velocity times dt", step),
                ("its initial angular velocity times dt (rad)", turn),
            ] {
                if !(v <= MAX_LENGTH) {
                    return Err(format!(
                        "body `{}`: {what} is {} m; cairn simulates lengths up to {} m (scale the scene's units down)",
                        b.name,
                        crate::scene::limits::show(v),
                        crate::scene::limits::show(MAX_LENGTH)
                    ));
                }
            }
        }
        Ok(())
    }

    /// Joint `k`'s name: the robot file's, else `joint<k>` (as metrics.csv's `joint<k>_q` columns).
    pub fn joint_name(&self, k: usize) -> String {
        match self.joints.get(k) {
            Some(j) if !j.name.is_empty() => j.name.clone(),
            _ => format!("joint{k}"),
        }
    }

    /// Index of the actuator called `name`.
    pub fn actuator_index(&self, name: &str) -> Option<usize> {
        self.actuators.iter().position(|a| a.name == name)
    }

    /// Index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// True when bodies `a` and `b` never collide (`exclusions`).
    pub fn excluded(&self, a: usize, b: usize) -> bool {
        crate::collision::broad::is_excluded(&self.exclusions, a as u32, b as u32)
    }

    /// Pair material coefficients (kinetic μ, static μ, restitution) of bodies `a` and `b`: the frictions by
    /// `friction_combine`, restitution the larger.
    pub fn pair_material(&self, a: usize, b: usize) -> (f64, f64, f64) {
        let ma = &self.materials[self.bodies[a].material];
        let mb = &self.materials[self.bodies[b].material];
        let mix = |x: f64, y: f64| match self.friction_combine {
            FrictionCombine::GeometricMean => (x * y).sqrt(),
            FrictionCombine::Max => x.max(y),
        };
        (mix(ma.friction, mb.friction), mix(ma.static_friction, mb.static_friction), ma.restitution.max(mb.restitution))
    }
}
