//! MJCF joint `springdamper` and sites on the world (issue "The world's robot files load and run"; dm_control's
//! dog uses the first, its finger the second). A hinge with springdamper (τ = 0.1 s, ζ = 1) and springref 0.5 rad
//! closes on its reference as a critically damped spring of ω = 1/(τζ): 0.5 (1 − (1 + ωt) e^{−ωt}) = 0.4004 rad
//! at 0.3 s (MuJoCo 4.0.0: 0.4008), under every method; a world site's framepos reads its fixed position.

use cairn::model::MethodKey;
use cairn::world::World;

mod common;

const XML: &str = r#"<mujoco model="sd">
  <compiler angle="radian"/>
  <option timestep="0.001" gravity="0 0 0"/>
  <worldbody>
    <site name="target" pos="0.3 0 1"/>
    <body name="arm" pos="0 0 1">
      <joint name="a" type="hinge" axis="0 1 0" springref="0.5" springdamper="0.1 1" damping="5" stiffness="7"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
    </body>
  </worldbody>
  <sensor><framepos name="where" objtype="site" objname="target"/></sensor>
</mujoco>"#;

fn load(xml: &str, m: MethodKey) -> Result<World, String> {
    common::mjcf_world("sd", xml, m)
}

#[test]
fn springdamper_sets_a_critically_damped_spring_and_world_sites_read() {
    let (omega, t) = (10.0f64, 0.3);
    let want = 0.5 * (1.0 - (1.0 + omega * t) * (-omega * t).exp());
    for m in MethodKey::ALL {
        let mut w = load(XML, m).unwrap_or_else(|e| panic!("{m}: {e}"));
        // the file's stiffness and damping give way to springdamper's, from the hinge's inertia
        let i = cairn::dynamics::actuator::joint_inertia(&w.model, 0);
        let motor = w.model.joints[0].motor.clone().unwrap();
        assert!(
            (motor.stiffness - i / 0.01).abs() < 1e-9 * motor.stiffness && (motor.damping - 2.0 * i / 0.1).abs() < 1e-9,
            "{m}: {motor:?}"
        );
        for _ in 0..300 {
            w.step().unwrap_or_else(|e| panic!("{m}: {e}"));
        }
        let q = cairn::dynamics::joint::coordinates(&w.model, &w.state)[0].1;
        assert!((q - want).abs() < 0.01 * want, "{m}: {q} rad at 0.3 s, want {want}");
        let read = w.sensordata();
        assert!((read[0] - 0.3).abs() < 1e-12 && read[1].abs() < 1e-12 && (read[2] - 1.0).abs() < 1e-12, "{m}: {read:?}");
    }
}

#[test]
fn a_bad_springdamper_is_refused_by_line() {
    let e = load(&XML.replace("springdamper=\"0.1 1\"", "springdamper=\"-0.1 1\""), MethodKey::Lcp).err().unwrap();
    assert!(e.contains("line 7") && e.contains("`springdamper` needs two numbers > 0"), "{e}");
}
