//! Newton's impact law as impulses, for the penalty methods' fast arrivals: sequential impulses over the points
//! of the pairs an impact joins (normal ones with Newton's law per point, Coulomb friction up to μ of them), then
//! shock propagation from the fixed bodies up, with the restitution scaled down where the impulses would add
//! kinetic energy. A method turns its contacts into [`ImpactRow`]s and decides which pairs take an impact
//! ([`heavy_landings`] for arrivals without restitution). See docs/methods/implicit-penalty.md, "Impacts".

use crate::dynamics::collision_matrix::collision_matrix;
use crate::dynamics::contact_spring::reduced_mass;
use crate::dynamics::graph::stack_analysis;
use crate::dynamics::integrate::inv_inertia_world;
use crate::dynamics::support::{carried_mass, SupportPair};
use crate::math::{Mat3, Vec3};
use crate::model::{BodyKind, Model};
use crate::state::State;

/// Sweeps of the impulses at most, and the change of a point's velocity (m/s) below which they stop.
const SWEEPS: usize = 50;
const CONVERGED: f64 = 1e-6;

/// A body's inverse mass and world inverse inertia: zero for a body that does not move this step.
pub type Mobility = (f64, Mat3);

/// Every body's [`Mobility`].
pub fn mobilities(model: &Model, state: &State) -> Vec<Mobility> {
    (0..model.bodies.len())
        .map(|i| {
            if model.bodies[i].kind != BodyKind::Dynamic || !crate::dynamics::sleep::awake(model, state, i) {
                return (0.0, Mat3::ZERO);
            }
            (1.0 / model.bodies[i].mass, inv_inertia_world(model, i, state.bodies[i].q))
        })
        .collect()
}

/// The velocity of `s`'s material point relative to `f`'s at a point with these arms.
pub fn relative(state: &State, f: usize, s: usize, arm_f: Vec3, arm_s: Vec3) -> Vec3 {
    let (bf, bs) = (&state.bodies[f], &state.bodies[s]);
    bs.v + bs.w.cross(arm_s) - bf.v - bf.w.cross(arm_f)
}

/// One point of an impacting pair: bodies `f` and `s` (`s` pushed along +n), the arms from their centres of mass
/// to the point, the collision matrix `k` and n·k·n, the normal rate Newton's law asks for (`bounce`) and the one
/// the sweeps aim at, μ, the impulses so far (normal, tangential), and the method's tag for the point.
#[derive(Debug, Clone, Copy)]
pub struct ImpactRow {
    pub f: usize,
    pub s: usize,
    pub tag: u32,
    pub n: Vec3,
    pub arm_f: Vec3,
    pub arm_s: Vec3,
    k: Mat3,
    kn: f64,
    pub bounce: f64,
    target: f64,
    pub mu: f64,
    pub jn: f64,
    pub jt: Vec3,
}

impl ImpactRow {
    /// The row of a point with unit normal `n`, restitution `e` (taken where the point approaches faster than
    /// `speed`), friction `mu`; `None` where neither body moves at the point.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        state: &State,
        mob: &[Mobility],
        (f, s): (usize, usize),
        n: Vec3,
        (arm_f, arm_s): (Vec3, Vec3),
        (e, mu, speed): (f64, f64, f64),
        tag: u32,
    ) -> Option<Self> {
        let rate = n.dot(relative(state, f, s, arm_f, arm_s));
        let k = collision_matrix(mob[f].0, &mob[f].1, arm_f, mob[s].0, &mob[s].1, arm_s);
        let kn = n.dot(k * n);
        if kn <= 0.0 || n == Vec3::ZERO {
            return None;
        }
        let bounce = if rate < -speed { -e * rate } else { 0.0 };
        Some(ImpactRow { f, s, tag, n, arm_f, arm_s, k, kn, bounce, target: bounce, mu, jn: 0.0, jt: Vec3::ZERO })
    }

    /// The impulse the row gave `s` (−that to `f`).
    pub fn impulse(&self) -> Vec3 {
        self.n * self.jn + self.jt
    }
}

/// Applies impulse `j` to `s` at its arm and −j to `f`.
fn apply(state: &mut State, mob: &[Mobility], r: &ImpactRow, j: Vec3) {
    let ((mf, if_), (ms, is)) = (mob[r.f], mob[r.s]);
    state.bodies[r.f].v -= j * mf;
    state.bodies[r.f].w -= if_ * r.arm_f.cross(j);
    state.bodies[r.s].v += j * ms;
    state.bodies[r.s].w += is * r.arm_s.cross(j);
}

/// The pairs (by their bodies) that take part in the impacts: those connected to a fast pair through pairs in
/// contact and bodies that move, so that an impact that pushes a body against its support is met there within
/// the substep (a ball landing on a column pushes the column into the floor: left to the next substep, that
/// would be one more impact).
pub fn joined_to_impacts(pairs: &[(usize, usize)], fast: &[bool], mob: &[Mobility]) -> Vec<bool> {
    let mut root: Vec<usize> = (0..mob.len()).collect();
    fn find(root: &mut [usize], mut i: usize) -> usize {
        while root[i] != i {
            root[i] = root[root[i]];
            i = root[i];
        }
        i
    }
    let moves = |i: usize| mob[i].0 > 0.0;
    for &(a, b) in pairs.iter().filter(|&&(a, b)| moves(a) && moves(b)) {
        let (ra, rb) = (find(&mut root, a), find(&mut root, b));
        root[ra.max(rb)] = ra.min(rb);
    }
    let mut hit = vec![false; mob.len()];
    for (&(a, b), _) in pairs.iter().zip(fast).filter(|(_, &f)| f) {
        for i in [a, b].into_iter().filter(|&i| moves(i)) {
            let r = find(&mut root, i);
            hit[r] = true;
        }
    }
    pairs.iter().zip(fast).map(|(&(a, b), &f)| f || [a, b].into_iter().any(|i| moves(i) && hit[find(&mut root, i)])).collect()
}

/// Sequential impulses over the rows until no point's velocity changes by more than [`CONVERGED`]: the normal
/// impulse to the point's target rate (never pulling), then the tangential one that stops its slip, within μ
/// times the normal one.
fn solve(state: &mut State, mob: &[Mobility], rows: &mut [ImpactRow]) {
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
fn shock(state: &mut State, mob: &[Mobility], rows: &mut [ImpactRow]) {
    let fixed: Vec<bool> = mob.iter().map(|m| m.0 == 0.0).collect();
    let edges: Vec<(usize, usize)> = rows.iter().map(|r| (r.f, r.s)).collect();
    let stack = stack_analysis(mob.len(), &fixed, &edges);
    // the rows by layer; a body held in one layer is held in every later one, so `local` only ever loses mobility
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&k| stack.edge_layer[k]);
    let mut local: Vec<Mobility> = mob.to_vec();
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
                part.push(ImpactRow { k: k3, kn, target: 0.0, jn: 0.0, jt: Vec3::ZERO, ..r });
            }
        }
        solve(state, &local, &mut part);
        for (k, p) in at.into_iter().zip(part) {
            rows[k].jn += p.jn;
            rows[k].jt += p.jt;
        }
    }
}

/// The impacts over `rows`: the sweeps, then shock propagation, with the restitution scaled down (halved, then
/// none) where they would leave the bodies with more kinetic energy than they had: Newton's law per point with
/// Coulomb friction can hand back more than an impact took (a rod that strikes spinning, the friction at its
/// point turning its spin into a bounce). Not where a kinematic body takes part (it may put energy in).
pub fn resolve(model: &Model, state: &mut State, mob: &[Mobility], rows: &mut [ImpactRow]) {
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

/// Which of the `candidates` (fast pairs) take an impact as landings: those whose carried load is more than `load`
/// times their reduced mass (a body landing on one that rests on something else, whose pair's damper is sized for
/// the two bodies alone; with a large `load`, a heavy body landing on a light one, where a damper the light body's
/// stability allows falls short of the heavy body's critical one and the heavy body rides its spring back up),
/// between bodies free of joints (a link stopped alone is set moving again by its joint rows, into the overlap
/// the impact left). Elsewhere the method's damper ends the arrival.
pub fn heavy_landings(model: &Model, state: &State, pairs: &[SupportPair], candidates: &[bool], load: f64) -> Vec<bool> {
    let mut heavy = vec![false; pairs.len()];
    if !candidates.iter().any(|&c| c) {
        return heavy;
    }
    let carried = carried_mass(model, state, pairs);
    let mut jointed = vec![false; model.bodies.len()];
    for j in &model.joints {
        jointed[j.body1] = true;
        if let Some(b) = j.body2 {
            jointed[b] = true;
        }
    }
    for (((p, h), m), &c) in pairs.iter().zip(heavy.iter_mut()).zip(carried).zip(candidates) {
        *h = c && m > load * reduced_mass(model, p.a, p.b) && !jointed[p.a] && !jointed[p.b];
    }
    heavy
}
