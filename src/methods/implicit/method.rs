//! The `implicit-penalty` step: the stages of the module comment of mod.rs, in order.

use super::centres::Centres;
use super::contact::{self, Hit, Placement};
use super::drives::{self, Drive};
use super::field::ShellRef;
use super::friction::{self, Anchor, Key};
use super::gradients::{applied_anchor_damper_force, applied_anchor_force, applied_force, applied_kinetic_force, Gains, Jacobian};
use super::step::{add_pair, add_wrench, finish_rhs, Kin, Side};
use super::substeps::{average_substeps, count_attempt, merge_substep, MAX_SPLITS, SPLIT_RESIDUAL};
use super::system::{IslandSystem, Solver};
use super::{FrictionMode, ImpactMode, ImplicitParams, Integrator};
use crate::collision::broad::BroadPhase;
use crate::dynamics::contact_spring::{damping_ratio_for, reduced_mass, LoadSpring};
use crate::dynamics::integrate::{external_wrench, integrate_pose};
use crate::error::{InputError, SimError};
use crate::geometry::fields::{FieldMemory, FieldSettings, Fields};
use crate::math::Vec3;
use crate::method::stages::{stage_enum, Stage, StageTimer};
use crate::method::{check_finite, ContactPoint, Method, StepStats};
use crate::model::{BodyKind, Model};
use crate::state::State;
use parry3d_f64::bounding_volume::Aabb;

stage_enum! {
    /// The timed stages of an `implicit-penalty` step, in order (metrics.csv's `wall_<name>` columns).
    pub enum ImplicitStage {
        /// Bounding boxes and sweep and prune.
        Collision = "collision",
        /// Point shells against fields, both ways, with the gradients.
        Contact = "contact",
        /// Anchor friction.
        Friction = "friction",
        /// Islands and their 6×6-block systems.
        Assembly = "assembly",
        /// Sparse LU (or 6×6) solves.
        Solve = "solve",
        /// Momenta, positions and orientations.
        Integrate = "integrate",
    }
}

/// One pair in contact this step.
struct PairContact {
    a: usize,
    b: usize,
    /// Role 0: B's points in A's field; role 1: A's points in B's field.
    hits: [Vec<Hit>; 2],
    /// The pair's wrench and gradients, rows and columns (A, B).
    jac: Jacobian,
    /// The spring per point after the N0 clamp, and the damper (its `field_rate` unset: per role in `field_rate`,
    /// see [`PairContact::role_gains`]).
    gains: Gains,
    /// Per role, whether its damper measures the rate along the field's gradient (`ImplicitParams::damper_normal`).
    field_rate: [bool; 2],
    friction: friction::Gains,
    /// Per role, each hit's friction as the step applies it (set by the friction stage).
    grips: [Vec<Grip>; 2],
    /// Per role, the implicit friction's terms: anchor springs and kinetic friction (set by the friction stage).
    grip_jac: [Jacobian; 2],
    /// Per role, each hit's normal force for friction: the spring's at the step's start (`Gains::spring_force`), or at the solution when
    /// friction is lagged anew (grip.rs).
    loads: [Vec<f64>; 2],
}

impl PairContact {
    /// The gains of role `role`'s points.
    fn role_gains(&self, role: usize) -> Gains {
        Gains { field_rate: self.field_rate[role], ..self.gains }
    }
}

/// A hit's friction in the step.
#[derive(Debug, Clone, Copy)]
enum Grip {
    /// An explicit force on the point body.
    Force(Vec3),
    /// An implicit anchor spring; the anchor's arm from the field body's centre of mass.
    Spring(Vec3),
    /// Implicit kinetic friction of this size, μ_k·f_n (add_kinetic_friction).
    Slip(f64),
}

/// Below this tangential slip speed (m/s) a sliding point's kinetic friction stays an explicit force.
pub(super) const SLIP_FLOOR: f64 = 1e-9;

/// The method and its workspace.
pub struct ImplicitPenalty {
    params: ImplicitParams,
    fields: Fields,
    centres: Centres,
    /// The method's step h (the scene's dt over the substeps), set by `step`.
    h: f64,
    broad: BroadPhase,
    aabbs: Vec<Aabb>,
    movable: Vec<bool>,
    candidates: Vec<(u32, u32)>,
    solver: Solver,
    /// The friction anchors, borrowed from the state for the step, and the friction stage's new ones.
    anchors: Vec<(Key, Anchor)>,
    next_anchors: Vec<(Key, Anchor)>,
    /// Points tested in the last step.
    pub points_tested: usize,
    /// The anchor keys of the last substep's contact points, in order (for the step's averages).
    point_keys: Vec<Key>,
    /// The largest |C' − target| of an active joint row in the last step (joints.rs), and the rank the
    /// pseudo-inverse kept in its last jointed island.
    pub joint_residual: f64,
    pub joint_rank: usize,
    /// The pairs' load springs, borrowed from the state for the step, and the contact stage's new ones.
    loads: Vec<(PairKey, LoadSpring)>,
    next_loads: Vec<(PairKey, LoadSpring)>,
    /// The pairs' landing depths after an impact (impacts.rs), borrowed and new as the load springs; the
    /// substep's deepest point before them, and its impact impulse.
    landings: Vec<(PairKey, Landing)>,
    next_landings: Vec<(PairKey, Landing)>,
    deepest: f64,
    impact_impulse: f64,
    impact_friction: f64,
    impact_points: Vec<(Key, ContactPoint)>,
    /// What the user should know of the scene under these parameters (`Method::notes`).
    notes: Vec<String>,
}

impl ImplicitPenalty {
    /// Builds every body's field and shell.
    pub fn new(params: ImplicitParams, model: &Model) -> Result<Self, InputError> {
        let fields = Fields::build(model, |_, body| {
            let mut s = FieldSettings::default_for(body);
            if let Some(r) = params.sdf_resolution {
                s.sdf.resolution = r as usize;
            }
            if let Some(b) = params.sdf_band {
                s.sdf.band = b;
            }
            if let Some(h) = params.point_spacing {
                s.spacing = h;
            }
            s
        })
        .map_err(|e| InputError::at(&model.name, format!("[solver.implicit-penalty]: {e}")))?;
        Ok(ImplicitPenalty {
            centres: Centres::new(model, &fields, params.sphere_centres && !params.tangential_damping),
            notes: restitution_note(&params, model),
            params,
            fields,
            h: model.dt,
            broad: BroadPhase::default(),
            aabbs: Vec::new(),
            movable: Vec::new(),
            candidates: Vec::new(),
            solver: Solver::default(),
            anchors: Vec::new(),
            next_anchors: Vec::new(),
            points_tested: 0,
            point_keys: Vec::new(),
            joint_residual: 0.0,
            joint_rank: 0,
            loads: Vec::new(),
            next_loads: Vec::new(),
            landings: Vec::new(),
            next_landings: Vec::new(),
            deepest: 0.0,
            impact_impulse: 0.0,
            impact_friction: 0.0,
            impact_points: Vec::new(),
        })
    }

    /// What the distance fields and shells hold.
    pub fn memory(&self) -> FieldMemory {
        self.fields.memory()
    }

    /// Stage 1: candidate pairs with a dynamic body awake (a body that moves wakes the sleeping ones it reaches).
    fn detect(&mut self, model: &Model, state: &mut State) {
        self.aabbs.clear();
        self.movable.clear();
        for (i, b) in model.bodies.iter().enumerate() {
            let pose = crate::collision::narrow::body_pose(model, state, i);
            self.aabbs.push(b.geometry.shape.compute_aabb(&pose));
            self.movable.push(b.kind == BodyKind::Dynamic);
        }
        self.broad.find_pairs(&self.aabbs, &self.movable, &model.exclusions, &mut self.candidates);
        crate::dynamics::sleep::wake_and_keep(model, state, &mut self.candidates);
    }
}

/// With `impacts = "penalty"`, a material with restitution is damped by backward Euler: a note says so.
fn restitution_note(params: &ImplicitParams, model: &Model) -> Vec<String> {
    let m = model.materials.iter().find(|m| m.restitution > 0.0);
    match m {
        Some(m) if params.impacts == ImpactMode::Penalty => vec![format!(
            concat!(
                "implicit-penalty: with impacts = \"penalty\" restitution is the spring's and damper's alone, and backward ",
                "Euler damps an impact: material `{}` asks for {}, an elastic impact keeps about a quarter of its speed; ",
                "the default impacts = \"newton\" honours it"
            ),
            m.name, m.restitution
        )],
        _ => Vec::new(),
    }
}

#[path = "impacts.rs"]
mod impacts;
#[path = "pairs.rs"]
mod pairs;

#[path = "grip.rs"]
mod grip;
#[path = "load.rs"]
mod load;
use impacts::Landing;
use load::{Carried, PairHits, PairKey};
#[path = "island.rs"]
mod island;

/// One island's bodies (model indices, slot order), its joints (model indices, increasing) and its system.
struct Island {
    bodies: Vec<usize>,
    joints: Vec<usize>,
    sys: IslandSystem,
}

/// What the assembly hands to the solve: per body its kinematics and island slot, the islands, and the drives
/// (motors by joint, proxies by proxy).
struct Assembled {
    kins: Vec<Option<Kin>>,
    slot: Vec<usize>,
    /// Per body its island (dynamic bodies only).
    island: Vec<usize>,
    islands: Vec<Island>,
    motors: Vec<(usize, Drive)>,
    proxies: Vec<Drive>,
}

impl ImplicitPenalty {
    /// Stage 4: kinematics of the dynamic bodies, islands and their systems.
    fn assemble(
        &self,
        model: &Model,
        state: &State,
        pairs: &[PairContact],
        friction: &[(Vec3, Vec3)],
        h: f64,
    ) -> Result<Assembled, SimError> {
        let n = model.bodies.len();
        // a sleeping body is fixed for the step: in no island, integrated by none
        let dynamic: Vec<bool> = (0..n).map(|i| crate::dynamics::sleep::awake(model, state, i)).collect();
        // each body's kinematics in parallel (collected in order)
        use rayon::prelude::*;
        let kins: Vec<Option<Kin>> = (0..n)
            .into_par_iter()
            .map(|i| {
                let b = &model.bodies[i];
                dynamic[i].then(|| Kin::new(b.mass, &b.inertia, &b.inv_inertia, &state.bodies[i], h)).flatten()
            })
            .collect();
        if let Some(i) = (0..n).find(|&i| dynamic[i] && kins[i].is_none()) {
            return Err(SimError::Solver {
                step: state.step,
                stage: "assembly",
                message: format!("body `{}`: singular quaternion update", model.bodies[i].name),
            });
        }
        let fixed: Vec<bool> = dynamic.iter().map(|d| !d).collect();
        let mut edges: Vec<(usize, usize)> = pairs.iter().map(|p| (p.a, p.b)).collect();
        edges.extend(model.joints.iter().filter_map(|j| j.body2.map(|b| (j.body1, b))));
        let (id, count) = crate::dynamics::graph::islands(n, &fixed, &edges);
        let mut islands: Vec<Island> =
            (0..count).map(|_| Island { bodies: Vec::new(), joints: Vec::new(), sys: IslandSystem::default() }).collect();
        let mut slot = vec![usize::MAX; n];
        for i in (0..n).filter(|&i| dynamic[i]) {
            let isl = &mut islands[id[i] as usize];
            slot[i] = isl.bodies.len();
            isl.bodies.push(i);
        }
        for isl in islands.iter_mut() {
            isl.sys = IslandSystem::identity(isl.bodies.len());
        }
        // a joint belongs to the island of its dynamic side(s); one between bodies that do not move is inert
        let owner = |a: usize, b: Option<usize>| [Some(a), b].into_iter().flatten().find(|&i| dynamic[i]);
        for (k, j) in model.joints.iter().enumerate() {
            if let Some(o) = owner(j.body1, j.body2) {
                islands[id[o] as usize].joints.push(k);
            }
        }
        let side = |i: usize| match model.bodies[i].kind {
            BodyKind::Dynamic if !dynamic[i] => Side::Static,
            BodyKind::Dynamic => Side::Dynamic { slot: slot[i], kin: kins[i].as_ref().expect("set above") },
            BodyKind::Kinematic => Side::Kinematic { v: state.bodies[i].v, w: state.bodies[i].w },
            BodyKind::Static => Side::Static,
        };
        for p in pairs {
            let owner = if dynamic[p.a] { p.a } else { p.b };
            let mut jac = p.jac;
            jac.add(&p.grip_jac[0], false);
            jac.add(&p.grip_jac[1], true);
            add_pair(&mut islands[id[owner] as usize].sys, &jac, [side(p.a), side(p.b)], h);
        }
        let world = |b: Option<usize>| b.map_or(Side::Static, side);
        let mut motors = Vec::new();
        for (k, j) in model.joints.iter().enumerate() {
            let Some(o) = owner(j.body1, j.body2) else { continue };
            let t = drives::end_target(&state.motor_targets, k, h);
            if let Some(d) = drives::joint_drive(model, j, t.as_ref(), &state.bodies, h, None) {
                add_pair(&mut islands[id[o] as usize].sys, &d.jac, [side(d.a), world(d.b)], h);
                motors.push((k, d));
            }
        }
        let mut proxies = Vec::new();
        for (p, t) in model.proxies.iter().zip(&state.proxies) {
            let d = drives::proxy_drive(model, p, t, &state.bodies[p.body], h);
            if dynamic[p.body] {
                add_pair(&mut islands[id[p.body] as usize].sys, &d.jac, [side(d.a), Side::Static], h);
            }
            proxies.push(d);
        }
        for i in (0..n).filter(|&i| dynamic[i]) {
            let (f, t) = external_wrench(model, &state.applied, i, state.time);
            let sys = &mut islands[id[i] as usize].sys;
            add_wrench(sys, slot[i], f + friction[i].0, t + friction[i].1);
        }
        for isl in islands.iter_mut() {
            finish_rhs(&mut isl.sys, h);
        }
        let island = id.iter().map(|&i| i as usize).collect();
        Ok(Assembled { kins, slot, island, islands, motors, proxies })
    }

    /// Each penetrating shell point where it lies, on (point body, field body) with the field's outward normal
    /// there, and the force the point body received there: spring, damper and friction as the step's linearised
    /// system applied them, at the end of the step (what its momentum change holds). Sets `point_keys` alike.
    fn contact_points(
        &mut self,
        model: &Model,
        state: &State,
        asm: &Assembled,
        solutions: &[Vec<f64>],
        pairs: &[PairContact],
        h: f64,
    ) -> Vec<ContactPoint> {
        use rayon::prelude::*;
        let motion = self.motions(model, state, asm, solutions, h);
        let roles = |p: &PairContact| [(0, p.a, p.b), (1, p.b, p.a)];
        self.point_keys.clear();
        for p in pairs {
            for (role, fb, pb) in roles(p) {
                self.point_keys.extend(p.hits[role].iter().map(|hit| (fb as u32, pb as u32, hit.point)));
            }
        }
        // per pair in parallel (collected in order), the forces on the field body, then their opposites on the
        // point body
        let per_pair: Vec<Vec<ContactPoint>> = pairs
            .par_iter()
            .map(|p| {
                let mut out = Vec::with_capacity(p.hits[0].len() + p.hits[1].len());
                for (role, fb, pb) in roles(p) {
                    let (sf, sp) = (state.bodies[fb], state.bodies[pb]);
                    let vel = [sf.v, sf.w, sp.v, sp.w];
                    let m = [motion[fb], motion[pb]];
                    out.extend(p.hits[role].iter().zip(&p.grips[role]).map(|(hit, grip)| {
                        let c = &hit.c;
                        let f = -applied_force(c, &p.role_gains(role), &vel, &m)
                            + match *grip {
                                Grip::Force(g) => g,
                                Grip::Spring(alpha) => {
                                    -applied_anchor_force(c, alpha, p.friction.kt, &m)
                                        - applied_anchor_damper_force(c, p.friction.ct, &vel, &m)
                                }
                                Grip::Slip(mu_fn) => -applied_kinetic_force(c, mu_fn, &vel, &m),
                            };
                        ContactPoint { point: sf.x + c.a, normal: c.g.normalize_or_zero(), bodies: [pb, fb], force: f }
                    }));
                }
                out
            })
            .collect();
        // the substep's impact impulses (impacts.rs) as forces over it, after the pairs' points
        let impacts = std::mem::take(&mut self.impact_points);
        self.point_keys.extend(impacts.iter().map(|p| p.0));
        let mut points = per_pair.concat();
        points.extend(impacts.into_iter().map(|p| p.1));
        points
    }

    /// The step's stages, in order.
    fn stages(&mut self, model: &Model, state: &mut State, dt: f64) -> Result<StepStats, SimError> {
        let mut stats = StepStats::default();
        check_finite(model, state, "start of step")?;
        let mut t = StageTimer::start();
        t.time(ImplicitStage::Collision, || self.detect(model, state));
        let mut pairs = t.time(ImplicitStage::Contact, || self.contacts(model, state, dt));
        for p in &pairs {
            for (k, w) in p.jac.wrench.iter().enumerate() {
                if !crate::math::finite3(*w) {
                    let body = model.bodies[if k < 2 { p.a } else { p.b }].name.clone();
                    return Err(SimError::NonFinite { body, step: state.step, stage: "contact", quantity: "contact force" });
                }
            }
        }
        // friction may be taken anew at the solution (grip.rs), from the same anchors
        let again = self.params.friction == FrictionMode::Implicit && self.params.friction_iterations > 1;
        let (mut friction, mut friction_sum) = t.time(ImplicitStage::Friction, || self.friction(model, state, &mut pairs));
        self.joint_residual = 0.0;
        let mut asm = t.time(ImplicitStage::Assembly, || self.assemble(model, state, &pairs, &friction, dt))?;
        self.solver.begin_step();
        let (mut solutions, mut lambdas) = self.solve(model, state, &asm, dt)?;
        t.lap(ImplicitStage::Solve);
        if again && t.time(ImplicitStage::Friction, || self.lag_loads(model, state, (&asm, &solutions), &mut pairs, dt)) {
            (friction, friction_sum) = t.time(ImplicitStage::Friction, || self.friction(model, state, &mut pairs));
            self.joint_residual = 0.0;
            asm = t.time(ImplicitStage::Assembly, || self.assemble(model, state, &pairs, &friction, dt))?;
            self.solver.begin_step();
            (solutions, lambdas) = self.solve(model, state, &asm, dt)?;
            t.lap(ImplicitStage::Solve);
        }
        std::mem::swap(&mut self.anchors, &mut self.next_anchors);
        std::mem::swap(&mut self.loads, &mut self.next_loads);
        std::mem::swap(&mut self.landings, &mut self.next_landings);
        self.readings(model, state, &asm, &solutions, &lambdas, dt, &mut stats);
        stats.contact_points = self.contact_points(model, state, &asm, &solutions, &pairs, dt);
        for (isl, x) in asm.islands.iter().zip(&solutions) {
            for (s, &i) in isl.bodies.iter().enumerate() {
                let k = asm.kins[i].as_ref().expect("dynamic");
                let (dp, dl) = (Vec3::from_slice(&x[6 * s..]), Vec3::from_slice(&x[6 * s + 3..]));
                k.advance(&mut state.bodies[i], dp, dl, dt, &model.bodies[i].inv_inertia);
            }
        }
        for i in 0..model.bodies.len() {
            if model.bodies[i].kind == BodyKind::Kinematic {
                integrate_pose(model, i, &mut state.bodies[i], dt);
            }
        }
        t.lap(ImplicitStage::Integrate);
        check_finite(model, state, "integrate")?;
        stats.contacts = pairs.iter().map(|p| p.hits[0].len() + p.hits[1].len()).sum();
        stats.max_penetration = self.deepest;
        stats.normal_impulse = pairs.iter().map(|p| p.hits.iter().flatten().map(|h| p.gains.spring_force(h.c.d)).sum::<f64>()).sum::<f64>()
            * dt
            + self.impact_impulse;
        stats.friction_impulse = friction_sum * dt + self.impact_friction;
        stats.islands = asm.islands.iter().filter(|i| i.bodies.len() > 1).count();
        stats.iterations = 1;
        stats.points_tested = self.points_tested;
        t.finish(&mut stats);
        Ok(stats)
    }
}

impl Method for ImplicitPenalty {
    fn name(&self) -> &'static str {
        "implicit-penalty"
    }

    fn stage_names(&self) -> &'static [&'static str] {
        ImplicitStage::NAMES
    }

    /// The friction anchors and load springs live in `State::carry` between steps; the step borrows them. The scene's
    /// step is `substeps` steps of h = dt/substeps, each at its own time (loads); the statistics are the largest
    /// counts and depths, the summed impulses and stage times.
    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, SimError> {
        let dt = model.dt;
        let carried: Carried = state.carry.take_or_default(state.step)?;
        (self.anchors, self.loads, self.landings) = (carried.anchors, carried.loads, carried.landings);
        let n = self.params.substeps_for(dt);
        self.h = dt / n as f64;
        let t0 = state.time;
        let mut total = StepStats::default();
        let mut r = Ok(());
        // each substep's contact points and share of the step (n > 1 or split), for their averages
        let mut substeps = Vec::new();
        // substeps to take, last first: (length, halvings, the row error of the substep it halves)
        let mut todo: Vec<(f64, u32, f64)> = vec![(self.h, 0, f64::INFINITY); n as usize];
        let mut t = t0;
        while let Some((h, depth, parent)) = todo.pop() {
            state.time = t;
            // a substep whose joint rows do not converge is taken again as two halves, while halving helps (rows
            // that cannot all be met, a loop that lets no solution, keep their error at any step: no split then)
            let split = !model.joints.is_empty() && depth < MAX_SPLITS;
            let saved = split.then(|| state.bodies.clone());
            match self.stages(model, state, h) {
                Ok(s)
                    if split
                        && self.joint_residual > SPLIT_RESIDUAL
                        && (self.joint_residual == f64::INFINITY || self.joint_residual < 0.5 * parent) =>
                {
                    count_attempt(&mut total, &s);
                    state.bodies = saved.expect("saved when split");
                    // the substep swapped its new anchors and load springs in: the old ones are back in `next_*`
                    std::mem::swap(&mut self.anchors, &mut self.next_anchors);
                    std::mem::swap(&mut self.loads, &mut self.next_loads);
                    std::mem::swap(&mut self.landings, &mut self.next_landings);
                    todo.extend([(0.5 * h, depth + 1, self.joint_residual); 2]);
                }
                Ok(_) if self.joint_residual == f64::INFINITY => {
                    r = Err(SimError::Solver {
                        step: state.step,
                        stage: "solve",
                        message: format!(
                            "the joint rows' Newton solve turned a body by whole revolutions even at substeps of {h:e} s \
                             (dt/{}); set a smaller world.dt",
                            (dt / h).round()
                        ),
                    });
                    break;
                }
                Ok(mut s) => {
                    let w = h / dt;
                    if n > 1 || depth > 0 || !substeps.is_empty() || !todo.is_empty() {
                        substeps.push((std::mem::take(&mut self.point_keys), std::mem::take(&mut s.contact_points), w));
                    }
                    merge_substep(&mut total, s, w);
                    t += h;
                }
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        if r.is_ok() && !substeps.is_empty() {
            total.contact_points = average_substeps(substeps);
        }
        state.time = t0;
        let (anchors, loads, landings) =
            (std::mem::take(&mut self.anchors), std::mem::take(&mut self.loads), std::mem::take(&mut self.landings));
        state.carry.put(Carried { anchors, loads, landings });
        r.map(|_| total)
    }

    fn sleeps(&self) -> bool {
        true
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}

#[cfg(test)]
#[path = "method_tests.rs"]
mod tests;
