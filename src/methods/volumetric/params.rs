//! `[solver.volumetric-penalty]`: the method's parameters.

use crate::method::params::{check as param, Params};
use crate::model::MethodKey;

/// Where the penalty acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PenaltyModel {
    /// Integrated over the intersection volume (the paper's method).
    Volume,
    /// One spring at the most penetrating point (the paper's comparison, "simple penalty method").
    Point,
}

/// What the friction anchor spring's damper acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrictionDamper {
    /// The contact point's tangential velocity at the end of the substep without friction, with the damper that
    /// stops it within the substep (m_t/h shared among the body's contacts): a contact below its friction limit
    /// holds at once.
    Stop,
    /// The current velocity, with the source's damper 2ζ√(k·m_t).
    Source,
}

/// Parameters of `[solver.volumetric-penalty]`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct VolumetricParams {
    /// Normal spring, N/m on the mean depth. Default: k = π²m/(8h)² from the pair's reduced mass (eq. 8).
    pub stiffness: Option<f64>,
    /// Normal damper, N·s/m. Default: 2ζ√(k·m).
    pub damping: Option<f64>,
    /// Damping ratio ζ. Default: from the pair's restitution e, ζ = −ln e/√(π² + ln²e) (1 for e = 0).
    pub damping_ratio: Option<f64>,
    /// Friction anchor spring and damper as multiples of the normal ones. Default 1.
    pub friction_stiffness: f64,
    /// The friction damper: `stop` (default: it acts on the contact point's tangential velocity at the end of
    /// the substep without friction and stops it within the substep, m_t/(h·n) for n contacts on the body) or
    /// `source` (2ζ√(k·m_t) on the current velocity, the paper's).
    pub friction_damper: FrictionDamper,
    /// The centre of pressure moves within the patch to balance friction's tipping moment, as a rigid face's
    /// does, and the stop damper takes the contact point's mass with that moment (tipping.rs). Default true;
    /// false keeps the penalty's own centre of pressure (the source's).
    pub balance_tipping: bool,
    /// Each contact keeps the work its spring did on the pair and, in the substep that ends the contact, takes a
    /// surplus (energy made by integrating the spring across its switch-on and switch-off) from the pair's
    /// separation (rebound.rs). Default true; false: the source's springs alone.
    pub spring_work: bool,
    /// A fast arrival without a joint that carries more than 1.5 times its pair's reduced mass (a body landing on
    /// one that rests on another, whose damper the lower body's stability bounds) takes Newton's impact law as
    /// impulses, with shock propagation, and its spring acts beyond the depth it landed at (impacts.rs). Default
    /// true; false: the springs alone (the source's), where a cube dropped on an equal one rebounds at 0.45 of its
    /// speed and a 10 t cube on a 10 kg one at 0.96.
    pub landing_impacts: bool,
    /// The approach speed from which a landing is an impact, m/s, > 0. Default: 0.05 m/s or twice what
    /// gravity adds in one substep, the larger.
    pub impact_speed: Option<f64>,
    /// `volume` (default) or `point`.
    pub model: PenaltyModel,
    /// Segments around a circle when spheres, capsules and cylinders become polytopes. Default 16.
    pub tessellation: u32,
    /// Substeps per frame, ≥ 1. Default: the fewest that keep each substep ≤ 1 ms ([`HAPTIC_STEP`]).
    pub substeps: Option<u32>,
    /// The depth a contact may rest at under the load it carries (its predicted mean depth), m: where the spring
    /// at the default substep would hold a contact's load deeper, the frame takes more substeps (the depth falls
    /// as h²), up to `max_substep_factor` times as many. Not used where `substeps` or `stiffness` is set.
    /// Default 0.001.
    pub rest_depth: f64,
    /// The most substeps a frame may take for its loads, as a multiple of its default count; 1 keeps the
    /// source's fixed substep. Default 16.
    pub max_substep_factor: u32,
    /// Let the spring follow the load the contact carries, with the damper that keeps explicit integration's
    /// margin (stiffness.rs). Default true; a single body on a fixed one keeps the source's rule exactly.
    pub stiffness_from_load: bool,
    /// ω·h of every joint row's spring–damper: k = m_eff·ω², ω = `joint_omega_h`/h at the substep h, m_eff the
    /// row's effective mass; any value > 0 (semi-implicit joints are stable for all). Default 30.
    pub joint_omega_h: f64,
    /// Damping ratio ζ of the joint rows: c = 2ζ·m_eff·ω. Default 1 (critical).
    pub joint_damping_ratio: f64,
}

/// The substep the default `substeps` aims at: 1 ms, the source's haptic rate, s.
pub const HAPTIC_STEP: f64 = 1e-3;

impl VolumetricParams {
    /// Substeps per frame of `dt`: `substeps`, or the fewest that keep each substep ≤ [`HAPTIC_STEP`].
    pub fn substeps_for(&self, dt: f64) -> u32 {
        self.substeps.unwrap_or_else(|| ((dt / HAPTIC_STEP) * (1.0 - 1e-9)).ceil().clamp(1.0, 1e6) as u32)
    }

    /// The approach speed from which a landing is an impact at substep `h` under gravity `g` (m/s²).
    pub fn impact_speed_for(&self, g: f64, h: f64) -> f64 {
        self.impact_speed.unwrap_or((2.0 * g * h).max(0.05))
    }
}

impl Default for VolumetricParams {
    fn default() -> Self {
        VolumetricParams {
            stiffness: None,
            damping: None,
            damping_ratio: None,
            friction_stiffness: 1.0,
            friction_damper: FrictionDamper::Stop,
            balance_tipping: true,
            spring_work: true,
            landing_impacts: true,
            impact_speed: None,
            model: PenaltyModel::Volume,
            tessellation: 16,
            substeps: None,
            rest_depth: 1e-3,
            max_substep_factor: 16,
            stiffness_from_load: true,
            joint_omega_h: 30.0,
            joint_damping_ratio: 1.0,
        }
    }
}

impl Params for VolumetricParams {
    const KEY: MethodKey = MethodKey::VolumetricPenalty;
    fn validate(&self) -> Result<(), String> {
        if let Some(k) = self.stiffness {
            param::positive(Self::KEY, "stiffness", k)?;
        }
        for (v, k) in
            [(self.damping, "damping"), (self.damping_ratio, "damping_ratio"), (Some(self.friction_stiffness), "friction_stiffness")]
        {
            if let Some(v) = v {
                param::non_negative(Self::KEY, k, v)?;
            }
        }
        param::positive(Self::KEY, "rest_depth", self.rest_depth)?;
        if let Some(v) = self.impact_speed {
            param::positive(Self::KEY, "impact_speed", v)?;
        }
        param::within(Self::KEY, "max_substep_factor", self.max_substep_factor, 1, 1024)?;
        param::positive(Self::KEY, "joint_omega_h", self.joint_omega_h)?;
        param::non_negative(Self::KEY, "joint_damping_ratio", self.joint_damping_ratio)?;
        if let Some(n) = self.substeps {
            param::within(Self::KEY, "substeps", n, 1, 1_000_000)?;
        }
        param::within(Self::KEY, "tessellation", self.tessellation, 4, 256)
    }
}

/// The keyword the scene accepts (for the defaults `cairn params` prints).
impl serde::Serialize for PenaltyModel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            PenaltyModel::Volume => "volume",
            PenaltyModel::Point => "point",
        })
    }
}

impl<'de> serde::Deserialize<'de> for PenaltyModel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        param::keyword(d, MethodKey::VolumetricPenalty, "model", &[("volume", PenaltyModel::Volume), ("point", PenaltyModel::Point)])
    }
}

impl serde::Serialize for FrictionDamper {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            FrictionDamper::Stop => "stop",
            FrictionDamper::Source => "source",
        })
    }
}

impl<'de> serde::Deserialize<'de> for FrictionDamper {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        param::keyword(
            d,
            MethodKey::VolumetricPenalty,
            "friction_damper",
            &[("stop", FrictionDamper::Stop), ("source", FrictionDamper::Source)],
        )
    }
}
