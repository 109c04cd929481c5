//! The IPC barrier on squared distances (source eqs. 10–11; IPC, Li et al. 2020) and the contact potential
//! of one primitive pair, with the edge–edge mollifier.
//!
//! b(D) = −(D − D̂)² ln(D/D̂) for 0 < D < D̂ (D = d², D̂ = d̂²), 0 beyond; b, b′ and b″ vanish at D̂ (C²).

use crate::collision::distance::{self, cross_norm2, mollifier};
pub use crate::collision::distance::{box_gap2, classify, may_be_within, PairShape};
use crate::math::dual::{vars12, Dual};

/// b(D).
pub fn b(d: f64, dh: f64) -> f64 {
    if d >= dh {
        0.0
    } else if d <= 0.0 {
        f64::INFINITY
    } else {
        -(d - dh) * (d - dh) * (d / dh).ln()
    }
}

/// b′(D) = (D̂ − D)(2 ln(D/D̂) − D̂/D + 1).
pub fn b1(d: f64, dh: f64) -> f64 {
    if d >= dh {
        0.0
    } else {
        (dh - d) * (2.0 * (d / dh).ln() - dh / d + 1.0)
    }
}

/// b″(D) = (D̂/D)(D̂/D + 2) − 2 ln(D/D̂) − 3.
pub fn b2(d: f64, dh: f64) -> f64 {
    if d >= dh {
        0.0
    } else {
        (dh / d) * (dh / d + 2.0) - 2.0 * (d / dh).ln() - 3.0
    }
}

/// Whether the mollifier is active (edge–edge pairs that are nearly parallel).
fn mollified(shape: PairShape, x: &[[f64; 3]; 4]) -> bool {
    shape.edge_edge && cross_norm2::<f64>(x) < shape.eps_x
}

/// The pair's barrier energy m·b(D) (without κ), on f64.
pub fn energy(shape: PairShape, x: &[[f64; 3]; 4], dh: f64) -> f64 {
    energy_at(shape, x, classify(shape, x).1, dh)
}

/// The pair's barrier energy m·b(D) at the squared distance `d` that [`classify`] gave.
pub fn energy_at(shape: PairShape, x: &[[f64; 3]; 4], d: f64, dh: f64) -> f64 {
    if d >= dh {
        return 0.0;
    }
    let m = if mollified(shape, x) { mollifier(cross_norm2::<f64>(x), shape.eps_x) } else { 1.0 };
    m * b(d, dh)
}

/// The pair's barrier energy m·b(D) (without κ) with its gradient and Hessian in the 12 stencil coordinates.
/// `None` when the pair is at or beyond D̂.
pub fn energy_dual(shape: PairShape, x: &[[f64; 3]; 4], dh: f64) -> Option<Dual<12>> {
    let (kind, d) = classify(shape, x);
    if d >= dh {
        return None;
    }
    let xd = vars12(x);
    let dd = distance::eval(kind, &xd);
    let bd = dd.chain(b(dd.v, dh), b1(dd.v, dh), b2(dd.v, dh));
    if mollified(shape, x) {
        let m = mollifier(cross_norm2(&xd), shape.eps_x);
        Some(m * bd)
    } else {
        Some(bd)
    }
}

/// The contact force magnitude κ·m·|b′(D)|·2d of a pair at squared distance `d` (as `classify` gives it), with
/// the mollifier's factor m for nearly parallel edges: the lagged normal force λ of friction.
pub fn force_magnitude(shape: PairShape, x: &[[f64; 3]; 4], d: f64, dh: f64, kappa: f64) -> f64 {
    if d >= dh || d <= 0.0 {
        return 0.0;
    }
    let m = if mollified(shape, x) { mollifier(cross_norm2::<f64>(x), shape.eps_x) } else { 1.0 };
    kappa * m * (-b1(d, dh)) * 2.0 * d.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barrier_is_c2_at_dhat_and_derivatives_match() {
        let dh = 1e-6;
        for d in [1e-9, 1e-8, 3e-7, 9.9e-7] {
            let e = 1e-6 * d;
            let fd1 = (b(d + e, dh) - b(d - e, dh)) / (2.0 * e);
            let fd2 = (b1(d + e, dh) - b1(d - e, dh)) / (2.0 * e);
            assert!((fd1 - b1(d, dh)).abs() <= 1e-6 * b1(d, dh).abs(), "b′ at {d}");
            assert!((fd2 - b2(d, dh)).abs() <= 1e-6 * b2(d, dh).abs(), "b″ at {d}");
        }
        let near = dh * (1.0 - 1e-9);
        assert!(b(near, dh).abs() < 1e-28 && b1(near, dh).abs() < 1e-20 && b2(near, dh).abs() < 1e-7);
    }
}
