//! Squared distances between the primitives of IPC (Li et al. 2020; the source builds on them, §4): point–
//! triangle and edge–edge, each split into the cases of which features are closest. The case is chosen on f64
//! positions and is piecewise constant; the squared distance of the chosen case is a smooth function whose
//! exact gradient and Hessian come from evaluating it on [`Dual`] numbers.
//!
//! A stencil is four points: for point–triangle `[p, t0, t1, t2]`, for edge–edge `[a0, a1, b0, b1]`.
//! Point–triangle has 7 cases (3 point–point, 3 point–edge, point–plane); edge–edge has 9 (4 point–point,
//! 4 point–edge, line–line). Nearly parallel edges (|u×v|² < 2.5e-16 |u|²|v|²) never use line–line; zero-length
//! edges fall back to point cases.

use crate::math::dual::{cross, dot, sub, vars12, Dual, Real, V};

/// Which features are closest; the indices are slots of the four-point stencil.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// |x_i − x_j|²
    PointPoint(u8, u8),
    /// Point i to the line through j and k.
    PointLine(u8, u8, u8),
    /// Point 0 to the plane of 1, 2, 3.
    PointPlane,
    /// The line through 0, 1 to the line through 2, 3.
    LineLine,
}

/// Squared distance of case `kind` on generic numbers.
pub fn eval<T: Real>(kind: Kind, x: &[V<T>; 4]) -> T {
    match kind {
        Kind::PointPoint(i, j) => {
            let d = sub(&x[i as usize], &x[j as usize]);
            dot(&d, &d)
        }
        Kind::PointLine(i, j, k) => {
            let (p, a, b) = (&x[i as usize], &x[j as usize], &x[k as usize]);
            let c = cross(&sub(a, p), &sub(b, p));
            let e = sub(b, a);
            dot(&c, &c) / dot(&e, &e)
        }
        Kind::PointPlane => {
            let n = cross(&sub(&x[2], &x[1]), &sub(&x[3], &x[1]));
            let s = dot(&sub(&x[0], &x[1]), &n);
            s * s / dot(&n, &n)
        }
        Kind::LineLine => {
            let n = cross(&sub(&x[1], &x[0]), &sub(&x[3], &x[2]));
            let s = dot(&sub(&x[2], &x[0]), &n);
            s * s / dot(&n, &n)
        }
    }
}

/// Squared distance with its gradient and Hessian with respect to the 12 stencil coordinates (3k + axis).
pub fn eval_dual(kind: Kind, x: &[[f64; 3]; 4]) -> Dual<12> {
    eval(kind, &vars12(x))
}

fn d3(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let d = sub(a, b);
    dot(&d, &d)
}

/// Point slot i against segment (j, k): the case and its squared distance.
fn point_segment(x: &[[f64; 3]; 4], i: u8, j: u8, k: u8) -> (Kind, f64) {
    let (p, a, b) = (&x[i as usize], &x[j as usize], &x[k as usize]);
    let e = sub(b, a);
    let ee = dot(&e, &e);
    if ee <= 0.0 {
        return (Kind::PointPoint(i, j), d3(p, a));
    }
    let t = dot(&sub(p, a), &e) / ee;
    if t <= 0.0 {
        (Kind::PointPoint(i, j), d3(p, a))
    } else if t >= 1.0 {
        (Kind::PointPoint(i, k), d3(p, b))
    } else {
        let kind = Kind::PointLine(i, j, k);
        (kind, eval::<f64>(kind, x).max(0.0))
    }
}

fn closest(cands: impl IntoIterator<Item = (Kind, f64)>) -> (Kind, f64) {
    cands.into_iter().fold((Kind::PointPoint(0, 1), f64::INFINITY), |best, c| if c.1 < best.1 { c } else { best })
}

/// The case of a point–triangle stencil `[p, t0, t1, t2]` and its squared distance.
pub fn point_triangle(x: &[[f64; 3]; 4]) -> (Kind, f64) {
    let e0 = sub(&x[2], &x[1]);
    let e1 = sub(&x[3], &x[1]);
    let r = sub(&x[0], &x[1]);
    let (a, b, c) = (dot(&e0, &e0), dot(&e0, &e1), dot(&e1, &e1));
    let det = a * c - b * b;
    if det > 1e-14 * a * c {
        let (r0, r1) = (dot(&e0, &r), dot(&e1, &r));
        let u = (c * r0 - b * r1) / det;
        let v = (a * r1 - b * r0) / det;
        if u >= 0.0 && v >= 0.0 && u + v <= 1.0 {
            return (Kind::PointPlane, eval::<f64>(Kind::PointPlane, x).max(0.0));
        }
    }
    closest([point_segment(x, 0, 1, 2), point_segment(x, 0, 2, 3), point_segment(x, 0, 3, 1)])
}

/// Whether two edges count as parallel (IPC's threshold on |u×v|²).
pub fn parallel(x: &[[f64; 3]; 4]) -> bool {
    let u = sub(&x[1], &x[0]);
    let v = sub(&x[3], &x[2]);
    let c = cross(&u, &v);
    dot(&c, &c) < 2.5e-16 * dot(&u, &u) * dot(&v, &v)
}

/// Parameters (s, t) of the closest points a0 + s(a1 − a0) and b0 + t(b1 − b0) of the two lines (not parallel).
fn line_params(x: &[[f64; 3]; 4]) -> (f64, f64) {
    let u = sub(&x[1], &x[0]);
    let v = sub(&x[3], &x[2]);
    let w = sub(&x[0], &x[2]);
    let (uu, uv, vv, uw, vw) = (dot(&u, &u), dot(&u, &v), dot(&v, &v), dot(&u, &w), dot(&v, &w));
    let den = uu * vv - uv * uv;
    ((uv * vw - vv * uw) / den, (uu * vw - uv * uw) / den)
}

/// The case of an edge–edge stencil `[a0, a1, b0, b1]` and its squared distance.
pub fn edge_edge(x: &[[f64; 3]; 4]) -> (Kind, f64) {
    let ends = || [point_segment(x, 0, 2, 3), point_segment(x, 1, 2, 3), point_segment(x, 2, 0, 1), point_segment(x, 3, 0, 1)];
    if parallel(x) {
        return closest(ends());
    }
    let (s, t) = line_params(x);
    if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
        (Kind::LineLine, eval::<f64>(Kind::LineLine, x).max(0.0))
    } else {
        // the unconstrained minimum is outside the parameter square: the constrained one is on its boundary
        closest(ends())
    }
}

/// Closest-point weights c with Σ c_k x_k = (closest point on the first primitive) − (closest point on the
/// second), for the chosen case. Used for friction's relative tangential displacement.
pub fn closest_weights(kind: Kind, x: &[[f64; 3]; 4], edge_edge: bool) -> [f64; 4] {
    let mut c = [0.0; 4];
    // first primitive: slot 0 for point–triangle, slots 0–1 for edge–edge
    let first = |k: usize| if edge_edge { k < 2 } else { k == 0 };
    let sign = |k: usize| if first(k) { 1.0 } else { -1.0 };
    match kind {
        Kind::PointPoint(i, j) => {
            c[i as usize] += sign(i as usize);
            c[j as usize] += sign(j as usize);
        }
        Kind::PointLine(i, j, k) => {
            let (p, a, b) = (&x[i as usize], &x[j as usize], &x[k as usize]);
            let e = sub(b, a);
            let t = (dot(&sub(p, a), &e) / dot(&e, &e)).clamp(0.0, 1.0);
            c[i as usize] += sign(i as usize);
            c[j as usize] += sign(j as usize) * (1.0 - t);
            c[k as usize] += sign(k as usize) * t;
        }
        Kind::PointPlane => {
            let e0 = sub(&x[2], &x[1]);
            let e1 = sub(&x[3], &x[1]);
            let r = sub(&x[0], &x[1]);
            let (a, b, cc) = (dot(&e0, &e0), dot(&e0, &e1), dot(&e1, &e1));
            let det = a * cc - b * b;
            let (r0, r1) = (dot(&e0, &r), dot(&e1, &r));
            let u = (cc * r0 - b * r1) / det;
            let v = (a * r1 - b * r0) / det;
            c = [1.0, -(1.0 - u - v), -u, -v];
        }
        Kind::LineLine => {
            let (s, t) = line_params(x);
            c = [1.0 - s, s, -(1.0 - t), -t];
        }
    }
    c
}

/// The edge–edge mollifier's argument x = |e_a × e_b|² on generic numbers.
pub fn cross_norm2<T: Real>(x: &[V<T>; 4]) -> T {
    let c = cross(&sub(&x[1], &x[0]), &sub(&x[3], &x[2]));
    dot(&c, &c)
}

/// The mollifier m(x) = (2 − x/ε)·x/ε below ε, 1 above (C¹ at ε), on generic numbers.
pub fn mollifier<T: Real>(x: T, eps: f64) -> T {
    if x.val() >= eps {
        T::cst(1.0)
    } else {
        let r = x / T::cst(eps);
        (T::cst(2.0) - r) * r
    }
}

/// One primitive pair: its stencil kind and, for edge–edge pairs, the mollifier threshold ε_x
/// (1e-3 |e_a^rest|² |e_b^rest|²).
#[derive(Debug, Clone, Copy)]
pub struct PairShape {
    pub edge_edge: bool,
    pub eps_x: f64,
}

/// Squared distance between the bounding boxes of a pair's two primitives: a lower bound on the pair's squared
/// distance, for cheap rejections.
pub fn box_gap2(shape: PairShape, x: &[[f64; 3]; 4]) -> f64 {
    let split = if shape.edge_edge { 2 } else { 1 };
    let mut gap2 = 0.0;
    for r in 0..3 {
        let span = |ps: &[[f64; 3]]| ps.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p[r]), h.max(p[r])));
        let ((alo, ahi), (blo, bhi)) = (span(&x[..split]), span(&x[split..]));
        let g = (blo - ahi).max(alo - bhi).max(0.0);
        gap2 += g * g;
    }
    gap2
}

/// False when the pair's squared distance is certainly ≥ `dh` (its primitives' boxes are that far apart): a
/// cheap rejection before [`classify`].
pub fn may_be_within(shape: PairShape, x: &[[f64; 3]; 4], dh: f64) -> bool {
    box_gap2(shape, x) < dh
}

/// The case and squared distance of a pair.
pub fn classify(shape: PairShape, x: &[[f64; 3]; 4]) -> (Kind, f64) {
    if shape.edge_edge {
        edge_edge(x)
    } else {
        point_triangle(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_pt(x: &[[f64; 3]; 4]) -> f64 {
        // dense sampling of the triangle
        let n = 400;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            for j in 0..=(n - i) {
                let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                let q: [f64; 3] = std::array::from_fn(|r| x[1][r] + u * (x[2][r] - x[1][r]) + v * (x[3][r] - x[1][r]));
                best = best.min(d3(&x[0], &q));
            }
        }
        best
    }

    fn brute_ee(x: &[[f64; 3]; 4]) -> f64 {
        let n = 600;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            let s = i as f64 / n as f64;
            let a: [f64; 3] = std::array::from_fn(|r| x[0][r] + s * (x[1][r] - x[0][r]));
            // exact point–segment for the second edge
            let e = sub(&x[3], &x[2]);
            let t = (dot(&sub(&a, &x[2]), &e) / dot(&e, &e)).clamp(0.0, 1.0);
            let b: [f64; 3] = std::array::from_fn(|r| x[2][r] + t * e[r]);
            best = best.min(d3(&a, &b));
        }
        best
    }

    #[test]
    fn cases_give_the_true_distance() {
        let mut rng = crate::math::rng::Rng::new(7);
        for _ in 0..200 {
            let x: [[f64; 3]; 4] = rng.stencil();
            let (_, d) = point_triangle(&x);
            let b = brute_pt(&x);
            assert!(d <= b + 1e-12 && b - d < 2e-4 * (1.0 + b), "pt {d} vs {b}");
            let (_, d) = edge_edge(&x);
            let b = brute_ee(&x);
            assert!(d <= b + 1e-12 && b - d < 1e-4 * (1.0 + b), "ee {d} vs {b}");
        }
    }

    #[test]
    fn parallel_edges_use_endpoint_cases() {
        let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [1.5, 1.0, 1e-12]];
        let (k, d) = edge_edge(&x);
        assert!(!matches!(k, Kind::LineLine));
        assert!((d - 1.0).abs() < 1e-9);
    }
}
