//! Joint rows in the `implicit-penalty` step: ball, hinge, prismatic and fixed joints as Lagrange multipliers of
//! the island's system, limits as one-sided rows, through the Schur complement and an SVD pseudo-inverse (so
//! that redundant rows and closed loops work). Source: Xu, Zhao, Barbič 2014, §5, eqs. 52–64; the stabilisation
//! C̈ + αĊ + βC = 0 is discretised at the level of positions.
//! See docs/methods/implicit-penalty.md, "Joints".

use super::step::{q_matrix, Kin};
use super::system::{IslandSystem, Solver};
use crate::dynamics::joint::{wrap_angle, JointPose, Row};
use crate::math::{quat_exp, Mat3, Quat, Vec3};
use crate::model::{Joint, JointType, Model};
use crate::state::BodyState;

/// Singular values of S below `SVD_CUTOFF` times the largest are dropped (the paper's ε).
pub const SVD_CUTOFF: f64 = 1e-10;
/// The Newton iterations stop when every active row is within this of its target (m, or rad for angular rows).
pub const ROW_TOLERANCE: f64 = 1e-13;
/// At most this many Newton corrections of λ per active set.
pub(super) const NEWTON: usize = 20;
/// At most this many active sets of the limits per step.
pub(super) const ACTIVE_SETS: usize = 8;

/// The rows of `j` at side poses (centre of mass, orientation): its bilateral rows, then for a joint with limits
/// the lower row `q − lo` and the upper row `hi − q`.
pub fn joint_rows(model: &Model, j: &Joint, s1: (Vec3, Quat), s2: Option<(Vec3, Quat)>) -> Vec<Row> {
    let pose = JointPose::at(model, j, s1, s2);
    let mut rows = Vec::with_capacity(8);
    pose.bilateral_rows(j.kind, &mut rows);
    if let (Some([lo, hi]), Some(q)) = (j.limits, pose.coordinate_row(j.kind)) {
        rows.push(Row { c: q.c - lo, ..q });
        let up = q.negated();
        rows.push(Row { c: up.c + hi, ..up });
    }
    rows
}

/// How many of [`joint_rows`] are bilateral (the rest are the two limit rows).
pub fn bilateral_count(j: &Joint) -> usize {
    match j.kind {
        JointType::Ball => 3,
        JointType::Hinge | JointType::Prismatic => 5,
        JointType::Fixed => 6,
    }
}

/// The end-of-step value the stabilisation C̈ + αĊ + βC = 0 (β = α²/4), discretised by backward Euler, asks of a
/// row now at `c` with rate `rate`.
pub fn baumgarte_target(c: f64, rate: f64, alpha: f64, h: f64) -> f64 {
    let beta = 0.25 * alpha * alpha;
    c + h * (rate - h * beta * c) / (1.0 + h * alpha + h * h * beta)
}

/// One row of an island.
#[derive(Debug, Clone)]
pub struct IslandRow {
    /// The joint (model index) and the row's index in [`joint_rows`].
    pub joint: usize,
    pub index: usize,
    /// A one-sided limit row (λ ≥ 0), else bilateral.
    pub limit: bool,
    /// The row at the predicted pose: C there and its Jacobian (which is also the constraint wrench's direction).
    pub row: Row,
    /// The row at the start of the step, whose Jacobian is the constraint wrench's direction.
    pub force: Row,
    /// The end-of-step value asked for (a limit: the lower bound of C').
    pub target: f64,
    /// Per dynamic side: (slot, side 0 or 1, ∂C'/∂ΔP, ∂C'/∂ΔL), at ΔS = 0.
    pub pos: Vec<RowJacobian>,
}

/// One dynamic side of a row's ∂C'/∂ΔS: (slot, side 0 or 1, ∂C'/∂ΔP, ∂C'/∂ΔL).
pub type RowJacobian = (usize, usize, Vec3, Vec3);

/// The rows' values at the end of the step as a function of the island's unknowns ΔS, for the solve.
pub trait RowEval {
    /// Every row's C at the poses reached with ΔS = `x`.
    fn values(&mut self, x: &[f64]) -> Vec<f64>;
    /// Every row's ∂C'/∂ΔS at ΔS = `x`; `None` where only the rows' Jacobians at ΔS = 0 are known.
    fn jacobians(&mut self, _x: &[f64]) -> Option<Vec<Vec<RowJacobian>>> {
        None
    }
    /// The largest angle, rad, by which a change `dx` of ΔS turns a body's end-of-step orientation (0 where
    /// unknown).
    fn largest_turn(&self, _dx: &[f64]) -> f64 {
        0.0
    }
}

impl<F: FnMut(&[f64]) -> Vec<f64>> RowEval for F {
    fn values(&mut self, x: &[f64]) -> Vec<f64> {
        self(x)
    }
}

/// The island's joints: which rows, and how to evaluate them at the end of the step.
#[derive(Debug, Clone, Default)]
pub struct IslandJoints {
    pub joints: Vec<usize>,
    pub rows: Vec<IslandRow>,
}

/// ∂θ'/∂ΔL: how ΔL turns the body's end-of-step orientation, as a world rotation vector about the orientation
/// the step reaches with ΔS = 0 (`Kin::advance`: q' = (q + Δq)/|q + Δq|, Δq = (I − γh∂q̇/∂q)⁻¹ h Q(ω + I_w⁻¹ΔL)),
/// exactly: 4 Q(q')ᵀ (I − q'q'ᵀ)/|q + Δq₀| (I − γh∂q̇/∂q)⁻¹ h Q(q) I_w⁻¹. (h V I_w⁻¹ of step.rs is the same
/// map about the start orientation; they differ by the step's rotation, O(h|ω|).)
pub fn end_rotation_map(kin: &Kin, h: f64) -> Mat3 {
    end_rotation_map_at(kin, h, Vec3::ZERO)
}

/// [`end_rotation_map`] at ΔL = `dl`, about the orientation the step reaches there (ω + I_w⁻¹ΔL in Δq).
pub fn end_rotation_map_at(kin: &Kin, h: f64, dl: Vec3) -> Mat3 {
    let q0 = [kin.q.w, kin.q.x, kin.q.y, kin.q.z];
    let u = kin.w + kin.inv_iw * dl;
    let rhs: [f64; 4] = std::array::from_fn(|r| h * (0..3).map(|k| kin.qm[r][k] * u[k]).sum::<f64>());
    let raw: [f64; 4] = std::array::from_fn(|r| q0[r] + (0..4).map(|k| kin.minv[r][k] * rhs[k]).sum::<f64>());
    let n = raw.iter().map(|v| v * v).sum::<f64>().sqrt();
    let qp: [f64; 4] = std::array::from_fn(|r| raw[r] / n);
    let qm_end = q_matrix(Quat::from_xyzw(qp[1], qp[2], qp[3], qp[0]));
    // d = minv h Q(q) I_w⁻¹ (4×3), then the normalisation, then 4 Q(q')ᵀ
    let qi: [[f64; 3]; 4] =
        std::array::from_fn(|r| std::array::from_fn(|c| h * (0..3).map(|k| kin.qm[r][k] * kin.inv_iw.col(c)[k]).sum::<f64>()));
    let d: [[f64; 3]; 4] = std::array::from_fn(|r| std::array::from_fn(|c| (0..4).map(|k| kin.minv[r][k] * qi[k][c]).sum::<f64>()));
    let nd: [[f64; 3]; 4] =
        std::array::from_fn(|r| std::array::from_fn(|c| (d[r][c] - qp[r] * (0..4).map(|k| qp[k] * d[k][c]).sum::<f64>()) / n));
    let mut out = Mat3::ZERO;
    for r in 0..3 {
        for c in 0..3 {
            out.col_mut(c)[r] = 4.0 * (0..4).map(|k| qm_end[k][r] * nd[k][c]).sum::<f64>();
        }
    }
    out
}

/// The pose a body had a step of `h` ago if it moved with its current velocities: x − h v, exp(−h ω) q.
fn back_pose(s: &BodyState, h: f64) -> (Vec3, Quat) {
    (s.x - s.v * h, (quat_exp(-s.w * h) * s.q).normalize())
}

/// The pose (centre of mass, orientation) of a body state.
fn pose(s: &BodyState) -> (Vec3, Quat) {
    (s.x, s.q)
}

impl IslandJoints {
    /// The rows of `joints` for a step of `h`: C and Ċ at `start`, the rows at `predicted` (every body's pose
    /// after the step with ΔS = 0), and `slot(b)` giving a dynamic body's island slot and kinematics.
    pub fn build<'k>(
        model: &Model,
        joints: Vec<usize>,
        start: &[BodyState],
        predicted: &[BodyState],
        slot: impl Fn(usize) -> Option<(usize, &'k Kin)>,
        alpha: f64,
        h: f64,
    ) -> IslandJoints {
        let mut rows = Vec::new();
        for &k in &joints {
            let j = &model.joints[k];
            let now = joint_rows(model, j, pose(&start[j.body1]), j.body2.map(|b| pose(&start[b])));
            let pred = joint_rows(model, j, pose(&predicted[j.body1]), j.body2.map(|b| pose(&predicted[b])));
            let back = joint_rows(model, j, back_pose(&start[j.body1], h), j.body2.map(|b| back_pose(&start[b], h)));
            let n_bilateral = bilateral_count(j);
            for (index, ((r0, r1), rb)) in now.iter().zip(&pred).zip(&back).enumerate() {
                let limit = index >= n_bilateral;
                let mut diff = r0.c - rb.c;
                if limit && j.kind == JointType::Hinge {
                    diff = wrap_angle(diff);
                }
                let rate = diff / h;
                let target =
                    if limit { baumgarte_target(r0.c, rate.max(0.0), alpha, h).min(0.0) } else { baumgarte_target(r0.c, rate, alpha, h) };
                let mut pos = Vec::new();
                for (side, body) in [Some(j.body1), j.body2].into_iter().enumerate() {
                    if let Some((s, kin)) = body.and_then(&slot) {
                        let dl = end_rotation_map(kin, h).transpose() * r1.ang[side];
                        pos.push((s, side, r1.lin[side] * (h / kin.m), dl));
                    }
                }
                rows.push(IslandRow { joint: k, index, limit, row: *r1, force: *r0, target, pos });
            }
        }
        IslandJoints { joints, rows }
    }

    /// Every row's ∂C'/∂ΔS (the `pos` entries) at ΔS = `x`, where the bodies reach `poses` (all bodies): the
    /// rows' Jacobians there and the rotation map at x's ΔL, for Newton corrections that follow large rotations.
    pub fn jacobians_at<'k>(
        &self,
        model: &Model,
        poses: &[BodyState],
        slot: impl Fn(usize) -> Option<(usize, &'k Kin)>,
        x: &[f64],
        h: f64,
    ) -> Vec<Vec<RowJacobian>> {
        let mut out = Vec::with_capacity(self.rows.len());
        let mut current: Option<(usize, Vec<Row>)> = None;
        for r in &self.rows {
            let j = &model.joints[r.joint];
            if current.as_ref().map(|c| c.0) != Some(r.joint) {
                current = Some((r.joint, joint_rows(model, j, pose(&poses[j.body1]), j.body2.map(|b| pose(&poses[b])))));
            }
            let r1 = &current.as_ref().expect("set above").1[r.index];
            let mut pos = Vec::with_capacity(2);
            for (side, body) in [Some(j.body1), j.body2].into_iter().enumerate() {
                if let Some((s, kin)) = body.and_then(&slot) {
                    let map = end_rotation_map_at(kin, h, Vec3::from_slice(&x[6 * s + 3..]));
                    pos.push((s, side, r1.lin[side] * (h / kin.m), map.transpose() * r1.ang[side]));
                }
            }
            out.push(pos);
        }
        out
    }

    /// Every row's C at the poses `poses` (all bodies), in row order.
    pub fn values(&self, model: &Model, poses: &[BodyState]) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.rows.len());
        let mut current: Option<(usize, Vec<Row>)> = None;
        for r in &self.rows {
            if current.as_ref().map(|c| c.0) != Some(r.joint) {
                let j = &model.joints[r.joint];
                current = Some((r.joint, joint_rows(model, j, pose(&poses[j.body1]), j.body2.map(|b| pose(&poses[b])))));
            }
            out.push(current.as_ref().expect("set above").1[r.index].c);
        }
        out
    }

    /// Each joint's force and torque on body 1 (about its centre of mass) from the multipliers, by joint.
    pub fn readings(&self, lambda: &[f64]) -> Vec<(usize, Vec3, Vec3)> {
        let mut out: Vec<(usize, Vec3, Vec3)> = Vec::new();
        for (r, l) in self.rows.iter().zip(lambda) {
            if out.last().map(|o| o.0) != Some(r.joint) {
                out.push((r.joint, Vec3::ZERO, Vec3::ZERO));
            }
            let o = out.last_mut().expect("pushed");
            o.1 += r.force.lin[0] * *l;
            o.2 += r.force.ang[0] * *l;
        }
        out
    }
}

/// The constraint wrench column of a row in the island's unknowns: h·(lin, ang) at each dynamic side's slot.
fn wrench_column(r: &IslandRow, n: usize, h: f64) -> Vec<f64> {
    let mut col = vec![0.0; 6 * n];
    for &(s, side, _, _) in &r.pos {
        for c in 0..3 {
            col[6 * s + c] += h * r.force.lin[side][c];
            col[6 * s + 3 + c] += h * r.force.ang[side][c];
        }
    }
    col
}

/// ∂C'/∂ΔS · x for a row.
fn row_dot(r: &IslandRow, x: &[f64]) -> f64 {
    r.pos.iter().map(|&(s, _, p, l)| p.dot(Vec3::from_slice(&x[6 * s..])) + l.dot(Vec3::from_slice(&x[6 * s + 3..]))).sum()
}

/// A pseudo-inverse of a small dense square matrix by SVD, dropping σ < [`SVD_CUTOFF`]·σ₀.
pub struct PseudoInverse {
    u: faer::Mat<f64>,
    v: faer::Mat<f64>,
    inv_s: Vec<f64>,
}

impl PseudoInverse {
    /// The pseudo-inverse of `a` (row-major, square); `None` if the SVD fails or is not finite.
    pub fn new(a: &[Vec<f64>]) -> Option<PseudoInverse> {
        let m = a.len();
        let mat = faer::Mat::from_fn(m, m, |i, j| a[i][j]);
        if m == 0 {
            return Some(PseudoInverse { u: mat.clone(), v: mat, inv_s: Vec::new() });
        }
        let svd = mat.svd().ok()?;
        let s: Vec<f64> = (0..m).map(|i| svd.S()[i]).collect();
        let s0 = s.iter().copied().fold(0.0, f64::max);
        if !s0.is_finite() {
            return None;
        }
        let inv_s = s.iter().map(|&x| if x > SVD_CUTOFF * s0 && x > 0.0 { 1.0 / x } else { 0.0 }).collect();
        Some(PseudoInverse { u: svd.U().to_owned(), v: svd.V().to_owned(), inv_s })
    }

    /// The rank kept.
    pub fn rank(&self) -> usize {
        self.inv_s.iter().filter(|&&x| x != 0.0).count()
    }

    /// S⁺ b = V Σ⁺ Uᵀ b.
    pub fn apply(&self, b: &[f64]) -> Vec<f64> {
        let m = b.len();
        let t: Vec<f64> = (0..m).map(|k| self.inv_s[k] * (0..m).map(|i| self.u[(i, k)] * b[i]).sum::<f64>()).collect();
        (0..m).map(|i| (0..m).map(|k| self.v[(i, k)] * t[k]).sum()).collect()
    }
}

/// The island's solution: ΔS and each row's multiplier (0 for inactive limits).
#[derive(Debug, Clone)]
pub struct Constrained {
    pub x: Vec<f64>,
    pub lambda: Vec<f64>,
    /// Rank of the last S kept by the pseudo-inverse, and the largest |C' − target| of the active rows.
    pub rank: usize,
    pub residual: f64,
    /// The largest angle by which the Newton corrections turned a body away from the rows' linear solution (a
    /// large one is a solve that converged to another branch, a body turned by whole revolutions).
    pub turn: f64,
}

/// Solves the island's saddle-point system [G, −hWᵀ; J, 0] through the Schur complement: G ΔS = h Z + h Wᵀλ with
/// the rows' end-of-step values meeting their targets (limits: at or above, λ ≥ 0). `values(x)` evaluates every
/// row's C at the poses the step reaches with ΔS = x.
pub fn solve_constrained(
    solver: &mut Solver,
    sys: &IslandSystem,
    rows: &IslandJoints,
    h: f64,
    mut eval: impl RowEval,
) -> Result<Constrained, String> {
    if super::saddle::rows_are_independent(rows, sys.n) {
        if let Ok(c) = super::saddle::solve(solver, sys, rows, h, &mut eval) {
            return Ok(c);
        }
    }
    solve_schur(solver, sys, rows, h, eval)
}

/// [`solve_constrained`] through the Schur complement S = J G⁻¹ W and its pseudo-inverse (any rows, redundant
/// ones and loops included).
pub fn solve_schur(
    solver: &mut Solver,
    sys: &IslandSystem,
    rows: &IslandJoints,
    h: f64,
    mut eval: impl RowEval,
) -> Result<Constrained, String> {
    let rows = &rows.rows;
    let m = rows.len();
    let mut cols = Vec::with_capacity(m + 1);
    cols.push(sys.rhs.clone());
    cols.extend(rows.iter().map(|r| wrench_column(r, sys.n, h)));
    let sol = solver.solve_many(sys, &cols)?;
    let (x0, f) = (&sol[0], &sol[1..]);
    // S = J F, and the rows at ΔS = ΔS₀ (linearised)
    let s: Vec<Vec<f64>> = rows.iter().map(|r| f.iter().map(|fc| row_dot(r, fc)).collect()).collect();
    let lin0: Vec<f64> = rows.iter().map(|r| r.row.c + row_dot(r, x0)).collect();
    let tol = ROW_TOLERANCE;
    let mut active: Vec<bool> = rows.iter().zip(&lin0).map(|(r, &c)| !r.limit || c < r.target).collect();
    let mut lambda = vec![0.0; m];
    let (mut x, mut rank, mut residual, mut turn) = (x0.clone(), 0, 0.0, 0.0f64);
    for _ in 0..ACTIVE_SETS {
        let idx: Vec<usize> = (0..m).filter(|&i| active[i]).collect();
        let sub: Vec<Vec<f64>> = idx.iter().map(|&i| idx.iter().map(|&j| s[i][j]).collect()).collect();
        let pinv = PseudoInverse::new(&sub).ok_or("the SVD of the joint rows' Schur complement failed")?;
        rank = pinv.rank();
        lambda.iter_mut().for_each(|l| *l = 0.0);
        let rhs: Vec<f64> = idx.iter().map(|&i| rows[i].target - lin0[i]).collect();
        let mut ls = pinv.apply(&rhs);
        let mut first = None;
        let mut c;
        let mut it = 0;
        loop {
            x = x0.clone();
            for (&i, &l) in idx.iter().zip(&ls) {
                x.iter_mut().zip(&f[i]).for_each(|(xv, fv)| *xv += l * fv);
            }
            c = eval.values(&x);
            first.get_or_insert_with(|| x.clone());
            let e: Vec<f64> = idx.iter().map(|&i| c[i] - rows[i].target).collect();
            residual = e.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            if residual <= tol || it == NEWTON {
                break;
            }
            let d = pinv.apply(&e);
            ls.iter_mut().zip(&d).for_each(|(l, dv)| *l -= dv);
            it += 1;
        }
        if let Some(first) = first {
            let dx: Vec<f64> = x.iter().zip(&first).map(|(a, b)| a - b).collect();
            turn = turn.max(eval.largest_turn(&dx));
        }
        for (&i, &l) in idx.iter().zip(&ls) {
            lambda[i] = l;
        }
        if !update_active(rows, &mut active, &lambda, &c) {
            break;
        }
    }
    finished(x, lambda, rank, residual, turn)
}

/// The next active set of the limit rows: an active limit whose multiplier pulls leaves, an inactive one that the
/// step crosses enters. True when the set changed.
pub(super) fn update_active(rows: &[IslandRow], active: &mut [bool], lambda: &[f64], c: &[f64]) -> bool {
    let mut changed = false;
    for (i, r) in rows.iter().enumerate() {
        if !r.limit {
            continue;
        }
        if active[i] && lambda[i] < 0.0 {
            active[i] = false;
            changed = true;
        } else if !active[i] && c[i] < r.target - ROW_TOLERANCE {
            active[i] = true;
            changed = true;
        }
    }
    changed
}

/// The solve's result, refused when a value is not finite.
pub(super) fn finished(x: Vec<f64>, lambda: Vec<f64>, rank: usize, residual: f64, turn: f64) -> Result<Constrained, String> {
    if x.iter().chain(&lambda).any(|v| !v.is_finite()) {
        return Err("the joint rows' multipliers are not finite".into());
    }
    Ok(Constrained { x, lambda, rank, residual, turn })
}

#[cfg(test)]
#[path = "joints_tests.rs"]
mod tests;
