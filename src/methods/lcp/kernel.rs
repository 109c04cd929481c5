//! One PGS sweep of the dynamics pass as a micro-benchmark (`benches/`, criterion): from a state (a world stepped
//! under `lcp`, whose pair cache carries the warm-start impulses), one step's collision, analysis, correction and
//! dynamics-pass rows are built once, and
//! [`SweepKernel::sweep`] runs one sweep over those rows, [`SweepKernel::batched_sweep`] the same sweep four points
//! at a time (batch.rs). Successive sweeps work on the same rows (the work of a sweep does not depend on the
//! iterate), so the timing is that of the inner loop alone.

use super::batch::Batches;
use super::pgs::{sweep, warm};
use super::{Lcp, LcpParams, Rows};
use crate::dynamics::joint_block::Vel;
use crate::method::StepStats;
use crate::model::Model;
use crate::state::State;

/// The rows of one dynamics pass, ready to be swept.
pub struct SweepKernel {
    lcp: Lcp,
    rows: Vec<Rows>,
    vel: Vec<Vel>,
    batches: Batches,
    batched: bool,
}

impl SweepKernel {
    /// The next step's dynamics-pass rows from `state` with the scene's `lcp` parameters (warm-started as in a
    /// step); `state` is left as it was, its pair cache refreshed.
    pub fn new(model: &Model, state: &mut State) -> Result<SweepKernel, String> {
        let params = model.solver.get::<LcpParams>();
        let mut lcp = Lcp::new(params);
        let h = model.dt;
        let mut stats = StepStats::default();
        lcp.collision.borrow_pairs(state);
        lcp.collision(model, state, h, &mut stats).map_err(|e| e.to_string())?;
        lcp.analysis(model, state, &mut stats);
        let mut scratch = state.clone();
        lcp.correction(model, &mut scratch);
        lcp.pre_step_speeds(model, &scratch);
        lcp.stiffen(model, &scratch, h);
        let frac = if lcp.params.shock_propagation { lcp.params.shock_fraction } else { 1.0 };
        lcp.load_velocities(model, &mut scratch, h, frac);
        let mut rows = Vec::new();
        lcp.velocity_rows(&scratch, h, &mut rows, &mut Vec::new());
        let mut vel = lcp.vel.clone();
        warm(&rows, &lcp.bodies, &mut vel, true);
        lcp.collision.return_pairs(state);
        let mut batches = Batches::default();
        let batched = batches.load(&rows, &lcp.bodies);
        Ok(SweepKernel { lcp, rows, vel, batches, batched })
    }

    /// Contact points (each with its three rows).
    pub fn points(&self) -> usize {
        self.rows.len()
    }

    /// One sweep over every point's three rows, friction on; the largest impulse change.
    pub fn sweep(&mut self) -> f64 {
        sweep(&mut self.rows, &self.lcp.bodies, &mut self.vel, true).0
    }

    /// Whether the batched sweep runs batched (the processor has AVX2); else it is the scalar sweep.
    pub fn batched(&self) -> bool {
        self.batched
    }

    /// The same sweep, four points at a time where the processor has AVX2 (on the batches' own copy of the
    /// impulses, loaded when the kernel was built; without AVX2 the scalar sweep on the rows); the largest
    /// impulse change.
    pub fn batched_sweep(&mut self) -> f64 {
        self.batches.sweep(&mut self.rows, &self.lcp.bodies, &mut self.vel, true).0
    }
}
