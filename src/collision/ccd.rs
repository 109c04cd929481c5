//! Additive continuous collision detection (ACCD, Li et al. 2021, as the source uses it in §4.1) for linear
//! vertex trajectories x(t) = x + t·Δx, t ∈ [0, 1]. Affine bodies move every surface point on a straight line
//! under a step Δq, since x = J(x̄)q is linear in q, so this is exact for ABD's line search.
//!
//! It advances by safe lower bounds t_l = s·(d² − ξ²)/((d + ξ)·l_p), where l_p bounds how fast the distance
//! can shrink, and stops once the gap has closed to (1 − s) of its start. s = 0.9 is the conservative rescaling.

use super::distance::{box_gap2, classify, PairShape};

/// The conservative rescaling s of the source's reference implementation.
pub const RESCALING: f64 = 0.9;

fn norm(v: &[f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Iterations of the advancement at most in [`toi`] (when they run out, the time reached is the answer).
pub const MAX_ADVANCES: usize = 1_000_000;

/// Time of impact of a pair moving by `dx` from `x`, as a fraction of the step in [0, t_max], or `None` when
/// the pair cannot come within ξ (`thickness`) before `t_max`. The answer is a lower bound on the true time.
pub fn toi(shape: PairShape, x: &[[f64; 3]; 4], dx: &[[f64; 3]; 4], thickness: f64, t_max: f64) -> Option<f64> {
    match toi_advancing(shape, x, dx, thickness, t_max, MAX_ADVANCES) {
        Toi::Hit(t) | Toi::Unfinished(t) => Some(t),
        Toi::Clear => None,
    }
}

/// What [`toi_advancing`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Toi {
    /// The time of impact ([`toi`]'s answer).
    Hit(f64),
    /// No impact before t_max.
    Clear,
    /// The advances ran out at this time, before an impact or t_max: the time of impact is later.
    Unfinished(f64),
}

/// [`toi`] with at most `advances` iterations of the advancement. The sequence of advances does not depend on
/// `t_max` or `advances`, only where it stops: a `Hit` is the same time for any t_max it lies within, and a
/// pair advances s·d/l_p at a time, so one that slides past at a tiny gap d takes about l_p·t_max/(s·d) of them
/// (a bound already known for the step, passed as t_max, cuts that short).
pub fn toi_advancing(shape: PairShape, x: &[[f64; 3]; 4], dx: &[[f64; 3]; 4], thickness: f64, t_max: f64, advances: usize) -> Toi {
    // remove the mean displacement: only relative motion closes a gap
    let mut dx = *dx;
    for r in 0..3 {
        let mean = (dx[0][r] + dx[1][r] + dx[2][r] + dx[3][r]) / 4.0;
        for d in &mut dx {
            d[r] -= mean;
        }
    }
    let n: [f64; 4] = std::array::from_fn(|k| norm(&dx[k]));
    let lp = if shape.edge_edge { n[0].max(n[1]) + n[2].max(n[3]) } else { n[0] + n[1].max(n[2]).max(n[3]) };
    if lp == 0.0 {
        return Toi::Clear;
    }
    // the first advance is at least s(g − ξ)/l_p for the gap g between the primitives' boxes (g ≤ d): when that
    // passes t_max, so does the loop below, without a distance computed
    if RESCALING * (box_gap2(shape, x).sqrt() - thickness) > t_max * lp {
        return Toi::Clear;
    }
    let xi2 = thickness * thickness;
    let dist2 = |x: &[[f64; 3]; 4]| {
        let (_, mut d) = classify(shape, x);
        if shape.edge_edge && d <= xi2 {
            // near-parallel edges inside the thickness: use the smallest vertex–vertex distance
            d = [(0, 2), (0, 3), (1, 2), (1, 3)]
                .iter()
                .map(|&(i, j)| (0..3).map(|r| (x[i][r] - x[j][r]) * (x[i][r] - x[j][r])).sum::<f64>())
                .fold(f64::INFINITY, f64::min);
        }
        d
    };
    let mut x = *x;
    let mut d2 = dist2(&x);
    let mut d = d2.sqrt();
    let gap = (1.0 - RESCALING) * (d2 - xi2) / (d + thickness);
    if gap <= 0.0 {
        return Toi::Hit(0.0);
    }
    let mut t = 0.0;
    for _ in 0..advances {
        let tl = RESCALING * (d2 - xi2) / ((d + thickness) * lp);
        for k in 0..4 {
            for r in 0..3 {
                x[k][r] += tl * dx[k][r];
            }
        }
        d2 = dist2(&x);
        d = d2.sqrt();
        if t > 0.0 && (d2 - xi2) / (d + thickness) < gap {
            return Toi::Hit(t);
        }
        t += tl;
        if t > t_max {
            return Toi::Clear;
        }
    }
    if advances == MAX_ADVANCES {
        Toi::Hit(t)
    } else {
        Toi::Unfinished(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point 1 above a triangle, the point moving down 1 and the triangle up 1, with thickness ξ.
    fn head_on(xi: f64) -> f64 {
        let x = [[0.2, 0.2, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let dx = [[0.0, 0.0, -1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]];
        toi(PairShape { edge_edge: false, eps_x: 0.0 }, &x, &dx, xi, 1.0).unwrap()
    }

    #[test]
    fn head_on_point_triangle_is_045() {
        let t = head_on(0.0);
        assert!((t - 0.45).abs() < 1e-12, "{t}");
    }

    #[test]
    fn with_thickness_01_it_is_0405() {
        let t = head_on(0.1);
        assert!((t - 0.405).abs() < 1e-12, "{t}");
    }

    /// A point sliding across a triangle at a small gap while closing it slowly: the advances are short (s·d/l_p),
    /// so a capped run stops unfinished; the time of impact is the same for any t_max and cap it lies within
    /// (what the abd CCD bound's two passes rely on), and a t_max below it gives no impact.
    #[test]
    fn capped_and_bounded_advances_give_the_same_time_of_impact() {
        let shape = PairShape { edge_edge: false, eps_x: 0.0 };
        let x = [[0.2, 0.2, 1e-3], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let dx = [[0.5, 0.0, -1.5e-3], [0.0; 3], [0.0; 3], [0.0; 3]];
        let Toi::Hit(t) = toi_advancing(shape, &x, &dx, 0.0, 1.0, MAX_ADVANCES) else { panic!("an impact") };
        assert!(t > 0.5 && t < 0.6, "{t}");
        let Toi::Unfinished(reached) = toi_advancing(shape, &x, &dx, 0.0, 1.0, 10) else { panic!("unfinished after 10") };
        assert!(reached > 0.0 && reached < t, "{reached} {t}");
        assert_eq!(toi_advancing(shape, &x, &dx, 0.0, 0.9, MAX_ADVANCES), Toi::Hit(t));
        assert_eq!(toi_advancing(shape, &x, &dx, 0.0, 0.5 * t, MAX_ADVANCES), Toi::Clear);
        assert_eq!(toi(shape, &x, &dx, 0.0, 1.0), Some(t));
    }

    #[test]
    fn separating_pair_has_no_impact() {
        let x = [[0.2, 0.2, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let dx = [[0.0, 0.0, 1.0], [0.0; 3], [0.0; 3], [0.0; 3]];
        assert!(toi(PairShape { edge_edge: false, eps_x: 0.0 }, &x, &dx, 0.0, 1.0).is_none());
    }
}
