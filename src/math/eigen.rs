//! Projection of small symmetric matrices (3×3 to 12×12) onto the positive semi-definite cone: IPC's
//! per-element projection, A⁺ = A − Σ_{λ<0} λ v vᵀ; and the signed factoring Σ σ_i s_i s_iᵀ of an indefinite one
//! (`signed_factor`, abd's exact barrier Hessians).
//!
//! The decomposition is nalgebra's, checked (it sometimes pairs eigenvalues with the wrong eigenvectors,
//! dimforge/nalgebra#1109), with Rayleigh quotients and then cyclic Jacobi as fallbacks.
//! See docs/methods/abd.md, "PSD projection".

/// Projects a symmetric matrix onto the positive semi-definite cone (eigenvalues clamped at 0).
pub fn project_psd<const N: usize>(h: &mut [[f64; N]; N]) {
    clamp_negative(h, N);
}

/// Projects the leading d×d block (d ≤ M; nalgebra's decomposition for d = 3, 4, 5, 6, 9 and 12, Jacobi
/// otherwise) of a symmetric matrix onto the positive semi-definite cone. Returns false, leaving the block as it
/// was (symmetrised), when no eigenvalue is below −1e-12 of the largest magnitude.
pub fn clamp_negative<const M: usize>(a: &mut [[f64; M]; M], d: usize) -> bool {
    assert!(d <= M, "block {d} of a {M}×{M} matrix");
    for i in 0..d {
        for j in 0..i {
            let m = 0.5 * (a[i][j] + a[j][i]);
            a[i][j] = m;
            a[j][i] = m;
        }
    }
    let mut lam = [0.0; M];
    let mut v = [[0.0; M]; M];
    macro_rules! run {
        ($d:literal) => {{
            let m = nalgebra::SMatrix::<f64, $d, $d>::from_fn(|i, j| a[i][j]);
            let eig = nalgebra::SymmetricEigen::try_new(m, 1e-11, 0).expect("max_niter 0 iterates to convergence");
            for k in 0..$d {
                lam[k] = eig.eigenvalues[k];
                for i in 0..$d {
                    v[i][k] = eig.eigenvectors[(i, k)];
                }
            }
        }};
    }
    match d {
        3 => run!(3),
        4 => run!(4),
        5 => run!(5),
        6 => run!(6),
        9 => run!(9),
        12 => run!(12),
        _ => jacobi_eigen(a, d, &mut lam, &mut v),
    }
    // negative eigenvalues below 1e-12 of the largest one are round-off and left alone (clamping them would
    // change A by less than that; checking their vectors, which round-off mixes, would only cost fallbacks)
    let floor = -1e-12 * lam[..d].iter().fold(0.0f64, |m, l| m.max(l.abs()));
    if lam[..d].iter().all(|&l| l >= floor) {
        return false;
    }
    // every negative pair must satisfy A v = λ v (a mispaired vector fails this)
    let scale = (0..d).flat_map(|i| (0..d).map(move |j| (i, j))).fold(0.0f64, |m, (i, j)| m.max(a[i][j].abs()));
    let pairs_ok = |lam: &[f64; M], v: &[[f64; M]; M], floor: f64| {
        (0..d).filter(|&k| lam[k] < floor).all(|k| {
            (0..d).all(|i| {
                let av: f64 = (0..d).map(|j| a[i][j] * v[j][k]).sum();
                (av - lam[k] * v[i][k]).abs() <= 1e-9 * scale
            })
        })
    };
    let mut ok = pairs_ok(&lam, &v, floor);
    if !ok {
        // the vectors are still an orthonormal eigenbasis when only the pairing is wrong: their Rayleigh
        // quotients give each its own eigenvalue
        for k in 0..d {
            lam[k] = (0..d).map(|i| v[i][k] * (0..d).map(|j| a[i][j] * v[j][k]).sum::<f64>()).sum();
        }
        // and every pair must now hold, or a negative one could hide behind a wrong vector
        ok = pairs_ok(&lam, &v, f64::INFINITY);
    }
    let floor = -1e-12 * lam[..d].iter().fold(0.0f64, |m, l| m.max(l.abs()));
    if !ok {
        jacobi_eigen(a, d, &mut lam, &mut v);
        if lam[..d].iter().all(|&l| l >= floor) {
            return false;
        }
    }
    for k in (0..d).filter(|&k| lam[k] < floor) {
        let l = lam[k];
        for i in 0..d {
            let li = l * v[i][k];
            for j in 0..d {
                a[i][j] -= li * v[j][k];
            }
        }
    }
    true
}

/// Eigenvalues `lam` and eigenvectors (columns of `v`) of the leading d×d block of a symmetric matrix by cyclic
/// Jacobi rotations.
pub fn jacobi_eigen<const M: usize>(a: &[[f64; M]; M], d: usize, lam: &mut [f64; M], v: &mut [[f64; M]; M]) {
    let mut w = [[0.0; M]; M];
    for i in 0..d {
        for j in 0..d {
            w[i][j] = 0.5 * (a[i][j] + a[j][i]);
            v[i][j] = if i == j { 1.0 } else { 0.0 };
        }
    }
    for _sweep in 0..100 {
        let off: f64 = (0..d).flat_map(|i| (i + 1..d).map(move |j| (i, j))).map(|(i, j)| w[i][j] * w[i][j]).sum();
        let all: f64 = (0..d).map(|i| w[i][i] * w[i][i]).sum::<f64>() + 2.0 * off;
        if off <= 1e-32 * all {
            break;
        }
        for p in 0..d {
            for q in p + 1..d {
                let apq = w[p][q];
                if apq == 0.0 {
                    continue;
                }
                // the rotation that zeroes w[p][q]: t = tan φ, the smaller root of t² + 2θt − 1 = 0
                let theta = (w[q][q] - w[p][p]) / (2.0 * apq);
                let t = if theta == 0.0 { 1.0 } else { theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt()) };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..d {
                    let (kp, kq) = (w[k][p], w[k][q]);
                    w[k][p] = c * kp - s * kq;
                    w[k][q] = s * kp + c * kq;
                }
                for k in 0..d {
                    let (pk, qk) = (w[p][k], w[q][k]);
                    w[p][k] = c * pk - s * qk;
                    w[q][k] = s * pk + c * qk;
                }
                for row in v.iter_mut().take(d) {
                    let (kp, kq) = (row[p], row[q]);
                    row[p] = c * kp - s * kq;
                    row[q] = s * kp + c * kq;
                }
            }
        }
    }
    for k in 0..d {
        lam[k] = w[k][k];
    }
}

/// Columns s_i with Σ s_i s_iᵀ = a for a positive semi-definite d×d `a` (pivoted Cholesky); returns their number.
pub fn psd_factor<const M: usize>(a: &[[f64; M]; M], d: usize, out: &mut [[f64; 9]; 9]) -> usize {
    let mut w = *a;
    let top = (0..d).fold(0.0f64, |m, i| m.max(w[i][i]));
    let tol = 1e-14 * top;
    let mut rank = 0;
    while rank < d {
        let (p, piv) = (0..d).map(|i| (i, w[i][i])).fold((0, 0.0), |b, c| if c.1 > b.1 { c } else { b });
        if piv <= tol || piv <= 0.0 {
            break;
        }
        let inv = 1.0 / piv.sqrt();
        let col: [f64; M] = std::array::from_fn(|i| if i < d { w[i][p] * inv } else { 0.0 });
        for i in 0..d {
            for j in 0..d {
                w[i][j] -= col[i] * col[j];
            }
            out[rank][i] = col[i];
        }
        w[p][p] = 0.0;
        rank += 1;
    }
    rank
}

/// Bunch and Parlett's bound (1 + √17)/8: [`signed_factor`] takes a 1×1 pivot while the largest remaining diagonal
/// entry is at least this times the largest remaining off-diagonal one, else a 2×2 pivot on that off-diagonal
/// entry; either way the elements grow boundedly.
const PIVOT_ALPHA: f64 = 0.640_388_203_202_208_0;

/// Columns s_i with signs σ_i = ±1 and Σ σ_i s_i s_iᵀ = a for a symmetric d×d `a` (d ≤ 9), any inertia: LDLᵀ with
/// Bunch–Parlett pivoting. A 1×1 pivot a_pp gives s = a_·p/√|a_pp|, σ = sign a_pp; a 2×2 pivot E on rows (i, j),
/// E = Σ λ_k v_k v_kᵀ, gives s_k = a_·{i,j} v_k/√|λ_k|, σ_k = sign λ_k (the two sum to a_·{i,j} E⁻¹ a_{i,j}·).
/// Stops when every remaining entry is within 1e-14 of a's largest. Returns the number of columns.
pub fn signed_factor<const M: usize>(a: &[[f64; M]; M], d: usize, out: &mut [[f64; 9]; 9], sign: &mut [f64; 9]) -> usize {
    assert!(d <= 9 && d <= M, "signed_factor of a {d}×{d} block");
    let mut w = *a;
    let top = (0..d).flat_map(|i| (0..d).map(move |j| (i, j))).fold(0.0f64, |m, (i, j)| m.max(a[i][j].abs()));
    let tol = 1e-14 * top;
    let mut live = [false; 9];
    live[..d].iter_mut().for_each(|l| *l = true);
    let mut rank = 0;
    loop {
        let (mut p, mut piv) = (0, 0.0f64);
        let (mut oi, mut oj, mut off) = (0, 0, 0.0f64);
        for i in (0..d).filter(|&i| live[i]) {
            if w[i][i].abs() > piv.abs() {
                (p, piv) = (i, w[i][i]);
            }
            for j in (0..i).filter(|&j| live[j]) {
                if w[i][j].abs() > off {
                    (oi, oj, off) = (i, j, w[i][j].abs());
                }
            }
        }
        if piv.abs() <= tol && off <= tol {
            return rank;
        }
        // the pivot's columns s_k (zero on rows already eliminated) and their signs
        let mut cols = [[0.0; 9]; 2];
        let mut signs = [0.0; 2];
        let n = if piv.abs() >= PIVOT_ALPHA * off {
            let inv = 1.0 / piv.abs().sqrt();
            cols[0] = std::array::from_fn(|r| if r < d && live[r] { w[r][p] * inv } else { 0.0 });
            signs[0] = piv.signum();
            live[p] = false;
            1
        } else {
            // E = [[e, f], [f, g]] with |f| > |e|, |g|: indefinite (det < 0), eigenvalues λ± = m ± √(h² + f²)
            let (e, f, g) = (w[oi][oi], w[oi][oj], w[oj][oj]);
            let (m, h) = (0.5 * (e + g), 0.5 * (e - g));
            let rt = h.hypot(f);
            for (k, lam) in [m + rt, m - rt].into_iter().enumerate() {
                // (E − λ)v = 0: v ∥ (f, λ − e), or (λ − g, f); the larger of the two
                let (v1, v2) = if (lam - e).abs() >= (lam - g).abs() { (f, lam - e) } else { (lam - g, f) };
                let norm = v1.hypot(v2);
                let scale = 1.0 / (norm * lam.abs().sqrt());
                cols[k] = std::array::from_fn(|r| if r < d && live[r] { (w[r][oi] * v1 + w[r][oj] * v2) * scale } else { 0.0 });
                signs[k] = lam.signum();
            }
            live[oi] = false;
            live[oj] = false;
            2
        };
        for k in 0..n {
            for i in 0..d {
                for j in 0..d {
                    w[i][j] -= signs[k] * cols[k][i] * cols[k][j];
                }
            }
            out[rank] = cols[k];
            sign[rank] = signs[k];
            rank += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psd_projection_recovers_the_clamped_spectrum() {
        for d in [1, 2, 3, 6, 9, 12] {
            psd_case(d, 600);
        }
    }

    #[test]
    fn signed_factor_reproduces_indefinite_matrices() {
        let mut rng = crate::math::rng::Rng::new(11);
        for trial in 0..3000 {
            let d = 1 + trial % 9;
            let mut a = [[0.0; 9]; 9];
            for i in 0..d {
                for j in 0..=i {
                    let v = rng.symmetric();
                    a[i][j] = v;
                    a[j][i] = v;
                }
            }
            // low rank, zero diagonals (no 1×1 pivot at all) and definite cases too
            if trial % 5 == 1 {
                for i in 0..d {
                    a[i][i] = 0.0;
                }
            } else if trial % 5 == 2 {
                let u: [f64; 9] = std::array::from_fn(|_| rng.symmetric());
                let w: [f64; 9] = std::array::from_fn(|_| rng.symmetric());
                a = std::array::from_fn(|i| std::array::from_fn(|j| if i < d && j < d { u[i] * u[j] - 3.0 * w[i] * w[j] } else { 0.0 }));
            }
            let mut out = [[0.0; 9]; 9];
            let mut sign = [0.0; 9];
            let rank = signed_factor(&a, d, &mut out, &mut sign);
            assert!(rank <= d);
            if trial % 5 == 2 {
                assert!(rank <= 2 || d < 2, "rank {rank} of a rank-2 matrix");
            }
            let top = a.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
            for i in 0..d {
                for j in 0..d {
                    let r: f64 = (0..rank).map(|k| sign[k] * out[k][i] * out[k][j]).sum();
                    assert!((r - a[i][j]).abs() <= 1e-12 * top, "trial {trial} ({d}×{d}): entry ({i}, {j}) {r} vs {}", a[i][j]);
                }
            }
            assert!(sign[..rank].iter().all(|s| s.abs() == 1.0));
        }
    }

    #[test]
    fn jacobi_decomposes_exactly() {
        let a = [[4.0, 1.0, -2.0], [1.0, -3.0, 0.5], [-2.0, 0.5, 1.0]];
        let (mut lam, mut v) = ([0.0; 3], [[0.0; 3]; 3]);
        jacobi_eigen(&a, 3, &mut lam, &mut v);
        for i in 0..3 {
            for j in 0..3 {
                let r: f64 = (0..3).map(|k| lam[k] * v[i][k] * v[j][k]).sum();
                assert!((r - a[i][j]).abs() < 1e-13, "({i},{j}): {r} vs {}", a[i][j]);
            }
        }
    }
    /// PSD projection against the known answer: matrices Q diag(λ) Qᵀ with random orthogonal Q (products of
    /// Householder reflections) and spectra with pairs ±λ, repeated and zero eigenvalues, which is where
    /// nalgebra's decomposition mispaired vectors; the projection must be Q diag(max(λ, 0)) Qᵀ.
    fn psd_case(d: usize, trials: usize) {
        let mut rng = crate::math::rng::Rng::new(9 + d as u64);
        let mut rnd = || rng.symmetric();
        for trial in 0..trials {
            let mut q = [[0.0; 12]; 12];
            for (i, row) in q.iter_mut().enumerate() {
                row[i] = 1.0;
            }
            for _ in 0..3 {
                let h: [f64; 12] = std::array::from_fn(|i| if i < d { rnd() } else { 0.0 });
                let hh: f64 = h.iter().map(|x| x * x).sum();
                for row in q.iter_mut().take(d) {
                    let s: f64 = (0..d).map(|k| row[k] * h[k]).sum::<f64>() * 2.0 / hh;
                    for k in 0..d {
                        row[k] -= s * h[k];
                    }
                }
            }
            let scale = 10f64.powf(3.0 * rnd());
            let lam: [f64; 12] = std::array::from_fn(|k| match k % 4 {
                0 => scale * (1.0 + rnd().abs()),
                1 => -scale * (1.0 + rnd().abs()) * if trial % 3 == 0 { 0.0 } else { 1.0 },
                2 => {
                    if k >= 2 {
                        0.0
                    } else {
                        scale
                    }
                }
                _ => -scale,
            });
            let mut a = [[0.0; 12]; 12];
            let mut want = [[0.0; 12]; 12];
            for i in 0..d {
                for j in 0..d {
                    a[i][j] = (0..d).map(|k| lam[k] * q[i][k] * q[j][k]).sum();
                    want[i][j] = (0..d).map(|k| lam[k].max(0.0) * q[i][k] * q[j][k]).sum();
                }
            }
            let top = lam.iter().fold(0.0f64, |m, l| m.max(l.abs()));
            clamp_negative(&mut a, d);
            let err = (0..d).flat_map(|i| (0..d).map(move |j| (i, j))).map(|(i, j)| (a[i][j] - want[i][j]).abs()).fold(0.0, f64::max);
            assert!(err <= 1e-9 * top, "trial {trial} (d = {d}): error {err:e} of {top:e}");
        }
    }
}
