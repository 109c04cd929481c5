//! MJCF `damping` and `stiffness` on a ball joint: a rod swinging on a ball joint damped at 0.2 N·m·s/rad, and
//! one with a crossbar on a sprung ball joint, follow MuJoCo 4.0.0 under every method (MuJoCo's Euler
//! integrator takes joint damping implicitly; cairn's torque is linearly implicit in the joint's rotation,
//! dynamics/ball_spring.rs).

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

/// A rod with a crossbar (its inertia unequal on every axis, so that it turns in 3-D) on a ball joint with
/// `stiffness` and `damping`: MuJoCo 4.0.0's tip at 0.5 s and 1 s for (stiffness, damping) (3, 0.2), (3, 0),
/// (20, 0.05).
const SPRUNG: &str = r#"<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="rod" pos="0 0 1">
      <joint name="shoulder" type="ball" stiffness="STIFF" damping="DAMP"/>
      <geom type="capsule" fromto="0 0 0 0.4 0.1 0" size="0.03" mass="1" contype="0" conaffinity="0"/>
      <geom type="box" pos="0.3 0.05 0.05" size="0.02 0.15 0.02" mass="0.5" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>
"#;
const MUJOCO_SPRUNG: [(&str, &str, [[f64; 3]; 2]); 3] = [
    ("3", "0.2", [[0.0975, 0.0349, 0.6009], [0.3402, 0.0861, 0.7835]]),
    ("3", "0", [[0.008, 0.0162, 0.5881], [0.3984, 0.093, 0.9484]]),
    ("20", "0.05", [[0.3997, 0.0995, 0.9822], [0.3975, 0.098, 0.9509]]),
];

#[test]
fn a_sprung_ball_joint_swings_as_in_mujoco() {
    for m in MethodKey::ALL {
        for (stiff, damp, want) in MUJOCO_SPRUNG {
            let xml = SPRUNG.replace("STIFF", stiff).replace("DAMP", damp);
            let mut w = common::mjcf_world("ball_spring", &xml, m).unwrap();
            let rod = w.model.body_index("rod").unwrap();
            for k in 1..=500 {
                w.step().unwrap();
                if k % 250 == 0 {
                    let s = &w.state.bodies[rod];
                    let tip = s.x - s.q * w.model.bodies[rod].com + s.q * Vec3::new(0.4, 0.1, 0.0);
                    let want = Vec3::from_array(want[k / 250 - 1]);
                    // undamped, the swing's phase at 1 s measures each method's own integrator (measured there:
                    // abd 16 mm, backward Euler damping the whole swing; impulse 12 mm; the others 0.6–2.4 mm)
                    let phase_only = damp == "0" && k == 500 && matches!(m, MethodKey::Abd | MethodKey::Impulse);
                    let tol = if phase_only { 0.02 } else { 0.01 };
                    assert!((tip - want).length() < tol, "{m}, k {stiff}, d {damp}, step {k}: tip {tip} vs MuJoCo {want}");
                }
            }
        }
    }
}

#[test]
fn a_springdamper_on_a_ball_joint_is_refused() {
    let xml = XML.replace(r#"damping="DAMPING""#, r#"springdamper="0.1 1""#);
    let e = common::mjcf_world("ball_springdamper", &xml, MethodKey::Lcp).err().unwrap();
    assert!(e.contains("`springdamper` on a ball joint is not supported") && e.contains("line 5"), "{e}");
}
