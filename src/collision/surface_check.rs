//! The world's intersection check (`[world] check_intersections`, `cairn run --check-intersections`): after a
//! step of any method, the number of intersecting triangle pairs of different bodies (touching or crossing, and
//! of those the properly crossing ones) and the smallest distance
//! between the surfaces of different bodies, on the shared tessellation (`geometry::surface`, at the
//! `[world] check_resolution`) with the shared triangle–triangle test (`tri_tri.rs`) and primitive distances
//! (`distance.rs`).
//!
//! Body pairs with no dynamic or kinematic body are left out (they would be reported every step). The smallest
//! distance is searched within `REACH`·l, l the diagonal of the moving bodies' initial bounding box (ten times
//! `abd`'s default d̂); `None` when no pair is that close, 0 when triangles intersect. A crossing counts when it
//! reaches deeper than `DEPTH`·l (`tri_tri::crossing_depth`): a cube that sinks 75 nm into another touches it.

use super::culling::{self, Group, Pair};
use super::distance::{classify, PairShape};
use super::tri_tri::contacts_among;
use crate::geometry::surface::Surfaces;
use crate::math::{Mat3, Vec3};
use crate::model::{BodyKind, Model};
use crate::state::State;

/// The reach of the smallest-distance search, as a fraction of l.
pub const REACH: f64 = 0.01;

/// How deep triangles must reach through each other to count as crossing, as a fraction of l.
pub const DEPTH: f64 = 1e-6;

/// The cached surfaces and buffers of the check.
#[derive(Debug, Clone)]
pub struct SurfaceCheck {
    surfaces: Surfaces,
    moving: Vec<bool>,
    reach: f64,
    q: Vec<f64>,
    x: Vec<[f64; 3]>,
    pairs: Vec<Pair>,
    groups: Vec<Group>,
}

/// What the check finds after a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckResult {
    /// Intersecting (or touching) triangle pairs of different bodies.
    pub intersections: usize,
    /// Of those, the pairs that properly cross (`intersections - crossings` only touch).
    pub crossings: usize,
    /// The smallest distance between surfaces of different bodies, m, when one is within the reach.
    pub min_distance: Option<f64>,
}

impl SurfaceCheck {
    /// Tessellates the model's bodies (once per world) and fixes the reach from the initial state.
    pub fn new(model: &Model, state: &State) -> Self {
        let surfaces = Surfaces::build(model, model.check_resolution);
        let moving: Vec<bool> = model.bodies.iter().map(|b| b.kind != BodyKind::Static).collect();
        let mut c = SurfaceCheck { surfaces, moving, reach: 0.0, q: Vec::new(), x: Vec::new(), pairs: Vec::new(), groups: Vec::new() };
        c.positions(state);
        let (mut lo, mut hi) = (Vec3::splat(f64::INFINITY), Vec3::splat(f64::NEG_INFINITY));
        for (v, &b) in c.surfaces.vertex_body.iter().enumerate() {
            if c.moving[b as usize] {
                let p = Vec3::from_array(c.x[v]);
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
        c.reach = if lo.x <= hi.x { REACH * (hi - lo).length() } else { 0.0 };
        c
    }

    /// The surfaces the check uses.
    pub fn surfaces(&self) -> &Surfaces {
        &self.surfaces
    }

    /// The reach of the smallest-distance search, m.
    pub fn reach(&self) -> f64 {
        self.reach
    }

    /// World positions of the vertices in `state` (the affine maps when the method keeps them, else the poses).
    fn positions(&mut self, state: &State) {
        let nb = state.bodies.len();
        self.q.clear();
        for (b, s) in state.bodies.iter().enumerate() {
            if state.affine.len() == nb {
                self.q.extend_from_slice(&state.affine[b]);
            } else {
                let r = Mat3::from_quat(s.q);
                for i in 0..3 {
                    self.q.extend([r.col(0)[i], r.col(1)[i], r.col(2)[i], s.x[i]]);
                }
            }
        }
        self.surfaces.positions(&self.q, &mut self.x);
    }

    /// Counts intersecting triangle pairs and finds the smallest distance in `state`.
    pub fn run(&mut self, state: &State) -> CheckResult {
        self.positions(state);
        let moving = &self.moving;
        let (intersections, crossings) = contacts_among(&self.surfaces, &self.x, |a, b| moving[a] || moving[b], self.reach / REACH * DEPTH);
        culling::candidates(&self.surfaces, &self.x, None, &self.moving, self.reach, &mut self.pairs, &mut self.groups);
        let mut dmin = f64::INFINITY;
        for p in &self.pairs {
            let xs: [[f64; 3]; 4] = std::array::from_fn(|k| self.x[p.verts[k] as usize]);
            let (_, d2) = classify(PairShape { edge_edge: p.edge_edge, eps_x: p.eps_x }, &xs);
            dmin = dmin.min(d2);
        }
        // intersecting surfaces are at distance 0 (the primitive distances only see the closest features of
        // surfaces apart: two crossing triangles' point–triangle and edge–edge distances are positive)
        let min_distance = if intersections > 0 { Some(0.0) } else { (dmin <= self.reach * self.reach).then(|| dmin.max(0.0).sqrt()) };
        CheckResult { intersections, crossings, min_distance }
    }
}

#[cfg(test)]
mod tests {
    use crate::world::World;

    fn world(text: &str) -> World {
        World::from_scene_text(text, "surface check test").expect("scene loads")
    }

    #[test]
    fn overlapping_boxes_intersect_under_lcp() {
        // without error correction, lcp leaves the overlap as it is (it only stops the approach)
        let text = "format = 1\n[world]\nmethod = \"lcp\"\ncheck_intersections = true\ngravity = [0.0, 0.0, 0.0]\n\
[solver.lcp]\ncorrection = false\n[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.0]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.3, 0.2, 0.4]\nrotation_deg = [10.0, 20.0, 5.0]\n";
        let mut w = world(text);
        let st = w.step().unwrap();
        assert!(st.intersections.unwrap() > 0, "{st:?}");
        assert!(st.crossings.unwrap() > 0, "{st:?}");
        assert_eq!(st.min_distance, Some(0.0));
    }

    #[test]
    fn boxes_resting_face_to_face_touch_without_crossing() {
        let text = "format = 1\n[world]\nmethod = \"lcp\"\ncheck_intersections = true\ngravity = [0.0, 0.0, 0.0]\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [2.0, 2.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\n";
        let mut w = world(text);
        let st = w.step().unwrap();
        assert!(st.intersections.unwrap() > 0, "the faces touch: {st:?}");
        assert_eq!(st.crossings, Some(0), "{st:?}");
        assert_eq!(st.min_distance, Some(0.0));
    }

    /// A box sunk by 1e-7 of the scene's size touches; sunk by 1e-3 it crosses.
    #[test]
    fn a_crossing_counts_when_deeper_than_the_checks_depth() {
        for (sink, crossing) in [(1e-7, false), (1e-3, true)] {
            let text = format!(
                "format = 1\n[world]\nmethod = \"lcp\"\ncheck_intersections = true\ngravity = [0.0, 0.0, 0.0]\n\
[solver.lcp]\ncorrection = false\n[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [2.0, 2.0, 1.0] }}\n\
position = [0.0, 0.0, -0.5]\n[[body]]\nname = \"a\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [0.1, 0.05, {}]\n\
rotation_deg = [0.0, 0.0, 10.0]\n",
                0.5 - sink
            );
            let st = world(&text).step().unwrap();
            assert!(st.intersections.unwrap() > 0, "{sink}: {st:?}");
            assert_eq!(st.crossings.unwrap() > 0, crossing, "{sink}: {st:?}");
        }
    }

    #[test]
    fn without_the_switch_other_methods_report_nothing() {
        let text = "format = 1\n[world]\nmethod = \"lcp\"\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.0]\n";
        let st = world(text).step().unwrap();
        assert_eq!((st.intersections, st.crossings, st.min_distance), (None, None, None));
    }

    #[test]
    fn resting_stack_has_no_intersections_under_abd() {
        let text = "format = 1\n[world]\nmethod = \"abd\"\ncheck_intersections = true\n[solver.abd]\ndhat = 0.002\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [0.5, 0.5, 0.5] }\nposition = [0.0, 0.0, 0.252]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [0.4, 0.4, 0.4] }\nposition = [0.02, 0.0, 0.706]\n";
        let mut w = world(text);
        for _ in 0..30 {
            let st = w.step().unwrap();
            assert_eq!((st.intersections, st.crossings), (Some(0), Some(0)));
            let d = st.min_distance.expect("resting bodies are within the reach");
            assert!(d > 0.0 && d < 0.002, "{d}");
        }
    }
}
