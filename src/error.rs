//! Errors of the library: bad input (scenes, meshes, parameters) and failures during a run.

use thiserror::Error;

/// A scene, mesh or parameter that cannot be used. The message names the file, the key or body, what is
/// wrong and what is allowed.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct InputError(pub String);

impl InputError {
    /// An error about `file`: "FILE: message".
    pub fn at(file: &str, msg: impl std::fmt::Display) -> Self {
        InputError(format!("{file}: {msg}"))
    }
}

/// A failure during a simulation step.
#[derive(Debug, Error)]
pub enum SimError {
    /// A NaN or infinity appeared: the run stops naming the body, the step and the stage.
    #[error("non-finite {quantity} of body `{body}` at step {step}, stage `{stage}`")]
    NonFinite { body: String, step: u64, stage: &'static str, quantity: &'static str },
    /// A solver failed (e.g. a Newton matrix that is not positive definite).
    #[error("solver failure at step {step}, stage `{stage}`: {message}")]
    Solver { step: u64, stage: &'static str, message: String },
}

/// A failure of a whole run (`crate::run`): a step failed, or an output file could not be written.
#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Sim(#[from] SimError),
    /// Writing `path` failed.
    #[error("cannot write {path}: {source}")]
    Io { path: String, source: std::io::Error },
    /// The run would go over a limit (its message names the value, the limit and how to raise it).
    #[error("{0}")]
    Limit(String),
}
