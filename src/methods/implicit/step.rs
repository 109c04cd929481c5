//! The semi-implicit backward Euler step in momentum form (paper §3–4, eqs. 1–18), with Δx and Δq eliminated
//! analytically so that each dynamic body is one 6×6 block in (ΔP, ΔL). It departs from eqs. 15–17 in two places
//! so that it equals the linearised 13n-unknown solve (checked in the tests).
//! See docs/methods/implicit-penalty.md, "Elimination to 6×6 blocks".

use super::gradients::{skew, Jacobian};
use super::system::{dense_solve, IslandSystem};
use crate::math::{Mat3, Quat, Vec3};
use crate::state::BodyState;

/// The weight of q̇'s own dependence on q in the quaternion row: (I − γh ∂q̇/∂q)Δq = h(q̇ + ∂q̇/∂L ΔL).
/// γ = ½ (the linearised trapezoidal rule) instead of the paper's 1 (eq. 3), whose backward Euler drains a free
/// body's rotational energy; ΔL still enters fully, so the contact stiffness stays backward Euler.
/// See docs/methods/implicit-penalty.md, "The quaternion row's weight".
pub const Q_WEIGHT: f64 = 0.5;

/// A 4×4 matrix, row-major; quaternions as (w, x, y, z).
pub type M4 = [[f64; 4]; 4];
/// A 4×3 matrix, row-major.
pub type M43 = [[f64; 3]; 4];

/// What the elimination needs of one dynamic body at the start of the step.
#[derive(Debug, Clone, Copy)]
pub struct Kin {
    pub m: f64,
    /// World inverse inertia I_w⁻¹ = R J⁻¹ Rᵀ.
    pub inv_iw: Mat3,
    pub v: Vec3,
    pub w: Vec3,
    /// Angular momentum L = I_w ω.
    pub l: Vec3,
    pub q: Quat,
    /// Q, with Qω = ½ω̂q.
    pub qm: M43,
    /// Ξ = I_w⁻¹[L]× − [ω]×.
    pub xi: Mat3,
    /// (I − γh ∂q̇/∂q)⁻¹ (γ = [`Q_WEIGHT`]).
    pub minv: M4,
    /// V = 4Qᵀ(I − γh ∂q̇/∂q)⁻¹Q.
    pub vm: Mat3,
}

/// Q(q): Qx = ½x̂q, rows (w, x, y, z).
pub fn q_matrix(q: Quat) -> M43 {
    let (w, v) = (q.w, Vec3::new(q.x, q.y, q.z));
    let s = Mat3::IDENTITY * w - skew(v);
    let mut m = [[0.0; 3]; 4];
    for c in 0..3 {
        m[0][c] = -0.5 * v[c];
        for r in 0..3 {
            m[r + 1][c] = 0.5 * s.col(c)[r];
        }
    }
    m
}

/// ∂q̇/∂q at fixed L: ½Ω(ω) + Q Ξ 4Qᵀ.
pub fn qdot_jacobian(qm: &M43, w: Vec3, xi: &Mat3) -> M4 {
    let sw = skew(w);
    let mut j = [[0.0; 4]; 4];
    for r in 0..3 {
        j[0][r + 1] = -0.5 * w[r];
        j[r + 1][0] = 0.5 * w[r];
        for c in 0..3 {
            j[r + 1][c + 1] = 0.5 * sw.col(c)[r];
        }
    }
    // Q Ξ (4×3) times 4Qᵀ (3×4)
    for r in 0..4 {
        let qx: [f64; 3] = std::array::from_fn(|c| (0..3).map(|k| qm[r][k] * xi.col(c)[k]).sum());
        for c in 0..4 {
            j[r][c] += 4.0 * (0..3).map(|k| qx[k] * qm[c][k]).sum::<f64>();
        }
    }
    j
}

/// The inverse of a 4×4 matrix (`None` when singular).
fn inverse4(a: &M4) -> Option<M4> {
    let mut out = [[0.0; 4]; 4];
    for c in 0..4 {
        let e: Vec<f64> = (0..4).map(|r| if r == c { 1.0 } else { 0.0 }).collect();
        let x = dense_solve(a.iter().map(|r| r.to_vec()).collect(), e)?;
        for r in 0..4 {
            out[r][c] = x[r];
        }
    }
    Some(out)
}

impl Kin {
    /// The body's kinematics for a step of `h` (`inertia` and `inv_inertia` in body axes about the centre of mass).
    pub fn new(m: f64, inertia: &Mat3, inv_inertia: &Mat3, s: &BodyState, h: f64) -> Option<Kin> {
        let r = Mat3::from_quat(s.q);
        let inv_iw = r * *inv_inertia * r.transpose();
        let l = r * (*inertia * (r.transpose() * s.w));
        let qm = q_matrix(s.q);
        let xi = inv_iw * skew(l) - skew(s.w);
        let jq = qdot_jacobian(&qm, s.w, &xi);
        let a: M4 = std::array::from_fn(|i| std::array::from_fn(|j| if i == j { 1.0 } else { 0.0 } - Q_WEIGHT * h * jq[i][j]));
        let minv = inverse4(&a)?;
        // V = 4 Qᵀ M Q
        let mut vm = Mat3::ZERO;
        for r in 0..3 {
            for c in 0..3 {
                let mut sum = 0.0;
                for i in 0..4 {
                    for k in 0..4 {
                        sum += qm[i][r] * minv[i][k] * qm[k][c];
                    }
                }
                vm.col_mut(c)[r] = 4.0 * sum;
            }
        }
        Some(Kin { m, inv_iw, v: s.v, w: s.w, l, q: s.q, qm, xi, minv, vm })
    }

    /// The body's change over the step as [`add_pair`]'s linearisation takes it, for the solved (ΔP, ΔL):
    /// (Δx, Δθ, Δv, Δω) = (h v + h ΔP/m, h V(ω + I_w⁻¹ΔL), ΔP/m, Ξ Δθ + I_w⁻¹ΔL).
    pub fn motion(&self, dp: Vec3, dl: Vec3, h: f64) -> [Vec3; 4] {
        let dth = self.vm * (self.w + self.inv_iw * dl) * h;
        [(self.v + dp / self.m) * h, dth, dp / self.m, self.xi * dth + self.inv_iw * dl]
    }

    /// The end-of-step state from (ΔP, ΔL): P += ΔP, L += ΔL, x += hP/m, q += Δq renormalised.
    pub fn advance(&self, s: &mut BodyState, dp: Vec3, dl: Vec3, h: f64, inertia_inv_body: &Mat3) {
        let p = self.v * self.m + dp;
        let l = self.l + dl;
        s.x += p * (h / self.m);
        // Δq = (I − γh∂q̇/∂q)⁻¹ h (Qω + Q I_w⁻¹ ΔL)
        let u = self.w + self.inv_iw * dl;
        let rhs: [f64; 4] = std::array::from_fn(|r| h * (0..3).map(|k| self.qm[r][k] * u[k]).sum::<f64>());
        let dq: [f64; 4] = std::array::from_fn(|r| (0..4).map(|k| self.minv[r][k] * rhs[k]).sum());
        s.q = Quat::from_xyzw(s.q.x + dq[1], s.q.y + dq[2], s.q.z + dq[3], s.q.w + dq[0]).normalize();
        s.v = p / self.m;
        let r = Mat3::from_quat(s.q);
        s.w = r * *inertia_inv_body * r.transpose() * l;
    }
}

/// How a body of a pair enters the system.
#[derive(Debug, Clone, Copy)]
pub enum Side<'a> {
    /// An unknown of the island, at this slot.
    Dynamic {
        slot: usize,
        kin: &'a Kin,
    },
    /// A kinematic body moving with (v, ω).
    Kinematic {
        v: Vec3,
        w: Vec3,
    },
    Static,
}

/// Adds `m` (3×3) times `scale` into rows `r0..r0+3`, columns `c0..c0+3` of a 6×6 block.
fn put(b: &mut [[f64; 6]; 6], r0: usize, c0: usize, m: &Mat3, scale: f64) {
    for r in 0..3 {
        for c in 0..3 {
            b[r0 + r][c0 + c] += scale * m.col(c)[r];
        }
    }
}

/// Adds a wrench (force, torque) to body `slot`'s Z (the right-hand side before the factor h).
pub fn add_wrench(sys: &mut IslandSystem, slot: usize, f: Vec3, tau: Vec3) {
    for k in 0..3 {
        sys.rhs[6 * slot + k] += f[k];
        sys.rhs[6 * slot + 3 + k] += tau[k];
    }
}

/// Adds one pair's wrench and its gradients (rows and columns ordered as `sides`) to the system: the blocks
/// G_ij and Z_i of the module comment. The right-hand side is Z; [`finish_rhs`] multiplies it by h.
pub fn add_pair(sys: &mut IslandSystem, jac: &Jacobian, sides: [Side; 2], h: f64) {
    for i in 0..2 {
        let Side::Dynamic { slot: si, .. } = sides[i] else { continue };
        let (f, t) = (jac.wrench[2 * i], jac.wrench[2 * i + 1]);
        let mut z = [f, t];
        for j in 0..2 {
            for (row, zr) in z.iter_mut().enumerate() {
                let (dx, dth) = (jac.pos[2 * i + row][2 * j], jac.pos[2 * i + row][2 * j + 1]);
                let (dv, dw) = (jac.vel[2 * i + row][2 * j], jac.vel[2 * i + row][2 * j + 1]);
                match sides[j] {
                    Side::Dynamic { slot: sj, kin } => {
                        let d = dth + dw * kin.xi;
                        let cp = (dv + dx * h) * (1.0 / kin.m);
                        let cl = (dw + d * kin.vm * h) * kin.inv_iw;
                        let b = sys.block(si, sj);
                        put(b, 3 * row, 0, &cp, -h);
                        put(b, 3 * row, 3, &cl, -h);
                        *zr += (dx * kin.v + d * (kin.vm * kin.w)) * h;
                    }
                    Side::Kinematic { v, w } => *zr += (dx * v + dth * w) * h,
                    Side::Static => {}
                }
            }
        }
        add_wrench(sys, si, z[0], z[1]);
    }
}

/// Multiplies the right-hand side by h: the system is G ΔS = h Z.
pub fn finish_rhs(sys: &mut IslandSystem, h: f64) {
    for v in sys.rhs.iter_mut() {
        *v *= h;
    }
}
