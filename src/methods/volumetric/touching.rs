//! Overlaps that GJK calls touching, decided by the intersection itself.
//!
//! Stage 1 asks GJK/EPA (parry's `contact`) which piece pairs overlap. On some symmetric configurations GJK
//! answers "touching" (distance 0 to rounding) for pieces that overlap deeply: two equal tessellated balls
//! stacked pole on pole 11 mm deep (silo's columns of balls) got distance +5e-16 and no force, and the upper
//! ball passed through the lower one. Where GJK says touching, [`Volumetric::verify_touching`] builds the
//! intersection (§4.2, which needs no interior point from GJK) and, where it has a volume, gives the overlap
//! eq. (1)'s normal, the intersection's extent along it as the depth and its centre as the deepest points.

use super::{penalty, Volumetric};
use crate::collision::intersect::{intersect, PolyView};
use crate::math::{Pose, Vec3};

impl Volumetric {
    /// Places piece `i` of body `a` at `pa` and piece `j` of body `b` at `pb` and intersects them into
    /// `self.isect`; false where they have no common volume.
    pub(super) fn intersect_pieces(&mut self, pa: &Pose, pb: &Pose, (a, i): (usize, usize), (b, j): (usize, usize)) -> bool {
        let (qa, qb) = (&self.polys[a][i], &self.polys[b][j]);
        qa.place(pa, &mut self.world_a.0, &mut self.world_a.1);
        qb.place(pb, &mut self.world_b.0, &mut self.world_b.1);
        intersect(
            &mut self.ws,
            PolyView { planes: &self.world_a.0, vertices: &self.world_a.1, edges: &qa.edges },
            PolyView { planes: &self.world_b.0, vertices: &self.world_b.1, edges: &qb.edges },
            &mut self.isect,
        )
    }

    /// Eq. (1)'s normal of the intersection in `self.isect` of piece `i` of body `a` with piece `j` of body
    /// `b`, over the faces on the bodies' surfaces (seams.rs); `fallback` where they cancel.
    pub(super) fn surface_normal(&self, (a, i): (usize, usize), (b, j): (usize, usize), fallback: Vec3) -> Vec3 {
        let (sa, sb) = (&self.seams[a][i], &self.seams[b][j]);
        let seam = |p: usize| if p < sa.len() { sa[p] } else { sb[p - sa.len()] };
        penalty::face_normal_of(&self.isect, fallback, |f| !seam(f.plane as usize))
    }

    /// For a piece pair that GJK calls touching: (normal from A to B, depth, deepest points on A and on B)
    /// from their intersection, or `None` where they have no common volume.
    pub(super) fn verify_touching(
        &mut self,
        pa: &Pose,
        pb: &Pose,
        pia: (usize, usize),
        pib: (usize, usize),
    ) -> Option<(Vec3, f64, Vec3, Vec3)> {
        if !self.intersect_pieces(pa, pb, pia, pib) {
            return None;
        }
        let (ca, cb) = (pa.transform_point(self.polys[pia.0][pia.1].center), pb.transform_point(self.polys[pib.0][pib.1].center));
        let n = self.surface_normal(pia, pib, (cb - ca).normalize_or(Vec3::Z));
        let depth = penalty::extent(&self.isect, n);
        let k = self.isect.polygon.len().max(1) as f64;
        let centre = self.isect.polygon.iter().fold(Vec3::ZERO, |s, p| s + *p) / k;
        Some((n, depth, centre, centre))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Volumetric, VolumetricParams};
    use crate::math::{Quat, Vec3};

    /// The poses of silo's first such pair (ball_0_1_0 on the ground, ball_0_1_1 landing on it), to the bit:
    /// 2.7 mm deep pole on pole, the orientations 1e-16 from the identity.
    #[test]
    fn balls_that_gjk_calls_touching_overlap_by_their_intersection() {
        let text = "format = 1\n[world]\nmethod = \"volumetric-penalty\"\n\
[[body]]\nname = \"low\"\nshape = { type = \"sphere\", radius = 0.2 }\n\
[[body]]\nname = \"high\"\nshape = { type = \"sphere\", radius = 0.2 }\nposition = [0.0, 0.0, 1.0]\n";
        let world = crate::world::World::from_scene_text(text, "t").unwrap();
        let mut state = world.state.clone();
        state.bodies[0].x = Vec3::new(-1.89, 0.6300000000000001, 0.203217001858979);
        state.bodies[0].q = Quat::from_xyzw(-6.907697500300756e-17, -1.8653283369609181e-16, -2.0399925096698038e-33, 1.0);
        state.bodies[1].x = Vec3::new(-1.89, 0.6300000000000001, 0.6005046652442958);
        state.bodies[1].q = Quat::from_xyzw(-4.7147142105533774e-17, -1.4236824400412548e-16, -4.761007181287408e-38, 1.0);
        let mut v = Volumetric::new(VolumetricParams::default(), &world.model).unwrap();
        // the premise: GJK calls them touching
        let (pa, pb) =
            (crate::collision::narrow::body_pose(&world.model, &state, 0), crate::collision::narrow::body_pose(&world.model, &state, 1));
        let c = parry3d_f64::query::contact(&pa, v.polys[0][0].hull.as_ref(), &pb, v.polys[1][0].hull.as_ref(), 0.0).unwrap().unwrap();
        assert!(c.dist >= 0.0 && c.dist < 1e-15, "GJK now gives {} (this test's premise is gone)", c.dist);
        v.detect(&world.model, &mut state);
        assert_eq!(v.overlaps.len(), 1);
        let o = v.overlaps[0];
        let gap = 0.4 - (0.6005046652442958 - 0.203217001858979);
        assert!(
            (o.depth - gap).abs() < 1e-9 && (o.normal - Vec3::Z).length() < 1e-9,
            "depth {} (gap {gap}), normal {:?}",
            o.depth,
            o.normal
        );
        // apart by a millimetre: no overlap
        state.bodies[1].x.z += 0.004;
        v.detect(&world.model, &mut state);
        assert!(v.overlaps.is_empty());
    }
}
