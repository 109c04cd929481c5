//! The contact methods, one folder each, each a [`crate::method::Method`]; registry.rs is their one list. No
//! method imports another: what two share lives below them, in `collision/`, `dynamics/` or `math/`.

pub mod abd;
pub mod implicit;
pub mod impulse;
pub mod lcp;
pub mod param_docs;
pub mod registry;
pub mod volumetric;

pub use crate::method::{ContactPoint, JointReading, Method, StepStats};
pub use registry::Registry;
