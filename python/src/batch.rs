//! `Batch`: n copies of a world stepped together in Rust, in parallel on rayon's threads with the interpreter's
//! lock released, their controls in and their state out as (n, …) arrays: no Python call per world.
//! Each world steps on its own, so the results are bit-identical whatever the thread count.

use crate::readout::{self, Reader};
use crate::recipe::Recipe;
use crate::snapshot::Snapshot;
use crate::world::World;
use crate::{scene_err, SceneError, SimulationError};
use numpy::{PyArrayDyn, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rayon::prelude::*;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// n worlds of one scene and method, stepped together (see the module's documentation).
#[pyclass(module = "cairn")]
pub struct Batch {
    /// The worlds (a mutex makes the class shareable between threads; `&mut self` methods reach them without
    /// locking).
    worlds: Mutex<Vec<cairn::World>>,
    /// The state `reset` brings a world back to.
    start: cairn::world::Snapshot,
    recipe: Recipe,
}

impl Batch {
    fn ws(&self) -> MutexGuard<'_, Vec<cairn::World>> {
        self.worlds.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn ws_mut(&mut self) -> &mut Vec<cairn::World> {
        self.worlds.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    fn indices(&self, indices: Option<Vec<i64>>) -> PyResult<Vec<usize>> {
        let n = self.ws().len();
        match indices {
            None => Ok((0..n).collect()),
            Some(v) => v
                .into_iter()
                .map(|i| {
                    usize::try_from(i)
                        .ok()
                        .filter(|&i| i < n)
                        .ok_or_else(|| PyValueError::new_err(format!("world index {i} out of range (the batch has {n} worlds)")))
                })
                .collect(),
        }
    }

    fn read<'py>(&self, py: Python<'py>, r: Reader) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        readout::stacked(py, &self.ws(), r)
    }

    /// Writes row k of `rows` (k-th of `indices`) with `set`, checking the array's shape.
    fn set_rows(
        &mut self,
        what: &str,
        rows: PyReadonlyArray2<'_, f64>,
        indices: Option<Vec<i64>>,
        width: usize,
        set: impl Fn(&mut cairn::World, &[f64]) -> Result<(), cairn::InputError>,
    ) -> PyResult<()> {
        let idx = self.indices(indices)?;
        let a = rows.as_array();
        if a.shape() != [idx.len(), width] {
            return Err(PyValueError::new_err(format!("{what}: expected an array of shape ({}, {width}), got {:?}", idx.len(), a.shape())));
        }
        for (k, &i) in idx.iter().enumerate() {
            let row: Vec<f64> = a.row(k).to_vec();
            set(&mut self.ws_mut()[i], &row).map_err(|e| SceneError::new_err(format!("world {i}: {}", e.to_string().trim_end())))?;
        }
        Ok(())
    }
}

#[pymethods]
impl Batch {
    /// `n` copies of a world: `scene` is a scene file or bundled name (loaded once, with `method`, `dt` and
    /// `overrides` as `World.from_file` takes them) or a `World` (copied at its current state; the other
    /// arguments must then be left out). Raises `SceneError` for a bad scene, `ValueError` for n < 1.
    #[new]
    #[pyo3(signature = (scene, n, method=None, *, dt=None, overrides=None))]
    fn new(
        py: Python<'_>,
        scene: &Bound<'_, PyAny>,
        n: i64,
        method: Option<&str>,
        dt: Option<f64>,
        overrides: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<Self> {
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| PyValueError::new_err(format!("Batch: n must be at least 1, got {n}")))?;
        let (model, start, recipe) = if let Ok(w) = scene.cast::<World>() {
            if method.is_some() || dt.is_some() || overrides.is_some() {
                return Err(PyValueError::new_err("Batch: method, dt and overrides come from the World given; leave them out"));
            }
            let w = w.borrow();
            let inner = w.lock();
            (inner.model.clone(), Some(inner.snapshot()), w.recipe.clone())
        } else {
            let scene: std::path::PathBuf = scene.extract()?;
            let recipe = Recipe::file(&scene.to_string_lossy(), crate::convert::load_options(overrides, false, method, dt, None)?);
            (recipe.load(py)?, None, recipe)
        };
        Self::build(py, model, start, recipe, n)
    }

    /// The number of worlds.
    fn __len__(&self) -> usize {
        self.ws().len()
    }

    /// Advances every world `n` steps, in parallel (the interpreter's lock released). `ctrl`, an (N, nu) array,
    /// first replaces every world's controls (None keeps them). Raises `SimulationError` naming the first world
    /// whose step failed (the others have stepped), `ValueError` for a wrong shape or n < 0.
    #[pyo3(signature = (ctrl=None, n=1))]
    fn step(&mut self, py: Python<'_>, ctrl: Option<PyReadonlyArray2<'_, f64>>, n: i64) -> PyResult<()> {
        let n = u64::try_from(n).map_err(|_| PyValueError::new_err(format!("step: n must be a non-negative number of steps, got {n}")))?;
        if let Some(c) = ctrl {
            let nu = self.ws()[0].model.actuators.len();
            self.set_rows("ctrl", c, None, nu, |w, row| w.set_ctrl(row))?;
        }
        let worlds = self.ws_mut();
        let failed = py.detach(|| {
            let results: Vec<Result<(), cairn::SimError>> = worlds
                .par_iter_mut()
                .map(|w| {
                    for _ in 0..n {
                        w.step()?;
                    }
                    Ok(())
                })
                .collect();
            results.into_iter().enumerate().find_map(|(i, r)| r.err().map(|e| (i, e)))
        });
        match failed {
            Some((i, e)) => Err(SimulationError::new_err(format!("world {i}: {e}"))),
            None => Ok(()),
        }
    }

    /// Brings the worlds at `indices` (all when None) back to the batch's start state.
    #[pyo3(signature = (indices=None))]
    fn reset(&mut self, indices: Option<Vec<i64>>) -> PyResult<()> {
        for i in self.indices(indices)? {
            let start = self.start.clone();
            self.ws_mut()[i].restore(&start).map_err(scene_err)?;
        }
        Ok(())
    }

    /// World `i`'s state as a `Snapshot`.
    fn snapshot(&self, i: i64) -> PyResult<Snapshot> {
        let i = self.indices(Some(vec![i]))?[0];
        Ok(crate::world_robot::snapshot_of(&self.ws()[i]))
    }

    /// Restores `snapshot` into the worlds at `indices` (all when None).
    #[pyo3(signature = (snapshot, indices=None))]
    fn restore(&mut self, snapshot: &Bound<'_, Snapshot>, indices: Option<Vec<i64>>) -> PyResult<()> {
        for i in self.indices(indices)? {
            self.ws_mut()[i].restore(&snapshot.get().inner).map_err(scene_err)?;
        }
        Ok(())
    }

    /// Sets the generalised coordinates of the worlds at `indices` (all when None) from a (len(indices), nq)
    /// array, as `World.set_qpos`.
    #[pyo3(signature = (qpos, indices=None))]
    fn set_qpos(&mut self, qpos: PyReadonlyArray2<'_, f64>, indices: Option<Vec<i64>>) -> PyResult<()> {
        let nq = self.ws()[0].layout().nq();
        self.set_rows("set_qpos", qpos, indices, nq, |w, row| w.set_qpos(row))
    }

    /// Sets the generalised velocities of the worlds at `indices` (all when None), as `World.set_qvel`.
    #[pyo3(signature = (qvel, indices=None))]
    fn set_qvel(&mut self, qvel: PyReadonlyArray2<'_, f64>, indices: Option<Vec<i64>>) -> PyResult<()> {
        let nv = self.ws()[0].layout().nv();
        self.set_rows("set_qvel", qvel, indices, nv, |w, row| w.set_qvel(row))
    }

    /// Every world's controls, shape (N, nu) (a copy: assign the property, or pass `ctrl` to `step`, to change
    /// them).
    #[getter]
    fn get_ctrl<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::CTRL)
    }

    #[setter]
    fn set_ctrl(&mut self, ctrl: PyReadonlyArray2<'_, f64>) -> PyResult<()> {
        let nu = self.ws()[0].model.actuators.len();
        self.set_rows("ctrl", ctrl, None, nu, |w, row| w.set_ctrl(row))
    }

    /// (N, nq) generalised coordinates (`World.qpos`).
    fn qpos<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::QPOS)
    }

    /// (N, nv) generalised velocities (`World.qvel`).
    fn qvel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::QVEL)
    }

    /// (N, nsensordata) sensor readings of the last step.
    fn sensordata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::SENSORDATA)
    }

    /// (N,) simulated time of each world, s.
    fn time<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::TIME)
    }

    /// (N, nu) actuator forces of the last step.
    fn actuator_forces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::ACTUATOR_FORCES)
    }

    /// (N, na) actuator activations.
    fn act<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::ACT)
    }

    /// (N, bodies, 3) reference-frame origins.
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::POSITIONS)
    }

    /// (N, bodies, 4) orientations [w, x, y, z].
    fn quaternions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::QUATERNIONS)
    }

    /// (N, bodies, 3) centres of mass.
    fn centers_of_mass<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::CENTERS_OF_MASS)
    }

    /// (N, bodies, 3) centre-of-mass velocities, world frame.
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::VELOCITIES)
    }

    /// (N, bodies, 3) angular velocities, world frame.
    fn angular_velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::ANGULAR_VELOCITIES)
    }

    /// (N, bodies, 3, 3) inertia tensors about the centres of mass, world axes.
    fn body_inertias<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::BODY_INERTIAS)
    }

    /// (N, bodies, 6) contact [torque about the centre of mass, force] of the last step, world axes.
    fn contact_wrenches<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::CONTACT_WRENCHES)
    }

    /// (bodies,) masses, the same in every world.
    fn body_masses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        readout::one(py, &self.ws()[0], readout::BODY_MASSES)
    }

    /// A `World` holding a copy of world `i` (its state; stepping it leaves the batch alone).
    fn world(&self, py: Python<'_>, i: i64) -> PyResult<World> {
        let i = self.indices(Some(vec![i]))?[0];
        let ws = self.ws();
        let mut w = cairn::World::new(ws[i].model.clone()).map_err(scene_err)?;
        w.restore(&ws[i].snapshot()).map_err(scene_err)?;
        drop(ws);
        let mut out = World::wrap(w, self.recipe.clone());
        out.pull_ctrl(py)?;
        Ok(out)
    }

    #[getter]
    fn nq(&self) -> usize {
        self.ws()[0].layout().nq()
    }

    #[getter]
    fn nv(&self) -> usize {
        self.ws()[0].layout().nv()
    }

    #[getter]
    fn nu(&self) -> usize {
        self.ws()[0].model.actuators.len()
    }

    #[getter]
    fn nsensordata(&self) -> usize {
        self.ws()[0].sensordata().len()
    }

    #[getter]
    fn dt(&self) -> f64 {
        self.ws()[0].model.dt
    }

    #[getter]
    fn method(&self) -> &'static str {
        self.ws()[0].model.method.as_str()
    }

    #[getter]
    fn body_names(&self) -> Vec<String> {
        self.ws()[0].model.bodies.iter().map(|b| b.name.clone()).collect()
    }

    #[getter]
    fn joint_names(&self) -> Vec<String> {
        let ws = self.ws();
        let m = &ws[0].model;
        (0..m.joints.len()).map(|k| m.joint_name(k)).collect()
    }

    #[getter]
    fn actuator_names(&self) -> Vec<String> {
        self.ws()[0].actuator_names().into_iter().map(str::to_string).collect()
    }

    #[getter]
    fn sensor_names(&self) -> Vec<String> {
        self.ws()[0].sensor_names().into_iter().map(str::to_string).collect()
    }

    #[getter]
    fn qpos_names(&self) -> Vec<String> {
        let ws = self.ws();
        ws[0].layout().qpos_names(&ws[0].model)
    }

    #[getter]
    fn qvel_names(&self) -> Vec<String> {
        let ws = self.ws();
        ws[0].layout().qvel_names(&ws[0].model)
    }

    /// Pickles as the scene's recipe, the start state and every world's snapshot.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let json = |s: &cairn::world::Snapshot| serde_json::to_string(s).map_err(|e| crate::CairnError::new_err(format!("pickle: {e}")));
        let states = this.ws().iter().map(|w| json(&w.snapshot())).collect::<PyResult<Vec<_>>>()?;
        let f = py.import("cairn._cairn")?.getattr("_batch_from_pickle")?;
        (f, (this.recipe.to_pickled(), json(&this.start)?, states)).into_pyobject(py)
    }

    fn __repr__(&self) -> String {
        let ws = self.ws();
        let m = &ws[0].model;
        format!("Batch(scene={:?}, method={:?}, n={}, bodies={}, dt={})", m.name, m.method.as_str(), self.ws().len(), m.bodies.len(), m.dt)
    }
}

impl Batch {
    /// n worlds of `model`, each at `start` (the model's initial state when None).
    fn build(py: Python<'_>, model: cairn::Model, start: Option<cairn::world::Snapshot>, recipe: Recipe, n: usize) -> PyResult<Self> {
        let first = cairn::World::new(model.clone()).map_err(scene_err)?;
        let start = start.unwrap_or_else(|| first.snapshot());
        let worlds = py.detach(|| {
            (0..n)
                .into_par_iter()
                .map(|_| {
                    let mut w = cairn::World::new(model.clone())?;
                    w.restore(&start)?;
                    Ok(w)
                })
                .collect::<Result<Vec<_>, cairn::InputError>>()
        });
        Ok(Batch { worlds: Mutex::new(worlds.map_err(scene_err)?), start, recipe })
    }
}

/// A batch from its pickle: the recipe loaded once, the start state and each world's snapshot restored.
#[pyfunction]
pub fn _batch_from_pickle(py: Python<'_>, recipe: Bound<'_, PyAny>, start: &str, states: Vec<String>) -> PyResult<Batch> {
    let recipe = Recipe::from_pickled(recipe.extract()?)?;
    let parse = |s: &str| -> PyResult<cairn::world::Snapshot> {
        serde_json::from_str(s).map_err(|e| SceneError::new_err(format!("not a pickled cairn batch: {e}")))
    };
    let mut b = Batch::build(py, recipe.load(py)?, Some(parse(start)?), recipe, states.len().max(1))?;
    for (w, s) in b.ws_mut().iter_mut().zip(&states) {
        w.restore(&parse(s)?).map_err(scene_err)?;
    }
    Ok(b)
}
