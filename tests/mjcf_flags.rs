//! MJCF `<option><flag>`: `contact`, `limit`, `equality` and `constraint` (all three) set to "disable" take
//! those constraints out, as MuJoCo does (dm_control's cartpole, reacher and point_mass disable contact: their
//! overlapping geoms never collide).

mod common;

use cairn::model::MethodKey;

/// A ball above a floor, a pendulum on a hinge limited to ±0.3 rad released horizontal (it falls onto the limit at 0.3), and
/// a second ball pinned to the first pendulum by a `connect` equality.
fn xml(flag: &str) -> String {
    format!(
        r#"<mujoco>
  <option timestep="0.002">{flag}</option>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="ball" pos="0 0 0.3"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
    <body name="arm" pos="2 0 1">
      <joint name="swing" type="hinge" axis="0 1 0" range="-0.3 0.3" limited="true"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1" contype="0" conaffinity="0"/>
    </body>
    <body name="bob" pos="2.5 0 1"><freejoint/><geom type="sphere" size="0.05" mass="0.1" contype="0" conaffinity="0"/></body>
  </worldbody>
  <equality><connect body1="arm" body2="bob" anchor="0.5 0 0"/></equality>
</mujoco>
"#
    )
}

/// (ball height, largest swing angle, bob's distance from the arm's tip) after 1 s.
fn run(flag: &str, m: MethodKey) -> (f64, f64, f64) {
    let mut w = common::mjcf_world(&format!("flags{}", flag.len()), &xml(flag), m).unwrap();
    let mut swing = f64::NEG_INFINITY;
    for _ in 0..500 {
        w.step().unwrap();
        let q = cairn::dynamics::joint::coordinates(&w.model, &w.state)[0].1;
        swing = swing.max(q.abs());
    }
    let body = |n: &str| w.state.bodies[w.model.body_index(n).unwrap()].clone();
    let arm = body("arm");
    let tip = arm.x + arm.q * (w.model.bodies[w.model.body_index("arm").unwrap()].com * -1.0 + cairn::math::Vec3::new(0.5, 0.0, 0.0));
    (body("ball").x.z, swing, (body("bob").x - tip).length())
}

#[test]
fn disabled_contacts_limits_and_equalities_are_left_out() {
    for m in [MethodKey::Lcp, MethodKey::Impulse] {
        let (z, swing, gap) = run("", m);
        assert!((z - 0.1).abs() < 5e-3 && swing < 0.31 && gap < 5e-3, "{m}, all on: {z} {swing} {gap}");
        let (z, swing, gap) = run(r#"<flag contact="disable"/>"#, m);
        assert!(z < -3.0 && swing < 0.31 && gap < 5e-3, "{m}, contact off: {z} {swing} {gap}");
        let (z, swing, gap) = run(r#"<flag limit="disable"/>"#, m);
        assert!((z - 0.1).abs() < 5e-3 && swing > 0.5 && gap < 5e-3, "{m}, limit off: {z} {swing} {gap}");
        let (z, _, gap) = run(r#"<flag equality="disable"/>"#, m);
        assert!((z - 0.1).abs() < 5e-3 && gap > 0.5, "{m}, equality off: {z} {gap}");
        let (z, swing, gap) = run(r#"<flag constraint="disable"/>"#, m);
        assert!(z < -3.0 && swing > 0.5 && gap > 0.5, "{m}, constraint off: {z} {swing} {gap}");
    }
}

#[test]
fn a_flag_is_enable_or_disable() {
    let e = common::mjcf_world("flag_bad", &xml(r#"<flag contact="off"/>"#), MethodKey::Lcp).err().unwrap();
    assert!(e.contains("`contact` must be `enable` or `disable`, got `off`") && e.contains("flag_bad.xml"), "{e}");
}
