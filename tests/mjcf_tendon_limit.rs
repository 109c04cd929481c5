//! A fixed tendon's length limit (MJCF `<fixed limited="true" range=...>`, as toddlerbot's waist couples its two
//! actuators): held as MuJoCo's soft limit by a spring that only pushes back in. Two hinged rods driven by
//! torques of 0.5 and 0.2 N·m without gravity, the tendon q_a + 0.5·q_b limited to [−0.2, 0.3]: MuJoCo 4.0.0
//! (pip package, this model) holds the length at 0.300427 from 0.5 s on while the rods keep turning along the
//! limit: q = (0.21164, 0.17756) at 0.5 s, (0.46406, −0.32727) at 1 s.

mod common;

use cairn::model::MethodKey;

const XML: &str = r#"<mujoco>
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="ja" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/>
    </body>
    <body name="b" pos="0 1 1">
      <joint name="jb" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="sum" limited="true" range="-0.2 0.3">
      <joint joint="ja" coef="1"/><joint joint="jb" coef="0.5"/>
    </fixed>
  </tendon>
  <actuator><motor name="ma" joint="ja"/><motor name="mb" joint="jb"/></actuator>
</mujoco>
"#;

#[test]
fn a_limited_fixed_tendon_holds_its_range_as_mujoco() {
    for m in MethodKey::ALL {
        let mut w = common::mjcf_world("tendonlimit", XML, m).unwrap();
        w.set_ctrl(&[0.5, 0.2]).unwrap();
        let mut longest = f64::NEG_INFINITY;
        let at = |w: &cairn::World| {
            let q = cairn::dynamics::joint::coordinates(&w.model, &w.state);
            (q[0].1, q[1].1)
        };
        for (steps, mujoco) in [(250, (0.21164, 0.17756)), (250, (0.46406, -0.32727))] {
            for _ in 0..steps {
                w.step().unwrap_or_else(|e| panic!("{m}: {e}"));
                let (a, b) = at(&w);
                longest = longest.max(a + 0.5 * b);
            }
            let (a, b) = at(&w);
            let length = a + 0.5 * b;
            assert!((length - 0.300427).abs() < 5e-4, "{m}: length {length} at t = {}", w.state.time);
            assert!((a - mujoco.0).abs() < 3e-3 && (b - mujoco.1).abs() < 3e-3, "{m}: q = ({a}, {b}), MuJoCo {mujoco:?}");
        }
        // it never overshoots the range by more than a soft limit does
        assert!(longest < 0.3 + 5e-3, "{m}: the length reached {longest}");
    }
}
