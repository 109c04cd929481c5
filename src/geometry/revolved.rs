//! Procedural shapes of the scene format's `generated` type: solids of revolution about the local z axis given
//! by a closed profile in the (r, z) half-plane, with an exact convex decomposition: the profile is split into
//! convex polygons, and each polygon swept over one angular segment is a convex piece (the hull of its corner
//! points). The triangle mesh is the revolved profile with the same segments, so the union of the pieces is the
//! mesh's solid exactly. The cut faces between pieces are the decomposition's virtual faces.
//!
//! - `torus {major_radius, minor_radius}`: a circle of radius `minor_radius` at distance `major_radius` from
//!   the axis, in the z = 0 plane; centred at the origin.
//! - `bowl {radius, thickness}`: a hemispherical shell opening upwards; outer radius `radius`; bottom at z = 0,
//!   rim at z = radius.
//! - `cup {radius, height, thickness}`: a cylindrical cup opening upwards, bottom at z = 0, floor and wall
//!   `thickness` thick.
//!
//! Resolution: `segments` around the axis (default 24) and `sides` of the torus cross-section or arcs of the
//! bowl (default 12).

use super::mesh::TriMeshData;
use crate::math::Vec3;

/// A generated solid: its surface and its convex pieces (point sets, body frame).
#[derive(Debug, Clone)]
pub struct Generated {
    pub mesh: TriMeshData,
    pub pieces: Vec<Vec<Vec3>>,
    /// How far a piece's face may lie from the mesh and still count as real (on the surface, not a cut through
    /// the inside; `faces.rs`): 0 for exact decompositions, the flanks' deviation for the thread's teeth.
    pub face_tolerance: f64,
}

/// Torus about z.
pub fn torus(major: f64, minor: f64, segments: usize, sides: usize) -> Result<Generated, String> {
    if minor >= major {
        return Err(format!("`minor_radius` ({minor}) must be smaller than `major_radius` ({major})"));
    }
    let ring: Vec<(f64, f64)> = (0..sides)
        .map(|k| {
            let t = std::f64::consts::TAU * k as f64 / sides as f64;
            (major + minor * t.cos(), minor * t.sin())
        })
        .collect();
    Ok(revolve(&ring, std::slice::from_ref(&ring), segments))
}

/// Hemispherical bowl.
pub fn bowl(radius: f64, thickness: f64, segments: usize, sides: usize) -> Result<Generated, String> {
    if thickness >= radius {
        return Err(format!("`thickness` ({thickness}) must be smaller than `radius` ({radius})"));
    }
    let inner = radius - thickness;
    let arc = |r: f64, k: usize| {
        let a = -std::f64::consts::FRAC_PI_2 * (1.0 - k as f64 / sides as f64);
        if k == 0 {
            (0.0, radius + r * a.sin())
        } else {
            (r * a.cos(), radius + r * a.sin())
        }
    };
    let mut profile: Vec<(f64, f64)> = (0..=sides).map(|k| arc(radius, k)).collect();
    profile.extend((0..=sides).rev().map(|k| arc(inner, k)));
    let bands: Vec<Vec<(f64, f64)>> =
        (0..sides).map(|k| vec![arc(radius, k), arc(radius, k + 1), arc(inner, k + 1), arc(inner, k)]).collect();
    Ok(revolve(&profile, &bands, segments))
}

/// Cylindrical cup.
pub fn cup(radius: f64, height: f64, thickness: f64, segments: usize) -> Result<Generated, String> {
    if thickness >= radius || thickness >= height {
        return Err(format!("`thickness` ({thickness}) must be smaller than `radius` ({radius}) and `height` ({height})"));
    }
    let (r, h, t) = (radius, height, thickness);
    let profile = [(0.0, 0.0), (r, 0.0), (r, t), (r, h), (r - t, h), (r - t, t), (0.0, t)];
    let base = vec![(0.0, 0.0), (r, 0.0), (r, t), (0.0, t)];
    let wall = vec![(r - t, t), (r, t), (r, h), (r - t, h)];
    Ok(revolve(&profile, &[base, wall], segments))
}

/// Revolves the closed `profile` (r ≥ 0) about z into a closed, outward-oriented mesh, and each convex polygon
/// of `parts` into `segments` convex pieces.
fn revolve(profile: &[(f64, f64)], parts: &[Vec<(f64, f64)>], segments: usize) -> Generated {
    let angle = |s: usize| std::f64::consts::TAU * (s % segments) as f64 / segments as f64;
    let at = |(r, z): (f64, f64), s: usize| Vec3::new(r * angle(s).cos(), r * angle(s).sin(), z);
    let m = profile.len();
    // vertex index of profile point k at segment s (points on the axis are shared by all segments)
    let mut vertices = Vec::new();
    let mut index = vec![vec![0u32; segments]; m];
    for (k, &p) in profile.iter().enumerate() {
        if p.0 == 0.0 {
            let id = vertices.len() as u32;
            vertices.push(Vec3::new(0.0, 0.0, p.1));
            index[k].iter_mut().for_each(|i| *i = id);
        } else {
            for s in 0..segments {
                index[k][s] = vertices.len() as u32;
                vertices.push(at(p, s));
            }
        }
    }
    let mut triangles = Vec::new();
    for k in 0..m {
        let k1 = (k + 1) % m;
        for s in 0..segments {
            let s1 = (s + 1) % segments;
            let (v00, v01, v10, v11) = (index[k][s], index[k][s1], index[k1][s], index[k1][s1]);
            for t in [[v00, v10, v11], [v00, v11, v01]] {
                if t[0] != t[1] && t[1] != t[2] && t[0] != t[2] {
                    triangles.push(t);
                }
            }
        }
    }
    let mut mesh = TriMeshData { vertices, triangles };
    if super::mass::mesh(&mesh.vertices, &mesh.triangles).volume < 0.0 {
        mesh.triangles.iter_mut().for_each(|t| t.swap(1, 2));
    }
    let mut pieces = Vec::new();
    for s in 0..segments {
        for part in parts {
            let mut pts: Vec<Vec3> = Vec::new();
            for &p in part {
                for q in [at(p, s), at(p, s + 1)] {
                    if !pts.iter().any(|x| (*x - q).length() < 1e-12) {
                        pts.push(q);
                    }
                }
            }
            pieces.push(pts);
        }
    }
    Generated { mesh, pieces, face_tolerance: 0.0 }
}

/// Sum of the volumes of the pieces' convex hulls (tests check decompositions against the mesh volume).
#[cfg(test)]
pub(crate) fn pieces_volume(pieces: &[Vec<Vec3>]) -> f64 {
    pieces
        .iter()
        .map(|p| {
            let hull = parry3d_f64::shape::SharedShape::convex_hull(p).expect("a piece with a 3-D hull");
            let (v, t) = hull.as_convex_polyhedron().expect("a convex hull").to_trimesh();
            super::mass::mesh(&v, &t).volume
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::mass;

    #[test]
    fn generated_meshes_are_closed_with_the_expected_volume() {
        let pi = std::f64::consts::PI;
        // a fine torus approaches 2π²Rr² from below
        let g = torus(1.0, 0.25, 96, 48).unwrap();
        g.mesh.check_closed().unwrap();
        let v = mass::mesh(&g.mesh.vertices, &g.mesh.triangles).volume;
        let exact = 2.0 * pi * pi * 1.0 * 0.25 * 0.25;
        assert!(v < exact && v > 0.99 * exact, "torus volume {v} vs {exact}");
        // cup: floor disc plus wall ring (of the inscribed polygons)
        let g = cup(1.0, 2.0, 0.1, 256).unwrap();
        g.mesh.check_closed().unwrap();
        let v = mass::mesh(&g.mesh.vertices, &g.mesh.triangles).volume;
        let exact = pi * 0.1 + pi * (1.0 - 0.81) * 1.9;
        assert!((v - exact).abs() < 1e-3 * exact, "cup volume {v} vs {exact}");
        // bowl: half of the spherical shell
        let g = bowl(1.0, 0.2, 128, 64).unwrap();
        g.mesh.check_closed().unwrap();
        let v = mass::mesh(&g.mesh.vertices, &g.mesh.triangles).volume;
        let exact = 2.0 / 3.0 * pi * (1.0 - 0.512);
        assert!((v - exact).abs() < 2e-3 * exact, "bowl volume {v} vs {exact}");
    }

    #[test]
    fn pieces_fill_the_solid_exactly() {
        // the hulls of the pieces have the mesh's volume in sum (no gaps, no overlaps)
        for g in [torus(1.0, 0.3, 16, 8).unwrap(), cup(0.5, 1.0, 0.1, 12).unwrap(), bowl(1.0, 0.2, 12, 6).unwrap()] {
            let total = pieces_volume(&g.pieces);
            let v = mass::mesh(&g.mesh.vertices, &g.mesh.triangles).volume;
            assert!((total - v).abs() < 1e-9 * v, "pieces {total} vs mesh {v}");
        }
    }
}
