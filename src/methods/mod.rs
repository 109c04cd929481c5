//! The contact methods. Each implements [`Method`]; `World::step` calls it once per time step.

pub mod abd;
pub mod impulse;
pub mod lcp;
pub mod stages;
pub mod volumetric;

use crate::error::{InputError, SimError};
use crate::model::Model;
use crate::state::State;

/// All method keys of the scene format, with whether this build implements them.
pub const METHODS: [(&str, bool); 5] =
    [("lcp", true), ("impulse", true), ("volumetric-penalty", true), ("implicit-penalty", false), ("abd", true)];

/// At most this many stages are timed per step.
pub const MAX_STAGES: usize = 8;

/// What every method reports after a step.
#[derive(Debug, Clone, Default)]
pub struct StepStats {
    /// Contact points considered.
    pub contacts: usize,
    /// Solver iterations (PGS sweeps of the main pass).
    pub iterations: usize,
    /// Solver residual (for `lcp`: the source's merit θ = ½‖H(λ)‖²).
    pub residual: f64,
    /// Largest penetration depth seen in this step's collision detection, m.
    pub max_penetration: f64,
    /// Contact islands.
    pub islands: usize,
    /// Sum of normal impulses over all contacts, N·s.
    pub normal_impulse: f64,
    /// Sum of friction impulse magnitudes, N·s.
    pub friction_impulse: f64,
    /// Contact point pairs (`impulse`: pairs of convex pieces) still interfering and approaching after the
    /// fixed iterations of the collision and contact phases, summed over both phases (0 for other methods).
    pub unresolved: usize,
    /// Impulses computed by the collision law (`impulse`), and the wall time spent computing them, s.
    pub resolutions: usize,
    pub resolution_seconds: f64,
    /// What each haptic proxy received this step, in the model's order (empty without proxies).
    pub proxies: Vec<crate::dynamics::proxy::Reading>,
    /// `abd`: the smallest distance between surfaces of different bodies after the step (within the barrier's
    /// reach d̂; `None` when no pair is that close, and for other methods), m.
    pub min_distance: Option<f64>,
    /// `abd` with `check_intersections`: intersecting triangle pairs of different bodies after the step.
    pub intersections: Option<usize>,
    /// Wall time per stage, seconds, in the order of [`Method::stage_names`] (the slot of a stage is its
    /// [`stages::Stage::index`]; methods fill it through a [`stages::StageTimer`]).
    pub stage_seconds: [f64; MAX_STAGES],
}

/// A contact method.
pub trait Method {
    /// The scene key of the method.
    fn name(&self) -> &'static str;
    /// Names of the timed stages, in order: the method's stage enum's [`stages::Stage::NAMES`].
    fn stage_names(&self) -> &'static [&'static str];
    /// Advances `state` by `dt`.
    fn step(&mut self, model: &Model, state: &mut State, dt: f64) -> Result<StepStats, SimError>;
}

/// Checks that the method exists and is implemented, and that the model uses nothing it cannot run.
pub fn check_supported(model: &Model) -> Result<(), String> {
    match METHODS.iter().find(|(k, _)| *k == model.method) {
        None => Err(format!(
            "unknown method `{}`: allowed are {}",
            model.method,
            METHODS.iter().map(|(k, _)| format!("`{k}`")).collect::<Vec<_>>().join(", ")
        )),
        Some((_, false)) => Err(format!(
            "method `{}` is not implemented yet in this build (implemented: lcp, impulse, volumetric-penalty, abd)",
            model.method
        )),
        Some(_) => {
            if !model.proxies.is_empty() && model.method != "volumetric-penalty" {
                return Err(format!(
                    "method `{}` cannot drive haptic proxies yet ({} `[[proxy]]` table(s)): use `volumetric-penalty`",
                    model.method,
                    model.proxies.len()
                ));
            }
            if model.method == "abd" {
                if let Some(j) =
                    model.joints.iter().find(|j| j.kind == crate::model::JointType::Prismatic || j.limits.is_some() || j.motor.is_some())
                {
                    return Err(format!(
                        "method `abd` runs ball, hinge and fixed joints without limits or motors; the {:?} joint on `{}` has {}",
                        j.kind,
                        model.bodies[j.body1].name,
                        if j.kind == crate::model::JointType::Prismatic {
                            "a prismatic type"
                        } else if j.limits.is_some() {
                            "limits"
                        } else {
                            "a motor"
                        }
                    ));
                }
                return Ok(());
            }
            if let Some(j) = model.joints.first() {
                let b2 = j.body2.map_or("world".to_string(), |b| model.bodies[b].name.clone());
                return Err(format!(
                    "method `{}` cannot run joints yet: {} joint(s), the first a {:?} joint between `{}` and `{}`",
                    model.method,
                    model.joints.len(),
                    j.kind,
                    model.bodies[j.body1].name,
                    b2
                ));
            }
            Ok(())
        }
    }
}

/// Creates the method the model names.
pub fn create(model: &Model) -> Result<Box<dyn Method>, InputError> {
    check_supported(model).map_err(|e| InputError::at(&model.name, e))?;
    match model.method.as_str() {
        "lcp" => Ok(Box::new(lcp::Lcp::new(model.solver.lcp.clone()))),
        "impulse" => Ok(Box::new(impulse::Impulse::new(model.solver.impulse.clone()))),
        "volumetric-penalty" => Ok(Box::new(volumetric::Volumetric::new(model.solver.volumetric.clone(), model)?)),
        "abd" => Ok(Box::new(abd::Abd::new(model.solver.abd.clone(), model))),
        other => Err(InputError::at(&model.name, format!("method `{other}` is not implemented yet"))),
    }
}

/// Stops the run when a body's pose or velocity is not finite, naming the body, the step and the stage.
pub(crate) fn check_finite(model: &Model, state: &State, stage: &'static str) -> Result<(), SimError> {
    for (i, s) in state.bodies.iter().enumerate() {
        let bad = if !crate::math::finite3(s.x) || !(s.q.is_finite()) {
            Some("position")
        } else if !crate::math::finite3(s.v) || !crate::math::finite3(s.w) {
            Some("velocity")
        } else {
            None
        };
        if let Some(quantity) = bad {
            return Err(SimError::NonFinite { body: model.bodies[i].name.clone(), step: state.step, stage, quantity });
        }
    }
    Ok(())
}
