//! Actuator and sensor experiments shared by every method (issue 32): each scene is written here, and each row
//! compares with an analytic answer.
//!
//! Rows: a geared torque motor's angular acceleration; the step response of a `position` actuator and of a
//! joint-motor servo; a `velocity` actuator's final speed; an `intvelocity` actuator's activation, force law and
//! ramp tracking; `ctrlrange` and `forcerange` clamps; `jointactuatorfrc`; a resting box's `touch` sensor and
//! contact-force sum; a `force` sensor in a hanging chain; an accelerometer in free fall and at rest; a gyro.

use super::{from_text, rel, row, Overrides, Row};
use cairn::dynamics::joint::coordinates;
use cairn::math::Vec3;
use cairn::world::World;

/// Names of the actuation experiments, in table order.
pub const EXPERIMENTS: [&str; 11] = [
    "act_motor",
    "act_position",
    "act_velocity",
    "act_intvelocity",
    "act_clamp",
    "act_jointactuatorfrc",
    "act_touch",
    "act_force_sensor",
    "act_contact_sum",
    "act_accelerometer",
    "act_gyro",
];

/// Runs actuation experiment `name` for the method in `method`.
pub(crate) fn run(name: &str, method: &Overrides) -> Vec<Row> {
    let r = match name {
        "act_motor" => motor(method),
        "act_position" => position(method),
        "act_velocity" => velocity(method),
        "act_intvelocity" => intvelocity(method),
        "act_clamp" => clamp(method),
        "act_jointactuatorfrc" => joint_actuator_force(method),
        "act_touch" => touch(method),
        "act_force_sensor" => force_sensor(method),
        "act_contact_sum" => contact_sum(method),
        "act_accelerometer" => accelerometer(method),
        "act_gyro" => gyro(method),
        other => Err(anyhow::anyhow!("unknown actuation experiment `{other}`")),
    };
    r.unwrap_or_else(|e| vec![super::failed(name, e)])
}

const G: f64 = 9.81;
const DT: f64 = 0.005;
/// The arms: 1 m long, 4 cm square, density 1000.
const L: f64 = 1.0;
const A: f64 = 0.04;
/// A site rotated 90° about x: world z reads as the site's y.
const SITE_ROT: &str = "[0.7071067811865476, 0.7071067811865476, 0.0, 0.0]";

fn header(gravity: f64) -> String {
    format!("format = 1\n[world]\ndt = {DT}\ngravity = [0.0, 0.0, {}]\n", -gravity)
}

/// A box body centred at `at`.
fn body(name: &str, size: [f64; 3], at: Vec3, extra: &str) -> String {
    format!(
        "[[body]]\nname = \"{name}\"\nshape = {{ type = \"box\", size = [{}, {}, {}] }}\nposition = [{}, {}, {}]\n{extra}",
        size[0], size[1], size[2], at.x, at.y, at.z
    )
}

/// An arm along x from (0, y, 0), on a hinge about z named `joint` at that end (to the world); `motor` adds a
/// joint motor.
fn arm(joint: &str, y: f64, motor: &str) -> String {
    body(&format!("{joint}_arm"), [L, A, A], Vec3::new(0.5 * L, y, 0.0), "")
        + &format!(
            "[[joint]]\nname = \"{joint}\"\ntype = \"hinge\"\nbody1 = \"{joint}_arm\"\nanchor = [0.0, {y}, 0.0]\naxis = [0.0, 0.0, 1.0]\n{motor}\n"
        )
}

/// The arm's inertia about its hinge.
fn arm_inertia(w: &World) -> f64 {
    let m = w.model.bodies[0].mass;
    m * (L * L + A * A) / 12.0 + m * 0.25 * L * L
}

/// The coordinate and rate of joint `k` now.
fn coordinate(w: &World, k: usize) -> anyhow::Result<(f64, f64)> {
    coordinates(&w.model, &w.state)
        .into_iter()
        .find(|c| c.0 == k)
        .map(|c| (c.1, c.2))
        .ok_or_else(|| anyhow::anyhow!("joint #{k} has no coordinate"))
}

/// The numbers of the sensor named `name` after the last step.
fn sensor<'a>(w: &'a World, name: &str) -> anyhow::Result<&'a [f64]> {
    let k = w.sensor_names().iter().position(|n| *n == name).ok_or_else(|| anyhow::anyhow!("no sensor `{name}`"))?;
    let (at, _) = cairn::dynamics::sensor::layout(&w.model);
    let dim = w.model.sensors[k].kind.dim();
    Ok(&w.sensordata()[at[k]..at[k] + dim])
}

fn vec3(x: &[f64]) -> Vec3 {
    Vec3::new(x[0], x[1], x[2])
}

/// An arm in zero gravity driven by a torque motor of gear 2 at control 0.75 (a `[[control]]`), with its
/// `actuatorfrc` and `jointactuatorfrc` sensors.
fn geared_arm(method: &Overrides) -> anyhow::Result<World> {
    let text = header(0.0)
        + &arm("hinge", 0.0, "")
        + "[[actuator]]\nname = \"m\"\ntype = \"motor\"\njoint = \"hinge\"\ngear = 2.0\n\
[[control]]\nactuator = \"m\"\nvalue = 0.75\n\
[[sensor]]\nname = \"frc\"\ntype = \"actuatorfrc\"\nactuator = \"m\"\n\
[[sensor]]\nname = \"jfrc\"\ntype = \"jointactuatorfrc\"\njoint = \"hinge\"\n";
    from_text(&text, method)
}

/// Row 1: α = gear·u / I about the hinge, from the rate after the first step and after the first 20.
fn motor(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = geared_arm(method)?;
    let want = 2.0 * 0.75 / arm_inertia(&w);
    w.step()?;
    let a1 = coordinate(&w, 0)?.1 / DT;
    for _ in 1..20 {
        w.step()?;
    }
    let a20 = coordinate(&w, 0)?.1 / (20.0 * DT);
    Ok(vec![row(
        "act motor: torque motor, gear 2, ctrl 0.75, on a 1 m arm's hinge, zero gravity: α over step 1; over steps 1–20",
        format!("{want:.5} rad/s² (gear·u/I)"),
        format!("{a1:.5}; {a20:.5} rad/s²"),
        "1%",
        rel(a1, want) <= 0.01 && rel(a20, want) <= 0.01,
    )])
}

/// The unit step response of I q̈ = kp (1 − q) − kv q̇, underdamped.
fn second_order(wn: f64, zeta: f64, t: f64) -> f64 {
    let s = (1.0 - zeta * zeta).sqrt();
    1.0 - (-zeta * wn * t).exp() * ((wn * s * t).cos() + zeta / s * (wn * s * t).sin())
}

/// Row 2: a step of 0.5 rad through a `position` actuator (explicit law) and through a joint motor driven as a
/// servo by a `[[control]]` (each method's motor code), ω_n = 2π, ζ = 0.5: the largest error at 0.1, 0.2,
/// 0.3, 0.5, 0.8 and 1.5 s against the exact response, over the step.
fn position(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (u, wn, zeta) = (0.5, std::f64::consts::TAU, 0.5);
    let probe = header(0.0) + &arm("hinge", 0.0, "");
    let inertia = arm_inertia(&from_text(&probe, method)?);
    let (kp, kv) = (inertia * wn * wn, 2.0 * zeta * inertia * wn);
    let times = [0.1, 0.2, 0.3, 0.5, 0.8, 1.5];
    let mut rows = Vec::new();
    for servo in [false, true] {
        let text = if servo {
            header(0.0)
                + &arm("hinge", 0.0, &format!("motor = {{ target = 0.0, stiffness = {kp}, damping = {kv} }}"))
                + &format!("[[control]]\nactuator = \"hinge\"\nvalue = {u}\n")
        } else {
            header(0.0)
                + &arm("hinge", 0.0, "")
                + &format!(
                    "[[actuator]]\nname = \"p\"\ntype = \"position\"\njoint = \"hinge\"\nkp = {kp}\nkv = {kv}\n[[control]]\nactuator = \"p\"\nvalue = {u}\n"
                )
        };
        let mut w = from_text(&text, method)?;
        let (mut worst, mut at) = (0.0f64, 0.0);
        let mut step = 0usize;
        for &t in &times {
            while (step as f64) * DT < t - 1e-9 {
                w.step()?;
                step += 1;
            }
            let e = (coordinate(&w, 0)?.0 - u * second_order(wn, zeta, t)).abs() / u;
            if e > worst {
                (worst, at) = (e, t);
            }
        }
        rows.push(row(
            if servo {
                "act position: joint-motor servo (the method's motor) ctrl 0.5 rad, ω_n = 2π, ζ = 0.5: largest |q − q_exact| / step at 0.1–1.5 s"
            } else {
                "act position: `position` actuator ctrl 0.5 rad, ω_n = 2π, ζ = 0.5: largest |q − q_exact| / step at 0.1–1.5 s"
            },
            "0",
            format!("{:.3}% (at {at} s)", 100.0 * worst),
            "2%",
            worst <= 0.02,
        ));
    }
    Ok(rows)
}

/// Row 3: a `velocity` actuator of time constant I/kv = 0.05 s commanding 2 rad/s on a free hinge: the speed
/// after 0.5 s.
fn velocity(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let probe = header(0.0) + &arm("hinge", 0.0, "");
    let kv = arm_inertia(&from_text(&probe, method)?) / 0.05;
    let text = probe
        + &format!(
            "[[actuator]]\nname = \"v\"\ntype = \"velocity\"\njoint = \"hinge\"\nkv = {kv}\n[[control]]\nactuator = \"v\"\nvalue = 2.0\n"
        );
    let mut w = from_text(&text, method)?;
    for _ in 0..(0.5 / DT).round() as usize {
        w.step()?;
    }
    let qd = coordinate(&w, 0)?.1;
    Ok(vec![row(
        "act velocity: `velocity` actuator ctrl 2 rad/s, I/kv = 0.05 s, on a free hinge: speed after 0.5 s",
        "2 rad/s",
        format!("{qd:.5} rad/s"),
        "2%",
        rel(qd, 2.0) <= 0.02,
    )])
}

/// Row 4: an `intvelocity` actuator (integrator dynamics, gain kp, bias [0, −kp, −kv]; ω_n = 2π, ζ = 1) at
/// constant control c = 0.5 rad/s for 2 s: the activation is c·T; each step's force is kp·act − kp·q − kv·q̇
/// at the step's start; the joint then moves at c, lagging the activation by kv·c/kp.
fn intvelocity(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (c, t_end, wn) = (0.5, 2.0, std::f64::consts::TAU);
    let probe = header(0.0) + &arm("hinge", 0.0, "");
    let inertia = arm_inertia(&from_text(&probe, method)?);
    let (kp, kv) = (inertia * wn * wn, 2.0 * inertia * wn);
    let text = probe
        + &format!(
            "[[actuator]]\nname = \"iv\"\ntype = \"intvelocity\"\njoint = \"hinge\"\nkp = {kp}\nkv = {kv}\nctrlrange = [-2.0, 2.0]\n\
[[control]]\nactuator = \"iv\"\nvalue = {c}\n"
        );
    let mut w = from_text(&text, method)?;
    let mut law = 0.0f64;
    for _ in 0..(t_end / DT).round() as usize {
        let act = w.act()[0];
        let (q, qd) = coordinate(&w, 0)?;
        w.step()?;
        let f = w.actuator_forces()[0];
        law = law.max((f - (kp * act - kp * q - kv * qd)).abs() / (kp * act.abs().max(q.abs()) + kv * qd.abs()).max(1e-300));
    }
    let act = w.act()[0];
    let (q, qd) = coordinate(&w, 0)?;
    let (lag, want_lag) = (act - q, kv * c / kp);
    Ok(vec![
        row(
            "act intvelocity: integrator actuator, ctrl 0.5 for 2 s: activation; each step's force vs kp·act − kp·q − kv·q̇",
            format!("{:.6}; exact", c * t_end),
            format!("{act:.12} (rel {:.1e}); rel {law:.1e}", rel(act, c * t_end)),
            "1e-12",
            rel(act, c * t_end) <= 1e-12 && law <= 1e-12,
        ),
        row(
            "act intvelocity: joint speed and lag behind the activation at 2 s (ω_n = 2π, ζ = 1)",
            format!("{c} rad/s; {want_lag:.5} rad (kv·c/kp)"),
            format!("{qd:.5} rad/s; {lag:.5} rad"),
            "2%",
            rel(qd, c) <= 0.02 && rel(lag, want_lag) <= 0.02,
        ),
    ])
}

/// Row 5: two geared (2) motors set from the library beyond their ranges: ctrl 5 in ctrlrange [−1, 1], ctrl −3
/// with forcerange [−0.5, 0.5]. Each step's actuator forces are exactly 1 and −0.5; the arms accelerate at
/// 2·1/I and 2·(−0.5)/I over 20 steps.
fn clamp(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = header(0.0)
        + &arm("a", 0.0, "")
        + &arm("b", 1.0, "")
        + "[[actuator]]\nname = \"ctrl_clamped\"\ntype = \"motor\"\njoint = \"a\"\ngear = 2.0\nctrlrange = [-1.0, 1.0]\n\
[[actuator]]\nname = \"force_clamped\"\ntype = \"motor\"\njoint = \"b\"\ngear = 2.0\nforcerange = [-0.5, 0.5]\n";
    let mut w = from_text(&text, method)?;
    w.set_ctrl(&[5.0, -3.0])?;
    let inertia = arm_inertia(&w);
    let mut exact = true;
    let mut seen = [0.0; 2];
    for _ in 0..20 {
        w.step()?;
        let f = w.actuator_forces();
        exact &= f == [1.0, -0.5];
        seen = [f[0], f[1]];
    }
    let (aa, ab) = (coordinate(&w, 0)?.1 / (20.0 * DT), coordinate(&w, 1)?.1 / (20.0 * DT));
    let (want_a, want_b) = (2.0 / inertia, -1.0 / inertia);
    Ok(vec![
        row(
            "act clamp: ctrl 5 in ctrlrange [−1, 1]; ctrl −3 with forcerange [−0.5, 0.5]: actuator forces, every step",
            "1, −0.5",
            format!("{}, {}", seen[0], seen[1]),
            "exact",
            exact,
        ),
        row(
            "act clamp: the clamped arms' α over 20 steps (gear 2)",
            format!("{want_a:.5}, {want_b:.5} rad/s²"),
            format!("{aa:.5}, {ab:.5} rad/s²"),
            "1%",
            rel(aa, want_a) <= 0.01 && rel(ab, want_b) <= 0.01,
        ),
    ])
}

/// Row 8: the geared arm's `jointactuatorfrc` is gear·ctrl = 1.5 and its `actuatorfrc` 0.75, exactly, every step.
fn joint_actuator_force(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = geared_arm(method)?;
    let (mut exact, mut last) = (true, [0.0; 2]);
    for _ in 0..10 {
        w.step()?;
        last = [sensor(&w, "jfrc")?[0], sensor(&w, "frc")?[0]];
        exact &= last == [1.5, 0.75];
    }
    Ok(vec![row(
        "act jointactuatorfrc: motor gear 2, ctrl 0.75: jointactuatorfrc; actuatorfrc (10 steps)",
        "1.5; 0.75",
        format!("{}; {}", last[0], last[1]),
        "exact",
        exact,
    )])
}

/// What a resting box's sensors and contacts read, averaged over the last second of two.
struct Resting {
    weight: f64,
    touch: f64,
    contact_sum: Vec3,
    accelerometer: Vec3,
    /// The box's contacts at the last step, and how many of them lie in the touch site.
    contacts: usize,
    in_site: usize,
}

/// A 0.5 m box (density 1000) resting on a static ground, dt 5 ms, 2 s: a `touch` sensor on a box site of
/// 0.6 × 0.6 × 0.1 m about the bottom face, an accelerometer at the centre turned 90° about x.
fn resting(method: &Overrides) -> anyhow::Result<Resting> {
    let text = header(G)
        + &body("ground", [4.0, 4.0, 1.0], Vec3::new(0.0, 0.0, -0.5), "kind = \"static\"\n")
        + &body("box", [0.5, 0.5, 0.5], Vec3::new(0.0, 0.0, 0.25), "")
        + "[[site]]\nname = \"bottom\"\nbody = \"box\"\nposition = [0.0, 0.0, -0.25]\nshape = { type = \"box\", size = [0.6, 0.6, 0.1] }\n"
        + &format!("[[site]]\nname = \"imu\"\nbody = \"box\"\nrotation = {SITE_ROT}\n")
        + "[[sensor]]\nname = \"touch\"\ntype = \"touch\"\nsite = \"bottom\"\n\
[[sensor]]\nname = \"acc\"\ntype = \"accelerometer\"\nsite = \"imu\"\n";
    let mut w = from_text(&text, method)?;
    let b = w.model.body_index("box").ok_or_else(|| anyhow::anyhow!("no body `box`"))?;
    let steps = (2.0 / DT).round() as usize;
    let (mut touch, mut sum, mut acc, mut n) = (0.0, Vec3::ZERO, Vec3::ZERO, 0.0);
    for k in 0..steps {
        w.step()?;
        if k >= steps / 2 {
            touch += sensor(&w, "touch")?[0];
            acc += vec3(sensor(&w, "acc")?);
            for c in w.contacts() {
                if c.bodies[0] == b {
                    sum += c.force;
                } else if c.bodies[1] == b {
                    sum -= c.force;
                }
            }
            n += 1.0;
        }
    }
    let s = &w.state.bodies[b];
    let site = s.x - s.q * Vec3::new(0.0, 0.0, 0.25);
    let mine: Vec<Vec3> = w.contacts().iter().filter(|c| c.bodies.contains(&b)).map(|c| s.q.inverse() * (c.point - site)).collect();
    let in_site = mine.iter().filter(|p| p.x.abs() <= 0.3 && p.y.abs() <= 0.3 && p.z.abs() <= 0.05).count();
    let weight = w.model.bodies[b].mass * G;
    Ok(Resting { weight, touch: touch / n, contact_sum: sum / n, accelerometer: acc / n, contacts: mine.len(), in_site })
}

/// Row 6: the touch sensor under the resting box reads m g.
fn touch(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let r = resting(method)?;
    Ok(vec![row(
        "act touch: 0.5 m box resting on the ground, touch site about its bottom face (mean over 1–2 s)",
        format!("{:.3} N (m g)", r.weight),
        format!("{:.3} N ({} of {} contacts in the site)", r.touch, r.in_site, r.contacts),
        "1%",
        rel(r.touch, r.weight) <= 0.01,
    )])
}

/// Row 9: the contact forces on the resting box, signed by `bodies`, sum to m g upwards.
fn contact_sum(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let r = resting(method)?;
    let want = Vec3::new(0.0, 0.0, r.weight);
    let e = (r.contact_sum - want).length() / r.weight;
    Ok(vec![row(
        "act contact sum: Σ ContactPoint::force on the resting box, signed by bodies (mean over 1–2 s)",
        format!("(0, 0, {:.3}) N", r.weight),
        format!("({:.3}, {:.3}, {:.3}) N, off {:.3}%", r.contact_sum.x, r.contact_sum.y, r.contact_sum.z, 100.0 * e),
        "1%",
        e <= 0.01,
    )])
}

/// Row 7: two 0.45 m links hanging from hinges 0.5 m apart at rest; a `force` sensor on the lower link at its
/// hinge, turned 90° about x, reads the lower link's weight along the site's y (mean over 0.5–1 s).
fn force_sensor(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let l = 0.5;
    let link = [A, A, 0.9 * l];
    let text = header(G)
        + &body("upper", link, Vec3::new(0.0, 0.0, -0.5 * l), "")
        + &body("lower", link, Vec3::new(0.0, 0.0, -1.5 * l), "")
        + "[[joint]]\nname = \"top\"\ntype = \"hinge\"\nbody1 = \"upper\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\n"
        + &format!(
            "[[joint]]\nname = \"elbow\"\ntype = \"hinge\"\nbody1 = \"upper\"\nbody2 = \"lower\"\nanchor = [0.0, 0.0, {}]\naxis = [0.0, 1.0, 0.0]\n",
            -l
        )
        + &format!("[[site]]\nname = \"elbow\"\nbody = \"lower\"\nposition = [0.0, 0.0, {}]\nrotation = {SITE_ROT}\n", 0.5 * l)
        + "[[sensor]]\nname = \"f\"\ntype = \"force\"\nsite = \"elbow\"\n";
    let mut w = from_text(&text, method)?;
    let weight = w.model.bodies[1].mass * G;
    let steps = (1.0 / DT).round() as usize;
    let (mut f, mut n) = (Vec3::ZERO, 0.0);
    for k in 0..steps {
        w.step()?;
        if k >= steps / 2 {
            f += vec3(sensor(&w, "f")?);
            n += 1.0;
        }
    }
    let f = f / n;
    let e = (f - Vec3::new(0.0, weight, 0.0)).length() / weight;
    Ok(vec![row(
        "act force sensor: hanging two-link chain at rest, sensor at the elbow on the lower link, site turned 90° about x (mean over 0.5–1 s)",
        format!("(0, {weight:.4}, 0) N"),
        format!("({:.4}, {:.4}, {:.4}) N, off {:.3}%", f.x, f.y, f.z, 100.0 * e),
        "1%",
        e <= 0.01,
    )])
}

/// Row 10: an accelerometer on a falling box (off its centre, turned) reads 0 every step of 0.5 s; on the
/// resting box it reads −gravity in its frame, (0, g, 0).
fn accelerometer(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = header(G)
        + &body("box", [0.5, 0.5, 0.5], Vec3::new(0.0, 0.0, 10.0), "velocity = [1.0, 0.0, 2.0]\n")
        + &format!("[[site]]\nname = \"imu\"\nbody = \"box\"\nposition = [0.2, 0.1, 0.0]\nrotation = {SITE_ROT}\n")
        + "[[sensor]]\nname = \"acc\"\ntype = \"accelerometer\"\nsite = \"imu\"\n";
    let mut w = from_text(&text, method)?;
    let mut worst = 0.0f64;
    for _ in 0..(0.5 / DT).round() as usize {
        w.step()?;
        worst = worst.max(vec3(sensor(&w, "acc")?).length() / G);
    }
    let r = resting(method)?;
    let want = Vec3::new(0.0, G, 0.0);
    let e = (r.accelerometer - want).length() / G;
    let a = r.accelerometer;
    Ok(vec![
        row("act accelerometer: box in free fall, 0.5 s: largest |a| / g", "0", format!("{worst:.2e}"), "1e-6", worst <= 1e-6),
        row(
            "act accelerometer: box resting on the ground, site turned 90° about x (mean over 1–2 s)",
            format!("(0, {G}, 0) m/s²"),
            format!("({:.4}, {:.4}, {:.4}) m/s², off {:.3}%", a.x, a.y, a.z, 100.0 * e),
            "1%",
            e <= 0.01,
        ),
    ])
}

/// Row 10: a 1 × 2 × 3 box spinning at 3 rad/s about its (stable, least-inertia) z axis in zero gravity; a gyro
/// on a site turned 90° about x reads, every step of 1 s, the body's angular velocity in the site's frame:
/// (q_body · q_site)⁻¹ ω with q_site the site's rotation as written, which is (0, |ω|, 0). The spin itself is
/// the method's (a dissipative integrator slows it); the row reports |ω| at the end.
fn gyro(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = header(0.0)
        + &body("box", [1.0, 2.0, 3.0], Vec3::ZERO, "angular_velocity = [0.0, 0.0, 3.0]\n")
        + &format!("[[site]]\nname = \"imu\"\nbody = \"box\"\nposition = [0.3, 0.0, 0.0]\nrotation = {SITE_ROT}\n")
        + "[[sensor]]\nname = \"gyro\"\ntype = \"gyro\"\nsite = \"imu\"\n";
    let mut w = from_text(&text, method)?;
    let site = cairn::math::Quat::from_rotation_x(std::f64::consts::FRAC_PI_2);
    let (mut worst, mut last) = (0.0f64, Vec3::ZERO);
    for _ in 0..(1.0 / DT).round() as usize {
        w.step()?;
        let b = &w.state.bodies[0];
        let want = (b.q * site).inverse() * b.w;
        last = vec3(sensor(&w, "gyro")?);
        worst = worst.max((last - want).length() / b.w.length());
    }
    let spin = w.state.bodies[0].w.length();
    Ok(vec![row(
        "act gyro: box spinning at 3 rad/s about its z axis, site turned 90° about x, 1 s: largest |ω_read − (q_body q_site)⁻¹ ω| / |ω|",
        "0; reads (0, |ω|, 0)",
        format!("{worst:.2e}; last ({:.4}, {:.4}, {:.4}), |ω| {spin:.4} rad/s", last.x, last.y, last.z),
        "1e-9",
        worst <= 1e-9,
    )])
}
