//! The squared distance of each IPC distance case (`distance.rs`) in closed form, as a [`Jet`] in the case's
//! own difference vectors: point–point on one (3 variables), point–edge on two (6), point–triangle and
//! edge–edge on three (9). The difference vectors are y_k = Σ_s T[k][s] x_s for the rows T of [`rows`].
//!
//! For point–triangle [p, t0, t1, t2], r = p − t0, u = t1 − t0, v = t2 − t0; for edge–edge [a0, a1, b0, b1],
//! r = b0 − a0, u = a1 − a0, v = b1 − b0; D = (r·(u×v))²/|u×v|² in both. Point–edge (p; a, b): u = a − p,
//! v = b − p, D = |u×v|²/|v − u|². Point–point: D = |u|². The tests of `abd::local` check these against the
//! dual-number evaluation of `distance.rs`.

use super::distance::Kind;
use crate::math::jet::{add_diag, cross, dot, outer, skew, sub, Jet, V3};

/// |u|².
pub fn squared(u: &V3) -> Jet {
    let mut j = Jet::zero(1);
    j.v = dot(u, u);
    for a in 0..3 {
        j.g[a] = 2.0 * u[a];
        j.h[a][a] = 2.0;
    }
    j
}

/// x = |u×v|². The value and gradient (2 v×n, 2 n×u with n = u×v) go through n, which stays accurate for
/// nearly parallel u and v, where |u|²|v|² − (u·v)² cancels.
pub fn cross2(u: &V3, v: &V3) -> Jet {
    let (uu, vv, uv) = (dot(u, u), dot(v, v), dot(u, v));
    let n = cross(u, v);
    let (gu, gv) = (cross(v, &n), cross(&n, u));
    let mut j = Jet::zero(2);
    j.v = dot(&n, &n);
    for a in 0..3 {
        j.g[a] = 2.0 * gu[a];
        j.g[3 + a] = 2.0 * gv[a];
    }
    j.set_block(0, 0, add_diag(outer(v, v, -2.0), 2.0 * vv));
    j.set_block(1, 1, add_diag(outer(u, u, -2.0), 2.0 * uu));
    let mut uvb = outer(u, v, 4.0);
    let vu = outer(v, u, -2.0);
    for a in 0..3 {
        for e in 0..3 {
            uvb[a][e] += vu[a][e];
        }
    }
    j.set_block(0, 1, add_diag(uvb, -2.0 * uv));
    j
}

/// Point–edge: |u×v|²/|v − u|² with u = a − p, v = b − p.
pub fn point_line(u: &V3, v: &V3) -> Jet {
    let w = sub(v, u);
    let mut e = Jet::zero(2);
    e.v = dot(&w, &w);
    for a in 0..3 {
        e.g[a] = -2.0 * w[a];
        e.g[3 + a] = 2.0 * w[a];
    }
    e.set_block(0, 0, add_diag([[0.0; 3]; 3], 2.0));
    e.set_block(1, 1, add_diag([[0.0; 3]; 3], 2.0));
    e.set_block(0, 1, add_diag([[0.0; 3]; 3], -2.0));
    cross2(u, v).quot(&e)
}

/// Point–plane and line–line: (r·(u×v))²/|u×v|².
pub fn plane(r: &V3, u: &V3, v: &V3) -> Jet {
    let mut s = Jet::zero(3);
    let n = cross(u, v);
    s.v = dot(r, &n);
    let (gu, gv) = (cross(v, r), cross(r, u));
    for a in 0..3 {
        s.g[a] = n[a];
        s.g[3 + a] = gu[a];
        s.g[6 + a] = gv[a];
    }
    // ∂²s/∂r∂u = −[v]×, ∂²s/∂r∂v = [u]×, ∂²s/∂u∂v = −[r]×
    s.set_block(0, 1, skew(v, -1.0));
    s.set_block(0, 2, skew(u, 1.0));
    s.set_block(1, 2, skew(r, -1.0));
    let x = cross2(u, v).lift(&[[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0; 3]], 3);
    s.mul(&s).quot(&x)
}

/// The difference-vector rows of a distance case (slot coefficients) and their number.
pub fn rows(kind: Kind) -> ([[f64; 4]; 3], usize) {
    let unit = |i: u8, j: u8| {
        let mut r = [0.0; 4];
        r[j as usize] += 1.0;
        r[i as usize] -= 1.0;
        r
    };
    match kind {
        Kind::PointPoint(i, j) => ([unit(i, j), [0.0; 4], [0.0; 4]], 1),
        Kind::PointLine(i, j, k) => ([unit(i, j), unit(i, k), [0.0; 4]], 2),
        Kind::PointPlane => ([unit(1, 0), unit(1, 2), unit(1, 3)], 3),
        Kind::LineLine => ([unit(0, 2), unit(0, 1), unit(2, 3)], 3),
    }
}

/// Σ_s row[s] x_s: one difference vector of a stencil.
pub fn apply(row: &[f64; 4], x: &[[f64; 3]; 4]) -> V3 {
    std::array::from_fn(|a| (0..4).map(|s| row[s] * x[s][a]).sum())
}

/// The squared distance of case `kind` as a jet in the case's own vectors, with their rows.
pub fn distance(kind: Kind, x: &[[f64; 3]; 4]) -> (Jet, [[f64; 4]; 3]) {
    let (t, n) = rows(kind);
    let y: [V3; 3] = std::array::from_fn(|k| if k < n { apply(&t[k], x) } else { [0.0; 3] });
    let j = match kind {
        Kind::PointPoint(..) => squared(&y[0]),
        Kind::PointLine(..) => point_line(&y[0], &y[1]),
        Kind::PointPlane | Kind::LineLine => plane(&y[0], &y[1], &y[2]),
    };
    (j, t)
}
