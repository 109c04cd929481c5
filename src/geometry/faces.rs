//! Real and virtual faces of the convex pieces of a decomposed body. A face of a piece is *real* when it lies on
//! the body's original surface, and *virtual* when the decomposition created it (a cut through the inside). The
//! `impulse` method takes penetration depths from real faces only (the pulsk report's change to DEEP).

use crate::math::{Pose, Vec3};
use parry3d_f64::query::PointQuery;
use parry3d_f64::shape::{SharedShape, TriMesh};

/// The outward unit normals of a piece's faces, in the piece's frame, split by kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PieceFaces {
    pub real: Vec<Vec3>,
    pub virtual_: Vec<Vec3>,
}

/// Classifies the faces of each piece (pose in the body frame, convex polyhedron) against the body's surface: a
/// face is real when its centroid lies within `tolerance` of the surface. Pieces whose faces are all real get
/// `None` (nothing to restrict).
pub fn classify(pieces: &[(Pose, SharedShape)], surface: &TriMesh, tolerance: f64) -> Vec<Option<PieceFaces>> {
    pieces
        .iter()
        .map(|(pose, shape)| {
            let poly = shape.as_convex_polyhedron()?;
            let mut out = PieceFaces::default();
            for f in poly.faces() {
                let ids = &poly.vertices_adj_to_face()[f.first_vertex_or_edge as usize..][..f.num_vertices_or_edges as usize];
                let centroid = ids.iter().map(|&i| poly.points()[i as usize]).sum::<Vec3>() / ids.len() as f64;
                let d = surface.distance_to_local_point(pose.transform_point(centroid), false);
                if d <= tolerance {
                    out.real.push(f.normal);
                } else {
                    out.virtual_.push(f.normal);
                }
            }
            (!out.virtual_.is_empty()).then_some(out)
        })
        .collect()
}
