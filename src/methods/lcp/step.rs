//! The stages of one `lcp` step (see the module documentation for their order and the source's names), and the
//! correction and row building they share.

use super::pgs::{lever_arms, make_rows, merit, solve, warm};
use super::{Lcp, Rows, SBody, Vel};
use crate::collision::narrow::ContactData;
use crate::dynamics::graph::{islands, stack_analysis};
use crate::dynamics::integrate::{apply_load, external_wrench, integrate_pose, inv_inertia_world};
use crate::error::SimError;
use crate::math::{quat_exp, Mat3, Vec3};
use crate::methods::{check_finite, ContactPoint, StepStats};
use crate::model::{BodyKind, Model};
use crate::state::State;

impl Lcp {
    /// 1. Collision detection, on a state checked to be finite (parry must never see a NaN).
    pub(super) fn collision(&mut self, model: &Model, state: &State, h: f64, stats: &mut StepStats) -> Result<(), SimError> {
        check_finite(model, state, "collision")?;
        self.collision.detect(model, state, self.params.margin, h);
        stats.contacts = self.collision.contacts.len();
        stats.contact_points =
            self.collision.contacts.iter().map(|c| ContactPoint { point: 0.5 * (c.point_a + c.point_b), normal: c.normal }).collect();
        stats.max_penetration = self.collision.max_penetration();
        Ok(())
    }

    /// 2. Stack analysis and islands; the rows' order (bottom-up: by layer, then in detection order) and the
    ///    solver bodies.
    pub(super) fn analysis(&mut self, model: &Model, state: &State, stats: &mut StepStats) {
        let n = model.bodies.len();
        let nc = self.collision.contacts.len();
        self.bodies.clear();
        for (i, b) in model.bodies.iter().enumerate() {
            let inv_i = if b.kind == BodyKind::Dynamic { inv_inertia_world(model, i, state.bodies[i].q) } else { Mat3::ZERO };
            self.bodies.push(SBody { inv_m: b.inv_mass(), inv_i });
        }
        self.vel.clear();
        self.vel.resize(n, Vel::default());
        let fixed: Vec<bool> = model.bodies.iter().map(|b| b.kind != BodyKind::Dynamic).collect();
        self.edges.clear();
        for c in &self.collision.contacts {
            if self.edges.last() != Some(&(c.a, c.b)) {
                self.edges.push((c.a, c.b));
            }
        }
        self.stack = stack_analysis(n, &fixed, &self.edges);
        stats.islands = islands(n, &fixed, &self.edges).1;
        self.contact_layer.clear();
        {
            let mut e = 0usize;
            for (ci, c) in self.collision.contacts.iter().enumerate() {
                if ci > 0 && (c.a, c.b) != (self.collision.contacts[ci - 1].a, self.collision.contacts[ci - 1].b) {
                    e += 1;
                }
                self.contact_layer.push(self.stack.edge_layer[e]);
            }
        }
        // rows bottom-up: by layer, then in detection order
        self.order.clear();
        self.order.extend(0..nc as u32);
        let layer_of = &self.contact_layer;
        self.order.sort_by_key(|&ci| (layer_of[ci as usize], ci));
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
        if self.params.correction && !self.collision.contacts.is_empty() {
            let order = std::mem::take(&mut self.order);
            self.correct(state, &order);
            self.order = order;
            // inertia follows the corrected orientations
            for (i, b) in model.bodies.iter().enumerate() {
                if b.kind == BodyKind::Dynamic {
                    self.bodies[i].inv_i = inv_inertia_world(model, i, state.bodies[i].q);
                }
            }
        }
    }

    /// 4. Dynamics pass over all contacts: f·Δt of the external impulse (all of it without shock propagation),
    ///    after the pre-step normal and tangential speeds (restitution, static/kinetic friction).
    pub(super) fn dynamics(&mut self, model: &Model, state: &mut State, h: f64, stats: &mut StepStats) -> Result<(), SimError> {
        let nc = self.collision.contacts.len();
        self.pre_step_speeds(model, state);
        let frac1 = if self.params.shock_propagation { self.params.shock_fraction } else { 1.0 };
        self.load_velocities(model, state, h, frac1);
        let mut rows = std::mem::take(&mut self.rows);
        self.velocity_rows(&self.order, 0, state, h, model, &self.vn0, &self.mus, &mut rows);
        self.rows = rows;
        if self.params.warm_start {
            warm(&self.rows, &mut self.vel, true);
        }
        let p = &self.params;
        stats.iterations = solve(&mut self.rows, &mut self.vel, p.iterations, p.normal_sweeps, p.tolerance);
        stats.residual = merit(&self.rows, &self.vel);
        self.impulses.clear();
        self.impulses.resize(nc, ContactData::default());
        for r in &self.rows {
            let d = &mut self.impulses[r.contact as usize].impulse;
            d[0..3].copy_from_slice(&r.lambda);
            stats.normal_impulse += r.lambda[0];
            stats.friction_impulse += (r.lambda[1] * r.lambda[1] + r.lambda[2] * r.lambda[2]).sqrt();
        }
        for (i, b) in self.vel.iter().enumerate() {
            if model.bodies[i].kind == BodyKind::Dynamic {
                state.bodies[i].v = b.v;
                state.bodies[i].w = b.w;
            }
        }
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
        let mut start = 0;
        while start < self.order.len() {
            let layer = self.contact_layer[self.order[start] as usize];
            let mut end = start;
            while end < self.order.len() && self.contact_layer[self.order[end] as usize] == layer {
                end += 1;
            }
            for (i, f) in self.frozen.iter_mut().enumerate() {
                *f = self.stack.height[i] <= layer;
            }
            let mut rows = std::mem::take(&mut self.layer_rows);
            self.velocity_rows(&self.order[start..end], 3, state, h, model, &self.vn0, &self.mus, &mut rows);
            self.layer_rows = rows;
            if self.params.warm_start {
                warm(&self.layer_rows, &mut self.vel, true);
            }
            let p = &self.params;
            solve(&mut self.layer_rows, &mut self.vel, p.layer_iterations, p.normal_sweeps, p.tolerance);
            for r in &self.layer_rows {
                self.impulses[r.contact as usize].impulse[3..6].copy_from_slice(&r.lambda);
                stats.normal_impulse += r.lambda[0];
                stats.friction_impulse += (r.lambda[1] * r.lambda[1] + r.lambda[2] * r.lambda[2]).sqrt();
            }
            // the layer's upper bodies now have their final velocities: advance them
            for i in 0..n {
                if self.stack.height[i] == layer + 1 && !self.integrated[i] && model.bodies[i].kind == BodyKind::Dynamic {
                    state.bodies[i].v = self.vel[i].v;
                    state.bodies[i].w = self.vel[i].w;
                    let before = state.bodies[i];
                    integrate_pose(model, i, &mut state.bodies[i], h);
                    self.disp_x[i] += state.bodies[i].x - before.x;
                    self.disp_t[i] += before.w * h;
                    self.bodies[i].inv_i = inv_inertia_world(model, i, state.bodies[i].q);
                    self.integrated[i] = true;
                }
            }
            if self.params.correction {
                let order = std::mem::take(&mut self.order);
                self.correct(state, &order[start..end]);
                self.order = order;
            }
            for i in 0..n {
                if self.integrated[i] {
                    self.vel[i] = Vel { v: state.bodies[i].v, w: state.bodies[i].w };
                }
            }
            start = end;
        }
        for f in self.frozen.iter_mut() {
            *f = false;
        }
        for i in 0..n {
            if !self.integrated[i] && model.bodies[i].kind == BodyKind::Dynamic {
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
            if !self.integrated[i] {
                integrate_pose(model, i, &mut state.bodies[i], h);
            }
        }
        for ci in 0..self.collision.contacts.len() {
            let data = self.impulses[ci];
            self.collision.store(ci, data);
        }
        check_finite(model, state, "integrate")
    }

    /// The contacts' pre-step normal speeds (restitution) and friction coefficients (static below
    /// `static_speed` of tangential speed, kinetic above).
    fn pre_step_speeds(&mut self, model: &Model, state: &State) {
        let nc = self.collision.contacts.len();
        self.vn0.clear();
        self.vn0.resize(nc, 0.0);
        self.mus.clear();
        self.mus.resize(nc, 0.0);
        for (ci, c) in self.collision.contacts.iter().enumerate() {
            let (ra, rb) = lever_arms(c, state);
            let (sa, sb) = (&state.bodies[c.a], &state.bodies[c.b]);
            let vrel = (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra));
            self.vn0[ci] = vrel.dot(c.normal);
            let vt = (vrel - c.normal * self.vn0[ci]).length();
            let (mu_k, mu_s, _) = model.pair_material(c.a, c.b);
            self.mus[ci] = if vt < self.params.static_speed { mu_s } else { mu_k };
        }
    }

    /// Error correction by projection (first-order world) over the contacts `list`, with the frozen bodies
    /// fixed. Moves positions only; velocities are untouched.
    fn correct(&mut self, state: &mut State, list: &[u32]) {
        let mut deepest = 0.0f64;
        for &ci in list {
            deepest = deepest.max(-self.current_dist(ci as usize, state));
        }
        if deepest <= self.params.correction_tolerance {
            return;
        }
        for b in &mut self.vel {
            *b = Vel::default();
        }
        self.layer_rows.clear();
        for &ci in list {
            let c = &self.collision.contacts[ci as usize];
            let mut r = make_rows(ci as usize, c, state, &self.bodies, &self.frozen, 0.0);
            r.bias = self.current_dist(ci as usize, state);
            self.layer_rows.push(r);
        }
        solve(&mut self.layer_rows, &mut self.vel, self.params.correction_iterations, usize::MAX, 0.0);
        for (i, b) in self.vel.iter_mut().enumerate() {
            if *b != Vel::default() {
                let s = &mut state.bodies[i];
                s.x += b.v;
                s.q = (quat_exp(b.w) * s.q).normalize();
                self.disp_x[i] += b.v;
                self.disp_t[i] += b.w;
            }
            *b = Vel::default();
        }
    }

    /// Loads the bodies' velocities (after the external impulse `frac·h·F`) into the solver bodies.
    fn load_velocities(&mut self, model: &Model, state: &mut State, h: f64, frac: f64) {
        for (i, b) in model.bodies.iter().enumerate() {
            let s = &mut state.bodies[i];
            if b.kind == BodyKind::Dynamic && frac > 0.0 {
                let (f, tau) = external_wrench(model, i, state.time);
                let (fc, tc) = self.proxies.on_body(model, i);
                apply_load(s, b.mass, &self.bodies[i].inv_i, f + fc, tau + tc, frac * h);
            }
            self.vel[i] = Vel { v: s.v, w: s.w };
        }
    }

    /// Builds the velocity-level rows of the contacts `list` into `out`, warm-started (when on) from the
    /// stored impulses at `slot` (0: dynamics pass, 3: shock propagation).
    #[allow(clippy::too_many_arguments)]
    fn velocity_rows(
        &self,
        list: &[u32],
        slot: usize,
        state: &State,
        h: f64,
        model: &Model,
        vn0: &[f64],
        mus: &[f64],
        out: &mut Vec<Rows>,
    ) {
        out.clear();
        for &ci in list {
            let ci = ci as usize;
            let c = &self.collision.contacts[ci];
            let mut r = make_rows(ci, c, state, &self.bodies, &self.frozen, mus[ci]);
            self.set_bias(&mut r, ci, state, h, model, vn0[ci]);
            if self.params.warm_start {
                r.lambda.copy_from_slice(&c.data.impulse[slot..slot + 3]);
            }
            out.push(r);
        }
    }

    /// Sets the bias (gap and restitution) of a contact's normal row.
    fn set_bias(&self, r: &mut Rows, ci: usize, state: &State, h: f64, model: &Model, vn0: f64) {
        let c = &self.collision.contacts[ci];
        let d = self.current_dist(ci, state);
        let e = model.pair_material(c.a, c.b).2;
        r.bias = if e > 0.0 && vn0 < -self.params.restitution_threshold && d + h * vn0 < 0.0 {
            e * vn0 // w ≥ −e·vn0: Newton's law of restitution for an impact within this step
        } else if d > 0.0 {
            d / h // a gap closes at most by d in this step
        } else {
            0.0
        };
    }
}
