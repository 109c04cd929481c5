//! Which barrier pairs count. IPC sums a term for every point–triangle pair within d̂, so a point over an edge
//! between two coplanar triangles (a box face's diagonal) is pushed by both triangles, and just beside it by
//! the triangle it is over and again by the other one's edge. Such an edge or vertex is no feature of the shape:
//! a point's term on a flat edge or a flat vertex counts only where none of its other terms with that plane
//! does, and then once; of its face terms with one plane (a point exactly over a flat edge) the first counts.
//! Every other term counts as in IPC. The energy stays continuous: where a flat feature's term starts to count,
//! it equals the plane's term it replaces. See docs/methods/abd.md, "Flat edges".

use super::barrier::{self, PairShape};
use super::culling::Pair;
use super::distance::Kind;

/// A candidate pair classified at some positions: its index in the pair list, stencil, shape, case and squared
/// distance.
#[derive(Debug, Clone, Copy)]
pub struct Term {
    pub pair: usize,
    pub xs: [[f64; 3]; 4],
    pub shape: PairShape,
    pub kind: Kind,
    pub d: f64,
}

/// Whether a point–triangle case lies on one of the triangle's flat features (`Pair::flat`).
fn on_flat_feature(kind: Kind, flat: u8) -> bool {
    match kind {
        // stencil slots 1, 2, 3 are the triangle's vertices t0, t1, t2; edge k joins t_k and t_{k+1}
        Kind::PointLine(_, j, k) => {
            let edge = match (j.min(k), j.max(k)) {
                (1, 2) => 0,
                (2, 3) => 1,
                _ => 2,
            };
            flat & (1 << edge) != 0
        }
        Kind::PointPoint(_, j) => flat & (1 << (3 + j - 1)) != 0,
        _ => false,
    }
}

/// Appends to `out`, in pair order, the pairs of `pairs` (one body pair's, as culling groups them) that count at
/// positions `x`: those within D̂ (`dhat2`) that the rule above keeps, and every touching pair (D ≤ 0). Returns the
/// smallest squared distance of all the pairs whose boxes come within D̂, counted or not.
pub fn counted(x: &[[f64; 3]], pairs: &[Pair], first: usize, dhat2: f64, out: &mut Vec<Term>) -> f64 {
    let mut dmin = f64::INFINITY;
    let mut run_start = out.len();
    let mut run_point = u32::MAX;
    for (i, p) in pairs.iter().enumerate() {
        if p.edge_edge || p.verts[0] != run_point {
            settle_run(pairs, first, out, run_start);
            run_start = out.len();
            run_point = if p.edge_edge { u32::MAX } else { p.verts[0] };
        }
        let xs = super::assemble::stencil(x, &p.verts);
        let shape = PairShape { edge_edge: p.edge_edge, eps_x: p.eps_x };
        if !barrier::may_be_within(shape, &xs, dhat2) {
            continue;
        }
        let (kind, d) = barrier::classify(shape, &xs);
        dmin = dmin.min(d);
        if d < dhat2 {
            out.push(Term { pair: first + i, xs, shape, kind, d });
        }
    }
    settle_run(pairs, first, out, run_start);
    dmin
}

/// Applies the rule to the terms of one point (`out[start..]`, point–triangle pairs of one point, or one
/// edge–edge pair), removing those that do not count.
fn settle_run(pairs: &[Pair], first: usize, out: &mut Vec<Term>, start: usize) {
    if out.len() - start < 2 {
        return;
    }
    let pair = |t: &Term| &pairs[t.pair - first];
    // per plane of the point's terms: whether a term other than a flat feature's is there
    let mut planes: Vec<(u32, bool)> = Vec::new();
    for t in &out[start..] {
        let p = pair(t);
        let other = !on_flat_feature(t.kind, p.flat);
        match planes.iter_mut().find(|e| e.0 == p.plane) {
            Some(e) => e.1 |= other,
            None => planes.push((p.plane, other)),
        }
    }
    // per plane: whether a face term, and whether a flat feature's term, has been kept
    let mut taken: Vec<(u32, bool, bool)> = planes.iter().map(|e| (e.0, false, false)).collect();
    let mut keep = start;
    for k in start..out.len() {
        let t = out[k];
        let p = pair(&t);
        let plane = planes.iter().position(|e| e.0 == p.plane).expect("every plane is listed");
        let counts = if t.d <= 0.0 {
            // touching: always in (the energy is infinite there)
            true
        } else if t.kind == Kind::PointPlane {
            !std::mem::replace(&mut taken[plane].1, true)
        } else if on_flat_feature(t.kind, p.flat) {
            !planes[plane].1 && !std::mem::replace(&mut taken[plane].2, true)
        } else {
            true
        };
        if counts {
            out[keep] = t;
            keep += 1;
        }
    }
    out.truncate(keep);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::surface::Surfaces;
    use crate::world::World;

    /// A 2 m ground box (top face at z = 0) and a small probe box whose first vertex is moved about by hand.
    fn ground() -> (Surfaces, Vec<[f64; 3]>) {
        let text = "format = 1\n[world]\nmethod = \"abd\"\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [2.0, 2.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"probe\"\nshape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nposition = [5.0, 0.0, 1.0]\n";
        let w = World::from_scene_text(text, "counted test").expect("scene loads");
        let s = Surfaces::build(&w.model, 8);
        let x = s
            .rest
            .iter()
            .zip(&s.vertex_body)
            .map(|(r, &b)| {
                let c = w.state.bodies[b as usize].x;
                [r[0] + c.x, r[1] + c.y, r[2] + c.z]
            })
            .collect();
        (s, x)
    }

    /// The barrier energy of the probe's first vertex at `at` against every ground triangle, over the counted
    /// pairs (or all of them, as IPC sums them).
    fn energy(s: &Surfaces, x: &mut [[f64; 3]], at: [f64; 3], dh2: f64, all: bool) -> (f64, usize) {
        let p = s.body_vertices[1].start;
        x[p] = at;
        let pairs: Vec<Pair> = s.body_triangles[0]
            .clone()
            .map(|t| {
                let tri = s.triangles[t];
                let (plane, flat) = (s.triangle_plane[t], s.triangle_flat[t]);
                Pair { verts: [p as u32, tri[0], tri[1], tri[2]], edge_edge: false, eps_x: 0.0, plane, flat }
            })
            .collect();
        let mut terms = Vec::new();
        counted(x, &pairs, 0, dh2, &mut terms);
        if all {
            terms.clear();
            for (i, q) in pairs.iter().enumerate() {
                let xs = super::super::assemble::stencil(x, &q.verts);
                let (kind, d) = barrier::classify(PairShape { edge_edge: false, eps_x: 0.0 }, &xs);
                if d < dh2 {
                    terms.push(Term { pair: i, xs, shape: PairShape { edge_edge: false, eps_x: 0.0 }, kind, d });
                }
            }
        }
        (terms.iter().map(|t| barrier::energy_at(t.shape, &t.xs, t.d, dh2)).sum(), terms.len())
    }

    #[test]
    fn a_box_has_a_flat_diagonal_on_each_face_and_no_flat_vertex() {
        let (s, _) = ground();
        let flat = s.body_edges[0].clone().filter(|&e| s.edge_flat[e]).count();
        assert_eq!((s.body_edges[0].len(), flat), (18, 6));
        let mut planes: Vec<u32> = s.body_triangles[0].clone().map(|t| s.triangle_plane[t]).collect();
        planes.sort();
        planes.dedup();
        assert_eq!(planes.len(), 6, "a box's 12 triangles lie in 6 planes");
        assert!(s.body_triangles[0].clone().all(|t| s.triangle_flat[t] >> 3 == 0), "no vertex of a box is flat");
        assert_eq!(s.body_triangles[0].clone().map(|t| s.triangle_flat[t].count_ones()).sum::<u32>(), 12, "each diagonal in two triangles");
    }

    /// A point hovering over the top face feels the one plane's barrier wherever it is, on the diagonal, beside
    /// it and exactly over it, as it would over one big triangle (IPC's sum gives up to twice that); near a real
    /// edge of the box it keeps IPC's terms.
    #[test]
    fn a_point_over_a_flat_diagonal_feels_one_plane() {
        let (s, mut x) = ground();
        let (dh, h) = (1e-2, 4e-3);
        let dh2 = dh * dh;
        let plane = barrier::b(h * h, dh2);
        // the top face's diagonal, whichever way it runs: across it along its normal in the face
        let e = s.body_edges[0].clone().find(|&e| s.edge_flat[e] && s.edges[e].iter().all(|&v| x[v as usize][2] > -1e-12)).unwrap();
        let (a, b) = (x[s.edges[e][0] as usize], x[s.edges[e][1] as usize]);
        let (ux, uy) = ((b[0] - a[0]) / 2f64.sqrt() / 2.0, (b[1] - a[1]) / 2f64.sqrt() / 2.0);
        let mut ipc_most = 0.0f64;
        for k in -40..=40 {
            let o = k as f64 * 2.5e-4;
            let at = [0.3 * (a[0] + b[0]) - o * uy, 0.3 * (a[1] + b[1]) + o * ux, h];
            let (e1, n) = energy(&s, &mut x, at, dh2, false);
            assert!((e1 - plane).abs() <= 1e-12 * plane, "offset {o}: {e1} against one plane's {plane} ({n} terms)");
            ipc_most = ipc_most.max(energy(&s, &mut x, at, dh2, true).0 / plane);
        }
        assert!(ipc_most > 1.9, "IPC's sum doubles over the diagonal: {ipc_most}");
        // beside a real edge (the face's border, 3 mm in): the plane and the side face's edge term, as in IPC
        let at = [1.0 - 3e-3, 0.1, h];
        let (e1, n) = energy(&s, &mut x, at, dh2, false);
        let (e2, _) = energy(&s, &mut x, at, dh2, true);
        assert!(n >= 2 && (e1 - e2).abs() <= 1e-12 * e2 && e1 > plane * 1.01, "{n} terms, {e1} vs IPC {e2}");
    }
}
