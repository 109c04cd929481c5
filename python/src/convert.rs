//! Conversions between Python values and the engine's: overrides to `--set` pairs, JSON to Python objects,
//! step statistics to a dict, vector arguments to vectors, rows to numpy arrays.

use cairn::math::{Quat, Vec3};
use cairn::method::StepStats;
use numpy::ndarray::{Dimension, IntoDimension};
use numpy::PyArray1;
use numpy::{PyArray, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// A Python value as a TOML value: bool, int, float, str, and lists, tuples and dicts of them.
fn toml_value(key: &str, v: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(toml::Value::Integer(v.extract()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        return v.try_iter()?.map(|x| toml_value(key, &x?)).collect::<PyResult<Vec<_>>>().map(toml::Value::Array);
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, x) in d.iter() {
            t.insert(k.extract::<String>()?, toml_value(key, &x)?);
        }
        return Ok(toml::Value::Table(t));
    }
    // numpy scalars and other numbers: integers through __index__, the rest through __float__
    if let Ok(i) = v.extract::<i64>() {
        return Ok(toml::Value::Integer(i));
    }
    if let Ok(x) = v.extract::<f64>() {
        return Ok(toml::Value::Float(x));
    }
    Err(PyTypeError::new_err(format!(
        "override `{key}`: a {} cannot be a scene value (allowed: bool, int, float, str, and lists or dicts of them)",
        v.get_type().name()?
    )))
}

/// The load options of a call: the `--set` pairs of `overrides` (a str value is TOML text, as on the command
/// line: `"50"` is a number, a bare word that is not TOML a string; other values are converted), and the typed
/// `method`, `dt`, `duration` and intersection check when given.
pub fn load_options(
    overrides: Option<&Bound<'_, PyDict>>,
    check_intersections: bool,
    method: Option<&str>,
    dt: Option<f64>,
    duration: Option<f64>,
) -> PyResult<cairn::scene::LoadOptions> {
    let mut sets = Vec::new();
    if let Some(d) = overrides {
        for (k, v) in d.iter() {
            let key: String = k.extract().map_err(|_| PyTypeError::new_err(format!("override keys are dotted str paths, got {k:?}")))?;
            let text = if v.is_instance_of::<PyString>() { v.extract::<String>()? } else { toml_value(&key, &v)?.to_string() };
            sets.push((key, text));
        }
    }
    let method =
        method.map(|m| cairn::model::MethodKey::parse(m).map_err(|e| crate::SceneError::new_err(format!("method: {e}")))).transpose()?;
    Ok(cairn::scene::LoadOptions {
        method,
        dt,
        duration,
        check_intersections: check_intersections.then_some(true),
        sets,
        ..Default::default()
    })
}

/// A JSON value as Python objects (numbers keep their bits: integers as int, the rest as float).
pub fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => PyList::new(py, a.iter().map(|x| json_to_py(py, x)).collect::<PyResult<Vec<_>>>()?)?.into_any(),
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A step's statistics as a dict: the `metrics.csv` columns (contacts, islands, max_penetration, iterations,
/// residual, normal_impulse, friction_impulse, unresolved, resolutions, resolution_seconds, sleeping), `stage_seconds`
/// (stage name → wall seconds, in the method's order), `total_seconds`, `proxies` (per proxy: the contact and
/// coupling force and torque it received, numpy arrays of 3), `intersections` (triangle pairs touching or
/// crossing), `crossings` (those properly crossing) and `min_distance` (None when not measured).
pub fn stats_dict<'py>(py: Python<'py>, s: &StepStats, stages: &[&str]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("contacts", s.contacts)?;
    d.set_item("islands", s.islands)?;
    d.set_item("max_penetration", s.max_penetration)?;
    d.set_item("iterations", s.iterations)?;
    d.set_item("residual", s.residual)?;
    d.set_item("normal_impulse", s.normal_impulse)?;
    d.set_item("friction_impulse", s.friction_impulse)?;
    d.set_item("unresolved", s.unresolved)?;
    d.set_item("resolutions", s.resolutions)?;
    d.set_item("resolution_seconds", s.resolution_seconds)?;
    d.set_item("sleeping", s.sleeping)?;
    let st = PyDict::new(py);
    for (name, t) in stages.iter().zip(&s.stage_seconds) {
        st.set_item(*name, *t)?;
    }
    d.set_item("stage_seconds", st)?;
    d.set_item("total_seconds", s.stage_seconds[..stages.len()].iter().sum::<f64>())?;
    let proxies = PyList::empty(py);
    for r in &s.proxies {
        let p = PyDict::new(py);
        p.set_item("contact_force", PyArray1::from_slice(py, &r.contact_force))?;
        p.set_item("contact_torque", PyArray1::from_slice(py, &r.contact_torque))?;
        p.set_item("coupling_force", PyArray1::from_slice(py, &r.coupling_force))?;
        p.set_item("coupling_torque", PyArray1::from_slice(py, &r.coupling_torque))?;
        proxies.append(p)?;
    }
    d.set_item("proxies", proxies)?;
    d.set_item("intersections", s.intersections)?;
    d.set_item("crossings", s.crossings)?;
    d.set_item("min_distance", s.min_distance)?;
    Ok(d)
}

pub(crate) fn vec3(a: [f64; 3]) -> Vec3 {
    Vec3::from_array(a)
}

/// `N` numbers from argument `name` of `call` (any sequence): a `TypeError` naming the argument when it is not
/// a sequence of numbers, a `ValueError` naming it when it has another length.
pub(crate) fn numbers<const N: usize>(value: &Bound<'_, PyAny>, call: &str, name: &str) -> PyResult<[f64; N]> {
    let v: Vec<f64> = value.extract().map_err(|_| {
        let shown = value.repr().map_or_else(|_| "?".to_string(), |r| r.to_string());
        PyTypeError::new_err(format!("{call}: {name} must be a sequence of {N} numbers, got {shown}"))
    })?;
    v.as_slice().try_into().map_err(|_| PyValueError::new_err(format!("{call}: {name} must have {N} numbers, got {}", v.len())))
}

pub(crate) fn quat(q: [f64; 4]) -> Quat {
    Quat::from_xyzw(q[1], q[2], q[3], q[0])
}

/// A new C-ordered float64 array of shape `dims` (`n` rows of C values in memory order), row i written as
/// `row(i)` straight into the array's memory: no intermediate buffer and no zeroing (`poses()` of 1000 bodies
/// costs what computing the poses costs).
pub(crate) fn filled<'py, D: Dimension, const N: usize, const C: usize>(
    py: Python<'py>,
    dims: [usize; N],
    n: usize,
    row: impl Fn(usize) -> [f64; C],
) -> Bound<'py, PyArray<f64, D>>
where
    [usize; N]: IntoDimension<Dim = D>,
{
    debug_assert_eq!(dims.iter().product::<usize>(), n * C);
    // SAFETY: `new` allocates a C-contiguous array of exactly n·C float64 (numpy aligns its data to at least
    // 16 bytes, enough for [f64; C]); nothing else refers to it yet, and every element is written exactly
    // once, through the raw pointer, before the array is returned.
    unsafe {
        let a = PyArray::<f64, D>::new(py, dims, false);
        let p = a.data().cast::<[f64; C]>();
        for i in 0..n {
            p.add(i).write(row(i));
        }
        a
    }
}
