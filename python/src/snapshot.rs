//! `Snapshot`: a saved state of a world, picklable (its state goes through JSON with every float's bits kept).

use crate::SceneError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// A saved state of a world (`World.snapshot()`): `World.restore(s)` makes the following steps bit-identical
/// to those of the run it was taken from. Picklable and copyable; `to_json()` / `Snapshot.from_json()` give
/// the same round trip as text.
#[pyclass(module = "cairn", frozen)]
pub struct Snapshot {
    pub(crate) inner: cairn::world::Snapshot,
}

impl Snapshot {
    fn from_bytes(bytes: &[u8]) -> PyResult<Self> {
        serde_json::from_slice(bytes).map(|inner| Snapshot { inner }).map_err(|e| SceneError::new_err(format!("not a cairn snapshot: {e}")))
    }
}

#[pymethods]
impl Snapshot {
    /// The snapshot of JSON text (str or bytes) from `to_json()`; the same as `Snapshot.from_json(json)`.
    #[new]
    fn new(json: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::from_json(json)
    }

    /// A snapshot from the JSON text of `to_json()` (str or bytes); raises `SceneError` when it is not one.
    #[staticmethod]
    fn from_json(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(b) = text.cast::<PyBytes>() {
            return Self::from_bytes(b.as_bytes());
        }
        Self::from_bytes(text.extract::<String>()?.as_bytes())
    }

    /// The snapshot as JSON text (floats written so that reading them back gives the same bits).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner).map_err(|e| crate::CairnError::new_err(format!("snapshot: {e}")))
    }

    /// The scene's name.
    #[getter]
    fn scene(&self) -> &str {
        &self.inner.scene
    }

    /// The method's key.
    #[getter]
    fn method(&self) -> &'static str {
        self.inner.method.as_str()
    }

    /// Simulated time, s.
    #[getter]
    fn time(&self) -> f64 {
        self.inner.state.time
    }

    /// Steps taken.
    #[getter]
    fn step(&self) -> u64 {
        self.inner.state.step
    }

    /// Pickling: rebuilt as `Snapshot(json_bytes)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let bytes = serde_json::to_vec(&slf.get().inner).map_err(|e| crate::CairnError::new_err(format!("snapshot: {e}")))?;
        (slf.get_type(), (PyBytes::new(py, &bytes),)).into_pyobject(py)
    }

    fn __copy__(&self) -> Self {
        Snapshot { inner: self.inner.clone() }
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.__copy__()
    }

    fn __repr__(&self) -> String {
        format!(
            "Snapshot(scene={:?}, method={:?}, step={}, time={})",
            self.inner.scene,
            self.inner.method.as_str(),
            self.inner.state.step,
            self.inner.state.time
        )
    }
}
