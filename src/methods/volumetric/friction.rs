//! Friction by anchor springs (Hasegawa et al. §4.6, Fig. 7; SpringheadOne `PHContactEngine::CalcFriction`): a
//! spring between anchors set where the contact starts, projected on the contact plane, sticks within μ_s·f_n
//! (with a tangential damper) and slides beyond it at μ_k·f_n; the twist about the normal works the same way.
//! See docs/methods/volumetric-penalty.md, "Friction by anchor springs".

use crate::math::Vec3;

/// Per-contact friction state, kept between steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Anchor {
    /// The anchor in A's and B's reference frames (body-local points).
    pub a: Vec3,
    pub b: Vec3,
    /// Relative twist of B about the normal since the contact started (less what slipped), rad.
    pub twist: f64,
    /// Whether the last step slid (force) / twisted (torque).
    pub sliding: bool,
    pub twisting: bool,
    /// The normal spring's depth offset p (m) and the substep it was last used at (s; 0 before any): the spring
    /// acts on d̄ − p (stiffness.rs, `engaged_offset`).
    #[serde(default)]
    pub offset: f64,
    #[serde(default)]
    pub substep: f64,
    /// The contact's normal (A toward B) in the substep that last stored it (refine.rs reads it).
    #[serde(default)]
    pub normal: Vec3,
    /// The substeps per default one that this contact's load asked for (refine.rs; 0 or 1: none), and the
    /// frames since its load asked for fewer: the frame takes at least `need` until `calm` reaches
    /// `NEED_HOLD`.
    #[serde(default)]
    pub need: u32,
    #[serde(default)]
    pub calm: u32,
    /// The work the normal spring did on the pair since the contact began, J (rebound.rs).
    #[serde(default)]
    pub work: f64,
    /// The landing depth a heavy landing's impact left, m (impacts.rs): the spring acts on the mean depth beyond
    /// it (or beyond `offset`, the larger); it follows the depth down and relaxes at half the impact speed. An
    /// anchor with `substep` 0 holds only a landing depth (set by the impact before the spring first acted).
    #[serde(default)]
    pub landing: f64,
}

/// The inputs of one contact's friction.
#[derive(Debug, Clone, Copy)]
pub struct Contact {
    /// Unit normal (A towards B), application point, normal force on B.
    pub n: Vec3,
    pub point: Vec3,
    pub normal_force: f64,
    /// Torsional arm ρ (0 for a point contact).
    pub arm: f64,
    /// World anchor points as stored last step (A's and B's), and the relative velocity of B's material point at
    /// `point` with respect to A's, and the relative angular velocity ω_B − ω_A.
    pub anchor_a: Vec3,
    pub anchor_b: Vec3,
    pub v_rel: Vec3,
    pub w_rel: Vec3,
}

/// Spring and damper of the tangential anchor spring, and the friction coefficients.
#[derive(Debug, Clone, Copy)]
pub struct Gains {
    pub k: f64,
    pub c: f64,
    pub mu_s: f64,
    pub mu_k: f64,
}

/// The friction force on B (A gets the opposite), the torque on B about n, and the new world anchor points
/// (A's, B's), which the caller stores in the bodies' frames.
pub fn friction(state: &mut Anchor, c: &Contact, g: &Gains, h: f64) -> (Vec3, f64, Vec3, Vec3) {
    let n = c.n;
    let tangential = |x: Vec3| x - n * x.dot(n);
    let fn_ = c.normal_force.max(0.0);
    // translation: spring stretch of B relative to A in the contact plane
    let mut stretch = tangential(c.anchor_b - c.anchor_a);
    let vt = tangential(c.v_rel);
    let (limit_s, limit_k) = (g.mu_s * fn_, g.mu_k * fn_);
    let spring = stretch * (-g.k);
    let force;
    if spring.length() > limit_s {
        // slide: shrink the spring to the kinetic force
        let dir = spring / spring.length();
        force = dir * limit_k;
        stretch = if g.k > 0.0 { -force / g.k } else { Vec3::ZERO };
        state.sliding = true;
    } else {
        let total = spring - vt * g.c;
        force = if total.length() > limit_s { total * (limit_s / total.length()) } else { total };
        state.sliding = false;
    }
    // torsion: rotational spring ρ²k on the accumulated twist
    state.twist += c.w_rel.dot(n) * h;
    let (kr, cr) = (g.k * c.arm * c.arm, g.c * c.arm * c.arm);
    let (tlim_s, tlim_k) = (limit_s * c.arm, limit_k * c.arm);
    let tspring = -kr * state.twist;
    let torque;
    if tspring.abs() > tlim_s {
        torque = tspring.signum() * tlim_k;
        state.twist = if kr > 0.0 { -torque / kr } else { 0.0 };
        state.twisting = true;
    } else {
        let total = tspring - cr * c.w_rel.dot(n);
        torque = total.clamp(-tlim_s, tlim_s);
        state.twisting = false;
    }
    // the spring moves to the new application point, keeping its extension
    (force, torque, c.point - 0.5 * stretch, c.point + 0.5 * stretch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(stretch: Vec3, v: Vec3) -> Contact {
        Contact {
            n: Vec3::Z,
            point: Vec3::ZERO,
            normal_force: 10.0,
            arm: 0.2,
            anchor_a: Vec3::ZERO,
            anchor_b: stretch + Vec3::Z * 0.3, // the normal part is ignored
            v_rel: v,
            w_rel: Vec3::ZERO,
        }
    }

    #[test]
    fn sticks_within_the_static_cone_and_slides_at_the_kinetic_force_beyond() {
        let g = Gains { k: 1000.0, c: 0.0, mu_s: 0.6, mu_k: 0.4 };
        let mut s = Anchor::default();
        // 5 mm stretch: 5 N < 6 N, sticks
        let (f, _, a, b) = friction(&mut s, &contact(Vec3::new(0.005, 0.0, 0.0), Vec3::ZERO), &g, 0.01);
        assert!(!s.sliding && (f - Vec3::new(-5.0, 0.0, 0.0)).length() < 1e-12);
        assert!(((b - a) - Vec3::new(0.005, 0.0, 0.0)).length() < 1e-15);
        // 7 mm: 7 N > 6 N, slides at 4 N and the spring shrinks to 4 mm
        let (f, _, a, b) = friction(&mut s, &contact(Vec3::new(0.0, 0.007, 0.0), Vec3::ZERO), &g, 0.01);
        assert!(s.sliding && (f - Vec3::new(0.0, -4.0, 0.0)).length() < 1e-12);
        assert!(((b - a) - Vec3::new(0.0, 0.004, 0.0)).length() < 1e-15);
    }

    #[test]
    fn the_damper_is_clamped_to_the_static_limit() {
        let g = Gains { k: 1000.0, c: 100.0, mu_s: 0.5, mu_k: 0.5 };
        let mut s = Anchor::default();
        let (f, _, _, _) = friction(&mut s, &contact(Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0)), &g, 0.01);
        assert!((f.length() - 5.0).abs() < 1e-12 && f.x < 0.0);
    }

    #[test]
    fn twist_sticks_then_slips_at_the_kinetic_torque() {
        let g = Gains { k: 1000.0, c: 0.0, mu_s: 0.5, mu_k: 0.25 };
        let mut s = Anchor::default();
        let mut c = contact(Vec3::ZERO, Vec3::ZERO);
        c.w_rel = Vec3::new(0.0, 0.0, 1.0);
        // kr = 1000·0.04 = 40; static limit 0.5·10·0.2 = 1 N·m: holds while twist < 0.025 rad
        let (_, t, _, _) = friction(&mut s, &c, &g, 0.01);
        assert!(!s.twisting && (t + 0.4).abs() < 1e-12);
        for _ in 0..3 {
            friction(&mut s, &c, &g, 0.01);
        }
        let (_, t, _, _) = friction(&mut s, &c, &g, 0.01);
        assert!(s.twisting && (t + 0.5).abs() < 1e-12, "torque {t}");
    }
}
