//! Convex pieces as polytopes: the half-space form (face planes) that the intersection by duality needs
//! (`collision::intersect`), plus the hull vertices. Curved pieces (spheres, capsules, cylinders) are
//! tessellated at a resolution the method chooses; polyhedral pieces are exact.

use crate::math::{Pose, Vec3};
use parry3d_f64::shape::{Shape, SharedShape};

/// A face plane n·x = d with unit outward normal n, in the frame the polytope lives in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    pub n: Vec3,
    pub d: f64,
}

/// A convex polytope in its body's reference frame.
#[derive(Clone)]
pub struct Polytope {
    /// Distinct face planes (coplanar triangles merged).
    pub planes: Vec<Plane>,
    /// Hull vertices.
    pub vertices: Vec<Vec3>,
    /// Hull edges (index pairs into `vertices`, each once; may include diagonals of flat faces).
    pub edges: Vec<[u32; 2]>,
    /// The same hull as a parry shape (for GJK), in the body's reference frame.
    pub hull: SharedShape,
    /// Radius of a sphere about `center` that holds the polytope, and that centre.
    pub center: Vec3,
    pub radius: f64,
}

impl std::fmt::Debug for Polytope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Polytope({} planes, {} vertices)", self.planes.len(), self.vertices.len())
    }
}

/// Surface points of a convex piece: exact for polyhedra, `resolution` segments around for curved shapes.
fn surface_points(shape: &dyn Shape, resolution: u32) -> Result<Vec<Vec3>, String> {
    let r = resolution.max(4);
    let pts = if let Some(c) = shape.as_cuboid() {
        c.to_trimesh().0
    } else if let Some(b) = shape.as_ball() {
        b.to_trimesh(r, r / 2).0
    } else if let Some(c) = shape.as_capsule() {
        c.to_trimesh(r, r / 2).0
    } else if let Some(c) = shape.as_cylinder() {
        c.to_trimesh(r).0
    } else if let Some(c) = shape.as_convex_polyhedron() {
        c.to_trimesh().0
    } else {
        return Err(format!("a convex piece of type {:?} cannot be turned into a polytope", shape.shape_type()));
    };
    Ok(pts)
}

impl Polytope {
    /// The polytope of a convex piece placed at `pose` in its body's frame.
    pub fn from_piece(pose: &Pose, shape: &dyn Shape, resolution: u32) -> Result<Self, String> {
        // a box is its own hull: the hull algorithm collapses a flat one (a 10 km × 1 m ground) to a tetrahedron
        if let Some(c) = shape.as_cuboid() {
            let (v, t) = c.to_trimesh();
            return Self::from_mesh(v.into_iter().map(|p| pose.transform_point(p)).collect(), t);
        }
        let pts: Vec<Vec3> = surface_points(shape, resolution)?.into_iter().map(|p| pose.transform_point(p)).collect();
        Self::from_points(&pts)
    }

    /// The planes and vertices placed at `pose` (world frame), written into `planes` and `vertices`.
    pub fn place(&self, pose: &Pose, planes: &mut Vec<Plane>, vertices: &mut Vec<Vec3>) {
        planes.clear();
        vertices.clear();
        for pl in &self.planes {
            let n = pose.rotation * pl.n;
            planes.push(Plane { n, d: pl.d + n.dot(pose.translation) });
        }
        vertices.extend(self.vertices.iter().map(|v| pose.transform_point(*v)));
    }

    /// The convex hull of `points` as a polytope.
    pub fn from_points(points: &[Vec3]) -> Result<Self, String> {
        let (v, t) = parry3d_f64::transformation::try_convex_hull(points).map_err(|e| format!("convex hull failed: {e}"))?;
        Self::from_mesh(v, t)
    }

    /// The polytope of a closed convex triangle mesh (outward winding).
    fn from_mesh(v: Vec<Vec3>, t: Vec<[u32; 3]>) -> Result<Self, String> {
        let mut center = Vec3::ZERO;
        for p in &v {
            center += *p;
        }
        center /= v.len().max(1) as f64;
        let radius = v.iter().map(|p| (*p - center).length()).fold(0.0, f64::max);
        let tol = 1e-9 * radius.max(1e-300);
        let mut planes: Vec<Plane> = Vec::new();
        for tri in &t {
            let (a, b, c) = (v[tri[0] as usize], v[tri[1] as usize], v[tri[2] as usize]);
            let cr = (b - a).cross(c - a);
            let len = cr.length();
            if len <= tol * radius {
                continue; // a sliver: its plane comes from its neighbours
            }
            let n = cr / len;
            let d = n.dot(a);
            if !planes.iter().any(|p| p.n.dot(n) > 1.0 - 1e-10 && (p.d - d).abs() <= tol) {
                planes.push(Plane { n, d });
            }
        }
        if planes.len() < 4 {
            return Err("the piece has no volume".into());
        }
        let mut edges: Vec<[u32; 2]> = Vec::new();
        for tri in &t {
            for k in 0..3 {
                let (i, j) = (tri[k], tri[(k + 1) % 3]);
                edges.push([i.min(j), i.max(j)]);
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let hull = SharedShape::convex_mesh(v.clone(), &t).ok_or("convex hull failed")?;
        Ok(Polytope { planes, vertices: v, edges, hull, center, radius })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_has_six_planes_and_eight_vertices() {
        let s = SharedShape::cuboid(0.5, 1.0, 1.5);
        let p = Polytope::from_piece(&Pose::IDENTITY, s.as_ref(), 16).unwrap();
        assert_eq!(p.planes.len(), 6);
        assert_eq!(p.vertices.len(), 8);
        for pl in &p.planes {
            let expect = (pl.n.x.abs() * 0.5 + pl.n.y.abs() * 1.0 + pl.n.z.abs() * 1.5) - pl.d;
            assert!(expect.abs() < 1e-12, "plane {pl:?}");
            // every vertex on the inner side
            assert!(p.vertices.iter().all(|v| pl.n.dot(*v) <= pl.d + 1e-12));
        }
    }

    #[test]
    fn tessellated_sphere_lies_inside_the_sphere_and_is_close_to_it() {
        let s = SharedShape::ball(2.0);
        let p = Polytope::from_piece(&Pose::from_translation(Vec3::new(1.0, 0.0, 0.0)), s.as_ref(), 16).unwrap();
        for v in &p.vertices {
            assert!(((*v - Vec3::new(1.0, 0.0, 0.0)).length() - 2.0).abs() < 1e-9);
        }
        // the planes are close to tangent: within cos(π/8) of the radius
        assert!(p.planes.iter().all(|pl| pl.d - pl.n.x >= 2.0 * (std::f64::consts::PI / 8.0).cos() - 1e-9));
    }

    #[test]
    fn flat_points_are_an_error_not_a_panic() {
        let pts = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)];
        assert!(Polytope::from_points(&pts).is_err());
    }

    #[test]
    fn a_flat_ten_kilometre_box_keeps_its_six_planes() {
        for side in [1e4, 1e5] {
            let s = SharedShape::cuboid(side / 2.0, side / 2.0, 0.5);
            let p = Polytope::from_piece(&Pose::from_translation(Vec3::new(0.0, 0.0, -0.5)), s.as_ref(), 16).unwrap();
            assert_eq!((p.planes.len(), p.vertices.len()), (6, 8), "side {side}");
            assert!(p.planes.iter().any(|pl| pl.n.z > 0.999 && pl.d.abs() < 1e-9), "no top face at z = 0: {:?}", p.planes);
        }
    }
}
