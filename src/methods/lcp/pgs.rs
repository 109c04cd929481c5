//! The projected Gauss-Seidel solver of `lcp`: the rows of a contact point, the sweeps and the merit θ.

use super::batch::Batches;
use super::{Rows, SBody};
use crate::collision::narrow::Contact;
use crate::dynamics::joint_block::{JRow, JointBlock, Vel};
use crate::math::Vec3;
use crate::state::State;

pub(super) fn lever_arms(c: &Contact, state: &State) -> (Vec3, Vec3) {
    let p = 0.5 * (c.point_a + c.point_b);
    (p - state.bodies[c.a].x, p - state.bodies[c.b].x)
}

/// One side's part of a point's 3 × 3 block of A = J M⁻¹ Jᵀ beyond its inverse mass: x_k·(I⁻¹ x_l) with
/// x_k = r × d_k, for (k, l) in `UPPER`; all 0 for a side that takes no impulse (fixed or frozen).
pub(super) type SideTerms = [f64; 6];

/// The entries (k, l), k ≤ l, of a point's block, in the order of `SideTerms`.
const UPPER: [(usize, usize); 6] = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)];

/// A side's terms for the first `K` rows (the others 0).
#[inline]
fn side_terms<const K: usize>(r: Vec3, dir: &[Vec3; 3], inv_i: &crate::math::Mat3) -> SideTerms {
    // plain loops: `array::map`'s closures stay calls
    let (mut x, mut i) = ([Vec3::ZERO; 3], [Vec3::ZERO; 3]);
    for k in 0..K {
        x[k] = r.cross(dir[k]);
        i[k] = *inv_i * x[k];
    }
    let mut t = [0.0; 6];
    for (j, &(k, l)) in UPPER.iter().enumerate() {
        if l < K {
            t[j] = x[k].dot(i[l]);
        }
    }
    t
}

/// The point's block from the sides' inverse masses `m` (summed) and terms: 1 / A_kk and A_01, A_02, A_12.
#[inline]
fn assemble<const K: usize>(m: f64, dir: &[Vec3; 3], ta: &SideTerms, tb: &SideTerms) -> ([f64; 3], [f64; 3]) {
    let mut a = [0.0; 6];
    for (j, &(k, l)) in UPPER.iter().enumerate() {
        if l < K {
            a[j] = m * dir[k].dot(dir[l]) + ta[j] + tb[j];
        }
    }
    let inv = |d: f64| if d > 1e-300 { 1.0 / d } else { 0.0 };
    ([inv(a[0]), inv(a[3]), inv(a[5])], [a[1], a[2], a[4]])
}

/// Builds the rows of contact `ci` from the bodies' current inverse masses (frozen bodies count as fixed): all
/// three (`K` = 3, friction along the contact's `tangents`: `tangent_basis` of its normal, computed once per
/// step), or the normal row only (`K` = 1, for the frictionless projection, whose friction rows are never swept:
/// their directions and entries of A are left 0; `tangents` is not read). Also returns the sides' terms (for
/// `layer_row`).
#[allow(clippy::too_many_arguments)]
pub(super) fn make_rows<const K: usize>(
    ci: usize,
    c: &Contact,
    tangents: (Vec3, Vec3),
    state: &State,
    bodies: &[SBody],
    frozen: &[bool],
    mu: f64,
) -> (Rows, [SideTerms; 2]) {
    let (ra, rb) = lever_arms(c, state);
    let dir = if K == 3 { [c.normal, tangents.0, tangents.1] } else { [c.normal, Vec3::ZERO, Vec3::ZERO] };
    let (ba, bb) = (&bodies[c.a], &bodies[c.b]);
    // a frozen side takes no impulse: no inverse mass, no terms (not formed: a layer's lower bodies are most of
    // its sides)
    let (inv_ma, ta) = if frozen[c.a] { (0.0, [0.0; 6]) } else { (ba.inv_m, side_terms::<K>(ra, &dir, &ba.inv_i)) };
    let (inv_mb, tb) = if frozen[c.b] { (0.0, [0.0; 6]) } else { (bb.inv_m, side_terms::<K>(rb, &dir, &bb.inv_i)) };
    let (inv_diag, off) = assemble::<K>(inv_ma + inv_mb, &dir, &ta, &tb);
    let rows = Rows {
        a: c.a as u32,
        b: c.b as u32,
        ra,
        rb,
        dir,
        bias: 0.0,
        inv_ma,
        inv_mb,
        inv_diag,
        lambda: [0.0; 3],
        off,
        mu,
        contact: ci as u32,
    };
    (rows, [ta, tb])
}

/// The rows of a contact for a layer of shock propagation, from its dynamics-pass rows `r` and side terms:
/// the same rows where neither side is frozen (a free body has not moved since); a frozen side gets its current
/// lever arm (it has been advanced), no inverse mass and no terms, and the block is assembled again from the
/// free side's terms. The same rows as `make_rows` would build, without forming the free side's terms again.
pub(super) fn layer_row(mut r: Rows, terms: &[SideTerms; 2], c: &Contact, state: &State, frozen: &[bool]) -> Rows {
    let (fa, fb) = (frozen[c.a], frozen[c.b]);
    if fa || fb {
        let (ra, rb) = lever_arms(c, state);
        let zero = [0.0; 6];
        let (ta, tb) = (if fa { &zero } else { &terms[0] }, if fb { &zero } else { &terms[1] });
        if fa {
            (r.ra, r.inv_ma) = (ra, 0.0);
        }
        if fb {
            (r.rb, r.inv_mb) = (rb, 0.0);
        }
        (r.inv_diag, r.off) = assemble::<3>(r.inv_ma + r.inv_mb, &r.dir, ta, tb);
    }
    r
}

/// Applies the impulse `p` (world frame, on body b; −p on body a) at the point to the bodies.
#[inline(always)]
fn apply(r: &Rows, p: Vec3, masses: &[SBody], ba: &mut Vel, bb: &mut Vel) {
    if r.inv_ma > 0.0 {
        ba.v -= p * r.inv_ma;
        ba.w -= masses[r.a as usize].inv_i * r.ra.cross(p);
    }
    if r.inv_mb > 0.0 {
        bb.v += p * r.inv_mb;
        bb.w += masses[r.b as usize].inv_i * r.rb.cross(p);
    }
}

/// Applies the rows' current impulses to the bodies (warm start).
pub(super) fn warm(rows: &[Rows], masses: &[SBody], bodies: &mut [Vel], friction: bool) {
    for r in rows {
        let (a, b) = (r.a as usize, r.b as usize);
        let (mut ba, mut bb) = (bodies[a], bodies[b]);
        let mut p = r.dir[0] * r.lambda[0];
        if friction {
            p += r.dir[1] * r.lambda[1] + r.dir[2] * r.lambda[2];
        }
        apply(r, p, masses, &mut ba, &mut bb);
        bodies[a] = ba;
        bodies[b] = bb;
    }
}

/// Applies the joint rows' current impulses to the bodies (warm start).
pub(super) fn warm_joints(rows: &[JRow], bodies: &mut [Vel]) {
    for r in rows {
        let (a, b) = (r.a as usize, r.b as usize);
        let (mut ba, mut bb) = (bodies[a], bodies[b]);
        r.apply(r.lambda, &mut ba, &mut bb);
        bodies[a] = ba;
        bodies[b] = bb;
    }
}

/// One projected Gauss-Seidel sweep over the joint rows outside the block (limits, motors):
/// λ ← clamp(λ − (J u + bias + γλ)/(A_ii + γ), lo, hi).
fn sweep_joints(rows: &mut [JRow], bodies: &mut [Vel]) -> (f64, f64) {
    let (mut change, mut size) = (0.0f64, 0.0f64);
    for r in rows.iter_mut() {
        if r.gamma == 0.0 && r.lo == f64::NEG_INFINITY && r.hi == f64::INFINITY {
            continue;
        }
        let (a, b) = (r.a as usize, r.b as usize);
        let (mut ba, mut bb) = (bodies[a], bodies[b]);
        let w = r.jv(&ba, &bb) + r.bias + r.gamma * r.lambda;
        let new = (r.lambda - w * r.inv_diag).clamp(r.lo, r.hi);
        let d = new - r.lambda;
        r.lambda = new;
        change = change.max(d.abs());
        size = size.max(new.abs());
        r.apply(d, &mut ba, &mut bb);
        bodies[a] = ba;
        bodies[b] = bb;
    }
    (change, size)
}

/// `x.clamp(−hi, hi)` written out: the same value for hi ≥ 0 (batch.rs repeats it lane by lane), and no panic
/// where hi is NaN (0·∞ in a state that has gone non-finite: the stage's finite check then names the body).
#[inline(always)]
pub(super) fn clamp_sym(x: f64, hi: f64) -> f64 {
    let x = if x < -hi { -hi } else { x };
    if x > hi {
        hi
    } else {
        x
    }
}

/// The larger of two values that are not NaN: f64::max written out (batch.rs repeats it lane by lane).
#[inline(always)]
pub(super) fn larger(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// One projected Gauss-Seidel sweep over the points: per point the normal row, then its friction rows bounded
/// by ±μλn. Returns the largest change of an impulse and the largest impulse.
///
/// Within a point the rows see each other's updates through the point's block of A (w_l += A_lk Δλ_k), which
/// is what recomputing J u after applying each row would give, and the bodies take the point's three impulse
/// changes together. A point whose impulses do not change applies nothing, and the friction rows of a point
/// with no normal and no friction impulse are skipped: their bound is 0, so they would stay 0. Speculative
/// contacts (a gap inside the margin) are mostly such points, a quarter to a half of a resting stack's.
pub(super) fn sweep(rows: &mut [Rows], masses: &[SBody], bodies: &mut [Vel], friction: bool) -> (f64, f64) {
    let (mut change, mut size) = (0.0f64, 0.0f64);
    for r in rows.iter_mut() {
        let (a, b) = (r.a as usize, r.b as usize);
        let (mut ba, mut bb) = (bodies[a], bodies[b]);
        let u = r.rel(&ba, &bb);
        // max(x, 0) written out (f64::max leaves the sign of max(−0, 0) open; batch.rs repeats this exactly)
        let x = r.lambda[0] - (r.dir[0].dot(u) + r.bias) * r.inv_diag[0];
        let new = if x > 0.0 { x } else { 0.0 };
        let d0 = new - r.lambda[0];
        r.lambda[0] = new;
        change = larger(change, d0.abs());
        size = larger(size, new);
        let (mut d1, mut d2) = (0.0, 0.0);
        if friction && (new != 0.0 || r.lambda[1] != 0.0 || r.lambda[2] != 0.0) {
            let hi = r.mu * new;
            let w1 = r.dir[1].dot(u) + r.off[0] * d0;
            let new1 = clamp_sym(r.lambda[1] - w1 * r.inv_diag[1], hi);
            d1 = new1 - r.lambda[1];
            r.lambda[1] = new1;
            let w2 = r.dir[2].dot(u) + r.off[1] * d0 + r.off[2] * d1;
            let new2 = clamp_sym(r.lambda[2] - w2 * r.inv_diag[2], hi);
            d2 = new2 - r.lambda[2];
            r.lambda[2] = new2;
            change = larger(larger(change, d1.abs()), d2.abs());
        }
        if d0 != 0.0 || d1 != 0.0 || d2 != 0.0 {
            apply(r, r.dir[0] * d0 + r.dir[1] * d1 + r.dir[2] * d2, masses, &mut ba, &mut bb);
            bodies[a] = ba;
            bodies[b] = bb;
        }
    }
    (change, size)
}

/// The workspace a solve reuses: the factored block of the joints' bilateral rows and the contact batches.
#[derive(Debug, Default)]
pub(super) struct SolveWork {
    pub(super) block: JointBlock,
    pub(super) batches: Batches,
}

/// Runs up to `iterations` sweeps (contact rows, four independent points at a time where they batch well:
/// batch.rs; the joints' limit and motor rows; then the block of the joints' bilateral rows solved exactly:
/// block.rs), the first `normal_sweeps` without friction, and stops early once no impulse changed by more than
/// `tolerance` times the largest impulse. Returns the sweeps done.
pub(super) fn solve(
    rows: &mut [Rows],
    (joints, work): (&mut [JRow], &mut SolveWork),
    masses: &[SBody],
    bodies: &mut [Vel],
    iterations: usize,
    normal_sweeps: usize,
    tolerance: f64,
) -> usize {
    let SolveWork { block, batches } = work;
    if !joints.is_empty() {
        block.build(joints);
    }
    batches.load(rows, masses);
    let mut done = iterations;
    for k in 0..iterations {
        let (mut change, mut size) = batches.sweep(rows, masses, bodies, k >= normal_sweeps);
        if !joints.is_empty() {
            for (c, s) in [sweep_joints(joints, bodies), block.solve(joints, bodies)] {
                change = change.max(c);
                size = size.max(s);
            }
        }
        // friction's sweeps must have begun before a stop, unless the solve has none (usize::MAX)
        if (k >= normal_sweeps || normal_sweeps == usize::MAX) && change <= tolerance * size {
            done = k + 1;
            break;
        }
    }
    batches.store(rows);
    done
}

/// The merit θ = ½ Σ H_i² with H_i = λ_i − clamp(λ_i − w_i, lo_i, hi_i), over contact and joint rows.
pub(super) fn merit(rows: &[Rows], joints: &[JRow], bodies: &[Vel]) -> f64 {
    let mut theta = 0.0;
    for r in joints {
        let w = r.jv(&bodies[r.a as usize], &bodies[r.b as usize]) + r.bias + r.gamma * r.lambda;
        let h = r.lambda - (r.lambda - w).clamp(r.lo, r.hi);
        theta += h * h;
    }
    for r in rows {
        let u = r.rel(&bodies[r.a as usize], &bodies[r.b as usize]);
        let w = r.dir[0].dot(u) + r.bias;
        let h = r.lambda[0] - (r.lambda[0] - w).max(0.0);
        theta += h * h;
        let hi = r.mu * r.lambda[0];
        for k in 1..3 {
            let w = r.dir[k].dot(u);
            let h = r.lambda[k] - clamp_sym(r.lambda[k] - w, hi);
            theta += h * h;
        }
    }
    0.5 * theta
}
