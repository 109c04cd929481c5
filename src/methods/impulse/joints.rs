//! Joints in the `impulse` method, as Weinstein, Teran and Fedkiw do it for articulated rigid bodies with contact
//! and collision (IEEE TVCG 2006), on the shared joint kinematics of `dynamics/joint.rs`: pre-stabilisation
//! impulses that make the rows vanish at the predicted poses (Newton iterations, after every sweep), limits and
//! PD motors as impulses, and post-stabilisation of the velocity rows at the new poses. What each joint applied
//! to body 1 over the step, divided by h, is [`crate::method::StepStats::joints`].
//! See docs/methods/impulse.md, "Joints".

use super::Impulse;
use crate::dynamics::integrate::{integrate_pose, inv_inertia_world};
use crate::dynamics::joint::{initial_targets, wrap_angle, JointPose, MotorTarget, Row};
use crate::dynamics::joint_block::{JRow, JointBlock};
use crate::math::{Mat3, Quat, Vec3};
use crate::method::JointReading;
use crate::model::{JointType, Model};
use crate::state::{BodyState, State};

/// The most rows a joint solves together (fixed: 6).
const MAX_ROWS: usize = 6;

/// Which joints a pass visits and whether motors act.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct JointScope {
    /// Only the joints of this support level (shock propagation); `None`: every joint.
    pub level: Option<u32>,
    /// Motors act (from the velocity update on).
    pub motors: bool,
}

/// Per-step joint workspace.
#[derive(Debug, Default)]
pub(super) struct JointWork {
    /// The phase's joint scope; `None` outside the phases (and without joints).
    pub scope: Option<JointScope>,
    /// The bodies' poses at the start of the step (velocities unused).
    start: Vec<BodyState>,
    /// Per joint: the coordinate and its rate at the start of the step (what a rotor inertia keeps) and the
    /// motor's target (motors).
    q0: Vec<f64>,
    rate0: Vec<f64>,
    /// Per joint: the actuators' generalised force its rotor row carries (`Method::carries_joint_force`).
    tau: Vec<f64>,
    targets: Vec<Option<MotorTarget>>,
    /// Per joint: accumulated limit impulses (lower, upper) of pre-stabilisation and of post-stabilisation.
    limit: Vec<[f64; 2]>,
    post_limit: Vec<[f64; 2]>,
    /// Per joint: accumulated motor impulse, and the rotor inertia's in post-stabilisation with the coordinate
    /// rate it keeps there.
    motor: Vec<f64>,
    post_rotor: Vec<(f64, f64)>,
    /// Per joint: Σ impulse on body 1 and Σ angular impulse about its anchor.
    reading: Vec<(Vec3, Vec3)>,
    /// Per joint: its support level (shock propagation).
    pub level: Vec<u32>,
    rows: Vec<Row>,
    /// The articulation's bilateral rows (all joints in scope), their kinematic rows, each joint's run
    /// (joint, first row, end, sides, lever arm of body 1's anchor) and the sparse factor (lcp's joint block).
    jrows: Vec<JRow>,
    krows: Vec<Row>,
    runs: Vec<(usize, usize, usize, [Side; 2], Vec3)>,
    block: JointBlock,
}

/// One side of a row solve: inverse mass and world inverse inertia (zero for a fixed or frozen side).
type Side = (f64, Mat3);

impl JointWork {
    /// Resets the workspace for a step that starts at `state`.
    pub fn begin(&mut self, model: &Model, state: &State) {
        let n = model.joints.len();
        self.scope = None;
        self.start.clone_from(&state.bodies);
        self.q0.clear();
        self.rate0.clear();
        for j in &model.joints {
            let row = JointPose::of(model, j, &state.bodies).coordinate_row(j.kind);
            let vel = |b: Option<usize>| b.map_or((Vec3::ZERO, Vec3::ZERO), |b| (state.bodies[b].v, state.bodies[b].w));
            let ((v1, w1), (v2, w2)) = (vel(Some(j.body1)), vel(j.body2));
            self.q0.push(row.map_or(0.0, |r| r.c));
            self.rate0.push(row.map_or(0.0, |r| r.rate([v1, v2], [w1, w2])));
        }
        self.tau.clear();
        self.tau.extend((0..n).map(|k| state.joint_forces.get(k).copied().unwrap_or(0.0)));
        self.targets.clone_from(&state.motor_targets);
        if self.targets.len() != n {
            self.targets = initial_targets(model);
        }
        for v in [&mut self.limit, &mut self.post_limit] {
            v.clear();
            v.resize(n, [0.0; 2]);
        }
        self.motor.clear();
        self.motor.resize(n, 0.0);
        self.post_rotor.clear();
        self.post_rotor.resize(n, (0.0, 0.0));
        self.reading.clear();
        self.reading.resize(n, (Vec3::ZERO, Vec3::ZERO));
        self.level.clear();
        self.level.resize(n, 0);
    }

    /// What each joint applied to its body 1 over the step of length `h`.
    pub fn readings(&self, h: f64) -> Vec<JointReading> {
        self.reading.iter().map(|&(f, t)| JointReading { force: f / h, torque: t / h }).collect()
    }
}

/// Solves the symmetric positive semi-definite `a·x = b` (n ≤ MAX_ROWS) by LDLᵀ; a pivot below 1e-12 of the
/// largest diagonal entry (a redundant row) gets x = 0 for its component.
fn solve_psd(a: &mut [[f64; MAX_ROWS]; MAX_ROWS], b: &mut [f64; MAX_ROWS], n: usize) {
    let scale = (0..n).map(|i| a[i][i]).fold(0.0f64, f64::max);
    let tiny = 1e-12 * scale;
    let mut d = [0.0; MAX_ROWS];
    for j in 0..n {
        let mut djj = a[j][j];
        for k in 0..j {
            djj -= a[j][k] * a[j][k] * d[k];
        }
        d[j] = if djj > tiny { djj } else { 0.0 };
        for i in j + 1..n {
            let mut lij = a[i][j];
            for k in 0..j {
                lij -= a[i][k] * a[j][k] * d[k];
            }
            a[i][j] = if d[j] > 0.0 { lij / d[j] } else { 0.0 };
        }
    }
    for i in 0..n {
        for k in 0..i {
            b[i] -= a[i][k] * b[k];
        }
    }
    for i in 0..n {
        b[i] = if d[i] > 0.0 { b[i] / d[i] } else { 0.0 };
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            b[i] -= a[k][i] * b[k];
        }
    }
}

/// The impulses λ on `rows` (at most MAX_ROWS) with (J M⁻¹ Jᵀ) λ = b, where b[r] = `rhs(r)`.
fn solve_rows(rows: &[Row], sides: &[Side; 2], rhs: impl Fn(usize) -> f64) -> [f64; MAX_ROWS] {
    let n = rows.len();
    let mut a = [[0.0; MAX_ROWS]; MAX_ROWS];
    let mut x = [0.0; MAX_ROWS];
    for r in 0..n {
        for c in 0..=r {
            a[r][c] = coupling(&rows[r], &rows[c], sides);
        }
        x[r] = rhs(r);
    }
    solve_psd(&mut a, &mut x, n);
    x
}

/// J M⁻¹ Jᵀ entry of two rows.
fn coupling(r: &Row, s: &Row, sides: &[Side; 2]) -> f64 {
    (0..2).map(|k| sides[k].0 * r.lin[k].dot(s.lin[k]) + r.ang[k].dot(sides[k].1 * s.ang[k])).sum()
}

impl Impulse {
    /// The solver side of body `b` (`None`: the world): zero when it is not dynamic or is frozen.
    fn joint_side(&self, b: Option<usize>) -> Side {
        match b {
            Some(b) if !self.frozen[b] => (self.bodies[b].inv_m, self.bodies[b].inv_i),
            _ => (0.0, Mat3::ZERO),
        }
    }

    /// The solver sides of joint `k` (`j`) when `scope` visits it and it has a body that can move; `None` otherwise.
    fn scoped_sides(&self, k: usize, j: &crate::model::Joint, scope: &JointScope) -> Option<[Side; 2]> {
        if scope.level.is_some_and(|lv| self.joints.level[k] != lv) {
            return None;
        }
        let sides = [self.joint_side(Some(j.body1)), self.joint_side(j.body2)];
        (!sides.iter().all(|s| s.0 == 0.0)).then_some(sides)
    }

    /// The pose of body `b` after the position update with its working velocities.
    fn predicted(&self, model: &Model, b: usize) -> (Vec3, Quat) {
        let mut s = self.joints.start[b];
        s.v = self.bodies[b].v;
        s.w = self.bodies[b].w;
        integrate_pose(model, b, &mut s, self.step_h);
        (s.x, s.q)
    }

    /// Applies the row impulses `lambda` (rows `rows[..n]`) of joint `k`: to the working velocities, and to the
    /// joint's reading (body 1's share).
    fn joint_apply(&mut self, k: usize, (b1, b2): (usize, Option<usize>), rows: &[Row], lambda: &[f64], sides: &[Side; 2], anchor: Vec3) {
        let (mut p, mut l) = ([Vec3::ZERO; 2], [Vec3::ZERO; 2]);
        for (r, &x) in rows.iter().zip(lambda) {
            for s in 0..2 {
                p[s] += x * r.lin[s];
                l[s] += x * r.ang[s];
            }
        }
        for (s, b) in [Some(b1), b2].into_iter().enumerate() {
            if let Some(b) = b {
                let body = &mut self.bodies[b];
                body.v += sides[s].0 * p[s];
                body.w += sides[s].1 * l[s];
            }
        }
        let rd = &mut self.joints.reading[k];
        rd.0 += p[0];
        rd.1 += l[0] - anchor.cross(p[0]);
    }

    /// One pre-stabilisation pass over the joints in the current scope. Returns the largest predicted row error
    /// found (before correcting it), m or rad.
    pub(super) fn joint_pass(&mut self, model: &Model) -> f64 {
        let Some(scope) = self.joints.scope else { return 0.0 };
        let h = self.step_h;
        let mut worst = 0.0f64;
        for (k, j) in model.joints.iter().enumerate() {
            let Some(sides) = self.scoped_sides(k, j, &scope) else { continue };
            let bodies = (j.body1, j.body2);
            let pose = |me: &Self| JointPose::at(model, j, me.predicted(model, j.body1), j.body2.map(|b| me.predicted(model, b)));
            // the motor and the rotor inertia: one soft row of their implicit impulse (the motor's PD law, a damper
            // of armature/h towards the rate at the step's start, and the actuators' force τ the row carries)
            let motor = j.motor.as_ref().zip(self.joints.targets.get(k).copied().flatten());
            let rotor = j.rotor_inertia() / h;
            if scope.motors && (motor.is_some() || rotor > 0.0) {
                let (stiffness, damping, e, rate, max_force) = match motor {
                    Some((m, target)) => {
                        let mut e = target.value - self.joints.q0[k];
                        if j.kind == JointType::Hinge {
                            e = wrap_angle(e);
                        }
                        (m.stiffness, m.damping, e, target.rate, m.max_force)
                    }
                    None => (0.0, 0.0, 0.0, 0.0, None),
                };
                let g = stiffness * h + damping + rotor;
                let p = pose(self);
                if let (true, Some(row)) = (g > 0.0, p.coordinate_row(j.kind)) {
                    let gamma = 1.0 / (h * g);
                    let b = (stiffness * e + damping * rate + rotor * self.joints.rate0[k] + self.joints.tau[k]) / g;
                    let rate = row.rate(self.side_v(bodies), self.side_w(bodies));
                    let acc = self.joints.motor[k];
                    let mut total = acc + (b - rate - gamma * acc) / (coupling(&row, &row, &sides) + gamma);
                    if let Some(f) = max_force {
                        total = total.clamp(-f * h, f * h);
                    }
                    self.joints.motor[k] = total;
                    self.joint_apply(k, bodies, &[row], &[total - acc], &sides, p.p[0] - p.c[0]);
                    if rotor > 0.0 {
                        // a rotor is inertia the joint rows must see: the passes go on until its impulse settles
                        // (its change as a coordinate displacement over the step)
                        worst = worst.max(((total - acc) * coupling(&row, &row, &sides) * h).abs());
                    }
                }
            }
            // the limits: one-sided, accumulated over the step
            let p = pose(self);
            if let (Some([lo, hi]), Some(row)) = (j.limits, p.coordinate_row(j.kind)) {
                for (s, mut r) in [(0, row), (1, row.negated())] {
                    r.c += if s == 0 { -lo } else { hi };
                    worst = worst.max(-r.c);
                    let acc = self.joints.limit[k][s];
                    let kk = coupling(&r, &r, &sides);
                    if kk <= 0.0 || (r.c >= 0.0 && acc == 0.0) {
                        continue;
                    }
                    let total = (acc - r.c / (h * kk)).max(0.0);
                    self.joints.limit[k][s] = total;
                    self.joint_apply(k, bodies, &[r], &[total - acc], &sides, p.p[0] - p.c[0]);
                }
            }
        }
        worst.max(self.articulation_newton(model, scope))
    }

    /// The bilateral rows of every joint in scope at once, by Newton iterations on the predicted poses: each one
    /// exact solve of (J M⁻¹ Jᵀ) λ = −C/h over all of them (a row's value moves by h·J·Δv to first order) with
    /// the sparse joint block of dynamics/joint_block.rs (a tree of joints eliminated leaves first in O(N), a loop's dependent rows dropped),
    /// so that a chain converges in the iterations a single joint needs instead of over O(N²) Gauss–Seidel passes.
    /// Returns the largest predicted row error found.
    fn articulation_newton(&mut self, model: &Model, scope: JointScope) -> f64 {
        let (h, tol, n) = (self.step_h, self.params.joint_tolerance, model.bodies.len());
        let mut worst = 0.0f64;
        let (mut jrows, mut krows, mut runs) =
            (std::mem::take(&mut self.joints.jrows), std::mem::take(&mut self.joints.krows), std::mem::take(&mut self.joints.runs));
        for _ in 0..self.params.joint_newton_iterations {
            jrows.clear();
            krows.clear();
            runs.clear();
            let mut err = 0.0f64;
            for (k, j) in model.joints.iter().enumerate() {
                let Some(sides) = self.scoped_sides(k, j, &scope) else { continue };
                let p = JointPose::at(model, j, self.predicted(model, j.body1), j.body2.map(|b| self.predicted(model, b)));
                let first = krows.len();
                p.bilateral_rows(j.kind, &mut krows);
                for (slot, r) in krows[first..].iter().enumerate() {
                    err = err.max(r.c.abs());
                    jrows.push(JRow {
                        a: j.body1 as u32,
                        b: j.body2.unwrap_or(n) as u32,
                        joint: k as u32,
                        slot: slot as u32,
                        lin: r.lin,
                        ang: r.ang,
                        ml: [r.lin[0] * sides[0].0, r.lin[1] * sides[1].0],
                        mi: [sides[0].1 * r.ang[0], sides[1].1 * r.ang[1]],
                        inv_diag: 0.0,
                        gamma: 0.0,
                        bias: r.c / h,
                        lo: f64::NEG_INFINITY,
                        hi: f64::INFINITY,
                        lambda: 0.0,
                    });
                }
                runs.push((k, first, krows.len(), sides, p.p[0] - p.c[0]));
            }
            worst = worst.max(err);
            if err <= tol {
                break;
            }
            self.joints.block.build(&jrows);
            self.joints.block.solve_values(&mut jrows);
            for &(k, first, end, sides, arm) in &runs {
                let j = &model.joints[k];
                let mut lambda = [0.0; MAX_ROWS];
                for (x, r) in lambda.iter_mut().zip(&jrows[first..end]) {
                    *x = r.lambda;
                }
                self.joint_apply(k, (j.body1, j.body2), &krows[first..end], &lambda[..end - first], &sides, arm);
            }
        }
        (self.joints.jrows, self.joints.krows, self.joints.runs) = (jrows, krows, runs);
        worst
    }

    /// Joint passes until every predicted row is within `joint_tolerance` (at most `joint_iterations`).
    /// Returns the passes run.
    pub(super) fn joint_passes(&mut self, model: &Model) -> usize {
        if self.joints.scope.is_none() {
            return 0;
        }
        for k in 0..self.params.joint_iterations {
            if self.joint_pass(model) <= self.params.joint_tolerance {
                return k + 1;
            }
        }
        self.params.joint_iterations
    }

    fn side_v(&self, (b1, b2): (usize, Option<usize>)) -> [Vec3; 2] {
        [self.bodies[b1].v, b2.map_or(Vec3::ZERO, |b| self.bodies[b].v)]
    }

    fn side_w(&self, (b1, b2): (usize, Option<usize>)) -> [Vec3; 2] {
        [self.bodies[b1].w, b2.map_or(Vec3::ZERO, |b| self.bodies[b].w)]
    }

    /// Push-out with joints: the push-out displacements `shift` (translation, rotation vector per body) are
    /// corrected so that every joint's rows at the poses after the position update, to first order in the
    /// displacements, stay where pre-stabilisation put them: C + J·shift = C, i.e. J·shift = 0 (Gauss–Seidel passes
    /// until within `joint_tolerance`). Push-out alone would move one side of a joint only (a wrecking ball pushed
    /// out of a wall, its chain left behind).
    pub(super) fn push_out_joints(&mut self, model: &Model, state: &State, shift: &mut [(Vec3, Vec3)]) {
        let mut rows = std::mem::take(&mut self.joints.rows);
        // a rotor inertia keeps its coordinate's rate through the projection (its soft row: the projection
        // weighs the coordinate with the armature, as the bodies with their masses)
        for (k, j) in model.joints.iter().enumerate() {
            if j.rotor_inertia() > 0.0 {
                let row = JointPose::of(model, j, &state.bodies).coordinate_row(j.kind);
                let bodies = (j.body1, j.body2);
                let rate = row.map_or(0.0, |r| r.rate(self.side_v(bodies), self.side_w(bodies)));
                self.joints.post_rotor[k] = (0.0, rate);
            }
        }
        for _ in 0..self.params.joint_iterations {
            let mut worst = 0.0f64;
            for j in &model.joints {
                let sides = [self.joint_side(Some(j.body1)), self.joint_side(j.body2)];
                if sides.iter().all(|s| s.0 == 0.0) {
                    continue;
                }
                rows.clear();
                JointPose::of(model, j, &state.bodies).bilateral_rows(j.kind, &mut rows);
                let at = |b: Option<usize>| b.map_or((Vec3::ZERO, Vec3::ZERO), |b| shift[b]);
                let (s1, s2) = (at(Some(j.body1)), at(j.body2));
                let n = rows.len();
                worst = rows.iter().fold(worst, |m, r| m.max(r.rate([s1.0, s2.0], [s1.1, s2.1]).abs()));
                let x = solve_rows(&rows, &sides, |r| -rows[r].rate([s1.0, s2.0], [s1.1, s2.1]));
                for (side, b) in [Some(j.body1), j.body2].into_iter().enumerate() {
                    if let Some(b) = b {
                        let (p, l) = rows[..n]
                            .iter()
                            .zip(&x[..n])
                            .fold((Vec3::ZERO, Vec3::ZERO), |(p, l), (r, &y)| (p + y * r.lin[side], l + y * r.ang[side]));
                        shift[b].0 += sides[side].0 * p;
                        shift[b].1 += sides[side].1 * l;
                    }
                }
            }
            if worst <= self.params.joint_tolerance {
                break;
            }
        }
        self.joints.rows = rows;
    }

    /// Post-stabilisation: after the position update, the joints' velocity rows vanish at the new poses (and no
    /// joint at or beyond a limit moves further into it), by Gauss–Seidel passes on the state's velocities.
    pub(super) fn post_stabilise(&mut self, model: &Model, state: &mut State) {
        let h = self.step_h;
        let tol = self.params.joint_tolerance / h;
        // the solver bodies at the new poses (their inertias change: no face set-up kept so far applies)
        self.memos.stale();
        for (i, b) in model.bodies.iter().enumerate() {
            let s = &state.bodies[i];
            let (inv_m, inv_i) = if self.awake[i] { (b.inv_mass(), inv_inertia_world(model, i, s.q)) } else { (0.0, Mat3::ZERO) };
            self.bodies[i] = super::SBody { inv_m, inv_i, v: s.v, w: s.w };
            self.frozen[i] = false;
        }
        let mut rows = std::mem::take(&mut self.joints.rows);
        // a rotor inertia keeps its coordinate's rate through the projection (its soft row: the projection
        // weighs the coordinate with the armature, as the bodies with their masses)
        for (k, j) in model.joints.iter().enumerate() {
            if j.rotor_inertia() > 0.0 {
                let row = JointPose::of(model, j, &state.bodies).coordinate_row(j.kind);
                let bodies = (j.body1, j.body2);
                let rate = row.map_or(0.0, |r| r.rate(self.side_v(bodies), self.side_w(bodies)));
                self.joints.post_rotor[k] = (0.0, rate);
            }
        }
        for _ in 0..self.params.joint_iterations {
            let mut worst = 0.0f64;
            for (k, j) in model.joints.iter().enumerate() {
                let sides = [self.joint_side(Some(j.body1)), self.joint_side(j.body2)];
                if sides.iter().all(|s| s.0 == 0.0) {
                    continue;
                }
                let bodies = (j.body1, j.body2);
                let p = JointPose::of(model, j, &state.bodies);
                let anchor = p.p[0] - p.c[0];
                if let (Some([lo, hi]), Some(row)) = (j.limits, p.coordinate_row(j.kind)) {
                    for (s, mut r) in [(0, row), (1, row.negated())] {
                        r.c += if s == 0 { -lo } else { hi };
                        let acc = self.joints.post_limit[k][s];
                        let kk = coupling(&r, &r, &sides);
                        // active: at the limit (within the tolerance) or already holding
                        if kk <= 0.0 || (r.c > self.params.joint_tolerance && acc == 0.0) {
                            continue;
                        }
                        let rate = r.rate(self.side_v(bodies), self.side_w(bodies));
                        worst = worst.max(-rate);
                        let total = (acc - rate / kk).max(0.0);
                        self.joints.post_limit[k][s] = total;
                        self.joint_apply(k, bodies, &[r], &[total - acc], &sides, anchor);
                    }
                }
                rows.clear();
                p.bilateral_rows(j.kind, &mut rows);
                let n = rows.len();
                let (v, w) = (self.side_v(bodies), self.side_w(bodies));
                worst = rows.iter().fold(worst, |m, r| m.max(r.rate(v, w).abs()));
                let x = solve_rows(&rows, &sides, |r| -rows[r].rate(v, w));
                self.joint_apply(k, bodies, &rows[..n], &x[..n], &sides, anchor);
                let a = j.rotor_inertia();
                if let (true, Some(row)) = (a > 0.0, p.coordinate_row(j.kind)) {
                    let (acc, keep) = self.joints.post_rotor[k];
                    let kk = coupling(&row, &row, &sides);
                    let rate = row.rate(self.side_v(bodies), self.side_w(bodies));
                    let total = acc + (keep - rate - acc / a) / (kk + 1.0 / a);
                    self.joints.post_rotor[k].0 = total;
                    self.joint_apply(k, bodies, &[row], &[total - acc], &sides, anchor);
                    worst = worst.max(((total - acc) * kk).abs());
                }
            }
            if worst <= tol {
                break;
            }
        }
        self.joints.rows = rows;
        for i in 0..model.bodies.len() {
            if self.awake[i] {
                state.bodies[i].v = self.bodies[i].v;
                state.bodies[i].w = self.bodies[i].w;
            }
        }
    }
}

#[cfg(test)]
#[path = "joints_tests.rs"]
mod tests;
