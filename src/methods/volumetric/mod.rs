//! `volumetric-penalty`: penalty integrated over the intersection volume, at haptic rates.
//!
//! Source: Hasegawa, Fujii, Koike, Sato, "Real-time Rigid Body Simulation Based on Volumetric Penalty Method"
//! (2003), and SpringheadOne's code (PHContactEngine.cpp); see docs/methods/volumetric-penalty.md.
//!
//! One step repeats, `substeps` times per frame of dt (by default h ≤ 1 ms, the source's haptic rate), the timed
//! stages collision (touching.rs), impacts (landings as impacts, impacts.rs), intersection (collision/intersect.rs),
//! penalty (penalty.rs, friction.rs), integrate (symplectic Euler) and joints (joints.rs). Haptic proxies (dynamics/proxy.rs) add their coupling
//! wrench here. See docs/methods/volumetric-penalty.md, "One step" and "Symbols".

mod blocks;
pub mod friction;
mod gains;
mod impacts;
mod integrate;
pub mod joints;
mod params;
pub mod penalty;
mod rebound;
mod refine;
mod seams;
mod sliding;
pub mod stiffness;
mod tipping;
mod touching;

pub use params::{FrictionDamper, PenaltyModel, VolumetricParams, HAPTIC_STEP};

use crate::collision::broad::BroadPhase;
use crate::collision::intersect::{Intersection, Workspace};
use crate::dynamics::proxy::{coupling, Reading};
use crate::error::{InputError, SimError};
use crate::geometry::polytope::{Plane, Polytope};
use crate::math::Vec3;
use crate::method::stages::{stage_enum, Stage, StageTimer};
use crate::method::{check_finite, ContactPoint, Method, StepStats};
use crate::model::{BodyKind, Model};
use crate::state::State;
use friction::Anchor;
use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};

/// The registry's constructor.
pub fn create(model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
    let params = model.solver.get::<VolumetricParams>();
    Ok(Box::new(Volumetric::new(params, model)?))
}

/// Eq. (1)'s normal gives way to EPA's where the intersection is more than this many times thicker along it
/// ([`Volumetric::normal`]).
pub const THIN_RATIO: f64 = 2.0;

/// A piece pair: body a, body b, a's piece, b's piece.
type PieceKey = (u32, u32, u32, u32);

/// One overlapping piece pair this step.
#[derive(Debug, Clone, Copy)]
struct Overlap {
    a: usize,
    b: usize,
    key: PieceKey,
    /// EPA: normal from A to B, depth, deepest points on A and on B.
    normal: Vec3,
    depth: f64,
    point_a: Vec3,
    point_b: Vec3,
    /// This piece pair's part of the springs: 1/n for the n overlapping piece pairs of its two bodies, or more,
    /// up to 1, as far as the bodies' stability budgets allow (gains.rs, `soften`).
    share: f64,
}

/// The method and its workspace.
pub struct Volumetric {
    params: VolumetricParams,
    /// Per body, per piece: the polytope in the body's frame.
    polys: Vec<Vec<Polytope>>,
    /// Per body, per piece, per plane: whether it is a seam between two pieces (seams.rs).
    seams: Vec<Vec<Vec<bool>>>,
    broad: BroadPhase,
    /// The broad phase of the pairs within a frame's reach, and the factor each body pair's load asks for this
    /// frame, sorted by pair (refine.rs).
    near: BroadPhase,
    needs: Vec<((u32, u32), u32)>,
    aabbs: Vec<Aabb>,
    movable: Vec<bool>,
    candidates: Vec<(u32, u32)>,
    overlaps: Vec<Overlap>,
    /// Overlapping piece pairs per body this substep (the damper's share, [`Volumetric::damper_share`]).
    counts: Vec<u32>,
    /// The other bodies each body overlaps this substep (the hardening spring's condition, `Volumetric::law`).
    touching: Vec<u32>,
    /// Each body's largest hardening ratio within its stability budget this substep (gains.rs, `budget`).
    ratio: Vec<f64>,
    /// Scratch of `budget`: (body, spend at r = 1, slope in r, cap on r) per hardenable piece pair and body.
    entries: Vec<(usize, f64, f64, f64)>,
    /// Scratch of `soften`: per body, the springs' spend, the whole spend and the budget; then its part.
    soft: Vec<(f64, f64, f64)>,
    anchors: Vec<((u32, u32, u32, u32), Anchor)>,
    /// The substep's contacts between their normal forces and their friction (sliding.rs).
    pending: Vec<sliding::Pending>,
    /// Per body, the substep's wrench from gravity, loads, the user's forces and proxy couplings (sliding.rs).
    free: Vec<(Vec3, Vec3)>,
    next_anchors: Vec<((u32, u32, u32, u32), Anchor)>,
    /// The substep's contact points (centres of pressure, normals, forces) by piece pair.
    contact_points: Vec<(PieceKey, ContactPoint)>,
    /// The frame's contact points by piece pair, sorted by it: every pair that carried force in a substep, at its
    /// last such substep's point and normal, its force averaged over the frame (Σ F·h / dt), for
    /// `StepStats::contact_points`.
    frame_points: Vec<(PieceKey, ContactPoint)>,
    world_a: (Vec<Plane>, Vec<Vec3>),
    world_b: (Vec<Plane>, Vec<Vec3>),
    ws: Workspace,
    isect: Intersection,
    force: Vec<Vec3>,
    torque: Vec<Vec3>,
    /// The contact wrench per body and the coupling per proxy, averaged over the frame's substeps so far.
    frame_force: Vec<Vec3>,
    frame_torque: Vec<Vec3>,
    frame_coupling: Vec<(Vec3, Vec3)>,
    /// Largest penetration this step: the intersection's extent along its normal (`volume`), the EPA depth
    /// (`point`).
    max_depth: f64,
    /// The joint springs (joints.rs).
    joints: joints::Joints,
    /// Whether the method sleeps (`Method::sleeps`): in a scene without joints (the joints' block system is
    /// solved whole, sleeping bodies included).
    sleeps: bool,
}

impl Volumetric {
    /// Builds the polytopes of every body's pieces.
    pub fn new(params: VolumetricParams, model: &Model) -> Result<Self, InputError> {
        let mut polys = Vec::with_capacity(model.bodies.len());
        for b in &model.bodies {
            let mut v = Vec::new();
            for (pose, shape) in &b.geometry.pieces {
                v.push(
                    Polytope::from_piece(pose, shape.as_ref(), params.tessellation)
                        .map_err(|e| InputError::at(&model.name, format!("body `{}`: {e}", b.name)))?,
                );
            }
            if v.is_empty() && !crate::geometry::compound::collides_with_nothing(&b.geometry.desc) {
                return Err(InputError::at(
                    &model.name,
                    format!("body `{}`: method `volumetric-penalty` needs convex pieces; an open mesh has none", b.name),
                ));
            }
            polys.push(v);
        }
        let seams: Vec<Vec<Vec<bool>>> =
            polys.iter().map(|v| seams::seam_planes(v, 1e-9 * v.iter().map(|p| p.radius).fold(0.0, f64::max))).collect();
        Ok(Volumetric {
            params,
            polys,
            seams,
            broad: BroadPhase::default(),
            near: BroadPhase::default(),
            needs: Vec::new(),
            aabbs: Vec::new(),
            movable: Vec::new(),
            candidates: Vec::new(),
            overlaps: Vec::new(),
            counts: Vec::new(),
            touching: Vec::new(),
            ratio: Vec::new(),
            entries: Vec::new(),
            soft: Vec::new(),
            anchors: Vec::new(),
            pending: Vec::new(),
            free: Vec::new(),
            next_anchors: Vec::new(),
            contact_points: Vec::new(),
            frame_points: Vec::new(),
            world_a: (Vec::new(), Vec::new()),
            world_b: (Vec::new(), Vec::new()),
            ws: Workspace::default(),
            isect: Intersection::default(),
            force: Vec::new(),
            torque: Vec::new(),
            frame_force: Vec::new(),
            frame_torque: Vec::new(),
            frame_coupling: Vec::new(),
            max_depth: 0.0,
            joints: joints::Joints::new(model),
            sleeps: model.joints.is_empty(),
        })
    }

    /// The contact force and torque (about the centre of mass) on body `i`, averaged over the last frame.
    pub fn contact_wrench(&self, i: usize) -> (Vec3, Vec3) {
        (self.frame_force.get(i).copied().unwrap_or_default(), self.frame_torque.get(i).copied().unwrap_or_default())
    }

    /// Stage 1: overlapping piece pairs, in a deterministic order (pairs with a body awake: a body that moves
    /// wakes the sleeping ones it reaches).
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
        self.overlaps.clear();
        // piece pairs that GJK calls touching, decided by their intersection below (touching.rs)
        let mut touching = Vec::new();
        for &(a, b) in &self.candidates {
            let (a, b) = (a as usize, b as usize);
            let (pa, pb) = (crate::collision::narrow::body_pose(model, state, a), crate::collision::narrow::body_pose(model, state, b));
            for (i, qa) in self.polys[a].iter().enumerate() {
                let box_a = qa.hull.compute_aabb(&pa);
                for (j, qb) in self.polys[b].iter().enumerate() {
                    if !box_a.intersects(&qb.hull.compute_aabb(&pb)) {
                        continue;
                    }
                    let Ok(Some(c)) = parry3d_f64::query::contact(&pa, qa.hull.as_ref(), &pb, qb.hull.as_ref(), 0.0) else {
                        continue;
                    };
                    let key = (a as u32, b as u32, i as u32, j as u32);
                    if c.dist < 0.0 {
                        self.overlaps.push(Overlap {
                            a,
                            b,
                            key,
                            normal: c.normal1,
                            depth: -c.dist,
                            point_a: c.point1,
                            point_b: c.point2,
                            share: 1.0,
                        });
                    } else if c.dist <= 1e-9 * (qa.radius + qb.radius) {
                        touching.push((key, pa, pb));
                    }
                }
            }
        }
        if !touching.is_empty() {
            for (key, pa, pb) in touching {
                let (a, b, i, j) = (key.0 as usize, key.1 as usize, key.2 as usize, key.3 as usize);
                if let Some((normal, depth, point_a, point_b)) = self.verify_touching(&pa, &pb, (a, i), (b, j)) {
                    self.overlaps.push(Overlap { a, b, key, normal, depth, point_a, point_b, share: 1.0 });
                }
            }
            self.overlaps.sort_by_key(|o| o.key);
        }
        self.touching.clear();
        self.touching.resize(model.bodies.len(), 0);
        self.counts.clear();
        self.counts.resize(model.bodies.len(), 0);
        for o in &self.overlaps {
            self.counts[o.a] += 1;
            self.counts[o.b] += 1;
        }
        let mut start = 0;
        while start < self.overlaps.len() {
            let (a, b) = (self.overlaps[start].a, self.overlaps[start].b);
            let end = start + self.overlaps[start..].iter().take_while(|o| (o.a, o.b) == (a, b)).count();
            self.touching[a] += 1;
            self.touching[b] += 1;
            let share = 1.0 / (end - start) as f64;
            self.overlaps[start..end].iter_mut().for_each(|o| o.share = share);
            start = end;
        }
        self.budget(model);
    }

    /// The normal of overlap `o`'s intersection (in `self.isect`): eq. (1)'s, unless the intersection is more
    /// than [`THIN_RATIO`] times thicker along it than along EPA's normal, and then EPA's (where one piece passes
    /// through another, eq. (1)'s faces cancel and the normal lies along the crossing). Also returns the penetration:
    /// the intersection's extent along the normal or along EPA's, the smaller.
    /// See docs/methods/volumetric-penalty.md, "The normal of a thin crossing".
    fn normal(&self, o: &Overlap) -> (Vec3, f64) {
        let faces = self.surface_normal((o.a, o.key.2 as usize), (o.b, o.key.3 as usize), o.normal);
        let (along_faces, along_epa) = (penalty::extent(&self.isect, faces), penalty::extent(&self.isect, o.normal));
        if along_faces > THIN_RATIO * along_epa {
            (o.normal, along_epa)
        } else {
            (faces, along_faces.min(along_epa))
        }
    }

    /// Stages 2–3: intersection, penalty and friction of every overlap into the per-body wrenches, the pair's
    /// intersection timed as [`VolumetricStage::Intersection`] and the rest as [`VolumetricStage::Penalty`].
    /// Returns (contacts with force, Σ normal force, Σ |friction force|).
    fn contact_forces(
        &mut self,
        model: &Model,
        state: &State,
        (h, time): (f64, f64),
        t: &mut StageTimer<VolumetricStage>,
    ) -> (usize, f64, f64) {
        let n = model.bodies.len();
        self.force.clear();
        self.force.resize(n, Vec3::ZERO);
        self.torque.clear();
        self.torque.resize(n, Vec3::ZERO);
        self.next_anchors.clear();
        self.contact_points.clear();
        self.pending.clear();
        self.free_wrenches(model, state, time);
        let mut sum_n = 0.0;
        let relax = 0.5 * self.params.impact_speed_for(model.gravity.length(), h);
        let overlaps = std::mem::take(&mut self.overlaps);
        let mut unloaded = Vec::new();
        for o in &overlaps {
            let (a, b) = (o.a, o.b);
            let (sa, sb) = (state.bodies[a], state.bodies[b]);
            let vel_a = |x: Vec3| sa.v + sa.w.cross(x - sa.x);
            let vel_b = |x: Vec3| sb.v + sb.w.cross(x - sb.x);
            let k = o.share * self.spring(model, a, b, h);
            let (pa, pb) = (crate::collision::narrow::body_pose(model, state, a), crate::collision::narrow::body_pose(model, state, b));
            // the anchors persist by piece pair: friction's, and the spring's offset (stiffness.rs)
            let last = self.anchors.binary_search_by_key(&o.key, |e| e.0).ok().map(|i| self.anchors[i].1);
            let (offset, landing) = (std::cell::Cell::new(0.0), std::cell::Cell::new(0.0));
            // the spring force for the linear one `f` = k·d̄, less the offset's k·p (the law applies to what is
            // left); a landing depth L (impacts.rs), relaxed and no deeper than d̄, holds the spring back as p does
            let engaged = |f: f64| {
                let p = last.map_or(0.0, |l| stiffness::engaged_offset(l.offset, l.substep, h, f / k));
                let l = last.map_or(0.0, |l| (l.landing - relax * h).min(f / k).max(0.0));
                offset.set(p);
                landing.set(l);
                if p.max(l) > 0.0 {
                    (f - k * p.max(l)).max(0.0)
                } else {
                    f
                }
            };
            let r;
            let mut reach = 0.0;
            let depth: f64;
            let mut patch = match self.params.model {
                PenaltyModel::Volume => {
                    t.lap(VolumetricStage::Penalty);
                    let ok = self.intersect_pieces(&pa, &pb, (a, o.key.2 as usize), (b, o.key.3 as usize));
                    t.lap(VolumetricStage::Intersection);
                    if !ok {
                        continue; // touching or a sliver: no volume, no force
                    }
                    let normal;
                    (normal, depth) = self.normal(o);
                    // the damper for the spring per unit of depth (see "Restitution of curved contacts")
                    let law = |x: Vec3, n: Vec3, f: f64| {
                        let (g, r) = self.law(model, a, b, engaged(f), o.share);
                        let c = self.gains(model, state, (a, b, o.share), x, n, h, r).1;
                        (if f > 0.0 { g / f } else { 1.0 }, c * self.fill_damping(model, a, b, f, k * depth))
                    };
                    let patch = penalty::integrate_along(&self.isect, normal, k, law, |_, _| 0.0, vel_a, vel_b);
                    reach = tipping::reach(&self.isect, patch.point, patch.normal);
                    r = self.law(model, a, b, patch.spring, o.share).1;
                    self.max_depth = self.max_depth.max(depth);
                    patch
                }
                PenaltyModel::Point => {
                    self.max_depth = self.max_depth.max(o.depth);
                    depth = o.depth;
                    let point = 0.5 * (o.point_a + o.point_b);
                    let (spring, rr) = self.law(model, a, b, engaged(k * o.depth), o.share);
                    r = rr;
                    let (_, c, _) = self.gains(model, state, (a, b, o.share), point, o.normal, h, r);
                    let vn = (vel_a(point) - vel_b(point)).dot(o.normal);
                    penalty::Patch { normal: o.normal, volume: 0.0, area: 0.0, force: (spring + c * vn).max(0.0), spring, point, arm: 0.0 }
                }
            };
            let fresh = Anchor {
                a: pa.inverse_transform_point(patch.point),
                b: pb.inverse_transform_point(patch.point),
                offset: offset.get(),
                landing: landing.get(),
                substep: h,
                normal: patch.normal,
                need: self.need(a, b).max(last.map_or(1, |l| l.need)),
                ..Default::default()
            };
            if patch.force <= 0.0 {
                // a pair held apart by its offset keeps it (friction starts anew), so it cannot push from depth
                if fresh.offset > 0.0 || fresh.landing > 0.0 {
                    unloaded.push((o.key, fresh));
                }
                continue;
            }
            let (_, _, mut g) = self.gains(model, state, (a, b, o.share), patch.point, patch.normal, h, r);
            let balance = self.balance(model, state, (a, b), &patch, reach);
            if balance.map != crate::math::Mat3::ZERO {
                g.c = self.stop_damper(model, (a, b), balance.mass, h).unwrap_or(g.c);
            }
            patch.force = patch.force.max(0.0);
            // (an anchor that holds only a landing depth is new to the spring and to friction)
            let anchor = match last {
                Some(l) if l.substep > 0.0 => {
                    Anchor { offset: fresh.offset, landing: fresh.landing, substep: h, normal: patch.normal, need: fresh.need, ..l }
                }
                _ => fresh,
            };
            let f = patch.normal * patch.force;
            let rate = (vel_b(patch.point) - vel_a(patch.point)).dot(patch.normal);
            self.force[b] += f;
            self.torque[b] += (patch.point - sb.x).cross(f);
            self.force[a] -= f;
            self.torque[a] -= (patch.point - sa.x).cross(f);
            sum_n += patch.force;
            self.pending.push(sliding::Pending { key: o.key, a, b, patch, depth, rate, gains: g, balance, anchor, pose_a: pa, pose_b: pb });
        }
        let (active, sum_t) = self.friction_forces(model, state, h);
        // the pairs that sleep with a spring offset keep their anchors until they wake (without it, a woken pair
        // would push from its whole depth); the others start anew, as they always did
        if state.sleep.any() {
            let awake = |i: u32| crate::dynamics::sleep::awake(model, state, i as usize);
            let held = |a: &Anchor| a.offset > 0.0 || a.landing > 0.0;
            unloaded.extend(self.anchors.iter().filter(|e| held(&e.1) && !awake(e.0 .0) && !awake(e.0 .1)));
        }
        if !unloaded.is_empty() {
            self.next_anchors.extend(unloaded);
            self.next_anchors.sort_unstable_by_key(|e| e.0);
        }
        self.overlaps = overlaps;
        std::mem::swap(&mut self.anchors, &mut self.next_anchors);
        (active, sum_n, sum_t)
    }

    /// Stage 4 (second half): the joint springs, semi-implicit, on the kicked velocities (joints.rs).
    fn joint_forces(&mut self, model: &Model, state: &mut State, h: f64) -> Result<(), SimError> {
        let gains = (self.params.joint_omega_h, self.params.joint_damping_ratio);
        self.joints.solve(model, state, h, gains).map_err(|b| SimError::Solver {
            step: state.step,
            stage: "joints",
            message: format!("the joint system's block of body `{}` is not positive definite", model.bodies[b].name),
        })?;
        check_finite(model, state, "joints")
    }
}

stage_enum! {
    /// The timed stages of a `volumetric-penalty` step, in order (their names are metrics.csv's `wall_<name>`
    /// columns). Intersection and penalty alternate pair by pair; each pair's time is split between them.
    pub enum VolumetricStage {
        /// Bounding boxes and GJK/EPA on the piece pairs.
        Collision = "collision",
        /// The common part of two convex pieces.
        Intersection = "intersection",
        /// Penalty and friction forces (everything of the contact forces but the intersections).
        Penalty = "penalty",
        /// The joint springs' semi-implicit solve (joints.rs).
        Joints = "joints",
        /// Symplectic Euler.
        Integrate = "integrate",
        /// Landings as impacts (impacts.rs), at the start of a substep (last here, so that the earlier
        /// `wall_` columns keep their places).
        Impacts = "impacts",
    }
}

impl Volumetric {
    /// Stages 2–3 of one substep of `h` out of `n`: the contact forces (intersection and penalty, timed through
    /// `t`), their statistics combined into the frame's `stats`, and the frame averages of the proxies' wrenches.
    fn contact(
        &mut self,
        model: &Model,
        state: &State,
        (h, n, time): (f64, u32, f64),
        stats: &mut StepStats,
        t: &mut StageTimer<VolumetricStage>,
    ) -> Result<(), SimError> {
        self.max_depth = 0.0;
        let (active, sum_n, sum_t) = self.contact_forces(model, state, (h, time), t);
        stats.max_penetration = stats.max_penetration.max(self.max_depth);
        stats.contacts = stats.contacts.max(active);
        stats.normal_impulse += sum_n * h;
        stats.friction_impulse += sum_t * h;
        for (i, f) in self.force.iter().chain(&self.torque).enumerate() {
            if !crate::math::finite3(*f) {
                let body = model.bodies[i % model.bodies.len()].name.clone();
                return Err(SimError::NonFinite { body, step: state.step, stage: "penalty", quantity: "contact force" });
            }
        }
        let w = 1.0 / n as f64;
        for i in 0..model.bodies.len() {
            self.frame_force[i] += self.force[i] * w;
            self.frame_torque[i] += self.torque[i] * w;
        }
        self.collect_points(w);
        // proxy readings: the coupling at the start of each substep, averaged
        for ((p, tg), acc) in model.proxies.iter().zip(&state.proxies).zip(&mut self.frame_coupling) {
            let (fc, tc) = coupling(model, p, tg, &state.bodies[p.body]);
            acc.0 += fc * w;
            acc.1 += tc * w;
        }
        t.lap(VolumetricStage::Penalty);
        Ok(())
    }

    /// The frame's proxy readings from the averages.
    fn readings(&self, model: &Model) -> Vec<Reading> {
        model
            .proxies
            .iter()
            .zip(&self.frame_coupling)
            .map(|(p, (fc, tc))| Reading {
                contact_force: self.frame_force[p.body].to_array(),
                contact_torque: self.frame_torque[p.body].to_array(),
                coupling_force: fc.to_array(),
                coupling_torque: tc.to_array(),
            })
            .collect()
    }
}

impl Method for Volumetric {
    fn name(&self) -> &'static str {
        "volumetric-penalty"
    }

    fn stage_names(&self) -> &'static [&'static str] {
        VolumetricStage::NAMES
    }

    /// The friction anchors (by piece pair, sorted) live in `State::carry` between steps; the step borrows them
    /// for its duration.
    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, SimError> {
        self.anchors = state.carry.take_or_default(state.step)?;
        if state.step == 0 {
            self.joints.enter_limits(model, state);
        }
        let r = self.stages(model, state, model.dt);
        state.carry.put(std::mem::take(&mut self.anchors));
        r
    }

    fn sleeps(&self) -> bool {
        self.sleeps
    }

    fn notes(&self) -> Vec<String> {
        self.joints.notes.clone()
    }
}

impl Volumetric {
    /// The frame's substeps, each the stages in order.
    fn stages(&mut self, model: &Model, state: &mut State, dt: f64) -> Result<StepStats, SimError> {
        let mut stats = StepStats::default();
        check_finite(model, state, "start of step")?;
        let mut t = StageTimer::start();
        let n0 = self.params.substeps_for(dt);
        let factor = t.time(VolumetricStage::Collision, || {
            self.detect(model, state);
            self.load_substep_factor(model, state, dt / n0 as f64)
        });
        let n = n0.saturating_mul(factor);
        let h = dt / n as f64;
        let nb = model.bodies.len();
        for v in [&mut self.frame_force, &mut self.frame_torque] {
            v.clear();
            v.resize(nb, Vec3::ZERO);
        }
        self.frame_coupling.clear();
        self.frame_coupling.resize(model.proxies.len(), (Vec3::ZERO, Vec3::ZERO));
        self.joints.start_frame();
        self.frame_points.clear();
        for s in 0..n {
            let time = state.time + s as f64 * h;
            if s > 0 {
                t.time(VolumetricStage::Collision, || self.detect(model, state));
            } else if state.step == 0 {
                self.start_depths();
            }
            stats.normal_impulse += t.time(VolumetricStage::Impacts, || self.landing_impacts(model, state, h, n));
            self.contact(model, state, (h, n, time), &mut stats, &mut t)?;
            self.joints.keep_rates(model, state);
            t.time(VolumetricStage::Integrate, || self.kick(model, state, h));
            t.time(VolumetricStage::Joints, || self.joint_forces(model, state, h))?;
            stats.normal_impulse += t.time(VolumetricStage::Integrate, || {
                let settled = self.settle_spring_work(model, state, h, n);
                self.integrate(model, state, h);
                settled
            });
            check_finite(model, state, "integrate")?;
        }
        stats.proxies = self.readings(model);
        stats.contact_points.extend(self.frame_points.iter().map(|e| e.1));
        if !model.joints.is_empty() {
            stats.joints = self.joints.readings(dt);
        }
        t.finish(&mut stats);
        Ok(stats)
    }
}

#[cfg(test)]
mod tests;
