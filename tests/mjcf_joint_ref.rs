//! MJCF joint `ref`: the coordinate at the file's pose is `ref`, and limits, springs and position targets are in
//! the same units, under every method.

use cairn::World;

/// A pendulum hanging along −z at the file's pose, its hinge declared at ref = 30° with a range of [20°, 40°] and
/// a position servo; and a slider whose file pose is at ref = 0.25.
const XML: &str = r#"<mujoco>
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="bob" pos="0 0 1">
      <joint name="swing" type="hinge" axis="0 1 0" ref="30" range="20 40" limited="true"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05" mass="1"/>
    </body>
    <body name="cart" pos="2 0 1">
      <joint name="slide" type="slide" axis="1 0 0" ref="0.25" range="0.2 0.3" limited="true"/>
      <geom type="box" size="0.05 0.05 0.05" mass="1"/>
    </body>
  </worldbody>
  <actuator><position name="hold" joint="swing" kp="200" kv="5"/></actuator>
</mujoco>
"#;

fn world(method: &str) -> World {
    let dir = std::env::temp_dir().join(format!("cairn-mjcf-ref-{}-{method}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ref.xml");
    std::fs::write(&path, XML).unwrap();
    let opts = cairn::scene::LoadOptions { method: Some(cairn::model::MethodKey::parse(method).unwrap()), ..Default::default() };
    World::new(cairn::scene::load_with(&path, &opts).unwrap()).unwrap()
}

fn coordinate(w: &World, joint: usize) -> f64 {
    cairn::dynamics::joint::coordinates(&w.model, &w.state).into_iter().find(|c| c.0 == joint).unwrap().1
}

#[test]
fn the_coordinate_at_the_file_pose_is_ref() {
    let w = world("lcp");
    assert!((coordinate(&w, 0) - 30f64.to_radians()).abs() < 1e-12);
    assert!((coordinate(&w, 1) - 0.25).abs() < 1e-12);
}

/// The servo's control is a target in the file's units: 35° turns the pendulum 5° from its file pose (and no
/// further: the limit at 40° is not reached); the slider under no force stays at its ref.
#[test]
fn a_position_target_and_limits_are_in_the_files_units() {
    for method in ["lcp", "impulse", "volumetric-penalty", "abd"] {
        let mut w = world(method);
        w.set_ctrl(&[35f64.to_radians()]).unwrap();
        for _ in 0..1500 {
            w.step().unwrap();
        }
        let q = coordinate(&w, 0).to_degrees();
        // the servo holds the bob against gravity with a static error of m g l sin(q) / kp ≈ 0.6°
        assert!((q - 35.0).abs() < 1.5, "{method}: swing at {q}°, target 35°");
        let s = coordinate(&w, 1);
        assert!((s - 0.25).abs() < 1e-3, "{method}: slide at {s}, ref 0.25");
    }
}

/// A pendulum on a hinge whose parent can move (a heavy cart on a slider), with armature: under `lcp` the rotor
/// inertia joins the pendulum's, so small swings take 2π√((I_pivot + armature)/(m g l)).
#[test]
fn armature_on_a_moving_parent_slows_the_swing_under_lcp() {
    let xml = r#"<mujoco><option timestep="0.001" gravity="0 0 -9.81"/><worldbody>
      <body name="cart" pos="0 0 1"><joint name="rail" type="slide" axis="1 0 0"/>
        <geom type="box" size="0.1 0.1 0.1" mass="100000"/>
        <body name="bob" pos="0 0 0"><joint name="swing" type="hinge" axis="0 1 0" armature="0.5"/>
          <geom type="sphere" pos="0 0 -0.5" size="0.05" mass="1"/>
        </body></body></worldbody></mujoco>"#;
    let dir = std::env::temp_dir().join(format!("cairn-armature-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("armature.xml");
    std::fs::write(&path, xml).unwrap();
    let model = cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(cairn::model::MethodKey::Lcp)).unwrap();
    assert!(model.joints[1].armature == 0.5, "the armature stays on the joint whose parent moves");
    let mut w = World::new(model).unwrap();
    let bob = w.model.body_index("bob").unwrap();
    let (m, l) = (1.0, 0.5);
    let i_pivot = w.model.bodies[bob].inertia.y_axis.y + m * l * l;
    // start 0.05 rad out, find two successive upward zero crossings of the angle
    let mut q = w.qpos();
    q[1] = 0.05;
    w.set_qpos(&q).unwrap();
    let (mut last, mut crossings) = (0.05, Vec::new());
    while crossings.len() < 3 && w.state.time < 10.0 {
        w.step().unwrap();
        let a = w.qpos()[1];
        if last < 0.0 && a >= 0.0 {
            crossings.push(w.state.time);
        }
        last = a;
    }
    let period = (crossings[2] - crossings[0]) / 2.0;
    let expected = 2.0 * std::f64::consts::PI * ((i_pivot + 0.5) / (m * 9.81 * l)).sqrt();
    let without = 2.0 * std::f64::consts::PI * (i_pivot / (m * 9.81 * l)).sqrt();
    assert!((period - expected).abs() < 0.01 * expected, "period {period} s, expected {expected} s (without armature {without} s)");
}

/// A large torque on a very light link whose joint has armature (gymnasium's ant: gear 150 on links of about
/// 1e-4 kg·m², armature 1): under `lcp` the torque acts through the coordinate's row, so the joint accelerates
/// at τ/(I + armature) with no kick.
#[test]
fn a_torque_on_a_light_link_with_armature_accelerates_it_by_the_rotor_inertia() {
    let xml = r#"<mujoco><option timestep="0.01" gravity="0 0 0"/><worldbody>
      <body name="torso" pos="0 0 1"><freejoint/>
        <geom type="sphere" size="0.25" mass="5"/>
        <body name="leg" pos="0.25 0 0"><joint name="hip" type="hinge" axis="0 0 1" armature="1"/>
          <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.01" mass="0.02"/>
        </body></body></worldbody>
      <actuator><motor joint="hip" gear="150"/></actuator></mujoco>"#;
    let dir = std::env::temp_dir().join(format!("cairn-armature-torque-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("leg.xml");
    std::fs::write(&path, xml).unwrap();
    let model = cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(cairn::model::MethodKey::Lcp)).unwrap();
    let mut w = World::new(model).unwrap();
    w.set_ctrl(&[0.2]).unwrap();
    let leg = w.model.body_index("leg").unwrap();
    // the leg's inertia about the hinge, and the torso's share: the torso turns back, so the coordinate's inertia
    // is that of the two bodies in series about the axis plus the rotor's
    let r = w.state.bodies[leg].x - w.model.joints[0].anchor;
    let i_leg = w.model.bodies[leg].inertia.z_axis.z + 0.02 * (r.x * r.x + r.y * r.y);
    let torso = w.model.body_index("torso").unwrap();
    let i_torso = w.model.bodies[torso].inertia.z_axis.z;
    let reduced = 1.0 / (1.0 / i_leg + 1.0 / i_torso);
    for _ in 0..10 {
        w.step().unwrap();
    }
    let (t, h) = (w.state.time, w.model.dt);
    let q = w.qpos()[7];
    // semi-implicit Euler from rest: after n steps q = a h² n(n+1)/2 (½ a t² plus the scheme's a h t/2)
    let n = (t / h).round();
    let expected = 30.0 / (reduced + 1.0) * h * h * n * (n + 1.0) / 2.0;
    assert!((q - expected).abs() < 0.03 * expected, "hip at {q} rad after {t} s, expected {expected}");
}

/// gymnasium's reacher in small: two light links on hinges with armature 1, the first to the world (its rotor is
/// folded into the link's inertia for the methods without a coordinate row, which `lcp` takes back out), both
/// driven by gear-200 motors at dt 0.01. Each joint accelerates at τ/(armature + its links' small inertia), and
/// the turning links stay stable (the folded inertia, 1e4 times the link's own about its other axes, diverged
/// when turned with the link).
#[test]
fn two_light_links_with_armature_turn_steadily_under_lcp() {
    let xml = r#"<mujoco><option timestep="0.01" gravity="0 0 0"/><worldbody>
      <body name="b0"><joint name="j0" type="hinge" axis="0 0 1" armature="1"/>
        <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01"/>
        <body name="b1" pos="0.1 0 0"><joint name="j1" type="hinge" axis="0 0 1" armature="1"/>
          <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01"/></body></body></worldbody>
      <actuator><motor joint="j0" gear="200"/><motor joint="j1" gear="200"/></actuator></mujoco>"#;
    let dir = std::env::temp_dir().join(format!("cairn-armature-arm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("arm.xml");
    std::fs::write(&path, xml).unwrap();
    for (iterations, tolerance) in [(None, 0.08), (Some(200), 0.01)] {
        let mut opts = cairn::scene::LoadOptions::method(cairn::model::MethodKey::Lcp);
        if let Some(n) = iterations {
            opts.sets.push(("solver.lcp.iterations".into(), n.to_string()));
        }
        let mut w = World::new(cairn::scene::load_with(&path, &opts).unwrap()).unwrap();
        w.set_ctrl(&[0.1, -0.1]).unwrap();
        for _ in 0..50 {
            w.step().unwrap();
        }
        // 20 N·m on each coordinate of inertia 1 + ~1e-4: 10 rad/s after 0.5 s
        let qd = w.qvel();
        let expected = 20.0 * w.state.time;
        assert!(
            (qd[0] - expected).abs() < tolerance * expected && (qd[1] + expected).abs() < tolerance * expected,
            "{iterations:?} iterations: joint rates {qd:?}, expected ±{expected}"
        );
    }
}
