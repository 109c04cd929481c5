//! `abd`: affine body dynamics with IPC barrier contact.
//!
//! Source: Lan, Kaufman, Li, Jiang, Yang, "Affine Body Dynamics: Fast, Stable & Intersection-free Simulation
//! of Stiff Materials", ACM TOG (SIGGRAPH) 2022, with the IPC pieces it builds on (Li et al. 2020, ipc-toolkit);
//! see docs/methods/abd.md.
//!
//! One step: predict q̃, lag friction, then Newton iterations (cull pairs within d̂, gradient and Hessian,
//! sparse Cholesky, CCD-bounded backtracking line search, adapt κ) until the vertex moves fall below tolerance.
//! See docs/methods/abd.md, "Symbols" and "One step".

pub mod affine;
pub mod assemble;
pub mod barrier;
pub mod coords;
pub mod counted;
pub mod couplings;
pub mod friction;
pub mod joints;
pub mod local;
pub mod separate;
pub mod system;
#[cfg(test)]
mod tests;

use crate::collision::tri_tri as check;
use crate::collision::{ccd, culling, distance};
use crate::error::InputError;
use crate::error::SimError;
use crate::geometry::surface;
use crate::math::eigen;
use crate::math::Vec3;
use crate::method::params::{check as param, Params};
use crate::method::stages::{stage_enum, Stage};
use crate::method::{check_finite, Method, StepStats};
use crate::model::MethodKey;
use crate::model::{BodyKind, Model};
use crate::state::State;
use affine::Block4;
use culling::{Group, Pair};
use friction::Contact;
use surface::Surfaces;
use system::{Block, System};

/// kg/m³: the density that gives a body without collision geometry a volume for V⊥.
const WATER_DENSITY: f64 = 1000.0;
/// Parameters of `[solver.abd]`. Lengths default to fractions of l_c, the smallest dynamic body's size
/// ([`body_size`]).
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct AbdParams {
    /// Barrier activation distance d̂, m. Default 1e-3·l_c ([`DHAT_FRACTION`]; IPC's fraction, of the bodies'
    /// size rather than the scene's).
    pub dhat: Option<f64>,
    /// Initial barrier stiffness κ, N/m³ (the force on a pair is κ|b′(d²)|·2d), > 0. Default: IPC's κ0 where bodies
    /// touch at the start, else the stiffness at which a pair at d̂/2 is as stiff as the average body's inertia.
    pub kappa: Option<f64>,
    /// Orthogonality stiffness κ of V⊥, Pa, > 0. Default 1e10 (10 GPa; the source applies "a large stiffness (GPa)").
    pub orthogonality: f64,
    /// Friction's static-to-sliding velocity threshold ε_v, m/s, > 0. Default 1e-4·l_c per second
    /// ([`EPS_V_FRACTION`]; static friction creeps below ε_v).
    pub friction_velocity: Option<f64>,
    /// Newton's stopping tolerance, > 0: it stops when the largest vertex move of a step is below tolerance·l_c·h
    /// and that of M⁻¹∇E below tolerance/10·|g|h² (the last step still taken). Default 1e-3.
    pub tolerance: f64,
    /// Newton iterations at most per step. Default 100.
    pub max_iterations: usize,
    /// Segments around a circle when spheres, capsules and cylinders become triangle meshes. Default 16.
    pub resolution: u32,
    /// Joint penalty γ: K = γ(m_a + m_b) on each pinned point or direction and each prismatic line row. Default
    /// 1e6.
    pub joint_stiffness: f64,
    /// Time integration: `euler` (default: backward Euler, the source's) or `bdf2` (second order from the second
    /// step on); both minimise an incremental potential, so the line search, CCD and barrier keep their guarantees.
    pub integrator: Integrator,
    /// The barrier's Hessian in Newton's matrix: `exact` (default; falls back to IPC's per-pair PSD projection for
    /// the rest of a step once a matrix is indefinite) or `projected` (always, as IPC and the source).
    pub hessian: Hessian,
    /// Count intersecting triangle pairs after every step (the guarantee, checked; costs a triangle sweep).
    /// Default false; `cairn validate` turns it on.
    pub check_intersections: bool,
}

impl Default for AbdParams {
    fn default() -> Self {
        AbdParams {
            dhat: None,
            kappa: None,
            orthogonality: 1e10,
            friction_velocity: None,
            tolerance: 1e-3,
            max_iterations: 100,
            resolution: 16,
            joint_stiffness: 1e6,
            integrator: Integrator::Euler,
            hessian: Hessian::Exact,
            check_intersections: false,
        }
    }
}

impl Params for AbdParams {
    const KEY: MethodKey = MethodKey::Abd;
    fn validate(&self) -> Result<(), String> {
        for (v, k) in [(self.dhat, "dhat"), (self.kappa, "kappa"), (self.friction_velocity, "friction_velocity")] {
            if let Some(v) = v {
                param::positive(Self::KEY, k, v)?;
            }
        }
        for (v, k) in [(self.orthogonality, "orthogonality"), (self.tolerance, "tolerance"), (self.joint_stiffness, "joint_stiffness")] {
            param::positive(Self::KEY, k, v)?;
        }
        if self.max_iterations == 0 {
            return Err("solver.abd.max_iterations must be >= 1, got 0".into());
        }
        param::within(Self::KEY, "resolution", self.resolution, 4, 256)
    }
}

/// `[solver.abd] integrator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "String")]
pub enum Integrator {
    /// Backward Euler: q̇ = (q − q^t)/h (the source's; it loses ½h²‖a‖²_M of energy per step).
    Euler,
    /// BDF2: q̇ = (3q − 4q^t + q^{t−1})/(2h), dissipation O(h⁴) per step.
    Bdf2,
}

/// `[solver.abd] hessian`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "String")]
pub enum Hessian {
    /// Each barrier pair's exact Hessian; the projected one for an iteration whose matrix is not positive definite.
    Exact,
    /// IPC's per-pair PSD projection in every iteration.
    Projected,
}

/// A value of a `[solver.abd]` choice, or an error naming the key, what is allowed and what was given.
fn choice<T: Copy>(key: &str, v: &str, choices: &[(&str, T)]) -> Result<T, String> {
    choices.iter().find(|(name, _)| *name == v).map(|&(_, t)| t).ok_or_else(|| {
        let names: Vec<String> = choices.iter().map(|(name, _)| format!("`{name}`")).collect();
        format!("solver.abd.{key} must be {}, got `{v}`", names.join(" or "))
    })
}

/// The keywords the scene accepts (for the defaults `cairn params` prints).
impl serde::Serialize for Integrator {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Integrator::Euler => "euler",
            Integrator::Bdf2 => "bdf2",
        })
    }
}

impl serde::Serialize for Hessian {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Hessian::Exact => "exact",
            Hessian::Projected => "projected",
        })
    }
}

impl TryFrom<String> for Integrator {
    type Error = String;
    fn try_from(v: String) -> Result<Self, String> {
        choice("integrator", &v, &[("euler", Integrator::Euler), ("bdf2", Integrator::Bdf2)])
    }
}

impl TryFrom<String> for Hessian {
    type Error = String;
    fn try_from(v: String) -> Result<Self, String> {
        choice("hessian", &v, &[("exact", Hessian::Exact), ("projected", Hessian::Projected)])
    }
}

/// The registry's constructor.
pub fn create(model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
    let params = model.solver.get::<AbdParams>();
    Ok(Box::new(Abd::new(params, model)))
}

/// What ABD keeps of each body.
#[derive(Debug, Clone)]
struct Body {
    kind: BodyKind,
    mass: Block4,
    /// κ v̄ of V⊥.
    kv: f64,
    /// Largest |x̄| of its surface (bounds a vertex's move by |Δp| + ‖ΔA‖_F·radius).
    radius: f64,
}

/// What `abd` carries from one step to the next besides the affine coordinates and velocities
/// (`State::affine`, `State::affine_velocity`): the barrier stiffness κ (it doubles during a run) and its cap,
/// and the block pattern the sparse Cholesky is laid out for (the symbolic factorisation, and so the rounding,
/// depends on it).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Carry {
    pub kappa: f64,
    pub kappa_max: f64,
    pub pattern: Vec<(usize, usize)>,
    /// BDF2's history: the coordinates and velocities at the start of the last step and at its end (valid while
    /// the state still holds the latter; a state edited between steps takes one backward Euler step).
    #[serde(default)]
    pub history: Option<History>,
}

/// The last step's start and end (coordinates and velocities, 12 per body).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct History {
    pub prev_q: Vec<f64>,
    pub prev_qd: Vec<f64>,
    pub q: Vec<f64>,
    pub qd: Vec<f64>,
}

/// The `abd` method: its model-derived data and its workspace.
pub struct Abd {
    params: AbdParams,
    bodies: Vec<Body>,
    /// Index in the Newton system of each dynamic or kinematic body.
    dyn_index: Vec<Option<usize>>,
    /// Dynamic bodies (contact pairs need one).
    dynamic: Vec<bool>,
    /// Bodies with unknowns in the Newton system: dynamic and kinematic ones.
    moving: Vec<bool>,
    surfaces: Surfaces,
    joints: joints::Joints,
    /// The proxies' couplings for the current step.
    couplings: Vec<couplings::Coupling>,
    /// l_c (the contact length scale), dhat, ε_v.
    scale: f64,
    dhat: f64,
    eps_v: f64,
    /// |g| of the scene (the residual tolerance's acceleration).
    gravity: f64,
    kappa: f64,
    kappa_max: f64,
    /// Coordinates and velocities of every body (12 each).
    q: Vec<f64>,
    qd: Vec<f64>,
    /// BDF2's history for this step (`None`: backward Euler), and the step's start (q^t, q̇^t).
    history: Option<History>,
    start_q: Vec<f64>,
    start_qd: Vec<f64>,
    /// The step of the incremental potential (h, or 2h/3 for BDF2) and the positions at its base q̂
    /// (friction's displacement base).
    he: f64,
    xbase: Vec<[f64; 3]>,
    // workspace
    /// `pairs` and `groups` hold the candidates within d̂ at `q` (culled at the end of the last step).
    pairs_at_q: bool,
    system: System,
    pairs: Vec<Pair>,
    groups: Vec<Group>,
    contacts: Vec<Contact>,
    x: Vec<[f64; 3]>,
    xt: Vec<[f64; 3]>,
    x1: Vec<[f64; 3]>,
    /// What the first step did on its own (the separation of touching bodies), for [`Method::notes`].
    notes: Vec<String>,
    /// Steps whose Newton matrix was indefinite with the exact barrier Hessians, so that the rest of their
    /// iterations projected them (a statistic; see [`AbdParams::hessian`]).
    projected_steps: usize,
    /// The barrier terms of the step's last assembly, and which bodies the last Newton direction moved by less
    /// than the tolerance: their body pairs keep those Hessian blocks in the next assembly.
    lagged: Vec<assemble::GroupTerms>,
    settled: Vec<bool>,
}

/// d̂ by default, as a fraction of the contact length l_c (the smallest dynamic body's size, [`body_size`]):
/// IPC's 1e-3, of the bodies in contact rather than of the scene. Scenes rest bodies with 1 mm gaps; 1e-3 of
/// the scene's diagonal (IPC's l) reached across them, and the barrier pushed stacks apart.
pub const DHAT_FRACTION: f64 = 1e-3;

/// κ doubles after a Newton iteration whose smallest distance is below this fraction of d̂ and shorter than the
/// previous one's (IPC's (1e-9 l)² on squared distances, with d̂ = 1e-3 l). Resting contacts sit well above it:
/// at 1e-1 (this method's first choice) the gaps of bodies separated at the start (0.1 d̂) and of loaded
/// contacts under the balancing κ0 fell below it as soon as they carried their load, and each doubling pushed
/// a touching column of four blocks up (0.8 mm in four steps).
pub const KAPPA_GROWTH_GAP: f64 = 1e-6;

/// ε_v by default, as a fraction of l_c per second (see [`AbdParams::friction_velocity`]).
pub const EPS_V_FRACTION: f64 = 1e-4;

/// A body's size: the root mean square of its surface's bounding-box extents in its own axes (a cube's edge).
pub fn body_size(surfaces: &Surfaces, b: usize) -> f64 {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for v in surfaces.body_vertices[b].clone() {
        for r in 0..3 {
            lo[r] = lo[r].min(surfaces.rest[v][r]);
            hi[r] = hi[r].max(surfaces.rest[v][r]);
        }
    }
    ((0..3).map(|r| (hi[r] - lo[r]).max(0.0).powi(2)).sum::<f64>() / 3.0).sqrt()
}

/// w of the potential that holds kinematic bodies to their prescribed coordinates: the body weighs w times its
/// own mass for how far it may be pushed off its prescription.
pub const KINEMATIC_WEIGHT: f64 = 1e6;

stage_enum! {
    /// The timed stages of an `abd` step, in the order of their names (metrics.csv's `wall_<name>` columns);
    /// Newton's method passes through culling, assembly, solve, CCD and line search once per iteration.
    pub enum AbdStage {
        /// Culling of the candidate pairs (at q, and along the Newton direction), with the positions it needs.
        Culling = "culling",
        /// The CCD bound of the step along the Newton direction.
        Ccd = "ccd",
        /// Assembly of the gradient and Hessian (at q, or at the line search's first trial).
        Assembly = "assembly",
        /// The linear solve for the Newton direction.
        Solve = "solve",
        /// Backtracking on the energy.
        LineSearch = "line search",
        /// The prediction q̃ and the friction lagged at the start of the step.
        Friction = "friction",
        /// Velocities, the rigid view, the end-of-step contacts and the optional intersection check.
        Check = "check",
    }
}

impl Abd {
    /// Builds the affine bodies and their surfaces from the model.
    pub fn new(params: AbdParams, model: &Model) -> Self {
        let surfaces = Surfaces::build(model, params.resolution);
        let mut bodies = Vec::new();
        let mut dyn_index = Vec::new();
        let mut n_dyn = 0;
        let mut size = f64::INFINITY;
        for (b, body) in model.bodies.iter().enumerate() {
            let inertia = body.inertia;
            // v̄ of V⊥: the body's volume; a body without collision geometry (a robot link whose geoms do not
            // collide) has none and would deform freely, so it takes the volume of its mass at water's density
            let density_volume = match body.geometry.unit_mass.volume {
                v if v > 0.0 => v,
                _ => body.mass / WATER_DENSITY,
            };
            let radius = surfaces.body_vertices[b]
                .clone()
                .map(|v| Vec3::new(surfaces.rest[v][0], surfaces.rest[v][1], surfaces.rest[v][2]).length())
                .fold(0.0, f64::max);
            bodies.push(Body {
                kind: body.kind,
                mass: affine::mass_block(body.mass, &inertia),
                kv: params.orthogonality * density_volume,
                radius,
            });
            if body.kind != BodyKind::Static {
                dyn_index.push(Some(n_dyn));
                n_dyn += 1;
            } else {
                dyn_index.push(None);
            }
            // (a body without collision geometry has no size to give d̂)
            if body.kind == BodyKind::Dynamic && !surfaces.body_vertices[b].is_empty() {
                size = size.min(body_size(&surfaces, b));
            }
        }
        let scale = if size.is_finite() && size > 0.0 { size } else { 1.0 };
        let dhat = params.dhat.unwrap_or(DHAT_FRACTION * scale);
        let eps_v = params.friction_velocity.unwrap_or(EPS_V_FRACTION * scale);
        let joints = joints::Joints::new(model, params.joint_stiffness, dhat);
        let mut notes = joints.notes.clone();
        // IPC's barrier contact is inelastic: a restitution the scene asks for is not honoured
        if let Some(m) = model.materials.iter().find(|m| m.restitution > 0.0) {
            notes.push(format!(
                concat!(
                    "abd: restitution is not modelled (its barrier contact is inelastic): material `{}` asks for {}, ",
                    "and impacts end with the bodies at rest against each other; `lcp` and `impulse` honour Newton's law"
                ),
                m.name, m.restitution
            ));
        }
        let dynamic = model.bodies.iter().map(|b| b.kind == BodyKind::Dynamic).collect();
        let moving = model.bodies.iter().map(|b| b.kind != BodyKind::Static).collect();
        Abd {
            params,
            bodies,
            dyn_index,
            dynamic,
            moving,
            surfaces,
            joints,
            couplings: Vec::new(),
            scale,
            dhat,
            eps_v,
            gravity: model.gravity.length(),
            kappa: 0.0,
            kappa_max: 0.0,
            q: Vec::new(),
            qd: Vec::new(),
            history: None,
            start_q: Vec::new(),
            start_qd: Vec::new(),
            he: 0.0,
            xbase: Vec::new(),
            pairs_at_q: false,
            system: System::default(),
            pairs: Vec::new(),
            groups: Vec::new(),
            contacts: Vec::new(),
            x: Vec::new(),
            xt: Vec::new(),
            x1: Vec::new(),
            notes,
            projected_steps: 0,
            lagged: Vec::new(),
            settled: Vec::new(),
        }
    }

    /// The length scale l, d̂ and ε_v in use.
    pub fn scales(&self) -> (f64, f64, f64) {
        (self.scale, self.dhat, self.eps_v)
    }

    /// The surfaces (for checks and tests).
    pub fn surfaces(&self) -> &Surfaces {
        &self.surfaces
    }

    /// The bodies' affine coordinates (12 each, row-major [A | p] about the centre of mass).
    pub fn coordinates(&self) -> &[f64] {
        &self.q
    }

    /// World positions of every surface vertex now.
    pub fn vertex_positions(&self) -> Vec<[f64; 3]> {
        let mut x = Vec::new();
        self.surfaces.positions(&self.q, &mut x);
        x
    }

    /// The step's carried data from the state: the coordinates and velocities (when they differ from the
    /// workspace's copy, because the run was restored or a body was moved, the pairs culled at q are stale),
    /// κ, and the factorisation's pattern for a fresh workspace.
    fn carry_in(&mut self, state: &State, c: Carry) {
        let q: Vec<f64> = state.affine.iter().flatten().copied().collect();
        if q != self.q {
            self.pairs_at_q = false;
            self.q = q;
        }
        self.qd.clear();
        self.qd.extend(state.affine_velocity.iter().flatten());
        self.history = None;
        if self.params.integrator == Integrator::Bdf2 {
            self.history = c.history.filter(|h| h.q == self.q && h.qd == self.qd);
        }
        self.kappa = c.kappa;
        self.kappa_max = c.kappa_max;
        if !self.system.has_pattern() && !c.pattern.is_empty() {
            let n = self.dyn_index.iter().flatten().count();
            self.system.set_pattern(&c.pattern, n);
        }
    }

    /// Writes what the next step needs back into the state.
    fn carry_out(&self, state: &mut State) {
        let chunks = |v: &[f64]| v.chunks_exact(12).map(|c| std::array::from_fn(|k| c[k])).collect();
        state.affine = chunks(&self.q);
        state.affine_velocity = chunks(&self.qd);
        let history = (self.params.integrator == Integrator::Bdf2).then(|| History {
            prev_q: self.start_q.clone(),
            prev_qd: self.start_qd.clone(),
            q: self.q.clone(),
            qd: self.qd.clone(),
        });
        state.carry.put(Carry { kappa: self.kappa, kappa_max: self.kappa_max, pattern: self.system.pattern().to_vec(), history });
    }
}

impl Method for Abd {
    fn name(&self) -> &'static str {
        "abd"
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn stage_names(&self) -> &'static [&'static str] {
        AbdStage::NAMES
    }

    /// An actuator's force on a hinge or slider with a rotor goes on the joint's coordinate (a term −h²·Q·x of
    /// the incremental potential, joints.rs): as body torques it would enter the prediction q̃ as the linearised
    /// turn of the bare links, far off any rotation and far from where the rotor lets them go (see
    /// docs/methods/abd.md, "Joints").
    fn carries_joint_force(&self, joint: &crate::model::Joint) -> bool {
        joint.rotor_inertia() > 0.0 && matches!(joint.kind, crate::model::JointType::Hinge | crate::model::JointType::Prismatic)
    }

    /// `abd` steps its affine coordinates: a rigid pose or velocity set from outside becomes an exact rotation
    /// in them.
    fn body_moved(&self, _model: &Model, state: &mut State, i: usize) {
        let s = state.bodies[i];
        if let Some(a) = state.affine.get_mut(i) {
            *a = affine::q_from_rigid(s.x, s.q);
        }
        if let Some(a) = state.affine_velocity.get_mut(i) {
            *a = affine::qdot_from_rigid(s.q, s.v, s.w);
        }
    }

    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, SimError> {
        let dt = model.dt;
        match state.carry.take::<Carry>(state.step)? {
            None => self.start(model, state, dt)?,
            Some(c) => self.carry_in(state, c),
        }
        let stats = self.advance(model, state, dt);
        self.carry_out(state);
        let stats = stats?;
        check_finite(model, state, "newton")?;
        Ok(stats)
    }
}

mod bound;
mod report;
mod start;
mod step;
