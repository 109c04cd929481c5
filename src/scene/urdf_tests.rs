//! URDF read as PyBullet and ROS tools read it: extension elements skipped, links without mass, inertia tensors
//! off by rounding.

use super::load;
use crate::model::BodyKind;
use std::path::Path;

fn model(text: &str) -> crate::model::Model {
    let dir = std::env::temp_dir().join(format!("cairn-urdf-lenient-{}-{}", std::process::id(), text.len()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.urdf");
    std::fs::write(&path, text).unwrap();
    crate::scene::load(&path, &[]).unwrap()
}

const INERTIAL: &str = r#"<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>"#;

#[test]
fn a_root_without_mass_is_static_and_a_moving_link_without_mass_gets_a_small_one() {
    let text = format!(
        r#"<robot name="r">
  <link name="base"/>
  <link name="arm">{INERTIAL}</link>
  <link name="tool"/>
  <joint name="j1" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="revolute"><parent link="arm"/><child link="tool"/><origin xyz="0.2 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/><joint_properties damping="0.1"/></joint>
</robot>"#
    );
    let m = model(&text);
    let body = |name: &str| m.bodies.iter().find(|b| b.name == name).unwrap();
    assert_eq!(body("base").kind, BodyKind::Static);
    assert_eq!(body("arm").kind, BodyKind::Dynamic);
    let tool = body("tool");
    assert_eq!(tool.kind, BodyKind::Dynamic);
    assert!((tool.mass - 0.01).abs() < 1e-12, "1% of the lightest link's mass: {}", tool.mass);
    let notes = m.notes.join("\n");
    for what in ["root link `base` has no mass", "link `tool` moves but has no mass", "<joint_properties> in <joint>"] {
        assert!(notes.contains(what), "missing note `{what}` in\n{notes}");
    }
}

/// Principal moments 1, 1 and 2.01 break the triangle inequality by 0.5%: repaired to 1, 1, 2 about the same
/// axes (the tensor given rotated, so the repair must keep its axes); 1, 1, 2.5 is refused.
#[test]
fn an_inertia_off_by_rounding_is_repaired_and_one_far_off_refused() {
    let r = crate::math::Quat::from_rotation_z(0.4) * crate::math::Quat::from_rotation_x(0.3);
    for (izz, ok) in [(2.01, true), (2.5, false)] {
        let m3 = crate::math::Mat3::from_quat(r);
        let i = m3 * crate::math::Mat3::from_diagonal(crate::math::Vec3::new(1.0, 1.0, izz)) * m3.transpose();
        let c = |a: usize, b: usize| i.col(b)[a];
        let text = format!(
            r#"<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="{}" ixy="{}" ixz="{}" iyy="{}" iyz="{}" izz="{}"/></inertial></link></robot>"#,
            c(0, 0),
            c(0, 1),
            c(0, 2),
            c(1, 1),
            c(1, 2),
            c(2, 2)
        );
        let robot = load(&text, "r.urdf", Path::new("."));
        match (ok, robot) {
            (true, Ok(robot)) => {
                let got = robot.links[0].inertial.as_ref().unwrap().inertia;
                let want = m3 * crate::math::Mat3::from_diagonal(crate::math::Vec3::new(1.0, 1.0, 2.0)) * m3.transpose();
                assert!((got - want).to_cols_array().iter().all(|d| d.abs() < 1e-9), "{got:?} against {want:?}");
                assert!(robot.notes.iter().any(|n| n.contains("repaired to the nearest physical one")));
            }
            (false, Err(e)) => assert!(e.contains("not physical"), "{e}"),
            (ok, r) => panic!("izz {izz}: expected ok = {ok}, got {:?}", r.map(|_| ()).map_err(|e| e)),
        }
    }
}
