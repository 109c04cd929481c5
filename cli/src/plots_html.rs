//! `plots.html` of a run folder: kinetic and potential energy, contacts, the largest penetration and the stage
//! timings over time, from its `metrics.csv` (thinned by `--metrics-every` when the run was), as inline SVG.

use crate::plot::{lines_svg, Series};
use crate::runfiles::read_metrics;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Writes `dir/plots.html` from `dir/metrics.csv` and returns its path.
pub fn write_plots(dir: &Path) -> Result<PathBuf> {
    let m = read_metrics(&dir.join("metrics.csv"))?;
    let csv = dir.join("metrics.csv");
    let col = |name: &str| m.col(name).with_context(|| format!("{}: no column `{name}`", csv.display()));
    let time = col("time")?;
    let series =
        |c: usize, scale: f64| -> Vec<(f64, f64)> { m.rows.iter().filter(|r| r[c].is_finite()).map(|r| (r[time], r[c] * scale)).collect() };
    let step = col("step")?;
    let every = if m.rows.len() > 1 { m.rows[1][step] - m.rows[0][step] } else { 1.0 };
    let mut body = String::new();
    let mut chart = |title: &str, y: &str, list: &[Series]| -> Result<()> {
        if m.rows.len() < 2 {
            return Ok(());
        }
        let svg = lines_svg(title, "time (s)", y, list).map_err(|e| anyhow::anyhow!("{}: {e}", csv.display()))?;
        body.push_str(&format!("<section><h2>{}</h2>\n{svg}\n</section>\n", escape(title)));
        Ok(())
    };
    chart("Kinetic energy", "J", &[Series { name: "kinetic", points: &series(col("kinetic_energy")?, 1.0) }])?;
    chart("Potential energy", "J", &[Series { name: "potential", points: &series(col("potential_energy")?, 1.0) }])?;
    chart("Contacts", "contact points", &[Series { name: "contacts", points: &series(col("contacts")?, 1.0) }])?;
    chart("Largest penetration of the step", "mm", &[Series { name: "max penetration", points: &series(col("max_penetration")?, 1e3) }])?;
    let stages: Vec<(String, Vec<(f64, f64)>)> = m.stages().into_iter().map(|(s, c)| (s, series(c, 1e3))).collect();
    let list: Vec<Series> = stages.iter().map(|(s, p)| Series { name: s, points: p }).collect();
    if !list.is_empty() {
        chart("Stage timings", "ms per step", &list)?;
    }
    let note = if m.rows.len() < 2 {
        "fewer than two metrics rows: nothing to plot".to_string()
    } else {
        format!("{} rows of metrics.csv, one every {every} steps", m.rows.len())
    };
    let title = format!("cairn run: {}", dir.display());
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\n<style>body {{ font: 14px system-ui, sans-serif; margin: 20px; }} \
         section {{ margin-bottom: 24px; }} h2 {{ font-size: 16px; }}</style></head>\n<body><h1>{t}</h1><p>{note}</p>\n{body}</body></html>\n",
        t = escape(&title)
    );
    let path = dir.join("plots.html");
    std::fs::write(&path, html).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
