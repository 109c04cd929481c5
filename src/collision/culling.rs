//! Contact culling with intersection boxes (the source's i-AABB, §4.2). Each body's box is dilated by half the
//! query distance; for each pair of overlapping bodies only the primitives inside the intersection of the two
//! boxes are paired, by a sweep along x inside that box (where the source builds a three-level hierarchy).
//! Pairs come out grouped by body pair in a fixed order: the same input always gives the same list, whatever
//! the thread count (rayon's ordered collect).

use crate::geometry::surface::Surfaces;
use rayon::prelude::*;

/// A candidate primitive pair: point–triangle `[p, t0, t1, t2]` or edge–edge `[a0, a1, b0, b1]`.
#[derive(Debug, Clone, Copy)]
pub struct Pair {
    pub verts: [u32; 4],
    pub edge_edge: bool,
    /// The edge–edge mollifier threshold ε_x = 1e-3 |e_a|²|e_b|² (rest lengths); 0 for point–triangle.
    pub eps_x: f64,
    /// Point–triangle: the triangle's plane and flat features (`Surfaces::triangle_plane`, `triangle_flat`);
    /// edge–edge: `u32::MAX` and 0.
    pub plane: u32,
    pub flat: u8,
}

/// The pairs of one body pair occupy `range` in the pair list.
#[derive(Debug, Clone)]
pub struct Group {
    pub bodies: [u32; 2],
    pub range: std::ops::Range<usize>,
}

#[derive(Clone, Copy)]
struct Aabb {
    lo: [f64; 3],
    hi: [f64; 3],
}

impl Aabb {
    const EMPTY: Aabb = Aabb { lo: [f64::INFINITY; 3], hi: [f64::NEG_INFINITY; 3] };
    fn grow(&mut self, o: &Aabb) {
        for r in 0..3 {
            self.lo[r] = self.lo[r].min(o.lo[r]);
            self.hi[r] = self.hi[r].max(o.hi[r]);
        }
    }
    fn overlaps(&self, o: &Aabb) -> bool {
        (0..3).all(|r| self.lo[r] <= o.hi[r] && o.lo[r] <= self.hi[r])
    }
    fn intersection(&self, o: &Aabb) -> Aabb {
        Aabb { lo: std::array::from_fn(|r| self.lo[r].max(o.lo[r])), hi: std::array::from_fn(|r| self.hi[r].min(o.hi[r])) }
    }
    fn dilate(mut self, e: f64) -> Aabb {
        for r in 0..3 {
            self.lo[r] -= e;
            self.hi[r] += e;
        }
        self
    }
}

/// Candidate pairs whose primitives come within `dilation` of each other somewhere on the straight paths from
/// `x0` to `x1` (or at `x0` when `x1` is `None`). Body pairs with no dynamic body (`dynamic[b]`) are skipped.
pub fn candidates(
    s: &Surfaces,
    x0: &[[f64; 3]],
    x1: Option<&[[f64; 3]]>,
    dynamic: &[bool],
    dilation: f64,
    pairs: &mut Vec<Pair>,
    groups: &mut Vec<Group>,
) {
    pairs.clear();
    groups.clear();
    let half = 0.5 * dilation;
    let vbox: Vec<Aabb> = (0..x0.len())
        .map(|v| {
            let a = x0[v];
            let b = x1.map_or(a, |x1| x1[v]);
            Aabb { lo: std::array::from_fn(|r| a[r].min(b[r]) - half), hi: std::array::from_fn(|r| a[r].max(b[r]) + half) }
        })
        .collect();
    let nb = s.body_vertices.len();
    let bbox = body_boxes(s, &vbox);
    // body pairs by a sweep along x
    let mut order: Vec<usize> = (0..nb).filter(|&b| !s.body_vertices[b].is_empty()).collect();
    order.sort_by(|&a, &b| bbox[a].lo[0].total_cmp(&bbox[b].lo[0]).then(a.cmp(&b)));
    let mut body_pairs = Vec::new();
    for (k, &a) in order.iter().enumerate() {
        for &b in &order[k + 1..] {
            if bbox[b].lo[0] > bbox[a].hi[0] {
                break;
            }
            let excluded = super::broad::is_excluded(&s.excluded, a as u32, b as u32);
            if (dynamic[a] || dynamic[b]) && !excluded && bbox[a].overlaps(&bbox[b]) {
                body_pairs.push([a.min(b), a.max(b)]);
            }
        }
    }
    body_pairs.sort();
    let per_pair: Vec<Vec<Pair>> =
        body_pairs.par_iter().map(|&[a, b]| body_pair(s, &vbox, &bbox[a].intersection(&bbox[b]), a, b)).collect();
    for (bp, list) in body_pairs.iter().zip(per_pair) {
        if list.is_empty() {
            continue;
        }
        let start = pairs.len();
        pairs.extend(list);
        groups.push(Group { bodies: [bp[0] as u32, bp[1] as u32], range: start..pairs.len() });
    }
}

/// Each body's box: the union of its vertices' boxes.
fn body_boxes(s: &Surfaces, vbox: &[Aabb]) -> Vec<Aabb> {
    s.body_vertices
        .iter()
        .map(|range| {
            let mut bx = Aabb::EMPTY;
            for v in range.clone() {
                bx.grow(&vbox[v]);
            }
            bx
        })
        .collect()
}

fn prim_box(vbox: &[Aabb], verts: &[u32]) -> Aabb {
    let mut bx = Aabb::EMPTY;
    for &v in verts {
        bx.grow(&vbox[v as usize]);
    }
    bx
}

/// Pairs of overlapping boxes between two lists (sweep along x); output in a fixed order.
fn sweep(a: &mut [(u32, Aabb)], b: &mut [(u32, Aabb)], out: &mut Vec<(u32, u32)>) {
    a.sort_by(|p, q| p.1.lo[0].total_cmp(&q.1.lo[0]).then(p.0.cmp(&q.0)));
    b.sort_by(|p, q| p.1.lo[0].total_cmp(&q.1.lo[0]).then(p.0.cmp(&q.0)));
    let start = out.len();
    let mut j0 = 0;
    for (ia, ba) in a.iter() {
        while j0 < b.len() && b[j0].1.hi[0] < ba.lo[0] {
            j0 += 1;
        }
        // b sorted by lo, not hi: scan from j0 while lo ≤ our hi
        for (ib, bb) in b[j0..].iter() {
            if bb.lo[0] > ba.hi[0] {
                break;
            }
            if ba.overlaps(bb) {
                out.push((*ia, *ib));
            }
        }
    }
    out[start..].sort_unstable();
}

/// The primitives `range` of `prims` whose boxes (from the vertex boxes) overlap `ibox`, with their boxes.
fn prims_in<const K: usize>(range: std::ops::Range<usize>, prims: &[[u32; K]], vbox: &[Aabb], ibox: &Aabb) -> Vec<(u32, Aabb)> {
    range
        .filter_map(|i| {
            let bx = prim_box(vbox, &prims[i]);
            bx.overlaps(ibox).then_some((i as u32, bx))
        })
        .collect()
}

fn body_pair(s: &Surfaces, vbox: &[Aabb], ibox: &Aabb, a: usize, b: usize) -> Vec<Pair> {
    let mut out = Vec::new();
    let verts_in = |body: usize| -> Vec<(u32, Aabb)> {
        s.body_vertices[body].clone().filter(|&v| vbox[v].overlaps(ibox)).map(|v| (v as u32, vbox[v])).collect()
    };
    let tris_in = |body: usize| prims_in(s.body_triangles[body].clone(), &s.triangles, vbox, ibox);
    // an edge between coplanar triangles is no feature: the points' pairs with those triangles cover it
    let edges_in = |body: usize| {
        let mut list = prims_in(s.body_edges[body].clone(), &s.edges, vbox, ibox);
        list.retain(|&(e, _)| !s.edge_flat[e as usize]);
        list
    };
    let mut hits = Vec::new();
    for (p, t) in [(a, b), (b, a)] {
        hits.clear();
        sweep(&mut verts_in(p), &mut tris_in(t), &mut hits);
        for &(v, t) in &hits {
            let tri = s.triangles[t as usize];
            let (plane, flat) = (s.triangle_plane[t as usize], s.triangle_flat[t as usize]);
            out.push(Pair { verts: [v, tri[0], tri[1], tri[2]], edge_edge: false, eps_x: 0.0, plane, flat });
        }
    }
    hits.clear();
    sweep(&mut edges_in(a), &mut edges_in(b), &mut hits);
    for &(ea, eb) in &hits {
        let (e0, e1) = (s.edges[ea as usize], s.edges[eb as usize]);
        let eps_x = 1e-3 * s.edge_rest2[ea as usize] * s.edge_rest2[eb as usize];
        out.push(Pair { verts: [e0[0], e0[1], e1[0], e1[1]], edge_edge: true, eps_x, plane: u32::MAX, flat: 0 });
    }
    out
}

/// Body boxes overlap test used by the intersection check: pairs of triangles of different bodies whose boxes
/// overlap at `x` (no dilation).
pub fn triangle_pairs(s: &Surfaces, x: &[[f64; 3]]) -> Vec<(u32, u32)> {
    triangle_pairs_among(s, x, |_, _| true)
}

/// [`triangle_pairs`] over the body pairs (a, b), a < b, for which `keep(a, b)` holds.
pub fn triangle_pairs_among(s: &Surfaces, x: &[[f64; 3]], keep: impl Fn(usize, usize) -> bool) -> Vec<(u32, u32)> {
    let vbox: Vec<Aabb> = x.iter().map(|p| Aabb { lo: *p, hi: *p }.dilate(1e-12)).collect();
    let nb = s.body_vertices.len();
    let bbox: Vec<Aabb> = body_boxes(s, &vbox).into_iter().map(|b| b.dilate(1e-12)).collect();
    let mut out = Vec::new();
    for a in 0..nb {
        for b in a + 1..nb {
            if !keep(a, b)
                || super::broad::is_excluded(&s.excluded, a as u32, b as u32)
                || s.body_triangles[a].is_empty()
                || s.body_triangles[b].is_empty()
                || !bbox[a].overlaps(&bbox[b])
            {
                continue;
            }
            let ib = bbox[a].intersection(&bbox[b]);
            let list = |body: usize| prims_in(s.body_triangles[body].clone(), &s.triangles, &vbox, &ib);
            sweep(&mut list(a), &mut list(b), &mut out);
        }
    }
    out
}
