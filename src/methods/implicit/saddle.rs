//! The island's joint rows solved together with its bodies as one sparse saddle-point system
//! [G, −W; J, 0] [ΔS; λ] = [hZ; target − C] (faer's sparse LU, sequential), when the rows are independent: the
//! joint graph of the island (its dynamic bodies and one node for everything that does not move) is a forest.
//! Loops and redundant rows go to the Schur complement's pseudo-inverse in joints.rs. Both solve the same
//! equations; this one costs O(rows) for a chain where the dense SVD costs O(rows³).
//! See docs/methods/implicit-penalty.md, "Joints".

use super::joints::{
    finished, update_active, Constrained, IslandJoints, IslandRow, RowEval, RowJacobian, ACTIVE_SETS, NEWTON, ROW_TOLERANCE,
};
use super::system::{Block6, IslandSystem, Solver};
use crate::math::Vec3;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::lu::{factorize_symbolic_lu, NumericLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};

/// Whether the island's joints form a forest over its dynamic bodies and one node for the world (fixed,
/// kinematic and absent sides): then the rows are independent (unless both limits of a joint are active, which
/// [`solve`] refuses) and the saddle-point system is regular.
pub fn rows_are_independent(rows: &IslandJoints, n: usize) -> bool {
    let mut parent: Vec<usize> = (0..=n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut last = None;
    for r in &rows.rows {
        if last == Some(r.joint) {
            continue;
        }
        last = Some(r.joint);
        // node 0: the world; slot s: node s + 1
        let mut nodes = [0usize; 2];
        for &(s, side, _, _) in &r.pos {
            nodes[side] = s + 1;
        }
        let (a, b) = (root(&mut parent, nodes[0]), root(&mut parent, nodes[1]));
        if a == b {
            return false;
        }
        parent[a] = b;
    }
    true
}

/// The sparse saddle-point matrix of the active rows `idx`, column-major (rows sorted in each column), and a key
/// of its pattern for the kept symbolic analyses.
struct Kkt {
    dim: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    key: Vec<u32>,
}

impl Kkt {
    /// Every value finite, and every multiplier's column (−W) and row (J) holding a non-zero.
    fn regular_looking(&self, n6: usize) -> bool {
        let mut row_nonzero = vec![false; self.dim - n6];
        for (c, w) in self.col_ptr.windows(2).enumerate() {
            let (rows, vals) = (&self.row_idx[w[0]..w[1]], &self.values[w[0]..w[1]]);
            if vals.iter().any(|v| !v.is_finite()) || (c >= n6 && vals.iter().all(|&v| v == 0.0)) {
                return false;
            }
            for (&r, &v) in rows.iter().zip(vals) {
                if r >= n6 && v != 0.0 {
                    row_nonzero[r - n6] = true;
                }
            }
        }
        row_nonzero.into_iter().all(|b| b)
    }
}

fn kkt(sys: &IslandSystem, rows: &[IslandRow], pos: &[Vec<RowJacobian>], idx: &[usize], h: f64) -> Kkt {
    let n6 = 6 * sys.n;
    let dim = n6 + idx.len();
    let mut blocks: Vec<Vec<(u32, &Block6)>> = vec![Vec::new(); sys.n];
    for ((i, j), b) in sys.blocks() {
        blocks[j as usize].push((i, b));
    }
    // J's entries by body slot: (active row a, ∂C'/∂ΔS of the slot's six unknowns)
    let mut jac: Vec<Vec<(usize, [f64; 6])>> = vec![Vec::new(); sys.n];
    for (a, &i) in idx.iter().enumerate() {
        for &(s, _, p, l) in &pos[i] {
            jac[s].push((a, [p.x, p.y, p.z, l.x, l.y, l.z]));
        }
    }
    let mut key: Vec<u32> = Vec::new();
    for ((i, j), _) in sys.blocks() {
        key.extend([i, j]);
    }
    key.push(u32::MAX);
    let (mut col_ptr, mut row_idx, mut values) = (vec![0usize], Vec::new(), Vec::new());
    for (j, col) in blocks.iter().enumerate() {
        for c in 0..6 {
            for &(i, b) in col {
                for r in 0..6 {
                    row_idx.push(6 * i as usize + r);
                    values.push(b[r][c]);
                }
            }
            for &(a, d) in &jac[j] {
                row_idx.push(n6 + a);
                values.push(d[c]);
            }
            col_ptr.push(row_idx.len());
        }
    }
    // −W: each active row's constraint wrench h·(lin, ang) at its sides' slots
    for &i in idx {
        let r = &rows[i];
        let mut sides: Vec<(usize, usize)> = r.pos.iter().map(|&(s, side, _, _)| (s, side)).collect();
        sides.sort_unstable();
        for (s, side) in sides {
            key.push(s as u32);
            let (lin, ang) = (r.force.lin[side], r.force.ang[side]);
            for (c, v) in [lin.x, lin.y, lin.z, ang.x, ang.y, ang.z].into_iter().enumerate() {
                row_idx.push(6 * s + c);
                values.push(-h * v);
            }
        }
        key.push(u32::MAX);
        col_ptr.push(row_idx.len());
    }
    Kkt { dim, col_ptr, row_idx, values, key }
}

/// Solves the island's joint rows through the saddle-point system (same equations, active sets and Newton
/// corrections as the Schur path of [`super::joints::solve_constrained`]); `Err` when a factorisation fails or
/// is not finite, so that the caller falls back to the pseudo-inverse. A correction that does not halve the
/// rows' error takes the rows' Jacobians at the current ΔS (true Newton), so that fast rotations within a step
/// converge; the iterate with the smallest error is kept.
pub fn solve(
    solver: &mut Solver,
    sys: &IslandSystem,
    joints: &IslandJoints,
    h: f64,
    eval: &mut impl RowEval,
) -> Result<Constrained, String> {
    let rows = &joints.rows;
    let (m, n6) = (rows.len(), 6 * sys.n);
    let x0 = solver.solve(sys)?;
    let mut active: Vec<bool> = rows.iter().map(|r| !r.limit || r.row.c + row_dot(&r.pos, &x0) < r.target).collect();
    let mut lambda = vec![0.0; m];
    let (mut x, mut rank, mut residual, mut turn) = (x0.clone(), 0, 0.0, 0.0f64);
    for _ in 0..ACTIVE_SETS {
        let idx: Vec<usize> = (0..m).filter(|&i| active[i]).collect();
        if idx.windows(2).any(|w| rows[w[0]].limit && rows[w[1]].limit && rows[w[0]].joint == rows[w[1]].joint) {
            return Err("both limits of a joint are active".into());
        }
        let mut pos: Vec<Vec<RowJacobian>> = rows.iter().map(|r| r.pos.clone()).collect();
        let mut symbolic = None;
        let mut numeric = NumericLu::new();
        // (x, λ of the active rows, error, C) of the best iterate
        let mut best: Option<(Vec<f64>, Vec<f64>, f64, Vec<f64>)> = None;
        let mut ls = Vec::new();
        let mut first = Vec::new();
        let (mut it, mut previous, mut linearised_at_x) = (0, f64::INFINITY, false);
        loop {
            let k = kkt(sys, rows, &pos, &idx, h);
            // faer's simplicial LU panics on an exactly zero pivot: a row or wrench of zeros, or a value that is not
            // finite, goes to the pseudo-inverse instead
            if !k.regular_looking(n6) {
                return Err("a joint row or its wrench is zero or not finite".into());
            }
            // a joint whose own rows (or wrenches) are nearly dependent makes the system singular: the
            // pseudo-inverse drops such rows
            if !each_joint_independent(rows, &pos, &idx) {
                return Err("a joint's rows are nearly dependent".into());
            }
            let sym = SymbolicSparseColMatRef::new_checked(k.dim, k.dim, &k.col_ptr, None, &k.row_idx);
            let sy = match symbolic.take().or_else(|| solver.take_saddle(&k.key)) {
                Some(s) => s,
                None => factorize_symbolic_lu(sym, Default::default()).map_err(|e| format!("symbolic LU failed: {e:?}"))?,
            };
            let mut mem = MemBuffer::new(sy.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()));
            let mut mem2 = MemBuffer::new(sy.solve_in_place_scratch::<f64>(1, Par::Seq));
            let relinearise = {
                // the last guard against faer's panic on an exactly zero pivot: the pseudo-inverse takes over
                let (sy_ref, numeric_ref, mem_ref) = (&sy, &mut numeric, &mut mem);
                let factored = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                    let (numeric_ref, mem_ref) = (numeric_ref, mem_ref);
                    sy_ref.factorize_numeric_lu(
                        numeric_ref,
                        SparseColMatRef::new(sym, &k.values),
                        Par::Seq,
                        MemStack::new(mem_ref),
                        Default::default(),
                    )
                }));
                let lu = factored
                    .map_err(|_| "sparse LU of the joint rows met a zero pivot".to_string())?
                    .map_err(|e| format!("sparse LU of the joint rows failed: {e:?}"))?;
                let mut solve = |z: &mut [f64]| {
                    lu.solve_in_place_with_conj(
                        Conj::No,
                        MatMut::from_column_major_slice_mut(z, k.dim, 1),
                        Par::Seq,
                        MemStack::new(&mut mem2),
                    )
                };
                if best.is_none() {
                    let mut z: Vec<f64> = sys.rhs.iter().copied().chain(idx.iter().map(|&i| rows[i].target - rows[i].row.c)).collect();
                    solve(&mut z);
                    x = z[..n6].to_vec();
                    ls = z[n6..].to_vec();
                    first = x.clone();
                }
                loop {
                    if x.iter().chain(&ls).any(|v| !v.is_finite()) {
                        return Err("the saddle-point solve is not finite".into());
                    }
                    let c = eval.values(&x);
                    let e: Vec<f64> = idx.iter().map(|&i| c[i] - rows[i].target).collect();
                    let err = e.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                    if best.as_ref().is_none_or(|b| err < b.2) {
                        best = Some((x.clone(), ls.clone(), err, c));
                    }
                    if err <= ROW_TOLERANCE || it == NEWTON {
                        break false;
                    }
                    if err > 0.5 * previous && !linearised_at_x {
                        if let Some(p) = eval.jacobians(&x) {
                            pos = p;
                            linearised_at_x = true;
                            break true;
                        }
                    }
                    previous = err;
                    linearised_at_x = false;
                    // [G, −W; J, 0][Δx; Δλ] = [0; e]: Δλ = S⁻¹e and Δx = G⁻¹WΔλ, as the Schur path's correction
                    let mut d: Vec<f64> = std::iter::repeat_n(0.0, n6).chain(e).collect();
                    solve(&mut d);
                    x.iter_mut().zip(&d[..n6]).for_each(|(v, dv)| *v -= dv);
                    ls.iter_mut().zip(&d[n6..]).for_each(|(l, dv)| *l -= dv);
                    it += 1;
                }
            };
            if relinearise {
                symbolic = Some(sy);
            } else {
                solver.keep_saddle(k.key, sy);
                break;
            }
        }
        let (bx, bl, err, c) = best.expect("one iterate at least");
        let dx: Vec<f64> = bx.iter().zip(&first).map(|(a, b)| a - b).collect();
        turn = turn.max(eval.largest_turn(&dx));
        (x, residual) = (bx, err);
        lambda.iter_mut().for_each(|l| *l = 0.0);
        for (&i, &l) in idx.iter().zip(&bl) {
            lambda[i] = l;
        }
        rank = idx.len();
        if !update_active(rows, &mut active, &lambda, &c) {
            break;
        }
    }
    finished(x, lambda, rank, residual, turn)
}

/// Whether every joint's active rows are independent, both as ∂C'/∂ΔS (`pos`) and as wrenches (`force`): each
/// joint's Gram matrix of its unit rows (up to 12 entries: the two sides' six) has a Cholesky pivot above 1e-10.
/// In a forest this makes the whole saddle-point system regular.
fn each_joint_independent(rows: &[IslandRow], pos: &[Vec<RowJacobian>], idx: &[usize]) -> bool {
    let as_jacobian = |i: usize| -> [f64; 12] {
        let mut v = [0.0; 12];
        for &(_, side, p, l) in &pos[i] {
            v[6 * side..6 * side + 6].copy_from_slice(&[p.x, p.y, p.z, l.x, l.y, l.z]);
        }
        v
    };
    let as_wrench = |i: usize| -> [f64; 12] {
        let mut v = [0.0; 12];
        for &(_, side, _, _) in &pos[i] {
            let (lin, ang) = (rows[i].force.lin[side], rows[i].force.ang[side]);
            v[6 * side..6 * side + 6].copy_from_slice(&[lin.x, lin.y, lin.z, ang.x, ang.y, ang.z]);
        }
        v
    };
    let independent = |vs: Vec<[f64; 12]>| -> bool {
        let unit: Vec<[f64; 12]> = vs
            .iter()
            .map(|v| {
                let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                v.map(|x| x / n)
            })
            .collect();
        let m = unit.len();
        let mut g: Vec<Vec<f64>> = (0..m).map(|a| (0..m).map(|b| (0..12).map(|c| unit[a][c] * unit[b][c]).sum()).collect()).collect();
        // Cholesky in place
        for k in 0..m {
            let d = g[k][k] - (0..k).map(|c| g[k][c] * g[k][c]).sum::<f64>();
            if !(d > 1e-10) {
                return false;
            }
            g[k][k] = d.sqrt();
            for r in k + 1..m {
                g[r][k] = (g[r][k] - (0..k).map(|c| g[r][c] * g[k][c]).sum::<f64>()) / g[k][k];
            }
        }
        true
    };
    let mut start = 0;
    while start < idx.len() {
        let joint = rows[idx[start]].joint;
        let end = start + idx[start..].iter().take_while(|&&i| rows[i].joint == joint).count();
        let group = &idx[start..end];
        if !independent(group.iter().map(|&i| as_jacobian(i)).collect()) || !independent(group.iter().map(|&i| as_wrench(i)).collect()) {
            return false;
        }
        start = end;
    }
    true
}

/// ∂C'/∂ΔS · x for one row's Jacobian entries.
pub(super) fn row_dot(pos: &[RowJacobian], x: &[f64]) -> f64 {
    pos.iter().map(|&(s, _, p, l)| p.dot(Vec3::from_slice(&x[6 * s..])) + l.dot(Vec3::from_slice(&x[6 * s + 3..]))).sum()
}
