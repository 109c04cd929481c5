use super::*;
use crate::dynamics::joint::coordinates;
use crate::world::World;

fn world(text: &str) -> World {
    World::from_scene_text(text, "t").unwrap()
}

const HEAD: &str = "format = 1\n[world]\ndt = 0.01\nmethod = \"volumetric-penalty\"\n";

/// `n` links of length `l` (boxes 0.9 l long, 0.1 l thick) along +x from a hinge to the world at the origin,
/// hinged to each other about y; `gravity` in z.
fn chain(n: usize, l: f64, kind: &str) -> String {
    let mut s = HEAD.to_string();
    for i in 0..n {
        s += &format!(
            "[[body]]\nname = \"l{i}\"\nshape = {{ type = \"box\", size = [{:?}, {:?}, {:?}] }}\nposition = [{:?}, 0.0, 0.0]\n",
            0.9 * l,
            0.1 * l,
            0.1 * l,
            (i as f64 + 0.5) * l
        );
    }
    for i in 0..n {
        let body2 = if i == 0 { String::new() } else { format!("body2 = \"l{}\"\n", i - 1) };
        s += &format!(
            "[[joint]]\ntype = \"{kind}\"\nbody1 = \"l{i}\"\n{body2}anchor = [{:?}, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\n",
            i as f64 * l
        );
    }
    s
}

/// The largest anchor separation over the joints.
fn opening(w: &World) -> f64 {
    w.model.joints.iter().map(|j| JointPose::of(&w.model, j, &w.state.bodies)).map(|p| (p.p[1] - p.p[0]).length()).fold(0.0, f64::max)
}

/// The largest |C| over every joint's bilateral rows.
fn row_error(w: &World) -> f64 {
    let mut rows = Vec::new();
    for j in &w.model.joints {
        JointPose::of(&w.model, j, &w.state.bodies).bilateral_rows(j.kind, &mut rows);
    }
    rows.iter().map(|r| r.c.abs()).fold(0.0, f64::max)
}

#[test]
fn a_hinged_chain_opens_far_less_than_its_bounds() {
    // one 1 m link: < 1% of the link (the bound); two: < 1e-3; ten 10 cm links released horizontal:
    // every joint < 1e-3 of a link
    for (n, l, bound) in [(1, 1.0, 1e-2), (2, 1.0, 1e-3), (10, 0.1, 1e-3)] {
        // every other link beside the line of hinges (offset along the axis: the motion stays planar), so that
        // neighbours never touch and only the joints act between them
        let mut text = chain(n, l, "hinge");
        for i in (1..n).step_by(2) {
            let x = (i as f64 + 0.5) * l;
            text = text.replace(&format!("position = [{x:?}, 0.0, 0.0]"), &format!("position = [{x:?}, {:?}, 0.0]", 0.15 * l));
        }
        let mut w = world(&text);
        let (mut worst, mut low) = (0.0f64, 0.0f64);
        for _ in 0..200 {
            w.step().unwrap();
            worst = worst.max(opening(&w));
            low = low.min(w.state.bodies[n - 1].x.z);
        }
        eprintln!("{n} links of {l} m: opening {worst:.3e} m");
        assert!(worst < bound * l, "{n} links of {l} m: opening {worst} m, bound {} m", bound * l);
        // it swings: the last link fell
        assert!(low < -0.3 * l * n as f64, "lowest z {low}");
    }
}

#[test]
fn ball_prismatic_and_fixed_joints_hold_their_rows() {
    for kind in ["ball", "prismatic", "fixed"] {
        let mut text = chain(3, 0.5, kind);
        if kind == "prismatic" {
            text = text.replace("axis = [0.0, 1.0, 0.0]", "axis = [1.0, 0.0, -1.0]");
        }
        text += "[[load]]\nbody = \"l2\"\ntorque = [0.03, 0.02, 0.05]\nend = 0.3\n";
        let mut w = world(&text);
        let mut worst = 0.0f64;
        // the prismatic chain slides on: its rows hold the anchors it leaves behind, whose growing lever turns
        // a small twist into a larger |C|; 0.3 s keeps the levers below 0.5 m
        for _ in 0..if kind == "prismatic" { 30 } else { 100 } {
            w.step().unwrap();
            worst = worst.max(row_error(&w));
        }
        assert!(worst < 1e-4, "{kind}: row error {worst}");
        assert!(w.state.bodies[2].v.length() + w.state.bodies[2].w.length() > 1e-2 || kind == "fixed", "{kind} did not move");
    }
}

#[test]
fn the_solve_is_the_linearised_backward_euler_step() {
    // a loop (four bodies, one ring of hinges to the world at both ends) with violated joints and random
    // velocities: M(v⁺ − v*) = h Σ Jᵀλ and λ = −(k(C + h J v⁺) + c J v⁺) for every row
    let mut text = chain(3, 0.5, "hinge");
    text += "[[joint]]\ntype = \"ball\"\nbody1 = \"l2\"\nanchor = [1.5, 0.0, 0.0]\n";
    let w = world(&text);
    let (model, mut state) = (w.model, w.state);
    let mut rng = crate::math::rng::Rng::new(7);
    for s in &mut state.bodies {
        s.x += Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 1e-3;
        s.v = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
        s.w = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
    }
    let before = state.bodies.clone();
    let (h, omega_h, zeta) = (1e-3, 10.0, 1.0);
    let mut joints = Joints::new(&model);
    joints.solve(&model, &mut state, h, (omega_h, zeta)).unwrap();
    let omega = omega_h / h;
    let mut dp = vec![(Vec3::ZERO, Vec3::ZERO); model.bodies.len()];
    for sr in &joints.rows {
        let lambda = joints.force(sr);
        let j = &model.joints[sr.joint];
        let m_eff = 1.0 / inverse_mass(&model, &state, j, sr.nodes, &sr.row);
        let jv = rate(&state, j, &sr.row, |_| true);
        let expect = -(m_eff * omega * omega * (sr.row.c + h * jv) + 2.0 * zeta * m_eff * omega * jv);
        assert!((lambda - expect).abs() < 1e-9 * expect.abs().max(1.0), "λ {lambda} vs {expect}");
        for (side, b) in [(0, Some(j.body1)), (1, j.body2)] {
            if let Some(b) = b {
                dp[b].0 += sr.row.lin[side] * (h * lambda);
                dp[b].1 += sr.row.ang[side] * (h * lambda);
            }
        }
    }
    for (i, (s, s0)) in state.bodies.iter().zip(&before).enumerate() {
        let b = &model.bodies[i];
        let iw = inv_inertia_world(&model, i, s.q).inverse();
        let (lin, ang) = ((s.v - s0.v) * b.mass, iw * (s.w - s0.w));
        assert!((lin - dp[i].0).length() < 1e-9 * dp[i].0.length().max(1.0), "body {i}: {lin} vs {}", dp[i].0);
        assert!((ang - dp[i].1).length() < 1e-9 * dp[i].1.length().max(1.0), "body {i}: {ang} vs {}", dp[i].1);
    }
}

#[test]
fn a_limit_holds_within_a_milliradian_and_a_slider_between_its_limits() {
    let text = chain(1, 1.0, "hinge").replace("axis = [0.0, 1.0, 0.0]\n", "axis = [0.0, 1.0, 0.0]\nlimits = [-0.5, 0.5]\n");
    let mut w = world(&text);
    let beyond = |q: f64, lo: f64, hi: f64| (lo - q).max(q - hi);
    let mut worst = f64::NEG_INFINITY;
    for _ in 0..300 {
        w.step().unwrap();
        worst = worst.max(beyond(coordinates(&w.model, &w.state)[0].1, -0.5, 0.5));
    }
    // a joint to the world measures the link's own angle: falling about +y makes it positive
    let q = coordinates(&w.model, &w.state)[0].1;
    assert!(worst < 1e-3 && worst > -1e-3, "beyond the limit by {worst} rad");
    assert!((q - 0.5).abs() < 1e-3, "rests at {q}");
    // a slider down a 45° rail stops at its upper limit 0.3 m and stays there
    let text = format!(
        "{HEAD}[[body]]\nname = \"s\"\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n\
         [[joint]]\ntype = \"prismatic\"\nbody1 = \"s\"\nanchor = [0.0, 0.0, 0.0]\naxis = [1.0, 0.0, -1.0]\nlimits = [-0.2, 0.3]\n"
    );
    let mut w = world(&text);
    let mut worst = f64::NEG_INFINITY;
    for _ in 0..200 {
        w.step().unwrap();
        worst = worst.max(beyond(coordinates(&w.model, &w.state)[0].1, -0.2, 0.3));
    }
    // the slider's own displacement along the rail: going down makes it positive
    let q = coordinates(&w.model, &w.state)[0].1;
    assert!(worst < 1e-4, "beyond the limit by {worst} m");
    assert!((q - 0.3).abs() < 1e-4, "rests at {q}");
    // the rail's rows hold the world's anchor, 0.2 m from the centre of mass at the limit: the normal force there
    // twists the slider a little against its rotation rows; 1e-4 of its size
    assert!(row_error(&w) < 2e-5, "rail error {}", row_error(&w));
}

/// A link of 1 m × 0.1 m × 0.1 m (10 kg) on a hinge about y at its end, no gravity, with the motor table `motor`.
fn motor_arm(motor: &str) -> World {
    let text = format!(
        "format = 1\n[world]\ndt = 0.001\ngravity = [0.0, 0.0, 0.0]\nmethod = \"volumetric-penalty\"\n\
         [[body]]\nname = \"arm\"\nshape = {{ type = \"box\", size = [1.0, 0.1, 0.1] }}\nposition = [0.5, 0.0, 0.0]\n\
         [[joint]]\ntype = \"hinge\"\nbody1 = \"arm\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {motor}\n"
    );
    world(&text)
}

#[test]
fn a_pd_motor_follows_its_analytic_step_response_and_stiff_gains_stay_stable() {
    // I about the hinge: m(l² + t²)/12 + m(l/2)² with m = 10, l = 1, t = 0.1
    let inertia = 10.0 * (1.0 + 0.01) / 12.0 + 10.0 * 0.25;
    let (wn, zeta): (f64, f64) = (10.0, 0.5);
    let (kp, kd) = (inertia * wn * wn, 2.0 * zeta * wn * inertia);
    let mut w = motor_arm(&format!("{{ target = 0.4, stiffness = {kp}, damping = {kd} }}"));
    let wd = wn * (1.0 - zeta * zeta).sqrt();
    for s in 1..=600 {
        w.step().unwrap();
        let t = s as f64 * 1e-3;
        let exact = 0.4 * (1.0 - (-zeta * wn * t).exp() * ((wd * t).cos() + zeta * wn / wd * (wd * t).sin()));
        let q = coordinates(&w.model, &w.state)[0].1;
        assert!((q - exact).abs() < 4e-3, "t {t}: q {q} vs {exact}");
    }
    // gains a million times stiffer: stable, and on target
    let mut w = motor_arm(&format!("{{ target = 0.4, stiffness = {}, damping = {} }}", kp * 1e6, kd * 1e3));
    for _ in 0..300 {
        w.step().unwrap();
    }
    let (_, q, qd) = coordinates(&w.model, &w.state)[0];
    assert!((q - 0.4).abs() < 1e-6 && qd.abs() < 1e-6, "q {q} q̇ {qd}");
}

#[test]
fn a_saturated_motor_applies_its_largest_torque_and_the_reading_shows_it() {
    let mut w = motor_arm("{ target = 3.0, stiffness = 1000.0, damping = 100.0, max_force = 2.0 }");
    let inertia = 10.0 * (1.0 + 0.01) / 12.0 + 10.0 * 0.25;
    let mut stats = None;
    for _ in 0..200 {
        stats = Some(w.step().unwrap());
    }
    let r = stats.unwrap().joints[0];
    let (_, q, _) = coordinates(&w.model, &w.state)[0];
    // constant torque 2 N·m over 200 steps of h: symplectic Euler gives q = (2/I)·h²·n(n+1)/2 (the hinge's own
    // springs add no torque about the axis)
    let exact = 2.0 / inertia * 1e-6 * 200.0 * 201.0 / 2.0;
    assert!((q - exact).abs() < 1e-4 * exact, "q {q} vs {exact}");
    assert!((r.torque.y.abs() - 2.0).abs() < 1e-6, "reading {:?}", r.torque);
}

#[test]
fn the_top_joint_of_a_hanging_two_link_chain_carries_the_weight_of_both() {
    let text = chain(2, 1.0, "hinge").replace("[1.0, 0.0, 0.0]", "[0.0, 0.0, -1.0]").replace("[1.5, 0.0, 0.0]", "[0.0, 0.0, -1.5]");
    let text = text
        .replace("size = [0.9, 0.1, 0.1]", "size = [0.1, 0.1, 0.9]")
        .replace("position = [0.5, 0.0, 0.0]", "position = [0.0, 0.0, -0.5]");
    let mut w = world(&text);
    let mut last = None;
    for _ in 0..200 {
        last = Some(w.step().unwrap());
    }
    let weight: f64 = w.model.bodies.iter().map(|b| b.mass * 9.81).sum();
    let (top, mid) = (last.as_ref().unwrap().joints[0], last.as_ref().unwrap().joints[1]);
    assert!((top.force - Vec3::new(0.0, 0.0, weight)).length() < 1e-6 * weight, "top {:?} vs {weight}", top.force);
    // the middle joint holds the lower link (body 1) up: it carries its weight
    let lower = w.model.bodies[1].mass * 9.81;
    assert!((mid.force - Vec3::new(0.0, 0.0, lower)).length() < 1e-6 * lower, "middle {:?} vs {lower}", mid.force);
    assert!(top.torque.length() < 1e-6 * weight, "torque about the anchor {:?}", top.torque);
}

#[test]
fn an_undamped_double_pendulum_keeps_its_energy() {
    // the second link beside the first (y = 0.15): they never touch, whatever their angles
    let mut w = world(&chain(2, 1.0, "hinge").replace("position = [1.5, 0.0, 0.0]", "position = [1.5, 0.15, 0.0]"));
    let energy = |w: &World| w.state.kinetic_energy(&w.model) + w.state.potential_energy(&w.model);
    let e0 = energy(&w);
    let scale = w.model.bodies.iter().map(|b| b.mass * 9.81 * 2.0).sum::<f64>();
    let mut worst = 0.0f64;
    for _ in 0..1000 {
        w.step().unwrap();
        worst = worst.max((energy(&w) - e0).abs() / scale);
    }
    assert!(worst < 1e-2, "energy drift {worst} of m g L");
}

#[test]
fn frames_of_substeps_are_frames_of_the_substep_with_joints() {
    let text = chain(3, 0.5, "hinge");
    let mut fine = world(&text.replace("dt = 0.01", "dt = 0.001"));
    let mut coarse = world(&text.replace("dt = 0.01", "dt = 0.002"));
    for _ in 0..100 {
        let a = fine.step().unwrap();
        let b = fine.step().unwrap();
        let c = coarse.step().unwrap();
        let mean = (a.joints[0].force + b.joints[0].force) * 0.5;
        assert!((c.joints[0].force - mean).length() <= 1e-9 * mean.length(), "{:?} vs {mean:?}", c.joints[0].force);
    }
    assert_eq!(fine.state.bodies, coarse.state.bodies);
}
