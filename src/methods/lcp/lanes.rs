//! Four f64 lanes for the batched sweep (batch.rs): the operations it needs, each the IEEE operation of the
//! scalar sweep lane by lane (no fused multiply-add, selections and comparisons exact), so that every
//! implementation gives the same bits as the scalar sweep.
//!
//! One implementation so far, `Avx` on x86-64, in the copy of the sweep compiled with AVX2 and chosen at run
//! time; everything here must be inlined into that sweep, or its intrinsics become calls. Another instruction set
//! (NEON) would be another implementation of `Lane`. See docs/methods/lcp.md, "Batched sweeps".

// the batched sweep runs on x86-64 only (AVX2); elsewhere its code stays unused
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code, unused_imports))]

use std::ops::{Add, Mul, Sub};

/// Four values in memory, one per lane.
pub(super) type A4 = [f64; 4];

/// Four f64 lanes. A mask is a value of the same type with all bits set (true) or clear (false) per lane.
///
/// The operations are safe functions, but an implementation may execute instructions the processor does not
/// have (`Avx`): values are made and used only inside `batch::sweep_lanes`, an `unsafe fn` whose callers
/// guarantee the instructions.
pub(super) trait Lane: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> {
    fn splat(x: f64) -> Self;
    fn load(x: &A4) -> Self;
    fn store(self) -> A4;
    /// Per lane: `if m { t } else { f }`.
    fn select(m: Self, t: Self, f: Self) -> Self;
    fn lt(self, o: Self) -> Self;
    fn gt(self, o: Self) -> Self;
    /// `x != 0.0` (true for NaN, as in Rust).
    fn ne0(self) -> Self;
    fn or(self, o: Self) -> Self;
    /// Whether no lane of a mask is set.
    fn none(self) -> bool;
    fn and(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    /// The six values of the rows `idx` of `rows`, lane l from row `idx[l]`.
    fn gather6(rows: &[[f64; 6]], idx: &[u32; 4]) -> [Self; 6];
    /// Values 1..10 of the rows `idx` of `rows` (a solver body's inverse inertia, column by column).
    fn gather9(rows: &[[f64; 10]], idx: &[u32; 4]) -> [Self; 9];
    /// Writes lane l of the six values to row `idx[l]` of `rows`, for the first `fill` lanes.
    fn scatter6(c: [Self; 6], rows: &mut [[f64; 6]], idx: &[u32; 4], fill: usize);

    /// f64::clamp(−hi, hi) per lane: `if x < −hi { −hi }`, then `if x > hi { hi }`.
    #[inline(always)]
    fn clamp_sym(self, hi: Self) -> Self {
        let lo = hi.neg();
        let x = Self::select(self.lt(lo), lo, self);
        Self::select(x.gt(hi), hi, x)
    }
    /// pgs.rs's `larger` per lane: `if o > x { o } else { x }`.
    #[inline(always)]
    fn larger(self, o: Self) -> Self {
        Self::select(o.gt(self), o, self)
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use avx::Avx;

#[cfg(target_arch = "x86_64")]
mod avx {
    //! The AVX lanes. Every intrinsic needs AVX, which these functions do not enable themselves: they are
    //! always inlined, and only into `batch::sweep_avx2`, which has AVX2 enabled and runs only where the
    //! processor has it (checked by `is_x86_feature_detected!`). That is the safety argument of each `unsafe`
    //! block below.
    use super::{Lane, A4};
    use std::arch::x86_64::*;
    use std::ops::{Add, Mul, Sub};

    /// Four f64 lanes in one AVX register.
    #[derive(Clone, Copy)]
    pub(in crate::methods::lcp) struct Avx(__m256d);

    macro_rules! binary {
        ($trait:ident, $f:ident, $intr:ident) => {
            impl $trait for Avx {
                type Output = Avx;
                #[inline(always)]
                fn $f(self, o: Avx) -> Avx {
                    // SAFETY: see the module documentation.
                    Avx(unsafe { $intr(self.0, o.0) })
                }
            }
        };
    }
    binary!(Add, add, _mm256_add_pd);
    binary!(Sub, sub, _mm256_sub_pd);
    binary!(Mul, mul, _mm256_mul_pd);

    impl Lane for Avx {
        #[inline(always)]
        fn splat(x: f64) -> Self {
            // SAFETY: see the module documentation.
            Avx(unsafe { _mm256_set1_pd(x) })
        }
        #[inline(always)]
        fn load(x: &A4) -> Self {
            // SAFETY: see the module documentation; `x` is four readable f64 (no alignment needed).
            Avx(unsafe { _mm256_loadu_pd(x.as_ptr()) })
        }
        #[inline(always)]
        fn store(self) -> A4 {
            let mut a = [0.0; 4];
            // SAFETY: see the module documentation; `a` is four writable f64.
            unsafe { _mm256_storeu_pd(a.as_mut_ptr(), self.0) };
            a
        }
        #[inline(always)]
        fn select(m: Self, t: Self, f: Self) -> Self {
            // SAFETY: see the module documentation.
            Avx(unsafe { _mm256_blendv_pd(f.0, t.0, m.0) })
        }
        #[inline(always)]
        fn lt(self, o: Self) -> Self {
            // SAFETY: see the module documentation.
            Avx(unsafe { _mm256_cmp_pd::<_CMP_LT_OQ>(self.0, o.0) })
        }
        #[inline(always)]
        fn gt(self, o: Self) -> Self {
            // SAFETY: see the module documentation.
            Avx(unsafe { _mm256_cmp_pd::<_CMP_GT_OQ>(self.0, o.0) })
        }
        #[inline(always)]
        fn ne0(self) -> Self {
            // SAFETY: see the module documentation.
            Avx(unsafe { _mm256_cmp_pd::<_CMP_NEQ_UQ>(self.0, _mm256_setzero_pd()) })
        }
        #[inline(always)]
        fn or(self, o: Self) -> Self {
            // SAFETY: see the module documentation.
            Avx(unsafe { _mm256_or_pd(self.0, o.0) })
        }
        #[inline(always)]
        fn none(self) -> bool {
            // SAFETY: see the module documentation.
            unsafe { _mm256_movemask_pd(self.0) == 0 }
        }
        #[inline(always)]
        fn and(self, o: Self) -> Self {
            // SAFETY: see the module documentation.
            Avx(unsafe { _mm256_and_pd(self.0, o.0) })
        }
        #[inline(always)]
        fn neg(self) -> Self {
            // SAFETY: see the module documentation.
            Avx(unsafe { _mm256_xor_pd(self.0, _mm256_set1_pd(-0.0)) })
        }
        #[inline(always)]
        fn abs(self) -> Self {
            // SAFETY: see the module documentation.
            Avx(unsafe { _mm256_andnot_pd(_mm256_set1_pd(-0.0), self.0) })
        }
        /// Four 256-bit loads (values 0..4 of each row) and a 4 × 4 transpose, and four 128-bit loads (values
        /// 4, 5) paired up.
        #[inline(always)]
        fn gather6(rows: &[[f64; 6]], idx: &[u32; 4]) -> [Self; 6] {
            let r = [&rows[idx[0] as usize], &rows[idx[1] as usize], &rows[idx[2] as usize], &rows[idx[3] as usize]];
            // SAFETY: see the module documentation; the loads read within rows of six f64 (0..4, 4..6).
            let ([c0, c1, c2, c3], [c4, c5]) = unsafe { (block4(r, 0), pair(r, 4)) };
            [c0, c1, c2, c3, c4, c5].map(Avx)
        }
        /// Values 1..4 of the first block of four, the second block (4..8) and the pair 8..10.
        #[inline(always)]
        fn gather9(rows: &[[f64; 10]], idx: &[u32; 4]) -> [Self; 9] {
            let r = [&rows[idx[0] as usize], &rows[idx[1] as usize], &rows[idx[2] as usize], &rows[idx[3] as usize]];
            // SAFETY: see the module documentation; the loads read within rows of ten f64 (0..4, 4..8, 8..10).
            let ([_, a1, a2, a3], [b0, b1, b2, b3], [c8, c9]) = unsafe { (block4(r, 0), block4(r, 4), pair(r, 8)) };
            [a1, a2, a3, b0, b1, b2, b3, c8, c9].map(Avx)
        }
        /// The inverse of `gather6`, storing the first `fill` rows.
        #[inline(always)]
        fn scatter6(c: [Self; 6], rows: &mut [[f64; 6]], idx: &[u32; 4], fill: usize) {
            // SAFETY: see the module documentation; each store writes within one row of six f64 (0..4, 4..6).
            unsafe {
                let h = transpose(c[0].0, c[1].0, c[2].0, c[3].0);
                let (ylo, yhi) = (_mm256_castpd256_pd128(c[4].0), _mm256_extractf128_pd::<1>(c[4].0));
                let (zlo, zhi) = (_mm256_castpd256_pd128(c[5].0), _mm256_extractf128_pd::<1>(c[5].0));
                let e = [_mm_unpacklo_pd(ylo, zlo), _mm_unpackhi_pd(ylo, zlo), _mm_unpacklo_pd(yhi, zhi), _mm_unpackhi_pd(yhi, zhi)];
                for l in 0..fill {
                    let row = &mut rows[idx[l] as usize];
                    _mm256_storeu_pd(row.as_mut_ptr(), h[l]);
                    _mm_storeu_pd(row[4..].as_mut_ptr(), e[l]);
                }
            }
        }
    }

    /// The 4 × 4 transpose: row l of the result holds value l of each input (and the converse).
    ///
    /// # Safety
    /// Needs AVX (see the module documentation).
    #[inline(always)]
    unsafe fn transpose(h0: __m256d, h1: __m256d, h2: __m256d, h3: __m256d) -> [__m256d; 4] {
        let (t0, t1) = (_mm256_unpacklo_pd(h0, h1), _mm256_unpackhi_pd(h0, h1));
        let (t2, t3) = (_mm256_unpacklo_pd(h2, h3), _mm256_unpackhi_pd(h2, h3));
        [
            _mm256_permute2f128_pd::<0x20>(t0, t2),
            _mm256_permute2f128_pd::<0x20>(t1, t3),
            _mm256_permute2f128_pd::<0x31>(t0, t2),
            _mm256_permute2f128_pd::<0x31>(t1, t3),
        ]
    }

    /// Values `at..at + 4` of four rows, value by value.
    ///
    /// # Safety
    /// Needs AVX; every row has at least `at + 4` values.
    #[inline(always)]
    unsafe fn block4<const N: usize>(r: [&[f64; N]; 4], at: usize) -> [__m256d; 4] {
        let load = |k: usize| _mm256_loadu_pd(r[k][at..at + 4].as_ptr());
        transpose(load(0), load(1), load(2), load(3))
    }

    /// Values `at`, `at + 1` of four rows, value by value.
    ///
    /// # Safety
    /// Needs AVX; every row has at least `at + 2` values.
    #[inline(always)]
    unsafe fn pair<const N: usize>(r: [&[f64; N]; 4], at: usize) -> [__m256d; 2] {
        let load = |k: usize| _mm_loadu_pd(r[k][at..at + 2].as_ptr());
        let (e0, e1, e2, e3) = (load(0), load(1), load(2), load(3));
        [
            _mm256_set_m128d(_mm_unpacklo_pd(e2, e3), _mm_unpacklo_pd(e0, e1)),
            _mm256_set_m128d(_mm_unpackhi_pd(e2, e3), _mm_unpackhi_pd(e0, e1)),
        ]
    }
}

/// Four lanes of vectors.
#[derive(Clone, Copy)]
pub(super) struct V4<T> {
    pub(super) x: T,
    pub(super) y: T,
    pub(super) z: T,
}

impl<T: Lane> V4<T> {
    #[inline(always)]
    pub(super) fn load(a: &[A4; 3]) -> Self {
        V4 { x: T::load(&a[0]), y: T::load(&a[1]), z: T::load(&a[2]) }
    }
    #[inline(always)]
    pub(super) fn add(self, o: Self) -> Self {
        V4 { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
    #[inline(always)]
    pub(super) fn sub(self, o: Self) -> Self {
        V4 { x: self.x - o.x, y: self.y - o.y, z: self.z - o.z }
    }
    #[inline(always)]
    pub(super) fn scale(self, s: T) -> Self {
        V4 { x: self.x * s, y: self.y * s, z: self.z * s }
    }
    /// glam's DVec3::dot: (x·x' + y·y') + z·z'.
    #[inline(always)]
    pub(super) fn dot(self, o: Self) -> T {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// glam's DVec3::cross.
    #[inline(always)]
    pub(super) fn cross(self, o: Self) -> Self {
        V4 { x: self.y * o.z - o.y * self.z, y: self.z * o.x - o.z * self.x, z: self.x * o.y - o.x * self.y }
    }
    #[inline(always)]
    pub(super) fn select(m: T, t: Self, f: Self) -> Self {
        V4 { x: T::select(m, t.x, f.x), y: T::select(m, t.y, f.y), z: T::select(m, t.z, f.z) }
    }
}

/// glam's DMat3 · DVec3 for four column-major matrices: (c0·v.x + c1·v.y) + c2·v.z.
#[inline(always)]
pub(super) fn mat_vec<T: Lane>(m: &[V4<T>; 3], v: V4<T>) -> V4<T> {
    m[0].scale(v.x).add(m[1].scale(v.y)).add(m[2].scale(v.z))
}
