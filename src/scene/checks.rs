//! Checks of scene values shared by the scene's readers: each returns an error message naming `what`.

use crate::math::Vec3;

pub(super) fn finite(x: f64, what: &str) -> Result<f64, String> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!("{what} must be a finite number, got {x}"))
    }
}
pub(super) fn positive(x: f64, what: &str) -> Result<f64, String> {
    finite(x, what)?;
    if x > 0.0 {
        Ok(x)
    } else {
        Err(format!("{what} must be > 0, got {x}"))
    }
}
pub(super) fn vec3(a: [f64; 3], what: &str) -> Result<Vec3, String> {
    for x in a {
        finite(x, what)?;
    }
    Ok(Vec3::from_array(a))
}
