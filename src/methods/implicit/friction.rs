//! Friction by Yamane–Nakamura anchors, as the paper restates them (§4, after eq. 18): when a point comes
//! into contact an anchor is set there (fixed in the field body); a linear spring k_t, in the contact plane of the
//! point's normal, pulls the point toward it. When the spring force exceeds μ_s·f_n the anchor is released and the
//! point has kinetic friction μ_k·f_n against its tangential sliding velocity (projected and normalised). The
//! anchor is set again, and static friction resumes, when the sliding stops: the tangential velocity has turned
//! against the last sliding direction (the kinetic force would push the point back) or vanished. There is no
//! friction damper: the contact damper acts on the tangential velocity when `tangential_damping` is on.
//! Friction is explicit (right-hand side of the step's system), as in the paper; anchors live in
//! `State::implicit_anchors` between steps.

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
}

/// Friction gains of a pair: anchor spring per point (N/m) and the coefficients.
#[derive(Debug, Clone, Copy)]
pub struct Gains {
    pub kt: f64,
    pub mu_s: f64,
    pub mu_k: f64,
}

/// The friction force on the point body at one hit (the field body gets the opposite), and its new anchor.
/// `fn_` is the point's normal force k|d|; `vel_b_rel` the velocity of the point body's material point relative
/// to the field body's; `old` the anchor carried from the last step (`None`: a new contact).
pub fn point_friction(h: &Hit, fn_: f64, vel_b_rel: Vec3, field: &Placement, old: Option<Anchor>, g: &Gains) -> (Vec3, Anchor) {
    let n = h.c.n;
    let tangential = |x: Vec3| x - n * x.dot(n);
    let p = field.com + h.c.a;
    let local = |x: Vec3| field.q.inverse() * (x - field.origin);
    let fresh = Anchor { at: local(p), sliding: false, slip: Vec3::ZERO };
    let vt = tangential(vel_b_rel);
    let Some(old) = old else { return (Vec3::ZERO, fresh) };
    let kinetic = |dir: Vec3| -> (Vec3, Anchor) {
        let len = dir.length();
        if len == 0.0 {
            return (Vec3::ZERO, fresh);
        }
        let d = dir / len;
        (d * (-g.mu_k * fn_), Anchor { at: fresh.at, sliding: true, slip: d })
    };
    if old.sliding {
        // sliding stops when the tangential velocity vanishes or turns against the last direction
        if vt.dot(old.slip) <= 0.0 {
            return (Vec3::ZERO, fresh);
        }
        return kinetic(vt);
    }
    let anchor = field.origin + field.q * old.at;
    let spring = tangential(anchor - p) * g.kt;
    if spring.length() <= g.mu_s * fn_ {
        return (spring, old);
    }
    // released: kinetic friction against the stretch (the way the point has been dragged from its anchor; the
    // velocity of a point that was just held is noise around zero)
    kinetic(-spring)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;
    use crate::methods::implicit::gradients::PointContact;

    fn hit(p: Vec3) -> Hit {
        Hit { point: 0, c: PointContact { d: -0.01, g: Vec3::Z, n: Vec3::Z, a: p, b: Vec3::ZERO } }
    }

    #[test]
    fn sticks_then_slides_at_the_kinetic_force_then_sticks_again() {
        let field = Placement { origin: Vec3::ZERO, q: Quat::IDENTITY, com: Vec3::ZERO };
        let g = Gains { kt: 1000.0, mu_s: 0.6, mu_k: 0.4 };
        // a new contact anchors where it is, with no force
        let (f, a) = point_friction(&hit(Vec3::ZERO), 10.0, Vec3::X, &field, None, &g);
        assert_eq!(f, Vec3::ZERO);
        assert!(!a.sliding && a.at == Vec3::ZERO);
        // 5 mm (and 3 mm along the normal, ignored): 5 N < 6 N sticks, pulling back toward the anchor
        let (f, a) = point_friction(&hit(Vec3::new(0.005, 0.0, 0.003)), 10.0, Vec3::X, &field, Some(a), &g);
        assert!(!a.sliding && (f - Vec3::new(-5.0, 0.0, 0.0)).length() < 1e-12, "{f:?}");
        // 7 mm: 7 N > 6 N releases; kinetic 4 N against the stretch (whatever the velocity of the held point)
        let (f, a) = point_friction(&hit(Vec3::new(0.007, 0.0, 0.0)), 10.0, Vec3::new(-1e-9, 1e-9, 0.0), &field, Some(a), &g);
        assert!(a.sliding && (f - Vec3::new(-4.0, 0.0, 0.0)).length() < 1e-12, "{f:?}");
        // still sliding the same way: kinetic
        let (f, b) = point_friction(&hit(Vec3::new(0.2, 0.0, 0.0)), 10.0, Vec3::new(0.05, 0.04, 0.0), &field, Some(a), &g);
        assert!(b.sliding && (f.length() - 4.0).abs() < 1e-12);
        // the velocity turned: anchored again where the point is
        let (f, c) = point_friction(&hit(Vec3::new(0.3, 0.0, 0.0)), 10.0, Vec3::new(-0.01, 0.0, 0.0), &field, Some(b), &g);
        assert!(!c.sliding && f == Vec3::ZERO && (c.at - Vec3::new(0.3, 0.0, 0.0)).length() < 1e-15);
    }

    #[test]
    fn the_anchor_moves_with_the_field_body() {
        let g = Gains { kt: 100.0, mu_s: 1.0, mu_k: 1.0 };
        let f0 = Placement { origin: Vec3::new(1.0, 0.0, 0.0), q: Quat::from_rotation_z(0.3), com: Vec3::new(1.0, 0.0, 0.0) };
        let (_, a) = point_friction(&hit(Vec3::new(0.2, 0.1, 0.0)), 10.0, Vec3::ZERO, &f0, None, &g);
        // the field body moves by 1 cm along y with the point: no stretch
        let f1 = Placement { origin: f0.origin + Vec3::new(0.0, 0.01, 0.0), com: f0.com + Vec3::new(0.0, 0.01, 0.0), ..f0 };
        let (f, _) = point_friction(&hit(Vec3::new(0.2, 0.1, 0.0)), 10.0, Vec3::ZERO, &f1, Some(a), &g);
        assert!(f.length() < 1e-12, "{f:?}");
    }
}
