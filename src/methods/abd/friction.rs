//! Smoothed friction (source eq. 12, after IPC): per active contact pair, lagged at the start of the step, the
//! normal force λ, a tangent basis T (3×2) and closest-point weights c (Σ c_k x_k is the relative position of
//! the closest points). The sliding displacement over the step is u = Tᵀ Σ c_k (x_k − x_k^t), and the
//! dissipation potential is μ λ f0(|u|) with IPC's mollified norm f0 of threshold ε = ε_v·h:
//! f0(y) = −y³/(3ε²) + y²/ε + ε/3 for y < ε, y beyond. Since T and c are frozen, u is linear in the positions.

use super::local::{Jet, Local};

/// f0(y).
pub fn f0(y: f64, eps: f64) -> f64 {
    if y >= eps {
        y
    } else {
        -y * y * y / (3.0 * eps * eps) + y * y / eps + eps / 3.0
    }
}

/// f1(y)/y, finite at 0.
pub fn f1_over_y(y: f64, eps: f64) -> f64 {
    if y >= eps {
        1.0 / y
    } else {
        (2.0 - y / eps) / eps
    }
}

/// One lagged friction contact.
#[derive(Debug, Clone, Copy)]
pub struct Contact {
    pub verts: [u32; 4],
    /// Closest-point weights.
    pub c: [f64; 4],
    /// Tangent basis (two unit vectors orthogonal to the normal).
    pub t: [[f64; 3]; 2],
    /// μ λ.
    pub mu_lambda: f64,
}

impl Contact {
    /// u from the positions now (`x`) and at the start of the step (`xt`).
    pub fn slip(&self, x: &[[f64; 3]], xt: &[[f64; 3]]) -> [f64; 2] {
        let mut r = [0.0; 3];
        for k in 0..4 {
            let v = self.verts[k] as usize;
            for a in 0..3 {
                r[a] += self.c[k] * (x[v][a] - xt[v][a]);
            }
        }
        [0, 1].map(|j| self.t[j][0] * r[0] + self.t[j][1] * r[1] + self.t[j][2] * r[2])
    }

    /// The potential μλ f0(|u|).
    pub fn energy(&self, x: &[[f64; 3]], xt: &[[f64; 3]], eps: f64) -> f64 {
        let u = self.slip(x, xt);
        self.mu_lambda * f0((u[0] * u[0] + u[1] * u[1]).sqrt(), eps)
    }

    /// Gradient and Hessian in the one vector this potential depends on, the relative position Σ c_k x_k
    /// (rows = c). The 2×2 Hessian in u, μλ[(f1/y) I + ((f1′y − f1)/y³) u uᵀ], is positive semi-definite for this
    /// f0, so no projection is needed.
    pub fn local(&self, x: &[[f64; 3]], xt: &[[f64; 3]], eps: f64) -> Local {
        let u = self.slip(x, xt);
        let y = (u[0] * u[0] + u[1] * u[1]).sqrt();
        let a = f1_over_y(y, eps);
        // coefficient of u uᵀ: −1/(ε² y) below ε, −1/y³ above; 0 at y = 0
        let b = if y == 0.0 {
            0.0
        } else if y < eps {
            -1.0 / (eps * eps * y)
        } else {
            -1.0 / (y * y * y)
        };
        let hu = [[a + b * u[0] * u[0], b * u[0] * u[1]], [b * u[1] * u[0], a + b * u[1] * u[1]]];
        let mut jet = Jet { n: 1, v: self.mu_lambda * f0(y, eps), g: [0.0; 9], h: [[0.0; 9]; 9] };
        for r in 0..3 {
            // tangential force direction in 3-D: T (a u)
            jet.g[r] = self.mu_lambda * a * (self.t[0][r] * u[0] + self.t[1][r] * u[1]);
            // T H_u Tᵀ
            for s in 0..3 {
                let mut v = 0.0;
                for i in 0..2 {
                    for j in 0..2 {
                        v += self.t[i][r] * hu[i][j] * self.t[j][s];
                    }
                }
                jet.h[r][s] = self.mu_lambda * v;
            }
        }
        Local { rows: [self.c, [0.0; 4], [0.0; 4]], jet, range: None }
    }

    /// Gradient (12: 3 per stencil point) and Hessian (12×12) in the stencil coordinates.
    pub fn derivatives(&self, x: &[[f64; 3]], xt: &[[f64; 3]], eps: f64) -> ([f64; 12], [[f64; 12]; 12]) {
        let l = self.local(x, xt, eps);
        (l.stencil_gradient(), l.stencil_hessian())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f0_is_c1_at_eps() {
        let eps = 1e-3;
        assert!((f0(eps * (1.0 - 1e-12), eps) - eps).abs() < 1e-14);
        assert!((f1_over_y(eps * (1.0 - 1e-12), eps) * eps - 1.0).abs() < 1e-9);
        assert!((f0(0.0, eps) - eps / 3.0).abs() < 1e-18);
    }
}
