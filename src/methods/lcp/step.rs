//! The stages of one `lcp` step (see the module documentation for their order and the source's names), and the
//! correction and row building they share.

use super::pgs::{layer_row, lever_arms, make_rows, merit, solve, warm, warm_joints, SideTerms};
use super::{Lcp, Rows, SBody};
use crate::collision::narrow::ContactData;
use crate::dynamics::integrate::{apply_load, external_wrench};
use crate::dynamics::joint_block::Vel;
use crate::error::SimError;
use crate::math::{quat_exp, tangent_basis, Mat3, Vec3};
use crate::method::{check_finite, ContactPoint, StepStats};
use crate::model::{BodyKind, Model};
use crate::state::State;

/// A contact with a fixed body seeds the stack analysis where its mean normal has at least this component
/// against gravity (about 6° off the horizontal): floors and slopes do, walls do not.
const SUPPORT: f64 = 0.1;

/// Adds a pass's impulses of a contact's rows (their final λ: warm start included, which the pass applied too)
/// to its contact point's force, over the step `h`. Body b takes +Σ λ_k d_k (pgs.rs `apply`), body a, the point's
/// `bodies[0]`, the opposite.
#[inline]
fn record_force(points: &mut [ContactPoint], r: &Rows, h: f64) {
    let p = r.dir[0] * r.lambda[0] + r.dir[1] * r.lambda[1] + r.dir[2] * r.lambda[2];
    points[r.contact as usize].force -= p / h;
}

impl Lcp {
    /// 1. Collision detection, on a state checked to be finite (parry must never see a NaN). The contact points
    ///    follow the contacts' order; their forces are summed by the velocity passes (`record_force`).
    pub(super) fn collision(&mut self, model: &Model, state: &mut State, h: f64, stats: &mut StepStats) -> Result<(), SimError> {
        check_finite(model, state, "collision")?;
        self.collision.detect(model, state, self.params.margin, h);
        self.collision.wake(&mut state.sleep);
        stats.contacts = self.collision.contacts.len();
        stats.contact_points = self
            .collision
            .contacts
            .iter()
            .map(|c| ContactPoint { point: 0.5 * (c.point_a + c.point_b), normal: c.normal, bodies: [c.a, c.b], force: Vec3::ZERO })
            .collect();
        stats.max_penetration = self.collision.max_penetration();
        Ok(())
    }

    /// 2. Stack analysis and islands, joints included (a jointed pair is connected, an articulation one node of
    ///    the stack: dynamics/graph.rs); the rows' order (bottom-up: by layer, then by colour and in detection
    ///    order, order.rs; joints by layer, then in the model's order) and the solver bodies (and the world,
    ///    body n, for joints to it).
    pub(super) fn analysis(&mut self, model: &Model, state: &State, stats: &mut StepStats) {
        let n = model.bodies.len();
        let nj = model.joints.len();
        self.bodies.clear();
        if self.rigid.len() != n {
            self.rigid = super::rigid_inertia(model);
        }
        // a sleeping body is fixed for the step: no rows reach it (collision), no load, no motion
        self.awake.clear();
        self.awake.extend((0..n).map(|i| crate::dynamics::sleep::awake(model, state, i)));
        for (i, b) in model.bodies.iter().enumerate() {
            let (inv_m, inv_i) =
                if self.awake[i] { (b.inv_mass(), self.inv_inertia(model, i, state.bodies[i].q)) } else { (0.0, Mat3::ZERO) };
            self.bodies.push(SBody { inv_m, inv_i });
        }
        self.vel.clear();
        self.vel.resize(n + 1, Vel::default());
        let mut fixed = std::mem::take(&mut self.fixed);
        fixed.clear();
        fixed.extend(self.awake.iter().map(|&a| !a));
        fixed.push(true);
        // one edge per body pair (its contacts are consecutive); a fixed body seeds the stack only where it holds
        // the other up, by the pair's mean normal (from a to b: up when b rests on a; graph.rs: a wall must not)
        let up = -model.gravity.normalize_or_zero();
        let seed = |a: usize, sum: Vec3| {
            let lift = sum.normalize_or_zero().dot(up);
            up == Vec3::ZERO || (if fixed[a] { lift } else { -lift }) > SUPPORT
        };
        self.edges.clear();
        self.seeds.clear();
        let mut sum = Vec3::ZERO;
        for c in &self.collision.contacts {
            if self.edges.last() != Some(&(c.a, c.b)) {
                if let Some(&(a, _)) = self.edges.last() {
                    self.seeds.push(seed(a, sum));
                }
                self.edges.push((c.a, c.b));
                sum = Vec3::ZERO;
            }
            sum += c.normal;
        }
        if let Some(&(a, _)) = self.edges.last() {
            self.seeds.push(seed(a, sum));
        }
        self.joint_edges.clear();
        self.joint_edges.extend(model.joints.iter().map(|j| (j.body1, j.body2.unwrap_or(n))));
        self.graph.stack_analysis(n + 1, &fixed, &self.edges, &self.seeds, &self.joint_edges, &mut self.stack);
        stats.islands = if nj == 0 {
            self.graph.islands(n + 1, &fixed, &self.edges)
        } else {
            self.all_edges.clear();
            self.all_edges.extend_from_slice(&self.edges);
            self.all_edges.extend_from_slice(&self.joint_edges);
            self.graph.islands(n + 1, &fixed, &self.all_edges)
        };
        self.fixed = fixed;
        // a joint between sleeping or fixed bodies has no rows this step; its warm start waits
        self.joint_order.clear();
        let awake = &self.awake;
        let moves = |j: &crate::model::Joint| awake[j.body1] || j.body2.is_some_and(|b| awake[b]);
        self.joint_order.extend((0..nj as u32).filter(|&k| moves(&model.joints[k as usize])));
        let joint_layer = &self.stack.joint_layer;
        self.joint_order.sort_by_key(|&k| (joint_layer[k as usize], k));
        self.joint_imp.clear();
        self.joint_imp.resize(nj, Default::default());
        if self.joint_order.len() < nj && self.joint_warm.len() == nj {
            for (k, j) in model.joints.iter().enumerate() {
                if !moves(j) {
                    self.joint_imp[k] = self.joint_warm[k];
                }
            }
        }
        self.joint_readings.clear();
        self.joint_readings.resize(nj, Default::default());
        self.joint_arm.clear();
        self.joint_arm.resize(nj, Vec3::ZERO);
        self.joint_rate0.clear();
        self.joint_rate0.resize(nj, 0.0);
        self.row_order.build(
            &self.collision.contacts,
            (&self.edges, &self.stack.edge_layer, self.stack.layers),
            &self.fixed,
            (&mut self.order, &mut self.contact_layer),
        );
        self.dist0.clear();
        self.dist0.extend(self.collision.contacts.iter().map(|c| c.dist));
        self.disp_x.clear();
        self.disp_x.resize(n, Vec3::ZERO);
        self.disp_t.clear();
        self.disp_t.resize(n, Vec3::ZERO);
        self.frozen.clear();
        self.frozen.resize(n, false);
    }

    /// 3. Error correction by projection (the correction after detection at t + Δt of the source).
    pub(super) fn correction(&mut self, model: &Model, state: &mut State) {
        self.correct_positions(model, state);
        self.proxies.snapshot(model, state);
    }

    fn correct_positions(&mut self, model: &Model, state: &mut State) {
        if self.params.correction && !(self.collision.contacts.is_empty() && model.joints.is_empty()) {
            let (order, jorder) = (std::mem::take(&mut self.order), std::mem::take(&mut self.joint_order));
            self.correct(model, state, &order, &jorder);
            (self.order, self.joint_order) = (order, jorder);
            // inertia follows the corrected orientations
            for i in 0..model.bodies.len() {
                if self.awake[i] {
                    self.bodies[i].inv_i = self.inv_inertia(model, i, state.bodies[i].q);
                }
            }
        }
    }

    /// 4. Dynamics pass over all contacts: f·Δt of the external impulse (all of it without shock propagation),
    ///    after the pre-step normal and tangential speeds (restitution, static/kinetic friction).
    pub(super) fn dynamics(&mut self, model: &Model, state: &mut State, h: f64, stats: &mut StepStats) -> Result<(), SimError> {
        let (nc, nb) = (self.collision.contacts.len(), model.bodies.len());
        self.pre_step_speeds(model, state);
        self.stiffen(model, state, h);
        let frac1 = if self.params.shock_propagation { self.params.shock_fraction } else { 1.0 };
        self.load_velocities(model, state, h, frac1);
        let (mut rows, mut terms) = (std::mem::take(&mut self.rows), std::mem::take(&mut self.row_terms));
        self.velocity_rows(state, h, &mut rows, &mut terms);
        (self.rows, self.row_terms) = (rows, terms);
        let (mut jrows, jorder) = (std::mem::take(&mut self.jrows), std::mem::take(&mut self.joint_order));
        self.joint_velocity_rows(model, state, h, &jorder, 0, &mut jrows);
        self.joint_order = jorder;
        if self.params.warm_start {
            warm(&self.rows, &self.bodies, &mut self.vel, true);
            warm_joints(&jrows, &mut self.vel);
        }
        let p = &self.params;
        stats.iterations =
            solve(&mut self.rows, (&mut jrows, &mut self.work), &self.bodies, &mut self.vel, p.iterations, p.normal_sweeps, p.tolerance);
        stats.residual = merit(&self.rows, &jrows, &self.vel);
        self.joint_impulses(&jrows, 0);
        self.jrows = jrows;
        self.impulses.clear();
        self.impulses.resize(nc, ContactData::default());
        for r in &self.rows {
            let d = &mut self.impulses[r.contact as usize].impulse;
            d[0..3].copy_from_slice(&r.lambda);
            stats.normal_impulse += r.lambda[0];
            stats.friction_impulse += (r.lambda[1] * r.lambda[1] + r.lambda[2] * r.lambda[2]).sqrt();
            record_force(&mut stats.contact_points, r, h);
        }
        for (i, b) in self.vel.iter().take(nb).enumerate() {
            if self.awake[i] {
                state.bodies[i].v = b.v;
                state.bodies[i].w = b.w;
            }
        }
        self.dyn_vel.clear();
        self.dyn_vel.extend_from_slice(&self.vel[..nb]);
        check_finite(model, state, "dynamics")
    }

    /// 5. Shock propagation: layers bottom-up, the layer's lower bodies fixed, then position update and
    ///    correction of the layer's upper bodies.
    pub(super) fn shock(&mut self, model: &Model, state: &mut State, h: f64, stats: &mut StepStats) -> Result<(), SimError> {
        let n = model.bodies.len();
        self.integrated.clear();
        self.integrated.resize(n, false);
        if !self.params.shock_propagation {
            return Ok(());
        }
        self.load_velocities(model, state, h, 1.0 - self.params.shock_fraction);
        let (mut start, mut js, nj) = (0, 0, self.joint_order.len());
        // the layers that hold contacts or joints, bottom-up
        while start < self.order.len() || js < nj {
            let contact_layer = self.order.get(start).map_or(u32::MAX, |&c| self.contact_layer[c as usize]);
            let joint_layer = self.joint_order.get(js).map_or(u32::MAX, |&k| self.stack.joint_layer[k as usize]);
            let layer = contact_layer.min(joint_layer);
            let mut end = start;
            while end < self.order.len() && self.contact_layer[self.order[end] as usize] == layer {
                end += 1;
            }
            let mut je = js;
            while je < nj && self.stack.joint_layer[self.joint_order[je] as usize] == layer {
                je += 1;
            }
            for (i, f) in self.frozen.iter_mut().enumerate() {
                *f = self.stack.height[i] <= layer;
            }
            let mut rows = std::mem::take(&mut self.layer_rows);
            self.layer_rows(start..end, state, h, &mut rows);
            self.layer_rows = rows;
            if self.params.shock_frozen_limit {
                self.limit_frozen();
            }
            let (mut jrows, jorder) = (std::mem::take(&mut self.jrows), std::mem::take(&mut self.joint_order));
            self.joint_velocity_rows(model, state, h, &jorder[js..je], 1, &mut jrows);
            self.joint_order = jorder;
            if self.params.warm_start {
                warm(&self.layer_rows, &self.bodies, &mut self.vel, true);
                warm_joints(&jrows, &mut self.vel);
            }
            let p = &self.params;
            solve(
                &mut self.layer_rows,
                (&mut jrows, &mut self.work),
                &self.bodies,
                &mut self.vel,
                p.layer_iterations,
                p.normal_sweeps,
                p.tolerance,
            );
            self.joint_impulses(&jrows, 1);
            self.jrows = jrows;
            if self.params.shock_frozen_limit {
                self.forget_frozen();
            }
            for r in &self.layer_rows {
                // the next step's layers warm-start their normal impulses only (`layer_rows`): slots 4, 5 stay 0
                self.impulses[r.contact as usize].impulse[3] = r.lambda[0];
                stats.normal_impulse += r.lambda[0];
                stats.friction_impulse += (r.lambda[1] * r.lambda[1] + r.lambda[2] * r.lambda[2]).sqrt();
                record_force(&mut stats.contact_points, r, h);
            }
            // the layer's upper bodies now have their final velocities: advance them
            for i in 0..n {
                if self.stack.height[i] == layer + 1 && !self.integrated[i] && self.awake[i] {
                    state.bodies[i].v = self.vel[i].v;
                    state.bodies[i].w = self.vel[i].w;
                    let before = state.bodies[i];
                    let mut s = state.bodies[i];
                    self.turn(model, i, &mut s, h);
                    state.bodies[i] = s;
                    self.disp_x[i] += state.bodies[i].x - before.x;
                    self.disp_t[i] += before.w * h;
                    self.bodies[i].inv_i = self.inv_inertia(model, i, state.bodies[i].q);
                    self.integrated[i] = true;
                }
            }
            if self.params.correction {
                let (order, jorder) = (std::mem::take(&mut self.order), std::mem::take(&mut self.joint_order));
                self.correct(model, state, &order[start..end], &jorder[js..je]);
                (self.order, self.joint_order) = (order, jorder);
            }
            for i in 0..n {
                if self.integrated[i] {
                    self.vel[i] = Vel { v: state.bodies[i].v, w: state.bodies[i].w };
                }
            }
            start = end;
            js = je;
        }
        for f in self.frozen.iter_mut() {
            *f = false;
        }
        for i in 0..n {
            if !self.integrated[i] && self.awake[i] {
                state.bodies[i].v = self.vel[i].v;
                state.bodies[i].w = self.vel[i].w;
            }
        }
        check_finite(model, state, "shock propagation")
    }

    /// 6. Position update of every body not advanced yet (free bodies, kinematic bodies, no shock propagation),
    ///    and the impulses stored for the next step's warm start.
    pub(super) fn integrate(&mut self, model: &Model, state: &mut State, h: f64) -> Result<(), SimError> {
        for i in 0..model.bodies.len() {
            if !self.integrated[i] && !state.sleep.asleep(i) {
                let mut s = state.bodies[i];
                self.turn(model, i, &mut s, h);
                state.bodies[i] = s;
            }
        }
        // without shock propagation the joints' drift of this position update is projected away here, at
        // t + Δt (joints need no collision detection first); with it, each layer's correction did so
        if !self.params.shock_propagation && self.params.correction && !model.joints.is_empty() {
            self.true_inertia(model, state);
            let jorder = std::mem::take(&mut self.joint_order);
            self.correct(model, state, &[], &jorder);
            self.joint_order = jorder;
        }
        self.joint_warm.clear();
        self.joint_warm.extend_from_slice(&self.joint_imp);
        for ci in 0..self.collision.contacts.len() {
            let data = self.impulses[ci];
            self.collision.store(ci, data);
        }
        check_finite(model, state, "integrate")
    }

    /// The contacts' pre-step normal speeds (restitution) and friction coefficients (static below
    /// `static_speed` of tangential speed, kinetic above).
    pub(super) fn pre_step_speeds(&mut self, model: &Model, state: &State) {
        let nc = self.collision.contacts.len();
        self.vn0.clear();
        self.vn0.resize(nc, 0.0);
        self.mus.clear();
        self.mus.resize(nc, 0.0);
        self.rest.clear();
        self.rest.resize(nc, 0.0);
        self.tangents.clear();
        self.tangents.extend(self.collision.contacts.iter().map(|c| tangent_basis(c.normal)));
        for (ci, c) in self.collision.contacts.iter().enumerate() {
            let (ra, rb) = lever_arms(c, state);
            let (sa, sb) = (&state.bodies[c.a], &state.bodies[c.b]);
            let vrel = (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra));
            self.vn0[ci] = vrel.dot(c.normal);
            let vt = (vrel - c.normal * self.vn0[ci]).length();
            let (mu_k, mu_s, e) = model.pair_material(c.a, c.b);
            self.mus[ci] = if vt < self.params.static_speed { mu_s } else { mu_k };
            self.rest[ci] = e;
        }
    }

    /// Error correction by projection (first-order world) over the contacts `list` and the joints `joints`
    /// (their bilateral rows and violated limits), with the frozen bodies fixed. Moves positions only;
    /// velocities are untouched.
    fn correct(&mut self, model: &Model, state: &mut State, list: &[u32], joints: &[u32]) {
        let mut deepest = 0.0f64;
        let mut cdist = std::mem::take(&mut self.cdist);
        cdist.clear();
        for &ci in list {
            let d = self.current_dist(ci as usize, state);
            deepest = deepest.max(-d);
            cdist.push(d);
        }
        self.cdist = cdist;
        let mut jrows = std::mem::take(&mut self.jrows);
        jrows.clear();
        if !joints.is_empty() {
            deepest = deepest.max(self.joint_correction_rows(model, state, joints, &mut jrows));
        }
        if deepest <= self.params.correction_tolerance {
            self.jrows = jrows;
            return;
        }
        // the projection's displacements live in their own buffer: `vel` holds the velocities of the bodies that
        // shock propagation has not advanced yet (the layers above this one, and bodies in no contact), which
        // a correction below them must not touch (zeroing them stopped falling bodies dead in mid-air)
        let mut disp = std::mem::take(&mut self.disp);
        disp.clear();
        disp.resize(self.vel.len(), Vel::default());
        self.layer_rows.clear();
        for (&ci, &d) in list.iter().zip(&self.cdist) {
            let c = &self.collision.contacts[ci as usize];
            // the projection has no friction: its rows' normal row only
            let (mut r, _) = make_rows::<1>(ci as usize, c, (Vec3::ZERO, Vec3::ZERO), state, &self.bodies, &self.frozen, 0.0);
            r.bias = d;
            self.layer_rows.push(r);
        }
        let sweeps = self.params.correction_iterations;
        solve(&mut self.layer_rows, (&mut jrows, &mut self.work), &self.bodies, &mut disp, sweeps, usize::MAX, self.params.tolerance);
        self.jrows = jrows;
        let n = state.bodies.len();
        for (i, b) in disp.iter().enumerate() {
            if i < n && *b != Vel::default() {
                let s = &mut state.bodies[i];
                s.x += b.v;
                s.q = (quat_exp(b.w) * s.q).normalize();
                self.disp_x[i] += b.v;
                self.disp_t[i] += b.w;
            }
        }
        self.disp = disp;
    }

    /// Loads the bodies' velocities (after the external impulse `frac·h·F`) into the solver bodies.
    pub(super) fn load_velocities(&mut self, model: &Model, state: &mut State, h: f64, frac: f64) {
        for (i, b) in model.bodies.iter().enumerate() {
            let s = &mut state.bodies[i];
            if self.awake[i] && b.kind == BodyKind::Dynamic && frac > 0.0 {
                let (f, tau) = external_wrench(model, &state.applied, i, state.time);
                let (fc, tc) = self.proxies.on_body(model, i);
                apply_load(s, b.mass, &self.bodies[i].inv_i, f + fc, tau + tc, frac * h);
            }
            self.vel[i] = Vel { v: s.v, w: s.w };
        }
        if let Some(world) = self.vel.get_mut(model.bodies.len()) {
            *world = Vel::default();
        }
    }

    /// Builds the dynamics pass's velocity-level rows (every contact, in the rows' order) into `out` and their
    /// sides' terms into `terms`, warm-started (when on) from the stored impulses (slot 0).
    pub(super) fn velocity_rows(&self, state: &State, h: f64, out: &mut Vec<Rows>, terms: &mut Vec<[SideTerms; 2]>) {
        out.clear();
        terms.clear();
        for &ci in &self.order {
            let ci = ci as usize;
            let c = &self.collision.contacts[ci];
            let (mut r, t) = make_rows::<3>(ci, c, self.tangents[ci], state, &self.bodies, &self.frozen, self.mus[ci]);
            self.set_bias(&mut r, ci, state, h, self.vn0[ci]);
            if self.params.warm_start {
                r.lambda.copy_from_slice(&c.data.impulse[0..3]);
            }
            out.push(r);
            terms.push(t);
        }
    }

    /// Builds the rows of a layer of shock propagation, the rows `range` of the rows' order, from the dynamics
    /// pass's (`layer_row`), warm-started (when on) from the stored normal impulses (slot 3).
    fn layer_rows(&self, range: std::ops::Range<usize>, state: &State, h: f64, out: &mut Vec<Rows>) {
        out.clear();
        for k in range {
            let ci = self.order[k] as usize;
            let c = &self.collision.contacts[ci];
            let mut r = layer_row(self.rows[k], &self.row_terms[k], c, state, &self.frozen);
            r.lambda = [0.0; 3];
            self.set_bias(&mut r, ci, state, h, self.vn0[ci]);
            if self.params.warm_start {
                // the normal impulses only: the stored friction impulses, applied again where the layers had
                // changed, launched rows of balls from a settled pile (balls1000: kinetic energy bursts to
                // 8.4e5 J; 1.1e4 J at most once its friction starts at zero)
                r.lambda[0] = c.data.impulse[3];
            }
            out.push(r);
        }
    }

    /// Sets the bias (gap and restitution) of a contact's normal row.
    fn set_bias(&self, r: &mut Rows, ci: usize, state: &State, h: f64, vn0: f64) {
        let d = self.current_dist(ci, state);
        let e = self.rest[ci];
        r.bias = if e > 0.0 && vn0 < -self.params.restitution_threshold && d + h * vn0 < 0.0 {
            e * vn0 // w ≥ −e·vn0: Newton's law of restitution for an impact within this step
        } else if d > 0.0 {
            d / h // a gap closes at most by d in this step
        } else {
            0.0
        };
    }
}
