//! The run loop shared by the command line, bindings and viewers: step a world for a number of steps,
//! record `trajectory.npy`, `metrics.csv` and `summary.json` when asked, and report progress to a callback.

use crate::error::RunError;
use crate::method::StepStats;
use crate::record::{summary_json, Recorder, Tracker};
use crate::world::World;
use std::path::{Path, PathBuf};
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
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Steps taken.
    pub steps: u64,
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

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io { path: path.display().to_string(), source }
}

/// Runs `world` from its current state. `progress` is called after every step with the world and that
/// step's statistics.
pub fn run(world: &mut World, options: &RunOptions, progress: &mut dyn FnMut(&World, &StepStats)) -> Result<RunReport, RunError> {
    let steps = options.steps.unwrap_or_else(|| default_steps(world));
    let frame_every = options.frame_every.unwrap_or(((1.0 / 60.0) / world.model.dt).round().max(1.0) as u64);
    let stages = world.stage_names();
    let mut recorder = match &options.out {
        Some(dir) => Some(
            Recorder::create(dir, &world.model, stages, frame_every, options.metrics_every.unwrap_or(1), options.contacts)
                .map_err(io(dir))?,
        ),
        None => None,
    };
    if let (Some(r), Some(dir)) = (recorder.as_mut(), &options.out) {
        r.frame(&world.model, &world.state).map_err(io(dir))?;
    }
    let mut tracker = Tracker::new(&world.state);
    let t0 = Instant::now();
    for _ in 0..steps {
        let stats = world.step()?;
        tracker.update(&world.state, &stats);
        if let (Some(r), Some(dir)) = (recorder.as_mut(), &options.out) {
            r.metrics(&world.model, &world.state, &stats, stages.len()).map_err(io(dir))?;
            r.contacts(&world.state, &stats).map_err(io(dir))?;
            r.frame(&world.model, &world.state).map_err(io(dir))?;
        }
        progress(world, &stats);
    }
    let wall_seconds = t0.elapsed().as_secs_f64();
    let mut summary = summary_json(&world.model, &world.state, &tracker, wall_seconds);
    summary["notes"] = serde_json::json!(world.notes());
    if let (Some(r), Some(dir)) = (recorder, &options.out) {
        r.finish().map_err(io(dir))?;
        let path = dir.join("summary.json");
        let text = serde_json::to_string_pretty(&summary).map_err(|e| io(&path)(std::io::Error::other(e)))?;
        std::fs::write(&path, text).map_err(io(&path))?;
    }
    Ok(RunReport { steps, wall_seconds, tracker, summary })
}
