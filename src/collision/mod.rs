//! Collision detection shared by the methods: the broad phase (sweep and prune over bounding boxes) and the
//! narrow phase (persistent multi-point contact manifolds from parry); on triangle surfaces
//! (`geometry::surface`), the IPC primitive distances, their closed-form derivatives, additive CCD, candidate
//! culling by intersection boxes and the triangle–triangle intersection check.

pub mod broad;
pub mod ccd;
pub mod culling;
pub mod distance;
pub mod distance_jet;
pub mod intersect;
pub mod narrow;
pub mod overlap;
pub mod realface;
pub mod surface_check;
pub mod tri_tri;
