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
