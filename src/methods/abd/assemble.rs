//! Energies, gradients and Hessians of the incremental potential, mapped from surface points to body
//! coordinates contact-aware (source §4.3): a pair's 12×12 point Hessian becomes at most four 12×12 body blocks,
//! accumulated per body pair; body pairs are processed in parallel and merged in a fixed order.
//!
//! Point k of a stencil lies on body b_k with w_k = (x̄_k, 1), so x_k,r = Σ_j q_b[4r + j] w_k,j and
//! ∂/∂q_b[4r + j] = Σ_k w_k,j ∂/∂x_k,r: the map Jᵀ(·)J is a 4-vector outer product (affine.rs).

use super::barrier::{self, PairShape};
use super::culling::{Group, Pair};
use super::friction::Contact;
use super::surface::Surfaces;
use super::system::Block;
use rayon::prelude::*;

/// A pair's stencil positions.
pub fn stencil(x: &[[f64; 3]], verts: &[u32; 4]) -> [[f64; 3]; 4] {
    std::array::from_fn(|k| x[verts[k] as usize])
}

/// Contributions of one body pair: gradient per side and the four blocks (side, side).
pub struct GroupTerms {
    pub bodies: [u32; 2],
    pub g: [[f64; 12]; 2],
    pub h: [[Block; 2]; 2],
}

impl GroupTerms {
    fn new(bodies: [u32; 2]) -> Self {
        GroupTerms { bodies, g: [[0.0; 12]; 2], h: [[[[0.0; 12]; 12]; 2]; 2] }
    }

    /// Adds a stencil's point gradient `gx` and Hessian `hx` (both already scaled).
    pub fn scatter(&mut self, s: &Surfaces, verts: &[u32; 4], gx: &[f64; 12], hx: &[[f64; 12]; 12]) {
        let side: [usize; 4] = std::array::from_fn(|k| usize::from(s.vertex_body[verts[k] as usize] != self.bodies[0]));
        let w: [&[f64; 4]; 4] = std::array::from_fn(|k| &s.rest[verts[k] as usize]);
        for k in 0..4 {
            for r in 0..3 {
                for j in 0..4 {
                    self.g[side[k]][4 * r + j] += gx[3 * k + r] * w[k][j];
                }
            }
        }
        for k in 0..4 {
            for l in 0..4 {
                let blk = &mut self.h[side[k]][side[l]];
                for r in 0..3 {
                    for c in 0..3 {
                        let v = hx[3 * k + r][3 * l + c];
                        if v == 0.0 {
                            continue;
                        }
                        for j in 0..4 {
                            let vj = v * w[k][j];
                            for m in 0..4 {
                                blk[4 * r + j][4 * c + m] += vj * w[l][m];
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Barrier energy Σ m·b(D) over the pairs (without κ) and the smallest squared distance among them.
pub fn barrier_energy(x: &[[f64; 3]], pairs: &[Pair], groups: &[Group], dhat2: f64) -> (f64, f64) {
    let per: Vec<(f64, f64)> = groups
        .par_iter()
        .map(|g| {
            let mut e = 0.0;
            let mut dmin = f64::INFINITY;
            for p in &pairs[g.range.clone()] {
                let xs = stencil(x, &p.verts);
                let shape = PairShape { edge_edge: p.edge_edge, eps_x: p.eps_x };
                let (_, d) = barrier::classify(shape, &xs);
                dmin = dmin.min(d);
                if d < dhat2 {
                    e += barrier::energy(shape, &xs, dhat2);
                }
            }
            (e, dmin)
        })
        .collect();
    per.iter().fold((0.0, f64::INFINITY), |(e, d), &(pe, pd)| (e + pe, d.min(pd)))
}

/// Barrier gradient and PSD-projected Hessian per body pair, scaled by `scale` (h²κ).
pub fn barrier_terms(s: &Surfaces, x: &[[f64; 3]], pairs: &[Pair], groups: &[Group], dhat2: f64, scale: f64) -> Vec<GroupTerms> {
    groups
        .par_iter()
        .map(|g| {
            let mut t = GroupTerms::new(g.bodies);
            for p in &pairs[g.range.clone()] {
                let xs = stencil(x, &p.verts);
                let shape = PairShape { edge_edge: p.edge_edge, eps_x: p.eps_x };
                if let Some(d) = barrier::energy_dual(shape, &xs, dhat2) {
                    let mut h = d.h;
                    super::affine::project_psd(&mut h);
                    let gx: [f64; 12] = std::array::from_fn(|i| scale * d.g[i]);
                    for row in h.iter_mut() {
                        for v in row.iter_mut() {
                            *v *= scale;
                        }
                    }
                    t.scatter(s, &p.verts, &gx, &h);
                }
            }
            t
        })
        .collect()
}

/// Friction energy Σ μλ f0(|u|) (without h²).
pub fn friction_energy(x: &[[f64; 3]], xt: &[[f64; 3]], contacts: &[Contact], eps: f64) -> f64 {
    contacts.iter().map(|c| c.energy(x, xt, eps)).sum()
}

/// Friction gradient and Hessian, scaled by `scale` (h²), as terms of the contacts' body pairs (one entry per
/// contact, in order).
pub fn friction_terms(s: &Surfaces, x: &[[f64; 3]], xt: &[[f64; 3]], contacts: &[Contact], eps: f64, scale: f64) -> Vec<GroupTerms> {
    contacts
        .par_iter()
        .map(|c| {
            let b0 = s.vertex_body[c.verts[0] as usize];
            let b3 = s.vertex_body[c.verts[3] as usize];
            let mut t = GroupTerms::new([b0.min(b3), b0.max(b3)]);
            let (g, h) = c.derivatives(x, xt, eps);
            let gs: [f64; 12] = std::array::from_fn(|i| scale * g[i]);
            let hs: [[f64; 12]; 12] = std::array::from_fn(|i| std::array::from_fn(|j| scale * h[i][j]));
            t.scatter(s, &c.verts, &gs, &hs);
            t
        })
        .collect()
}
