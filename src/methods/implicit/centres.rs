//! Spheres tested as their centres (`ImplicitParams::sphere_centres`): a sphere that meets another sphere or a
//! body with an exact field (a static or kinematic primitive) is one point, its centre C against the other's
//! field with the depth φ(C) − r, instead of its shell against the other's field and the other's shell against
//! its own. φ(C) − r is the sphere's exact depth in any body whose field is a true distance, so the pair's
//! contact is whole in that one point. See docs/methods/implicit-penalty.md, "Spheres as their centres".

use super::contact::{centre_hit, Hit, Placement, Side};
use super::field::{ShellRef, SphereField};
use crate::geometry::fields::Fields;
use crate::geometry::ShapeDesc;
use crate::model::Model;

/// Per body: its radius if it is a sphere tested as its centre, and whether its field is exact beyond its box.
#[derive(Debug, Clone, Default)]
pub struct Centres {
    radius: Vec<Option<f64>>,
    far: Vec<bool>,
}

impl Centres {
    /// `on`: the parameter (and no tangential damper, which acts on the sphere's surface velocity).
    pub fn new(model: &Model, fields: &Fields, on: bool) -> Centres {
        let radius = model
            .bodies
            .iter()
            .map(|b| match b.geometry.desc {
                ShapeDesc::Sphere { radius } if on => Some(radius),
                _ => None,
            })
            .collect();
        let far = fields.per_body.iter().map(|f| f.sdf.is_analytic()).collect();
        Centres { radius, far }
    }

    /// The pair's centre role (field body, sphere body), or `None` where its shells meet the fields. Two spheres:
    /// `b`'s centre in `a`'s sphere.
    pub fn role(&self, a: usize, b: usize) -> Option<(usize, usize)> {
        let exact = |f: usize| self.radius[f].is_some() || self.far[f];
        if self.radius[b].is_some() && exact(a) {
            Some((a, b))
        } else if self.radius[a].is_some() && exact(b) {
            Some((b, a))
        } else {
            None
        }
    }

    /// The hits of a pair (`a` its first body) by its centre role: the sphere `s`'s centre in the field of `f`
    /// (`field`: `f`'s own, used where `f` is not a sphere), both placed by `at`, as the role (field `f`) holds
    /// it; `None` where it does not touch.
    pub fn hits(&self, a: usize, f: usize, s: usize, field: Side, at: impl Fn(usize) -> Placement) -> Option<[Vec<Hit>; 2]> {
        let hit = self.hit(f, s, field, at)?;
        let mut hits: [Vec<Hit>; 2] = Default::default();
        hits[usize::from(f != a)].push(hit);
        Some(hits)
    }

    fn hit(&self, f: usize, s: usize, field: Side, at: impl Fn(usize) -> Placement) -> Option<Hit> {
        let r = self.radius[s].expect("a sphere");
        match self.radius[f] {
            Some(radius) => {
                let sphere = SphereField { radius };
                centre_hit(&Side { field: &sphere, shell: ShellRef::new(&[], &[]), at: at(f) }, &at(s), r)
            }
            None => centre_hit(&field, &at(s), r),
        }
    }
}
