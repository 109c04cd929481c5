//! Friction by Yamane–Nakamura anchors, as the paper restates them (§4, after eq. 18): an anchor spring k_t per
//! penetrating point, released to kinetic friction μ_k·f_n beyond μ_s·f_n and dragged behind the sliding point.
//! A patch (one role of one pair) sticks or slides as a whole, since per-point release cascaded; with implicit
//! springs the sticking test uses the stretch at the end of the step. Anchors live in `State::carry`.
//! See docs/methods/implicit-penalty.md, "Friction by anchors".

use super::contact::{Hit, Placement};
use crate::math::Vec3;

/// An anchor's key: (field body, point body, shell point of the point body).
pub type Key = (u32, u32, u32);

/// One point's friction state.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Anchor {
    /// The anchor in the field body's reference frame (while sticking).
    pub at: Vec3,
    /// Sliding (kinetic friction) rather than sticking.
    pub sliding: bool,
    /// The unit tangential sliding direction of the last step (world), while sliding.
    pub slip: Vec3,
    /// For a sphere's centre hit: the sphere's material point (its body frame, about its centre of mass) that
    /// was at the contact when the anchor was set. The contact point is no material point of the sphere: it
    /// moves as the sphere rolls, so the next step measures the stretch from this point and sets the anchor
    /// anew by the contact point, keeping only the stretch that slip made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<Vec3>,
}

/// Friction gains of a pair: anchor spring per point (N/m) and the coefficients.
#[derive(Debug, Clone, Copy)]
pub struct Gains {
    pub kt: f64,
    pub mu_s: f64,
    pub mu_k: f64,
    /// The time ahead at which the sticking test takes the stretch, s (h for implicit springs, 0 explicit).
    pub lead: f64,
    /// The damper of a sticking anchor per point, N·s/m (implicit friction only; 0: none, the paper).
    pub ct: f64,
}

/// One penetrating point of a patch, for [`patch_friction`].
#[derive(Debug, Clone, Copy)]
pub struct PointIn<'a> {
    pub hit: &'a Hit,
    /// The point's normal force: its spring's at depth |d| (k|d| below a load's knee, `Gains::spring_force`).
    pub fn_: f64,
    /// The velocity of the point body's material point relative to the field body's.
    pub vel_b_rel: Vec3,
    /// The anchor carried from the last step (`None`: a new contact).
    pub old: Option<Anchor>,
    /// The point body's placement where the hit is a sphere's centre ([`Anchor::material`]).
    pub sphere: Option<Placement>,
}

/// The friction forces on the point body at the hits of one patch (one role of one pair: the point body's
/// points in the field body's field; the field body gets the opposite forces), and the new anchors, in order.
/// The patch sticks or slides as a whole (see the module comment): it keeps sliding while most of its points
/// slid in the last step and their tangential velocities still have, summed, a component along their slip
/// directions; otherwise its anchors hold while the sum of their spring forces is at most μ_s times the patch's
/// normal force, and are all released together when it is more. Kinetic friction is μ_k·f_n per point.
pub fn patch_friction(points: &[PointIn], field: &Placement, g: &Gains) -> Vec<(Vec3, Anchor)> {
    let local = |x: Vec3| field.q.inverse() * (x - field.origin);
    struct Pt {
        p: Vec3,
        vt: Vec3,
        stretch: Vec3,
    }
    let pts: Vec<Pt> = points
        .iter()
        .map(|pt| {
            let n = pt.hit.c.n;
            let tangential = |x: Vec3| x - n * x.dot(n);
            let p = field.com + pt.hit.c.a;
            // a new contact is anchored where it is; a sphere's from the material point it was set against
            let from = |o: &Anchor| match (o.material, pt.sphere) {
                (Some(m), Some(s)) => s.com + s.q * m,
                _ => p,
            };
            let stretch = pt.old.map_or(Vec3::ZERO, |o| tangential(field.origin + field.q * o.at - from(&o)));
            Pt { p, vt: tangential(pt.vel_b_rel), stretch }
        })
        .collect();
    let (mut slid, mut held, mut along) = (0usize, 0usize, 0.0);
    for (pt, q) in points.iter().zip(&pts) {
        match pt.old {
            Some(o) if o.sliding => {
                slid += 1;
                along += q.vt.dot(o.slip);
            }
            Some(_) => held += 1,
            None => {}
        }
    }
    let material = |q: &Pt, pt: &PointIn| pt.sphere.map(|s| s.q.inverse() * (q.p - s.com));
    let kinetic_all = |dir_of: &dyn Fn(&Pt) -> Vec3| -> Vec<(Vec3, Anchor)> {
        pts.iter()
            .zip(points)
            .map(|(q, pt)| {
                let (f, a) = kinetic(q.p, dir_of(q), pt.fn_, &local, g);
                (f, Anchor { material: material(q, pt), ..a })
            })
            .collect()
    };
    if slid > held && along > 0.0 {
        // still slipping: kinetic against each point's velocity, the anchors dragged along
        return kinetic_all(&|q| -q.vt);
    }
    let load: f64 = points.iter().map(|p| p.fn_).sum();
    let spring: f64 = pts.iter().map(|q| (q.stretch - q.vt * g.lead).length() * g.kt).sum();
    if spring <= g.mu_s * load {
        // static: the springs of the anchors (dragged ones where the points have just stopped slipping)
        return pts
            .iter()
            .zip(points)
            .map(|(q, pt)| {
                let at = match pt.sphere {
                    Some(_) => local(q.p + q.stretch),
                    None => pt.old.map_or(local(q.p), |o| o.at),
                };
                (q.stretch * g.kt, Anchor { at, sliding: false, slip: Vec3::ZERO, material: material(q, pt) })
            })
            .collect();
    }
    // released: kinetic friction against the tangential velocity (against the stretch's pull where a point does
    // not move: it is being dragged away from its anchor)
    kinetic_all(&|q| if q.vt.length() > 0.0 { -q.vt } else { q.stretch })
}

/// [`patch_friction`] of a patch of one point.
pub fn point_friction(h: &Hit, fn_: f64, vel_b_rel: Vec3, field: &Placement, old: Option<Anchor>, g: &Gains) -> (Vec3, Anchor) {
    patch_friction(&[PointIn { hit: h, fn_, vel_b_rel, old, sphere: None }], field, g)[0]
}

/// Kinetic friction μ_k·f_n along `dir` at the point `p` (world), and the anchor dragged to where its spring
/// gives that force (body frame of the field body by `local`).
fn kinetic(p: Vec3, dir: Vec3, fn_: f64, local: &dyn Fn(Vec3) -> Vec3, g: &Gains) -> (Vec3, Anchor) {
    let len = dir.length();
    if len == 0.0 || g.kt == 0.0 {
        return (Vec3::ZERO, Anchor { at: local(p), ..Anchor::default() });
    }
    let f = dir * (g.mu_k * fn_ / len);
    (f, Anchor { at: local(p + f / g.kt), sliding: true, slip: -dir / len, material: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;
    use crate::methods::implicit::gradients::PointContact;

    fn hit(p: Vec3) -> Hit {
        Hit { point: 0, c: PointContact { d: -0.01, g: Vec3::Z, n: Vec3::Z, a: p, b: Vec3::ZERO, h: crate::math::Mat3::ZERO, radius: 0.0 } }
    }

    #[test]
    fn a_rolling_sphere_keeps_no_stretch_and_a_slipping_one_keeps_its_slip() {
        let field = Placement { origin: Vec3::ZERO, q: Quat::IDENTITY, com: Vec3::ZERO };
        let g = Gains { kt: 1000.0, mu_s: 0.6, mu_k: 0.4, lead: 0.0, ct: 0.0 };
        let r = 0.1;
        let at = |x: f64, turn: f64| Placement {
            origin: Vec3::new(x, 0.0, r),
            q: crate::math::quat_exp(Vec3::Y * turn),
            com: Vec3::new(x, 0.0, r),
        };
        // the sphere's deepest point P under its centre: a = P − field.com, b = P − sphere.com
        let hit_at = |s: &Placement| {
            let p = Vec3::new(s.com.x, 0.0, 0.0);
            Hit {
                point: 0,
                c: PointContact { d: -1e-4, g: Vec3::Z, n: Vec3::Z, a: p, b: p - s.com, h: crate::math::Mat3::ZERO, radius: r },
            }
        };
        let step = |s: Placement, old: Option<Anchor>| {
            let h = hit_at(&s);
            patch_friction(&[PointIn { hit: &h, fn_: 10.0, vel_b_rel: Vec3::ZERO, old, sphere: Some(s) }], &field, &g)[0]
        };
        let (_, a0) = step(at(0.0, 0.0), None);
        assert_eq!(a0.material, Some(Vec3::new(0.0, 0.0, -r)));
        // rolled 1 mm (turned by 1 mm / r): the anchor moves with the contact, no force (but for the arc's
        // Δ³/6r² = 1.7e-8 m: the old point has turned up and back a little)
        let (f, a1) = step(at(1e-3, 1e-3 / r), Some(a0));
        assert!(f.length() < 2e-8 * g.kt, "{f:?}");
        assert!((a1.at - Vec3::new(1e-3, 0.0, 0.0)).length() < 2e-8, "{:?}", a1.at);
        // slid 1 mm without turning: the anchor stays behind by the slip
        let (f, a2) = step(at(1e-3, 0.0), Some(a0));
        assert!((f - Vec3::new(-1e-3 * g.kt, 0.0, 0.0)).length() < 1e-9, "{f:?}");
        assert!((a2.at - Vec3::ZERO).length() < 1e-12);
    }

    #[test]
    fn sticks_then_slides_at_the_kinetic_force_then_sticks_again_on_the_dragged_anchor() {
        let field = Placement { origin: Vec3::ZERO, q: Quat::IDENTITY, com: Vec3::ZERO };
        let g = Gains { kt: 1000.0, mu_s: 0.6, mu_k: 0.4, lead: 0.0, ct: 0.0 };
        // a new contact anchors where it is, with no force
        let (f, a) = point_friction(&hit(Vec3::ZERO), 10.0, Vec3::X, &field, None, &g);
        assert_eq!(f, Vec3::ZERO);
        assert!(!a.sliding && a.at == Vec3::ZERO);
        // 5 mm (and 3 mm along the normal, ignored): 5 N < 6 N sticks, pulling back toward the anchor
        let (f, a) = point_friction(&hit(Vec3::new(0.005, 0.0, 0.003)), 10.0, Vec3::X, &field, Some(a), &g);
        assert!(!a.sliding && (f - Vec3::new(-5.0, 0.0, 0.0)).length() < 1e-12, "{f:?}");
        // 7 mm: 7 N > 6 N releases; kinetic 4 N against the velocity, the anchor dragged 4 mm behind the point
        let p = Vec3::new(0.007, 0.0, 0.0);
        let (f, a) = point_friction(&hit(p), 10.0, Vec3::new(0.3, 0.4, 0.0), &field, Some(a), &g);
        assert!(a.sliding && (f - Vec3::new(-2.4, -3.2, 0.0)).length() < 1e-12, "{f:?}");
        assert!((a.at - (p + f / 1000.0)).length() < 1e-15);
        // released while the point does not move: against the stretch
        let (f, _) = point_friction(&hit(p), 10.0, Vec3::ZERO, &field, Some(Anchor { at: Vec3::ZERO, ..a }), &g);
        assert!((f - Vec3::new(-4.0, 0.0, 0.0)).length() < 1e-12, "{f:?}");
        // still moving along its slip direction (however little): sliding, at the kinetic force against the velocity
        let (f, c) = point_friction(&hit(p + Vec3::new(1e-4, 0.0, 0.0)), 10.0, Vec3::X, &field, Some(a), &g);
        assert!(c.sliding && (f - Vec3::new(-4.0, 0.0, 0.0)).length() < 1e-12, "{f:?}");
        // its velocity turned: static again on the dragged anchor, with that anchor's spring force
        let q = c.at + Vec3::new(0.0, 0.0039, 0.0);
        let (f, b) = point_friction(&hit(q), 10.0, Vec3::new(0.0, -1.0, 0.0), &field, Some(c), &g);
        assert!(!b.sliding && b.at == c.at);
        assert!((f - (c.at - q) * 1000.0).length() < 1e-12 && (f.length() - 3.9).abs() < 1e-9, "{f:?}");
        // then held up to μs·fn = 6 N on it
        let (f, d) = point_friction(&hit(c.at + Vec3::new(0.0, 0.0059, 0.0)), 10.0, Vec3::ZERO, &field, Some(b), &g);
        assert!(!d.sliding && (f.length() - 5.9).abs() < 1e-9, "{f:?}");
    }

    #[test]
    fn with_a_lead_a_new_contact_moving_fast_enough_slides_at_once() {
        let field = Placement { origin: Vec3::ZERO, q: Quat::IDENTITY, com: Vec3::ZERO };
        // k_t·v·h = 1000·1·0.01 = 10 N > μs·fn = 6 N: kinetic from the first step, against the velocity
        let g = Gains { kt: 1000.0, mu_s: 0.6, mu_k: 0.4, lead: 0.01, ct: 0.0 };
        let (f, a) = point_friction(&hit(Vec3::ZERO), 10.0, Vec3::X, &field, None, &g);
        assert!(a.sliding && (f - Vec3::new(-4.0, 0.0, 0.0)).length() < 1e-12, "{f:?}");
        // 0.5 m/s: 5 N ≤ 6 N, it sticks (no force yet: the spring is unstretched)
        let (f, a) = point_friction(&hit(Vec3::ZERO), 10.0, Vec3::X * 0.5, &field, None, &g);
        assert!(!a.sliding && f == Vec3::ZERO);
    }

    #[test]
    fn the_anchor_moves_with_the_field_body() {
        let g = Gains { kt: 100.0, mu_s: 1.0, mu_k: 1.0, lead: 0.0, ct: 0.0 };
        let f0 = Placement { origin: Vec3::new(1.0, 0.0, 0.0), q: Quat::from_rotation_z(0.3), com: Vec3::new(1.0, 0.0, 0.0) };
        let (_, a) = point_friction(&hit(Vec3::new(0.2, 0.1, 0.0)), 10.0, Vec3::ZERO, &f0, None, &g);
        // the field body moves by 1 cm along y with the point: no stretch
        let f1 = Placement { origin: f0.origin + Vec3::new(0.0, 0.01, 0.0), com: f0.com + Vec3::new(0.0, 0.01, 0.0), ..f0 };
        let (f, _) = point_friction(&hit(Vec3::new(0.2, 0.1, 0.0)), 10.0, Vec3::ZERO, &f1, Some(a), &g);
        assert!(f.length() < 1e-12, "{f:?}");
    }
}
