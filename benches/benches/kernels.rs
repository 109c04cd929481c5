//! criterion micro-benchmarks of cairn's hot kernels, so that a regression shows up as a number:
//! `cargo bench -p cairn-kernels --bench kernels` (a quick check that each runs: append `-- --test`).
//! The fixtures are in `src/lib.rs`, where a test checks that none is trivial.

use cairn_kernels::{grid_system, pgs_sweep, BarrierPair, BoxIntersection, NarrowPhase, ShellInField};
use criterion::{black_box, criterion_group, criterion_main, Criterion};

/// lcp: one projected Gauss–Seidel sweep over pyramid20's rows (three per contact point).
fn sweep(c: &mut Criterion) {
    let mut k = pgs_sweep(30);
    c.bench_function(&format!("lcp: PGS sweep, pyramid20, {} points", k.points()), |b| b.iter(|| black_box(k.sweep())));
    let mut k = pgs_sweep(30);
    let how = if k.batched() { "four points at a time (AVX2)" } else { "scalar: no AVX2 here" };
    c.bench_function(&format!("lcp: PGS sweep, pyramid20, {} points, {how}", k.points()), |b| b.iter(|| black_box(k.batched_sweep())));
}

/// The narrow phase of pyramid20 (210 boxes on the ground): every manifold of one step, persistent.
fn narrow_phase(c: &mut Criterion) {
    let mut np = NarrowPhase::new("pyramid20", 0.01);
    c.bench_function("narrow phase: pyramid20, every manifold", |b| b.iter(|| black_box(np.detect())));
}

/// volumetric-penalty: the intersection polytope of two boxes.
fn intersection(c: &mut Criterion) {
    let mut bi = BoxIntersection::default();
    c.bench_function("volumetric: intersection polytope of two boxes", |b| b.iter(|| black_box(bi.run())));
}

/// abd: a barrier pair's local Hessian, point–triangle and the mollified edge–edge path.
fn barrier(c: &mut Criterion) {
    let pt = BarrierPair::point_triangle();
    let ee = BarrierPair::edge_edge_parallel();
    c.bench_function("abd: barrier pair, point-triangle, projected Hessian", |b| b.iter(|| black_box(pt.projected())));
    c.bench_function("abd: barrier pair, point-triangle, exact Hessian", |b| b.iter(|| black_box(pt.exact())));
    c.bench_function("abd: barrier pair, point-triangle, local jet", |b| b.iter(|| black_box(pt.local())));
    c.bench_function("abd: barrier pair, mollified edge-edge, projected Hessian", |b| b.iter(|| black_box(ee.projected())));
    c.bench_function("abd: barrier pair, mollified edge-edge, exact Hessian", |b| b.iter(|| black_box(ee.exact())));
}

/// abd: the sparse Cholesky of a Newton system over a 6×6×6 pile (216 bodies, 2,592 unknowns), symbolic
/// analysis reused as in a step.
fn factorisation(c: &mut Criterion) {
    let mut sys = grid_system(6);
    sys.solve(false).expect("SPD");
    c.bench_function("abd: sparse Cholesky, 216-body pile", |b| b.iter(|| black_box(sys.solve(false).expect("SPD"))));
}

/// implicit-penalty: a shell's points against a grid distance field.
fn contact_points(c: &mut Criterion) {
    let s = ShellInField::default();
    let tested = s.run().1;
    c.bench_function(&format!("implicit-penalty: {tested} shell points in a grid field"), |b| b.iter(|| black_box(s.run())));
}

criterion_group!(kernels, sweep, narrow_phase, intersection, barrier, factorisation, contact_points);
criterion_main!(kernels);
