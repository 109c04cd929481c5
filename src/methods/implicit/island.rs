//! Stage 5 of the `implicit-penalty` step and what it reports: each island's system solved, with its joint
//! rows where it has joints (one saddle-point system, saddle.rs, or their Schur complement, joints.rs); the
//! joints' and proxies' readings.

use super::{Assembled, ImplicitPenalty, Island};
use crate::dynamics::integrate::{external_wrench, integrate_pose};
use crate::dynamics::proxy::Reading;
use crate::error::SimError;
use crate::math::Vec3;
use crate::method::{JointReading, StepStats};
use crate::methods::implicit::drives::{self, Drive};
use crate::methods::implicit::joints::{solve_constrained, IslandJoints, RowEval, RowJacobian};
use crate::methods::implicit::step::Kin;
use crate::model::{BodyKind, Model};
use crate::state::{BodyState, State};

/// Every body's pose after a step of `h` with ΔS = 0 (dynamic bodies coast, kinematic ones move, static stay).
fn predicted(model: &Model, state: &State, kins: &[Option<Kin>], h: f64) -> Vec<BodyState> {
    let mut out = state.bodies.clone();
    for (i, s) in out.iter_mut().enumerate() {
        match (&kins[i], model.bodies[i].kind) {
            (Some(k), _) => k.advance(s, Vec3::ZERO, Vec3::ZERO, h, &model.bodies[i].inv_inertia),
            (None, BodyKind::Kinematic) => integrate_pose(model, i, s, h),
            _ => {}
        }
    }
    out
}

/// rad: the Newton corrections of the joint rows may turn a body this far from the rows' linear solution.
const MAX_TURN: f64 = 0.5;

/// The island's joint rows at the poses its bodies reach with ΔS = x (the other bodies at their predicted poses).
struct Trial<'a> {
    model: &'a Model,
    state: &'a State,
    asm: &'a Assembled,
    isl: &'a Island,
    rows: &'a IslandJoints,
    trial: &'a mut Vec<BodyState>,
    h: f64,
}

impl Trial<'_> {
    fn advance(&mut self, x: &[f64]) {
        for (s, &i) in self.isl.bodies.iter().enumerate() {
            let k = self.asm.kins[i].as_ref().expect("dynamic");
            let mut b = self.state.bodies[i];
            k.advance(&mut b, Vec3::from_slice(&x[6 * s..]), Vec3::from_slice(&x[6 * s + 3..]), self.h, &self.model.bodies[i].inv_inertia);
            self.trial[i] = b;
        }
    }
}

impl RowEval for Trial<'_> {
    fn values(&mut self, x: &[f64]) -> Vec<f64> {
        self.advance(x);
        self.rows.values(self.model, self.trial)
    }

    fn jacobians(&mut self, x: &[f64]) -> Option<Vec<Vec<RowJacobian>>> {
        self.advance(x);
        let asm = self.asm;
        let slot = |b: usize| asm.kins[b].as_ref().map(|k| (asm.slot[b], k));
        Some(self.rows.jacobians_at(self.model, self.trial, slot, x, self.h))
    }

    fn largest_turn(&self, dx: &[f64]) -> f64 {
        let turn =
            |(s, &i): (usize, &usize)| (self.asm.kins[i].as_ref().expect("dynamic").inv_iw * Vec3::from_slice(&dx[6 * s + 3..])).length();
        self.h * self.isl.bodies.iter().enumerate().map(turn).fold(0.0, f64::max)
    }
}

impl ImplicitPenalty {
    /// Stage 5: per island ΔS (and the joint rows' multipliers, empty without joints).
    pub(super) fn solve(
        &mut self,
        model: &Model,
        state: &State,
        asm: &Assembled,
        h: f64,
    ) -> Result<(Vec<Vec<f64>>, Vec<(IslandJoints, Vec<f64>)>), SimError> {
        let err = |isl: &Island, message: String| SimError::Solver {
            step: state.step,
            stage: "solve",
            message: format!("island of `{}`: {message}", model.bodies[isl.bodies[0]].name),
        };
        let mut trial = if model.joints.is_empty() { Vec::new() } else { predicted(model, state, &asm.kins, h) };
        let alpha = self.params.joint_alpha.unwrap_or(100.0 / h);
        let mut solutions = Vec::with_capacity(asm.islands.len());
        let mut lambdas = Vec::new();
        for isl in &asm.islands {
            if isl.joints.is_empty() {
                solutions.push(self.solver.solve(&isl.sys).map_err(|m| err(isl, m))?);
                continue;
            }
            let slot = |b: usize| asm.kins[b].as_ref().map(|k| (asm.slot[b], k));
            let rows = IslandJoints::build(model, isl.joints.clone(), &state.bodies, &trial, slot, alpha, h);
            let eval = Trial { model, state, asm, isl, rows: &rows, trial: &mut trial, h };
            let c = solve_constrained(&mut self.solver, &isl.sys, &rows, h, eval).map_err(|m| err(isl, m))?;
            // a solve that turned a body by more than MAX_TURN off the rows' linear solution found another branch
            let residual = if c.turn > MAX_TURN { f64::INFINITY } else { c.residual };
            self.joint_residual = self.joint_residual.max(residual);
            self.joint_rank = c.rank;
            solutions.push(c.x);
            lambdas.push((rows, c.lambda));
        }
        Ok((solutions, lambdas))
    }

    /// The joints' forces on their body 1 (constraint rows and motors) and the proxies' readings, from the
    /// solution of the step.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn readings(
        &self,
        model: &Model,
        state: &State,
        asm: &Assembled,
        solutions: &[Vec<f64>],
        lambdas: &[(IslandJoints, Vec<f64>)],
        h: f64,
        stats: &mut StepStats,
    ) {
        // (ΔP, ΔL) of a dynamic body
        let delta = |b: usize| -> Option<(&Kin, Vec3, Vec3)> {
            let k = asm.kins[b].as_ref()?;
            let s = asm.slot[b];
            let x = &solutions[asm.island[b]];
            Some((k, Vec3::from_slice(&x[6 * s..]), Vec3::from_slice(&x[6 * s + 3..])))
        };
        let applied = |d: &Drive, side: usize| drives::applied(&d.jac, [delta(d.a), d.b.and_then(delta)], h, side);
        if !model.joints.is_empty() {
            let mut out = vec![JointReading { force: Vec3::ZERO, torque: Vec3::ZERO }; model.joints.len()];
            for (rows, lambda) in lambdas {
                for (k, f, t) in rows.readings(lambda) {
                    out[k].force += f;
                    out[k].torque += t;
                }
            }
            for (k, d) in &asm.motors {
                let (f, t) = applied(d, 0);
                out[*k].force += f;
                out[*k].torque += t;
            }
            stats.joints = out;
        }
        stats.proxies = model
            .proxies
            .iter()
            .zip(&asm.proxies)
            .map(|(p, d)| {
                let (fc, tc) = applied(d, 0);
                let (f_ext, t_ext) = external_wrench(model, &state.applied, p.body, state.time);
                let (dp, dl) = delta(p.body).map_or((Vec3::ZERO, Vec3::ZERO), |(_, dp, dl)| (dp, dl));
                Reading {
                    contact_force: (dp / h - f_ext - fc).to_array(),
                    contact_torque: (dl / h - t_ext - tc).to_array(),
                    coupling_force: fc.to_array(),
                    coupling_torque: tc.to_array(),
                }
            })
            .collect();
    }
}
