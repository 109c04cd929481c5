//! The `World` class: a scene loaded under a method, stepped with the interpreter's lock released, its state
//! read as numpy arrays and set body by body.

use crate::convert::{filled, load_options, numbers, quat, stats_dict, vec3};
use crate::recipe::Recipe;
use crate::snapshot::Snapshot;
use crate::{scene_err, sim_err, SceneError};
use cairn::math::{Quat, Vec3};
use cairn::method::StepStats;
use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Issues a Python `UserWarning` per kind of the loader's notes (what a file has that cairn cannot use), as
/// `cairn run` prints them; `World.notes` has every note.
pub fn warn_notes(py: Python<'_>, scene: &str, model: &cairn::Model) -> PyResult<()> {
    for line in cairn::scene::notes::display_lines(scene, &model.notes, "World.notes") {
        let msg = CString::new(line.replace('\0', " "))?;
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &msg, 1)?;
    }
    Ok(())
}

/// A running simulation: a scene loaded under one contact method, its state, and the method's carried data.
///
/// Poses are of each body's reference frame (the frame the scene's shapes are given in); velocities are of
/// the centre of mass, world frame; quaternions are `[w, x, y, z]` as in scene files. Body order is the
/// scene's (`body_names`).
#[pyclass(module = "cairn")]
pub struct World {
    /// `cairn::World` is `Send` but not `Sync`; the mutex makes this class shareable between threads (a
    /// stepping thread holds it mutably, so it is never contended while the interpreter's lock is held).
    world: Mutex<cairn::World>,
    stages: &'static [&'static str],
    last: Option<StepStats>,
    /// `World.ctrl`: one numpy array for the world's life, written by the user and read before each step.
    ctrl: Option<Py<PyArray1<f64>>>,
    /// What `ctrl` held when last synced from the world: a step passes the array on only when it differs, so
    /// reading `ctrl` never stops a scene's control schedules.
    ctrl_synced: Vec<f64>,
    /// The scene and options it was made from (what a pickle carries beside a snapshot).
    pub(crate) recipe: Recipe,
}

impl World {
    pub(crate) fn wrap(world: cairn::World, recipe: Recipe) -> Self {
        let stages = world.stage_names();
        World { world: Mutex::new(world), stages, last: None, ctrl: None, ctrl_synced: Vec::new(), recipe }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, cairn::World> {
        self.world.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn get_mut(&mut self) -> &mut cairn::World {
        self.world.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// The index of `body` (an index or a name) in the scene's order.
    fn body(w: &cairn::World, body: &Bound<'_, PyAny>) -> PyResult<usize> {
        let m = &w.model;
        if let Ok(s) = body.cast::<PyString>() {
            let name = s.to_cow()?;
            return m
                .body_index(&name)
                .ok_or_else(|| SceneError::new_err(format!("{}: no body named `{name}` (see World.body_names)", m.name)));
        }
        let i: i64 = body.extract()?;
        usize::try_from(i)
            .map_err(|_| SceneError::new_err(format!("{}: body #{i} does not exist (the scene has {} bodies)", m.name, m.bodies.len())))
    }

    /// Pushes the controls, takes `n` steps without the interpreter's lock, keeps the last step's statistics and
    /// pulls the controls back (the body of `step`).
    fn step_n(&mut self, py: Python<'_>, n: u64) -> PyResult<()> {
        self.push_ctrl(py)?;
        let world = self.world.get_mut().unwrap_or_else(PoisonError::into_inner);
        let mut last = None;
        let r = py.detach(|| {
            for _ in 0..n {
                last = Some(world.step()?);
            }
            Ok(())
        });
        if last.is_some() {
            self.last = last;
        }
        self.pull_ctrl(py)?;
        r.map_err(sim_err)
    }

    /// Passes `ctrl` on to the world when the user changed it since the last sync.
    fn push_ctrl(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(a) = &self.ctrl else { return Ok(()) };
        let now: Vec<f64> = a.bind(py).to_vec()?;
        if now.len() != self.ctrl_synced.len() || now.iter().zip(&self.ctrl_synced).any(|(a, b)| a.to_bits() != b.to_bits()) {
            self.get_mut().set_ctrl(&now).map_err(|e| PyValueError::new_err(e.to_string()))?;
        }
        Ok(())
    }

    /// Writes the world's controls into `ctrl` (a schedule or a reset may have moved them).
    pub(crate) fn pull_ctrl(&mut self, py: Python<'_>) -> PyResult<()> {
        let c = self.lock().ctrl();
        if let Some(a) = &self.ctrl {
            let a = a.bind(py);
            let mut rw = a.readwrite();
            let v = rw.as_slice_mut().map_err(|e| PyValueError::new_err(format!("ctrl: {e}")))?;
            v.copy_from_slice(&c);
        }
        self.ctrl_synced = c;
        Ok(())
    }

    /// One value per joint from its (q, q̇), NaN where the joint has no coordinate.
    fn joint_values<'py>(&self, py: Python<'py>, pick: impl Fn(f64, f64) -> f64) -> Bound<'py, PyArray1<f64>> {
        let w = self.lock();
        let mut out = vec![f64::NAN; w.model.joints.len()];
        for (k, q, qd) in cairn::dynamics::joint::coordinates(&w.model, &w.state) {
            out[k] = pick(q, qd);
        }
        PyArray1::from_vec(py, out)
    }

    /// An (n, C) array, row i being `row(world, i)`.
    fn per_body<'py, const C: usize>(&self, py: Python<'py>, row: impl Fn(&cairn::World, usize) -> [f64; C]) -> Bound<'py, PyArray2<f64>> {
        let w = self.lock();
        let n = w.model.bodies.len();
        filled(py, [n, C], n, |i| row(&w, i))
    }
}

#[pymethods]
impl World {
    /// The same as `World.from_file`.
    #[new]
    #[pyo3(signature = (path, method=None, *, dt=None, duration=None, overrides=None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        method: Option<&str>,
        dt: Option<f64>,
        duration: Option<f64>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        Self::from_file(py, path, method, dt, duration, overrides)
    }

    /// A world from a scene file (`.toml` or `.scn`) or the name of a bundled scene (see `cairn.scenes()`),
    /// at its initial state. `method` (`"lcp"`, `"impulse"`, `"volumetric-penalty"`, `"abd"`), `dt` and
    /// `duration` override the scene's `[world]` values; `overrides` maps dotted keys to values, like the
    /// command line's `--set` (`{"solver.lcp.iterations": 50, "body.0.mass": 2.0}`; a str value is read as
    /// TOML text, a bare word as a string). Raises `SceneError` naming the file and key when the scene or an
    /// override is wrong; warns (`UserWarning`) about what a `.scn` file has that cairn cannot use.
    #[staticmethod]
    #[pyo3(signature = (path, method=None, *, dt=None, duration=None, overrides=None))]
    fn from_file(
        py: Python<'_>,
        path: PathBuf,
        method: Option<&str>,
        dt: Option<f64>,
        duration: Option<f64>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let scene = path.to_string_lossy().into_owned();
        let recipe = Recipe::file(&scene, load_options(overrides, false, method, dt, duration)?);
        let model = recipe.load(py)?;
        Ok(Self::wrap(cairn::World::new(model).map_err(scene_err)?, recipe))
    }

    /// A world from scene text (TOML, scene format 1). `name` names it in messages and snapshots; mesh paths
    /// in it are relative to the current folder. The other arguments are those of `from_file`.
    #[staticmethod]
    #[pyo3(signature = (text, method=None, *, dt=None, duration=None, overrides=None, name="scene"))]
    fn from_string(
        py: Python<'_>,
        text: &str,
        method: Option<&str>,
        dt: Option<f64>,
        duration: Option<f64>,
        overrides: Option<&Bound<'_, PyDict>>,
        name: &str,
    ) -> PyResult<Self> {
        let recipe = Recipe::text(text, name, load_options(overrides, false, method, dt, duration)?);
        let model = recipe.load(py)?;
        Ok(Self::wrap(cairn::World::new(model).map_err(scene_err)?, recipe))
    }

    /// Advances `n` time steps of `dt`, releasing the interpreter's lock meanwhile (other Python threads run,
    /// and worlds in different threads step in parallel). Raises `SimulationError` when a step fails (a NaN
    /// with the body, step and stage named, or a solver failure); the steps before it stand. Raises
    /// `ValueError` naming `n` when it is negative. With `callback`, `callback(world)` is called after every
    /// step (holding the lock: for progress, logging or control between steps); a callback that returns `False`
    /// stops the stepping there. `TypeError` when it is not callable.
    #[pyo3(signature = (n=1, callback=None))]
    fn step(slf: &Bound<'_, Self>, n: i64, callback: Option<Bound<'_, PyAny>>) -> PyResult<()> {
        let py = slf.py();
        let n = u64::try_from(n).map_err(|_| PyValueError::new_err(format!("step: n must be a non-negative number of steps, got {n}")))?;
        let Some(callback) = callback else { return slf.borrow_mut().step_n(py, n) };
        if !callback.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "step: callback must be callable (called as callback(world) after each step), got {}",
                callback.get_type().name()?
            )));
        }
        for _ in 0..n {
            slf.borrow_mut().step_n(py, 1)?;
            let answer = callback.call1((slf,))?;
            if answer.is_instance_of::<pyo3::types::PyBool>() && !answer.is_truthy()? {
                break;
            }
        }
        Ok(())
    }

    /// Simulated time, s.
    #[getter]
    fn time(&self) -> f64 {
        self.lock().state.time
    }

    /// Steps taken.
    #[getter]
    fn steps(&self) -> u64 {
        self.lock().state.step
    }

    /// The time step, s.
    #[getter]
    fn dt(&self) -> f64 {
        self.lock().model.dt
    }

    /// The scene's duration, s (what `cairn.run` simulates).
    #[getter]
    fn duration(&self) -> f64 {
        self.lock().model.duration
    }

    /// The method's key.
    #[getter]
    fn method(&self) -> &'static str {
        self.lock().model.method.as_str()
    }

    /// The scene's name.
    #[getter]
    fn scene(&self) -> String {
        self.lock().model.name.clone()
    }

    /// The bodies' names, in the scene's order (the rows of every array).
    #[getter]
    fn body_names(&self) -> Vec<String> {
        self.lock().model.bodies.iter().map(|b| b.name.clone()).collect()
    }

    /// The number of bodies.
    fn __len__(&self) -> usize {
        self.lock().model.bodies.len()
    }

    /// The index of the body called `name`; raises `SceneError` when there is none.
    fn body_index(&self, name: &Bound<'_, PyString>) -> PyResult<usize> {
        Self::body(&self.lock(), name.as_any())
    }

    /// The method's timed stages, in order (the keys of `last_stats["stage_seconds"]`).
    #[getter]
    fn stage_names(&self) -> Vec<&'static str> {
        self.stages.to_vec()
    }

    /// What the loader accepted but cairn cannot use (a `.scn` file's camera, colours, ...).
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.lock().model.notes.clone()
    }

    /// The statistics of the last step as a dict (empty before the first step): contacts, islands,
    /// max_penetration (m), iterations, residual, normal_impulse and friction_impulse (N·s), unresolved,
    /// resolutions, resolution_seconds, sleeping (bodies asleep), stage_seconds (stage → wall s), total_seconds, proxies (per proxy
    /// a dict of contact_force, contact_torque, coupling_force, coupling_torque, arrays of 3), intersections
    /// (triangle pairs touching or crossing), crossings (those crossing) and min_distance (None unless measured).
    #[getter]
    fn last_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match &self.last {
            Some(s) => stats_dict(py, s, self.stages),
            None => Ok(PyDict::new(py)),
        }
    }

    /// Every body's pose, shape (bodies, 3, 4): the row-major matrix [R | p] of its reference frame, the
    /// layout of `trajectory.npy` (for `abd`, the affine map [A | p]).
    fn poses<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f64>> {
        let w = self.lock();
        let n = w.model.bodies.len();
        filled(py, [n, 3, 4], n, |i| w.state.pose_3x4(&w.model, i))
    }

    /// Every body's reference-frame origin, shape (bodies, 3) (`poses()[:, :, 3]`).
    fn positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.per_body(py, |w, i| {
            let p = w.state.pose_3x4(&w.model, i);
            [p[3], p[7], p[11]]
        })
    }

    /// Every body's centre of mass, shape (bodies, 3).
    fn centers_of_mass<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.per_body(py, |w, i| w.state.bodies[i].x.to_array())
    }

    /// Every body's orientation, shape (bodies, 4), unit quaternions [w, x, y, z].
    fn quaternions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.per_body(py, |w, i| {
            let q = w.state.bodies[i].q;
            [q.w, q.x, q.y, q.z]
        })
    }

    /// Every body's velocity (of its centre of mass, world frame), shape (bodies, 3), m/s.
    fn velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.per_body(py, |w, i| w.state.bodies[i].v.to_array())
    }

    /// Every body's angular velocity (world frame), shape (bodies, 3), rad/s.
    fn angular_velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.per_body(py, |w, i| w.state.bodies[i].w.to_array())
    }

    /// Kinetic energy of the dynamic bodies, J.
    fn kinetic_energy(&self) -> f64 {
        let w = self.lock();
        w.state.kinetic_energy(&w.model)
    }

    /// Potential energy of the dynamic bodies in the scene's gravity, J.
    fn potential_energy(&self) -> f64 {
        let w = self.lock();
        w.state.potential_energy(&w.model)
    }

    /// Moves `body` (an index or a name) to `position` (of its reference frame) and `quaternion`
    /// ([w, x, y, z], unit; None keeps its orientation) before the next step. Every method honours it.
    /// Raises `SceneError` naming the body when it does not exist or a value is not finite.
    #[pyo3(signature = (body, position, quaternion=None))]
    fn set_body_pose(
        &mut self,
        body: &Bound<'_, PyAny>,
        position: &Bound<'_, PyAny>,
        quaternion: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let position: [f64; 3] = numbers(position, "set_body_pose", "position")?;
        let quaternion: Option<[f64; 4]> = quaternion.map(|q| numbers(q, "set_body_pose", "quaternion")).transpose()?;
        let w = self.get_mut();
        let i = Self::body(w, body)?;
        let q = match quaternion {
            Some(q) => quat(q),
            None => w.state.bodies.get(i).map_or(Quat::IDENTITY, |s| s.q),
        };
        w.set_body_pose(i, vec3(position), q).map_err(scene_err)
    }

    /// Sets `body`'s velocity (of its centre of mass) and angular velocity, world frame, before the next
    /// step; None keeps that one. Every method honours it. Raises `SceneError` naming the body when it does
    /// not exist or a value is not finite.
    #[pyo3(signature = (body, velocity=None, angular_velocity=None))]
    fn set_body_velocity(
        &mut self,
        body: &Bound<'_, PyAny>,
        velocity: Option<&Bound<'_, PyAny>>,
        angular_velocity: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let velocity: Option<[f64; 3]> = velocity.map(|v| numbers(v, "set_body_velocity", "velocity")).transpose()?;
        let angular_velocity: Option<[f64; 3]> =
            angular_velocity.map(|v| numbers(v, "set_body_velocity", "angular_velocity")).transpose()?;
        let w = self.get_mut();
        let i = Self::body(w, body)?;
        let now = w.state.bodies.get(i).copied();
        let v = velocity.map(vec3).or(now.map(|s| s.v)).unwrap_or(Vec3::ZERO);
        let om = angular_velocity.map(vec3).or(now.map(|s| s.w)).unwrap_or(Vec3::ZERO);
        w.set_body_velocity(i, v, om).map_err(scene_err)
    }

    /// Sets the target of haptic proxy `proxy` (an index in the scene's `[[proxy]]` order) for the coming
    /// steps: the pose of the body's reference frame (`position`, `rotation` [w, x, y, z]) and its velocity
    /// and angular velocity (default: at rest). From then on the scene's path no longer moves that proxy;
    /// what it receives is in `last_stats["proxies"]`. Raises `SceneError` naming the proxy when it does not
    /// exist or the target is not finite with a unit rotation.
    #[pyo3(signature = (proxy, position, rotation, velocity=[0.0; 3], angular_velocity=[0.0; 3]))]
    fn set_proxy_target(
        &mut self,
        proxy: usize,
        position: [f64; 3],
        rotation: [f64; 4],
        velocity: [f64; 3],
        angular_velocity: [f64; 3],
    ) -> PyResult<()> {
        self.get_mut().set_proxy_target(proxy, vec3(position), quat(rotation), vec3(velocity), vec3(angular_velocity)).map_err(scene_err)
    }

    /// Sets the target of the motor of joint `joint` (an index in the scene's `[[joint]]` order) for the coming
    /// steps: the coordinate's value (rad for a hinge, within [-π, π]; m for a prismatic joint) and its rate.
    /// From then on the scene's path no longer moves that motor. Raises `SceneError` naming the joint when it
    /// does not exist, has no motor, or the target is not finite or out of range.
    #[pyo3(signature = (joint, value, rate=0.0))]
    fn set_motor_target(&mut self, joint: usize, value: f64, rate: f64) -> PyResult<()> {
        self.get_mut().set_motor_target(joint, value, rate).map_err(scene_err)
    }

    /// The whole state now (poses, velocities, the method's warm starts and carried data) as a picklable
    /// `Snapshot`.
    fn snapshot(&self) -> Snapshot {
        Snapshot { inner: self.lock().snapshot() }
    }

    /// Brings the world back to `snapshot`: the following steps are those of the run it was taken from, bit
    /// for bit. Raises `SceneError` when it is of another method or number of bodies. `last_stats` becomes
    /// empty.
    fn restore(&mut self, py: Python<'_>, snapshot: &Bound<'_, Snapshot>) -> PyResult<()> {
        self.get_mut().restore(&snapshot.get().inner).map_err(scene_err)?;
        self.last = None;
        self.pull_ctrl(py)
    }

    /// Brings the world back to the scene's initial state (time 0, the scene's poses and velocities, no
    /// warm starts, no pending forces), as `from_file` made it; `set_motor_target`s and `set_proxy_target`s
    /// are dropped too. `last_stats` becomes empty.
    fn reset(&mut self, py: Python<'_>) -> PyResult<()> {
        self.get_mut().reset().map_err(scene_err)?;
        self.last = None;
        self.pull_ctrl(py)
    }

    /// Applies `force` (N) to `body` (an index or a name) during the next step only, at `point` (None: the
    /// centre of mass), like MuJoCo's `xfrc_applied` or PyBullet's `applyExternalForce`. `frame` is
    /// `"world"` (world axes, `point` in world coordinates) or `"body"` (the body's reference frame: its axes,
    /// `point` in its coordinates). A point off the centre of mass adds its moment. Forces and torques given
    /// before one step add up; call again before each step to keep pushing. Every method honours it. Raises
    /// `SceneError` naming the body when it does not exist, is not dynamic or a value is not finite, and
    /// `ValueError` naming `frame` for another frame.
    #[pyo3(signature = (body, force, point=None, frame="world"))]
    fn apply_force(
        &mut self,
        body: &Bound<'_, PyAny>,
        force: &Bound<'_, PyAny>,
        point: Option<&Bound<'_, PyAny>>,
        frame: &str,
    ) -> PyResult<()> {
        let force: [f64; 3] = numbers(force, "apply_force", "force")?;
        let point: Option<[f64; 3]> = point.map(|p| numbers(p, "apply_force", "point")).transpose()?;
        let frame = cairn::world::Frame::parse(frame).map_err(|e| PyValueError::new_err(format!("apply_force: frame: {e}")))?;
        let w = self.get_mut();
        let i = Self::body(w, body)?;
        w.apply_force(i, vec3(force), point.map(vec3), frame).map_err(scene_err)
    }

    /// Applies `torque` (N·m) to `body` during the next step only, its axes those of `frame` (`"world"` or
    /// `"body"`); see `apply_force`.
    #[pyo3(signature = (body, torque, frame="world"))]
    fn apply_torque(&mut self, body: &Bound<'_, PyAny>, torque: &Bound<'_, PyAny>, frame: &str) -> PyResult<()> {
        let torque: [f64; 3] = numbers(torque, "apply_torque", "torque")?;
        let frame = cairn::world::Frame::parse(frame).map_err(|e| PyValueError::new_err(format!("apply_torque: frame: {e}")))?;
        let w = self.get_mut();
        let i = Self::body(w, body)?;
        w.apply_torque(i, vec3(torque), frame).map_err(scene_err)
    }

    /// The joints' names in the scene's `[[joint]]` order (the index `set_motor_target` takes): a robot's
    /// joint names (with the robot's prefix), else `joint<k>`.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        let w = self.lock();
        (0..w.model.joints.len()).map(|k| w.model.joint_name(k)).collect()
    }

    /// Every joint's coordinate, shape (joints,), in `joint_names` order: rad for a hinge (within [-π, π]),
    /// m for a prismatic joint, as metrics.csv's `joint<k>_q`; NaN for ball and fixed joints, which have no
    /// single coordinate.
    fn joint_positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.joint_values(py, |q, _| q)
    }

    /// Every joint's rate, shape (joints,), in `joint_names` order: rad/s for a hinge, m/s for a prismatic
    /// joint (`joint<k>_qd`); NaN for ball and fixed joints.
    fn joint_velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.joint_values(py, |_, qd| qd)
    }

    /// The actuators' names, in the order of `ctrl` (an MJCF file's `<actuator>` order, a URDF's moving
    /// joints, a scene's `[[actuator]]`s, then each scene joint's motor named after its joint).
    #[getter]
    fn actuator_names(&self) -> Vec<String> {
        self.lock().actuator_names().into_iter().map(str::to_string).collect()
    }

    /// The actuators' controls, shape (actuators,): a numpy array that stays this world's, so
    /// `world.ctrl[:] = u` (or `world.ctrl = u`) sets the controls for the following steps, as MuJoCo's
    /// `data.ctrl`. A control outside its actuator's `ctrlrange` is clamped when the force is computed. After a
    /// step it shows the world's controls (a scene's `[[control]]` schedule moves those the user has not set).
    #[getter]
    fn get_ctrl<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        if self.ctrl.is_none() {
            let c = self.lock().ctrl();
            self.ctrl = Some(PyArray1::from_vec(py, c.clone()).unbind());
            self.ctrl_synced = c;
        }
        Ok(self.ctrl.as_ref().expect("set above").bind(py).clone())
    }

    /// Sets every control (a sequence of one number per actuator); raises `ValueError` naming the expected
    /// length otherwise.
    #[setter]
    fn set_ctrl(&mut self, py: Python<'_>, values: Vec<f64>) -> PyResult<()> {
        let n = self.lock().model.actuators.len();
        if values.len() != n {
            return Err(PyValueError::new_err(format!("ctrl: expected {n} controls (one per actuator), got {}", values.len())));
        }
        let a = self.get_ctrl(py)?;
        let mut rw = a.readwrite();
        rw.as_slice_mut().map_err(|e| PyValueError::new_err(format!("ctrl: {e}")))?.copy_from_slice(&values);
        Ok(())
    }

    /// The actuators' activations, shape (actuators,) (0 for an actuator without activation dynamics).
    #[getter]
    fn act<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.lock().act())
    }

    /// Each actuator's scalar force during the last step (N or N·m before the gear), shape (actuators,).
    #[getter]
    fn actuator_forces<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.lock().actuator_forces())
    }

    /// The sensors' names, in their order.
    #[getter]
    fn sensor_names(&self) -> Vec<String> {
        self.lock().sensor_names().into_iter().map(str::to_string).collect()
    }

    /// Each sensor's number of values, in `sensor_names` order (1, 3 or 4).
    #[getter]
    fn sensor_dims(&self) -> Vec<usize> {
        self.lock().model.sensors.iter().map(|s| s.kind.dim()).collect()
    }

    /// Every sensor's values after the last step, flat in sensor order (MuJoCo's `data.sensordata`); a copy.
    #[getter]
    fn sensordata<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.lock().sensordata())
    }

    /// The contacts of the last step as a dict of numpy arrays, one row per contact point: `bodies` (n, 2)
    /// int64 body indices, `point` (n, 3) m, `normal` (n, 3) unit, `force` (n, 3) N: the force body
    /// `bodies[:, 0]` receives (the other body receives its opposite).
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let w = self.lock();
        let c = w.contacts();
        let n = c.len();
        let d = PyDict::new(py);
        let bodies: Vec<i64> = c.iter().flat_map(|p| [p.bodies[0] as i64, p.bodies[1] as i64]).collect();
        d.set_item("bodies", PyArray1::from_vec(py, bodies).reshape([n, 2])?)?;
        d.set_item("point", filled(py, [n, 3], n, |i| c[i].point.to_array()))?;
        d.set_item("normal", filled(py, [n, 3], n, |i| c[i].normal.to_array()))?;
        d.set_item("force", filled(py, [n, 3], n, |i| c[i].force.to_array()))?;
        Ok(d)
    }

    /// What each joint applied to its body 1 during the last step, in `joint_names` order, as a dict of
    /// (joints, 3) arrays: `force` (N) and `torque` (N·m, about body 1's anchor), world frame; empty arrays
    /// before the first step or for a method that does not report them.
    fn joint_reactions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let w = self.lock();
        let r = w.joint_reactions();
        let n = r.len();
        let d = PyDict::new(py);
        d.set_item("force", filled(py, [n, 3], n, |i| r[i].force.to_array()))?;
        d.set_item("torque", filled(py, [n, 3], n, |i| r[i].torque.to_array()))?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let w = self.lock();
        format!(
            "World(scene={:?}, method={:?}, bodies={}, dt={}, time={})",
            w.model.name,
            w.model.method.as_str(),
            w.model.bodies.len(),
            w.model.dt,
            w.state.time
        )
    }
}
