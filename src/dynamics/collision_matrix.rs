//! The collision matrix K of a contact point (Mirtich's and Moore's laws; the volumetric method's effective
//! masses): the change of B's velocity relative to A's at the point per unit impulse on B (and its opposite on
//! A), K = (1/m_A + 1/m_B)·I − [r_A]× I_A⁻¹ [r_A]× − [r_B]× I_B⁻¹ [r_B]× with lever arms r from the centres of
//! mass and world inverse inertias.
//!
//! Two entry points keep the rounding of the two former copies: [`collision_matrix`] (the impulse method's
//! order: the mass term first, then A's and B's rotational terms) and [`collision_matrix_at`] (the volumetric
//! method's order: a sum of per-body shares over the pair's dynamic bodies). They agree to rounding.

use crate::dynamics::integrate::inv_inertia_world;
use crate::math::{Mat3, Vec3};
use crate::model::{BodyKind, Model};
use crate::state::State;

/// The cross-product matrix [r]×, with [r]× v = r × v.
pub fn cross_matrix(r: Vec3) -> Mat3 {
    Mat3::from_cols(Vec3::new(0.0, r.z, -r.y), Vec3::new(-r.z, 0.0, r.x), Vec3::new(r.y, -r.x, 0.0))
}

/// K of a point at lever arms `ra` (from A's centre of mass) and `rb`, for inverse masses and world inverse
/// inertias (zero for a body that does not move).
pub fn collision_matrix(inv_ma: f64, inv_ia: &Mat3, ra: Vec3, inv_mb: f64, inv_ib: &Mat3, rb: Vec3) -> Mat3 {
    let ca = cross_matrix(ra);
    let cb = cross_matrix(rb);
    Mat3::from_diagonal(Vec3::splat(inv_ma + inv_mb)) - ca * *inv_ia * ca - cb * *inv_ib * cb
}

/// One body's share of K at lever arm `r`: (1/m)·I − [r]× I⁻¹ [r]×.
pub fn body_share(inv_m: f64, inv_i: &Mat3, r: Vec3) -> Mat3 {
    let rx = cross_matrix(r);
    Mat3::IDENTITY * inv_m - rx * *inv_i * rx
}

/// K of bodies `a` and `b` at world point `x` in the current state: the sum of the dynamic bodies' shares.
pub fn collision_matrix_at(model: &Model, state: &State, a: usize, b: usize, x: Vec3) -> Mat3 {
    let mut k = Mat3::ZERO;
    for i in [a, b] {
        if model.bodies[i].kind != BodyKind::Dynamic {
            continue;
        }
        let r = x - state.bodies[i].x;
        k += body_share(1.0 / model.bodies[i].mass, &inv_inertia_world(model, i, state.bodies[i].q), r);
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collision_matrix_maps_impulse_to_velocity_change() {
        // a unit cube (mass 1) struck at a bottom corner against static ground
        let inv_i = Mat3::from_diagonal(Vec3::splat(6.0));
        let r = Vec3::new(0.5, 0.5, -0.5);
        let k = collision_matrix(0.0, &Mat3::ZERO, Vec3::ZERO, 1.0, &inv_i, r);
        let p = Vec3::new(0.2, -0.1, 0.7);
        // Δv = p/m + (I⁻¹ (r × p)) × r
        let dv = p + (6.0 * r.cross(p)).cross(r);
        assert!((k * p - dv).length() < 1e-14);
        assert!((k - k.transpose()).abs_diff_eq(Mat3::ZERO, 1e-15));
        // the per-body sum is the same matrix to rounding
        let ia = Mat3::from_diagonal(Vec3::new(2.0, 3.0, 4.0));
        let ra = Vec3::new(-0.3, 0.2, 0.4);
        let two = collision_matrix(0.5, &ia, ra, 1.0, &inv_i, r);
        let sum = body_share(0.5, &ia, ra) + body_share(1.0, &inv_i, r);
        assert!((two - sum).abs_diff_eq(Mat3::ZERO, 1e-14));
        assert_eq!(cross_matrix(ra) * p, ra.cross(p));
    }
}
