//! `cairn compare`: one scene under several methods, side by side.
//!
//! Each method runs the same scene (with the same overrides) in its own world; runs go to worker threads, at
//! most as many as the machine has cores, and every run is deterministic, so its results are those of a
//! separate `cairn run`. The table has one row per method: whether it ran (or why it was refused or failed),
//! ms per step, the largest penetration, the largest displacement of a body, the change of total energy, the shared
//! intersection check (triangle pairs that touch, pairs that properly cross, and the smallest surface distance)
//! and the contact counts. With `--out DIR`: `DIR/compare.json`, a self-contained `DIR/compare.html` with plots, and each
//! method's run folder `DIR/<method>/`; the command line adds `DIR/view.html` (the runs in 3-D, cli/src/view.rs).

use anyhow::{Context, Result};
use cairn::model::MethodKey;
use cairn::world::World;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What `cairn compare` was asked.
pub struct Request {
    pub scene: PathBuf,
    pub methods: Vec<MethodKey>,
    pub duration: Option<f64>,
    pub out: Option<PathBuf>,
    pub sets: Vec<(String, String)>,
    /// `--limit`s.
    pub limits: cairn::scene::Limits,
    /// Bodies whose heights are plotted (names); empty: the dynamic body that starts highest.
    pub bodies: Vec<String>,
    /// Run the shared intersection check after every step.
    pub check: bool,
    /// Worker threads.
    pub jobs: usize,
}

/// Time series of one run, one entry per step (plus the initial state).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Series {
    pub time: Vec<f64>,
    pub kinetic_energy: Vec<f64>,
    pub penetration: Vec<f64>,
    /// Per plotted body, its centre-of-mass height (the coordinate against gravity), m.
    pub heights: Vec<Vec<f64>>,
}

/// One method's row.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub method: String,
    /// `ran`, `refused` (the scene or the method said no before the first step) or `failed` (an error while
    /// stepping).
    pub status: String,
    /// Why it was refused or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The run's folder, relative to the compare folder (with `--out`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    pub steps: u64,
    pub ms_per_step: f64,
    /// m
    pub max_penetration: f64,
    /// Largest displacement of a dynamic body from its start, m (`max_drift`: the same value, its older name).
    pub max_displacement: f64,
    pub max_drift: f64,
    /// The largest displacement less any fall along gravity (`cairn run`'s drift), m.
    pub max_drift_beyond_fall: f64,
    /// (kinetic + potential) at the end minus at the start, J.
    pub energy_change: f64,
    /// Largest count of intersecting triangle pairs (touching or crossing) after any step (`None` without the
    /// check).
    pub intersections: Option<usize>,
    /// Largest count of triangle pairs that touch (within rounding) without properly crossing, after any step.
    pub touching: Option<usize>,
    /// Largest count of triangle pairs that properly cross, after any step.
    pub crossings: Option<usize>,
    /// Smallest surface distance seen by the check, within its reach, m.
    pub min_distance: Option<f64>,
    /// Mean per step.
    pub unresolved_per_step: f64,
    pub contacts_per_step: f64,
    #[serde(skip)]
    pub series: Series,
}

impl Row {
    fn empty(method: MethodKey, status: &str, reason: String) -> Row {
        Row {
            method: method.as_str().into(),
            status: status.into(),
            reason: Some(reason),
            dir: None,
            steps: 0,
            ms_per_step: f64::NAN,
            max_penetration: f64::NAN,
            max_displacement: f64::NAN,
            max_drift: f64::NAN,
            max_drift_beyond_fall: f64::NAN,
            energy_change: f64::NAN,
            intersections: None,
            touching: None,
            crossings: None,
            min_distance: None,
            unresolved_per_step: f64::NAN,
            contacts_per_step: f64::NAN,
            series: Series::default(),
        }
    }
}

/// Everything a comparison produced.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub scene: String,
    pub duration: f64,
    /// Names of the plotted bodies.
    pub bodies: Vec<String>,
    pub runs: Vec<Row>,
}

/// Parses `--methods`: a comma-separated list of method keys, or `all`.
pub fn parse_methods(s: Option<&str>) -> Result<Vec<MethodKey>> {
    match s {
        None | Some("all") => Ok(MethodKey::ALL.to_vec()),
        Some(list) => {
            let mut out = Vec::new();
            for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let key = MethodKey::parse(name).map_err(|_| {
                    let all: Vec<&str> = MethodKey::ALL.iter().map(|k| k.as_str()).collect();
                    anyhow::anyhow!("--methods: unknown method `{name}` (allowed: {}, or all)", all.join(", "))
                })?;
                if !out.contains(&key) {
                    out.push(key);
                }
            }
            anyhow::ensure!(!out.is_empty(), "--methods: no method named (allowed: a comma-separated list, or all)");
            Ok(out)
        }
    }
}

/// Runs the comparison.
pub fn compare(req: &Request) -> Result<Comparison> {
    if let Some(d) = req.duration {
        anyhow::ensure!(d.is_finite() && d > 0.0, "--duration: {d} is not a positive number of seconds");
    }
    if let Some(dir) = &req.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    // The scene must load at all (any method): otherwise there is nothing to compare.
    let base = cairn::scene::load_with(
        &req.scene,
        &cairn::scene::LoadOptions { sets: req.sets.clone(), limits: req.limits, ..Default::default() },
    )?;
    let bodies = plotted_bodies(&base, &req.bodies)?;
    let duration = req.duration.unwrap_or(base.duration);
    let rows: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; req.methods.len()]);
    let next = Mutex::new(0usize);
    let jobs = req.jobs.clamp(1, req.methods.len().max(1));
    let bar = crate::progress::bar(req.methods.len() as u64, "methods");
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let k = {
                    let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                    let k = *n;
                    *n += 1;
                    k
                };
                let Some(&method) = req.methods.get(k) else { break };
                let row = run_one(req, method, duration, &bodies);
                bar.set_message(format!("{method} {}", row.status));
                bar.inc(1);
                rows.lock().unwrap_or_else(|e| e.into_inner())[k] = Some(row);
            });
        }
    });
    bar.finish_and_clear();
    let runs = rows.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten().collect();
    let names = bodies.iter().map(|&i| base.bodies[i].name.clone()).collect();
    let cmp = Comparison { scene: base.name.clone(), duration, bodies: names, runs };
    if let Some(dir) = &req.out {
        write_outputs(dir, &cmp)?;
    }
    Ok(cmp)
}

fn plotted_bodies(model: &cairn::model::Model, names: &[String]) -> Result<Vec<usize>> {
    if names.is_empty() {
        let up = -model.gravity.normalize_or_zero();
        let up = if up == cairn::math::Vec3::ZERO { cairn::math::Vec3::Z } else { up };
        let top = (0..model.bodies.len())
            .filter(|&i| model.bodies[i].kind == cairn::model::BodyKind::Dynamic)
            .max_by(|&a, &b| up.dot(model.bodies[a].position).total_cmp(&up.dot(model.bodies[b].position)));
        return Ok(top.into_iter().collect());
    }
    names
        .iter()
        .map(|n| model.bodies.iter().position(|b| &b.name == n).with_context(|| format!("--bodies: the scene has no body named `{n}`")))
        .collect()
}

fn height(world: &World, i: usize) -> f64 {
    let g = world.model.gravity;
    let up = if g.length() > 0.0 { -g.normalize() } else { cairn::math::Vec3::Z };
    up.dot(world.state.bodies[i].x)
}

fn run_one(req: &Request, method: MethodKey, duration: f64, bodies: &[usize]) -> Row {
    let opts = cairn::scene::LoadOptions {
        method: Some(method),
        duration: Some(duration),
        check_intersections: req.check.then_some(true),
        sets: req.sets.clone(),
        limits: req.limits,
        ..Default::default()
    };
    let model = match cairn::scene::load_with(&req.scene, &opts) {
        Ok(m) => m,
        Err(e) => return Row::empty(method, "refused", e.to_string()),
    };
    let mut world = match World::new(model) {
        Ok(w) => w,
        Err(e) => return Row::empty(method, "refused", e.to_string()),
    };
    let dir = req.out.as_ref().map(|d| d.join(method.as_str()));
    let options = cairn::run::RunOptions { out: dir.clone(), ..Default::default() };
    let energy = |w: &World| w.state.kinetic_energy(&w.model) + w.state.potential_energy(&w.model);
    let e0 = energy(&world);
    let mut series = Series { heights: vec![Vec::new(); bodies.len()], ..Default::default() };
    let sample = |w: &World, pen: f64, s: &mut Series| {
        s.time.push(w.state.time);
        s.kinetic_energy.push(w.state.kinetic_energy(&w.model));
        s.penetration.push(pen);
        for (h, &i) in s.heights.iter_mut().zip(bodies) {
            h.push(height(w, i));
        }
    };
    sample(&world, 0.0, &mut series);
    let (mut contacts, mut unresolved) = (0usize, 0usize);
    let (mut intersections, mut touching, mut crossings): (Option<usize>, Option<usize>, Option<usize>) = (None, None, None);
    let mut min_distance: Option<f64> = None;
    let most = |m: &mut Option<usize>, n: usize| *m = Some(m.map_or(n, |m| m.max(n)));
    let result = cairn::run::run(&mut world, &options, &mut |w, st| {
        contacts += st.contacts;
        unresolved += st.unresolved;
        if let Some(n) = st.intersections {
            let c = st.crossings.unwrap_or(0).min(n);
            most(&mut intersections, n);
            most(&mut touching, n - c);
            most(&mut crossings, c);
        }
        if let Some(d) = st.min_distance {
            min_distance = Some(min_distance.map_or(d, |m| m.min(d)));
        }
        sample(w, st.max_penetration, &mut series);
    });
    match result {
        Err(e) => {
            let mut row = Row::empty(method, "failed", format!("at step {}: {e}", world.state.step));
            row.series = series;
            row
        }
        Ok(report) => {
            let n = report.steps.max(1) as f64;
            Row {
                method: method.as_str().into(),
                status: "ran".into(),
                reason: None,
                dir: dir.map(|_| method.as_str().to_string()),
                steps: report.steps,
                ms_per_step: report.wall_seconds * 1e3 / n,
                max_penetration: report.tracker.max_penetration,
                max_displacement: report.tracker.max_drift(&world.model),
                max_drift: report.tracker.max_drift(&world.model),
                max_drift_beyond_fall: report.tracker.max_drift_beyond_fall(&world.model),
                energy_change: energy(&world) - e0,
                intersections,
                touching,
                crossings,
                min_distance,
                unresolved_per_step: unresolved as f64 / n,
                contacts_per_step: contacts as f64 / n,
                series,
            }
        }
    }
}

fn opt<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map_or_else(|| "-".into(), f)
}

/// A run's figures as the table and the HTML page print them: ms/step, largest penetration (mm), largest displacement (mm),
/// energy change (J), touching pairs, crossing pairs, smallest distance (mm), unresolved and contacts per step.
fn cells(r: &Row) -> [String; 9] {
    [
        format!("{:.3}", r.ms_per_step),
        format!("{:.3}", r.max_penetration * 1e3),
        format!("{:.3}", r.max_drift * 1e3),
        format!("{:.4e}", r.energy_change),
        opt(r.touching, |n| n.to_string()),
        opt(r.crossings, |n| n.to_string()),
        opt(r.min_distance, |d| format!("{:.4}", d * 1e3)),
        format!("{:.2}", r.unresolved_per_step),
        format!("{:.1}", r.contacts_per_step),
    ]
}

/// The table, one line per method, then the reasons of the refused and failed runs.
pub fn table(c: &Comparison) -> String {
    let mut s = format!("{}: {:.3} s under {} method(s)\n", c.scene, c.duration, c.runs.len());
    // 120 columns with the longest method name and status
    s += &format!(
        "{:<18} {:<7} {:>8} {:>12} {:>11} {:>10} {:>8} {:>8} {:>10} {:>10} {:>8}\n",
        "method",
        "status",
        "ms/step",
        "max pen (mm)",
        "displ. (mm)",
        "ΔE (J)",
        "touching",
        "crossing",
        "min d (mm)",
        "unresolved",
        "contacts"
    );
    for r in &c.runs {
        if r.status != "ran" {
            s += &format!("{:<18} {:<7} {:>8}\n", r.method, r.status, "-");
            continue;
        }
        let v = cells(r);
        s += &format!(
            "{:<18} {:<7} {:>8} {:>12} {:>11} {:>10} {:>8} {:>8} {:>10} {:>10} {:>8}\n",
            r.method, r.status, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
        );
    }
    for r in c.runs.iter().filter(|r| r.status != "ran") {
        s += &format!("{} {}: {}\n", r.method, r.status, r.reason.as_deref().unwrap_or(""));
    }
    s
}

fn write_outputs(dir: &Path, c: &Comparison) -> Result<()> {
    let json = dir.join("compare.json");
    let text = serde_json::to_string_pretty(c).context("compare.json")?;
    std::fs::write(&json, text).with_context(|| format!("cannot write {}", json.display()))?;
    let html = dir.join("compare.html");
    std::fs::write(&html, html_page(c)?).with_context(|| format!("cannot write {}", html.display()))?;
    Ok(())
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// One plot of a quantity over time, a line per run in its method's colour; `scale` multiplies the values (1e3:
/// metres shown in mm, as in the table).
fn plot(c: &Comparison, title: &str, y_label: &str, scale: f64, pick: &dyn Fn(&Series) -> Option<&[f64]>) -> Result<String> {
    let data: Vec<(String, Vec<(f64, f64)>)> = c
        .runs
        .iter()
        .filter_map(|r| {
            let ys = pick(&r.series)?;
            (!ys.is_empty()).then(|| (r.method.clone(), r.series.time.iter().copied().zip(ys.iter().map(|y| y * scale)).collect()))
        })
        .collect();
    let series: Vec<crate::plot::Series> = data.iter().map(|(n, p)| crate::plot::Series { name: n, points: p }).collect();
    if series.is_empty() {
        return Ok(format!("<p>{}: no run to plot.</p>", escape(title)));
    }
    crate::plot::lines_svg(title, "time (s)", y_label, &series).map_err(|e| anyhow::anyhow!("{title}: {e}"))
}

fn html_page(c: &Comparison) -> Result<String> {
    let mut rows = String::new();
    for r in &c.runs {
        let link = r.dir.as_ref().map_or_else(|| "-".to_string(), |d| format!("<a href=\"{0}/\">{0}/</a>", escape(d)));
        if r.status == "ran" {
            let v: String = cells(r).iter().map(|c| format!("<td>{c}</td>")).collect();
            rows += &format!("<tr><td>{}</td><td>ran</td>{v}<td>{}</td></tr>\n", escape(&r.method), link);
        } else {
            rows += &format!(
                "<tr><td>{}</td><td>{}</td><td colspan=\"10\">{}</td></tr>\n",
                escape(&r.method),
                escape(&r.status),
                escape(r.reason.as_deref().unwrap_or(""))
            );
        }
    }
    let mut plots = String::new();
    for (k, name) in c.bodies.iter().enumerate() {
        plots += &plot(c, &format!("height of {name}"), "height (m)", 1.0, &|s| s.heights.get(k).map(|v| v.as_slice()))?;
    }
    plots += &plot(c, "kinetic energy", "J", 1.0, &|s| Some(&s.kinetic_energy))?;
    plots += &plot(c, "largest penetration", "mm", 1e3, &|s| Some(&s.penetration))?;
    Ok(format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>cairn compare: {scene}</title>\n<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #bbb;padding:3px 8px;text-align:right}}td:first-child{{text-align:left}}svg{{display:block;margin:1em 0}}</style></head>\n<body><h1>{scene}: {dur:.3} s under {n} method(s)</h1>\n<p>The runs in 3-D, side by side: <a href=\"view.html\">view.html</a>.</p>\n<table><tr><th>method</th><th>status</th><th>ms/step</th><th>max pen (mm)</th><th>largest displacement (mm)</th><th>ΔE (J)</th><th>touching pairs</th><th>crossing pairs</th><th>min distance (mm)</th><th>unresolved/step</th><th>contacts/step</th><th>run folder</th></tr>\n{rows}</table>\n{plots}\n</body></html>\n",
        scene = escape(&c.scene),
        dur = c.duration,
        n = c.runs.len(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_parse_as_a_list_or_all_and_unknown_names_are_errors() {
        assert_eq!(parse_methods(None).unwrap().len(), MethodKey::ALL.len());
        assert_eq!(parse_methods(Some("lcp, abd,lcp")).unwrap(), vec![MethodKey::Lcp, MethodKey::Abd]);
        let e = parse_methods(Some("lcp,pbd")).unwrap_err().to_string();
        assert!(e.contains("`pbd`") && e.contains("volumetric-penalty"), "{e}");
        assert!(parse_methods(Some(",")).is_err());
    }
}
