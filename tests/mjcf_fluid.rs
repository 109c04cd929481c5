//! A fluid medium (MJCF `<option density viscosity wind>`, dynamics/fluid.rs): MuJoCo's inertia model, checked
//! against MuJoCo 4.0.0 on the same file (Euler integrator, 0.5 s) under every method.

mod common;

use cairn::math::Vec3;
use cairn::model::MethodKey;

/// A 20 kg box, tilted, thrown and spun in water-dense, viscous air with a wind, falling under gravity.
const XML: &str = r#"<mujoco model="fluid">
  <option timestep="0.002" gravity="0 0 -9.81" density="1000" viscosity="0.5" wind="0.3 0 0"/>
  <worldbody>
    <body name="box" pos="0 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.3" mass="20"/>
    </body>
  </worldbody>
</mujoco>
"#;

#[test]
fn a_box_thrown_in_a_medium_slows_as_in_mujoco() {
    // MuJoCo 4.0.0, qvel set to v = (2, −1, 3) m/s, ω = (1, 2, −1.5) rad/s (world), 250 steps
    let (x, v, w) = (
        Vec3::new(0.5401114172, -0.2861068313, 0.8965744391),
        Vec3::new(0.3941415291, -0.3546824699, -1.6381732922),
        Vec3::new(0.6324972343, 1.3349506064, -0.4627372051),
    );
    for m in [MethodKey::Lcp, MethodKey::Impulse, MethodKey::VolumetricPenalty, MethodKey::ImplicitPenalty, MethodKey::Abd] {
        let mut world = common::mjcf_world("fluid", XML, m).unwrap();
        world.set_body_velocity(0, Vec3::new(2.0, -1.0, 3.0), Vec3::new(1.0, 2.0, -1.5)).unwrap();
        for _ in 0..250 {
            world.step().unwrap();
        }
        let s = world.state.bodies[0];
        // the drag takes most of the motion: v from 3.7 to 1.7 m/s, ω from 2.7 to 1.5 rad/s
        // positions within ½ g h t = 4.9 mm: how far MuJoCo's semi-implicit Euler and a method that substeps
        // (volumetric-penalty) or integrates implicitly may part in 0.5 s at h = 2 ms
        assert!((s.x - x).length() < 5e-3, "{m}: centre {} (MuJoCo {x})", s.x);
        assert!((s.v - v).length() < 5e-3 * v.length(), "{m}: velocity {} (MuJoCo {v})", s.v);
        assert!((s.w - w).length() < 1e-2 * w.length(), "{m}: angular velocity {} (MuJoCo {w})", s.w);
    }
}

#[test]
fn a_medium_is_checked() {
    let bad = XML.replace("viscosity=\"0.5\"", "viscosity=\"-1\"");
    let e = common::mjcf_world("fluidbad", &bad, MethodKey::Lcp).err().expect("accepted");
    assert!(e.contains("`density` and `viscosity` must be >= 0") && e.contains("line 2"), "{e}");
}

#[test]
fn a_disabled_gravity_flag_turns_gravity_off() {
    let xml = XML.replace("wind=\"0.3 0 0\"/>", "wind=\"0 0 0\"><flag gravity=\"disable\" energy=\"enable\"/></option>");
    let mut w = common::mjcf_world("nogravity", &xml, MethodKey::Lcp).unwrap();
    assert_eq!(w.model.gravity, Vec3::ZERO);
    assert!(w.notes().iter().any(|n| n.contains("<flag> energy")), "{:?}", w.notes());
    let x0 = w.state.bodies[0].x;
    for _ in 0..100 {
        w.step().unwrap();
    }
    assert_eq!(w.state.bodies[0].x, x0, "a body at rest in a still medium without gravity moved");
}
