//! Validation experiments of the `impulse` method's source (the pulsk report and Guendelman et al.; the numbers
//! of docs/methods/impulse.md).

use super::{bundled, failed, from_text, rel, row, Overrides, Row};
use cairn::collision::narrow::Collision;
use cairn::math::{Mat3, Vec3};
use cairn::methods::impulse::law::{mirtich, moore, Coefficients};
use cairn::model::BodyKind;
use cairn::world::World;

/// Names of the experiments, in table order.
pub const EXPERIMENTS: [&str; 7] = ["bounces", "impulse_cases", "cradle", "spinning_ball", "stack60", "slope", "torus_peg"];

pub(super) fn run(name: &str, method: &Overrides) -> Vec<Row> {
    let r = match name {
        "bounces" => bounces(method),
        "impulse_cases" => impulse_cases(),
        "cradle" => cradle(method),
        "spinning_ball" => spinning_ball(method),
        "stack60" => stack60(method),
        "slope" => slope(method),
        "torus_peg" => torus_peg(method),
        other => Err(anyhow::anyhow!("unknown experiment `{other}`")),
    };
    r.unwrap_or_else(|e| vec![failed(name, e)])
}

/// Successive bounce heights of a ball (ε = 0.8) in ratio ε², within 3%.
fn bounces(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = "format = 1\n[world]\ndt = 0.001\n[[material]]\nname = \"default\"\nrestitution = 0.8\nfriction = 0.3\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.25 }\nposition = [0.0, 0.0, 2.25]\n";
    let mut w = from_text(text, method)?;
    let mut apexes = vec![2.0];
    let (mut rising, mut top) = (false, 0.0f64);
    for _ in 0..6000 {
        w.step()?;
        let b = &w.state.bodies[1];
        let h = b.x.z - 0.25;
        if b.v.z > 0.0 {
            rising = true;
            top = top.max(h);
        } else if rising {
            apexes.push(top);
            rising = false;
            top = 0.0;
            if apexes.len() == 4 {
                break;
            }
        }
    }
    if apexes.len() < 4 {
        anyhow::bail!("the ball bounced {} times, expected 3", apexes.len() - 1);
    }
    let ratios: Vec<f64> = apexes.windows(2).map(|p| p[1] / p[0]).collect();
    let worst = ratios.iter().map(|r| rel(*r, 0.64)).fold(0.0, f64::max);
    Ok(vec![row(
        "ball bounces, ε = 0.8 (dt 1 ms): h(k+1)/h(k)",
        "ε² = 0.64",
        ratios.iter().map(|r| format!("{r:.4}")).collect::<Vec<_>>().join(", "),
        "3%",
        worst <= 0.03,
    )])
}

/// The reference's two closed-form impulse cases: a unit point mass on static ground.
fn impulse_cases() -> anyhow::Result<Vec<Row>> {
    let k = Mat3::IDENTITY;
    let c = Coefficients { restitution: 0.0, friction: 0.5, static_friction: 0.5 };
    let mut rows = Vec::new();
    for (name, law) in [("Mirtich", mirtich as fn(&Mat3, Vec3, Vec3, Coefficients) -> Vec3), ("Moore", moore)] {
        let u = Vec3::new(0.1, 0.0, -1.0);
        let v = u + k * law(&k, u, Vec3::Z, c);
        rows.push(row(
            &format!("impulse ({name}): v_rel (0.1, 0, −1), μ 0.5: sticks"),
            "v = (0, 0, 0)",
            format!("|v| = {:.1e}", v.length()),
            "1e-9",
            v.length() <= 1e-9,
        ));
        let u = Vec3::new(2.0, 0.0, -1.0);
        let v = u + k * law(&k, u, Vec3::Z, c);
        let err = (v - Vec3::new(1.5, 0.0, 0.0)).length();
        rows.push(row(
            &format!("impulse ({name}): v_rel (2, 0, −1), ε 0: slides"),
            "v = (1.5, 0, 0)",
            format!("({:.6}, {:.6}, {:.6})", v.x, v.y, v.z),
            "1e-9",
            err <= 1e-9,
        ));
    }
    Ok(rows)
}

/// Newton's cradle: five touching balls, ε = 1, the first one moving: only the last one leaves, at v0.
fn cradle(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut text = String::from(
        "format = 1\n[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.01\n[[material]]\nname = \"default\"\nrestitution = 1.0\nfriction = 0.0\n",
    );
    for i in 0..5 {
        let v = if i == 0 { 1.0 } else { 0.0 };
        text += &format!(
            "[[body]]\nname = \"ball{i}\"\nshape = {{ type = \"sphere\", radius = 0.5 }}\nposition = [{}, 0.0, 0.0]\nvelocity = [{v}, 0.0, 0.0]\n",
            i as f64
        );
    }
    let mut w = from_text(&text, method)?;
    for _ in 0..30 {
        w.step()?;
    }
    let v: Vec<f64> = w.state.bodies.iter().map(|b| b.v.x).collect();
    let others = v[..4].iter().map(|x| x.abs()).fold(0.0, f64::max);
    Ok(vec![
        row("Newton's cradle, 5 balls, ε = 1: last ball", "v0 = 1 m/s", format!("{:.5} m/s", v[4]), "1%", rel(v[4], 1.0) <= 0.01),
        row("Newton's cradle: the other four", "at rest", format!("max |v| {others:.2e} m/s"), "1% of v0", others <= 0.01),
    ])
}

/// The report's spinning ball: a ball spinning at ω0 set down on the ground ends rolling at v = (2/7)·ω0·r
/// (angular momentum about the contact point is conserved while it slips).
fn spinning_ball(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("spinning_ball", method, &[])?;
    let ball = w.model.bodies.iter().position(|b| b.name == "ball").ok_or_else(|| anyhow::anyhow!("no body `ball`"))?;
    let (w0, r) = (w.state.bodies[ball].w.y, 0.5);
    for _ in 0..300 {
        w.step()?;
    }
    let b = &w.state.bodies[ball];
    let expect = 2.0 / 7.0 * w0 * r;
    let slip = (b.v.x - b.w.y * r).abs();
    // the contact is resolved at the predicted position, g·h² deeper than the surface: the point that sticks
    // is that much nearer the centre, so v = ω(r − g h²) up to rounding
    let h = w.model.dt;
    let allowed = b.w.y.abs() * 9.81 * h * h * 1.01;
    Ok(vec![
        row(
            "spinning ball set down (μ 0.4): rolling speed",
            format!("{expect:.4} m/s (2/7 ω0 r)"),
            format!("{:.4} m/s", b.v.x),
            "2%",
            rel(b.v.x, expect) <= 0.02,
        ),
        row(
            "spinning ball: rolls without slipping",
            "v = ω r",
            format!("|v − ωr| {slip:.1e} m/s"),
            format!("ω·g·h² = {allowed:.1e}"),
            slip <= allowed,
        ),
    ])
}

/// The report's 60 stacked objects at dt = 0.01 for 10 s: drift beyond the 1 mm gaps below 2 mm, and no body
/// vibrating (kinetic energy below 1e-6 of the potential energy once settled).
fn stack60(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("stack60", method, &[])?;
    let steps = (10.0 / w.model.dt).round() as usize;
    let start: Vec<Vec3> = w.state.bodies.iter().map(|b| b.x).collect();
    let dynamic: Vec<usize> = (0..w.model.bodies.len()).filter(|&i| w.model.bodies[i].kind == BodyKind::Dynamic).collect();
    // row r starts (r + 1) mm above its resting height 0.5 + r
    let rest: Vec<f64> = start.iter().map(|x| 0.5 + (x.z - 0.5).round()).collect();
    let (mut drift, mut ratio) = (0.0f64, 0.0f64);
    for s in 0..steps {
        w.step()?;
        for &i in &dynamic {
            let x = w.state.bodies[i].x;
            let d = x - start[i];
            let vertical = (rest[i] - x.z).max(0.0) + (x.z - start[i].z).max(0.0);
            drift = drift.max((d.x * d.x + d.y * d.y + vertical * vertical).sqrt());
        }
        if s * 2 >= steps {
            let pe: f64 = dynamic.iter().map(|&i| w.model.bodies[i].mass * 9.81 * w.state.bodies[i].x.z).sum();
            ratio = ratio.max(w.state.kinetic_energy(&w.model) / pe);
        }
    }
    Ok(vec![
        row("stack60 (dt 0.01), 10 s: drift beyond the gaps", "< 2 mm", format!("{:.3} mm", drift * 1e3), "2 mm", drift < 2e-3),
        row("stack60, 5–10 s: kinetic / potential energy", "< 1e-6 (no vibration)", format!("{ratio:.2e}"), "1e-6", ratio < 1e-6),
    ])
}

/// A box on a 30° slope with μ = 0.7 > tan 30° stays put for 5 s at dt = 0.01.
fn slope(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (s, c) = (30f64.to_radians().sin(), 30f64.to_radians().cos());
    let text = format!(
        "format = 1\n[world]\ndt = 0.01\n[[material]]\nname = \"default\"\nfriction = 0.7\n\
[[body]]\nname = \"slope\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [20.0, 20.0, 1.0] }}\nrotation_deg = [0.0, 30.0, 0.0]\nposition = [{}, 0.0, {}]\n\
[[body]]\nname = \"box\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nrotation_deg = [0.0, 30.0, 0.0]\nposition = [{}, 0.0, {}]\n",
        -0.5 * s,
        -0.5 * c,
        0.5 * s,
        0.5 * c
    );
    let mut w = from_text(&text, method)?;
    let x0 = w.state.bodies[1].x;
    let mut moved = 0.0f64;
    for _ in 0..500 {
        w.step()?;
        moved = moved.max((w.state.bodies[1].x - x0).length());
    }
    Ok(vec![row("box on a 30° slope, μ = 0.7 (dt 0.01), 5 s: motion", "< 1 mm", format!("{:.4} mm", moved * 1e3), "1 mm", moved < 1e-3)])
}

/// Largest penetration depth between any two bodies at the current state (parry, every piece pair).
fn penetration(w: &World, c: &mut Collision) -> f64 {
    c.detect(&w.model, &w.state, 0.0, 0.0);
    c.max_penetration()
}

/// Non-convex: a torus dropped over a peg ends threaded on it, never penetrating more than 1% of its size.
fn torus_peg(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("torus_peg", method, &[])?;
    let torus = w.model.bodies.iter().position(|b| b.name == "torus").ok_or_else(|| anyhow::anyhow!("no body `torus`"))?;
    let peg = w.model.bodies.iter().position(|b| b.name == "peg").ok_or_else(|| anyhow::anyhow!("no body `peg`"))?;
    let size = 2.0 * w.model.bodies[torus].geometry.radius_about_com;
    let mut c = Collision::default();
    let mut worst = 0.0f64;
    let steps = (w.model.duration / w.model.dt).round() as usize;
    for _ in 0..steps {
        w.step()?;
        worst = worst.max(penetration(&w, &mut c));
    }
    let (t, p) = (w.state.bodies[torus].x, w.state.bodies[peg].x);
    let off_axis = ((t.x - p.x).powi(2) + (t.y - p.y).powi(2)).sqrt();
    let top = p.z + 0.5 * peg_length(&w);
    let threaded = off_axis < 0.25 && t.z < top - 0.1 && w.state.bodies[torus].v.length() < 0.05;
    Ok(vec![
        row(
            "torus dropped over a peg: ends threaded",
            "centre around the peg, below its top, at rest",
            format!("off axis {:.3} m, {:.3} m below the top, |v| {:.1e}", off_axis, top - t.z, w.state.bodies[torus].v.length()),
            "off axis < 0.25 m",
            threaded,
        ),
        row(
            "torus over a peg: deepest penetration",
            "< 1% of the torus size",
            format!("{:.3} mm ({:.2}%)", worst * 1e3, 100.0 * worst / size),
            "1%",
            worst < 0.01 * size,
        ),
    ])
}

fn peg_length(w: &World) -> f64 {
    w.model
        .bodies
        .iter()
        .find(|b| b.name == "peg")
        .map(|b| match b.geometry.desc {
            cairn::geometry::ShapeDesc::Cylinder { length, .. } => length,
            _ => 0.0,
        })
        .unwrap_or(0.0)
}
