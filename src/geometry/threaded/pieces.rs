//! Convex pieces that follow a thread's helix (the `bolt` and `nut` generators of `mod.rs`), for the methods
//! that collide convex pieces (`lcp`, `impulse`, `volumetric-penalty`).
//!
//! A V thread of pitch p and depth d is a ridge whose cross-section in the half-plane at angle θ is a triangle,
//! and the triangle climbs p/2π per radian. Over one angular segment [θ_s, θ_s+1] of the mesh one turn of the
//! ridge is the convex hull of its triangles at the two ends (a tooth); the next segment's tooth shares the
//! triangle at θ_s+1. A tooth's face towards the axis (bolt) or away from it (nut) lies in the vertical plane of
//! the chord between the segment's vertices at the root radius, the same plane as the side of the core (bolt:
//! the prism of the root polygon) or of the body (nut: the wedge between the crest polygon and the hexagon), so
//! the pieces tile the solid without overlapping: matching bolt and nut pieces keep the nut's clearance between
//! their flanks (clearance·cos 45° across a 45° flank), where hulls of whole pitch blocks filled the valleys and
//! bolt and nut overlapped by most of the thread's depth at rest.
//!
//! The teeth are cut by the solid's end planes exactly (the hull's vertices in the slab and its edges' crossings
//! of the planes); slivers with no volume left are dropped.

use crate::math::Vec3;
use std::f64::consts::TAU;

/// The point at radius r, angle θ about z and height z.
pub(super) fn polar(r: f64, th: f64, z: f64) -> Vec3 {
    Vec3::new(r * th.cos(), r * th.sin(), z)
}

/// The ridge's cross-section at angle θ for turn k: three (r, z) corners.
pub(super) type Profile<'a> = &'a dyn Fn(f64, i64) -> [(f64, f64); 3];

/// Teeth of a ridge with `segments` per turn between heights `z_lo` and `z_hi`: for every segment and every turn
/// k in `turns`, the hull of the profile at both ends of the segment, cut to the slab.
pub(super) fn teeth(profile: Profile, segments: usize, turns: std::ops::RangeInclusive<i64>, z_lo: f64, z_hi: f64) -> Vec<Vec<Vec3>> {
    let mut pieces = Vec::new();
    for k in turns {
        for s in 0..segments {
            let (t0, t1) = (TAU * s as f64 / segments as f64, TAU * (s + 1) as f64 / segments as f64);
            let corners: Vec<Vec3> =
                profile(t0, k).iter().map(|&(r, z)| polar(r, t0, z)).chain(profile(t1, k).iter().map(|&(r, z)| polar(r, t1, z))).collect();
            let cut = slab(&corners, z_lo, z_hi);
            if spans_volume(&cut, 1e-9 * (z_hi - z_lo)) {
                pieces.push(cut);
            }
        }
    }
    pieces
}

/// The vertices of the hull of `points` cut to z_lo ≤ z ≤ z_hi: the points inside and every crossing of the planes
/// by a segment between two points (the hull's edges are among those segments).
fn slab(points: &[Vec3], z_lo: f64, z_hi: f64) -> Vec<Vec3> {
    let mut out: Vec<Vec3> = points.iter().copied().filter(|p| p.z >= z_lo && p.z <= z_hi).collect();
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            for z in [z_lo, z_hi] {
                if (a.z - z) * (b.z - z) < 0.0 {
                    out.push(*a + (*b - *a) * ((z - a.z) / (b.z - a.z)));
                }
            }
        }
    }
    out
}

/// True when the points are not all within `eps` of one plane.
fn spans_volume(points: &[Vec3], eps: f64) -> bool {
    let Some(&p0) = points.first() else { return false };
    let far = |from: &dyn Fn(Vec3) -> f64| points.iter().copied().max_by(|a, b| from(*a).total_cmp(&from(*b))).unwrap();
    let p1 = far(&|p| (p - p0).length());
    let axis = p1 - p0;
    if axis.length() <= eps {
        return false;
    }
    let p2 = far(&|p| axis.cross(p - p0).length());
    let normal = axis.cross(p2 - p0);
    if normal.length() <= eps * axis.length() {
        return false;
    }
    let n = normal.normalize();
    points.iter().any(|p| (*p - p0).dot(n).abs() > eps)
}

/// A prism over the regular polygon of `segments` vertices at radius `r` from z0 to z1.
pub(super) fn ring_prism(r: f64, segments: usize, z0: f64, z1: f64) -> Vec<Vec3> {
    [z0, z1]
        .iter()
        .flat_map(|&z| {
            (0..segments).map(move |s| {
                let th = TAU * s as f64 / segments as f64;
                polar(r, th, z)
            })
        })
        .collect()
}

/// One wedge per segment between radius `r_in` and the outline `r_out(θ)`, from z0 to z1.
pub(super) fn wedges(r_in: f64, r_out: &dyn Fn(f64) -> f64, segments: usize, z0: f64, z1: f64) -> Vec<Vec<Vec3>> {
    (0..segments)
        .map(|s| {
            let mut pts = Vec::with_capacity(8);
            for th in [TAU * s as f64 / segments as f64, TAU * (s + 1) as f64 / segments as f64] {
                for z in [z0, z1] {
                    pts.push(polar(r_in, th, z));
                    pts.push(polar(r_out(th), th, z));
                }
            }
            pts
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slab_cuts_a_box_exactly_and_slivers_are_dropped() {
        let cube: Vec<Vec3> = (0..8).map(|i| Vec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64 * 2.0 - 1.0)).collect();
        let cut = slab(&cube, 0.0, 0.5);
        let hull = parry3d_f64::shape::SharedShape::convex_hull(&cut).unwrap();
        let (v, t) = hull.as_convex_polyhedron().unwrap().to_trimesh();
        let vol = crate::geometry::mass::mesh(&v, &t).volume;
        assert!((vol - 0.5).abs() < 1e-12, "cut volume {vol}");
        assert!(spans_volume(&cube, 1e-9));
        let flat: Vec<Vec3> = cube.iter().map(|p| Vec3::new(p.x, p.y, 0.0)).collect();
        assert!(!spans_volume(&flat, 1e-9));
        assert!(!spans_volume(&slab(&cube, 1.0, 2.0), 1e-9), "a slab touching one face leaves a sliver");
    }
}
