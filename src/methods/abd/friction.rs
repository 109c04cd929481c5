//! Smoothed friction (source eq. 12, after IPC): per active contact pair, lagged at the start of the step, the
//! normal force λ, a tangent basis T and closest-point weights; the dissipation potential is λ Φ(|u|) with IPC's
//! mollified force law, which eases from μ_s to μ_k over (ε, 2ε), ε = ε_v·h, so that the force reaches μ_s λ.
//! See docs/methods/abd.md, "Smoothed friction".

use super::local::Local;
use crate::math::jet::Jet;
use crate::math::Vec3;

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

/// The friction force law g(y) = Φ′(y) per unit normal force, and g′(y): μ_s f1(y) up to ε (IPC's mollified
/// Coulomb law: the full static coefficient at slip ε), then μ_s easing into μ_k by a smoothstep over (ε, 2ε),
/// μ_k beyond. C¹; μ f1 when μ_s = μ_k.
pub fn force_law(y: f64, eps: f64, mu_s: f64, mu_k: f64) -> (f64, f64) {
    if y < eps {
        let z = y / eps;
        (mu_s * z * (2.0 - z), mu_s * (2.0 - 2.0 * z) / eps)
    } else if y < 2.0 * eps {
        let t = y / eps - 1.0;
        (mu_s + (mu_k - mu_s) * t * t * (3.0 - 2.0 * t), (mu_k - mu_s) * 6.0 * t * (1.0 - t) / eps)
    } else {
        (mu_k, 0.0)
    }
}

/// Φ(y) = μ_s ε/3 + ∫₀^y g: μ_s f0(y) up to ε; μ_s y + Δ ε (t³ − t⁴/2), t = y/ε − 1, up to 2ε; then
/// 2μ_s ε + Δ ε/2 + μ_k (y − 2ε) (Δ = μ_k − μ_s).
pub fn phi(y: f64, eps: f64, mu_s: f64, mu_k: f64) -> f64 {
    let dm = mu_k - mu_s;
    if y < eps {
        mu_s * f0(y, eps)
    } else if y < 2.0 * eps {
        let t = y / eps - 1.0;
        mu_s * y + dm * eps * (t * t * t - 0.5 * t * t * t * t)
    } else {
        2.0 * mu_s * eps + 0.5 * dm * eps + mu_k * (y - 2.0 * eps)
    }
}

/// Φ′(y)/y, finite at 0.
fn phi1_over_y(y: f64, eps: f64, mu_s: f64, mu_k: f64) -> f64 {
    if y < eps {
        mu_s * f1_over_y(y, eps)
    } else {
        force_law(y, eps, mu_s, mu_k).0 / y
    }
}

/// Φ″(y).
fn phi2(y: f64, eps: f64, mu_s: f64, mu_k: f64) -> f64 {
    force_law(y, eps, mu_s, mu_k).1
}

/// One lagged friction contact.
#[derive(Debug, Clone, Copy)]
pub struct Contact {
    pub verts: [u32; 4],
    /// Closest-point weights.
    pub c: [f64; 4],
    /// Tangent basis (two unit vectors orthogonal to the normal).
    pub t: [[f64; 3]; 2],
    /// The lagged normal force λ.
    pub lambda: f64,
    /// Static and sliding friction coefficients of the pair.
    pub mu_s: f64,
    pub mu_k: f64,
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

    /// The potential λ Φ(|u|).
    pub fn energy(&self, x: &[[f64; 3]], xt: &[[f64; 3]], eps: f64) -> f64 {
        let u = self.slip(x, xt);
        self.lambda * phi((u[0] * u[0] + u[1] * u[1]).sqrt(), eps, self.mu_s, self.mu_k)
    }

    /// The friction force −λ Φ′(|u|) û on the first primitive (the second gets its opposite), world frame: the
    /// potential's gradient in the relative position, negated (the incremental potential holds h²·D, so this is
    /// in N).
    pub fn force(&self, x: &[[f64; 3]], xt: &[[f64; 3]], eps: f64) -> Vec3 {
        let u = self.slip(x, xt);
        let a = self.lambda * phi1_over_y((u[0] * u[0] + u[1] * u[1]).sqrt(), eps, self.mu_s, self.mu_k);
        let t = [Vec3::from_array(self.t[0]), Vec3::from_array(self.t[1])];
        -(t[0] * u[0] + t[1] * u[1]) * a
    }

    /// Gradient and Hessian in the one vector this potential depends on, the relative position Σ c_k x_k
    /// (rows = c), with the 2×2 Hessian in u, λ[(Φ′/y) I + (Φ″ − Φ′/y) ûûᵀ], projected to PSD: Φ′/y ≥ 0, and
    /// Φ″ < 0 (where the force falls from μ_s to μ_k) is clamped to 0.
    pub fn local(&self, x: &[[f64; 3]], xt: &[[f64; 3]], eps: f64) -> Local {
        self.local_with(x, xt, eps, true)
    }

    fn local_with(&self, x: &[[f64; 3]], xt: &[[f64; 3]], eps: f64, project: bool) -> Local {
        let u = self.slip(x, xt);
        let y = (u[0] * u[0] + u[1] * u[1]).sqrt();
        let a = phi1_over_y(y, eps, self.mu_s, self.mu_k);
        // along û: Φ″
        let along = phi2(y, eps, self.mu_s, self.mu_k);
        let along = if project { along.max(0.0) } else { along };
        let b = if y == 0.0 { 0.0 } else { (along - a) / (y * y) };
        let hu = [[a + b * u[0] * u[0], b * u[0] * u[1]], [b * u[1] * u[0], a + b * u[1] * u[1]]];
        let mut jet = Jet { n: 1, v: self.lambda * phi(y, eps, self.mu_s, self.mu_k), g: [0.0; 9], h: [[0.0; 9]; 9] };
        for r in 0..3 {
            // tangential force direction in 3-D: T (a u)
            jet.g[r] = self.lambda * a * (self.t[0][r] * u[0] + self.t[1][r] * u[1]);
            // T H_u Tᵀ
            for s in 0..3 {
                let mut v = 0.0;
                for i in 0..2 {
                    for j in 0..2 {
                        v += self.t[i][r] * hu[i][j] * self.t[j][s];
                    }
                }
                jet.h[r][s] = self.lambda * v;
            }
        }
        Local { rows: [self.c, [0.0; 4], [0.0; 4]], jet, range: None }
    }

    /// Gradient (12: 3 per stencil point) and exact Hessian (12×12, unprojected) in the stencil coordinates.
    pub fn derivatives(&self, x: &[[f64; 3]], xt: &[[f64; 3]], eps: f64) -> ([f64; 12], [[f64; 12]; 12]) {
        let l = self.local_with(x, xt, eps, false);
        (l.stencil_gradient(), l.stencil_hessian())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Φ against its definition: Φ′ = g and Φ″ = g′ by central differences in every region, g continuous with
    /// its derivative, g peaks at μ_s, and Φ = μ f0 when μ_s = μ_k.
    #[test]
    fn phi_integrates_the_force_law() {
        let eps = 0.01;
        for (ms, mk) in [(0.9, 0.6), (0.3, 0.5), (0.5, 0.5)] {
            let mut peak = 0.0f64;
            for k in 1..600 {
                let y = k as f64 * 0.005 * eps;
                let h = 1e-7 * eps;
                let d = (phi(y + h, eps, ms, mk) - phi(y - h, eps, ms, mk)) / (2.0 * h);
                let (g, g1) = force_law(y, eps, ms, mk);
                assert!((d - g).abs() < 1e-7, "Φ′ at y/ε = {}: {d} vs {g}", y / eps);
                assert!((phi1_over_y(y, eps, ms, mk) * y - g).abs() < 1e-12);
                let h = 1e-4 * eps;
                let d2 = (force_law(y + h, eps, ms, mk).0 - force_law(y - h, eps, ms, mk).0) / (2.0 * h);
                // (g′ has kinks at ε and 2ε, where a central difference of g is off by h·|Δg″|/2)
                if k % 200 != 0 {
                    assert!((d2 - g1).abs() < 1e-4 * (1.0 + g1.abs()), "Φ″ at y/ε = {}: {d2} vs {g1}", y / eps);
                }
                if ms == mk {
                    assert!((phi(y, eps, ms, mk) - ms * f0(y, eps)).abs() < 1e-15);
                }
                peak = peak.max(g);
            }
            assert!((peak - ms.max(mk)).abs() < 1e-12, "the force peaks at max(μ_s, μ_k): {peak}");
            for z in [1.0, 2.0] {
                let (lo, hi) = (force_law(z * eps * (1.0 - 1e-12), eps, ms, mk), force_law(z * eps * (1.0 + 1e-12), eps, ms, mk));
                assert!((lo.0 - hi.0).abs() < 1e-9 && (lo.1 - hi.1).abs() < 1e-6, "g is C¹ at y = {z} ε");
            }
        }
    }

    #[test]
    fn f0_is_c1_at_eps() {
        let eps = 1e-3;
        assert!((f0(eps * (1.0 - 1e-12), eps) - eps).abs() < 1e-14);
        assert!((f1_over_y(eps * (1.0 - 1e-12), eps) * eps - 1.0).abs() < 1e-9);
        assert!((f0(0.0, eps) - eps / 3.0).abs() < 1e-18);
    }
}
