//! The `abd` method's scene experiments (Lan et al. 2022, "Affine Body Dynamics", §5): the thin plate at
//! 100 m/s, the hinged pendulum, the gears, the house of cards and no intersection in any bundled scene.

use crate::{bundled, from_text, rel, row, Overrides, Row};
use cairn::world::World;

/// The bundled scenes of the method, each run for `steps` steps (at least), with the intersection check on.
pub const SCENES: [(&str, usize); 8] = [
    ("abd_ramp", 60),
    ("wrecking_ball_light", 60),
    ("house_of_cards", 40),
    ("arch", 40),
    ("chain_net", 40),
    ("bolt_nut", 30),
    ("hinge_pendulum", 60),
    ("gears", 30),
];

pub(super) fn plate(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // a 1 cm plate hit by a 10 cm box at 100 m/s (1 m per step at dt = 0.01)
    let text = "format = 1\n[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.01\n[solver.abd]\ncheck_intersections = true\n\
[[body]]\nname = \"plate\"\nkind = \"static\"\nshape = { type = \"box\", size = [1.0, 1.0, 0.01] }\n\
[[body]]\nname = \"box\"\nshape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nposition = [0.0, 0.0, 0.5]\nvelocity = [0.0, 0.0, -100.0]\n";
    let mut w = from_text(text, method)?;
    let (mut inter, mut zmin, mut dmin) = (0, f64::INFINITY, f64::INFINITY);
    for _ in 0..20 {
        let st = w.step()?;
        inter += st.intersections.unwrap_or(1);
        zmin = zmin.min(w.state.bodies[1].x.z);
        dmin = dmin.min(st.min_distance.unwrap_or(f64::INFINITY));
    }
    Ok(vec![row(
        "box at 100 m/s on a 1 cm plate, 20 steps: not tunnelled, no intersection",
        "centre above the plate, d > 0, 0",
        format!("lowest centre z {zmin:.6} m, min d {dmin:.2e} m, {inter} touching or crossing"),
        "exact",
        zmin > 0.05 && dmin > 0.0 && inter == 0,
    )])
}

pub(super) fn pendulum(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("hinge_pendulum", method, &[])?;
    let steps = (1.0 / w.model.dt).round() as usize;
    let mut worst = 0.0f64;
    let coords = |w: &World| w.state.affine.clone();
    for _ in 0..steps {
        w.step()?;
        let q: Vec<f64> = coords(&w).into_iter().flatten().collect();
        for p in cairn::methods::abd::joints::pins(&w.model, 1.0) {
            let c = p.violation(&q);
            worst = worst.max((c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt());
        }
    }
    Ok(vec![row(
        "two-link hinge pendulum, 1 s: largest joint gap ‖C‖ (penalty γ = 1e6)",
        "< 1e-4 m",
        format!("{worst:.2e} m"),
        "1e-4",
        worst < 1e-4,
    )])
}

pub(super) fn gears(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // a 12-tooth gear drives an 18-tooth one through tooth contact: averaged over more than a tooth pitch, the
    // driven gear turns at −12/18 of the driver's angle
    let mut w = bundled("gears", method, &[])?;
    let idx = |name: &str| w.model.bodies.iter().position(|b| b.name == name).ok_or_else(|| anyhow::anyhow!("no body `{name}`"));
    let (a, b) = (idx("driver")?, idx("driven")?);
    let (start, end) = ((0.5 / w.model.dt).round() as usize, (1.5 / w.model.dt).round() as usize);
    let (mut ta, mut tb) = (0.0, 0.0);
    for k in 0..end {
        w.step()?;
        if k >= start {
            ta += w.state.bodies[a].w.z * w.model.dt;
            tb += w.state.bodies[b].w.z * w.model.dt;
        }
    }
    let want = -12.0 / 18.0;
    let ratio = tb / ta;
    let pitch = std::f64::consts::TAU / 12.0;
    Ok(vec![row(
        "gears 12:18, 0.5–1.5 s: driven / driver angle (driver turns > 1 tooth pitch)",
        &format!("{want:.4} (pitch 30°)"),
        format!("{ratio:.4} (driver {:.1}°)", ta.to_degrees()),
        "5%",
        ta > pitch && rel(ratio, want) < 0.05,
    )])
}

pub(super) fn house(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // the cards stand until the falling boxes arrive
    let mut w = bundled("house_of_cards", method, &[])?;
    let cards: Vec<usize> = w.model.bodies.iter().enumerate().filter(|(_, b)| b.name.starts_with("card")).map(|(i, _)| i).collect();
    // the cards first settle into contact (their 1 mm gaps close), then must stand still until the boxes hit
    let settle = (0.1 / w.model.dt).round() as usize;
    for _ in 0..settle {
        w.step()?;
    }
    let x0: Vec<_> = cards.iter().map(|&i| w.state.bodies[i].x).collect();
    let mut drift = 0.0f64;
    let steps = (0.25 / w.model.dt).round() as usize;
    for _ in 0..steps {
        w.step()?;
    }
    for (k, &i) in cards.iter().enumerate() {
        drift = drift.max((w.state.bodies[i].x - x0[k]).length());
    }
    Ok(vec![row(
        &format!("house of cards ({} cards), 0.1–0.35 s (boxes hit at 0.4 s): largest card drift", cards.len()),
        "< 1 mm",
        format!("{:.3} mm", drift * 1e3),
        "1 mm",
        drift < 1e-3,
    )])
}

pub(super) fn scenes(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (name, steps) in SCENES {
        let mut w = bundled(name, method, &[("solver.abd.check_intersections", "true")])?;
        let (mut inter, mut dmin, mut iters) = (0usize, f64::INFINITY, 0usize);
        for _ in 0..steps {
            let st = w.step()?;
            inter += st.intersections.unwrap_or(1);
            dmin = dmin.min(st.min_distance.unwrap_or(f64::INFINITY));
            iters += st.iterations;
        }
        rows.push(row(
            &format!("{name}: {steps} steps, every step checked"),
            "0 intersections, d > 0",
            format!("{inter} touching or crossing, min d {:.2e} m, {:.1} Newton it/step", dmin, iters as f64 / steps as f64),
            "exact",
            inter == 0 && dmin > 0.0,
        ));
    }
    Ok(rows)
}
