//! Newton's impact law for contacts that arrive fast (`ImplicitParams::impacts`): backward Euler at the
//! method's step damps a penalty impact to about a quarter of the speed an elastic one hands back, whatever the
//! damper, and a heavy body that lands on a light one rides its spring back up. So a pair whose point approaches
//! faster than the impact speed takes its impact as impulses (normal ones with Newton's law per point, Coulomb
//! friction up to μ of them, then shock propagation from the fixed bodies up), and its spring then
//! acts from the depth the impact found it at (its landing depth L), so the spring does not throw back the overlap
//! that the step's discrete detection let in. L follows the pair out as it separates, and otherwise relaxes to zero
//! at half the impact speed. See docs/methods/implicit-penalty.md, "Impacts".

use super::friction::Key;
use super::load::{PairHits, PairKey};
use crate::dynamics::collision_matrix::collision_matrix;
use crate::dynamics::contact_spring::reduced_mass;
use crate::dynamics::graph::stack_analysis;
use crate::dynamics::integrate::inv_inertia_world;
use crate::dynamics::support::{carried_mass, SupportPair};
use crate::math::{Mat3, Vec3};
use crate::method::ContactPoint;
use crate::model::{BodyKind, Model};
use crate::state::State;

/// Sweeps of the impulses at most, and the change of a point's velocity (m/s) below which they stop.
const SWEEPS: usize = 50;
const CONVERGED: f64 = 1e-6;

/// One substep's impact law: the approach speed (m/s) from which a contact is an impact, the speed (m/s) at which
/// a landing depth relaxes, and the substep h (s).
pub(super) struct ImpactLaw {
    pub speed: f64,
    pub relax: f64,
    pub h: f64,
}

/// What one substep's impacts did: the pairs left with penetrating points (depths measured from their landing
/// depths), the landing depths to carry (by pair, sorted), the total normal impulse (N·s), and each impulse as
/// a contact point's force over the substep (its key: field body, point body, point).
pub(super) struct Impacts {
    pub pairs: Vec<PairHits>,
    pub landings: Vec<(PairKey, Landing)>,
    pub impulse: f64,
    /// The size of the tangential impulses summed, N·s.
    pub friction: f64,
    pub points: Vec<(Key, ContactPoint)>,
}

/// A pair's landing depth after an impact, m (the spring acts on the depth beyond it), and the depth its spring
/// acted on at its deepest point (≥ 0), carried for every pair in contact (a pair whose spring carries a load
/// takes no landing depth at an impact).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Landing {
    pub offset: f64,
    pub depth: f64,
}

/// One point of an impacting pair: field body `f`, point body `s` (pushed along +n, out of f's field), arms from
/// their centres of mass to the point, the collision matrix `k` and n·k·n, the normal rate to reach, μ, and the
/// impulses so far (normal, tangential).
#[derive(Clone, Copy)]
struct Row {
    f: usize,
    s: usize,
    point: u32,
    n: Vec3,
    arm_f: Vec3,
    arm_s: Vec3,
    k: Mat3,
    kn: f64,
    /// The normal rate Newton's law asks for, and the one the sweeps aim at (scaled down where the impulses would
    /// add energy: [`impacts`]).
    bounce: f64,
    target: f64,
    mu: f64,
    jn: f64,
    jt: Vec3,
}

/// A body's inverse mass and world inverse inertia: zero for a body that does not move this step.
fn mobility(model: &Model, state: &State, i: usize) -> (f64, Mat3) {
    if model.bodies[i].kind != BodyKind::Dynamic || !crate::dynamics::sleep::awake(model, state, i) {
        return (0.0, Mat3::ZERO);
    }
    (1.0 / model.bodies[i].mass, inv_inertia_world(model, i, state.bodies[i].q))
}

/// The velocity of `s`'s material point relative to `f`'s at a point with these arms.
fn relative(state: &State, f: usize, s: usize, arm_f: Vec3, arm_s: Vec3) -> Vec3 {
    let (bf, bs) = (&state.bodies[f], &state.bodies[s]);
    bs.v + bs.w.cross(arm_s) - bf.v - bf.w.cross(arm_f)
}

/// Applies impulse `j` to `s` at its arm and −j to `f`.
fn apply(state: &mut State, mob: &[(f64, Mat3)], r: &Row, j: Vec3) {
    let ((mf, if_), (ms, is)) = (mob[r.f], mob[r.s]);
    state.bodies[r.f].v -= j * mf;
    state.bodies[r.f].w -= if_ * r.arm_f.cross(j);
    state.bodies[r.s].v += j * ms;
    state.bodies[r.s].w += is * r.arm_s.cross(j);
}

/// The rows of a pair's points: (field, point body) per role, the unit gradient, and the rate of the depth.
fn rows_of(state: &State, p: &PairHits, mob: &[(f64, Mat3)], law: &ImpactLaw, e: f64, mu: f64) -> Vec<Row> {
    let mut rows = Vec::new();
    for (role, hs) in p.hits.iter().enumerate() {
        let (f, s) = if role == 0 { (p.a, p.b) } else { (p.b, p.a) };
        for h in hs {
            let n = h.c.g.normalize_or_zero();
            let rate = n.dot(relative(state, f, s, h.c.a, h.c.b));
            let k = collision_matrix(mob[f].0, &mob[f].1, h.c.a, mob[s].0, &mob[s].1, h.c.b);
            let kn = n.dot(k * n);
            if kn <= 0.0 || n == Vec3::ZERO {
                continue;
            }
            let bounce = if rate < -law.speed { -e * rate } else { 0.0 };
            let (arm_f, arm_s) = (h.c.a, h.c.b);
            rows.push(Row { f, s, point: h.point, n, arm_f, arm_s, k, kn, bounce, target: bounce, mu, jn: 0.0, jt: Vec3::ZERO });
        }
    }
    rows
}

/// Whether a pair's point approaches faster than the impact speed.
fn arrives_fast(state: &State, p: &PairHits, speed: f64) -> bool {
    p.hits.iter().enumerate().any(|(role, hs)| {
        let (f, s) = if role == 0 { (p.a, p.b) } else { (p.b, p.a) };
        hs.iter().any(|h| h.c.g.normalize_or_zero().dot(relative(state, f, s, h.c.a, h.c.b)) < -speed)
    })
}

/// The pairs that take part in the impacts: those connected to a fast pair through pairs in contact and bodies
/// that move, so that an impact that pushes a body against its support is met there within the substep (a ball
/// landing on a column pushes the column into the floor: left to the next substep, that would be one more impact
/// whose overlap the landing depth takes up).
fn joined_to_impacts(pairs: &[PairHits], fast: &[bool], mob: &[(f64, Mat3)]) -> Vec<bool> {
    let mut root: Vec<usize> = (0..mob.len()).collect();
    fn find(root: &mut [usize], mut i: usize) -> usize {
        while root[i] != i {
            root[i] = root[root[i]];
            i = root[i];
        }
        i
    }
    let moves = |i: usize| mob[i].0 > 0.0;
    for p in pairs.iter().filter(|p| moves(p.a) && moves(p.b)) {
        let (ra, rb) = (find(&mut root, p.a), find(&mut root, p.b));
        root[ra.max(rb)] = ra.min(rb);
    }
    let mut hit = vec![false; mob.len()];
    for (p, _) in pairs.iter().zip(fast).filter(|(_, &f)| f) {
        for i in [p.a, p.b].into_iter().filter(|&i| moves(i)) {
            let r = find(&mut root, i);
            hit[r] = true;
        }
    }
    pairs.iter().zip(fast).map(|(p, &f)| f || [p.a, p.b].into_iter().any(|i| moves(i) && hit[find(&mut root, i)])).collect()
}

/// Sequential impulses over the impacting points until no point's velocity changes by more than
/// [`CONVERGED`]: the normal impulse to the point's target rate (never pulling), then the tangential one that
/// stops its slip, within μ times the normal one.
fn solve(state: &mut State, mob: &[(f64, Mat3)], rows: &mut [Row]) {
    for _ in 0..SWEEPS {
        let mut change = 0.0f64;
        for r in rows.iter_mut() {
            let rate = r.n.dot(relative(state, r.f, r.s, r.arm_f, r.arm_s));
            let jn = (r.jn + (r.target - rate) / r.kn).max(0.0);
            apply(state, mob, r, r.n * (jn - r.jn));
            change = change.max(((jn - r.jn) * r.kn).abs());
            r.jn = jn;
            let u = relative(state, r.f, r.s, r.arm_f, r.arm_s);
            let slip = u - r.n * r.n.dot(u);
            let speed = slip.length();
            if speed > 0.0 {
                let t = slip / speed;
                let kt = t.dot(r.k * t);
                let mut jt = r.jt - t * (speed / kt);
                let cap = r.mu * r.jn;
                if jt.length() > cap {
                    jt = jt.normalize_or_zero() * cap;
                }
                let d = jt - r.jt;
                apply(state, mob, r, d);
                change = change.max((d.length() * kt).min(speed));
                r.jt = jt;
            }
        }
        if change <= CONVERGED {
            break;
        }
    }
}

/// Shock propagation after the sweeps (Guendelman et al.'s, as `lcp`'s stack layers): the rows' bodies in stack
/// layers from the fixed bodies up, each layer swept with the bodies below it held, so that no point is left
/// approaching. Sequential impulses between a heavy body and a light one beneath it move the light one and
/// barely slow the heavy one: a 10 t cube landing on a 10 kg one kept 95% of its speed after 50 sweeps. A
/// layer's impulses go to its rows (normal ones only push: the target rate is zero, never the bounce). Unlike
/// `lcp`'s layers, a wall seeds heights here too. A held body's rows report the layer's impulse, which it passes on
/// to what holds it without its velocity changing: its reported contact forces then exceed its momentum change
/// (docs/methods/implicit-penalty.md, "Impacts").
fn shock(state: &mut State, mob: &[(f64, Mat3)], rows: &mut [Row]) {
    let fixed: Vec<bool> = mob.iter().map(|m| m.0 == 0.0).collect();
    let edges: Vec<(usize, usize)> = rows.iter().map(|r| (r.f, r.s)).collect();
    let stack = stack_analysis(mob.len(), &fixed, &edges);
    // the rows by layer; a body held in one layer is held in every later one, so `local` only ever loses mobility
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&k| stack.edge_layer[k]);
    let mut local: Vec<(f64, Mat3)> = mob.to_vec();
    for layer_rows in order.chunk_by(|&a, &b| stack.edge_layer[a] == stack.edge_layer[b]) {
        let layer = stack.edge_layer[layer_rows[0]];
        let (mut at, mut part) = (Vec::new(), Vec::new());
        for &k in layer_rows {
            let r = rows[k];
            for i in [r.f, r.s].into_iter().filter(|&i| stack.height[i] <= layer) {
                local[i] = (0.0, Mat3::ZERO);
            }
            let k3 = collision_matrix(local[r.f].0, &local[r.f].1, r.arm_f, local[r.s].0, &local[r.s].1, r.arm_s);
            let kn = r.n.dot(k3 * r.n);
            if kn > 0.0 {
                at.push(k);
                part.push(Row { k: k3, kn, target: 0.0, jn: 0.0, jt: Vec3::ZERO, ..r });
            }
        }
        solve(state, &local, &mut part);
        for (k, p) in at.into_iter().zip(part) {
            rows[k].jn += p.jn;
            rows[k].jt += p.jt;
        }
    }
}

/// [`solve`], with the restitution scaled down (halved, then none) where the sweeps would leave the bodies with
/// more kinetic energy than they had: Newton's law per point with Coulomb friction can hand back more than an
/// impact took (a rod that strikes spinning, the friction at its point turning its spin into a bounce). Not
/// where a kinematic body takes part (it may put energy in).
fn solve_without_gain(model: &Model, state: &mut State, mob: &[(f64, Mat3)], rows: &mut [Row]) {
    let mut bodies: Vec<usize> = rows.iter().flat_map(|r| [r.f, r.s]).filter(|&i| mob[i].0 > 0.0).collect();
    bodies.sort_unstable();
    bodies.dedup();
    let driven = rows.iter().any(|r| [r.f, r.s].iter().any(|&i| model.bodies[i].kind == BodyKind::Kinematic));
    let energy = |state: &State| -> f64 { bodies.iter().map(|&i| state.body_kinetic_energy(model, i)).sum() };
    let saved: Vec<(Vec3, Vec3)> = bodies.iter().map(|&i| (state.bodies[i].v, state.bodies[i].w)).collect();
    let before = energy(state);
    let mut scale = 1.0;
    loop {
        for r in rows.iter_mut() {
            (r.target, r.jn, r.jt) = (r.bounce * scale, 0.0, Vec3::ZERO);
        }
        solve(state, mob, rows);
        shock(state, mob, rows);
        if driven || scale == 0.0 || energy(state) <= before * (1.0 + 1e-12) {
            return;
        }
        for (&i, &(v, w)) in bodies.iter().zip(&saved) {
            (state.bodies[i].v, state.bodies[i].w) = (v, w);
        }
        scale = if scale > 0.1 { 0.5 * scale } else { 0.0 };
    }
}

/// Which fast pairs take an impact: every one with restitution; one without only where the load it carries is
/// more than four times its reduced mass (r > 2 in `stiffness_from_load`: its damper r·k_d beyond the knee falls
/// short of the heavy body's critical one, and a 10 t cube landing on a 10 kg one rebounded at 0.16 of its
/// speed), and only between bodies free of joints (a link stopped alone is set moving again by its joint rows,
/// into the overlap its landing depth took up: the octopus and the ragdoll sank 18 mm so). Elsewhere the damper
/// ends an inelastic arrival as in the paper, without a landing depth's overlap.
fn with_impacts(model: &Model, state: &State, pairs: &[PairHits], mut fast: Vec<bool>) -> Vec<bool> {
    let elastic = |p: &PairHits| model.pair_material(p.a, p.b).2 > 0.0;
    if !pairs.iter().zip(&fast).any(|(p, &f)| f && !elastic(p)) {
        return fast;
    }
    let support: Vec<SupportPair> = pairs.iter().map(PairHits::support).collect();
    let carried = carried_mass(model, state, &support);
    let jointed = |i: usize| model.joints.iter().any(|j| j.body1 == i || j.body2 == Some(i));
    for ((p, f), m) in pairs.iter().zip(fast.iter_mut()).zip(carried) {
        if *f && !elastic(p) {
            *f = m > 4.0 * reduced_mass(model, p.a, p.b) && !jointed(p.a) && !jointed(p.b);
        }
    }
    fast
}

/// The substep's impacts over the pairs with penetrating points (depths as found), after the last substep's
/// landing depths `last`: impulses for the pairs that arrive fast, then every pair's depths taken from its landing
/// depth (points no deeper than it dropped, pairs left without points dropped).
pub(super) fn impacts(model: &Model, state: &mut State, pairs: Vec<PairHits>, last: &[(PairKey, Landing)], law: &ImpactLaw) -> Impacts {
    let fast: Vec<bool> = pairs.iter().map(|p| arrives_fast(state, p, law.speed)).collect();
    let fast = with_impacts(model, state, &pairs, fast);
    let (mut impulse, mut friction, mut points) = (0.0, 0.0, Vec::new());
    if fast.iter().any(|&f| f) {
        let mob: Vec<(f64, Mat3)> = (0..model.bodies.len()).map(|i| mobility(model, state, i)).collect();
        let mut rows = Vec::new();
        let joined = joined_to_impacts(&pairs, &fast, &mob);
        for (p, _) in pairs.iter().zip(&joined).filter(|(_, &j)| j) {
            let (mu, _, e) = model.pair_material(p.a, p.b);
            rows.extend(rows_of(state, p, &mob, law, e, mu));
        }
        solve_without_gain(model, state, &mob, &mut rows);
        for r in rows.iter().filter(|r| r.jn > 0.0 || r.jt != Vec3::ZERO) {
            impulse += r.jn;
            friction += r.jt.length();
            let force = (r.n * r.jn + r.jt) / law.h;
            let at = state.bodies[r.f].x + r.arm_f;
            points.push(((r.f as u32, r.s as u32, r.point), ContactPoint { point: at, normal: r.n, bodies: [r.s, r.f], force }));
        }
    }
    let mut landings = Vec::new();
    let mut kept = Vec::with_capacity(pairs.len());
    for (mut p, fast) in pairs.into_iter().zip(fast) {
        let key = (p.a as u32, p.b as u32);
        let deepest = p.hits.iter().flatten().fold(0.0f64, |m, h| m.max(-h.c.d));
        let before = last.binary_search_by_key(&key, |e| e.0).ok().map(|i| last[i].1);
        let Landing { offset, depth } = before.unwrap_or_default();
        let offset = if fast && depth == 0.0 {
            // a pair that was apart (or no deeper than its landing depth): the overlap the impact ran into is
            // taken up by the landing depth
            deepest
        } else if deepest < offset {
            // a pair that comes out follows its deepest point: the spring never throws it out
            deepest
        } else {
            // otherwise it relaxes toward the spring's own rest
            offset - law.relax * law.h
        }
        .max(0.0);
        if offset > 0.0 {
            for hs in &mut p.hits {
                // a point at the landing depth is dropped, not kept as touching (contact.rs): the pair is
                // separating after its impact, and a touching point's damper would pull the rebound back
                hs.retain_mut(|h| {
                    h.c.d += offset;
                    h.c.d < 0.0
                });
            }
        }
        landings.push((key, Landing { offset, depth: deepest - offset }));
        if p.points() > 0 {
            kept.push(p);
        }
    }
    // a pair of bodies that sleep is not evaluated: it keeps its landing depth for when they wake
    let awake = |i: u32| crate::dynamics::sleep::awake(model, state, i as usize);
    landings.sort_by_key(|l| l.0);
    let asleep: Vec<(PairKey, Landing)> = last
        .iter()
        .filter(|l| !awake(l.0 .0) && !awake(l.0 .1) && landings.binary_search_by_key(&l.0, |n| n.0).is_err())
        .copied()
        .collect();
    landings.extend(asleep);
    landings.sort_by_key(|l| l.0);
    Impacts { pairs: kept, landings, impulse, friction, points }
}
