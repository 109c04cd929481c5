use super::*;
use crate::geometry::revolved;
use crate::math::rng::Rng;
use parry3d_f64::query::PointQuery;
use std::sync::Arc;

fn gen(g: revolved::Generated, name: &str) -> ShapeDesc {
    ShapeDesc::Generated { generator: name.into(), mesh: Arc::new(g.mesh), pieces: Arc::new(g.pieces), face_tolerance: g.face_tolerance }
}

fn random_point(rng: &mut Rng, sdf: &Sdf) -> Vec3 {
    let (lo, hi) = sdf.bounds();
    lo + (hi - lo) * Vec3::new(rng.unit(), rng.unit(), rng.unit())
}

/// A trilinear interpolant of a 1-Lipschitz function is within the distance to the farthest cell corner,
/// √3/2 · h, of it; within the band the grid holds the exact distance at the nodes.
fn check_against(desc: &ShapeDesc, params: &SdfParams, exact: impl Fn(Vec3) -> f64, samples: usize, seed: u64) {
    let sdf = Sdf::build(desc, params).unwrap();
    let h = sdf.cell_size().unwrap();
    let band = sdf.band().unwrap();
    let tol = 0.5 * 3f64.sqrt() * h;
    let mut rng = Rng::new(seed);
    let (mut checked, mut signs) = (0, 0);
    for _ in 0..samples {
        let p = random_point(&mut rng, &sdf);
        let (phi, _) = sdf.eval(&p).expect("a point of the box");
        let d = exact(p);
        if d.abs() + tol < band {
            assert!((phi - d).abs() <= tol, "{}: φ {phi} vs exact {d} at {p:?} (tolerance {tol})", desc.type_name());
            checked += 1;
        } else {
            assert!(phi.abs() <= band + 1e-12, "{}: |φ| {phi} beyond the band {band}", desc.type_name());
        }
        if d.abs() > tol {
            assert_eq!(phi < 0.0, d < 0.0, "{}: wrong sign at {p:?}: φ {phi}, exact {d}", desc.type_name());
            signs += 1;
        }
    }
    assert!(checked > samples / 4 && signs > samples / 2, "too few samples checked: {checked} values, {signs} signs");
}

#[test]
fn primitives_match_their_exact_distance() {
    let p = SdfParams { resolution: 24, band: 0.6 };
    check_against(&ShapeDesc::Sphere { radius: 0.7 }, &p, |q| q.length() - 0.7, 4000, 1);
    let size = Vec3::new(1.0, 0.6, 0.3);
    let boxd = |q: Vec3| {
        let d = q.abs() - size * 0.5;
        d.max(Vec3::ZERO).length() + d.max_element().min(0.0)
    };
    check_against(&ShapeDesc::Box { size }, &p, boxd, 4000, 2);
    let capsule = |q: Vec3| (q - Vec3::new(0.0, 0.0, q.z.clamp(-0.4, 0.4))).length() - 0.25;
    check_against(&ShapeDesc::Capsule { radius: 0.25, length: 0.8 }, &p, capsule, 4000, 3);
    let cylinder = |q: Vec3| {
        let (dr, dz) = ((q.x * q.x + q.y * q.y).sqrt() - 0.3, q.z.abs() - 0.5);
        dr.max(0.0).hypot(dz.max(0.0)) + dr.max(dz).min(0.0)
    };
    check_against(&ShapeDesc::Cylinder { radius: 0.3, length: 1.0 }, &p, cylinder, 4000, 4);
}

#[test]
fn analytic_fields_are_exact_with_unit_gradients() {
    let mut rng = Rng::new(5);
    for desc in [
        ShapeDesc::Sphere { radius: 0.7 },
        ShapeDesc::Box { size: Vec3::new(10.0, 8.0, 1.0) },
        ShapeDesc::Capsule { radius: 0.25, length: 0.8 },
        ShapeDesc::Cylinder { radius: 0.3, length: 1.0 },
    ] {
        let sdf = Sdf::analytic(&desc, 0.5).unwrap();
        assert!(sdf.is_analytic() && sdf.memory_bytes() == std::mem::size_of::<Sdf>());
        let grid = Sdf::build(&desc, &SdfParams { resolution: 64, band: 3.0 }).unwrap();
        for _ in 0..2000 {
            let p = random_point(&mut rng, &sdf);
            let (phi, g) = sdf.eval(&p).unwrap();
            assert!((g.length() - 1.0).abs() < 1e-12, "{}: |∇φ| = {}", desc.type_name(), g.length());
            // the grid samples the same function: they agree at the nodes, so within a cell's reach
            if let Some((pg, _)) = grid.eval(&p) {
                let h = grid.cell_size().unwrap();
                assert!((pg - phi).abs() <= 0.87 * h, "{}: analytic {phi} vs grid {pg}", desc.type_name());
            }
            // finite differences of the exact field off its medial axis and edges
            let e = 1e-7;
            let fd = Vec3::new(
                sdf.eval(&(p + Vec3::X * e)).unwrap().0 - sdf.eval(&(p - Vec3::X * e)).unwrap().0,
                sdf.eval(&(p + Vec3::Y * e)).unwrap().0 - sdf.eval(&(p - Vec3::Y * e)).unwrap().0,
                sdf.eval(&(p + Vec3::Z * e)).unwrap().0 - sdf.eval(&(p - Vec3::Z * e)).unwrap().0,
            ) / (2.0 * e);
            if (fd - g).length() > 1e-5 {
                // only where the exact gradient jumps: the two sides disagree
                let step = g * 1e-5;
                let ga = sdf.eval(&(p + step)).unwrap().1;
                let gb = sdf.eval(&(p - step)).unwrap().1;
                assert!((ga - gb).length() > 1e-3, "{}: gradient {g:?} vs finite differences {fd:?} at {p:?}", desc.type_name());
            }
        }
        assert!(sdf.eval(&(sdf.bounds().1 + Vec3::splat(1e-9))).is_none());
    }
}

#[test]
fn gradient_is_the_interpolants_derivative() {
    let desc = gen(revolved::torus(1.0, 0.3, 24, 12).unwrap(), "torus");
    let sdf = Sdf::build(&desc, &SdfParams { resolution: 32, band: 0.4 }).unwrap();
    let h = sdf.cell_size().unwrap();
    let mut rng = Rng::new(7);
    let mut tested = 0;
    for _ in 0..3000 {
        let p = random_point(&mut rng, &sdf);
        let (lo, _) = sdf.bounds();
        // stay away from cell faces, where the interpolant's derivative jumps
        let f = ((p - lo) / h).fract();
        if f.min_element() < 1e-3 || f.max_element() > 1.0 - 1e-3 {
            continue;
        }
        let (_, g) = sdf.eval(&p).unwrap();
        let e = 1e-7 * h;
        let mut fd = Vec3::ZERO;
        for a in 0..3 {
            let mut d = Vec3::ZERO;
            d[a] = e;
            fd[a] = (sdf.eval(&(p + d)).unwrap().0 - sdf.eval(&(p - d)).unwrap().0) / (2.0 * e);
        }
        assert!((fd - g).length() <= 1e-6 * g.length().max(1.0), "gradient {g:?} vs finite differences {fd:?}");
        tested += 1;
    }
    assert!(tested > 2500);
}

/// Bowl and torus: non-convex closed meshes. φ at random points against the exact distance to the same mesh
/// (parry's projection) and the sign against the solid's own inside test (the pieces' union).
#[test]
fn non_convex_meshes_have_exact_signs_and_values() {
    for (desc, seed) in
        [(gen(revolved::torus(1.0, 0.3, 24, 12).unwrap(), "torus"), 11), (gen(revolved::bowl(1.0, 0.15, 24, 12).unwrap(), "bowl"), 12)]
    {
        let ShapeDesc::Generated { mesh, pieces, .. } = &desc else { unreachable!() };
        let tri = TriMesh::new(mesh.vertices.clone(), mesh.triangles.clone()).unwrap();
        let hulls: Vec<_> = pieces.iter().map(|p| parry3d_f64::shape::SharedShape::convex_hull(p).unwrap()).collect();
        let inside = |p: Vec3| hulls.iter().any(|h| h.contains_local_point(p));
        let exact = |p: Vec3| {
            let d = (tri.project_local_point(p, false).point - p).length();
            if inside(p) {
                -d
            } else {
                d
            }
        };
        let params = SdfParams::for_shape(&desc);
        check_against(&desc, &params, exact, 3000, seed);
    }
}

#[test]
fn far_nodes_keep_their_sign_through_the_flood_fill() {
    // a thick cup with a narrow band: its floor and the air inside the cup are both beyond the band
    let desc = gen(revolved::cup(1.0, 1.0, 0.5, 24).unwrap(), "cup");
    let sdf = Sdf::build(&desc, &SdfParams { resolution: 40, band: 0.1 }).unwrap();
    assert_eq!(sdf.eval(&Vec3::new(0.0, 0.0, 0.25)).unwrap().0, -0.1, "deep in the floor");
    assert_eq!(sdf.eval(&Vec3::new(0.0, 0.0, 0.8)).unwrap().0, 0.1, "air inside the cup");
    assert_eq!(sdf.eval(&Vec3::new(0.0, 0.0, -0.15)).unwrap().0, 0.1, "below the cup");
}

#[test]
fn convex_hulls_and_defaults() {
    let points = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(0.8, 0.8, 0.8),
    ];
    let desc = ShapeDesc::Convex { points };
    let params = SdfParams::for_shape(&desc);
    assert!(params.resolution >= MESH_RESOLUTION[0] && params.resolution <= MESH_RESOLUTION[1]);
    let sdf = Sdf::build(&desc, &params).unwrap();
    assert!(sdf.eval(&Vec3::splat(0.3)).unwrap().0 < 0.0);
    assert!(sdf.eval(&Vec3::splat(-0.05)).unwrap().0 > 0.0);
    // the box covers the shape and the band
    let (lo, hi) = sdf.bounds();
    assert!(lo.max_element() <= -params.band && hi.min_element() >= 0.8 + params.band);
    let n = sdf.nodes();
    assert_eq!(sdf.memory_bytes(), std::mem::size_of::<Sdf>() + 8 * n[0] * n[1] * n[2]);
}

#[test]
fn bad_parameters_and_open_meshes_are_errors() {
    let s = ShapeDesc::Sphere { radius: 1.0 };
    assert!(Sdf::build(&s, &SdfParams { resolution: 2, band: 1.0 }).unwrap_err().contains("resolution"));
    assert!(Sdf::build(&s, &SdfParams { resolution: 16, band: 0.01 }).unwrap_err().contains("band"));
    let mut m = revolved::torus(1.0, 0.3, 8, 6).unwrap().mesh;
    m.triangles.pop();
    let open = ShapeDesc::Mesh { mesh: Arc::new(m), source: "open.obj".into() };
    let err = Sdf::build(&open, &SdfParams { resolution: 16, band: 0.5 }).unwrap_err();
    assert!(err.contains("closed"), "{err}");
}

#[test]
fn build_is_deterministic_across_thread_counts() {
    let desc = gen(revolved::bowl(1.0, 0.2, 16, 8).unwrap(), "bowl");
    let params = SdfParams { resolution: 32, band: 0.2 };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| Sdf::build(&desc, &params).unwrap());
    let many = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| Sdf::build(&desc, &params).unwrap());
    let (Kind::Grid(a), Kind::Grid(b)) = (&one.kind, &many.kind) else { panic!("grids expected") };
    assert!(a.phi.iter().zip(&b.phi).all(|(x, y)| x.to_bits() == y.to_bits()));
}

/// A compound's field is the least of its parts' (each placed by its pose, its gradient turned with it), a
/// compound without parts is defined nowhere (nothing touches a robot link without collision geometry), and its
/// point shell is its parts' shells placed by their poses.
#[test]
fn a_compound_field_is_the_least_of_its_parts_and_an_empty_one_touches_nothing() {
    use crate::math::{Pose, Quat};
    let b = ShapeDesc::Box { size: Vec3::splat(1.0) };
    let turned = Pose::from_parts(Vec3::new(2.0, 0.0, 0.0), Quat::from_rotation_z(std::f64::consts::FRAC_PI_2));
    let parts = Arc::new(vec![(Pose::IDENTITY, b.clone()), (turned, ShapeDesc::Box { size: Vec3::new(1.0, 3.0, 1.0) })]);
    let f = Sdf::build(&ShapeDesc::Compound { parts: parts.clone() }, &SdfParams { resolution: 32, band: 0.5 }).unwrap();
    // in the second box (turned: its 3 m side along x), 0.2 m from its face at y = 0.5
    let (phi, g) = f.eval(&Vec3::new(2.2, 0.3, 0.0)).unwrap();
    assert!((phi + 0.2).abs() < 1e-12 && (g - Vec3::Y).length() < 1e-12, "{phi} {g:?}");
    // in both boxes' reach: the nearer
    let (phi, g) = f.eval(&Vec3::new(0.3, 0.0, 0.0)).unwrap();
    assert!((phi + 0.2).abs() < 1e-12 && (g - Vec3::X).length() < 1e-12, "{phi} {g:?}");
    assert!(f.may_penetrate(Vec3::new(3.4, 0.0, 0.0), Vec3::splat(0.01)) && !f.may_penetrate(Vec3::new(0.0, 2.0, 0.0), Vec3::splat(0.1)));
    let empty = Sdf::build(&ShapeDesc::Compound { parts: Arc::new(vec![]) }, &SdfParams { resolution: 32, band: 0.5 }).unwrap();
    assert!(empty.eval(&Vec3::ZERO).is_none() && !empty.may_penetrate(Vec3::ZERO, Vec3::splat(1e9)));
    let shell = crate::geometry::point_shell::PointShell::build(&ShapeDesc::Compound { parts }, 0.1).unwrap();
    let one = crate::geometry::point_shell::PointShell::build(&b, 0.1).unwrap();
    assert!(shell.points.len() > 2 * one.points.len(), "{} points", shell.points.len());
    assert!(shell.points.iter().filter(|p| p.x > 1.2).count() > one.points.len(), "the second part's points are placed by its pose");
    let empty = crate::geometry::point_shell::PointShell::build(&ShapeDesc::Compound { parts: Arc::new(vec![]) }, 0.0).unwrap();
    assert!(empty.points.is_empty());
}

/// The Hessian against central differences of the gradient, at `samples` random points of the field's box away
/// from where the gradient is not smooth (`smooth(p)` false: cell faces of a grid, a primitive's ridges).
fn check_hessian(sdf: &Sdf, smooth: impl Fn(Vec3) -> bool, samples: usize, seed: u64) -> usize {
    let mut rng = Rng::new(seed);
    let mut tested = 0;
    for _ in 0..samples {
        let p = random_point(&mut rng, sdf);
        if !smooth(p) {
            continue;
        }
        let h = sdf.hessian(&p);
        let e = 1e-6;
        for a in 0..3 {
            let mut d = Vec3::ZERO;
            d[a] = e;
            let fd = (sdf.eval(&(p + d)).unwrap().1 - sdf.eval(&(p - d)).unwrap().1) / (2.0 * e);
            let scale = h.abs().to_cols_array().iter().fold(1.0f64, |m, v| m.max(*v));
            assert!((fd - h.col(a)).length() <= 1e-6 * scale, "column {a}: {:?} vs finite differences {fd:?} at {p:?}", h.col(a));
        }
        tested += 1;
    }
    tested
}

#[test]
fn hessian_is_the_gradients_derivative() {
    // a grid: within a cell (the interpolant's gradient jumps across cell faces)
    let desc = gen(revolved::torus(1.0, 0.3, 24, 12).unwrap(), "torus");
    let grid = Sdf::build(&desc, &SdfParams { resolution: 32, band: 0.4 }).unwrap();
    let (h, lo) = (grid.cell_size().unwrap(), grid.bounds().0);
    let inner = |p: Vec3| {
        let f = ((p - lo) / h).fract();
        f.min_element() > 1e-3 && f.max_element() < 1.0 - 1e-3
    };
    assert!(check_hessian(&grid, inner, 3000, 11) > 2500);
    assert!(!grid.is_exact());
    // the primitives: away from the ridges where the nearest feature changes (the gradient jumps there)
    let near_ridge = |sdf: &Sdf, p: Vec3| {
        let e = 1e-4;
        let g = sdf.eval(&p).unwrap().1;
        [Vec3::X, Vec3::Y, Vec3::Z].iter().any(|d| (sdf.eval(&(p + *d * e)).unwrap().1 - g).length() > 1e-2)
    };
    for desc in [
        ShapeDesc::Sphere { radius: 0.5 },
        ShapeDesc::Box { size: Vec3::new(0.8, 0.5, 0.3) },
        ShapeDesc::Capsule { radius: 0.25, length: 0.8 },
        ShapeDesc::Cylinder { radius: 0.3, length: 1.0 },
    ] {
        let sdf = Sdf::analytic(&desc, 0.3).unwrap();
        assert!(sdf.is_exact());
        let tested = check_hessian(&sdf, |p| !near_ridge(&sdf, p), 2000, 12);
        assert!(tested > 1000, "{}: {tested} points tested", desc.type_name());
    }
}
