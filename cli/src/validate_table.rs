//! `cairn validate`: the table of a method's validation experiments, and the cube drop's plot.

use crate::warn_other_solvers;
use anyhow::{bail, Context, Result};
use cairn::model::MethodKey;
use std::path::Path;

/// `cairn validate`: the table of the method's experiments (or `only` those); an error when a row fails.
pub fn cmd_validate(key: MethodKey, only: &[String], sets: &[(String, String)], plots: &Path) -> Result<()> {
    let method = key.as_str();
    let names: Vec<String> =
        if only.is_empty() { cairn_validate::experiments(key).iter().map(|s| s.to_string()).collect() } else { only.to_vec() };
    warn_other_solvers(sets, key);
    let mut rows = Vec::new();
    let bar = crate::progress::bar(names.len() as u64, "experiments");
    for n in &names {
        bar.set_message(n.clone());
        rows.extend(cairn_validate::run_experiment(n, key, sets));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let w = [
        rows.iter().map(|r| r.experiment.chars().count()).max().unwrap_or(10).max(10),
        rows.iter().map(|r| r.expected.chars().count()).max().unwrap_or(8).max(8),
        rows.iter().map(|r| r.measured.chars().count()).max().unwrap_or(8).max(8),
        rows.iter().map(|r| r.tolerance.chars().count()).max().unwrap_or(9).max(9),
    ];
    let pad = |s: &str, n: usize| format!("{s}{}", " ".repeat(n.saturating_sub(s.chars().count())));
    println!("validation of method `{method}`");
    println!("{} | {} | {} | {} | result", pad("experiment", w[0]), pad("expected", w[1]), pad("measured", w[2]), pad("tolerance", w[3]));
    println!("{}", "-".repeat(w.iter().sum::<usize>() + 21));
    for r in &rows {
        println!(
            "{} | {} | {} | {} | {}",
            pad(&r.experiment, w[0]),
            pad(&r.expected, w[1]),
            pad(&r.measured, w[2]),
            pad(&r.tolerance, w[3]),
            if r.pass { "pass" } else { "FAIL" }
        );
    }
    let failed = rows.iter().filter(|r| !r.pass).count();
    println!("{} passed, {} failed", rows.len() - failed, failed);
    if method == "volumetric-penalty" && (only.is_empty() || only.iter().any(|o| o == "vp_cubedrop")) {
        cubedrop_plot(plots, sets)?;
    }
    if failed > 0 {
        bail!("{failed} validation row(s) failed");
    }
    if !(method == "volumetric-penalty" && (only.is_empty() || only.iter().any(|o| o == "vp_cubedrop"))) {
        println!("wrote nothing (the table above is the result)");
    }
    Ok(())
}

/// Writes the cube drop's angular momentum about the tilt axis, volumetric and single-point (Hasegawa et al.,
/// Fig. 9), as an SVG plot and a CSV table.
fn cubedrop_plot(dir: &Path, sets: &[(String, String)]) -> Result<()> {
    let [vol, point] = cairn_validate::volumetric::cubedrop_curves(sets)?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let svg = dir.join("cubedrop_angular_momentum.svg");
    crate::plot::lines(
        &svg,
        "Cube drop (Hasegawa et al. Fig. 9): angular momentum about the tilt axis",
        "step (dt = 10 ms)",
        "L_x (kg m²/s)",
        &[crate::plot::Series { name: "volumetric penalty", points: &vol }, crate::plot::Series { name: "single point", points: &point }],
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    let mut csv = String::from("step,volumetric,single_point\n");
    for (a, b) in vol.iter().zip(&point) {
        csv += &format!("{},{:e},{:e}\n", a.0, a.1, b.1);
    }
    let path = dir.join("cubedrop_angular_momentum.csv");
    std::fs::write(&path, csv).with_context(|| format!("cannot write {}", path.display()))?;
    println!("plot: {} (data: {})", svg.display(), path.display());
    Ok(())
}
