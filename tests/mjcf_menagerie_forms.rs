//! Forms of MJCF that public robot models use (found running the MuJoCo Menagerie), each in a small model
//! written here: a `general` actuator with a position servo's law and a `velocity` actuator become their joint's
//! motor (implicit, so stiff servos on light links stay stable at MuJoCo's time steps), an element's `kv` over
//! its class's `dampratio`, several `<worldbody>` elements (an included file brings its own), a point-mass
//! `<inertial>` on a body welded to the world, an empty attribute, a mesh's `content_type`, and a flat mesh.

mod common;

use cairn::model::MethodKey;

/// A light arm (I ≈ 3.4e-4 kg·m² about its hinge) under a servo of kp 2000, kv 200 written as `general`, and a
/// light wheel under a `velocity` actuator of kv 100: at h = 2 ms, h·kv/I is far above 2, where an explicit
/// damper diverges.
const SERVOS: &str = r#"<mujoco>
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="swing" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01" mass="0.1"/>
    </body>
    <body name="wheel" pos="1 0 1">
      <joint name="spin" type="hinge" axis="0 0 1"/>
      <geom type="cylinder" size="0.05 0.01" mass="0.2"/>
    </body>
  </worldbody>
  <actuator>
    <general name="servo" joint="swing" gaintype="fixed" biastype="affine" gainprm="2000" biasprm="0 -2000 -200"/>
    <velocity name="drive" joint="spin" kv="100" ctrlrange="-5 5"/>
  </actuator>
</mujoco>
"#;

#[test]
fn a_general_position_servo_and_a_velocity_actuator_are_their_joints_motors() {
    for m in MethodKey::ALL {
        let mut w = common::mjcf_world("servos", SERVOS, m).unwrap();
        let a = &w.model.actuators;
        let servo = a[0].servo.expect("a general actuator with a position law is a servo");
        assert!(!servo.velocity);
        let drive = a[1].servo.expect("a velocity actuator is a servo");
        assert!(drive.velocity);
        assert_eq!(w.model.joints[1].motor.as_ref().unwrap().stiffness, 0.0);
        w.set_ctrl(&[0.5, 3.0]).unwrap();
        assert_eq!(w.ctrl(), vec![0.5, 3.0], "{m}: the controls read back");
        for _ in 0..500 {
            w.step().unwrap_or_else(|e| panic!("{m}: {e}"));
        }
        let q = cairn::dynamics::joint::coordinates(&w.model, &w.state);
        // the servo is overdamped with time constant kv/kp = 0.1 s: after 1 s within e^-10 of its target
        assert!((q[0].1 - 0.5).abs() < 5e-3, "{m}: the arm at {} for 0.5", q[0].1);
        assert!(q[0].2.abs() < 0.05, "{m}: the arm still turns at {}", q[0].2);
        // the wheel's rate settles at the commanded 3 rad/s (time constant I/kv = 2.5e-6 s)
        assert!((q[1].2 - 3.0).abs() < 0.03, "{m}: the wheel turns at {} for 3", q[1].2);
    }
}

#[test]
fn an_elements_kv_wins_over_its_class_dampratio() {
    let xml = r#"<mujoco>
  <default><default class="pos"><position dampratio="1"/></default></default>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="swing" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/>
    </body>
  </worldbody>
  <actuator><position class="pos" name="p" joint="swing" kp="100" kv="7"/></actuator>
</mujoco>
"#;
    let w = common::mjcf_world("kvclass", xml, MethodKey::Lcp).unwrap();
    assert_eq!(w.model.actuators[0].bias, [0.0, -100.0, -7.0]);
    assert_eq!(w.model.joints[0].motor.as_ref().unwrap().damping, 7.0);
    let both = xml.replace(r#"kv="7""#, r#"kv="7" dampratio="1""#);
    let Err(e) = common::mjcf_world("kvboth", &both, MethodKey::Lcp) else { panic!("kv and dampratio on one element load") };
    assert!(e.contains("give `kv` or `dampratio`, not both"), "{e}");
}

#[test]
fn an_included_worldbody_joins_the_scenes_world_and_a_welded_point_mass_loads() {
    let dir = std::env::temp_dir().join(format!("cairn-mjcf-forms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // the robot's file: a site on the world, a base welded to it with a point mass (diaginertia 0), an empty rgba
    std::fs::write(
        dir.join("robot.xml"),
        r#"<mujoco>
  <worldbody>
    <site name="origin"/>
    <body name="base" pos="0 0 0.5">
      <inertial pos="0 0 0" mass="2" diaginertia="0 0 0"/>
      <geom type="box" size="0.1 0.1 0.1" rgba="" contype="0" conaffinity="0"/>
      <body name="ball" pos="0.5 0 0.5"><freejoint/><geom type="sphere" size="0.05" mass="1" rgba=""/></body>
    </body>
  </worldbody>
</mujoco>
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("scene.xml"),
        r#"<mujoco>
  <include file="robot.xml"/>
  <worldbody><geom name="floor" type="plane" size="0 0 0.05"/></worldbody>
</mujoco>
"#,
    )
    .unwrap();
    let model = cairn::scene::load(&dir.join("scene.xml"), &[]).unwrap();
    let mut w = cairn::World::new(model).unwrap();
    let names: Vec<&str> = w.model.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names.iter().filter(|n| **n == "world").count(), 1, "{names:?}");
    for _ in 0..300 {
        w.step().unwrap();
    }
    let ball = &w.state.bodies[w.model.body_index("ball").unwrap()];
    assert!((ball.x.z - 0.05).abs() < 2e-3, "the ball rests on the scene's floor: z = {}", ball.x.z);
    // a point mass is no inertia for a body that moves
    std::fs::write(
        dir.join("moving.xml"),
        r#"<mujoco><worldbody><body name="b"><freejoint/><inertial pos="0 0 0" mass="2" diaginertia="0 0 0"/></body></worldbody></mujoco>"#,
    )
    .unwrap();
    let Err(e) = cairn::scene::load(&dir.join("moving.xml"), &[]).and_then(cairn::World::new) else { panic!("a moving point mass loads") };
    let e = e.to_string();
    assert!(e.contains("link `b`") && e.contains("not positive definite"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An ASCII STL of the triangles `tris`.
fn stl(tris: &[[[f64; 3]; 3]]) -> String {
    let mut s = String::from("solid t\n");
    for t in tris {
        s += "facet normal 0 0 0\nouter loop\n";
        for v in t {
            s += &format!("vertex {} {} {}\n", v[0], v[1], v[2]);
        }
        s += "endloop\nendfacet\n";
    }
    s + "endsolid t\n"
}

#[test]
fn a_flat_mesh_collides_as_a_slab_and_content_type_must_match_the_file() {
    let dir = std::env::temp_dir().join(format!("cairn-mjcf-flat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // a 1 m square plate, one surface, as two triangles at z = 0
    let (a, b, c, d) = ([-0.5, -0.5, 0.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]);
    std::fs::write(dir.join("plate.stl"), stl(&[[a, b, c], [a, c, d]])).unwrap();
    let xml = |ct: &str| {
        format!(
            r#"<mujoco>
  <option timestep="0.002"/>
  <asset><mesh name="plate" file="plate.stl" {ct}/></asset>
  <worldbody>
    <geom type="mesh" mesh="plate" pos="0 0 0.2"/>
    <body name="box" pos="0 0 0.4"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
  </worldbody>
</mujoco>
"#
        )
    };
    std::fs::write(dir.join("ok.xml"), xml(r#"content_type="model/stl""#)).unwrap();
    let model = cairn::scene::load(&dir.join("ok.xml"), &[]).unwrap();
    let mut w = cairn::World::new(model).unwrap();
    assert!(w.notes().iter().any(|n| n.contains("mesh `plate` is flat")), "{:?}", w.notes());
    for _ in 0..500 {
        w.step().unwrap();
    }
    // the slab is 1 cm thick (1% of the plate's width), its top 5 mm above the plate's plane
    let z = w.state.bodies[w.model.body_index("box").unwrap()].x.z;
    assert!((z - (0.2 + 0.005 + 0.05)).abs() < 2e-3, "the box rests on the plate: z = {z}");
    std::fs::write(dir.join("bad.xml"), xml(r#"content_type="model/obj""#)).unwrap();
    let e = cairn::scene::load(&dir.join("bad.xml"), &[]).unwrap_err().to_string();
    assert!(e.contains("bad.xml line 3") && e.contains("content_type") && e.contains("model/stl and model/obj"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A hinge whose model pose lies outside its range (the Franka arm's fourth joint: range −3.07…−0.07, pose 0)
/// starts just inside it under `volumetric-penalty` (noted), where its stiff limit spring would fling the link.
#[test]
fn a_coordinate_outside_its_range_starts_inside_under_volumetric_penalty() {
    let xml = r#"<mujoco>
  <compiler angle="radian"/>
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="swing" type="hinge" axis="0 1 0" range="0.2 1" limited="true"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.2"/>
    </body>
  </worldbody>
</mujoco>
"#;
    let mut w = common::mjcf_world("outside", xml, MethodKey::VolumetricPenalty).unwrap();
    let mut fastest = 0.0f64;
    for _ in 0..100 {
        w.step().unwrap();
        fastest = fastest.max(cairn::dynamics::joint::coordinates(&w.model, &w.state)[0].2.abs());
    }
    let q = cairn::dynamics::joint::coordinates(&w.model, &w.state)[0].1;
    assert!((0.2..=0.202).contains(&q), "the hinge at {q}");
    assert!(fastest < 0.1, "the hinge turned at {fastest} rad/s");
    assert!(
        w.notes().iter().any(|n| n.contains("moved just inside") && n.contains("`swing` from 0.000000 to 0.201000")),
        "{:?}",
        w.notes()
    );
}
