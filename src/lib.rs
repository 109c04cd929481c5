//! cairn: rigid bodies in contact. Five contact methods behind one world, one scene format, one command line
//! and one set of measurements. See README.md and ARCHITECTURE.md.

pub mod collision;
pub mod dynamics;
pub mod error;
pub mod geometry;
pub mod math;
pub mod method;
pub mod methods;
pub mod model;
pub mod record;
pub mod run;
pub mod scene;
pub mod state;
pub mod world;

pub use error::{InputError, RunError, SimError};
pub use model::Model;
pub use world::World;

/// The methods of this build: the catalog through which the scene loader parses `[solver.<key>]` tables and
/// the world creates its method (the core itself names no method).
pub static METHODS: &dyn method::Catalog = &methods::Registry;
