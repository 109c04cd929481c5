//! One island's linear system G ΔS = h Z (paper eq. 15): a 6×6 block per dynamic body on the diagonal and one
//! per ordered pair of touching (or jointed) bodies, unsymmetric but structurally symmetric. A lone body is a
//! dense 6×6 solve (LU with partial pivoting); larger islands go to faer's sparse LU (COLAMD ordering,
//! sequential, so results do not depend on the thread count), whose symbolic analysis is kept from one step to
//! the next for every island whose block pattern repeats.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::lu::{factorize_symbolic_lu, NumericLu, SymbolicLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};
use std::collections::BTreeMap;

/// A 6×6 block, row-major.
pub type Block6 = [[f64; 6]; 6];

/// The system of one island: blocks by (row body, column body) in island indices, and the right-hand side. The
/// diagonal blocks are always present and kept apart, so that a lone body's island allocates no map.
#[derive(Debug, Clone, Default)]
pub struct IslandSystem {
    pub n: usize,
    /// The diagonal blocks, by body.
    diag: Vec<Block6>,
    /// The off-diagonal blocks present: their (row, column) → index into `off`.
    off_index: BTreeMap<(u32, u32), u32>,
    off: Vec<Block6>,
    pub rhs: Vec<f64>,
}

impl IslandSystem {
    /// An identity system of `n` bodies with a zero right-hand side.
    pub fn identity(n: usize) -> Self {
        let mut b = [[0.0; 6]; 6];
        for (k, row) in b.iter_mut().enumerate() {
            row[k] = 1.0;
        }
        IslandSystem { n, diag: vec![b; n], off_index: BTreeMap::new(), off: Vec::new(), rhs: vec![0.0; 6 * n] }
    }

    /// The block (i, j), created as zeros.
    pub fn block(&mut self, i: usize, j: usize) -> &mut Block6 {
        if i == j {
            return &mut self.diag[i];
        }
        let next = self.off.len() as u32;
        let k = *self.off_index.entry((i as u32, j as u32)).or_insert(next);
        if k == next {
            self.off.push([[0.0; 6]; 6]);
        }
        &mut self.off[k as usize]
    }

    /// Every block present, the diagonal ones included, sorted by (row, column).
    pub fn blocks(&self) -> impl Iterator<Item = ((u32, u32), &Block6)> + '_ {
        (0..self.n as u32).flat_map(move |i| {
            let off = &self.off;
            let below = self.off_index.range((i, 0)..(i, i)).map(move |(&key, &k)| (key, &off[k as usize]));
            let above = self.off_index.range((i, i + 1)..=(i, u32::MAX)).map(move |(&key, &k)| (key, &off[k as usize]));
            below.chain(std::iter::once(((i, i), &self.diag[i as usize]))).chain(above)
        })
    }

    /// The block pattern (what the symbolic analysis depends on).
    pub fn pattern(&self) -> Vec<(u32, u32)> {
        self.blocks().map(|(key, _)| key).collect()
    }

    /// The matrix as a dense row-major 6n×6n array (tests and the global comparison).
    pub fn dense(&self) -> Vec<Vec<f64>> {
        let m = 6 * self.n;
        let mut a = vec![vec![0.0; m]; m];
        for ((i, j), b) in self.blocks() {
            for r in 0..6 {
                for c in 0..6 {
                    a[6 * i as usize + r][6 * j as usize + c] = b[r][c];
                }
            }
        }
        a
    }
}

/// Islands of at most this many bodies are solved dense (LU with partial pivoting on a flat array): cheaper
/// there than the sparse LU's analysis and workspaces.
const DENSE_BODIES: usize = 4;

/// Solves the island's system by dense LU with partial pivoting against each column of `cols`; `None` when it is
/// singular.
fn dense_solve_many(sys: &IslandSystem, cols: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let m = 6 * sys.n;
    let mut a = vec![0.0; m * m];
    for ((i, j), b) in sys.blocks() {
        for (r, row) in b.iter().enumerate() {
            let at = (6 * i as usize + r) * m + 6 * j as usize;
            a[at..at + 6].copy_from_slice(row);
        }
    }
    let mut perm: Vec<usize> = (0..m).collect();
    for k in 0..m {
        let p = (k..m).max_by(|&i, &j| a[i * m + k].abs().total_cmp(&a[j * m + k].abs()))?;
        if a[p * m + k] == 0.0 || !a[p * m + k].is_finite() {
            return None;
        }
        if p != k {
            for c in 0..m {
                a.swap(k * m + c, p * m + c);
            }
            perm.swap(k, p);
        }
        let pivot = a[k * m + k];
        for i in k + 1..m {
            let f = a[i * m + k] / pivot;
            a[i * m + k] = f;
            if f != 0.0 {
                for c in k + 1..m {
                    a[i * m + c] -= f * a[k * m + c];
                }
            }
        }
    }
    Some(
        cols.iter()
            .map(|col| {
                let mut b: Vec<f64> = perm.iter().map(|&p| col[p]).collect();
                for i in 0..m {
                    let s: f64 = (0..i).map(|c| a[i * m + c] * b[c]).sum();
                    b[i] -= s;
                }
                for i in (0..m).rev() {
                    let s: f64 = (i + 1..m).map(|c| a[i * m + c] * b[c]).sum();
                    b[i] = (b[i] - s) / a[i * m + i];
                }
                b
            })
            .collect(),
    )
}

/// Solves a dense square system by LU with partial pivoting; `None` when it is singular.
pub fn dense_solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for k in 0..n {
        let p = (k..n).max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs()))?;
        if a[p][k] == 0.0 || !a[p][k].is_finite() {
            return None;
        }
        a.swap(k, p);
        b.swap(k, p);
        for i in k + 1..n {
            let f = a[i][k] / a[k][k];
            if f != 0.0 {
                for j in k..n {
                    a[i][j] -= f * a[k][j];
                }
                b[i] -= f * b[k];
            }
        }
    }
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|j| a[k][j] * b[j]).sum();
        b[k] = (b[k] - s) / a[k][k];
    }
    Some(b)
}

/// The sparse solver with its kept symbolic analyses.
#[derive(Default)]
pub struct Solver {
    /// Symbolic LU by block pattern, kept while a pattern recurs from one step to the next.
    kept: BTreeMap<Vec<(u32, u32)>, SymbolicLu<usize>>,
    used: BTreeMap<Vec<(u32, u32)>, SymbolicLu<usize>>,
    /// The same for the joint rows' saddle-point systems (saddle.rs), by their pattern key.
    saddle_kept: BTreeMap<Vec<u32>, SymbolicLu<usize>>,
    saddle_used: BTreeMap<Vec<u32>, SymbolicLu<usize>>,
    /// Symbolic analyses computed (statistics).
    pub symbolic_count: usize,
}

impl Solver {
    /// Call once per step before the islands' solves: patterns not seen in the previous step are dropped.
    pub fn begin_step(&mut self) {
        self.kept = std::mem::take(&mut self.used);
        self.saddle_kept = std::mem::take(&mut self.saddle_used);
    }

    /// A kept symbolic analysis of a saddle-point pattern, if one is kept (counted in `symbolic_count` if not).
    pub fn take_saddle(&mut self, key: &[u32]) -> Option<SymbolicLu<usize>> {
        let s = self.saddle_kept.remove(key).or_else(|| self.saddle_used.remove(key));
        if s.is_none() {
            self.symbolic_count += 1;
        }
        s
    }

    /// Keeps a saddle-point pattern's symbolic analysis for the next step.
    pub fn keep_saddle(&mut self, key: Vec<u32>, symbolic: SymbolicLu<usize>) {
        self.saddle_used.insert(key, symbolic);
    }

    /// Solves one island's system; the error says why it failed.
    pub fn solve(&mut self, sys: &IslandSystem) -> Result<Vec<f64>, String> {
        let mut x = self.solve_many(sys, std::slice::from_ref(&sys.rhs))?;
        Ok(x.pop().expect("one column"))
    }

    /// Solves the island's matrix against several right-hand sides with one factorisation (the joint rows'
    /// Schur complement needs G⁻¹ of each row's wrench); `cols` are 6n long each.
    pub fn solve_many(&mut self, sys: &IslandSystem, cols: &[Vec<f64>]) -> Result<Vec<Vec<f64>>, String> {
        if sys.n <= DENSE_BODIES {
            let x = dense_solve_many(sys, cols).ok_or_else(|| format!("singular {0}×{0} island system", 6 * sys.n))?;
            if x.iter().flatten().any(|v| !v.is_finite()) {
                return Err("the island's system is singular".into());
            }
            return Ok(x);
        }
        let m = 6 * sys.n;
        // column-major layout: block column j holds the blocks (i, j) in increasing i
        let mut blocks: Vec<Vec<(u32, &Block6)>> = vec![Vec::new(); sys.n];
        for ((i, j), b) in sys.blocks() {
            blocks[j as usize].push((i, b));
        }
        let mut col_ptr = Vec::with_capacity(m + 1);
        let mut row_idx = Vec::new();
        let mut values = Vec::new();
        col_ptr.push(0usize);
        for col in &blocks {
            for c in 0..6 {
                for &(i, b) in col {
                    for r in 0..6 {
                        row_idx.push(6 * i as usize + r);
                        values.push(b[r][c]);
                    }
                }
                col_ptr.push(row_idx.len());
            }
        }
        let sym = SymbolicSparseColMatRef::new_checked(m, m, &col_ptr, None, &row_idx);
        let pattern = sys.pattern();
        let symbolic = match self.kept.remove(&pattern).or_else(|| self.used.remove(&pattern)) {
            Some(s) => s,
            None => {
                self.symbolic_count += 1;
                factorize_symbolic_lu(sym, Default::default()).map_err(|e| format!("symbolic LU failed: {e:?}"))?
            }
        };
        let mut numeric = NumericLu::new();
        let mut mem = MemBuffer::new(symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()));
        let a = SparseColMatRef::new(sym, &values);
        let k = cols.len();
        let mut x: Vec<f64> = cols.iter().flat_map(|c| c.iter().copied()).collect();
        {
            let lu = symbolic
                .factorize_numeric_lu(&mut numeric, a, Par::Seq, MemStack::new(&mut mem), Default::default())
                .map_err(|e| format!("sparse LU failed: {e:?}"))?;
            let mut mem2 = MemBuffer::new(symbolic.solve_in_place_scratch::<f64>(k, Par::Seq));
            lu.solve_in_place_with_conj(Conj::No, MatMut::from_column_major_slice_mut(&mut x, m, k), Par::Seq, MemStack::new(&mut mem2));
        }
        self.used.insert(pattern, symbolic);
        if x.iter().any(|v| !v.is_finite()) {
            return Err("the island's system is singular".into());
        }
        Ok(x.chunks(m).map(|c| c.to_vec()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::rng::Rng;

    fn random_system(n: usize, pairs: &[(usize, usize)], seed: u64) -> IslandSystem {
        let mut rng = Rng::new(seed);
        let mut s = IslandSystem::identity(n);
        let fill = |b: &mut Block6, rng: &mut Rng, diag: bool| {
            for (r, row) in b.iter_mut().enumerate() {
                for (c, v) in row.iter_mut().enumerate() {
                    *v += 0.3 * rng.symmetric() + if diag && r == c { 2.0 } else { 0.0 };
                }
            }
        };
        for i in 0..n {
            fill(s.block(i, i), &mut rng, true);
        }
        for &(i, j) in pairs {
            fill(s.block(i, j), &mut rng, false);
            fill(s.block(j, i), &mut rng, false);
        }
        for v in s.rhs.iter_mut() {
            *v = rng.symmetric();
        }
        s
    }

    fn residual(s: &IslandSystem, x: &[f64]) -> f64 {
        let a = s.dense();
        (0..x.len()).map(|r| ((0..x.len()).map(|c| a[r][c] * x[c]).sum::<f64>() - s.rhs[r]).abs()).fold(0.0, f64::max)
    }

    #[test]
    fn sparse_lu_solves_an_unsymmetric_island_and_reuses_its_analysis() {
        let mut solver = Solver::default();
        // more bodies than DENSE_BODIES: the sparse path
        let s = random_system(6, &[(0, 1), (1, 2), (2, 3), (0, 3), (3, 4), (4, 5)], 7);
        solver.begin_step();
        let x = solver.solve(&s).unwrap();
        assert!(residual(&s, &x) < 1e-12, "{}", residual(&s, &x));
        let dense = dense_solve(s.dense(), s.rhs.clone()).unwrap();
        assert!(x.iter().zip(&dense).all(|(a, b)| (a - b).abs() < 1e-12));
        // same pattern next step: no new analysis; a new pattern: one more
        solver.begin_step();
        let s2 = random_system(6, &[(0, 1), (1, 2), (2, 3), (0, 3), (3, 4), (4, 5)], 8);
        let x2 = solver.solve(&s2).unwrap();
        assert!(residual(&s2, &x2) < 1e-12);
        assert_eq!(solver.symbolic_count, 1);
        solver.begin_step();
        solver.solve(&random_system(6, &[(0, 1), (1, 2), (4, 5)], 9)).unwrap();
        assert_eq!(solver.symbolic_count, 2);
    }

    #[test]
    fn small_islands_solved_dense_equal_the_sparse_lu() {
        for n in 2..=DENSE_BODIES {
            let s = random_system(n, &[(0, 1), (1, n - 1)], 40 + n as u64);
            let x = Solver::default().solve(&s).unwrap();
            assert!(residual(&s, &x) < 1e-12, "{}", residual(&s, &x));
            let reference = dense_solve(s.dense(), s.rhs.clone()).unwrap();
            assert!(x.iter().zip(&reference).all(|(a, b)| (a - b).abs() < 1e-12));
        }
    }

    #[test]
    fn a_lone_body_is_a_dense_solve() {
        let s = random_system(1, &[], 3);
        let x = Solver::default().solve(&s).unwrap();
        assert!(residual(&s, &x) < 1e-13);
        assert!(dense_solve(vec![vec![0.0; 2]; 2], vec![1.0, 1.0]).is_none());
    }
}
