//! Energies, gradients and Hessians of the incremental potential, mapped from surface points to body
//! coordinates contact-aware (source §4.3): a pair's 12×12 point Hessian becomes at most four 12×12 body blocks,
//! accumulated per body pair; body pairs are processed in parallel and merged in a fixed order.
//!
//! Point k of a stencil lies on body b_k with w_k = (x̄_k, 1), so x_k,r = Σ_j q_b[4r + j] w_k,j and
//! ∂/∂q_b[4r + j] = Σ_k w_k,j ∂/∂x_k,r: the map Jᵀ(·)J is a 4-vector outer product (affine.rs).

use super::barrier;
use super::counted::{counted, Term};
use super::culling::{Group, Pair};
use super::friction::Contact;
use super::local::{self, PairTerms};
use super::surface::Surfaces;
use super::system::Block;
use rayon::prelude::*;

/// A pair's stencil positions.
pub fn stencil(x: &[[f64; 3]], verts: &[u32; 4]) -> [[f64; 3]; 4] {
    std::array::from_fn(|k| x[verts[k] as usize])
}

/// Contributions of one body pair: gradient per side and the Hessian blocks (0,0), (0,1), (1,1), where side 0 is
/// `bodies[0]` (the smaller index). Sides that are not `active` (static bodies) get nothing.
#[derive(Clone)]
pub struct GroupTerms {
    pub bodies: [u32; 2],
    pub active: [bool; 2],
    pub g: [[f64; 12]; 2],
    pub h: [Block; 3],
    /// The barrier terms' energy Σ m·b(D) (unscaled; ∞ when a pair touches) and smallest squared distance, as
    /// [`barrier_energy`] sums them.
    pub energy: f64,
    pub dmin: f64,
}

impl GroupTerms {
    fn new(bodies: [u32; 2], moving: &[bool]) -> Self {
        let active = bodies.map(|b| moving[b as usize]);
        GroupTerms { bodies, active, g: [[0.0; 12]; 2], h: [[[0.0; 12]; 12]; 3], energy: 0.0, dmin: f64::INFINITY }
    }

    /// Completes the diagonal blocks from their upper triangles once every pair is in.
    fn finish(mut self) -> Self {
        for blk in [0, 2] {
            let h = &mut self.h[blk];
            for x in 0..12 {
                for y in 0..x {
                    h[x][y] = h[y][x];
                }
            }
        }
        self
    }

    /// Adds a pair's terms, given in its difference vectors (`local.rs`), scaled by `scale`. Row k of the local
    /// terms is y_k = Σ_s rows[k][s] x_s, and x_s = (I₃ ⊗ w_sᵀ) q of its body: on side σ, y_k has the 4-vector
    /// coefficient c_kσ = Σ_{s on σ} rows[k][s] w_s, so ∂y_k,r/∂q_σ[4r + j] = c_kσ[j]. The Hessian Σ_i s_i s_iᵀ
    /// maps to Σ_i S_σ,i S_σ′,iᵀ with S_σ,i[4r + j] = Σ_k c_kσ[j] s_i[3k + r].
    pub fn scatter(&mut self, s: &Surfaces, verts: &[u32; 4], local: &PairTerms, scale: f64) {
        let n = local.n;
        let mut c = [[[0.0f64; 4]; 2]; 3];
        for k in 0..n {
            for (slot, &v) in verts.iter().enumerate() {
                let coef = local.rows[k][slot];
                if coef == 0.0 {
                    continue;
                }
                let side = usize::from(s.vertex_body[v as usize] != self.bodies[0]);
                for j in 0..4 {
                    c[k][side][j] += coef * s.rest[v as usize][j];
                }
            }
        }
        for side in 0..2 {
            if !self.active[side] {
                continue;
            }
            for k in 0..n {
                for r in 0..3 {
                    let gk = scale * local.g[3 * k + r];
                    for j in 0..4 {
                        self.g[side][4 * r + j] += gk * c[k][side][j];
                    }
                }
            }
        }
        for (col, &sg) in local.s[..local.rank].iter().zip(&local.sign) {
            let mut sv = [[0.0f64; 12]; 2];
            for side in 0..2 {
                if !self.active[side] {
                    continue;
                }
                for k in 0..n {
                    for r in 0..3 {
                        let v = col[3 * k + r];
                        for j in 0..4 {
                            sv[side][4 * r + j] += v * c[k][side][j];
                        }
                    }
                }
            }
            for (blk, (sa, sb)) in [(0, (0, 0)), (1, (0, 1)), (2, (1, 1))] {
                if !(self.active[sa] && self.active[sb]) {
                    continue;
                }
                // the diagonal blocks only on and above the diagonal (`finish` mirrors them)
                let out = &mut self.h[blk];
                for x in 0..12 {
                    let a = sg * scale * sv[sa][x];
                    if a == 0.0 {
                        continue;
                    }
                    let from = if sa == sb { x } else { 0 };
                    for y in from..12 {
                        out[x][y] += a * sv[sb][y];
                    }
                }
            }
        }
    }
}

/// Barrier energy Σ m·b(D) over the pairs (without κ) and the smallest squared distance among the pairs within
/// D̂ (∞ when none is).
pub fn barrier_energy(x: &[[f64; 3]], pairs: &[Pair], groups: &[Group], dhat2: f64) -> (f64, f64) {
    let per: Vec<(f64, f64)> = groups
        .par_iter()
        .map(|g| {
            let mut terms = Vec::new();
            let dmin = counted(x, &pairs[g.range.clone()], g.range.start, dhat2, &mut terms);
            let e = terms.iter().map(|t| if t.d <= 0.0 { f64::INFINITY } else { barrier::energy_at(t.shape, &t.xs, t.d, dhat2) }).sum();
            (e, dmin)
        })
        .collect();
    sum_groups(per.into_iter())
}

/// Group energies and smallest distances folded in group order (energy and assembly fold them alike, so both
/// give the same bits).
pub fn sum_groups(per: impl Iterator<Item = (f64, f64)>) -> (f64, f64) {
    per.fold((0.0, f64::INFINITY), |(e, d), (pe, pd)| (e + pe, d.min(pd)))
}

/// Barrier gradient and Hessian per body pair, scaled by `scale` (h²κ), with the barrier energy and smallest
/// squared distance per body pair (unscaled, as [`barrier_energy`] gives them). Each pair's Hessian is exact when
/// `exact`, else projected to PSD (IPC's per-pair projection).
#[allow(clippy::too_many_arguments)]
pub fn barrier_terms(
    s: &Surfaces,
    x: &[[f64; 3]],
    pairs: &[Pair],
    groups: &[Group],
    moving: &[bool],
    dhat2: f64,
    scale: f64,
    exact: bool,
    lagged: Option<(&[GroupTerms], &[bool])>,
) -> Vec<GroupTerms> {
    groups
        .par_iter()
        .map(|g| {
            let mut t = GroupTerms::new(g.bodies, moving);
            // both bodies settled: the Hessian blocks of the last assembly, if it had this body pair
            let kept = lagged.and_then(|(prev, settled)| {
                let both = settled[g.bodies[0] as usize] && settled[g.bodies[1] as usize];
                both.then(|| prev.binary_search_by_key(&g.bodies, |p| p.bodies).ok().map(|i| &prev[i].h)).flatten()
            });
            let mut list = Vec::new();
            t.dmin = counted(x, &pairs[g.range.clone()], g.range.start, dhat2, &mut list);
            for &Term { pair, xs, shape, kind, d } in &list {
                if d <= 0.0 {
                    // touching: the energy is infinite and this point is rejected; no derivatives
                    t.energy = f64::INFINITY;
                    continue;
                }
                t.energy += barrier::energy_at(shape, &xs, d, dhat2);
                let terms = if kept.is_some() {
                    local::barrier_gradient_at
                } else if exact {
                    local::barrier_exact_at
                } else {
                    local::barrier_projected_at
                };
                t.scatter(s, &pairs[pair].verts, &terms(shape, &xs, kind, d, dhat2), scale);
            }
            if let Some(h) = kept {
                t.h = *h;
            }
            t.finish()
        })
        .collect()
}

/// Friction energy Σ λΦ(|u|) (without h²).
pub fn friction_energy(x: &[[f64; 3]], xt: &[[f64; 3]], contacts: &[Contact], eps: f64) -> f64 {
    contacts.iter().map(|c| c.energy(x, xt, eps)).sum()
}

/// Friction gradient and Hessian, scaled by `scale` (h²), as terms of the contacts' body pairs (one entry per
/// run of consecutive contacts between the same two bodies, in order).
pub fn friction_terms(
    s: &Surfaces,
    x: &[[f64; 3]],
    xt: &[[f64; 3]],
    contacts: &[Contact],
    moving: &[bool],
    eps: f64,
    scale: f64,
) -> Vec<GroupTerms> {
    let pair_of = |c: &Contact| {
        let b0 = s.vertex_body[c.verts[0] as usize];
        let b3 = s.vertex_body[c.verts[3] as usize];
        [b0.min(b3), b0.max(b3)]
    };
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for i in 0..contacts.len() {
        match runs.last_mut() {
            Some(r) if pair_of(&contacts[r.start]) == pair_of(&contacts[i]) => r.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    runs.par_iter()
        .map(|r| {
            let mut t = GroupTerms::new(pair_of(&contacts[r.start]), moving);
            for c in &contacts[r.clone()] {
                t.scatter(s, &c.verts, &c.local(x, xt, eps).factored(), scale);
            }
            t.finish()
        })
        .collect()
}
