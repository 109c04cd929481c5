//! Validation experiments of the `abd` method (Lan et al. 2022, "Affine Body Dynamics"; docs/methods/abd.md):
//! derivatives against finite differences, additive CCD, orthogonality, the ramp, the thin
//! plate at 100 m/s, and no intersection in any bundled scene.

use crate::{Overrides, Row};

mod ccd;
mod derivatives;
mod one_body;
mod ordinary_scenes;
mod scenes;
mod stacking_drift;

pub use derivatives::fd_errors;
pub use scenes::SCENES;

/// Experiment names, in table order.
pub const EXPERIMENTS: [&str; 15] = [
    "abd_derivatives",
    "abd_ccd",
    "abd_orthogonality",
    "abd_resting",
    "abd_ramp",
    "abd_static_ramp",
    "abd_plate",
    "abd_pendulum",
    "abd_house",
    "abd_gears",
    "abd_scenes",
    "abd_stack",
    "abd_stands",
    "abd_near_limit",
    "abd_touching",
];

pub(crate) fn run(name: &str, method: &Overrides) -> Vec<Row> {
    let r = match name {
        "abd_derivatives" => Ok(derivatives::derivatives()),
        "abd_ccd" => Ok(ccd::ccd_rows()),
        "abd_orthogonality" => one_body::orthogonality(method),
        "abd_resting" => one_body::resting(method),
        "abd_ramp" => one_body::ramp(method),
        "abd_static_ramp" => one_body::static_ramp(method),
        "abd_plate" => scenes::plate(method),
        "abd_pendulum" => scenes::pendulum(method),
        "abd_house" => scenes::house(method),
        "abd_gears" => scenes::gears(method),
        "abd_scenes" => scenes::scenes(method),
        "abd_stack" => ordinary_scenes::stack(method),
        "abd_stands" => stacking_drift::stands(method),
        "abd_near_limit" => ordinary_scenes::near_limit(method),
        "abd_touching" => ordinary_scenes::touching(method),
        other => Err(anyhow::anyhow!("unknown experiment `{other}`")),
    };
    r.unwrap_or_else(|e| vec![crate::failed(name, e)])
}
