//! Compound shapes: several shapes with their poses in one body (a robot link with several collision geometries).
//!
//! The parts keep their own exact mass properties; the compound's are their sum (volumes, first moments, and
//! inertias moved to the common centre of mass by the parallel-axis theorem). Overlapping parts count twice, as
//! MuJoCo counts a body's geoms. The collision shape is a parry compound of every part's convex pieces, so a
//! compound's `pieces` are those pieces placed in the body frame; its surface (abd, the intersection check) is the
//! parts' surfaces together. A compound with no parts collides with nothing: it has no pieces and no surface, and
//! the loader excludes its body from every collision pair (`Model::exclusions`).

use super::faces::PieceFaces;
use super::mass::UnitMass;
use super::{build as build_part, ShapeDesc};
use crate::math::{Mat3, Pose, Vec3};
use parry3d_f64::shape::SharedShape;

/// What [`super::build`] needs from a compound: the collision shape, the pieces and their faces, the mass.
pub(super) type Built = (SharedShape, Vec<(Pose, SharedShape)>, Vec<Option<PieceFaces>>, UnitMass);

/// Radius of the placeholder ball of a compound with no parts (it bounds nothing and collides with nothing).
pub const EMPTY_RADIUS: f64 = 1e-9;

/// True for a compound with no parts: a body that collides with nothing (no pieces, no surface).
pub fn collides_with_nothing(desc: &ShapeDesc) -> bool {
    matches!(desc, ShapeDesc::Compound { parts } if parts.is_empty())
}

/// Mass properties of parts placed by their poses: `parts` gives each part's pose and its mass properties
/// (`volume` may be a mass, `inertia` a mass-scaled inertia: the sum is linear).
pub fn combine(parts: &[(Pose, UnitMass)]) -> UnitMass {
    let volume: f64 = parts.iter().map(|(_, m)| m.volume).sum();
    if volume == 0.0 {
        return UnitMass { volume: 0.0, com: Vec3::ZERO, inertia: Mat3::ZERO };
    }
    let com = parts.iter().map(|(p, m)| p.transform_point(m.com) * m.volume).sum::<Vec3>() / volume;
    let mut inertia = Mat3::ZERO;
    for (p, m) in parts {
        let r = Mat3::from_quat(p.rotation);
        let d = p.transform_point(m.com) - com;
        let shift = Mat3::from_diagonal(Vec3::splat(d.length_squared())) - Mat3::from_cols(d * d.x, d * d.y, d * d.z);
        inertia += r * m.inertia * r.transpose() + shift * m.volume;
    }
    UnitMass { volume, com, inertia }
}

/// Builds a compound of `parts` (pose in the body frame, shape). Every part needs a volume (an open mesh
/// cannot be a part), and no part may itself be a compound.
pub(super) fn build(parts: &[(Pose, ShapeDesc)], needs_volume: bool) -> Result<Built, String> {
    if parts.is_empty() {
        let s = SharedShape::ball(EMPTY_RADIUS);
        return Ok((s, Vec::new(), Vec::new(), UnitMass { volume: 0.0, com: Vec3::ZERO, inertia: Mat3::ZERO }));
    }
    let mut pieces = Vec::new();
    let mut faces = Vec::new();
    let mut masses = Vec::new();
    for (i, (pose, desc)) in parts.iter().enumerate() {
        if matches!(desc, ShapeDesc::Compound { .. }) {
            return Err(format!("compound part #{i} is itself a compound (parts must be simple shapes)"));
        }
        let g = build_part(desc.clone(), needs_volume).map_err(|e| format!("compound part #{i} ({}): {e}", desc.type_name()))?;
        if g.pieces.is_empty() {
            return Err(format!("compound part #{i} ({}) is an open surface: a compound's parts need a volume", desc.type_name()));
        }
        for ((pp, s), f) in g.pieces.iter().zip(&g.piece_faces) {
            pieces.push((*pose * *pp, s.clone()));
            faces.push(f.clone());
        }
        masses.push((*pose, g.unit_mass));
    }
    let shape = SharedShape::compound(pieces.clone());
    Ok((shape, pieces, faces, combine(&masses)))
}

/// The parts' surfaces in the body frame, together (see [`super::surface::body_mesh`]).
pub fn mesh(parts: &[(Pose, ShapeDesc)], resolution: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    for (pose, desc) in parts {
        let (pv, pt) = super::surface::body_mesh(desc, resolution);
        let base = v.len() as u32;
        v.extend(pv.into_iter().map(|p| pose.transform_point(p)));
        t.extend(pt.into_iter().map(|tri| tri.map(|k| k + base)));
    }
    (v, t)
}

/// The parts' bounding box in the body frame (each part's box corners placed by its pose).
pub fn bounds(parts: &[(Pose, ShapeDesc)]) -> (Vec3, Vec3) {
    let (mut lo, mut hi) = (Vec3::splat(f64::INFINITY), Vec3::splat(f64::NEG_INFINITY));
    for (pose, desc) in parts {
        let (a, b) = super::sdf::shape_box(desc);
        for k in 0..8 {
            let c = Vec3::new(if k & 1 == 0 { a.x } else { b.x }, if k & 2 == 0 { a.y } else { b.y }, if k & 4 == 0 { a.z } else { b.z });
            let p = pose.transform_point(c);
            lo = lo.min(p);
            hi = hi.max(p);
        }
    }
    if parts.is_empty() {
        return (Vec3::ZERO, Vec3::ZERO);
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{build, mass};
    use crate::math::Quat;
    use std::sync::Arc;

    fn close(a: Mat3, b: Mat3, tol: f64) {
        for (x, y) in a.to_cols_array().iter().zip(b.to_cols_array()) {
            assert!((x - y).abs() <= tol, "{a:?}\nvs\n{b:?}");
        }
    }

    #[test]
    fn two_boxes_side_by_side_have_the_mass_of_one_long_box() {
        // boxes 1×1×1 at x = ±0.5: together a 2×1×1 box centred at the origin
        let unit = ShapeDesc::Box { size: Vec3::ONE };
        let parts = vec![
            (Pose::from_translation(Vec3::new(-0.5, 0.0, 0.0)), unit.clone()),
            (Pose::from_translation(Vec3::new(0.5, 0.0, 0.0)), unit),
        ];
        let g = build(ShapeDesc::Compound { parts: Arc::new(parts) }, true).unwrap();
        let long = mass::cuboid(Vec3::new(2.0, 1.0, 1.0));
        assert!((g.unit_mass.volume - 2.0).abs() < 1e-14);
        assert!(g.unit_mass.com.length() < 1e-14);
        close(g.unit_mass.inertia, long.inertia, 1e-13);
        assert_eq!(g.pieces.len(), 2);
        let aabb = g.shape.compute_local_aabb();
        assert!((aabb.maxs.x - 1.0).abs() < 1e-12 && (aabb.mins.x + 1.0).abs() < 1e-12);
        let (v, t) = crate::geometry::surface::body_mesh(&g.desc, 8);
        assert_eq!((v.len(), t.len()), (16, 24));
    }

    #[test]
    fn a_rotated_offset_cylinder_matches_its_mesh() {
        // a cylinder turned onto x and moved: the compound's inertia equals the divergence theorem on its
        // placed surface (fine tessellation: within 1% of the exact value)
        let pose = Pose::from_parts(Vec3::new(0.3, -0.2, 0.1), Quat::from_rotation_y(std::f64::consts::FRAC_PI_2));
        let part = ShapeDesc::Cylinder { radius: 0.2, length: 1.0 };
        let g = build(ShapeDesc::Compound { parts: Arc::new(vec![(pose, part)]) }, true).unwrap();
        assert!((g.unit_mass.com - Vec3::new(0.3, -0.2, 0.1)).length() < 1e-14);
        let exact = mass::cylinder(0.2, 1.0);
        // turned onto x: the axial moment lies on x now
        assert!((g.unit_mass.inertia.x_axis.x - exact.inertia.z_axis.z).abs() < 1e-14);
        assert!((g.unit_mass.inertia.z_axis.z - exact.inertia.x_axis.x).abs() < 1e-14);
        let (v, t) = crate::geometry::surface::body_mesh(&g.desc, 256);
        let m = mass::mesh(&v, &t);
        assert!((m.com - g.unit_mass.com).length() < 1e-9);
        close(m.inertia * (g.unit_mass.volume / m.volume), g.unit_mass.inertia, 1e-2 * g.unit_mass.inertia.x_axis.x);
    }

    #[test]
    fn an_empty_compound_has_no_pieces_and_no_surface_and_a_nested_one_is_an_error() {
        let g = build(ShapeDesc::Compound { parts: Arc::new(vec![]) }, true).unwrap();
        assert!(g.pieces.is_empty() && g.unit_mass.volume == 0.0);
        assert!(crate::geometry::surface::body_mesh(&g.desc, 8).0.is_empty());
        let inner = ShapeDesc::Compound { parts: Arc::new(vec![]) };
        let e = build(ShapeDesc::Compound { parts: Arc::new(vec![(Pose::IDENTITY, inner)]) }, true).unwrap_err();
        assert!(e.contains("part #0") && e.contains("itself a compound"), "{e}");
    }
}
