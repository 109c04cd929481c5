//! The frozen bodies of a shock-propagation layer, limited: a frozen dynamic body takes no reaction, so whatever
//! its contacts' impulses would have taken from it is energy from nowhere. `shock_frozen_limit` (on by default)
//! lets it hold the body on it back but not speed it up beyond that body's dynamics-pass velocity; the
//! derivation is in docs/methods/lcp.md ("Frozen bodies do no work").

use super::{Lcp, SBody};
use crate::dynamics::joint_block::Vel;
use crate::math::Vec3;

/// The frozen side's velocity along one row as the limit lets the free side see it: `u` the frozen side's, `v`
/// the free side's dynamics-pass velocity, both as components along the direction from the frozen side to the
/// free one. The normal row (`normal`) keeps a frozen side that falls away (u ≤ 0) and lets one that rises push
/// up to the free side's own rise; a friction row keeps the part of u that v shares (between 0 and v), widened
/// by `slack` either way (the static speed: a support's sway that slow still carries the body on it, so a
/// column does not creep off itself).
#[inline]
fn limited(u: f64, v: f64, normal: bool, slack: f64) -> f64 {
    if normal {
        u.min(v.max(0.0))
    } else {
        u.clamp(v.min(0.0) - slack, v.max(0.0) + slack)
    }
}

impl Lcp {
    /// Gives each layer row with a frozen dynamic side a stand-in body for that side: a velocity slot after the
    /// bodies (and the world slot) moving at the limited point velocity, with no inverse mass, so the sweeps
    /// (scalar and batched alike) read it and never move it. `forget_frozen` removes the stand-ins.
    pub(super) fn limit_frozen(&mut self) {
        let none = SBody { inv_m: 0.0, inv_i: crate::math::Mat3::ZERO };
        // the stand-ins' masses share the velocities' indices: the world's slot first
        self.bodies.resize(self.vel.len(), none);
        let slack = self.params.static_speed;
        for r in self.layer_rows.iter_mut() {
            let (a, b) = (r.a as usize, r.b as usize);
            // (frozen, its lever arm, free, its lever arm, sign of the direction from frozen to free)
            let (f, rf, g, rg, s) = if r.inv_ma == 0.0 && r.inv_mb > 0.0 && !self.fixed[a] {
                (a, r.ra, b, r.rb, 1.0)
            } else if r.inv_mb == 0.0 && r.inv_ma > 0.0 && !self.fixed[b] {
                (b, r.rb, a, r.ra, -1.0)
            } else {
                continue;
            };
            let u = self.vel[f].v + self.vel[f].w.cross(rf);
            let v = self.dyn_vel[g].v + self.dyn_vel[g].w.cross(rg);
            let mut point = Vec3::ZERO;
            for (k, d) in r.dir.iter().enumerate() {
                point += *d * (s * limited(s * d.dot(u), s * d.dot(v), k == 0, slack));
            }
            let slot = self.vel.len() as u32;
            self.vel.push(Vel { v: point, w: Vec3::ZERO });
            self.bodies.push(none);
            if f == a {
                r.a = slot;
            } else {
                r.b = slot;
            }
        }
    }

    /// Removes `limit_frozen`'s stand-ins (the bodies' slots and the world's stay) and points the rows back at
    /// their contacts' bodies.
    pub(super) fn forget_frozen(&mut self) {
        let n = self.fixed.len() - 1;
        self.vel.truncate(n + 1);
        self.bodies.truncate(n);
        for r in self.layer_rows.iter_mut() {
            let c = &self.collision.contacts[r.contact as usize];
            (r.a, r.b) = (c.a as u32, c.b as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::limited;

    #[test]
    fn a_frozen_body_holds_back_but_never_speeds_up() {
        // normal: a rising frozen support pushes only as fast as the free body already rose (slack unused)
        assert_eq!(limited(0.3, 0.0, true, 0.01), 0.0);
        assert_eq!(limited(0.3, 0.1, true, 0.01), 0.1);
        assert_eq!(limited(0.3, 0.5, true, 0.01), 0.3);
        // a support falling away is kept: the body on it may follow
        assert_eq!(limited(-0.2, 0.0, true, 0.01), -0.2);
        assert_eq!(limited(-0.2, -0.5, true, 0.01), -0.2);
        // friction: the shared part of the sliding only, plus the slack
        assert_eq!(limited(0.3, 0.0, false, 0.0), 0.0);
        assert_eq!(limited(0.3, -0.1, false, 0.0), 0.0);
        assert_eq!(limited(0.3, 0.1, false, 0.0), 0.1);
        assert_eq!(limited(-0.3, -0.1, false, 0.0), -0.1);
        assert_eq!(limited(-0.1, -0.3, false, 0.0), -0.1);
        assert_eq!(limited(0.3, 0.0, false, 0.01), 0.01);
        assert_eq!(limited(-0.3, 0.1, false, 0.01), -0.01);
        assert_eq!(limited(0.005, 0.0, false, 0.01), 0.005);
    }
}
