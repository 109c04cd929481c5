//! `cairn bench`: time per step (median after a warm-up), contacts, penetration and drift per scene.

use cairn::error::InputError;
use cairn::model::MethodKey;
use cairn::record::Tracker;
use cairn::scene::{Limits, LoadOptions};
use cairn::world::World;
use std::path::Path;
use std::time::Instant;

/// The standard scenes of the peer-engine comparison (Rapier, Bullet, MuJoCo; docs/benchmarks.md), benchmarked
/// by default.
pub const STANDARD_SCENES: [&str; 5] = ["stack10", "pyramid20", "balls1000", "incline", "cubedrop"];

/// The jointed scenes of issue 15's benchmarks (a 100-link chain, a ragdoll on stairs): `--scene joints`.
pub const JOINT_SCENES: [&str; 2] = ["chain100", "ragdoll_stairs"];

/// Steps excluded from the median.
pub const WARMUP_STEPS: u64 = 20;

/// One scene's figures.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchResult {
    pub scene: String,
    pub method: String,
    pub bodies: usize,
    pub steps: u64,
    pub ms_per_step: f64,
    /// Mean milliseconds per step over the same measured steps (the median hides heavy steps, e.g. impacts).
    pub mean_ms_per_step: f64,
    /// Mean contact points per step.
    pub contacts: f64,
    pub max_penetration: f64,
    /// Largest displacement of any dynamic body from its start, over the run.
    pub max_drift: f64,
    /// Largest displacement less any fall along gravity (a stack settling across its gaps does not drift).
    pub max_drift_beyond_fall: f64,
    /// Mean solver iterations per step over the measured steps (`abd`: Newton iterations; `lcp`: PGS sweeps).
    pub iterations: f64,
    /// Mean milliseconds per step in each stage.
    pub stage_ms: Vec<(String, f64)>,
    /// Mean unresolved contacts per step (`impulse`; 0 for other methods).
    pub unresolved: f64,
    /// Mean wall time per computed contact resolution (collision-law call), µs (`impulse`).
    pub us_per_resolution: f64,
    /// Peak resident memory of the process so far, MB (Linux; 0 elsewhere).
    pub peak_rss_mb: f64,
    /// Mean shell points tested against a distance field per step over the measured steps (`implicit-penalty`;
    /// 0 for other methods).
    pub points_tested: f64,
    /// The `contact` stage's wall time per point tested, µs (`implicit-penalty`; 0 for other methods).
    pub us_per_point_tested: f64,
    /// Mean bodies asleep per measured step (`[world] sleep`; 0 under a method that does not sleep).
    pub sleeping: f64,
}

/// Peak resident set size of this process in MB (from /proc; 0 where unavailable).
pub fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok()))
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Runs a scene for its duration (or `steps`) and measures it.
pub fn bench_scene(
    path: &Path,
    method: Option<MethodKey>,
    steps: Option<u64>,
    extra: &[(String, String)],
    limits: &Limits,
) -> Result<BenchResult, anyhow::Error> {
    let model = cairn::scene::load_with(path, &options(method, extra, limits))?;
    bench_model(model, steps)
}

fn options(method: Option<MethodKey>, extra: &[(String, String)], limits: &Limits) -> LoadOptions {
    LoadOptions { method, sets: extra.to_vec(), limits: *limits, ..Default::default() }
}

/// [`bench_scene`] on the scene tiled `n` × `n` times (`scene::bench_scenes::tiled_scene`) at `pitch`, by default
/// the span of the bodies' positions in x and y plus 1 m.
pub fn bench_tiled(
    path: &Path,
    method: Option<MethodKey>,
    steps: Option<u64>,
    extra: &[(String, String)],
    limits: &Limits,
    n: usize,
    pitch: Option<f64>,
) -> Result<BenchResult, anyhow::Error> {
    let opts = options(method, extra, limits);
    // the scene once, untiled: its bodies times n² are checked against the body limit before tiling
    let model = cairn::scene::load_with(path, &opts)?;
    let tiles = (n as u64).saturating_mul(n as u64);
    let bodies = (model.bodies.len() as u64).saturating_mul(tiles);
    limits
        .check_bodies(bodies, &format!("--tile {n}: {} bodies × {tiles} tiles", model.bodies.len()))
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let pitch = match pitch {
        Some(p) => p,
        None => {
            let span = |f: fn(&cairn::model::Body) -> f64| {
                let v = model.bodies.iter().map(f);
                v.clone().fold(f64::NEG_INFINITY, f64::max) - v.fold(f64::INFINITY, f64::min)
            };
            span(|b| b.position.x).max(span(|b| b.position.y)) + 1.0
        }
    };
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let tiled = cairn::scene::bench_scenes::tiled_scene(&text, n, pitch).map_err(|e| anyhow::anyhow!("{}: --tile: {e}", path.display()))?;
    let stem = path.file_stem().map_or("scene".into(), |s| s.to_string_lossy().to_string());
    let dir = path.parent().unwrap_or(Path::new("."));
    let model = cairn::scene::load_str_with(&tiled, &path.display().to_string(), &format!("{stem}x{}", n * n), dir, &opts)?;
    bench_model(model, steps)
}

/// Runs a loaded model for its duration (or `steps`) and measures it.
pub fn bench_model(model: cairn::model::Model, steps: Option<u64>) -> Result<BenchResult, anyhow::Error> {
    let n = steps.unwrap_or((model.duration / model.dt).round() as u64).max(1);
    let mut world = World::new(model).map_err(|e: InputError| anyhow::anyhow!(e))?;
    let stages: Vec<String> = world.stage_names().iter().map(|s| s.to_string()).collect();
    let mut tracker = Tracker::new(&world.model, &world.state);
    // reserved up to a million steps: a long run grows it, a huge --steps does not allocate at once
    let mut times = Vec::with_capacity(n.min(1 << 20) as usize);
    let mut stage_sum = vec![0.0; stages.len()];
    let mut contacts = 0.0;
    let mut iterations = 0.0;
    let (mut unresolved, mut resolutions, mut resolution_s) = (0.0, 0.0, 0.0);
    let mut points_tested = 0.0;
    let mut sleeping = 0.0;
    for k in 0..n {
        let t0 = Instant::now();
        let stats = world.step()?;
        let dt = t0.elapsed().as_secs_f64();
        tracker.update(&world.state, &stats);
        contacts += stats.contacts as f64;
        unresolved += stats.unresolved as f64;
        resolutions += stats.resolutions as f64;
        resolution_s += stats.resolution_seconds;
        if k >= WARMUP_STEPS.min(n - 1) {
            times.push(dt);
            iterations += stats.iterations as f64;
            points_tested += stats.points_tested as f64;
            sleeping += stats.sleeping as f64;
            for (s, t) in stage_sum.iter_mut().zip(stats.stage_seconds.iter()) {
                *s += t;
            }
        }
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let measured = times.len() as f64;
    let contact_s = stages.iter().zip(&stage_sum).find(|(s, _)| s.as_str() == "contact").map_or(0.0, |(_, t)| *t);
    Ok(BenchResult {
        points_tested: points_tested / measured,
        sleeping: sleeping / measured,
        us_per_point_tested: if points_tested > 0.0 { contact_s / points_tested * 1e6 } else { 0.0 },
        scene: world.model.name.clone(),
        method: world.model.method.as_str().to_string(),
        bodies: world.model.bodies.len(),
        steps: n,
        ms_per_step: median * 1e3,
        mean_ms_per_step: times.iter().sum::<f64>() / measured * 1e3,
        contacts: contacts / n as f64,
        max_penetration: tracker.max_penetration,
        max_drift: tracker.max_drift(&world.model),
        max_drift_beyond_fall: tracker.max_drift_beyond_fall(&world.model),
        iterations: iterations / measured,
        stage_ms: stages.into_iter().zip(stage_sum).map(|(s, t)| (s, t / measured * 1e3)).collect(),
        unresolved: unresolved / n as f64,
        us_per_resolution: if resolutions > 0.0 { resolution_s / resolutions * 1e6 } else { 0.0 },
        peak_rss_mb: peak_rss_mb(),
    })
}
