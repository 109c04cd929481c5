//! Inertia tensors read from robot files: checked to be physical, or repaired when a file's rounding breaks the
//! triangle inequality by a hair.

use crate::math::{Mat3, Vec3};

/// `i` itself when it is physical; else, when it breaks the triangle inequality by under 1% of its largest
/// principal moment (rounding in the file), the nearest physical tensor: the same principal axes with the largest
/// moment lowered to the sum of the other two (true: repaired). Errors as [`check_inertia`] when further off.
pub fn physical_inertia(i: &Mat3) -> Result<(Mat3, bool), String> {
    let Err(e) = check_inertia(i) else { return Ok((*i, false)) };
    let a: [[f64; 3]; 3] = std::array::from_fn(|r| std::array::from_fn(|c| i.col(c)[r]));
    let (mut lam, mut v) = ([0.0; 3], [[0.0; 3]; 3]);
    crate::math::eigen::jacobi_eigen(&a, 3, &mut lam, &mut v);
    let mut order = [0, 1, 2];
    order.sort_by(|&x, &y| lam[x].total_cmp(&lam[y]));
    let [l0, l1, l2] = order.map(|k| lam[k]);
    if !(l0 > 0.0) || l0 + l1 < 0.99 * l2 {
        return Err(e);
    }
    let mut fixed = lam;
    fixed[order[2]] = l0 + l1;
    let axis = |k: usize| Vec3::new(v[0][k], v[1][k], v[2][k]);
    let repaired = (0..3).fold(Mat3::ZERO, |m, k| {
        let u = axis(k);
        m + Mat3::from_cols(u * u.x, u * u.y, u * u.z) * fixed[k]
    });
    Ok((repaired, true))
}

/// Checks that an inertia tensor is physical: positive principal moments, each at most the sum of the other two
/// (within rounding).
pub fn check_inertia(i: &Mat3) -> Result<(), String> {
    let a: [[f64; 3]; 3] = std::array::from_fn(|r| std::array::from_fn(|c| i.col(c)[r]));
    let (mut lam, mut v) = ([0.0; 3], [[0.0; 3]; 3]);
    crate::math::eigen::jacobi_eigen(&a, 3, &mut lam, &mut v);
    lam.sort_by(f64::total_cmp);
    if !(lam[0] > 0.0) || lam[0] + lam[1] < lam[2] * (1.0 - 1e-9) {
        return Err(format!(
            "the inertia tensor is not physical: principal moments {:.6e}, {:.6e}, {:.6e} must be positive and each at most the sum of the other two",
            lam[0], lam[1], lam[2]
        ));
    }
    Ok(())
}
