//! `volumetric-penalty` at ordinary frame rates (issue 16): the method substeps inside each frame (by default
//! at most 1 ms, the source's haptic rate), and its spring follows the load a contact carries.

use super::{bundled, fit_acceleration, from_text, rel, row, Overrides, Row};
use cairn::math::Vec3;
use cairn::model::BodyKind;
use cairn::world::World;

/// Substeps per frame of the model's method: `volumetric-penalty`'s and `implicit-penalty`'s `substeps` (their
/// defaults from the frame), 1 for every other method.
pub(super) fn substeps(model: &cairn::model::Model) -> u32 {
    if model.method == cairn::model::MethodKey::ImplicitPenalty {
        return model.solver.get::<cairn::methods::implicit::ImplicitParams>().substeps_for(model.dt);
    }
    if model.method != cairn::model::MethodKey::VolumetricPenalty {
        return 1;
    }
    model.solver.get::<cairn::methods::volumetric::VolumetricParams>().substeps_for(model.dt)
}

/// A unit cube resting on a plane tilted by θ (as scenes/incline.toml), at 100 Hz frames.
fn slope_world(deg: f64, mu: f64, method: &Overrides) -> anyhow::Result<World> {
    let th = deg.to_radians();
    let (s, c) = (th.sin(), th.cos());
    let text = format!(
        "format = 1\n[world]\ndt = 0.01\nduration = 3.0\n[[material]]\nname = \"default\"\nfriction = {mu}\nstatic_friction = {mu}\nrestitution = 0.0\n\
[[body]]\nname = \"plane\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [40.0, 8.0, 1.0] }}\nrotation_deg = [0.0, {deg}, 0.0]\nposition = [{}, 0.0, {}]\n\
[[body]]\nname = \"cube\"\nmass = 1.0\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nrotation_deg = [0.0, {deg}, 0.0]\nposition = [{}, 0.0, {}]\n",
        -0.5 * s,
        -0.5 * c,
        0.5 * s,
        0.5 * c
    );
    from_text(&text, method)
}

/// A cube on a 20° slope with μs = μk 5% above tan θ sticks; 5% below, it slides at g(sin θ − μ cos θ).
pub(super) fn slope(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (deg, g) = (20.0f64, 9.81);
    let th = deg.to_radians();
    let down = Vec3::new(th.cos(), 0.0, -th.sin());
    let mut rows = Vec::new();
    for f in [1.05, 0.95] {
        let mu = f * th.tan();
        let mut w = slope_world(deg, mu, method)?;
        let (mut ts, mut ss, mut x1) = (Vec::new(), Vec::new(), 0.0);
        let x0 = w.state.bodies[1].x;
        for k in 1..=300 {
            w.step()?;
            let along = (w.state.bodies[1].x - x0).dot(down);
            if k == 100 {
                x1 = along;
            }
            if k >= 100 {
                ts.push(w.state.time);
                ss.push(along);
            }
        }
        let moved = ss.last().copied().unwrap_or(f64::NAN) - x1;
        if f > 1.0 {
            rows.push(row(
                &format!("slope {deg}°, 100 Hz frames, μ = 1.05 tan θ: sticks (creep 1–3 s)"),
                "< 0.1 mm",
                format!("{:.3e} mm", moved * 1e3),
                "0.1 mm",
                moved.abs() < 1e-4,
            ));
        } else {
            let expect = g * (th.sin() - mu * th.cos());
            let a = fit_acceleration(&ts, &ss);
            rows.push(row(
                &format!("slope {deg}°, 100 Hz frames, μ = 0.95 tan θ: slides at g(sin θ − μ cos θ), 1–3 s"),
                format!("{expect:.4} m/s²"),
                format!("{a:.4} m/s²"),
                "5%",
                rel(a, expect) <= 0.05,
            ));
        }
    }
    Ok(rows)
}

/// A 1000 kg box on a 1 kg box on the ground, 100 Hz frames, 3 s. With the load-following spring (default) the
/// boxes stand (no tilt, no sideways drift) and the contacts sink less than half as deep as with the source's
/// linear spring over the last 2 s; at the default 1 ms substeps that is still about 5% of the boxes' size, and
/// with `substeps = 20` (0.5 ms) it is below 5%. The heavy box's mode rings down slowly: its damper is bounded
/// by what the light box's mode bears under explicit integration (stiffness.rs), so the speed left at 3 s is
/// reported beside. (By default the frame takes finer substeps for such a load; these rows pin the 1 ms one.)
pub(super) fn heavy_on_light(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = "format = 1\n[world]\ndt = 0.01\n[[material]]\nname = \"default\"\nfriction = 0.5\nrestitution = 0.0\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"light\"\nmass = 1.0\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\n\
[[body]]\nname = \"heavy\"\nmass = 1000.0\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 1.5]\n";
    // (deepest over the run, deepest over 1–3 s, largest tilt or sideways drift of a box, final speed)
    let run = |load: bool, substeps: Option<u32>| -> anyhow::Result<(f64, f64, f64, f64)> {
        let mut sets = vec![("solver.volumetric-penalty.stiffness_from_load".to_string(), load.to_string())];
        match substeps {
            Some(n) => sets.push(("solver.volumetric-penalty.substeps".into(), n.to_string())),
            // the default substep, not the finer ones the load would ask for (refine.rs)
            None => sets.push(("solver.volumetric-penalty.max_substep_factor".into(), "1".into())),
        }
        let mut w = from_text(text, &method.with(&sets))?;
        let start: Vec<Vec3> = w.state.bodies.iter().map(|b| b.x).collect();
        let (mut pen, mut late, mut off) = (0.0f64, 0.0f64, 0.0f64);
        for k in 1..=300 {
            let st = w.step()?;
            pen = pen.max(st.max_penetration);
            if k > 100 {
                late = late.max(st.max_penetration);
            }
            for (b, x0) in w.state.bodies[1..].iter().zip(&start[1..]) {
                let d = b.x - *x0;
                off = off.max(b.q.angle_between(cairn::math::Quat::IDENTITY)).max((d.x * d.x + d.y * d.y).sqrt());
            }
        }
        Ok((pen, late, off, w.state.bodies[2].v.length()))
    };
    let (_, late, off, speed) = run(true, None)?;
    let (_, late_lin, off_lin, _) = run(false, None)?;
    let (_, late_fine, off_fine, speed_fine) = run(true, Some(20))?;
    Ok(vec![
        row(
            "1000 kg box on 1 kg, 100 Hz frames, 1 ms substeps: deepest / box size over 1–3 s (linear spring); tilt or drift",
            "< ½ linear; < 1e-3",
            format!("{:.2}% ({:.2}%); {:.1e}; speed at 3 s {:.0} mm/s", late * 100.0, late_lin * 100.0, off.max(off_lin), speed * 1e3),
            "½; 1e-3",
            late < 0.5 * late_lin && off < 1e-3,
        ),
        row(
            "1000 kg box on 1 kg, 100 Hz frames, substeps = 20: deepest / box size over 1–3 s; tilt or drift",
            "< 5%; < 1e-3",
            format!("{:.2}%; {off_fine:.1e}; speed at 3 s {:.0} mm/s", late_fine * 100.0, speed_fine * 1e3),
            "5%; 1e-3",
            late_fine < 0.05 && off_fine < 1e-3,
        ),
    ])
}

/// The smallest extent of the smallest moving body, m.
fn smallest_size(w: &World) -> f64 {
    w.model
        .bodies
        .iter()
        .filter(|b| b.kind == BodyKind::Dynamic)
        .map(|b| {
            let e = b.geometry.shape.compute_local_aabb().extents();
            e.x.min(e.y).min(e.z)
        })
        .fold(f64::INFINITY, f64::min)
}

/// Every bundled rigid scene named in issue 16 at its own dt for 0.5 s: the deepest penetration over the
/// smallest moving body's size stays below 5%; stacks also keep their bodies within 5% of their size of
/// where they started (they stand).
pub(super) fn scene_depths(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (name, stack) in [
        ("stack10", true),
        ("pyramid20", true),
        ("wall", true),
        ("tower", true),
        ("largemass", false),
        ("cubedrop", false),
        ("incline", false),
        ("ballgrid", false),
        ("balls1000", false),
    ] {
        let mut w = bundled(name, method, &[])?;
        let size = smallest_size(&w);
        let start: Vec<Vec3> = w.state.bodies.iter().map(|b| b.x).collect();
        let n = (0.5 / w.model.dt).round() as usize;
        let (mut pen, mut drift) = (0.0f64, 0.0f64);
        for _ in 0..n {
            pen = pen.max(w.step()?.max_penetration);
        }
        for (b, x0) in w.state.bodies.iter().zip(&start) {
            drift = drift.max((b.x - *x0).length());
        }
        let frames = 1.0 / w.model.dt;
        let mut pass = pen < 0.05 * size;
        let mut measured = format!("{:.2}% ({:.3} mm of {size} m)", pen / size * 100.0, pen * 1e3);
        if stack {
            pass &= drift < 0.05 * size;
            measured += &format!("; drift {:.1} mm", drift * 1e3);
        }
        rows.push(row(
            &format!("{name} at {frames:.0} Hz frames, 0.5 s: deepest / smallest body{}", if stack { ", drift (stands)" } else { "" }),
            if stack { "< 5%, < 5% of size" } else { "< 5%" },
            measured,
            "5%",
            pass,
        ));
    }
    Ok(rows)
}
