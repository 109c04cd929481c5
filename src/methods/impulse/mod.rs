//! `impulse`: impulse-based stacking with a fixed time step, deepest-penetration points and Mirtich friction.
//!
//! Source: the pulsk project report (shared/seeds/001), which builds on Guendelman, Bridson and Fedkiw,
//! "Nonconvex rigid bodies with stacking" (2003); formulas and PhysBAM defaults in shared/reference/methods.md §C.
//!
//! One step, in the source's order (each a timed stage):
//! 1. **collision**: positions are predicted with the old velocities (x̃ = x + h·v, the rotation advanced the same
//!    way); every pair of convex pieces that interferes there gets one deepest penetration point pair; a fixed
//!    number of sweeps applies, pair by pair, an impulse with restitution ε (Poisson's hypothesis u' = −ε·u in
//!    Mirtich's model) at the deepest interfering, approaching point.
//! 2. **velocity**: v += h·F/m, L += h·τ.
//! 3. **contact**: positions are predicted again with the new velocities and the same resolution runs with ε = 0
//!    (resting contact), for a fixed number of sweeps.
//! 4. **shock**: shock propagation (Guendelman et al.): the directed contact graph (a body rests on another when
//!    the normal points up, against gravity; sideways contacts go both ways) is condensed into strongly
//!    connected components and levelled from the static bodies up (dynamics/graph.rs `support_levels`); each
//!    level is swept with the bodies below it treated as static (infinite mass), then becomes static itself.
//! 5. **integrate**: x += h·v, rotation by the midpoint rule in L (dynamics/integrate.rs).
//!
//! Symbols of the sources → names here:
//! - x̃, R̃ (predicted positions): `Impulse::pred`; the pair's deepest points p_A, p_B and normal n (from A to B):
//!   `Point::{ra, rb, n}` (lever arms from the predicted centres of mass) and `Point::d0` (signed distance at the
//!   prediction, negative inside).
//! - "is the pair still interfering at the positions predicted with the current velocities": the prediction is
//!   not recomputed after every impulse; it is updated to first order, d = d0 + h·(u_n − u_n0), with u_n0 the
//!   normal speed the prediction was made with (`Point::un0`). An impulse is applied only where d < 0 and
//!   u_n < 0 (interfering and approaching), at the point of smallest d among the pair's candidates.
//! - K (collision matrix), ε, μ, Mirtich's and Moore's laws: `law.rs`.
//! - Processing order (the report's Algorithm 2): pairs sorted along the main axis of acceleration and along the
//!   main axis of velocity, farthest along each axis first (bottom first under gravity), and one traversal that
//!   takes the next unvisited pair from each of the two orders in turn: `traversal`.
//! - Multiple points: the report names one point per pair, and proposes as further work to return every point
//!   within a distance of the deepest one to stop a box resting on its face from rocking. `point_window` is that
//!   distance; 0 keeps only the deepest point. One impulse per pair and sweep either way.
//! - Non-convex bodies: pairs of convex pieces, depth from real faces only (collision/realface.rs).

pub mod law;

use crate::collision::narrow::Collision;
use crate::dynamics::graph::{islands, support_levels};
use crate::dynamics::integrate::{external_wrench, integrate_pose, inv_inertia_world};
use crate::error::InputError;
use crate::error::SimError;
use crate::math::{Mat3, Vec3};
use crate::methods::registry::{self, param, Params};
use crate::methods::{check_finite, Method, StepStats};
use crate::model::MethodKey;
use crate::model::{BodyKind, Model};
use crate::state::State;
use law::Coefficients;
use std::time::Instant;

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
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
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
        ] {
            param::non_negative(Self::KEY, k, v)?;
        }
        Ok(())
    }
}

impl<'de> serde::Deserialize<'de> for FrictionModel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "mirtich" => Ok(FrictionModel::Mirtich),
            "moore" => Ok(FrictionModel::Moore),
            other => Err(serde::de::Error::custom(format!("solver.impulse.friction_model must be `mirtich` or `moore`, got `{other}`"))),
        }
    }
}

/// `impulse` runs no joints or proxies yet.
pub fn supports(model: &Model) -> Result<(), String> {
    registry::no_proxies(model)?;
    registry::no_joints(model)
}

/// The registry's constructor.
pub fn create(model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
    let params = ImpulseParams::from_model(model).map_err(|e| InputError::at(&model.name, e))?;
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
    collision: Collision,
    pred: State,
    bodies: Vec<SBody>,
    frozen: Vec<bool>,
    /// Per group: normal and tangential impulse applied in the current phase.
    accumulated: Vec<(f64, Vec3)>,
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
    resolution_seconds: f64,
    /// Σ normal and Σ |tangential| impulse applied this step.
    impulse_sums: (f64, f64),
}

/// A contact whose normal is within this cosine of horizontal is sideways in the support graph.
const SIDEWAYS: f64 = 0.05;

/// Normal speeds above −APPROACH count as not approaching (rounding), m/s.
const APPROACH: f64 = 1e-6;

const STAGES: [&str; 6] = ["collision", "velocity", "contact", "shock", "integrate", "push-out"];

impl Impulse {
    /// A new `impulse` method with the given parameters.
    pub fn new(params: ImpulseParams) -> Self {
        Impulse {
            params,
            collision: Collision::default(),
            pred: State::default(),
            bodies: Vec::new(),
            frozen: Vec::new(),
            accumulated: Vec::new(),
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
            resolution_seconds: 0.0,
            impulse_sums: (0.0, 0.0),
        }
    }

    /// Predicts positions with the current velocities, collects the interfering piece pairs there and orders
    /// them. Also loads the solver bodies (inertia at the predicted orientation).
    fn prepare(&mut self, model: &Model, state: &State, h: f64) {
        self.pred.clone_from(state);
        for i in 0..model.bodies.len() {
            integrate_pose(model, i, &mut self.pred.bodies[i], h);
        }
        self.collision.detect(model, &self.pred, self.params.margin, 0.0);
        crate::collision::realface::restrict(model, &self.pred, &mut self.collision);
        self.bodies.clear();
        for (i, b) in model.bodies.iter().enumerate() {
            let s = &state.bodies[i];
            let inv_i = if b.kind == BodyKind::Dynamic { inv_inertia_world(model, i, self.pred.bodies[i].q) } else { Mat3::ZERO };
            self.bodies.push(SBody { inv_m: b.inv_mass(), inv_i, v: s.v, w: s.w });
        }
        self.frozen.clear();
        self.frozen.resize(model.bodies.len(), false);
        self.build_groups(model);
        self.accumulated.clear();
        self.accumulated.resize(self.groups.len(), (0.0, Vec3::ZERO));
        self.traversal(model);
    }

    /// Groups the detected points by piece pair (parry manifold) and keeps the candidates of each.
    fn build_groups(&mut self, model: &Model) {
        self.points.clear();
        self.groups.clear();
        let contacts = &self.collision.contacts;
        let mut start = 0;
        while start < contacts.len() {
            let c0 = &contacts[start];
            let mut end = start + 1;
            while end < contacts.len() && (contacts[end].pair, contacts[end].manifold) == (c0.pair, c0.manifold) {
                end += 1;
            }
            let run = &contacts[start..end];
            let deepest = run.iter().enumerate().fold(0, |best, (k, c)| if c.dist < run[best].dist { k } else { best });
            let dmin = run[deepest].dist;
            let first = self.points.len() as u32;
            let (a, b) = (c0.a, c0.b);
            let (pa, pb) = (&self.pred.bodies[a], &self.pred.bodies[b]);
            let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
            for (k, c) in run.iter().enumerate() {
                let keep = if self.params.point_window > 0.0 { c.dist <= dmin + self.params.point_window } else { k == deepest };
                if !keep {
                    continue;
                }
                let p = 0.5 * (c.point_a + c.point_b);
                let (ra, rb) = (p - pa.x, p - pb.x);
                let u = (bb.v + bb.w.cross(rb)) - (ba.v + ba.w.cross(ra));
                self.points.push(Point { ra, rb, n: c.normal, d0: c.dist, un0: u.dot(c.normal) });
            }
            let (mu_k, mu_s, e) = model.pair_material(a, b);
            self.groups.push(Group {
                a: a as u32,
                b: b as u32,
                first,
                len: self.points.len() as u32 - first,
                at: 0.5 * (run[deepest].point_a + run[deepest].point_b),
                coefficients: Coefficients { restitution: e, friction: mu_k, static_friction: mu_s },
            });
            start = end;
        }
    }

    /// The processing order: with `ordering`, the report's one traversal of the acceleration-axis and the
    /// velocity-axis orders; without, detection order (by body pair).
    fn traversal(&mut self, model: &Model) {
        let ng = self.groups.len();
        self.order.clear();
        if !self.params.ordering || ng == 0 {
            self.order.extend(0..ng as u32);
            return;
        }
        // main axes: total external force and total momentum of the dynamic bodies
        let mut force = Vec3::ZERO;
        let mut momentum = Vec3::ZERO;
        for (i, b) in model.bodies.iter().enumerate() {
            if b.kind == BodyKind::Dynamic {
                force += external_wrench(model, i, self.pred.time).0;
                momentum += b.mass * self.bodies[i].v;
            }
        }
        let axis = |v: Vec3| if v.length() > 1e-12 { Some(v.normalize()) } else { None };
        let (by_acc, by_vel, seen) = &mut self.scratch;
        let groups = &self.groups;
        let sorted = |out: &mut Vec<u32>, ax: Vec3| {
            out.clear();
            out.extend(0..ng as u32);
            // farthest along the axis first; ties keep detection order (stable sort)
            out.sort_by(|&i, &j| groups[j as usize].at.dot(ax).total_cmp(&groups[i as usize].at.dot(ax)));
        };
        match (axis(force), axis(momentum)) {
            (None, None) => self.order.extend(0..ng as u32),
            (Some(ax), None) | (None, Some(ax)) => {
                sorted(by_acc, ax);
                self.order.extend_from_slice(by_acc);
            }
            (Some(aa), Some(av)) => {
                sorted(by_acc, aa);
                sorted(by_vel, av);
                seen.clear();
                seen.resize(ng, false);
                let (mut i, mut j) = (0, 0);
                while self.order.len() < ng {
                    for (list, k) in [(&*by_acc, &mut i), (&*by_vel, &mut j)] {
                        while *k < ng && seen[list[*k] as usize] {
                            *k += 1;
                        }
                        if *k < ng {
                            seen[list[*k] as usize] = true;
                            self.order.push(list[*k]);
                        }
                    }
                }
            }
        }
    }

    /// Where and how group `g` needs an impulse at the current velocities; `None` when no candidate is both
    /// interfering (d < 0) and approaching (u_n < 0).
    fn patch(&self, g: &Group, h: f64) -> Option<Patch> {
        let (ba, bb) = (&self.bodies[g.a as usize], &self.bodies[g.b as usize]);
        let range = g.first as usize..(g.first + g.len) as usize;
        let depth = |p: &Point| {
            let un = ((bb.v + bb.w.cross(p.rb)) - (ba.v + ba.w.cross(p.ra))).dot(p.n);
            (p.d0 + h * (un - p.un0), un)
        };
        let (mut deepest, mut deepest_q) = (f64::INFINITY, f64::INFINITY);
        let mut normal = Vec3::ZERO;
        let mut deepest_at = (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO);
        for p in &self.points[range.clone()] {
            let (d, un) = depth(p);
            if d < 0.0 {
                if d < deepest {
                    deepest = d;
                    deepest_at = (p.ra, p.rb, p.n);
                }
                if un < -APPROACH && d < deepest_q {
                    deepest_q = d;
                    normal = p.n;
                }
            }
        }
        if !deepest.is_finite() {
            return None;
        }
        let approaching = deepest_q.is_finite();
        if !approaching {
            // interfering but resolved: only friction may still act (see `sweep`)
            deepest_q = deepest;
            normal = deepest_at.2;
        }
        let window = self.params.point_window;
        // the approaching points, weighted by approach speed; the interfering face (all points near the deepest)
        let (mut wa, mut wb, mut wk) = (Vec3::ZERO, Vec3::ZERO, 0.0);
        let (mut ca, mut cb, mut ck) = (Vec3::ZERO, Vec3::ZERO, 0.0);
        for p in &self.points[range.clone()] {
            let (d, un) = depth(p);
            if d < 0.0 && un < -APPROACH && d <= deepest_q + window {
                wa += -un * p.ra;
                wb += -un * p.rb;
                wk += -un;
            }
            if d < 0.0 && d <= deepest + window && window > 0.0 {
                ca += p.ra;
                cb += p.rb;
                ck += 1.0;
            }
        }
        let (wa, wb) = if wk > 0.0 { (wa / wk, wb / wk) } else { (deepest_at.0, deepest_at.1) };
        let mut patch =
            Patch { approaching, ra: wa, rb: wb, n: normal, axes: [Vec3::ZERO; 3], locked: 0, extent: 0.0, face_ra: wa, face_rb: wb };
        if ck >= 2.0 {
            let (ca, cb) = (ca / ck, cb / ck);
            let (t1, t2) = crate::math::tangent_basis(normal);
            let (mut sxx, mut sxy, mut syy, mut extent) = (0.0, 0.0, 0.0, 0.0f64);
            for p in &self.points[range] {
                let (d, _) = depth(p);
                if d < 0.0 && d <= deepest + window {
                    let r = p.ra - ca;
                    let (x, y) = (r.dot(t1), r.dot(t2));
                    sxx += x * x / ck;
                    sxy += x * y / ck;
                    syy += y * y / ck;
                    extent = extent.max(x.hypot(y));
                }
            }
            // principal in-plane spreads: a moment about e × n can be carried along a spread direction e
            let tr = 0.5 * (sxx + syy);
            let det = sxx * syy - sxy * sxy;
            let disc = (tr * tr - det).max(0.0).sqrt();
            let (l1, l2) = (tr + disc, tr - disc);
            let e1 = if sxy.abs() > 1e-300 {
                (t1 * (l1 - syy) + t2 * sxy).normalize()
            } else if sxx >= syy {
                t1
            } else {
                t2
            };
            let e2 = normal.cross(e1);
            let min_spread = (1e-3 * extent).max(1e-9);
            for (l, e) in [(l1, e1), (l2, e2)] {
                if l.sqrt() > min_spread {
                    patch.axes[patch.locked] = e.cross(normal);
                    patch.locked += 1;
                }
            }
            if patch.locked > 0 {
                // a segment or an area also resists twisting about the normal (torsional friction)
                patch.axes[patch.locked] = normal;
                patch.locked += 1;
            }
            patch.extent = extent;
            patch.face_ra = ca;
            patch.face_rb = cb;
        }
        Some(patch)
    }

    /// One sweep over `list` (group indices). `restitution`: `None` uses each pair's ε (collisions), `Some(e)`
    /// uses e for every pair (contact: ε = 0, or the ramp's value). Returns the impulses applied.
    fn sweep(&mut self, list: &[u32], h: f64, restitution: Option<f64>) -> usize {
        let mut applied = 0;
        for &gi in list {
            let g = self.groups[gi as usize];
            let Some(patch) = self.patch(&g, h) else { continue };
            let (a, b) = (g.a as usize, g.b as usize);
            let (fa, fb) = (self.frozen[a], self.frozen[b]);
            let (ba, bb) = (self.bodies[a], self.bodies[b]);
            let (ima, iia) = if fa { (0.0, Mat3::ZERO) } else { (ba.inv_m, ba.inv_i) };
            let (imb, iib) = if fb { (0.0, Mat3::ZERO) } else { (bb.inv_m, bb.inv_i) };
            if ima == 0.0 && imb == 0.0 {
                continue;
            }
            let mut c = g.coefficients;
            if let Some(e) = restitution {
                c.restitution = e;
            }
            // a negative ε of the contact ramp scales the ε = 0 impulse by 1 + ε (an under-relaxed sweep)
            let relax = 1.0 + c.restitution.min(0.0);
            c.restitution = c.restitution.max(0.0);
            let model = self.params.friction_model;
            let resolve = |k: &Mat3, u: Vec3| match model {
                FrictionModel::Mirtich => law::mirtich(k, u, patch.n, c),
                FrictionModel::Moore => law::moore(k, u, patch.n, c),
            };
            if !patch.approaching {
                if self.hold(gi as usize, &patch, c.static_friction) {
                    applied += 1;
                }
                continue;
            }
            let clock = Instant::now();
            // a face: one impulse at its centre, with the moment that keeps it from tipping about the locked axes
            let mut done = None;
            if patch.locked > 0 {
                let (ra, rb) = (patch.face_ra, patch.face_rb);
                let kmat = law::collision_matrix(ima, &iia, ra, imb, &iib, rb);
                let u = (bb.v + bb.w.cross(rb)) - (ba.v + ba.w.cross(ra));
                let face = law::Face::new(&kmat, &iia, ra, &iib, rb, &patch.axes[..patch.locked]);
                let (k_eff, u_eff) = face.reduced(u, bb.w - ba.w);
                let j = resolve(&k_eff, u_eff);
                let jn = j.dot(patch.n);
                if jn > 0.0 {
                    let m = face.moment(j, bb.w - ba.w);
                    // tipping moment: centre of pressure within the face; twisting: Coulomb on the face radius
                    let twist = m.dot(patch.n);
                    let mut tip = m - twist * patch.n;
                    let lever = tip.length() / jn;
                    if lever > patch.extent {
                        tip *= patch.extent / lever;
                    }
                    let max_twist = c.static_friction * jn * patch.extent * (2.0 / 3.0);
                    let m = tip + twist.clamp(-max_twist, max_twist) * patch.n;
                    done = Some((ra, rb, relax * j, relax * m));
                }
            }
            let (ra, rb, j, m) = done.unwrap_or_else(|| {
                let (ra, rb) = (patch.ra, patch.rb);
                let kmat = law::collision_matrix(ima, &iia, ra, imb, &iib, rb);
                let u = (bb.v + bb.w.cross(rb)) - (ba.v + ba.w.cross(ra));
                // a face whose centre needs nothing is only tipping: the corners that approach get a normal
                // impulse; the face's friction is the centre's (and `hold`'s), not a corner's
                let j = if patch.locked > 0 {
                    let un = u.dot(patch.n);
                    let kn = patch.n.dot(kmat * patch.n);
                    if un < 0.0 && kn > 0.0 {
                        patch.n * (-(1.0 + c.restitution) * un / kn)
                    } else {
                        Vec3::ZERO
                    }
                } else {
                    resolve(&kmat, u)
                };
                (ra, rb, relax * j, Vec3::ZERO)
            });
            self.resolution_seconds += clock.elapsed().as_secs_f64();
            self.resolutions += 1;
            let jn = j.dot(patch.n);
            self.impulse_sums.0 += jn;
            self.impulse_sums.1 += (j - jn * patch.n).length();
            self.accumulated[gi as usize].0 += jn;
            self.accumulated[gi as usize].1 += j - jn * patch.n;
            self.apply((a, ima, iia, ra), (b, imb, iib, rb), j, m);
            applied += 1;
        }
        applied
    }

    /// Static friction of a resolved (interfering, not approaching) pair that carried a normal impulse in this
    /// phase: the tangential impulse that stops its slip at the face centre (rotation about the face's locked
    /// axes stopped too), limited so that the phase's total friction impulse stays within μ_s times its total
    /// normal impulse. Sequential impulses alone act only while a pair approaches, so the last impulse of a sweep
    /// could leave a neighbour slipping; this keeps resting contacts stuck. Returns whether it applied anything.
    fn hold(&mut self, gi: usize, patch: &Patch, mu_s: f64) -> bool {
        let (jn_acc, jt_acc) = self.accumulated[gi];
        if jn_acc <= 0.0 {
            return false;
        }
        let g = self.groups[gi];
        let (a, b) = (g.a as usize, g.b as usize);
        let (ba, bb) = (self.bodies[a], self.bodies[b]);
        let (ima, iia) = if self.frozen[a] { (0.0, Mat3::ZERO) } else { (ba.inv_m, ba.inv_i) };
        let (imb, iib) = if self.frozen[b] { (0.0, Mat3::ZERO) } else { (bb.inv_m, bb.inv_i) };
        let (ra, rb) = (patch.face_ra, patch.face_rb);
        let n = patch.n;
        let u = (bb.v + bb.w.cross(rb)) - (ba.v + ba.w.cross(ra));
        let ut = u - u.dot(n) * n;
        if ut.length() < APPROACH {
            return false;
        }
        let kmat = law::collision_matrix(ima, &iia, ra, imb, &iib, rb);
        let w_rel = bb.w - ba.w;
        let face = law::Face::new(&kmat, &iia, ra, &iib, rb, &patch.axes[..patch.locked]);
        let (k_eff, u_eff) = face.reduced(u, w_rel);
        // tangential 2×2 solve in the contact plane
        let (t1, t2) = crate::math::tangent_basis(n);
        let (k11, k12, k22) = (t1.dot(k_eff * t1), t1.dot(k_eff * t2), t2.dot(k_eff * t2));
        let det = k11 * k22 - k12 * k12;
        if det <= 0.0 {
            return false;
        }
        let (r1, r2) = (-u_eff.dot(t1), -u_eff.dot(t2));
        let j = t1 * ((k22 * r1 - k12 * r2) / det) + t2 * ((k11 * r2 - k12 * r1) / det);
        let bound = mu_s * jn_acc;
        let mut total = jt_acc + j;
        if total.length() > bound {
            total *= bound / total.length();
        }
        let j = total - jt_acc;
        if j.length() <= 1e-12 * bound {
            return false;
        }
        let m = if patch.locked > 0 { face.moment(j, w_rel) } else { Vec3::ZERO };
        self.accumulated[gi].1 = total;
        self.impulse_sums.1 += j.length();
        self.apply((a, ima, iia, ra), (b, imb, iib, rb), j, m);
        true
    }

    /// Applies the impulse `j` and moment impulse `m` to B, and their opposites to A; each side is (body,
    /// inverse mass, world inverse inertia, lever arm), zero for a static or frozen body.
    fn apply(&mut self, a: (usize, f64, Mat3, Vec3), b: (usize, f64, Mat3, Vec3), j: Vec3, m: Vec3) {
        let sa = &mut self.bodies[a.0];
        sa.v -= a.1 * j;
        sa.w -= a.2 * (a.3.cross(j) + m);
        let sb = &mut self.bodies[b.0];
        sb.v += b.1 * j;
        sb.w += b.2 * (b.3.cross(j) + m);
    }

    /// Runs up to `iterations` sweeps over `list`, stopping when a sweep applies nothing. Collisions
    /// (`contact` false) use each pair's ε; contact uses ε = 0, or with `restitution_ramp` the ramp
    /// ε_k = −1 + (k + 1)/N over the N sweeps (Guendelman et al.), so that early sweeps stop only part of the
    /// approach and later ones share out the rest.
    fn sweeps(&mut self, list: &[u32], h: f64, contact: bool, iterations: usize) -> usize {
        let mut done = 0;
        for k in 0..iterations {
            done += 1;
            let e = match (contact, self.params.restitution_ramp) {
                (false, _) => None,
                (true, false) => Some(0.0),
                (true, true) => Some(-1.0 + (k + 1) as f64 / iterations as f64),
            };
            if self.sweep(list, h, e) == 0 {
                break; // nothing interferes and approaches: later sweeps would find the same
            }
        }
        done
    }

    /// Pairs still interfering and approaching faster than `resolved_speed`.
    fn unresolved(&self, h: f64) -> usize {
        let tol = self.params.resolved_speed;
        self.groups
            .iter()
            .filter(|g| {
                let (ba, bb) = (&self.bodies[g.a as usize], &self.bodies[g.b as usize]);
                (g.first as usize..(g.first + g.len) as usize).any(|k| {
                    let p = &self.points[k];
                    let un = ((bb.v + bb.w.cross(p.rb)) - (ba.v + ba.w.cross(p.ra))).dot(p.n);
                    p.d0 + h * (un - p.un0) < 0.0 && un < -tol
                })
            })
            .count()
    }

    /// Largest penetration the contact points will have after the position update (first order).
    fn final_penetration(&self, h: f64) -> f64 {
        let mut worst = 0.0f64;
        for g in &self.groups {
            let (ba, bb) = (&self.bodies[g.a as usize], &self.bodies[g.b as usize]);
            for p in &self.points[g.first as usize..(g.first + g.len) as usize] {
                let un = ((bb.v + bb.w.cross(p.rb)) - (ba.v + ba.w.cross(p.ra))).dot(p.n);
                worst = worst.max(-(p.d0 + h * (un - p.un0)));
            }
        }
        worst
    }

    /// Push-out: the contact points' depths after the position update (first order in the step's motion and in
    /// the push-out displacements) are reduced to `push_out_tolerance` by sequential position corrections at
    /// the depth-weighted centre of each pair's penetrating points, mass-weighted through the collision matrix.
    fn push_out(&mut self, model: &Model, state: &mut State, h: f64) {
        let n = model.bodies.len();
        let tol = self.params.push_out_tolerance;
        let mut shift = std::mem::take(&mut self.shift);
        shift.clear();
        shift.resize(n, (Vec3::ZERO, Vec3::ZERO));
        let mut moved = false;
        for _ in 0..self.params.push_out_iterations {
            let mut any = false;
            for &gi in &self.order {
                let g = self.groups[gi as usize];
                let (a, b) = (g.a as usize, g.b as usize);
                let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
                let (mut ra, mut rb, mut wsum, mut deepest, mut normal) = (Vec3::ZERO, Vec3::ZERO, 0.0, 0.0, Vec3::ZERO);
                for p in &self.points[g.first as usize..(g.first + g.len) as usize] {
                    let un = ((bb.v + bb.w.cross(p.rb)) - (ba.v + ba.w.cross(p.ra))).dot(p.n);
                    let (sa, sb) = (shift[a], shift[b]);
                    let moved_by = (sb.0 + sb.1.cross(p.rb) - sa.0 - sa.1.cross(p.ra)).dot(p.n);
                    let excess = -(p.d0 + h * (un - p.un0) + moved_by) - tol;
                    if excess > 0.0 {
                        ra += excess * p.ra;
                        rb += excess * p.rb;
                        wsum += excess;
                        if excess > deepest {
                            deepest = excess;
                            normal = p.n;
                        }
                    }
                }
                if wsum == 0.0 {
                    continue;
                }
                let (ra, rb) = (ra / wsum, rb / wsum);
                let kmat = law::collision_matrix(ba.inv_m, &ba.inv_i, ra, bb.inv_m, &bb.inv_i, rb);
                let kn = normal.dot(kmat * normal);
                if kn <= 0.0 {
                    continue;
                }
                // the displacement at the weighted centre that removes the deepest excess
                let pn = normal * (deepest / kn);
                shift[a].0 -= ba.inv_m * pn;
                shift[a].1 -= ba.inv_i * ra.cross(pn);
                shift[b].0 += bb.inv_m * pn;
                shift[b].1 += bb.inv_i * rb.cross(pn);
                any = true;
                moved = true;
            }
            if !any {
                break;
            }
        }
        if moved {
            for i in 0..n {
                if model.bodies[i].kind == BodyKind::Dynamic {
                    let s = &mut state.bodies[i];
                    s.x += shift[i].0;
                    s.q = (crate::math::quat_exp(shift[i].1) * s.q).normalize();
                }
            }
        }
        self.shift = shift;
    }

    /// Writes the working velocities of the dynamic bodies back to the state.
    fn store(&self, model: &Model, state: &mut State) {
        for (i, b) in self.bodies.iter().enumerate() {
            if model.bodies[i].kind == BodyKind::Dynamic {
                state.bodies[i].v = b.v;
                state.bodies[i].w = b.w;
            }
        }
    }
}

impl Method for Impulse {
    fn name(&self) -> &'static str {
        "impulse"
    }

    fn stage_names(&self) -> &'static [&'static str] {
        &STAGES
    }

    fn step(&mut self, model: &Model, state: &mut State, h: f64) -> Result<StepStats, SimError> {
        let p = self.params.clone();
        let n = model.bodies.len();
        let mut stats = StepStats::default();
        self.resolutions = 0;
        self.resolution_seconds = 0.0;
        self.impulse_sums = (0.0, 0.0);
        let mut clock = Instant::now();
        let mut lap = |stats: &mut StepStats, k: usize| {
            let now = Instant::now();
            stats.stage_seconds[k] += (now - clock).as_secs_f64();
            clock = now;
        };

        // 1. collisions at the positions predicted with the old velocities, restitution ε
        check_finite(model, state, "collision")?;
        self.prepare(model, state, h);
        let order = std::mem::take(&mut self.order);
        stats.iterations += self.sweeps(&order, h, false, p.collision_iterations);
        self.order = order;
        stats.unresolved += self.unresolved(h);
        self.store(model, state);
        check_finite(model, state, "collision")?;
        lap(&mut stats, 0);

        // 2. velocity update
        for (i, b) in model.bodies.iter().enumerate() {
            if b.kind == BodyKind::Dynamic {
                let (f, tau) = external_wrench(model, i, state.time);
                let s = &mut state.bodies[i];
                s.v += f * (h / b.mass);
                s.w += inv_inertia_world(model, i, s.q) * tau * h;
            }
        }
        lap(&mut stats, 1);

        // 3. resting contact at the positions predicted with the new velocities, ε = 0
        self.prepare(model, state, h);
        let order = std::mem::take(&mut self.order);
        stats.iterations += self.sweeps(&order, h, true, p.contact_iterations);
        stats.unresolved += self.unresolved(h);
        stats.contacts = self.points.len();
        lap(&mut stats, 2);

        // 4. shock propagation: levels bottom-up, the bodies below each level static
        let mut fixed = std::mem::take(&mut self.fixed);
        fixed.clear();
        fixed.extend(model.bodies.iter().map(|b| b.kind != BodyKind::Dynamic));
        self.edges.clear();
        self.edges.extend(self.groups.iter().map(|g| (g.a as usize, g.b as usize)));
        stats.islands = islands(n, &fixed, &self.edges).1;
        if p.shock_propagation && !self.groups.is_empty() {
            // the directed support graph: "up" is against the total external force (gravity)
            let mut force = Vec3::ZERO;
            for (i, b) in model.bodies.iter().enumerate() {
                if b.kind == BodyKind::Dynamic {
                    force += external_wrench(model, i, state.time).0;
                }
            }
            let up = if force.length() > 0.0 { -force.normalize() } else { Vec3::ZERO };
            self.directed.clear();
            for g in &self.groups {
                let n = self.points[g.first as usize].n;
                let dir = if n.dot(up) > SIDEWAYS {
                    1
                } else if n.dot(up) < -SIDEWAYS {
                    -1
                } else {
                    0
                };
                self.directed.push((g.a as usize, g.b as usize, dir));
            }
            let level = support_levels(n, &fixed, &self.directed);
            let pair_level = |g: &Group| level[g.a as usize].max(level[g.b as usize]);
            let mut by_level = std::mem::take(&mut self.by_level);
            by_level.clone_from(&order);
            by_level.sort_by_key(|&g| pair_level(&self.groups[g as usize])); // stable: keeps the traversal within a level
            let mut start = 0;
            while start < by_level.len() {
                let lv = pair_level(&self.groups[by_level[start] as usize]);
                let mut end = start;
                while end < by_level.len() && pair_level(&self.groups[by_level[end] as usize]) == lv {
                    end += 1;
                }
                for (i, f) in self.frozen.iter_mut().enumerate() {
                    *f = level[i] < lv;
                }
                self.sweeps(&by_level[start..end], h, true, p.shock_iterations);
                start = end;
            }
            self.by_level = by_level;
            self.frozen.iter_mut().for_each(|f| *f = false);
        }
        self.fixed = fixed;
        self.order = order;
        self.store(model, state);
        stats.max_penetration = self.final_penetration(h);
        check_finite(model, state, "shock propagation")?;
        lap(&mut stats, 3);

        // 5. position update
        for i in 0..n {
            integrate_pose(model, i, &mut state.bodies[i], h);
        }
        check_finite(model, state, "integrate")?;
        lap(&mut stats, 4);

        // 6. push-out: positions only, along the contact normals, to the push-out tolerance
        if p.push_out_iterations > 0 {
            self.push_out(model, state, h);
            check_finite(model, state, "push-out")?;
        }
        stats.resolutions = self.resolutions;
        stats.resolution_seconds = self.resolution_seconds;
        (stats.normal_impulse, stats.friction_impulse) = self.impulse_sums;
        lap(&mut stats, 5);
        Ok(stats)
    }
}

#[cfg(test)]
mod tests;
