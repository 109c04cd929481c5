//! MJCF `<frame>`: the pose (and `childclass`) of nested frames folded into the bodies, geoms and sites inside
//! them, checked against MuJoCo 4.0.0 on the same file (`mj_forward`: `xpos`, `xquat`, `xipos`, `site_xpos`).

mod common;

use cairn::math::{Mat3, Quat, Vec3};
use cairn::model::MethodKey;

const XML: &str = r#"<mujoco model="frames">
  <default>
    <default class="red"><geom rgba="1 0 0 1" size="0.05"/></default>
  </default>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <frame pos="0.5 0 0" euler="0 0 90">
      <geom type="box" size="0.1 0.2 0.05" pos="0.3 0 0.05"/>
      <frame pos="0 0.2 0" quat="0.9238795 0 0.3826834 0" childclass="red">
        <body name="arm" pos="0 0 1">
          <joint name="j1" type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0.4 0 0"/>
          <frame pos="0.4 0 0" euler="30 0 0">
            <site name="tip" pos="0.1 0 0"/>
            <geom type="sphere" pos="0 0.1 0"/>
            <body name="hand" pos="0.1 0 0">
              <joint name="j2" type="hinge" axis="0 0 1"/>
              <geom type="box" size="0.05 0.02 0.03" pos="0.05 0 0"/>
            </body>
          </frame>
        </body>
      </frame>
    </frame>
  </worldbody>
</mujoco>
"#;

/// (body, frame origin, frame quaternion [w, x, y, z], centre of mass, mass) as MuJoCo 4.0.0 computes them.
const MUJOCO: [(&str, [f64; 3], [f64; 4], [f64; 3], f64); 2] = [
    (
        "arm",
        [0.3, 0.7071067565, 0.7071068059],
        [0.6532814872, -0.2705980387, 0.2705980387, 0.6532814872],
        [0.2891746825, 0.870625205, 0.5524272032],
        4.188790204786392,
    ),
    (
        "hand",
        [0.3, 1.0606601594, 0.3535534276],
        [0.7010573863, -0.0922959434, 0.4304593248, 0.5609855343],
        [0.3, 1.0960154997, 0.3181980898],
        0.24,
    ),
];

#[test]
fn frames_place_bodies_geoms_and_sites_as_mujoco_does() {
    let w = common::mjcf_world("frames", XML, MethodKey::Lcp).unwrap();
    let m = &w.model;
    for (name, x, q, com, mass) in MUJOCO {
        let i = m.bodies.iter().position(|b| b.name == name).unwrap_or_else(|| panic!("no body `{name}`"));
        let b = &m.bodies[i];
        assert!((b.position - Vec3::from_array(x)).length() < 1e-7, "{name}: origin {} (MuJoCo {x:?})", b.position);
        let want = Mat3::from_quat(Quat::from_xyzw(q[1], q[2], q[3], q[0]).normalize());
        let got = Mat3::from_quat(b.rotation);
        let err = (0..3).map(|c| (got.col(c) - want.col(c)).length()).fold(0.0, f64::max);
        assert!(err < 1e-6, "{name}: rotation off by {err}");
        // the centre of mass follows the geoms, placed through the frames (and the red class's radius 0.05)
        let c = w.state.bodies[i].x;
        assert!((c - Vec3::from_array(com)).length() < 1e-7, "{name}: centre of mass {c} (MuJoCo {com:?})");
        assert!((b.mass - mass).abs() < 1e-9 * mass, "{name}: mass {} (MuJoCo {mass})", b.mass);
    }
    // the site inside the arm's frame, in the world
    let s = m.sites.iter().find(|s| s.name == "tip").expect("site `tip`");
    let b = &m.bodies[s.body];
    let p = b.position + b.rotation * s.position;
    assert!((p - Vec3::new(0.3, 1.0606601594, 0.3535534276)).length() < 1e-7, "site at {p}");
}

#[test]
fn a_joint_inside_a_frame_is_placed_by_it() {
    // MuJoCo 4.0.0 on this file: xanchor (0, 0, 3), xaxis (0, −1, 0)
    let xml = r#"<mujoco><worldbody><body name="b" pos="0 0 2"><frame pos="0 0 1" euler="90 0 0"><joint name="h" type="hinge" axis="0 0 1"/></frame><geom size="0.1"/></body></worldbody></mujoco>"#;
    let w = common::mjcf_world("framejoint", xml, MethodKey::Lcp).unwrap();
    let j = &w.model.joints[0];
    let (anchor, axis) = (j.anchor, j.axis);
    assert!((anchor - Vec3::new(0.0, 0.0, 3.0)).length() < 1e-9, "anchor {anchor}");
    // the frame turns the joint's z axis 90° about x: along −y
    assert!((axis - Vec3::new(0.0, -1.0, 0.0)).length() < 1e-9, "axis {axis}");
    let bad = r#"<mujoco><worldbody><frame><joint type="hinge"/></frame></worldbody></mujoco>"#;
    let e = common::mjcf_world("worldjoint", bad, MethodKey::Lcp).err().expect("accepted");
    assert!(e.contains("has no body to move") && e.contains("line 1"), "{e}");
}
