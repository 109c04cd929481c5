//! Shapes and what the methods need from them, computed once per scene: the collision shape (a parry shape,
//! a compound of convex pieces for non-convex meshes), the convex pieces themselves, and exact mass properties.

pub mod compound;
pub mod faces;
pub mod fields;
pub mod flat;
pub mod mass;
pub mod mesh;
pub mod perforated;
pub mod point_shell;
pub mod polytope;
pub mod revolved;
pub mod sdf;
pub mod surface;
pub mod threaded;

use crate::math::{Pose, Quat, Vec3};
use mass::UnitMass;
use mesh::TriMeshData;
use parry3d_f64::shape::SharedShape;
use std::sync::Arc;

/// A shape as the scene describes it, in the body's reference frame.
#[derive(Debug, Clone)]
pub enum ShapeDesc {
    Sphere {
        radius: f64,
    },
    Box {
        size: Vec3,
    },
    /// Segment of `length` along local z, capped.
    Capsule {
        radius: f64,
        length: f64,
    },
    /// Along local z, centred.
    Cylinder {
        radius: f64,
        length: f64,
    },
    /// Convex hull of points.
    Convex {
        points: Vec<Vec3>,
    },
    /// Closed (or, for static bodies, possibly open) triangle mesh.
    Mesh {
        mesh: Arc<TriMeshData>,
        source: String,
    },
    /// A procedural solid (geometry/revolved.rs, geometry/threaded/) with its exact convex decomposition.
    Generated {
        generator: String,
        mesh: Arc<TriMeshData>,
        pieces: Arc<Vec<Vec<Vec3>>>,
        /// A piece's face within this distance of the mesh is real (`Generated::face_tolerance`).
        face_tolerance: f64,
    },
    /// Several shapes, each placed by its pose in the body frame (geometry/compound.rs); no parts: a body that
    /// collides with nothing.
    Compound {
        parts: Arc<Vec<(Pose, ShapeDesc)>>,
    },
}

impl ShapeDesc {
    /// The shape's type name as the scene format writes it.
    pub fn type_name(&self) -> &'static str {
        match self {
            ShapeDesc::Sphere { .. } => "sphere",
            ShapeDesc::Box { .. } => "box",
            ShapeDesc::Capsule { .. } => "capsule",
            ShapeDesc::Cylinder { .. } => "cylinder",
            ShapeDesc::Convex { .. } => "convex",
            ShapeDesc::Mesh { .. } => "mesh",
            ShapeDesc::Generated { .. } => "generated",
            ShapeDesc::Compound { .. } => "compound",
        }
    }
}

/// A shape ready for collision and dynamics.
#[derive(Clone)]
pub struct Geometry {
    pub desc: ShapeDesc,
    /// The collision shape in the body's reference frame.
    pub shape: SharedShape,
    /// Convex pieces (pose in the reference frame, convex shape); one piece for convex shapes.
    pub pieces: Vec<(Pose, SharedShape)>,
    /// Per piece: its real and virtual faces when it has virtual ones (decomposed bodies), else `None`.
    pub piece_faces: Vec<Option<faces::PieceFaces>>,
    /// Mass properties per unit density.
    pub unit_mass: UnitMass,
    /// Radius of a sphere about the centre of mass that holds the whole shape.
    pub radius_about_com: f64,
}

impl std::fmt::Debug for Geometry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Geometry({}, {} piece(s))", self.desc.type_name(), self.pieces.len())
    }
}

/// Builds the geometry of a shape. `needs_volume` is true for dynamic bodies: meshes must then be closed and
/// outward oriented. Errors are plain descriptions; the caller adds the file and the body.
pub fn build(desc: ShapeDesc, needs_volume: bool) -> Result<Geometry, String> {
    let mut piece_faces = Vec::new();
    let (shape, pieces, unit_mass) = match &desc {
        ShapeDesc::Sphere { radius } => {
            let s = SharedShape::ball(*radius);
            (s.clone(), vec![(Pose::IDENTITY, s)], mass::sphere(*radius))
        }
        ShapeDesc::Box { size } => {
            let s = SharedShape::cuboid(size.x / 2.0, size.y / 2.0, size.z / 2.0);
            (s.clone(), vec![(Pose::IDENTITY, s)], mass::cuboid(*size))
        }
        ShapeDesc::Capsule { radius, length } => {
            let s = SharedShape::capsule_z(length / 2.0, *radius);
            (s.clone(), vec![(Pose::IDENTITY, s)], mass::capsule(*radius, *length))
        }
        ShapeDesc::Cylinder { radius, length } => {
            // parry's cylinder runs along y: turn it onto z
            let pose = Pose::from_rotation(Quat::from_rotation_x(std::f64::consts::FRAC_PI_2));
            let c = SharedShape::cylinder(length / 2.0, *radius);
            (SharedShape::compound(vec![(pose, c.clone())]), vec![(pose, c)], mass::cylinder(*radius, *length))
        }
        ShapeDesc::Convex { points } => {
            let hull =
                SharedShape::convex_hull(points).ok_or("the points have no 3-D convex hull (fewer than 4 points, or all coplanar)")?;
            let poly = hull.as_convex_polyhedron().ok_or("convex hull failed")?;
            let (v, t) = poly.to_trimesh();
            let um = mass::mesh(&v, &t);
            if um.volume <= 0.0 {
                return Err("the convex hull has zero volume".into());
            }
            (hull.clone(), vec![(Pose::IDENTITY, hull)], um)
        }
        ShapeDesc::Mesh { mesh, source } => {
            let closed = mesh.check_closed().map_err(|e| format!("mesh file {source}: {e}"));
            let um = mass::mesh(&mesh.vertices, &mesh.triangles);
            if needs_volume {
                if let Err(e) = closed {
                    return Err(format!("a dynamic body needs a closed, consistently oriented mesh: {e}"));
                }
                if um.volume <= 0.0 {
                    return Err(format!("mesh file {source}: the mesh is inverted (its triangles face inward: negative volume)"));
                }
            }
            if closed.is_err() || um.volume <= 0.0 {
                // open surface on a static body: collide against the triangles themselves
                let s = SharedShape::trimesh(mesh.vertices.clone(), mesh.triangles.clone())
                    .map_err(|e| format!("mesh file {source}: invalid triangle mesh: {e}"))?;
                (s, vec![], um)
            } else {
                let hull = SharedShape::convex_hull(&mesh.vertices).ok_or("the mesh has no 3-D convex hull")?;
                let (hv, ht) = hull.as_convex_polyhedron().ok_or("convex hull failed")?.to_trimesh();
                let hull_volume = mass::mesh(&hv, &ht).volume;
                if (hull_volume - um.volume).abs() <= 1e-6 * hull_volume {
                    (hull.clone(), vec![(Pose::IDENTITY, hull)], um)
                } else {
                    let compound = SharedShape::convex_decomposition(&mesh.vertices, &mesh.triangles);
                    let parts: Vec<(Pose, SharedShape)> = compound.as_compound().map(|c| c.shapes().to_vec()).unwrap_or_default();
                    if parts.is_empty() {
                        return Err("convex decomposition produced no pieces".into());
                    }
                    // the decomposition's hulls only approximate the surface: a face counts as real within 2% of
                    // the body's size
                    let surface = parry3d_f64::shape::TriMesh::new(mesh.vertices.clone(), mesh.triangles.clone())
                        .map_err(|e| format!("mesh file {source}: invalid triangle mesh: {e}"))?;
                    let size = compound.compute_local_bounding_sphere().radius;
                    piece_faces = faces::classify(&parts, &surface, 0.02 * size);
                    (compound, parts, um)
                }
            }
        }
        ShapeDesc::Generated { mesh, pieces, face_tolerance, .. } => {
            mesh.check_closed().map_err(|e| format!("generated mesh is not closed: {e}"))?;
            let um = mass::mesh(&mesh.vertices, &mesh.triangles);
            let parts = pieces
                .iter()
                .map(|p| SharedShape::convex_hull(p).map(|s| (Pose::IDENTITY, s)).ok_or("a generated piece has no 3-D hull"))
                .collect::<Result<Vec<_>, _>>()?;
            let surface = parry3d_f64::shape::TriMesh::new(mesh.vertices.clone(), mesh.triangles.clone())
                .map_err(|e| format!("invalid triangle mesh: {e}"))?;
            let compound = SharedShape::compound(parts.clone());
            let size = compound.compute_local_bounding_sphere().radius;
            piece_faces = faces::classify(&parts, &surface, face_tolerance.max(1e-9 * size));
            (compound, parts, um)
        }
        ShapeDesc::Compound { parts } => {
            let (shape, pieces, faces, um) = compound::build(parts, needs_volume)?;
            piece_faces = faces;
            (shape, pieces, um)
        }
    };
    piece_faces.resize(pieces.len(), None);
    let sphere = shape.compute_local_bounding_sphere();
    let radius_about_com = sphere.radius + (sphere.center - unit_mass.com).length();
    Ok(Geometry { desc, shape, pieces, piece_faces, unit_mass, radius_about_com })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l_shaped_mesh_is_decomposed_and_keeps_exact_mass() {
        // an L made of two unit cubes side by side plus one on top of the first: volume 3, non-convex
        let poly = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 2.0),
            Vec3::new(0.0, 0.0, 2.0),
        ];
        let n = poly.len() as u32;
        let mut vertices: Vec<Vec3> = poly.to_vec();
        vertices.extend(poly.iter().map(|p| *p + Vec3::new(0.0, 1.0, 0.0)));
        let mut triangles = Vec::new();
        // caps: fan from the corner 0 is valid for this L (it is star-shaped from vertex 0)
        for i in 1..n - 1 {
            triangles.push([0, i, i + 1]); // y = 0 face, normal -y
            triangles.push([n, n + i + 1, n + i]); // y = 1 face, normal +y
        }
        for i in 0..n {
            let j = (i + 1) % n;
            triangles.push([i, n + i, j]);
            triangles.push([j, n + i, n + j]);
        }
        let mut m = TriMeshData { vertices, triangles };
        if mass::mesh(&m.vertices, &m.triangles).volume < 0.0 {
            for t in &mut m.triangles {
                t.swap(1, 2);
            }
        }
        m.check_closed().unwrap();
        let g = build(ShapeDesc::Mesh { mesh: Arc::new(m), source: "L".into() }, true).unwrap();
        assert!((g.unit_mass.volume - 3.0).abs() < 1e-12);
        assert!(g.pieces.len() >= 2, "a non-convex mesh must be split, got {} piece(s)", g.pieces.len());
    }

    #[test]
    fn cylinder_lies_along_z() {
        let g = build(ShapeDesc::Cylinder { radius: 0.5, length: 3.0 }, true).unwrap();
        let aabb = g.shape.compute_local_aabb();
        assert!((aabb.maxs.z - 1.5).abs() < 1e-12 && (aabb.maxs.x - 0.5).abs() < 1e-12);
    }
}
