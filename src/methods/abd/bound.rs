//! The CCD bound of `abd`'s line search (source §4.4, additive CCD): the largest step along a Newton direction
//! that no candidate pair crosses.

use super::*;

impl Abd {
    /// The smallest time of impact over the candidate pairs along x → x1 (1 when none). In two passes, with the
    /// same answer as one: every pair first gets [`CCD_FIRST_ADVANCES`] advances, which settle nearly all of them;
    /// the others, pairs sliding past each other at gaps far below their motion (each advance is s·d/l_p), then
    /// run only up to the smallest time of impact the first pass found, where they stop (a time of impact within
    /// it is found by the same advances). The ball grid's first step spent 91 s of 117 in this stage in one pass.
    pub(super) fn ccd_bound(&self) -> f64 {
        use rayon::prelude::*;
        let x = &self.x;
        let x1 = &self.x1;
        let toi = |p: &Pair, t_max: f64, advances: usize| {
            let xs = assemble::stencil(x, &p.verts);
            let xe = assemble::stencil(x1, &p.verts);
            let dx: [[f64; 3]; 4] = std::array::from_fn(|k| std::array::from_fn(|r| xe[k][r] - xs[k][r]));
            ccd::toi_advancing(barrier::PairShape { edge_edge: p.edge_edge, eps_x: p.eps_x }, &xs, &dx, 0.0, t_max, advances)
        };
        let first: Vec<ccd::Toi> = self.pairs.par_iter().map(|p| toi(p, 1.0, CCD_FIRST_ADVANCES)).collect();
        let best = first.iter().fold(1.0f64, |m, r| if let ccd::Toi::Hit(t) = r { m.min(*t) } else { m });
        // (the minimum is exact in any order, so the reduction's grouping does not matter)
        self.pairs
            .par_iter()
            .zip(&first)
            .filter_map(|(p, r)| match r {
                ccd::Toi::Unfinished(t) if *t < best => match toi(p, best, ccd::MAX_ADVANCES) {
                    ccd::Toi::Hit(t) => Some(t),
                    _ => None,
                },
                _ => None,
            })
            .reduce(|| best, f64::min)
    }
}

/// Advances per pair in the CCD bound's first pass (see `Abd::ccd_bound`).
const CCD_FIRST_ADVANCES: usize = 100;
