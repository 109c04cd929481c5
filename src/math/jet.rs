//! Values with exact gradients and Hessians in n ≤ 3 vectors of ℝ³ (3n variables): the closed-form
//! counterpart of the second-order dual numbers of `dual.rs`, built from a few outer products instead of a
//! 12-variable dual number. Arithmetic (product, quotient, composition with a scalar function, linear change
//! of vectors) and the small 3×3 and block helpers the closed forms use. The tests of `abd::local` compare
//! these with `dual.rs` and finite differences.

/// A 3-vector as an array.
pub type V3 = [f64; 3];

/// a − b.
pub fn sub(a: &V3, b: &V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
/// a · b.
pub fn dot(a: &V3, b: &V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
/// a × b.
pub fn cross(a: &V3, b: &V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// A value with its gradient and Hessian in n ≤ 3 vectors (3n variables; entries past 3n are zero).
#[derive(Clone, Copy, Debug)]
pub struct Jet {
    /// Number of vectors (≤ 3).
    pub n: usize,
    /// The value.
    pub v: f64,
    /// The gradient (3n entries used).
    pub g: [f64; 9],
    /// The Hessian (3n × 3n used).
    pub h: [[f64; 9]; 9],
}

impl Jet {
    /// Zero in n vectors.
    pub fn zero(n: usize) -> Jet {
        Jet { n, v: 0.0, g: [0.0; 9], h: [[0.0; 9]; 9] }
    }

    /// f(self) from f, f′, f″ at the value.
    pub fn chain(&self, f: f64, f1: f64, f2: f64) -> Jet {
        let m = 3 * self.n;
        let mut r = Jet::zero(self.n);
        r.v = f;
        for i in 0..m {
            r.g[i] = f1 * self.g[i];
            for j in 0..m {
                r.h[i][j] = f1 * self.h[i][j] + f2 * self.g[i] * self.g[j];
            }
        }
        r
    }

    /// self · o.
    pub fn mul(&self, o: &Jet) -> Jet {
        let m = 3 * self.n;
        let mut r = Jet::zero(self.n);
        r.v = self.v * o.v;
        for i in 0..m {
            r.g[i] = self.v * o.g[i] + o.v * self.g[i];
            for j in 0..m {
                r.h[i][j] = self.v * o.h[i][j] + o.v * self.h[i][j] + self.g[i] * o.g[j] + o.g[i] * self.g[j];
            }
        }
        r
    }

    /// self / o.
    pub fn quot(&self, o: &Jet) -> Jet {
        let m = 3 * self.n;
        let (p, q) = (self.v, o.v);
        let (iq, iq2, iq3) = (1.0 / q, 1.0 / (q * q), 1.0 / (q * q * q));
        let mut r = Jet::zero(self.n);
        r.v = p * iq;
        for i in 0..m {
            r.g[i] = self.g[i] * iq - p * o.g[i] * iq2;
            for j in 0..m {
                r.h[i][j] = self.h[i][j] * iq - (self.g[i] * o.g[j] + o.g[i] * self.g[j]) * iq2 + 2.0 * p * o.g[i] * o.g[j] * iq3
                    - p * o.h[i][j] * iq2;
            }
        }
        r
    }

    /// The same function of n_out vectors z, where this jet's vector i is Σ_k c[i][k] z_k.
    pub fn lift(&self, c: &[[f64; 3]; 3], n_out: usize) -> Jet {
        let mut r = Jet::zero(n_out);
        r.v = self.v;
        for k in 0..n_out {
            for i in 0..self.n {
                if c[i][k] == 0.0 {
                    continue;
                }
                for a in 0..3 {
                    r.g[3 * k + a] += c[i][k] * self.g[3 * i + a];
                }
            }
        }
        for k in 0..n_out {
            for l in 0..n_out {
                for i in 0..self.n {
                    for j in 0..self.n {
                        let w = c[i][k] * c[j][l];
                        if w == 0.0 {
                            continue;
                        }
                        for a in 0..3 {
                            for e in 0..3 {
                                r.h[3 * k + a][3 * l + e] += w * self.h[3 * i + a][3 * j + e];
                            }
                        }
                    }
                }
            }
        }
        r
    }

    /// Sets the symmetric Hessian blocks (i, j) and (j, i) to m and mᵀ.
    pub fn set_block(&mut self, i: usize, j: usize, m: [[f64; 3]; 3]) {
        for a in 0..3 {
            for e in 0..3 {
                self.h[3 * i + a][3 * j + e] = m[a][e];
                self.h[3 * j + e][3 * i + a] = m[a][e];
            }
        }
    }
}

/// s·a bᵀ.
pub fn outer(a: &V3, b: &V3, s: f64) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| std::array::from_fn(|j| s * a[i] * b[j]))
}

/// s·[a]×, the cross-product matrix.
pub fn skew(a: &V3, s: f64) -> [[f64; 3]; 3] {
    [[0.0, -s * a[2], s * a[1]], [s * a[2], 0.0, -s * a[0]], [-s * a[1], s * a[0], 0.0]]
}

/// m + s·I.
pub fn add_diag(mut m: [[f64; 3]; 3], s: f64) -> [[f64; 3]; 3] {
    for (i, row) in m.iter_mut().enumerate() {
        row[i] += s;
    }
    m
}

/// out = (Mᵀ ⊗ I) h (M ⊗ I) over n blocks, with M[k][i] = m(k, i).
pub fn congruence(h: &[[f64; 9]; 9], out: &mut [[f64; 9]; 9], n: usize, m: impl Fn(usize, usize) -> f64) {
    for i in 0..n {
        for j in 0..n {
            let mut blk = [[0.0; 3]; 3];
            for k in 0..n {
                for l in 0..n {
                    let w = m(k, i) * m(l, j);
                    if w == 0.0 {
                        continue;
                    }
                    for a in 0..3 {
                        for e in 0..3 {
                            blk[a][e] += w * h[3 * k + a][3 * l + e];
                        }
                    }
                }
            }
            for a in 0..3 {
                for e in 0..3 {
                    out[3 * i + a][3 * j + e] = blk[a][e];
                }
            }
        }
    }
}
