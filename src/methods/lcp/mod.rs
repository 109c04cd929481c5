//! `lcp`: velocity-level complementarity solved by projected Gauss-Seidel, with error correction by projection
//! and shock propagation over stack layers.
//!
//! Source: K. Erleben, "Stable, Robust, and Versatile Multibody Dynamics Animation" (PhD work, 2004/2005;
//! slides, University of Copenhagen); see docs/methods/lcp.md.
//!
//! The rows of a layer are swept in colour order (order.rs), and where the processor has AVX2 four independent
//! points at a time, with the scalar sweep's result bit for bit (batch.rs, lanes.rs).
//! See docs/methods/lcp.md, "Symbols" and "Beyond the source".

mod batch;
#[cfg(test)]
mod batch_tests;
mod frozen;
mod geometric;
pub(crate) mod joints;
#[cfg(test)]
mod joints_tests;
pub mod kernel;
mod lanes;
mod order;
mod pgs;
mod step;
#[cfg(test)]
mod tests;

use crate::collision::narrow::{Collision, ContactData};
use crate::dynamics::graph::{GraphWork, StackAnalysis};
use crate::dynamics::joint_block::{JRow, Vel};
use crate::dynamics::proxy::ImpulseCoupling;
use crate::error::InputError;
use crate::error::SimError;
use crate::math::{Mat3, Vec3};
use crate::method::params::{check as param, Params};
use crate::method::stages::{stage_enum, Stage, StageTimer};
use crate::method::{Method, StepStats};
use crate::model::MethodKey;
use crate::model::Model;
use crate::state::State;
use pgs::lever_arms;

pub use joints::{JointWarm, JOINT_SLOTS};

/// Parameters of `[solver.lcp]`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct LcpParams {
    /// PGS sweeps of the dynamics pass over all contacts. Default 10 (the source's DynamicsProjectionStepper).
    pub iterations: usize,
    /// Sweeps at the start of each solve that update the normal rows only (friction rows keep their warm-start
    /// values), ≥ 0, so that friction does not lock in transient sliding. Default 4.
    pub normal_sweeps: usize,
    /// A solve stops early once no impulse changes by more than this fraction of the largest impulse in a
    /// sweep. 0 runs every sweep. Default 1e-6.
    pub tolerance: f64,
    /// Shock propagation over stack layers on/off. Default on.
    pub shock_propagation: bool,
    /// Fraction f of the step's external impulse given to the dynamics pass before shock propagation (the
    /// source's f); the rest goes to the layered pass. In [0, 1]. Default 0.5.
    pub shock_fraction: f64,
    /// PGS sweeps per stack layer in shock propagation. Default 20 (an impact on a stack is resolved here).
    pub layer_iterations: usize,
    /// Error correction by projection on/off. Default on.
    pub correction: bool,
    /// PGS sweeps of each correction (projection) solve at most; it stops early as the velocity solves do
    /// (`tolerance`). Default 40.
    pub correction_iterations: usize,
    /// Penetration below which no correction solve is run, m. Default 1e-5.
    pub correction_tolerance: f64,
    /// Contacts are generated for gaps below this distance, m. Default 0.02.
    pub margin: f64,
    /// Newton restitution applies only to approach speeds above this, m/s. Default 0.05.
    pub restitution_threshold: f64,
    /// A contact whose tangential speed is below this uses the static friction coefficient, m/s. Default 1e-3.
    pub static_speed: f64,
    /// Warm starting from the previous step's impulses on/off (shock propagation's layers: the normal impulses
    /// only). Default on.
    pub warm_start: bool,
    /// Geometric stiffness of the joints in the velocity solves (geometric.rs), on/off: it keeps a link under
    /// tension stable at any step. Default on.
    pub geometric_stiffness: bool,
    /// In a layer of shock propagation, a frozen dynamic body may hold the body resting on it back but not
    /// speed it up beyond the velocity the dynamics pass gave it (a frozen body takes no reaction, so its push
    /// would be work from nowhere). Off: the source's layers, which gain energy on tall stacks. Default on.
    pub shock_frozen_limit: bool,
}

impl Default for LcpParams {
    fn default() -> Self {
        LcpParams {
            iterations: 10,
            normal_sweeps: 4,
            tolerance: 1e-6,
            shock_propagation: true,
            shock_fraction: 0.5,
            layer_iterations: 20,
            correction: true,
            correction_iterations: 40,
            correction_tolerance: 1e-5,
            margin: 0.02,
            restitution_threshold: 0.05,
            static_speed: 1e-3,
            warm_start: true,
            geometric_stiffness: true,
            shock_frozen_limit: true,
        }
    }
}

impl Params for LcpParams {
    const KEY: MethodKey = MethodKey::Lcp;
    fn validate(&self) -> Result<(), String> {
        let f = self.shock_fraction;
        if !(0.0..=1.0).contains(&f) {
            return Err(format!("solver.lcp.shock_fraction must be in [0, 1], got {f}"));
        }
        for (v, k) in [
            (self.correction_tolerance, "correction_tolerance"),
            (self.margin, "margin"),
            (self.restitution_threshold, "restitution_threshold"),
            (self.static_speed, "static_speed"),
        ] {
            param::non_negative(Self::KEY, k, v)?;
        }
        if self.iterations == 0 {
            return Err("solver.lcp.iterations must be >= 1".into());
        }
        Ok(())
    }
}

/// The registry's constructor.
pub fn create(model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
    let params = model.solver.get::<LcpParams>();
    Ok(Box::new(Lcp::new(params)))
}

/// Solver body: inverse mass and world inverse inertia.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct SBody {
    inv_m: f64,
    inv_i: Mat3,
}

// `SBody` is ten f64: inv_m, then the inverse inertia's columns (what `SBody::flat` relies on)
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<SBody>() == 80 && align_of::<SBody>() == 8 && offset_of!(SBody, inv_i) == 8);
    assert!(size_of::<Mat3>() == 72 && offset_of!(Mat3, y_axis) == 24 && offset_of!(Mat3, z_axis) == 48);
};

impl SBody {
    /// The solver bodies as rows of ten f64 (inv_m, then the inverse inertia column by column), for the
    /// batched sweep's transposes.
    fn flat(b: &[SBody]) -> &[[f64; 10]] {
        // SAFETY: `SBody` is `repr(C)` of an f64 and a `Mat3` of three `Vec3` of three f64, with no padding
        // (asserted above): the layout of `[f64; 10]`; the new slice borrows `b`.
        unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<[f64; 10]>(), b.len()) }
    }
}

impl Vel {
    /// The velocities as rows of six f64 (v, then w), for the batched sweep's transposes.
    fn flat(v: &mut [Vel]) -> &mut [[f64; 6]] {
        // SAFETY: `Vel` is `repr(C)` of two `Vec3` of three f64 each with no padding (asserted above): the same
        // size, alignment and layout as `[f64; 6]`; the new slice takes over the unique borrow of `v`.
        unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<[f64; 6]>(), v.len()) }
    }
}

/// The three rows (normal, two friction directions) of one contact point, compact: the lever arms, the
/// directions and the point's 3 × 3 block of A = J M⁻¹ Jᵀ, not the rows' full Jacobians and M⁻¹Jᵀ (the
/// angular response M⁻¹Jᵀ comes from the bodies' inverse inertias, once per point for the three rows together).
/// 240 bytes instead of 456; the fields a point with no impulse reads come first.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
struct Rows {
    a: u32,
    b: u32,
    /// Lever arms from the bodies' centres of mass to the point.
    ra: Vec3,
    rb: Vec3,
    /// n, t1, t2.
    dir: [Vec3; 3],
    bias: f64,
    /// Inverse masses of the two sides, 0 for a fixed or frozen side (which then takes no impulse).
    inv_ma: f64,
    inv_mb: f64,
    /// 1 / A_kk per row.
    inv_diag: [f64; 3],
    lambda: [f64; 3],
    /// The point's off-diagonal entries of A: A_01, A_02, A_12.
    off: [f64; 3],
    mu: f64,
    contact: u32,
}

const _: () = assert!(std::mem::size_of::<Rows>() == 240);

impl Rows {
    /// Relative velocity of the bodies at the point, u_b − u_a: row k's J u is `dir[k]·rel`.
    #[inline]
    fn rel(&self, ba: &Vel, bb: &Vel) -> Vec3 {
        (bb.v + bb.w.cross(self.rb)) - (ba.v + ba.w.cross(self.ra))
    }
}

/// The `lcp` method and its workspace.
pub struct Lcp {
    params: LcpParams,
    /// The haptic proxies' coupling and readings.
    proxies: ImpulseCoupling,
    collision: Collision,
    bodies: Vec<SBody>,
    vel: Vec<Vel>,
    rows: Vec<Rows>,
    /// The dynamics-pass rows' sides' terms (pgs.rs), from which the layers' rows are built.
    row_terms: Vec<[pgs::SideTerms; 2]>,
    /// Displacements of a correction (projection) solve, apart from `vel`.
    disp: Vec<Vel>,
    /// Rows of the current layer (shock propagation).
    layer_rows: Vec<Rows>,
    /// Per contact: distance at detection, pre-step normal speed, friction coefficient in use, restitution.
    dist0: Vec<f64>,
    vn0: Vec<f64>,
    mus: Vec<f64>,
    rest: Vec<f64>,
    /// Per contact: its friction directions (`tangent_basis` of the normal), shared by the step's passes.
    tangents: Vec<(Vec3, Vec3)>,
    /// Current distances of a correction solve's contacts (in the solve's order).
    cdist: Vec<f64>,
    /// Displacement of each body since detection (for first-order distance updates).
    disp_x: Vec<Vec3>,
    disp_t: Vec<Vec3>,
    frozen: Vec<bool>,
    /// Per body: dynamic and awake this step (dynamics/sleep.rs); the others are fixed for the step.
    awake: Vec<bool>,
    /// The bodies' velocities after the dynamics pass (what `shock_frozen_limit` lets a frozen body keep up).
    dyn_vel: Vec<Vel>,
    /// Fixed bodies (not dynamic; the world slot n) for the stack analysis and the islands.
    fixed: Vec<bool>,
    integrated: Vec<bool>,
    edges: Vec<(usize, usize)>,
    /// Per contact edge: whether it seeds the stack analysis (a fixed body holding the other up).
    seeds: Vec<bool>,
    /// Stack heights of the bodies and layers of the contact edges (analysis stage).
    stack: StackAnalysis,
    /// The graph algorithms' buffers; the workspace of the rows' order (order.rs).
    graph: GraphWork,
    row_order: order::RowOrder,
    contact_layer: Vec<u32>,
    order: Vec<u32>,
    impulses: Vec<ContactData>,
    /// Joint rows of the current pass or layer, and the shared kinematics' row buffer.
    jrows: Vec<JRow>,
    /// The solves' workspace: the factored block of the joints' bilateral rows, the contact batches.
    work: pgs::SolveWork,
    row_buf: Vec<crate::dynamics::joint::Row>,
    row_ahead: Vec<crate::dynamics::joint::Row>,
    /// Joints between two bodies (the world is body n) for the stack analysis; contact and joint edges for
    /// the islands; the joints' order (bottom-up: by layer, then model order).
    joint_edges: Vec<(usize, usize)>,
    all_edges: Vec<(usize, usize)>,
    joint_order: Vec<u32>,
    /// This step's joint impulses per pass and slot (stored for the next warm start), and what each joint
    /// applied to body 1 (impulse and angular impulse about its centre of mass) with the lever arm from its
    /// anchor to its centre of mass.
    joint_imp: Vec<JointWarm>,
    /// The previous step's joint impulses, the warm start (what `lcp` carries between steps, in `State::carry`).
    joint_warm: Vec<JointWarm>,
    joint_readings: Vec<crate::method::JointReading>,
    joint_arm: Vec<Vec3>,
    /// Each joint's coordinate rate at the start of the step (what its rotor inertia, `Joint::armature`, keeps).
    joint_rate0: Vec<f64>,
    /// Each body's inertia and its inverse (body frame) without the hinges' rotors the loader folded into it
    /// (on their joints' rows here); a ball joint's stays in (it has no coordinate row).
    rigid: Vec<(Mat3, Mat3)>,
    /// h²K̃ per body: the geometric stiffness of the joint forces it carries (geometric.rs).
    stiff: Vec<Mat3>,
}

stage_enum! {
    /// The timed stages of an `lcp` step, in order (their names are metrics.csv's `wall_<name>` columns).
    pub enum LcpStage {
        /// Collision detection.
        Collision = "collision",
        /// Stack analysis, islands and the rows' order.
        Analysis = "analysis",
        /// Error correction by projection.
        Correction = "correction",
        /// The dynamics pass over all contacts.
        Dynamics = "dynamics",
        /// Shock propagation over the stack layers.
        Shock = "shock",
        /// Position update and the warm-start store.
        Integrate = "integrate",
    }
}

impl Lcp {
    /// A new `lcp` method with the given parameters.
    pub fn new(params: LcpParams) -> Self {
        Lcp {
            params,
            proxies: ImpulseCoupling::default(),
            collision: Collision::default(),
            bodies: Vec::new(),
            vel: Vec::new(),
            rows: Vec::new(),
            row_terms: Vec::new(),
            disp: Vec::new(),
            layer_rows: Vec::new(),
            dist0: Vec::new(),
            vn0: Vec::new(),
            mus: Vec::new(),
            rest: Vec::new(),
            tangents: Vec::new(),
            cdist: Vec::new(),
            disp_x: Vec::new(),
            disp_t: Vec::new(),
            frozen: Vec::new(),
            awake: Vec::new(),
            dyn_vel: Vec::new(),
            fixed: Vec::new(),
            integrated: Vec::new(),
            edges: Vec::new(),
            seeds: Vec::new(),
            stack: StackAnalysis::default(),
            graph: GraphWork::default(),
            row_order: Default::default(),
            contact_layer: Vec::new(),
            order: Vec::new(),
            impulses: Vec::new(),
            jrows: Vec::new(),
            work: Default::default(),
            row_buf: Vec::new(),
            row_ahead: Vec::new(),
            joint_edges: Vec::new(),
            all_edges: Vec::new(),
            joint_order: Vec::new(),
            joint_imp: Vec::new(),
            joint_warm: Vec::new(),
            joint_readings: Vec::new(),
            joint_arm: Vec::new(),
            joint_rate0: Vec::new(),
            rigid: Vec::new(),
            stiff: Vec::new(),
        }
    }

    /// Current distance of contact `c`: detection distance plus the first-order effect of the displacements.
    fn current_dist(&self, ci: usize, state: &State) -> f64 {
        let c = &self.collision.contacts[ci];
        let (ra, rb) = lever_arms(c, state);
        let da = self.disp_x[c.a] + self.disp_t[c.a].cross(ra);
        let db = self.disp_x[c.b] + self.disp_t[c.b].cross(rb);
        self.dist0[ci] + c.normal.dot(db - da)
    }
}

impl Lcp {
    /// Body `i`'s world-frame inverse inertia at orientation `q`, its folded rotors left out (`rigid`).
    fn inv_inertia(&self, model: &Model, i: usize, q: crate::math::Quat) -> Mat3 {
        let r = Mat3::from_quat(q);
        r * self.rigid.get(i).map_or(model.bodies[i].inv_inertia, |b| b.1) * r.transpose()
    }

    /// Advances body `i`'s pose over `h` (`integrate::integrate_pose`) with its inertia of `rigid`.
    fn turn(&self, model: &Model, i: usize, s: &mut crate::state::BodyState, h: f64) {
        let b = &model.bodies[i];
        let (inertia, inv) = self.rigid.get(i).copied().unwrap_or((b.inertia, b.inv_inertia));
        crate::dynamics::integrate::integrate_pose_with(model, i, &inertia, &inv, s, h);
    }
}

/// Each body's inertia and its inverse in its frame without the rotor inertia the loader folded into it
/// (`Joint::armature_folded`): I − Σ armature·a aᵀ over the folded hinges into it, a the child's axis (the
/// hinge's row carries it instead). A ball joint has no coordinate row: its armature stays in the inertia.
fn rigid_inertia(model: &Model) -> Vec<(Mat3, Mat3)> {
    let mut inertia: Vec<Mat3> = model.bodies.iter().map(|b| b.inertia).collect();
    let mut folded = vec![false; model.bodies.len()];
    for j in model.joints.iter().filter(|j| j.armature_folded && j.kind == crate::model::JointType::Hinge) {
        let (child, side) = match j.body2 {
            Some(c) => (c, 1),
            None => (j.body1, 0),
        };
        let a = j.frames[side].axis;
        inertia[child] -= Mat3::from_cols(a * a.x, a * a.y, a * a.z) * j.armature;
        folded[child] = true;
    }
    model
        .bodies
        .iter()
        .zip(inertia)
        .zip(folded)
        .map(|((b, i), f)| if f && i.determinant() > 0.0 { (i, i.inverse()) } else { (b.inertia, b.inv_inertia) })
        .collect()
}

impl Method for Lcp {
    fn name(&self) -> &'static str {
        "lcp"
    }

    fn stage_names(&self) -> &'static [&'static str] {
        LcpStage::NAMES
    }

    /// The persistent contact manifolds (warm-start impulses) live in `State::contacts` between steps, the
    /// joints' warm starts in `State::carry`; the step borrows them for its duration.
    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, SimError> {
        self.joint_warm = state.carry.take_or_default(state.step)?;
        self.collision.borrow_pairs(state);
        let r = self.stages(model, state, model.dt);
        self.collision.return_pairs(state);
        state.carry.put(std::mem::take(&mut self.joint_warm));
        r
    }

    /// A joint with armature has its coordinate row (the rotor inertia on the motor row): its actuators' forces go
    /// there.
    fn carries_joint_force(&self, joint: &crate::model::Joint) -> bool {
        joint.armature > 0.0 && matches!(joint.kind, crate::model::JointType::Hinge | crate::model::JointType::Prismatic)
    }

    fn sleeps(&self) -> bool {
        true
    }
}

impl Lcp {
    /// The step's stages, in order.
    fn stages(&mut self, model: &Model, state: &mut State, h: f64) -> Result<StepStats, SimError> {
        let mut stats = StepStats { iterations: self.params.iterations, ..Default::default() };
        let mut t = StageTimer::start();
        let t0 = state.time;
        self.proxies.begin(model, state);
        t.time(LcpStage::Collision, || self.collision(model, state, h, &mut stats))?;
        t.time(LcpStage::Analysis, || self.analysis(model, state, &mut stats));
        t.time(LcpStage::Correction, || self.correction(model, state));
        t.time(LcpStage::Dynamics, || self.dynamics(model, state, h, &mut stats))?;
        t.time(LcpStage::Shock, || self.shock(model, state, h, &mut stats))?;
        t.time(LcpStage::Integrate, || self.integrate(model, state, h))?;
        if !model.joints.is_empty() {
            stats.joints = self.joint_stats(h);
        }
        stats.proxies = self.proxies.readings(model, state, h, t0);
        t.finish(&mut stats);
        Ok(stats)
    }
}
