use super::*;
use crate::math::quat_exp;
use crate::math::rng::Rng;
use crate::model::MotorWaypoint;
use std::path::Path;

/// A scene with one joint of each type between two offset boxes (body2 of joint 4 is the world). Loaded as
/// hinges under `abd` (which takes any scene with hinges), then given their kinds: the frames do not depend on
/// the kind.
fn model() -> Model {
    let mut text = String::from(
        r#"format = 1
[world]
method = "abd"
[[body]]
name = "a"
shape = { type = "box", size = [0.4, 0.3, 0.2] }
position = [0.1, -0.2, 1.0]
rotation_deg = [10.0, 20.0, 30.0]
[[body]]
name = "b"
shape = { type = "box", size = [0.2, 0.5, 0.3] }
position = [0.6, 0.1, 1.3]
rotation_deg = [-15.0, 5.0, 40.0]
"#,
    );
    for _ in 0..4 {
        text += "[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nbody2 = \"b\"\nanchor = [0.3, 0.0, 1.2]\naxis = [0.3, 0.8, 0.5]\n";
    }
    text += "[[joint]]\ntype = \"hinge\"\nbody1 = \"b\"\nanchor = [0.5, 0.2, 1.4]\naxis = [0.0, 0.0, 1.0]\n";
    let mut m = crate::scene::load_str(&text, "joints.toml", "joints", Path::new("."), &[]).unwrap();
    for (j, kind) in m.joints.iter_mut().zip([JointType::Ball, JointType::Hinge, JointType::Prismatic, JointType::Fixed]) {
        j.kind = kind;
    }
    m
}

fn random_state(rng: &mut Rng) -> ([Vec3; 2], [Quat; 2], [Vec3; 2], [Vec3; 2]) {
    let v3 = |rng: &mut Rng| Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
    let x = [v3(rng) + Vec3::Z, v3(rng) + Vec3::Z];
    let q = [quat_exp(v3(rng) * 2.0), quat_exp(v3(rng) * 2.0)];
    (x, q, [v3(rng), v3(rng)], [v3(rng), v3(rng)])
}

/// Every row's Jacobian against the central difference of its value along the motion, at poses that do not
/// satisfy the joint (so the check covers the general case, not just C = 0).
#[test]
fn rows_are_exact_derivatives_of_their_values() {
    let m = model();
    let mut rng = Rng::new(7);
    let h = 1e-6;
    for trial in 0..20 {
        let (x, q, v, w) = random_state(&mut rng);
        for (k, j) in m.joints.iter().enumerate() {
            let at = |s: f64| {
                let side = |i: usize| (x[i] + v[i] * s, quat_exp(w[i] * s) * q[i]);
                JointPose::at(&m, j, side(0), j.body2.map(|_| side(1)))
            };
            let world = j.body2.is_none();
            let (vv, ww) = if world { ([v[0], Vec3::ZERO], [w[0], Vec3::ZERO]) } else { (v, w) };
            let rows = |p: JointPose| {
                let mut r = Vec::new();
                p.bilateral_rows(j.kind, &mut r);
                r.extend(p.coordinate_row(j.kind));
                r
            };
            let (r0, rp, rm) = (rows(at(0.0)), rows(at(h)), rows(at(-h)));
            for (i, row) in r0.iter().enumerate() {
                let mut diff = rp[i].c - rm[i].c;
                if i == r0.len() - 1 && j.kind == JointType::Hinge {
                    diff = wrap_angle(diff);
                }
                let fd = diff / (2.0 * h);
                let an = row.rate(vv, ww);
                assert!((fd - an).abs() < 1e-6 * (1.0 + an.abs()), "trial {trial} joint {k} ({:?}) row {i}: {fd} vs {an}", j.kind);
            }
        }
    }
}

/// At the load pose every bilateral row is zero and the coordinates are 0; rotating body b about the hinge
/// axis by θ gives q = θ, and sliding it along the prismatic axis by s gives q = s.
#[test]
fn rows_vanish_at_load_and_coordinates_measure_the_motion() {
    let m = model();
    let state = State::from_model(&m);
    for j in &m.joints {
        let p = JointPose::of(&m, j, &state.bodies);
        let mut rows = Vec::new();
        p.bilateral_rows(j.kind, &mut rows);
        let n = match j.kind {
            JointType::Ball => 3,
            JointType::Hinge | JointType::Prismatic => 5,
            JointType::Fixed => 6,
        };
        assert_eq!(rows.len(), n);
        assert!(rows.iter().all(|r| r.c.abs() < 1e-12), "{:?}: {rows:?}", j.kind);
        if let Some(r) = p.coordinate_row(j.kind) {
            assert!(r.c.abs() < 1e-12);
        }
    }
    let (hinge, prismatic) = (&m.joints[1], &m.joints[2]);
    let b = state.bodies[1];
    for theta in [0.3, -2.5, 3.0] {
        let rot = Quat::from_axis_angle(hinge.axis, theta);
        let x = hinge.anchor + rot * (b.x - hinge.anchor);
        let p = JointPose::at(&m, hinge, (state.bodies[0].x, state.bodies[0].q), Some((x, rot * b.q)));
        let mut rows = Vec::new();
        p.bilateral_rows(JointType::Hinge, &mut rows);
        assert!(rows.iter().all(|r| r.c.abs() < 1e-12), "{rows:?}");
        assert!((p.coordinate_row(JointType::Hinge).unwrap().c - theta).abs() < 1e-12);
    }
    // a body on a hinge to the world: q is the body's own angle about the axis
    let world = &m.joints[4];
    let theta = 0.8;
    let rot = Quat::from_axis_angle(world.axis, theta);
    let x = world.anchor + rot * (b.x - world.anchor);
    let p = JointPose::at(&m, world, (x, rot * b.q), None);
    assert!((p.coordinate_row(JointType::Hinge).unwrap().c - theta).abs() < 1e-12);
    let s = 0.37;
    let p = JointPose::at(&m, prismatic, (state.bodies[0].x, state.bodies[0].q), Some((b.x + prismatic.axis * s, b.q)));
    assert!((p.coordinate_row(JointType::Prismatic).unwrap().c - s).abs() < 1e-12);
    let mut rows = Vec::new();
    p.bilateral_rows(JointType::Prismatic, &mut rows);
    assert!(rows.iter().all(|r| r.c.abs() < 1e-12), "{rows:?}");
}

#[test]
fn motor_targets_follow_the_path_and_the_force_is_clamped() {
    let motor = Motor {
        target: 0.0,
        stiffness: 10.0,
        damping: 2.0,
        max_force: Some(3.0),
        path: vec![MotorWaypoint { time: 1.0, value: 0.0 }, MotorWaypoint { time: 3.0, value: 1.0 }],
    };
    assert_eq!(path_target(&motor, 0.0), MotorTarget { value: 0.0, rate: 0.0, external: false });
    assert_eq!(path_target(&motor, 2.0), MotorTarget { value: 0.5, rate: 0.5, external: false });
    assert_eq!(path_target(&motor, 5.0), MotorTarget { value: 1.0, rate: 0.0, external: false });
    let t = path_target(&motor, 2.0);
    assert!((motor_force(JointType::Prismatic, &motor, &t, 0.45, 0.4) - (10.0 * 0.05 + 2.0 * 0.1)).abs() < 1e-12);
    assert_eq!(motor_force(JointType::Prismatic, &motor, &t, -5.0, 0.0), 3.0);
    // a hinge's error is the short way round
    let h = MotorTarget { value: 3.0, rate: 0.0, external: false };
    let free = Motor { max_force: None, ..motor };
    assert!((motor_force(JointType::Hinge, &free, &h, -3.0, 0.0) - 10.0 * (6.0 - 2.0 * PI)).abs() < 1e-12);
    assert!((wrap_angle(3.0 * PI) - PI).abs() < 1e-12 && (wrap_angle(-0.5) + 0.5).abs() < 1e-15);
}
