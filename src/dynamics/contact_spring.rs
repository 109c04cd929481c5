//! A linear spring–damper contact between two bodies, as the penalty methods model it: the pair's reduced mass
//! and the damping ratio that gives a restitution.

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

#[cfg(test)]
mod tests {
    use super::*;

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
