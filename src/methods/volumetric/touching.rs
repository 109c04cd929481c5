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
