//! Forces and torques applied from outside (`World::apply_force`, `World::apply_torque`) act during the next
//! step only, under every method of `MethodKey::ALL`: a free body's velocity changes by F·dt/m, its angular
//! velocity by I⁻¹τ·dt; a force off the centre of mass turns it; a body-frame force turns with the body.
//! Also: `World::reset`, and the errors of setting a static body's state.

use cairn::math::{Quat, Vec3};
use cairn::model::MethodKey;
use cairn::world::Frame;
use cairn::World;

/// A free 1 × 2 × 0.5 m box (density 1000: 1000 kg) in empty space, no gravity, and a static ground far below.
fn free_box(method: MethodKey) -> World {
    let text = format!(
        r#"format = 1
[world]
gravity = [0.0, 0.0, 0.0]
dt = 0.01
duration = 1.0
method = "{method}"

[[body]]
name = "ground"
kind = "static"
shape = {{ type = "box", size = [4.0, 4.0, 1.0] }}
position = [0.0, 0.0, -50.0]

[[body]]
name = "box"
shape = {{ type = "box", size = [1.0, 2.0, 0.5] }}
position = [0.0, 0.0, 5.0]
"#
    );
    World::from_scene_text(&text, "free_box").unwrap()
}

fn close(a: Vec3, b: Vec3, tol: f64) -> bool {
    (a - b).length() <= tol * b.length().max(1.0)
}

#[test]
fn a_force_at_the_centre_of_mass_accelerates_a_free_body_by_f_over_m_under_every_method() {
    for k in MethodKey::ALL {
        let mut w = free_box(k);
        let (m, dt) = (w.model.bodies[1].mass, w.model.dt);
        let f = Vec3::new(2000.0, -500.0, 300.0);
        w.apply_force(1, f, None, Frame::World).unwrap();
        w.step().unwrap();
        let v1 = w.state.bodies[1].v;
        assert!(close(v1, f * (dt / m), 1e-6), "{k}: v = {v1:?}, expected {:?}", f * (dt / m));
        assert!(w.state.bodies[1].w.length() < 1e-9, "{k}: a force at the centre of mass turned the body");
        // the next step has no force: the velocity stays
        w.step().unwrap();
        assert!(close(w.state.bodies[1].v, v1, 1e-6), "{k}: the force acted beyond its step");
    }
}

#[test]
fn a_torque_and_a_force_off_the_centre_turn_a_free_body_under_every_method() {
    for k in MethodKey::ALL {
        let mut w = free_box(k);
        let dt = w.model.dt;
        let inv_i = w.model.bodies[1].inv_inertia;
        let tau = Vec3::new(0.0, 0.0, 400.0);
        w.apply_torque(1, tau, Frame::World).unwrap();
        w.step().unwrap();
        let om = w.state.bodies[1].w;
        assert!(close(om, inv_i * tau * dt, 1e-3), "{k}: ω = {om:?}, expected {:?}", inv_i * tau * dt);

        // a force along y at x = 0.5 m from the centre: the moment (0.5, 0, 0) × (0, F, 0) = (0, 0, 0.5 F)
        let mut w = free_box(k);
        let com = w.state.bodies[1].x;
        w.apply_force(1, Vec3::new(0.0, 800.0, 0.0), Some(com + Vec3::new(0.5, 0.0, 0.0)), Frame::World).unwrap();
        w.step().unwrap();
        let om = w.state.bodies[1].w;
        let expected = inv_i * Vec3::new(0.0, 0.0, 400.0) * dt;
        assert!(close(om, expected, 1e-3), "{k}: ω = {om:?}, expected {expected:?}");
    }
}

#[test]
fn a_body_frame_force_turns_with_the_body() {
    let mut w = free_box(MethodKey::Lcp);
    let p = w.state.origin(&w.model, 1);
    w.set_body_pose(1, p, Quat::from_rotation_z(std::f64::consts::FRAC_PI_2)).unwrap();
    let (m, dt) = (w.model.bodies[1].mass, w.model.dt);
    w.apply_force(1, Vec3::new(1000.0, 0.0, 0.0), None, Frame::Body).unwrap();
    w.step().unwrap();
    // body x is world y after a quarter turn about z
    assert!(close(w.state.bodies[1].v, Vec3::new(0.0, 1000.0 * dt / m, 0.0), 1e-9), "{:?}", w.state.bodies[1].v);
    assert!(Frame::parse("local").unwrap_err().contains("\"world\" or \"body\""));
}

#[test]
fn forces_and_states_of_static_or_missing_bodies_are_errors_naming_the_body() {
    let mut w = free_box(MethodKey::Lcp);
    let e = w.apply_force(0, Vec3::X, None, Frame::World).unwrap_err().0;
    assert!(e.contains("`ground` is static"), "{e}");
    let e = w.set_body_velocity(0, Vec3::X, Vec3::ZERO).unwrap_err().0;
    assert!(e.contains("`ground` is static") && e.contains("set its velocity"), "{e}");
    let e = w.set_body_pose(0, Vec3::ZERO, Quat::IDENTITY).unwrap_err().0;
    assert!(e.contains("`ground` is static") && e.contains("set its pose"), "{e}");
    let e = w.apply_torque(7, Vec3::X, Frame::World).unwrap_err().0;
    assert!(e.contains("body #7 does not exist"), "{e}");
    let e = w.apply_force(1, Vec3::new(f64::NAN, 0.0, 0.0), None, Frame::World).unwrap_err().0;
    assert!(e.contains("`box`") && e.contains("finite"), "{e}");
}

#[test]
fn reset_brings_back_the_initial_state() {
    for k in MethodKey::ALL {
        let mut w = free_box(k);
        let start = w.state.bodies.clone();
        w.apply_force(1, Vec3::new(1000.0, 0.0, 0.0), None, Frame::World).unwrap();
        w.step().unwrap();
        w.apply_force(1, Vec3::new(1000.0, 0.0, 0.0), None, Frame::World).unwrap();
        w.reset().unwrap();
        assert_eq!(w.state.step, 0);
        assert_eq!(w.state.bodies, start, "{k}");
        // the force pending at the reset is dropped
        w.step().unwrap();
        assert!(w.state.bodies[1].v.length() < 1e-12, "{k}: {:?}", w.state.bodies[1].v);
    }
}

#[test]
fn a_bundled_scene_name_resolves_with_or_without_its_extension() {
    let a = cairn::scene::find_scene("pyramid20").unwrap();
    let b = cairn::scene::find_scene("pyramid20.toml").unwrap();
    assert_eq!(a, b);
    assert!(cairn::scene::find_scene("stack60.scn").is_some());
    assert!(cairn::scene::find_scene("nosuch.toml").is_none());
}

#[test]
fn a_pending_force_is_part_of_the_state_and_survives_a_snapshot() {
    for method in MethodKey::ALL {
        let mut a = free_box(method);
        let f = Vec3::new(300.0, -200.0, 100.0);
        a.apply_force(1, f, None, Frame::World).unwrap();
        let snap = a.snapshot();
        let text = serde_json::to_string(&snap).unwrap();
        a.step().unwrap();
        assert!(a.state.applied.is_empty(), "{method}: the force must last one step");
        let mut b = free_box(method);
        b.restore(&serde_json::from_str(&text).unwrap()).unwrap();
        b.step().unwrap();
        assert_eq!(a.state.bodies[1].v, b.state.bodies[1].v, "{method}: a restored pending force must act the same");
        assert!(close(b.state.bodies[1].v, f * (0.01 / 1000.0), 1e-6), "{method}: {:?}", b.state.bodies[1].v);
    }
}
