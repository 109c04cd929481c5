use super::*;
use crate::methods::abd::coords::tests::{affine_point, model};

/// Every term's energy (penalty, limit barrier within its reach, motor on both sides of its saturation, rotor
/// inertia, a generalised force on the coordinate) has the gradient and Hessian of its jet in the bodies' coordinates: central differences of the energy.
#[test]
fn term_energies_match_finite_differences() {
    let m = model();
    let mut joints = Joints::new(&m, 1e6, 1e-3);
    let h = 0.01;
    for (seed, saturated) in [(1, false), (2, true), (3, false)] {
        let q = affine_point(&m, seed);
        joints.step.clear();
        for k in 0..joints.terms.len() {
            let x = joints.terms[k].f.value(&q, None);
            if let Law::Coordinate { limits, reach, .. } = &mut joints.terms[k].law {
                // the lower limit 0.4 of the reach below the value: the barrier is active
                *limits = Some([x - 0.4 * *reach, x + 2.0]);
            }
            let drive = Some((50.0, x - 0.3, saturated.then_some(5.0)));
            let rotor = (seed != 2).then_some((0.7, x + 0.2));
            let force = 120.0 * (seed as f64 - 2.0);
            joints.step.push(StepData { reference: x, kappa: 1e3, drive, rotor, force });
        }
        for k in 0..joints.terms.len() {
            let t = &joints.terms[k];
            let energy = |q: &[f64]| joints.scalar(k, t.f.value(q, joints.reference(k)), h).0;
            let e = joints.jet(k, &q, h);
            assert!((e.v - energy(&q)).abs() <= 1e-12 * e.v.abs().max(1e-300));
            for b in t.f.bodies() {
                let g = t.f.body_gradient(&e, b);
                for i in 0..12 {
                    let eps = 1e-7;
                    let (mut qp, mut qm) = (q.clone(), q.clone());
                    qp[12 * b + i] += eps;
                    qm[12 * b + i] -= eps;
                    let fd = (energy(&qp) - energy(&qm)) / (2.0 * eps);
                    assert!((fd - g[i]).abs() < 1e-5 * (1.0 + g[i].abs()), "term {k} body {b} dof {i}: {} vs fd {fd}", g[i]);
                    for b2 in t.f.bodies() {
                        let hb = t.f.body_hessian(&e, b2, b);
                        let (gp, gm) = (t.f.body_gradient(&joints.jet(k, &qp, h), b2), t.f.body_gradient(&joints.jet(k, &qm, h), b2));
                        for l in 0..12 {
                            let fd = (gp[l] - gm[l]) / (2.0 * eps);
                            assert!(
                                (fd - hb[l][i]).abs() < 1e-4 * (1.0 + hb[l][i].abs()),
                                "term {k} H[{b2}:{l}][{b}:{i}]: {} vs fd {fd}",
                                hb[l][i]
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The pins' gradient is that of their energy (central differences).
#[test]
fn pin_gradients_match_finite_differences() {
    let m = model();
    let joints = Joints::new(&m, 1e6, 1e-3);
    let q = affine_point(&m, 7);
    for pin in &joints.pins {
        for b in [Some(pin.a), pin.b].into_iter().flatten() {
            let g = pin.gradient(&q, b);
            for i in 0..12 {
                let eps = 1e-7;
                let (mut qp, mut qm) = (q.clone(), q.clone());
                qp[12 * b + i] += eps;
                qm[12 * b + i] -= eps;
                let fd = (pin.energy(&qp) - pin.energy(&qm)) / (2.0 * eps);
                assert!((fd - g[i]).abs() < 1e-5 * (1.0 + g[i].abs()), "pin of #{} body {b} dof {i}: {} vs {fd}", pin.joint, g[i]);
            }
        }
    }
}

/// The motor's force is `motor_force`'s law with the end-of-step rate: −∂(h²φ)/∂x / h² = clamp(k_p(x* − x) +
/// k_d(ẋ* − (x − x^t)/h), ±max_force).
#[test]
fn motor_potential_gives_the_clamped_pd_force() {
    let m = model();
    let mut joints = Joints::new(&m, 1e6, 1e-3);
    let k = joints.terms.iter().position(|t| matches!(t.law, Law::Coordinate { .. })).unwrap();
    let (h, kp, kd, goal, rate, xt) = (0.01, 40.0, 3.0, 0.5, 0.2, 0.1);
    if let Law::Coordinate { limits, motor, .. } = &mut joints.terms[k].law {
        *limits = None;
        *motor = Some(Motor { target: goal, stiffness: kp, damping: kd, max_force: Some(12.0), path: Vec::new() });
    }
    let mut state = State::from_model(&m);
    state.motor_targets = vec![None; m.joints.len()];
    state.motor_targets[joints.terms[k].joint] = Some(crate::dynamics::joint::MotorTarget { value: goal - h * rate, rate, external: true });
    // q^t with the coordinate at xt: the load pose moved along the coordinate is not needed, only its value
    let q = affine_point(&m, 4);
    joints.begin_step(&m, &state, (&q, &q, &vec![0.0; q.len()]), h, h).unwrap();
    joints.step[k].reference = xt;
    let (ke, _, max) = joints.step[k].drive.unwrap();
    let xe = (kp * goal + kd / h * (xt + h * rate)) / ke;
    joints.step[k].drive = Some((ke, xe, max));
    for x in [0.05, 0.12, 0.3, 0.45, 0.6, 0.9] {
        let f = -joints.scalar(k, x, h).1 / (h * h);
        let want = (kp * (goal - x) + kd * (rate - (x - xt) / h)).clamp(-12.0, 12.0);
        assert!((f - want).abs() < 1e-9 * (1.0 + want.abs()), "x = {x}: {f} vs {want}");
    }
    // a rotor inertia a adds a·(ẋ^t − ẋ)/h, ẋ = (x − x^t)/h, unclamped: the coordinate's own inertia
    let (a, rate0) = (0.3, -0.4);
    joints.step[k].rotor = Some((a, xt + h * rate0));
    for x in [0.05, 0.3, 0.9] {
        let f = -joints.scalar(k, x, h).1 / (h * h);
        let want = (kp * (goal - x) + kd * (rate - (x - xt) / h)).clamp(-12.0, 12.0) + a * (rate0 - (x - xt) / h) / h;
        assert!((f - want).abs() < 1e-9 * (1.0 + want.abs()), "x = {x}: {f} vs {want}");
    }
}
