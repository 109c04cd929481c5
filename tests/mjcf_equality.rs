//! MJCF `<equality>` (issue "The world's robot files load and run"): `connect` closes a loop as a ball joint,
//! `weld` holds two bodies as a fixed joint, `joint` and `tendon` couple two coordinates or fixed tendons. Checked against MuJoCo (4.0.0, the
//! same files, its default soft constraints; numbers in the tests) and against what the constraints mean, under
//! every method (the links have no collision geometry: implicit-penalty gives them an empty compound field).
//! Also abd on such links: they had no volume for its orthogonality potential and deformed freely.

use cairn::model::MethodKey;
use cairn::world::World;

mod common;

const METHODS: [MethodKey; 5] = MethodKey::ALL;

fn load(name: &str, xml: &str, m: MethodKey) -> Result<World, String> {
    common::mjcf_world(name, xml, m)
}

/// Joint `k`'s coordinate.
fn q(w: &World, k: usize) -> f64 {
    cairn::dynamics::joint::coordinates(&w.model, &w.state).iter().find(|c| c.0 == k).map(|c| c.1).expect("a coordinate")
}

fn run(w: &mut World, steps: usize, m: MethodKey) {
    for _ in 0..steps {
        w.step().unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

const FOURBAR: &str = r#"<mujoco model="fourbar">
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <default><geom contype="0" conaffinity="0" size="0.02" mass="1"/></default>
  <worldbody>
    <body name="crank" pos="0 0 1">
      <joint name="a" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0"/>
      <body name="coupler" pos="0.3 0 0">
        <joint name="b" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0.3"/>
      </body>
    </body>
    <body name="rocker" pos="0.8 0 1">
      <joint name="c" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 -0.1 0 0.3"/>
    </body>
  </worldbody>
  <equality>
    <connect name="close" body1="coupler" body2="rocker" anchor="0.4 0 0.3"/>
  </equality>
</mujoco>"#;

/// A four-bar linkage closed by `connect` falls as MuJoCo's does: its three angles at 0.2 s within 0.01 rad of
/// MuJoCo's (0.6440, −0.8779, −0.5447), and the loop's two ends together within 1 mm all along.
#[test]
fn connect_closes_a_four_bar_linkage_as_mujoco_does() {
    for m in METHODS {
        let mut w = load("fourbar", FOURBAR, m).unwrap();
        let (coupler, rocker) = (w.model.body_index("coupler").unwrap(), w.model.body_index("rocker").unwrap());
        let end = |w: &World, b: usize, local: cairn::math::Vec3| {
            let s = &w.state.bodies[b];
            s.x + s.q * (local - w.model.bodies[b].com)
        };
        let mut gap = 0.0f64;
        for _ in 0..100 {
            run(&mut w, 1, m);
            let a = end(&w, coupler, cairn::math::Vec3::new(0.4, 0.0, 0.3));
            let b = end(&w, rocker, cairn::math::Vec3::new(-0.1, 0.0, 0.3));
            gap = gap.max((a - b).length());
        }
        let got = [q(&w, 0), q(&w, 1), q(&w, 2)];
        for (g, want) in got.iter().zip([0.6440, -0.8779, -0.5447]) {
            assert!((g - want).abs() < 0.01, "{m}: angles {got:?}, MuJoCo [0.6440, -0.8779, -0.5447]");
        }
        assert!(gap < 1e-3, "{m}: the loop opened by {gap} m");
    }
}

const FINGERS: &str = r#"<mujoco model="fingers">
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="hand" pos="0 0 0.5">
      <geom type="box" size="0.05 0.05 0.02" mass="1" contype="0" conaffinity="0"/>
      <body name="left" pos="0 0.03 -0.05">
        <joint name="finger1" type="slide" axis="0 1 0" range="0 0.04"/>
        <geom type="box" size="0.01 0.005 0.03" mass="0.1" contype="0" conaffinity="0"/>
      </body>
      <body name="right" pos="0 -0.03 -0.05">
        <joint name="finger2" type="slide" axis="0 -1 0" range="0 0.04"/>
        <geom type="box" size="0.01 0.005 0.03" mass="0.1" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="finger1" joint2="finger2" polycoef="0 1 0 0 0"/>
  </equality>
  <actuator>
    <motor name="squeeze" joint="finger1"/>
  </actuator>
</mujoco>"#;

/// A gripper's mirrored fingers (a Panda's `<equality><joint>`), one driven by 1 N: the other follows within
/// 0.5 mm, and the pair moves as one of 0.2 kg: ½ (F/2m) t² at 0.1 s within 2% (MuJoCo: 25.69 and 25.31 mm).
/// Without the equality the second finger stays put.
#[test]
fn a_joint_equality_moves_the_mirrored_finger() {
    for m in METHODS {
        let mut w = load("fingers", FINGERS, m).unwrap();
        w.state.inputs.ctrl[0] = 1.0;
        let mut lag = 0.0f64;
        for _ in 0..50 {
            run(&mut w, 1, m);
            lag = lag.max((q(&w, 0) - q(&w, 1)).abs());
        }
        // the integrators' ½ a h² n(n + 1) after n steps of h from rest: 25.5 mm (MuJoCo's mean: 25.50 mm)
        let (a, h, n) = (1.0 / 0.2, 0.002, 50.0);
        let want = 0.5 * a * h * h * n * (n + 1.0);
        let mean = 0.5 * (q(&w, 0) + q(&w, 1));
        assert!((mean - want).abs() < 0.02 * want, "{m}: the pair moved {mean} m in 0.1 s, not {want}");
        assert!(lag < 5e-4, "{m}: the second finger lagged {lag} m");
        let open = FINGERS.replace("<joint joint1=\"finger1\" joint2=\"finger2\" polycoef=\"0 1 0 0 0\"/>", "");
        let mut w = load("open", &open, m).unwrap();
        w.state.inputs.ctrl[0] = 1.0;
        run(&mut w, 50, m);
        assert!(q(&w, 1).abs() < 1e-6, "{m}: the uncoupled finger moved {}", q(&w, 1));
    }
}

/// Two free boxes welded together fall as one: their relative pose holds within 0.1 mm and 1 mrad while they
/// tumble (the upper one is off-centre, so the pair spins).
#[test]
fn weld_holds_two_free_bodies_together() {
    let xml = r#"<mujoco model="weld">
  <option timestep="0.002"/>
  <worldbody>
    <body name="a" pos="0 0 5"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="b" pos="0.15 0 5.25"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="3"/></body>
  </worldbody>
  <equality><weld body1="a" body2="b"/></equality>
</mujoco>"#;
    for m in METHODS {
        let mut w = load("weld", xml, m).unwrap();
        w.state.bodies[0].w = cairn::math::Vec3::new(0.0, 3.0, 0.0);
        let rel = |w: &World| {
            let (a, b) = (&w.state.bodies[0], &w.state.bodies[1]);
            (a.q.inverse() * (b.x - a.x), a.q.inverse() * b.q)
        };
        let (p0, r0) = rel(&w);
        run(&mut w, 200, m);
        let (p, r) = rel(&w);
        assert!((p - p0).length() < 1e-4, "{m}: the weld moved {} m", (p - p0).length());
        assert!(r.angle_between(r0) < 1e-3, "{m}: the weld turned {} rad", r.angle_between(r0));
        assert!(w.state.bodies[0].x.z < 4.9, "{m}: the pair did not fall");
    }
}

/// A tendon equality (dm_control's quadruped couples each leg's joints so): a fixed tendon q_a + q_b held at its
/// load length keeps the lower link level while the upper one swings.
#[test]
fn a_tendon_equality_holds_the_tendon_length() {
    let xml = r#"<mujoco model="level">
  <option timestep="0.002"/>
  <default><geom contype="0" conaffinity="0" size="0.02" mass="1"/></default>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="a" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="b" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0"/>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="sum"><joint joint="a" coef="1"/><joint joint="b" coef="1"/></fixed></tendon>
  <equality><tendon tendon1="sum"/></equality>
</mujoco>"#;
    for m in METHODS {
        let mut w = load("level", xml, m).unwrap();
        let mut worst = 0.0f64;
        for _ in 0..250 {
            run(&mut w, 1, m);
            worst = worst.max((q(&w, 0) + q(&w, 1)).abs());
        }
        assert!(q(&w, 0).abs() > 0.3, "{m}: the upper link did not swing ({} rad)", q(&w, 0));
        assert!(worst < 0.01, "{m}: the tendon's length left its load value by {worst} rad");
    }
}

/// Equalities cairn cannot hold are refused naming the line and what is allowed.
#[test]
fn unsupported_equalities_are_refused_by_line() {
    let base = FINGERS.replace("<actuator>\n    <motor name=\"squeeze\" joint=\"finger1\"/>\n  </actuator>\n", "");
    for (equality, want) in [
        ("<flex flex=\"f\"/>", "<flex> is not supported"),
        ("<tendon tendon1=\"t\"/>", "`tendon1`: unknown fixed tendon `t`"),
        ("<joint joint1=\"nope\"/>", "`joint1`: unknown joint `nope`"),
        ("<connect body1=\"left\" body2=\"ghost\" anchor=\"0 0 0\"/>", "`body2`: unknown body `ghost`"),
        ("<joint joint1=\"finger1\" polycoef=\"0 1\"/>", "`polycoef` needs 5 numbers"),
        ("<weld body1=\"left\" body2=\"left\"/>", "the same body"),
    ] {
        let xml = base.replace("<joint joint1=\"finger1\" joint2=\"finger2\" polycoef=\"0 1 0 0 0\"/>", equality);
        let e = load("bad", &xml, MethodKey::Lcp).err().unwrap_or_else(|| panic!("accepted: {equality}"));
        assert!(e.contains(want) && e.contains("line"), "{equality}: {e}");
    }
}

/// abd on a link without collision geometry (MJCF contype 0): a pendulum swings as MuJoCo's (0.9165 rad at
/// 0.2 s) instead of deforming off its hinge.
#[test]
fn abd_runs_links_without_collision_geometry() {
    let xml = r#"<mujoco model="pend">
  <option timestep="0.002"/>
  <worldbody>
    <body name="crank" pos="0 0 1">
      <joint name="a" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>"#;
    let mut w = load("pend", xml, MethodKey::Abd).unwrap();
    run(&mut w, 100, MethodKey::Abd);
    assert!((q(&w, 0) - 0.9165).abs() < 0.01, "abd: {} rad at 0.2 s, MuJoCo 0.9165", q(&w, 0));
}
