use super::*;

#[test]
fn schedules_interpolate_hold_and_oscillate() {
    let p = Schedule::Path(vec![[0.0, 0.0], [1.0, 2.0], [2.0, 0.0]]);
    assert_eq!(p.at(-1.0), 0.0);
    assert_eq!(p.at(0.5), 1.0);
    assert_eq!(p.at(1.5), 1.0);
    assert_eq!(p.at(3.0), 0.0);
    let s = Schedule::Sine { amplitude: 2.0, frequency: 0.25, phase: 0.0, offset: 1.0 };
    assert!((s.at(1.0) - 3.0).abs() < 1e-12);
    assert_eq!(Schedule::Constant(0.7).at(5.0), 0.7);
}

#[test]
fn activations_follow_their_dynamics() {
    let text = r#"
format = 1
[world]
dt = 0.01
[[body]]
name = "arm"
shape = { type = "box", size = [0.1, 0.1, 1.0] }
position = [0.0, 0.0, -0.5]
[[joint]]
type = "hinge"
name = "j"
body1 = "arm"
anchor = [0.0, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
[[actuator]]
name = "iv"
type = "intvelocity"
joint = "j"
kp = 10.0
ctrlrange = [-1.0, 1.0]
"#;
    let mut model = crate::scene::load_str(text, "t", "t", std::path::Path::new("."), &[]).unwrap();
    model.actuators.push(Actuator { dynamics: Dynamics::Filter(0.1), ..model.actuators[0].clone() });
    model.actuators.push(Actuator { dynamics: Dynamics::FilterExact(0.1), ..model.actuators[0].clone() });
    let mut inputs = Inputs { ctrl: vec![0.5, 1.0, 1.0], act: vec![0.0; 3], external: vec![false; 3] };
    for _ in 0..100 {
        advance_activations(&model, &mut inputs, 0.01);
    }
    // integrator: 0.5 for 1 s, within the range [-1, 1]
    assert!((inputs.act[0] - 0.5).abs() < 1e-12);
    // filters after 10 time constants: explicit Euler (1 - 0.1)^100, exact 1 - e^-10
    assert!((inputs.act[1] - (1.0 - 0.9f64.powi(100))).abs() < 1e-12);
    assert!((inputs.act[2] - (1.0 - (-10.0f64).exp())).abs() < 1e-12);
    for _ in 0..200 {
        advance_activations(&model, &mut inputs, 0.01);
    }
    assert_eq!(inputs.act[0], 1.0, "the integrator stops at actrange");
}

#[test]
fn a_general_actuator_in_a_scene_follows_its_filter_and_law() {
    let text = r#"
format = 1
[world]
gravity = [0.0, 0.0, 0.0]
dt = 0.01
[[body]]
name = "arm"
shape = { type = "box", size = [0.1, 0.1, 1.0] }
position = [0.0, 0.0, -0.5]
[[joint]]
type = "hinge"
name = "j"
body1 = "arm"
anchor = [0.0, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
[[actuator]]
name = "g"
type = "general"
joint = "j"
gain = [2.0, 0.0, 0.0]
bias = [0.0, 0.0, -0.5]
dynamics = "filterexact"
timeconst = 0.1
[[control]]
actuator = "g"
value = 1.0
"#;
    let model = crate::scene::load_str(text, "t", "t", std::path::Path::new("."), &[]).unwrap();
    let mut w = crate::world::World::new(model).unwrap();
    for _ in 0..20 {
        w.step().unwrap();
    }
    // the activation after 0.2 s of an exact filter of 0.1 s toward 1
    assert!((w.act()[0] - (1.0 - (-2.0f64).exp())).abs() < 1e-12, "act {}", w.act()[0]);
    let err = crate::scene::load_str(&text.replace("timeconst = 0.1\n", ""), "t", "t", std::path::Path::new("."), &[]).unwrap_err();
    assert!(err.to_string().contains("a filter needs `timeconst`"), "{err}");
    let err = crate::scene::load_str(&text.replace("type = \"general\"", "type = \"motor\""), "t", "t", std::path::Path::new("."), &[])
        .unwrap_err();
    assert!(err.to_string().contains("`gain` belongs to a `general` actuator"), "{err}");
}
