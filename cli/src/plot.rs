//! Plots written by the command line (SVG through plotters; no fonts or system libraries needed).

use plotters::prelude::*;
use std::path::Path;

/// One named curve.
pub struct Series<'a> {
    pub name: &'a str,
    pub points: &'a [(f64, f64)],
}

/// Writes a line plot of `series` to `path` (SVG).
pub fn lines(path: &Path, title: &str, x_label: &str, y_label: &str, series: &[Series]) -> Result<(), String> {
    let svg = lines_svg(title, x_label, y_label, series).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `#rrggbb` as a colour.
fn hex_colour(hex: &str) -> Option<RGBColor> {
    let v = u32::from_str_radix(hex.strip_prefix('#')?, 16).ok()?;
    Some(RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8))
}

/// A line plot of `series` as SVG text.
pub fn lines_svg(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> Result<String, String> {
    let all = series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !(x0 < x1) {
        return Err("nothing to plot".into());
    }
    if !(y0 < y1) {
        y1 = y0 + 1.0;
    }
    let pad = 0.05 * (y1 - y0);
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("{title}: {e}");
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))
        .map_err(|e| err(&e))?;
    chart.configure_mesh().x_desc(x_label).y_desc(y_label).draw().map_err(|e| err(&e))?;
    let colours = [BLUE, RED, GREEN, BLACK, MAGENTA, CYAN, RGBColor(230, 120, 30), RGBColor(120, 120, 120)];
    for (k, s) in series.iter().enumerate() {
        // a method's line in the method's colour, as on every page (view.html's)
        let c = crate::view::method_colour(s.name).and_then(hex_colour).unwrap_or(colours[k % colours.len()]);
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(s.name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    drop(chart);
    drop(root);
    Ok(svg)
}
