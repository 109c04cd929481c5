//! The normal spring and damper of a contact: the source's rule, and the option that follows the load.
//!
//! **The source's rule** (Hasegawa et al. eq. 8): k = π²m/(8h)², m the pair's reduced mass (the finite mass
//! against a fixed body), h the (sub)step. The spring–mass period is then 16h, a contact lasts about 8 steps,
//! and a body of mass m resting on a fixed one sinks d₀ = m g/k = 64 g h²/π² (0.064 mm at h = 1 ms). The
//! damper is critical for e = 0: c = 2ζ√(k m) (m the effective mass at the point, `gains` in mod.rs).
//!
//! A contact that carries more than its own pair's weight sinks in proportion: a body of mass M on a body of
//! mass m ≪ M sinks (M/m)·d₀, and a 1000 kg box on a 1 kg one at h = 1 ms sinks 6.4 cm.
//!
//! **Stability of the light body's mode.** Symplectic Euler on x'' + 2ζω x' + ω² x = 0 with a = hω advances
//! (v, ωx) by [[1 − 2ζa, −a], [a(1 − 2ζa), 1 − a²]]: trace 2 − 2ζa − a², determinant 1 − 2ζa. Jury's
//! conditions give the region
//!
//! ```text
//!     a² + 4ζa < 4   and   2ζa < 2,   i.e. with β = h c/m:   h² k/m + 2 h c/m < 4   and   h c/m < 2.
//! ```
//!
//! (`tests::symplectic_euler_stability_region` checks it against the eigenvalues.) A light body of mass m
//! squeezed between the ground and a heavy body is, on its own time scale, a mass between two springs against
//! fixed walls: ω² = (k₁ + k₂)/m, c = c₁ + c₂. Each contact therefore spends a share
//! u = h²k/m + 2hc/m of the budget 4 of each body it touches. The source's rule for a single body on a fixed
//! one spends u = (π/8)² + 4ζ·π/8 = 0.154 + 1.571 = 1.725 for ζ = 1: the damper, not the spring, spends most
//! of it. Two such contacts on the light body spend 3.45 (86%); a stiffer spring with the damper 2ζ√(k m)
//! would spend 0.308·r + 3.14·√r and break the limit already at r = 1.4.
//!
//! **The rule chosen** (`stiffness_from_load = true`): a hardening spring on the mean depth d̄. Below the knee
//! at twice the pair's weight w = m|g| (m the reduced mass) it is the source's, f = k_src·d̄; beyond, the
//! tangent stiffness is r·k_src:
//!
//! ```text
//!     f(d̄) = k_src d̄                          for k_src d̄ ≤ 2w,
//!     f(d̄) = 2w + r (k_src d̄ − 2w)            beyond,      r = min(4, 1 + c_src/(h k_src)) = min(4, 1 + 16ζ/π),
//! ```
//!
//! and the damper shrinks so that the contact's share of the stability budget stays the source's:
//! h²k/m + 2hc/m = h²k_src/m + 2hc_src/m, i.e. c = c_src − h(k − k_src)/2 with k = r·k_src the tangent
//! stiffness; this does not depend on m, so it holds whichever body is the light one, and at whatever effective
//! mass the point has. Any arrangement that the source's rule integrates stably keeps the same margin. The cap
//! on r keeps at least half the source's damper (for e = 0, 70% of it: c_src/(h k_src) = 16ζ/π = 5.1), so a
//! heavy body still settles; for e = 1 (no damper) r = 1.
//!
//! The analysis is that of a body with two contacts, so the spring hardens only where neither moving body of
//! the pair touches more than two bodies (mod.rs counts them each substep; the piece pairs of one body pair
//! are one contact, as the two to four piece pairs where two interlocked rings of 16 segments meet): a stack,
//! a chain, a body between the ground and a load. Measured on the wrecking balls (a 510 kg ball on a chain of
//! 6.2 kg rings, springs from their 3.1 kg reduced mass): with the piece pairs counted, no ring hardened and
//! the chain caught the falling ball 32.6 mm deep; with the bodies counted, 12.5 mm. With more contacts per body, the antiphase modes of a lattice
//! or a pile (neighbours moving against each other double the relative motion) already spend the margin, and
//! each of the body's dampers gets only min(1, 2/n) of the source's (`damper_share` in mod.rs): measured, a
//! pyramid of cubes with four contacts each vibrated at constant energy with full dampers.
//!
//! Silo (1000 balls poured in columns, landing at 4.4 m/s) gained energy and reached 394 mm with the hardening
//! on: not the spring but the detection (touching.rs: GJK called stacked tessellated balls touching, so the
//! upper ball of a column fell through the lower one with no force); with that mended, 6.2 mm.
//!
//! Two contacts are the analysis's, not piece pairs: a body pair may overlap in many piece pairs (a bolt in its
//! nut in dozens), and their springs and dampers add up on the body. So each substep gains.rs (`budget`) finds,
//! for every moving body, the largest ratio r ≤ 4 at which what its piece pairs spend ([`hardened_spend`], the
//! damper at its share) stays within [`two_contacts`]; a pair's spring hardens to the smaller of its two
//! bodies' ratios (1, the source's rule, where even that is over). Measured: hexbolt's bolt (17.7 kg, one body,
//! dozens of piece pairs on the static nut) went 28.9 → 38.4 mm deep with the hardening conditioned on the
//! bodies touched alone, 29.6 mm with the budget; a ring of the wrecking ball's chain (8 piece pairs at
//! m_red/m = 1/2) spends 2.5 of 3.45 at r = 4.
//!
//! The budget also bounds the springs from above: where a body's piece pairs at the source's springs, with their
//! dampers, already spend more than [`two_contacts`] (a bolt in its nut: dozens of piece pairs in parallel on one
//! body, each spring h²k/m = 0.154 on its own, and more where the point's effective mass is smaller), symplectic
//! Euler blew the body up whatever the substep (hexbolt and bolt_nut: 10⁴–10⁵ J within 0.2 s; 20 nested bowls:
//! 3.4 kJ at 0.5 s). gains.rs (`soften`) then scales that body's springs (normal and friction) down to what the
//! budget leaves after the dampers, never below 1/n for the n piece pairs of one body pair (that pair's one
//! spring shared): measured, bolt_nut 0.37 mm deep and turning at the rate its friction allows (15.7 J at 0.5 s),
//! bowls20 4.9 mm at 0.5 s, 1.6 J. Sharing 1/n everywhere instead cost the wrecking balls' chain rings (two to
//! four piece pairs per ring pair, within the budget at full springs) 13.5 → 20.0 mm.

//! The spring thus follows the load a contact carries: a contact carrying a load W > 2w rests where
//! f(d̄) = W, with the stiffness r·k_src. A body at rest on a fixed one carries W = w and keeps the source's
//! rule exactly; so do impacts up to twice its weight. A heavy body on a light one sinks about (M/m)·d₀/4
//! instead of (M/m)·d₀: 1.6 cm for 1000 kg on 1 kg at h = 1 ms. Beyond that, only a smaller h helps
//! (`substeps`), since the light body's mode bounds the spring whatever the rule.
//!
//! Why a function of the depth and not of a measured load: a spring whose stiffness follows the (necessarily
//! lagged) contact force stiffens while compressed and releases more energy than it stored. A heavy plank on
//! two cubes (largemass) was thrown off the cubes that way within a second (measured, with the force filtered
//! over 32 substeps); the hardening spring is a potential, so it cannot pump energy. Without gravity, or with
//! `stiffness` set, the spring is linear.

/// The largest tangent stiffness ratio of the hardening spring.
pub const MAX_LOAD_RATIO: f64 = 4.0;

/// The source's spring k = π²m/(8h)² for reduced mass `m` and step `h`.
pub fn source_spring(m: f64, h: f64) -> f64 {
    std::f64::consts::PI * std::f64::consts::PI * m / (64.0 * h * h)
}

/// The tangent ratio r beyond the knee for damping ratio `zeta`: min(4, 1 + c_src/(h k_src)), where
/// c_src/(h k_src) = 2ζ/(hω) = 16ζ/π for the source's spring and damper.
pub fn max_ratio(zeta: f64) -> f64 {
    MAX_LOAD_RATIO.min(1.0 + 16.0 * zeta.max(0.0) / std::f64::consts::PI)
}

/// The hardening spring: for the linear spring force `f` = k_src·d̄, the pair's weight `w` (N) and the ratio
/// `r`, the force and the tangent stiffness ratio (1 below the knee at 2w, `r` beyond).
pub fn hardening(f: f64, w: f64, r: f64) -> (f64, f64) {
    let knee = 2.0 * w;
    if !(knee > 0.0) || !knee.is_finite() || f <= knee || r <= 1.0 {
        (f, 1.0)
    } else {
        (knee + r * (f - knee), r)
    }
}

/// A piece pair's spend h²k/m + 2hc/m of the stability budget of a body of mass `m_body`, with its spring
/// hardened to the tangent ratio `r` (k = r·k_src, k_src = π²m/(8h)², m = `m_red`) and the damper
/// [`budget_damper`] of its share `share` of the source's critical one, c_src = share·2ζ√(k_src m). Free of h.
pub fn hardened_spend(m_body: f64, m_red: f64, zeta: f64, share: f64, r: f64) -> f64 {
    shared_spend(m_body, m_red, zeta, share, 1.0, r)
}

/// [`hardened_spend`] of a piece pair with `part` of its body pair's spring (k = part·r·k_src) and its damper
/// at `share` of the source's whole one: the spring's spend scales with `part`, the damper's does not.
pub fn shared_spend(m_body: f64, m_red: f64, zeta: f64, share: f64, part: f64, r: f64) -> f64 {
    let kh2 = std::f64::consts::PI.powi(2) / 64.0 * m_red;
    let ch = share * 2.0 * zeta.max(0.0) * (kh2 * m_red).sqrt();
    (part * r * kh2 + 2.0 * budget_damper(ch, part * kh2, part * r * kh2, 1.0)) / m_body
}

/// The budget a body may spend, that of two of the source's contacts on a fixed body: 2((π/8)² + 4ζπ/8)
/// (3.45 of symplectic Euler's 4 for ζ = 1).
pub fn two_contacts(zeta: f64) -> f64 {
    2.0 * hardened_spend(1.0, 1.0, zeta, 1.0, 1.0)
}

/// The damper that keeps a contact's share of the stability budget h²k/m + 2hc/m at the source's when its
/// (tangent) spring goes from `k_src` to `k` (never below zero).
pub fn budget_damper(c_src: f64, k_src: f64, k: f64, h: f64) -> f64 {
    (c_src - 0.5 * h * (k - k_src)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spectral radius of symplectic Euler's update for x'' + 2ζω x' + ω² x = 0 at a = hω.
    fn radius(a: f64, zeta: f64) -> f64 {
        let (t, d) = (2.0 - 2.0 * zeta * a - a * a, 1.0 - 2.0 * zeta * a);
        let disc = t * t / 4.0 - d;
        if disc >= 0.0 {
            (t / 2.0).abs() + disc.sqrt()
        } else {
            d.abs().sqrt()
        }
    }

    #[test]
    fn symplectic_euler_stability_region() {
        // the region a² + 4ζa < 4, 2ζa < 2 against the eigenvalues, on a grid on both sides of the boundary
        for zeta in [0.0, 0.1, 0.5, 1.0, 2.0] {
            let limit = (-2.0 * zeta + 2.0 * (zeta * zeta + 1.0f64).sqrt()).min(1.0 / zeta.max(1e-300));
            for f in [0.5, 0.9, 0.99] {
                assert!(radius(f * limit, zeta) <= 1.0 + 1e-12, "ζ {zeta} a {} inside but ρ {}", f * limit, radius(f * limit, zeta));
            }
            for f in [1.01, 1.1, 1.5] {
                assert!(radius(f * limit, zeta) > 1.0, "ζ {zeta} a {} outside but ρ {}", f * limit, radius(f * limit, zeta));
            }
        }
    }

    /// The light body of a chain ground – m – M under symplectic Euler with the given springs and dampers: the
    /// largest |x| over the last quarter of the run relative to its static solution's scale.
    fn chain(m: f64, big: f64, k: [f64; 2], c: [f64; 2], h: f64, steps: usize) -> f64 {
        // x1: light body's height offset, x2: heavy body's; springs k0 (ground–light), k1 (light–heavy)
        let (mut x, mut v) = ([1e-3, 0.0], [0.0, 0.0]);
        let mut worst = 0.0f64;
        for s in 0..steps {
            let f1 = -k[0] * x[0] - c[0] * v[0] + k[1] * (x[1] - x[0]) + c[1] * (v[1] - v[0]);
            let f2 = -k[1] * (x[1] - x[0]) - c[1] * (v[1] - v[0]);
            v[0] += h * f1 / m;
            v[1] += h * f2 / big;
            x[0] += h * v[0];
            x[1] += h * v[1];
            if !(x[0].is_finite() && x[1].is_finite()) {
                return f64::INFINITY;
            }
            if s > 3 * steps / 4 {
                worst = worst.max(x[0].abs()).max(x[1].abs());
            }
        }
        worst
    }

    #[test]
    fn a_heavy_body_on_a_light_one_stays_stable_with_the_load_rule_and_not_without_the_budget() {
        let (m, big, h, g) = (1.0, 1000.0, 1e-3, 9.81);
        let ks = source_spring(m, h);
        let cs = 2.0 * (ks * m).sqrt();
        // both contacts carry ≈ M g, beyond the knee at 2 m g
        let (_, r) = hardening(big * g, m * g, max_ratio(1.0));
        assert_eq!(r, MAX_LOAD_RATIO);
        let (k, c) = (r * ks, budget_damper(cs, ks, r * ks, h));
        assert!(c >= 0.5 * cs && c < cs);
        let stable = chain(m, big, [k, k], [c, c], h, 200_000);
        assert!(stable < 1e-6, "the load rule's chain grew to {stable}");
        // the same springs with the damper 2√(k m) break the light body's limit
        let c_naive = 2.0 * (k * m).sqrt();
        let unstable = chain(m, big, [k, k], [c_naive, c_naive], h, 20_000);
        assert!(!(unstable < 1.0), "the naive damper stayed bounded ({unstable})");
    }

    #[test]
    fn a_piece_pairs_spend_is_the_source_s_until_the_damper_is_spent_then_the_spring_s() {
        let (pi, zeta) = (std::f64::consts::PI, 1.0);
        // the source's contact on a fixed body: (π/8)² + 4ζπ/8; two of them are the budget
        let src = (pi / 8.0).powi(2) + 4.0 * zeta * pi / 8.0;
        assert!((hardened_spend(2.0, 2.0, zeta, 1.0, 1.0) - src).abs() < 1e-12);
        assert!((two_contacts(zeta) - 2.0 * src).abs() < 1e-12 && (two_contacts(zeta) - 3.45).abs() < 0.01);
        // the same as the symplectic Euler terms h²k/m + 2hc/m with the gains of `budget_damper`
        let (m_body, m, h, share, r) = (6.2, 3.1, 1e-3, 0.25, 1.3);
        let ks = source_spring(m, h);
        let c = budget_damper(share * 2.0 * zeta * (ks * m).sqrt(), ks, r * ks, h);
        let direct = (h * h * r * ks + 2.0 * h * c) / m_body;
        assert!((hardened_spend(m_body, m, zeta, share, r) - direct).abs() < 1e-12 * direct);
        // full share: constant while the damper lasts; at share 1/4 the damper is gone by r = 1.85 and the
        // spring's term grows with r
        assert!((hardened_spend(5.0, 5.0, zeta, 1.0, 4.0) - src).abs() < 1e-12);
        let spent = hardened_spend(6.2, 3.1, zeta, 0.25, 4.0);
        assert!((spent - 4.0 * (pi / 8.0).powi(2) * 3.1 / 6.2).abs() < 1e-12, "{spent}");
        // eight such piece pairs (a ring of the wrecking ball's chain) stay within two contacts
        assert!(8.0 * spent < two_contacts(zeta));
    }

    #[test]
    fn a_body_resting_on_a_fixed_one_keeps_the_source_rule() {
        let (m, h, g) = (2.0, 1e-3, 9.81);
        let (w, ks) = (m * g, source_spring(m, h));
        let cs = 2.0 * (ks * m).sqrt();
        let r = max_ratio(1.0);
        assert_eq!(hardening(w, w, r), (w, 1.0));
        assert_eq!(hardening(1.9 * w, w, r), (1.9 * w, 1.0));
        let (f, rr) = hardening(3.0 * w, w, r);
        assert!((f - (2.0 * w + r * w)).abs() < 1e-12 && rr == r);
        // the force is continuous at the knee and its slope is r beyond
        let (below, _) = hardening(2.0 * w - 1e-9, w, r);
        let (above, _) = hardening(2.0 * w + 1e-9, w, r);
        assert!((above - below - (1.0 + r) * 1e-9).abs() < 1e-12);
        // the cap keeps half the source's damper: c_src/(h k_src) = 16ζ/π
        assert!((cs / (h * ks) - 16.0 / std::f64::consts::PI).abs() < 1e-9);
        let r = max_ratio(0.2);
        assert!((r - (1.0 + 3.2 / std::f64::consts::PI)).abs() < 1e-12);
        assert!((budget_damper(0.2 * cs, ks, r * ks, h) - 0.1 * cs).abs() < 1e-9 * cs);
        // no gravity, or no damper: linear
        assert_eq!(hardening(100.0, 0.0, 4.0), (100.0, 1.0));
        assert_eq!(hardening(100.0 * w, w, max_ratio(0.0)), (100.0 * w, 1.0));
        assert_eq!(budget_damper(cs, ks, ks, h), cs);
    }
}
