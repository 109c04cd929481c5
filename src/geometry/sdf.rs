//! Signed distance fields of the shapes, in the body's reference frame (φ < 0 inside), for the
//! `implicit-penalty` method (Xu, Zhao, Barbič 2014: every body carries a point shell and a distance field).
//!
//! Two kinds behind one [`Sdf::eval`]: a grid sampled exactly and interpolated trilinearly (its gradient that
//! of the interpolant; narrow band with the sign flood-filled; built in parallel, bit-identical for any thread
//! count), and the analytic distance of a primitive (for large static bodies). Both answer `None` outside their
//! box ([`Sdf::bounds`]). See docs/methods/implicit-penalty.md, "Distance fields".

use super::ShapeDesc;
use crate::math::{outer, Mat3, Vec3};
use parry3d_f64::query::PointQueryWithLocation;
use parry3d_f64::shape::{TriMesh, TriMeshFlags};
use rayon::prelude::*;

/// How a grid field is built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SdfParams {
    /// Grid cells along the shape's longest extent (the cell is cubic), at least 4.
    pub resolution: usize,
    /// Narrow-band half-width, m: nodes farther than this from the surface hold ±band. At least two cells.
    pub band: f64,
}

/// Default resolution for primitive shapes (sampled from their exact distance: smooth, few features).
pub const PRIMITIVE_RESOLUTION: usize = 48;
/// Fewest and most cells along the longest extent for meshes.
pub const MESH_RESOLUTION: [usize; 2] = [64, 192];

impl SdfParams {
    /// Defaults scaled to the shape. Primitives: [`PRIMITIVE_RESOLUTION`] cells along the longest extent.
    /// Meshes, convex hulls and generated shapes: two cells per median triangle edge along the longest extent,
    /// clamped to [`MESH_RESOLUTION`] (a threaded bolt gets a finer grid than a smooth bowl). Band: the larger of
    /// six cells and a tenth of the longest extent.
    pub fn for_shape(desc: &ShapeDesc) -> SdfParams {
        let (lo, hi) = shape_box(desc);
        let extent = (hi - lo).max_element();
        let resolution = match median_edge(desc) {
            None => PRIMITIVE_RESOLUTION,
            Some(median) => {
                let r = (2.0 * extent / median.max(1e-300)).ceil();
                (r.min(MESH_RESOLUTION[1] as f64) as usize).max(MESH_RESOLUTION[0])
            }
        };
        let h = extent / resolution as f64;
        SdfParams { resolution, band: (6.0 * h).max(0.1 * extent) }
    }
}

/// A signed distance field in a body's reference frame: a trilinear grid or an exact analytic function.
#[derive(Debug, Clone)]
pub struct Sdf {
    kind: Kind,
    lo: Vec3,
    hi: Vec3,
    /// Where φ < 0 is possible: the shape's box (analytic), grown by one cell (grid: the trilinear interpolant
    /// of a node inside reaches one cell out).
    solid: (Vec3, Vec3),
}

#[derive(Debug, Clone)]
enum Kind {
    Grid(Grid),
    Analytic(Primitive),
    /// A compound shape's parts (a robot link with several collision geometries, or none): φ is the least of
    /// the parts' φ, each in its part's frame (`Sdf::compound`).
    Compound(Vec<(crate::math::Pose, Sdf)>),
}

#[derive(Debug, Clone)]
struct Grid {
    /// Cell size.
    h: f64,
    /// Nodes along x, y, z.
    n: [usize; 3],
    /// φ at the nodes, x fastest.
    phi: Vec<f64>,
    band: f64,
}

impl Grid {
    /// The cell holding the point at `offset` from the grid's low corner: its lowest node and the point's
    /// fractions across it (the last node's cell is the one below it).
    fn cell(&self, offset: Vec3) -> ([usize; 3], [f64; 3]) {
        let u = offset / self.h;
        let mut c = [0usize; 3];
        let mut f = [0.0; 3];
        for i in 0..3 {
            let k = (u[i].floor() as usize).min(self.n[i] - 2);
            c[i] = k;
            f[i] = u[i] - k as f64;
        }
        (c, f)
    }
}

/// The primitives with a closed-form distance.
#[derive(Debug, Clone, Copy)]
enum Primitive {
    Sphere(f64),
    Box(Vec3),
    Capsule(f64, f64),
    Cylinder(f64, f64),
}

impl Primitive {
    fn of(desc: &ShapeDesc) -> Option<Primitive> {
        match desc {
            ShapeDesc::Sphere { radius } => Some(Primitive::Sphere(*radius)),
            ShapeDesc::Box { size } => Some(Primitive::Box(*size * 0.5)),
            ShapeDesc::Capsule { radius, length } => Some(Primitive::Capsule(*radius, length / 2.0)),
            ShapeDesc::Cylinder { radius, length } => Some(Primitive::Cylinder(*radius, length / 2.0)),
            _ => None,
        }
    }

    /// Exact signed distance and its gradient (a unit vector; on the medial axis one of the equal choices).
    fn eval(&self, p: Vec3) -> (f64, Vec3) {
        match *self {
            Primitive::Sphere(r) => {
                let l = p.length();
                (l - r, if l > 0.0 { p / l } else { Vec3::Z })
            }
            Primitive::Box(e) => {
                let q = p.abs() - e;
                let sign = Vec3::new(sgn(p.x), sgn(p.y), sgn(p.z));
                let out = q.max(Vec3::ZERO);
                let lo = out.length();
                if lo > 0.0 {
                    (lo, out / lo * sign)
                } else {
                    // inside: the nearest face (ties to the lowest axis)
                    let (mut axis, mut best) = (0, q.x);
                    for (i, v) in [(1, q.y), (2, q.z)] {
                        if v > best {
                            axis = i;
                            best = v;
                        }
                    }
                    let mut g = Vec3::ZERO;
                    g[axis] = sign[axis];
                    (best, g)
                }
            }
            Primitive::Capsule(r, half) => {
                let c = Vec3::new(0.0, 0.0, p.z.clamp(-half, half));
                let d = p - c;
                let l = d.length();
                (l - r, if l > 0.0 { d / l } else { Vec3::X })
            }
            Primitive::Cylinder(r, half) => {
                let rho = (p.x * p.x + p.y * p.y).sqrt();
                let radial = if rho > 0.0 { Vec3::new(p.x / rho, p.y / rho, 0.0) } else { Vec3::X };
                let axial = Vec3::new(0.0, 0.0, sgn(p.z));
                let (dr, dz) = (rho - r, p.z.abs() - half);
                if dr > 0.0 && dz > 0.0 {
                    let l = (dr * dr + dz * dz).sqrt();
                    (l, (radial * dr + axial * dz) / l)
                } else if dr > dz {
                    (dr, radial)
                } else {
                    (dz, axial)
                }
            }
        }
    }
}

impl Primitive {
    /// ∇²φ where φ is smooth (zero where φ is linear: a box's inside, a cylinder's caps); on the medial axis that
    /// of the gradient [`Primitive::eval`] chose.
    fn hessian(&self, p: Vec3) -> Mat3 {
        // (I − ĝĝᵀ)/l restricted to the directions not in `fixed` (a unit vector, or zero)
        let round = |d: Vec3, fixed: Vec3| {
            let l = d.length();
            if l > 0.0 {
                let g = d / l;
                (Mat3::IDENTITY - outer(g, g) - outer(fixed, fixed)) / l
            } else {
                Mat3::ZERO
            }
        };
        match *self {
            Primitive::Sphere(_) => round(p, Vec3::ZERO),
            Primitive::Box(e) => {
                let q = p.abs() - e;
                let out = q.max(Vec3::ZERO);
                let lo = out.length();
                if lo > 0.0 {
                    // in the mirrored frame, (P − n nᵀ)/lo with P the projection on the axes outside
                    let sign = Vec3::new(sgn(p.x), sgn(p.y), sgn(p.z));
                    let n = out / lo * sign;
                    let on = Vec3::new((q.x > 0.0) as u8 as f64, (q.y > 0.0) as u8 as f64, (q.z > 0.0) as u8 as f64);
                    (Mat3::from_diagonal(on) - outer(n, n)) / lo
                } else {
                    Mat3::ZERO
                }
            }
            Primitive::Capsule(_, half) => {
                if p.z.abs() < half {
                    round(Vec3::new(p.x, p.y, 0.0), Vec3::Z)
                } else {
                    round(p - Vec3::new(0.0, 0.0, p.z.clamp(-half, half)), Vec3::ZERO)
                }
            }
            Primitive::Cylinder(r, half) => {
                let rho = (p.x * p.x + p.y * p.y).sqrt();
                if rho == 0.0 {
                    return Mat3::ZERO;
                }
                let radial = Vec3::new(p.x / rho, p.y / rho, 0.0);
                let axial = Vec3::new(0.0, 0.0, sgn(p.z));
                let ring = (Mat3::IDENTITY - outer(Vec3::Z, Vec3::Z) - outer(radial, radial)) / rho;
                let (dr, dz) = (rho - r, p.z.abs() - half);
                if dr > 0.0 && dz > 0.0 {
                    // φ = |(dr, dz)|: (∇dr∇drᵀ + dr∇²ρ + ∇dz∇dzᵀ − ∇φ∇φᵀ)/φ
                    let l = (dr * dr + dz * dz).sqrt();
                    let g = (radial * dr + axial * dz) / l;
                    (outer(radial, radial) + ring * dr + outer(axial, axial) - outer(g, g)) / l
                } else if dr > dz {
                    ring
                } else {
                    Mat3::ZERO
                }
            }
        }
    }
}

fn sgn(x: f64) -> f64 {
    if x < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// The median triangle edge length of a shape given by a mesh (None for primitives).
pub(crate) fn median_edge(desc: &ShapeDesc) -> Option<f64> {
    let (v, t) = mesh_of(desc)?;
    let mut edges: Vec<f64> = t
        .iter()
        .flat_map(|t| {
            let p = [v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]];
            [(p[1] - p[0]).length(), (p[2] - p[1]).length(), (p[0] - p[2]).length()]
        })
        .collect();
    edges.sort_by(f64::total_cmp);
    edges.get(edges.len() / 2).copied()
}

/// The shape's triangle mesh when its field comes from one (convex hulls, meshes, generated shapes).
fn mesh_of(desc: &ShapeDesc) -> Option<(Vec<Vec3>, Vec<[u32; 3]>)> {
    match desc {
        ShapeDesc::Convex { points } => {
            let hull = parry3d_f64::shape::SharedShape::convex_hull(points)?;
            Some(hull.as_convex_polyhedron()?.to_trimesh())
        }
        ShapeDesc::Mesh { mesh, .. } | ShapeDesc::Generated { mesh, .. } => Some((mesh.vertices.clone(), mesh.triangles.clone())),
        _ => None,
    }
}

/// The shape's bounding box in its reference frame.
pub(crate) fn shape_box(desc: &ShapeDesc) -> (Vec3, Vec3) {
    match desc {
        ShapeDesc::Sphere { radius } => (Vec3::splat(-radius), Vec3::splat(*radius)),
        ShapeDesc::Box { size } => (-*size * 0.5, *size * 0.5),
        ShapeDesc::Capsule { radius, length } => {
            let e = Vec3::new(*radius, *radius, radius + length / 2.0);
            (-e, e)
        }
        ShapeDesc::Cylinder { radius, length } => {
            let e = Vec3::new(*radius, *radius, length / 2.0);
            (-e, e)
        }
        ShapeDesc::Convex { points } => bbox(points),
        ShapeDesc::Mesh { mesh, .. } | ShapeDesc::Generated { mesh, .. } => bbox(&mesh.vertices),
        ShapeDesc::Compound { parts } => super::compound::bounds(parts),
    }
}

fn bbox(points: &[Vec3]) -> (Vec3, Vec3) {
    points.iter().fold((Vec3::splat(f64::INFINITY), Vec3::splat(f64::NEG_INFINITY)), |(lo, hi), p| (lo.min(*p), hi.max(*p)))
}

impl Sdf {
    /// Builds the grid field of a shape. Errors: parameters out of range, a mesh that is not closed and
    /// outward oriented (the sign needs an inside), a non-finite or empty shape.
    pub fn build(desc: &ShapeDesc, params: &SdfParams) -> Result<Sdf, String> {
        if let ShapeDesc::Compound { parts } = desc {
            // each part exact where it is a primitive, else a grid at its own default resolution
            return Sdf::compound(parts, |part| {
                let p = SdfParams::for_shape(part);
                Sdf::analytic(part, p.band).map_or_else(|| Sdf::build(part, &p), Ok)
            });
        }
        let (slo, shi) = shape_box(desc);
        let extent = (shi - slo).max_element();
        if !(extent.is_finite() && extent > 0.0) {
            return Err(format!("the {} shape has no finite, positive extent", desc.type_name()));
        }
        if params.resolution < 4 || params.resolution > 4096 {
            return Err(format!("SDF resolution must be a whole number from 4 to 4096, got {}", params.resolution));
        }
        let h = extent / params.resolution as f64;
        if !(params.band.is_finite() && params.band >= 2.0 * h) {
            return Err(format!(
                "SDF band must be at least two cells ({:.3e} m for resolution {}), got {}",
                2.0 * h,
                params.resolution,
                params.band
            ));
        }
        let margin = params.band + h;
        let lo = slo - Vec3::splat(margin);
        let span = shi + Vec3::splat(margin) - lo;
        let n = [0, 1, 2].map(|i| (span[i] / h).ceil() as usize + 1);
        let count = n[0].checked_mul(n[1]).and_then(|c| c.checked_mul(n[2])).filter(|&c| c <= 1 << 31);
        let count = count.ok_or_else(|| format!("SDF grid of {}×{}×{} nodes is too large", n[0], n[1], n[2]))?;
        let node = |i: usize| {
            let (x, yz) = (i % n[0], i / n[0]);
            lo + Vec3::new(x as f64, (yz % n[1]) as f64, (yz / n[1]) as f64) * h
        };
        let band = params.band;
        let phi: Vec<f64> = if let Some(prim) = Primitive::of(desc) {
            (0..count).into_par_iter().map(|i| prim.eval(node(i)).0.clamp(-band, band)).collect()
        } else {
            if let ShapeDesc::Mesh { mesh: m, .. } | ShapeDesc::Generated { mesh: m, .. } = desc {
                m.check_closed().map_err(|e| format!("a distance field needs a closed, outward-oriented mesh: {e}"))?;
                if super::mass::mesh(&m.vertices, &m.triangles).volume <= 0.0 {
                    return Err("a distance field needs an outward-oriented mesh (this one has negative volume)".into());
                }
            }
            let (v, t) = mesh_of(desc).ok_or("the convex hull failed")?;
            let mesh = TriMesh::with_flags(v, t, TriMeshFlags::ORIENTED)
                .map_err(|e| format!("the {} shape is not a valid triangle mesh: {e}", desc.type_name()))?;
            // NaN marks a node beyond the band: its sign comes from the flood fill below
            let raw: Vec<f64> = (0..count)
                .into_par_iter()
                .map(|i| {
                    let p = node(i);
                    match mesh.project_local_point_and_get_location_with_max_dist(p, false, band) {
                        Some((proj, _)) => {
                            let d = (proj.point - p).length();
                            if proj.is_inside {
                                -d
                            } else {
                                d
                            }
                        }
                        None => f64::NAN,
                    }
                })
                .collect();
            flood_signs(raw, n, band)
        };
        Ok(Sdf {
            kind: Kind::Grid(Grid { h, n, phi, band }),
            lo,
            hi: lo + Vec3::new(n[0] as f64 - 1.0, n[1] as f64 - 1.0, n[2] as f64 - 1.0) * h,
            solid: (slo - Vec3::splat(h), shi + Vec3::splat(h)),
        })
    }

    /// The exact analytic field of a sphere, box, capsule or cylinder (None for other shapes); defined on the
    /// shape's box grown by `band`.
    pub fn analytic(desc: &ShapeDesc, band: f64) -> Option<Sdf> {
        let prim = Primitive::of(desc)?;
        let (lo, hi) = shape_box(desc);
        let m = Vec3::splat(band.max(0.0));
        Some(Sdf { kind: Kind::Analytic(prim), lo: lo - m, hi: hi + m, solid: (lo, hi) })
    }

    /// The field of a compound shape: each part's field (`part`: analytic or grid, in the part's frame) placed by
    /// its pose; φ is the least over the parts where defined (the union of the solids), its gradient the least
    /// part's. A compound with no parts has a field defined nowhere: nothing touches it.
    pub fn compound(parts: &[(crate::math::Pose, ShapeDesc)], part: impl Fn(&ShapeDesc) -> Result<Sdf, String>) -> Result<Sdf, String> {
        let mut out = Vec::new();
        let (mut lo, mut hi) = (Vec3::splat(f64::INFINITY), Vec3::splat(f64::NEG_INFINITY));
        let (mut slo, mut shi) = (lo, hi);
        let corners = |pose: &crate::math::Pose, (a, b): (Vec3, Vec3), lo: &mut Vec3, hi: &mut Vec3| {
            for k in 0..8 {
                let c =
                    Vec3::new(if k & 1 == 0 { a.x } else { b.x }, if k & 2 == 0 { a.y } else { b.y }, if k & 4 == 0 { a.z } else { b.z });
                let p = pose.transform_point(c);
                *lo = lo.min(p);
                *hi = hi.max(p);
            }
        };
        for (k, (pose, desc)) in parts.iter().enumerate() {
            let f = part(desc).map_err(|e| format!("part {k} ({}): {e}", desc.type_name()))?;
            corners(pose, (f.lo, f.hi), &mut lo, &mut hi);
            corners(pose, f.solid, &mut slo, &mut shi);
            out.push((*pose, f));
        }
        if out.is_empty() {
            // defined nowhere: lo above hi, so every point is outside
            let (lo, hi) = (Vec3::splat(f64::INFINITY), Vec3::splat(f64::NEG_INFINITY));
            return Ok(Sdf { kind: Kind::Compound(out), lo, hi, solid: (lo, hi) });
        }
        Ok(Sdf { kind: Kind::Compound(out), lo, hi, solid: (slo, shi) })
    }

    /// Whether the box of centre `c` and half-extents `half` (body frame) may hold a point with φ < 0: it
    /// overlaps the solid's box (see the field `solid`). False means no point of the box penetrates.
    pub fn may_penetrate(&self, c: Vec3, half: Vec3) -> bool {
        (c - half).cmple(self.solid.1).all() && (c + half).cmpge(self.solid.0).all()
    }

    /// True for the analytic kind.
    pub fn is_analytic(&self) -> bool {
        matches!(self.kind, Kind::Analytic(_))
    }

    /// Cell size of a grid field (None for the analytic kind).
    pub fn cell_size(&self) -> Option<f64> {
        match &self.kind {
            Kind::Grid(g) => Some(g.h),
            Kind::Analytic(_) => None,
            Kind::Compound(parts) => parts.iter().filter_map(|(_, f)| f.cell_size()).reduce(f64::min),
        }
    }

    /// Narrow-band half-width of a grid field (None for the analytic kind, which is exact everywhere).
    pub fn band(&self) -> Option<f64> {
        match &self.kind {
            Kind::Grid(g) => Some(g.band),
            Kind::Analytic(_) => None,
            Kind::Compound(parts) => parts.iter().filter_map(|(_, f)| f.band()).reduce(f64::min),
        }
    }

    /// Grid nodes along x, y, z (zeros for the analytic kind).
    pub fn nodes(&self) -> [usize; 3] {
        match &self.kind {
            Kind::Grid(g) => g.n,
            Kind::Analytic(_) => [0; 3],
            // the parts' node counts, as one row of x
            Kind::Compound(parts) => {
                let n: usize = parts.iter().map(|(_, f)| f.nodes().iter().product::<usize>()).sum();
                [n, usize::from(n > 0), usize::from(n > 0)]
            }
        }
    }

    /// [`Sdf::eval`], and beyond the field's box where it is analytic (exact everywhere).
    pub fn eval_far(&self, p: &Vec3) -> Option<(f64, Vec3)> {
        match &self.kind {
            Kind::Analytic(prim) => Some(prim.eval(*p)),
            _ => self.eval(p),
        }
    }

    /// [`Sdf::hessian`], and beyond the field's box where it is analytic.
    pub fn hessian_far(&self, p: &Vec3) -> Mat3 {
        match &self.kind {
            Kind::Analytic(prim) => prim.hessian(*p),
            _ => self.hessian(p),
        }
    }

    /// φ and its gradient (of the trilinear interpolant, body frame) at a body-frame point; None outside the
    /// grid's box.
    pub fn eval(&self, p: &Vec3) -> Option<(f64, Vec3)> {
        if !(p.cmpge(self.lo).all() && p.cmple(self.hi).all()) {
            return None;
        }
        match &self.kind {
            Kind::Analytic(prim) => Some(prim.eval(*p)),
            Kind::Compound(parts) => {
                let mut best: Option<(f64, Vec3)> = None;
                for (pose, f) in parts {
                    if let Some((phi, g)) = f.eval(&pose.inverse_transform_point(*p)) {
                        if best.is_none_or(|(b, _)| phi < b) {
                            best = Some((phi, pose.rotation * g));
                        }
                    }
                }
                best
            }
            Kind::Grid(g) => {
                let (c, f) = g.cell(*p - self.lo);
                let at = |dx: usize, dy: usize, dz: usize| g.phi[(c[0] + dx) + g.n[0] * ((c[1] + dy) + g.n[1] * (c[2] + dz))];
                let (x0, y0, z0) = (1.0 - f[0], 1.0 - f[1], 1.0 - f[2]);
                let (v000, v100, v010, v110) = (at(0, 0, 0), at(1, 0, 0), at(0, 1, 0), at(1, 1, 0));
                let (v001, v101, v011, v111) = (at(0, 0, 1), at(1, 0, 1), at(0, 1, 1), at(1, 1, 1));
                // along x on the four edges, then y, then z
                let e00 = v000 * x0 + v100 * f[0];
                let e10 = v010 * x0 + v110 * f[0];
                let e01 = v001 * x0 + v101 * f[0];
                let e11 = v011 * x0 + v111 * f[0];
                let s0 = e00 * y0 + e10 * f[1];
                let s1 = e01 * y0 + e11 * f[1];
                let phi = s0 * z0 + s1 * f[2];
                let dx0 = (v100 - v000) * y0 + (v110 - v010) * f[1];
                let dx1 = (v101 - v001) * y0 + (v111 - v011) * f[1];
                let gx = dx0 * z0 + dx1 * f[2];
                let gy = (e10 - e00) * z0 + (e11 - e01) * f[2];
                let gz = s1 - s0;
                Some((phi, Vec3::new(gx, gy, gz) / g.h))
            }
        }
    }

    /// ∇²φ at `p` (zero outside the field's box): the primitive's where analytic, the part's of least φ
    /// (turned into this frame) for a compound, and the trilinear interpolant's within its cell for a grid (its
    /// diagonal is zero: φ is linear along each axis within a cell).
    pub fn hessian(&self, p: &Vec3) -> Mat3 {
        if !(p.cmpge(self.lo).all() && p.cmple(self.hi).all()) {
            return Mat3::ZERO;
        }
        match &self.kind {
            Kind::Analytic(prim) => prim.hessian(*p),
            Kind::Compound(parts) => {
                let mut best: Option<(f64, Mat3)> = None;
                for (pose, f) in parts {
                    let q = pose.inverse_transform_point(*p);
                    if let Some((phi, _)) = f.eval(&q) {
                        if best.is_none_or(|(b, _)| phi < b) {
                            let r = Mat3::from_quat(pose.rotation);
                            best = Some((phi, r * f.hessian(&q) * r.transpose()));
                        }
                    }
                }
                best.map_or(Mat3::ZERO, |b| b.1)
            }
            Kind::Grid(g) => {
                let (c, f) = g.cell(*p - self.lo);
                let at = |dx: usize, dy: usize, dz: usize| g.phi[(c[0] + dx) + g.n[0] * ((c[1] + dy) + g.n[1] * (c[2] + dz))];
                // the mixed differences of the cell's corners, bilinear in the third coordinate
                let lerp = |a: f64, b: f64, t: f64| a * (1.0 - t) + b * t;
                let dxy = |z: usize| at(1, 1, z) - at(0, 1, z) - at(1, 0, z) + at(0, 0, z);
                let dxz = |y: usize| at(1, y, 1) - at(0, y, 1) - at(1, y, 0) + at(0, y, 0);
                let dyz = |x: usize| at(x, 1, 1) - at(x, 0, 1) - at(x, 1, 0) + at(x, 0, 0);
                let (hxy, hxz, hyz) = (lerp(dxy(0), dxy(1), f[2]), lerp(dxz(0), dxz(1), f[1]), lerp(dyz(0), dyz(1), f[0]));
                Mat3::from_cols(Vec3::new(0.0, hxy, hxz), Vec3::new(hxy, 0.0, hyz), Vec3::new(hxz, hyz, 0.0)) / (g.h * g.h)
            }
        }
    }

    /// Whether φ and its gradient are closed forms (a primitive, or a compound of primitives), not a grid's
    /// interpolation.
    pub fn is_exact(&self) -> bool {
        match &self.kind {
            Kind::Grid(_) => false,
            Kind::Analytic(_) => true,
            Kind::Compound(parts) => parts.iter().all(|(_, f)| f.is_exact()),
        }
    }

    /// Heap bytes held by the field (its node values; 0 for the analytic kind) plus the struct itself.
    pub fn memory_bytes(&self) -> usize {
        let nodes = match &self.kind {
            Kind::Grid(g) => g.phi.capacity() * std::mem::size_of::<f64>(),
            Kind::Analytic(_) => 0,
            Kind::Compound(parts) => parts.iter().map(|(_, f)| f.memory_bytes()).sum(),
        };
        std::mem::size_of::<Sdf>() + nodes
    }

    /// The box on which the field is defined (grid box, body frame).
    pub fn bounds(&self) -> (Vec3, Vec3) {
        (self.lo, self.hi)
    }
}

/// Replaces the NaN nodes (farther than `band` from the surface) by ±band with the sign of a grid neighbour,
/// breadth first from the nodes that have a value, in node order (deterministic).
fn flood_signs(mut phi: Vec<f64>, n: [usize; 3], band: f64) -> Vec<f64> {
    let mut queue: std::collections::VecDeque<usize> = (0..phi.len()).filter(|&i| !phi[i].is_nan()).collect();
    let stride = [1, n[0], n[0] * n[1]];
    while let Some(i) = queue.pop_front() {
        let s = if phi[i] < 0.0 { -band } else { band };
        let coord = [i % n[0], (i / n[0]) % n[1], i / (n[0] * n[1])];
        for a in 0..3 {
            for up in [false, true] {
                let j = match (up, coord[a]) {
                    (false, 0) => continue,
                    (false, _) => i - stride[a],
                    (true, c) if c + 1 == n[a] => continue,
                    (true, _) => i + stride[a],
                };
                if phi[j].is_nan() {
                    phi[j] = s;
                    queue.push_back(j);
                }
            }
        }
    }
    phi
}

#[cfg(test)]
#[path = "sdf_tests.rs"]
mod tests;
