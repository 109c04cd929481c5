//! Fixtures for cairn's criterion micro-benchmarks (`benches/kernels.rs`): the inputs of each hot kernel, built
//! once, outside the timed loop. Kept in a library so that the fixtures are checked by `cargo test` (see the tests
//! below) and a kernel's input cannot silently become trivial (a pair that no longer touches, an empty system).

use cairn::collision::distance::PairShape;
use cairn::collision::intersect::{Intersection, PolyView, Workspace};
use cairn::collision::narrow::Collision;
use cairn::geometry::point_shell::PointShell;
use cairn::geometry::polytope::{Plane, Polytope};
use cairn::geometry::sdf::{Sdf, SdfParams};
use cairn::geometry::ShapeDesc;
use cairn::math::{quat_exp, Pose, Quat, Vec3};
use cairn::methods::abd::system::{Block, System};
use cairn::methods::implicit::contact::{hits, Hit, Placement, Side};
use cairn::methods::implicit::field::ShellRef;
use cairn::World;

/// A bundled scene's world at its initial state (`name` without extension, from `scenes/`).
pub fn scene(name: &str) -> World {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(format!("{name}.toml"));
    let model = cairn::scene::load(&path, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    World::new(model).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The narrow phase of a scene: its collision workspace after one detection, so that timed detections run on
/// persistent manifolds as in a step.
pub struct NarrowPhase {
    pub world: World,
    pub collision: Collision,
    pub margin: f64,
}

impl NarrowPhase {
    /// The scene `name` at its initial state, detected once with `margin`.
    pub fn new(name: &str, margin: f64) -> Self {
        let world = scene(name);
        let mut collision = Collision::default();
        collision.detect(&world.model, &world.state, margin, 0.0);
        NarrowPhase { world, collision, margin }
    }

    /// One detection of every manifold of the scene.
    pub fn detect(&mut self) -> usize {
        self.collision.detect(&self.world.model, &self.world.state, self.margin, 0.0);
        self.collision.contacts.len()
    }
}

/// `lcp`'s PGS sweep over the dynamics-pass rows of pyramid20 after `steps` steps (the stack loaded, the
/// contacts warm).
pub fn pgs_sweep(steps: usize) -> cairn::methods::lcp::kernel::SweepKernel {
    let mut w = scene("pyramid20");
    for _ in 0..steps {
        w.step().expect("pyramid20 steps under lcp");
    }
    cairn::methods::lcp::kernel::SweepKernel::new(&w.model, &mut w.state).expect("the rows of a step")
}

/// A placed polytope: (planes, vertices, edges) in the world.
pub type Placed = (Vec<Plane>, Vec<Vec3>, Vec<[u32; 2]>);

fn placed_box(half: Vec3, pose: Pose) -> Placed {
    let corners: Vec<Vec3> = (0..8)
        .map(|c| {
            half * Vec3::new(if c & 1 == 0 { -1.0 } else { 1.0 }, if c & 2 == 0 { -1.0 } else { 1.0 }, if c & 4 == 0 { -1.0 } else { 1.0 })
        })
        .collect();
    let p = Polytope::from_points(&corners).expect("a box is a polytope");
    let (mut planes, mut vertices) = (Vec::new(), Vec::new());
    p.place(&pose, &mut planes, &mut vertices);
    (planes, vertices, p.edges.clone())
}

/// Two unit cubes in the volumetric method's intersection: the upper one turned about a skew axis and sunk 5 cm
/// into the lower, so the intersection polytope has many faces (the general case, not an axis-aligned slab).
pub struct BoxIntersection {
    pub a: Placed,
    pub b: Placed,
    pub workspace: Workspace,
    pub out: Intersection,
}

impl Default for BoxIntersection {
    fn default() -> Self {
        let half = Vec3::splat(0.5);
        let a = placed_box(half, Pose::IDENTITY);
        let q = quat_exp(Vec3::new(0.3, 0.5, 0.7));
        // the lowest vertex of the turned cube, 5 cm below the lower cube's top face
        let low = [-1.0, 1.0]
            .iter()
            .flat_map(|&x| [-1.0, 1.0].iter().flat_map(move |&y| [-1.0, 1.0].iter().map(move |&z| (q * (half * Vec3::new(x, y, z))).z)))
            .fold(f64::INFINITY, f64::min);
        let b = placed_box(half, Pose::from_parts(Vec3::new(0.1, -0.05, 0.5 - 0.05 - low), q));
        BoxIntersection { a, b, workspace: Workspace::default(), out: Intersection::default() }
    }
}

impl BoxIntersection {
    /// The intersection polytope; its volume.
    pub fn run(&mut self) -> f64 {
        let a = PolyView { planes: &self.a.0, vertices: &self.a.1, edges: &self.a.2 };
        let b = PolyView { planes: &self.b.0, vertices: &self.b.1, edges: &self.b.2 };
        if cairn::collision::intersect::intersect(&mut self.workspace, a, b, &mut self.out) {
            self.out.volume()
        } else {
            0.0
        }
    }
}

/// An `abd` barrier pair: its shape, its four points and D̂ (squared distances).
pub struct BarrierPair {
    pub shape: PairShape,
    pub x: [[f64; 3]; 4],
    pub dh: f64,
}

impl BarrierPair {
    /// A point at half of √D̂ above a triangle's interior (the common case in a resting stack).
    pub fn point_triangle() -> Self {
        let dh = 1e-6; // D̂ = (1 mm)²
        let x = [[0.2, 0.3, 0.5e-3], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        BarrierPair { shape: PairShape { edge_edge: false, eps_x: 0.0 }, x, dh }
    }

    /// Two nearly parallel crossing edges 0.5 mm apart: the mollified path (source's ε×).
    pub fn edge_edge_parallel() -> Self {
        let dh = 1e-6;
        let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.2, 1e-3, 0.5e-3], [0.8, -1e-3, 0.5e-3]];
        // ε× = 1e-3 |e0|² |e1|², as the source
        let e1 = (0.6f64 * 0.6 + 2e-3 * 2e-3) * 1.0;
        BarrierPair { shape: PairShape { edge_edge: true, eps_x: 1e-3 * e1 }, x, dh }
    }

    /// The pair's barrier gradient and projected Hessian as Newton's assembly builds them; the Hessian's first
    /// diagonal entry.
    pub fn projected(&self) -> Option<f64> {
        cairn::methods::abd::local::barrier_projected(self.shape, &self.x, self.dh).map(|p| p.s[0][0])
    }

    /// The pair's barrier gradient and exact Hessian, factored with signs, as Newton's assembly builds them by
    /// default; the Hessian's trace, Σ σ_i ‖s_i‖² (the normal curvature makes it positive).
    pub fn exact(&self) -> Option<f64> {
        cairn::methods::abd::local::barrier_exact(self.shape, &self.x, self.dh)
            .map(|p| (0..p.rank).map(|i| p.sign[i] * p.s[i].iter().map(|v| v * v).sum::<f64>()).sum())
    }

    /// The unprojected local form (value, gradient and Hessian in the pair's frame); its energy.
    pub fn local(&self) -> Option<f64> {
        cairn::methods::abd::local::barrier(self.shape, &self.x, self.dh).map(|l| l.jet.v)
    }
}

/// An `abd` Newton system over an `n`×`n`×`n` grid of bodies, each coupled to its six neighbours (a pile):
/// symmetric positive definite 12×12 blocks, factored by the method's sparse Cholesky.
pub fn grid_system(n: usize) -> System {
    let index = |i: usize, j: usize, k: usize| (i * n + j) * n + k;
    let mut sys = System::default();
    sys.clear(n * n * n);
    let mut off: Block = [[0.0; 12]; 12];
    for (r, row) in off.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = -0.5 / (1.0 + (r as f64 - c as f64).abs());
        }
    }
    let mut diag: Block = [[0.0; 12]; 12];
    for (r, row) in diag.iter_mut().enumerate() {
        row[r] = 20.0 + r as f64;
    }
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let a = index(i, j, k);
                sys.add_block(a, a, &diag);
                for (di, dj, dk) in [(1, 0, 0), (0, 1, 0), (0, 0, 1)] {
                    let (ii, jj, kk) = (i + di, j + dj, k + dk);
                    if ii < n && jj < n && kk < n {
                        sys.add_block(a, index(ii, jj, kk), &off);
                    }
                }
            }
        }
    }
    for (r, g) in sys.grad.iter_mut().enumerate() {
        *g = ((r * 7) % 13) as f64 - 6.0;
    }
    sys
}

/// `implicit-penalty`'s contact evaluation: a box's point shell against another box's grid distance field, the
/// points' box turned and sunk 1 cm into the field's.
pub struct ShellInField {
    pub sdf: Sdf,
    pub shell: PointShell,
    pub field_at: Placement,
    pub points_at: Placement,
}

impl Default for ShellInField {
    fn default() -> Self {
        let desc = ShapeDesc::Box { size: Vec3::new(1.0, 0.8, 0.6) };
        let sdf = Sdf::build(&desc, &SdfParams::for_shape(&desc)).expect("a box's field");
        let shell = PointShell::build(&desc, 0.02).expect("a box's shell");
        let field_at = Placement { origin: Vec3::ZERO, q: Quat::IDENTITY, com: Vec3::ZERO };
        let q = quat_exp(Vec3::new(0.05, 0.08, 0.3));
        let o = Vec3::new(0.2, 0.1, 0.6 - 0.01);
        ShellInField { sdf, shell, field_at, points_at: Placement { origin: o, q, com: o } }
    }
}

impl ShellInField {
    /// The penetrating points and the number of points tested (with the field's Hessian where the method's
    /// default `damper_normal` takes it: an exact field).
    pub fn run(&self) -> (Vec<Hit>, usize) {
        let fld = Side { field: &self.sdf, shell: ShellRef::new(&[], &[]), at: self.field_at };
        let shell = ShellRef { points: &self.shell.points, normals: &self.shell.normals, blocks: &self.shell.blocks };
        hits(&fld, &Side { field: &self.sdf, shell, at: self.points_at }, cairn::methods::implicit::field::Field::exact(&self.sdf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixtures_are_not_trivial() {
        let mut k = pgs_sweep(30);
        assert!(k.points() > 500, "{} points", k.points());
        let first = k.sweep();
        assert!(first > 0.0 && first.is_finite());
        let mut k = pgs_sweep(30);
        assert_eq!(k.batched_sweep().to_bits(), first.to_bits(), "the batched sweep is the scalar sweep");
        let mut np = NarrowPhase::new("pyramid20", 0.01);
        assert!(np.detect() > 200, "pyramid20's contacts");
        let v = BoxIntersection::default().run();
        assert!(v > 1e-4 && v < 0.1, "intersection volume {v}");
        let pt = BarrierPair::point_triangle();
        assert!(pt.projected().is_some_and(|e| e > 0.0) && pt.local().is_some_and(|e| e > 0.0));
        let ee = BarrierPair::edge_edge_parallel();
        assert!(ee.shape.edge_edge && cairn::collision::distance::cross_norm2::<f64>(&ee.x) < ee.shape.eps_x, "not mollified");
        assert!(ee.projected().is_some_and(|e| e > 0.0));
        assert!(pt.exact().is_some_and(|e| e > 0.0) && ee.exact().is_some_and(|e| e > 0.0));
        let mut sys = grid_system(4);
        let p = sys.solve(false).expect("SPD");
        assert!(p.iter().any(|v| v.abs() > 1e-3));
        let (h, tested) = ShellInField::default().run();
        assert!(!h.is_empty() && tested > h.len(), "{} hits of {tested}", h.len());
    }
}
