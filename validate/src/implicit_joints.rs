//! Joint experiments of the `implicit-penalty` method (issue 14 item 8; Xu, Zhao, Barbič 2014 §5 and §6):
//! the pendulum's period and hinge error (the paper: below 1e-7 of the link length), a redundant double hinge
//! and a closed four-bar linkage (rank-deficient rows through the SVD pseudo-inverse), and a prismatic PD actuator
//! that reaches its target and stops at its limit. The scenes are written here.

use super::{from_text, rel, row, Overrides, Row};
use cairn::dynamics::joint::coordinates;
use cairn::math::Vec3;
use cairn::world::World;

/// Experiment names, in table order.
pub const EXPERIMENTS: [&str; 4] = ["ipj_pendulum", "ipj_double_hinge", "ipj_fourbar", "ipj_actuator"];

pub(super) fn run(name: &str, method: &Overrides) -> Vec<Row> {
    let r = match name {
        "ipj_pendulum" => pendulum(method),
        "ipj_double_hinge" => double_hinge(method),
        "ipj_fourbar" => fourbar(method),
        "ipj_actuator" => actuator(method),
        other => Err(anyhow::anyhow!("unknown experiment `{other}`")),
    };
    r.unwrap_or_else(|e| vec![super::failed(name, e)])
}

const G: f64 = 9.81;

fn world(dt: f64) -> String {
    format!("format = 1\n[world]\ndt = {dt}\ngravity = [0.0, 0.0, -{G}]\n")
}

/// A box link from `a` to `b` in the x–z plane at height offset `y`, `w` thick.
fn link(name: &str, a: Vec3, b: Vec3, y: f64, w: f64) -> String {
    let d = b - a;
    let len = d.length();
    let th = -d.z.atan2(d.x);
    let c = 0.5 * (a + b);
    format!(
        "[[body]]\nname = \"{name}\"\nshape = {{ type = \"box\", size = [{len}, {w}, {w}] }}\nposition = [{}, {y}, {}]\nrotation = [{}, 0.0, {}, 0.0]\n",
        c.x,
        c.z,
        (0.5 * th).cos(),
        (0.5 * th).sin()
    )
}

/// A hinge about y (`body2` empty: the world).
fn hinge(body1: &str, body2: &str, at: Vec3) -> String {
    let b2 = if body2.is_empty() { String::new() } else { format!("body2 = \"{body2}\"\n") };
    format!("[[joint]]\ntype = \"hinge\"\nbody1 = \"{body1}\"\n{b2}anchor = [{}, {}, {}]\naxis = [0.0, 1.0, 0.0]\n", at.x, at.y, at.z)
}

/// The largest |C| over every bilateral row of every joint now (m, or the sine of an angle for axis rows).
fn row_error(w: &World) -> f64 {
    let mut worst = 0.0f64;
    for j in &w.model.joints {
        let s = |b: usize| (w.state.bodies[b].x, w.state.bodies[b].q);
        let rows = cairn::methods::implicit::joints::joint_rows(&w.model, j, s(j.body1), j.body2.map(s));
        let n = cairn::methods::implicit::joints::bilateral_count(j);
        worst = rows[..n].iter().fold(worst, |m, r| m.max(r.c.abs()));
    }
    worst
}

fn finite(w: &World) -> bool {
    w.state.bodies.iter().all(|b| b.x.is_finite() && b.q.is_finite() && b.v.is_finite() && b.w.is_finite())
}

/// A 1 m rod (4 cm square) on a hinge about y at its top end, released θ₀ = 0.05 rad from the vertical, h = 5 ms:
/// the period within 1% of 2π√(I/(m g d))(1 + θ₀²/16), and the largest row error over three periods below 1e-7 of
/// the rod's length (the paper's articulated boxes).
fn pendulum(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (l, th) = (1.0f64, 0.05f64);
    let text =
        world(0.005) + &link("rod", Vec3::ZERO, Vec3::new(-l * th.sin(), 0.0, -l * th.cos()), 0.0, 0.04) + &hinge("rod", "", Vec3::ZERO);
    let mut w = from_text(&text, method)?;
    let i_pivot = (0.04 * 0.04 + l * l) / 12.0 + 0.25 * l * l;
    let want = std::f64::consts::TAU * (i_pivot / (G * 0.5 * l)).sqrt() * (1.0 + th * th / 16.0);
    let angle = |w: &World| w.state.bodies[0].x.x.atan2(-w.state.bodies[0].x.z);
    let (mut crossings, mut prev, mut err) = (Vec::new(), (0.0, angle(&w)), 0.0f64);
    for _ in 0..(3.2 * want / w.model.dt) as usize {
        w.step()?;
        err = err.max(row_error(&w));
        let now = (w.state.time, angle(&w));
        if prev.1 * now.1 < 0.0 {
            crossings.push(prev.0 + (now.0 - prev.0) * prev.1 / (prev.1 - now.1));
        }
        prev = now;
    }
    let period =
        if crossings.len() >= 3 { 2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64 } else { f64::NAN };
    Ok(vec![
        row(
            "ipj pendulum: 1 m rod on a hinge, θ₀ = 0.05 rad, h = 5 ms: period",
            format!("{want:.4} s"),
            format!("{period:.4} s"),
            "1%",
            rel(period, want) < 0.01,
        ),
        row(
            "ipj pendulum: largest hinge row error over 3 periods / link length (paper: < 1e-7)",
            "< 1e-7",
            format!("{:.2e}", err / l),
            "1e-7",
            err / l < 1e-7,
        ),
    ])
}

/// A 0.8 m × 0.6 m door (2 cm thick) hinged to the world at two points of one vertical-in-plane axis (y), 0.5 m
/// apart: ten rows of which five are redundant, so S is singular and the pseudo-inverse must drop five singular
/// values. Released 0.3 rad from hanging, 3 s: finite, swinging, every row below 1e-6 m.
fn double_hinge(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let th = 0.3f64;
    let (ax, az) = (-0.8 * th.sin(), -0.8 * th.cos());
    let text = world(0.005)
        + &format!(
            "[[body]]\nname = \"door\"\nshape = {{ type = \"box\", size = [0.02, 0.6, 0.8] }}\nposition = [{}, 0.0, {}]\nrotation = [{}, 0.0, {}, 0.0]\n",
            0.5 * ax,
            0.5 * az,
            (0.5 * th).cos(),
            -(0.5 * th).sin()
        )
        + &hinge("door", "", Vec3::new(0.0, -0.25, 0.0))
        + &hinge("door", "", Vec3::new(0.0, 0.25, 0.0));
    let mut w = from_text(&text, method)?;
    let mut err = 0.0f64;
    let mut swing = 0.0f64;
    for _ in 0..(3.0 / w.model.dt) as usize {
        w.step()?;
        err = err.max(row_error(&w));
        swing = swing.max(w.state.bodies[0].w.length());
    }
    let ok = finite(&w) && err < 1e-6 && swing > 0.5;
    Ok(vec![row(
        "ipj double hinge: door on two hinges of one axis (10 rows, 5 redundant), 3 s: largest row error",
        "finite, < 1e-6 m, swinging",
        format!("{err:.2e} m, largest |ω| {swing:.2} rad/s"),
        "1e-6 m",
        ok,
    )])
}

/// A closed four-bar linkage in the x–z plane: ground pivots A = (0, 0) and D = (0.6, 0), crank AB to (0.1, 0.3),
/// coupler BC to (0.55, 0.4), rocker CD; four hinges about y (20 rows, 3 redundant for a planar loop). Released
/// at rest under gravity, 3 s at h = 5 ms: finite, moving, every row below 1e-6 m.
fn fourbar(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (a, b, c, d) = (Vec3::ZERO, Vec3::new(0.1, 0.0, 0.3), Vec3::new(0.55, 0.0, 0.4), Vec3::new(0.6, 0.0, 0.0));
    let text = world(0.005)
        + &link("crank", a, b, 0.0, 0.02)
        + &link("coupler", b, c, 0.04, 0.02)
        + &link("rocker", d, c, 0.0, 0.02)
        + &hinge("crank", "", a)
        + &hinge("crank", "coupler", b)
        + &hinge("coupler", "rocker", c)
        + &hinge("rocker", "", d);
    let mut w = from_text(&text, method)?;
    let (mut err, mut travel) = (0.0f64, 0.0f64);
    let start = w.state.bodies[1].x;
    for _ in 0..(3.0 / w.model.dt) as usize {
        w.step()?;
        err = err.max(row_error(&w));
        travel = travel.max((w.state.bodies[1].x - start).length());
    }
    let ok = finite(&w) && err < 1e-6 && travel > 0.05;
    Ok(vec![row(
        "ipj four-bar: closed planar loop (4 hinges, 3 redundant rows) under gravity, 3 s: largest row error",
        "finite, < 1e-6 m, moving",
        format!("{err:.2e} m, coupler travel {travel:.3} m"),
        "1e-6 m",
        ok,
    )])
}

/// A 20 cm block (8 kg) on a horizontal prismatic joint to the world along x with limits [−0.1, 0.3] m, driven by
/// the implicit PD motor (ω = 2π rad/s, ζ = 0.7): the target 0.2 m until t = 2 s, then 0.5 m, beyond the upper
/// limit. It reaches 0.2 m (within 1e-3 m at 2 s) and then stops at 0.3 m (within 1e-3 m at 4 s, never beyond by
/// more than 1e-6 m). The same with gains 10⁶ times stiffer (k = 3.2e8 N/m at h = 5 ms, k h²/m = 1e3): bounded
/// and at the target.
fn actuator(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let m = 8.0;
    let wn = std::f64::consts::TAU;
    let mut rows = Vec::new();
    for scale in [1.0, 1e6] {
        let (k, c) = (scale * m * wn * wn, scale.sqrt() * 2.0 * 0.7 * m * wn);
        let text = world(0.005)
            + "[[body]]\nname = \"block\"\nshape = { type = \"box\", size = [0.2, 0.2, 0.2] }\nposition = [0.0, 0.0, 0.0]\n"
            + &format!(
                "[[joint]]\ntype = \"prismatic\"\nbody1 = \"block\"\nanchor = [0.0, 0.0, 0.0]\naxis = [1.0, 0.0, 0.0]\nlimits = [-0.1, 0.3]\n\
                 motor = {{ stiffness = {k}, damping = {c}, path = [{{ time = 0.0, value = 0.2 }}, {{ time = 2.0, value = 0.2 }}, {{ time = 2.005, value = 0.5 }}] }}\n"
            );
        let mut w = from_text(&text, method)?;
        let q = |w: &World| coordinates(&w.model, &w.state).first().map_or(f64::NAN, |c| c.1);
        let (mut at_target, mut beyond) = (f64::NAN, f64::NEG_INFINITY);
        for _ in 0..(4.0 / w.model.dt).round() as usize {
            w.step()?;
            if (w.state.time - 2.0).abs() < 1e-9 {
                at_target = q(&w);
            }
            beyond = beyond.max(q(&w) - 0.3);
        }
        let end = q(&w);
        let ok = (at_target - 0.2).abs() < 1e-3 && (end - 0.3).abs() < 1e-3 && beyond <= 1e-6 && finite(&w);
        rows.push(row(
            &format!("ipj actuator: prismatic PD (k = {k:.3e} N/m) to 0.2 m, then 0.5 m past the 0.3 m limit"),
            "0.2 m at 2 s; 0.3 m at 4 s, beyond ≤ 1e-6 m",
            format!("{at_target:.5} m; {end:.5} m, beyond {beyond:.1e} m"),
            "1e-3 m",
            ok,
        ));
    }
    Ok(rows)
}
