//! Checks of the step used by the tests and by `cairn validate`: the elimination against the full linearised
//! system in (x, q, P, L), whose Jacobian is itself checked against finite differences of Ṡ; islands solved
//! apart against one global solve. The fixture: two dynamic bodies, A with a sphere field, B with three shell
//! points in it, springs, dampers and gravity.

use super::step::*;
use super::system::{dense_solve, IslandSystem};
use crate::math::{quat_exp, Mat3, Quat, Vec3};
use crate::methods::implicit::field::{Field, SphereField};
use crate::methods::implicit::gradients::Jacobian;
use crate::methods::implicit::gradients::{add_damper, add_spring, Gains, PointContact};
use crate::methods::implicit::system::Solver;
use crate::state::BodyState;

/// Two dynamic bodies: A carries a sphere field, B three shell points.
struct Pair {
    m: [f64; 2],
    j: [Mat3; 2],
    pts: Vec<(Vec3, Vec3)>,
    gains: Gains,
    gravity: Vec3,
}

/// The 13-coordinate state of one body: x, q (w, x, y, z; not necessarily unit), P, L.
type S13 = [f64; 13];

fn pair() -> Pair {
    let j0 = Mat3::from_diagonal(Vec3::new(0.4, 0.7, 0.9));
    let rot = Mat3::from_quat(quat_exp(Vec3::new(0.2, 0.1, -0.3)));
    Pair {
        m: [2.0, 1.3],
        j: [j0, rot * Mat3::from_diagonal(Vec3::new(0.2, 0.25, 0.3)) * rot.transpose()],
        pts: vec![
            (Vec3::new(-0.2, 0.1, -0.35), Vec3::new(0.1, -0.2, 1.0).normalize()),
            (Vec3::new(0.1, -0.15, -0.3), Vec3::new(-0.2, 0.1, 1.0).normalize()),
            (Vec3::new(0.05, 0.2, -0.4), Vec3::Z),
        ],
        gains: Gains::linear(3.0e3, 12.0, true, false),
        gravity: Vec3::new(0.0, 0.0, -9.81),
    }
}

fn to_body(s: &S13, m: f64, j: &Mat3) -> BodyState {
    let q = Quat::from_xyzw(s[4], s[5], s[6], s[3]);
    let qn = q.normalize();
    let r = Mat3::from_quat(qn);
    let l = Vec3::new(s[10], s[11], s[12]);
    BodyState { x: Vec3::new(s[0], s[1], s[2]), q, v: Vec3::new(s[7], s[8], s[9]) / m, w: r * j.inverse() * r.transpose() * l }
}

fn from_body(b: &BodyState, m: f64, j: &Mat3) -> S13 {
    let r = Mat3::from_quat(b.q);
    let l = r * *j * r.transpose() * b.w;
    let p = b.v * m;
    [b.x.x, b.x.y, b.x.z, b.q.w, b.q.x, b.q.y, b.q.z, p.x, p.y, p.z, l.x, l.y, l.z]
}

/// The pair's wrench and gradients (gravity included in the wrench) at two body states.
fn wrench(p: &Pair, s: &[BodyState; 2]) -> Jacobian {
    let field = SphereField { radius: 0.6 };
    let (qa, qb) = (s[0].q.normalize(), s[1].q.normalize());
    let mut jac = Jacobian::default();
    for (r, n) in &p.pts {
        let b = qb * *r;
        let a = s[1].x + b - s[0].x;
        let (d, g) = field.eval(&(qa.inverse() * a)).unwrap();
        assert!(d < 0.0, "test points must penetrate");
        let c = PointContact {
            d,
            g: qa * g,
            n: qb * *n,
            a,
            b,
            h: Mat3::from_quat(qa) * field.hessian(&(qa.inverse() * a)) * Mat3::from_quat(qa).transpose(),
            radius: 0.0,
        };
        add_spring(&c, p.gains.k, &mut jac);
        add_damper(&c, &p.gains, &[s[0].v, s[0].w, s[1].v, s[1].w], &mut jac);
    }
    jac.wrench[0] += p.gravity * p.m[0];
    jac.wrench[2] += p.gravity * p.m[1];
    jac
}

fn sdot(p: &Pair, s: &[S13; 2]) -> [f64; 26] {
    let b = [to_body(&s[0], p.m[0], &p.j[0]), to_body(&s[1], p.m[1], &p.j[1])];
    let jac = wrench(p, &b);
    let mut out = [0.0; 26];
    for i in 0..2 {
        let o = &mut out[13 * i..13 * i + 13];
        let v = b[i].v;
        o[..3].copy_from_slice(&v.to_array());
        // ½ ω̂ q
        let w = b[i].w;
        let q = Quat::from_xyzw(s[i][4], s[i][5], s[i][6], s[i][3]);
        let d = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * q;
        o[3..7].copy_from_slice(&[0.5 * d.w, 0.5 * d.x, 0.5 * d.y, 0.5 * d.z]);
        o[7..10].copy_from_slice(&jac.wrench[2 * i].to_array());
        o[10..13].copy_from_slice(&jac.wrench[2 * i + 1].to_array());
    }
    out
}

/// ∂Ṡ/∂S in closed form from the gradients and the kinematics.
fn jacobian13(p: &Pair, s: &[S13; 2], h: f64) -> Vec<Vec<f64>> {
    let b = [to_body(&s[0], p.m[0], &p.j[0]), to_body(&s[1], p.m[1], &p.j[1])];
    let k = [0, 1].map(|i| Kin::new(p.m[i], &p.j[i], &p.j[i].inverse(), &b[i], h).unwrap());
    let jac = wrench(p, &b);
    let mut a = vec![vec![0.0; 26]; 26];
    let mut put = |r0: usize, c0: usize, m: &Mat3| {
        for r in 0..3 {
            for c in 0..3 {
                a[r0 + r][c0 + c] += m.col(c)[r];
            }
        }
    };
    for i in 0..2 {
        put(13 * i, 13 * i + 7, &(Mat3::IDENTITY / p.m[i]));
        for row in 0..2 {
            for j in 0..2 {
                let dx = jac.pos[2 * i + row][2 * j];
                let (dv, dw) = (jac.vel[2 * i + row][2 * j], jac.vel[2 * i + row][2 * j + 1]);
                let r0 = 13 * i + 7 + 3 * row;
                put(r0, 13 * j, &dx);
                put(r0, 13 * j + 7, &(dv / p.m[j]));
                put(r0, 13 * j + 10, &(dw * k[j].inv_iw));
            }
        }
    }
    for i in 0..2 {
        // q̇ row
        let jq = qdot_jacobian(&k[i].qm, k[i].w, &k[i].xi);
        for r in 0..4 {
            for c in 0..4 {
                a[13 * i + 3 + r][13 * i + 3 + c] = jq[r][c];
            }
            for c in 0..3 {
                a[13 * i + 3 + r][13 * i + 10 + c] = (0..3).map(|m| k[i].qm[r][m] * k[i].inv_iw.col(c)[m]).sum();
            }
        }
        // momentum rows in q_j: (∂W/∂θ_j + ∂W/∂ω_j Ξ_j) 4Q_jᵀ
        for row in 0..2 {
            for j in 0..2 {
                let d = jac.pos[2 * i + row][2 * j + 1] + jac.vel[2 * i + row][2 * j + 1] * k[j].xi;
                for r in 0..3 {
                    for c in 0..4 {
                        a[13 * i + 7 + 3 * row + r][13 * j + 3 + c] = 4.0 * (0..3).map(|m| d.col(m)[r] * k[j].qm[c][m]).sum::<f64>();
                    }
                }
            }
        }
    }
    a
}

fn start() -> [S13; 2] {
    let p = pair();
    let a = BodyState {
        x: Vec3::new(0.0, 0.0, 0.0),
        q: quat_exp(Vec3::new(0.3, -0.2, 0.1)),
        v: Vec3::new(0.1, 0.2, -0.3),
        w: Vec3::new(0.5, -1.2, 0.8),
    };
    let b = BodyState {
        x: Vec3::new(0.05, -0.02, 0.85),
        q: quat_exp(Vec3::new(-0.1, 0.15, 0.05)),
        v: Vec3::new(-0.2, 0.1, -0.5),
        w: Vec3::new(-0.7, 0.4, 1.5),
    };
    [from_body(&a, p.m[0], &p.j[0]), from_body(&b, p.m[1], &p.j[1])]
}

/// The largest relative difference, over the two bodies' six momentum changes, between the 6×6-block
/// elimination and the full linearised 13n solve (with the same weight γ on q̇'s own q-block), at step `h`.
pub fn elimination_vs_13n(h: f64) -> f64 {
    let p = pair();
    let s = start();
    let a = jacobian13(&p, &s, h);
    let f = sdot(&p, &s);
    let w = |r: usize, c: usize| if (3..7).contains(&(r % 13)) && (3..7).contains(&(c % 13)) { Q_WEIGHT } else { 1.0 };
    let m: Vec<Vec<f64>> = (0..26).map(|r| (0..26).map(|c| if r == c { 1.0 } else { 0.0 } - h * w(r, c) * a[r][c]).collect()).collect();
    let Some(full) = dense_solve(m, f.iter().map(|v| h * v).collect()) else { return f64::INFINITY };
    let b = [to_body(&s[0], p.m[0], &p.j[0]), to_body(&s[1], p.m[1], &p.j[1])];
    let k = [0, 1].map(|i| Kin::new(p.m[i], &p.j[i], &p.j[i].inverse(), &b[i], h).expect("regular"));
    let mut sys = IslandSystem::identity(2);
    add_pair(&mut sys, &wrench(&p, &b), [Side::Dynamic { slot: 0, kin: &k[0] }, Side::Dynamic { slot: 1, kin: &k[1] }], h);
    finish_rhs(&mut sys, h);
    let Ok(x) = Solver::default().solve(&sys) else { return f64::INFINITY };
    (0..2)
        .flat_map(|i| (0..6).map(move |c| (i, c)))
        .map(|(i, c)| (x[6 * i + c] - full[13 * i + 7 + c]).abs() / full[13 * i + 7 + c].abs().max(1.0))
        .fold(0.0, f64::max)
}

/// The largest relative difference between two islands solved apart and one global solve of both.
pub fn islands_vs_global() -> f64 {
    let p = pair();
    let s = start();
    let h = 0.02;
    let b = [to_body(&s[0], p.m[0], &p.j[0]), to_body(&s[1], p.m[1], &p.j[1])];
    let mut b2 = b;
    for x in b2.iter_mut() {
        x.x += Vec3::new(5.0, 0.0, 0.0);
        x.w = -x.w;
    }
    let k1 = [0, 1].map(|i| Kin::new(p.m[i], &p.j[i], &p.j[i].inverse(), &b[i], h).expect("regular"));
    let k2 = [0, 1].map(|i| Kin::new(p.m[i], &p.j[i], &p.j[i].inverse(), &b2[i], h).expect("regular"));
    let (w1, w2) = (wrench(&p, &b), wrench(&p, &b2));
    let mut global = IslandSystem::identity(4);
    add_pair(&mut global, &w1, [Side::Dynamic { slot: 0, kin: &k1[0] }, Side::Dynamic { slot: 1, kin: &k1[1] }], h);
    add_pair(&mut global, &w2, [Side::Dynamic { slot: 2, kin: &k2[0] }, Side::Dynamic { slot: 3, kin: &k2[1] }], h);
    finish_rhs(&mut global, h);
    let mut solver = Solver::default();
    let Ok(all) = solver.solve(&global) else { return f64::INFINITY };
    let mut worst = 0.0f64;
    for (off, w, k) in [(0, &w1, &k1), (2, &w2, &k2)] {
        let mut sys = IslandSystem::identity(2);
        add_pair(&mut sys, w, [Side::Dynamic { slot: 0, kin: &k[0] }, Side::Dynamic { slot: 1, kin: &k[1] }], h);
        finish_rhs(&mut sys, h);
        let Ok(x) = solver.solve(&sys) else { return f64::INFINITY };
        for c in 0..12 {
            worst = worst.max((x[c] - all[6 * off + c]).abs() / all[6 * off + c].abs().max(1.0));
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_13n_jacobian_matches_finite_differences_of_the_ode() {
        let p = pair();
        let s = start();
        let a = jacobian13(&p, &s, 0.01);
        let e = 1e-6;
        for col in 0..26 {
            let (mut sp, mut sm) = (s, s);
            sp[col / 13][col % 13] += e;
            sm[col / 13][col % 13] -= e;
            let (fp, fm) = (sdot(&p, &sp), sdot(&p, &sm));
            for row in 0..26 {
                let fd = (fp[row] - fm[row]) / (2.0 * e);
                let scale = a[row].iter().fold(1.0f64, |m, v| m.max(v.abs()));
                assert!((fd - a[row][col]).abs() < 1e-6 * scale, "row {row} col {col}: fd {fd} vs {}", a[row][col]);
            }
        }
    }

    #[test]
    fn the_6x6_elimination_equals_the_linearised_13n_solve() {
        let p = pair();
        let s = start();
        for h in [1e-3, 1e-2, 5e-2] {
            // the full system (I − hA)ΔS = hṠ
            let a = jacobian13(&p, &s, h);
            let f = sdot(&p, &s);
            // the quaternion rows' own q-block at weight γ (Q_WEIGHT)
            let w = |r: usize, c: usize| if (3..7).contains(&(r % 13)) && (3..7).contains(&(c % 13)) { Q_WEIGHT } else { 1.0 };
            let m: Vec<Vec<f64>> =
                (0..26).map(|r| (0..26).map(|c| if r == c { 1.0 } else { 0.0 } - h * w(r, c) * a[r][c]).collect()).collect();
            let full = dense_solve(m, f.iter().map(|v| h * v).collect()).unwrap();
            // the eliminated one
            let b = [to_body(&s[0], p.m[0], &p.j[0]), to_body(&s[1], p.m[1], &p.j[1])];
            let k = [0, 1].map(|i| Kin::new(p.m[i], &p.j[i], &p.j[i].inverse(), &b[i], h).unwrap());
            let mut sys = IslandSystem::identity(2);
            add_pair(&mut sys, &wrench(&p, &b), [Side::Dynamic { slot: 0, kin: &k[0] }, Side::Dynamic { slot: 1, kin: &k[1] }], h);
            finish_rhs(&mut sys, h);
            let x = Solver::default().solve(&sys).unwrap();
            for i in 0..2 {
                for c in 0..6 {
                    let (e, f) = (x[6 * i + c], full[13 * i + 7 + c]);
                    assert!((e - f).abs() < 1e-10 * f.abs().max(1.0), "h {h} body {i} ΔS[{c}]: {e} vs {f}");
                }
                // positions and orientations follow
                let mut after = b[i];
                after.q = b[i].q.normalize();
                k[i].advance(&mut after, Vec3::from_slice(&x[6 * i..]), Vec3::from_slice(&x[6 * i + 3..]), h, &p.j[i].inverse());
                for c in 0..3 {
                    assert!((after.x[c] - (s[i][c] + full[13 * i + c])).abs() < 1e-10);
                }
                let q = Quat::from_xyzw(
                    s[i][4] + full[13 * i + 4],
                    s[i][5] + full[13 * i + 5],
                    s[i][6] + full[13 * i + 6],
                    s[i][3] + full[13 * i + 3],
                )
                .normalize();
                assert!((after.q.dot(q) - 1.0).abs() < 1e-12, "h {h} body {i}: {:?} vs {q:?}", after.q);
            }
        }
    }

    #[test]
    fn islands_solved_apart_equal_one_global_solve() {
        let p = pair();
        let s = start();
        let h = 0.02;
        let b = [to_body(&s[0], p.m[0], &p.j[0]), to_body(&s[1], p.m[1], &p.j[1])];
        // the second island: the same pair moved and spun differently
        let mut b2 = b;
        for x in b2.iter_mut() {
            x.x += Vec3::new(5.0, 0.0, 0.0);
            x.w = -x.w;
        }
        let k1 = [0, 1].map(|i| Kin::new(p.m[i], &p.j[i], &p.j[i].inverse(), &b[i], h).unwrap());
        let k2 = [0, 1].map(|i| Kin::new(p.m[i], &p.j[i], &p.j[i].inverse(), &b2[i], h).unwrap());
        let (w1, w2) = (wrench(&p, &b), wrench(&p, &b2));
        let mut global = IslandSystem::identity(4);
        add_pair(&mut global, &w1, [Side::Dynamic { slot: 0, kin: &k1[0] }, Side::Dynamic { slot: 1, kin: &k1[1] }], h);
        add_pair(&mut global, &w2, [Side::Dynamic { slot: 2, kin: &k2[0] }, Side::Dynamic { slot: 3, kin: &k2[1] }], h);
        finish_rhs(&mut global, h);
        let mut solver = Solver::default();
        let all = solver.solve(&global).unwrap();
        for (off, w, k) in [(0, &w1, &k1), (2, &w2, &k2)] {
            let mut sys = IslandSystem::identity(2);
            add_pair(&mut sys, w, [Side::Dynamic { slot: 0, kin: &k[0] }, Side::Dynamic { slot: 1, kin: &k[1] }], h);
            finish_rhs(&mut sys, h);
            let x = solver.solve(&sys).unwrap();
            for c in 0..12 {
                assert!((x[c] - all[6 * off + c]).abs() < 1e-10 * all[6 * off + c].abs().max(1.0));
            }
        }
    }

    #[test]
    fn a_free_body_keeps_its_angular_momentum() {
        let j = Mat3::from_diagonal(Vec3::new(0.1, 0.5, 0.9));
        let mut s = BodyState { x: Vec3::ZERO, q: Quat::IDENTITY, v: Vec3::X, w: Vec3::new(0.2, 3.0, 0.1) };
        let l0 = Mat3::from_quat(s.q) * j * s.w;
        let h = 0.01;
        for _ in 0..1000 {
            let k = Kin::new(1.0, &j, &j.inverse(), &s, h).unwrap();
            // no wrench: ΔP = ΔL = 0
            k.advance(&mut s, Vec3::ZERO, Vec3::ZERO, h, &j.inverse());
        }
        let r = Mat3::from_quat(s.q);
        let l1 = r * j * r.transpose() * s.w;
        assert!((l1 - l0).length() < 1e-12 * l0.length(), "{l0:?} → {l1:?}");
        assert!((s.x - Vec3::new(10.0, 0.0, 0.0)).length() < 1e-9);
    }
}
