//! Tests of the `impulse` joints: the small solve, joints that hold, the pendulum's period, limits, the implicit
//! PD motor (its impulse is the PD force at the end of the step), readings, shock propagation with joints.

use super::*;
use crate::dynamics::joint::coordinates;
use crate::scene::load_str;
use crate::world::World;
use std::path::Path;

fn world(text: &str) -> World {
    World::from_scene_text(text, "t").unwrap()
}

fn bundled(name: &str) -> World {
    let path = format!("{}/scenes/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    World::new(load_str(&text, name, name, Path::new("."), &[("world.method".into(), "impulse".into())]).unwrap()).unwrap()
}

/// The largest bilateral row error of any joint at the state.
fn joint_error(w: &World) -> f64 {
    let mut rows = Vec::new();
    for j in &w.model.joints {
        JointPose::of(&w.model, j, &w.state.bodies).bilateral_rows(j.kind, &mut rows);
    }
    rows.iter().fold(0.0f64, |m, r| m.max(r.c.abs()))
}

/// A rod of length `len` (mass 1 kg) hinged to the world about y at its end, the rod along x from the origin,
/// turned by `angle` about y; `extra` is appended to the joint table.
fn rod(len: f64, angle: f64, gravity: f64, extra: &str) -> String {
    let (s, c) = angle.sin_cos();
    format!(
        "format = 1\n[world]\nmethod = \"impulse\"\ndt = 0.001\ngravity = [0.0, 0.0, {gravity}]\n\
         [[body]]\nname = \"rod\"\nmass = 1.0\nshape = {{ type = \"box\", size = [{len}, 0.02, 0.02] }}\n\
         position = [{}, 0.0, {}]\nrotation = [{}, 0.0, {}, 0.0]\n\
         [[joint]]\ntype = \"hinge\"\nbody1 = \"rod\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\n{extra}",
        0.5 * len * c,
        -0.5 * len * s,
        (0.5 * angle).cos(),
        (0.5 * angle).sin()
    )
}

#[test]
fn psd_solve_matches_a_direct_solve_and_drops_redundant_rows() {
    let m = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
    let mut a = [[0.0; MAX_ROWS]; MAX_ROWS];
    for r in 0..3 {
        a[r][..3].copy_from_slice(&m[r]);
    }
    let mut b = [1.0, 2.0, 3.0, 0.0, 0.0, 0.0];
    solve_psd(&mut a, &mut b, 3);
    for r in 0..3 {
        let ax: f64 = (0..3).map(|c| m[r][c] * b[c]).sum();
        assert!((ax - [1.0, 2.0, 3.0][r]).abs() < 1e-12, "{b:?}");
    }
    // a repeated row: consistent right-hand side, the duplicate gets nothing and the system is still solved
    let m = [[2.0, 2.0], [2.0, 2.0]];
    let mut a = [[0.0; MAX_ROWS]; MAX_ROWS];
    for r in 0..2 {
        a[r][..2].copy_from_slice(&m[r]);
    }
    let mut b = [4.0, 4.0, 0.0, 0.0, 0.0, 0.0];
    solve_psd(&mut a, &mut b, 2);
    assert_eq!(b[..2], [2.0, 0.0]);
}

#[test]
fn hinge_pendulum_keeps_its_joints() {
    let mut w = bundled("hinge_pendulum");
    for k in 0..300 {
        let st = w.step().unwrap();
        assert_eq!(st.joints.len(), 2);
        let e = joint_error(&w);
        assert!(e < 1e-6, "step {k}: joint error {e}");
    }
    // it swung: link2 fell well below the axis
    assert!(w.state.bodies[1].x.z < -0.5, "{:?}", w.state.bodies[1]);
}

#[test]
fn small_angle_period_of_a_rod_is_the_compound_pendulums() {
    let (len, g) = (1.0, 9.81);
    // hanging, 0.05 rad from the vertical
    let mut w = world(&rod(len, std::f64::consts::FRAC_PI_2 - 0.05, -g, ""));
    // period 2π √(I_p/(m g d)) with I_p = m L²/3 (thin rod about its end; the 2 cm section adds m(0.02²)/12)
    let ip = len * len / 3.0 + 0.02 * 0.02 / 12.0;
    let expected = 2.0 * std::f64::consts::PI * (ip / (g * 0.5 * len)).sqrt();
    let mut last = coordinates(&w.model, &w.state)[0].2;
    let mut crossings = Vec::new();
    while crossings.len() < 3 {
        w.step().unwrap();
        let qd = coordinates(&w.model, &w.state)[0].2;
        if last < 0.0 && qd >= 0.0 {
            crossings.push(w.state.time - w.model.dt * qd / (qd - last));
        }
        last = qd;
        assert!(w.state.time < 10.0);
    }
    let period = (crossings[2] - crossings[0]) / 2.0;
    assert!((period / expected - 1.0).abs() < 0.01, "period {period} s, expected {expected} s");
}

#[test]
fn a_limit_holds_and_carries_the_rod() {
    // the rod starts horizontal and falls onto one of its limits at ±0.5 rad (which one depends on the
    // coordinate's sign convention)
    let mut w = world(&rod(1.0, 0.0, -9.81, "limits = [-0.5, 0.5]\n"));
    let mut beyond = 0.0f64;
    for _ in 0..2000 {
        w.step().unwrap();
        beyond = beyond.max(coordinates(&w.model, &w.state)[0].1.abs() - 0.5);
    }
    assert!(beyond < 1e-3, "beyond the limit by {beyond} rad");
    let (_, q, qd) = coordinates(&w.model, &w.state)[0];
    assert!((q.abs() - 0.5).abs() < 1e-3 && qd.abs() < 1e-3, "q {q}, q̇ {qd}");
    assert!(w.state.bodies[0].x.z < -0.2, "it fell onto the limit: {:?}", w.state.bodies[0]);
}

#[test]
fn a_motor_impulse_is_the_pd_force_at_the_end_of_the_step() {
    // no gravity, no other load: the motor's torque over the step is k(q* − q₁) + d(q̇* − q̇₁) at the step's end
    let (k, d) = (50.0, 3.0);
    let mut w = world(&rod(1.0, 0.0, 0.0, &format!("motor = {{ target = 1.0, stiffness = {k}, damping = {d} }}\n")));
    for _ in 0..5 {
        let st = w.step().unwrap();
        let (_, q, qd) = coordinates(&w.model, &w.state)[0];
        // the generalised force on q: the torque on the rod along the coordinate row's angular block (unit)
        let j = &w.model.joints[0];
        let row = JointPose::of(&w.model, j, &w.state.bodies).coordinate_row(j.kind).unwrap();
        let torque = st.joints[0].torque.dot(row.ang[0]);
        let pd = k * (1.0 - q) + d * (0.0 - qd);
        assert!((torque - pd).abs() < 1e-6 * pd.abs().max(1.0), "torque {torque}, PD at the end {pd}");
    }
}

#[test]
fn a_motor_with_huge_gains_is_stable_and_its_bound_holds() {
    let text = rod(1.0, 0.0, 0.0, "motor = { target = 1.0, stiffness = 1e12, damping = 1e9 }\n");
    let mut w = world(&text);
    for _ in 0..200 {
        w.step().unwrap();
    }
    let (_, q, qd) = coordinates(&w.model, &w.state)[0];
    assert!((q - 1.0).abs() < 1e-3 && qd.abs() < 1e-3, "q {q}, q̇ {qd}");
    // bounded: 0.5 N·m on I_p ≈ 1/3 kg·m² turns it at most ½·α·t² in t
    let mut w = world(&rod(1.0, 0.0, 0.0, "motor = { target = 1.0, stiffness = 1e12, damping = 1e9, max_force = 0.5 }\n"));
    for _ in 0..100 {
        let st = w.step().unwrap();
        // the motor's torque is along y; post-stabilisation adds at most rounding there
        assert!(st.joints[0].torque.y.abs() <= 0.5 * (1.0 + 1e-6), "{:?}", st.joints[0]);
    }
    let (_, q, _) = coordinates(&w.model, &w.state)[0];
    let ip = 1.0 / 3.0 + 0.02 * 0.02 / 12.0;
    // symplectic Euler under the largest torque: q_n = α h² n(n + 1)/2 after n steps
    let bound = 0.5 * (0.5 / ip) * 1e-6 * 100.0 * 101.0;
    assert!(q > 0.0 && q <= bound * (1.0 + 1e-6), "q {q}, bound {bound}");
}

const CHAIN2: &str = "format = 1\n[world]\nmethod = \"impulse\"\ndt = 0.01\n\
[[body]]\nname = \"a\"\nmass = 2.0\nshape = { type = \"box\", size = [0.1, 0.1, 0.9] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"b\"\nmass = 3.0\nshape = { type = \"box\", size = [0.1, 0.1, 0.9] }\nposition = [0.0, 0.0, -1.5]\n\
[[joint]]\ntype = \"ball\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nbody2 = \"b\"\nanchor = [0.0, 0.0, -1.0]\naxis = [0.0, 1.0, 0.0]\n";

#[test]
fn a_hanging_chain_top_joint_carries_the_weight_of_both() {
    let mut w = world(CHAIN2);
    for _ in 0..50 {
        let st = w.step().unwrap();
        let g = 9.81;
        // what the top joint applies to a: the weight of both, up; the lower one pulls a down by b's weight
        // to the joint tolerance: a residual of 1e-9 m per step is a force of about m·1e-9/h² = 5e-5 N
        assert!((st.joints[0].force - crate::math::Vec3::new(0.0, 0.0, 5.0 * g)).length() < 1e-4, "{:?}", st.joints);
        assert!((st.joints[1].force - crate::math::Vec3::new(0.0, 0.0, -3.0 * g)).length() < 1e-4, "{:?}", st.joints);
        assert!(st.joints[0].torque.length() < 1e-6, "{:?}", st.joints);
    }
    assert!(joint_error(&w) < 1e-9);
}

#[test]
fn prismatic_slider_stays_between_its_limits() {
    // a block on a rail along −x (gravity tilted by 0.3 rad towards −x), sliding from 0 to its limit at 0.4 m (a
    // joint to the world measures the body's own displacement along the axis)
    let text = "format = 1\n[world]\nmethod = \"impulse\"\ndt = 0.005\ngravity = [-2.9, 0.0, -9.35]\n\
[[body]]\nname = \"slider\"\nshape = { type = \"box\", size = [0.2, 0.1, 0.1] }\nposition = [0.0, 0.0, 0.0]\n\
[[joint]]\ntype = \"prismatic\"\nbody1 = \"slider\"\nanchor = [0.0, 0.0, 0.0]\naxis = [-1.0, 0.0, 0.0]\nlimits = [0.0, 0.4]\n";
    let mut w = world(text);
    let mut highest = 0.0f64;
    for _ in 0..400 {
        w.step().unwrap();
        let (_, q, _) = coordinates(&w.model, &w.state)[0];
        highest = highest.max(q);
        assert!(joint_error(&w) < 1e-6);
    }
    assert!(highest < 0.4 + 1e-3, "{highest}");
    let (_, q, qd) = coordinates(&w.model, &w.state)[0];
    assert!((q - 0.4).abs() < 1e-3 && qd.abs() < 1e-3, "q {q}, q̇ {qd}");
    // no rotation, and the rail holds y and z
    let b = &w.state.bodies[0];
    assert!(b.x.y.abs() < 1e-9 && b.x.z.abs() < 1e-9 && b.w.length() < 1e-9, "{b:?}");
}

#[test]
fn a_jointed_pair_on_the_ground_under_a_box_stays_joined() {
    // two boxes joined by a fixed joint, side by side on the ground, a third box resting across them: shock
    // propagation must not tear the joint (the pair is one level)
    let text = "format = 1\n[world]\nmethod = \"impulse\"\ndt = 0.01\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [0.5, 0.5, 0.5] }\nposition = [-0.26, 0.0, 0.25]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [0.5, 0.5, 0.5] }\nposition = [0.26, 0.0, 0.25]\n\
[[body]]\nname = \"top\"\nmass = 50.0\nshape = { type = \"box\", size = [1.0, 0.5, 0.2] }\nposition = [0.0, 0.0, 0.6]\n\
[[joint]]\ntype = \"fixed\"\nbody1 = \"a\"\nbody2 = \"b\"\nanchor = [0.0, 0.0, 0.25]\n";
    let mut w = world(text);
    for k in 0..200 {
        w.step().unwrap();
        let e = joint_error(&w);
        assert!(e < 1e-5, "step {k}: joint error {e}");
    }
    for b in &w.state.bodies[1..] {
        assert!(b.v.length() < 1e-3, "{b:?}");
    }
}

#[test]
fn joints_are_deterministic() {
    let run = || {
        let mut w = bundled("hinge_pendulum");
        for _ in 0..100 {
            w.step().unwrap();
        }
        w.state.bodies.iter().map(|b| (b.x, b.q, b.v, b.w)).collect::<Vec<_>>()
    };
    let a = run();
    let b = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(run);
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn wrecking_ball_keeps_its_chain_through_the_impact() {
    let mut w = bundled("wrecking_ball_light");
    let mut worst = 0.0f64;
    for _ in 0..100 {
        w.step().unwrap();
        worst = worst.max(joint_error(&w));
    }
    // push-out moves the ball out of the wall and its chain with it (1.8e-7 m measured; push-out without the
    // joints left 6.8 cm)
    assert!(worst < 1e-5, "joint error {worst}");
}
