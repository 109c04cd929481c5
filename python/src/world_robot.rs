//! `World`'s generalised coordinates (MuJoCo's qpos and qvel, read and set by forward kinematics), the bodies'
//! mass properties and contact wrenches, and pickling (the recipe plus a snapshot).

use crate::readout::{self, Reader};
use crate::recipe::Recipe;
use crate::snapshot::Snapshot;
use crate::world::World;
use crate::{scene_err, SceneError};
use numpy::PyArrayDyn;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

impl World {
    fn read<'py>(&self, py: Python<'py>, r: Reader) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        readout::one(py, &self.lock(), r)
    }
}

#[pymethods]
impl World {
    /// The number of generalised coordinates (`len(qpos())`): 7 per free root body, 1 per hinge or slide joint.
    #[getter]
    fn nq(&self) -> usize {
        self.lock().layout().nq()
    }

    /// The number of generalised velocities (`len(qvel())`): 6 per free root body, 1 per hinge or slide joint.
    #[getter]
    fn nv(&self) -> usize {
        self.lock().layout().nv()
    }

    /// The generalised coordinates in MuJoCo's layout, shape (nq,): for each free root body (a dynamic body
    /// that no joint hangs on a parent, such as an MJCF body with a free joint), in body order, the position of
    /// its reference frame and its quaternion [w, x, y, z]; then every hinge and slide joint's coordinate, in
    /// joint order (an MJCF joint's `ref` at the file's pose). Ball and fixed joints have no entry.
    fn qpos<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::QPOS)
    }

    /// The generalised velocities, shape (nv,): for each free root body its origin's velocity (world axes) and
    /// its angular velocity in its own frame (as a MuJoCo free joint); then every joint's rate.
    fn qvel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::QVEL)
    }

    /// The names of qpos's entries (`torso:x` … `torso:qz`, then the joints' names).
    #[getter]
    fn qpos_names(&self) -> Vec<String> {
        let w = self.lock();
        w.layout().qpos_names(&w.model)
    }

    /// The names of qvel's entries (`torso:vx` … `torso:wz`, then the joints' names).
    #[getter]
    fn qvel_names(&self) -> Vec<String> {
        let w = self.lock();
        w.layout().qvel_names(&w.model)
    }

    /// Sets every body's pose from generalised coordinates (forward kinematics, like writing MuJoCo's
    /// `data.qpos` and calling `mj_forward`); the generalised velocities are kept. Raises `SceneError` naming
    /// the entry when the length is not nq or a value is not finite.
    fn set_qpos(&mut self, qpos: Vec<f64>) -> PyResult<()> {
        self.get_mut().set_qpos(&qpos).map_err(scene_err)
    }

    /// Sets every body's velocity from generalised velocities at the poses now.
    fn set_qvel(&mut self, qvel: Vec<f64>) -> PyResult<()> {
        self.get_mut().set_qvel(&qvel).map_err(scene_err)
    }

    /// Each body's mass, kg, shape (bodies,) (0 for static bodies).
    fn body_masses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::BODY_MASSES)
    }

    /// Each body's inertia tensor about its centre of mass in world axes now, shape (bodies, 3, 3), kg·m².
    fn body_inertias<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::BODY_INERTIAS)
    }

    /// Each body's parent in the joints' tree (-1: the world, or none), in body order.
    #[getter]
    fn body_parents(&self) -> Vec<i64> {
        let w = self.lock();
        cairn::dynamics::tree::parents(&w.model).into_iter().map(|p| p.map_or(-1, |p| p as i64)).collect()
    }

    /// Each actuator's control range [lo, hi] (±inf where unlimited), shape (actuators, 2).
    fn ctrl_ranges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let w = self.lock();
        let v = w.model.actuators.iter().flat_map(|a| a.ctrl_range.unwrap_or([f64::NEG_INFINITY, f64::INFINITY])).collect();
        readout::array(py, v, vec![w.model.actuators.len(), 2])
    }

    /// The contact force and torque each body received over the last step, shape (bodies, 6): [torque about
    /// its centre of mass, force], world axes (N·m, N); zero before the first step.
    fn contact_wrenches<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.read(py, readout::CONTACT_WRENCHES)
    }

    /// Pickles as the scene it was made from (a file's absolute path or bundled name, or the scene text), its
    /// options and a snapshot of its state: unpickled, it steps on bit for bit. A world from a file needs that
    /// file where it is unpickled.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let json = serde_json::to_string(&this.lock().snapshot()).map_err(|e| crate::CairnError::new_err(format!("pickle: {e}")))?;
        let f = py.import("cairn._cairn")?.getattr("_world_from_pickle")?;
        (f, (this.recipe.to_pickled(), json)).into_pyobject(py)
    }
}

/// A world from its pickle: the recipe loaded, the snapshot restored.
#[pyfunction]
pub fn _world_from_pickle(py: Python<'_>, recipe: Bound<'_, PyAny>, snapshot: &str) -> PyResult<World> {
    let recipe = Recipe::from_pickled(recipe.extract()?)?;
    let snapshot: cairn::world::Snapshot =
        serde_json::from_str(snapshot).map_err(|e| SceneError::new_err(format!("not a pickled cairn world: {e}")))?;
    let mut world = cairn::World::new(recipe.load(py)?).map_err(scene_err)?;
    world.restore(&snapshot).map_err(scene_err)?;
    let mut w = World::wrap(world, recipe);
    w.pull_ctrl(py)?;
    Ok(w)
}

/// The `Snapshot` of a world (for `Batch`).
pub fn snapshot_of(w: &cairn::World) -> Snapshot {
    Snapshot { inner: w.snapshot() }
}
