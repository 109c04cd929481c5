//! Rigid-body dynamics shared by the methods: integration, external loads, the contact graph.

pub mod actuator;
pub mod ball_spring;
pub mod collision_matrix;
pub mod contact_spring;
pub mod coupling;
pub mod fluid;
pub mod generalized;
pub mod graph;
pub mod impact;
pub mod integrate;
pub mod joint;
pub mod joint_block;
pub mod limit_start;
pub mod proxy;
pub mod sensor;
pub mod site_tendon;
pub mod sleep;
pub mod support;
pub mod tree;
