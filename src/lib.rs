//! cairn: rigid bodies in contact. Five contact methods behind one world, one scene format, one command line
//! and one set of measurements. See README.md and ARCHITECTURE.md.

pub mod bench;
pub mod collision;
pub mod dynamics;
pub mod error;
pub mod geometry;
pub mod math;
pub mod methods;
pub mod model;
pub mod plot;
pub mod record;
pub mod scene;
pub mod state;
pub mod validate;
pub mod world;

pub use error::{InputError, SimError};
pub use model::Model;
pub use world::World;
