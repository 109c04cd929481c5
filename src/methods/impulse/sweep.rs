//! The sequential impulses of a sweep: where a pair needs an impulse, the collision law's impulse, static
//! friction of resolved pairs, and the sweeps of a phase.

use super::memo::FaceShape;
use super::{law, FrictionModel, Group, Impulse, Patch, APPROACH};
use crate::math::{Mat3, Vec3};
use crate::model::Model;
use std::time::Instant;

/// One contact resolution in this many is timed (`StepStats::resolution_seconds` is scaled up from them).
const TIMING_SAMPLE: usize = 16;

impl Impulse {
    /// Where and how group `g` needs an impulse at the current velocities; `None` when no candidate is both
    /// interfering (d < 0) and approaching (u_n < 0).
    ///
    /// Each point's normal speed u_n and first-order depth d are computed once per call into `du` (the passes
    /// below and `face_shape` read them from there).
    ///
    /// The face's shape (its centre, locked axes and extent) depends only on which points form it and on the
    /// normal: it is kept per pair (memo.rs `Memos::shape`) and formed again only when those change.
    fn patch(&mut self, gi: usize, g: &Group, h: f64, du: &mut Vec<(f64, f64)>) -> Option<Patch> {
        let (ba, bb) = (&self.bodies[g.a as usize], &self.bodies[g.b as usize]);
        let range = g.first as usize..(g.first + g.len) as usize;
        du.clear();
        du.extend(self.points[range.clone()].iter().map(|p| {
            let un = p.normal_speed(ba, bb);
            (p.d0 + h * (un - p.un0), un)
        }));
        let (mut deepest, mut deepest_q) = (f64::INFINITY, f64::INFINITY);
        let mut normal = Vec3::ZERO;
        let mut deepest_at = (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO);
        for (p, &(d, un)) in self.points[range.clone()].iter().zip(du.iter()) {
            if d < 0.0 {
                if d < deepest {
                    deepest = d;
                    deepest_at = (p.ra, p.rb, p.n);
                }
                if un < -APPROACH && d < deepest_q {
                    deepest_q = d;
                    normal = p.n;
                }
            }
        }
        if !deepest.is_finite() {
            return None;
        }
        let approaching = deepest_q.is_finite();
        if !approaching {
            // interfering but resolved: only friction may still act (see `sweep`)
            deepest_q = deepest;
            normal = deepest_at.2;
        }
        let window = self.params.point_window;
        // the approaching points, weighted by approach speed; the interfering face (all points near the deepest)
        let (mut wa, mut wb, mut wk) = (Vec3::ZERO, Vec3::ZERO, 0.0);
        let (mut ca, mut cb, mut ck) = (Vec3::ZERO, Vec3::ZERO, 0.0);
        // which points form the face (pairs of more than 64 points are not kept)
        let mut mask = 0u64;
        for (k, (p, &(d, un))) in self.points[range.clone()].iter().zip(du.iter()).enumerate() {
            if d < 0.0 && un < -APPROACH && d <= deepest_q + window {
                wa += -un * p.ra;
                wb += -un * p.rb;
                wk += -un;
            }
            if d < 0.0 && d <= deepest + window && window > 0.0 {
                ca += p.ra;
                cb += p.rb;
                ck += 1.0;
                mask |= 1u64.checked_shl(k as u32).unwrap_or(0);
            }
        }
        let (wa, wb) = if wk > 0.0 { (wa / wk, wb / wk) } else { (deepest_at.0, deepest_at.1) };
        let mut patch =
            Patch { approaching, ra: wa, rb: wb, n: normal, axes: [Vec3::ZERO; 3], locked: 0, extent: 0.0, face_ra: wa, face_rb: wb };
        if ck >= 2.0 {
            let keep = (g.len <= 64).then_some(mask);
            let points = &self.points[range];
            let shape = self.memos.shape(gi, keep, normal, || face_shape(points, du, (deepest + window, normal), (ca, cb, ck)));
            patch.axes = shape.axes;
            patch.locked = shape.locked;
            patch.extent = shape.extent;
            patch.face_ra = shape.ra;
            patch.face_rb = shape.rb;
        }
        Some(patch)
    }

    /// One sweep over `list` (group indices). `restitution`: `None` uses each pair's ε (collisions), `Some(e)`
    /// uses e for every pair (contact: ε = 0, or the ramp's value). Returns the impulses applied.
    ///
    /// A pair that did nothing when it was last looked at, and whose bodies' velocities have not changed since,
    /// would do nothing again (what it does depends only on those velocities, the frozen flags and its own
    /// accumulated impulse): it is skipped (`quiet`, `changed`; exact, the sweep applies the same impulses).
    fn sweep(&mut self, list: &[u32], h: f64, restitution: Option<f64>) -> usize {
        let mut applied = 0;
        let mut du = std::mem::take(&mut self.du);
        for &gi in list {
            let g = self.groups[gi as usize];
            let (a, b) = (g.a as usize, g.b as usize);
            if self.quiet[gi as usize] > self.changed[a].max(self.changed[b]) {
                continue;
            }
            if !self.resolve_group(gi, &g, h, restitution, &mut du) {
                self.tick += 1;
                self.quiet[gi as usize] = self.tick;
                continue;
            }
            applied += 1;
        }
        self.du = du;
        applied
    }

    /// What one sweep does at group `gi` (see [`Impulse::sweep`]); returns whether it applied anything.
    fn resolve_group(&mut self, gi: u32, g: &Group, h: f64, restitution: Option<f64>, du: &mut Vec<(f64, f64)>) -> bool {
        {
            let Some(patch) = self.patch(gi as usize, g, h, du) else { return false };
            let (a, b) = (g.a as usize, g.b as usize);
            let (ba, bb) = (self.bodies[a], self.bodies[b]);
            // the rigid units that take the impulse (a weld's, weld.rs): their inverse masses and the offsets
            // from the bodies' centres to theirs, added to the lever arms of K and of the impulse
            let (ima, iia, oa) = self.unit(a);
            let (imb, iib, ob) = self.unit(b);
            if ima == 0.0 && imb == 0.0 {
                return false;
            }
            let mut c = g.coefficients;
            if let Some(e) = restitution {
                c.restitution = e;
            }
            // a negative ε of the contact ramp scales the ε = 0 impulse by 1 + ε (an under-relaxed sweep)
            let relax = 1.0 + c.restitution.min(0.0);
            c.restitution = c.restitution.max(0.0);
            let model = self.params.friction_model;
            if !patch.approaching {
                return self.hold(gi as usize, &patch, c.static_friction);
            }
            // the law's cost is sampled (one resolution in TIMING_SAMPLE): a clock read per resolution cost more
            // than a sphere's resolution
            let clock = (self.resolutions % TIMING_SAMPLE == 0).then(Instant::now);
            // a face: one impulse at its centre, with the moment that keeps it from tipping about the locked axes
            let mut done = None;
            if patch.locked > 0 {
                let (ra, rb) = (patch.face_ra, patch.face_rb);
                let u = (bb.v + bb.w.cross(rb)) - (ba.v + ba.w.cross(ra));
                let (ra, rb) = (ra + oa, rb + ob);
                let axes = &patch.axes[..patch.locked];
                let set_up =
                    self.memos.face(gi as usize, (ima, imb), (ra, rb), patch.n, axes, || face_of((ima, &iia, ra), (imb, &iib, rb), axes));
                let face = set_up.face;
                let (k_eff, u_eff) = face.reduced(u, bb.w - ba.w);
                let j = match model {
                    FrictionModel::Mirtich => set_up.frame(patch.n).mirtich(u_eff, c),
                    FrictionModel::Moore => law::moore(&k_eff, u_eff, patch.n, c),
                };
                let jn = j.dot(patch.n);
                if jn > 0.0 {
                    let m = face.moment(j, bb.w - ba.w);
                    // tipping moment: centre of pressure within the face; twisting: Coulomb on the face radius
                    let twist = m.dot(patch.n);
                    let mut tip = m - twist * patch.n;
                    let lever = tip.length() / jn;
                    if lever > patch.extent {
                        tip *= patch.extent / lever;
                    }
                    let max_twist = c.static_friction * jn * patch.extent * (2.0 / 3.0);
                    let m = tip + twist.clamp(-max_twist, max_twist) * patch.n;
                    done = Some((ra, rb, relax * j, relax * m));
                }
            }
            let (ra, rb, j, m) = done.unwrap_or_else(|| {
                let (ra, rb) = (patch.ra, patch.rb);
                let u = (bb.v + bb.w.cross(rb)) - (ba.v + ba.w.cross(ra));
                let (ra, rb) = (ra + oa, rb + ob);
                let kmat = law::collision_matrix(ima, &iia, ra, imb, &iib, rb);
                // a face whose centre needs nothing is only tipping: the corners that approach get a normal
                // impulse; the face's friction is the centre's (and `hold`'s), not a corner's
                let j = if patch.locked > 0 {
                    let un = u.dot(patch.n);
                    let kn = patch.n.dot(kmat * patch.n);
                    if un < 0.0 && kn > 0.0 {
                        patch.n * (-(1.0 + c.restitution) * un / kn)
                    } else {
                        Vec3::ZERO
                    }
                } else {
                    match model {
                        FrictionModel::Mirtich => law::mirtich(&kmat, u, patch.n, c),
                        FrictionModel::Moore => law::moore(&kmat, u, patch.n, c),
                    }
                };
                (ra, rb, relax * j, Vec3::ZERO)
            });
            if let Some(clock) = clock {
                self.timed.0 += clock.elapsed().as_secs_f64();
                self.timed.1 += 1;
            }
            self.resolutions += 1;
            let jn = j.dot(patch.n);
            self.impulse_sums.0 += jn;
            self.impulse_sums.1 += (j - jn * patch.n).length();
            self.accumulated[gi as usize].0 += jn;
            self.accumulated[gi as usize].1 += j - jn * patch.n;
            self.group_impulse[gi as usize] += j;
            self.apply((a, ima, iia, ra), (b, imb, iib, rb), j, m);
            true
        }
    }

    /// Static friction of a resolved (interfering, not approaching) pair that carried a normal impulse in this
    /// phase: the tangential impulse that stops its slip at the face centre (rotation about the face's locked
    /// axes stopped too), limited so that the phase's total friction impulse stays within μ_s times its total
    /// normal impulse. Sequential impulses alone act only while a pair approaches, so the last impulse of a sweep
    /// could leave a neighbour slipping; this keeps resting contacts stuck. Returns whether it applied anything.
    fn hold(&mut self, gi: usize, patch: &Patch, mu_s: f64) -> bool {
        let (jn_acc, jt_acc) = self.accumulated[gi];
        if jn_acc <= 0.0 {
            return false;
        }
        let g = self.groups[gi];
        let (a, b) = (g.a as usize, g.b as usize);
        let (ba, bb) = (self.bodies[a], self.bodies[b]);
        let (ima, iia, oa) = self.unit(a);
        let (imb, iib, ob) = self.unit(b);
        let (ra, rb) = (patch.face_ra, patch.face_rb);
        let n = patch.n;
        let u = (bb.v + bb.w.cross(rb)) - (ba.v + ba.w.cross(ra));
        let (ra, rb) = (ra + oa, rb + ob);
        let ut = u - u.dot(n) * n;
        if ut.length() < APPROACH {
            return false;
        }
        let w_rel = bb.w - ba.w;
        let axes = &patch.axes[..patch.locked];
        let face = self.memos.face(gi, (ima, imb), (ra, rb), n, axes, || face_of((ima, &iia, ra), (imb, &iib, rb), axes)).face;
        let (k_eff, u_eff) = face.reduced(u, w_rel);
        // tangential 2×2 solve in the contact plane
        let (t1, t2) = crate::math::tangent_basis(n);
        let (k11, k12, k22) = (t1.dot(k_eff * t1), t1.dot(k_eff * t2), t2.dot(k_eff * t2));
        let det = k11 * k22 - k12 * k12;
        if det <= 0.0 {
            return false;
        }
        let (r1, r2) = (-u_eff.dot(t1), -u_eff.dot(t2));
        let j = t1 * ((k22 * r1 - k12 * r2) / det) + t2 * ((k11 * r2 - k12 * r1) / det);
        let bound = mu_s * jn_acc;
        let mut total = jt_acc + j;
        if total.length() > bound {
            total *= bound / total.length();
        }
        let j = total - jt_acc;
        if j.length() <= 1e-12 * bound {
            return false;
        }
        let m = if patch.locked > 0 { face.moment(j, w_rel) } else { Vec3::ZERO };
        self.accumulated[gi].1 = total;
        self.group_impulse[gi] += j;
        self.impulse_sums.1 += j.length();
        self.apply((a, ima, iia, ra), (b, imb, iib, rb), j, m);
        true
    }

    /// The rigid unit that body `b`'s side of a contact moves: inverse mass, world inverse inertia (zero for a
    /// static or frozen body) and the offset from the body's predicted centre to the unit's (its weld's centre
    /// of mass, weld.rs; zero for a body on its own), to be added to lever arms from the body's centre.
    pub(super) fn unit(&self, b: usize) -> (f64, Mat3, Vec3) {
        if self.frozen[b] {
            return (0.0, Mat3::ZERO, Vec3::ZERO);
        }
        match self.welds.of(b) {
            Some(c) => (c.inv_m, c.inv_i, self.pred.bodies[b].x - c.xc),
            None => (self.bodies[b].inv_m, self.bodies[b].inv_i, Vec3::ZERO),
        }
    }

    /// Applies the impulse `j` and moment impulse `m` to B, and their opposites to A; each side is (body,
    /// inverse mass, world inverse inertia, lever arm) of its unit (`unit`), zero for a static or frozen body.
    fn apply(&mut self, a: (usize, f64, Mat3, Vec3), b: (usize, f64, Mat3, Vec3), j: Vec3, m: Vec3) {
        self.tick += 1;
        for (s, jj, mm) in [(a, -j, -m), (b, j, m)] {
            let (body, inv_m, inv_i, r) = s;
            let (dv, dw) = (inv_m * jj, inv_i * (r.cross(jj) + mm));
            match self.welds.of(body) {
                // the weld moves rigidly about its centre of mass
                Some(c) if inv_m > 0.0 => {
                    for &k in self.welds.members(c) {
                        let k = k as usize;
                        let d = self.pred.bodies[k].x - c.xc;
                        self.bodies[k].v += dv + dw.cross(d);
                        self.bodies[k].w += dw;
                        self.changed[k] = self.tick;
                    }
                }
                _ => {
                    self.bodies[body].v += dv;
                    self.bodies[body].w += dw;
                    self.changed[body] = self.tick;
                }
            }
        }
    }

    /// Runs up to `iterations` sweeps over `list`, stopping when a sweep applies nothing. Collisions
    /// (`contact` false) use each pair's ε; contact uses ε = 0, or with `restitution_ramp` the ramp
    /// ε_k = −1 + (k + 1)/N over the N sweeps (Guendelman et al.), so that early sweeps stop only part of the
    /// approach and later ones share out the rest.
    ///
    /// With joints in scope (`joints.rs`), a joint pre-stabilisation pass follows every sweep, and the sweeps stop
    /// only when neither applied anything; then the joint passes run on until the joints hold.
    pub(super) fn sweeps(&mut self, model: &Model, list: &[u32], h: f64, contact: bool, iterations: usize) -> usize {
        let mut done = 0;
        // frozen flags and restitution differ from the last call: every pair is looked at afresh
        self.quiet.clear();
        self.quiet.resize(self.groups.len(), 0);
        self.changed.resize(self.bodies.len(), 0);
        let joints = self.joints.scope.is_some();
        for k in 0..iterations {
            done += 1;
            let e = match (contact, self.params.restitution_ramp) {
                (false, _) => None,
                (true, false) => Some(0.0),
                (true, true) => Some(-1.0 + (k + 1) as f64 / iterations as f64),
            };
            let applied = self.sweep(list, h, e);
            // (0 without joints in scope)
            let joint_error = self.joint_pass(model);
            if joints {
                // the joint pass changes velocities without `apply`
                self.quiet.iter_mut().for_each(|q| *q = 0);
            }
            if applied == 0 && joint_error <= self.params.joint_tolerance {
                break; // nothing interferes and approaches: later sweeps would find the same
            }
        }
        self.joint_passes(model);
        done
    }

    /// Pairs still interfering and approaching faster than `resolved_speed`.
    pub(super) fn unresolved(&self, h: f64) -> usize {
        let tol = self.params.resolved_speed;
        self.groups
            .iter()
            .filter(|g| {
                let (ba, bb) = (&self.bodies[g.a as usize], &self.bodies[g.b as usize]);
                (g.first as usize..(g.first + g.len) as usize).any(|k| {
                    let p = &self.points[k];
                    let un = p.normal_speed(ba, bb);
                    p.d0 + h * (un - p.un0) < 0.0 && un < -tol
                })
            })
            .count()
    }

    /// Largest penetration the step leaves: the contact points' depths after the position update and the
    /// push-out displacements `shift` (empty: none), to first order in both, as push-out measures them. That is
    /// what the next step starts from; the depth before push-out would count penetration that the step removes
    /// (house_of_cards' collapse, its first 0.5 s: 8.25 mm before push-out, 0.98 mm after).
    pub(super) fn left_penetration(&self, h: f64) -> f64 {
        let mut worst = 0.0f64;
        for g in &self.groups {
            let (a, b) = (g.a as usize, g.b as usize);
            let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
            let none = (Vec3::ZERO, Vec3::ZERO);
            let (sa, sb) = (self.shift.get(a).copied().unwrap_or(none), self.shift.get(b).copied().unwrap_or(none));
            for p in &self.points[g.first as usize..(g.first + g.len) as usize] {
                let un = p.normal_speed(ba, bb);
                let moved_by = p.pushed(sa, sb);
                worst = worst.max(-(p.d0 + h * (un - p.un0) + moved_by));
            }
        }
        worst
    }
}

/// The face of a contact (its set-up, memo.rs) for units (inverse mass, world inverse inertia, lever arm) on
/// each side and the locked `axes`.
fn face_of((ima, iia, ra): (f64, &Mat3, Vec3), (imb, iib, rb): (f64, &Mat3, Vec3), axes: &[Vec3]) -> law::Face {
    let kmat = law::collision_matrix(ima, iia, ra, imb, iib, rb);
    law::Face::new(&kmat, iia, ra, iib, rb, axes)
}

/// The shape of a face formed by the `points` whose first-order depth (`du`) is below 0 and at most `limit`
/// (with the face's `normal`), their lever-arm sums and count `(ca, cb, ck)`, ck ≥ 2: its centre, the axes about
/// which it can carry a moment (spread directions × n, then n) and its radius.
fn face_shape(points: &[super::Point], du: &[(f64, f64)], (limit, normal): (f64, Vec3), (ca, cb, ck): (Vec3, Vec3, f64)) -> FaceShape {
    let (ca, cb) = (ca / ck, cb / ck);
    let (t1, t2) = crate::math::tangent_basis(normal);
    let (mut sxx, mut sxy, mut syy, mut extent) = (0.0, 0.0, 0.0, 0.0f64);
    for (p, &(d, _)) in points.iter().zip(du.iter()) {
        if d < 0.0 && d <= limit {
            let r = p.ra - ca;
            let (x, y) = (r.dot(t1), r.dot(t2));
            sxx += x * x / ck;
            sxy += x * y / ck;
            syy += y * y / ck;
            extent = extent.max(x.hypot(y));
        }
    }
    // principal in-plane spreads: a moment about e × n can be carried along a spread direction e
    let tr = 0.5 * (sxx + syy);
    let det = sxx * syy - sxy * sxy;
    let disc = (tr * tr - det).max(0.0).sqrt();
    let (l1, l2) = (tr + disc, tr - disc);
    let e1 = if sxy.abs() > 1e-300 {
        (t1 * (l1 - syy) + t2 * sxy).normalize()
    } else if sxx >= syy {
        t1
    } else {
        t2
    };
    let e2 = normal.cross(e1);
    let min_spread = (1e-3 * extent).max(1e-9);
    let mut shape = FaceShape { axes: [Vec3::ZERO; 3], locked: 0, extent, ra: ca, rb: cb };
    for (l, e) in [(l1, e1), (l2, e2)] {
        if l.sqrt() > min_spread {
            shape.axes[shape.locked] = e.cross(normal);
            shape.locked += 1;
        }
    }
    if shape.locked > 0 {
        // a segment or an area also resists twisting about the normal (torsional friction)
        shape.axes[shape.locked] = normal;
        shape.locked += 1;
    }
    shape
}
