//! The projected Gauss-Seidel solver of `lcp`: the rows of a contact point, the sweeps and the merit θ.

use super::block::JointBlock;
use super::joints::JRow;
use super::{Rows, SBody, Vel};
use crate::collision::narrow::Contact;
use crate::math::{tangent_basis, Vec3};
use crate::state::State;

pub(super) fn lever_arms(c: &Contact, state: &State) -> (Vec3, Vec3) {
    let p = 0.5 * (c.point_a + c.point_b);
    (p - state.bodies[c.a].x, p - state.bodies[c.b].x)
}

/// Builds the rows of contact `ci` from the bodies' current inverse masses (frozen bodies count as fixed).
pub(super) fn make_rows(ci: usize, c: &Contact, state: &State, bodies: &[SBody], frozen: &[bool], mu: f64) -> Rows {
    let (ra, rb) = lever_arms(c, state);
    let (t1, t2) = tangent_basis(c.normal);
    let dir = [c.normal, t1, t2];
    let fa = if frozen[c.a] { 0.0 } else { 1.0 };
    let fb = if frozen[c.b] { 0.0 } else { 1.0 };
    let (ba, bb) = (&bodies[c.a], &bodies[c.b]);
    let mut r = Rows {
        a: c.a as u32,
        b: c.b as u32,
        contact: ci as u32,
        dir,
        ra_x: [Vec3::ZERO; 3],
        rb_x: [Vec3::ZERO; 3],
        ia: [Vec3::ZERO; 3],
        ib: [Vec3::ZERO; 3],
        inv_ma: ba.inv_m * fa,
        inv_mb: bb.inv_m * fb,
        inv_diag: [0.0; 3],
        bias: 0.0,
        mu,
        lambda: [0.0; 3],
    };
    for k in 0..3 {
        r.ra_x[k] = ra.cross(dir[k]);
        r.rb_x[k] = rb.cross(dir[k]);
        r.ia[k] = (ba.inv_i * r.ra_x[k]) * fa;
        r.ib[k] = (bb.inv_i * r.rb_x[k]) * fb;
        let d = r.inv_ma + r.inv_mb + r.ra_x[k].dot(r.ia[k]) + r.rb_x[k].dot(r.ib[k]);
        r.inv_diag[k] = if d > 1e-300 { 1.0 / d } else { 0.0 };
    }
    r
}

#[inline]
fn apply(r: &Rows, k: usize, d: f64, ba: &mut Vel, bb: &mut Vel) {
    ba.v -= r.dir[k] * (r.inv_ma * d);
    ba.w -= r.ia[k] * d;
    bb.v += r.dir[k] * (r.inv_mb * d);
    bb.w += r.ib[k] * d;
}

/// Applies the rows' current impulses to the bodies (warm start).
pub(super) fn warm(rows: &[Rows], bodies: &mut [Vel], friction: bool) {
    for r in rows {
        let (a, b) = (r.a as usize, r.b as usize);
        let (mut ba, mut bb) = (bodies[a], bodies[b]);
        let kmax = if friction { 3 } else { 1 };
        for k in 0..kmax {
            apply(r, k, r.lambda[k], &mut ba, &mut bb);
        }
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

/// One projected Gauss-Seidel sweep over the rows (normal row, then its friction rows bounded by ±μλn).
/// Returns the largest change of an impulse and the largest impulse.
fn sweep(rows: &mut [Rows], bodies: &mut [Vel], friction: bool) -> (f64, f64) {
    let (mut change, mut size) = (0.0f64, 0.0f64);
    for r in rows.iter_mut() {
        let (a, b) = (r.a as usize, r.b as usize);
        let (mut ba, mut bb) = (bodies[a], bodies[b]);
        let w = r.jv(0, &ba, &bb) + r.bias;
        let new = (r.lambda[0] - w * r.inv_diag[0]).max(0.0);
        let d = new - r.lambda[0];
        r.lambda[0] = new;
        change = change.max(d.abs());
        size = size.max(new);
        apply(r, 0, d, &mut ba, &mut bb);
        if friction {
            let hi = r.mu * r.lambda[0];
            for k in 1..3 {
                let w = r.jv(k, &ba, &bb);
                let new = (r.lambda[k] - w * r.inv_diag[k]).clamp(-hi, hi);
                let d = new - r.lambda[k];
                r.lambda[k] = new;
                change = change.max(d.abs());
                apply(r, k, d, &mut ba, &mut bb);
            }
        }
        bodies[a] = ba;
        bodies[b] = bb;
    }
    (change, size)
}

/// Runs up to `iterations` sweeps (contact rows, the joints' limit and motor rows, then the block of the joints'
/// bilateral rows solved exactly: block.rs), the first `normal_sweeps` without friction, and stops early once
/// no impulse changed by more than `tolerance` times the largest impulse. Returns the sweeps done.
pub(super) fn solve(
    rows: &mut [Rows],
    (joints, block): (&mut [JRow], &mut JointBlock),
    bodies: &mut [Vel],
    iterations: usize,
    normal_sweeps: usize,
    tolerance: f64,
) -> usize {
    if !joints.is_empty() {
        block.build(joints);
    }
    for k in 0..iterations {
        let (mut change, mut size) = sweep(rows, bodies, k >= normal_sweeps);
        if !joints.is_empty() {
            for (c, s) in [sweep_joints(joints, bodies), block.solve(joints, bodies)] {
                change = change.max(c);
                size = size.max(s);
            }
        }
        if k >= normal_sweeps && change <= tolerance * size {
            return k + 1;
        }
    }
    iterations
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
        let (ba, bb) = (&bodies[r.a as usize], &bodies[r.b as usize]);
        let w = r.jv(0, ba, bb) + r.bias;
        let h = r.lambda[0] - (r.lambda[0] - w).max(0.0);
        theta += h * h;
        let hi = r.mu * r.lambda[0];
        for k in 1..3 {
            let w = r.jv(k, ba, bb);
            let h = r.lambda[k] - (r.lambda[k] - w).clamp(-hi, hi);
            theta += h * h;
        }
    }
    0.5 * theta
}
