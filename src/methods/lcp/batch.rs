//! The contact rows of a solve in batches of four independent points, swept four at a time (SIMD), with the
//! same result, bit for bit, as the sequential sweep of pgs.rs: points that share no movable body commute, and
//! each lane runs the scalar sweep's operations in its order. Chosen at run time where the processor has AVX2,
//! and only where the batches fill. See docs/methods/lcp.md, "Batched sweeps".

// the batched sweep runs on x86-64 only (AVX2); elsewhere its code stays unused
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code, unused_imports))]

use super::lanes::{mat_vec, Lane, A4, V4};
use super::pgs::{larger, sweep as scalar_sweep};
use super::{Rows, SBody};
use crate::dynamics::joint_block::Vel;

/// Lanes per batch.
const L: usize = 4;
/// Batches searched for a free lane past a point's earliest batch before a new one is opened.
const WINDOW: usize = 16;
/// The batched sweep is used when the rows fill at least this share of the batches' lanes.
const MIN_FILL: f64 = 0.5;

/// Four points' rows, lane by lane (the fields of `Rows` a sweep reads and writes; vectors as x, y, z).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Lanes {
    a: [u32; L],
    b: [u32; L],
    ra: [A4; 3],
    rb: [A4; 3],
    dir: [[A4; 3]; 3],
    bias: A4,
    inv_ma: A4,
    inv_mb: A4,
    inv_diag: [A4; 3],
    lambda: [A4; 3],
    off: [A4; 3],
    mu: A4,
}

/// The batches of one solve and the rows each lane holds.
#[derive(Debug, Default)]
pub(super) struct Batches {
    lanes: Vec<Lanes>,
    /// Per batch: the rows' indices in its lanes (`u32::MAX`: an empty lane) and how many lanes are used.
    rows: Vec<[u32; L]>,
    fill: Vec<u8>,
    /// Per body: one past the last batch that moves it (0: none yet).
    last: Vec<u32>,
    /// Whether the current solve is batched (else the scalar sweep runs on the rows), and its rows.
    on: bool,
    loaded: usize,
    /// Batch whatever the fill; never batch (tests).
    pub(super) force: bool,
    pub(super) off: bool,
}

impl Batches {
    /// Schedules `rows` (their warm-start impulses included) for a solve over the bodies `masses`. Returns
    /// whether the batched sweep will run.
    pub(super) fn load(&mut self, rows: &[Rows], masses: &[SBody]) -> bool {
        self.on = false;
        self.loaded = rows.len();
        if self.off || !lanes_available() {
            return false;
        }
        self.rows.clear();
        self.fill.clear();
        self.last.clear();
        self.last.resize(masses.len(), 0);
        let mut open = 0usize;
        for (i, r) in rows.iter().enumerate() {
            let (a, b) = (r.a as usize, r.b as usize);
            let (ma, mb) = (r.inv_ma > 0.0, r.inv_mb > 0.0);
            let mut earliest = 0usize;
            if ma {
                earliest = self.last[a] as usize;
            }
            if mb {
                earliest = earliest.max(self.last[b] as usize);
            }
            let from = earliest.max(open);
            let to = (from + WINDOW).min(self.fill.len());
            let j = (from..to).find(|&j| (self.fill[j] as usize) < L).unwrap_or_else(|| {
                self.rows.push([u32::MAX; L]);
                self.fill.push(0);
                self.fill.len() - 1
            });
            self.rows[j][self.fill[j] as usize] = i as u32;
            self.fill[j] += 1;
            if ma {
                self.last[a] = j as u32 + 1;
            }
            if mb {
                self.last[b] = j as u32 + 1;
            }
            while open < self.fill.len() && (self.fill[open] as usize == L || open + WINDOW < self.fill.len()) {
                open += 1;
            }
        }
        self.on = self.force || rows.len() as f64 >= MIN_FILL * (L * self.fill.len()) as f64;
        if self.on {
            self.pack(rows);
        }
        self.on
    }

    fn pack(&mut self, rows: &[Rows]) {
        self.lanes.clear();
        for (idx, &fill) in self.rows.iter().zip(&self.fill) {
            // an empty lane stays zero: it reads body 0's velocities (rows exist, so bodies do), moves nothing
            // (its inverse masses are 0) and is never written back
            self.lanes.push(Lanes::default());
            let s = self.lanes.last_mut().expect("just pushed");
            for (l, &i) in idx.iter().enumerate().take(fill as usize) {
                let r = &rows[i as usize];
                s.a[l] = r.a;
                s.b[l] = r.b;
                for k in 0..3 {
                    s.ra[k][l] = r.ra[k];
                    s.rb[k][l] = r.rb[k];
                    for d in 0..3 {
                        s.dir[d][k][l] = r.dir[d][k];
                    }
                    s.inv_diag[k][l] = r.inv_diag[k];
                    s.lambda[k][l] = r.lambda[k];
                    s.off[k][l] = r.off[k];
                }
                s.bias[l] = r.bias;
                s.inv_ma[l] = r.inv_ma;
                s.inv_mb[l] = r.inv_mb;
                s.mu[l] = r.mu;
            }
        }
    }

    /// The rows of each batch, in sweep order (tests).
    #[cfg(test)]
    pub(super) fn schedule(&self) -> Vec<Vec<u32>> {
        self.rows.iter().zip(&self.fill).map(|(r, &f)| r[..f as usize].to_vec()).collect()
    }

    /// Writes the impulses back into the rows.
    pub(super) fn store(&self, rows: &mut [Rows]) {
        if !self.on {
            return;
        }
        for ((s, idx), &fill) in self.lanes.iter().zip(&self.rows).zip(&self.fill) {
            for (l, &i) in idx.iter().enumerate().take(fill as usize) {
                rows[i as usize].lambda = [s.lambda[0][l], s.lambda[1][l], s.lambda[2][l]];
            }
        }
    }

    /// One sweep, the same as pgs.rs's `sweep` over the rows in their order: the largest change of an impulse
    /// and the largest impulse. The rows' impulses are the batches' until `store`.
    pub(super) fn sweep(&mut self, rows: &mut [Rows], masses: &[SBody], bodies: &mut [Vel], friction: bool) -> (f64, f64) {
        debug_assert_eq!(rows.len(), self.loaded, "the rows swept are the rows loaded");
        if !self.on {
            return scalar_sweep(rows, masses, bodies, friction);
        }
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `on` implies that the processor has AVX2 (`load`), the only requirement of `sweep_avx2`.
            unsafe { sweep_avx2(&mut self.lanes, &self.fill, masses, bodies, friction) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("no lanes without AVX2: `load` keeps the scalar sweep")
    }
}

/// Whether the processor has the lanes' instructions (AVX2).
pub(super) fn lanes_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sweep_avx2(lanes: &mut [Lanes], fill: &[u8], masses: &[SBody], bodies: &mut [Vel], friction: bool) -> (f64, f64) {
    // SAFETY: this function has AVX2 enabled, and is only called where the processor has it.
    unsafe { sweep_lanes::<super::lanes::Avx>(lanes, fill, masses, bodies, friction) }
}

/// Gathers the velocities of the lanes' bodies on one side.
#[inline(always)]
fn gather<T: Lane>(idx: &[u32; L], bodies: &[[f64; 6]]) -> (V4<T>, V4<T>) {
    let [vx, vy, vz, wx, wy, wz] = T::gather6(bodies, idx);
    (V4 { x: vx, y: vy, z: vz }, V4 { x: wx, y: wy, z: wz })
}

/// Gathers the world inverse inertias of the lanes' bodies on one side, column by column.
#[inline(always)]
fn inertia<T: Lane>(masses: &[[f64; 10]], idx: &[u32; L]) -> [V4<T>; 3] {
    let [a, b, c, d, e, f, g, h, i] = T::gather9(masses, idx);
    [V4 { x: a, y: b, z: c }, V4 { x: d, y: e, z: f }, V4 { x: g, y: h, z: i }]
}

#[inline(always)]
fn scatter<T: Lane>(idx: &[u32; L], fill: usize, v: V4<T>, w: V4<T>, bodies: &mut [[f64; 6]]) {
    T::scatter6([v.x, v.y, v.z, w.x, w.y, w.z], bodies, idx, fill);
}

/// The sweep over the batches: pgs.rs's `sweep`, four lanes at a time.
///
/// # Safety
/// The processor must have the instructions of `T`'s operations (`Avx`: AVX), and they must be enabled where
/// this is inlined: `Lane`'s operations are safe functions that execute them unchecked, so a `T` may only be
/// made and used inside this function.
#[inline(always)]
unsafe fn sweep_lanes<T: Lane>(lanes: &mut [Lanes], fill: &[u8], masses: &[SBody], bodies: &mut [Vel], friction: bool) -> (f64, f64) {
    let (masses, bodies) = (SBody::flat(masses), Vel::flat(bodies));
    let zero = T::splat(0.0);
    let (mut change, mut size) = (zero, zero);
    for (s, &n) in lanes.iter_mut().zip(fill) {
        let (va, wa) = gather::<T>(&s.a, bodies);
        let (vb, wb) = gather::<T>(&s.b, bodies);
        let (ra, rb) = (V4::<T>::load(&s.ra), V4::<T>::load(&s.rb));
        let dir = [V4::<T>::load(&s.dir[0]), V4::load(&s.dir[1]), V4::load(&s.dir[2])];
        let inv_diag = [T::load(&s.inv_diag[0]), T::load(&s.inv_diag[1]), T::load(&s.inv_diag[2])];
        let off = [T::load(&s.off[0]), T::load(&s.off[1]), T::load(&s.off[2])];
        let lambda = [T::load(&s.lambda[0]), T::load(&s.lambda[1]), T::load(&s.lambda[2])];
        let u = vb.add(wb.cross(rb)).sub(va.add(wa.cross(ra)));
        let x = lambda[0] - (dir[0].dot(u) + T::load(&s.bias)) * inv_diag[0];
        let new = T::select(x.gt(zero), x, zero);
        let d0 = new - lambda[0];
        s.lambda[0] = new.store();
        change = change.larger(d0.abs());
        size = size.larger(new);
        let (mut d1, mut d2) = (zero, zero);
        let live = new.ne0().or(lambda[1].ne0()).or(lambda[2].ne0());
        // a lane with no normal and no friction impulse keeps its friction rows at 0 (their bound is 0)
        if friction && !live.none() {
            let hi = T::load(&s.mu) * new;
            let w1 = dir[1].dot(u) + off[0] * d0;
            let new1 = (lambda[1] - w1 * inv_diag[1]).clamp_sym(hi);
            let e1 = T::select(live, new1 - lambda[1], zero);
            s.lambda[1] = T::select(live, new1, lambda[1]).store();
            let w2 = dir[2].dot(u) + off[1] * d0 + off[2] * e1;
            let new2 = (lambda[2] - w2 * inv_diag[2]).clamp_sym(hi);
            let e2 = T::select(live, new2 - lambda[2], zero);
            s.lambda[2] = T::select(live, new2, lambda[2]).store();
            change = change.larger(e1.abs()).larger(e2.abs());
            (d1, d2) = (e1, e2);
        }
        let moved = d0.ne0().or(d1.ne0()).or(d2.ne0());
        if moved.none() {
            continue; // no lane's impulses changed (speculative contacts, mostly): the bodies keep their velocities
        }
        let p = dir[0].scale(d0).add(dir[1].scale(d1)).add(dir[2].scale(d2));
        let (inv_ma, inv_mb) = (T::load(&s.inv_ma), T::load(&s.inv_mb));
        let (on_a, on_b) = (moved.and(inv_ma.gt(zero)), moved.and(inv_mb.gt(zero)));
        let (ia, ib) = (inertia::<T>(masses, &s.a), inertia::<T>(masses, &s.b));
        let va = V4::select(on_a, va.sub(p.scale(inv_ma)), va);
        let wa = V4::select(on_a, wa.sub(mat_vec(&ia, ra.cross(p))), wa);
        let vb = V4::select(on_b, vb.add(p.scale(inv_mb)), vb);
        let wb = V4::select(on_b, wb.add(mat_vec(&ib, rb.cross(p))), wb);
        scatter(&s.a, n as usize, va, wa, bodies);
        scatter(&s.b, n as usize, vb, wb, bodies);
    }
    let (c, z) = (change.store(), size.store());
    (larger(larger(larger(c[0], c[1]), c[2]), c[3]), larger(larger(larger(z[0], z[1]), z[2]), z[3]))
}
