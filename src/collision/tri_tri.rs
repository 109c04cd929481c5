//! The guarantee, checked: no triangle of one body intersects a triangle of another.
//!
//! Two triangles intersect iff an edge of one crosses the other. An edge pq crosses triangle abc iff p and q are
//! not strictly on the same side of abc's plane and the line pq passes through abc (the three orientations
//! orient(p, q, ·, ·) around abc's edges share a sign). Each orientation is a 3×3 determinant in f64 with a
//! forward error bound; a result within the bound counts as zero, and a zero counts as touching — an
//! intersection. So the test can report a false intersection for touching or nearly touching triangles, never
//! miss a real one.
//!
//! The strict test ([`triangles_cross`]) tells the pairs that properly cross from those that only touch: two
//! triangles cross iff an edge of one passes strictly through the interior of the other (its endpoints strictly
//! on opposite sides of the plane, all three orientations around the other's edges nonzero and of one sign).
//! Every proper intersection of two triangles in general position has such an edge; a pair the conservative
//! test accepts and the strict one rejects touches (or crosses degenerately: within rounding, or with coplanar
//! overlapping faces, as equal boxes stacked exactly in line that sink into each other).

use crate::geometry::surface::Surfaces;

fn orient(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], d: &[f64; 3]) -> i8 {
    let u: [f64; 3] = std::array::from_fn(|r| a[r] - d[r]);
    let v: [f64; 3] = std::array::from_fn(|r| b[r] - d[r]);
    let w: [f64; 3] = std::array::from_fn(|r| c[r] - d[r]);
    let t1 = u[0] * (v[1] * w[2] - v[2] * w[1]);
    let t2 = u[1] * (v[2] * w[0] - v[0] * w[2]);
    let t3 = u[2] * (v[0] * w[1] - v[1] * w[0]);
    let det = t1 + t2 + t3;
    let perm = u[0].abs() * (v[1] * w[2]).abs().max((v[2] * w[1]).abs()) * 2.0
        + u[1].abs() * (v[2] * w[0]).abs().max((v[0] * w[2]).abs()) * 2.0
        + u[2].abs() * (v[0] * w[1]).abs().max((v[1] * w[0]).abs()) * 2.0;
    // subtraction and reordering of exact products: a generous bound on the rounding of the whole expression
    let bound = 1e-14 * perm;
    if det > bound {
        1
    } else if det < -bound {
        -1
    } else {
        0
    }
}

fn orient2(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> i8 {
    let (l, r) = ((b[0] - a[0]) * (c[1] - a[1]), (b[1] - a[1]) * (c[0] - a[0]));
    let det = l - r;
    let bound = 1e-14 * (l.abs() + r.abs());
    if det > bound {
        1
    } else if det < -bound {
        -1
    } else {
        0
    }
}

/// Coplanar segment and triangle: the 2-D test in the plane most aligned with the triangle (conservative).
fn coplanar(p: &[f64; 3], q: &[f64; 3], a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> bool {
    let e1: [f64; 3] = std::array::from_fn(|r| b[r] - a[r]);
    let e2: [f64; 3] = std::array::from_fn(|r| c[r] - a[r]);
    let n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    let drop = (0..3).max_by(|&i, &j| n[i].abs().total_cmp(&n[j].abs())).unwrap_or(2);
    let (i, j) = ((drop + 1) % 3, (drop + 2) % 3);
    let f = |v: &[f64; 3]| [v[i], v[j]];
    let (p, q, a, b, c) = (f(p), f(q), f(a), f(b), f(c));
    let tri = [a, b, c];
    let inside = |x: [f64; 2]| {
        let s = [orient2(a, b, x), orient2(b, c, x), orient2(c, a, x)];
        !(s.iter().any(|&v| v > 0) && s.iter().any(|&v| v < 0))
    };
    if inside(p) || inside(q) {
        return true;
    }
    (0..3).any(|k| {
        let (u, v) = (tri[k], tri[(k + 1) % 3]);
        let (s1, s2) = (orient2(p, q, u), orient2(p, q, v));
        let (s3, s4) = (orient2(u, v, p), orient2(u, v, q));
        if s1 == 0 && s2 == 0 {
            // collinear: the segments meet iff their intervals overlap along the longer axis
            let ax = if (q[0] - p[0]).abs() + (v[0] - u[0]).abs() >= (q[1] - p[1]).abs() + (v[1] - u[1]).abs() { 0 } else { 1 };
            let (a0, a1) = (p[ax].min(q[ax]), p[ax].max(q[ax]));
            let (b0, b1) = (u[ax].min(v[ax]), u[ax].max(v[ax]));
            return a0 <= b1 && b0 <= a1;
        }
        (s1 == 0 || s2 == 0 || s1 != s2) && (s3 == 0 || s4 == 0 || s3 != s4)
    })
}

/// Whether segment pq meets triangle abc (conservatively: touching counts).
pub fn segment_triangle(p: &[f64; 3], q: &[f64; 3], a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> bool {
    let sp = orient(a, b, c, p);
    let sq = orient(a, b, c, q);
    if sp != 0 && sp == sq {
        return false;
    }
    if sp == 0 && sq == 0 {
        return coplanar(p, q, a, b, c);
    }
    let s1 = orient(p, q, a, b);
    let s2 = orient(p, q, b, c);
    let s3 = orient(p, q, c, a);
    let has_pos = s1 > 0 || s2 > 0 || s3 > 0;
    let has_neg = s1 < 0 || s2 < 0 || s3 < 0;
    !(has_pos && has_neg)
}

/// Whether segment pq passes strictly through the interior of triangle abc (touching within rounding does not
/// count).
pub fn segment_crosses_triangle(p: &[f64; 3], q: &[f64; 3], a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> bool {
    let sp = orient(a, b, c, p);
    let sq = orient(a, b, c, q);
    if sp == 0 || sq == 0 || sp == sq {
        return false;
    }
    let s1 = orient(p, q, a, b);
    s1 != 0 && s1 == orient(p, q, b, c) && s1 == orient(p, q, c, a)
}

/// Whether two triangles properly cross: an edge of one passes strictly through the interior of the other.
pub fn triangles_cross(t: [&[f64; 3]; 3], u: [&[f64; 3]; 3]) -> bool {
    (0..3).any(|k| segment_crosses_triangle(t[k], t[(k + 1) % 3], u[0], u[1], u[2]))
        || (0..3).any(|k| segment_crosses_triangle(u[k], u[(k + 1) % 3], t[0], t[1], t[2]))
}

/// Whether two triangles intersect (conservatively: touching counts).
pub fn triangles_intersect(t: [&[f64; 3]; 3], u: [&[f64; 3]; 3]) -> bool {
    (0..3).any(|k| segment_triangle(t[k], t[(k + 1) % 3], u[0], u[1], u[2]))
        || (0..3).any(|k| segment_triangle(u[k], u[(k + 1) % 3], t[0], t[1], t[2]))
}

/// Number of intersecting triangle pairs of different bodies at positions `x`.
pub fn intersections(s: &Surfaces, x: &[[f64; 3]]) -> usize {
    intersections_among(s, x, |_, _| true)
}

/// [`intersections`] over the body pairs (a, b), a < b, for which `keep(a, b)` holds.
pub fn intersections_among(s: &Surfaces, x: &[[f64; 3]], keep: impl Fn(usize, usize) -> bool) -> usize {
    super::culling::triangle_pairs_among(s, x, keep)
        .iter()
        .filter(|&&(a, b)| {
            let (ta, tb) = (s.triangles[a as usize], s.triangles[b as usize]);
            let p = |t: [u32; 3]| [&x[t[0] as usize], &x[t[1] as usize], &x[t[2] as usize]];
            triangles_intersect(p(ta), p(tb))
        })
        .count()
}

/// How deep two crossing triangles reach through each other: for each, the smaller of its vertices' largest
/// distances on either side of the other's plane (the tip that pokes through); the smaller of the two. A cube's
/// corner 75 nm into a floor: 75 nm, however large the faces.
pub fn crossing_depth(t: [&[f64; 3]; 3], u: [&[f64; 3]; 3]) -> f64 {
    fn tip(t: [&[f64; 3]; 3], u: [&[f64; 3]; 3]) -> f64 {
        let e1: [f64; 3] = std::array::from_fn(|r| u[1][r] - u[0][r]);
        let e2: [f64; 3] = std::array::from_fn(|r| u[2][r] - u[0][r]);
        let n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if len == 0.0 {
            return 0.0;
        }
        let (mut above, mut below) = (0.0f64, 0.0f64);
        for v in t {
            let d = (0..3).map(|r| (v[r] - u[0][r]) * n[r]).sum::<f64>() / len;
            above = above.max(d);
            below = below.max(-d);
        }
        above.min(below)
    }
    tip(t, u).min(tip(u, t))
}

/// Triangle pairs of different bodies at positions `x`, over the body pairs (a, b), a < b, for which
/// `keep(a, b)` holds: (touching or crossing, as [`intersections_among`] counts them; crossing, by
/// [`triangles_cross`] and deeper than `depth` by [`crossing_depth`], tested only on the pairs of the first
/// count). The difference touches.
pub fn contacts_among(s: &Surfaces, x: &[[f64; 3]], keep: impl Fn(usize, usize) -> bool, depth: f64) -> (usize, usize) {
    let p = |t: [u32; 3]| [&x[t[0] as usize], &x[t[1] as usize], &x[t[2] as usize]];
    let (mut meeting, mut crossing) = (0, 0);
    for (a, b) in super::culling::triangle_pairs_among(s, x, keep) {
        let (ta, tb) = (p(s.triangles[a as usize]), p(s.triangles[b as usize]));
        if triangles_intersect(ta, tb) {
            meeting += 1;
            crossing += usize::from(triangles_cross(ta, tb) && crossing_depth(ta, tb) > depth);
        }
    }
    (meeting, crossing)
}

/// [`contacts_among`] over all body pairs, every proper crossing counted (depth 0).
pub fn contacts(s: &Surfaces, x: &[[f64; 3]]) -> (usize, usize) {
    contacts_among(s, x, |_, _| true, 0.0)
}

/// The first pair of bodies (in the culling's order) with two triangles that intersect, among the body pairs
/// `keep` accepts; `None` when no two such surfaces meet.
pub fn first_crossing(s: &Surfaces, x: &[[f64; 3]], keep: impl Fn(usize, usize) -> bool) -> Option<[usize; 2]> {
    let p = |t: [u32; 3]| [&x[t[0] as usize], &x[t[1] as usize], &x[t[2] as usize]];
    super::culling::triangle_pairs_among(s, x, keep)
        .into_iter()
        .find(|&(a, b)| triangles_intersect(p(s.triangles[a as usize]), p(s.triangles[b as usize])))
        .map(|(a, b)| [s.triangle_body[a as usize] as usize, s.triangle_body[b as usize] as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_and_separated_triangles() {
        let t = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let crossing = [[0.2, 0.2, -1.0], [0.2, 0.2, 1.0], [0.3, 0.5, 1.0]];
        let above = [[0.2, 0.2, 1e-9], [0.2, 0.2, 1.0], [0.3, 0.5, 1.0]];
        assert!(triangles_intersect(r(&t), r(&crossing)));
        assert!(!triangles_intersect(r(&t), r(&above)));
        // coplanar triangles: apart, and overlapping
        let beside = [[1.001, 0.0, 0.0], [2.0, 0.0, 0.0], [1.001, 1.0, 0.0]];
        assert!(!triangles_intersect(r(&t), r(&beside)));
        let overlapping = [[0.2, 0.2, 0.0], [2.0, 0.0, 0.0], [1.0, 1.0, 0.0]];
        assert!(triangles_intersect(r(&t), r(&overlapping)));
        // an edge through a vertex counts (touching)
        let through_vertex = [[0.0, 0.0, -1.0], [0.0, 0.0, 1.0], [-1.0, -1.0, 0.0]];
        assert!(triangles_intersect(r(&t), r(&through_vertex)));
    }

    fn r(a: &[[f64; 3]; 3]) -> [&[f64; 3]; 3] {
        [&a[0], &a[1], &a[2]]
    }

    /// Counted by the conservative test, not as crossing.
    fn touches(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) {
        assert!(triangles_intersect(r(a), r(b)), "{a:?} {b:?} meet");
        assert!(triangles_intersect(r(b), r(a)), "{b:?} {a:?} meet");
        assert!(!triangles_cross(r(a), r(b)), "{a:?} {b:?} do not cross");
        assert!(!triangles_cross(r(b), r(a)), "{b:?} {a:?} do not cross");
    }

    const T: [[f64; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

    #[test]
    fn crossing_triangles_cross() {
        // an edge of the second through the first's interior
        let crossing = [[0.2, 0.2, -1.0], [0.2, 0.2, 1.0], [0.3, 0.5, 1.0]];
        assert!(triangles_cross(r(&T), r(&crossing)) && triangles_cross(r(&crossing), r(&T)));
        // interlocked like two chain links: each has an edge through the other
        let link = [[0.3, 0.3, -0.5], [0.3, 0.3, 0.5], [0.3, -1.0, 0.0]];
        assert!(triangles_intersect(r(&T), r(&link)) && triangles_cross(r(&T), r(&link)));
        // a tilted triangle through the middle, slightly off anything exact
        let tilted = [[-0.5, 0.31, -0.2], [1.5, 0.27, 0.3], [0.4, 0.33, 1.0]];
        assert!(triangles_intersect(r(&T), r(&tilted)) && triangles_cross(r(&T), r(&tilted)));
    }

    #[test]
    fn crossing_depth_is_the_tip_that_pokes_through() {
        // a long triangle whose tip reaches 1e-7 below the first's plane: that tip, not its metre above
        let tip = [[0.2, 0.2, -1e-7], [0.25, 0.2, 1.0], [0.2, 0.25, 1.0]];
        assert!(triangles_cross(r(&T), r(&tip)));
        assert!((crossing_depth(r(&T), r(&tip)) - 1e-7).abs() < 1e-12, "{}", crossing_depth(r(&T), r(&tip)));
        assert!((crossing_depth(r(&tip), r(&T)) - 1e-7).abs() < 1e-12);
        let deep = [[0.2, 0.2, -0.3], [0.25, 0.2, 1.0], [0.2, 0.25, 1.0]];
        assert!(crossing_depth(r(&T), r(&deep)) > 0.1, "{}", crossing_depth(r(&T), r(&deep)));
    }

    #[test]
    fn touching_triangles_do_not_cross() {
        // a vertex exactly on the other's face
        touches(&T, &[[0.2, 0.2, 0.0], [0.2, 0.2, 1.0], [0.3, 0.5, 1.0]]);
        // a vertex on a vertex
        touches(&T, &[[0.0, 0.0, 0.0], [-1.0, 0.0, 1.0], [0.0, -1.0, 1.0]]);
        // a vertex on an edge
        touches(&T, &[[0.5, 0.0, 0.0], [0.5, -1.0, 1.0], [0.7, -1.0, -1.0]]);
        // a shared edge, folded
        touches(&T, &[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.7]]);
        // an edge lying on the other's face
        touches(&T, &[[0.1, 0.1, 0.0], [0.4, 0.2, 0.0], [0.3, 0.3, 0.8]]);
        // coplanar and overlapping (faces resting on each other)
        touches(&T, &[[0.2, 0.2, 0.0], [2.0, 0.0, 0.0], [1.0, 1.0, 0.0]]);
        // coplanar and identical
        touches(&T, &T);
        // coplanar at a large offset from the origin, as a box's top face resting under another's bottom
        let far = |t: &[[f64; 3]; 3]| t.map(|v| [v[0] + 3.7, v[1] - 1.3, v[2] + 0.5]);
        touches(&far(&T), &far(&[[0.3, -0.2, 0.0], [0.9, 0.6, 0.0], [-0.1, 0.4, 0.0]]));
    }

    #[test]
    fn separated_triangles_neither_meet_nor_cross() {
        for u in [
            [[0.2, 0.2, 1e-9], [0.2, 0.2, 1.0], [0.3, 0.5, 1.0]],
            [[1.001, 0.0, 0.0], [2.0, 0.0, 0.0], [1.001, 1.0, 0.0]],
            [[0.6, 0.6, -1.0], [0.6, 0.6, 1.0], [2.0, 2.0, 0.0]],
        ] {
            assert!(!triangles_intersect(r(&T), r(&u)) && !triangles_cross(r(&T), r(&u)), "{u:?}");
        }
    }
}
