//! How a world was made (its scene and load options), so that a `World` or `Batch` can be pickled as its recipe
//! plus a snapshot and rebuilt in another process: a Ray actor, a Dask worker, a process pool.

use crate::{load_model, scene_err, SceneError};
use pyo3::prelude::*;
use std::path::Path;

/// The scene: a file (absolute, so that a worker in another folder finds it) or bundled name, or scene text.
#[derive(Debug, Clone)]
pub enum Source {
    File(String),
    Text { text: String, name: String },
}

/// A scene and the options it was loaded with.
#[derive(Debug, Clone)]
pub struct Recipe {
    pub source: Source,
    pub options: cairn::scene::LoadOptions,
}

/// What a pickle carries of a recipe: (kind, scene, name, method, dt, duration, check_intersections, sets).
type Pickled = (String, String, String, Option<String>, Option<f64>, Option<f64>, Option<bool>, Vec<(String, String)>);

impl Recipe {
    /// The recipe of a scene given as `scene` (a path or a bundled name): an existing file is kept as its
    /// absolute path.
    pub fn file(scene: &str, options: cairn::scene::LoadOptions) -> Self {
        let p = Path::new(scene);
        let kept = if p.is_file() {
            std::fs::canonicalize(p).map_or_else(|_| scene.to_string(), |a| a.to_string_lossy().into_owned())
        } else {
            scene.to_string()
        };
        Recipe { source: Source::File(kept), options }
    }

    pub fn text(text: &str, name: &str, options: cairn::scene::LoadOptions) -> Self {
        Recipe { source: Source::Text { text: text.to_string(), name: name.to_string() }, options }
    }

    /// The model the recipe gives (the loader's notes as warnings, as `World.from_file` gives them).
    pub fn load(&self, py: Python<'_>) -> PyResult<cairn::Model> {
        match &self.source {
            Source::File(scene) => load_model(py, scene, &self.options),
            Source::Text { text, name } => cairn::scene::load_str_with(text, name, name, Path::new("."), &self.options).map_err(scene_err),
        }
    }

    pub fn to_pickled(&self) -> Pickled {
        let o = &self.options;
        let (kind, scene, name) = match &self.source {
            Source::File(s) => ("file", s.clone(), String::new()),
            Source::Text { text, name } => ("text", text.clone(), name.clone()),
        };
        (kind.into(), scene, name, o.method.map(|m| m.as_str().to_string()), o.dt, o.duration, o.check_intersections, o.sets.clone())
    }

    pub fn from_pickled(p: Pickled) -> PyResult<Self> {
        let (kind, scene, name, method, dt, duration, check_intersections, sets) = p;
        let method =
            method.map(|m| cairn::model::MethodKey::parse(&m).map_err(|e| SceneError::new_err(format!("method: {e}")))).transpose()?;
        let options = cairn::scene::LoadOptions { method, dt, duration, check_intersections, sets, ..Default::default() };
        let source = match kind.as_str() {
            "file" => Source::File(scene),
            "text" => Source::Text { text: scene, name },
            k => return Err(SceneError::new_err(format!("not a pickled cairn world: scene kind `{k}`"))),
        };
        Ok(Recipe { source, options })
    }
}
