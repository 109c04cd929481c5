//! `abd` on ordinary scenes (issue 16): a stack standing under the default d̂ (drift beyond its initial gaps),
//! a cube on a slope just past and just inside its friction angle, and a scene whose bodies touch at the start
//! accepted with its separation reported.

use crate::{bundled, fit_acceleration, from_text, rel, row, Overrides, Row};

/// stack10 for 2 s: each cube falls through the 1 mm gaps below it and then must stand; the drift beyond the
/// gaps counts a cube's sideways move in full and its vertical move below its touching height (0.5 + k m) or
/// above its start (the plain |displacement| less the gaps let a top cube slide 9 mm sideways unseen: 10 mm of
/// gaps absorb it).
pub(super) fn stack(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("stack10", method, &[])?;
    let cubes: Vec<usize> = (0..w.model.bodies.len()).filter(|&i| w.model.bodies[i].name.starts_with("cube")).collect();
    let x0: Vec<_> = cubes.iter().map(|&i| w.state.bodies[i].x).collect();
    let steps = (2.0 / w.model.dt).round() as usize;
    let mut beyond = 0.0f64;
    for _ in 0..steps {
        w.step()?;
        for (k, &i) in cubes.iter().enumerate() {
            let x = w.state.bodies[i].x;
            let d = x - x0[k];
            let vertical = (0.5 + k as f64 - x.z).max(0.0) + d.z.max(0.0);
            beyond = beyond.max((d.x * d.x + d.y * d.y + vertical * vertical).sqrt());
        }
    }
    Ok(vec![row(
        "stack10 under the default d̂, 2 s: largest drift beyond the initial gaps",
        "< 2 mm",
        format!("{:.3} mm", beyond * 1e3),
        "2 mm",
        beyond < 2e-3,
    )])
}

/// A 0.5 m cube on a 30° slope, μ_s = μ_k = `f`·tan 30°, default d̂ and ε_v, 3 s: the displacement along the slope.
fn slope(f: f64, method: &Overrides) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
    let th = 30f64.to_radians();
    let (c, s) = (th.cos(), th.sin());
    let mu = f * th.tan();
    let text = format!(
        "format = 1\n[world]\ndt = 0.01\n[[material]]\nname = \"ramp\"\nfriction = 1.0\n[[material]]\nname = \"cube\"\nfriction = {}\n\
[[body]]\nname = \"ramp\"\nkind = \"static\"\nmaterial = \"ramp\"\nshape = {{ type = \"box\", size = [12.0, 6.0, 0.5] }}\n\
rotation_deg = [0.0, 30.0, 0.0]\nposition = [{}, 0.0, {}]\n\
[[body]]\nname = \"cube\"\nmaterial = \"cube\"\nshape = {{ type = \"box\", size = [0.5, 0.5, 0.5] }}\n\
rotation_deg = [0.0, 30.0, 0.0]\nposition = [{}, 0.0, {}]\n",
        mu * mu,
        -0.25 * s,
        -0.25 * c,
        0.2502 * s,
        0.2502 * c
    );
    let mut w = from_text(&text, method)?;
    let down = cairn::math::Vec3::new(c, 0.0, -s);
    let x0 = w.state.bodies[1].x;
    let (mut ts, mut ss) = (Vec::new(), Vec::new());
    for _ in 0..300 {
        w.step()?;
        ts.push(w.state.time);
        ss.push((w.state.bodies[1].x - x0).dot(down));
    }
    Ok((ts, ss))
}

/// The near-limit slide and hold.
pub(super) fn near_limit(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let th = 30f64.to_radians();
    let (ts, ss) = slope(0.97, method)?;
    let (t, s): (Vec<f64>, Vec<f64>) = ts.iter().zip(&ss).filter(|(t, _)| **t > 0.3).map(|(t, s)| (*t, *s)).unzip();
    let a = fit_acceleration(&t, &s);
    let expect = 9.81 * (th.sin() - 0.97 * th.tan() * th.cos());
    let (_, hold) = slope(1.03, method)?;
    let creep = hold.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    Ok(vec![
        row(
            "slope 30°, μ = 0.97 tan 30° (default d̂, ε_v), 0.3–3 s: slides at g(sin − μ cos)",
            format!("{expect:.4} m/s²"),
            format!("{a:.4} m/s²"),
            "5%",
            rel(a, expect) <= 0.05,
        ),
        row(
            "slope 30°, μ = 1.03 tan 30° (default d̂, ε_v), 3 s: largest creep along the slope",
            "< 1 mm",
            format!("{:.3} mm", creep * 1e3),
            "1 mm",
            creep < 1e-3,
        ),
    ])
}

/// blocks4 (four blocks resting on the floor and on each other at zero distance) is accepted: the separation is
/// reported once, no body moved by more than d̂, and 0.25 s run with no intersection.
pub(super) fn touching(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("blocks4", method, &[("solver.abd.check_intersections", "true")])?;
    let x0: Vec<_> = w.state.bodies.iter().map(|b| b.x).collect();
    let st = w.step()?;
    let moved = w.state.bodies.iter().zip(&x0).map(|(b, x)| (b.x - *x).length()).fold(0.0, f64::max);
    let notes = w.notes();
    let mut inter = st.intersections.unwrap_or(1);
    for _ in 1..(0.25 / w.model.dt).round() as usize {
        inter += w.step()?.intersections.unwrap_or(1);
    }
    let dhat = cairn::methods::abd::DHAT_FRACTION * 0.4f64.hypot(0.4).hypot(0.2) / 3f64.sqrt();
    let note = notes.iter().find(|n| n.starts_with("abd:")).cloned().unwrap_or_default();
    Ok(vec![row(
        "blocks4 (touching at the start): accepted, separation noted, first step moves < d̂ + h·v, 0.25 s",
        "1 note, 0 intersections",
        format!("{} note(s), first-step move {:.3} mm, {inter} touching or crossing", notes.len(), moved * 1e3),
        "exact",
        !note.is_empty() && inter == 0 && moved < dhat + 9.81 * w.model.dt * w.model.dt,
    )])
}
