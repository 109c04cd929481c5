//! Second-order forward-mode automatic differentiation: a [`Dual`] carries a value with its exact gradient and
//! Hessian with respect to N variables. The IPC distances, the edge–edge mollifier and the barrier are written
//! once, generic over [`Real`], and evaluated either on `f64` (energies, CCD) or on `Dual<N>` (gradients and
//! Hessians for Newton). Nothing here is approximate; the finite-difference tests check it.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// What the generic geometry code needs from a number.
pub trait Real: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self> {
    /// A constant.
    fn cst(v: f64) -> Self;
    /// The value.
    fn val(&self) -> f64;
}

impl Real for f64 {
    fn cst(v: f64) -> Self {
        v
    }
    fn val(&self) -> f64 {
        *self
    }
}

/// A value with its gradient and (symmetric) Hessian with respect to N variables.
#[derive(Clone, Copy, Debug)]
pub struct Dual<const N: usize> {
    pub v: f64,
    pub g: [f64; N],
    pub h: [[f64; N]; N],
}

impl<const N: usize> Dual<N> {
    /// Variable number `i` with value `v`.
    pub fn var(v: f64, i: usize) -> Self {
        let mut d = Self::cst(v);
        d.g[i] = 1.0;
        d
    }

    /// f(self) given f, f′ and f″ at the value (the chain rule to second order).
    pub fn chain(&self, f: f64, f1: f64, f2: f64) -> Self {
        let mut r = Self { v: f, g: [0.0; N], h: [[0.0; N]; N] };
        for i in 0..N {
            r.g[i] = f1 * self.g[i];
            for j in 0..N {
                r.h[i][j] = f1 * self.h[i][j] + f2 * self.g[i] * self.g[j];
            }
        }
        r
    }

    /// Multiplication by a constant.
    pub fn scale(&self, s: f64) -> Self {
        let mut r = *self;
        r.v *= s;
        for i in 0..N {
            r.g[i] *= s;
            for j in 0..N {
                r.h[i][j] *= s;
            }
        }
        r
    }
}

impl<const N: usize> Real for Dual<N> {
    fn cst(v: f64) -> Self {
        Dual { v, g: [0.0; N], h: [[0.0; N]; N] }
    }
    fn val(&self) -> f64 {
        self.v
    }
}

impl<const N: usize> Add for Dual<N> {
    type Output = Self;
    fn add(mut self, o: Self) -> Self {
        self.v += o.v;
        for i in 0..N {
            self.g[i] += o.g[i];
            for j in 0..N {
                self.h[i][j] += o.h[i][j];
            }
        }
        self
    }
}

impl<const N: usize> Sub for Dual<N> {
    type Output = Self;
    fn sub(mut self, o: Self) -> Self {
        self.v -= o.v;
        for i in 0..N {
            self.g[i] -= o.g[i];
            for j in 0..N {
                self.h[i][j] -= o.h[i][j];
            }
        }
        self
    }
}

impl<const N: usize> Neg for Dual<N> {
    type Output = Self;
    fn neg(self) -> Self {
        self.scale(-1.0)
    }
}

impl<const N: usize> Mul for Dual<N> {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        let mut r = Self { v: self.v * o.v, g: [0.0; N], h: [[0.0; N]; N] };
        for i in 0..N {
            r.g[i] = self.g[i] * o.v + o.g[i] * self.v;
            for j in 0..N {
                r.h[i][j] = self.h[i][j] * o.v + o.h[i][j] * self.v + self.g[i] * o.g[j] + o.g[i] * self.g[j];
            }
        }
        r
    }
}

impl<const N: usize> Div for Dual<N> {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        let inv = 1.0 / o.v;
        self * o.chain(inv, -inv * inv, 2.0 * inv * inv * inv)
    }
}

/// A 3-vector of generic numbers.
pub type V<T> = [T; 3];

pub fn sub<T: Real>(a: &V<T>, b: &V<T>) -> V<T> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn dot<T: Real>(a: &V<T>, b: &V<T>) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross<T: Real>(a: &V<T>, b: &V<T>) -> V<T> {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// The 4×3 = 12 coordinates of a stencil as dual variables 0..12 (point k, axis r → variable 3k + r).
pub fn vars12(x: &[[f64; 3]; 4]) -> [V<Dual<12>>; 4] {
    std::array::from_fn(|k| std::array::from_fn(|r| Dual::var(x[k][r], 3 * k + r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_quotient_and_chain_match_closed_forms() {
        // f(x, y) = x y / (x + y²) at (1.3, 0.7); compare with finite differences of the f64 version
        let f = |x: f64, y: f64| x * y / (x + y * y);
        let (x, y) = (1.3, 0.7);
        let d = Dual::<2>::var(x, 0) * Dual::var(y, 1) / (Dual::var(x, 0) + Dual::var(y, 1) * Dual::var(y, 1));
        assert!((d.v - f(x, y)).abs() < 1e-15);
        let e = 1e-5;
        let gx = (f(x + e, y) - f(x - e, y)) / (2.0 * e);
        let gy = (f(x, y + e) - f(x, y - e)) / (2.0 * e);
        assert!((d.g[0] - gx).abs() < 1e-9 && (d.g[1] - gy).abs() < 1e-9);
        let hxy = (f(x + e, y + e) - f(x + e, y - e) - f(x - e, y + e) + f(x - e, y - e)) / (4.0 * e * e);
        assert!((d.h[0][1] - hxy).abs() < 1e-5 && (d.h[1][0] - hxy).abs() < 1e-5);
        let l = Dual::<2>::var(x, 0).chain(x.ln(), 1.0 / x, -1.0 / (x * x));
        assert!((l.h[0][0] + 1.0 / (x * x)).abs() < 1e-15);
    }
}
