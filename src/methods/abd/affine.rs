//! Affine bodies (source §3): twelve coordinates per body, the constant mass matrix, the orthogonality
//! potential (eqs. 6–8), and the map between affine and rigid state.
//!
//! Layout: q is the row-major 3×4 matrix [A | p] (q[4i + j] = A_ij for j < 3, q[4i + 3] = p_i), so a body point
//! with rest position x̄ (measured from the centre of mass, body axes) is at x_i = Σ_j q[4i + j]·w_j with
//! w = (x̄, 1). The source stores q = (p, a1, a2, a3); this is the same vector reordered, chosen so that the
//! Jacobian J(x̄) is I₃ ⊗ wᵀ and every map between point and body coordinates is a 4-vector product.
//! With x̄ measured from the centre of mass the mass matrix is I₃ ⊗ diag(S, m), S = ∫ρ x̄x̄ᵀ dV (eq. 4).

use crate::math::{Mat3, Quat, Vec3};

/// One 4×4 block of the mass matrix (the same for the three rows of [A | p]).
pub type Block4 = [[f64; 4]; 4];

/// The mass block diag(S, m) from the mass, and the inertia tensor about the centre of mass (body axes):
/// S = ½ tr(I)·I₃ − I, since I = ∫ρ(|x̄|² I₃ − x̄x̄ᵀ).
pub fn mass_block(mass: f64, inertia: &Mat3) -> Block4 {
    let tr = inertia.x_axis.x + inertia.y_axis.y + inertia.z_axis.z;
    let mut m = [[0.0; 4]; 4];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = if i == j { 0.5 * tr } else { 0.0 } - inertia.col(j)[i];
        }
    }
    m[3][3] = mass;
    m
}

/// q of a rigid pose: A = R, p = centre of mass.
pub fn q_from_rigid(com: Vec3, rot: Quat) -> [f64; 12] {
    let r = Mat3::from_quat(rot);
    let mut q = [0.0; 12];
    for i in 0..3 {
        for j in 0..3 {
            q[4 * i + j] = r.col(j)[i];
        }
        q[4 * i + 3] = com[i];
    }
    q
}

/// q̇ of a rigid motion: Ȧ = [ω]×R, ṗ = v.
pub fn qdot_from_rigid(rot: Quat, v: Vec3, w: Vec3) -> [f64; 12] {
    let r = Mat3::from_quat(rot);
    let mut qd = [0.0; 12];
    for j in 0..3 {
        let c = w.cross(r.col(j));
        for i in 0..3 {
            qd[4 * i + j] = c[i];
        }
    }
    for i in 0..3 {
        qd[4 * i + 3] = v[i];
    }
    qd
}

/// The matrix A of q.
pub fn a_of(q: &[f64]) -> Mat3 {
    Mat3::from_cols(Vec3::new(q[0], q[4], q[8]), Vec3::new(q[1], q[5], q[9]), Vec3::new(q[2], q[6], q[10]))
}

/// The rotation nearest to A (polar decomposition by the Newton iteration R ← ½(R + R⁻ᵀ), which converges
/// quadratically for the nearly orthogonal A of a stiff affine body), as a unit quaternion.
pub fn nearest_rotation(a: &Mat3) -> Quat {
    let mut r = *a;
    for _ in 0..20 {
        let next = (r + r.inverse().transpose()) * 0.5;
        let change = (next - r).to_cols_array().iter().fold(0.0f64, |m, v| m.max(v.abs()));
        r = next;
        if change < 1e-15 {
            break;
        }
    }
    Quat::from_mat3(&r).normalize()
}

/// The rigid pose nearest to a prediction q̃: its translation and the rotation nearest to its Ã. A spinning
/// body's Ã = (I + h[ω]×)A is stretched off every rotation; the step's solution lies near this pose instead.
pub fn rigid_prediction(qtilde: &[f64]) -> [f64; 12] {
    q_from_rigid(Vec3::new(qtilde[3], qtilde[7], qtilde[11]), nearest_rotation(&a_of(qtilde)))
}

/// Rigid velocities (v, ω) from q̇: v = ṗ and ω the axial vector of the skew part of Ȧ Rᵀ, with R the
/// nearest rotation (for a rigid motion Ȧ Rᵀ = [ω]×).
pub fn rigid_velocity(qd: &[f64], rot: Quat) -> (Vec3, Vec3) {
    let ad = a_of(qd);
    let r = Mat3::from_quat(rot);
    let m = ad * r.transpose();
    let w = Vec3::new(m.y_axis.z - m.z_axis.y, m.z_axis.x - m.x_axis.z, m.x_axis.y - m.y_axis.x) * 0.5;
    (Vec3::new(qd[3], qd[7], qd[11]), w)
}

/// The force and the torque about the centre of mass that an energy term with gradient `g` (in the body's twelve
/// coordinates, a term of the incremental potential and so scaled by h²) exerts on a body at coordinates `q`:
/// F = −∂E/∂p / h², and τ by the work of a virtual rotation δA = [δθ]×A, τ_l = Σ_ik ε_lik (G Aᵀ)_ki with
/// G = −∂E/∂A / h² (for G = ½[τ]×A⁻ᵀ, the generalised force of a torque τ, this gives τ back).
pub fn wrench_of_gradient(g: &[f64; 12], q: &[f64], h: f64) -> (Vec3, Vec3) {
    let s = -1.0 / (h * h);
    let m: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|k| (0..3).map(|j| s * g[4 * i + j] * q[4 * k + j]).sum()));
    let force = Vec3::new(s * g[3], s * g[7], s * g[11]);
    (force, Vec3::new(m[2][1] - m[1][2], m[0][2] - m[2][0], m[1][0] - m[0][1]))
}

/// ‖AAᵀ − I‖_F.
pub fn orthogonality_error(q: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            let d: f64 = (0..3).map(|k| q[4 * i + k] * q[4 * j + k]).sum::<f64>() - if i == j { 1.0 } else { 0.0 };
            s += d * d;
        }
    }
    s.sqrt()
}

/// The orthogonality potential V⊥ = κ v̄ ‖AAᵀ − I‖²_F (eq. 6) of q, with `kv` = κ v̄.
pub fn ortho_energy(q: &[f64], kv: f64) -> f64 {
    let e = orthogonality_error(q);
    kv * e * e
}

fn row(q: &[f64], i: usize) -> Vec3 {
    Vec3::new(q[4 * i], q[4 * i + 1], q[4 * i + 2])
}

/// Gradient of V⊥ with respect to q (12; the p entries are 0): ∂V/∂a_i = 4κv̄ Σ_j (a_i·a_j − δ_ij) a_j.
pub fn ortho_gradient(q: &[f64], kv: f64, g: &mut [f64; 12]) {
    let a = [row(q, 0), row(q, 1), row(q, 2)];
    for i in 0..3 {
        let mut s = Vec3::ZERO;
        for j in 0..3 {
            s += a[j] * (a[i].dot(a[j]) - if i == j { 1.0 } else { 0.0 });
        }
        for k in 0..3 {
            g[4 * i + k] += 4.0 * kv * s[k];
        }
    }
}

/// Hessian of V⊥ in the 9 entries of A (row-major), eq. 8:
/// block (i, i) = 4κv̄[(|a_i|² − 1)I + 2a_i a_iᵀ + Σ_{k≠i} a_k a_kᵀ], block (i, j) = 4κv̄[(a_i·a_j)I + a_j a_iᵀ].
pub fn ortho_hessian(q: &[f64], kv: f64) -> [[f64; 9]; 9] {
    let a = [row(q, 0), row(q, 1), row(q, 2)];
    let mut h = [[0.0; 9]; 9];
    for i in 0..3 {
        for j in 0..3 {
            for r in 0..3 {
                for c in 0..3 {
                    let v = if i == j {
                        let mut v = 2.0 * a[i][r] * a[i][c];
                        if r == c {
                            v += a[i].length_squared() - 1.0;
                        }
                        for k in 0..3 {
                            if k != i {
                                v += a[k][r] * a[k][c];
                            }
                        }
                        v
                    } else {
                        let mut v = a[j][r] * a[i][c];
                        if r == c {
                            v += a[i].dot(a[j]);
                        }
                        v
                    };
                    h[3 * i + r][3 * j + c] = 4.0 * kv * v;
                }
            }
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotations_have_zero_orthogonality_energy_and_scaling_matches() {
        let q = q_from_rigid(Vec3::new(1.0, 2.0, 3.0), Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 1.1));
        assert!(ortho_energy(&q, 1e8) < 1e-20 * 1e8);
        let mut s = [0.0; 12];
        for i in 0..3 {
            s[4 * i + i] = 1.3;
        }
        // V⊥(sI) = 3κv̄(s² − 1)²
        assert!((ortho_energy(&s, 2.0) - 6.0 * (1.69f64 - 1.0).powi(2)).abs() < 1e-12);
    }

    #[test]
    fn mass_block_of_a_unit_cube() {
        let i = Mat3::from_diagonal(Vec3::splat(1.0 / 6.0));
        let m = mass_block(1.0, &i);
        assert!((m[0][0] - 1.0 / 12.0).abs() < 1e-15 && m[0][1] == 0.0 && m[3][3] == 1.0);
    }

    /// The generalised force of a torque τ, Q_A = ½[τ]×A⁻ᵀ (as the prediction applies it), as an energy gradient
    /// g = −h²Q comes back as τ; the translation entries as the force.
    #[test]
    fn wrench_of_gradient_inverts_the_generalised_force() {
        let rot = Quat::from_axis_angle(Vec3::new(0.2, 1.0, -0.4).normalize(), 0.9);
        let q = q_from_rigid(Vec3::new(0.1, 0.2, 0.3), rot);
        let (tau, f, h) = (Vec3::new(0.3, -1.2, 2.0), Vec3::new(4.0, 5.0, -6.0), 0.01);
        let a = a_of(&q);
        let qa = Mat3::from_cols(tau.cross(Vec3::X), tau.cross(Vec3::Y), tau.cross(Vec3::Z)) * a.inverse().transpose() * 0.5;
        let mut g = [0.0; 12];
        for r in 0..3 {
            for j in 0..3 {
                g[4 * r + j] = -h * h * qa.col(j)[r];
            }
            g[4 * r + 3] = -h * h * f[r];
        }
        let (f2, t2) = wrench_of_gradient(&g, &q, h);
        assert!((f2 - f).length() < 1e-12 && (t2 - tau).length() < 1e-12, "{f2} {t2}");
    }

    #[test]
    fn rigid_round_trip() {
        let rot = Quat::from_axis_angle(Vec3::new(0.3, -1.0, 0.2).normalize(), 0.7);
        let q = q_from_rigid(Vec3::ZERO, rot);
        let back = nearest_rotation(&a_of(&q));
        assert!(back.dot(rot).abs() > 1.0 - 1e-14);
        let w = Vec3::new(0.5, -2.0, 1.0);
        let qd = qdot_from_rigid(rot, Vec3::X, w);
        let (v, w2) = rigid_velocity(&qd, rot);
        assert!((w2 - w).length() < 1e-12, "{w2} vs {w}");
        assert_eq!(v, Vec3::X);
    }
}
