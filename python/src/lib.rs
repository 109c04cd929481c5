//! cairn from Python: the extension module `cairn._cairn`, re-exported by the package `cairn`
//! (`cairn/__init__.py`, stubs in `cairn/__init__.pyi`).
//!
//! - `world.rs`: the `World` class (stepping with the interpreter's lock released, numpy state, setters);
//!   `world_robot.rs`: its generalised coordinates, mass properties, contact wrenches and pickling.
//! - `batch.rs`: `Batch`, n worlds stepped together on rayon's threads; `readout.rs`: the quantities both read.
//! - `recipe.rs`: the scene and options a world was made from (what a pickle carries).
//! - `snapshot.rs`: the picklable `Snapshot`.
//! - `convert.rs`: Python values to scene overrides, step statistics to a dict.
//! - here: the exceptions, and the module functions `run`, `validate` and `scenes`.
//!
//! Every engine error becomes a Python exception carrying the message the command line prints:
//! `SceneError` (bad input: a scene, an override, a body or proxy, a snapshot that does not fit) and
//! `SimulationError` (a step failed), both subclasses of `CairnError`, which also covers output files that
//! cannot be written.

mod batch;
mod convert;
mod readout;
mod recipe;
mod snapshot;
mod world;
mod world_robot;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;

pyo3::create_exception!(cairn, CairnError, PyException, "Base class of every error cairn raises.");
pyo3::create_exception!(
    cairn,
    SceneError,
    CairnError,
    "Bad input: a scene file or text, an override, a body or proxy that does not exist, a value that is not \
     finite, a snapshot of another scene or method. The message names the file, key or body."
);
pyo3::create_exception!(
    cairn,
    SimulationError,
    CairnError,
    "A step failed: a NaN or infinity (the body, step and stage named) or a solver failure."
);

/// `InputError` → `SceneError` (the message without the trailing newline a TOML error ends with).
pub(crate) fn scene_err(e: cairn::InputError) -> PyErr {
    SceneError::new_err(e.to_string().trim_end().to_string())
}

/// `SimError` → `SimulationError`.
pub(crate) fn sim_err(e: cairn::SimError) -> PyErr {
    SimulationError::new_err(e.to_string())
}

/// `RunError` → `SimulationError` (a step failed) or `CairnError` (an output file could not be written, or
/// the output would be over the limit `output_mib`).
pub(crate) fn run_err(e: cairn::RunError) -> PyErr {
    match e {
        cairn::RunError::Sim(s) => sim_err(s),
        e @ (cairn::RunError::Io { .. } | cairn::RunError::Limit(_)) => CairnError::new_err(e.to_string()),
    }
}

/// The scene path of `scene`: a file, or the name of a bundled scene; the error is the command line's.
pub(crate) fn scene_path(scene: &str) -> PyResult<PathBuf> {
    cairn::scene::find_scene(scene)
        .ok_or_else(|| SceneError::new_err(format!("no scene file `{scene}` and no bundled scene of that name (see `cairn scenes`)")))
}

/// Loads a scene file (or bundled name) with the options of `convert::load_options`. The loader's notes become `UserWarning`s, as `cairn run` prints them ("PATH: note").
pub(crate) fn load_model(py: Python<'_>, scene: &str, opts: &cairn::scene::LoadOptions) -> PyResult<cairn::Model> {
    let path = scene_path(scene)?;
    let model = cairn::scene::load_with(&path, opts).map_err(scene_err)?;
    world::warn_notes(py, &path.display().to_string(), &model)?;
    Ok(model)
}

/// Runs a scene like `cairn run` and returns its summary (the `summary.json` object) as a dict.
///
/// `scene` is a `.toml` or `.scn` file or the name of a bundled scene (see `scenes()`). `method`, `dt` and
/// `duration` override the scene's `[world]` values; `overrides` maps dotted keys to values
/// (`{"solver.lcp.iterations": 50}`, like `--set`). With `out`, the folder receives `trajectory.npy`,
/// `metrics.csv` and `summary.json`; `frame_every` sets the trajectory's frame spacing in steps (default:
/// about 60 frames per simulated second). The interpreter's lock is released while it runs.
///
/// Raises `SceneError` for a bad scene or override, `SimulationError` when a step fails, `CairnError` when an
/// output file cannot be written.
#[pyfunction]
#[pyo3(signature = (scene, *, method=None, dt=None, duration=None, out=None, overrides=None, frame_every=None, check_intersections=false))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    scene: PathBuf,
    method: Option<&str>,
    dt: Option<f64>,
    duration: Option<f64>,
    out: Option<PathBuf>,
    overrides: Option<&Bound<'py, PyDict>>,
    frame_every: Option<u64>,
    check_intersections: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let scene = scene.to_string_lossy().into_owned();
    if frame_every == Some(0) {
        return Err(SceneError::new_err("frame_every must be at least 1, got 0"));
    }
    let opts = convert::load_options(overrides, check_intersections, method, dt, duration)?;
    let model = load_model(py, &scene, &opts)?;
    let mut world = cairn::World::new(model).map_err(scene_err)?;
    let options = cairn::run::RunOptions { steps: None, out, frame_every, ..Default::default() };
    let report = py.detach(|| cairn::run::run(&mut world, &options, &mut |_, _| {})).map_err(run_err)?;
    convert::json_to_py(py, &report.summary)
}

/// Runs the validation experiments of `method` (all of them, or those named in `only`) and returns the
/// rows of `cairn validate`'s table: dicts with `experiment`, `expected`, `measured`, `tolerance` and
/// `pass`. A failing row is returned, not raised; an unknown method or experiment raises `SceneError`.
/// `overrides` apply to every validation scene. The interpreter's lock is released while it runs.
#[pyfunction]
#[pyo3(signature = (method="lcp", *, only=None, overrides=None))]
fn validate<'py>(
    py: Python<'py>,
    method: &str,
    only: Option<Vec<String>>,
    overrides: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let key = cairn::model::MethodKey::parse(method).map_err(|e| SceneError::new_err(format!("validate: {e}")))?;
    let sets = convert::load_options(overrides, false, None, None, None)?.sets;
    let all = cairn_validate::experiments(key);
    let names: Vec<String> = match only {
        Some(only) => {
            if let Some(bad) = only.iter().find(|n| !all.contains(&n.as_str())) {
                return Err(SceneError::new_err(format!(
                    "validate: no experiment `{bad}` for method `{method}`: allowed are {}",
                    all.iter().map(|e| format!("`{e}`")).collect::<Vec<_>>().join(", ")
                )));
            }
            only
        }
        None => all.iter().map(|s| s.to_string()).collect(),
    };
    let rows = py.detach(|| names.iter().flat_map(|n| cairn_validate::run_experiment(n, key, &sets)).collect::<Vec<_>>());
    let list = PyList::empty(py);
    for r in rows {
        let d = PyDict::new(py);
        d.set_item("experiment", r.experiment)?;
        d.set_item("expected", r.expected)?;
        d.set_item("measured", r.measured)?;
        d.set_item("tolerance", r.tolerance)?;
        d.set_item("pass", r.pass)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The bundled scenes, as `cairn scenes` lists them: a dict from name (file stem, usable wherever a scene
/// is asked for) to its one-line description (the file's first comment line, without its leading `NAME:`).
#[pyfunction]
fn scenes(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for p in cairn::scene::list_scenes() {
        std::fs::metadata(&p).map_err(|e| CairnError::new_err(format!("cannot read scene file {}: {e}", p.display())))?;
        let desc = cairn::scene::description(&p);
        if let Some(stem) = p.file_stem().and_then(|s| s.to_str()) {
            d.set_item(stem, desc)?;
        }
    }
    Ok(d)
}

/// The folder of the bundled scenes (`$CAIRN_SCENES`, else the package's own copy, else `./scenes`, else the
/// source tree's).
#[pyfunction]
fn scenes_dir() -> PathBuf {
    cairn::scene::scenes_dir()
}

/// Names the bundled scenes folder (`cairn/__init__.py` passes the package's `scenes/`); None undoes it.
#[pyfunction]
fn _set_scenes_dir(path: Option<PathBuf>) {
    cairn::scene::set_scenes_dir(path)
}

/// The extension module.
#[pymodule]
#[pyo3(name = "_cairn")]
fn cairn_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CairnError", py.get_type::<CairnError>())?;
    m.add("SceneError", py.get_type::<SceneError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add_class::<world::World>()?;
    m.add_class::<snapshot::Snapshot>()?;
    m.add_class::<batch::Batch>()?;
    m.add_function(wrap_pyfunction!(world_robot::_world_from_pickle, m)?)?;
    m.add_function(wrap_pyfunction!(batch::_batch_from_pickle, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(scenes, m)?)?;
    m.add_function(wrap_pyfunction!(scenes_dir, m)?)?;
    m.add_function(wrap_pyfunction!(_set_scenes_dir, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("METHODS", cairn::model::MethodKey::ALL.iter().map(|k| k.as_str()).collect::<Vec<_>>())?;
    Ok(())
}
