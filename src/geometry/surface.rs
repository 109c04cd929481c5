//! The surface triangle meshes ABD collides (source §4: all inter-body point–triangle and edge–edge pairs of the
//! bodies' boundary meshes). Rigid shapes become triangle meshes here: spheres, capsules and cylinders at the
//! `[solver.abd]` resolution, boxes and convex hulls exactly, meshes and generated shapes as they are.
//! Rest positions x̄ are measured from the body's centre of mass, in body axes (affine.rs).

use crate::geometry::ShapeDesc;
use crate::math::{Quat, Vec3};
use crate::model::Model;
use parry3d_f64::shape::{Ball, Capsule, Cuboid, Cylinder};
use std::collections::BTreeSet;

/// All bodies' surfaces, with global vertex, edge and triangle numbering.
#[derive(Debug, Clone, Default)]
pub struct Surfaces {
    /// Rest position of each vertex (from its body's centre of mass), as w = (x̄, 1).
    pub rest: Vec<[f64; 4]>,
    /// Body of each vertex.
    pub vertex_body: Vec<u32>,
    /// Edges (global vertex ids, sorted pair).
    pub edges: Vec<[u32; 2]>,
    pub edge_body: Vec<u32>,
    /// Rest length² of each edge (for the mollifier threshold).
    pub edge_rest2: Vec<f64>,
    pub triangles: Vec<[u32; 3]>,
    pub triangle_body: Vec<u32>,
    /// Each triangle's plane: triangles joined by flat edges share one id (a box face's two halves).
    pub triangle_plane: Vec<u32>,
    /// Each triangle's flat features: bit k for its edge (t_k, t_{k+1}), bit 3 + k for its vertex t_k.
    pub triangle_flat: Vec<u8>,
    /// Whether an edge lies between two coplanar triangles (no feature of the shape: a face's diagonal).
    pub edge_flat: Vec<bool>,
    /// Per body: ranges of its vertices, edges and triangles.
    pub body_vertices: Vec<std::ops::Range<usize>>,
    pub body_edges: Vec<std::ops::Range<usize>>,
    pub body_triangles: Vec<std::ops::Range<usize>>,
    /// Body pairs that never collide (`Model::exclusions`): culling and the intersection check skip them.
    pub excluded: Vec<(u32, u32)>,
}

/// A body's surface in its reference frame: vertices and outward triangles.
pub fn body_mesh(desc: &ShapeDesc, resolution: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let n = resolution.max(4);
    match desc {
        ShapeDesc::Sphere { radius } => Ball::new(*radius).to_trimesh(n, n / 2),
        ShapeDesc::Box { size } => Cuboid::new(*size * 0.5).to_trimesh(),
        ShapeDesc::Capsule { radius, length } => {
            Capsule::new(Vec3::new(0.0, 0.0, -length / 2.0), Vec3::new(0.0, 0.0, length / 2.0), *radius).to_trimesh(n, n / 2)
        }
        ShapeDesc::Cylinder { radius, length } => {
            let (v, t) = Cylinder::new(length / 2.0, *radius).to_trimesh(n);
            let r = Quat::from_rotation_x(std::f64::consts::FRAC_PI_2);
            (v.into_iter().map(|p| r * p).collect(), t)
        }
        ShapeDesc::Convex { points } => {
            let hull = parry3d_f64::shape::SharedShape::convex_hull(points).expect("checked when the scene loaded");
            hull.as_convex_polyhedron().expect("a convex hull").to_trimesh()
        }
        ShapeDesc::Mesh { mesh, .. } | ShapeDesc::Generated { mesh, .. } => (mesh.vertices.clone(), mesh.triangles.clone()),
        ShapeDesc::Compound { parts } => super::compound::mesh(parts, resolution),
    }
}

impl Surfaces {
    /// The surfaces of every body of the model.
    pub fn build(model: &Model, resolution: u32) -> Self {
        let mut s = Surfaces { excluded: model.exclusions.clone(), ..Surfaces::default() };
        for (b, body) in model.bodies.iter().enumerate() {
            let (verts, tris) = body_mesh(&body.geometry.desc, resolution);
            // merge coincident vertices (tessellations may repeat seam and pole points)
            let mut ids = Vec::with_capacity(verts.len());
            let mut uniq: Vec<Vec3> = Vec::new();
            let mut index = std::collections::BTreeMap::new();
            for v in &verts {
                let key = (v.x.to_bits(), v.y.to_bits(), v.z.to_bits());
                let id = *index.entry(key).or_insert_with(|| {
                    uniq.push(*v);
                    uniq.len() - 1
                });
                ids.push(id);
            }
            let v0 = s.rest.len();
            for v in &uniq {
                let r = *v - body.com;
                s.rest.push([r.x, r.y, r.z, 1.0]);
                s.vertex_body.push(b as u32);
            }
            let t0 = s.triangles.len();
            let mut edges = BTreeSet::new();
            for t in &tris {
                let g = [ids[t[0] as usize], ids[t[1] as usize], ids[t[2] as usize]];
                if g[0] == g[1] || g[1] == g[2] || g[0] == g[2] {
                    continue;
                }
                s.triangles.push([(v0 + g[0]) as u32, (v0 + g[1]) as u32, (v0 + g[2]) as u32]);
                s.triangle_body.push(b as u32);
                for k in 0..3 {
                    let (i, j) = (g[k], g[(k + 1) % 3]);
                    edges.insert((i.min(j), i.max(j)));
                }
            }
            let e0 = s.edges.len();
            for (i, j) in edges {
                s.edges.push([(v0 + i) as u32, (v0 + j) as u32]);
                s.edge_body.push(b as u32);
                s.edge_rest2.push((uniq[i] - uniq[j]).length_squared());
            }
            s.body_vertices.push(v0..s.rest.len());
            s.body_edges.push(e0..s.edges.len());
            s.body_triangles.push(t0..s.triangles.len());
            s.mark_flat(b);
        }
        s
    }

    /// Finds body `b`'s flat edges (two triangles on either side, coplanar to 1e-9 of their size), its flat
    /// vertices (every edge at them flat) and the planes the flat edges join its triangles into.
    fn mark_flat(&mut self, b: usize) {
        let (vr, er, tr) = (self.body_vertices[b].clone(), self.body_edges[b].clone(), self.body_triangles[b].clone());
        let at = |v: u32| Vec3::new(self.rest[v as usize][0], self.rest[v as usize][1], self.rest[v as usize][2]);
        // each edge's triangles with their third vertex, and each triangle's edges (k: from vertex k to k + 1)
        let mut sides: Vec<Vec<(usize, u32)>> = vec![Vec::new(); er.len()];
        let mut tri_edges: Vec<[usize; 3]> = Vec::with_capacity(tr.len());
        for t in tr.clone() {
            let tri = self.triangles[t];
            let mut own = [0; 3];
            for k in 0..3 {
                let (i, j) = (tri[k].min(tri[(k + 1) % 3]), tri[k].max(tri[(k + 1) % 3]));
                let e = self.edges[er.clone()].binary_search(&[i, j]).expect("every triangle edge is listed");
                sides[e].push((t, tri[(k + 2) % 3]));
                own[k] = er.start + e;
            }
            tri_edges.push(own);
        }
        let mut plane: Vec<u32> = tr.clone().map(|t| t as u32).collect();
        fn root(plane: &mut [u32], t0: usize, mut t: usize) -> usize {
            while plane[t - t0] as usize != t {
                let up = plane[plane[t - t0] as usize - t0];
                plane[t - t0] = up;
                t = up as usize;
            }
            t
        }
        let mut vertex_flat = vec![true; vr.len()];
        let mut edge_flat = Vec::with_capacity(er.len());
        for (e, side) in sides.iter().enumerate() {
            let [i, j] = self.edges[er.start + e];
            let flat = match side[..] {
                [(ta, a), (tb, bv)] => {
                    let (p, q, ra, rb) = (at(i), at(j), at(a), at(bv));
                    let n = (q - p).cross(ra - p);
                    let m = n.cross(q - p);
                    let size = (q - p).length().max((ra - p).length()).max((rb - p).length());
                    let coplanar = n.dot(rb - p).abs() <= 1e-9 * n.length() * size;
                    if coplanar && m.dot(ra - p) * m.dot(rb - p) < 0.0 {
                        let (ra, rb) = (root(&mut plane, tr.start, ta), root(&mut plane, tr.start, tb));
                        plane[ra.max(rb) - tr.start] = ra.min(rb) as u32;
                        true
                    } else {
                        false
                    }
                }
                _ => false,
            };
            edge_flat.push(flat);
            if !flat {
                vertex_flat[i as usize - vr.start] = false;
                vertex_flat[j as usize - vr.start] = false;
            }
        }
        self.edge_flat.extend(edge_flat);
        for t in tr.clone() {
            let tri = self.triangles[t];
            let mut bits = 0u8;
            for k in 0..3 {
                if self.edge_flat[tri_edges[t - tr.start][k]] {
                    bits |= 1 << k;
                }
                if vertex_flat[tri[k] as usize - vr.start] {
                    bits |= 1 << (3 + k);
                }
            }
            self.triangle_flat.push(bits);
            self.triangle_plane.push(root(&mut plane, tr.start, t) as u32);
        }
    }

    /// World positions of every vertex for the bodies' coordinates `q` (12 per body).
    pub fn positions(&self, q: &[f64], out: &mut Vec<[f64; 3]>) {
        out.clear();
        out.extend(self.rest.iter().zip(&self.vertex_body).map(|(w, &b)| {
            let qb = &q[12 * b as usize..12 * b as usize + 12];
            std::array::from_fn(|i| qb[4 * i] * w[0] + qb[4 * i + 1] * w[1] + qb[4 * i + 2] * w[2] + qb[4 * i + 3])
        }));
    }
}
