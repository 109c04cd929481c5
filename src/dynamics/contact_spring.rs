//! A linear spring–damper contact between two bodies, as the penalty methods model it: the pair's reduced mass,
//! the damping ratio that gives a restitution, and the stiffening that follows the mass a pair carries.

use crate::model::{BodyKind, Model};

/// Reduced mass of a pair; the finite mass when the other body does not move.
pub fn reduced_mass(model: &Model, a: usize, b: usize) -> f64 {
    let m = |i: usize| if model.bodies[i].kind == BodyKind::Dynamic { model.bodies[i].mass } else { f64::INFINITY };
    let (ma, mb) = (m(a), m(b));
    if ma.is_infinite() {
        mb
    } else if mb.is_infinite() {
        ma
    } else {
        ma * mb / (ma + mb)
    }
}

/// The damping ratio that gives restitution `e` to a linear spring–damper contact.
pub fn damping_ratio_for(e: f64) -> f64 {
    if e <= 0.0 {
        return 1.0;
    }
    let l = e.ln();
    -l / (std::f64::consts::PI * std::f64::consts::PI + l * l).sqrt()
}

/// A pair's load stiffening, carried from one step to the next: the tangent ratio r of its spring beyond its
/// knee (r ≥ 1), and the penetration p₀ from which its extra stiffness (r − 1)k acts: the extra force per unit
/// of k is (r − 1)(p − max(δ, p₀))⁺, δ the knee.
///
/// A stiffer spring switched on at a depth pushes with the extra force at once (energy nobody put in: a row
/// landing on a row that is still compressed by its own landing would throw it up). So where r rises, the extra
/// stiffness engages from the depth that keeps the extra force at the pair's mean penetration at its last value;
/// where the penetration has fallen below p₀, p₀ follows it down (the extra force is zero on both sides of that
/// change). At rest the depth does not depend on the load, so a load put on a resting stack engages at once.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoadSpring {
    pub ratio: f64,
    pub engaged: f64,
}

impl LoadSpring {
    /// The step's stiffening for tangent ratio `ratio` (≥ 1) at the pair's mean penetration `depth` (≥ 0) and
    /// knee `knee`, after `last` (the previous step's, `None` for a pair that was not in contact).
    pub fn next(last: Option<LoadSpring>, ratio: f64, depth: f64, knee: f64) -> LoadSpring {
        let LoadSpring { ratio: r0, engaged: p0 } = last.unwrap_or(LoadSpring { ratio: 1.0, engaged: 0.0 });
        let engaged = if ratio > r0 {
            let extra = (r0 - 1.0) * (depth - knee.max(p0)).max(0.0);
            depth - extra / (ratio - 1.0)
        } else {
            p0
        };
        LoadSpring { ratio, engaged: engaged.min(depth) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_spring_keeps_its_extra_force_when_it_stiffens_and_engages_at_once_at_rest() {
        let extra = |s: LoadSpring, p: f64, knee: f64| (s.ratio - 1.0) * (p - knee.max(s.engaged)).max(0.0);
        // a new pair loaded from its first touch engages where it is (its knee, if deeper)
        let s = LoadSpring::next(None, 50.0, 1e-5, 2e-5);
        assert_eq!(s, LoadSpring { ratio: 50.0, engaged: 1e-5 });
        // stiffening at a depth keeps the extra force, whatever the depth and the knee
        for (r0, p0, r, p, knee) in
            [(2.0, 1e-4, 3.0, 5e-4, 1e-5), (1.0, 0.0, 4.0, 2e-3, 1e-4), (10.0, 0.0, 1000.0, 1.5e-3, 1e-3), (10.0, 2e-3, 50.0, 1e-3, 5e-4)]
        {
            let last = LoadSpring { ratio: r0, engaged: p0 };
            let s = LoadSpring::next(Some(last), r, p, knee);
            let (before, after) = (extra(last, p, knee), extra(s, p, knee));
            assert!((after - before).abs() <= 1e-15, "{r0} {p0} {r} {p} {knee}: {after} vs {before}");
            assert!(s.engaged <= p);
        }
        // softening keeps p₀ (the force drops: no energy gained); a shallower pair moves p₀ down to its depth
        let last = LoadSpring { ratio: 5.0, engaged: 2e-4 };
        assert_eq!(LoadSpring::next(Some(last), 3.0, 5e-4, 1e-4), LoadSpring { ratio: 3.0, engaged: 2e-4 });
        assert_eq!(LoadSpring::next(Some(last), 5.0, 1e-4, 1e-4), LoadSpring { ratio: 5.0, engaged: 1e-4 });
    }

    #[test]
    fn the_damping_ratio_gives_the_restitution_of_a_damped_oscillator() {
        // a linear spring–damper released at contact returns with e = exp(-ζπ/√(1-ζ²))
        for e in [0.05, 0.3, 0.5, 0.9] {
            let z: f64 = damping_ratio_for(e);
            let back = (-z * std::f64::consts::PI / (1.0 - z * z).sqrt()).exp();
            assert!((back - e).abs() < 1e-12, "e {e}: {back}");
        }
        assert_eq!(damping_ratio_for(0.0), 1.0);
    }
}
