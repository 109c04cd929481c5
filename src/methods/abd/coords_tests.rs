use crate::dynamics::joint::JointPose;
use crate::math::rng::Rng;
use crate::math::{Quat, Vec3};
use crate::methods::abd::affine::{q_from_rigid, qdot_from_rigid};
use crate::methods::abd::joints::{Joints, Law};
use crate::model::{JointType, Model};

/// Two boxes, a hinge and a prismatic joint between them, and a hinge and a prismatic joint to the world, each
/// with limits (so that every coordinate is a term).
pub(crate) fn model() -> Model {
    let text = "format = 1\n[world]\nmethod = \"abd\"\ndt = 0.01\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [0.4, 0.1, 0.1] }\nposition = [0.2, 0.0, 0.0]\nrotation_deg = [10.0, 0.0, 20.0]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [0.4, 0.1, 0.1] }\nposition = [0.7, 0.3, 0.1]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nbody2 = \"b\"\nanchor = [0.45, 0.1, 0.0]\naxis = [0.0, 0.6, 0.8]\nlimits = [-1.0, 1.0]\n\
[[joint]]\ntype = \"prismatic\"\nbody1 = \"a\"\nbody2 = \"b\"\nanchor = [0.3, 0.0, 0.1]\naxis = [1.0, 0.0, 0.0]\nlimits = [-1.0, 1.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"b\"\nanchor = [0.9, 0.3, 0.1]\naxis = [0.0, 0.0, 1.0]\nlimits = [-1.0, 1.0]\n\
[[joint]]\ntype = \"prismatic\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nlimits = [-1.0, 1.0]\n";
    crate::scene::load_str(text, "t", "t", std::path::Path::new("."), &[]).unwrap()
}

fn random_pose(rng: &mut Rng, x0: Vec3) -> (Vec3, Quat) {
    let axis = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()).normalize();
    (x0 + 0.05 * Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()), Quat::from_axis_angle(axis, 0.3 * rng.symmetric()))
}

/// At rigid poses, each term's value is the shared kinematics' row (the coordinate row, and a prismatic joint's
/// first two bilateral rows), and its gradient applied to the q̇ of rigid velocities is the row's rate.
#[test]
fn values_and_rates_match_the_shared_rows_at_rigid_poses() {
    let m = model();
    let joints = Joints::new(&m, 1e6, 1e-3);
    let mut rng = Rng::new(3);
    for _ in 0..20 {
        let poses: Vec<(Vec3, Quat)> = m.bodies.iter().map(|b| random_pose(&mut rng, b.position + b.rotation * b.com)).collect();
        let vel: Vec<(Vec3, Vec3)> = (0..2)
            .map(|_| {
                (Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()), Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()))
            })
            .collect();
        let q: Vec<f64> = poses.iter().flat_map(|&(x, r)| q_from_rigid(x, r)).collect();
        let qd: Vec<f64> = poses.iter().zip(&vel).flat_map(|(&(_, r), &(v, w))| qdot_from_rigid(r, v, w)).collect();
        let mut line = 0;
        for t in &joints.terms {
            let j = &m.joints[t.joint];
            let pose = JointPose::at(&m, j, poses[j.body1], j.body2.map(|b| poses[b]));
            let row = match t.law {
                Law::Coordinate { .. } => pose.coordinate_row(j.kind).unwrap(),
                Law::Penalty(_) => {
                    let mut rows = Vec::new();
                    pose.bilateral_rows(JointType::Prismatic, &mut rows);
                    line += 1;
                    rows[(line - 1) % 2]
                }
            };
            let e = t.f.jet(&q, None);
            assert!((e.v - row.c).abs() < 1e-12, "{:?} #{}: {} vs {}", t.law, t.joint, e.v, row.c);
            let mut rate = 0.0;
            for b in t.f.bodies() {
                let g = t.f.body_gradient(&e, b);
                rate += (0..12).map(|k| g[k] * qd[12 * b + k]).sum::<f64>();
            }
            let side = |b: Option<usize>| b.map_or((Vec3::ZERO, Vec3::ZERO), |b| vel[b]);
            let ((v1, w1), (v2, w2)) = (side(Some(j.body1)), side(j.body2));
            let want = row.rate([v1, v2], [w1, w2]);
            assert!((rate - want).abs() < 1e-10 * (1.0 + want.abs()), "#{}: rate {rate} vs {want}", t.joint);
        }
    }
}

/// A non-rigid point: every body's A perturbed off its rotation.
pub(crate) fn affine_point(m: &Model, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let mut q = Vec::new();
    for b in &m.bodies {
        let (x, r) = random_pose(&mut rng, b.position + b.rotation * b.com);
        let mut qb = q_from_rigid(x, r);
        for v in qb.iter_mut() {
            *v += 0.02 * rng.symmetric();
        }
        q.extend(qb);
    }
    q
}

/// Each function's gradient and Hessian in the bodies' coordinates against central differences of its value,
/// at non-rigid points.
#[test]
fn gradients_and_hessians_match_finite_differences() {
    let m = model();
    let joints = Joints::new(&m, 1e6, 1e-3);
    for seed in 0..5 {
        let q = affine_point(&m, seed);
        for t in &joints.terms {
            let e = t.f.jet(&q, None);
            let eps = 1e-6;
            for b in t.f.bodies() {
                let g = t.f.body_gradient(&e, b);
                for k in 0..12 {
                    let mut qp = q.clone();
                    let mut qm = q.clone();
                    qp[12 * b + k] += eps;
                    qm[12 * b + k] -= eps;
                    let fd = (t.f.value(&qp, None) - t.f.value(&qm, None)) / (2.0 * eps);
                    assert!((fd - g[k]).abs() < 1e-7 * (1.0 + g[k].abs()), "#{} body {b} dof {k}: {} vs fd {fd}", t.joint, g[k]);
                    for b2 in t.f.bodies() {
                        let h = t.f.body_hessian(&e, b2, b);
                        let (gp, gm) = (t.f.body_gradient(&t.f.jet(&qp, None), b2), t.f.body_gradient(&t.f.jet(&qm, None), b2));
                        for l in 0..12 {
                            let fd = (gp[l] - gm[l]) / (2.0 * eps);
                            assert!(
                                (fd - h[l][k]).abs() < 1e-6 * (1.0 + h[l][k].abs()),
                                "#{} H[{b2}:{l}][{b}:{k}]: {} vs fd {fd}",
                                t.joint,
                                h[l][k]
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Along a segment of coordinates the first crossing of a level is where the value, sampled finely, first
/// passes it (for angles too; a level the segment does not reach gives none).
#[test]
fn first_crossing_finds_the_first_time_a_level_is_reached() {
    let m = model();
    let joints = Joints::new(&m, 1e6, 1e-3);
    for seed in 0..6 {
        let (q0, q1) = (affine_point(&m, 10 + seed), affine_point(&m, 20 + seed));
        let dir: Vec<f64> = q1.iter().zip(&q0).map(|(a, b)| a - b).collect();
        for t in joints.terms.iter().filter(|t| matches!(t.law, Law::Coordinate { .. })) {
            let value = |a: f64| t.f.value(&q0.iter().zip(&dir).map(|(x, d)| x + a * d).collect::<Vec<_>>(), Some(t.f.value(&q0, None)));
            let (v0, v1) = (value(0.0), value(1.0));
            let level = v0 + 0.6 * (v1 - v0);
            let n = 4000;
            let want = (1..=n).map(|i| i as f64 / n as f64).find(|&a| (value(a) - level) * (v0 - level) <= 0.0).unwrap();
            let got = t.f.first_crossing(&q0, &dir, level).expect("crosses");
            assert!((got - want).abs() <= 1.0 / n as f64, "#{}: {got} vs {want}", t.joint);
            let far = v0 + 2.0 * (v1 - v0).signum() * (v1 - v0).abs().max(0.1);
            if (far - v0).abs() < 2.5 && (1..=n).all(|i| (value(i as f64 / n as f64) - far) * (v0 - far) > 0.0) {
                assert!(t.f.first_crossing(&q0, &dir, far).is_none(), "#{}: no crossing of {far}", t.joint);
            }
        }
    }
}
