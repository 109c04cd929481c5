use super::*;
use crate::geometry::revolved;
use crate::geometry::sdf::{Sdf, SdfParams};
use crate::math::rng::Rng;
use std::sync::Arc;

fn gen(g: revolved::Generated, name: &str) -> ShapeDesc {
    ShapeDesc::Generated { generator: name.into(), mesh: Arc::new(g.mesh), pieces: Arc::new(g.pieces), face_tolerance: g.face_tolerance }
}

fn primitives() -> Vec<ShapeDesc> {
    vec![
        ShapeDesc::Sphere { radius: 0.5 },
        ShapeDesc::Box { size: Vec3::new(1.0, 0.5, 0.2) },
        ShapeDesc::Capsule { radius: 0.2, length: 0.6 },
        ShapeDesc::Cylinder { radius: 0.3, length: 0.5 },
    ]
}

fn meshes() -> Vec<ShapeDesc> {
    vec![
        gen(revolved::bowl(1.0, 0.2, 24, 12).unwrap(), "bowl"),
        gen(revolved::torus(1.0, 0.3, 24, 12).unwrap(), "torus"),
        gen(crate::geometry::threaded::gear(12, 1.0, 0.4).unwrap(), "gear"),
        ShapeDesc::Convex { points: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(0.7, 0.7, 0.7)] },
    ]
}

#[test]
fn points_lie_on_the_surface_and_normals_point_inward() {
    for desc in primitives() {
        let exact = Sdf::analytic(&desc, 1.0).unwrap();
        let shell = PointShell::build(&desc, default_spacing(&desc)).unwrap();
        assert!(shell.len() > 50, "{}: {} points", desc.type_name(), shell.len());
        for (p, n) in shell.points.iter().zip(&shell.normals) {
            assert!((n.length() - 1.0).abs() < 1e-12);
            let (phi, _) = exact.eval(p).unwrap();
            assert!(phi.abs() < 1e-12, "{}: point {p:?} is {phi} off the surface", desc.type_name());
            let inside = exact.eval(&(*p + *n * 0.02)).unwrap().0;
            assert!(inside < -0.005, "{}: φ {inside} a little along the normal {n:?} from {p:?}", desc.type_name());
        }
    }
    for desc in meshes() {
        let sdf = Sdf::build(&desc, &SdfParams::for_shape(&desc)).unwrap();
        let h = sdf.cell_size().unwrap();
        let shell = PointShell::build(&desc, default_spacing(&desc)).unwrap();
        for (p, n) in shell.points.iter().zip(&shell.normals) {
            assert!((n.length() - 1.0).abs() < 1e-12);
            // on the surface: the grid holds the exact distance at its nodes, within √3/2·h between them
            assert!(sdf.eval(p).unwrap().0.abs() <= 0.87 * h, "{}: point {p:?} off the surface", desc.type_name());
            // the bowl's wall is 0.2 thick: move 0.06 in, more than the grid's error 0.87 h
            let step = 0.06;
            assert!(0.87 * h < step);
            let phi = sdf.eval(&(*p + *n * step)).unwrap().0;
            assert!(phi < 0.0, "{}: φ {phi} along the normal {n:?} from {p:?}", desc.type_name());
        }
    }
}

/// Random points on the surface have a shell point within the spacing.
fn check_coverage(desc: &ShapeDesc, shell: &PointShell, spacing: f64, samples: Vec<Vec3>) {
    for q in samples {
        let nearest = shell.points.iter().map(|p| (*p - q).length()).fold(f64::INFINITY, f64::min);
        assert!(nearest <= spacing, "{}: surface point {q:?} is {nearest} from the shell (spacing {spacing})", desc.type_name());
    }
}

#[test]
fn spacing_is_respected() {
    let mut rng = Rng::new(3);
    // box: far more than its corners, a lattice at most `spacing` apart
    let desc = ShapeDesc::Box { size: Vec3::new(1.0, 0.5, 0.2) };
    let spacing = 0.05;
    let shell = PointShell::build(&desc, spacing).unwrap();
    let area = 2.0 * (0.5 + 0.2 + 0.1);
    assert!(shell.len() as f64 >= area / (spacing * spacing), "{} points for area {area}", shell.len());
    let on_box = |rng: &mut Rng| {
        let mut p = Vec3::new(rng.symmetric() * 0.5, rng.symmetric() * 0.25, rng.symmetric() * 0.1);
        let a = (rng.unit() * 3.0) as usize;
        p[a] = [0.5, 0.25, 0.1][a] * if rng.unit() < 0.5 { -1.0 } else { 1.0 };
        p
    };
    let samples = (0..500).map(|_| on_box(&mut rng)).collect();
    check_coverage(&desc, &shell, spacing, samples);
    // sphere, capsule, cylinder: random surface points
    for desc in primitives() {
        let spacing = default_spacing(&desc);
        let shell = PointShell::build(&desc, spacing).unwrap();
        let exact = Sdf::analytic(&desc, 1.0).unwrap();
        let samples = (0..300)
            .map(|_| {
                // a random direction from the centre, projected onto the surface along the gradient
                let mut p = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
                for _ in 0..50 {
                    let (phi, g) = exact.eval(&p).unwrap();
                    p -= g * phi;
                }
                p
            })
            .collect();
        check_coverage(&desc, &shell, spacing, samples);
    }
    // meshes: random points on random triangles
    for desc in meshes() {
        let ShapeDesc::Generated { mesh, .. } = &desc else { continue };
        let spacing = default_spacing(&desc);
        let shell = PointShell::build(&desc, spacing).unwrap();
        let samples = (0..300)
            .map(|_| {
                let t = mesh.triangles[(rng.unit() * mesh.triangles.len() as f64) as usize];
                let (mut u, mut w) = (rng.unit(), rng.unit());
                if u + w > 1.0 {
                    (u, w) = (1.0 - u, 1.0 - w);
                }
                let (a, b, c) = (mesh.vertices[t[0] as usize], mesh.vertices[t[1] as usize], mesh.vertices[t[2] as usize]);
                a + (b - a) * u + (c - a) * w
            })
            .collect();
        check_coverage(&desc, &shell, spacing, samples);
        // every vertex is a shell point
        assert!(shell.len() > mesh.vertices.len());
        let bits = |v: &Vec3| v.to_array().map(f64::to_bits);
        let mut have: Vec<[u64; 3]> = shell.points.iter().map(bits).collect();
        have.sort_unstable();
        assert!(mesh.vertices.iter().all(|v| have.binary_search(&bits(v)).is_ok()));
    }
}

#[test]
fn shells_are_deterministic_and_report_memory() {
    for desc in primitives().into_iter().chain(meshes()) {
        let a = PointShell::build(&desc, default_spacing(&desc)).unwrap();
        let b = PointShell::build(&desc, default_spacing(&desc)).unwrap();
        assert!(a
            .points
            .iter()
            .chain(&a.normals)
            .zip(b.points.iter().chain(&b.normals))
            .all(|(x, y)| x.to_array().map(f64::to_bits) == y.to_array().map(f64::to_bits)));
        assert!(a.memory_bytes() >= 2 * 24 * a.len());
    }
}

#[test]
fn bad_spacing_is_an_error() {
    let desc = ShapeDesc::Sphere { radius: 1.0 };
    assert!(PointShell::build(&desc, 0.0).unwrap_err().contains("positive"));
    assert!(PointShell::build(&desc, f64::NAN).unwrap_err().contains("positive"));
    assert!(PointShell::build(&desc, 1e-5).unwrap_err().contains("too many"));
}

#[test]
fn blocks_bound_their_points_and_are_compact() {
    use crate::geometry::point_shell::BLOCK;
    for desc in primitives().into_iter().chain(meshes()) {
        let (lo, hi) = crate::geometry::sdf::shape_box(&desc);
        // a fine shell (hundreds of blocks), so that compactness means something
        let spacing = (hi - lo).max_element() / 40.0;
        let s = PointShell::build(&desc, spacing).unwrap();
        assert_eq!(s.blocks.len(), s.len().div_ceil(BLOCK));
        let mut mean = 0.0;
        for (chunk, (c, h)) in s.points.chunks(BLOCK).zip(&s.blocks) {
            assert!(chunk.iter().all(|p| ((*p - *c).abs() - *h).max_element() <= 1e-12), "{}", desc.type_name());
            mean += h.length() / s.blocks.len() as f64;
        }
        // Z-order keeps a block to a patch of about √BLOCK spacings across (a shell in any order: half the shape's
        // diagonal, 0.57 for the box here against the bound 0.28)
        let bound = 2.0 * (BLOCK as f64).sqrt() * spacing;
        assert!(mean < bound && bound < 0.3 * (hi - lo).length(), "{}: mean block half-diagonal {mean}", desc.type_name());
    }
}

/// A vertex whose only faces have no area (a sliver a hull of a public robot mesh keeps where points nearly
/// coincide) gets no point of its own, and the rest of the mesh its points with unit normals.
#[test]
fn a_vertex_on_slivers_only_is_skipped() {
    let (a, b, c, d) = (Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z);
    let m = (a + b) * 0.5;
    let v = vec![a, b, c, d, m];
    // a closed tetrahedron, and two opposite zero-area triangles through the midpoint m of edge ab
    let t = vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2], [0, 4, 1], [1, 4, 0]];
    let mut s = PointShell::default();
    s.mesh(&v, &t, 0.1).expect("the sliver is skipped, not refused");
    assert!(s.normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-12), "a point without a unit normal");
    // the same points as the tetrahedron alone
    let mut plain = PointShell::default();
    plain.mesh(&v[..4], &t[..4], 0.1).unwrap();
    assert!(!plain.points.is_empty());
    assert_eq!(s.points, plain.points);
}
