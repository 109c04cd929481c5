//! Flat point sets: a mesh part whose convex hull has no volume (a plate modelled as one surface) collides as a
//! thin convex slab, its points moved out to both sides of their plane.

use crate::math::Vec3;

/// The slab's thickness as a share of the part's largest extent within its plane.
pub const SLAB_SHARE: f64 = 0.01;

/// When `points` have no 3-D convex hull of volume to speak of (all within 1e-4 of their extent of a plane: a
/// surface written in single precision, or a sliver), the points
/// moved ±t/2 along the plane's normal, t = `SLAB_SHARE` × their largest extent, and t; `None` when they have
/// a volume, or span less than a line.
pub fn slab(points: &[Vec3]) -> Option<(Vec<Vec3>, f64)> {
    if points.len() < 3 {
        return None;
    }
    let c = points.iter().fold(Vec3::ZERO, |s, p| s + *p) / points.len() as f64;
    let mut cov = [[0.0; 3]; 3];
    for p in points {
        let d = (*p - c).to_array();
        for (r, row) in cov.iter_mut().enumerate() {
            for (k, x) in row.iter_mut().enumerate() {
                *x += d[r] * d[k];
            }
        }
    }
    let (mut lam, mut v) = ([0.0; 3], [[0.0; 3]; 3]);
    crate::math::eigen::jacobi_eigen(&cov, 3, &mut lam, &mut v);
    let mut order = [0, 1, 2];
    order.sort_by(|&a, &b| lam[a].total_cmp(&lam[b]));
    let axis = |k: usize| Vec3::new(v[0][k], v[1][k], v[2][k]).normalize();
    let spread = |a: Vec3| {
        let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.dot(a)), hi.max(p.dot(a))));
        hi - lo
    };
    let (normal, width, second) = (axis(order[0]), spread(axis(order[2])), spread(axis(order[1])));
    if !(width > 0.0) || second <= 1e-4 * width || spread(normal) > 1e-4 * width {
        return None;
    }
    let t = SLAB_SHARE * width;
    let out = points.iter().flat_map(|p| [*p + normal * (0.5 * t), *p - normal * (0.5 * t)]).collect();
    Some((out, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_square_becomes_a_slab_and_a_cube_stays() {
        let sq: Vec<Vec3> = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (0.0, 1.0)]
            .iter()
            .map(|&(x, y)| Vec3::new(x, y, 0.5 * x + 0.25 * y)) // a tilted plane
            .collect();
        let (pts, t) = slab(&sq).expect("a flat square is a slab");
        // the largest extent lies between the long side (2 · √1.25) and the diagonal
        assert!(t >= SLAB_SHARE * 2.0 * 1.25f64.sqrt() - 1e-12 && t <= SLAB_SHARE * 2.5, "t = {t}");
        let hull = parry3d_f64::shape::SharedShape::convex_hull(&pts).expect("the slab has a hull");
        let (hv, ht) = hull.as_convex_polyhedron().unwrap().to_trimesh();
        let vol = crate::geometry::mass::mesh(&hv, &ht).volume;
        let area = 2.0 * (1.0f64 + 0.25 + 0.0625).sqrt(); // the tilted rectangle's area
        assert!((vol - t * area).abs() < 1e-9 * vol.max(1e-30) + 1e-12, "volume {vol}, t·area {}", t * area);
        let cube: Vec<Vec3> = (0..8).map(|i| Vec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64)).collect();
        assert!(slab(&cube).is_none());
        assert!(slab(&[Vec3::ZERO, Vec3::X, Vec3::X * 2.0]).is_none(), "a line is not a plate");
    }
}
