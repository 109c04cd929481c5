//! The sparse joint block: exact in one update on chains, trees and loops (redundant rows dropped), and free of
//! fill on a tree.

use super::*;
use crate::math::rng::Rng;
use crate::math::Vec3;

fn row(a: u32, b: u32, lin: [Vec3; 2], ang: [Vec3; 2], inv_m: [f64; 2]) -> JRow {
    JRow {
        a,
        b,
        joint: 0,
        slot: 0,
        lin,
        ang,
        ml: [lin[0] * inv_m[0], lin[1] * inv_m[1]],
        mi: [ang[0] * inv_m[0], ang[1] * inv_m[1]],
        inv_diag: 0.0,
        gamma: 0.0,
        bias: 0.0,
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
        lambda: 0.0,
    }
}

fn residual(rows: &[JRow], bodies: &[Vel]) -> f64 {
    rows.iter().fold(0.0f64, |m, r| m.max((r.jv(&bodies[r.a as usize], &bodies[r.b as usize]) + r.bias).abs()))
}

/// Two point masses in a line (rows: body 0 to the world, body 1 to body 0) plus a redundant copy of the
/// first row: one block update leaves every row satisfied, and the copy is dropped.
#[test]
fn one_block_update_satisfies_every_row_and_drops_a_redundant_one() {
    let (x, z) = (Vec3::X, Vec3::ZERO);
    let mut rows =
        vec![row(0, 2, [x, z], [z, z], [1.0, 0.0]), row(0, 1, [-x, x], [z, z], [1.0, 0.5]), row(0, 2, [x, z], [z, z], [1.0, 0.0])];
    rows[1].joint = 1;
    rows[2].joint = 2;
    rows[1].bias = 0.3;
    let mut bodies = vec![Vel { v: Vec3::new(1.0, 0.0, 0.0), w: z }, Vel { v: Vec3::new(-2.0, 1.0, 0.0), w: z }, Vel::default()];
    let mut block = JointBlock::default();
    block.build(&rows);
    block.solve(&mut rows, &mut bodies);
    assert!(residual(&rows, &bodies) < 1e-12, "row residual {}", residual(&rows, &bodies));
    // the copy (joint 2) and the original (joint 0) touch the same single body: whichever is eliminated second is
    // dropped, and the pair carries the impulse the one row needs
    assert_eq!(rows[0].lambda * rows[2].lambda, 0.0);
    assert_eq!(bodies[1].v.y, 1.0);
}

/// Joints `joints[k] = (a, b)` between bodies (the world is `n`) with `per` random rows each, bodies of random
/// mass and isotropic inertia; the bias makes the rows consistent (satisfied by some velocity) even when they are
/// redundant.
fn random_system(n: usize, joints: &[(u32, u32)], per: usize, seed: u64) -> (Vec<JRow>, Vec<Vel>) {
    let mut rng = Rng::new(seed);
    let v3 = |rng: &mut Rng| Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
    let inv: Vec<(f64, f64)> = (0..n).map(|_| (0.5 + rng.unit(), 2.0 + 20.0 * rng.unit())).collect();
    let mut rows = Vec::new();
    for (k, &(a, b)) in joints.iter().enumerate() {
        for slot in 0..per {
            let (la, aa) = (v3(&mut rng), v3(&mut rng));
            let side = |i: u32| if (i as usize) < n { inv[i as usize] } else { (0.0, 0.0) };
            let (sa, sb) = (side(a), side(b));
            let mut r = row(a, b, [-la, la], [aa, -aa * 0.7], [0.0, 0.0]);
            (r.ml, r.mi) = ([r.lin[0] * sa.0, r.lin[1] * sb.0], [r.ang[0] * sa.1, r.ang[1] * sb.1]);
            (r.joint, r.slot) = (k as u32, slot as u32);
            rows.push(r);
        }
    }
    let mut bodies: Vec<Vel> = (0..=n).map(|i| if i < n { Vel { v: v3(&mut rng), w: v3(&mut rng) } } else { Vel::default() }).collect();
    // consistent right-hand side: the rows hold at zero for the velocities M⁻¹Jᵀμ reached from these ones
    let mut target = bodies.clone();
    for r in &rows {
        let mu = rng.symmetric();
        let (ta, tb) = (target[r.a as usize], target[r.b as usize]);
        let (mut ta2, mut tb2) = (ta, tb);
        r.apply(mu, &mut ta2, &mut tb2);
        target[r.a as usize] = ta2;
        target[r.b as usize] = tb2;
    }
    target[n] = Vel::default();
    for r in &mut rows {
        r.bias = -r.jv(&target[r.a as usize], &target[r.b as usize]);
    }
    bodies[n] = Vel::default();
    (rows, bodies)
}

#[test]
fn a_chain_a_tree_and_a_loop_hold_after_one_update() {
    // a chain of 40 bodies hanging from the world, hinge-like 5 rows per joint
    let chain: Vec<(u32, u32)> = (0..40u32).map(|k| if k == 0 { (0, 40) } else { (k - 1, k) }).collect();
    // a tree: a torso (0) with five limbs of two bodies each
    let mut tree = Vec::new();
    for limb in 0..5u32 {
        tree.push((0, 1 + 2 * limb));
        tree.push((1 + 2 * limb, 2 + 2 * limb));
    }
    // a four-bar: three bodies, four joints of 5 rows (two to the world): 20 rows on 18 coordinates
    let fourbar = vec![(0u32, 3u32), (0, 1), (1, 2), (2, 3)];
    for (name, n, joints, per) in [("chain", 40, chain, 5), ("tree", 11, tree, 3), ("four-bar", 3, fourbar, 5)] {
        let (mut rows, mut bodies) = random_system(n, &joints, per, 7);
        let mut block = JointBlock::default();
        block.build(&rows);
        block.solve(&mut rows, &mut bodies);
        let scale = rows.iter().fold(0.0f64, |m, r| m.max(r.bias.abs()));
        let res = residual(&rows, &bodies);
        assert!(res < 1e-9 * scale, "{name}: residual {res} of {scale}");
        if name == "four-bar" {
            assert!(rows.iter().filter(|r| r.lambda == 0.0).count() >= 2, "the loop's redundant rows are dropped");
        }
    }
}

#[test]
fn a_tree_factors_without_fill() {
    // the same chain and tree: as many off-diagonal blocks as pairs of joints sharing a body
    let chain: Vec<(u32, u32)> = (0..40u32).map(|k| if k == 0 { (0, 40) } else { (k - 1, k) }).collect();
    let (rows, _) = random_system(40, &chain, 5, 3);
    let mut block = JointBlock::default();
    block.build(&rows);
    assert_eq!(block.off.len(), 39);
    let mut tree = Vec::new();
    for limb in 0..5u32 {
        tree.push((0, 1 + 2 * limb));
        tree.push((1 + 2 * limb, 2 + 2 * limb));
    }
    let (rows, _) = random_system(11, &tree, 3, 3);
    block.build(&rows);
    // five limb pairs, and the clique of the five joints at the torso: 10 pairs
    assert_eq!(block.off.len(), 5 + 10);
    // a ring of four bodies and four joints makes one fill block
    let (rows, _) = random_system(4, &[(0, 1), (1, 2), (2, 3), (3, 0)], 3, 3);
    block.build(&rows);
    assert_eq!(block.off.len(), 4 + 1);
}
