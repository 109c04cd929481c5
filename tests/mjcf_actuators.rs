//! MJCF actuators, sites and sensors: what each element becomes, and a torque motor that drives.

use cairn::dynamics::actuator::{Dynamics, Transmission};
use cairn::dynamics::sensor::SensorKind;
use cairn::World;

const ARM: &str = r#"<mujoco>
  <option timestep="0.001" gravity="0 0 0"/>
  <default><motor ctrllimited="true" ctrlrange="-1 1"/></default>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" range="-90 90"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05" mass="1"/>
      <body name="fore" pos="0.5 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0" range="-60 60"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="0.5"/>
        <site name="tip" pos="0.5 0 0" type="box" size="0.02 0.02 0.02"/>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="sum"><joint joint="shoulder" coef="1"/><joint joint="elbow" coef="0.5"/></fixed></tendon>
  <actuator>
    <motor name="m" joint="shoulder" gear="3"/>
    <position name="p" joint="elbow" kp="50" dampratio="1" inheritrange="0.5"/>
    <velocity name="v" joint="shoulder" kv="2"/>
    <general name="g" tendon="sum" dyntype="integrator" gaintype="affine" gainprm="2 0 0" biastype="affine" biasprm="0 -1 -0.1" actlimited="true" actrange="-0.5 0.5"/>
    <motor name="s" site="tip" gear="0 0 1 0 0 0"/>
  </actuator>
  <sensor>
    <jointpos joint="elbow"/>
    <actuatorfrc actuator="m"/>
    <framepos objtype="site" objname="tip"/>
    <framequat objtype="xbody" objname="fore"/>
    <gyro site="tip"/>
    <subtreecom body="upper"/>
    <magnetometer site="tip"/>
  </sensor>
</mujoco>
"#;

fn load() -> World {
    // a folder per call: the tests run in parallel, and one writing the file while another reads it fails
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("cairn-mjcf-act-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("arm.xml");
    std::fs::write(&path, ARM).unwrap();
    let model = cairn::scene::load(&path, &[]).unwrap();
    World::new(model).unwrap()
}

#[test]
fn each_actuator_element_becomes_its_law() {
    let w = load();
    let m = &w.model;
    assert_eq!(w.actuator_names(), ["m", "p", "v", "g", "s"]);
    let a = &m.actuators;
    assert_eq!(a[0].gear[0], 3.0);
    assert_eq!(a[0].ctrl_range, Some([-1.0, 1.0]), "the default class's motor ctrlrange");
    // position: a servo on the elbow's motor, its control range half the joint's range about its middle
    let servo = a[1].servo.expect("a plain position actuator is its joint's motor");
    assert_eq!(servo.scale, 1.0);
    let half = 30f64.to_radians();
    let [lo, hi] = a[1].ctrl_range.unwrap();
    assert!((lo + half).abs() < 1e-12 && (hi - half).abs() < 1e-12, "{lo} {hi}");
    // dampratio 1: kv = 2·√(kp·I), I the forearm's inertia about the elbow
    let kv = -a[1].bias[2];
    let inertia = cairn::dynamics::actuator::joint_inertia(m, 1);
    assert!((kv - 2.0 * (50.0 * inertia).sqrt()).abs() < 1e-9, "kv {kv}, I {inertia}");
    assert!((m.joints[1].motor.as_ref().unwrap().damping - kv).abs() < 1e-9);
    assert_eq!(a[2].gain, [2.0, 0.0, 0.0]);
    assert_eq!(a[2].bias, [0.0, 0.0, -2.0]);
    assert_eq!(a[3].dynamics, Dynamics::Integrator);
    assert_eq!(a[3].transmission, Transmission::Tendon(vec![(0, 1.0), (1, 0.5)]));
    assert_eq!(a[3].act_range, Some([-0.5, 0.5]));
    assert!(matches!(a[4].transmission, Transmission::Site(_)));
    // sensors: the magnetometer is noted and skipped
    let kinds: Vec<&str> = m.sensors.iter().map(|s| s.kind.tag()).collect();
    assert_eq!(kinds, ["jointpos", "actuatorfrc", "framepos", "framequat", "gyro", "subtreecom"]);
    assert!(w.notes().iter().any(|n| n.contains("<magnetometer> sensor")), "{:?}", w.notes());
    assert!(matches!(m.sensors[5].kind, SensorKind::SubtreeCom(0)));
    assert_eq!(w.sensordata().len(), 1 + 1 + 3 + 4 + 3 + 3);
}

#[test]
fn a_torque_motor_and_the_integrator_drive_and_are_read_back() {
    let mut w = load();
    let n = w.model.actuators.len();
    assert!(w.set_ctrl(&[0.0; 2]).unwrap_err().to_string().contains("expected 5 controls"));
    let mut u = vec![0.0; n];
    u[0] = 2.0; // clamped to 1: torque 3 N·m on the shoulder
    u[3] = 1.0; // the integrator's activation grows at 1/s up to 0.5
    w.set_ctrl(&u).unwrap();
    for _ in 0..10 {
        w.step().unwrap();
    }
    assert_eq!(w.actuator_forces()[0], 1.0);
    assert!((w.sensordata()[1] - 1.0).abs() < 1e-15, "actuatorfrc reads the clamped force");
    assert!((w.act()[3] - 0.01).abs() < 1e-12, "activation {}", w.act()[3]);
    for _ in 0..1000 {
        w.step().unwrap();
    }
    assert_eq!(w.act()[3], 0.5, "the activation stops at actrange");
    // the framepos sensor is the tip site's world position, the gyro its body's angular velocity
    let (p, _) = cairn::dynamics::actuator::site_pose(&w.model, &w.state, 0);
    assert_eq!(&w.sensordata()[2..5], &p.to_array());
}

/// A body with two hinges (z, then y, at one point) on a fixed base: cairn chains it through an intermediate
/// link. A torque on the first hinge must turn the whole body as MuJoCo's massless frame would: ω̇ = τ/I_zz,
/// in every method (the actuator's torque passes through the intermediate link to the body).
#[test]
fn a_torque_on_a_chained_joint_turns_the_body_behind_it() {
    let xml = r#"<mujoco>
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="base" pos="0 0 1">
      <geom type="box" size="0.05 0.05 0.05" mass="1"/>
      <body name="arm" pos="0 0 0">
        <joint name="yaw" type="hinge" axis="0 0 1"/>
        <joint name="pitch" type="hinge" axis="0 1 0"/>
        <geom type="box" pos="0.3 0 0" size="0.3 0.05 0.02" mass="2"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor name="yaw" joint="yaw" gear="10"/><motor name="pitch" joint="pitch" gear="10"/></actuator>
</mujoco>
"#;
    let dir = std::env::temp_dir().join(format!("cairn-mjcf-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("chain.xml");
    std::fs::write(&path, xml).unwrap();
    // I_zz of the arm about the hinge: a 0.6 × 0.1 × 0.04 box of 2 kg centred 0.3 m out
    let izz = 2.0 * (0.36 + 0.01) / 12.0 + 2.0 * 0.09;
    for method in cairn::model::MethodKey::ALL {
        let loaded = cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(method)).and_then(World::new);
        let mut w = loaded.unwrap();
        let arm = w.model.body_index("arm").unwrap();
        w.set_ctrl(&[0.1, 0.0]).unwrap();
        let steps = 10;
        for _ in 0..steps {
            w.step().unwrap();
        }
        let wz = w.state.bodies[arm].w.z;
        let expected = 1.0 * w.state.time / izz;
        assert!((wz - expected).abs() / expected < 0.02, "{method}: ω_z {wz}, expected {expected}");
        assert!(w.state.bodies[arm].w.y.abs() < 0.02 * expected, "{method}: the pitch hinge moved: ω {:?}", w.state.bodies[arm].w);
    }
}

/// Controls and activations are state: a snapshot (in memory and through JSON) restores them bit for bit.
#[test]
fn a_snapshot_carries_controls_and_activations() {
    let mut w = load();
    w.set_ctrl(&[0.3, 0.1, 0.2, 1.0, 0.5]).unwrap();
    for _ in 0..20 {
        w.step().unwrap();
    }
    let snap = w.snapshot();
    let json = serde_json::to_string(&snap).unwrap();
    let run = |w: &mut World| -> Vec<u64> {
        for _ in 0..30 {
            w.step().unwrap();
        }
        let mut bits: Vec<u64> =
            w.state.bodies.iter().flat_map(|b| b.x.to_array().into_iter().chain(b.w.to_array())).map(f64::to_bits).collect();
        bits.extend(w.act().iter().chain(w.sensordata()).map(|x| x.to_bits()));
        bits
    };
    let first = run(&mut w);
    w.set_ctrl(&[0.0; 5]).unwrap();
    w.restore(&snap).unwrap();
    assert_eq!(w.ctrl(), vec![0.3, 0.1, 0.2, 1.0, 0.5]);
    assert_eq!(run(&mut w), first);
    w.restore(&serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(run(&mut w), first);
}
