//! Joints under `lcp`: a pendulum's period, a limit, a motor (including gains far beyond explicit stability), a
//! prismatic slider, a fixed cantilever, a closed four-bar, the reaction of a hanging chain, energy, and
//! bit-identical runs for any thread count.

use crate::dynamics::joint::{coordinates, JointPose};
use crate::math::{Quat, Vec3};
use crate::method::StepStats;
use crate::World;

const ROD: &str = "shape = { type = \"box\", size = [0.05, 0.05, 1.0] }";

fn world(text: &str) -> World {
    World::from_scene_text(&format!("format = 1\n{text}"), "t").unwrap()
}

/// The largest |C| of any bilateral row of any joint.
fn joint_error(w: &World) -> f64 {
    let mut rows = Vec::new();
    let mut worst = 0.0f64;
    for j in &w.model.joints {
        rows.clear();
        JointPose::of(&w.model, j, &w.state.bodies).bilateral_rows(j.kind, &mut rows);
        worst = rows.iter().fold(worst, |m, r| m.max(r.c.abs()));
    }
    worst
}

fn q(w: &World, k: usize) -> (f64, f64) {
    let c = coordinates(&w.model, &w.state).into_iter().find(|c| c.0 == k).unwrap();
    (c.1, c.2)
}

fn steps(w: &mut World, n: usize, mut each: impl FnMut(&World, &StepStats)) {
    for _ in 0..n {
        let s = w.step().unwrap();
        each(w, &s);
    }
}

/// A rod of length 1 hanging from a hinge at the origin about y, released at `deg` degrees.
fn pendulum(deg: f64, extra: &str) -> String {
    let t = deg.to_radians();
    format!(
        "[world]\ndt = 0.001\nmethod = \"lcp\"\n[[body]]\nname = \"rod\"\n{ROD}\nposition = [{}, 0.0, {}]\nrotation_deg = [0.0, {deg}, 0.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"rod\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\n{extra}",
        -0.5 * t.sin(),
        -0.5 * t.cos()
    )
}

#[test]
fn a_hinge_pendulum_swings_with_the_compound_pendulum_period() {
    let mut w = world(&pendulum(3.0, ""));
    let (l, a, g, d) = (1.0f64, 0.05f64, 9.81f64, 0.5f64);
    let period = 2.0 * std::f64::consts::PI * (((l * l + a * a) / 12.0 + d * d) / (g * d)).sqrt();
    let mut crossings = Vec::new();
    let mut last = q(&w, 0).0;
    let mut worst = 0.0f64;
    steps(&mut w, 6000, |w, _| {
        let now = q(w, 0).0;
        if last < 0.0 && now >= 0.0 {
            crossings.push(w.state.time - 0.001 * now / (now - last));
        }
        last = now;
        worst = worst.max(joint_error(w));
    });
    let measured = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    assert!(crossings.len() >= 3, "{crossings:?}");
    assert!((measured / period - 1.0).abs() < 1e-3, "period {measured} s, analytic {period} s");
    // the correction by projection runs once an error exceeds correction_tolerance (1e-5)
    assert!(worst < 1e-5, "joint error {worst}");
}

#[test]
fn a_hinge_limit_holds_the_swing() {
    // hanging, launched at 5 rad/s (enough for 81°) between limits at ±30°
    let mut w = world(&pendulum(0.0, "limits = [-0.5235987755982988, 0.5235987755982988]\n"));
    (w.state.bodies[0].v, w.state.bodies[0].w) = (Vec3::new(-2.5, 0.0, 0.0), Vec3::new(0.0, 5.0, 0.0));
    let (mut beyond, mut most) = (0.0f64, 0.0f64);
    steps(&mut w, 2000, |w, _| {
        let (q, _) = q(w, 0);
        beyond = beyond.max(q.abs() - 0.5235987755982988);
        most = most.max(q.abs());
    });
    assert!(beyond < 1e-3, "beyond the limit by {beyond} rad");
    assert!(most > 0.52, "the rod reached the limit: |q| ≤ {most}");
    assert!(joint_error(&w) < 1e-5, "joint error {}", joint_error(&w));
}

/// A rod about its centre on a hinge to the world (no gravity), driven by a PD motor to 1 rad.
fn motor(k: f64, c: f64, extra: &str) -> World {
    world(&format!(
        "[world]\ndt = 0.01\ngravity = [0.0, 0.0, 0.0]\nmethod = \"lcp\"\n[[body]]\nname = \"rod\"\n{ROD}\n[[joint]]\ntype = \"hinge\"\n\
body1 = \"rod\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {{ target = 1.0, stiffness = {k}, damping = {c}{extra} }}\n"
    ))
}

#[test]
fn a_pd_motor_reaches_its_target_stably_for_any_gains() {
    for (k, c) in [(20.0, 2.0), (1e9, 1e7), (1e12, 0.0)] {
        let mut w = motor(k, c, "");
        steps(&mut w, 500, |_, _| {});
        let (q, qd) = q(&w, 0);
        assert!((q - 1.0).abs() < 1e-3 && qd.abs() < 1e-2, "gains {k}, {c}: q = {q}, q̇ = {qd}");
    }
    // a critically damped motor (ζ = 1) on I = m(L² + a²)/12: no overshoot
    let inertia = 2.5 * (1.0 + 0.0025) / 12.0;
    let k = 10.0f64;
    let mut w = motor(k, 2.0 * (k * inertia).sqrt(), "");
    let mut most = 0.0f64;
    steps(&mut w, 1000, |w, _| most = most.max(q(w, 0).0));
    assert!(most <= 1.0 + 1e-3, "overshoot to {most}");
}

#[test]
fn a_motor_torque_is_bounded_by_max_force() {
    let inertia = 2.5 * (1.0 + 0.0025) / 12.0;
    let mut w = motor(1e6, 1e3, ", max_force = 0.5");
    let mut torque = 0.0f64;
    steps(&mut w, 20, |_, s| torque = torque.max(s.joints[0].torque.y.abs()));
    let (q, _) = q(&w, 0);
    // saturated all along: the angular acceleration is max_force/I, q after 20 steps of symplectic Euler
    let expect = 0.5 / inertia * 0.01 * 0.01 * 210.0;
    assert!((q.abs() - expect).abs() < 1e-6 * expect, "q = {q}, expected {expect}");
    assert!((torque - 0.5).abs() < 1e-9, "torque {torque}");
}

#[test]
fn a_prismatic_slider_slides_to_its_limit_and_holds() {
    // a block on a rail tilted 30° from the horizontal, limits ±0.3 m along the rail
    let mut w = world(
        "[world]\ndt = 0.005\nmethod = \"lcp\"\n[[body]]\nname = \"s\"\nshape = { type = \"box\", size = [0.2, 0.1, 0.1] }\n\
[[joint]]\ntype = \"prismatic\"\nbody1 = \"s\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.8660254037844387, 0.0, 0.5]\nlimits = [-0.3, 0.3]\n",
    );
    let mut beyond = 0.0f64;
    let mut worst = 0.0f64;
    let mut early = None;
    steps(&mut w, 400, |w, _| {
        let (q, _) = q(w, 0);
        beyond = beyond.max(q.abs() - 0.3);
        worst = worst.max(joint_error(w));
        if w.state.step == 40 {
            early = Some(q);
        }
    });
    // free sliding along the rail at g·sin30° until the limit (q is the world's offset seen from the block):
    // 40 steps of symplectic Euler
    let expect = 9.81 * 0.5 * 0.005 * 0.005 * 820.0;
    let early = early.unwrap().abs();
    assert!((early - expect).abs() < 1e-4 * expect, "slid {early} m in 0.2 s, expected {expect}");
    assert!((q(&w, 0).0.abs() - 0.3).abs() < 1e-3, "rests at the limit: {}", q(&w, 0).0);
    assert!(beyond < 1e-3 && worst < 1e-5, "beyond the limit {beyond}, joint error {worst}");
    assert!(w.state.bodies[0].q.angle_between(Quat::IDENTITY) < 1e-5);
}

#[test]
fn a_fixed_joint_holds_a_cantilever_and_reports_its_moment() {
    let mut w = world(
        "[world]\ndt = 0.01\nmethod = \"lcp\"\n[[body]]\nname = \"beam\"\nshape = { type = \"box\", size = [1.0, 0.1, 0.1] }\nposition = [0.5, 0.0, 0.0]\n\
[[joint]]\ntype = \"fixed\"\nbody1 = \"beam\"\nanchor = [0.0, 0.0, 0.0]\n",
    );
    let mut last = StepStats::default();
    steps(&mut w, 200, |_, s| last = s.clone());
    let s = &w.state.bodies[0];
    assert!((s.x - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-5, "the beam sagged to {:?}", s.x);
    // the joint holds the weight m g and its moment m g·0.5 about the anchor
    let m = 1000.0 * 0.01;
    let r = last.joints[0];
    assert!((r.force - Vec3::new(0.0, 0.0, m * 9.81)).length() < 1e-6 * m * 9.81, "{r:?}");
    assert!((r.torque - Vec3::new(0.0, -0.5 * m * 9.81, 0.0)).length() < 1e-6 * m * 9.81, "{r:?}");
}

/// A hanging chain of `n` rods of length 0.9 with joints 1 apart from the origin (body k jointed to body k + 1,
/// the top to the world), each rod 6 cm further along y than the one above so that they never collide.
fn chain(n: usize, kind: &str, extra: &str) -> String {
    let mut t = format!("[world]\ndt = 0.001\nmethod = \"lcp\"\n{extra}");
    for k in 0..n {
        t += &format!(
            "[[body]]\nname = \"r{k}\"\nshape = {{ type = \"box\", size = [0.05, 0.05, 0.9] }}\nposition = [0.0, {}, {}]\n",
            0.06 * k as f64,
            -0.5 - k as f64
        );
    }
    t += &format!("[[joint]]\ntype = \"{kind}\"\nbody1 = \"r0\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\n");
    for k in 1..n {
        t += &format!(
            "[[joint]]\ntype = \"{kind}\"\nbody1 = \"r{}\"\nbody2 = \"r{k}\"\nanchor = [0.0, {}, {}]\naxis = [0.0, 1.0, 0.0]\n",
            k - 1,
            0.06 * k as f64,
            -(k as f64)
        );
    }
    t
}

/// Lays the chain's rods out horizontally along +x (released from there).
fn horizontal(w: &mut World) {
    for b in 0..w.state.bodies.len() {
        let s = &mut w.state.bodies[b];
        (s.x, s.q) = (Vec3::new(0.5 + b as f64, s.x.y, 0.0), Quat::from_rotation_y(-std::f64::consts::FRAC_PI_2));
    }
}

#[test]
fn a_hanging_two_link_chain_carries_the_weight_of_both_at_the_top() {
    let mut w = world(&chain(2, "hinge", ""));
    let mut last = StepStats::default();
    steps(&mut w, 100, |_, s| last = s.clone());
    let mg = 1000.0 * 0.05 * 0.05 * 0.9 * 9.81;
    let (top, mid) = (last.joints[0], last.joints[1]);
    assert!((top.force - Vec3::new(0.0, 0.0, 2.0 * mg)).length() < 1e-4 * mg, "top {top:?}");
    // the second joint's body 1 is the upper rod: the lower one pulls it down by its weight
    assert!((mid.force - Vec3::new(0.0, 0.0, -mg)).length() < 1e-4 * mg, "middle {mid:?}");
}

#[test]
fn a_swinging_ten_link_chain_keeps_its_joints_and_a_double_pendulum_its_energy() {
    // released horizontal: the chain's joints stay within 1e-3 of the link length
    let mut w = world(&chain(10, "hinge", ""));
    horizontal(&mut w);
    let mut worst = 0.0f64;
    steps(&mut w, 2000, |w, _| worst = worst.max(joint_error(w)));
    eprintln!("ten-link chain: largest joint error {worst} m");
    assert!(worst < 1e-3, "joint error {worst} m");
    // a frictionless double pendulum released at 90°: energy within 1% of the swing's over 5 s
    let mut w = world(&chain(2, "hinge", "[[material]]\nname = \"default\"\nfriction = 0.0\n"));
    horizontal(&mut w);
    let energy = |w: &World| w.state.kinetic_energy(&w.model) + w.state.potential_energy(&w.model);
    let (e0, m) = (energy(&w), 2.0 * 1000.0 * 0.05 * 0.05 * 0.9);
    let mut drift = 0.0f64;
    steps(&mut w, 5000, |w, _| drift = drift.max((energy(w) - e0).abs()));
    eprintln!("double pendulum: energy drift {drift} J of a {} J swing", m * 9.81 * 2.0);
    assert!(drift < 0.01 * m * 9.81 * 2.0, "energy drift {drift} J of a {} J swing", m * 9.81 * 2.0);
}

#[test]
fn a_closed_four_bar_stays_closed_and_finite() {
    // ground link between (0,0,0) and (2,0,0); crank, coupler and rocker of length 1 closing the loop, all hinges about y
    let mut w = world(
        "[world]\ndt = 0.005\nmethod = \"lcp\"\n\
[[body]]\nname = \"crank\"\nshape = { type = \"box\", size = [0.05, 0.05, 1.0] }\nposition = [0.0, 0.0, 0.5]\n\
[[body]]\nname = \"coupler\"\nshape = { type = \"box\", size = [2.0, 0.05, 0.05] }\nposition = [1.0, 0.1, 1.0]\n\
[[body]]\nname = \"rocker\"\nshape = { type = \"box\", size = [0.05, 0.05, 1.0] }\nposition = [2.0, 0.0, 0.5]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"crank\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"crank\"\nbody2 = \"coupler\"\nanchor = [0.0, 0.0, 1.0]\naxis = [0.0, 1.0, 0.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"coupler\"\nbody2 = \"rocker\"\nanchor = [2.0, 0.0, 1.0]\naxis = [0.0, 1.0, 0.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"rocker\"\nanchor = [2.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\n",
    );
    w.state.bodies[0].w = Vec3::new(0.0, 1.0, 0.0);
    let mut worst = 0.0f64;
    steps(&mut w, 600, |w, _| worst = worst.max(joint_error(w)));
    assert!(worst < 1e-3, "loop error {worst}");
    // a parallelogram: the coupler translates, it does not turn
    assert!(w.state.bodies[1].q.angle_between(Quat::IDENTITY) < 1e-2);
    assert!(q(&w, 0).0.abs() > 0.1, "the crank turned");
}

#[test]
fn joint_scenes_are_bit_identical_for_any_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let floor = "[[body]]\nname = \"floor\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -4.55]\n";
            let mut w = world(&chain(4, "ball", floor));
            w.state.bodies[3].v = Vec3::new(1.0, 0.5, 0.0);
            let mut bits = Vec::new();
            steps(&mut w, 300, |w, _| bits.extend(w.state.bodies.iter().flat_map(|b| b.x.to_array().map(f64::to_bits))));
            bits
        })
    };
    assert_eq!(run(1), run(4));
}

/// The bundled chain100 (100 links of 4.5 g, 5 cm, h = 5 ms) released horizontal: with the geometric stiffness
/// its joints hold over the 2 s swing (the whip's tail turning at up to 90 rad/s); without it the tension near the
/// root (hω = h√(12T/(m l)) past 2 by step 80) makes the links' zig-zag grow until the state is not finite.
#[test]
fn the_hundred_link_chain_holds_with_geometric_stiffness_and_blows_up_without() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/chain100.toml")).unwrap();
    let mut w = World::from_scene_text(&text, "chain100").unwrap();
    // the rows' errors: point rows (gaps, m) and axis rows (rad)
    let (mut gap, mut angle, mut rows, mut at) = (0.0f64, 0.0f64, Vec::new(), (0, 0, 0, 0.0));
    steps(&mut w, 400, |w, s| {
        for (k, j) in w.model.joints.iter().enumerate() {
            rows.clear();
            JointPose::of(&w.model, j, &w.state.bodies).bilateral_rows(j.kind, &mut rows);
            for r in &rows {
                if r.lin[0] == Vec3::ZERO {
                    angle = angle.max(r.c.abs());
                } else if r.c.abs() > gap {
                    gap = r.c.abs();
                    at = (w.state.step, k, s.contacts, coordinates(&w.model, &w.state)[k].2);
                }
            }
        }
    });
    eprintln!("chain100: largest joint gap {gap} m (step, joint, contacts, q̇: {at:?}), axis error {angle} rad");
    // The largest gap is the tail joint's at the whip's crack (measured 9.9e-5 m at step 202, the tail turning at
    // 78 rad/s, hω = 0.39 per step, among 277 contacts of the folding tail): the position update's third-order
    // drift r(hω)³/6 ≈ 2.5e-4 m per step is what the projection removes there, so the bound is 5e-3 of the link
    // length (the validation row's 1e-3 is for the 10-link chain, whose joints turn at a few rad/s).
    assert!(gap < 5e-3 * 0.05 && angle < 1e-3, "joint gap {gap} m (links 0.05 m), axis error {angle} rad");
    let off = text.replace("method = \"lcp\"\n", "method = \"lcp\"\n[solver.lcp]\ngeometric_stiffness = false\n");
    let mut w = World::from_scene_text(&off, "chain100").unwrap();
    let failed = (0..200).find_map(|_| w.step().err());
    assert!(failed.is_some(), "without geometric stiffness the chain was expected to blow up");
}
