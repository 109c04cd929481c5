//! `cairn validate`: the table of a method's validation experiments, and the cube drop's plot.

use crate::warn_other_solvers;
use anyhow::{bail, Context, Result};
use cairn::model::MethodKey;
use std::path::Path;

/// `cairn validate`: the table of the method's experiments (or `only` those); an error when a row fails.
/// The table keeps to `table::WIDTH` columns (cells wrapped) unless `wide`.
pub fn cmd_validate(key: MethodKey, only: &[String], sets: &[(String, String)], plots: &Path, wide: bool) -> Result<()> {
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
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            let result = if r.pass { "pass" } else { "FAIL" };
            [r.experiment.clone(), r.expected.clone(), r.measured.clone(), r.tolerance.clone(), result.to_string()]
        })
        .collect();
    let header = ["experiment", "expected", "measured", "tolerance", "result"].map(String::from);
    let natural: Vec<usize> = (0..5).map(|k| cells.iter().chain([&header]).map(|c| c[k].chars().count()).max().unwrap_or(6)).collect();
    let w = if wide { natural } else { crate::table::fit(&natural, 3, crate::table::WIDTH, 12) };
    println!("validation of method `{method}`");
    crate::table::lines(&header, &w).iter().for_each(|l| println!("{l}"));
    println!("{}", "-".repeat(w.iter().sum::<usize>() + 12));
    for c in &cells {
        crate::table::lines(c, &w).iter().for_each(|l| println!("{l}"));
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
