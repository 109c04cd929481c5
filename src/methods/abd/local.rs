//! Closed-form barrier derivatives in a pair's own difference vectors, and their exact PSD projection.
//! Each distance case depends only on differences of stencil points (3, 6 or 9 variables), which gives the exact
//! gradient and Hessian with a few outer products instead of a 12-variable dual number (`dual.rs`, the tests'
//! reference); the projection equals IPC's per-element one on the 12 stencil coordinates.
//! See docs/methods/abd.md, "Exact barrier Hessians".

use super::barrier::{b, b1, b2, classify, may_be_within, PairShape};
use crate::collision::distance::Kind;
use crate::collision::distance_jet::{apply, cross2, distance, rows};
use crate::math::eigen::{clamp_negative, psd_factor, signed_factor};
use crate::math::jet::{congruence, cross, dot, sub, Jet, V3};

/// A pair's energy with its gradient and Hessian in n difference vectors y_k = Σ_s rows[k][s] x_s.
#[derive(Clone, Copy, Debug)]
pub struct Local {
    pub rows: [[f64; 4]; 3],
    pub jet: Jet,
    /// The Hessian's range in closed form, where known (see [`Range`]).
    pub range: Option<Range>,
}

/// A Hessian of rank ≤ m written as H = B C Bᵀ with m ≤ 5 known columns B (in the 3n local variables) and a
/// symmetric m×m C.
/// Without the mollifier, ∇D and ∇²D (envelope theorem over the closest-point parameters) and with them the
/// barrier's Hessian lie in the span of at most 5 columns, so the PSD projection is an m×m eigenproblem.
/// See docs/methods/abd.md, "Low-rank barrier Hessians".
#[derive(Clone, Copy, Debug)]
pub struct Range {
    pub m: usize,
    /// Columns of B.
    pub b: [[f64; 9]; 5],
    pub c: [[f64; 5]; 5],
    /// Point–point pairs with b′ ≤ 0 (always, inside d̂): δ̂ and the eigenvalue 4b″D + 2b′ along it. C is
    /// then (4b″D + 2b′) δ̂δ̂ᵀ + 2b′ (I − δ̂δ̂ᵀ) in the pair's one vector (B = I), so the projection keeps
    /// max(0, 4b″D + 2b′) δ̂δ̂ᵀ: no eigen-decomposition.
    pub pp: Option<([f64; 3], f64)>,
}

/// The barrier energy m·b(D) of a pair (without κ) with its gradient and its Hessian projected as the 12×12
/// stencil Hessian would be, factored; `None` at or beyond D̂. What Newton's assembly uses: without the
/// mollifier, the Hessian is never written out in the 3n variables (see [`Range`]).
pub fn barrier_projected(shape: PairShape, x: &[[f64; 3]; 4], dh: f64) -> Option<PairTerms> {
    within(shape, x, dh).map(|(kind, d)| barrier_projected_at(shape, x, kind, d, dh))
}

/// The barrier's gradient alone of a pair already classified (no Hessian columns: rank 0), as
/// [`barrier_exact_at`] and [`barrier_projected_at`] give it.
pub fn barrier_gradient_at(shape: PairShape, x: &[[f64; 3]; 4], kind: Kind, d: f64, dh: f64) -> PairTerms {
    let (rows, n, g) = if unmollified_pair(shape, x) {
        let (rows, n, g, _) = unmollified(kind, x, d, dh);
        (rows, n, g)
    } else {
        let loc = barrier_at(shape, x, kind, d, dh);
        (loc.rows, loc.n(), loc.jet.g)
    };
    PairTerms { rows, n, g, s: [[0.0; 9]; 9], rank: 0, sign: [1.0; 9] }
}

/// [`barrier_projected`] with the exact Hessian ([`barrier_exact_at`]).
pub fn barrier_exact(shape: PairShape, x: &[[f64; 3]; 4], dh: f64) -> Option<PairTerms> {
    within(shape, x, dh).map(|(kind, d)| barrier_exact_at(shape, x, kind, d, dh))
}

/// Whether a pair's barrier goes without the mollifier: every point–triangle pair, and the edge–edge pairs with
/// |u × v|² ≥ ε×.
fn unmollified_pair(shape: PairShape, x: &[[f64; 3]; 4]) -> bool {
    if !shape.edge_edge {
        return true;
    }
    let ll = rows(Kind::LineLine).0;
    let (u, v) = (apply(&ll[1], x), apply(&ll[2], x));
    dot(&cross(&u, &v), &cross(&u, &v)) >= shape.eps_x
}

/// The case and squared distance of a pair closer than D̂.
fn within(shape: PairShape, x: &[[f64; 3]; 4], dh: f64) -> Option<(Kind, f64)> {
    if !may_be_within(shape, x, dh) {
        return None;
    }
    let (kind, d) = classify(shape, x);
    (d < dh).then_some((kind, d))
}

/// [`barrier_projected`] for a pair already classified, with 0 < `d` < `dh`.
pub fn barrier_projected_at(shape: PairShape, x: &[[f64; 3]; 4], kind: Kind, d: f64, dh: f64) -> PairTerms {
    if unmollified_pair(shape, x) {
        let (rows, n, g, range) = unmollified(kind, x, d, dh);
        return range.projected(rows, n, g);
    }
    barrier_at(shape, x, kind, d, dh).projected()
}

/// [`barrier_projected_at`] with the exact Hessian instead of the projected one, factored with signs (see
/// [`PairTerms`]): in the range form C = F diag(σ) Fᵀ by [`signed_factor`], columns B F; mollified pairs factor
/// their 3n×3n Hessian directly.
pub fn barrier_exact_at(shape: PairShape, x: &[[f64; 3]; 4], kind: Kind, d: f64, dh: f64) -> PairTerms {
    if unmollified_pair(shape, x) {
        let (rows, n, g, range) = unmollified(kind, x, d, dh);
        let mut f = [[0.0; 9]; 9];
        let mut p = PairTerms { rows, n, g, s: [[0.0; 9]; 9], rank: 0, sign: [1.0; 9] };
        p.rank = signed_factor(&range.c, range.m, &mut f, &mut p.sign);
        for (col, fc) in p.s.iter_mut().zip(&f).take(p.rank) {
            for x in 0..3 * n {
                col[x] = (0..range.m).map(|i| range.b[i][x] * fc[i]).sum();
            }
        }
        return p;
    }
    let loc = barrier_at(shape, x, kind, d, dh);
    let mut p = PairTerms { rows: loc.rows, n: loc.n(), g: loc.jet.g, s: [[0.0; 9]; 9], rank: 0, sign: [1.0; 9] };
    p.rank = signed_factor(&loc.jet.h, 3 * p.n, &mut p.s, &mut p.sign);
    p
}

/// The barrier energy m·b(D) of a pair (without κ) as a [`Local`], unprojected; `None` at or beyond D̂.
pub fn barrier(shape: PairShape, x: &[[f64; 3]; 4], dh: f64) -> Option<Local> {
    within(shape, x, dh).map(|(kind, d)| barrier_at(shape, x, kind, d, dh))
}

/// [`barrier`] for a pair already classified, with 0 < `d` < `dh`.
fn barrier_at(shape: PairShape, x: &[[f64; 3]; 4], kind: Kind, d: f64, dh: f64) -> Local {
    let eps = shape.eps_x;
    if unmollified_pair(shape, x) {
        let (rows, n, g, range) = unmollified(kind, x, d, dh);
        let mut jet = Jet::zero(n);
        jet.v = b(d, dh);
        jet.g = g;
        range.write(&mut jet.h, 3 * n);
        return Local { rows, jet, range: Some(range) };
    }
    let ll = rows(Kind::LineLine).0;
    let (u, v) = (apply(&ll[1], x), apply(&ll[2], x));
    let (dj, t) = distance(kind, x);
    // mollified: everything in the edge–edge vectors (r, u, v); a sum-zero slot row c is
    // (c2 + c3) r + c1 u + c3 v
    let c: [[f64; 3]; 3] = std::array::from_fn(|i| [t[i][2] + t[i][3], t[i][1], t[i][3]]);
    let bl = dj.lift(&c, 3);
    let bl = bl.chain(b(bl.v, dh), b1(bl.v, dh), b2(bl.v, dh));
    let xj = cross2(&u, &v).lift(&[[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0; 3]], 3);
    let r = xj.v / eps;
    let m = xj.chain((2.0 - r) * r, (2.0 - 2.0 * r) / eps, -2.0 / (eps * eps));
    Local { rows: ll, jet: m.mul(&bl), range: None }
}

/// The barrier b(D) without the mollifier, D = `d` of case `kind`: the case's rows and their number, the gradient,
/// and the Hessian in the range form.
fn unmollified(kind: Kind, x: &[[f64; 3]; 4], d: f64, dh: f64) -> ([[f64; 4]; 3], usize, [f64; 9], Range) {
    let (t, n) = rows(kind);
    let y: [V3; 3] = std::array::from_fn(|k| if k < n { apply(&t[k], x) } else { [0.0; 3] });
    // δ, w, and the extra slots' directions a_i with their slot: E_c_i y = −2 (w ⊗ a_i + δ in slot s_i)
    let mut w = [0.0; 3];
    let mut extra: [(V3, usize); 2] = [([0.0; 3], 0); 2];
    let mut gram = [[0.0; 2]; 2];
    let (delta, ne) = match kind {
        Kind::PointPoint(..) => {
            w[0] = 1.0;
            (y[0], 0)
        }
        Kind::PointLine(..) => {
            let e = sub(&y[1], &y[0]);
            let ee = dot(&e, &e);
            let tt = -dot(&y[0], &e) / ee;
            w[0] = 1.0 - tt;
            w[1] = tt;
            // E = |u + t e|²: E_t = 2 δ·(v − u), ∂/∂(u, v) = 2 (w ⊗ e) + 2 (−δ, δ); the sign is immaterial here
            extra[0] = (e, 1);
            gram[0][0] = ee;
            // δ = u + t e, u's component across e, as e × (u × e)/|e|² (no cancellation when δ ≪ u)
            let c = cross(&e, &cross(&y[0], &e));
            (std::array::from_fn(|a| c[a] / ee), 1)
        }
        Kind::PointPlane | Kind::LineLine => {
            let (r, u, v) = (&y[0], &y[1], &y[2]);
            let (uu, uv, vv) = (dot(u, u), dot(u, v), dot(v, v));
            let (ur, vr) = (dot(u, r), dot(v, r));
            let det = uu * vv - uv * uv;
            let al = (vv * ur - uv * vr) / det;
            let be = (uu * vr - uv * ur) / det;
            w = [1.0, -al, -be];
            extra = [(*u, 1), (*v, 2)];
            gram = [[uu, uv], [uv, vv]];
            // δ = r − αu − βv is r's component along n = u × v; through n it suffers no cancellation when δ ≪ r
            let n = cross(u, v);
            let k = dot(r, &n) / dot(&n, &n);
            (std::array::from_fn(|a| k * n[a]), 2)
        }
    };
    let dn = dot(&delta, &delta).sqrt();
    let dhat_dir: V3 = std::array::from_fn(|a| delta[a] / dn);
    let m = 3 + ne;
    // columns: w ⊗ e_a, then δ̂ in the extra slot (the PL slot pair (−δ̂, δ̂) is −δ̂ in slot 0 plus δ̂ in slot 1)
    let mut bm = [[0.0; 9]; 5];
    for a in 0..3 {
        for k in 0..n {
            bm[a][3 * k + a] = w[k];
        }
    }
    for (i, (_, slot)) in extra.iter().enumerate().take(ne) {
        for a in 0..3 {
            bm[3 + i][3 * slot + a] = dhat_dir[a];
            if n == 2 {
                bm[3 + i][a] = -dhat_dir[a];
            }
        }
    }
    // ∇²D = B [2 diag(1, 1, 1, 0, 0) − 2 Z G⁻¹ Zᵀ] Bᵀ, Z's column i = (a_i, |δ| e_{3+i}), G the Gram of the a_i
    let mut cd = [[0.0; 5]; 5];
    for a in 0..3 {
        cd[a][a] = 2.0;
    }
    if ne > 0 {
        let z: [[f64; 5]; 2] = std::array::from_fn(|i| {
            let mut c = [0.0; 5];
            c[..3].copy_from_slice(&extra[i].0);
            c[3 + i] = dn;
            c
        });
        let gi = if ne == 1 {
            [[1.0 / gram[0][0], 0.0], [0.0, 0.0]]
        } else {
            let det = gram[0][0] * gram[1][1] - gram[0][1] * gram[0][1];
            [[gram[1][1] / det, -gram[0][1] / det], [-gram[0][1] / det, gram[0][0] / det]]
        };
        for i in 0..m {
            for j in 0..m {
                let mut s = 0.0;
                for p in 0..ne {
                    for q in 0..ne {
                        s += z[p][i] * gi[p][q] * z[q][j];
                    }
                }
                cd[i][j] -= 2.0 * s;
            }
        }
    }
    // barrier: ∇ = b′ B γ, ∇² = B (b″ γγᵀ + b′ C_D) Bᵀ, γ = (2δ, 0, 0)
    let (b1v, b2v) = (b1(d, dh), b2(d, dh));
    let mut c = [[0.0; 5]; 5];
    for i in 0..m {
        for j in 0..m {
            let gg = if i < 3 && j < 3 { 4.0 * delta[i] * delta[j] } else { 0.0 };
            c[i][j] = b2v * gg + b1v * cd[i][j];
        }
    }
    let mut g = [0.0; 9];
    for k in 0..n {
        for a in 0..3 {
            g[3 * k + a] = 2.0 * b1v * w[k] * delta[a];
        }
    }
    (t, n, g, Range { m, b: bm, c, pp: (kind_is_pp(kind) && b1v <= 0.0).then_some((dhat_dir, 4.0 * b2v * d + 2.0 * b1v)) })
}

fn kind_is_pp(kind: Kind) -> bool {
    matches!(kind, Kind::PointPoint(..))
}

impl Range {
    /// h = B C Bᵀ over the first `dim` variables.
    fn write(&self, h: &mut [[f64; 9]; 9], dim: usize) {
        let m = self.m;
        // BC, column-wise: bc[j][x] = Σ_i B[x][i] C[i][j]
        let mut bc = [[0.0; 9]; 5];
        for j in 0..m {
            for i in 0..m {
                let cij = self.c[i][j];
                for x in 0..dim {
                    bc[j][x] += self.b[i][x] * cij;
                }
            }
        }
        for x in 0..dim {
            for y in 0..=x {
                let v: f64 = (0..m).map(|j| bc[j][x] * self.b[j][y]).sum();
                h[x][y] = v;
                h[y][x] = v;
            }
        }
    }
}

impl Local {
    /// Number of difference vectors.
    pub fn n(&self) -> usize {
        self.jet.n
    }

    /// The Hessian projected to the PSD matrix that the 12×12 stencil Hessian would project to, factored.
    pub fn projected(&self) -> PairTerms {
        let n = self.n();
        let t = &self.rows;
        // L Lᵀ = T Tᵀ
        let g: [[f64; 3]; 3] = std::array::from_fn(|k| std::array::from_fn(|l| (0..4).map(|s| t[k][s] * t[l][s]).sum()));
        if let Some(r) = &self.range {
            return r.projected(self.rows, n, self.jet.g);
        }
        let mut l = [[0.0; 3]; 3];
        for i in 0..n {
            for j in 0..=i {
                let s = g[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>();
                l[i][j] = if i == j { s.sqrt() } else { s / l[j][j] };
            }
        }
        let mut h = self.jet.h;
        // A = (Lᵀ ⊗ I) H (L ⊗ I)
        let mut a = [[0.0; 9]; 9];
        congruence(&h, &mut a, n, |k, i| l[k][i]);
        if clamp_negative(&mut a, 3 * n) {
            let mut li = [[0.0; 3]; 3];
            for i in 0..n {
                li[i][i] = 1.0 / l[i][i];
                for j in 0..i {
                    li[i][j] = -(j..i).map(|k| l[i][k] * li[k][j]).sum::<f64>() / l[i][i];
                }
            }
            // H = (L⁻ᵀ ⊗ I) A (L⁻¹ ⊗ I)
            congruence(&a, &mut h, n, |k, i| li[k][i]);
        }
        PairTerms::from_psd(self.rows, n, self.jet.g, &h)
    }

    /// The Hessian, already positive semi-definite (friction's), factored.
    pub fn factored(&self) -> PairTerms {
        PairTerms::from_psd(self.rows, self.n(), self.jet.g, &self.jet.h)
    }

    /// Gradient in the 12 stencil coordinates.
    pub fn stencil_gradient(&self) -> [f64; 12] {
        let mut g = [0.0; 12];
        for s in 0..4 {
            for k in 0..self.n() {
                for a in 0..3 {
                    g[3 * s + a] += self.rows[k][s] * self.jet.g[3 * k + a];
                }
            }
        }
        g
    }

    /// Hessian in the 12 stencil coordinates, Tᵀ H T.
    pub fn stencil_hessian(&self) -> [[f64; 12]; 12] {
        stencil_of(&self.rows, self.n(), &self.jet.h)
    }
}

/// Tᵀ h T: a Hessian in n difference vectors mapped to the 12 stencil coordinates.
fn stencil_of(rows: &[[f64; 4]; 3], n: usize, hl: &[[f64; 9]; 9]) -> [[f64; 12]; 12] {
    let mut h = [[0.0; 12]; 12];
    for s in 0..4 {
        for t in 0..4 {
            for k in 0..n {
                for l in 0..n {
                    let w = rows[k][s] * rows[l][t];
                    if w == 0.0 {
                        continue;
                    }
                    for a in 0..3 {
                        for e in 0..3 {
                            h[3 * s + a][3 * t + e] += w * hl[3 * k + a][3 * l + e];
                        }
                    }
                }
            }
        }
    }
    h
}

/// A pair's gradient and Hessian in n difference vectors, the Hessian as Σ_i σ_i s_i s_iᵀ over `rank` columns s_i
/// with signs σ_i: all +1 when projected (a few columns for a barrier pair: the projection leaves rank ≤ 3 of the
/// 5 in [`Range`]), ±1 for the exact Hessian ([`barrier_exact_at`]).
#[derive(Clone, Copy, Debug)]
pub struct PairTerms {
    pub rows: [[f64; 4]; 3],
    pub n: usize,
    pub g: [f64; 9],
    pub s: [[f64; 9]; 9],
    pub rank: usize,
    pub sign: [f64; 9],
}

impl PairTerms {
    /// Factors a positive semi-definite h by Cholesky with diagonal pivoting, dropping a remainder below 1e-14 of
    /// its largest diagonal entry.
    fn from_psd(rows: [[f64; 4]; 3], n: usize, g: [f64; 9], h: &[[f64; 9]; 9]) -> PairTerms {
        let mut p = PairTerms { rows, n, g, s: [[0.0; 9]; 9], rank: 0, sign: [1.0; 9] };
        p.rank = psd_factor(h, 3 * n, &mut p.s);
        p
    }

    /// Hessian in the 12 stencil coordinates.
    pub fn stencil_hessian(&self) -> [[f64; 12]; 12] {
        let d = 3 * self.n;
        let mut h = [[0.0; 9]; 9];
        for (col, sg) in self.s[..self.rank].iter().zip(&self.sign) {
            for x in 0..d {
                for y in 0..d {
                    h[x][y] += sg * col[x] * col[y];
                }
            }
        }
        stencil_of(&self.rows, self.n, &h)
    }
}

impl Range {
    /// The range form of the 12×12 stencil projection, given the Gram T Tᵀ of the rows: with U = (T ⊗ I)ᵀ B
    /// (12×m, UᵀU = G = Bᵀ (TTᵀ ⊗ I) B = L Lᵀ), H₁₂ = U C Uᵀ = Q (Lᵀ C L) Qᵀ with Q = U L⁻ᵀ orthonormal, so
    /// PSD(H₁₂) = U L⁻ᵀ PSD(Lᵀ C L) L⁻¹ Uᵀ, i.e. C⁺ = L⁻ᵀ PSD(Lᵀ C L) L⁻¹.
    /// Returns it factored: C⁺ = F Fᵀ, so H⁺ = Σ (B F)_i (B F)_iᵀ.
    fn projected(&self, rows: [[f64; 4]; 3], n: usize, g: [f64; 9]) -> PairTerms {
        if let Some((dir, lam)) = self.pp {
            let mut p = PairTerms { rows, n, g, s: [[0.0; 9]; 9], rank: usize::from(lam > 0.0), sign: [1.0; 9] };
            let r = lam.max(0.0).sqrt();
            for a in 0..3 {
                p.s[0][a] = r * dir[a];
            }
            return p;
        }
        let gt: [[f64; 3]; 3] = std::array::from_fn(|k| std::array::from_fn(|l| (0..4).map(|s| rows[k][s] * rows[l][s]).sum()));
        let m = self.m;
        // (TTᵀ ⊗ I) b_i, then G_ij = b_jᵀ (TTᵀ ⊗ I) b_i
        let mut mb = [[0.0; 9]; 5];
        for i in 0..m {
            for k in 0..n {
                for l in 0..n {
                    let w = gt[k][l];
                    for a in 0..3 {
                        mb[i][3 * k + a] += w * self.b[i][3 * l + a];
                    }
                }
            }
        }
        let mut gm = [[0.0; 5]; 5];
        for i in 0..m {
            for j in 0..=i {
                let mut s = 0.0;
                for x in 0..9 {
                    s += mb[i][x] * self.b[j][x];
                }
                gm[i][j] = s;
                gm[j][i] = s;
            }
        }
        let mut l = [[0.0; 5]; 5];
        for i in 0..m {
            for j in 0..=i {
                let s = gm[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>();
                l[i][j] = if i == j { s.sqrt() } else { s / l[j][j] };
            }
        }
        // N = Lᵀ C L
        let mut cl = [[0.0; 5]; 5];
        for i in 0..m {
            for j in 0..m {
                cl[i][j] = (j..m).map(|k| self.c[i][k] * l[k][j]).sum();
            }
        }
        let mut nm = [[0.0; 5]; 5];
        for i in 0..m {
            for j in 0..m {
                nm[i][j] = (i..m).map(|k| l[k][i] * cl[k][j]).sum();
            }
        }
        clamp_negative(&mut nm, m);
        // N⁺ = F₀ F₀ᵀ, F = L⁻ᵀ F₀ (back substitution with Lᵀ), columns B F
        let mut f0 = [[0.0; 9]; 9];
        let rank = psd_factor(&nm, m, &mut f0);
        let mut p = PairTerms { rows, n, g, s: [[0.0; 9]; 9], rank, sign: [1.0; 9] };
        for (col, fc) in p.s.iter_mut().zip(&f0).take(rank) {
            let mut f = [0.0; 5];
            for i in (0..m).rev() {
                f[i] = (fc[i] - (i + 1..m).map(|k| l[k][i] * f[k]).sum::<f64>()) / l[i][i];
            }
            for x in 0..3 * n {
                col[x] = (0..m).map(|i| self.b[i][x] * f[i]).sum();
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::super::barrier;
    use super::*;

    fn rel(a: &[[f64; 12]; 12], b: &[[f64; 12]; 12]) -> f64 {
        let m = b.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
        a.iter().flatten().zip(b.iter().flatten()).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max) / m
    }

    /// The closed form against the dual-number reference, every case, with and without the mollifier, before and
    /// after projection (the reference projects the 12×12 stencil Hessian).
    #[test]
    fn closed_form_matches_dual_numbers_and_projection_matches_stencil_projection() {
        let mut rng = crate::math::rng::Rng::new(3);
        let dh = 0.5f64;
        let mut kinds = std::collections::BTreeSet::new();
        let mut mollified = 0;
        for trial in 0..6000 {
            let mut x: [[f64; 3]; 4] = rng.stencil();
            let ee = trial % 2 == 1;
            if ee && trial % 6 == 1 {
                for r in 0..3 {
                    x[3][r] = x[2][r] + (x[1][r] - x[0][r]) * 0.7 + 0.01 * rng.symmetric();
                }
            }
            let eps_x = if ee {
                let ea: f64 = (0..3).map(|r| (x[1][r] - x[0][r]).powi(2)).sum();
                let eb: f64 = (0..3).map(|r| (x[3][r] - x[2][r]).powi(2)).sum();
                1e-3 * ea * eb
            } else {
                0.0
            };
            let shape = PairShape { edge_edge: ee, eps_x };
            let Some(dual) = barrier::energy_dual(shape, &x, dh * dh) else { continue };
            let loc = barrier(shape, &x, dh * dh).expect("same cut-off");
            kinds.insert(format!("{ee} {:?}", classify(shape, &x).0));
            if loc.rows == rows(Kind::LineLine).0 && ee && crate::collision::distance::cross_norm2::<f64>(&x) < eps_x {
                mollified += 1;
            }
            let g = loc.stencil_gradient();
            let gm = dual.g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let ge = g.iter().zip(&dual.g).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / gm;
            assert!(ge < 1e-9, "gradient {ge:e} at trial {trial}");
            assert!((loc.jet.v - dual.v).abs() <= 1e-9 * dual.v.abs(), "value at trial {trial}");
            let he = rel(&loc.stencil_hessian(), &dual.h);
            assert!(he < 1e-9, "hessian {he:e} at trial {trial}");
            let mut hp = dual.h;
            crate::math::eigen::project_psd(&mut hp);
            let pe = rel(&loc.projected().stencil_hessian(), &hp);
            let fast = barrier_projected(shape, &x, dh * dh).expect("same cut-off");
            let fe = rel(&fast.stencil_hessian(), &hp);
            assert!(fe < 1e-8, "projected hessian (assembly's path) {fe:e} at trial {trial}");
            let fg = fast.g.iter().zip(&loc.jet.g).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / gm.max(1e-300);
            assert!(fg < 1e-12, "gradient (assembly's path) {fg:e} at trial {trial}");
            assert!(pe < 1e-8, "projected hessian {pe:e} at trial {trial}");
            let (kind, d) = classify(shape, &x);
            let exact = barrier_exact_at(shape, &x, kind, d, dh * dh);
            let ee_ = rel(&exact.stencil_hessian(), &dual.h);
            assert!(ee_ < 1e-8, "exact hessian (assembly's path) {ee_:e} at trial {trial}");
            assert_eq!(exact.g, fast.g, "the same gradient either way");
        }
        assert_eq!(kinds.len(), 16, "cases seen: {kinds:?}");
        assert!(mollified > 20, "{mollified} mollified pairs");
    }
}
