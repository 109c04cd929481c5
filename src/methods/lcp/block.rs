//! The bilateral joint rows of a solve taken together as one block of the Gauss-Seidel iteration: each sweep
//! solves A_BB Δλ = −(J_B u + bias_B) exactly for them (A_BB = J_B M⁻¹ J_Bᵀ, factored once per solve by a
//! Cholesky that drops rows dependent on earlier ones, such as the redundant rows of a closed loop), given the
//! current velocities, which carry the contact, limit and motor rows' impulses. Scalar Gauss-Seidel converges
//! along a chain of N joints in O(N²) sweeps; the block is exact in one, so a chain holds as tightly as a single
//! joint. Joint rows are few beside contact rows, and the block is dense: O(m²) per sweep for m rows.

use super::joints::JRow;
use super::Vel;

/// The factored block of a solve's bilateral joint rows.
#[derive(Debug, Default)]
pub(super) struct JointBlock {
    /// Indices of the block's rows among the solve's joint rows.
    idx: Vec<u32>,
    /// Lower Cholesky factor, row-major m × m (a dropped row has a zero column and a zero diagonal).
    l: Vec<f64>,
    /// Right-hand side and solution.
    x: Vec<f64>,
}

/// A row's body on side `s`.
fn side(r: &JRow, s: usize) -> u32 {
    if s == 0 {
        r.a
    } else {
        r.b
    }
}

impl JointBlock {
    /// Selects the rigid unbounded rows of `rows`, assembles A over them and factors it.
    pub fn build(&mut self, rows: &[JRow]) {
        self.idx.clear();
        self.idx.extend((0..rows.len() as u32).filter(|&i| {
            let r = &rows[i as usize];
            r.gamma == 0.0 && r.lo == f64::NEG_INFINITY && r.hi == f64::INFINITY
        }));
        let m = self.idx.len();
        self.l.clear();
        self.l.resize(m * m, 0.0);
        for p in 0..m {
            let rp = &rows[self.idx[p] as usize];
            for q in 0..=p {
                let rq = &rows[self.idx[q] as usize];
                let mut a = 0.0;
                for sp in 0..2 {
                    for sq in 0..2 {
                        if side(rp, sp) == side(rq, sq) {
                            a += rp.lin[sp].dot(rq.ml[sq]) + rp.ang[sp].dot(rq.mi[sq]);
                        }
                    }
                }
                self.l[p * m + q] = a;
            }
        }
        // in-place Cholesky, lower triangle; a pivot that falls below 1e-9 of its row's own A_jj is a row
        // dependent on earlier ones (or one between fixed bodies): dropped
        for j in 0..m {
            let ajj = self.l[j * m + j];
            let mut d = ajj;
            for k in 0..j {
                d -= self.l[j * m + k] * self.l[j * m + k];
            }
            if !(d > 1e-9 * ajj) {
                for i in j..m {
                    self.l[i * m + j] = 0.0;
                }
                continue;
            }
            let s = d.sqrt();
            self.l[j * m + j] = s;
            for i in j + 1..m {
                let mut v = self.l[i * m + j];
                for k in 0..j {
                    v -= self.l[i * m + k] * self.l[j * m + k];
                }
                self.l[i * m + j] = v / s;
            }
        }
    }

    /// One exact block update: Δλ from the current velocities, applied to the rows and the bodies. Returns the
    /// largest change and the largest impulse.
    pub fn solve(&mut self, rows: &mut [JRow], bodies: &mut [Vel]) -> (f64, f64) {
        let m = self.idx.len();
        self.x.clear();
        for &i in &self.idx {
            let r = &rows[i as usize];
            self.x.push(-(r.jv(&bodies[r.a as usize], &bodies[r.b as usize]) + r.bias));
        }
        // L y = x, then Lᵀ Δλ = y (dropped rows: 0)
        for j in 0..m {
            let d = self.l[j * m + j];
            if d == 0.0 {
                self.x[j] = 0.0;
                continue;
            }
            let mut v = self.x[j];
            for k in 0..j {
                v -= self.l[j * m + k] * self.x[k];
            }
            self.x[j] = v / d;
        }
        for j in (0..m).rev() {
            let d = self.l[j * m + j];
            if d == 0.0 {
                self.x[j] = 0.0;
                continue;
            }
            let mut v = self.x[j];
            for k in j + 1..m {
                v -= self.l[k * m + j] * self.x[k];
            }
            self.x[j] = v / d;
        }
        let (mut change, mut size) = (0.0f64, 0.0f64);
        for (p, &i) in self.idx.iter().enumerate() {
            let r = &mut rows[i as usize];
            let d = self.x[p];
            r.lambda += d;
            change = change.max(d.abs());
            size = size.max(r.lambda.abs());
            let (a, b) = (r.a as usize, r.b as usize);
            let (mut ba, mut bb) = (bodies[a], bodies[b]);
            r.apply(d, &mut ba, &mut bb);
            bodies[a] = ba;
            bodies[b] = bb;
        }
        (change, size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;

    fn row(a: u32, b: u32, lin: [Vec3; 2], ang: [Vec3; 2], inv_m: [f64; 2]) -> JRow {
        JRow {
            a,
            b,
            joint: 0,
            slot: 0,
            lin,
            ang,
            ml: [lin[0] * inv_m[0], lin[1] * inv_m[1]],
            mi: [ang[0] * inv_m[0], ang[1] * inv_m[1]],
            inv_diag: 0.0,
            gamma: 0.0,
            bias: 0.0,
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY,
            lambda: 0.0,
        }
    }

    /// Two point masses in a line (rows: body 0 to the world, body 1 to body 0) plus a redundant copy of the
    /// first row: one block update leaves every row satisfied, and the copy is dropped.
    #[test]
    fn one_block_update_satisfies_every_row_and_drops_a_redundant_one() {
        let (x, z) = (Vec3::X, Vec3::ZERO);
        let mut rows =
            vec![row(0, 2, [x, z], [z, z], [1.0, 0.0]), row(0, 1, [-x, x], [z, z], [1.0, 0.5]), row(0, 2, [x, z], [z, z], [1.0, 0.0])];
        rows[1].bias = 0.3;
        let mut bodies = vec![Vel { v: Vec3::new(1.0, 0.0, 0.0), w: z }, Vel { v: Vec3::new(-2.0, 1.0, 0.0), w: z }, Vel::default()];
        let mut block = JointBlock::default();
        block.build(&rows);
        block.solve(&mut rows, &mut bodies);
        for r in &rows {
            let w = r.jv(&bodies[r.a as usize], &bodies[r.b as usize]) + r.bias;
            assert!(w.abs() < 1e-12, "row residual {w}");
        }
        assert_eq!(rows[2].lambda, 0.0);
        assert_eq!(bodies[1].v.y, 1.0);
    }
}
