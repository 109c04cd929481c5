//! MJCF joint `armature` (a rotor's inertia on the joint's coordinate) under every method: on an elbow whose
//! parent swings (not foldable into a body's inertia) against MuJoCo 4.0.0, and on a slider pushed by a motor
//! against the analytic acceleration F/(m + armature); on a ball joint hung from the world against the
//! pendulum's period.

mod common;

use cairn::model::MethodKey;
use cairn::World;

/// A double pendulum released horizontal; the elbow's rotor inertia 0.05 kg·m² is of the order of the lower
/// link's own (0.027 kg·m² about the elbow), so it changes the motion by radians.
const PENDULUM: &str = r#"<mujoco model="armature_pendulum">
  <option timestep="0.001" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03" mass="1" contype="0" conaffinity="0"/>
      <body name="lower" pos="0.5 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0" armature="ARMATURE"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" mass="0.5" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"#;

/// MuJoCo 4.0.0 on `PENDULUM` (Euler, dt 0.001): (time, shoulder, elbow) in rad, with armature 0.05 and 0.
const MUJOCO: [(f64, f64, f64); 3] = [(0.2, 0.3743, -0.1211), (0.4, 1.3892, -0.3412), (0.6, 2.4589, -0.1605)];
const MUJOCO_WITHOUT: [(f64, f64, f64); 3] = [(0.2, 0.4898, -0.6107), (0.4, 1.4131, -0.2725), (0.6, 2.3103, 0.6613)];

/// A 1 kg cart on a rail of armature 1 kg, pushed by 1 N.
const SLIDER: &str = r#"<mujoco>
  <option timestep="0.001" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="cart" pos="0 2 1">
      <joint name="rail" type="slide" axis="1 0 0" armature="1"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><motor name="push" joint="rail" gear="1"/></actuator>
</mujoco>
"#;

fn coordinates(w: &World) -> Vec<f64> {
    cairn::dynamics::joint::coordinates(&w.model, &w.state).into_iter().map(|c| c.1).collect()
}

fn pendulum(m: MethodKey, armature: f64) -> Vec<(f64, f64, f64)> {
    let xml = PENDULUM.replace("ARMATURE", &armature.to_string());
    let mut w = common::mjcf_world("armature", &xml, m).unwrap();
    let mut out = Vec::new();
    for k in 1..=600 {
        w.step().unwrap();
        if k % 200 == 0 {
            let q = coordinates(&w);
            out.push((w.state.time, q[0], q[1]));
        }
    }
    out
}

/// The elbow's armature is inertia on its coordinate under every method: within 0.03 rad of MuJoCo over 0.6 s,
/// where leaving it out is 0.8 rad off (checked on one method: the file without armature follows MuJoCo's run
/// without it).
#[test]
fn an_elbow_rotor_on_a_swinging_arm_moves_as_in_mujoco() {
    for m in MethodKey::ALL {
        let got = pendulum(m, 0.05);
        for ((t, q1, q2), (tm, m1, m2)) in got.iter().zip(MUJOCO) {
            assert!((t - tm).abs() < 1e-9);
            assert!((q1 - m1).abs() < 0.03 && (q2 - m2).abs() < 0.03, "{m} at {t} s: ({q1:.4}, {q2:.4}) vs MuJoCo ({m1}, {m2})");
        }
    }
    for ((_, q1, q2), (_, m1, m2)) in pendulum(MethodKey::Lcp, 0.0).iter().zip(MUJOCO_WITHOUT) {
        assert!((q1 - m1).abs() < 0.03 && (q2 - m2).abs() < 0.03, "without armature: ({q1:.4}, {q2:.4}) vs ({m1}, {m2})");
    }
}

/// A slider's armature adds to the mass its motor accelerates: x(t) = ½·F/(m + a)·t² (MuJoCo: 0.062625 m at
/// 0.5 s), half of what the cart alone would travel.
#[test]
fn a_rail_rotor_adds_to_the_mass_a_motor_pushes() {
    for m in MethodKey::ALL {
        let mut w = common::mjcf_world("armature_rail", SLIDER, m).unwrap();
        w.set_ctrl(&[1.0]).unwrap();
        for _ in 0..500 {
            w.step().unwrap();
        }
        let x = coordinates(&w)[0];
        let want = 0.5 * 1.0 / (1.0 + 1.0) * 0.5 * 0.5;
        assert!((x - want).abs() < 0.02 * want, "{m}: {x} m vs {want} m");
    }
}

/// A 1 kg ball on a massless-looking rod hung from the world by a ball joint with armature ARMATURE,
/// tilted 0.1 rad (5.7296°) about x. The joint's `axis` (which MuJoCo ignores on a ball joint) lies along the
/// swing's axis, so that a method taking the armature back out as a hinge's about that axis would swing it as
/// if it had none.
const BALL: &str = r#"<mujoco>
  <option timestep="0.001" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="bob" pos="0 0 1" euler="5.7296 0 0">
      <joint name="pivot" type="ball" axis="1 0 0" armature="ARMATURE"/>
      <geom type="sphere" pos="0 0 -0.5" size="0.05" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>
"#;

/// The period of the ball pendulum of [`BALL`] under `m`: twice the time between its first and second
/// crossings of the vertical.
fn ball_period(m: MethodKey, armature: f64) -> f64 {
    let mut w = common::mjcf_world("armature_ball", &BALL.replace("ARMATURE", &armature.to_string()), m).unwrap();
    let bob = w.model.bodies.iter().position(|b| b.name == "bob").unwrap();
    let mut crossings = Vec::new();
    let mut last = w.state.bodies[bob].x.y;
    while crossings.len() < 2 && w.state.time < 4.0 {
        w.step().unwrap();
        let y = w.state.bodies[bob].x.y;
        if y.signum() != last.signum() {
            // linear between the two steps
            crossings.push(w.state.time - w.model.dt * y / (y - last));
        }
        last = y;
    }
    assert_eq!(crossings.len(), 2, "{m}: {crossings:?}");
    2.0 * (crossings[1] - crossings[0])
}

/// A ball joint's armature (MuJoCo: armature·I on its three rotational coordinates) hung from the world is
/// inertia on its swing under every method: the period 2π√((I_pivot + a)/(m g l)) within 1%, with I_pivot =
/// 2/5·m r² + m l² = 0.251 kg·m²; a = 0.25 lengthens it from 1.42 to 2.01 s.
#[test]
fn a_ball_joints_rotor_hung_from_the_world_slows_its_swing() {
    for m in MethodKey::ALL {
        for a in [0.0, 0.25] {
            let want = 2.0 * std::f64::consts::PI * ((0.251 + a) / (9.81 * 0.5f64)).sqrt();
            let got = ball_period(m, a);
            assert!((got - want).abs() < 0.01 * want, "{m}, armature {a}: period {got} s vs {want} s");
        }
    }
}
