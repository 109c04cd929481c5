//! The two tables of the pulsk project report (impulse-based stacking after Guendelman, Bridson & Fedkiw 2003;
//! docs/methods/impulse.md, "Source") for `impulse`, reproduced by `cairn bench --method impulse` without
//! `--scene`, with the report's numbers beside cairn's.
//!
//! Each cell runs the dynamic stack (`stackdropN`) and, for contrast, the resting stack (`stackN`), at the
//! report's settings ([`SOURCE_SETTINGS`]: 30 iterations per phase, ε = 0 in every contact sweep), and an ensemble
//! of [`ENSEMBLE`] nudged runs, since a dropped stack is chaotic. See docs/methods/impulse.md, "The report's tables".

use crate::bench::bench_model;
use cairn::model::{BodyKind, Model};
use std::path::{Path, PathBuf};

/// Runs per cell: the scene as it is and `ENSEMBLE − 1` nudged copies.
pub const ENSEMBLE: usize = 8;

/// The largest move of a dynamic body's start in a nudged copy, m, per axis (rounding-level for metre-sized
/// boxes: it samples the chaos, not another scene).
pub const NUDGE: f64 = 1e-9;

/// The report's configuration: 30 collision and contact iterations, ε = 0 in every contact sweep, and no
/// sleeping (the report counts the contacts of every step of a stack at rest).
pub const SOURCE_SETTINGS: [(&str, &str); 4] = [
    ("solver.impulse.collision_iterations", "30"),
    ("solver.impulse.contact_iterations", "30"),
    ("solver.impulse.restitution_ramp", "false"),
    ("world.sleep", "false"),
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
    /// The scene as it is (the ensemble's first run), as are the two timings.
    pub unresolved_per_step: f64,
    pub us_per_resolution: f64,
    pub ms_per_step: f64,
    /// Unresolved per step over the ensemble: mean, standard deviation (n − 1), runs.
    pub ensemble_mean: f64,
    pub ensemble_sd: f64,
    pub ensemble_runs: usize,
}

/// Copy `k` of the ensemble: every dynamic body's start moved by up to [`NUDGE`] per axis, from the seed `k`
/// (copy 0: unmoved).
pub fn nudged(mut model: Model, k: usize) -> Model {
    if k > 0 {
        let mut rng = cairn::math::rng::Rng::new(k as u64);
        for b in model.bodies.iter_mut().filter(|b| b.kind == BodyKind::Dynamic) {
            let d = cairn::math::Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
            b.position += NUDGE * d;
        }
    }
    model
}

/// Mean and standard deviation (n − 1; 0 for one value).
fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 { v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var.sqrt())
}

/// Runs every cell of both tables, `steps` steps each.
pub fn run_cells(steps: u64, scene_path: &dyn Fn(&str) -> anyhow::Result<PathBuf>) -> anyhow::Result<Vec<Cell>> {
    let mut cells = Vec::new();
    let mut run = |objects: usize, dynamic: bool, model: &str, ordering: bool| -> anyhow::Result<()> {
        let scene = if dynamic { format!("stackdrop{objects}") } else { format!("stack{objects}") };
        let mut sets: Vec<(String, String)> = SOURCE_SETTINGS.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        sets.push(("solver.impulse.friction_model".into(), format!("\"{model}\"")));
        sets.push(("solver.impulse.ordering".into(), ordering.to_string()));
        let path = scene_path(&scene)?;
        let opts = cairn::scene::LoadOptions { method: Some(cairn::model::MethodKey::Impulse), sets, ..Default::default() };
        let load = |k: usize| -> anyhow::Result<Model> { Ok(nudged(cairn::scene::load_with(Path::new(&path), &opts)?, k)) };
        let r = bench_model(load(0)?, Some(steps))?;
        let mut all = vec![r.unresolved];
        for k in 1..ENSEMBLE {
            all.push(bench_model(load(k)?, Some(steps))?.unresolved);
        }
        let (ensemble_mean, ensemble_sd) = mean_sd(&all);
        cells.push(Cell {
            scene,
            objects,
            friction_model: model.into(),
            ordering,
            dynamic,
            unresolved_per_step: r.unresolved,
            us_per_resolution: r.us_per_resolution,
            ms_per_step: r.ms_per_step,
            ensemble_mean,
            ensemble_sd,
            ensemble_runs: all.len(),
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
    cell(cells, objects, dynamic, model, ordering).map_or((f64::NAN, f64::NAN), |c| (c.unresolved_per_step, c.us_per_resolution))
}

fn cell<'a>(cells: &'a [Cell], objects: usize, dynamic: bool, model: &str, ordering: bool) -> Option<&'a Cell> {
    cells.iter().find(|c| c.objects == objects && c.dynamic == dynamic && c.friction_model == model && c.ordering == ordering)
}

/// The cell's ensemble as "mean±sd" ("NaN" if it did not run).
fn ensemble(cells: &[Cell], objects: usize, dynamic: bool, model: &str, ordering: bool) -> String {
    cell(cells, objects, dynamic, model, ordering).map_or("NaN".into(), |c| format!("{:.1}±{:.1}", c.ensemble_mean, c.ensemble_sd))
}

/// Both tables as text, the report's numbers beside cairn's.
pub fn format(cells: &[Cell]) -> String {
    let mut s = String::new();
    s.push_str("\nreport table 1: unresolved contacts/collisions per step, Mirtich vs Moore (30 collision/contact iterations, ε = 0, ordering on)\n");
    s.push_str(&format!(
        "{:<8} {:<8} {:>8} {:>10} {:>10} {:>11} {:>10} {:>14} {:>14}\n",
        "objects", "model", "report", "dropped", "resting", "report µs", "cairn µs", "dropped ens.", "resting ens."
    ));
    for (objects, mirtich, moore) in REPORT_TABLE1 {
        for (model, (unresolved, us)) in [("mirtich", mirtich), ("moore", moore)] {
            let (dropped, dropped_us) = find(cells, objects, true, model, true);
            let (resting, _) = find(cells, objects, false, model, true);
            let (de, re) = (ensemble(cells, objects, true, model, true), ensemble(cells, objects, false, model, true));
            s.push_str(&format!(
                "{objects:<8} {model:<8} {unresolved:>8.0} {dropped:>10.2} {resting:>10.2} {us:>11.2} {dropped_us:>10.2} {de:>14} {re:>14}\n"
            ));
        }
    }
    s.push_str(
        "\nreport table 2: unresolved contact pairs per step, 60 objects, 30 collision/contact iterations, without / with ordering\n",
    );
    s.push_str(&format!(
        "{:<8} {:>14} {:>16} {:>16} {:>22} {:>22}\n",
        "model", "report", "dropped", "resting", "dropped ens.", "resting ens."
    ));
    for (model, without, with) in REPORT_TABLE2 {
        let pair = |dynamic: bool| (find(cells, 60, dynamic, model, false).0, find(cells, 60, dynamic, model, true).0);
        let ens = |dynamic: bool| format!("{} / {}", ensemble(cells, 60, dynamic, model, false), ensemble(cells, 60, dynamic, model, true));
        let ((dw, dn), (rw, rn)) = (pair(true), pair(false));
        s.push_str(&format!(
            "{model:<8} {:>14} {:>16} {:>16} {:>22} {:>22}\n",
            format!("{without:.0} / {with:.0}"),
            format!("{dw:.2} / {dn:.2}"),
            format!("{rw:.2} / {rn:.2}"),
            ens(true),
            ens(false)
        ));
    }
    s.push_str("(dropped: stackdropN, the rows falling tilted and sliding into the pyramid; resting: stackN; 300 steps each)\n");
    s.push_str(&format!(
        "(ens.: unresolved per step, mean±sd over {ENSEMBLE} runs: the scene as it is, and {} with every dynamic body's start moved by up to {NUDGE:e} m per axis)\n",
        ENSEMBLE - 1
    ));
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
                ensemble_mean: u + 0.25,
                ensemble_sd: 0.5,
                ensemble_runs: 8,
            })
            .collect();
        let text = format(&cells);
        let row = text.lines().find(|l| l.starts_with("60       mirtich")).unwrap();
        assert!(row.contains(" 17 ") && row.contains("12.50") && row.contains("NaN"), "{row}");
        let row = text.lines().find(|l| l.starts_with("moore") && l.contains("98 / 78")).unwrap();
        assert!(row.contains("7.75 / NaN") && row.contains("NaN / 40.25"), "{row}");
        assert!(row.contains("8.0±0.5 / NaN") && row.contains("NaN / 40.5±0.5"), "{row}");
        let row = text.lines().find(|l| l.starts_with("60       mirtich")).unwrap();
        assert!(row.contains("12.8±0.5"), "{row}");
    }

    #[test]
    fn nudged_copies_move_only_dynamic_bodies_and_by_at_most_the_nudge() {
        let text = "format = 1\n[world]\nmethod = \"impulse\"\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\n";
        let model = cairn::scene::load_str(text, "t", "t", Path::new("."), &[]).unwrap();
        let same = nudged(model.clone(), 0);
        assert_eq!(same.bodies[1].position, model.bodies[1].position);
        let (one, two) = (nudged(model.clone(), 1), nudged(model.clone(), 2));
        assert_eq!(one.bodies[0].position, model.bodies[0].position, "static bodies stay");
        for m in [&one, &two] {
            let d = m.bodies[1].position - model.bodies[1].position;
            assert!(d != cairn::math::Vec3::ZERO && d.abs().max_element() <= NUDGE, "{d:?}");
        }
        assert_ne!(one.bodies[1].position, two.bodies[1].position, "each copy its own seed");
        assert_eq!(nudged(model.clone(), 1).bodies[1].position, one.bodies[1].position, "seeded");
    }
}
