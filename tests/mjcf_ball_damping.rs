//! MJCF `damping` on a ball joint: a rod swinging on a ball joint damped at 0.2 N·m·s/rad follows MuJoCo 4.0.0
//! under every method (MuJoCo's Euler integrator takes joint damping implicitly; cairn's torque is linearly
//! implicit in the joint's rotation, dynamics/ball_damping.rs).

mod common;

use cairn::math::Vec3;
use cairn::model::MethodKey;

const XML: &str = r#"<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="rod" pos="0 0 1">
      <joint name="shoulder" type="ball" damping="DAMPING"/>
      <geom type="capsule" fromto="0 0 0 0.4 0.1 0" size="0.03" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>
"#;

/// MuJoCo 4.0.0 on `XML`, the rod's tip (0.4, 0.1, 0) in the world at 0.5 s and 1 s, with damping 0.2 and 0.
const MUJOCO: [[f64; 3]; 2] = [[-0.1376, -0.0344, 0.6128], [0.0142, 0.0035, 0.5879]];
const MUJOCO_UNDAMPED: [[f64; 3]; 2] = [[-0.3792, -0.0948, 0.8686], [0.1353, 0.0338, 0.612]];

fn tips(damping: &str, m: MethodKey) -> Vec<Vec3> {
    let mut w = common::mjcf_world("ball_damping", &XML.replace("DAMPING", damping), m).unwrap();
    let rod = w.model.body_index("rod").unwrap();
    let mut out = Vec::new();
    for k in 1..=500 {
        w.step().unwrap();
        if k % 250 == 0 {
            let s = &w.state.bodies[rod];
            // the body's reference frame is at the joint (its origin, the centre of mass at com)
            let origin = s.x - s.q * w.model.bodies[rod].com;
            out.push(origin + s.q * Vec3::new(0.4, 0.1, 0.0));
        }
    }
    out
}

#[test]
fn a_damped_ball_joint_swings_as_in_mujoco() {
    for m in MethodKey::ALL {
        for (got, want) in tips("0.2", m).iter().zip(MUJOCO) {
            assert!((*got - Vec3::from_array(want)).length() < 0.01, "{m}: tip {got} vs MuJoCo {want:?}");
        }
    }
    for (got, want) in tips("0", MethodKey::Lcp).iter().zip(MUJOCO_UNDAMPED) {
        assert!((*got - Vec3::from_array(want)).length() < 0.01, "undamped: tip {got} vs MuJoCo {want:?}");
    }
}

#[test]
fn stiffness_on_a_ball_joint_is_refused() {
    let e = common::mjcf_world("ball_stiff", &XML.replace(r#"damping="DAMPING""#, r#"stiffness="3""#), MethodKey::Lcp).err().unwrap();
    assert!(e.contains("stiffness on a ball joint is not supported") && e.contains("line 5"), "{e}");
}
