//! Body colours for the viewer (issue "A new user's first hour"): a scene body's `color` (numbers or
//! "#rrggbb"), an MJCF geom's `rgba` (also from its class), a URDF visual's material (inline or the robot's
//! named one) reach the model and `geometry.json`; bad colours are refused naming the body.

use cairn::model::MethodKey;

fn scene(text: &str) -> Result<cairn::model::Model, String> {
    cairn::scene::load_str(text, "c.toml", "c", std::path::Path::new("."), &[]).map_err(|e| e.to_string())
}

fn robot(name: &str, text: &str) -> cairn::model::Model {
    let dir = std::env::temp_dir().join(format!("cairn-colors-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let model = cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(MethodKey::Lcp)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    model
}

const BALL: &str = "shape = { type = \"sphere\", radius = 0.1 }\n";

#[test]
fn scene_colours_reach_the_model_and_geometry_json() {
    let m = scene(&format!(
        "format = 1\n[[body]]\nname = \"red\"\n{BALL}color = \"#ff0000\"\n[[body]]\nname = \"sky\"\n{BALL}position = [1.0, 0.0, 0.0]\ncolor = [0.0, 0.5, 1.0]\n\
         [[body]]\nname = \"plain\"\n{BALL}position = [2.0, 0.0, 0.0]\n"
    ))
    .unwrap();
    assert_eq!(m.bodies[0].color, Some([1.0, 0.0, 0.0, 1.0]));
    assert_eq!(m.bodies[1].color, Some([0.0, 0.5, 1.0, 1.0]));
    assert_eq!(m.bodies[2].color, None);
    let g = cairn::record::geometry_json(&m);
    assert_eq!(g["bodies"][1]["color"], serde_json::json!([0.0, 0.5, 1.0, 1.0]));
    assert!(g["bodies"][2].get("color").is_none());
    for (bad, want) in [("[2.0, 0.0, 0.0]", "must lie in 0…1"), ("[0.5]", "needs 3 or 4 numbers"), ("\"#zz0000\"", "is not a colour")] {
        let e = scene(&format!("format = 1\n[[body]]\nname = \"b\"\n{BALL}color = {bad}\n")).unwrap_err();
        assert!(e.contains("body `b`: color") && e.contains(want), "{bad}: {e}");
    }
}

#[test]
fn robot_colours_come_from_mjcf_rgba_and_urdf_materials() {
    let m = robot(
        "c.xml",
        r#"<mujoco><default><default class="blue"><geom rgba="0 0 1 1"/></default></default><worldbody>
  <body name="a" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1" rgba="1 0.5 0 1"/></body>
  <body name="b" pos="1 0 1"><freejoint/><geom class="blue" type="sphere" size="0.1"/></body>
</worldbody></mujoco>"#,
    );
    assert_eq!(m.bodies[m.body_index("a").unwrap()].color, Some([1.0, 0.5, 0.0, 1.0]));
    assert_eq!(m.bodies[m.body_index("b").unwrap()].color, Some([0.0, 0.0, 1.0, 1.0]));
    let inertial = r#"<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>"#;
    let box_geom = r#"<geometry><box size="0.1 0.1 0.1"/></geometry>"#;
    let m = robot(
        "c.urdf",
        &format!(
            r#"<robot name="r"><material name="green"><color rgba="0 1 0 1"/></material>
  <link name="base">{inertial}<visual>{box_geom}<material name="green"/></visual><collision>{box_geom}</collision></link>
  <link name="tip">{inertial}<visual>{box_geom}<material name="own"><color rgba="0.2 0.4 0.6 1"/></material></visual><collision>{box_geom}</collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="tip"/><origin xyz="0.3 0 0"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"#
        ),
    );
    assert_eq!(m.bodies[m.body_index("base").unwrap()].color, Some([0.0, 1.0, 0.0, 1.0]));
    assert_eq!(m.bodies[m.body_index("tip").unwrap()].color, Some([0.2, 0.4, 0.6, 1.0]));
}
