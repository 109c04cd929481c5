//! Seams: the planes where two convex pieces of one body meet.
//!
//! A non-convex body is a union of convex pieces (Hasegawa et al. §4.1), and the penalty is computed per pair of
//! pieces. A piece's face on a seam is not a face of the body, and eq. (1) would weigh it as if it were, tilting
//! the normal toward the seam's; `Volumetric::normal` leaves the seams' faces out of eq. (1).

use crate::geometry::polytope::Polytope;

/// For each piece of a body, for each of its planes: whether another piece of the same body has the same
/// plane facing the other way (a seam). `tol` is the distance under which two planes are the same.
pub fn seam_planes(pieces: &[Polytope], tol: f64) -> Vec<Vec<bool>> {
    pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            p.planes
                .iter()
                .map(|a| {
                    pieces
                        .iter()
                        .enumerate()
                        .any(|(j, q)| j != i && q.planes.iter().any(|b| a.n.dot(b.n) < -1.0 + 1e-9 && (a.d + b.d).abs() <= tol))
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;

    fn cube(at: Vec3, half: f64) -> Polytope {
        let mut pts = Vec::new();
        for i in 0..8 {
            let s = |b: usize| if i & (1 << b) != 0 { half } else { -half };
            pts.push(at + Vec3::new(s(0), s(1), s(2)));
        }
        Polytope::from_points(&pts).unwrap()
    }

    #[test]
    fn two_cubes_side_by_side_share_one_seam_and_a_lone_cube_has_none() {
        let pieces = [cube(Vec3::ZERO, 0.5), cube(Vec3::new(1.0, 0.0, 0.0), 0.5)];
        let s = seam_planes(&pieces, 1e-9);
        for (p, flags) in pieces.iter().zip(&s) {
            let seams: Vec<_> = p.planes.iter().zip(flags).filter(|(_, f)| **f).map(|(pl, _)| pl.n).collect();
            assert_eq!(seams.len(), 1, "{seams:?}");
            assert!(seams[0].x.abs() > 1.0 - 1e-12);
        }
        // the cubes apart by more than the tolerance: no seam
        let apart = [cube(Vec3::ZERO, 0.5), cube(Vec3::new(1.0 + 1e-6, 0.0, 0.0), 0.5)];
        assert!(seam_planes(&apart, 1e-9).iter().flatten().all(|f| !f));
        assert!(seam_planes(&[cube(Vec3::ZERO, 0.5)], 1e-9).iter().flatten().all(|f| !f));
    }
}
