//! Actuators and sensors under every method of `MethodKey::ALL`, against analytic answers: a geared torque
//! motor's angular acceleration, a `velocity` actuator's final speed, `ctrlrange` and `forcerange` clamps,
//! `jointactuatorfrc`, and an accelerometer in free fall. Also the errors of `set_ctrl` and of the scene's
//! `[[actuator]]` and `[[control]]` tables.

use cairn::model::MethodKey;
use cairn::World;

const DT: f64 = 0.005;

/// A 1 m arm (4 cm square, density 1000) along x from (0, `y`, 0), hinged there about z to the world.
fn arm(joint: &str, y: f64) -> String {
    format!(
        r#"[[body]]
name = "{joint}_arm"
shape = {{ type = "box", size = [1.0, 0.04, 0.04] }}
position = [0.5, {y}, 0.0]

[[joint]]
name = "{joint}"
type = "hinge"
body1 = "{joint}_arm"
anchor = [0.0, {y}, 0.0]
axis = [0.0, 0.0, 1.0]
"#
    )
}

fn scene(method: MethodKey, gravity: f64, rest: &str) -> World {
    let text = format!("format = 1\n[world]\ndt = {DT}\ngravity = [0.0, 0.0, {}]\nmethod = \"{method}\"\n{rest}", -gravity);
    World::from_scene_text(&text, "actuators").unwrap()
}

/// The arm's inertia about its hinge.
fn arm_inertia(w: &World) -> f64 {
    let m = w.model.bodies[0].mass;
    m * (1.0 + 0.04 * 0.04) / 12.0 + m * 0.25
}

fn rate(w: &World, joint: usize) -> f64 {
    cairn::dynamics::joint::coordinates(&w.model, &w.state).into_iter().find(|c| c.0 == joint).unwrap().2
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// An arm in zero gravity under a torque motor of gear 2 at control 0.75, with force sensors.
fn geared_arm(method: MethodKey) -> World {
    let rest = arm("hinge", 0.0)
        + r#"
[[actuator]]
name = "m"
type = "motor"
joint = "hinge"
gear = 2.0

[[control]]
actuator = "m"
value = 0.75

[[sensor]]
name = "frc"
type = "actuatorfrc"
actuator = "m"

[[sensor]]
name = "jfrc"
type = "jointactuatorfrc"
joint = "hinge"
"#;
    scene(method, 0.0, &rest)
}

#[test]
fn a_geared_torque_motor_accelerates_a_hinged_arm_by_gear_times_control_over_inertia() {
    for k in MethodKey::ALL {
        let mut w = geared_arm(k);
        let want = 2.0 * 0.75 / arm_inertia(&w);
        w.step().unwrap();
        let a1 = rate(&w, 0) / DT;
        assert!(rel(a1, want) <= 0.01, "{k}: α over the first step {a1}, expected {want}");
        for _ in 1..20 {
            w.step().unwrap();
        }
        let a20 = rate(&w, 0) / (20.0 * DT);
        assert!(rel(a20, want) <= 0.01, "{k}: α over 20 steps {a20}, expected {want}");
    }
}

#[test]
fn jointactuatorfrc_is_gear_times_the_actuator_force_exactly() {
    for k in MethodKey::ALL {
        let mut w = geared_arm(k);
        let (at, n) = cairn::dynamics::sensor::layout(&w.model);
        assert_eq!(n, 2);
        assert_eq!(w.sensor_names(), ["frc", "jfrc"]);
        for _ in 0..10 {
            w.step().unwrap();
            let d = w.sensordata();
            assert_eq!((d[at[0]], d[at[1]]), (0.75, 1.5), "{k}: actuatorfrc, jointactuatorfrc");
            assert_eq!(w.actuator_forces(), [0.75], "{k}");
        }
    }
}

#[test]
fn a_velocity_actuator_brings_a_free_hinge_to_its_commanded_speed() {
    for k in MethodKey::ALL {
        let probe = scene(k, 0.0, &arm("hinge", 0.0));
        let kv = arm_inertia(&probe) / 0.05;
        let rest = arm("hinge", 0.0)
            + &format!("[[actuator]]\nname = \"v\"\ntype = \"velocity\"\njoint = \"hinge\"\nkv = {kv}\n[[control]]\nactuator = \"v\"\nvalue = 2.0\n");
        let mut w = scene(k, 0.0, &rest);
        for _ in 0..100 {
            w.step().unwrap();
        }
        let qd = rate(&w, 0);
        assert!(rel(qd, 2.0) <= 0.02, "{k}: speed {qd} after 10 time constants, commanded 2");
    }
}

#[test]
fn ctrlrange_and_forcerange_clamp_the_force_exactly_and_the_motion_follows() {
    for k in MethodKey::ALL {
        let rest = arm("a", 0.0)
            + &arm("b", 1.0)
            + r#"
[[actuator]]
name = "ctrl_clamped"
type = "motor"
joint = "a"
gear = 2.0
ctrlrange = [-1.0, 1.0]

[[actuator]]
name = "force_clamped"
type = "motor"
joint = "b"
gear = 2.0
forcerange = [-0.5, 0.5]
"#;
        let mut w = scene(k, 0.0, &rest);
        w.set_ctrl(&[5.0, -3.0]).unwrap();
        assert_eq!(w.ctrl(), [5.0, -3.0], "{k}: the control is kept as given");
        let inertia = arm_inertia(&w);
        for _ in 0..20 {
            w.step().unwrap();
            assert_eq!(w.actuator_forces(), [1.0, -0.5], "{k}");
        }
        let (aa, ab) = (rate(&w, 0) / (20.0 * DT), rate(&w, 1) / (20.0 * DT));
        assert!(rel(aa, 2.0 / inertia) <= 0.01, "{k}: α {aa}, expected {}", 2.0 / inertia);
        assert!(rel(ab, -1.0 / inertia) <= 0.01, "{k}: α {ab}, expected {}", -1.0 / inertia);
    }
}

#[test]
fn an_accelerometer_in_free_fall_reads_zero() {
    for k in MethodKey::ALL {
        let rest = r#"
[[body]]
name = "box"
shape = { type = "box", size = [0.5, 0.5, 0.5] }
position = [0.0, 0.0, 10.0]
velocity = [1.0, 0.0, 2.0]

[[site]]
name = "imu"
body = "box"
position = [0.2, 0.1, 0.0]
rotation = [0.7071067811865476, 0.7071067811865476, 0.0, 0.0]

[[sensor]]
type = "accelerometer"
site = "imu"
"#;
        let mut w = scene(k, 9.81, rest);
        for _ in 0..100 {
            w.step().unwrap();
            let a = w.sensordata();
            let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
            assert!(n <= 1e-6 * 9.81, "{k}: accelerometer {a:?} in free fall");
        }
    }
}

#[test]
fn set_ctrl_with_the_wrong_length_names_the_expected_count() {
    let rest =
        arm("a", 0.0) + &arm("b", 1.0) + "[[actuator]]\ntype = \"motor\"\njoint = \"a\"\n[[actuator]]\ntype = \"motor\"\njoint = \"b\"\n";
    let mut w = scene(MethodKey::Lcp, 0.0, &rest);
    let e = w.set_ctrl(&[1.0]).unwrap_err().to_string();
    assert!(e.contains("expected 2 controls"), "{e}");
    assert!(e.contains("got 1"), "{e}");
}

#[test]
fn an_unknown_actuator_type_names_the_allowed_ones() {
    let text = format!("format = 1\n{}[[actuator]]\ntype = \"muscle\"\njoint = \"hinge\"\n", arm("hinge", 0.0));
    let e = World::from_scene_text(&text, "actuators").err().expect("an unknown type loads").to_string();
    assert!(e.contains("muscle"), "{e}");
    for kind in ["motor", "position", "velocity", "intvelocity", "damper"] {
        assert!(e.contains(&format!("`{kind}`")), "{e}: does not name `{kind}`");
    }
}

#[test]
fn a_control_for_an_unknown_actuator_names_the_scene_actuators() {
    let text = format!(
        "format = 1\n{}{}[[actuator]]\nname = \"shoulder\"\ntype = \"motor\"\njoint = \"a\"\n[[actuator]]\nname = \"elbow\"\ntype = \"motor\"\njoint = \"b\"\n\
[[control]]\nactuator = \"wrist\"\nvalue = 1.0\n",
        arm("a", 0.0),
        arm("b", 1.0)
    );
    let e = World::from_scene_text(&text, "actuators").err().expect("a control for an unknown actuator loads").to_string();
    assert!(e.contains("`wrist`"), "{e}");
    assert!(e.contains("`shoulder`") && e.contains("`elbow`"), "{e}: does not name the scene's actuators");
}
