//! The pulsk report's two tables for `impulse` (shared/seeds/001), reproduced by `cairn bench --method impulse`
//! without `--scene`, with the report's numbers beside cairn's.
//!
//! Table 1: unresolved contacts/collisions per step and µs per contact resolution, Mirtich's law against Moore's,
//! stacks of 26, 30 and 60 objects at dt 0.01. Table 2: unresolved contact pairs per step on the 60 stack after 30
//! collision/contact iterations, with and without the report's ordering. The report's 60-object rows of table 1
//! (17, 78) equal table 2's "with ordering" column, so both tables ran 30 iterations per phase; its contact phase
//! is ε = 0 in every sweep (no ramp). Both are what [`SOURCE_SETTINGS`] sets.
//!
//! Each cell runs the dynamic stack (`stackdropN`: the rows dropped, tilted and sliding into the brick pyramid,
//! so that impacts slide and the two laws differ) and, for contrast, the resting stack (`stackN`, where nearly
//! every impulse is a face impulse that sticks and both laws give the same impulse). The resting stacks list their
//! rows bottom first, so body order is already the ordering's bottom-up order; the dynamic ones list them top
//! first.

use crate::bench::bench_scene;
use std::path::PathBuf;

/// The report's configuration: 30 collision and contact iterations, ε = 0 in every contact sweep.
pub const SOURCE_SETTINGS: [(&str, &str); 3] = [
    ("solver.impulse.collision_iterations", "30"),
    ("solver.impulse.contact_iterations", "30"),
    ("solver.impulse.restitution_ramp", "false"),
];

/// Table 1 of the report: objects, then (unresolved per step, µs per resolution) for Mirtich and for Moore.
pub const REPORT_TABLE1: [(usize, (f64, f64), (f64, f64)); 3] =
    [(26, (4.0, 4.10), (25.0, 2.98)), (30, (8.0, 4.07), (34.0, 2.96)), (60, (17.0, 4.06), (78.0, 2.97))];

/// Table 2 of the report (60 objects): (law, without ordering, with ordering).
pub const REPORT_TABLE2: [(&str, f64, f64); 2] = [("mirtich", 26.0, 17.0), ("moore", 98.0, 78.0)];

/// One run: a stack under one law and ordering setting, at [`SOURCE_SETTINGS`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct Cell {
    pub scene: String,
    pub objects: usize,
    pub friction_model: String,
    pub ordering: bool,
    /// The stack is dropped into place (`stackdropN`) rather than resting (`stackN`).
    pub dynamic: bool,
    pub unresolved_per_step: f64,
    pub us_per_resolution: f64,
    pub ms_per_step: f64,
}

/// Runs every cell of both tables, `steps` steps each.
pub fn run_cells(steps: u64, scene_path: &dyn Fn(&str) -> anyhow::Result<PathBuf>) -> anyhow::Result<Vec<Cell>> {
    let mut cells = Vec::new();
    let mut run = |objects: usize, dynamic: bool, model: &str, ordering: bool| -> anyhow::Result<()> {
        let scene = if dynamic { format!("stackdrop{objects}") } else { format!("stack{objects}") };
        let mut sets: Vec<(String, String)> = SOURCE_SETTINGS.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        sets.push(("solver.impulse.friction_model".into(), format!("\"{model}\"")));
        sets.push(("solver.impulse.ordering".into(), ordering.to_string()));
        let r = bench_scene(&scene_path(&scene)?, Some("impulse"), Some(steps), &sets)?;
        cells.push(Cell {
            scene,
            objects,
            friction_model: model.into(),
            ordering,
            dynamic,
            unresolved_per_step: r.unresolved,
            us_per_resolution: r.us_per_resolution,
            ms_per_step: r.ms_per_step,
        });
        Ok(())
    };
    for (objects, ..) in REPORT_TABLE1 {
        for dynamic in [true, false] {
            for model in ["mirtich", "moore"] {
                run(objects, dynamic, model, true)?;
            }
        }
    }
    for dynamic in [true, false] {
        for (model, ..) in REPORT_TABLE2 {
            run(60, dynamic, model, false)?;
        }
    }
    Ok(cells)
}

/// The cell for these settings (NaN figures if it did not run).
fn find(cells: &[Cell], objects: usize, dynamic: bool, model: &str, ordering: bool) -> (f64, f64) {
    cells
        .iter()
        .find(|c| c.objects == objects && c.dynamic == dynamic && c.friction_model == model && c.ordering == ordering)
        .map_or((f64::NAN, f64::NAN), |c| (c.unresolved_per_step, c.us_per_resolution))
}

/// Both tables as text, the report's numbers beside cairn's.
pub fn format(cells: &[Cell]) -> String {
    let mut s = String::new();
    s.push_str("\nreport table 1: unresolved contacts/collisions per step, Mirtich vs Moore (30 collision/contact iterations, ε = 0, ordering on)\n");
    s.push_str(&format!(
        "{:<8} {:<8} {:>8} {:>10} {:>10} {:>11} {:>10}\n",
        "objects", "model", "report", "dropped", "resting", "report µs", "cairn µs"
    ));
    for (objects, mirtich, moore) in REPORT_TABLE1 {
        for (model, (unresolved, us)) in [("mirtich", mirtich), ("moore", moore)] {
            let (dropped, dropped_us) = find(cells, objects, true, model, true);
            let (resting, _) = find(cells, objects, false, model, true);
            s.push_str(&format!(
                "{objects:<8} {model:<8} {unresolved:>8.0} {dropped:>10.2} {resting:>10.2} {us:>11.2} {dropped_us:>10.2}\n"
            ));
        }
    }
    s.push_str(
        "\nreport table 2: unresolved contact pairs per step, 60 objects, 30 collision/contact iterations, without / with ordering\n",
    );
    s.push_str(&format!("{:<8} {:>14} {:>16} {:>16}\n", "model", "report", "dropped", "resting"));
    for (model, without, with) in REPORT_TABLE2 {
        let pair = |dynamic: bool| (find(cells, 60, dynamic, model, false).0, find(cells, 60, dynamic, model, true).0);
        let ((dw, dn), (rw, rn)) = (pair(true), pair(false));
        s.push_str(&format!(
            "{model:<8} {:>14} {:>16} {:>16}\n",
            format!("{without:.0} / {with:.0}"),
            format!("{dw:.2} / {dn:.2}"),
            format!("{rw:.2} / {rn:.2}")
        ));
    }
    s.push_str("(dropped: stackdropN, the rows falling tilted and sliding into the pyramid; resting: stackN; 300 steps each)\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_put_each_cell_beside_the_report() {
        let cells: Vec<Cell> = [(true, "mirtich", true, 12.5), (false, "moore", true, 40.25), (true, "moore", false, 7.75)]
            .into_iter()
            .map(|(dynamic, model, ordering, u)| Cell {
                scene: String::new(),
                objects: 60,
                friction_model: model.into(),
                ordering,
                dynamic,
                unresolved_per_step: u,
                us_per_resolution: 1.5,
                ms_per_step: 1.0,
            })
            .collect();
        let text = format(&cells);
        let row = text.lines().find(|l| l.starts_with("60       mirtich")).unwrap();
        assert!(row.contains(" 17 ") && row.contains("12.50") && row.contains("NaN"), "{row}");
        let row = text.lines().find(|l| l.starts_with("moore") && l.contains("98 / 78")).unwrap();
        assert!(row.contains("7.75 / NaN") && row.contains("NaN / 40.25"), "{row}");
    }
}
