//! The run loop shared by the command line, bindings and viewers: step a world for a number of steps,
//! record `trajectory.npy`, `metrics.csv` and `summary.json` when asked, and report progress to a callback.

use crate::error::RunError;
use crate::method::StepStats;
use crate::record::{summary_json, Recorder, Tracker};
use crate::world::World;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What a run does besides stepping.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Steps to take; `None`: the scene's duration divided by its time step, rounded.
    pub steps: Option<u64>,
    /// Folder for `trajectory.npy`, `metrics.csv` and `summary.json`; `None` writes nothing.
    pub out: Option<PathBuf>,
    /// A trajectory frame every this many steps; `None`: about 60 frames per simulated second.
    pub frame_every: Option<u64>,
    /// A `metrics.csv` row every this many steps (`None` or 1: every step); thins the file of long runs.
    pub metrics_every: Option<u64>,
    /// Also write `contacts.npy`: the contact points and normals of each frame's step.
    pub contacts: bool,
    /// When set (by a signal handler, another thread), the run stops after the step in progress and writes
    /// its files with `"completed": false` in `summary.json`.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Steps taken.
    pub steps: u64,
    /// Whether every step asked for was taken (false: cancelled through `RunOptions::cancel`).
    pub completed: bool,
    /// Wall time of the stepping (recording included), s.
    pub wall_seconds: f64,
    /// Peaks over the run (penetration, displacement per body).
    pub tracker: Tracker,
    /// The `summary.json` object (also written into the output folder, when there is one).
    pub summary: serde_json::Value,
}

/// The steps a run of `world` takes by default: its scene's duration over its time step.
pub fn default_steps(world: &World) -> u64 {
    (world.model.duration / world.model.dt).round() as u64
}

/// Refuses a run whose output would be larger than the limit `output_mib`: `trajectory.npy`'s frames (8 bytes a
/// value) and `metrics.csv`'s rows (at most 25 characters a value), estimated before anything is written.
/// (`contacts.npy` is left out: its size depends on the contacts found.)
fn check_output_size(
    model: &crate::model::Model,
    stages: &[&str],
    steps: u64,
    frame_every: u64,
    metrics_every: u64,
) -> Result<(), RunError> {
    let frames = (steps / frame_every.max(1)).saturating_add(2) as f64;
    let rows = (steps / metrics_every.max(1)).saturating_add(2) as f64;
    let columns = crate::record::metrics_header(model, stages).matches(',').count() + 1;
    let bytes = frames * (1 + 12 * model.bodies.len()) as f64 * 8.0 + rows * columns as f64 * 25.0;
    let limit = model.limits.output_mib();
    let mib = bytes / (1024.0 * 1024.0);
    if mib > limit as f64 {
        return Err(RunError::Limit(format!(
            "this run would write about {} MiB ({} trajectory frames of {} bodies, {} metrics rows), over the limit of {limit} MiB \
             per run; write fewer frames or rows (`--frame-every N`, `--metrics-every N`), run fewer steps, or {}",
            crate::scene::limits::show(mib.ceil()),
            crate::scene::limits::show(frames),
            model.bodies.len(),
            crate::scene::limits::show(rows),
            crate::scene::limits::how_to_raise("output_mib")
        )));
    }
    Ok(())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io { path: path.display().to_string(), source }
}

/// Runs `world` from its current state. `progress` is called after every step with the world and that
/// step's statistics. The output files are checkpointed every second of wall time, so a run killed at any
/// point leaves `trajectory.npy` and `metrics.csv` whole up to the last checkpoint; a cancelled run
/// (`RunOptions::cancel`) stops after the step in progress and writes every file.
pub fn run(world: &mut World, options: &RunOptions, progress: &mut dyn FnMut(&World, &StepStats)) -> Result<RunReport, RunError> {
    let steps = options.steps.unwrap_or_else(|| default_steps(world));
    let frame_every = options.frame_every.unwrap_or(((1.0 / 60.0) / world.model.dt).round().max(1.0) as u64);
    let stages = world.stage_names();
    if options.out.is_some() {
        check_output_size(&world.model, stages, steps, frame_every, options.metrics_every.unwrap_or(1))?;
    }
    let mut recorder = match &options.out {
        Some(dir) => Some(Recorder::create(dir, &world.model, stages, frame_every, options.metrics_every.unwrap_or(1), options.contacts)?),
        None => None,
    };
    if let Some(r) = recorder.as_mut() {
        r.frame(&world.model, &world.state)?;
    }
    let cancelled = || options.cancel.as_ref().is_some_and(|c| c.load(Ordering::SeqCst));
    let mut tracker = Tracker::new(&world.model, &world.state);
    let t0 = Instant::now();
    for _ in 0..steps {
        if cancelled() {
            break;
        }
        let stats = match world.step() {
            Ok(stats) => stats,
            Err(e) => {
                // the files up to the last step taken, and a summary that says what stopped the run
                if let (Some(r), Some(dir)) = (recorder, &options.out) {
                    let mut summary = summary_json(&world.model, &world.state, &tracker, t0.elapsed().as_secs_f64());
                    summary["completed"] = serde_json::json!(false);
                    summary["error"] = serde_json::json!(e.to_string());
                    summary["notes"] = serde_json::json!(world.notes());
                    r.finish()?;
                    write_summary(dir, &summary)?;
                }
                return Err(e.into());
            }
        };
        tracker.update(&world.state, &stats);
        if let Some(r) = recorder.as_mut() {
            r.metrics(world, &stats, stages.len())?;
            r.contacts(&world.state, &stats)?;
            r.sleep(&world.state)?;
            r.frame(&world.model, &world.state)?;
            r.checkpoint_if_due()?;
        }
        progress(world, &stats);
    }
    let completed = tracker.steps == steps;
    let wall_seconds = t0.elapsed().as_secs_f64();
    let mut summary = summary_json(&world.model, &world.state, &tracker, wall_seconds);
    summary["completed"] = serde_json::json!(completed);
    summary["notes"] = serde_json::json!(world.notes());
    if let (Some(r), Some(dir)) = (recorder, &options.out) {
        r.finish()?;
        write_summary(dir, &summary)?;
    }
    Ok(RunReport { steps: tracker.steps, completed, wall_seconds, tracker, summary })
}

fn write_summary(dir: &Path, summary: &serde_json::Value) -> Result<(), RunError> {
    let path = dir.join("summary.json");
    let text = serde_json::to_string_pretty(summary).map_err(|e| io(&path)(std::io::Error::other(e)))?;
    std::fs::write(&path, text).map_err(io(&path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ball dropping onto a ground: a few steps cost nothing.
    fn world() -> World {
        let text = "format = 1\n[world]\ndt = 0.01\nduration = 1.0\n[[body]]\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n[[body]]\nshape = { type = \"sphere\", radius = 0.1 }\nposition = [0.0, 0.0, 1.0]\n";
        World::new(crate::scene::load_str(text, "t.toml", "t", Path::new("."), &[]).unwrap()).unwrap()
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cairn-run-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// The row count of an `.npy` header, checked against the file's length (at least that many rows).
    fn npy_rows(path: &Path, cols: usize) -> u64 {
        let bytes = std::fs::read(path).unwrap();
        let header = String::from_utf8_lossy(&bytes[10..128]).to_string();
        let shape = header.split("'shape': (").nth(1).unwrap().split(')').next().unwrap().to_string();
        let (rows, c) = shape.split_once(", ").unwrap();
        assert_eq!(c.trim().parse::<usize>().unwrap(), cols);
        let rows: u64 = rows.parse().unwrap();
        assert!(bytes.len() as u64 >= 128 + rows * cols as u64 * 8, "{path:?}: header claims {rows} rows, file has {} bytes", bytes.len());
        rows
    }

    #[test]
    fn a_cancelled_run_writes_its_files_up_to_the_last_step() {
        let dir = tmp("cancel");
        let mut w = world();
        let cancel = Arc::new(AtomicBool::new(false));
        let options = RunOptions { out: Some(dir.clone()), frame_every: Some(1), cancel: Some(cancel.clone()), ..Default::default() };
        let report = run(&mut w, &options, &mut |w, _| {
            if w.state.step == 7 {
                cancel.store(true, Ordering::SeqCst);
            }
        })
        .unwrap();
        assert!(!report.completed);
        assert_eq!(report.steps, 7);
        // the initial frame and one per step
        assert_eq!(npy_rows(&dir.join("trajectory.npy"), 1 + 24), 8);
        let metrics = std::fs::read_to_string(dir.join("metrics.csv")).unwrap();
        assert_eq!(metrics.lines().count(), 1 + 7);
        assert!(metrics.ends_with('\n'));
        let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!(summary["completed"], false);
        assert_eq!(summary["steps"], 7);
        // uncancelled: completed
        let report =
            run(&mut world(), &RunOptions { out: Some(dir.clone()), steps: Some(3), ..Default::default() }, &mut |_, _| {}).unwrap();
        assert!(report.completed);
        let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!((summary["completed"].as_bool(), summary["steps"].as_u64()), (Some(true), Some(3)));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn an_npy_header_counts_the_rows_of_the_last_checkpoint_even_if_never_finished() {
        let dir = tmp("checkpoint");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.npy");
        let mut w = crate::record::NpyWriter::create(&path, 2).unwrap();
        for k in 0..5 {
            w.push(&[k as f64, 0.0]).unwrap();
        }
        w.checkpoint().unwrap();
        w.push(&[9.0, 9.0]).unwrap();
        // a process killed here runs no destructor
        std::mem::forget(w);
        assert_eq!(npy_rows(&path, 2), 5);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_full_disk_names_the_file_and_leaves_the_trajectory_consistent() {
        if !Path::new("/dev/full").exists() {
            return;
        }
        let dir = tmp("full");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink("/dev/full", dir.join("metrics.csv")).unwrap();
        let options = RunOptions { out: Some(dir.clone()), frame_every: Some(1), ..Default::default() };
        let e = run(&mut world(), &options, &mut |_, _| {}).unwrap_err().to_string();
        assert!(e.contains("cannot write") && e.contains("metrics.csv") && e.contains("No space left"), "{e}");
        npy_rows(&dir.join("trajectory.npy"), 25);
        assert!(!dir.join("summary.json").exists());
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A run whose files would be larger than `output_mib` is refused before anything is written, naming the
    /// estimate, the limit and how to raise it; thinned frames and rows bring it within.
    #[test]
    fn a_run_over_the_output_limit_is_refused_before_writing() {
        let dir = tmp("output");
        let mut w = world();
        w.model.limits.output_mib = Some(1);
        // two bodies: 25 values a frame, 200 bytes; 10,000 frames and rows are over 1 MiB
        let options = RunOptions { out: Some(dir.clone()), frame_every: Some(1), steps: Some(10_000), ..Default::default() };
        let e = run(&mut w, &options, &mut |_, _| {}).unwrap_err().to_string();
        assert!(
            e.contains("over the limit of 1 MiB per run") && e.contains("--limit output_mib=N") && e.contains("10002 trajectory frames"),
            "{e}"
        );
        assert!(!dir.exists(), "nothing is written");
        let thinned = RunOptions { frame_every: Some(100), metrics_every: Some(100), steps: Some(200), ..options };
        run(&mut w, &thinned, &mut |_, _| {}).unwrap();
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A step that fails (a load's torque overflows the velocity) ends the run with its error, and the folder
    /// holds the files up to the last step taken and a summary naming the failure.
    #[test]
    fn a_failed_step_leaves_the_files_and_a_summary_naming_the_error() {
        let dir = tmp("failed");
        let text = "format = 1\n[[body]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\n[[load]]\nbody = \"ball\"\ntorque = [1e307, 0.0, 0.0]\n";
        let mut w = World::new(crate::scene::load_str(text, "t.toml", "t", Path::new("."), &[]).unwrap()).unwrap();
        let options = RunOptions { out: Some(dir.clone()), steps: Some(10), ..Default::default() };
        let e = run(&mut w, &options, &mut |_, _| {}).unwrap_err().to_string();
        assert!(e.contains("non-finite") && e.contains("`ball`"), "{e}");
        let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!(summary["completed"], false);
        assert_eq!(summary["error"].as_str(), Some(e.as_str()));
        assert_eq!(npy_rows(&dir.join("trajectory.npy"), 1 + 12), 1);
        std::fs::remove_dir_all(&dir).ok();
    }
}
