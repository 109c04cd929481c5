//! The gains of a contact: the spring of eq. (8) and its load-following law, the dampers and the friction
//! gains (stiffness.rs gives the rules; this is where `Volumetric` applies them to a piece pair).

use super::penalty::Patch;
use super::tipping::{self, Balance};
use super::{stiffness, Volumetric};
use crate::dynamics::collision_matrix::collision_matrix_at as collision_matrix;
use crate::dynamics::contact_spring::{damping_ratio_for, reduced_mass};
use crate::math::Vec3;
use crate::methods::volumetric::friction::Gains;
use crate::methods::volumetric::FrictionDamper;
use crate::model::Model;
use crate::state::State;

impl Volumetric {
    /// The pair's spring from the source's rule k = π²m/(8h)² (eq. 8, m the reduced mass), unless `stiffness`
    /// overrides it.
    pub(super) fn spring(&self, model: &Model, a: usize, b: usize, h: f64) -> f64 {
        self.params.stiffness.unwrap_or_else(|| stiffness::source_spring(reduced_mass(model, a, b), h))
    }

    /// The spring law (stiffness.rs): the force for the linear spring force `f` and the tangent stiffness ratio r,
    /// for a piece pair with `share` of its body pair's contact (the knee at that share of the pair's weight).
    pub(super) fn law(&self, model: &Model, a: usize, b: usize, f: f64, share: f64) -> (f64, f64) {
        // only where the analysis holds: bodies with at most two contacts (a chain, a stack, a body between
        // the ground and a load); with more, a body's antiphase modes already spend the margin
        if self.params.stiffness.is_some() || !self.params.stiffness_from_load || self.touching(a).max(self.touching(b)) > 2 {
            return (f, 1.0);
        }
        let ratio = |i: usize| if self.movable[i] { self.ratio[i] } else { f64::INFINITY };
        let r = stiffness::max_ratio(self.zeta(model, a, b)).min(ratio(a)).min(ratio(b));
        stiffness::hardening(f, share * reduced_mass(model, a, b) * model.gravity.length(), r)
    }

    /// The factor on a contact's damper for its fill ρ = f/(k·depth) (mean depth over depth: 1 for a face, ½
    /// for a sphere's cap): the spring per unit of depth is ρk, so the damper that gives the pair's ζ is √ρ
    /// times the face's; the factor rises to 1 as ζ → 1 (ζ²-weighted), since a contact that cannot pull needs
    /// more than the linear oscillator's ζ to stop a bounce (e = 0 asks for all the damper the budget allows).
    /// 1 with `damping` or `damping_ratio` set, and for the point model.
    pub(super) fn fill_damping(&self, model: &Model, a: usize, b: usize, f: f64, f_full: f64) -> f64 {
        if self.params.damping.is_some() || self.params.damping_ratio.is_some() || !(f_full > 0.0) {
            return 1.0;
        }
        let root = (f / f_full).clamp(0.0, 1.0).sqrt();
        let w = self.zeta(model, a, b).clamp(0.0, 1.0).powi(2);
        root + (1.0 - root) * w
    }

    /// The pair's damping ratio ζ: `damping_ratio`, or the one for the pair's restitution.
    pub(super) fn zeta(&self, model: &Model, a: usize, b: usize) -> f64 {
        let (_, _, e) = model.pair_material(a, b);
        self.params.damping_ratio.unwrap_or_else(|| damping_ratio_for(e))
    }

    /// Each moving body's largest tangent ratio r ≤ [`stiffness::MAX_LOAD_RATIO`] at which its piece pairs'
    /// spends ([`stiffness::hardened_spend`], every pair at min(r, its own cap)) add up to at most
    /// [`stiffness::two_contacts`] (the least over its pairs' ζ), into `self.ratio`: 1 where even the source's
    /// gains spend more; after the substep's overlaps and counts. The spend is non-decreasing in r, so a
    /// bisection finds it.
    pub(super) fn budget(&mut self, model: &Model) {
        let n = model.bodies.len();
        let (mut lo, mut hi, mut cap) = (vec![1.0f64; n], vec![stiffness::MAX_LOAD_RATIO; n], vec![f64::INFINITY; n]);
        // per moving body of each piece pair: (body, the spend at r = 1, its slope in r once the damper is
        // spent, the pair's cap on r: 1 where a body touches more than two, `law`); with
        // h = 1 the spend of `hardened_spend` is max(h²k_src + 2hc, r·h²k_src)/m
        self.soften(model);
        self.entries.clear();
        for o in &self.overlaps {
            let (a, b) = (o.a, o.b);
            let (m, zeta, share) = (reduced_mass(model, a, b), self.zeta(model, a, b), self.damper_share(a, b));
            let part = o.share;
            let rmax = if self.touching(a).max(self.touching(b)) > 2 { 1.0 } else { stiffness::max_ratio(zeta) };
            for i in [a, b] {
                if self.movable[i] {
                    let (base, slope) = (
                        stiffness::shared_spend(model.bodies[i].mass, m, zeta, share, part, 1.0),
                        stiffness::shared_spend(model.bodies[i].mass, m, 0.0, 0.0, part, 1.0),
                    );
                    self.entries.push((i, base, slope, rmax));
                    cap[i] = cap[i].min(stiffness::two_contacts(zeta));
                }
            }
        }
        let spend = |entries: &[(usize, f64, f64, f64)], r: &[f64], out: &mut Vec<f64>| {
            out.clear();
            out.resize(n, 0.0);
            for &(i, base, slope, rmax) in entries {
                out[i] += base.max(r[i].min(rmax) * slope);
            }
        };
        let mut sum = Vec::new();
        spend(&self.entries, &lo, &mut sum);
        for i in 0..n {
            if sum[i] > cap[i] {
                hi[i] = 1.0;
            }
        }
        spend(&self.entries, &hi, &mut sum);
        for i in 0..n {
            if sum[i] <= cap[i] {
                lo[i] = hi[i];
            }
        }
        if lo.iter().zip(&hi).any(|(l, h)| l < h) {
            let mut mid = vec![0.0; n];
            for _ in 0..24 {
                for i in 0..n {
                    mid[i] = 0.5 * (lo[i] + hi[i]);
                }
                spend(&self.entries, &mid, &mut sum);
                for i in 0..n {
                    if sum[i] <= cap[i] {
                        lo[i] = mid[i];
                    } else {
                        hi[i] = mid[i];
                    }
                }
            }
        }
        self.ratio = lo;
    }

    /// The springs' part of each piece pair (`Overlap::share`, on entry 1/n for the n piece pairs of its body
    /// pair): 1 where every moving body's piece pairs at full springs, with their dampers, spend at most
    /// [`stiffness::two_contacts`]; where a body's spend is more (a bolt in its nut, a bowl in a bowl: dozens of
    /// piece pairs, each with the source's spring, on one body), its springs are scaled down to what the budget
    /// leaves after the dampers, but not below 1/n (the body pair's one spring shared among its piece pairs).
    fn soften(&mut self, model: &Model) {
        let n = model.bodies.len();
        let mut soft = std::mem::take(&mut self.soft);
        soft.clear();
        soft.resize(n, (0.0, 0.0, f64::INFINITY));
        for o in &self.overlaps {
            let (m, zeta, share) = (reduced_mass(model, o.a, o.b), self.zeta(model, o.a, o.b), self.damper_share(o.a, o.b));
            for i in [o.a, o.b] {
                if self.movable[i] {
                    let (springs, total, cap) = &mut soft[i];
                    *springs += stiffness::shared_spend(model.bodies[i].mass, m, 0.0, 0.0, 1.0, 1.0);
                    *total += stiffness::shared_spend(model.bodies[i].mass, m, zeta, share, 1.0, 1.0);
                    *cap = cap.min(stiffness::two_contacts(zeta));
                }
            }
        }
        // each body's part: 1 within the budget, else what the budget leaves after the dampers over the springs
        for (springs, total, cap) in soft.iter_mut() {
            *springs = if *total <= *cap { 1.0 } else { ((*cap - (*total - *springs)) / *springs).clamp(0.0, 1.0) };
        }
        for o in &mut self.overlaps {
            o.share = o.share.max(soft[o.a].0.min(soft[o.b].0));
        }
        self.soft = soft;
    }

    /// The bodies that moving body `i` overlaps this substep (0 for a body that does not move).
    pub(super) fn touching(&self, i: usize) -> u32 {
        if self.movable[i] {
            self.touching[i]
        } else {
            0
        }
    }

    /// The most overlapping piece pairs this substep on either moving body of a contact.
    pub(super) fn contacts_on(&self, a: usize, b: usize) -> u32 {
        let n = |i: usize| if self.movable[i] { self.counts[i] } else { 0 };
        n(a).max(n(b))
    }

    /// The share s = min(1, 2/n) of the source's dampers that a contact gets, n the most overlapping piece
    /// pairs on either of its moving bodies (stiffness.rs: a body's dampers add up, and two critical ones are
    /// what explicit integration bears).
    pub(super) fn damper_share(&self, a: usize, b: usize) -> f64 {
        let most = self.contacts_on(a, b);
        if most > 2 {
            2.0 / most as f64
        } else {
            1.0
        }
    }

    /// The balance of friction's tipping moment for a contact's patch that reaches `reach` from its centre of
    /// pressure (tipping.rs); none where `balance_tipping` is off or the patch has no area.
    pub(super) fn balance(&self, model: &Model, state: &State, (a, b): (usize, usize), patch: &Patch, reach: f64) -> Balance {
        if !self.params.balance_tipping || reach <= 0.0 || patch.force <= 0.0 {
            return Balance::NONE;
        }
        let (_, mu_s, _) = model.pair_material(a, b);
        tipping::balance(model, state, (a, b), patch.point, patch.normal, reach, mu_s)
    }

    /// The stop damper m/(h·n) for a contact point of mass `mass` (the smaller of it and the pair's reduced
    /// mass), where the friction damper is `stop` and no `damping` is set; `None` otherwise.
    pub(super) fn stop_damper(&self, model: &Model, (a, b): (usize, usize), mass: f64, h: f64) -> Option<f64> {
        if self.params.damping.is_some() || self.params.friction_damper != FrictionDamper::Stop {
            return None;
        }
        Some(self.stop_gain((a, b), mass.min(reduced_mass(model, a, b)), h))
    }

    /// The damper m/(h·n) that stops a point of mass `m` within the substep `h`, shared among the n contacts
    /// of the most touched moving body of the pair.
    fn stop_gain(&self, (a, b): (usize, usize), m: f64, h: f64) -> f64 {
        m / (h * self.contacts_on(a, b).max(1) as f64)
    }

    /// The pair's spring k (eq. 8, from the reduced mass, times the load ratio `r`) and the damper c and
    /// friction gains for a contact at `point` with normal `n`.
    ///
    /// Dampers and the friction spring use the effective mass at the point (1/(nᵀKn) along n, the smallest
    /// tangential one for friction), which keeps symplectic Euler stable where rotation makes the point lighter than
    /// the reduced mass. `part` is the piece pair's part of the spring (`soften`); the dampers keep the source's
    /// rule at the full spring. See docs/methods/volumetric-penalty.md, "Effective mass at the contact point".
    pub(super) fn gains(
        &self,
        model: &Model,
        state: &State,
        (a, b, part): (usize, usize, f64),
        point: Vec3,
        n: Vec3,
        h: f64,
        r: f64,
    ) -> (f64, f64, Gains) {
        let m = reduced_mass(model, a, b);
        let k_src = part * self.params.stiffness.unwrap_or(stiffness::source_spring(m, h));
        let k = r * k_src;
        let kmat = collision_matrix(model, state, a, b, point);
        let mn = 1.0 / n.dot(kmat * n);
        let (t1, t2) = crate::math::tangent_basis(n);
        let (k11, k12, k22) = (t1.dot(kmat * t1), t1.dot(kmat * t2), t2.dot(kmat * t2));
        let lmax = 0.5 * (k11 + k22) + (0.25 * (k11 - k22).powi(2) + k12 * k12).sqrt();
        let mt = 1.0 / lmax;
        let (mu_k, mu_s, e) = model.pair_material(a, b);
        let zeta = self.params.damping_ratio.unwrap_or_else(|| damping_ratio_for(e));
        let share = self.damper_share(a, b);
        let c_src = share * 2.0 * zeta * (k_src / part * mn.min(m)).sqrt();
        let c = self.params.damping.unwrap_or_else(|| stiffness::budget_damper(c_src, k_src, k, h));
        let rf = self.params.friction_stiffness;
        let kf = part * rf * self.params.stiffness.unwrap_or(stiffness::source_spring(mt.min(m), h));
        let cf = match (self.params.damping, self.params.friction_damper) {
            (Some(c), _) => rf * c,
            (None, FrictionDamper::Source) => rf * share * 2.0 * zeta * (kf / part * mt.min(m)).sqrt(),
            (None, FrictionDamper::Stop) => self.stop_gain((a, b), mt.min(m), h),
        };
        (k, c, Gains { k: kf, c: cf, mu_s, mu_k })
    }
}
