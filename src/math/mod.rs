//! Small math helpers shared by every stage. f64 throughout; vector types are glam's, as used by parry.

pub mod dual;
pub mod eigen;
pub mod jet;
pub mod rng;

pub use parry3d_f64::glamx::{DMat3 as Mat3, DQuat as Quat, DVec3 as Vec3};
pub use parry3d_f64::math::Pose;

/// The outer product a bᵀ.
pub fn outer(a: Vec3, b: Vec3) -> Mat3 {
    Mat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// Rotation by the rotation vector `w` (axis times angle), exactly (Rodrigues), as a unit quaternion.
pub fn quat_exp(w: Vec3) -> Quat {
    let angle = w.length();
    if angle < 1e-12 {
        // second-order series; normalised so that it stays a unit quaternion
        return Quat::from_xyzw(0.5 * w.x, 0.5 * w.y, 0.5 * w.z, 1.0).normalize();
    }
    Quat::from_axis_angle(w / angle, angle)
}

/// World-frame inverse inertia R I⁻¹ Rᵀ for a body-frame inverse inertia.
pub fn world_inv_inertia(rot: Quat, inv_inertia_body: &Mat3) -> Mat3 {
    let r = Mat3::from_quat(rot);
    r * *inv_inertia_body * r.transpose()
}

/// Unit vector orthogonal to `n`, chosen by a fixed rule so that it is stable from step to step.
pub fn tangent_basis(n: Vec3) -> (Vec3, Vec3) {
    let a = if n.x.abs() < 0.57735 {
        Vec3::X
    } else if n.y.abs() < 0.57735 {
        Vec3::Y
    } else {
        Vec3::Z
    };
    let t1 = (a - n * n.dot(a)).normalize();
    let t2 = n.cross(t1);
    (t1, t2)
}

/// True when every component is finite.
/// Numbers as a message shows them: `[0.5, -1, 8]` (not Rust's debug text, `DVec3(0.5, -1.0, 8.0)`).
pub fn show_list(xs: &[f64]) -> String {
    format!("[{}]", xs.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}

pub fn finite3(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn quat_exp_matches_axis_angle_and_small_angles() {
        let w = Vec3::new(0.3, -0.2, 0.9);
        let q = quat_exp(w);
        let v = Vec3::new(1.0, 2.0, 3.0);
        let expect = Quat::from_axis_angle(w.normalize(), w.length()) * v;
        assert!((q * v - expect).length() < 1e-14);
        let tiny = quat_exp(Vec3::new(1e-14, 0.0, 0.0));
        assert!((tiny.length() - 1.0).abs() < 1e-15);
    }
    #[test]
    fn tangent_basis_is_orthonormal() {
        for n in [Vec3::Z, Vec3::X, Vec3::new(0.3, 0.4, -0.5).normalize()] {
            let (t1, t2) = tangent_basis(n);
            assert!(t1.dot(n).abs() < 1e-15 && t2.dot(n).abs() < 1e-15 && t1.dot(t2).abs() < 1e-15);
            assert!((t1.length() - 1.0).abs() < 1e-15 && (t2.length() - 1.0).abs() < 1e-15);
        }
    }
}
