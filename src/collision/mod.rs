//! Collision detection shared by the methods: the broad phase (sweep and prune over bounding boxes) and the
//! narrow phase (persistent multi-point contact manifolds from parry).

pub mod broad;
pub mod intersect;
pub mod narrow;
pub mod realface;
