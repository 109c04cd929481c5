//! Springs that follow the load (`ImplicitParams::stiffness_from_load`): per pair in contact, the mass it carries
//! under gravity (`dynamics::support`) and its stiffening after the last step's (`LoadSpring`); and what the
//! method carries from one step to the next. See docs/methods/implicit-penalty.md, "Springs that follow the load".

use super::contact::Hit;
use super::friction::{Anchor, Key};
use super::impacts::Landing;
use crate::dynamics::contact_spring::{reduced_mass, LoadSpring};
use crate::dynamics::support::{carried_mass, SupportPair};
use crate::math::Vec3;
use crate::model::Model;
use crate::state::State;

/// A candidate pair's penetrating points, both roles, before its gains.
pub(super) struct PairHits {
    pub a: usize,
    pub b: usize,
    /// Role 0: B's points in A's field; role 1: A's points in B's field.
    pub hits: [Vec<Hit>; 2],
    /// Per role, whether its damper measures the rate along the field's gradient.
    pub field_rate: [bool; 2],
}

impl PairHits {
    pub fn points(&self) -> usize {
        self.hits[0].len() + self.hits[1].len()
    }

    /// The pair's summed unit normal from A toward B: role 0's field gradients point from A to B, role 1's
    /// from B to A.
    pub fn support(&self) -> SupportPair {
        let unit = |hs: &[Hit]| hs.iter().fold(Vec3::ZERO, |s, h| s + h.c.g.normalize_or_zero());
        SupportPair { a: self.a, b: self.b, normal: unit(&self.hits[0]) - unit(&self.hits[1]) }
    }

    /// The mean penetration of the pair's points.
    fn mean_depth(&self) -> f64 {
        self.hits.iter().flatten().map(|h| -h.c.d).sum::<f64>() / self.points().max(1) as f64
    }
}

/// A pair in the carry: its bodies' indices.
pub(super) type PairKey = (u32, u32);

/// Per pair, its stiffening this step (ratio 1 everywhere when `follow` is off; `knee` the pair's knee δ), and
/// the list to carry to the next step, sorted by pair: this step's pairs and the last step's pairs of bodies
/// that sleep. `last` is the last step's list.
pub(super) fn load_springs(
    model: &Model,
    state: &State,
    pairs: &[PairHits],
    last: &[(PairKey, LoadSpring)],
    follow: bool,
    knee: &dyn Fn(&PairHits) -> f64,
) -> (Vec<LoadSpring>, Vec<(PairKey, LoadSpring)>) {
    if !follow {
        return (vec![LoadSpring { ratio: 1.0, engaged: 0.0 }; pairs.len()], Vec::new());
    }
    let support: Vec<SupportPair> = pairs.iter().map(PairHits::support).collect();
    let carried = carried_mass(model, state, &support);
    let springs: Vec<LoadSpring> = pairs
        .iter()
        .zip(carried)
        .map(|(p, m)| {
            let key = (p.a as u32, p.b as u32);
            let before = last.binary_search_by_key(&key, |e| e.0).ok().map(|i| last[i].1);
            // up to twice its own weight the paper's spring holds a pair within its knee: r = M/(2m) beyond
            LoadSpring::next(before, (0.5 * m / reduced_mass(model, p.a, p.b)).max(1.0), p.mean_depth(), knee(p))
        })
        .collect();
    let mut next: Vec<(PairKey, LoadSpring)> = pairs.iter().zip(&springs).map(|(p, s)| ((p.a as u32, p.b as u32), *s)).collect();
    next.sort_by_key(|e| e.0);
    // a pair of bodies that sleep (or do not move) is not evaluated: it keeps its spring for when they wake
    let awake = |i: u32| crate::dynamics::sleep::awake(model, state, i as usize);
    let kept: Vec<(PairKey, LoadSpring)> =
        last.iter().filter(|e| !awake(e.0 .0) && !awake(e.0 .1) && next.binary_search_by_key(&e.0, |n| n.0).is_err()).copied().collect();
    next.extend(kept);
    next.sort_by_key(|e| e.0);
    (springs, next)
}

impl super::ImplicitPenalty {
    /// The pair's spring per point before the N0 clamp with `points` penetrating points (both roles): the
    /// anchors' k₀ (min(N, n_ref) points) and the contact's k (saturated beyond n_max).
    pub(super) fn springs(&self, m: f64, points: f64) -> (f64, f64) {
        let (n_ref, h) = (self.params.reference_points, self.h);
        // fewer than n_ref points share the spring of n_ref (ImplicitParams::stiffness)
        let k0 = self.params.stiffness.unwrap_or(m / (h * h * points.min(n_ref)));
        // beyond n_max points the pair's total spring stays that of n_max (ImplicitParams::saturation_points)
        let k = if self.params.stiffness.is_some() { k0 } else { k0 * (self.params.saturation_points / points).min(1.0) };
        (k0, k)
    }

    /// The paper's stiffness clamp for `points` penetrating points (`ImplicitParams::n0`).
    pub(super) fn clamp(&self, points: f64) -> f64 {
        self.params.n0.map_or(1.0, |n0| if points >= n0 as f64 { n0 as f64 / points } else { 1.0 })
    }

    /// The knee δ of the load's stiffening (load.rs): the depth at which the pair's `points` clamped springs
    /// carry twice its own weight (∞ without gravity).
    pub(super) fn load_knee(&self, model: &Model, a: usize, b: usize, points: f64) -> f64 {
        let m = reduced_mass(model, a, b);
        let points = points.max(1.0);
        let w = m * model.gravity.length();
        if w > 0.0 {
            2.0 * w / (points * self.springs(m, points).1 * self.clamp(points))
        } else {
            f64::INFINITY
        }
    }
}

/// What the method carries from one step to the next in `State::carry`: the friction anchors (by point, sorted),
/// the pairs' load springs and their landing depths after an impact (impacts.rs; by pair, sorted). A snapshot from before the load springs (the anchors alone)
/// reads as anchors without load springs.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(from = "CarriedForm")]
pub(super) struct Carried {
    pub anchors: Vec<(Key, Anchor)>,
    pub loads: Vec<(PairKey, LoadSpring)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub landings: Vec<(PairKey, Landing)>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum CarriedForm {
    Now {
        anchors: Vec<(Key, Anchor)>,
        loads: Vec<(PairKey, LoadSpring)>,
        #[serde(default)]
        landings: Vec<(PairKey, Landing)>,
    },
    Anchors(Vec<(Key, Anchor)>),
}

impl From<CarriedForm> for Carried {
    fn from(f: CarriedForm) -> Carried {
        match f {
            CarriedForm::Now { anchors, loads, landings } => Carried { anchors, loads, landings },
            CarriedForm::Anchors(anchors) => Carried { anchors, loads: Vec::new(), landings: Vec::new() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_carry_reads_back_and_so_does_a_snapshot_of_anchors_alone() {
        let anchor = Anchor { at: Vec3::new(1.0, 2.0, 3.0), sliding: true, slip: Vec3::X, material: None };
        let loads = vec![((0, 4), LoadSpring { ratio: 3.5, engaged: 1e-4 })];
        let c = Carried { anchors: vec![((1, 2, 3), anchor)], loads, landings: vec![((0, 4), Landing { offset: 2e-3, depth: 1e-4 })] };
        let back: Carried = serde_json::from_value(serde_json::to_value(&c).unwrap()).unwrap();
        assert_eq!((back.anchors, back.loads, back.landings), (c.anchors.clone(), c.loads.clone(), c.landings.clone()));
        let before: Carried = serde_json::from_value(serde_json::json!({ "anchors": [], "loads": [] })).unwrap();
        assert!(before.landings.is_empty());
        let old: Carried = serde_json::from_value(serde_json::to_value(&c.anchors).unwrap()).unwrap();
        assert_eq!((old.anchors, old.loads.len()), (c.anchors, 0));
    }
}
