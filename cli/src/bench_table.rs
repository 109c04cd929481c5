//! `cairn bench`'s output: one line (or JSON object) per scene, the scaling table, the pulsk report's tables.

use crate::scene_path;
use anyhow::Result;
use cairn::model::MethodKey;

/// How `cairn bench` prints: JSON objects, or a table whose stage timings go on a wrapped line of their own
/// unless `wide`.
#[derive(Debug, Clone, Copy)]
pub struct Format {
    pub json: bool,
    pub wide: bool,
}

/// `cairn bench`: one line (or JSON object) per scene; `impulse` without `--scene` adds the pulsk report's tables.
pub fn cmd_bench(
    method: Option<MethodKey>,
    scene: Vec<String>,
    steps: Option<u64>,
    format: Format,
    sets: &[(String, String)],
    limits: &cairn::scene::Limits,
    tile: Option<usize>,
    tile_pitch: Option<f64>,
) -> Result<()> {
    let tables = scene.is_empty() && method == Some(MethodKey::Impulse);
    let names: Vec<String> = if scene.is_empty() { crate::bench::STANDARD_SCENES.iter().map(|s| s.to_string()).collect() } else { scene };
    let names: Vec<String> = names
        .into_iter()
        .flat_map(|n| if n == "joints" { crate::bench::JOINT_SCENES.map(String::from).to_vec() } else { vec![n] })
        .collect();
    let json = format.json;
    if !json {
        println!(
            "{:<12} {:<8} {:>6} {:>6} {:>9} {:>9} {:>7} {:>9} {:>12} {:>11} {:>10}{}",
            "scene",
            "method",
            "bodies",
            "steps",
            "ms/step",
            "mean ms",
            "it/step",
            "contacts",
            "max pen (mm)",
            "displ. (mm)",
            "drift (mm)",
            if format.wide { "  stages (ms)" } else { "" }
        );
    }
    let bar = crate::progress::bar(names.len() as u64, "scenes");
    for n in &names {
        bar.set_message(n.clone());
        let r = match tile {
            Some(0) => anyhow::bail!("--tile must be at least 1"),
            Some(t) => crate::bench::bench_tiled(&scene_path(n)?, method, steps, sets, limits, t, tile_pitch)?,
            None => crate::bench::bench_scene(&scene_path(n)?, method, steps, sets, limits)?,
        };
        bar.suspend(|| print_bench(&r, format));
        bar.inc(1);
    }
    bar.finish_and_clear();
    if tables {
        source_tables(json)?;
    }
    if !json {
        println!("peak resident memory: {:.1} MB", crate::bench::peak_rss_mb());
        println!("wrote nothing (the table above is the result; --json for one JSON object per scene)");
    }
    Ok(())
}

pub fn print_bench(r: &crate::bench::BenchResult, format: Format) {
    if format.json {
        println!(
            "{}",
            serde_json::json!({"scene": r.scene, "method": r.method, "bodies": r.bodies, "steps": r.steps, "ms_per_step": r.ms_per_step,
                "mean_ms_per_step": r.mean_ms_per_step, "iterations": r.iterations, "contacts": r.contacts, "max_penetration": r.max_penetration, "max_drift": r.max_drift,
                "max_displacement": r.max_drift, "max_drift_beyond_fall": r.max_drift_beyond_fall,
                "stage_ms": r.stage_ms.iter().map(|(k, v)| (k.clone(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
                "unresolved": r.unresolved, "us_per_resolution": r.us_per_resolution,
                "peak_rss_mb": r.peak_rss_mb, "points_tested": r.points_tested, "us_per_point_tested": r.us_per_point_tested,
                "sleeping": r.sleeping})
        );
        return;
    }
    let stages: Vec<String> = r.stage_ms.iter().map(|(k, v)| format!("{k} {v:.3}")).collect();
    println!(
        "{:<12} {:<8} {:>6} {:>6} {:>9.3} {:>9.3} {:>7.2} {:>9.1} {:>12.3} {:>11.3} {:>10.3}{}",
        r.scene,
        r.method,
        r.bodies,
        r.steps,
        r.ms_per_step,
        r.mean_ms_per_step,
        r.iterations,
        r.contacts,
        r.max_penetration * 1e3,
        r.max_drift * 1e3,
        r.max_drift_beyond_fall * 1e3,
        if format.wide { format!("  {}", stages.join(", ")) } else { String::new() }
    );
    // the stage timings on lines of their own within the table's width
    if !format.wide {
        let indent = " ".repeat(13);
        for line in crate::table::wrap(&stages.join(", "), crate::table::WIDTH - indent.len()) {
            println!("{indent}{line}");
        }
    }
    if r.sleeping > 0.0 {
        println!(
            "{:<12} asleep: {:.1} of {} bodies per step on average ([world] sleep; --set world.sleep=false to time every body)",
            "", r.sleeping, r.bodies
        );
    }
    if r.points_tested > 0.0 {
        println!(
            "{:<12} points tested {:.0}/step, in contact {:.0}/step, contact evaluation {:.3} µs per point tested",
            "", r.points_tested, r.contacts, r.us_per_point_tested
        );
    }
}

/// `cairn bench --scaling`: one line per generated scene as it finishes, then the fitted exponents.
pub fn scaling_table(method: MethodKey, steps: Option<u64>, max: Option<usize>, sets: &[(String, String)], json: bool) -> Result<()> {
    use crate::scaling::{run, DEFAULT_MAX_BODIES, DEFAULT_STEPS};
    if !json {
        println!("{:<10} {:<8} {:>6} {:>6} {:>10} {:>10} {:>9}", "family", "method", "bodies", "steps", "ms/step", "mean ms", "contacts");
    }
    let mut report = |r: &crate::scaling::ScalingRow| {
        let b = &r.result;
        if json {
            println!(
                "{}",
                serde_json::json!({"family": r.family, "method": b.method, "bodies": r.bodies, "steps": b.steps,
                    "ms_per_step": b.ms_per_step, "mean_ms_per_step": b.mean_ms_per_step, "contacts": b.contacts})
            );
        } else {
            println!(
                "{:<10} {:<8} {:>6} {:>6} {:>10.3} {:>10.3} {:>9.1}",
                r.family, b.method, r.bodies, b.steps, b.ms_per_step, b.mean_ms_per_step, b.contacts
            );
        }
    };
    let (_, fits) = run(method, steps.unwrap_or(DEFAULT_STEPS), max.unwrap_or(DEFAULT_MAX_BODIES), sets, &mut report)?;
    for (family, p) in fits {
        match (json, p) {
            (true, _) => println!("{}", serde_json::json!({"family": family, "exponent": p})),
            (false, Some(p)) => println!("{family}: ms/step ∝ bodies^{p:.3} (least squares on log–log)"),
            (false, None) => println!("{family}: fewer than two sizes, no exponent"),
        }
    }
    Ok(())
}

/// The pulsk report's two tables, reproduced (`cairn bench --method impulse` without `--scene`): source_tables.rs.
pub fn source_tables(json: bool) -> Result<()> {
    let cells = crate::source_tables::run_cells(300, &|n: &str| scene_path(n))?;
    if json {
        for c in &cells {
            println!("{}", serde_json::json!({"table": "source", "cell": c}));
        }
    } else {
        print!("{}", crate::source_tables::format(&cells));
    }
    Ok(())
}
