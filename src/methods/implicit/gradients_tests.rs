//! Tests of gradients.rs: every block against central differences.

use super::*;
use crate::math::{quat_exp, Quat};
use crate::methods::implicit::field::{BoxField, Field, SphereField};

/// A pair's poses and velocities: (x, q, v, ω) of A and of B.
#[derive(Clone, Copy)]
struct Pose2 {
    x: [Vec3; 2],
    q: [Quat; 2],
    v: [Vec3; 2],
    w: [Vec3; 2],
}

/// The wrench of B's point (`r`, normal `nb`, B's body frame about its centre of mass) in A's field, from
/// the poses alone: the reference the gradients are compared with.
fn wrench(f: &dyn Field, r: Vec3, nb: Vec3, s: &Pose2, g: &Gains) -> Option<([Vec3; 4], Jacobian)> {
    let b = s.q[1] * r;
    let p = s.x[1] + b;
    let a = p - s.x[0];
    let (d, grad) = f.eval(&(s.q[0].inverse() * a))?;
    if d >= 0.0 {
        return None;
    }
    let ra = Mat3::from_quat(s.q[0]);
    let h = ra * f.hessian(&(s.q[0].inverse() * a)) * ra.transpose();
    let c = PointContact { d, g: s.q[0] * grad, n: s.q[1] * nb, a, b, h, radius: 0.0 };
    let mut j = Jacobian::default();
    add_contact_spring(&c, g, &mut j);
    add_damper(&c, g, &[s.v[0], s.w[0], s.v[1], s.w[1]], &mut j);
    Some((j.wrench, j))
}

fn perturbed(s: &Pose2, var: usize, k: usize, e: f64) -> Pose2 {
    let mut t = *s;
    let mut dv = Vec3::ZERO;
    dv[k] = e;
    let body = var / 4;
    match var % 4 {
        0 => t.x[body] += dv,
        1 => t.q[body] = quat_exp(dv) * t.q[body],
        2 => t.v[body] += dv,
        _ => t.w[body] += dv,
    }
    t
}

fn check(f: &dyn Field, r: Vec3, nb: Vec3, s: &Pose2, g: &Gains) -> f64 {
    check_with(s, |s| wrench(f, r, nb, s, g))
}

/// A sphere of B (centre at B's centre of mass, radius `radius`) tested as its centre in A's field: the
/// wrench from the poses alone.
fn centre_wrench(f: &dyn Field, radius: f64, s: &Pose2, g: &Gains) -> Option<([Vec3; 4], Jacobian)> {
    centre_wrench_off(f, radius, s, g, [Vec3::ZERO; 2])
}

/// [`centre_wrench`] with A's field origin and B's sphere centre at offsets `off` (body frames) from the
/// bodies' centres of mass.
fn centre_wrench_off(f: &dyn Field, radius: f64, s: &Pose2, g: &Gains, off: [Vec3; 2]) -> Option<([Vec3; 4], Jacobian)> {
    let q0 = s.q[0];
    let centre = s.x[1] + s.q[1] * off[1];
    let local = q0.inverse() * (centre - s.x[0] - q0 * off[0]);
    let (phi, grad) = f.eval(&local)?;
    let d = phi - radius;
    if d >= 0.0 {
        return None;
    }
    let ra = Mat3::from_quat(q0);
    let gw = q0 * grad;
    let n = gw.normalize();
    let p = centre - n * radius;
    let h = ra * f.hessian(&local) * ra.transpose();
    let c = PointContact { d, g: gw, n, a: p - s.x[0], b: p - s.x[1], h, radius };
    let mut j = Jacobian::default();
    add_contact_spring(&c, g, &mut j);
    add_damper(&c, g, &[s.v[0], s.w[0], s.v[1], s.w[1]], &mut j);
    Some((j.wrench, j))
}

fn check_with(s: &Pose2, wrench: impl Fn(&Pose2) -> Option<([Vec3; 4], Jacobian)>) -> f64 {
    let (_, jac) = wrench(s).expect("the test point must penetrate");
    // a block that is zero is compared on the scale of the whole Jacobian (finite differences of a wrench
    // of size W carry a rounding noise of about W·1e-16/e)
    let big = jac.pos.iter().chain(&jac.vel).flatten().flat_map(|m| m.to_cols_array()).fold(0.0f64, |m, v| m.max(v.abs()));
    let e = 1e-6;
    let mut worst: f64 = 0.0;
    for var in 0..8 {
        // var: body·4 + (x, θ, v, ω)
        let (body, kind) = (var / 4, var % 4);
        let col = 2 * body + (kind % 2);
        for k in 0..3 {
            let (wp, _) = wrench(&perturbed(s, var, k, e)).unwrap();
            let (wm, _) = wrench(&perturbed(s, var, k, -e)).unwrap();
            for row in 0..4 {
                let fd = (wp[row] - wm[row]) / (2.0 * e);
                let block = if kind < 2 { jac.pos[row][col] } else { jac.vel[row][col] };
                let an = block.col(k);
                let scale = block.abs().to_cols_array().iter().fold(1e-3 * big, |m, v| m.max(*v));
                let err = (fd - an).abs().max_element() / scale;
                assert!(err < 1e-6, "row {row} var {var} component {k}: fd {fd:?} vs {an:?}");
                worst = worst.max(err);
            }
        }
    }
    worst
}

fn state() -> Pose2 {
    Pose2 {
        x: [Vec3::new(0.1, -0.2, 0.05), Vec3::new(0.3, 0.1, 0.7)],
        q: [quat_exp(Vec3::new(0.2, -0.4, 0.3)), quat_exp(Vec3::new(-0.5, 0.1, 0.25))],
        v: [Vec3::new(0.3, -0.1, 0.2), Vec3::new(-0.4, 0.5, 0.1)],
        w: [Vec3::new(1.1, -0.7, 0.4), Vec3::new(-0.3, 0.9, 1.3)],
    }
}

/// A point of B that lies `depth` inside A's field: B's body-frame offset for the world point `p`.
fn point_at(s: &Pose2, p: Vec3) -> Vec3 {
    s.q[1].inverse() * (p - s.x[1])
}

#[test]
fn every_block_matches_finite_differences_in_both_damper_modes() {
    let s = state();
    let sphere = SphereField { radius: 0.8 };
    let p = s.x[0] + s.q[0] * Vec3::new(0.3, 0.4, 0.5);
    let (r, nb) = (point_at(&s, p), Vec3::new(0.3, -0.5, 0.8).normalize());
    // the damper on the whole relative velocity, along N̂, and along ∇φ (whose turn is the sphere's Hessian)
    for (tangential, field_rate) in [(true, false), (false, false), (false, true)] {
        let g = Gains::linear(1.0e4, 35.0, tangential, field_rate);
        let worst = check(&sphere, r, nb, &s, &g);
        assert!(worst < 1e-6, "{worst}");
    }
    let bx = BoxField { half: Vec3::new(0.5, 0.4, 0.6) };
    let p = s.x[0] + s.q[0] * Vec3::new(0.2, -0.3, 0.45);
    for field_rate in [false, true] {
        check(&bx, point_at(&s, p), nb, &s, &Gains::linear(2.0e3, 5.0, false, field_rate));
    }
    // the load's stiffening: the point (0.093 m deep) beyond the knee, where the tangent is r·k
    let g = Gains { knee: 0.05, stiffening: 7.0, ..Gains::linear(1.0e4, 35.0, false, true) };
    assert!(g.spring_at(-0.093).0 == 7.0e4);
    assert!(check(&sphere, r, nb, &s, &g) < 1e-6);
}

#[test]
fn a_sphere_tested_as_its_centre_matches_finite_differences() {
    let s = state();
    // B's centre 1.3 from A's sphere (0.8) centre: 0.5 outside, a sphere of 0.56 sinks 0.06; and against a
    // box near its edge (the Hessian of the distance to an edge)
    let s1 = Pose2 { x: [s.x[0], s.x[0] + Vec3::new(0.6, -0.7, 0.9).normalize() * 1.3], ..s };
    let sphere = SphereField { radius: 0.8 };
    let bx = BoxField { half: Vec3::new(0.5, 0.4, 0.6) };
    let s2 = Pose2 { x: [s.x[0], s.x[0] + s.q[0] * Vec3::new(0.62, 0.1, 0.7)], ..s };
    let stiff = Gains { knee: 0.01, stiffening: 5.0, ..Gains::linear(1.0e4, 35.0, false, false) };
    // and with the field's origin and the sphere's centre off the centres of mass (the arms' −[b]× blocks)
    let off = [Vec3::new(0.05, -0.03, 0.02), Vec3::new(-0.04, 0.06, 0.03)];
    let s3 = Pose2 { x: [s1.x[0], s1.x[1] - s.q[1] * off[1] + s.q[0] * off[0]], ..s1 };
    for g in [Gains::linear(1.0e4, 35.0, false, false), stiff] {
        assert!(check_with(&s1, |s| centre_wrench(&sphere, 0.56, s, &g)) < 1e-6);
        assert!(check_with(&s2, |s| centre_wrench(&bx, 0.2, s, &g)) < 1e-6);
        assert!(check_with(&s3, |s| centre_wrench_off(&sphere, 0.56, s, &g, off)) < 1e-6);
    }
    // the spin of B turns neither force nor torque on A, and B gets no torque from the spring and damper
    let g = Gains::linear(1.0e4, 35.0, false, false);
    let (w, j) = centre_wrench(&sphere, 0.56, &s1, &g).unwrap();
    assert!(w[3].length() < 1e-9 && j.vel[0][3].to_cols_array().iter().all(|v| v.abs() < 1e-9), "{:?}", w[3]);
}

#[test]
fn the_stiffened_spring_is_continuous_at_its_knee_and_linear_on_either_side() {
    let g = Gains { knee: 2e-3, stiffening: 40.0, ..Gains::linear(5.0e4, 0.0, false, false) };
    let f = |p: f64| g.spring_force(-p);
    assert!((f(2e-3 - 1e-13) - f(2e-3 + 1e-13)).abs() < 1e-6);
    assert!((f(1e-3) - 50.0).abs() < 1e-9 && (f(2e-3) - 100.0).abs() < 1e-9);
    // beyond the knee each metre adds 40 k
    assert!((f(3e-3) - f(2.5e-3) - 40.0 * 5.0e4 * 5e-4).abs() < 1e-6);
    assert_eq!(Gains::linear(5.0e4, 0.0, false, false).spring_force(-1.0), 5.0e4);
}

/// A tangential force of B's point on a sphere of A (the point fixed in B, B's normal `nb` there): `add` adds its
/// wrench and gradients for the pose and its contact and velocities.
fn tangential_jacobian(s: &Pose2, add: &dyn Fn(&PointContact, &Velocities, &Pose2, &mut Jacobian)) -> (Jacobian, PointContact) {
    let s0 = state();
    let sphere = SphereField { radius: 0.8 };
    let p = s0.x[0] + s0.q[0] * Vec3::new(0.3, 0.4, 0.5);
    let (r, nb) = (point_at(&s0, p), Vec3::new(0.3, -0.5, 0.8).normalize());
    let b = s.q[1] * r;
    let a = s.x[1] + b - s.x[0];
    let (d, g) = sphere.eval(&(s.q[0].inverse() * a)).unwrap();
    let c = PointContact { d, g: s.q[0] * g, n: s.q[1] * nb, a, b, h: Mat3::ZERO, radius: 0.0 };
    let mut j = Jacobian::default();
    add(&c, &[s.v[0], s.w[0], s.v[1], s.w[1]], s, &mut j);
    (j, c)
}

/// Every gradient block of [`tangential_jacobian`] (in the poses, and in the velocities where `velocities`)
/// against central differences; returns the Jacobian at the unperturbed state and its contact.
fn check_tangential(velocities: bool, add: &dyn Fn(&PointContact, &Velocities, &Pose2, &mut Jacobian)) -> (Jacobian, PointContact) {
    let s = state();
    let (jac, c) = tangential_jacobian(&s, add);
    assert!(jac.wrench[0].length() > 1.0);
    let e = 1e-6;
    let vars: Vec<usize> = if velocities { (0..8).collect() } else { vec![0, 1, 4, 5] };
    for var in vars {
        let (body, kind) = (var / 4, var % 4);
        for k in 0..3 {
            let wp = tangential_jacobian(&perturbed(&s, var, k, e), add).0.wrench;
            let wm = tangential_jacobian(&perturbed(&s, var, k, -e), add).0.wrench;
            for row in 0..4 {
                let fd = (wp[row] - wm[row]) / (2.0 * e);
                let block = if kind < 2 { jac.pos[row][2 * body + kind] } else { jac.vel[row][2 * body + kind - 2] };
                let scale = block.abs().to_cols_array().iter().fold(1.0f64, |m, v| m.max(*v));
                assert!((fd - block.col(k)).abs().max_element() / scale < 1e-6, "row {row} var {var} {k}: {fd:?} vs {:?}", block.col(k));
            }
        }
    }
    (jac, c)
}

#[test]
fn the_anchor_spring_matches_finite_differences() {
    let s = state();
    // the anchor, fixed in A, a little off the point
    let p = s.x[0] + s.q[0] * Vec3::new(0.3, 0.4, 0.5);
    let alpha_body = s.q[0].inverse() * (p + Vec3::new(0.02, -0.01, 0.015) - s.x[0]);
    check_tangential(false, &|c, _, s, j| add_anchor_spring(c, s.q[0] * alpha_body, 2.0e3, j));
}

#[test]
fn kinetic_friction_matches_finite_differences() {
    let (jac, c) = check_tangential(true, &|c, vel, _, j| add_kinetic_friction(c, 30.0, vel, j));
    // tangential: no force along the normal
    assert!(jac.wrench[0].dot(c.n).abs() < 1e-12 * jac.wrench[0].length());
}

#[test]
fn the_anchor_damper_matches_finite_differences_and_damps_only_the_tangential_motion() {
    let (jac, c) = check_tangential(true, &|c, vel, _, j| add_anchor_damper(c, 40.0, vel, j));
    // −c_t T u: no force along the normal, and it opposes the tangential relative velocity (dissipative)
    let s = state();
    let vel = [s.v[0], s.w[0], s.v[1], s.w[1]];
    assert!(jac.wrench[0].dot(c.n).abs() < 1e-12 * jac.wrench[0].length());
    assert!(jac.wrench[0].dot(relative_velocity(&c, &vel)) < 0.0);
}

#[test]
fn a_sticking_anchor_is_its_spring_and_its_damper_in_one_pass() {
    let s = state();
    let p = s.x[0] + s.q[0] * Vec3::new(0.3, 0.4, 0.5);
    let alpha_body = s.q[0].inverse() * (p + Vec3::new(0.02, -0.01, 0.015) - s.x[0]);
    let (both, c) = check_tangential(true, &|c, vel, s, j| add_sticking_anchor(c, s.q[0] * alpha_body, 2.0e3, 40.0, vel, j));
    let vel = [s.v[0], s.w[0], s.v[1], s.w[1]];
    let mut apart = Jacobian::default();
    add_anchor_spring(&c, s.q[0] * alpha_body, 2.0e3, &mut apart);
    add_anchor_damper(&c, 40.0, &vel, &mut apart);
    let scale = apart.wrench.iter().map(|w| w.length()).fold(0.0, f64::max);
    for r in 0..4 {
        assert!((both.wrench[r] - apart.wrench[r]).length() <= 1e-12 * scale, "wrench {r}");
        for k in 0..4 {
            for (x, y) in [(both.pos[r][k], apart.pos[r][k]), (both.vel[r][k], apart.vel[r][k])] {
                let big = |m: Mat3| (0..3).map(|i| m.col(i).abs().max_element()).fold(0.0, f64::max);
                assert!(big(x - y) <= 1e-12 * (1.0 + big(y)), "block {r} {k}: {x:?} vs {y:?}");
            }
        }
    }
}

/// The row F_A of `j` times the motions, as the step's system applies it.
fn row(j: &Jacobian, m: &[Motion; 2]) -> Vec3 {
    let mut f = j.wrench[0];
    for c in 0..4 {
        f += j.pos[0][c] * m[c / 2][c % 2] + j.vel[0][c] * m[c / 2][2 + c % 2];
    }
    f
}

#[test]
fn applied_forces_are_the_jacobians_rows_times_the_motions() {
    let s = state();
    let sphere = SphereField { radius: 0.8 };
    let p = s.x[0] + s.q[0] * Vec3::new(0.3, 0.4, 0.5);
    let b = p - s.x[1];
    let (d, g) = sphere.eval(&(s.q[0].inverse() * (p - s.x[0]))).unwrap();
    let ra = Mat3::from_quat(s.q[0]);
    let h = ra * sphere.hessian(&(s.q[0].inverse() * (p - s.x[0]))) * ra.transpose();
    let c = PointContact { d, g: s.q[0] * g, n: Vec3::new(0.3, -0.5, 0.8).normalize(), a: p - s.x[0], b, h, radius: 0.0 };
    let vel = [s.v[0], s.w[0], s.v[1], s.w[1]];
    let mut rng = crate::math::rng::Rng::new(5);
    let mut v3 = || Vec3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5);
    let m = [[v3(), v3(), v3(), v3()], [v3(), v3(), v3(), v3()]];
    for (tangential, field_rate) in [(false, false), (true, false), (false, true)] {
        let g = Gains::linear(1.0e4, 35.0, tangential, field_rate);
        let mut j = Jacobian::default();
        add_spring(&c, g.k, &mut j);
        add_damper(&c, &g, &vel, &mut j);
        let (want, got) = (row(&j, &m), applied_force(&c, &g, &vel, &m));
        assert!((want - got).length() < 1e-9 * want.length(), "{want:?} vs {got:?}");
    }
    let alpha = c.a + Vec3::new(0.02, -0.01, 0.015);
    let mut j = Jacobian::default();
    add_anchor_spring(&c, alpha, 2.0e3, &mut j);
    let (want, got) = (row(&j, &m), applied_anchor_force(&c, alpha, 2.0e3, &m));
    assert!((want - got).length() < 1e-9 * want.length(), "{want:?} vs {got:?}");
    let mut j = Jacobian::default();
    add_kinetic_friction(&c, 30.0, &vel, &mut j);
    let (want, got) = (row(&j, &m), applied_kinetic_force(&c, 30.0, &vel, &m));
    assert!((want - got).length() < 1e-9 * want.length(), "{want:?} vs {got:?}");
    let mut j = Jacobian::default();
    add_anchor_damper(&c, 40.0, &vel, &mut j);
    let (want, got) = (row(&j, &m), applied_anchor_damper_force(&c, 40.0, &vel, &m));
    assert!((want - got).length() < 1e-9 * want.length(), "{want:?} vs {got:?}");
    // a sphere's centre (B's centre 1.3 from A's, radius 0.56), with the stiffened spring beyond its knee
    let s1 = Pose2 { x: [s.x[0], s.x[0] + Vec3::new(0.6, -0.7, 0.9).normalize() * 1.3], ..s };
    let g = Gains { knee: 0.01, stiffening: 5.0, ..Gains::linear(1.0e4, 35.0, false, false) };
    let (_, j) = centre_wrench(&sphere, 0.56, &s1, &g).unwrap();
    let (gw, n) = ((s1.x[1] - s1.x[0]) / 1.3, (s1.x[1] - s1.x[0]) / 1.3);
    let p = s1.x[1] - n * 0.56;
    let h = (Mat3::IDENTITY - outer(n, n)) / 1.3;
    let c = PointContact { d: 0.5 - 0.56, g: gw, n, a: p - s1.x[0], b: p - s1.x[1], h, radius: 0.56 };
    let vel = [s1.v[0], s1.w[0], s1.v[1], s1.w[1]];
    let (want, got) = (row(&j, &m), applied_force(&c, &g, &vel, &m));
    assert!((want - got).length() < 1e-9 * want.length(), "{want:?} vs {got:?}");
}

#[test]
fn the_reversed_role_maps_onto_the_pair() {
    // B's points in A's field, and A's points in B's field, summed into the pair (A, B)
    let s = state();
    let sphere = SphereField { radius: 0.8 };
    let g = Gains::linear(1.0e4, 35.0, true, false);
    let p = s.x[0] + s.q[0] * Vec3::new(0.3, 0.4, 0.5);
    let (_, j1) = wrench(&sphere, point_at(&s, p), Vec3::Z, &s, &g).unwrap();
    let rev = Pose2 { x: [s.x[1], s.x[0]], q: [s.q[1], s.q[0]], v: [s.v[1], s.v[0]], w: [s.w[1], s.w[0]] };
    let p2 = rev.x[0] + rev.q[0] * Vec3::new(-0.2, 0.3, 0.4);
    let (_, j2) = wrench(&sphere, point_at(&rev, p2), Vec3::X, &rev, &g).unwrap();
    let mut sum = Jacobian::default();
    sum.add(&j1, false);
    sum.add(&j2, true);
    // the sum as a function of the pair's state, by finite differences in A's and B's variables
    let total = |s: &Pose2| {
        let r = Pose2 { x: [s.x[1], s.x[0]], q: [s.q[1], s.q[0]], v: [s.v[1], s.v[0]], w: [s.w[1], s.w[0]] };
        let (w1, _) = wrench(&sphere, point_at(&state(), p), Vec3::Z, s, &g).unwrap();
        let (w2, _) = wrench(&sphere, point_at(&rev, p2), Vec3::X, &r, &g).unwrap();
        [w1[0] + w2[2], w1[1] + w2[3], w1[2] + w2[0], w1[3] + w2[1]]
    };
    let e = 1e-6;
    for var in 0..8 {
        let (body, kind) = (var / 4, var % 4);
        for k in 0..3 {
            let (wp, wm) = (total(&perturbed(&s, var, k, e)), total(&perturbed(&s, var, k, -e)));
            for row in 0..4 {
                let fd = (wp[row] - wm[row]) / (2.0 * e);
                let block = if kind < 2 { sum.pos[row][2 * body + kind % 2] } else { sum.vel[row][2 * body + kind % 2] };
                let scale = block.abs().to_cols_array().iter().fold(1.0f64, |m, v| m.max(*v));
                assert!((fd - block.col(k)).abs().max_element() / scale < 1e-6, "row {row} var {var}");
            }
        }
    }
    // Newton's third law: the pair's forces cancel
    assert!((sum.wrench[0] + sum.wrench[2]).length() < 1e-9);
}
