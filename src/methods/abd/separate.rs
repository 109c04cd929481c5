//! Bodies that touch at the start. IPC's barrier is +∞ at zero distance, so every two bodies must be apart
//! before the first step, while scenes written for the other methods rest bodies on each other. Each body pair
//! closer than [`SEPARATION`]·d̂ is pushed apart along its contact normal, in deterministic sweeps, no body
//! moving more than d̂ (else an error naming the bodies); crossing surfaces are left for the check to report.
//! See docs/methods/abd.md, "Separating touching bodies".

use super::{affine, assemble};
use crate::collision::culling::{self, Group, Pair};
use crate::collision::distance::{self, Kind, PairShape};
use crate::geometry::surface::Surfaces;
use crate::math::{Pose, Vec3};
use crate::model::Model;

/// The gap bodies that touch at the start are given, as a fraction of d̂.
pub const SEPARATION: f64 = 0.1;

/// The smallest gap tried, as a fraction of d̂: a column of N touching bodies rises by N gaps at its top, so
/// when that exceeds d̂ the gap is halved from [`SEPARATION`] down to this (columns up to 160 bodies).
pub const SEPARATION_MIN: f64 = SEPARATION / 16.0;

/// Sweeps over the close pairs at most.
const SWEEPS: usize = 200;

/// What the separation did: the body pairs it pushed apart and each body's total move.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Separated {
    /// The target gap, m.
    pub gap: f64,
    /// Body pairs that were closer than the gap (first, second), in sorted order.
    pub pairs: Vec<[usize; 2]>,
    /// Each moved body and its translation, in body order.
    pub moves: Vec<(usize, Vec3)>,
}

/// Why the bodies could not be separated.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// Body `body` would move by `by` (more than d̂) to clear the pair `pair` by the smallest gap, `gap`.
    TooFar { body: usize, by: f64, pair: [usize; 2], gap: f64 },
    /// The pushes to a gap `gap` did not settle within the sweeps; `pair` was still too close.
    Unsettled { pair: [usize; 2], gap: f64 },
}

/// Pushes apart the bodies of `s` closer than `SEPARATION`·`dhat` at the coordinates `q` (12 per body; only the
/// translations change), halving the gap (down to `SEPARATION_MIN`·`dhat`) while that would move a body more
/// than `dhat`. `dynamic[b]`: the body may move (others are fixed); `up`: the unit vector against gravity
/// (zero without gravity).
pub fn separate(model: &Model, s: &Surfaces, q: &mut [f64], dynamic: &[bool], dhat: f64, up: Vec3) -> Result<Separated, Failure> {
    let q0 = q.to_vec();
    let mut fraction = SEPARATION;
    let shapes = Shapes { model, q0: &q0 };
    loop {
        match separate_by(&shapes, s, q, dynamic, dhat, fraction * dhat, up) {
            // the moves grow with the gap (a column of N touching bodies rises N gaps): the next gap tried is half
            // this one or the one that would bring the move so far within d̂, whichever is smaller; none below
            // the smallest gap is tried (an overlap needs moves that no gap brings within d̂)
            Err(Failure::TooFar { by, .. }) if fraction > SEPARATION_MIN && fraction * dhat / by >= SEPARATION_MIN => {
                q.copy_from_slice(&q0);
                fraction = (0.5 * fraction).min(fraction * dhat / by).max(SEPARATION_MIN);
            }
            r => return r,
        }
    }
}

/// [`separate`] with the target gap `gap`.
fn separate_by(
    shapes: &Shapes,
    s: &Surfaces,
    q: &mut [f64],
    dynamic: &[bool],
    dhat: f64,
    gap: f64,
    up: Vec3,
) -> Result<Separated, Failure> {
    let mut out = Separated { gap, ..Default::default() };
    let mut total = vec![Vec3::ZERO; dynamic.len()];
    let (mut pairs, mut groups) = (Vec::new(), Vec::new());
    let mut x = Vec::new();
    // pairs up to this far apart are followed: a sweep's pushes move a body by less than 2 d̂ in all
    let reach = gap + 2.0 * dhat;
    for _ in 0..SWEEPS {
        s.positions(q, &mut x);
        culling::candidates(s, &x, None, dynamic, reach, &mut pairs, &mut groups);
        // each followed pair: its bodies, distance, normal and how a push is shared
        let mut close = Vec::new();
        for g in &groups {
            let [a, b] = g.bodies.map(|v| v as usize);
            let Some((dmin, n)) = closeness(s, &x, &pairs, g, reach, Some((shapes, &total))) else { continue };
            let along = n.dot(up);
            let w = match (dynamic[a], dynamic[b]) {
                (false, _) => (0.0, 1.0),
                (_, false) => (1.0, 0.0),
                _ if along > 0.5 => (0.0, 1.0),
                _ if along < -0.5 => (1.0, 0.0),
                _ => (0.5, 0.5),
            };
            close.push((a, b, dmin, n, w));
        }
        // pushes from the positions at the start of the sweep, each pair's distance followed to first order along
        // its normal as the sweep's pushes move its bodies (Gauss–Seidel in sorted order): a push on a body below
        // carries the bodies resting on it along, so no push drives a body into its neighbour (distances here are
        // unsigned, and a crossing would go unseen)
        let mut sweep = vec![Vec3::ZERO; dynamic.len()];
        let mut moved = false;
        for _ in 0..=close.len() {
            let mut again = false;
            for &(a, b, dmin, n, (wa, wb)) in &close {
                let d = dmin + (sweep[b] - sweep[a]).dot(n);
                // done once the pair is at least half the gap apart (a push aims at the full gap)
                if d >= 0.5 * gap {
                    continue;
                }
                if !out.pairs.contains(&[a, b]) {
                    out.pairs.push([a, b]);
                }
                let push = gap - d;
                sweep[a] -= n * (wa * push);
                sweep[b] += n * (wb * push);
                (moved, again) = (true, true);
            }
            if !again {
                break;
            }
        }
        for (body, m) in sweep.into_iter().enumerate() {
            if m == Vec3::ZERO {
                continue;
            }
            total[body] += m;
            if total[body].length() > dhat {
                let pair = out.pairs.iter().rev().find(|p| p.contains(&body)).copied().unwrap_or([body, body]);
                return Err(Failure::TooFar { body, by: total[body].length(), pair, gap });
            }
            for (k, d) in [3, 7, 11].into_iter().zip(m.to_array()) {
                q[12 * body + k] += d;
            }
        }
        if !moved {
            out.pairs.sort();
            out.moves = total.iter().enumerate().filter(|(_, m)| **m != Vec3::ZERO).map(|(b, m)| (b, *m)).collect();
            return Ok(out);
        }
    }
    // still moving: name a pair that is too close
    s.positions(q, &mut x);
    culling::candidates(s, &x, None, dynamic, gap, &mut pairs, &mut groups);
    let pair = groups
        .iter()
        .find(|g| closeness(s, &x, &pairs, g, gap, None).is_some_and(|(d, _)| d < 0.5 * gap))
        .map_or([0, 0], |g| g.bodies.map(|v| v as usize));
    Err(Failure::Unsettled { pair, gap })
}

/// Whether point–plane closest-point weights [1, −w0, −w1, −w2] put the point strictly inside the triangle (not
/// on an edge or a corner up to rounding, where a neighbouring face's normal would be as good).
fn inside(c: &[f64; 4]) -> bool {
    c[1..].iter().all(|&w| -w > 1e-9)
}

/// The bodies' collision shapes at their initial poses (the coordinates `q0`), for contact normals.
struct Shapes<'a> {
    model: &'a Model,
    q0: &'a [f64],
}

impl Shapes<'_> {
    /// The contact normal of bodies `a` and `b` (from a to b) of their collision shapes, each translated by its
    /// move so far, when they are within `gap` and the shapes' pair is supported.
    fn normal(&self, a: usize, b: usize, moved: &[Vec3], gap: f64) -> Option<Vec3> {
        let pose = |i: usize| {
            let q = &self.q0[12 * i..12 * i + 12];
            let rot = affine::nearest_rotation(&affine::a_of(q));
            let com = Vec3::new(q[3], q[7], q[11]) + moved[i];
            Pose::from_parts(com - rot * self.model.bodies[i].com, rot)
        };
        let shape = |i: usize| self.model.bodies[i].geometry.shape.as_ref();
        let c = parry3d_f64::query::contact(&pose(a), shape(a), &pose(b), shape(b), gap).ok()??;
        let n = c.normal1;
        (n.is_finite() && (n.length() - 1.0).abs() < 1e-6).then_some(n)
    }
}

/// The smallest distance of a body pair's primitive pairs and its contact normal (unit, from the first body to the
/// second), when some pair is closer than `gap`. The normal is the collision shapes' (parry's contact normal, when
/// `shapes` are given), or the bodies' centres' line where that fits a touching face better, else the surfaces'.
fn closeness(s: &Surfaces, x: &[[f64; 3]], pairs: &[Pair], g: &Group, gap: f64, shapes: Option<(&Shapes, &[Vec3])>) -> Option<(f64, Vec3)> {
    let a = g.bodies[0];
    let mut dmin = f64::INFINITY;
    let mut n = Vec3::ZERO;
    // unit normals of the triangles touching at zero distance, to choose between fallback normals
    let mut faces: Vec<Vec3> = Vec::new();
    for p in &pairs[g.range.clone()] {
        let shape = PairShape { edge_edge: p.edge_edge, eps_x: p.eps_x };
        let xs = assemble::stencil(x, &p.verts);
        if !distance::may_be_within(shape, &xs, gap * gap) {
            continue;
        }
        let (kind, d2) = distance::classify(shape, &xs);
        let d = d2.max(0.0).sqrt();
        if d >= gap {
            continue;
        }
        dmin = dmin.min(d);
        let w = gap - d;
        // the first primitive's body (the point, or the first edge)
        let first_is_a = s.vertex_body[p.verts[0] as usize] == a;
        let v = |k: usize| Vec3::from_array(xs[k]);
        if !p.edge_edge && d <= 1e-6 * gap {
            let f = (v(2) - v(1)).cross(v(3) - v(1));
            if f.length() > 0.0 {
                faces.push(f.normalize());
            }
        }
        let dir = if d > 1e-6 * gap {
            // from the first primitive's closest point to the second's
            let c = distance::closest_weights(kind, &xs, p.edge_edge);
            -(0..4).fold(Vec3::ZERO, |acc, k| acc + v(k) * c[k])
        } else if kind == Kind::PointPlane && !p.edge_edge && inside(&distance::closest_weights(kind, &xs, false)) {
            // a point resting inside a face: the triangle's outward normal points from its body to the point's
            -(v(2) - v(1)).cross(v(3) - v(1))
        } else {
            // a vertex or an edge touching a vertex or an edge: no direction
            continue;
        };
        let len = dir.length();
        if len > 0.0 && len.is_finite() {
            // `dir` points from the first primitive's body to the other's
            n += dir * (w / len) * if first_is_a { 1.0 } else { -1.0 };
        }
    }
    if dmin == f64::INFINITY {
        return None;
    }
    // the collision shapes' contact normal (parry) first; where faces touch at zero distance, the line between
    // the means of the bodies' vertices instead when it is closer to a touching face's normal (parry's normal of
    // two aligned cubes meeting vertex on vertex is a corner's diagonal); then the surfaces' sum; then that line
    let mean = |body: usize| {
        let r = s.body_vertices[body].clone();
        let k = r.len().max(1) as f64;
        r.fold(Vec3::ZERO, |acc, v| acc + Vec3::from_array(x[v])) / k
    };
    let centres = (mean(g.bodies[1] as usize) - mean(a as usize)).normalize_or_zero();
    let score = |m: Vec3| faces.iter().map(|f| f.dot(m).abs()).fold(0.0, f64::max);
    if let Some(p) = shapes.and_then(|(sh, moved)| sh.normal(a as usize, g.bodies[1] as usize, moved, gap)) {
        n = if faces.is_empty() || centres == Vec3::ZERO || score(p) + 1e-9 >= score(centres) { p } else { centres };
    } else if n.length() <= 1e-9 * gap {
        n = centres;
    }
    let len = n.length();
    (len > 0.0).then(|| (dmin, n / len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BodyKind;

    fn setup(text: &str) -> (crate::model::Model, Surfaces, Vec<f64>, Vec<bool>) {
        let model = crate::scene::load_str(text, "t", "t", std::path::Path::new("."), &[]).unwrap();
        let s = Surfaces::build(&model, 16);
        let state = crate::state::State::from_model(&model);
        let q: Vec<f64> = state.bodies.iter().flat_map(|b| super::super::affine::q_from_rigid(b.x, b.q)).collect();
        let dynamic = model.bodies.iter().map(|b| b.kind == BodyKind::Dynamic).collect();
        (model, s, q, dynamic)
    }

    fn min_distance(s: &Surfaces, q: &[f64], dynamic: &[bool], reach: f64) -> f64 {
        let mut x = Vec::new();
        s.positions(q, &mut x);
        let (mut pairs, mut groups) = (Vec::new(), Vec::new());
        culling::candidates(s, &x, None, dynamic, reach, &mut pairs, &mut groups);
        pairs
            .iter()
            .map(|p| distance::classify(PairShape { edge_edge: p.edge_edge, eps_x: p.eps_x }, &assemble::stencil(&x, &p.verts)).1.sqrt())
            .fold(f64::INFINITY, f64::min)
    }

    const GROUND: &str = "format = 1\n[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n";

    /// A column of three cubes resting on the ground and on each other at zero distance rises from the ground up:
    /// every gap becomes the target (within the half-gap acceptance), the moves are vertical, and the top cube
    /// moves three gaps.
    #[test]
    fn a_touching_column_rises_by_one_gap_per_contact() {
        let text = format!(
            "{GROUND}[[body]]\nname = \"c\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [0.0, 0.0, 0.5]\nrepeat = {{ count = [1, 1, 3], step = [0.0, 0.0, 1.0] }}\n"
        );
        let (model, s, mut q, dynamic) = setup(&text);
        let dhat = 1e-3;
        let r = separate(&model, &s, &mut q, &dynamic, dhat, Vec3::Z).unwrap();
        assert_eq!(r.pairs, vec![[0, 1], [1, 2], [2, 3]]);
        let gap = SEPARATION * dhat;
        for (k, (b, m)) in r.moves.iter().enumerate() {
            assert_eq!(*b, k + 1);
            assert!(m.x == 0.0 && m.y == 0.0, "vertical: {m:?}");
            assert!((m.z - (k + 1) as f64 * gap).abs() < 1e-12, "body {b} rose {} (want {})", m.z, (k + 1) as f64 * gap);
        }
        let d = min_distance(&s, &q, &dynamic, dhat);
        assert!(d >= 0.5 * gap && d <= 1.0000001 * gap, "smallest distance {d}");
    }

    /// Two touching balls side by side (no vertical normal) each give way by half; a pair already apart by the
    /// gap is left alone; a body pinned between fixed walls that cannot make room is an error naming the pair.
    #[test]
    fn side_contacts_split_and_blocked_bodies_are_named() {
        let text = format!(
            "{GROUND}[[body]]\nname = \"a\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [0.0, 0.0, 1.5]\n\
             [[body]]\nname = \"b\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [1.0, 0.0, 1.5]\n"
        );
        let (model, s, mut q, dynamic) = setup(&text);
        let r = separate(&model, &s, &mut q, &dynamic, 1e-3, Vec3::Z).unwrap();
        assert_eq!(r.pairs, vec![[1, 2]]);
        assert_eq!(r.moves.len(), 2);
        assert!((r.moves[0].1.x + 0.5e-4).abs() < 1e-12 && (r.moves[1].1.x - 0.5e-4).abs() < 1e-12, "{:?}", r.moves);
        let again = separate(&model, &s, &mut q, &dynamic, 1e-3, Vec3::Z).unwrap();
        assert!(again.pairs.is_empty() && again.moves.is_empty());
        // a cube between two static walls 0.01 mm wider than itself cannot clear both by the 0.1 mm gap
        let walls = "format = 1\n[[body]]\nname = \"left\"\nkind = \"static\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [-1.0, 0.0, 0.0]\n\
             [[body]]\nname = \"right\"\nkind = \"static\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [1.00001, 0.0, 0.0]\n\
             [[body]]\nname = \"mid\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\n";
        let (model, s, mut q, dynamic) = setup(walls);
        match separate(&model, &s, &mut q, &dynamic, 1e-3, Vec3::Z) {
            Err(Failure::Unsettled { pair, .. }) => assert!(pair.contains(&2), "{pair:?}"),
            other => panic!("{other:?}"),
        }
    }

    /// The bundled tower (12 crossed layers of three beams, every beam touching its neighbours and the layers
    /// above and below) separates with no two surfaces crossing and every pair at least half the gap apart: a
    /// push on a lower layer carries the upper ones along (pushed on their own, a beam of layer 8 rose into
    /// one of layer 9 and the start failed with an intersection).
    #[test]
    fn a_touching_tower_of_crossed_beams_separates_without_a_crossing() {
        let path = crate::scene::find_scene("tower").unwrap();
        let model = crate::scene::load(&path, &[]).unwrap();
        let s = Surfaces::build(&model, 16);
        let state = crate::state::State::from_model(&model);
        let mut q: Vec<f64> = state.bodies.iter().flat_map(|b| super::super::affine::q_from_rigid(b.x, b.q)).collect();
        let dynamic: Vec<bool> = model.bodies.iter().map(|b| b.kind == BodyKind::Dynamic).collect();
        let dhat = 1e-3 * super::super::body_size(&s, 1);
        let r = separate(&model, &s, &mut q, &dynamic, dhat, Vec3::Z).unwrap();
        assert!(r.moves.iter().all(|(_, m)| m.length() <= dhat), "{:?}", r.moves);
        let mut x = Vec::new();
        s.positions(&q, &mut x);
        assert_eq!(crate::collision::tri_tri::intersections_among(&s, &x, |a, b| dynamic[a] || dynamic[b]), 0);
        let d = min_distance(&s, &q, &dynamic, dhat);
        assert!(d >= 0.5 * r.gap, "smallest distance {d}, gap {}", r.gap);
    }
}
