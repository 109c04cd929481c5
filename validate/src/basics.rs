//! Analytic basics on scenes of their own (none of them bundled): Coulomb friction 3% either side of the
//! friction limit on two slopes, Newton restitution 0, 0.5 and 1 in head-on and oblique impacts, a cube's
//! stopping distance, a heavy box resting on a light one (mass ratios 100 and 1000) and dropped on it without
//! restitution, and a chain of 30 dominoes.
//! Every run also checks that its energy never rises: only gravity does work in these scenes, so the total
//! energy may rise at most by the weight lifted 1 mm plus 0.1% of the starting kinetic energy (a position
//! correction that lifts a body out of an overlap, and the rounding of a conserved impact).

use super::{from_text, row, Overrides, Row};
use cairn::math::Vec3;
use cairn::world::World;

/// The experiments, in table order.
pub const EXPERIMENTS: [&str; 7] =
    ["friction_limit", "restitution_impacts", "stopping_distance", "mass_ratio", "heavy_drop", "equal_drop", "domino_chain"];

pub fn run(name: &str, method: &Overrides) -> anyhow::Result<Vec<Row>> {
    match name {
        "friction_limit" => friction_limit(method),
        "restitution_impacts" => restitution_impacts(method),
        "stopping_distance" => stopping_distance(method),
        "mass_ratio" => mass_ratio(method),
        "heavy_drop" => heavy_drop(method),
        "equal_drop" => equal_drop(method),
        "domino_chain" => domino_chain(method),
        other => Err(anyhow::anyhow!("unknown experiment `{other}`")),
    }
}

const G: f64 = 9.81;
const DT: f64 = 0.01;

/// A scene's header: gravity `g` (m/s² downward), steps of `DT`, and the materials (name, friction,
/// restitution), density 1000 unless given in the name as `name@density`.
fn header(g: f64, materials: &[(&str, f64, f64)]) -> String {
    let mut s = format!("format = 1\n[world]\ngravity = [0.0, 0.0, {}]\ndt = {DT}\nduration = 1.0\n", -g);
    for (name, mu, e) in materials {
        let (name, density) = name.split_once('@').map_or((*name, 1000.0), |(n, d)| (n, d.parse().unwrap_or(1000.0)));
        s += &format!("[[material]]\nname = \"{name}\"\ndensity = {density}\nfriction = {mu}\nrestitution = {e}\n");
    }
    s
}

fn body(name: &str, kind: &str, shape: &str, material: &str, position: Vec3, extra: &str) -> String {
    format!(
        "[[body]]\nname = \"{name}\"\nkind = \"{kind}\"\nmaterial = \"{material}\"\nshape = {shape}\nposition = [{}, {}, {}]\n{extra}\n",
        position.x, position.y, position.z
    )
}

fn ground(material: &str) -> String {
    body("ground", "static", "{ type = \"box\", size = [60.0, 60.0, 1.0] }", material, Vec3::new(0.0, 0.0, -0.5), "")
}

/// Steps a world and keeps the largest rise of its total energy above the start, against what the rise may be.
struct Energy {
    start: f64,
    rise: f64,
    allowed: f64,
}

impl Energy {
    fn new(w: &World) -> Energy {
        let m = &w.model;
        let weight: f64 =
            m.bodies.iter().filter(|b| b.kind == cairn::model::BodyKind::Dynamic).map(|b| b.mass).sum::<f64>() * m.gravity.length();
        let ke = w.state.kinetic_energy(m);
        Energy { start: ke + w.state.potential_energy(m), rise: 0.0, allowed: weight * 1e-3 + 1e-3 * ke }
    }

    fn step(&mut self, w: &mut World) -> anyhow::Result<()> {
        w.step()?;
        let e = w.state.kinetic_energy(&w.model) + w.state.potential_energy(&w.model);
        self.rise = self.rise.max(e - self.start);
        Ok(())
    }

    /// The worst of several runs: the largest rise as a fraction of what it may be.
    fn worst(runs: &[Energy]) -> (f64, f64, f64) {
        let r = runs.iter().max_by(|a, b| (a.rise / a.allowed).total_cmp(&(b.rise / b.allowed))).expect("at least one run");
        (r.rise, r.allowed, r.rise / r.allowed)
    }
}

fn energy_row(what: &str, runs: &[Energy]) -> Row {
    let (rise, allowed, ratio) = Energy::worst(runs);
    row(
        &format!("{what}: largest rise of the total energy (only gravity does work)"),
        "none",
        format!("{rise:.3e} J ({:.0}% of the allowance)", ratio * 100.0),
        format!("{allowed:.2e} J"),
        ratio <= 1.0,
    )
}

/// A row for a distance that must come within `tol` (a fraction) of the analytic one.
fn distance_row(experiment: &str, expect: f64, got: f64, tol: f64) -> Row {
    let off = got / expect - 1.0;
    row(
        experiment,
        format!("{:.1} mm", expect * 1e3),
        format!("{:.1} mm ({:+.1}%)", got * 1e3, off * 100.0),
        format!("{:.0}%", tol * 100.0),
        off.abs() <= tol,
    )
}

/// A row for a length that must stay below `limit` (m).
fn below_row(experiment: &str, got: f64, limit: f64) -> Row {
    let mm = limit * 1e3;
    row(experiment, format!("< {mm} mm"), format!("{:.3} mm", got * 1e3), format!("{mm} mm"), got < limit)
}

fn index(w: &World, name: &str) -> anyhow::Result<usize> {
    w.model.body_index(name).ok_or_else(|| anyhow::anyhow!("no body `{name}`"))
}

/// A 0.5 m cube on slopes of 20° and 35° with μ 3% below tan θ (it slides: distance over 3 s against
/// ½ g (sin θ − μ cos θ) t²) and 3% above (it sticks: under 1 mm in 3 s).
fn friction_limit(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (mut rows, mut runs) = (Vec::new(), Vec::new());
    for deg in [20.0f64, 35.0] {
        let th = deg.to_radians();
        let normal = Vec3::new(th.sin(), 0.0, th.cos());
        let down = Vec3::new(th.cos(), 0.0, -th.sin());
        for factor in [0.97, 1.03] {
            let mu = th.tan() * factor;
            let rot = format!("rotation_deg = [0.0, {deg}, 0.0]");
            let text = header(G, &[("m", mu, 0.0)])
                + &body("slope", "static", "{ type = \"box\", size = [40.0, 40.0, 1.0] }", "m", normal * -0.5, &rot)
                + &body("cube", "dynamic", "{ type = \"box\", size = [0.5, 0.5, 0.5] }", "m", normal * 0.25, &rot);
            let mut w = from_text(&text, method)?;
            let i = index(&w, "cube")?;
            let x0 = w.state.bodies[i].x;
            let mut e = Energy::new(&w);
            let t = 3.0;
            for _ in 0..(t / DT).round() as usize {
                e.step(&mut w)?;
            }
            let s = (w.state.bodies[i].x - x0).dot(down);
            if factor < 1.0 {
                let expect = 0.5 * G * (th.sin() - mu * th.cos()) * t * t;
                rows.push(distance_row(&format!("slope {deg}°, μ = 0.97 tan θ: slide in 3 s (Coulomb)"), expect, s, 0.03));
            } else {
                let moved = (w.state.bodies[i].x - x0).length();
                rows.push(below_row(&format!("slope {deg}°, μ = 1.03 tan θ: sticks for 3 s"), moved, 1e-3));
            }
            runs.push(e);
        }
    }
    rows.push(energy_row("slopes at the friction limit", &runs));
    Ok(rows)
}

/// Frictionless spheres of radius 0.1 m without gravity: head-on, one at 2 m/s onto an equal one at rest
/// (effective e = (v2 − v1)/2 after); oblique, one at (2, 0, −2) m/s onto the static ground (e = v_z/2 after).
fn restitution_impacts(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (mut rows, mut runs) = (Vec::new(), Vec::new());
    let ball = "{ type = \"sphere\", radius = 0.1 }";
    for e in [0.0, 0.5, 1.0] {
        // head-on
        let text = header(0.0, &[("m", 0.0, e)])
            + &body("a", "dynamic", ball, "m", Vec3::new(-0.5, 0.0, 1.0), "velocity = [2.0, 0.0, 0.0]")
            + &body("b", "dynamic", ball, "m", Vec3::new(0.0, 0.0, 1.0), "");
        let mut w = from_text(&text, method)?;
        let (a, b) = (index(&w, "a")?, index(&w, "b")?);
        let mut en = Energy::new(&w);
        for _ in 0..(0.5 / DT).round() as usize {
            en.step(&mut w)?;
        }
        let got = (w.state.bodies[b].v.x - w.state.bodies[a].v.x) / 2.0;
        rows.push(row(
            &format!("head-on impact of equal spheres, e = {e}: (v2 − v1)/v0 after"),
            format!("{e}"),
            format!("{got:.4}"),
            "0.05",
            (got - e).abs() <= 0.05,
        ));
        runs.push(en);
        // oblique, onto the ground
        let text = header(0.0, &[("m", 0.0, e)])
            + &ground("m")
            + &body("a", "dynamic", ball, "m", Vec3::new(0.0, 0.0, 0.3), "velocity = [2.0, 0.0, -2.0]");
        let mut w = from_text(&text, method)?;
        let a = index(&w, "a")?;
        let mut en = Energy::new(&w);
        for _ in 0..(0.3 / DT).round() as usize {
            en.step(&mut w)?;
        }
        let v = w.state.bodies[a].v;
        let got = v.z / 2.0;
        rows.push(row(
            &format!("oblique impact at 45° on the ground, e = {e}, no friction: v_z/v0 after (v_x {:.3} m/s, 2 before)", v.x),
            format!("{e}"),
            format!("{got:.4}"),
            "0.05",
            (got - e).abs() <= 0.05 && (v.x - 2.0).abs() <= 0.1,
        ));
        runs.push(en);
    }
    rows.push(energy_row("restitution impacts", &runs));
    Ok(rows)
}

/// A 0.5 m cube sliding at 3 m/s on the ground with μ = 0.3 stops after v²/(2 μ g).
fn stopping_distance(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (mu, v0) = (0.3, 3.0);
    let text = header(G, &[("m", mu, 0.0)])
        + &ground("m")
        + &body(
            "cube",
            "dynamic",
            "{ type = \"box\", size = [0.5, 0.5, 0.5] }",
            "m",
            Vec3::new(0.0, 0.0, 0.25),
            "velocity = [3.0, 0.0, 0.0]",
        );
    let mut w = from_text(&text, method)?;
    let i = index(&w, "cube")?;
    let x0 = w.state.bodies[i].x;
    let mut e = Energy::new(&w);
    for _ in 0..(2.5 / DT).round() as usize {
        e.step(&mut w)?;
    }
    let d = w.state.bodies[i].x.x - x0.x;
    let expect = v0 * v0 / (2.0 * mu * G);
    Ok(vec![distance_row("cube sliding at 3 m/s, μ = 0.3: stopping distance", expect, d, 0.03), energy_row("stopping distance", &[e])])
}

/// A heavy 1 m cube resting on a light one (10 kg) on the ground, mass ratios 100 and 1000, for 2 s: how far
/// either sinks below its resting height (into the other or the ground).
fn mass_ratio(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (mut rows, mut runs) = (Vec::new(), Vec::new());
    let cube = "{ type = \"box\", size = [1.0, 1.0, 1.0] }";
    for ratio in [100.0, 1000.0] {
        let heavy = format!("heavy@{}", 10.0 * ratio);
        let text = header(G, &[("light@10", 0.5, 0.0), (&heavy, 0.5, 0.0)])
            + &ground("light")
            + &body("light", "dynamic", cube, "light", Vec3::new(0.0, 0.0, 0.5), "")
            + &body("heavy", "dynamic", cube, "heavy", Vec3::new(0.0, 0.0, 1.5), "");
        let mut w = from_text(&text, method)?;
        let (l, h) = (index(&w, "light")?, index(&w, "heavy")?);
        let mut e = Energy::new(&w);
        let mut sink = 0.0f64;
        for _ in 0..(2.0 / DT).round() as usize {
            e.step(&mut w)?;
            sink = sink.max(0.5 - w.state.bodies[l].x.z).max(1.5 - w.state.bodies[h].x.z);
        }
        rows.push(below_row(&format!("heavy cube on a light one, mass ratio {ratio}, 2 s: deepest sinking"), sink, 5e-3));
        runs.push(e);
    }
    rows.push(energy_row("mass ratios", &runs));
    Ok(rows)
}

/// A 1 m cube 1000 times heavier (10 t) dropped 0.5 m onto a light one (10 kg) resting on the ground, every
/// restitution 0: the heavy cube comes to rest on the light one instead of bouncing (its largest upward speed
/// after the impact against the impact speed √(2 g·0.5) = 3.13 m/s; the light one, squeezed, may ring).
fn heavy_drop(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    drop_row(method, 10000.0, "heavy cube dropped 0.5 m on a light one (ratio 1000)", "heavy drop")
}

/// The same with two equal cubes: a landing on a body that rests on another, where a contact's damper sized for
/// the pair alone does not stop the chain.
fn equal_drop(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    drop_row(method, 10.0, "cube dropped 0.5 m on an equal one", "equal drop")
}

fn drop_row(method: &Overrides, density: f64, what: &str, short: &str) -> anyhow::Result<Vec<Row>> {
    let (ratio, rest, e) = drop_on_cube(method, density)?;
    Ok(vec![
        row(
            &format!("{what}, e = 0: largest rebound speed / impact speed (rests at {rest:.4} m, 1.5)"),
            "0",
            format!("{ratio:.4}"),
            "0.05",
            ratio <= 0.05 && (rest - 1.5).abs() < 5e-3,
        ),
        energy_row(short, &[e]),
    ])
}

/// A 1 m cube of `density` dropped 0.5 m onto a 10 kg one on the ground: (largest rebound / impact speed, where
/// the dropped cube rests, the energy record).
fn drop_on_cube(method: &Overrides, density: f64) -> anyhow::Result<(f64, f64, Energy)> {
    let cube = "{ type = \"box\", size = [1.0, 1.0, 1.0] }";
    let heavy = format!("heavy@{density}");
    let text = header(G, &[("light@10", 0.5, 0.0), (heavy.as_str(), 0.5, 0.0)])
        + &ground("light")
        + &body("light", "dynamic", cube, "light", Vec3::new(0.0, 0.0, 0.5), "")
        + &body("heavy", "dynamic", cube, "heavy", Vec3::new(0.0, 0.0, 2.0), "");
    let mut w = from_text(&text, method)?;
    let h = index(&w, "heavy")?;
    let impact = (2.0 * G * 0.5f64).sqrt();
    let mut e = Energy::new(&w);
    let (mut landed, mut up) = (false, 0.0f64);
    for _ in 0..(2.0 / DT).round() as usize {
        e.step(&mut w)?;
        // after the dropped cube first slows down from its fall
        landed |= w.state.bodies[h].x.z < 1.55 && w.state.bodies[h].v.z > -0.5 * impact;
        if landed {
            up = up.max(w.state.bodies[h].v.z);
        }
    }
    Ok((up / impact, w.state.bodies[h].x.z, e))
}

/// Thirty dominoes (0.05 × 0.25 × 0.5 m, 0.25 m apart), the first tipped toward the others at 2.5 rad/s: the
/// wave reaches the last one, which lies tilted past 45° after 8 s.
fn domino_chain(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let n = 30;
    let mut text = header(G, &[("m", 0.5, 0.0)]) + &ground("m");
    for k in 0..n {
        let spin = if k == 0 { "angular_velocity = [0.0, 2.5, 0.0]" } else { "" };
        let shape = "{ type = \"box\", size = [0.05, 0.25, 0.5] }";
        text += &body(&format!("d{k}"), "dynamic", shape, "m", Vec3::new(0.25 * k as f64, 0.0, 0.25), spin);
    }
    let mut w = from_text(&text, method)?;
    let ids: Vec<usize> = (0..n).map(|k| index(&w, &format!("d{k}"))).collect::<anyhow::Result<_>>()?;
    let mut e = Energy::new(&w);
    for _ in 0..(8.0 / DT).round() as usize {
        e.step(&mut w)?;
    }
    let tilt = |i: usize| (w.state.bodies[i].q * Vec3::Z).z.clamp(-1.0, 1.0).acos().to_degrees();
    let fallen = ids.iter().take_while(|&&i| tilt(i) > 45.0).count();
    Ok(vec![
        row(
            "30 dominoes, the first tipped: dominoes fallen in order after 8 s",
            "30",
            format!("{fallen} (last tilted {:.0}°)", tilt(ids[n - 1])),
            "all",
            fallen == n,
        ),
        energy_row("domino chain", &[e]),
    ])
}
