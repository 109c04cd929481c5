//! The Newton system, assembled contact-aware (source §4.3): one 12×12 block per dynamic or kinematic body on the
//! diagonal and one per pair of them in contact or joined, never one per primitive pair. Solved by faer's sparse
//! Cholesky (LLᵀ, AMD ordering), sequentially so that results do not depend on the thread count; the symbolic
//! factorisation is kept and reused while the block pattern repeats.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::LltRegularization;
use faer::sparse::linalg::cholesky::{factorize_symbolic_cholesky, SymbolicCholesky, SymmetricOrdering};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};
use std::collections::BTreeMap;

/// A 12×12 block.
pub type Block = [[f64; 12]; 12];

/// The block-sparse symmetric system H p = −g over the dynamic bodies.
#[derive(Default)]
pub struct System {
    pub diag: Vec<Block>,
    /// Upper blocks (i < j) → index of H_ij in `off_blocks` (the blocks live in a Vec: a map holding 1 KB values
    /// moves them around on every insertion).
    off: BTreeMap<(usize, usize), usize>,
    off_blocks: Vec<Block>,
    pub grad: Vec<f64>,
    pattern: Vec<(usize, usize)>,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    symbolic: Option<SymbolicCholesky<usize>>,
    /// Symbolic factorisations computed (for the statistics).
    pub symbolic_count: usize,
    /// Solves that needed the diagonal raised to factor (for the statistics).
    pub shifted_solves: usize,
}

impl System {
    /// Zeroes the system for `n` dynamic bodies.
    pub fn clear(&mut self, n: usize) {
        self.diag.clear();
        self.diag.resize(n, [[0.0; 12]; 12]);
        self.off.clear();
        self.off_blocks.clear();
        self.grad.clear();
        self.grad.resize(12 * n, 0.0);
    }

    /// Adds `h` to block (i, j) of H, and so hᵀ to block (j, i): call it once per unordered pair.
    pub fn add_block(&mut self, i: usize, j: usize, h: &Block) {
        if i == j {
            let d = &mut self.diag[i];
            for r in 0..12 {
                for c in 0..12 {
                    d[r][c] += h[r][c];
                }
            }
        } else {
            let b = self.off_block(i.min(j), i.max(j));
            for r in 0..12 {
                for c in 0..12 {
                    b[r][c] += if i < j { h[r][c] } else { h[c][r] };
                }
            }
        }
    }

    fn off_block(&mut self, i: usize, j: usize) -> &mut Block {
        let next = self.off_blocks.len();
        let k = *self.off.entry((i, j)).or_insert(next);
        if k == next {
            self.off_blocks.push([[0.0; 12]; 12]);
        }
        &mut self.off_blocks[k]
    }

    /// The block pattern to factor: the previous one while it covers the current blocks (the missing ones are
    /// zeros), else the union of both unless that is over a quarter larger than the current one. Contacts come and
    /// go between Newton iterations; a pattern that covers them keeps the symbolic factorisation.
    fn choose_pattern(&mut self) -> bool {
        let cur: Vec<(usize, usize)> = self.off.keys().copied().collect();
        let n = self.diag.len();
        if self.col_ptr.len() == 12 * n + 1 && is_subset(&cur, &self.pattern) {
            return false;
        }
        let mut union = Vec::with_capacity(cur.len() + self.pattern.len());
        let (mut i, mut j) = (0, 0);
        while i < cur.len() || j < self.pattern.len() {
            let next = match (cur.get(i), self.pattern.get(j)) {
                (Some(a), Some(b)) if a == b => {
                    i += 1;
                    j += 1;
                    *a
                }
                (Some(a), Some(b)) if a < b => {
                    i += 1;
                    *a
                }
                (Some(_), Some(b)) | (None, Some(b)) => {
                    j += 1;
                    *b
                }
                (Some(a), None) => {
                    i += 1;
                    *a
                }
                (None, None) => unreachable!("loop condition"),
            };
            if next.1 < n {
                union.push(next);
            }
        }
        self.pattern = if 4 * union.len() <= 5 * cur.len() { union } else { cur };
        true
    }

    /// The block pattern the factorisation is laid out for (upper blocks (i, j), i < j, sorted); empty before
    /// the first solve.
    pub fn pattern(&self) -> &[(usize, usize)] {
        &self.pattern
    }

    /// Whether a pattern has been laid out (a solve happened, or [`System::set_pattern`]).
    pub fn has_pattern(&self) -> bool {
        !self.col_ptr.is_empty()
    }

    /// Lays out the factorisation for `pattern` over `n` bodies, as if the last solve had chosen it (restoring a
    /// run: the next solve then keeps or widens it exactly as the uninterrupted run would).
    pub fn set_pattern(&mut self, pattern: &[(usize, usize)], n: usize) {
        self.pattern = pattern.to_vec();
        self.layout(n);
    }

    /// The compressed-column structure of the current pattern; drops the symbolic factorisation.
    fn layout(&mut self, n: usize) {
        // column J's block rows: the bodies I < J with a block (I, J), then J itself
        let mut above: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(i, j) in &self.pattern {
            above[j].push(i);
        }
        self.col_ptr.clear();
        self.row_idx.clear();
        self.col_ptr.push(0);
        for (j, rows) in above.iter().enumerate() {
            for cj in 0..12 {
                for &i in rows {
                    self.row_idx.extend(12 * i..12 * i + 12);
                }
                self.row_idx.extend(12 * j..12 * j + cj + 1);
                self.col_ptr.push(self.row_idx.len());
            }
        }
        self.symbolic = None;
    }

    fn build_csc(&mut self) {
        let n = self.diag.len();
        if self.choose_pattern() {
            self.layout(n);
        }
        self.values.clear();
        let zero: Block = [[0.0; 12]; 12];
        let mut above: Vec<Vec<&Block>> = vec![Vec::new(); n];
        for key in &self.pattern {
            above[key.1].push(self.off.get(key).map_or(&zero, |&k| &self.off_blocks[k]));
        }
        for (j, rows) in above.iter().enumerate() {
            for cj in 0..12 {
                for b in rows {
                    self.values.extend((0..12).map(|ri| b[ri][cj]));
                }
                self.values.extend((0..=cj).map(|ri| self.diag[j][ri][cj]));
            }
        }
    }

    /// Solves H p = −g; `shift`: a matrix that fails to factor is retried with its diagonal raised (for a
    /// projected, PSD-by-construction system). An error says why the factorisation failed.
    pub fn solve(&mut self, shift: bool) -> Result<Vec<f64>, String> {
        self.build_csc();
        let n = 12 * self.diag.len();
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx);
        if self.symbolic.is_none() {
            // supernodal always: the 12×12 dense body blocks make every supernode at least 12 wide (faer's
            // flop-ratio heuristic picked the slower simplicial path; docs/benchmarks.md)
            self.symbolic = Some(
                factorize_symbolic_cholesky(
                    sym,
                    Side::Upper,
                    SymmetricOrdering::Amd,
                    faer::sparse::linalg::cholesky::CholeskySymbolicParams {
                        supernodal_flop_ratio_threshold: faer::sparse::linalg::SupernodalThreshold::FORCE_SUPERNODAL,
                        ..Default::default()
                    },
                )
                .map_err(|e| format!("symbolic Cholesky failed: {e:?}"))?,
            );
            self.symbolic_count += 1;
        }
        let symbolic = self.symbolic.as_ref().expect("set above");
        let mut l = vec![0.0; symbolic.len_val()];
        let mut mem = MemBuffer::new(symbolic.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()));
        let mut x: Vec<f64> = self.grad.iter().map(|g| -g).collect();
        let mut mem2 = MemBuffer::new(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
        // A matrix that is positive definite on paper (PSD blocks plus the mass) can fail the factorisation in
        // rounding when stiff terms dwarf a light body's mass; each diagonal entry is then raised by a growing
        // fraction of itself (Levenberg–Marquardt's scaling), which still gives a descent direction.
        let mut shifted = std::borrow::Cow::Borrowed(&self.values[..]);
        let mut last = None;
        let shifts: &[f64] = if shift { &[0.0, 1e-10, 1e-8, 1e-6, 1e-4] } else { &[0.0] };
        for (attempt, &eps) in shifts.iter().enumerate() {
            if eps > 0.0 {
                let v = shifted.to_mut();
                v.copy_from_slice(&self.values);
                for c in 0..n {
                    let d = self.col_ptr[c + 1] - 1;
                    v[d] += eps * self.values[d].abs();
                }
            }
            let a = SparseColMatRef::new(sym, &shifted);
            match symbolic.factorize_numeric_llt(
                &mut l,
                a,
                Side::Upper,
                LltRegularization::default(),
                Par::Seq,
                MemStack::new(&mut mem),
                Default::default(),
            ) {
                Ok(llt) => {
                    llt.solve_in_place_with_conj(
                        Conj::No,
                        MatMut::from_column_major_slice_mut(&mut x, n, 1),
                        Par::Seq,
                        MemStack::new(&mut mem2),
                    );
                    self.shifted_solves += usize::from(attempt > 0);
                    return Ok(x);
                }
                Err(e) => last = Some(e),
            }
        }
        let raised = if shift { ", even with its diagonal raised by 1e-4 of itself" } else { "" };
        Err(format!("the Newton matrix is not positive definite{raised} ({last:?})"))
    }
}

/// Whether every element of sorted `a` is in sorted `b`.
fn is_subset(a: &[(usize, usize)], b: &[(usize, usize)]) -> bool {
    let mut j = 0;
    for x in a {
        while j < b.len() && b[j] < *x {
            j += 1;
        }
        if j == b.len() || b[j] != *x {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_coupled_two_body_system() {
        let mut s = System::default();
        s.clear(2);
        let mut d = [[0.0; 12]; 12];
        for (k, row) in d.iter_mut().enumerate() {
            row[k] = 4.0 + k as f64;
        }
        s.add_block(0, 0, &d);
        s.add_block(1, 1, &d);
        let mut o = [[0.0; 12]; 12];
        o[3][5] = 1.0;
        s.add_block(1, 0, &o); // stored as (0, 1) transposed: H[0*12+5][12+3] = 1
        for (k, g) in s.grad.iter_mut().enumerate() {
            *g = (k as f64).sin();
        }
        let x = s.solve(false).unwrap();
        // residual H x + g
        let h = |r: usize, c: usize| -> f64 {
            let (bi, bj) = (r / 12, c / 12);
            if bi == bj {
                d[r % 12][c % 12]
            } else if bi == 1 {
                o[r % 12][c % 12]
            } else {
                o[c % 12][r % 12]
            }
        };
        for r in 0..24 {
            let v: f64 = (0..24).map(|c| h(r, c) * x[c]).sum::<f64>() + s.grad[r];
            assert!(v.abs() < 1e-12, "row {r}: {v}");
        }
    }
}

#[cfg(test)]
mod pattern_tests {
    use super::*;

    /// A chain of bodies whose coupling blocks come and go keeps its symbolic factorisation while the pattern
    /// covers them, and solves exactly with the missing blocks as zeros.
    #[test]
    fn a_covering_pattern_is_reused_and_solves_exactly() {
        let n = 4;
        let run = |s: &mut System, links: &[(usize, usize)]| {
            s.clear(n);
            let mut d = [[0.0; 12]; 12];
            for (k, row) in d.iter_mut().enumerate() {
                row[k] = 6.0 + k as f64;
            }
            for b in 0..n {
                s.add_block(b, b, &d);
            }
            let mut o = [[0.0; 12]; 12];
            for (k, row) in o.iter_mut().enumerate() {
                row[(k + 5) % 12] = 0.5;
            }
            for &(i, j) in links {
                s.add_block(i, j, &o);
            }
            for (k, g) in s.grad.iter_mut().enumerate() {
                *g = (0.3 * k as f64).cos();
            }
            let x = s.solve(false).unwrap();
            // residual against the blocks added
            for r in 0..12 * n {
                let (bi, ri) = (r / 12, r % 12);
                let mut v = s.grad[r] + d[ri][ri] * x[r];
                for &(i, j) in links {
                    if bi == i {
                        v += (0..12).map(|c| o[ri][c] * x[12 * j + c]).sum::<f64>();
                    }
                    if bi == j {
                        v += (0..12).map(|c| o[c][ri] * x[12 * i + c]).sum::<f64>();
                    }
                }
                assert!(v.abs() < 1e-12, "links {links:?}, row {r}: {v}");
            }
        };
        let mut s = System::default();
        run(&mut s, &[(0, 1), (1, 2), (2, 3)]);
        assert_eq!(s.symbolic_count, 1);
        run(&mut s, &[(0, 1), (2, 3)]);
        run(&mut s, &[(1, 2)]);
        assert_eq!(s.symbolic_count, 1, "a covered pattern is reused");
        run(&mut s, &[(0, 1), (1, 2), (0, 2), (2, 3)]);
        assert_eq!(s.symbolic_count, 2, "a new block needs a new factorisation");
        run(&mut s, &[(0, 1), (1, 2), (1, 3), (2, 3)]);
        assert_eq!(s.symbolic_count, 3);
        assert_eq!(s.pattern.len(), 5, "the union (5 blocks for 4 now) is kept while it is at most 5/4 of them");
        run(&mut s, &[(0, 2), (1, 3)]);
        assert_eq!(s.symbolic_count, 3);
        run(&mut s, &[(0, 3)]);
        assert_eq!(s.pattern, vec![(0, 3)], "a union over 5/4 of the current blocks is dropped");
    }

    /// A matrix positive definite on paper that fails the factorisation in rounding (a stiff coupling of 1e16
    /// beside a curvature of 1e-2 it swallows) is refused unshifted and solved with its diagonal raised, giving a
    /// descent direction.
    #[test]
    fn a_matrix_definite_only_on_paper_is_solved_with_a_raised_diagonal() {
        let mut s = System::default();
        s.clear(1);
        let mut d = [[0.0; 12]; 12];
        for (k, row) in d.iter_mut().enumerate() {
            row[k] = 1.0;
        }
        let a = 1e16;
        (d[0][0], d[0][1], d[1][0], d[1][1]) = (a, a, a, a + 1e-2);
        s.add_block(0, 0, &d);
        for (k, g) in s.grad.iter_mut().enumerate() {
            *g = 1.0 + k as f64;
        }
        assert!(s.solve(false).unwrap_err().contains("not positive definite"));
        let x = s.solve(true).unwrap();
        assert!(x.iter().all(|v| v.is_finite()));
        assert!(s.grad.iter().zip(&x).map(|(g, p)| g * p).sum::<f64>() < 0.0, "a descent direction");
        assert_eq!(s.shifted_solves, 1);
    }
}
