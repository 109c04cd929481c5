//! Point shells for the `implicit-penalty` method (Xu, Zhao, Barbič 2014): points on a body's surface with the body's
//! INWARD unit normals, in its reference frame, tested against other bodies' distance fields.
//!
//! Points are spread evenly to a target spacing, deterministically (lattices and spirals), then put in Morton
//! order in blocks of [`BLOCK`] with bounding boxes, so that contact evaluation can skip blocks that cannot reach
//! the other body's solid. See docs/methods/implicit-penalty.md, "Point shells".

use super::ShapeDesc;
use crate::math::Vec3;
use std::collections::BTreeMap;
use std::f64::consts::{PI, TAU};

/// Points per culling block of a shell.
pub const BLOCK: usize = 32;

/// Surface points and inward unit normals, body frame.
#[derive(Debug, Clone, Default)]
pub struct PointShell {
    pub points: Vec<Vec3>,
    /// INWARD unit normals, body frame.
    pub normals: Vec<Vec3>,
    /// Per run of [`BLOCK`] points (the last may be shorter): the centre and half-extents of its bounding box.
    pub blocks: Vec<(Vec3, Vec3)>,
}

/// Default spacing. Spheres, boxes, capsules and cylinders: a tenth of the shape's longest extent (a unit
/// cube gets 600 points; a twentieth, 2,400, made pyramid20 test 200,000 points per step to no gain: its
/// half-face contacts hold with either, and the implicit method's cost is per point). Meshes, convex hulls and generated shapes: their median triangle edge, clamped to
/// [1/20, 1/10] of the longest extent, since the vertices are points already (a bowl of the bundled scenes gets
/// about 1,600 points, a 12-point rock a few hundred). Vertices are kept in any case, so detailed meshes
/// (threads) are denser than this.
pub fn default_spacing(desc: &ShapeDesc) -> f64 {
    let (lo, hi) = super::sdf::shape_box(desc);
    let extent = (hi - lo).max_element();
    match super::sdf::median_edge(desc) {
        Some(m) => m.clamp(extent / 20.0, extent / 10.0),
        None => extent / 10.0,
    }
}

/// A shape's longest extent.
fn part_extent(desc: &ShapeDesc) -> f64 {
    let (lo, hi) = super::sdf::shape_box(desc);
    (hi - lo).max_element()
}

/// Divisions of a length to a spacing (at least one).
fn divisions(length: f64, spacing: f64) -> usize {
    ((length / spacing).ceil() as usize).max(1)
}

impl PointShell {
    /// The shell of a shape at `spacing` (m, > 0, and at least 1/2000 of the shape's longest extent, so a shell
    /// stays below a few million points).
    pub fn build(desc: &ShapeDesc, spacing: f64) -> Result<PointShell, String> {
        if super::compound::collides_with_nothing(desc) {
            return Ok(PointShell::default());
        }
        let extent = part_extent(desc);
        if !(spacing.is_finite() && spacing > 0.0) {
            return Err(format!("point-shell spacing must be a positive number, got {spacing}"));
        }
        if spacing < extent / 2000.0 {
            return Err(format!(
                "point-shell spacing {spacing} is below 1/2000 of the {} shape's extent {extent} (too many points)",
                desc.type_name()
            ));
        }
        let mut s = PointShell::default();
        match desc {
            ShapeDesc::Sphere { radius } => s.sphere_cap(Vec3::ZERO, *radius, spacing, 1.0, 1.0),
            ShapeDesc::Box { size } => s.cuboid(*size * 0.5, spacing),
            ShapeDesc::Capsule { radius, length } => {
                let half = length / 2.0;
                s.side(*radius, half, spacing, false);
                s.sphere_cap(Vec3::new(0.0, 0.0, half), *radius, spacing, 1.0, 0.5);
                s.sphere_cap(Vec3::new(0.0, 0.0, -half), *radius, spacing, -1.0, 0.5);
            }
            ShapeDesc::Cylinder { radius, length } => {
                let half = length / 2.0;
                s.side(*radius, half, spacing, true);
                s.disc(*radius, half, spacing);
                s.disc(*radius, -half, spacing);
            }
            ShapeDesc::Convex { points } => {
                let hull = parry3d_f64::shape::SharedShape::convex_hull(points).ok_or("the points have no 3-D convex hull")?;
                let (v, t) = hull.as_convex_polyhedron().ok_or("convex hull failed")?.to_trimesh();
                s.mesh(&v, &t, spacing)?;
            }
            ShapeDesc::Mesh { mesh, .. } | ShapeDesc::Generated { mesh, .. } => s.mesh(&mesh.vertices, &mesh.triangles, spacing)?,
            // each part's shell at the body's spacing, placed by its pose (none for a compound without parts)
            ShapeDesc::Compound { parts } => {
                for (k, (pose, part)) in parts.iter().enumerate() {
                    let p = PointShell::build(part, spacing.max(part_extent(part) / 2000.0))
                        .map_err(|e| format!("part {k} ({}): {e}", part.type_name()))?;
                    s.points.extend(p.points.iter().map(|x| pose.transform_point(*x)));
                    s.normals.extend(p.normals.iter().map(|n| pose.rotation * *n));
                }
            }
        }
        if s.points.iter().chain(&s.normals).any(|v| !v.is_finite()) {
            return Err(format!("the {} shape's point shell has a non-finite point or normal", desc.type_name()));
        }
        s.order_in_blocks();
        Ok(s)
    }

    /// Sorts the points along the Z-curve over the cube on their bounding box (10 bits per axis; ties keep their order)
    /// and computes the blocks' boxes.
    fn order_in_blocks(&mut self) {
        let (lo, hi) =
            self.points.iter().fold((Vec3::splat(f64::INFINITY), Vec3::splat(f64::NEG_INFINITY)), |(l, h), p| (l.min(*p), h.max(*p)));
        // one scale for the three axes, so that a block is compact in space, not in normalised coordinates
        let span = Vec3::splat((hi - lo).max_element().max(1e-300));
        let spread = |v: u64| {
            // the 10 bits of v at every third position
            let mut x = v & 0x3ff;
            x = (x | (x << 16)) & 0x0300_00ff;
            x = (x | (x << 8)) & 0x0300_f00f;
            x = (x | (x << 4)) & 0x030c_30c3;
            (x | (x << 2)) & 0x0924_9249
        };
        let code = |p: &Vec3| {
            let u = (*p - lo) / span * 1023.0;
            spread(u.x as u64) | (spread(u.y as u64) << 1) | (spread(u.z as u64) << 2)
        };
        let mut order: Vec<usize> = (0..self.points.len()).collect();
        order.sort_by_key(|&i| code(&self.points[i]));
        self.points = order.iter().map(|&i| self.points[i]).collect();
        self.normals = order.iter().map(|&i| self.normals[i]).collect();
        self.blocks = self
            .points
            .chunks(BLOCK)
            .map(|c| {
                let (l, h) = c.iter().fold((c[0], c[0]), |(l, h), p| (l.min(*p), h.max(*p)));
                ((l + h) * 0.5, (h - l) * 0.5)
            })
            .collect();
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// True when there is no point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Heap bytes of the points and normals plus the struct.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<PointShell>()
            + (self.points.capacity() + self.normals.capacity() + 2 * self.blocks.capacity()) * std::mem::size_of::<Vec3>()
    }

    fn push(&mut self, p: Vec3, outward: Vec3) {
        self.points.push(p);
        self.normals.push(-outward.normalize());
    }

    /// On each face of the box, the centres of a lattice of ⌈edge/spacing⌉ cells per edge, with the face's
    /// normal: no point on an edge or corner, whose mixed normals would push stacked boxes apart and brake a sliding
    /// box by its leading edge. The cost: an edge or corner meets a face only once it is half a cell deep.
    fn cuboid(&mut self, e: Vec3, spacing: f64) {
        for axis in 0..3 {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let (nu, nv) = (divisions(2.0 * e[u], spacing), divisions(2.0 * e[v], spacing));
            for side in [-1.0, 1.0] {
                let mut out = Vec3::ZERO;
                out[axis] = side;
                for j in 0..nv {
                    for i in 0..nu {
                        let mut p = out * e[axis];
                        p[u] = e[u] * (2.0 * (i as f64 + 0.5) / nu as f64 - 1.0);
                        p[v] = e[v] * (2.0 * (j as f64 + 0.5) / nv as f64 - 1.0);
                        self.push(p, out);
                    }
                }
            }
        }
    }

    /// Fibonacci spiral on the part of a sphere (centre c, radius r) where sign·cos(polar angle) ≥ 1 − 2·fraction
    /// (fraction 1: the whole sphere; 1/2 with sign ±1: the half-sphere towards ±z).
    fn sphere_cap(&mut self, c: Vec3, r: f64, spacing: f64, sign: f64, fraction: f64) {
        let count = ((4.0 * PI * r * r * fraction / (spacing * spacing)).ceil() as usize).max(1);
        let golden = PI * (3.0 - 5f64.sqrt());
        for i in 0..count {
            // z from the pole down to the cap's edge, point centred in its band of equal area
            let z = 1.0 - 2.0 * fraction * (i as f64 + 0.5) / count as f64;
            let rho = (1.0 - z * z).max(0.0).sqrt();
            let a = golden * i as f64;
            let d = Vec3::new(rho * a.cos(), rho * a.sin(), sign * z);
            self.push(c + d * r, d);
        }
    }

    /// Rings on the side of a cylinder of radius r from z = −half to half; `rims` adds the rim circles (with the
    /// mean of side and cap normals), otherwise the rings stop short of the ends (capsules: the caps start there).
    fn side(&mut self, r: f64, half: f64, spacing: f64, rims: bool) {
        let around = divisions(TAU * r, spacing).max(3);
        let rows = divisions(2.0 * half, spacing);
        for k in 0..=rows {
            let z = -half + 2.0 * half * k as f64 / rows as f64;
            let end = k == 0 || k == rows;
            if end && !rims {
                continue; // a capsule's caps start here: their spirals cover the equator
            }
            for s in 0..around {
                let a = TAU * s as f64 / around as f64;
                let radial = Vec3::new(a.cos(), a.sin(), 0.0);
                let out = if end { radial + Vec3::new(0.0, 0.0, z.signum()) } else { radial };
                self.push(radial * r + Vec3::new(0.0, 0.0, z), out);
            }
        }
    }

    /// Concentric rings on a cylinder's end cap at height z (the rim itself belongs to the side).
    fn disc(&mut self, r: f64, z: f64, spacing: f64) {
        let out = Vec3::new(0.0, 0.0, z.signum());
        self.push(Vec3::new(0.0, 0.0, z), out);
        let rings = divisions(r, spacing);
        for k in 1..rings {
            let rr = r * k as f64 / rings as f64;
            let around = divisions(TAU * rr, spacing).max(3);
            for s in 0..around {
                let a = TAU * s as f64 / around as f64;
                self.push(Vec3::new(rr * a.cos(), rr * a.sin(), z), out);
            }
        }
    }

    /// Vertices, edge points and face lattices of a closed, outward-oriented triangle mesh.
    fn mesh(&mut self, v: &[Vec3], t: &[[u32; 3]], spacing: f64) -> Result<(), String> {
        let face_normal = |f: &[u32; 3]| (v[f[1] as usize] - v[f[0] as usize]).cross(v[f[2] as usize] - v[f[0] as usize]);
        // vertices: angle-weighted pseudo-normals
        let mut vn = vec![Vec3::ZERO; v.len()];
        for f in t {
            let n = face_normal(f).normalize_or_zero();
            for c in 0..3 {
                let (a, b, o) = (v[f[(c + 1) % 3] as usize], v[f[(c + 2) % 3] as usize], v[f[c] as usize]);
                vn[f[c] as usize] += n * (a - o).angle_between(b - o);
            }
        }
        for (p, n) in v.iter().zip(&vn) {
            // a vertex no triangle uses, or one whose faces have no area or cancel out (a hull of a public
            // robot's mesh keeps such slivers where points nearly coincide): no direction to push it along; the
            // points along its edges and faces carry the surface there
            if n.length() > 0.0 {
                self.push(*p, *n);
            }
        }
        // edges: each undirected edge once (sorted map: deterministic), with the sum of its faces' normals
        let mut edges: BTreeMap<(u32, u32), Vec3> = BTreeMap::new();
        for f in t {
            let n = face_normal(f).normalize_or_zero();
            for c in 0..3 {
                let (a, b) = (f[c], f[(c + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_insert(Vec3::ZERO) += n;
            }
        }
        for (&(a, b), n) in &edges {
            let (pa, pb) = (v[a as usize], v[b as usize]);
            let m = divisions((pb - pa).length(), spacing);
            if n.length() < 1e-12 {
                continue; // a knife edge: its end vertices carry it
            }
            for k in 1..m {
                self.push(pa + (pb - pa) * (k as f64 / m as f64), *n);
            }
        }
        // faces: barycentric lattice strictly inside
        for f in t {
            let (a, b, c) = (v[f[0] as usize], v[f[1] as usize], v[f[2] as usize]);
            let longest = (b - a).length().max((c - b).length()).max((a - c).length());
            let m = divisions(longest, spacing);
            let n = face_normal(f);
            if n.length() == 0.0 {
                continue;
            }
            for i in 1..m {
                for j in 1..m - i {
                    let (u, w) = (i as f64 / m as f64, j as f64 / m as f64);
                    self.push(a + (b - a) * u + (c - a) * w, n);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "point_shell_tests.rs"]
mod tests;
