//! The bilateral joint rows of a solve taken together as one block of the Gauss-Seidel iteration, solved exactly
//! each sweep (A_BB = J_B M⁻¹ J_Bᵀ factored once per solve), so that a chain of N joints holds in one sweep where
//! scalar Gauss-Seidel needs O(N²). The factor is sparse after the joint graph (Baraff, "Linear-time dynamics
//! using Lagrange multipliers", SIGGRAPH 1996): no fill for a tree; redundant rows of loops get Δλ = 0.
//! See docs/methods/lcp.md, "The joint block".

use crate::math::Vec3;
use std::collections::BTreeSet;

/// Velocity of a solver body (or, in the correction solve, its displacement); kept apart from the masses so
/// that the sweeps touch as little memory as possible.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(C)]
pub(crate) struct Vel {
    pub v: Vec3,
    pub w: Vec3,
}

// `Vel` is six f64 in the order v.x, v.y, v.z, w.x, w.y, w.z (what `Vel::flat` relies on)
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<Vel>() == 48 && align_of::<Vel>() == 8 && offset_of!(Vel, w) == 24);
    assert!(size_of::<Vec3>() == 24 && offset_of!(Vec3, x) == 0 && offset_of!(Vec3, y) == 8 && offset_of!(Vec3, z) == 16);
};

/// One scalar joint row between solver bodies `a` and `b` (`b` is the world slot for a joint to the world):
/// w = J u + bias + γλ, λ ∈ [lo, hi].
#[derive(Debug, Clone, Copy)]
pub(crate) struct JRow {
    pub a: u32,
    pub b: u32,
    pub joint: u32,
    pub slot: u32,
    pub lin: [Vec3; 2],
    pub ang: [Vec3; 2],
    /// M⁻¹Jᵀ: linear and angular parts per side (zero for a fixed or frozen side).
    pub ml: [Vec3; 2],
    pub mi: [Vec3; 2],
    pub inv_diag: f64,
    pub gamma: f64,
    pub bias: f64,
    pub lo: f64,
    pub hi: f64,
    pub lambda: f64,
}

impl JRow {
    #[inline]
    pub fn jv(&self, ba: &Vel, bb: &Vel) -> f64 {
        self.lin[0].dot(ba.v) + self.ang[0].dot(ba.w) + self.lin[1].dot(bb.v) + self.ang[1].dot(bb.w)
    }

    #[inline]
    pub fn apply(&self, d: f64, ba: &mut Vel, bb: &mut Vel) {
        ba.v += self.ml[0] * d;
        ba.w += self.mi[0] * d;
        bb.v += self.ml[1] * d;
        bb.w += self.mi[1] * d;
    }
}

/// Most bilateral rows of one joint (fixed joint: 6).
const NODE: usize = 6;
/// A node's dense block, row-major with stride `NODE`.
type Block = [f64; NODE * NODE];

/// The factored block of a solve's bilateral joint rows.
#[derive(Debug, Default)]
pub(crate) struct JointBlock {
    /// Indices of the block's rows among the solve's joint rows, node by node in elimination order.
    idx: Vec<u32>,
    /// Node k's rows are `idx[start[k]..start[k + 1]]` (nodes numbered in elimination order).
    start: Vec<usize>,
    /// Node k's later neighbours are `later[lstart[k]..lstart[k + 1]]`: (node, its block in `off`).
    lstart: Vec<usize>,
    later: Vec<(u32, u32)>,
    /// L_kk per node (a dropped row has a zero column and a zero diagonal), and L_jk per later neighbour.
    diag: Vec<Block>,
    off: Vec<Block>,
    /// Right-hand side and solution, in `idx` order.
    x: Vec<f64>,
    /// Symbolic workspace: joint runs, (body, node) incidences, adjacency sets.
    runs: Vec<(usize, usize, [u32; 2])>,
    incid: Vec<(u32, u32)>,
    adj: Vec<BTreeSet<u32>>,
}

/// A row's body on side `s`.
fn side(r: &JRow, s: usize) -> u32 {
    if s == 0 {
        r.a
    } else {
        r.b
    }
}

/// Whether the row moves side `s`'s body (a fixed, frozen or world side has M⁻¹Jᵀ = 0).
fn live(r: &JRow, s: usize) -> bool {
    r.ml[s] != crate::math::Vec3::ZERO || r.mi[s] != crate::math::Vec3::ZERO
}

/// Whether the row belongs to the block: rigid (no compliance) and unbounded.
fn bilateral(r: &JRow) -> bool {
    r.gamma == 0.0 && r.lo == f64::NEG_INFINITY && r.hi == f64::INFINITY
}

/// A_pq = J_p M⁻¹ J_qᵀ over the bodies the two rows share.
fn entry(rp: &JRow, rq: &JRow) -> f64 {
    let mut a = 0.0;
    for sp in 0..2 {
        for sq in 0..2 {
            if side(rp, sp) == side(rq, sq) {
                a += rp.lin[sp].dot(rq.ml[sq]) + rp.ang[sp].dot(rq.mi[sq]);
            }
        }
    }
    a
}

impl JointBlock {
    /// Selects the rigid unbounded rows of `rows`, orders their joints for a sparse elimination, assembles A over
    /// them and factors it.
    pub fn build(&mut self, rows: &[JRow]) {
        self.symbolic(rows);
        self.numeric(rows);
    }

    /// Groups the block's rows by joint (a joint's rows are contiguous in `rows`), couples joints that share a
    /// live body, and finds the elimination order (least degree first, ties to the earlier joint) and its fill.
    fn symbolic(&mut self, rows: &[JRow]) {
        self.runs.clear();
        let mut i = 0;
        while i < rows.len() {
            if !bilateral(&rows[i]) {
                i += 1;
                continue;
            }
            let (joint, begin) = (rows[i].joint, i);
            let mut bodies = [u32::MAX; 2];
            while i < rows.len() && rows[i].joint == joint && bilateral(&rows[i]) {
                for s in 0..2 {
                    if live(&rows[i], s) {
                        bodies[s] = side(&rows[i], s);
                    }
                }
                i += 1;
            }
            debug_assert!(i - begin <= NODE, "a joint has at most {NODE} bilateral rows");
            self.runs.push((begin, i, bodies));
        }
        let n = self.runs.len();
        self.incid.clear();
        for (k, run) in self.runs.iter().enumerate() {
            for &b in &run.2 {
                if b != u32::MAX {
                    self.incid.push((b, k as u32));
                }
            }
        }
        self.incid.sort_unstable();
        self.adj.iter_mut().for_each(BTreeSet::clear);
        self.adj.resize_with(n.max(self.adj.len()), BTreeSet::new);
        for group in self.incid.chunk_by(|p, q| p.0 == q.0) {
            for p in group {
                for q in group {
                    if p.1 != q.1 {
                        self.adj[p.1 as usize].insert(q.1);
                    }
                }
            }
        }
        // least degree first; eliminating a node joins its remaining neighbours (fill)
        let mut queue: BTreeSet<(usize, u32)> = (0..n).map(|k| (self.adj[k].len(), k as u32)).collect();
        let mut position = vec![u32::MAX; n];
        let mut later_of: Vec<Vec<u32>> = Vec::with_capacity(n);
        let mut order = Vec::with_capacity(n);
        while let Some((_, k)) = queue.pop_first() {
            position[k as usize] = order.len() as u32;
            order.push(k);
            let nb: Vec<u32> = std::mem::take(&mut self.adj[k as usize]).into_iter().collect();
            for &a in &nb {
                let before = self.adj[a as usize].len();
                self.adj[a as usize].remove(&k);
                for &b in &nb {
                    if a != b {
                        self.adj[a as usize].insert(b);
                    }
                }
                let after = self.adj[a as usize].len();
                if after != before {
                    queue.remove(&(before, a));
                    queue.insert((after, a));
                }
            }
            later_of.push(nb);
        }
        // renumber nodes by elimination position
        self.idx.clear();
        self.start.clear();
        self.lstart.clear();
        self.later.clear();
        for (p, &k) in order.iter().enumerate() {
            let (begin, end, _) = self.runs[k as usize];
            self.start.push(self.idx.len());
            self.idx.extend(begin as u32..end as u32);
            self.lstart.push(self.later.len());
            let mut nb: Vec<u32> = later_of[p].iter().map(|&j| position[j as usize]).collect();
            nb.sort_unstable();
            for j in nb {
                let slot = self.later.len() as u32;
                self.later.push((j, slot));
            }
        }
        self.start.push(self.idx.len());
        self.lstart.push(self.later.len());
    }

    /// The block of `later` that holds (node j, node k), k eliminated before j.
    fn slot(&self, k: usize, j: u32) -> usize {
        let list = &self.later[self.lstart[k]..self.lstart[k + 1]];
        let at = list.binary_search_by_key(&j, |e| e.0).expect("the symbolic elimination made every fill block");
        list[at].1 as usize
    }

    /// Assembles A's blocks (fill blocks zero) and factors them node by node, right-looking.
    fn numeric(&mut self, rows: &[JRow]) {
        let n = self.start.len() - 1;
        let (idx, start) = (std::mem::take(&mut self.idx), std::mem::take(&mut self.start));
        let row = |k: usize, p: usize| &rows[idx[start[k] + p] as usize];
        let size = |k: usize| start[k + 1] - start[k];
        self.diag.clear();
        self.diag.resize(n, [0.0; NODE * NODE]);
        self.off.clear();
        self.off.resize(self.later.len(), [0.0; NODE * NODE]);
        for k in 0..n {
            let m = size(k);
            for p in 0..m {
                for q in 0..=p {
                    self.diag[k][p * NODE + q] = entry(row(k, p), row(k, q));
                }
            }
            for e in self.lstart[k]..self.lstart[k + 1] {
                let (j, s) = (self.later[e].0 as usize, self.later[e].1 as usize);
                for p in 0..size(j) {
                    for q in 0..m {
                        self.off[s][p * NODE + q] = entry(row(j, p), row(k, q));
                    }
                }
            }
        }
        for k in 0..n {
            let m = size(k);
            // the node's own Cholesky, a pivot below 1e-6 of its row's A_jj dropped
            let d = &mut self.diag[k];
            for j in 0..m {
                let ajj = entry(row(k, j), row(k, j));
                let mut piv = d[j * NODE + j];
                for c in 0..j {
                    piv -= d[j * NODE + c] * d[j * NODE + c];
                }
                if !(piv > 1e-6 * ajj) {
                    for i in j..m {
                        d[i * NODE + j] = 0.0;
                    }
                    continue;
                }
                let s = piv.sqrt();
                d[j * NODE + j] = s;
                for i in j + 1..m {
                    let mut v = d[i * NODE + j];
                    for c in 0..j {
                        v -= d[i * NODE + c] * d[j * NODE + c];
                    }
                    d[i * NODE + j] = v / s;
                }
            }
            let lkk = self.diag[k];
            // L_jk = A_jk L_kk⁻ᵀ: each row of the block solved against L_kk
            for e in self.lstart[k]..self.lstart[k + 1] {
                let (j, s) = (self.later[e].0 as usize, self.later[e].1 as usize);
                let b = &mut self.off[s];
                for p in 0..size(j) {
                    for q in 0..m {
                        let dq = lkk[q * NODE + q];
                        if dq == 0.0 {
                            b[p * NODE + q] = 0.0;
                            continue;
                        }
                        let mut v = b[p * NODE + q];
                        for c in 0..q {
                            v -= b[p * NODE + c] * lkk[q * NODE + c];
                        }
                        b[p * NODE + q] = v / dq;
                    }
                }
            }
            // Schur complement: A_ij −= L_ik L_jkᵀ for every pair of later neighbours (j not after i)
            for e in self.lstart[k]..self.lstart[k + 1] {
                let (i, si) = (self.later[e].0 as usize, self.later[e].1 as usize);
                for f in self.lstart[k]..=e {
                    let (j, sj) = (self.later[f].0 as usize, self.later[f].1 as usize);
                    let (li, lj) = (self.off[si], self.off[sj]);
                    let (mi, mj) = (size(i), size(j));
                    let target = if i == j {
                        &mut self.diag[i]
                    } else {
                        let t = self.slot(j, i as u32);
                        &mut self.off[t]
                    };
                    for p in 0..mi {
                        let top = if i == j { p + 1 } else { mj };
                        for q in 0..top {
                            let mut v = 0.0;
                            for c in 0..m {
                                v += li[p * NODE + c] * lj[q * NODE + c];
                            }
                            target[p * NODE + q] -= v;
                        }
                    }
                }
            }
        }
        (self.idx, self.start) = (idx, start);
    }

    /// Solves A λ = −bias for the block's rows alone, without velocities (a Newton step on positions: `impulse`'s
    /// pre-stabilisation), writing λ into the rows; rows outside the block keep theirs.
    pub fn solve_values(&mut self, rows: &mut [JRow]) {
        self.x.clear();
        self.x.extend(self.idx.iter().map(|&i| -rows[i as usize].bias));
        self.substitute();
        for (p, &i) in self.idx.iter().enumerate() {
            rows[i as usize].lambda = self.x[p];
        }
    }

    /// x ← A⁻¹x by the factor: L y = x, then Lᵀ x = y (a dropped row's component 0).
    fn substitute(&mut self) {
        let n = self.start.len().saturating_sub(1);
        // L y = x, node by node; each solved node's part leaves its later neighbours' right-hand sides
        for k in 0..n {
            let (o, m, d) = (self.start[k], self.start[k + 1] - self.start[k], &self.diag[k]);
            for j in 0..m {
                let dj = d[j * NODE + j];
                if dj == 0.0 {
                    self.x[o + j] = 0.0;
                    continue;
                }
                let mut v = self.x[o + j];
                for c in 0..j {
                    v -= d[j * NODE + c] * self.x[o + c];
                }
                self.x[o + j] = v / dj;
            }
            for &(j, s) in &self.later[self.lstart[k]..self.lstart[k + 1]] {
                let (oj, b) = (self.start[j as usize], &self.off[s as usize]);
                for p in 0..self.start[j as usize + 1] - oj {
                    let mut v = 0.0;
                    for c in 0..m {
                        v += b[p * NODE + c] * self.x[o + c];
                    }
                    self.x[oj + p] -= v;
                }
            }
        }
        // Lᵀ Δλ = y, in reverse (dropped rows: 0)
        for k in (0..n).rev() {
            let (o, m) = (self.start[k], self.start[k + 1] - self.start[k]);
            for &(j, s) in &self.later[self.lstart[k]..self.lstart[k + 1]] {
                let (oj, b) = (self.start[j as usize], &self.off[s as usize]);
                for p in 0..self.start[j as usize + 1] - oj {
                    let z = self.x[oj + p];
                    for c in 0..m {
                        self.x[o + c] -= b[p * NODE + c] * z;
                    }
                }
            }
            let d = &self.diag[k];
            for j in (0..m).rev() {
                let dj = d[j * NODE + j];
                if dj == 0.0 {
                    self.x[o + j] = 0.0;
                    continue;
                }
                let mut v = self.x[o + j];
                for c in j + 1..m {
                    v -= d[c * NODE + j] * self.x[o + c];
                }
                self.x[o + j] = v / dj;
            }
        }
    }

    /// One exact block update: Δλ from the current velocities, applied to the rows and the bodies. Returns the
    /// largest change and the largest impulse.
    pub fn solve(&mut self, rows: &mut [JRow], bodies: &mut [Vel]) -> (f64, f64) {
        self.x.clear();
        for &i in &self.idx {
            let r = &rows[i as usize];
            self.x.push(-(r.jv(&bodies[r.a as usize], &bodies[r.b as usize]) + r.bias));
        }
        self.substitute();
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
#[path = "joint_block_tests.rs"]
mod tests;
