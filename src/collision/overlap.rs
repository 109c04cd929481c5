//! Bodies that overlap while their surfaces do not cross: one body wholly inside another, or two bodies placed
//! at one place (their surfaces coincide). The triangle check (tri_tri.rs) sees neither as a crossing; a method
//! that needs every two bodies apart at the start (abd) refuses both. Found in milliseconds: a sweep over the
//! bodies' bounding boxes, then per overlapping pair a comparison of vertices and a winding number.
//! See docs/methods/abd.md, "Separating touching bodies".

use crate::geometry::surface::Surfaces;

/// How two bodies overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// Their surfaces coincide: every vertex of one lies within the tolerance of the same vertex of the other.
    Coincident,
    /// The first body lies inside the second's volume.
    Inside,
}

/// The first body pair (in order of their boxes' lower x bound) that overlaps without crossing surfaces, among
/// the pairs `keep` accepts, with how; `tol` is the distance under which two vertices count as one. Bodies'
/// surfaces must be closed and outward (dynamic bodies' are); `keep` should leave out bodies whose surfaces are
/// open.
pub fn first_overlap(s: &Surfaces, x: &[[f64; 3]], tol: f64, keep: impl Fn(usize, usize) -> bool) -> Option<([usize; 2], Overlap)> {
    let boxes: Vec<([f64; 3], [f64; 3])> = s
        .body_vertices
        .iter()
        .map(|r| {
            let mut lo = [f64::INFINITY; 3];
            let mut hi = [f64::NEG_INFINITY; 3];
            for p in &x[r.clone()] {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
            (lo, hi)
        })
        .collect();
    let mut order: Vec<usize> = (0..boxes.len()).filter(|&b| !s.body_triangles[b].is_empty()).collect();
    order.sort_by(|&a, &b| boxes[a].0[0].total_cmp(&boxes[b].0[0]).then(a.cmp(&b)));
    for (i, &a) in order.iter().enumerate() {
        for &b in &order[i + 1..] {
            if boxes[b].0[0] > boxes[a].1[0] + tol {
                break;
            }
            let (lo, hi) = (|k: usize| boxes[a].0[k].max(boxes[b].0[k]), |k: usize| boxes[a].1[k].min(boxes[b].1[k]));
            if (0..3).any(|k| lo(k) > hi(k) + tol) || !keep(a, b) || super::broad::is_excluded(&s.excluded, a as u32, b as u32) {
                continue;
            }
            let pair = [a.min(b), a.max(b)];
            if coincident(s, x, a, b, tol) {
                return Some((pair, Overlap::Coincident));
            }
            for (inner, outer) in [(a, b), (b, a)] {
                if inside(s, x, inner, outer) {
                    return Some(([inner, outer], Overlap::Inside));
                }
            }
        }
    }
    None
}

/// Whether bodies `a` and `b` have as many vertices and each lies within `tol` of its counterpart.
fn coincident(s: &Surfaces, x: &[[f64; 3]], a: usize, b: usize, tol: f64) -> bool {
    let (ra, rb) = (s.body_vertices[a].clone(), s.body_vertices[b].clone());
    ra.len() == rb.len() && ra.zip(rb).all(|(u, v)| dist2(&x[u], &x[v]) <= tol * tol)
}

/// Whether body `inner` lies inside body `outer`: its first vertex and the vertex farthest from that one both
/// have winding number about 1 in `outer`'s surface. (A body resting on another, touching it or sunk into it by
/// rounding, has at least one of the two on or outside the other's surface; a body that crosses the other's
/// surface is the triangle check's.)
fn inside(s: &Surfaces, x: &[[f64; 3]], inner: usize, outer: usize) -> bool {
    let r = s.body_vertices[inner].clone();
    let first = r.start;
    let far = r.max_by(|&u, &v| dist2(&x[u], &x[first]).total_cmp(&dist2(&x[v], &x[first]))).unwrap_or(first);
    [first, far].iter().all(|&v| winding_number(s, x, outer, &x[v]) > 0.99)
}

/// The generalized winding number of body `body`'s closed surface at `p`: 1 inside, 0 outside, between on the
/// surface (the sum of the triangles' solid angles seen from p, by Van Oosterom and Strackee's formula, over 4π).
pub fn winding_number(s: &Surfaces, x: &[[f64; 3]], body: usize, p: &[f64; 3]) -> f64 {
    let mut omega = 0.0;
    for t in &s.triangles[s.body_triangles[body].clone()] {
        let [a, b, c] = t.map(|v| sub(&x[v as usize], p));
        let (la, lb, lc) = (norm(&a), norm(&b), norm(&c));
        let num = dot(&a, &cross(&b, &c));
        let den = la * lb * lc + dot(&a, &b) * lc + dot(&a, &c) * lb + dot(&b, &c) * la;
        // a point in the triangle's plane sees it at no solid angle (on the triangle itself, ±2π by the sign of
        // a rounding error: taken as 0, so a point on the surface has winding number about ½)
        if num.abs() > 1e-12 * la * lb * lc {
            omega += 2.0 * num.atan2(den);
        }
    }
    omega / (4.0 * std::f64::consts::PI)
}

fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn norm(a: &[f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

fn dist2(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let d = sub(a, b);
    dot(&d, &d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surfaces(text: &str) -> (Surfaces, Vec<[f64; 3]>) {
        let model = crate::scene::load_str(text, "t", "t", std::path::Path::new("."), &[]).unwrap();
        let s = Surfaces::build(&model, 16);
        let state = crate::state::State::from_model(&model);
        let q: Vec<f64> = state.bodies.iter().flat_map(|b| crate::methods::abd::affine::q_from_rigid(b.x, b.q)).collect();
        let mut x = Vec::new();
        s.positions(&q, &mut x);
        (s, x)
    }

    fn body(name: &str, shape: &str, at: [f64; 3]) -> String {
        format!("[[body]]\nname = \"{name}\"\nshape = {shape}\nposition = {at:?}\n")
    }

    const BOX: &str = "{ type = \"box\", size = [1.0, 1.0, 1.0] }";
    const BALL: &str = "{ type = \"sphere\", radius = 0.1 }";

    #[test]
    fn winding_number_is_one_inside_zero_outside_half_on_a_face() {
        let (s, x) = surfaces(&format!("format = 1\n{}", body("b", BOX, [0.0; 3])));
        for (p, want) in [([0.1, -0.2, 0.3], 1.0), ([2.0, 0.0, 0.0], 0.0), ([0.5, 0.1, 0.2], 0.5), ([0.0, 0.0, -0.5], 0.5)] {
            let w = winding_number(&s, &x, 0, &p);
            assert!((w - want).abs() < 1e-9, "{p:?}: {w}");
        }
    }

    /// A ball inside a box, two boxes at one place: found, named in order; a ball resting on a box, a ball beside
    /// it, and a box sunk into another by a rounding error: not overlaps (the last is a touching contact).
    #[test]
    fn finds_inside_and_coincident_bodies_only() {
        let all = |_: usize, _: usize| true;
        let (s, x) = surfaces(&format!("format = 1\n{}{}", body("box", BOX, [0.0; 3]), body("ball", BALL, [0.2, 0.1, 0.0])));
        assert_eq!(first_overlap(&s, &x, 1e-6, all), Some(([1, 0], Overlap::Inside)));
        let (s, x) = surfaces(&format!("format = 1\n{}{}", body("a", BOX, [0.0; 3]), body("b", BOX, [0.0; 3])));
        assert_eq!(first_overlap(&s, &x, 1e-6, all), Some(([0, 1], Overlap::Coincident)));
        for other in [body("ball", BALL, [0.0, 0.0, 0.6]), body("ball", BALL, [0.7, 0.0, 0.0]), body("c", BOX, [0.0, 0.0, 1.0 - 1e-12])] {
            let (s, x) = surfaces(&format!("format = 1\n{}{other}", body("box", BOX, [0.0; 3])));
            assert_eq!(first_overlap(&s, &x, 1e-6, all), None, "{other}");
        }
        // pairs `keep` leaves out are not looked at
        let (s, x) = surfaces(&format!("format = 1\n{}{}", body("a", BOX, [0.0; 3]), body("b", BOX, [0.0; 3])));
        assert_eq!(first_overlap(&s, &x, 1e-6, |_, _| false), None);
    }
}
