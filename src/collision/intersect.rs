//! The intersection of two convex polytopes by duality (Muller and Preparata, as Hasegawa et al. §4.2 use it).
//!
//! Each face plane n·x = d about a common interior point becomes the dual point n/d; the dual of their convex
//! hull is the intersection, each face tagged with its polytope. Coordinates are whitened so that thin contacts
//! stay well conditioned; degenerate cases give `false`, never NaN.
//! See docs/methods/volumetric-penalty.md, "Intersection by duality".

use crate::geometry::polytope::Plane;
use crate::math::Vec3;

/// Which polytope a face of the intersection comes from. `Both` is a face where the two polytopes share a
/// plane (flush sides of stacked boxes); it carries no weight in the contact normal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    A,
    B,
    Both,
}

/// One face of the intersection: a convex polygon, counter-clockwise about its outward normal.
#[derive(Debug, Clone, Copy)]
pub struct Face {
    pub side: Side,
    /// Unit outward normal (of the polytope the face comes from).
    pub normal: Vec3,
    /// Index of the face's plane: A's planes first, then B's.
    pub plane: u32,
    /// Range in [`Intersection::polygon`].
    pub start: u32,
    pub len: u32,
}

/// The intersection polyhedron, world frame.
#[derive(Debug, Clone, Default)]
pub struct Intersection {
    pub faces: Vec<Face>,
    /// The faces' polygon vertices, face after face.
    pub polygon: Vec<Vec3>,
    /// The interior point used.
    pub center: Vec3,
}

impl Intersection {
    /// Vertices of face `f`.
    pub fn face_vertices(&self, f: &Face) -> &[Vec3] {
        &self.polygon[f.start as usize..(f.start + f.len) as usize]
    }

    /// Volume, by the divergence theorem over the faces (fans from each face's first vertex).
    pub fn volume(&self) -> f64 {
        let mut v = 0.0;
        for f in &self.faces {
            let p = self.face_vertices(f);
            for k in 1..p.len().saturating_sub(1) {
                v += (p[0] - self.center).dot((p[k] - self.center).cross(p[k + 1] - self.center));
            }
        }
        v / 6.0
    }

    /// Distinct vertices (merged within `tol`).
    pub fn distinct_vertices(&self, tol: f64) -> Vec<Vec3> {
        let mut out: Vec<Vec3> = Vec::new();
        for p in &self.polygon {
            if !out.iter().any(|q| (*q - *p).length() <= tol) {
                out.push(*p);
            }
        }
        out
    }
}

/// A polytope placed in the world: planes, vertices and edges (as in [`crate::geometry::polytope::Polytope`]).
#[derive(Debug, Clone, Copy)]
pub struct PolyView<'a> {
    pub planes: &'a [Plane],
    pub vertices: &'a [Vec3],
    pub edges: &'a [[u32; 2]],
}

/// Buffers reused from pair to pair.
#[derive(Debug, Default)]
pub struct Workspace {
    planes: Vec<(Plane, Side)>,
    plane_index: Vec<u32>,
    rel_a: Vec<u32>,
    rel_b: Vec<u32>,
    dist: Vec<f64>,
    candidates: Vec<Vec3>,
    dual: Vec<Vec3>,
    dual_side: Vec<Side>,
    hull_plane: Vec<usize>,
    facet_vertex: Vec<Vec3>,
    incident_start: Vec<u32>,
    incident: Vec<u32>,
    fill: Vec<u32>,
    ring: Vec<(f64, Vec3)>,
}

/// The planes of `planes` that can bound the intersection: those with some vertex of the other polytope on or
/// beyond them (a plane with the whole other polytope strictly inside is redundant).
fn relevant(out: &mut Vec<u32>, planes: &[Plane], other: &[Vec3], tol: f64) {
    out.clear();
    for (i, pl) in planes.iter().enumerate() {
        if other.iter().any(|v| pl.n.dot(*v) >= pl.d - tol) {
            out.push(i as u32);
        }
    }
}

/// Points of the intersection: vertices of `p` inside `q` and crossings of `p`'s edges with `q`'s planes
/// that lie inside `q` (only `q`'s relevant planes `rel_q` matter). Every vertex of the intersection is among
/// the points of (p, q) and (q, p). `dist` is scratch space for the vertex–plane distances.
fn candidates(out: &mut Vec<Vec3>, dist: &mut Vec<f64>, p: PolyView, q: PolyView, rel_q: &[u32], tol: f64) {
    let r = rel_q.len();
    dist.clear();
    for v in p.vertices {
        let start = dist.len();
        dist.extend(rel_q.iter().map(|&j| q.planes[j as usize].n.dot(*v) - q.planes[j as usize].d));
        if dist[start..].iter().all(|&s| s <= tol) {
            out.push(*v);
        }
    }
    let inside = |x: Vec3| rel_q.iter().all(|&j| q.planes[j as usize].n.dot(x) <= q.planes[j as usize].d + tol);
    for e in p.edges {
        let (ia, ib) = (e[0] as usize, e[1] as usize);
        let (da, db) = (&dist[ia * r..ia * r + r], &dist[ib * r..ib * r + r]);
        if da.iter().zip(db).all(|(x, y)| *x > tol && *y > tol) {
            continue; // both ends beyond one plane: the edge misses q
        }
        let (a, b) = (p.vertices[ia], p.vertices[ib]);
        for k in 0..r {
            let (sa, sb) = (da[k], db[k]);
            if (sa < 0.0) != (sb < 0.0) {
                let x = a + (b - a) * (sa / (sa - sb));
                if inside(x) {
                    out.push(x);
                }
            }
        }
    }
}

/// Intersects polytope A with B (both in the world frame). Returns false when the intersection has no volume
/// to speak of (touching, a sliver, apart) or cannot be built.
///
/// Conditioning: the dual hull of a thin intersection (a resting contact is often 1e-4 of the bodies' size
/// deep) is nearly flat, and a hull algorithm then drops its vertices. The intersection is affine-invariant,
/// so the dual transform runs in whitened coordinates x' = L⁻¹(x − c), where c and LLᵀ are the centroid and
/// covariance of the candidate points ([`candidates`]): there the intersection is round, c is well inside it
/// (the interior point), and the dual hull is well conditioned. Planes map as n' = Lᵀn, d' = d − n·c.
pub fn intersect(ws: &mut Workspace, a: PolyView, b: PolyView, out: &mut Intersection) -> bool {
    out.faces.clear();
    out.polygon.clear();
    let scale = a.vertices.iter().chain(b.vertices).fold(0.0f64, |m, v| m.max(v.abs().max_element()));
    let tol = 1e-12 * scale;
    relevant(&mut ws.rel_a, a.planes, b.vertices, tol);
    relevant(&mut ws.rel_b, b.planes, a.vertices, tol);
    ws.candidates.clear();
    candidates(&mut ws.candidates, &mut ws.dist, a, b, &ws.rel_b, tol);
    candidates(&mut ws.candidates, &mut ws.dist, b, a, &ws.rel_a, tol);
    if ws.candidates.len() < 4 {
        return false;
    }
    let k = ws.candidates.len() as f64;
    let c = ws.candidates.iter().fold(Vec3::ZERO, |s, p| s + *p) / k;
    let mut cov = [[0.0f64; 3]; 3];
    for p in &ws.candidates {
        let r = (*p - c).to_array();
        for i in 0..3 {
            for j in 0..=i {
                cov[i][j] += r[i] * r[j] / k;
            }
        }
    }
    // Cholesky LLᵀ = cov; a near-zero pivot means the candidates are flat: no volume
    let trace = cov[0][0] + cov[1][1] + cov[2][2];
    let mut l = [[0.0f64; 3]; 3];
    for i in 0..3 {
        for j in 0..=i {
            let mut sum = cov[i][j];
            for m in 0..j {
                sum -= l[i][m] * l[j][m];
            }
            if i == j {
                if !(sum > 1e-14 * trace) {
                    return false;
                }
                l[i][i] = sum.sqrt();
            } else {
                l[i][j] = sum / l[j][j];
            }
        }
    }
    let lt = |n: Vec3| {
        let n = n.to_array();
        Vec3::new(l[0][0] * n[0] + l[1][0] * n[1] + l[2][0] * n[2], l[1][1] * n[1] + l[2][1] * n[2], l[2][2] * n[2])
    };
    ws.planes.clear();
    ws.plane_index.clear();
    for (planes, rel, side, offset) in [(a.planes, &ws.rel_a, Side::A, 0), (b.planes, &ws.rel_b, Side::B, a.planes.len() as u32)] {
        for &i in rel.iter() {
            let p = planes[i as usize];
            let np = lt(p.n);
            let len = np.length();
            ws.planes.push((Plane { n: np / len, d: (p.d - p.n.dot(c)) / len }, side));
            ws.plane_index.push(offset + i);
        }
    }
    if !build(ws, 1e-9, out) {
        out.faces.clear();
        out.polygon.clear();
        return false;
    }
    // back to the world: x = L x' + c; the face normals are the original planes'
    for p in &mut out.polygon {
        let x = p.to_array();
        *p = c + Vec3::new(l[0][0] * x[0], l[1][0] * x[0] + l[1][1] * x[1], l[2][0] * x[0] + l[2][1] * x[1] + l[2][2] * x[2]);
    }
    let na = a.planes.len();
    for f in &mut out.faces {
        f.plane = ws.plane_index[f.plane as usize];
        let i = f.plane as usize;
        f.normal = if i < na { a.planes[i].n } else { b.planes[i - na].n };
    }
    out.center = c;
    true
}

/// The dual construction about the origin (an interior point) for the planes in `ws.planes`. Distances are
/// clamped to `eps` times the largest (as SpringheadOne clamps them).
fn build(ws: &mut Workspace, eps: f64, out: &mut Intersection) -> bool {
    let dmax = ws.planes.iter().map(|(p, _)| p.d).fold(0.0, f64::max);
    if !(dmax.is_finite() && dmax > 0.0) {
        return false;
    }
    // dual points; coincident planes of A and B become one point tagged `Both`
    ws.dual.clear();
    ws.dual_side.clear();
    ws.hull_plane.clear();
    for (i, (p, side)) in ws.planes.iter().enumerate() {
        if p.d < -1e-6 * dmax {
            return false; // the origin is not inside both
        }
        let q = p.n / p.d.max(eps * dmax);
        if let Some(k) = ws.dual.iter().position(|r| (*r - q).length() <= 1e-9 * q.length()) {
            if ws.dual_side[k] != *side {
                ws.dual_side[k] = Side::Both;
            }
            continue;
        }
        ws.dual.push(q);
        ws.dual_side.push(*side);
        ws.hull_plane.push(i);
    }
    if ws.dual.len() < 4 {
        return false;
    }
    let Ok((hv, ht)) = parry3d_f64::transformation::try_convex_hull(&ws.dual) else {
        return false;
    };
    if ht.len() < 4 {
        return false;
    }
    // hull vertices are copies of dual points: map them back to their planes
    let mut which = Vec::with_capacity(hv.len());
    for v in &hv {
        match ws.dual.iter().position(|q| q == v) {
            Some(k) => which.push(k),
            None => return false,
        }
    }
    // each hull facet m·y = e is the intersection vertex m/e
    ws.facet_vertex.clear();
    for t in &ht {
        let (q0, q1, q2) = (hv[t[0] as usize], hv[t[1] as usize], hv[t[2] as usize]);
        let m = (q1 - q0).cross(q2 - q0);
        let e = m.dot(q0);
        if m.length() == 0.0 {
            ws.facet_vertex.push(Vec3::NAN); // a degenerate hull triangle: its neighbours carry the vertex
            continue;
        }
        if e <= 0.0 {
            return false; // the origin is on the dual hull: the intersection is unbounded or flat
        }
        ws.facet_vertex.push(m / e);
    }
    // facets incident to each hull vertex (compressed rows)
    ws.incident_start.clear();
    ws.incident_start.resize(hv.len() + 1, 0);
    for t in &ht {
        for &k in t {
            ws.incident_start[k as usize + 1] += 1;
        }
    }
    for k in 0..hv.len() {
        ws.incident_start[k + 1] += ws.incident_start[k];
    }
    ws.incident.clear();
    ws.incident.resize(ht.len() * 3, 0);
    ws.fill.clear();
    ws.fill.extend_from_slice(&ws.incident_start);
    for (ti, t) in ht.iter().enumerate() {
        for &k in t {
            ws.incident[ws.fill[k as usize] as usize] = ti as u32;
            ws.fill[k as usize] += 1;
        }
    }
    let size = ws.facet_vertex.iter().filter(|v| v.is_finite()).map(|v| v.length()).fold(0.0, f64::max);
    let tol = 1e-10 * size.max(1e-300);
    for (k, &dk) in which.iter().enumerate() {
        let plane_index = ws.hull_plane[dk];
        let n = ws.planes[plane_index].0.n;
        let (u, w) = crate::math::tangent_basis(n);
        ws.ring.clear();
        let (mut mid, mut count) = (Vec3::ZERO, 0usize);
        let range = ws.incident_start[k] as usize..ws.incident_start[k + 1] as usize;
        for &ti in &ws.incident[range.clone()] {
            let p = ws.facet_vertex[ti as usize];
            if p.is_finite() {
                mid += p;
                count += 1;
            }
        }
        if count < 3 {
            continue;
        }
        mid /= count as f64;
        for &ti in &ws.incident[range] {
            let p = ws.facet_vertex[ti as usize];
            if !p.is_finite() {
                continue;
            }
            let r = p - mid;
            ws.ring.push((r.dot(w).atan2(r.dot(u)), p));
        }
        ws.ring.sort_by(|x, y| x.0.total_cmp(&y.0));
        let start = out.polygon.len();
        for &(_, p) in &ws.ring {
            if out.polygon.len() > start && (out.polygon[out.polygon.len() - 1] - p).length() <= tol {
                continue;
            }
            out.polygon.push(p);
        }
        while out.polygon.len() > start + 1 && (out.polygon[out.polygon.len() - 1] - out.polygon[start]).length() <= tol {
            out.polygon.pop();
        }
        let len = out.polygon.len() - start;
        if len < 3 {
            out.polygon.truncate(start);
            continue;
        }
        out.faces.push(Face { side: ws.dual_side[dk], normal: n, plane: plane_index as u32, start: start as u32, len: len as u32 });
    }
    !out.faces.is_empty()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::geometry::polytope::Polytope;
    use crate::math::{Pose, Quat};
    use parry3d_f64::shape::SharedShape;

    /// A box polytope placed at `pose`: (planes, vertices, edges) in the world.
    pub fn placed_box(half: Vec3, pose: Pose) -> (Vec<Plane>, Vec<Vec3>, Vec<[u32; 2]>) {
        let s = SharedShape::cuboid(half.x, half.y, half.z);
        let p = Polytope::from_piece(&Pose::IDENTITY, s.as_ref(), 8).unwrap();
        let (mut planes, mut vertices) = (Vec::new(), Vec::new());
        p.place(&pose, &mut planes, &mut vertices);
        (planes, vertices, p.edges.clone())
    }

    fn view(p: &(Vec<Plane>, Vec<Vec3>, Vec<[u32; 2]>)) -> PolyView<'_> {
        PolyView { planes: &p.0, vertices: &p.1, edges: &p.2 }
    }

    fn run(a: &(Vec<Plane>, Vec<Vec3>, Vec<[u32; 2]>), b: &(Vec<Plane>, Vec<Vec3>, Vec<[u32; 2]>)) -> Option<Intersection> {
        let mut ws = Workspace::default();
        let mut out = Intersection::default();
        intersect(&mut ws, view(a), view(b), &mut out).then_some(out)
    }

    #[test]
    fn unit_cubes_offset_by_half_overlap_in_half_a_cube() {
        let a = placed_box(Vec3::splat(0.5), Pose::IDENTITY);
        let b = placed_box(Vec3::splat(0.5), Pose::from_translation(Vec3::new(0.5, 0.0, 0.0)));
        let i = run(&a, &b).unwrap();
        assert!((i.volume() - 0.5).abs() < 1e-12, "volume {}", i.volume());
        assert_eq!(i.distinct_vertices(1e-9).len(), 8);
        assert_eq!(i.faces.len(), 6);
        // the y and z sides are shared; x = 0.5 is A's face and x = 0 is B's
        let side_of = |n: Vec3| i.faces.iter().find(|f| f.normal.dot(n) > 0.999).map(|f| f.side);
        assert_eq!(side_of(Vec3::X), Some(Side::A), "{:?}", i.faces);
        assert_eq!(side_of(-Vec3::X), Some(Side::B));
        assert_eq!(side_of(Vec3::Y), Some(Side::Both));
    }

    #[test]
    fn thin_resting_contacts_are_exact() {
        // a unit cube 1e-6 into a large floor, flat and slightly tilted (a wedge): volumes in closed form
        let floor = placed_box(Vec3::new(5.0, 5.0, 0.5), Pose::from_translation(Vec3::new(0.0, 0.0, -0.5)));
        let flat = placed_box(Vec3::splat(0.5), Pose::from_translation(Vec3::new(0.1, 0.2, 0.5 - 1e-6)));
        let i = run(&floor, &flat).unwrap();
        assert!((i.volume() - 1e-6).abs() < 1e-15, "volume {}", i.volume());
        let th: f64 = 1e-3;
        let rot = Quat::from_rotation_y(th);
        // lowest edge at depth 1e-5: the wedge's cross-section is a triangle of height δ and base δ/tan θ
        let lowest = 0.5 * th.cos() + 0.5 * th.sin();
        let tilted = placed_box(Vec3::splat(0.5), Pose::from_parts(Vec3::new(0.0, 0.0, lowest - 1e-5), rot));
        let w = run(&floor, &tilted).unwrap();
        let exact = 0.5 * 1e-5 * (1e-5 / th.tan());
        assert!((w.volume() - exact).abs() < 1e-6 * exact, "wedge {} vs {}", w.volume(), exact);
    }

    #[test]
    fn a_cube_inside_another_is_the_small_cube() {
        let a = placed_box(Vec3::splat(2.0), Pose::IDENTITY);
        let b = placed_box(Vec3::splat(0.5), Pose::new(Vec3::new(0.3, 0.2, 0.1), Vec3::new(0.2, 0.4, 0.1)));
        let i = run(&a, &b).unwrap();
        assert!((i.volume() - 1.0).abs() < 1e-12);
        assert!(i.faces.iter().all(|f| f.side == Side::B));
    }

    #[test]
    fn rotated_boxes_match_a_quasi_monte_carlo_volume() {
        let a = placed_box(Vec3::new(0.5, 0.7, 0.4), Pose::IDENTITY);
        let rot = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
        let b = placed_box(Vec3::new(0.6, 0.3, 0.5), Pose::from_parts(Vec3::new(0.4, 0.3, -0.2), rot));
        let i = run(&a, &b).unwrap();
        let inside = |p: Vec3, planes: &[Plane]| planes.iter().all(|pl| pl.n.dot(p) <= pl.d);
        let (mut hit, n) = (0usize, 400_000usize);
        for k in 0..n {
            // R3 low-discrepancy sequence over A's box
            let f = |s: f64| ((k as f64 + 0.5) * s).fract();
            let p = Vec3::new(f(0.8191725133961645) - 0.5, (f(0.6710436067037893) - 0.5) * 1.4, (f(0.5497004779019703) - 0.5) * 0.8);
            if inside(p, &b.0) {
                hit += 1;
            }
        }
        let mc = hit as f64 / n as f64 * (1.0 * 1.4 * 0.8);
        assert!((i.volume() - mc).abs() < 2e-3 * mc, "dual {} vs QMC {}", i.volume(), mc);
        for p in &i.polygon {
            assert!(a.0.iter().chain(&b.0).all(|pl| pl.n.dot(*p) <= pl.d + 1e-9));
        }
    }

    #[test]
    fn touching_apart_and_slivers_give_nothing_and_no_nan() {
        let a = placed_box(Vec3::splat(0.5), Pose::IDENTITY);
        let touching = placed_box(Vec3::splat(0.5), Pose::from_translation(Vec3::new(1.0, 0.0, 0.0)));
        assert!(run(&a, &touching).is_none());
        let far = placed_box(Vec3::splat(0.5), Pose::from_translation(Vec3::new(3.0, 0.0, 0.0)));
        assert!(run(&a, &far).is_none());
        for depth in [1e-9, 1e-12, 1e-15] {
            let s = placed_box(Vec3::splat(0.5), Pose::from_translation(Vec3::new(1.0 - depth, 0.0, 0.0)));
            if let Some(i) = run(&a, &s) {
                assert!((i.volume() - depth).abs() <= 1e-3 * depth, "depth {depth}: volume {}", i.volume());
            }
        }
    }
}
