//! A symmetric positive definite linear system over bodies with one 6×6 block per body and one per coupled
//! pair, solved by block LDLᵀ in a fixed elimination order (greedy minimum degree, found once: the joint graph
//! does not change). A tree is eliminated leaves first with no fill, in linear work; each solve is serial, so
//! its result does not depend on the thread count.

use nalgebra::{Cholesky, Const, Matrix6, Vector6};

/// The 6×6 block type.
pub type Block = Matrix6<f64>;
/// One node's 6-vector.
pub type Vec6 = Vector6<f64>;

/// The system H x = b and its factor.
pub struct BlockSystem {
    /// Nodes in elimination order.
    order: Vec<usize>,
    /// Each node's position in `order`.
    position: Vec<usize>,
    /// Per node, its neighbours eliminated after it (fill included), each with its off-diagonal slot.
    later: Vec<Vec<(usize, usize)>>,
    /// Unordered pair (lower node, higher node) → slot, sorted for binary search.
    index: Vec<((usize, usize), usize)>,
    /// Diagonal blocks H_ii, then their Schur complements during the factorisation.
    diag: Vec<Block>,
    /// Off-diagonal blocks H_kj with k eliminated before j; after the factorisation, D_k⁻¹H_kj.
    off: Vec<Block>,
    chol: Vec<Option<Cholesky<f64, Const<6>>>>,
}

impl BlockSystem {
    /// The system of `n` nodes coupled by `edges` (pairs of distinct nodes; repeats are merged).
    pub fn new(n: usize, edges: &[(usize, usize)]) -> Self {
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
        let link = |adj: &mut Vec<Vec<usize>>, a: usize, b: usize| {
            if let Err(p) = adj[a].binary_search(&b) {
                adj[a].insert(p, b);
            }
        };
        for &(a, b) in edges {
            if a != b {
                link(&mut adj, a, b);
                link(&mut adj, b, a);
            }
        }
        let mut done = vec![false; n];
        let (mut order, mut later) = (Vec::with_capacity(n), vec![Vec::new(); n]);
        for _ in 0..n {
            let k = (0..n).filter(|&i| !done[i]).min_by_key(|&i| (adj[i].len(), i)).expect("a node is left");
            done[k] = true;
            let nb = std::mem::take(&mut adj[k]);
            for &a in &nb {
                adj[a].retain(|&x| x != k);
                for &b in &nb {
                    if a != b {
                        link(&mut adj, a, b);
                    }
                }
            }
            order.push(k);
            later[k] = nb;
        }
        let mut position = vec![0; n];
        for (p, &k) in order.iter().enumerate() {
            position[k] = p;
        }
        let mut index = Vec::new();
        let mut slotted = Vec::with_capacity(n);
        for (k, nb) in later.iter().enumerate() {
            let mut row = Vec::with_capacity(nb.len());
            for &j in nb {
                let s = index.len();
                index.push(((k.min(j), k.max(j)), s));
                row.push((j, s));
            }
            slotted.push(row);
        }
        index.sort_unstable_by_key(|e| e.0);
        let m = index.len();
        BlockSystem {
            order,
            position,
            later: slotted,
            index,
            diag: vec![Block::zeros(); n],
            off: vec![Block::zeros(); m],
            chol: vec![None; n],
        }
    }

    /// Zeroes every block before an assembly.
    pub fn clear(&mut self) {
        self.diag.iter_mut().for_each(|b| b.fill(0.0));
        self.off.iter_mut().for_each(|b| b.fill(0.0));
    }

    /// Adds `m` to the diagonal block of node `i`.
    pub fn add_diag(&mut self, i: usize, m: &Block) {
        self.diag[i] += m;
    }

    /// Adds w·aᵀb to block (i, j) and w·bᵀa to block (j, i), for rows a of node i and b of node j (i ≠ j);
    /// w·aᵀa to block (i, i) when i = j.
    pub fn add_outer(&mut self, (i, a): (usize, &Vec6), (j, b): (usize, &Vec6), w: f64) {
        if i == j {
            self.diag[i] += (a * b.transpose()) * w;
            return;
        }
        let s = self.index[self.index.binary_search_by_key(&(i.min(j), i.max(j)), |e| e.0).expect("pair in the joint graph")].1;
        // the slot holds H_kj with k eliminated first
        if self.position[i] < self.position[j] {
            self.off[s] += (a * b.transpose()) * w;
        } else {
            self.off[s] += (b * a.transpose()) * w;
        }
    }

    /// Factorises the assembled system; on a block that is not positive definite, returns its node.
    pub fn factor(&mut self) -> Result<(), usize> {
        let mut x: Vec<Block> = Vec::new();
        for p in 0..self.order.len() {
            let k = self.order[p];
            let Some(c) = Cholesky::new(self.diag[k]) else {
                return Err(k);
            };
            let nb = &self.later[k];
            x.clear();
            x.extend(nb.iter().map(|&(_, s)| c.solve(&self.off[s])));
            for (a, &(ja, sa)) in nb.iter().enumerate() {
                let u = self.off[sa].transpose() * x[a];
                self.diag[ja] -= u;
                for (b, &(jb, _)) in nb.iter().enumerate().skip(a + 1) {
                    // H_{ja,jb} −= H_{ja,k} D⁻¹ H_{k,jb}
                    let s = self.index[self.index.binary_search_by_key(&(ja.min(jb), ja.max(jb)), |e| e.0).expect("fill")].1;
                    let u = if self.position[ja] < self.position[jb] {
                        self.off[sa].transpose() * x[b]
                    } else {
                        x[b].transpose() * self.off[sa]
                    };
                    self.off[s] -= u;
                }
            }
            for (&(_, s), xs) in nb.iter().zip(&x) {
                self.off[s] = *xs;
            }
            self.chol[k] = Some(c);
        }
        Ok(())
    }

    /// Solves H x = b in place with the last factor.
    pub fn solve(&self, b: &mut [Vec6]) {
        let chol = |k: usize| self.chol[k].as_ref().expect("factor before solve");
        for &k in &self.order {
            let bk = b[k];
            for &(j, s) in &self.later[k] {
                b[j] -= self.off[s].transpose() * bk;
            }
            b[k] = chol(k).solve(&bk);
        }
        for &k in self.order.iter().rev() {
            let mut xk = b[k];
            for &(j, s) in &self.later[k] {
                xk -= self.off[s] * b[j];
            }
            b[k] = xk;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::rng::Rng;

    fn rng_flip(i: usize, j: usize) -> bool {
        (i * 7 + j * 3) % 2 == 0
    }

    /// A random SPD system on `edges`, solved by blocks and densely.
    fn check(n: usize, edges: &[(usize, usize)], seed: u64) {
        let mut rng = Rng::new(seed);
        let mut r = || rng.symmetric();
        let mut sys = BlockSystem::new(n, edges);
        let mut dense = nalgebra::DMatrix::<f64>::zeros(6 * n, 6 * n);
        for i in 0..n {
            let d = Block::from_fn(|a, b| if a == b { 2.0 + r().abs() } else { 0.0 });
            sys.add_diag(i, &d);
            {
                let mut blk = dense.view_mut((6 * i, 6 * i), (6, 6));
                blk += d;
            }
        }
        for &(i, j) in edges {
            for _ in 0..3 {
                let (a, b, w) = (Vec6::from_fn(|_, _| r()), Vec6::from_fn(|_, _| r()), 10.0 * r().abs());
                // alternate the argument order: the slot takes either orientation
                if rng_flip(i, j) {
                    sys.add_outer((i, &a), (j, &b), w);
                } else {
                    sys.add_outer((j, &b), (i, &a), w);
                }
                sys.add_outer((i, &a), (i, &a), w);
                sys.add_outer((j, &b), (j, &b), w);
                // w (a_i + b_j)(a_i + b_j)ᵀ
                let mut v = nalgebra::DVector::<f64>::zeros(6 * n);
                v.rows_mut(6 * i, 6).copy_from(&a);
                {
                    let mut seg = v.rows_mut(6 * j, 6);
                    seg += b;
                }
                dense += (&v * v.transpose()) * w;
            }
        }
        let rhs: Vec<Vec6> = (0..n).map(|_| Vec6::from_fn(|_, _| r())).collect();
        let mut x = rhs.clone();
        sys.factor().unwrap();
        sys.solve(&mut x);
        let flat = nalgebra::DVector::from_iterator(6 * n, rhs.iter().flat_map(|v| v.iter().copied()));
        let exact = dense.cholesky().unwrap().solve(&flat);
        for i in 0..n {
            let e = (x[i] - exact.rows(6 * i, 6)).norm();
            assert!(e < 1e-10 * exact.norm().max(1.0), "node {i}: error {e}");
        }
    }

    #[test]
    fn block_elimination_matches_a_dense_cholesky() {
        // a chain, a tree, two loops sharing an edge, a complete graph on 5 and disconnected parts
        check(8, &(0..7).map(|i| (i, i + 1)).collect::<Vec<_>>(), 1);
        check(7, &[(0, 1), (0, 2), (1, 3), (1, 4), (2, 5), (2, 6)], 2);
        check(6, &[(0, 1), (1, 2), (2, 3), (3, 0), (1, 4), (4, 5), (5, 2)], 3);
        check(5, &[(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)], 4);
        check(5, &[(3, 1), (0, 4)], 5);
        check(3, &[], 6);
    }

    #[test]
    fn a_chain_eliminates_without_fill_and_a_loop_with_one_block() {
        let chain = BlockSystem::new(10, &(0..9).map(|i| (i, i + 1)).collect::<Vec<_>>());
        assert_eq!(chain.off.len(), 9);
        let ring = BlockSystem::new(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        assert_eq!(ring.off.len(), 5);
    }

    #[test]
    fn a_block_that_is_not_positive_definite_is_named() {
        let mut sys = BlockSystem::new(2, &[(0, 1)]);
        sys.add_diag(0, &Block::identity());
        assert_eq!(sys.factor(), Err(1));
    }
}
