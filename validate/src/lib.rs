//! Validation experiments with analytic answers and the sources' own experiments, shared by `cairn validate`
//! and the test suite. Every row has a tolerance that can fail.

use cairn::math::{Mat3, Vec3};
use cairn::model::{MethodKey, Model};
use cairn::record::Tracker;
use cairn::scene::LoadOptions;
use cairn::world::World;
use std::path::Path;

/// One line of the validation table.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub experiment: String,
    pub expected: String,
    pub measured: String,
    pub tolerance: String,
    pub pass: bool,
}

fn row(experiment: &str, expected: impl Into<String>, measured: impl Into<String>, tolerance: impl Into<String>, pass: bool) -> Row {
    Row { experiment: experiment.into(), expected: expected.into(), measured: measured.into(), tolerance: tolerance.into(), pass }
}

fn failed(experiment: &str, err: impl std::fmt::Display) -> Row {
    row(experiment, "-", format!("error: {err}"), "-", false)
}

/// Names of the experiments, in table order.
pub const EXPERIMENTS: [&str; 10] =
    ["free_fall", "tumbling", "incline", "restitution", "resting_box", "stack10", "pyramid20", "large_mass", "cubedrop", "determinism"];

pub mod abd;
pub mod actuation;
mod basics;
mod implicit;
mod implicit_joints;
mod impulse;
pub mod joints;
pub mod volumetric;
mod volumetric_frames;
mod wall;

/// Experiments of the `impulse` method's source (the pulsk report), run for that method only.
pub use impulse::EXPERIMENTS as IMPULSE_EXPERIMENTS;

/// The experiments that apply to `method`, in table order.
///
/// `volumetric-penalty` runs the shared rows that do not depend on stiff contact (its penalty depth follows
/// the time step: the shared stacking rows at their 10–17 ms steps measure the source's softness, not an
/// error), then its source's experiments, which include the stacking, incline and drop rows at its own rates.
/// Every method then runs the joint and the actuation experiments.
pub fn experiments(method: MethodKey) -> Vec<&'static str> {
    let mut v = method_experiments(method);
    v.extend_from_slice(&joints::EXPERIMENTS);
    v.extend_from_slice(&actuation::EXPERIMENTS);
    v
}

/// Each method's own list (an exhaustive match: a new method without its list does not compile).
fn method_experiments(method: MethodKey) -> Vec<&'static str> {
    match method {
        MethodKey::VolumetricPenalty => {
            let mut v = vec!["free_fall", "tumbling", "resting_box", "determinism"];
            v.extend_from_slice(&volumetric::EXPERIMENTS);
            v.extend_from_slice(&basics::EXPERIMENTS);
            v
        }
        MethodKey::ImplicitPenalty => {
            let mut v = vec!["free_fall", "tumbling"];
            v.extend_from_slice(&implicit::EXPERIMENTS);
            v.extend_from_slice(&implicit_joints::EXPERIMENTS);
            // the basics it meets: a cube landing on an equal one rebounds at about a fifth of its speed (its
            // damper is critical for the pair alone; docs/methods/implicit-penalty.md, "Impacts", and the README)
            v.extend(basics::EXPERIMENTS.iter().filter(|&&e| e != "equal_drop"));
            v
        }
        MethodKey::Abd => {
            let mut v = vec!["free_fall"];
            v.extend_from_slice(&abd::EXPERIMENTS);
            // the basics it meets (the others: docs/methods/abd.md and the README)
            v.extend_from_slice(&["friction_limit", "stopping_distance", "mass_ratio", "heavy_drop", "equal_drop", "domino_chain"]);
            v
        }
        MethodKey::Lcp => {
            let mut v = EXPERIMENTS.to_vec();
            v.extend_from_slice(&wall::EXPERIMENTS);
            v.extend_from_slice(&basics::EXPERIMENTS);
            v
        }
        MethodKey::Impulse => {
            let mut v = EXPERIMENTS.to_vec();
            v.extend_from_slice(&wall::EXPERIMENTS);
            v.extend_from_slice(&basics::EXPERIMENTS);
            v.extend_from_slice(&IMPULSE_EXPERIMENTS);
            v
        }
    }
}

/// Runs one experiment by name for `method`, with `--set` style overrides applied to every scene it loads.
pub fn run_experiment(name: &str, method: MethodKey, sets: &[(String, String)]) -> Vec<Row> {
    let method = &Overrides(LoadOptions { method: Some(method), sets: sets.to_vec(), ..Default::default() });
    let r = match name {
        "free_fall" => free_fall(method),
        "tumbling" => tumbling(method),
        "incline" => incline(method),
        "restitution" => restitution(method),
        "resting_box" => resting_box(method),
        "stack10" => stack10(method),
        "pyramid20" => pyramid20(method),
        "large_mass" => large_mass(method),
        "cubedrop" => cubedrop(method),
        "determinism" => determinism(method),
        "wall_pyramid" => wall::run(method),
        other if basics::EXPERIMENTS.contains(&other) => basics::run(other, method),
        other if IMPULSE_EXPERIMENTS.contains(&other) => Ok(impulse::run(other, method)),
        other if volumetric::EXPERIMENTS.contains(&other) => Ok(volumetric::run(other, method)),
        other if abd::EXPERIMENTS.contains(&other) => Ok(abd::run(other, method)),
        other if implicit::EXPERIMENTS.contains(&other) => Ok(implicit::run(other, method)),
        other if implicit_joints::EXPERIMENTS.contains(&other) => Ok(implicit_joints::run(other, method)),
        other if joints::EXPERIMENTS.contains(&other) => Ok(joints::run(other, method)),
        other if actuation::EXPERIMENTS.contains(&other) => Ok(actuation::run(other, method)),
        other => Err(anyhow::anyhow!("unknown experiment `{other}`")),
    };
    r.unwrap_or_else(|e| vec![failed(name, e)])
}

/// Runs every experiment for `method`.
pub fn run_all(method: MethodKey, sets: &[(String, String)]) -> Vec<Row> {
    experiments(method).iter().flat_map(|e| run_experiment(e, method, sets)).collect()
}

/// What every scene of an experiment is loaded with: the method and the user's `--set` overrides.
struct Overrides(LoadOptions);

impl Overrides {
    /// The method the experiment runs.
    fn key(&self) -> MethodKey {
        self.0.method.unwrap_or(MethodKey::Lcp)
    }

    /// These overrides and `extra` after them.
    fn with(&self, extra: &[(String, String)]) -> Overrides {
        let mut o = self.0.clone();
        o.sets.extend_from_slice(extra);
        Overrides(o)
    }
}

fn from_text(text: &str, method: &Overrides) -> anyhow::Result<World> {
    let model = cairn::scene::load_str_with(text, "<validation scene>", "validation", Path::new("."), &method.0)?;
    Ok(World::new(model)?)
}

fn bundled(name: &str, method: &Overrides, extra: &[(&str, &str)]) -> anyhow::Result<World> {
    let path = cairn::scene::find_scene(name).ok_or_else(|| anyhow::anyhow!("bundled scene `{name}` not found"))?;
    let extra: Vec<(String, String)> = extra.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Ok(World::new(cairn::scene::load_with(&path, &method.with(&extra).0)?)?)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

fn free_fall(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (label, v0) in [("free fall", Vec3::ZERO), ("projectile at 45°", Vec3::new(5.0, 0.0, 5.0))] {
        let text = format!(
            "format = 1\n[world]\ndt = 0.01\n[[body]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\nposition = [0.0, 0.0, 10.0]\nvelocity = [{}, {}, {}]\n",
            v0.x, v0.y, v0.z
        );
        let mut w = from_text(&text, method)?;
        // the integrator's own step: a method that substeps (volumetric-penalty) takes `sub` per frame
        let sub = volumetric_frames::substeps(&w.model);
        let (x0, g, h) = (w.state.bodies[0].x, w.model.gravity, w.model.dt / sub as f64);
        let n = 100u64;
        for _ in 0..n {
            w.step()?;
        }
        let nf = (n * sub as u64) as f64;
        let exact_discrete = x0 + v0 * (nf * h) + g * (h * h * nf * (nf + 1.0) / 2.0);
        let t = nf * h;
        let continuous = x0 + v0 * t + g * (0.5 * t * t);
        let x = w.state.bodies[0].x;
        let e1 = (x - exact_discrete).length() / (exact_discrete - x0).length();
        let e2 = (x - continuous).length() / (continuous - x0).length();
        rows.push(row(&format!("{label}: symplectic Euler, 1 s"), "exact discrete", format!("rel err {e1:.2e}"), "1e-9", e1 <= 1e-9));
        rows.push(row(
            &format!("{label}: vs continuous, 1 s, dt 0.01"),
            "x0 + v0 t + g t²/2",
            format!("rel err {:.3}%", e2 * 100.0),
            "1.5%",
            e2 <= 0.015,
        ));
    }
    Ok(rows)
}

fn angular_momentum(model: &Model, w: &World) -> Vec3 {
    let s = &w.state.bodies[0];
    let r = Mat3::from_quat(s.q);
    r * (model.bodies[0].inertia * (r.transpose() * s.w))
}

fn tumbling(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // spin close to the intermediate axis: the box flips over and over (Dzhanibekov), a hard case for L and E
    let text = "format = 1\n[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.01\n[[body]]\nname = \"box\"\nshape = { type = \"box\", size = [1.0, 2.0, 3.0] }\nangular_velocity = [0.05, 2.0, 0.05]\n";
    let mut w = from_text(text, method)?;
    let model = w.model.clone();
    let l0 = angular_momentum(&model, &w);
    let e0 = w.state.kinetic_energy(&model);
    for _ in 0..1000 {
        w.step()?;
    }
    let dl = (angular_momentum(&model, &w) - l0).length() / l0.length();
    let de = rel(w.state.kinetic_energy(&model), e0);
    Ok(vec![
        row("tumbling box 1×2×3, 10 s: |ΔL|/|L|", "0", format!("{dl:.2e}"), "1e-9", dl <= 1e-9),
        row("tumbling box 1×2×3, 10 s: ΔE/E", "0", format!("{:.3}%", de * 100.0), "1%", de <= 0.01),
    ])
}

/// Least-squares fit of s = c + v t + a t²/2; returns a.
fn fit_acceleration(ts: &[f64], ss: &[f64]) -> f64 {
    let mut m = [[0.0; 3]; 3];
    let mut r = [0.0; 3];
    for (&t, &s) in ts.iter().zip(ss) {
        let phi = [1.0, t, 0.5 * t * t];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += phi[i] * phi[j];
            }
            r[i] += phi[i] * s;
        }
    }
    let mm = Mat3::from_cols(Vec3::from_array(m[0]), Vec3::from_array(m[1]), Vec3::from_array(m[2]));
    (mm.inverse() * Vec3::from_array(r)).z
}

fn incline(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let th = 20f64.to_radians();
    let down = Vec3::new(th.cos(), 0.0, -th.sin());
    let mut rows = Vec::new();
    for mu in [0.5, 0.2] {
        let mut w = bundled("incline", method, &[("material.0.friction", &mu.to_string()), ("world.duration", "2.0")])?;
        let i = w.model.body_index("cube").ok_or_else(|| anyhow::anyhow!("incline scene has no body `cube`"))?;
        let x0 = w.state.bodies[i].x;
        let (mut ts, mut ss, mut wmax) = (Vec::new(), Vec::new(), 0.0f64);
        let n = (2.0 / w.model.dt).round() as usize;
        for _ in 0..n {
            w.step()?;
            let b = &w.state.bodies[i];
            wmax = wmax.max(b.w.length());
            if w.state.time >= 0.1 - 1e-12 {
                ts.push(w.state.time);
                ss.push((b.x - x0).dot(down));
            }
        }
        let s_end = (w.state.bodies[i].x - x0).dot(down);
        if mu == 0.5 {
            rows.push(row(
                "incline 20°, μ = 0.5: sticks for 2 s",
                "< 1 mm",
                format!("{:.4} mm", s_end.abs() * 1e3),
                "1 mm",
                s_end.abs() < 1e-3,
            ));
        } else {
            let expect = 9.81 * (th.sin() - mu * th.cos());
            let a = fit_acceleration(&ts, &ss);
            rows.push(row(
                "incline 20°, μ = 0.2: sliding acceleration",
                format!("{expect:.4} m/s²"),
                format!("{a:.4} m/s²"),
                "1%",
                rel(a, expect) <= 0.01,
            ));
            rows.push(row("incline 20°, μ = 0.2: largest angular speed", "0 rad/s", format!("{wmax:.2e} rad/s"), "< 0.01", wmax < 0.01));
        }
    }
    Ok(rows)
}

fn restitution(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let text = "format = 1\n[world]\ndt = 0.001\n[[material]]\nname = \"default\"\nrestitution = 0.5\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.5 }\nposition = [0.0, 0.0, 1.5]\n";
    let mut w = from_text(text, method)?;
    let (mut bounced, mut apex) = (false, 0.0f64);
    for _ in 0..1200 {
        w.step()?;
        let b = &w.state.bodies[1];
        if b.v.z > 0.0 {
            bounced = true;
        }
        if bounced {
            apex = apex.max(b.x.z - 0.5);
        }
    }
    let e = rel(apex, 0.25);
    Ok(vec![row("restitution e = 0.5, drop 1 m (dt 1 ms): rebound", "0.25 m", format!("{apex:.4} m"), "3%", bounced && e <= 0.03)])
}

fn resting_box(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // the solver's own impulses on a box at rest: awake throughout (asleep, a box is not solved)
    let text = "format = 1\n[world]\ndt = 0.016666666666666666\nsleep = false\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"box\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\n";
    let mut w = from_text(text, method)?;
    let mgh = w.model.bodies[1].mass * 9.81 * w.model.dt;
    let (mut sum_n, mut sum_t, mut k) = (0.0, 0.0, 0.0);
    for s in 0..60 {
        let st = w.step()?;
        if s >= 30 {
            sum_n += st.normal_impulse;
            sum_t += st.friction_impulse;
            k += 1.0;
        }
    }
    let (n, t) = (sum_n / k, sum_t / k);
    Ok(vec![
        row("resting box: Σλn per step", format!("{mgh:.4} N·s (m g h)"), format!("{n:.4} N·s"), "1%", rel(n, mgh) <= 0.01),
        row("resting box: Σ|λt| per step", "0", format!("{t:.2e} N·s"), "1e-4·m g h", t <= 1e-4 * mgh),
    ])
}

fn stack10(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("stack10", method, &[])?;
    let n = (10.0 / w.model.dt).round() as usize;
    let cubes: Vec<usize> = (0..w.model.bodies.len()).filter(|&i| w.model.bodies[i].kind == cairn::model::BodyKind::Dynamic).collect();
    let top = *cubes.last().ok_or_else(|| anyhow::anyhow!("no cubes"))?;
    let x0: Vec<Vec3> = w.state.bodies.iter().map(|b| b.x).collect();
    let mut tracker = Tracker::new(&w.model, &w.state);
    let mut worst_side = 0.0f64;
    for _ in 0..n {
        let st = w.step()?;
        tracker.update(&w.state, &st);
        for &i in &cubes {
            let d = w.state.bodies[i].x - x0[i];
            worst_side = worst_side.max((d.x * d.x + d.y * d.y).sqrt());
        }
    }
    let d = w.state.bodies[top].x - x0[top];
    let xy = (d.x * d.x + d.y * d.y).sqrt();
    Ok(vec![
        row("stack10, 10 s: top cube drift in x–y", "< 1 mm", format!("{:.4} mm (z {:+.2} mm)", xy * 1e3, d.z * 1e3), "1 mm", xy < 1e-3),
        row(
            "stack10, 10 s: largest penetration",
            "< 5 mm",
            format!("{:.4} mm", tracker.max_penetration * 1e3),
            "5 mm",
            tracker.max_penetration < 5e-3,
        ),
        row("stack10, 10 s: every cube stands", "sideways < 0.5 m", format!("{:.4} mm", worst_side * 1e3), "0.5 m", worst_side < 0.5),
    ])
}

fn pyramid20(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // The standard pyramid starts with 1 mm gaps under every row, so a cube in row r must fall (r + 1) mm to
    // rest. Drift is what goes beyond that: any sideways motion, sinking below the resting height
    // 0.25 + 0.5·r, or rising above the start.
    let mut w = bundled("pyramid20", method, &[])?;
    let n = (5.0 / w.model.dt).round() as usize;
    let cubes: Vec<usize> = (0..w.model.bodies.len()).filter(|&i| w.model.bodies[i].kind == cairn::model::BodyKind::Dynamic).collect();
    let start: Vec<Vec3> = w.state.bodies.iter().map(|b| b.x).collect();
    let rest_z: Vec<f64> = start.iter().map(|x| 0.25 + 0.5 * ((x.z - 0.251) / 0.501).round()).collect();
    let mut tracker = Tracker::new(&w.model, &w.state);
    let mut peak = 0.0f64;
    for _ in 0..n {
        let st = w.step()?;
        tracker.update(&w.state, &st);
        for &i in &cubes {
            let x = w.state.bodies[i].x;
            let d = x - start[i];
            let vertical = (rest_z[i] - x.z).max(0.0) + (x.z - start[i].z).max(0.0);
            peak = peak.max((d.x * d.x + d.y * d.y + vertical * vertical).sqrt());
        }
    }
    let raw = tracker.max_drift(&w.model);
    Ok(vec![
        row("pyramid20, 5 s: peak drift of any cube beyond its gap", "< 5 mm", format!("{:.3} mm", peak * 1e3), "5 mm", peak < 5e-3),
        row(
            "pyramid20, 5 s: peak raw displacement (gaps 1..20 mm)",
            "≤ 20 mm + 5 mm (Rapier 48 mm)",
            format!("{:.3} mm", raw * 1e3),
            "25 mm",
            raw < 25e-3,
        ),
    ])
}

fn large_mass(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("largemass", method, &[])?;
    let n = (10.0 / w.model.dt).round() as usize;
    let mut tracker = Tracker::new(&w.model, &w.state);
    for _ in 0..n {
        let st = w.step()?;
        tracker.update(&w.state, &st);
    }
    let peak = tracker.max_drift(&w.model);
    Ok(vec![row("large mass (ratio 100), 10 s: peak drift", "< 5 mm", format!("{:.3} mm", peak * 1e3), "5 mm", peak < 5e-3)])
}

fn cubedrop(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("cubedrop", method, &[])?;
    let i = w.model.body_index("cube").ok_or_else(|| anyhow::anyhow!("cubedrop has no body `cube`"))?;
    let mut last_above = 0u64;
    for s in 1..=300u64 {
        w.step()?;
        if w.state.bodies[i].w.length() >= 1e-3 {
            last_above = s;
        }
    }
    let settled = last_above + 1;
    Ok(vec![row(
        "cubedrop: |ω| < 1e-3 rad/s from step",
        "≤ 45 (peers 38–49)",
        format!("{settled}"),
        "45",
        settled <= 45 && last_above < 300,
    )])
}

fn determinism(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let run = || -> anyhow::Result<Vec<cairn::state::BodyState>> {
        let mut w = bundled("pyramid20", method, &[])?;
        let mut all = Vec::new();
        for _ in 0..120 {
            w.step()?;
            all.extend_from_slice(&w.state.bodies);
        }
        Ok(all)
    };
    let (a, b) = (run()?, run()?);
    let same = a.len() == b.len()
        && a.iter().zip(&b).all(|(p, q)| {
            p.x.to_array()
                .iter()
                .chain(p.v.to_array().iter())
                .chain(p.w.to_array().iter())
                .zip(q.x.to_array().iter().chain(q.v.to_array().iter()).chain(q.w.to_array().iter()))
                .all(|(u, v)| u.to_bits() == v.to_bits())
                && p.q.to_array().iter().zip(q.q.to_array().iter()).all(|(u, v)| u.to_bits() == v.to_bits())
        });
    Ok(vec![row("determinism: pyramid20 twice, 120 steps", "bit-identical", if same { "bit-identical" } else { "differs" }, "exact", same)])
}
