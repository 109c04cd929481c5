//! MJCF height fields and site `fromto` (issue "The world's robot files load and run"; dm_control's quadruped
//! uses both): a height field without elevation data is flat, a static box under its surface, on which a ball
//! comes to rest under every method; one with data is refused by line; a capsule site's `fromto` sets its
//! pose and half-length.

use cairn::model::{MethodKey, SiteShape};
use cairn::world::World;

mod common;

fn load(name: &str, xml: &str, m: MethodKey) -> Result<World, String> {
    common::mjcf_world(name, xml, m)
}

const TERRAIN: &str = r#"<mujoco model="terrain">
  <option timestep="0.002"/>
  <asset><hfield name="terrain" ncol="21" nrow="21" size="3 3 1 0.2"/></asset>
  <worldbody>
    <geom name="terrain" type="hfield" hfield="terrain" pos="0 0 0.1"/>
    <body name="ball" pos="0 0 0.3">
      <freejoint/>
      <geom type="sphere" size="0.05" mass="0.5"/>
      <site name="stick" type="capsule" size="0.01" fromto="0 0 0 0 0.2 0"/>
    </body>
  </worldbody>
</mujoco>"#;

#[test]
fn a_ball_rests_on_a_flat_height_field() {
    for m in MethodKey::ALL {
        let mut w = load("terrain", TERRAIN, m).unwrap_or_else(|e| panic!("{m}: {e}"));
        for _ in 0..500 {
            w.step().unwrap_or_else(|e| panic!("{m}: {e}"));
        }
        let z = w.state.bodies[w.model.body_index("ball").unwrap()].x.z;
        // the surface at the geom's z = 0.1, the ball's radius 0.05 above it (penalty methods sink a little)
        assert!((z - 0.15).abs() < 2e-3, "{m}: the ball rests at z = {z}, not 0.15");
    }
}

#[test]
fn a_capsule_sites_fromto_sets_its_pose_and_half_length() {
    let w = load("site", TERRAIN, MethodKey::Lcp).unwrap();
    let site = &w.model.sites[0];
    assert!((site.position - cairn::math::Vec3::new(0.0, 0.1, 0.0)).length() < 1e-12, "{:?}", site.position);
    assert!((site.rotation * cairn::math::Vec3::Z - cairn::math::Vec3::Y).length() < 1e-12);
    match site.shape {
        SiteShape::Capsule(r, h) => assert!((r - 0.01).abs() < 1e-15 && (h - 0.1).abs() < 1e-12, "{r} {h}"),
        s => panic!("{s:?}"),
    }
}

#[test]
fn height_fields_with_data_or_in_a_body_are_refused_by_line() {
    let with_file = TERRAIN.replace("size=\"3 3 1 0.2\"", "size=\"3 3 1 0.2\" file=\"terrain.png\"");
    let e = load("file", &with_file, MethodKey::Lcp).err().unwrap();
    assert!(e.contains("line 3") && e.contains("elevation data"), "{e}");
    let in_body = TERRAIN.replace("<site name", "<geom type=\"hfield\" hfield=\"terrain\"/><site name");
    let e = load("body", &in_body, MethodKey::Lcp).err().unwrap();
    assert!(e.contains("belongs to the worldbody"), "{e}");
}
