//! Exact mass properties per unit density: closed forms for primitives, the divergence theorem for meshes.

use crate::math::{Mat3, Vec3};
use std::f64::consts::PI;

/// Volume, centre of mass and inertia about the centre of mass, for density 1.
#[derive(Debug, Clone, Copy)]
pub struct UnitMass {
    pub volume: f64,
    pub com: Vec3,
    /// Inertia about `com`, body axes, for density 1 (scale by density, or by mass/volume).
    pub inertia: Mat3,
}

fn diag(x: f64, y: f64, z: f64) -> Mat3 {
    Mat3::from_diagonal(Vec3::new(x, y, z))
}

/// Solid sphere.
pub fn sphere(r: f64) -> UnitMass {
    let v = 4.0 / 3.0 * PI * r.powi(3);
    let i = 0.4 * v * r * r;
    UnitMass { volume: v, com: Vec3::ZERO, inertia: diag(i, i, i) }
}

/// Solid box of full edge lengths `s`.
pub fn cuboid(s: Vec3) -> UnitMass {
    let v = s.x * s.y * s.z;
    let k = v / 12.0;
    UnitMass {
        volume: v,
        com: Vec3::ZERO,
        inertia: diag(k * (s.y * s.y + s.z * s.z), k * (s.x * s.x + s.z * s.z), k * (s.x * s.x + s.y * s.y)),
    }
}

/// Solid cylinder along z, of radius `r` and length `l`.
pub fn cylinder(r: f64, l: f64) -> UnitMass {
    let v = PI * r * r * l;
    let ixx = v * (3.0 * r * r + l * l) / 12.0;
    UnitMass { volume: v, com: Vec3::ZERO, inertia: diag(ixx, ixx, 0.5 * v * r * r) }
}

/// Capsule along z: a cylinder of length `l` capped by two hemispheres of radius `r`.
pub fn capsule(r: f64, l: f64) -> UnitMass {
    let mc = PI * r * r * l;
    let mh = 4.0 / 3.0 * PI * r.powi(3); // both hemispheres together
    let izz = mc * r * r / 2.0 + mh * 2.0 * r * r / 5.0;
    let ixx = mc * (l * l / 12.0 + r * r / 4.0) + mh * (2.0 * r * r / 5.0 + l * l / 4.0 + 3.0 * l * r / 8.0);
    UnitMass { volume: mc + mh, com: Vec3::ZERO, inertia: diag(ixx, ixx, izz) }
}

/// Closed, outward-oriented triangle mesh, by the divergence theorem (a signed tetrahedron from the origin per
/// triangle). A negative volume means the mesh is inverted; the caller checks.
pub fn mesh(vertices: &[Vec3], triangles: &[[u32; 3]]) -> UnitMass {
    let mut vol = 0.0;
    let mut first = Vec3::ZERO;
    // covariance ∫ x xᵀ dV about the origin
    let mut cov = Mat3::ZERO;
    for t in triangles {
        let (a, b, c) = (vertices[t[0] as usize], vertices[t[1] as usize], vertices[t[2] as usize]);
        let det = a.dot(b.cross(c)); // 6 × signed volume
        vol += det / 6.0;
        first += det / 24.0 * (a + b + c);
        let s = a + b + c;
        let outer = |u: Vec3| Mat3::from_cols(u * u.x, u * u.y, u * u.z);
        cov += (outer(a) + outer(b) + outer(c) + outer(s)) * (det / 120.0);
    }
    let com = if vol.abs() > 0.0 { first / vol } else { Vec3::ZERO };
    let outer_com = Mat3::from_cols(com * com.x, com * com.y, com * com.z);
    let cov_c = cov - outer_com * vol;
    let tr = cov_c.x_axis.x + cov_c.y_axis.y + cov_c.z_axis.z;
    let inertia = Mat3::from_diagonal(Vec3::splat(tr)) - cov_c;
    UnitMass { volume: vol, com, inertia }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn box_mesh(s: Vec3) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let h = s * 0.5;
        let v: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(if i & 1 == 0 { -h.x } else { h.x }, if i & 2 == 0 { -h.y } else { h.y }, if i & 4 == 0 { -h.z } else { h.z })
            })
            .collect();
        let t = vec![
            [0, 2, 1],
            [1, 2, 3],
            [4, 5, 6],
            [5, 7, 6],
            [0, 1, 4],
            [1, 5, 4],
            [2, 6, 3],
            [3, 6, 7],
            [0, 4, 2],
            [2, 4, 6],
            [1, 3, 5],
            [3, 7, 5],
        ];
        (v, t)
    }

    #[test]
    fn mesh_box_matches_closed_form() {
        let s = Vec3::new(1.0, 2.0, 3.0);
        let (mut v, t) = box_mesh(s);
        for p in &mut v {
            *p += Vec3::new(0.3, -0.7, 2.0); // off-origin: checks the shift to the centre of mass
        }
        let m = mesh(&v, &t);
        let c = cuboid(s);
        assert!((m.volume - c.volume).abs() < 1e-12);
        assert!((m.com - Vec3::new(0.3, -0.7, 2.0)).length() < 1e-12);
        for (a, b) in m.inertia.to_cols_array().iter().zip(c.inertia.to_cols_array()) {
            assert!((a - b).abs() < 1e-11, "{a} vs {b}");
        }
    }

    #[test]
    fn capsule_tends_to_sphere_and_cylinder_limits() {
        let s = sphere(0.7);
        let c = capsule(0.7, 0.0);
        assert!((s.volume - c.volume).abs() < 1e-12);
        assert!((s.inertia.x_axis.x - c.inertia.x_axis.x).abs() < 1e-12);
        // a long capsule's inertia per volume approaches the cylinder's
        let cap = capsule(0.01, 10.0);
        let cyl = cylinder(0.01, 10.0);
        assert!((cap.inertia.x_axis.x / cap.volume - cyl.inertia.x_axis.x / cyl.volume).abs() / (cyl.inertia.x_axis.x / cyl.volume) < 1e-2);
    }
}
