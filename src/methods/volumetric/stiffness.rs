//! The normal spring and damper of a contact: the source's rule (Hasegawa et al. eq. 8, k = π²m/(8h)², critical
//! damper), and the option that follows the load (`stiffness_from_load`): a spring that hardens beyond twice the
//! pair's weight, so that a heavy body on a light one sinks less, with a damper that shrinks so that symplectic
//! Euler keeps the source's stability margin, within a per-body budget. The spring is a function of the depth
//! (a potential), never of the lagged contact force, so that it cannot pump energy.
//! See docs/methods/volumetric-penalty.md, "Contact stiffness and damping".

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

/// The depth offset p of a contact's spring k(d̄ − p) after the substep changed from `h_last` to `h` (the
/// spring k ∝ 1/h² changes with it) at mean depth `d`: where the spring stiffens while compressed, the offset
/// keeps its force k_last(d̄ − p_last) unchanged, so a finer substep never pushes with energy nobody put in;
/// it never raises the force, and follows the depth down as the contact unloads (p ≤ d̄). 0 for a new contact
/// (`h_last` = 0). See docs/methods/volumetric-penalty.md, "Substeps that follow the load".
pub fn engaged_offset(p_last: f64, h_last: f64, h: f64, d: f64) -> f64 {
    if !(h_last > 0.0) || !(d > 0.0) {
        return 0.0;
    }
    let kept = if h == h_last { p_last.min(d) } else { d - (h / h_last).powi(2) * (d - p_last).max(0.0) };
    kept.clamp(0.0, d)
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
    #[test]
    fn a_finer_substep_keeps_the_force_of_a_compressed_spring_and_never_raises_it() {
        let k = |h: f64| source_spring(1.0, h);
        let (h0, d) = (1e-3, 2e-4);
        // unchanged substep: no offset, or the old one while compressed beyond it, the depth once above it
        assert_eq!(engaged_offset(0.0, h0, h0, d), 0.0);
        assert_eq!(engaged_offset(5e-5, h0, h0, d), 5e-5);
        assert_eq!(engaged_offset(3e-4, h0, h0, d), d);
        assert_eq!(engaged_offset(1e-4, 0.0, h0, d), 0.0);
        // four times finer: the force at d is the old one; deeper, the new spring's slope
        let h = h0 / 4.0;
        let p = engaged_offset(0.0, h0, h, d);
        assert!((k(h) * (d - p) - k(h0) * d).abs() < 1e-9 * k(h0) * d, "{p}");
        assert_eq!(engaged_offset(p, h, h, d + 1e-5), p);
        // coarser again: the force never rises above the old one, and the offset never goes below 0
        let back = engaged_offset(p, h, h0, d);
        assert!(k(h0) * (d - back) <= k(h) * (d - p) * (1.0 + 1e-12) && back >= 0.0);
        // unloading: the offset follows the depth down
        assert_eq!(engaged_offset(p, h, h, 0.5 * p), 0.5 * p);
    }
}
