//! `lcp`: velocity-level complementarity solved by projected Gauss-Seidel, with error correction by projection
//! and shock propagation over stack layers.
//!
//! Source: K. Erleben, "Stable, Robust, and Versatile Multibody Dynamics Animation" (PhD work, 2004/2005;
//! shared/seeds/004), restated in shared/reference/methods.md §D.
//!
//! Symbols of the source → names here:
//! - u = (v, ω), s = (x, q): `BodyState::{v, w}` and `{x, q}`; M⁻¹: `SBody::{inv_m, inv_i}`.
//! - J (one normal row n and two friction rows t1, t2 per contact point): `Rows::{dir, ra_x, rb_x}`.
//! - A = J M⁻¹ Jᵀ: only its diagonal is formed (`Rows::inv_diag`); off-diagonal products go through the body
//!   velocities, w = J u, as in the source's incremental update of M⁻¹Jᵀλ.
//! - b = J(uᵗ + Δt M⁻¹ f_ext): the row value `J u` after the external update, plus `Rows::bias` (Newton
//!   restitution, and the gap of a not-yet-touching contact, which bounds the approach speed by gap/Δt).
//! - λ (impulses, Δt moved into λ), bounds [0, ∞) for normals and ±μ·λn of the *current* iterate for friction:
//!   `Rows::lambda`. θ(λ) = ½ H(λ)ᵀH(λ) with H the projected (min-map) residual: `StepStats::residual`.
//! - correction(): the first-order world F = m v, τ = I ω; A λ ≥ −d_penetration, s ← s + S M⁻¹Jᵀλ: `correct`.
//! - Velocity-based shock propagation(f, Δt): dynamics(f·Δt) over all contacts, then shock-propagation of
//!   dynamics((1 − f)·Δt) and correction() over the stack layers bottom-up, the lower bodies of each layer
//!   fixed: `shock_fraction` is f. Positions are advanced once per body with its final velocity: in its layer
//!   during shock propagation (after which it is fixed for the layers above), or at the end when shock
//!   propagation is off. Collision detection at t + Δt followed by correction() happens at the start of the
//!   next step, on the same positions.

use crate::collision::narrow::{Collision, Contact, ContactData};
use crate::dynamics::graph::{islands, stack_analysis};
use crate::dynamics::integrate::{external_wrench, integrate_pose, inv_inertia_world};
use crate::error::InputError;
use crate::error::SimError;
use crate::math::{quat_exp, tangent_basis, Mat3, Vec3};
use crate::methods::registry::{self, param, Params};
use crate::methods::{check_finite, Method, StepStats};
use crate::model::MethodKey;
use crate::model::{BodyKind, Model};
use crate::state::State;
use std::time::Instant;

/// Parameters of `[solver.lcp]`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LcpParams {
    /// PGS sweeps of the dynamics pass over all contacts. Default 20.
    pub iterations: usize,
    /// Sweeps at the start of each solve that update the normal rows only (friction rows keep their warm-start
    /// values), so that friction does not lock in the transient sliding the first normal impulses cause; the
    /// friction problem of a resting contact manifold is statically indeterminate. Default 4.
    pub normal_sweeps: usize,
    /// A solve stops early once no impulse changes by more than this fraction of the largest impulse in a
    /// sweep. 0 runs every sweep. Default 1e-6.
    pub tolerance: f64,
    /// Shock propagation over stack layers on/off. Default on.
    pub shock_propagation: bool,
    /// Fraction f of the step's external impulse given to the dynamics pass before shock propagation (the
    /// source's f); the rest goes to the layered pass. In [0, 1]. Default 0.5.
    pub shock_fraction: f64,
    /// PGS sweeps per stack layer in shock propagation. Default 10.
    pub layer_iterations: usize,
    /// Error correction by projection on/off. Default on.
    pub correction: bool,
    /// PGS sweeps of each correction (projection) solve. Default 10.
    pub correction_iterations: usize,
    /// Penetration below which no correction solve is run, m. Default 1e-5.
    pub correction_tolerance: f64,
    /// Contacts are generated for gaps below this distance, m. Default 0.02.
    pub margin: f64,
    /// Newton restitution applies only to approach speeds above this, m/s. Default 0.05.
    pub restitution_threshold: f64,
    /// A contact whose tangential speed is below this uses the static friction coefficient, m/s. Default 1e-3.
    pub static_speed: f64,
    /// Warm starting from the previous step's impulses on/off. Default on.
    pub warm_start: bool,
}

impl Default for LcpParams {
    fn default() -> Self {
        LcpParams {
            iterations: 20,
            normal_sweeps: 4,
            tolerance: 1e-6,
            shock_propagation: true,
            shock_fraction: 0.5,
            layer_iterations: 10,
            correction: true,
            correction_iterations: 10,
            correction_tolerance: 1e-5,
            margin: 0.02,
            restitution_threshold: 0.05,
            static_speed: 1e-3,
            warm_start: true,
        }
    }
}

impl Params for LcpParams {
    const KEY: MethodKey = MethodKey::Lcp;
    fn validate(&self) -> Result<(), String> {
        let f = self.shock_fraction;
        if !(0.0..=1.0).contains(&f) {
            return Err(format!("solver.lcp.shock_fraction must be in [0, 1], got {f}"));
        }
        for (v, k) in [
            (self.correction_tolerance, "correction_tolerance"),
            (self.margin, "margin"),
            (self.restitution_threshold, "restitution_threshold"),
            (self.static_speed, "static_speed"),
        ] {
            param::non_negative(Self::KEY, k, v)?;
        }
        if self.iterations == 0 {
            return Err("solver.lcp.iterations must be >= 1".into());
        }
        Ok(())
    }
}

/// `lcp` runs no joints or proxies yet.
pub fn supports(model: &Model) -> Result<(), String> {
    registry::no_proxies(model)?;
    registry::no_joints(model)
}

/// The registry's constructor.
pub fn create(model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
    let params = LcpParams::from_model(model).map_err(|e| InputError::at(&model.name, e))?;
    Ok(Box::new(Lcp::new(params)))
}

/// Solver body: inverse mass and world inverse inertia.
#[derive(Debug, Clone, Copy)]
struct SBody {
    inv_m: f64,
    inv_i: Mat3,
}

/// Velocity of a solver body (or, in the correction solve, its displacement); kept apart from the masses so
/// that the sweeps touch as little memory as possible.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Vel {
    v: Vec3,
    w: Vec3,
}

/// The three rows (normal, two friction directions) of one contact point.
#[derive(Debug, Clone, Copy)]
struct Rows {
    a: u32,
    b: u32,
    contact: u32,
    dir: [Vec3; 3],
    ra_x: [Vec3; 3],
    rb_x: [Vec3; 3],
    /// M⁻¹Jᵀ per row: linear part is dir·inv_m, angular parts below.
    ia: [Vec3; 3],
    ib: [Vec3; 3],
    inv_ma: f64,
    inv_mb: f64,
    inv_diag: [f64; 3],
    bias: f64,
    mu: f64,
    lambda: [f64; 3],
}

impl Rows {
    #[inline]
    fn jv(&self, k: usize, ba: &Vel, bb: &Vel) -> f64 {
        self.dir[k].dot(bb.v - ba.v) + self.rb_x[k].dot(bb.w) - self.ra_x[k].dot(ba.w)
    }
}

/// The `lcp` method and its workspace.
pub struct Lcp {
    params: LcpParams,
    collision: Collision,
    bodies: Vec<SBody>,
    vel: Vec<Vel>,
    rows: Vec<Rows>,
    /// Rows of the current layer (shock propagation).
    layer_rows: Vec<Rows>,
    /// Per contact: distance at detection, pre-step normal speed, friction coefficient in use.
    dist0: Vec<f64>,
    vn0: Vec<f64>,
    mus: Vec<f64>,
    /// Displacement of each body since detection (for first-order distance updates).
    disp_x: Vec<Vec3>,
    disp_t: Vec<Vec3>,
    frozen: Vec<bool>,
    integrated: Vec<bool>,
    edges: Vec<(usize, usize)>,
    contact_layer: Vec<u32>,
    order: Vec<u32>,
    impulses: Vec<ContactData>,
}

const STAGES: [&str; 6] = ["collision", "analysis", "correction", "dynamics", "shock", "integrate"];

impl Lcp {
    /// A new `lcp` method with the given parameters.
    pub fn new(params: LcpParams) -> Self {
        Lcp {
            params,
            collision: Collision::default(),
            bodies: Vec::new(),
            vel: Vec::new(),
            rows: Vec::new(),
            layer_rows: Vec::new(),
            dist0: Vec::new(),
            vn0: Vec::new(),
            mus: Vec::new(),
            disp_x: Vec::new(),
            disp_t: Vec::new(),
            frozen: Vec::new(),
            integrated: Vec::new(),
            edges: Vec::new(),
            contact_layer: Vec::new(),
            order: Vec::new(),
            impulses: Vec::new(),
        }
    }

    /// Current distance of contact `c`: detection distance plus the first-order effect of the displacements.
    fn current_dist(&self, ci: usize, state: &State) -> f64 {
        let c = &self.collision.contacts[ci];
        let (ra, rb) = lever_arms(c, state);
        let da = self.disp_x[c.a] + self.disp_t[c.a].cross(ra);
        let db = self.disp_x[c.b] + self.disp_t[c.b].cross(rb);
        self.dist0[ci] + c.normal.dot(db - da)
    }
}

fn lever_arms(c: &Contact, state: &State) -> (Vec3, Vec3) {
    let p = 0.5 * (c.point_a + c.point_b);
    (p - state.bodies[c.a].x, p - state.bodies[c.b].x)
}

/// Builds the rows of contact `ci` from the bodies' current inverse masses (frozen bodies count as fixed).
fn make_rows(ci: usize, c: &Contact, state: &State, bodies: &[SBody], frozen: &[bool], mu: f64) -> Rows {
    let (ra, rb) = lever_arms(c, state);
    let (t1, t2) = tangent_basis(c.normal);
    let dir = [c.normal, t1, t2];
    let fa = if frozen[c.a] { 0.0 } else { 1.0 };
    let fb = if frozen[c.b] { 0.0 } else { 1.0 };
    let (ba, bb) = (&bodies[c.a], &bodies[c.b]);
    let mut r = Rows {
        a: c.a as u32,
        b: c.b as u32,
        contact: ci as u32,
        dir,
        ra_x: [Vec3::ZERO; 3],
        rb_x: [Vec3::ZERO; 3],
        ia: [Vec3::ZERO; 3],
        ib: [Vec3::ZERO; 3],
        inv_ma: ba.inv_m * fa,
        inv_mb: bb.inv_m * fb,
        inv_diag: [0.0; 3],
        bias: 0.0,
        mu,
        lambda: [0.0; 3],
    };
    for k in 0..3 {
        r.ra_x[k] = ra.cross(dir[k]);
        r.rb_x[k] = rb.cross(dir[k]);
        r.ia[k] = (ba.inv_i * r.ra_x[k]) * fa;
        r.ib[k] = (bb.inv_i * r.rb_x[k]) * fb;
        let d = r.inv_ma + r.inv_mb + r.ra_x[k].dot(r.ia[k]) + r.rb_x[k].dot(r.ib[k]);
        r.inv_diag[k] = if d > 1e-300 { 1.0 / d } else { 0.0 };
    }
    r
}

#[inline]
fn apply(r: &Rows, k: usize, d: f64, ba: &mut Vel, bb: &mut Vel) {
    ba.v -= r.dir[k] * (r.inv_ma * d);
    ba.w -= r.ia[k] * d;
    bb.v += r.dir[k] * (r.inv_mb * d);
    bb.w += r.ib[k] * d;
}

/// Applies the rows' current impulses to the bodies (warm start).
fn warm(rows: &[Rows], bodies: &mut [Vel], friction: bool) {
    for r in rows {
        let (a, b) = (r.a as usize, r.b as usize);
        let (mut ba, mut bb) = (bodies[a], bodies[b]);
        let kmax = if friction { 3 } else { 1 };
        for k in 0..kmax {
            apply(r, k, r.lambda[k], &mut ba, &mut bb);
        }
        bodies[a] = ba;
        bodies[b] = bb;
    }
}

/// One projected Gauss-Seidel sweep over the rows (normal row, then its friction rows bounded by ±μλn).
/// Returns the largest change of an impulse and the largest impulse.
fn sweep(rows: &mut [Rows], bodies: &mut [Vel], friction: bool) -> (f64, f64) {
    let (mut change, mut size) = (0.0f64, 0.0f64);
    for r in rows.iter_mut() {
        let (a, b) = (r.a as usize, r.b as usize);
        let (mut ba, mut bb) = (bodies[a], bodies[b]);
        let w = r.jv(0, &ba, &bb) + r.bias;
        let new = (r.lambda[0] - w * r.inv_diag[0]).max(0.0);
        let d = new - r.lambda[0];
        r.lambda[0] = new;
        change = change.max(d.abs());
        size = size.max(new);
        apply(r, 0, d, &mut ba, &mut bb);
        if friction {
            let hi = r.mu * r.lambda[0];
            for k in 1..3 {
                let w = r.jv(k, &ba, &bb);
                let new = (r.lambda[k] - w * r.inv_diag[k]).clamp(-hi, hi);
                let d = new - r.lambda[k];
                r.lambda[k] = new;
                change = change.max(d.abs());
                apply(r, k, d, &mut ba, &mut bb);
            }
        }
        bodies[a] = ba;
        bodies[b] = bb;
    }
    (change, size)
}

/// Runs up to `iterations` sweeps, the first `normal_sweeps` without friction, and stops early once no impulse
/// changed by more than `tolerance` times the largest impulse. Returns the sweeps done.
fn solve(rows: &mut [Rows], bodies: &mut [Vel], iterations: usize, normal_sweeps: usize, tolerance: f64) -> usize {
    for k in 0..iterations {
        let (change, size) = sweep(rows, bodies, k >= normal_sweeps);
        if k >= normal_sweeps && change <= tolerance * size {
            return k + 1;
        }
    }
    iterations
}

/// The merit θ = ½ Σ H_i² with H_i = λ_i − clamp(λ_i − w_i, lo_i, hi_i).
fn merit(rows: &[Rows], bodies: &[Vel]) -> f64 {
    let mut theta = 0.0;
    for r in rows {
        let (ba, bb) = (&bodies[r.a as usize], &bodies[r.b as usize]);
        let w = r.jv(0, ba, bb) + r.bias;
        let h = r.lambda[0] - (r.lambda[0] - w).max(0.0);
        theta += h * h;
        let hi = r.mu * r.lambda[0];
        for k in 1..3 {
            let w = r.jv(k, ba, bb);
            let h = r.lambda[k] - (r.lambda[k] - w).clamp(-hi, hi);
            theta += h * h;
        }
    }
    0.5 * theta
}

impl Lcp {
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
                s.v += f * (frac * h / b.mass);
                s.w += self.bodies[i].inv_i * tau * (frac * h);
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

impl Method for Lcp {
    fn name(&self) -> &'static str {
        "lcp"
    }

    fn stage_names(&self) -> &'static [&'static str] {
        &STAGES
    }

    fn step(&mut self, model: &Model, state: &mut State, h: f64) -> Result<StepStats, SimError> {
        let p = self.params.clone();
        let n = model.bodies.len();
        let mut stats = StepStats { iterations: p.iterations, ..Default::default() };
        let mut clock = Instant::now();
        let mut lap = |stats: &mut StepStats, k: usize| {
            let now = Instant::now();
            stats.stage_seconds[k] += (now - clock).as_secs_f64();
            clock = now;
        };

        // 1. collision detection (on a state checked to be finite: parry must never see a NaN)
        check_finite(model, state, "collision")?;
        self.collision.detect(model, state, p.margin, h);
        let nc = self.collision.contacts.len();
        stats.contacts = nc;
        stats.max_penetration = self.collision.max_penetration();
        lap(&mut stats, 0);

        // 2. stack analysis and islands
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
        let stack = stack_analysis(n, &fixed, &self.edges);
        stats.islands = islands(n, &fixed, &self.edges).1;
        self.contact_layer.clear();
        {
            let mut e = 0usize;
            for (ci, c) in self.collision.contacts.iter().enumerate() {
                if ci > 0 && (c.a, c.b) != (self.collision.contacts[ci - 1].a, self.collision.contacts[ci - 1].b) {
                    e += 1;
                }
                self.contact_layer.push(stack.edge_layer[e]);
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
        lap(&mut stats, 1);

        // 3. error correction by projection (the correction after detection at t + Δt of the source)
        if p.correction && nc > 0 {
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
        lap(&mut stats, 2);

        // pre-step normal and tangential speeds (restitution, static/kinetic friction)
        let mut vn0 = std::mem::take(&mut self.vn0);
        let mut mus = std::mem::take(&mut self.mus);
        vn0.clear();
        vn0.resize(nc, 0.0);
        mus.clear();
        mus.resize(nc, 0.0);
        for (ci, c) in self.collision.contacts.iter().enumerate() {
            let (ra, rb) = lever_arms(c, state);
            let (sa, sb) = (&state.bodies[c.a], &state.bodies[c.b]);
            let vrel = (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra));
            vn0[ci] = vrel.dot(c.normal);
            let vt = (vrel - c.normal * vn0[ci]).length();
            let (mu_k, mu_s, _) = model.pair_material(c.a, c.b);
            mus[ci] = if vt < p.static_speed { mu_s } else { mu_k };
        }

        // 4. dynamics pass over all contacts: f·Δt of the external impulse (all of it without shock propagation)
        let frac1 = if p.shock_propagation { p.shock_fraction } else { 1.0 };
        self.load_velocities(model, state, h, frac1);
        let mut rows = std::mem::take(&mut self.rows);
        self.velocity_rows(&self.order, 0, state, h, model, &vn0, &mus, &mut rows);
        self.rows = rows;
        if p.warm_start {
            warm(&self.rows, &mut self.vel, true);
        }
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
        check_finite(model, state, "dynamics")?;
        lap(&mut stats, 3);

        // 5. shock propagation: layers bottom-up, the layer's lower bodies fixed, then position update and
        //    correction of the layer's upper bodies
        self.integrated.clear();
        self.integrated.resize(n, false);
        if p.shock_propagation {
            self.load_velocities(model, state, h, 1.0 - p.shock_fraction);
            let mut start = 0;
            while start < self.order.len() {
                let layer = self.contact_layer[self.order[start] as usize];
                let mut end = start;
                while end < self.order.len() && self.contact_layer[self.order[end] as usize] == layer {
                    end += 1;
                }
                for (i, f) in self.frozen.iter_mut().enumerate() {
                    *f = stack.height[i] <= layer;
                }
                let mut rows = std::mem::take(&mut self.layer_rows);
                self.velocity_rows(&self.order[start..end], 3, state, h, model, &vn0, &mus, &mut rows);
                self.layer_rows = rows;
                if p.warm_start {
                    warm(&self.layer_rows, &mut self.vel, true);
                }
                solve(&mut self.layer_rows, &mut self.vel, p.layer_iterations, p.normal_sweeps, p.tolerance);
                for r in &self.layer_rows {
                    self.impulses[r.contact as usize].impulse[3..6].copy_from_slice(&r.lambda);
                    stats.normal_impulse += r.lambda[0];
                    stats.friction_impulse += (r.lambda[1] * r.lambda[1] + r.lambda[2] * r.lambda[2]).sqrt();
                }
                // the layer's upper bodies now have their final velocities: advance them
                for i in 0..n {
                    if stack.height[i] == layer + 1 && !self.integrated[i] && model.bodies[i].kind == BodyKind::Dynamic {
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
                if p.correction {
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
            check_finite(model, state, "shock propagation")?;
        }
        lap(&mut stats, 4);

        // 6. position update of every body not advanced yet (free bodies, kinematic bodies, no shock propagation)
        for i in 0..n {
            if !self.integrated[i] {
                integrate_pose(model, i, &mut state.bodies[i], h);
            }
        }
        for ci in 0..nc {
            let data = self.impulses[ci];
            self.collision.store(ci, data);
        }
        self.vn0 = vn0;
        self.mus = mus;
        check_finite(model, state, "integrate")?;
        lap(&mut stats, 5);
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::narrow::body_pose;
    use std::path::Path;

    fn two_boxes() -> Model {
        let text = "format = 1\n[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [0.8, 0.6, 0.4] }\nposition = [0.1, -0.05, 1.19]\nrotation_deg = [3.0, -2.0, 10.0]\n";
        crate::scene::load_str(text, "t", "t", Path::new("."), &[]).unwrap()
    }

    /// The normal row of the Jacobian, n·(δx_b + δθ_b × r_b − δx_a − δθ_a × r_a), against finite differences of
    /// the signed distance that the narrow phase reports.
    #[test]
    fn normal_jacobian_matches_finite_differences_of_the_distance() {
        let model = two_boxes();
        let state = State::from_model(&model);
        let mut col = Collision::default();
        col.detect(&model, &state, 0.05, 0.0);
        assert!(!col.contacts.is_empty());
        let c = col.contacts.iter().copied().min_by(|p, q| p.dist.total_cmp(&q.dist)).unwrap();
        let (ra, rb) = lever_arms(&c, &state);
        let dist = |s: &State| {
            let pa = body_pose(&model, s, 0);
            let pb = body_pose(&model, s, 1);
            parry3d_f64::query::contact(&pa, model.bodies[0].geometry.shape.as_ref(), &pb, model.bodies[1].geometry.shape.as_ref(), 1.0)
                .unwrap()
                .unwrap()
                .dist
        };
        let d0 = dist(&state);
        let eps = 1e-7;
        for k in 0..12 {
            let mut s = state.clone();
            let mut e = Vec3::ZERO;
            e[k % 3] = eps;
            let body = if k < 6 { 1 } else { 0 };
            if (k / 3) % 2 == 0 {
                s.bodies[body].x += e;
            } else {
                s.bodies[body].q = (quat_exp(e) * s.bodies[body].q).normalize();
                // rotate about the centre of mass: x is the centre of mass already
            }
            let fd = (dist(&s) - d0) / eps;
            let analytic = if body == 1 {
                if (k / 3) % 2 == 0 {
                    c.normal[k % 3]
                } else {
                    rb.cross(c.normal)[k % 3]
                }
            } else if (k / 3) % 2 == 0 {
                -c.normal[k % 3]
            } else {
                -ra.cross(c.normal)[k % 3]
            };
            assert!((fd - analytic).abs() < 1e-5 * (1.0 + analytic.abs()), "coordinate {k}: finite difference {fd}, Jacobian {analytic}");
        }
    }

    #[test]
    fn a_non_finite_value_stops_the_run_naming_body_step_and_stage() {
        let model = two_boxes();
        let mut lcp = Lcp::new(LcpParams::default());
        let mut state = State::from_model(&model);
        state.bodies[1].v.x = f64::NAN;
        let e = lcp.step(&model, &mut state, 0.01).unwrap_err().to_string();
        assert!(e.contains("body `b`") && e.contains("step 0") && e.contains("stage"), "{e}");
    }

    #[test]
    fn pgs_merit_decreases_on_a_frictionless_stack() {
        let text = "format = 1\n[[material]]\nname = \"default\"\nfriction = 0.0\n\
[[body]]\nname = \"g\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"c\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\nrepeat = { count = [1, 1, 5], step = [0.0, 0.0, 1.0] }\n";
        let mut thetas = Vec::new();
        for it in [1usize, 4, 16, 64] {
            let m = crate::scene::load_str(text, "t", "t", Path::new("."), &[]).unwrap();
            let params =
                LcpParams { iterations: it, normal_sweeps: 0, warm_start: false, shock_propagation: false, ..LcpParams::default() };
            let mut lcp = Lcp::new(params);
            let mut s = State::from_model(&m);
            thetas.push(lcp.step(&m, &mut s, 0.01).unwrap().residual);
        }
        assert!(thetas.windows(2).all(|w| w[1] <= w[0]), "θ not decreasing: {thetas:?}");
        assert!(thetas[3] < 1e-3 * thetas[0], "θ barely decreases: {thetas:?}");
    }
}
