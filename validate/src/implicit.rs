//! Validation experiments of the `implicit-penalty` method (Xu, Zhao, Barbič 2014, "Implicit Multibody
//! Penalty-Based Distributed Contact", §6; docs/methods/implicit-penalty.md).

use super::{fit_acceleration, from_text, rel, row, Overrides, Row};
use cairn::math::{quat_exp, Quat, Vec3};
use cairn::methods::implicit::field::{BoxField, Field, SphereField};
use cairn::methods::implicit::gradients::{add_anchor_spring, add_damper, add_spring, Gains, Jacobian, PointContact};

/// Experiment names, in table order.
pub const EXPERIMENTS: [&str; 9] = [
    "ip_gradients",
    "ip_elimination",
    "ip_resting",
    "ip_incline",
    "ip_rolling",
    "ip_stack5",
    "ip_determinism",
    "ip_stable_step",
    "ip_hexbolt",
];

mod hexbolt;
mod rolling;
mod stable;

pub(super) fn run(name: &str, method: &Overrides) -> Vec<Row> {
    let r = match name {
        "ip_gradients" => Ok(gradients()),
        "ip_elimination" => Ok(elimination()),
        "ip_resting" => resting(method),
        "ip_incline" => incline(method),
        "ip_rolling" => rolling::rolling(method),
        "ip_stack5" => stack5(method),
        "ip_determinism" => determinism(method),
        "ip_stable_step" => stable::stable_step(method),
        "ip_hexbolt" => hexbolt::hexbolt(method),
        other => Err(anyhow::anyhow!("unknown experiment `{other}`")),
    };
    r.unwrap_or_else(|e| vec![super::failed(name, e)])
}

/// Poses and velocities (x, q, v, ω) of A and B.
type Pair = [(Vec3, Quat, Vec3, Vec3); 2];

/// One point of B (body frame `r`, normal `nb`) in A's field, spring + damper (+ an anchor spring fixed in A at
/// `anchor` in A's frame when given), as a function of the pair's state.
fn wrench(f: &dyn Field, r: Vec3, nb: Vec3, anchor: Option<Vec3>, s: &Pair, (tangential, field_rate): (bool, bool)) -> Jacobian {
    let ((xa, qa, va, wa), (xb, qb, vb, wb)) = (s[0], s[1]);
    let b = qb * r;
    let a = xb + b - xa;
    let (d, g) = f.eval(&(qa.inverse() * a)).expect("inside the field");
    let ra = cairn::math::Mat3::from_quat(qa);
    let c = PointContact { d, g: qa * g, n: qb * nb, a, b, h: ra * f.hessian(&(qa.inverse() * a)) * ra.transpose(), radius: 0.0 };
    let gains = Gains::linear(2.0e4, 40.0, tangential, field_rate);
    let mut j = Jacobian::default();
    add_spring(&c, gains.k, &mut j);
    add_damper(&c, &gains, &[va, wa, vb, wb], &mut j);
    if let Some(al) = anchor {
        add_anchor_spring(&c, qa * al, 3.0e3, &mut j);
    }
    j
}

/// The largest relative error of all 6×6 blocks (per body pair and per position/velocity) against central
/// differences.
fn worst_block_error(f: &dyn Field, r: Vec3, nb: Vec3, anchor: Option<Vec3>, s: &Pair, mode: (bool, bool)) -> f64 {
    let jac = wrench(f, r, nb, anchor, s, mode);
    let big = jac.pos.iter().chain(&jac.vel).flatten().flat_map(|m| m.to_cols_array()).fold(0.0f64, |m, v| m.max(v.abs()));
    let e = 1e-6;
    let mut worst = 0.0f64;
    for var in 0..8 {
        let (body, kind) = (var / 4, var % 4);
        for k in 0..3 {
            let mut dv = Vec3::ZERO;
            dv[k] = e;
            let shift = |sign: f64| {
                let mut t = *s;
                let p = &mut t[body];
                match kind {
                    0 => p.0 += dv * sign,
                    1 => p.1 = quat_exp(dv * sign) * p.1,
                    2 => p.2 += dv * sign,
                    _ => p.3 += dv * sign,
                }
                wrench(f, r, nb, anchor, &t, mode).wrench
            };
            let (wp, wm) = (shift(1.0), shift(-1.0));
            for row in 0..4 {
                let fd = (wp[row] - wm[row]) / (2.0 * e);
                let col = 2 * body + kind % 2;
                let block = if kind < 2 { jac.pos[row][col] } else { jac.vel[row][col] };
                let scale = block.abs().to_cols_array().iter().fold(1e-3 * big, |m, v| m.max(*v));
                worst = worst.max((fd - block.col(k)).abs().max_element() / scale);
            }
        }
    }
    worst
}

fn gradients() -> Vec<Row> {
    let s: Pair = [
        (Vec3::new(0.1, -0.2, 0.05), quat_exp(Vec3::new(0.2, -0.4, 0.3)), Vec3::new(0.3, -0.1, 0.2), Vec3::new(1.1, -0.7, 0.4)),
        (Vec3::new(0.3, 0.1, 0.7), quat_exp(Vec3::new(-0.5, 0.1, 0.25)), Vec3::new(-0.4, 0.5, 0.1), Vec3::new(-0.3, 0.9, 1.3)),
    ];
    let swapped: Pair = [s[1], s[0]];
    let sphere = SphereField { radius: 0.8 };
    let cube = BoxField { half: Vec3::new(0.5, 0.4, 0.6) };
    let nb = Vec3::new(0.3, -0.5, 0.8).normalize();
    let mut rows = Vec::new();
    for (role, st) in [("B's point in A's field", &s), ("A's point in B's field", &swapped)] {
        let (xa, qa) = (st[0].0, st[0].1);
        let (xb, qb) = (st[1].0, st[1].1);
        let local = |p: Vec3| qb.inverse() * (p - xb);
        let mut worst = 0.0f64;
        for (f, p) in [(&sphere as &dyn Field, Vec3::new(0.3, 0.4, 0.5)), (&cube as &dyn Field, Vec3::new(0.2, -0.3, 0.45))] {
            let pw = xa + qa * p;
            // the damper on the whole relative velocity, along N̂ and along ∇φ
            for mode in [(true, false), (false, false), (false, true)] {
                worst = worst.max(worst_block_error(f, local(pw), nb, None, st, mode));
            }
            let anchor = qa.inverse() * (pw + Vec3::new(0.02, -0.01, 0.015) - xa);
            worst = worst.max(worst_block_error(f, local(pw), nb, Some(anchor), st, (false, false)));
        }
        rows.push(row(
            &format!("gradients vs finite differences, {role}: every 6×6 block"),
            "exact",
            format!("rel err {worst:.1e}"),
            "1e-6",
            worst < 1e-6,
        ));
    }
    rows
}

/// The step's algebra (methods::implicit::verify): the 6×6-block elimination against the full linearised 13n
/// solve at three steps, and two islands solved apart against one global solve.
fn elimination() -> Vec<Row> {
    use cairn::methods::implicit::verify::{elimination_vs_13n, islands_vs_global};
    let e = [1e-3, 1e-2, 5e-2].map(elimination_vs_13n).into_iter().fold(0.0f64, f64::max);
    let i = islands_vs_global();
    vec![
        row(
            "6×6 elimination vs the linearised 13×13 per-body solve, h = 1, 10, 50 ms",
            "equal",
            format!("rel err {e:.1e}"),
            "1e-10",
            e < 1e-10,
        ),
        row("two islands solved apart vs one global solve", "equal", format!("rel err {i:.1e}"), "1e-10", i < 1e-10),
    ]
}

const GROUND: &str =
    "[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [200.0, 20.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n";

fn resting(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // the method's own contacts at rest, every step: awake throughout
    let k = 2.0e5;
    let text = format!(
        "format = 1\n[world]\ndt = 0.01\nsleep = false\n[solver.implicit-penalty]\nstiffness = {k}\n{GROUND}\
[[body]]\nname = \"box\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nmass = 100.0\nposition = [0.0, 0.0, 0.5]\n"
    );
    let mut w = from_text(&text, method)?;
    let mut n = 0;
    let mut z = Vec::new();
    for s in 0..300 {
        let st = w.step()?;
        n = st.contacts;
        if s >= 200 {
            z.push(w.state.bodies[1].x.z);
        }
    }
    let depth = 0.5 - z.last().copied().unwrap_or(0.5);
    let expect = 100.0 * 9.81 / (k * n as f64);
    let spread = z.iter().fold(f64::NEG_INFINITY, |m, v| m.max(*v)) - z.iter().fold(f64::INFINITY, |m, v| m.min(*v));
    Ok(vec![
        row(
            &format!("resting box: depth (k = {k:.0e} N/m per point, {n} points)"),
            format!("{:.4} mm (m g/(k N))", expect * 1e3),
            format!("{:.4} mm", depth * 1e3),
            "1%",
            n > 0 && rel(depth, expect) <= 0.01,
        ),
        row("resting box: steady over the last second", "0", format!("{:.1e} mm", spread * 1e3), "1e-6 mm", spread <= 1e-9),
    ])
}

/// A unit cube on a flat floor under tilted gravity (the incline's frame): the normal load from the start,
/// the tangential one ramped over the first second by loads (a sudden one overshoots on the anchor springs).
/// Returns the slide along x over 1.5–2.5 s, the fitted acceleration over 1.2–2.5 s. No contact damper: with the
/// default normal-only damper the slides came out slow (docs/benchmarks.md), for a cause not yet settled.
fn tilted(method: &Overrides, deg: f64, mu_s: f64, mu_k: f64, v0: f64, ramp: bool) -> anyhow::Result<(f64, f64)> {
    let (g, th) = (9.81, deg.to_radians());
    let gz = if ramp { format!("[0.0, 0.0, {}]", -g * th.cos()) } else { format!("[{}, 0.0, {}]", g * th.sin(), -g * th.cos()) };
    let mut text = format!(
        "format = 1\n[world]\ndt = 0.005\ngravity = {gz}\n[[material]]\nname = \"default\"\nfriction = {mu_k}\nstatic_friction = {mu_s}\n{GROUND}\
[[body]]\nname = \"cube\"\nmass = 1.0\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [-50.0, 0.0, 0.5]\nvelocity = [{v0}, 0.0, 0.0]\n"
    );
    if ramp {
        for k in 0..50 {
            text += &format!("[[load]]\nbody = \"cube\"\nforce = [{}, 0.0, 0.0]\nstart = {}\n", g * th.sin() / 50.0, k as f64 / 50.0);
        }
    }
    let mut w = from_text(&text, method)?;
    let (mut ts, mut ss, mut x_held) = (Vec::new(), Vec::new(), 0.0);
    for s in 1..=500 {
        w.step()?;
        let x = w.state.bodies[1].x.x + 50.0;
        if s == 300 {
            x_held = x;
        }
        if s >= 240 {
            ts.push(w.state.time);
            ss.push(x);
        }
    }
    Ok((w.state.bodies[1].x.x + 50.0 - x_held, fit_acceleration(&ts, &ss)))
}

fn incline(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (mu_s, mu_k, g) = (0.5f64, 0.3, 9.81);
    let mut rows = Vec::new();
    for f in [0.95f64, 1.05] {
        let deg = (f * mu_s).atan().to_degrees();
        let (slide, a) = tilted(method, deg, mu_s, mu_k, 0.0, true)?;
        let th = deg.to_radians();
        if f < 1.0 {
            rows.push(row(
                &format!("incline tan θ = 0.95 μs ({deg:.2}°): holds, 1.5–2.5 s"),
                "< 0.01 mm",
                format!("{:.2e} mm", slide * 1e3),
                "0.01 mm",
                slide.abs() < 1e-5,
            ));
        } else {
            let expect = g * (th.sin() - mu_k * th.cos());
            rows.push(row(
                &format!("incline tan θ = 1.05 μs ({deg:.2}°): slides at g(sin θ − μk cos θ)"),
                format!("{expect:.4} m/s²"),
                format!("{a:.4} m/s²"),
                "3%",
                rel(a, expect) <= 0.03,
            ));
        }
    }
    // μs > tan θ > μk: a block at rest holds, a launched one slides at g(sin θ − μk cos θ)
    let deg = 0.4f64.atan().to_degrees();
    let th = deg.to_radians();
    let (_, a) = tilted(method, deg, mu_s, mu_k, 1.0, false)?;
    let expect = g * (th.sin() - mu_k * th.cos());
    rows.push(row(
        &format!("launched block, tan θ = 0.4 ({deg:.2}°), v0 = 1 m/s"),
        format!("{expect:.4} m/s²"),
        format!("{a:.4} m/s²"),
        "3%",
        rel(a, expect) <= 0.03,
    ));
    Ok(rows)
}

fn stack5(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = format!(
        "format = 1\n[world]\ndt = 0.01\n{GROUND}\
[[body]]\nname = \"cube\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [0.0, 0.0, 0.51]\nrepeat = {{ count = [1, 1, 5], step = [0.0, 0.0, 1.01] }}\n"
    );
    let mut w = from_text(&text, method)?;
    let model = w.model.clone();
    let pe0 = w.state.potential_energy(&model);
    for _ in 0..200 {
        w.step()?;
    }
    let drop = pe0 - w.state.potential_energy(&model);
    let ke = w.state.kinetic_energy(&model);
    Ok(vec![row(
        "stack of 5 boxes dropped 1 cm apart: KE at 2 s / drop energy",
        "< 1e-6",
        format!("{:.1e}", ke / drop),
        "1e-6",
        drop > 0.0 && ke < 1e-6 * drop,
    )])
}

fn determinism(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let run = || -> anyhow::Result<Vec<u64>> {
        let mut w = super::bundled("cubedrop", method, &[])?;
        let mut bits = Vec::new();
        for _ in 0..150 {
            w.step()?;
            for b in &w.state.bodies {
                bits.extend(
                    b.x.to_array().iter().chain(&b.v.to_array()).chain(&b.w.to_array()).chain(&b.q.to_array()).map(|v| v.to_bits()),
                );
            }
        }
        Ok(bits)
    };
    let a = run()?;
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?.install(run)?;
    let same = a == run()? && a == one;
    Ok(vec![row(
        "determinism: cubedrop, 150 steps, twice and on 1 thread",
        "bit-identical",
        if same { "bit-identical" } else { "differs" },
        "exact",
        same,
    )])
}
