//! Recording a run: the trajectory (`trajectory.npy`), per-step metrics (`metrics.csv`), the run summary
//! (`summary.json`), the bodies' surfaces (`geometry.json`, for viewers and export) and, when asked, the contact
//! points of the frames (`contacts.npy`).
//!
//! `trajectory.npy` is a NumPy array of float64, shape (frames, 1 + 12·bodies): column 0 is the time, then per
//! body its pose as a row-major 3×4 matrix [R | p] of the body's reference frame. In Python:
//! `a = np.load("trajectory.npy"); t = a[:, 0]; poses = a[:, 1:].reshape(len(a), -1, 3, 4)`.

use crate::error::RunError;
use crate::math::Vec3;
use crate::method::StepStats;
use crate::model::Model;
use crate::state::State;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Writes a 2-D float64 `.npy` file row by row. The header's row count is rewritten at every
/// [`NpyWriter::checkpoint`] (and when the writer is finished or dropped), so a run stopped at any point
/// leaves a file numpy loads with the rows of the last checkpoint: rows are written before the header that
/// counts them, and readers ignore bytes past the rows the header claims.
pub struct NpyWriter {
    out: Option<BufWriter<File>>,
    path: PathBuf,
    cols: usize,
    rows: u64,
}

const NPY_HEADER_LEN: usize = 128;

fn npy_header(rows: u64, cols: usize) -> Vec<u8> {
    let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    let pad = NPY_HEADER_LEN - 10 - dict.len() - 1;
    h.extend((NPY_HEADER_LEN as u16 - 10).to_le_bytes());
    h.extend(dict.as_bytes());
    h.extend(std::iter::repeat_n(b' ', pad));
    h.push(b'\n');
    h
}

/// A write error naming the file.
fn io_at(path: &Path) -> impl Fn(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io { path: path.display().to_string(), source }
}

impl NpyWriter {
    /// Creates the file with `cols` columns.
    pub fn create(path: &Path, cols: usize) -> Result<Self, RunError> {
        let mut out = BufWriter::new(File::create(path).map_err(io_at(path))?);
        out.write_all(&npy_header(0, cols)).map_err(io_at(path))?;
        Ok(NpyWriter { out: Some(out), path: path.to_path_buf(), cols, rows: 0 })
    }
    /// Appends one row (must have `cols` values).
    pub fn push(&mut self, row: &[f64]) -> Result<(), RunError> {
        debug_assert_eq!(row.len(), self.cols);
        let Some(out) = self.out.as_mut() else { return Ok(()) };
        let bytes: Vec<u8> = row.iter().flat_map(|x| x.to_le_bytes()).collect();
        out.write_all(&bytes).map_err(io_at(&self.path))?;
        self.rows += 1;
        Ok(())
    }
    /// Writes the rows so far to the file, then the header that counts them.
    pub fn checkpoint(&mut self) -> Result<(), RunError> {
        let Some(out) = self.out.as_mut() else { return Ok(()) };
        let r: std::io::Result<()> = (|| {
            out.flush()?;
            let f = out.get_mut();
            f.seek(SeekFrom::Start(0))?;
            f.write_all(&npy_header(self.rows, self.cols))?;
            f.seek(SeekFrom::End(0))?;
            Ok(())
        })();
        r.map_err(io_at(&self.path))
    }
    /// Rows pushed so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }
    /// Writes the final header.
    pub fn finish(mut self) -> Result<(), RunError> {
        self.checkpoint()?;
        self.out = None;
        Ok(())
    }
}

impl Drop for NpyWriter {
    /// A writer dropped unfinished (a failed step, a write error elsewhere) leaves its rows counted.
    fn drop(&mut self) {
        let _ = self.checkpoint();
    }
}

/// Per-run tracking shared by `run`, `bench` and `validate`: peak values over the run.
#[derive(Debug, Clone)]
pub struct Tracker {
    pub start: Vec<Vec3>,
    pub max_displacement: Vec<f64>,
    /// Per body, the largest displacement less any fall along gravity (see [`Tracker::max_drift_beyond_fall`]).
    pub max_drift_beyond_fall: Vec<f64>,
    pub max_penetration: f64,
    pub steps: u64,
    /// The unit vector along gravity (zero without gravity).
    down: Vec3,
}

impl Tracker {
    /// Starts tracking from the current state.
    pub fn new(model: &Model, state: &State) -> Self {
        let g = model.gravity;
        Tracker {
            start: state.bodies.iter().map(|b| b.x).collect(),
            max_displacement: vec![0.0; state.bodies.len()],
            max_drift_beyond_fall: vec![0.0; state.bodies.len()],
            max_penetration: 0.0,
            steps: 0,
            down: if g.length() > 0.0 { g / g.length() } else { Vec3::ZERO },
        }
    }
    /// Updates the peaks after a step.
    pub fn update(&mut self, state: &State, stats: &StepStats) {
        for (i, b) in state.bodies.iter().enumerate() {
            let d = b.x - self.start[i];
            self.max_displacement[i] = self.max_displacement[i].max(d.length());
            let fall = d.dot(self.down).max(0.0);
            self.max_drift_beyond_fall[i] = self.max_drift_beyond_fall[i].max((d - fall * self.down).length());
        }
        self.max_penetration = self.max_penetration.max(stats.max_penetration);
        self.steps += 1;
    }
    /// Largest displacement of any dynamic body (`max_drift` in files, its older name, and `max_displacement`).
    pub fn max_drift(&self, model: &Model) -> f64 {
        Self::largest(model, &self.max_displacement)
    }
    /// Largest drift of any dynamic body: its displacement from the start less any fall along gravity, so a
    /// stack settling straight down across its initial gaps does not drift, while sliding, toppling or rising
    /// does.
    pub fn max_drift_beyond_fall(&self, model: &Model) -> f64 {
        Self::largest(model, &self.max_drift_beyond_fall)
    }
    fn largest(model: &Model, per_body: &[f64]) -> f64 {
        model.bodies.iter().zip(per_body).filter(|(b, _)| b.kind == crate::model::BodyKind::Dynamic).fold(0.0, |m, (_, d)| m.max(*d))
    }
}

/// Writes the run's outputs into a folder. `metrics.csv` gets whole lines only (each line one write), and
/// every second of wall time [`Recorder::checkpoint_if_due`] flushes it and rewrites the `.npy` headers.
pub struct Recorder {
    traj: NpyWriter,
    metrics: BufWriter<File>,
    metrics_path: PathBuf,
    line: String,
    row: Vec<f64>,
    frame_every: u64,
    metrics_every: u64,
    contacts: Option<NpyWriter>,
    /// `sleep.npy` (with `[world] sleep`): a row `[step, body, asleep]` each time a body falls asleep (1) or
    /// wakes (0), and each body's state at the last row written.
    sleep: Option<NpyWriter>,
    asleep: Vec<bool>,
    last_checkpoint: std::time::Instant,
}

/// Wall time between checkpoints of a recording, s.
pub const CHECKPOINT_SECONDS: f64 = 1.0;

/// The tessellation resolution of curved shapes in `geometry.json` (segments around a sphere, capsule or
/// cylinder; see [`crate::geometry::surface::body_mesh`]).
pub const VIEW_RESOLUTION: u32 = 24;

/// The bodies' surfaces as `geometry.json`: each distinct shape's triangle mesh once (vertices in the body's
/// reference frame, flat `[x, y, z, …]`, triangles flat `[i, j, k, …]`, outward), and per body its name, kind
/// (`dynamic`, `static`, `kinematic`), shape index and centre of mass in its reference frame.
pub fn geometry_json(model: &Model) -> serde_json::Value {
    let mut index: std::collections::BTreeMap<Vec<u64>, usize> = std::collections::BTreeMap::new();
    let mut shapes = Vec::new();
    let mut bodies = Vec::new();
    for b in &model.bodies {
        let (verts, tris) = crate::geometry::surface::body_mesh(&b.geometry.desc, VIEW_RESOLUTION);
        let key: Vec<u64> = verts
            .iter()
            .flat_map(|v| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
            .chain([u64::MAX])
            .chain(tris.iter().flat_map(|t| t.map(u64::from)))
            .collect();
        let next = shapes.len();
        let shape = *index.entry(key).or_insert(next);
        if shape == next {
            shapes.push(serde_json::json!({
                "vertices": verts.iter().flat_map(|v| [v.x, v.y, v.z]).collect::<Vec<f64>>(),
                "triangles": tris.iter().flat_map(|t| *t).collect::<Vec<u32>>(),
            }));
        }
        let kind = match b.kind {
            crate::model::BodyKind::Dynamic => "dynamic",
            crate::model::BodyKind::Static => "static",
            crate::model::BodyKind::Kinematic => "kinematic",
        };
        let mut body = serde_json::json!({"name": b.name, "kind": kind, "shape": shape, "com": [b.com.x, b.com.y, b.com.z]});
        if let Some(c) = b.color {
            body["color"] = serde_json::json!(c);
        }
        bodies.push(body);
    }
    serde_json::json!({
        "scene": model.name,
        "method": model.method.as_str(),
        "dt": model.dt,
        "resolution": VIEW_RESOLUTION,
        "bodies": bodies,
        "shapes": shapes,
    })
}

/// The header line of `metrics.csv` (its columns, comma-separated, ending in a newline).
pub fn metrics_header(model: &Model, stage_names: &[&str]) -> String {
    let mut h = String::from("step,time,kinetic_energy,potential_energy,contacts,islands,max_penetration,iterations,residual,normal_impulse,friction_impulse,unresolved,resolutions,resolution_seconds");
    for s in stage_names {
        h += &format!(",wall_{s}");
    }
    h += ",wall_total";
    // per haptic proxy: the contact force and torque it receives, then the coupling's
    for k in 0..model.proxies.len() {
        for part in ["", "coupling_"] {
            for c in ["fx", "fy", "fz", "tx", "ty", "tz"] {
                h += &format!(",proxy{k}_{part}{c}");
            }
        }
    }
    // bodies asleep after the step (0 under a method that does not sleep)
    h += ",sleeping";
    // `[world] check_intersections`: the check's three columns (triangle pairs touching or crossing, the
    // smallest distance, pairs properly crossing), last before the joints, actuators and sensors
    if model.check_intersections {
        h += ",intersections,min_distance,crossings";
    }
    // per joint with a coordinate (hinge, prismatic; k in the scene's `[[joint]]` order): q and q̇
    for (k, j) in model.joints.iter().enumerate() {
        if matches!(j.kind, crate::model::JointType::Hinge | crate::model::JointType::Prismatic) {
            h += &format!(",joint{k}_q,joint{k}_qd");
        }
    }
    // per actuator its control and force, then per sensor its values (names with CSV-safe characters)
    for a in &model.actuators {
        let n = column_name(&a.name);
        h += &format!(",ctrl_{n},force_{n}");
    }
    for s in &model.sensors {
        let n = column_name(&s.name);
        match s.kind.dim() {
            1 => h += &format!(",sensor_{n}"),
            d => (0..d).for_each(|i| h += &format!(",sensor_{n}_{i}")),
        }
    }
    h.push('\n');
    h
}

impl Recorder {
    /// Creates `dir` and the files in it; a frame is written every `frame_every` steps (and the first), a
    /// metrics row every `metrics_every` steps, and with `contacts` the contact points of each frame's step
    /// into `contacts.npy`.
    pub fn create(
        dir: &Path,
        model: &Model,
        stage_names: &[&str],
        frame_every: u64,
        metrics_every: u64,
        contacts: bool,
    ) -> Result<Self, RunError> {
        std::fs::create_dir_all(dir).map_err(io_at(dir))?;
        let text = serde_json::to_string(&geometry_json(model)).map_err(|e| io_at(dir)(std::io::Error::other(e)))?;
        let gpath = dir.join("geometry.json");
        std::fs::write(&gpath, text).map_err(io_at(&gpath))?;
        let contacts = if contacts { Some(NpyWriter::create(&dir.join("contacts.npy"), 7)?) } else { None };
        let traj = NpyWriter::create(&dir.join("trajectory.npy"), 1 + 12 * model.bodies.len())?;
        let sleep = if model.sleep.enabled { Some(NpyWriter::create(&dir.join("sleep.npy"), 3)?) } else { None };
        let metrics_path = dir.join("metrics.csv");
        let metrics = BufWriter::new(File::create(&metrics_path).map_err(io_at(&metrics_path))?);
        let h = metrics_header(model, stage_names);
        let mut r = Recorder {
            traj,
            metrics,
            metrics_path,
            line: String::new(),
            row: Vec::new(),
            frame_every: frame_every.max(1),
            metrics_every: metrics_every.max(1),
            contacts,
            sleep,
            asleep: vec![false; model.bodies.len()],
            last_checkpoint: std::time::Instant::now(),
        };
        r.metrics.write_all(h.as_bytes()).map_err(io_at(&r.metrics_path))?;
        Ok(r)
    }

    /// Records a trajectory frame of the state (call once before the first step, then after each).
    pub fn frame(&mut self, model: &Model, state: &State) -> Result<(), RunError> {
        if state.step % self.frame_every != 0 {
            return Ok(());
        }
        self.row.clear();
        self.row.push(state.time);
        for i in 0..model.bodies.len() {
            self.row.extend(state.pose_3x4(model, i));
        }
        self.traj.push(&self.row)
    }

    /// Records the bodies that fell asleep or woke in the step just taken (`sleep.npy`; every step, whatever the
    /// frame rate, so that a reader knows each frame's sleeping bodies).
    pub fn sleep(&mut self, state: &State) -> Result<(), RunError> {
        let Some(w) = self.sleep.as_mut() else { return Ok(()) };
        for (i, was) in self.asleep.iter_mut().enumerate() {
            let now = state.sleep.asleep(i);
            if now != *was {
                w.push(&[state.step as f64, i as f64, if now { 1.0 } else { 0.0 }])?;
                *was = now;
            }
        }
        Ok(())
    }

    /// Records the contact points of a step whose frame is written (with `contacts`): one `contacts.npy` row
    /// per point, `[step, px, py, pz, nx, ny, nz]`.
    pub fn contacts(&mut self, state: &State, stats: &StepStats) -> Result<(), RunError> {
        let Some(w) = self.contacts.as_mut() else { return Ok(()) };
        if state.step % self.frame_every != 0 {
            return Ok(());
        }
        for c in &stats.contact_points {
            w.push(&[state.step as f64, c.point.x, c.point.y, c.point.z, c.normal.x, c.normal.y, c.normal.z])?;
        }
        Ok(())
    }

    /// Records the metrics of a step (every `metrics_every` steps: the others are skipped).
    pub fn metrics(&mut self, world: &crate::world::World, stats: &StepStats, stages: usize) -> Result<(), RunError> {
        let (model, state) = (&world.model, &world.state);
        use std::fmt::Write as _;
        if state.step % self.metrics_every != 0 {
            return Ok(());
        }
        // the line is built whole and written in one call: the buffer then only ever flushes whole lines
        let l = &mut self.line;
        l.clear();
        let _ = write!(
            l,
            "{},{},{:e},{:e},{},{},{:e},{},{:e},{:e},{:e},{},{},{:e}",
            state.step,
            state.time,
            state.kinetic_energy(model),
            state.potential_energy(model),
            stats.contacts,
            stats.islands,
            stats.max_penetration,
            stats.iterations,
            stats.residual,
            stats.normal_impulse,
            stats.friction_impulse,
            stats.unresolved,
            stats.resolutions,
            stats.resolution_seconds
        );
        let mut total = 0.0;
        for s in &stats.stage_seconds[..stages] {
            let _ = write!(l, ",{s:e}");
            total += s;
        }
        let _ = write!(l, ",{total:e}");
        for r in &stats.proxies {
            for v in r.contact_force.iter().chain(&r.contact_torque).chain(&r.coupling_force).chain(&r.coupling_torque) {
                let _ = write!(l, ",{v:e}");
            }
        }
        let _ = write!(l, ",{}", stats.sleeping);
        if model.check_intersections {
            // an empty min_distance: no pair within the check's reach
            let _ = write!(l, ",{},", stats.intersections.unwrap_or(0));
            if let Some(d) = stats.min_distance {
                let _ = write!(l, "{d:e}");
            }
            let _ = write!(l, ",{}", stats.crossings.unwrap_or(0));
        }
        for (_, q, qd) in crate::dynamics::joint::coordinates(model, state) {
            let _ = write!(l, ",{q:e},{qd:e}");
        }
        if !model.actuators.is_empty() {
            for (c, f) in world.ctrl().iter().zip(world.actuator_forces()) {
                let _ = write!(l, ",{c:e},{f:e}");
            }
        }
        for v in world.sensordata() {
            let _ = write!(l, ",{v:e}");
        }
        l.push('\n');
        self.metrics.write_all(l.as_bytes()).map_err(io_at(&self.metrics_path))
    }

    /// Flushes `metrics.csv` and rewrites the `.npy` headers with the rows written so far.
    pub fn checkpoint(&mut self) -> Result<(), RunError> {
        self.metrics.flush().map_err(io_at(&self.metrics_path))?;
        if let Some(c) = self.contacts.as_mut() {
            c.checkpoint()?;
        }
        if let Some(s) = self.sleep.as_mut() {
            s.checkpoint()?;
        }
        self.traj.checkpoint()?;
        self.last_checkpoint = std::time::Instant::now();
        Ok(())
    }

    /// [`Recorder::checkpoint`] when [`CHECKPOINT_SECONDS`] have passed since the last one.
    pub fn checkpoint_if_due(&mut self) -> Result<(), RunError> {
        if self.last_checkpoint.elapsed().as_secs_f64() >= CHECKPOINT_SECONDS {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Flushes everything.
    pub fn finish(mut self) -> Result<(), RunError> {
        self.checkpoint()?;
        if let Some(c) = self.contacts.take() {
            c.finish()?;
        }
        if let Some(s) = self.sleep.take() {
            s.finish()?;
        }
        Ok(())
    }
}

/// The run summary (`summary.json`).
pub fn summary_json(model: &Model, state: &State, tracker: &Tracker, wall_seconds: f64) -> serde_json::Value {
    let bodies: Vec<serde_json::Value> = model
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let s = &state.bodies[i];
            let p = state.origin(model, i);
            serde_json::json!({
                "name": b.name,
                "position": [p.x, p.y, p.z],
                "rotation": [s.q.w, s.q.x, s.q.y, s.q.z],
                "velocity": [s.v.x, s.v.y, s.v.z],
                "angular_velocity": [s.w.x, s.w.y, s.w.z],
                "max_displacement": tracker.max_displacement[i],
                "max_drift_beyond_fall": tracker.max_drift_beyond_fall[i],
            })
        })
        .collect();
    serde_json::json!({
        "scene": model.name,
        "method": model.method.as_str(),
        "dt": model.dt,
        // false when the run was stopped (a signal, the caller's cancellation) before its last step
        "completed": true,
        "steps": tracker.steps,
        "time": state.time,
        "wall_seconds": wall_seconds,
        "max_penetration": tracker.max_penetration,
        // the older name of the same value (the largest displacement of a body), kept for existing readers
        "max_drift": tracker.max_drift(model),
        "max_displacement": tracker.max_drift(model),
        // the displacement less any fall along gravity: what a stack that stands does not do
        "max_drift_beyond_fall": tracker.max_drift_beyond_fall(model),
        "bodies": bodies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_json_holds_each_shape_once() {
        let path = crate::scene::find_scene("pyramid20").unwrap();
        let model = crate::scene::load(&path, &[]).unwrap();
        let g = geometry_json(&model);
        let bodies = g["bodies"].as_array().unwrap();
        assert_eq!(bodies.len(), 211);
        // the ground's box and the 210 cubes' box
        assert_eq!(g["shapes"].as_array().unwrap().len(), 2);
        assert_eq!(bodies[0]["kind"], "static");
        assert!(bodies[1..].iter().all(|b| b["shape"] == 1 && b["kind"] == "dynamic"));
        let cube = &g["shapes"][1];
        assert_eq!(cube["vertices"].as_array().unwrap().len(), 8 * 3);
        assert_eq!(cube["triangles"].as_array().unwrap().len(), 12 * 3);
        let max = cube["vertices"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap().abs()).fold(0.0, f64::max);
        assert_eq!(max, 0.25);
    }

    #[test]
    fn npy_header_is_aligned_and_rewritten_with_the_row_count() {
        let dir = std::env::temp_dir().join(format!("cairn-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.npy");
        let mut w = NpyWriter::create(&path, 3).unwrap();
        w.push(&[1.0, 2.0, 3.0]).unwrap();
        w.push(&[4.0, 5.0, 6.0]).unwrap();
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), NPY_HEADER_LEN + 6 * 8);
        let header = String::from_utf8_lossy(&bytes[10..NPY_HEADER_LEN]);
        assert!(header.contains("'shape': (2, 3)"), "{header}");
        assert_eq!(bytes[NPY_HEADER_LEN - 1], b'\n');
        assert_eq!(f64::from_le_bytes(bytes[NPY_HEADER_LEN + 40..NPY_HEADER_LEN + 48].try_into().unwrap()), 6.0);
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A name as a CSV column: characters other than letters, digits, `_`, `-`, `.` and `/` become `_`.
fn column_name(name: &str) -> String {
    name.chars().map(|c| if c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/') { c } else { '_' }).collect()
}
