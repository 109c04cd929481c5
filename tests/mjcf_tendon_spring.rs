//! A fixed tendon's own `stiffness` and `damping` (dm_control's fish holds its fins symmetric so): a spring and
//! damper on the tendon's length about its length at the load pose, checked against MuJoCo 4.0.0 (0.5 s).

mod common;

use cairn::model::MethodKey;

const XML: &str = r#"<mujoco model="tendon">
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
    </body>
    <body name="b" pos="1 0 1">
      <joint name="h2" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03" mass="2"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="sync" stiffness="3" damping="0.05">
      <joint joint="h1" coef="1"/>
      <joint joint="h2" coef="-0.5"/>
    </fixed>
  </tendon>
</mujoco>
"#;

#[test]
fn a_tendon_spring_swings_two_hinges_as_in_mujoco() {
    // MuJoCo 4.0.0: qpos (0.4, 0) at rest, 250 steps → qpos (0.1957484633, 0.1098147418)
    let want = [0.1957484633, 0.1098147418];
    for m in [MethodKey::Lcp, MethodKey::Impulse, MethodKey::VolumetricPenalty, MethodKey::ImplicitPenalty, MethodKey::Abd] {
        let mut w = common::mjcf_world("tendon", XML, m).unwrap();
        w.set_qpos(&[0.4, 0.0]).unwrap();
        for _ in 0..250 {
            w.step().unwrap();
        }
        let q = w.qpos();
        // a quarter of a period of the coupled swing: within 2% of the swing (0.4 rad)
        for k in 0..2 {
            assert!((q[k] - want[k]).abs() < 0.008, "{m}: q{k} = {} (MuJoCo {})", q[k], want[k]);
        }
    }
    let bad = XML.replace("damping=\"0.05\"", "damping=\"0.05\" springlength=\"0.2\"");
    let e = common::mjcf_world("tendonbad", &bad, MethodKey::Lcp).err().expect("accepted");
    assert!(e.contains("explicit `springlength` is not supported"), "{e}");
}
