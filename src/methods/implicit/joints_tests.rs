use super::*;
use crate::math::rng::Rng;
use crate::methods::implicit::system::IslandSystem;
use crate::world::World;

/// Two boxes on a hinge with limits, both moving (velocities from `seed`, angular ones scaled by `spin`), step
/// h = 0.01: the world, each body's kinematics and the poses `Kin::advance` reaches with ΔS = x.
struct TwoBodies {
    w: World,
    kins: Vec<Kin>,
    h: f64,
}

impl TwoBodies {
    fn new(seed: u64, spin: f64) -> (TwoBodies, Rng) {
        let text = "format = 1\n[world]\nmethod = \"implicit-penalty\"\ndt = 0.01\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [0.4, 0.2, 0.1] }\nposition = [0.0, 0.0, 1.0]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [0.3, 0.1, 0.2] }\nposition = [0.5, 0.1, 1.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nbody2 = \"b\"\nanchor = [0.25, 0.05, 1.0]\naxis = [0.3, 1.0, 0.2]\nlimits = [-1.0, 1.0]\n";
        let mut w = World::from_scene_text(text, "rows").unwrap();
        let mut rng = Rng::new(seed);
        for s in w.state.bodies.iter_mut() {
            s.v = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
            s.w = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * spin;
        }
        let (m, h) = (&w.model, 0.01);
        let kins: Vec<Kin> = (0..2)
            .map(|i| Kin::new(m.bodies[i].mass, &m.bodies[i].inertia, &m.bodies[i].inv_inertia, &w.state.bodies[i], h).unwrap())
            .collect();
        (TwoBodies { w, kins, h }, rng)
    }

    fn advance(&self, x: &[f64]) -> Vec<BodyState> {
        (0..2)
            .map(|i| {
                let mut b = self.w.state.bodies[i];
                let inv = &self.w.model.bodies[i].inv_inertia;
                self.kins[i].advance(&mut b, Vec3::from_slice(&x[6 * i..]), Vec3::from_slice(&x[6 * i + 3..]), self.h, inv);
                b
            })
            .collect()
    }

    fn rows(&self) -> IslandJoints {
        let h = self.h;
        IslandJoints::build(
            &self.w.model,
            vec![0],
            &self.w.state.bodies,
            &self.advance(&[0.0; 12]),
            |b| Some((b, &self.kins[b])),
            100.0 / h,
            h,
        )
    }
}

/// ∂C'/∂ΔS of every row (the `pos` blocks: how (ΔP, ΔL) move the end-of-step rows through step.rs's pose update)
/// against central differences of the rows at the poses `Kin::advance` reaches, for a hinge with limits between two
/// moving bodies.
#[test]
fn row_jacobians_in_the_unknowns_match_finite_differences() {
    let (t, _) = TwoBodies::new(11, 3.0);
    let m = &t.w.model;
    let advance = |x: &[f64]| t.advance(x);
    let predicted = advance(&[0.0; 12]);
    let rows = t.rows();
    assert_eq!(rows.rows.len(), 7);
    let c0 = rows.values(m, &predicted);
    for (r, c) in rows.rows.iter().zip(&c0) {
        assert!((r.row.c - c).abs() < 1e-15);
    }
    let e = 1e-4;
    for k in 0..12 {
        let mut x = [0.0; 12];
        x[k] = e;
        let p = rows.values(m, &advance(&x));
        x[k] = -e;
        let n = rows.values(m, &advance(&x));
        x[k] = 1.0;
        for (i, r) in rows.rows.iter().enumerate() {
            let fd = (p[i] - n[i]) / (2.0 * e);
            let an = row_dot(r, &x);
            assert!((fd - an).abs() < 1e-6 * (1e-3 + an.abs()), "row {i} unknown {k}: fd {fd} vs {an}");
        }
    }
}

#[test]
fn the_pseudo_inverse_drops_redundant_rows() {
    // rows 0 and 2 equal: rank 2, and a consistent right-hand side is met exactly
    let a = vec![vec![2.0, 1.0, 2.0], vec![1.0, 3.0, 1.0], vec![2.0, 1.0, 2.0]];
    let p = PseudoInverse::new(&a).unwrap();
    assert_eq!(p.rank(), 2);
    let b = [1.0, 2.0, 1.0];
    let x = p.apply(&b);
    for (row, bv) in a.iter().zip(b) {
        let ax: f64 = row.iter().zip(&x).map(|(r, x)| r * x).sum();
        assert!((ax - bv).abs() < 1e-12, "{ax} vs {bv}");
    }
    assert!((x[0] - x[2]).abs() < 1e-12, "the minimum-norm solution splits the redundant pair evenly: {x:?}");
    assert_eq!(PseudoInverse::new(&[vec![1.0, 0.0], vec![0.0, 1e-12]]).unwrap().rank(), 1);
}

#[test]
fn baumgarte_target_spans_free_motion_to_projection() {
    let (c, rate, h) = (1e-3, 0.2, 0.01);
    assert!((baumgarte_target(c, rate, 0.0, h) - (c + h * rate)).abs() < 1e-18);
    assert!(baumgarte_target(c, rate, 1e12, h).abs() < 1e-9);
    let t = baumgarte_target(c, 0.0, 100.0 / h, h);
    assert!((t - c / 2601.0 * 101.0).abs() < 1e-15, "{t}");
}

/// A random diagonally dominant island system of `n` bodies and random rows on its slots.
fn island(n: usize, rows: usize, rng: &mut Rng) -> (IslandSystem, IslandJoints) {
    let mut s = IslandSystem::identity(n);
    for i in 0..n {
        for j in 0..n {
            let b = s.block(i, j);
            for (r, row) in b.iter_mut().enumerate() {
                for (c, v) in row.iter_mut().enumerate() {
                    *v += 0.2 * rng.symmetric() + if i == j && r == c { 2.0 } else { 0.0 };
                }
            }
        }
    }
    s.rhs.iter_mut().for_each(|v| *v = rng.symmetric());
    let v3 = |rng: &mut Rng| Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
    let mut out = IslandJoints::default();
    for k in 0..rows {
        let row = Row { c: 0.01 * rng.symmetric(), lin: [v3(rng), v3(rng)], ang: [v3(rng), v3(rng)] };
        let pos = vec![(k % n, 0, v3(rng), v3(rng)), ((k + 1) % n, 1, v3(rng), v3(rng))];
        out.rows.push(IslandRow { joint: k, index: 0, limit: false, row, force: row, target: 0.0, pos });
    }
    // a redundant copy of row 0 and, last, a limit that the free step would violate (made from an independent row)
    let mut dup = out.rows[0].clone();
    dup.joint = rows;
    let mut lim = out.rows.pop().expect("rows > 0");
    lim.joint = rows + 1;
    lim.limit = true;
    lim.target = 10.0;
    out.rows.push(dup);
    out.rows.push(lim);
    (s, out)
}

/// Two islands, each with a redundant row and an active limit, solved apart and as one block-diagonal system:
/// the same ΔS and multipliers (1e-10); rows linear in ΔS, so each meets its target exactly.
#[test]
fn islands_with_joints_solved_apart_equal_one_global_solve() {
    let mut rng = Rng::new(21);
    let (sa, ja) = island(2, 4, &mut rng);
    let (sb, jb) = island(3, 5, &mut rng);
    let h = 0.01;
    let linear = |j: &IslandJoints| {
        let rows = j.rows.clone();
        move |x: &[f64]| rows.iter().map(|r| r.row.c + row_dot(r, x)).collect::<Vec<f64>>()
    };
    let mut solver = Solver::default();
    let a = solve_constrained(&mut solver, &sa, &ja, h, linear(&ja)).unwrap();
    let b = solve_constrained(&mut solver, &sb, &jb, h, linear(&jb)).unwrap();
    let mut g = IslandSystem::identity(5);
    for ((i, j), blk) in sa.blocks() {
        *g.block(i as usize, j as usize) = *blk;
    }
    for ((i, j), blk) in sb.blocks() {
        *g.block(i as usize + 2, j as usize + 2) = *blk;
    }
    g.rhs = sa.rhs.iter().chain(&sb.rhs).copied().collect();
    let mut jg = ja.clone();
    jg.rows
        .extend(jb.rows.iter().map(|r| IslandRow { pos: r.pos.iter().map(|&(s, side, p, l)| (s + 2, side, p, l)).collect(), ..r.clone() }));
    let all = solve_constrained(&mut solver, &g, &jg, h, linear(&jg)).unwrap();
    let x: Vec<f64> = a.x.iter().chain(&b.x).copied().collect();
    let l: Vec<f64> = a.lambda.iter().chain(&b.lambda).copied().collect();
    for (p, q) in x.iter().zip(&all.x).chain(l.iter().zip(&all.lambda)) {
        assert!((p - q).abs() < 1e-10 * (1.0 + q.abs()), "{p} vs {q}");
    }
    for (c, sol) in [(&ja, &a), (&jb, &b)] {
        let vals = linear(c)(&sol.x);
        let n = c.rows.len();
        assert!(sol.lambda[n - 1] > 0.0, "the violated limit is active and pushes");
        assert!((vals[n - 1] - 10.0).abs() < 1e-9, "the limit row sits at its bound: {}", vals[n - 1]);
        assert!(vals[..n - 2].iter().all(|v| v.abs() < 1e-9), "bilateral rows at 0: {vals:?}");
    }
    assert!(a.rank < ja.rows.len() && b.rank < jb.rows.len(), "the duplicate rows are dropped");
}

/// A random island of `n` bodies in a chain hung from the world: joint k between body k − 1 (the world for k = 0)
/// and body k, `per` rows each, the last joint's last row a limit that the free step violates; linear rows.
fn chain_island(n: usize, per: usize, rng: &mut Rng) -> (IslandSystem, IslandJoints) {
    let (s, _) = island(n, 1, rng);
    let v3 = |rng: &mut Rng| Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
    let mut out = IslandJoints::default();
    for k in 0..n {
        for index in 0..per {
            let row = Row { c: 0.01 * rng.symmetric(), lin: [v3(rng), v3(rng)], ang: [v3(rng), v3(rng)] };
            let mut pos = vec![(k, 1, v3(rng), v3(rng))];
            if k > 0 {
                pos.insert(0, (k - 1, 0, v3(rng), v3(rng)));
            }
            let limit = k == n - 1 && index == per - 1;
            let target = if limit { 10.0 } else { 0.0 };
            out.rows.push(IslandRow { joint: k, index, limit, row, force: row, target, pos });
        }
    }
    (s, out)
}

/// A chain's rows are independent and go to the saddle-point solve, a ring's are not; on a chain both solves give
/// the same ΔS and multipliers (1e-9) and meet every row, the violated limit included.
#[test]
fn a_chain_solved_as_one_saddle_point_system_equals_the_schur_path() {
    let mut rng = Rng::new(5);
    let (s, j) = chain_island(6, 5, &mut rng);
    let (ring_s, ring) = island(3, 4, &mut rng);
    assert!(super::super::saddle::rows_are_independent(&j, s.n));
    assert!(!super::super::saddle::rows_are_independent(&ring, ring_s.n));
    let h = 0.01;
    let linear = |j: &IslandJoints| {
        let rows = j.rows.clone();
        move |x: &[f64]| rows.iter().map(|r| r.row.c + row_dot(r, x)).collect::<Vec<f64>>()
    };
    let mut solver = Solver::default();
    let saddle = super::super::saddle::solve(&mut solver, &s, &j, h, &mut linear(&j)).unwrap();
    let schur = solve_schur(&mut solver, &s, &j, h, linear(&j)).unwrap();
    for (p, q) in saddle.x.iter().zip(&schur.x).chain(saddle.lambda.iter().zip(&schur.lambda)) {
        assert!((p - q).abs() < 1e-9 * (1.0 + q.abs()), "{p} vs {q}");
    }
    let vals = linear(&j)(&saddle.x);
    let n = j.rows.len();
    assert!(saddle.lambda[n - 1] > 0.0 && (vals[n - 1] - 10.0).abs() < 1e-9, "the limit is active: {}", vals[n - 1]);
    assert!(vals[..n - 1].iter().all(|v| v.abs() < 1e-9), "bilateral rows at 0: {vals:?}");
    assert_eq!(saddle.rank, n);
}

/// The rows' Jacobians at a ΔS away from zero (`jacobians_at`, what the Newton corrections relinearise with)
/// against central differences of the rows at the poses `Kin::advance` reaches around that ΔS.
#[test]
fn row_jacobians_away_from_zero_match_finite_differences() {
    let (t, mut rng) = TwoBodies::new(13, 20.0);
    let (m, h) = (&t.w.model, t.h);
    let advance = |x: &[f64]| t.advance(x);
    let rows = t.rows();
    // a ΔS that turns each body by about a radian more than the free step
    let x0: Vec<f64> = (0..12).map(|_| 3.0 * rng.symmetric()).collect();
    let jac = rows.jacobians_at(m, &advance(&x0), |b| Some((b, &t.kins[b])), &x0, h);
    let e = 1e-5;
    for k in 0..12 {
        let mut x = x0.clone();
        x[k] += e;
        let p = rows.values(m, &advance(&x));
        x[k] -= 2.0 * e;
        let n = rows.values(m, &advance(&x));
        let mut unit = vec![0.0; 12];
        unit[k] = 1.0;
        for (i, pos) in jac.iter().enumerate() {
            let fd = (p[i] - n[i]) / (2.0 * e);
            let an = super::super::saddle::row_dot(pos, &unit);
            assert!((fd - an).abs() < 1e-6 * (1e-2 + an.abs()), "row {i} unknown {k}: fd {fd} vs {an}");
        }
    }
}

/// One joint to the world whose last row is the negative of the one before it (a hinge's two axis rows when its
/// bodies' axes turn perpendicular): the rows form a forest but are dependent, so the saddle-point system is
/// singular (faer's LU would meet a zero pivot); the solve falls back to the pseudo-inverse, drops the row and
/// meets the others.
#[test]
fn dependent_rows_of_one_joint_go_to_the_pseudo_inverse() {
    let mut rng = Rng::new(3);
    let (s, _) = chain_island(1, 1, &mut rng);
    let v3 = |rng: &mut Rng| Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
    let mut j = IslandJoints::default();
    for index in 0..5 {
        let mut row = Row { c: 0.01 * rng.symmetric(), lin: [v3(&mut rng), v3(&mut rng)], ang: [v3(&mut rng), v3(&mut rng)] };
        let mut pos = vec![(0usize, 1usize, v3(&mut rng), v3(&mut rng))];
        if index == 4 {
            let prev = &j.rows[3];
            row = Row { c: -prev.row.c, lin: [-prev.force.lin[0], -prev.force.lin[1]], ang: [-prev.force.ang[0], -prev.force.ang[1]] };
            pos = vec![(0, 1, -prev.pos[0].2, -prev.pos[0].3)];
        }
        j.rows.push(IslandRow { joint: 0, index, limit: false, row, force: row, target: 0.0, pos });
    }
    assert!(super::super::saddle::rows_are_independent(&j, s.n), "a forest");
    let rows = j.rows.clone();
    let linear = move |x: &[f64]| rows.iter().map(|r| r.row.c + row_dot(r, x)).collect::<Vec<f64>>();
    let c = solve_constrained(&mut Solver::default(), &s, &j, 0.01, linear.clone()).unwrap();
    assert_eq!(c.rank, 4, "the dependent row is dropped");
    assert!(linear(&c.x).iter().all(|v| v.abs() < 1e-9), "every row met: {:?}", linear(&c.x));
}
