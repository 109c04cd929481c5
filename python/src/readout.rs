//! What `World` and `Batch` read out of a world as flat float64 rows, and the arrays made of them: one reader per
//! quantity, so a world's array and a batch's (n, …) array are the same numbers.

use numpy::{PyArray1, PyArrayDyn, PyArrayMethods};
use pyo3::prelude::*;

/// A quantity read from one world: its values in row-major order, and the shape of one world's block.
#[derive(Clone, Copy)]
pub struct Reader {
    pub read: fn(&cairn::World, &mut Vec<f64>),
    pub shape: fn(&cairn::World) -> Vec<usize>,
}

fn bodies(w: &cairn::World) -> usize {
    w.model.bodies.len()
}

fn per_body<const C: usize>(w: &cairn::World, out: &mut Vec<f64>, row: impl Fn(&cairn::World, usize) -> [f64; C]) {
    for i in 0..bodies(w) {
        out.extend_from_slice(&row(w, i));
    }
}

pub const QPOS: Reader = Reader { read: |w, o| o.extend(w.qpos()), shape: |w| vec![w.layout().nq()] };
pub const QVEL: Reader = Reader { read: |w, o| o.extend(w.qvel()), shape: |w| vec![w.layout().nv()] };
pub const CTRL: Reader = Reader { read: |w, o| o.extend(w.ctrl()), shape: |w| vec![w.model.actuators.len()] };
pub const ACT: Reader = Reader { read: |w, o| o.extend_from_slice(w.act()), shape: |w| vec![w.act().len()] };
pub const ACTUATOR_FORCES: Reader =
    Reader { read: |w, o| o.extend_from_slice(w.actuator_forces()), shape: |w| vec![w.model.actuators.len()] };
pub const SENSORDATA: Reader = Reader { read: |w, o| o.extend_from_slice(w.sensordata()), shape: |w| vec![w.sensordata().len()] };
pub const TIME: Reader = Reader { read: |w, o| o.push(w.state.time), shape: |_| vec![] };
pub const POSITIONS: Reader = Reader {
    read: |w, o| {
        per_body(w, o, |w, i| {
            let p = w.state.pose_3x4(&w.model, i);
            [p[3], p[7], p[11]]
        })
    },
    shape: |w| vec![bodies(w), 3],
};
pub const QUATERNIONS: Reader = Reader {
    read: |w, o| {
        per_body(w, o, |w, i| {
            let q = w.state.bodies[i].q;
            [q.w, q.x, q.y, q.z]
        })
    },
    shape: |w| vec![bodies(w), 4],
};
pub const CENTERS_OF_MASS: Reader =
    Reader { read: |w, o| per_body(w, o, |w, i| w.state.bodies[i].x.to_array()), shape: |w| vec![bodies(w), 3] };
pub const VELOCITIES: Reader = Reader { read: |w, o| per_body(w, o, |w, i| w.state.bodies[i].v.to_array()), shape: |w| vec![bodies(w), 3] };
pub const ANGULAR_VELOCITIES: Reader =
    Reader { read: |w, o| per_body(w, o, |w, i| w.state.bodies[i].w.to_array()), shape: |w| vec![bodies(w), 3] };
pub const BODY_INERTIAS: Reader =
    Reader { read: |w, o| per_body(w, o, |w, i| w.inertia_world(i).transpose().to_cols_array()), shape: |w| vec![bodies(w), 3, 3] };
pub const CONTACT_WRENCHES: Reader =
    Reader { read: |w, o| o.extend(w.contact_wrenches().into_iter().flatten()), shape: |w| vec![bodies(w), 6] };
pub const BODY_MASSES: Reader = Reader { read: |w, o| o.extend(w.model.bodies.iter().map(|b| b.mass)), shape: |w| vec![bodies(w)] };

/// `values` as a C-ordered array of shape `shape`.
pub fn array<'py>(py: Python<'py>, values: Vec<f64>, shape: Vec<usize>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    PyArray1::from_vec(py, values).reshape(shape)
}

/// One world's array of `r`.
pub fn one<'py>(py: Python<'py>, w: &cairn::World, r: Reader) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let mut v = Vec::new();
    (r.read)(w, &mut v);
    array(py, v, (r.shape)(w))
}

/// The (n, …) array of `r` over `worlds`.
pub fn stacked<'py>(py: Python<'py>, worlds: &[cairn::World], r: Reader) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let mut v = Vec::new();
    for w in worlds {
        (r.read)(w, &mut v);
    }
    let mut shape = vec![worlds.len()];
    shape.extend(worlds.first().map_or_else(Vec::new, |w| (r.shape)(w)));
    array(py, v, shape)
}
