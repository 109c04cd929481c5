//! MJCF frame sensors on a geom (`objtype="geom"`, as dm_control's swimmer has): the geom's frame, through its
//! body and a `<frame>`, and a world geom's, checked against MuJoCo 4.0.0's sensordata at the file's pose.

mod common;

use cairn::model::MethodKey;

const XML: &str = r#"<mujoco>
  <worldbody>
    <geom name="floor" type="box" size="1 1 0.1" pos="0.2 0 -0.1" euler="0 0 20"/>
    <body name="b" pos="0.3 -0.2 1" euler="10 20 30">
      <freejoint/>
      <frame pos="0 0.1 0" euler="0 0 90">
        <geom name="g" type="box" size="0.05 0.1 0.2" pos="0.1 0.2 0.3" euler="30 0 45"/>
      </frame>
    </body>
  </worldbody>
  <sensor>
    <framepos name="gp" objtype="geom" objname="g"/>
    <framequat name="gq" objtype="geom" objname="g"/>
    <framepos name="fp" objtype="geom" objname="floor"/>
  </sensor>
</mujoco>
"#;

#[test]
fn frame_sensors_on_geoms_read_as_mujoco() {
    // MuJoCo 4.0.0, mj_forward: framepos g, framequat g [w, x, y, z], framepos floor
    let want = [0.1458772446, -0.1930858129, 1.3823589548, 0.064317079, 0.3755464203, 0.0972948376, 0.9194356498, 0.2, 0.0, -0.1];
    let w = common::mjcf_world("geomframe", XML, MethodKey::Lcp).unwrap();
    let got = w.sensordata();
    assert_eq!(got.len(), want.len());
    // a quaternion and its negative are the same frame
    let sign = if got[3] * want[3] + got[4] * want[4] + got[5] * want[5] + got[6] * want[6] < 0.0 { -1.0 } else { 1.0 };
    for (k, (g, e)) in got.iter().zip(want).enumerate() {
        let g = if (3..7).contains(&k) { g * sign } else { *g };
        assert!((g - e).abs() < 1e-8, "sensordata[{k}] = {g}, MuJoCo {e}: {got:?}");
    }
    let bad = XML.replace("objname=\"floor\"", "objname=\"nope\"");
    let e = common::mjcf_world("geomframebad", &bad, MethodKey::Lcp).err().expect("accepted");
    assert!(e.contains("unknown geom `nope`"), "{e}");
}
