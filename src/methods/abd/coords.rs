//! Joint functions in affine coordinates (issue 15 item 4): the joint coordinate (hinge angle, prismatic
//! displacement) and a prismatic joint's line rows, with exact gradients and Hessians in each body's twelve affine
//! coordinates, and the bound on a Newton step that keeps a coordinate from crossing a limit. They are the shared
//! kinematics' functions (`dynamics/joint.rs`) of a few world vectors, each linear in q.
//! See docs/methods/abd.md, "Joint functions in affine coordinates".

use crate::math::jet::{self, Jet, V3};

/// A world vector of a joint, linear in the coordinates of at most two bodies:
/// v = Σ (I₃ ⊗ wᵀ) q_b over `terms` + `offset` (the world side's constant part).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vector {
    pub terms: [Option<(usize, [f64; 4])>; 2],
    pub offset: V3,
}

impl Vector {
    /// A direction ū of body `b` (w = (ū, 0)), or the world direction `world` when `b` is `None`.
    pub fn direction(b: Option<usize>, u: V3) -> Vector {
        match b {
            Some(b) => Vector { terms: [Some((b, [u[0], u[1], u[2], 0.0])), None], offset: [0.0; 3] },
            None => Vector { terms: [None, None], offset: u },
        }
    }

    /// The difference p₂ − p₁ of two points: c̄₁ on body `b1`, and c̄₂ on `b2` (or the world point c̄₂).
    pub fn difference(b1: usize, c1: V3, b2: Option<usize>, c2: V3) -> Vector {
        let minus = Some((b1, [-c1[0], -c1[1], -c1[2], -1.0]));
        match b2 {
            Some(b2) => Vector { terms: [minus, Some((b2, [c2[0], c2[1], c2[2], 1.0]))], offset: [0.0; 3] },
            None => Vector { terms: [minus, None], offset: c2 },
        }
    }

    /// The vector at coordinates `q` (12 per body).
    pub fn at(&self, q: &[f64]) -> V3 {
        let mut v = self.offset;
        for (b, w) in self.terms.iter().flatten() {
            for (r, vr) in v.iter_mut().enumerate() {
                *vr += (0..4).map(|j| q[12 * b + 4 * r + j] * w[j]).sum::<f64>();
            }
        }
        v
    }
}

/// Which function of the vectors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Func {
    /// t·d of vectors (t, d).
    Dot,
    /// atan2((r₁ × r₂)·a₁, r₁·r₂) of vectors (a₁, r₁, r₂).
    Angle,
}

/// A joint function: `sign` × f(vectors).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Function {
    pub func: Func,
    pub v: [Vector; 3],
    pub sign: f64,
}

/// The jet of t·d in (t, d).
fn dot_jet(t: &V3, d: &V3) -> Jet {
    let mut e = Jet::zero(2);
    e.v = jet::dot(t, d);
    e.g[..3].copy_from_slice(d);
    e.g[3..6].copy_from_slice(t);
    e.set_block(0, 1, jet::add_diag([[0.0; 3]; 3], 1.0));
    e
}

/// The jet of atan2(s, c) from the jets of s and c.
fn atan2_jet(s: &Jet, c: &Jet) -> Jet {
    let m = 3 * s.n;
    let rho = s.v * s.v + c.v * c.v;
    let mut e = Jet::zero(s.n);
    e.v = s.v.atan2(c.v);
    let num: [f64; 9] = std::array::from_fn(|i| c.v * s.g[i] - s.v * c.g[i]);
    for i in 0..m {
        e.g[i] = num[i] / rho;
    }
    for i in 0..m {
        for j in 0..m {
            let d_rho = 2.0 * (s.v * s.g[j] + c.v * c.g[j]);
            e.h[i][j] = (c.v * s.h[i][j] - s.v * c.h[i][j] + c.g[j] * s.g[i] - s.g[j] * c.g[i]) / rho - num[i] * d_rho / (rho * rho);
        }
    }
    e
}

/// The jet of the hinge angle in (a₁, r₁, r₂).
fn angle_jet(a: &V3, r1: &V3, r2: &V3) -> Jet {
    let mut s = Jet::zero(3);
    let n = jet::cross(r1, r2);
    s.v = jet::dot(a, &n);
    s.g[..3].copy_from_slice(&n);
    s.g[3..6].copy_from_slice(&jet::cross(r2, a));
    s.g[6..9].copy_from_slice(&jet::cross(a, r1));
    s.set_block(0, 1, jet::skew(r2, -1.0));
    s.set_block(0, 2, jet::skew(r1, 1.0));
    s.set_block(1, 2, jet::skew(a, -1.0));
    let mut c = Jet::zero(3);
    c.v = jet::dot(r1, r2);
    c.g[3..6].copy_from_slice(r2);
    c.g[6..9].copy_from_slice(r1);
    c.set_block(1, 2, jet::add_diag([[0.0; 3]; 3], 1.0));
    atan2_jet(&s, &c)
}

impl Function {
    /// Number of vectors.
    pub fn n(&self) -> usize {
        match self.func {
            Func::Dot => 2,
            Func::Angle => 3,
        }
    }

    fn vectors(&self, q: &[f64]) -> [V3; 3] {
        std::array::from_fn(|k| if k < self.n() { self.v[k].at(q) } else { [0.0; 3] })
    }

    /// The value at `q`; an angle is unwrapped to within π of `reference` when one is given.
    pub fn value(&self, q: &[f64], reference: Option<f64>) -> f64 {
        let v = self.vectors(q);
        let raw = self.sign
            * match self.func {
                Func::Dot => jet::dot(&v[0], &v[1]),
                Func::Angle => jet::dot(&v[0], &jet::cross(&v[1], &v[2])).atan2(jet::dot(&v[1], &v[2])),
            };
        unwrap(self.func, raw, reference)
    }

    /// Value, gradient and Hessian in the vectors at `q` (the value as [`Function::value`] gives it).
    pub fn jet(&self, q: &[f64], reference: Option<f64>) -> Jet {
        let v = self.vectors(q);
        let mut e = match self.func {
            Func::Dot => dot_jet(&v[0], &v[1]),
            Func::Angle => angle_jet(&v[0], &v[1], &v[2]),
        };
        let m = 3 * e.n;
        e.v *= self.sign;
        for i in 0..m {
            e.g[i] *= self.sign;
            for j in 0..m {
                e.h[i][j] *= self.sign;
            }
        }
        e.v = unwrap(self.func, e.v, reference);
        e
    }

    /// The bodies the function depends on (at most two, in first-seen order).
    pub fn bodies(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for v in &self.v[..self.n()] {
            for (b, _) in v.terms.iter().flatten() {
                if !out.contains(b) {
                    out.push(*b);
                }
            }
        }
        out
    }

    /// Vector k's 4-vector coefficient on body b.
    fn coefficient(&self, k: usize, b: usize) -> [f64; 4] {
        let mut c = [0.0; 4];
        for (bb, w) in self.v[k].terms.iter().flatten() {
            if *bb == b {
                for j in 0..4 {
                    c[j] += w[j];
                }
            }
        }
        c
    }

    /// A jet `e` in this function's vectors mapped to body `b`'s twelve coordinates: ∂/∂q_b[4r + j] =
    /// Σ_k w_kj ∂/∂v_k,r.
    pub fn body_gradient(&self, e: &Jet, b: usize) -> [f64; 12] {
        let mut g = [0.0; 12];
        for k in 0..self.n() {
            let c = self.coefficient(k, b);
            for r in 0..3 {
                for j in 0..4 {
                    g[4 * r + j] += e.g[3 * k + r] * c[j];
                }
            }
        }
        g
    }

    /// The Hessian block (b, b′) of a jet `e` in the vectors: Σ_{k,l} ∂²/∂v_k,r ∂v_l,r′ · w_kj w_lj′.
    pub fn body_hessian(&self, e: &Jet, b: usize, b2: usize) -> [[f64; 12]; 12] {
        let mut h = [[0.0; 12]; 12];
        let n = self.n();
        let ca: Vec<[f64; 4]> = (0..n).map(|k| self.coefficient(k, b)).collect();
        let cb: Vec<[f64; 4]> = (0..n).map(|k| self.coefficient(k, b2)).collect();
        for k in 0..n {
            for l in 0..n {
                for r in 0..3 {
                    for s in 0..3 {
                        let x = e.h[3 * k + r][3 * l + s];
                        if x == 0.0 {
                            continue;
                        }
                        for j in 0..4 {
                            for i in 0..4 {
                                h[4 * r + j][4 * s + i] += x * ca[k][j] * cb[l][i];
                            }
                        }
                    }
                }
            }
        }
        h
    }

    /// The first α in (0, 1] at which the function along q + α·dir reaches `level` (`None` when it does not).
    /// The function along the segment is a polynomial of degree ≤ 3 in α (each vector is linear in α): for an
    /// angle, atan2(s, c) = level where s cos(level) − c sin(level) = 0 with (s, c) pointing the level's way.
    /// The polynomial is found from four samples; its critical points split [0, 1] into monotone pieces, and the
    /// first piece whose ends straddle zero is bisected.
    pub fn first_crossing(&self, q: &[f64], dir: &[f64], level: f64) -> Option<f64> {
        let at = |a: f64| -> (f64, bool) {
            let qa: Vec<f64> = q.iter().zip(dir).map(|(x, d)| x + a * d).collect();
            let v = self.vectors(&qa);
            match self.func {
                Func::Dot => (self.sign * jet::dot(&v[0], &v[1]) - level, true),
                Func::Angle => {
                    // the child's angle (sign = −1 measures body 1 against the world)
                    let l = self.sign * level;
                    let (s, c) = (jet::dot(&v[0], &jet::cross(&v[1], &v[2])), jet::dot(&v[1], &v[2]));
                    (s * l.cos() - c * l.sin(), s * l.sin() + c * l.cos() > 0.0)
                }
            }
        };
        // forward differences at s = 3α ∈ {0, 1, 2, 3}, then the power basis in α
        let f: [f64; 4] = std::array::from_fn(|k| at(k as f64 / 3.0).0);
        let (d1, d2, d3) = (f[1] - f[0], f[2] - 2.0 * f[1] + f[0], f[3] - 3.0 * f[2] + 3.0 * f[1] - f[0]);
        let a1 = 3.0 * (d1 - d2 / 2.0 + d3 / 3.0);
        let a2 = 9.0 * (d2 / 2.0 - d3 / 2.0);
        let a3 = 27.0 * (d3 / 6.0);
        let mut cuts = vec![0.0];
        for r in quadratic_roots(3.0 * a3, 2.0 * a2, a1) {
            if r > 0.0 && r < 1.0 {
                cuts.push(r);
            }
        }
        cuts.push(1.0);
        cuts.sort_by(f64::total_cmp);
        let f0 = at(0.0).0;
        for w in cuts.windows(2) {
            let (mut lo, mut hi) = (w[0], w[1]);
            let (flo, fhi) = (if lo == 0.0 { f0 } else { at(lo).0 }, at(hi).0);
            if flo == 0.0 && lo > 0.0 && at(lo).1 {
                return Some(lo);
            }
            if flo * fhi > 0.0 || fhi == flo {
                continue;
            }
            let up = fhi > flo;
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if (at(mid).0 > 0.0) == up {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            if at(hi).1 {
                return Some(lo);
            }
        }
        None
    }
}

/// An angle within π of `reference` (other functions unchanged).
fn unwrap(func: Func, x: f64, reference: Option<f64>) -> f64 {
    match (func, reference) {
        (Func::Angle, Some(r)) => r + crate::dynamics::joint::wrap_angle(x - r),
        _ => x,
    }
}

/// Real roots of a x² + b x + c (a may be 0).
fn quadratic_roots(a: f64, b: f64, c: f64) -> Vec<f64> {
    if a == 0.0 {
        return if b == 0.0 { vec![] } else { vec![-c / b] };
    }
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return vec![];
    }
    let s = disc.sqrt();
    let t = -0.5 * (b + if b >= 0.0 { s } else { -s });
    if t == 0.0 {
        return vec![0.0];
    }
    vec![t / a, c / t]
}

#[cfg(test)]
#[path = "coords_tests.rs"]
pub(crate) mod tests;
