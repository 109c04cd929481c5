//! Newton's impact law for contacts that arrive fast (`ImplicitParams::impacts`): backward Euler at the
//! method's step damps a penalty impact to about a quarter of the speed an elastic one hands back, whatever the
//! damper, and a heavy body that lands on a light one rides its spring back up. So a pair whose point approaches
//! faster than the impact speed takes its impact as impulses (`dynamics::impact`: normal ones with Newton's law per
//! point, Coulomb friction up to μ of them, then shock propagation from the fixed bodies up), and its spring then
//! acts from the depth the impact found it at (its landing depth L), so the spring does not throw back the overlap
//! that the step's discrete detection let in. L follows the pair out as it separates, and otherwise relaxes to zero
//! at half the impact speed. See docs/methods/implicit-penalty.md, "Impacts".

use super::friction::Key;
use super::load::{PairHits, PairKey};
use crate::dynamics::impact::{heavy_landings, joined_to_impacts, mobilities, relative, resolve, ImpactRow, Mobility};
use crate::dynamics::support::SupportPair;
use crate::math::Vec3;
use crate::method::ContactPoint;
use crate::model::Model;
use crate::state::State;

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

/// The rows of a pair's points: (field, point body) per role, the unit gradient, tagged with the point.
fn rows_of(state: &State, p: &PairHits, mob: &[Mobility], law: &ImpactLaw, e: f64, mu: f64) -> impl Iterator<Item = ImpactRow> {
    let mut rows = Vec::new();
    for (role, hs) in p.hits.iter().enumerate() {
        let (f, s) = if role == 0 { (p.a, p.b) } else { (p.b, p.a) };
        for h in hs {
            let n = h.c.g.normalize_or_zero();
            rows.extend(ImpactRow::new(state, mob, (f, s), n, (h.c.a, h.c.b), (e, mu, law.speed), h.point));
        }
    }
    rows.into_iter()
}

/// Whether a pair's point approaches faster than the impact speed.
fn arrives_fast(state: &State, p: &PairHits, speed: f64) -> bool {
    p.hits.iter().enumerate().any(|(role, hs)| {
        let (f, s) = if role == 0 { (p.a, p.b) } else { (p.b, p.a) };
        hs.iter().any(|h| h.c.g.normalize_or_zero().dot(relative(state, f, s, h.c.a, h.c.b)) < -speed)
    })
}

/// An inelastic fast pair is an impact where it carries more than this many times its reduced mass. Lower (1.5,
/// every landing on a body that rests on another) stops a cube landing on an equal one (rebound 0.22 → 0.011) but
/// the landing depth's relaxation then lifts each landed body by its landing depth: in the soft-spring bowl stack
/// of the largest-stable-step row the energy rose beyond its allowance at every step above 0.06 ms.
const HEAVY_LOAD: f64 = 4.0;

/// Which fast pairs take an impact: every one with restitution; one without only as a heavy landing
/// (`dynamics::impact::heavy_landings`: r > 2 in `stiffness_from_load`, where its damper r·k_d beyond the knee
/// falls short of the heavy body's critical one; the octopus and the ragdoll sank 18 mm with jointed bodies
/// included). Elsewhere the damper ends an inelastic arrival as in the paper, without a landing depth's overlap.
fn with_impacts(model: &Model, state: &State, pairs: &[PairHits], fast: Vec<bool>) -> Vec<bool> {
    let elastic: Vec<bool> = pairs.iter().map(|p| model.pair_material(p.a, p.b).2 > 0.0).collect();
    let candidates: Vec<bool> = fast.iter().zip(&elastic).map(|(&f, &e)| f && !e).collect();
    if !candidates.iter().any(|&c| c) {
        return fast;
    }
    let support: Vec<SupportPair> = pairs.iter().map(PairHits::support).collect();
    let heavy = heavy_landings(model, state, &support, &candidates, HEAVY_LOAD);
    fast.iter().zip(elastic).zip(heavy).map(|((&f, e), h)| (f && e) || h).collect()
}

/// The substep's impacts over the pairs with penetrating points (depths as found), after the last substep's
/// landing depths `last`: impulses for the pairs that arrive fast, then every pair's depths taken from its landing
/// depth (points no deeper than it dropped, pairs left without points dropped).
pub(super) fn impacts(model: &Model, state: &mut State, pairs: Vec<PairHits>, last: &[(PairKey, Landing)], law: &ImpactLaw) -> Impacts {
    let fast: Vec<bool> = pairs.iter().map(|p| arrives_fast(state, p, law.speed)).collect();
    let fast = with_impacts(model, state, &pairs, fast);
    let (mut impulse, mut friction, mut points) = (0.0, 0.0, Vec::new());
    if fast.iter().any(|&f| f) {
        let mob = mobilities(model, state);
        let mut rows = Vec::new();
        let bodies: Vec<(usize, usize)> = pairs.iter().map(|p| (p.a, p.b)).collect();
        let joined = joined_to_impacts(&bodies, &fast, &mob);
        for (p, _) in pairs.iter().zip(&joined).filter(|(_, &j)| j) {
            let (mu, _, e) = model.pair_material(p.a, p.b);
            rows.extend(rows_of(state, p, &mob, law, e, mu));
        }
        resolve(model, state, &mob, &mut rows);
        for r in rows.iter().filter(|r| r.jn > 0.0 || r.jt != Vec3::ZERO) {
            impulse += r.jn;
            friction += r.jt.length();
            let force = r.impulse() / law.h;
            let at = state.bodies[r.f].x + r.arm_f;
            points.push(((r.f as u32, r.s as u32, r.tag), ContactPoint { point: at, normal: r.n, bodies: [r.s, r.f], force }));
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
