//! Penetration depth of two convex pieces from real faces only (the pulsk report's change to DEEP).
//!
//! The pieces of a decomposed body have virtual faces (cuts through the inside). A depth measured through such a
//! face is meaningless: it points sideways, into the rest of the body. For a penetrating pair in which either
//! piece has virtual faces, the depth is re-measured as the smallest overlap h_A(n) + h_B(−n) (support functions)
//! over the candidate directions n: the real face normals of either piece, plus parry's own (GJK/EPA) normal when
//! it is not the normal of a virtual face. The deepest point is the support point of the other piece along the
//! chosen direction; the manifold's points are replaced by that single point pair.

use super::narrow::{body_pose, Collision, Contact};
use crate::geometry::faces::PieceFaces;
use crate::math::{Pose, Vec3};
use crate::model::Model;
use crate::state::State;
use parry3d_f64::shape::SupportMap;

/// Rewrites the penetrating contacts of piece pairs with virtual faces (see the module comment).
pub fn restrict(model: &Model, state: &State, collision: &mut Collision) {
    let any = |i: usize| model.bodies[i].geometry.piece_faces.iter().any(Option::is_some);
    if !collision.contacts.iter().any(|c| any(c.a) || any(c.b)) {
        return;
    }
    let contacts = std::mem::take(&mut collision.contacts);
    let mut out = Vec::with_capacity(contacts.len());
    let mut start = 0;
    while start < contacts.len() {
        let c0 = contacts[start];
        let mut end = start + 1;
        while end < contacts.len() && (contacts[end].pair, contacts[end].manifold) == (c0.pair, c0.manifold) {
            end += 1;
        }
        let run = &contacts[start..end];
        let deepest = run.iter().copied().fold(c0, |d, c| if c.dist < d.dist { c } else { d });
        let m = &collision.pairs[c0.pair as usize].manifolds[c0.manifold as usize];
        let (ga, gb) = (&model.bodies[c0.a].geometry, &model.bodies[c0.b].geometry);
        let fa = ga.piece_faces.get(m.subshape1 as usize).and_then(Option::as_ref);
        let fb = gb.piece_faces.get(m.subshape2 as usize).and_then(Option::as_ref);
        if deepest.dist >= 0.0 || (fa.is_none() && fb.is_none()) {
            out.extend_from_slice(run);
        } else {
            let pa = body_pose(model, state, c0.a) * ga.pieces[m.subshape1 as usize].0;
            let pb = body_pose(model, state, c0.b) * gb.pieces[m.subshape2 as usize].0;
            let sa = ga.pieces[m.subshape1 as usize].1.as_support_map();
            let sb = gb.pieces[m.subshape2 as usize].1.as_support_map();
            if let (Some(sa), Some(sb)) = (sa, sb) {
                if let Some(c) = real_depth(&deepest, (&pa, sa, fa), (&pb, sb, fb)) {
                    out.push(c);
                }
            } else {
                out.extend_from_slice(run);
            }
        }
        start = end;
    }
    collision.contacts = out;
}

type Piece<'a> = (&'a Pose, &'a dyn SupportMap, Option<&'a PieceFaces>);

/// The real-face depth of a penetrating piece pair whose parry contact is `c`. `None` when a real face
/// separates them.
fn real_depth(c: &Contact, a: Piece, b: Piece) -> Option<Contact> {
    let (pa, sa, fa) = a;
    let (pb, sb, fb) = b;
    let overlap = |n: Vec3| sa.support_point(pa, n).dot(n) - sb.support_point(pb, -n).dot(n);
    let is_virtual =
        |n: Vec3, pose: &Pose, f: Option<&PieceFaces>| f.is_some_and(|f| f.virtual_.iter().any(|v| (pose.rotation * *v).dot(n) > 0.999));
    // candidates: (direction from A to B, which side's face it is: true = A's)
    let mut best: Option<(f64, Vec3, bool)> = None;
    let mut consider = |n: Vec3, from_a: bool| {
        let o = overlap(n);
        if best.is_none_or(|(bo, _, _)| o < bo) {
            best = Some((o, n, from_a));
        }
    };
    if !is_virtual(c.normal, pa, fa) && !is_virtual(-c.normal, pb, fb) {
        consider(c.normal, true);
    }
    for n in fa.map_or(&[][..], |f| &f.real[..]) {
        consider(pa.rotation * *n, true);
    }
    for n in fb.map_or(&[][..], |f| &f.real[..]) {
        consider(-(pb.rotation * *n), false);
    }
    let (depth, n, from_a) = best?;
    if depth <= 0.0 {
        return None;
    }
    if n == c.normal {
        return Some(*c);
    }
    let (point_a, point_b) = if from_a {
        let q = sb.support_point(pb, -n);
        (q + depth * n, q)
    } else {
        let q = sa.support_point(pa, n);
        (q, q - depth * n)
    };
    Some(Contact { normal: n, point_a, point_b, dist: -depth, slot: 0, ..*c })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{build, revolved, ShapeDesc};
    use parry3d_f64::shape::SharedShape;
    use std::sync::Arc;

    #[test]
    fn torus_pieces_have_two_virtual_caps_each() {
        let g = revolved::torus(1.0, 0.3, 16, 8).unwrap();
        let geom = build(
            ShapeDesc::Generated {
                generator: "torus".into(),
                mesh: Arc::new(g.mesh),
                pieces: Arc::new(g.pieces),
                face_tolerance: g.face_tolerance,
            },
            true,
        )
        .unwrap();
        assert_eq!(geom.pieces.len(), 16);
        for f in &geom.piece_faces {
            let f = f.as_ref().expect("every torus segment has cut faces");
            assert_eq!(f.virtual_.len(), 2, "{f:?}");
            assert_eq!(f.real.len(), 8);
        }
    }

    #[test]
    fn depth_through_a_virtual_face_is_not_taken() {
        // piece A: a unit cube whose +x face is virtual (a cut); piece B: a small cube overlapping A's +x face
        // by 0.05 and reaching 0.25 below A's top face. Plain EPA takes the shallow +x direction (through the cut);
        // the real faces give the top, 0.25 deep.
        let cube = SharedShape::cuboid(0.5, 0.5, 0.5);
        let small = SharedShape::cuboid(0.2, 0.2, 0.2);
        let fa = PieceFaces { real: vec![-Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z], virtual_: vec![Vec3::X] };
        let pa = Pose::IDENTITY;
        let pb = Pose::from_translation(Vec3::new(0.65, 0.0, 0.45));
        let c = Contact {
            a: 0,
            b: 1,
            normal: Vec3::X,
            point_a: Vec3::new(0.5, 0.0, 0.45),
            point_b: Vec3::new(0.45, 0.0, 0.45),
            dist: -0.05,
            pair: 0,
            manifold: 0,
            slot: 0,
            data: Default::default(),
        };
        let r = real_depth(&c, (&pa, cube.as_support_map().unwrap(), Some(&fa)), (&pb, small.as_support_map().unwrap(), None)).unwrap();
        assert!((r.normal - Vec3::Z).length() < 1e-12, "{:?}", r.normal);
        assert!((r.dist + 0.25).abs() < 1e-12, "{}", r.dist);
        assert!((r.point_a.z - 0.5).abs() < 1e-12 && (r.point_b.z - 0.25).abs() < 1e-12);
    }
}
