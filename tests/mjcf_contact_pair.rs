//! MJCF `<contact><pair>`: an explicit pair collides though its geoms' bitmasks (contype = conaffinity = 0)
//! collide with nothing, under every method, as in MuJoCo; a geom without a pair falls through.

mod common;

use cairn::model::MethodKey;

const XML: &str = r#"<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" contype="0" conaffinity="0"/>
    <body name="held" pos="0 0 0.3">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.1" mass="1" contype="0" conaffinity="0"/>
    </body>
    <body name="loose" pos="1 0 0.3">
      <freejoint/>
      <geom name="other" type="sphere" size="0.1" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <contact><pair geom1="ball" geom2="floor" friction="0.5 0.5 0.005 0.0001 0.0001"/></contact>
</mujoco>
"#;

/// MuJoCo 4.0.0 after 1 s: the paired ball rests at z = 0.09993 (its radius), the other has fallen to −4.6148.
#[test]
fn an_explicit_pair_collides_and_the_rest_fall_through() {
    for m in MethodKey::ALL {
        let mut w = common::mjcf_world("pair", XML, m).unwrap();
        assert!(w.model.notes.iter().any(|n| n.contains("<pair> attribute `friction`")), "{m}: {:?}", w.model.notes);
        for _ in 0..(1.0 / w.model.dt).round() as usize {
            w.step().unwrap();
        }
        let z = |name: &str| w.state.bodies[w.model.body_index(name).unwrap()].x.z;
        assert!((z("held") - 0.1).abs() < 2e-3, "{m}: the paired ball at {}", z("held"));
        assert!(z("loose") < -4.0, "{m}: the unpaired ball at {}", z("loose"));
    }
}

#[test]
fn a_pair_names_existing_geoms_on_two_bodies() {
    let unknown = XML.replace(r#"geom2="floor""#, r#"geom2="flor""#);
    let e = common::mjcf_world("pair_unknown", &unknown, MethodKey::Lcp).err().unwrap();
    assert!(e.contains("`geom2`: unknown geom `flor`") && e.contains("pair_unknown.xml"), "{e}");
    let same = XML.replace(r#"geom2="floor""#, r#"geom2="ball""#);
    let e = common::mjcf_world("pair_same", &same, MethodKey::Lcp).err().unwrap();
    assert!(e.contains("on one body"), "{e}");
}
