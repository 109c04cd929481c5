//! `impulse`: impulse-based stacking with a fixed time step, deepest-penetration points and Mirtich friction.
//!
//! Source: the pulsk project report on impulse-based stacking, after Guendelman, Bridson and Fedkiw, "Nonconvex
//! rigid bodies with stacking" (SIGGRAPH 2003). One step, in the source's order (each a timed stage): collision
//! (impulses with restitution at the deepest points of the pairs interfering at the positions predicted with the
//! old velocities), velocity update, contact (ε = 0), shock propagation over support levels, integrate, optional
//! push-out and, with joints, post-stabilisation; welds (weld.rs) take impulses as one rigid unit.
//! See docs/methods/impulse.md, "One step" and "Symbols".

mod joints;
pub mod law;
mod memo;
mod pairs;
mod step;
mod sweep;
mod weld;

use step::{integrate, velocity};

use crate::collision::narrow::Collision;
use crate::dynamics::proxy::ImpulseCoupling;
use crate::error::{InputError, SimError};
use crate::math::{Mat3, Vec3};
use crate::method::params::{check as param, Params};
use crate::method::stages::{stage_enum, Stage, StageTimer};
use crate::method::{check_finite, Method, StepStats};
use crate::model::{MethodKey, Model};
use crate::state::State;
use law::Coefficients;

/// The collision law.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrictionModel {
    /// Mirtich's integrated model with Poisson restitution (the report's choice).
    Mirtich,
    /// Moore and Wilhelms as Guendelman et al. use it (the report's comparison).
    Moore,
}

impl FrictionModel {
    /// The scene-file name.
    pub fn name(self) -> &'static str {
        match self {
            FrictionModel::Mirtich => "mirtich",
            FrictionModel::Moore => "moore",
        }
    }
}

/// Parameters of `[solver.impulse]`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImpulseParams {
    /// Sweeps of the collision phase. Default 20 (PhysBAM's `collision_pair_iterations`).
    pub collision_iterations: usize,
    /// Sweeps of the contact phase. Default 10.
    pub contact_iterations: usize,
    /// Shock propagation on/off. Default on.
    pub shock_propagation: bool,
    /// Sweeps per level in shock propagation. Default 10.
    pub shock_iterations: usize,
    /// `mirtich` or `moore`. Default `mirtich`.
    pub friction_model: FrictionModel,
    /// The report's processing order on/off (off: pairs in body-index order). Default on.
    pub ordering: bool,
    /// Candidate points of a pair: those within this distance of its deepest point, m. 0 keeps the deepest
    /// point only (the report's basic scheme). Default 0.005.
    pub point_window: f64,
    /// Contact and shock sweeps ramp the restitution from −1 to 0 (Guendelman et al.) instead of using 0
    /// throughout. Default on.
    pub restitution_ramp: bool,
    /// Push-out sweeps after the position update (Guendelman et al.'s optional step): penetration left by
    /// unresolved contacts is removed from the positions only, so that it cannot accumulate. 0 turns it off.
    /// Default 5.
    pub push_out_iterations: usize,
    /// Penetration that push-out leaves alone, m. Default 1e-4.
    pub push_out_tolerance: f64,
    /// Pairs are collected when their predicted distance is below this, m, so that pairs brought into
    /// interference by other impulses during the sweeps are seen. Default 0.02.
    pub margin: f64,
    /// A point approaching faster than this after the sweeps counts as unresolved (statistics only), m/s.
    /// Default 1e-3.
    pub resolved_speed: f64,
    /// Joint pre-stabilisation passes after each phase, and post-stabilisation passes (joints.rs): they stop
    /// earlier once every joint row is within `joint_tolerance`. Default 50.
    pub joint_iterations: usize,
    /// Newton iterations per joint and pass on its predicted poses. Default 3.
    pub joint_newton_iterations: usize,
    /// A joint row counts as satisfied within this, m or rad (velocity rows: this over h). Default 1e-9.
    pub joint_tolerance: f64,
}

impl Default for ImpulseParams {
    fn default() -> Self {
        ImpulseParams {
            collision_iterations: 20,
            contact_iterations: 10,
            shock_propagation: true,
            shock_iterations: 10,
            friction_model: FrictionModel::Mirtich,
            ordering: true,
            point_window: 0.005,
            restitution_ramp: true,
            push_out_iterations: 5,
            push_out_tolerance: 1e-4,
            margin: 0.02,
            resolved_speed: 1e-3,
            joint_iterations: 50,
            joint_newton_iterations: 3,
            joint_tolerance: 1e-9,
        }
    }
}

impl Params for ImpulseParams {
    const KEY: MethodKey = MethodKey::Impulse;
    fn validate(&self) -> Result<(), String> {
        for (v, k) in [
            (self.point_window, "point_window"),
            (self.margin, "margin"),
            (self.resolved_speed, "resolved_speed"),
            (self.push_out_tolerance, "push_out_tolerance"),
            (self.joint_tolerance, "joint_tolerance"),
        ] {
            param::non_negative(Self::KEY, k, v)?;
        }
        for (v, k) in [(self.joint_iterations, "joint_iterations"), (self.joint_newton_iterations, "joint_newton_iterations")] {
            if v == 0 {
                return Err(format!("solver.impulse.{k} must be >= 1, got 0"));
            }
        }
        Ok(())
    }
}

/// The keyword the scene accepts (for the defaults `cairn params` prints).
impl serde::Serialize for FrictionModel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for FrictionModel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        param::keyword(d, MethodKey::Impulse, "friction_model", &[("mirtich", FrictionModel::Mirtich), ("moore", FrictionModel::Moore)])
    }
}

/// The registry's constructor.
pub fn create(model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
    let params = model.solver.get::<ImpulseParams>();
    Ok(Box::new(Impulse::new(params)))
}

/// A candidate point of a piece pair, at the predicted positions.
#[derive(Debug, Clone, Copy)]
struct Point {
    ra: Vec3,
    rb: Vec3,
    n: Vec3,
    d0: f64,
    un0: f64,
}

impl Point {
    /// The normal speed u_n of B relative to A at the point, for the working velocities of `a` and `b`.
    #[inline]
    fn normal_speed(&self, a: &SBody, b: &SBody) -> f64 {
        ((b.v + b.w.cross(self.rb)) - (a.v + a.w.cross(self.ra))).dot(self.n)
    }

    /// How far push-out displacements (translation, rotation vector) `sa` of A and `sb` of B move the point
    /// along its normal, B relative to A (first order).
    #[inline]
    fn pushed(&self, sa: (Vec3, Vec3), sb: (Vec3, Vec3)) -> f64 {
        (sb.0 + sb.1.cross(self.rb) - sa.0 - sa.1.cross(self.ra)).dot(self.n)
    }
}

/// A pair of convex pieces in contact: its candidate points and where it lies (for the ordering).
#[derive(Debug, Clone, Copy)]
struct Group {
    a: u32,
    b: u32,
    first: u32,
    len: u32,
    at: Vec3,
    coefficients: Coefficients,
}

/// What a pair needs this sweep: the approach-weighted point (lever arms `ra`, `rb`) and, when its interfering
/// points span a segment or an area, the face: its centre (`face_ra`, `face_rb`), the axes about which it can
/// carry a moment (`axes[..locked]`) and its radius `extent` (the centre of pressure must stay within it).
#[derive(Debug, Clone, Copy)]
struct Patch {
    /// Some point interferes and approaches (else the pair is only interfering).
    approaching: bool,
    ra: Vec3,
    rb: Vec3,
    n: Vec3,
    /// Tipping axes (in the contact plane) and, last, the normal (torsion).
    axes: [Vec3; 3],
    locked: usize,
    extent: f64,
    face_ra: Vec3,
    face_rb: Vec3,
}

/// Solver body: inverse mass and inertia at the predicted orientation, and the working velocities.
#[derive(Debug, Clone, Copy)]
struct SBody {
    inv_m: f64,
    inv_i: Mat3,
    v: Vec3,
    w: Vec3,
}

/// The `impulse` method and its workspace.
pub struct Impulse {
    params: ImpulseParams,
    /// The haptic proxies' coupling and readings.
    proxies: ImpulseCoupling,
    collision: Collision,
    /// Per body: dynamic and awake this step (dynamics/sleep.rs); a sleeping body is fixed for the step.
    awake: Vec<bool>,
    pred: State,
    /// Per body: the velocities `pred` was made with (pairs.rs `repredict`).
    detected_with: Vec<(Vec3, Vec3)>,
    bodies: Vec<SBody>,
    frozen: Vec<bool>,
    /// Per group: normal and tangential impulse applied in the current phase.
    accumulated: Vec<(f64, Vec3)>,
    /// Per group: the impulse B received from A this step, every phase's (`StepStats::contact_points`).
    group_impulse: Vec<Vec3>,
    /// The collision phase's impulses of groups that a second detection replaced and that have no group of the
    /// same bodies there: (a, b, point, normal, impulse on B). Reported as contact points of their own.
    carried: Vec<(u32, u32, Vec3, Vec3, Vec3)>,
    points: Vec<Point>,
    groups: Vec<Group>,
    order: Vec<u32>,
    scratch: (Vec<u32>, Vec<u32>, Vec<bool>),
    edges: Vec<(usize, usize)>,
    /// Per body: not dynamic (static or kinematic).
    fixed: Vec<bool>,
    /// The traversal sorted by support level (shock propagation).
    by_level: Vec<u32>,
    /// Push-out displacement and rotation per body.
    shift: Vec<(Vec3, Vec3)>,
    directed: Vec<(usize, usize, i8)>,
    resolutions: usize,
    /// Seconds spent in the timed sample of contact resolutions, and how many were timed.
    timed: (f64, usize),
    /// Per point of the group being resolved: first-order depth and normal speed (sweep.rs `patch`).
    du: Vec<(f64, f64)>,
    /// A counter of events in the sweeps; `changed[i]`: its value when body i's velocity last changed;
    /// `quiet[g]`: when group g last did nothing (0: not since the sweeps began). sweep.rs skips a quiet group.
    tick: u64,
    changed: Vec<u64>,
    quiet: Vec<u64>,
    /// Σ normal and Σ |tangential| impulse applied this step.
    impulse_sums: (f64, f64),
    /// The joints' workspace (joints.rs).
    joints: joints::JointWork,
    /// The step's h (the joint passes predict with it).
    step_h: f64,
    /// Bodies joined by fixed joints, resolved in contact as one rigid unit (weld.rs).
    welds: weld::Welds,
    /// The resolutions' set-ups, kept while a pair's geometry stays the same (memo.rs).
    memos: memo::Memos,
}

/// A contact whose normal is within this cosine of horizontal is sideways in the support graph.
const SIDEWAYS: f64 = 0.05;

/// Normal speeds above −APPROACH count as not approaching (rounding), m/s.
const APPROACH: f64 = 1e-6;

stage_enum! {
    /// The timed stages of an `impulse` step, in the source's order (their names are metrics.csv's
    /// `wall_<name>` columns).
    pub enum ImpulseStage {
        /// Collisions at the positions predicted with the old velocities, restitution ε.
        Collision = "collision",
        /// The velocity update by the external forces.
        Velocity = "velocity",
        /// Resting contact at the positions predicted with the new velocities, ε = 0.
        Contact = "contact",
        /// Shock propagation over the support levels.
        Shock = "shock",
        /// The position update.
        Integrate = "integrate",
        /// Push-out of the remaining penetration, positions only.
        PushOut = "push-out",
        /// Joint post-stabilisation: the joints' velocity rows vanish at the new poses.
        PostStabilisation = "post-stabilisation",
    }
}

impl Impulse {
    /// A new `impulse` method with the given parameters.
    pub fn new(params: ImpulseParams) -> Self {
        Impulse {
            proxies: ImpulseCoupling::default(),
            params,
            collision: Collision::default(),
            awake: Vec::new(),
            pred: State::default(),
            detected_with: Vec::new(),
            bodies: Vec::new(),
            frozen: Vec::new(),
            accumulated: Vec::new(),
            group_impulse: Vec::new(),
            carried: Vec::new(),
            points: Vec::new(),
            groups: Vec::new(),
            order: Vec::new(),
            scratch: Default::default(),
            edges: Vec::new(),
            fixed: Vec::new(),
            by_level: Vec::new(),
            shift: Vec::new(),
            directed: Vec::new(),
            resolutions: 0,
            timed: (0.0, 0),
            du: Vec::new(),
            tick: 0,
            changed: Vec::new(),
            quiet: Vec::new(),
            impulse_sums: (0.0, 0.0),
            joints: Default::default(),
            step_h: 0.0,
            welds: Default::default(),
            memos: Default::default(),
        }
    }
}

impl Method for Impulse {
    fn name(&self) -> &'static str {
        "impulse"
    }

    /// A joint with a rotor inertia has its soft coordinate row: its actuators' forces go there, so that a light
    /// link is not kicked by hτ/I in the velocity update for the row to take back.
    fn carries_joint_force(&self, joint: &crate::model::Joint) -> bool {
        joint.rotor_inertia() > 0.0 && matches!(joint.kind, crate::model::JointType::Hinge | crate::model::JointType::Prismatic)
    }

    fn stage_names(&self) -> &'static [&'static str] {
        ImpulseStage::NAMES
    }

    /// The persistent contact manifolds live in `State::contacts` between steps; the step borrows them for its
    /// duration.
    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, SimError> {
        self.collision.borrow_pairs(state);
        let r = self.stages(model, state, model.dt);
        self.collision.return_pairs(state);
        r
    }
    fn sleeps(&self) -> bool {
        true
    }
}

impl Impulse {
    /// The step's stages, in order.
    fn stages(&mut self, model: &Model, state: &mut State, h: f64) -> Result<StepStats, SimError> {
        let mut stats = StepStats::default();
        self.resolutions = 0;
        self.timed = (0.0, 0);
        self.impulse_sums = (0.0, 0.0);
        let mut t = StageTimer::start();
        let t0 = state.time;
        self.proxies.begin(model, state);
        self.step_h = h;
        if !model.joints.is_empty() {
            self.joints.begin(model, state);
        }
        t.time(ImpulseStage::Collision, || self.collision(model, state, h, &mut stats))?;
        t.time(ImpulseStage::Velocity, || velocity(model, state, h, &self.proxies));
        t.time(ImpulseStage::Contact, || self.contact(model, state, h, &mut stats));
        t.time(ImpulseStage::Shock, || self.shock(model, state, h, &mut stats))?;
        t.time(ImpulseStage::Integrate, || integrate(model, state, h))?;
        t.time(ImpulseStage::PushOut, || self.push_out(model, state, h, &mut stats))?;
        if !model.joints.is_empty() {
            t.time(ImpulseStage::PostStabilisation, || {
                self.post_stabilise(model, state);
                check_finite(model, state, "post-stabilisation")
            })?;
            stats.joints = self.joints.readings(h);
        }
        stats.proxies = self.proxies.readings(model, state, h, t0);
        stats.resolutions = self.resolutions;
        stats.resolution_seconds = if self.timed.1 > 0 { self.timed.0 * self.resolutions as f64 / self.timed.1 as f64 } else { 0.0 };
        (stats.normal_impulse, stats.friction_impulse) = self.impulse_sums;
        t.finish(&mut stats);
        Ok(stats)
    }
}

#[cfg(test)]
mod tests;
