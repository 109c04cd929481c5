//! MJCF mesh assets as MuJoCo's compiler reads them, and primitive geoms fitted to a mesh (`type="capsule"
//! mesh="…"`, also sphere, cylinder, box and ellipsoid).
//!
//! MuJoCo places a mesh in its own frame: refpos subtracted, turned by refquat's inverse, scaled; then moved to
//! its centre of mass and principal axes of inertia (the moments in decreasing order, so z is the axis of the
//! smallest moment, the longest). A fitted primitive takes its size from the mesh's equivalent inertia box
//! (half-sides b_i = ½√(6 (I_j + I_k − I_i)/V)) or, under `<compiler fitaabb="true">`, from the mesh's
//! axis-aligned bounding box in that frame (the smallest primitive whose box holds it, centred on the box), times
//! the geom's `fitscale`; its frame is the geom's pos/quat composed with the mesh's frame. The volume, centre and
//! inertia follow the asset's `inertia`: "legacy" (MuJoCo's default: every face's pyramid counted positive),
//! "exact" or "convex" (the convex hull); "shell" is refused for a fit.

use super::context::Ctx;
use crate::geometry::mesh::{self, TriMeshData};
use crate::math::{Mat3, Pose, Quat, Vec3};
use roxmltree::Node;
use std::path::PathBuf;

/// How MuJoCo computes a mesh's volume and inertia (`<mesh inertia>`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum MeshInertia {
    Legacy,
    Exact,
    Convex,
    Shell,
}

/// A `<mesh>` asset: its file and the transformation MuJoCo applies to its vertices.
#[derive(Clone, Debug)]
pub(super) struct MeshAsset {
    pub file: PathBuf,
    pub scale: Vec3,
    pub refpos: Vec3,
    pub refquat: Quat,
    pub inertia: MeshInertia,
    /// Whether the file sets `inertia` (a mesh geom's own mass does not follow it: noted).
    pub inertia_set: bool,
}

impl MeshInertia {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "legacy" => Self::Legacy,
            "exact" => Self::Exact,
            "convex" => Self::Convex,
            "shell" => Self::Shell,
            _ => return None,
        })
    }
}

/// The mesh asset `name`'s triangles in the geom's frame as MuJoCo places them before its own recentring:
/// refpos subtracted, turned by refquat's inverse, scaled. Also returns the asset.
pub(super) fn mesh_data(cx: &Ctx, n: Node, name: &str) -> Result<(TriMeshData, MeshAsset), String> {
    let a = cx.meshes.get(name).cloned().ok_or_else(|| cx.src.at(n, format!("unknown mesh asset `{name}`")))?;
    let mut m = mesh::load(&a.file).map_err(|e| cx.src.at(n, e.0))?;
    let back = a.refquat.inverse();
    for v in &mut m.vertices {
        *v = back * (*v - a.refpos);
    }
    Ok((m.scaled(a.scale), a))
}

/// A primitive fitted to a mesh: its MuJoCo size (radius, half-length, half-sides as the type has them) and
/// its pose in the geom's frame (the mesh's centre of mass and principal axes, moved to the bounding box's
/// centre under `fitaabb`).
pub(super) struct Fitted {
    pub size: Vec<f64>,
    pub pose: Pose,
}

/// The geom `ty` fitted to `mesh` (compiler `fitaabb` from `cx`), its sizes scaled by `fitscale`.
pub(super) fn fit(cx: &Ctx, n: Node, ty: &str, name: &str, fitscale: f64) -> Result<Fitted, String> {
    const TYPES: &str = "sphere, capsule, cylinder, box, ellipsoid (and `mesh` for the mesh itself)";
    if !matches!(ty, "sphere" | "capsule" | "cylinder" | "box" | "ellipsoid") {
        return Err(cx.src.at(n, format!("a `{ty}` geom cannot be fitted to mesh `{name}`; a geom with `mesh` has type {TYPES}")));
    }
    if !(fitscale > 0.0 && fitscale.is_finite()) {
        return Err(cx.src.at(n, format!("`fitscale` must be > 0, got {fitscale}")));
    }
    let (m, asset) = mesh_data(cx, n, name)?;
    let bad = |why: String| cx.src.at(n, format!("cannot fit a `{ty}` geom to mesh `{name}`: {why}"));
    let unit =
        match asset.inertia {
            MeshInertia::Legacy => pyramids(&m.vertices, &m.triangles, true),
            MeshInertia::Exact => pyramids(&m.vertices, &m.triangles, false),
            MeshInertia::Convex => {
                let hull = parry3d_f64::shape::SharedShape::convex_hull(&m.vertices)
                    .ok_or_else(|| bad("the mesh has no 3-D convex hull".into()))?;
                let (hv, ht) = hull.as_convex_polyhedron().ok_or_else(|| bad("convex hull failed".into()))?.to_trimesh();
                pyramids(&hv, &ht, false)
            }
            MeshInertia::Shell => return Err(bad(
                "a fit from a shell inertia (`inertia=\"shell\"`) is not supported; the asset's `inertia` may be legacy, exact or convex"
                    .into(),
            )),
        }
        .map_err(bad)?;
    let (moments, q) = principal(unit.inertia);
    let [a, b, c] = moments;
    let tol = |x: f64| x * (1.0 - 1e-6) - 1e-9;
    if a + b < tol(c) || a + c < tol(b) || b + c < tol(a) {
        return Err(bad(format!("its principal moments {a}, {b}, {c} violate A + B >= C")));
    }
    let half = |i: f64, j: f64, k: f64| 0.5 * (6.0 * (j + k - i).max(0.0) / unit.volume).sqrt();
    let inertia_box = [half(a, b, c), half(b, a, c), half(c, a, b)];
    // the vertices in the principal frame: their bounding box
    let r = Mat3::from_quat(q).transpose();
    let (mut lo, mut hi) = (Vec3::splat(f64::INFINITY), Vec3::splat(f64::NEG_INFINITY));
    for v in &m.vertices {
        let p = r * (*v - unit.com);
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let (size, centre) = if cx.fit_aabb {
        let h = (hi - lo) * 0.5;
        let size = match ty {
            "sphere" => vec![h.max_element()],
            // the smallest capsule or cylinder whose box holds the mesh's: the larger of x and y, and z (less the
            // capsule's cap)
            "capsule" => vec![h.x.max(h.y), h.z - h.x.max(h.y)],
            "cylinder" => vec![h.x.max(h.y), h.z],
            _ => vec![h.x, h.y, h.z],
        };
        (size, (lo + hi) * 0.5)
    } else {
        let [x, y, z] = inertia_box;
        let size = match ty {
            "sphere" => vec![(x + y + z) / 3.0],
            "capsule" => vec![(x + y) / 2.0, (z - (x + y) / 4.0).max(0.0)],
            "cylinder" => vec![(x + y) / 2.0, z],
            _ => vec![x, y, z],
        };
        (size, Vec3::ZERO)
    };
    let size: Vec<f64> = size.into_iter().map(|s| s * fitscale).collect();
    if size.iter().any(|&s| s.is_nan() || s <= 0.0) {
        let how = if cx.fit_aabb { "bounding box" } else { "equivalent inertia box" };
        return Err(bad(format!(
            "the {how} gives size {} (a capsule needs a half-length > 0: the mesh is too short for one; MuJoCo refuses it too)",
            crate::math::show_list(&size)
        )));
    }
    Ok(Fitted { size, pose: Pose::from_parts(unit.com + Mat3::from_quat(q) * centre, q) })
}

/// Volume, centre of mass and inertia about it (unit density) of a triangle mesh as MuJoCo sums them: pyramids
/// from the area-weighted centre of the faces give the volume and the centre of mass, pyramids from the centre of
/// mass the inertia and the volume again. `legacy`: each pyramid counted positive (MuJoCo's default), else signed.
fn pyramids(v: &[Vec3], tris: &[[u32; 3]], legacy: bool) -> Result<crate::geometry::mass::UnitMass, String> {
    let corners = |t: &[u32; 3]| (v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]);
    let (mut area, mut centre) = (0.0, Vec3::ZERO);
    for t in tris {
        let (a, b, c) = corners(t);
        let s = 0.5 * (b - a).cross(c - a).length();
        area += s;
        centre += (a + b + c) * (s / 3.0);
    }
    if area.is_nan() || area <= 1e-15 {
        return Err("the mesh's surface area is zero".into());
    }
    let apex = centre / area;
    let signed = |d: f64| if legacy { d.abs() } else { d };
    let (mut volume, mut first) = (0.0, Vec3::ZERO);
    for t in tris {
        let (a, b, c) = corners(t);
        let vol = signed((a - apex).dot((b - apex).cross(c - apex)) / 6.0);
        volume += vol;
        first += (apex + a + b + c) * (vol / 4.0);
    }
    if volume.is_nan() || volume <= 1e-15 {
        return Err(if volume < 0.0 { "its volume is negative (misoriented triangles)".into() } else { "its volume is zero".into() });
    }
    let com = first / volume;
    let (mut volume, mut cov) = (0.0, Mat3::ZERO);
    let outer = |u: Vec3| Mat3::from_cols(u * u.x, u * u.y, u * u.z);
    for t in tris {
        let (a, b, c) = corners(t);
        let (a, b, c) = (a - com, b - com, c - com);
        let vol = signed(a.dot(b.cross(c)) / 6.0);
        volume += vol;
        cov += (outer(a) + outer(b) + outer(c) + outer(a + b + c)) * (vol / 20.0);
    }
    if volume.is_nan() || volume <= 1e-15 {
        return Err("its volume is not positive".into());
    }
    let tr = cov.x_axis.x + cov.y_axis.y + cov.z_axis.z;
    Ok(crate::geometry::mass::UnitMass { volume, com, inertia: Mat3::from_diagonal(Vec3::splat(tr)) - cov })
}

/// The principal moments (decreasing) and axes of a symmetric matrix as MuJoCo's compiler finds them, so a fitted
/// geom's orientation is MuJoCo's `geom_quat` and not only an equivalent one: Jacobi rotations, each zeroing the
/// largest off-diagonal entry, accumulated in a quaternion from the identity; then the moments sorted by quarter
/// turns about the remaining axis.
fn principal(a: Mat3) -> ([f64; 3], Quat) {
    const EPS: f64 = 1e-12;
    let mut q = Quat::IDENTITY;
    let mut moments = [0.0; 3];
    for _ in 0..500 {
        let r = Mat3::from_quat(q);
        let d = r.transpose() * a * r;
        let at = |i: usize, j: usize| d.col(j)[i];
        moments = [at(0, 0), at(1, 1), at(2, 2)];
        let (d01, d02, d12) = (at(0, 1).abs(), at(0, 2).abs(), at(1, 2).abs());
        let (row, col, axis) = if d01 > d02 && d01 > d12 {
            (0, 1, 2)
        } else if d02 > d12 {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        if at(row, col).abs() < EPS {
            break;
        }
        let tau = (at(col, col) - at(row, row)) / (2.0 * at(row, col));
        let t = if tau >= 0.0 { 1.0 / (tau + (1.0 + tau * tau).sqrt()) } else { -1.0 / (-tau + (1.0 + tau * tau).sqrt()) };
        let c = 1.0 / (1.0 + t * t).sqrt();
        if c > 1.0 - EPS {
            break;
        }
        // a turn about `axis` by the angle whose cosine is c, its direction that of the (row, col) plane
        let mut s = (0.5 - 0.5 * c).sqrt();
        if (tau >= 0.0) != (axis == 1) {
            s = -s;
        }
        let mut v = [0.0; 3];
        v[axis] = s;
        let step = Quat::from_xyzw(v[0], v[1], v[2], (1.0 - s * s).sqrt()).normalize();
        q = (q * step).normalize();
    }
    for j in 0..3 {
        let k = j % 2;
        if moments[k] + EPS < moments[k + 1] {
            moments.swap(k, k + 1);
            let h = std::f64::consts::FRAC_1_SQRT_2;
            let mut v = [0.0; 3];
            v[(k + 2) % 3] = h;
            q = (q * Quat::from_xyzw(v[0], v[1], v[2], h)).normalize();
        }
    }
    (moments, q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principal_axes_diagonalise_in_decreasing_order() {
        let r = Mat3::from_quat(Quat::from_axis_angle(Vec3::new(0.3, -0.7, 1.1).normalize(), 0.9));
        let a = r * Mat3::from_diagonal(Vec3::new(2.0, 5.0, 3.0)) * r.transpose();
        let (m, q) = principal(a);
        assert!((m[0] - 5.0).abs() < 1e-9 && (m[1] - 3.0).abs() < 1e-9 && (m[2] - 2.0).abs() < 1e-9, "{m:?}");
        // MuJoCo stops at a rotation's cosine within 1e-12 of 1 (an angle of about 1.4e-6): the axes hold to that
        let e = Mat3::from_quat(q);
        let d = e.transpose() * a * e;
        for (i, want) in m.iter().enumerate() {
            assert!((d.col(i)[i] - want).abs() < 1e-9, "{d}");
            for j in (0..3).filter(|&j| j != i) {
                assert!(d.col(j)[i].abs() < 1e-5, "{d}");
            }
        }
    }
}
