use super::*;
use crate::math::quat_exp;
use crate::math::rng::Rng;

/// A free torso carrying a two-hinge hip (an intermediate link), a knee and a slider with `ref`, and a pendulum
/// hung on the world: every case of the layout.
const XML: &str = r#"<mujoco>
  <worldbody>
    <body name="torso" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.1" mass="3"/>
      <body name="thigh" pos="0.1 0 -0.1">
        <joint name="hip_x" type="hinge" axis="1 0 0"/>
        <joint name="hip_y" type="hinge" axis="0 1 0" pos="0 0.02 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.04" mass="1"/>
        <body name="shin" pos="0 0 -0.3">
          <joint name="knee" type="hinge" axis="0.3 1 0" ref="20"/>
          <geom type="capsule" fromto="0 0 0 0.1 0 -0.3" size="0.03" mass="0.5"/>
        </body>
      </body>
      <body name="slider" pos="-0.1 0 0.2">
        <joint name="lift" type="slide" axis="0 0.6 0.8" ref="0.1"/>
        <geom type="box" size="0.05 0.05 0.05" mass="0.2"/>
      </body>
    </body>
    <body name="bob" pos="2 0 1">
      <joint name="swing" type="hinge" axis="0 1 0" pos="0 0 0.5"/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>
"#;

fn model() -> Model {
    // one folder per call: the tests that call this run side by side in one process
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("cairn-generalized-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("robot.xml");
    std::fs::write(&path, XML).unwrap();
    let m = crate::scene::load(&path, &[]).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    m
}

fn random_qpos(layout: &Layout, rng: &mut Rng) -> Vec<f64> {
    let mut q = Vec::new();
    for _ in &layout.free {
        let r = quat_exp(Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()));
        q.extend([rng.symmetric(), rng.symmetric(), 1.0 + rng.symmetric(), r.w, r.x, r.y, r.z]);
    }
    q.extend(layout.joints.iter().map(|_| 1.5 * rng.symmetric()));
    q
}

#[test]
fn the_layout_is_mujocos() {
    let m = model();
    let l = Layout::of(&m);
    assert_eq!(l.free.iter().map(|&b| m.bodies[b].name.as_str()).collect::<Vec<_>>(), ["torso"]);
    let names: Vec<String> = l.joints.iter().map(|&k| m.joint_name(k)).collect();
    assert_eq!(names, ["hip_x", "hip_y", "knee", "lift", "swing"]);
    assert_eq!((l.nq(), l.nv()), (12, 11));
    assert_eq!(l.qpos_names(&m)[..4], ["torso:x", "torso:y", "torso:z", "torso:qw"]);
    let s = State::from_model(&m);
    let q = l.qpos(&m, &s);
    assert!((q[7 + 2] - 20f64.to_radians()).abs() < 1e-12 && (q[7 + 3] - 0.1).abs() < 1e-12, "{q:?}");
}

/// Placing any qpos reads it back, and every joint still holds (its bilateral rows are zero).
#[test]
fn placing_reads_back_and_keeps_the_joints() {
    let m = model();
    let l = Layout::of(&m);
    let mut rng = Rng::new(7);
    for _ in 0..20 {
        let mut s = State::from_model(&m);
        let target = random_qpos(&l, &mut rng);
        l.place(&m, &mut s.bodies, &target);
        let back = l.qpos(&m, &s);
        let sign = if back[3] * target[3] < 0.0 { -1.0 } else { 1.0 };
        for (k, (a, b)) in back.iter().zip(&target).enumerate() {
            let b = if (3..7).contains(&k) { sign * b } else { *b };
            assert!((a - b).abs() < 1e-10, "entry {k}: {a} against {b}");
        }
        for j in &m.joints {
            let mut rows = Vec::new();
            JointPose::of(&m, j, &s.bodies).bilateral_rows(j.kind, &mut rows);
            assert!(rows.iter().all(|r| r.c.abs() < 1e-10), "{:?}", rows.iter().map(|r| r.c).collect::<Vec<_>>());
        }
    }
}

/// qvel is the derivative of qpos: the bodies' velocities set from a qvel, integrated over a small h, move qpos
/// by h·q̇ (the free root's quaternion by ½ q ⊗ (0, ω_body)), to second order in h.
#[test]
fn qvel_is_the_rate_of_qpos() {
    let m = model();
    let l = Layout::of(&m);
    let mut rng = Rng::new(11);
    for _ in 0..10 {
        let mut s = State::from_model(&m);
        l.place(&m, &mut s.bodies, &random_qpos(&l, &mut rng));
        let qvel: Vec<f64> = (0..l.nv()).map(|_| rng.symmetric()).collect();
        l.set_velocities(&m, &mut s.bodies, &qvel);
        assert!(l.qvel(&m, &s).iter().zip(&qvel).all(|(a, b)| (a - b).abs() < 1e-10));
        let rate = |h: f64| {
            let mut t = s.clone();
            for b in t.bodies.iter_mut() {
                b.x += b.v * h;
                b.q = (quat_exp(b.w * h) * b.q).normalize();
            }
            l.qpos(&m, &t)
        };
        let h = 1e-6;
        let (ahead, behind) = (rate(h), rate(-h));
        let q = l.qpos(&m, &s);
        let r = Quat::from_xyzw(q[4], q[5], q[6], q[3]);
        let dq = r * Quat::from_xyzw(qvel[3], qvel[4], qvel[5], 0.0);
        let mut expected: Vec<f64> = qvel[..3].to_vec();
        expected.extend([0.5 * dq.w, 0.5 * dq.x, 0.5 * dq.y, 0.5 * dq.z]);
        expected.extend(&qvel[6..]);
        for (k, e) in expected.iter().enumerate() {
            let fd = (ahead[k] - behind[k]) / (2.0 * h);
            assert!((fd - e).abs() < 1e-6, "entry {k}: finite difference {fd} against {e}");
        }
    }
}
