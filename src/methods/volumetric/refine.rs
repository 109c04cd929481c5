//! Substeps that follow the load: the source's spring k = π²m/(8h)² (m the pair's reduced mass) lets a heavy
//! body on a light one sink by about the mass ratio times a single body's depth, and explicit integration
//! bounds the spring by the light body's mode whatever the rule, so only a smaller h holds the load. Each frame
//! finds the mass every contact carries (dynamics/support.rs), the depth at which its spring law would hold
//! that load at the frame's default substep, and takes s times more substeps where that depth exceeds
//! `rest_depth` (the depth falls as h²), up to `max_substep_factor`; a contact keeps the factor its load asked
//! for until its load has asked for less for [`NEED_HOLD`]. See docs/methods/volumetric-penalty.md, "Substeps that follow the load".

use super::{stiffness, Volumetric};
use crate::dynamics::contact_spring::reduced_mass;
use crate::dynamics::support::{carried_mass, SupportPair};
use crate::math::Vec3;
use crate::model::Model;
use crate::state::State;
use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};

/// How long a contact keeps the substep factor its load asked for once the load asks for less, s.
pub const NEED_HOLD: f64 = 0.25;

impl Volumetric {
    /// The factor s ≥ 1 on the frame's `n0` substeps of `h0` that the carried loads ask for, after `detect`
    /// (its overlaps, bodies touched and ratios). 1 where `substeps` or `stiffness` is set (the user fixed h or
    /// k), without gravity, or with `max_substep_factor` = 1.
    pub(super) fn load_substep_factor(&mut self, model: &Model, state: &State, h0: f64) -> u32 {
        self.needs.clear();
        let cap = self.params.max_substep_factor;
        let g = model.gravity.length();
        if cap <= 1 || self.params.substeps.is_some() || self.params.stiffness.is_some() || !(g > 0.0) {
            return 1;
        }
        let pairs = self.pairs_within_reach(model, state, h0 * self.params.substeps_for(model.dt) as f64);
        let carried = carried_mass(model, state, &pairs);
        let mut factor = 1;
        for (p, &load) in pairs.iter().zip(&carried) {
            if load > 0.0 {
                let s = (self.rest_depth(model, p.a, p.b, load * g, h0) / self.params.rest_depth).sqrt().ceil();
                let s = if s.is_finite() { s.clamp(1.0, cap as f64) as u32 } else { cap };
                if s > 1 {
                    self.needs.push(((p.a as u32, p.b as u32), s));
                    factor = factor.max(s);
                }
            }
        }
        self.needs.sort_unstable();
        // a contact keeps the factor its own load asked for (`Anchor::need`) until its load has asked for less
        // for `NEED_HOLD` s: where loads flicker (cards landing and leaving) a coarser substep would soften a
        // loaded spring, and the offset would keep that depth when the substep shrank again; contacts whose
        // bodies all sleep ask for nothing until they wake
        let hold = (NEED_HOLD / model.dt).ceil().max(1.0) as u32;
        let awake = |i: u32| crate::dynamics::sleep::awake(model, state, i as usize);
        let needs = &self.needs;
        let mut kept = 1;
        for (key, anchor) in self.anchors.iter_mut().filter(|e| awake(e.0 .0) || awake(e.0 .1)) {
            let now = need_of(needs, key.0, key.1);
            if now >= anchor.need {
                (anchor.need, anchor.calm) = (now, 0);
            } else {
                anchor.calm += 1;
                if anchor.calm >= hold {
                    (anchor.need, anchor.calm) = (now, 0);
                }
            }
            kept = kept.max(anchor.need);
        }
        factor.max(kept).clamp(1, cap)
    }

    /// The factor body pair (a, b)'s load asks for this frame (1 where it carries none that matters).
    pub(super) fn need(&self, a: usize, b: usize) -> u32 {
        need_of(&self.needs, a as u32, b as u32)
    }

    /// The body pairs in contact or within what they can close in a frame of `dt`, (|v| + |ω|·ρ)·dt + ½|g|dt²
    /// for each moving body (ρ its bounding radius), each with a normal from a toward b: a load is known a frame
    /// before it lands, so its substeps are in place before its contact compresses (a spring stiffened while
    /// compressed keeps its force, stiffness.rs, and with it that depth). After `detect`: a pair in contact sums
    /// its piece pairs' normals, the penalty's of the last substep where it had one (EPA's may lie along the
    /// faces of two aligned boxes); a pair only within reach takes the axis along which its loosened boxes
    /// overlap least (no narrow phase: it only announces a landing).
    fn pairs_within_reach(&mut self, model: &Model, state: &State, dt: f64) -> Vec<SupportPair> {
        let mut pairs: Vec<SupportPair> = Vec::new();
        for o in &self.overlaps {
            let normal = match self.anchors.binary_search_by_key(&o.key, |e| e.0) {
                Ok(k) if self.anchors[k].1.normal != Vec3::ZERO => self.anchors[k].1.normal,
                _ => o.normal,
            };
            match pairs.last_mut() {
                Some(p) if (p.a, p.b) == (o.a, o.b) => p.normal += normal,
                _ => pairs.push(SupportPair { a: o.a, b: o.b, normal }),
            }
        }
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        let g = model.gravity.length();
        let reach: Vec<f64> = (0..model.bodies.len())
            .map(|i| {
                let (b, radius) = (&state.bodies[i], self.aabbs[i].half_extents().length());
                let fall = if self.movable[i] { 0.5 * g * dt * dt } else { 0.0 };
                (b.v.length() + b.w.length() * radius) * dt + fall
            })
            .collect();
        let loose: Vec<Aabb> = self.aabbs.iter().zip(&reach).map(|(a, &r)| a.loosened(r)).collect();
        let mut near = Vec::new();
        self.near.find_pairs(&loose, &self.movable, &model.exclusions, &mut near);
        near.sort_unstable();
        let touching = pairs.len();
        let awake = |i: usize| crate::dynamics::sleep::awake(model, state, i);
        for (a, b) in near {
            let (a, b) = (a as usize, b as usize);
            if !(awake(a) || awake(b)) || pairs[..touching].binary_search_by_key(&(a, b), |p| (p.a, p.b)).is_ok() {
                continue;
            }
            // the axis of least overlap of the two loosened boxes, from a toward b
            let (la, lb) = (&loose[a], &loose[b]);
            let (ca, cb) = (la.center(), lb.center());
            let mut best = (f64::INFINITY, Vec3::ZERO);
            for axis in 0..3 {
                let overlap = la.maxs[axis].min(lb.maxs[axis]) - la.mins[axis].max(lb.mins[axis]);
                if overlap < best.0 {
                    let mut n = Vec3::ZERO;
                    n[axis] = if cb[axis] >= ca[axis] { 1.0 } else { -1.0 };
                    best = (overlap, n);
                }
            }
            pairs.push(SupportPair { a, b, normal: best.1 });
        }
        pairs
    }

    /// The mean depth at which the spring law of body pair (a, b) at substep `h` holds `weight` (N): the source's
    /// spring up to the knee at twice the pair's weight, the tangent ratio of `law` beyond.
    fn rest_depth(&self, model: &Model, a: usize, b: usize, weight: f64, h: f64) -> f64 {
        let m = reduced_mass(model, a, b);
        let k = stiffness::source_spring(m, h);
        let knee = 2.0 * m * model.gravity.length();
        if weight <= knee {
            return weight / k;
        }
        let r = self.law(model, a, b, knee * (1.0 + 1e-9), 1.0).1;
        (knee + (weight - knee) / r) / k
    }
}

/// The factor body pair (a, b) asks for in `needs` (sorted by pair), 1 where it is not listed.
fn need_of(needs: &[((u32, u32), u32)], a: u32, b: u32) -> u32 {
    needs.binary_search_by_key(&(a, b), |e| e.0).map_or(1, |k| needs[k].1)
}
