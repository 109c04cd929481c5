//! `implicit-penalty`: point shells against signed distance fields, exact contact gradients and one implicit
//! system per island.
//!
//! Source: Xu, Zhao, Barbič, "Implicit Multibody Penalty-Based Distributed Contact", IEEE TVCG 20(9), 2014.
//! One step runs the timed stages (method.rs) collision (sweep and prune), contact (each body's point shell in
//! the other's field, with exact gradients: contact.rs, gradients.rs), friction (anchor springs, friction.rs),
//! assembly and solve (one 6×6-block system per island: step.rs, system.rs) and integrate.
//! See docs/methods/implicit-penalty.md, "One step" and "Symbols".

mod centres;
pub mod contact;
pub mod drives;
pub mod field;
pub mod friction;
pub mod gradients;
pub mod joints;
mod method;
pub mod saddle;
pub mod step;
mod substeps;
pub mod system;
pub mod verify;

use crate::error::InputError;
use crate::method::params::{check as param, Params};
use crate::method::Method;
use crate::model::{MethodKey, Model};
pub use method::{ImplicitPenalty, ImplicitStage};

/// The registry's constructor: builds the fields and shells of every body.
pub fn create(model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
    let params = model.solver.get::<ImplicitParams>();
    Ok(Box::new(ImplicitPenalty::new(params, model)?))
}

/// Parameters of `[solver.implicit-penalty]`. Gains are per contact point; the defaults are scaled to the
/// bodies and to the method's step h (the scene's dt split into `substeps`), with n_ref = `reference_points`.
/// Why these defaults: see docs/methods/implicit-penalty.md, "Default gains".
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImplicitParams {
    /// Contact spring per penetrating point k, N/m, > 0. Default: the pair's reduced mass m over h²·min(N, n_ref),
    /// N the pair's penetrating points this step, so that a body at rest sinks by about g·h².
    pub stiffness: Option<f64>,
    /// n_ref of the default spring and damper: the number of penetrating points on which a body is a
    /// spring–mass pair with ω·h = 1 (and damped with ratio ζ). Default 16.
    pub reference_points: f64,
    /// n_max of the default spring, > 0: beyond this many penetrating points a pair's total spring stays that of
    /// n_max points (ω·h at most √(n_max/n_ref)). Default 256.
    pub saturation_points: f64,
    /// Whether the default spring follows the load a pair carries under gravity (its own weight and what rests
    /// on it: a light body under a heavy one, the lower contacts of a stack; joints pass none). Where
    /// a pair carries a mass M beyond twice its reduced mass m, each point's spring stiffens to r·k, r = M/(2m),
    /// beyond the depth at which the points carry twice the pair's own weight, and the damper is r times the
    /// default, so that every contact of a stack sinks at most about twice as far as one body on the ground; a
    /// load that arrives while the pair is compressed stiffens it from that depth on, never pushing at once.
    /// `false`: the paper's spring for the reduced mass. Not with `stiffness` set. Default `true`.
    pub stiffness_from_load: bool,
    /// Steps of the method per scene step (h = dt/substeps), 1 to 100000. Default: the fewest that keep
    /// h ≤ [`MAX_DEFAULT_STEP`].
    pub substeps: Option<u32>,
    /// `implicit` (the method) or `symplectic-euler` (the same forces without their gradients, friction explicit:
    /// the paper's comparison of Fig. 11). Default `implicit`.
    pub integrator: Integrator,
    /// Contact damper per penetrating point k_d, N·s/m, ≥ 0. Default: 2ζ√(k·m/N), N the pair's penetrating points,
    /// so that the pair's dampers together damp its springs with ratio ζ (r times that on a pair that carries a
    /// load: `stiffness_from_load`; set, it is used as given).
    pub damping: Option<f64>,
    /// Damping ratio ζ of the default damper. Default: from the pair's restitution e,
    /// ζ = −ln e/√(π² + ln²e) (1 for e = 0).
    pub damping_ratio: Option<f64>,
    /// `newton`: a pair whose point approaches faster than `impact_speed` takes the impact as impulses
    /// (Newton's law per point with the pair's restitution e, Coulomb friction within μ of the normal impulse,
    /// then shock propagation from the fixed bodies up; without restitution only a pair that carries more than
    /// four times its reduced mass between bodies free of joints, a heavy body landing on a light one), and
    /// its spring then acts from the depth the impact found it at (relaxing at half the impact speed), so that an
    /// impact hands back e of its speed. `penalty`: the spring and damper alone (the paper), where backward
    /// Euler at the default spring keeps about a quarter of an elastic impact's speed and a heavy body dropped
    /// on a light one rebounds. Default `newton`.
    pub impacts: ImpactMode,
    /// The approach speed from which a contact is an impact, m/s, > 0. Default: 0.05 m/s or twice what gravity
    /// adds in one step h, the larger.
    pub impact_speed: Option<f64>,
    /// Whether the damper acts on the whole relative velocity (`true`, the paper's model) or on its normal part
    /// only. Default `false`: a tangential damper drags sliding bodies to a stop, overriding Coulomb friction.
    pub tangential_damping: bool,
    /// Along which normal the (normal-only) damper acts: `field` (∇φ of the field the point is in, whose rate
    /// is the depth's own rate of change), `point` (the point's own normal N̂, the paper) or `auto` (`field` where
    /// the field's gradient is exact, a primitive's; `point` in a grid's field, whose gradient is smoothed over a
    /// cell at a mesh's edges). Default `auto`: along N̂ a sliding body tilted by its friction's moment is damped
    /// as if approaching, and a frictionless ball is dragged sideways.
    pub damper_normal: DamperNormal,
    /// Friction anchor spring per point as a multiple of k, ≥ 0. Default 0.1, which keeps the explicit friction
    /// stable (k_t·n_ref·h²/m = 0.1).
    pub friction_stiffness: f64,
    /// Damping ratio of a sticking anchor's damper with implicit friction: per point c_t = ζ_t·2√(k_t·m/N) (m the
    /// pair's reduced mass, N its penetrating points), on the tangential relative velocity only, so that a body
    /// held by static friction settles on its anchors instead of ringing on them (and reaching its release at
    /// g sin θ/ω_t on a slope); sliding points are untouched. 0: no damper (the paper). Default 1 (critical).
    pub anchor_damping: f64,
    /// `explicit` (the paper: anchor springs and kinetic friction on the right-hand side only) or `implicit`
    /// (sticking points' springs and sliding points' kinetic friction enter the system with their gradients).
    /// Default `implicit`.
    pub friction: FrictionMode,
    /// Solves per step at most with implicit friction: where a sliding patch's normal force at the solution
    /// differs by more than 10% from the one friction took (k|d| at the step's start), friction is taken anew
    /// with the solution's normal forces and the step solved again. 1: friction on the start's normal forces
    /// only (the paper). Default 2.
    pub friction_iterations: u32,
    /// N0 of the paper's stiffness clamp (eq. 77): with N ≥ N0 penetrating points in a pair, k·N0/N. Default:
    /// off (N0 = ∞), as in all of the paper's examples but the excavator.
    pub n0: Option<u32>,
    /// Grid cells along a shape's longest extent for its distance field. Default: per shape
    /// (`geometry::sdf::SdfParams::for_shape`: 48 for primitives, 64–192 from the mesh's edge lengths).
    pub sdf_resolution: Option<u32>,
    /// Narrow-band half-width of the distance fields, m. Default: per shape, the larger of six cells and a
    /// tenth of the longest extent.
    pub sdf_band: Option<f64>,
    /// Whether a sphere that meets another sphere or a body with an exact field (a static or kinematic sphere,
    /// box, capsule or cylinder) is tested as its centre: one point at its exact depth φ(C) − r, the spring and
    /// damper along ∇φ(C), instead of its point shell in the other's field and the other's shell in its own.
    /// Not with `tangential_damping`. `false`: shells both ways (the paper). Default `true`.
    pub sphere_centres: bool,
    /// Point-shell spacing, m. Default: per shape (`geometry::point_shell::default_spacing`: a tenth of a
    /// primitive's longest extent, a mesh's median edge within [1/20, 1/10] of it).
    pub point_spacing: Option<f64>,
    /// α of the joint rows' stabilisation C̈ + αĊ + βC = 0 (β = α²/4, critically damped), 1/s, > 0. Default 100/h:
    /// a joint error shrinks to 4% of itself in one step.
    pub joint_alpha: Option<f64>,
}

impl Default for ImplicitParams {
    fn default() -> Self {
        ImplicitParams {
            stiffness: None,
            reference_points: 16.0,
            saturation_points: 256.0,
            stiffness_from_load: true,
            substeps: None,
            integrator: Integrator::Implicit,
            damping: None,
            damping_ratio: None,
            impacts: ImpactMode::Newton,
            impact_speed: None,
            tangential_damping: false,
            damper_normal: DamperNormal::Auto,
            friction_stiffness: 0.1,
            anchor_damping: 1.0,
            friction: FrictionMode::Implicit,
            friction_iterations: 2,
            n0: None,
            sdf_resolution: None,
            sdf_band: None,
            sphere_centres: true,
            point_spacing: None,
            joint_alpha: None,
        }
    }
}

/// The largest default step of the method, s (`ImplicitParams::substeps`).
pub const MAX_DEFAULT_STEP: f64 = 4e-3;

impl ImplicitParams {
    /// Substeps per scene step of `dt`: the parameter, or the fewest that keep h ≤ [`MAX_DEFAULT_STEP`].
    pub fn substeps_for(&self, dt: f64) -> u32 {
        self.substeps.unwrap_or_else(|| ((dt / MAX_DEFAULT_STEP) * (1.0 - 1e-9)).ceil().max(1.0) as u32)
    }

    /// The approach speed from which a contact is an impact at step `h` under gravity `g` (m/s²).
    pub fn impact_speed_for(&self, g: f64, h: f64) -> f64 {
        self.impact_speed.unwrap_or((2.0 * g * h).max(0.05))
    }
}

/// The step's integrator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrator {
    /// Semi-implicit backward Euler with the exact contact gradients (the method).
    Implicit,
    /// Symplectic Euler with the same forces (for comparison).
    SymplecticEuler,
}

/// The keyword the scene accepts (for the defaults `cairn params` prints).
impl serde::Serialize for Integrator {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Integrator::Implicit => "implicit",
            Integrator::SymplecticEuler => "symplectic-euler",
        })
    }
}

impl<'de> serde::Deserialize<'de> for Integrator {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        param::keyword(
            d,
            MethodKey::ImplicitPenalty,
            "integrator",
            &[("implicit", Integrator::Implicit), ("symplectic-euler", Integrator::SymplecticEuler)],
        )
    }
}

/// How the anchor springs are integrated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrictionMode {
    Explicit,
    Implicit,
}

/// The keyword the scene accepts (for the defaults `cairn params` prints).
impl serde::Serialize for FrictionMode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            FrictionMode::Explicit => "explicit",
            FrictionMode::Implicit => "implicit",
        })
    }
}

impl<'de> serde::Deserialize<'de> for FrictionMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        param::keyword(
            d,
            MethodKey::ImplicitPenalty,
            "friction",
            &[("explicit", FrictionMode::Explicit), ("implicit", FrictionMode::Implicit)],
        )
    }
}

/// How a fast contact is taken (`ImplicitParams::impacts`): with restitution, or a heavy landing without.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImpactMode {
    Newton,
    Penalty,
}

impl serde::Serialize for ImpactMode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            ImpactMode::Newton => "newton",
            ImpactMode::Penalty => "penalty",
        })
    }
}

impl<'de> serde::Deserialize<'de> for ImpactMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        param::keyword(d, MethodKey::ImplicitPenalty, "impacts", &[("newton", ImpactMode::Newton), ("penalty", ImpactMode::Penalty)])
    }
}

/// Along which normal the damper measures the rate of approach (`ImplicitParams::damper_normal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DamperNormal {
    Auto,
    Field,
    Point,
}

impl DamperNormal {
    /// Whether a point in a field whose gradient is `exact` (or not) measures its rate along that gradient.
    pub fn along_field(self, exact: bool) -> bool {
        match self {
            DamperNormal::Auto => exact,
            DamperNormal::Field => true,
            DamperNormal::Point => false,
        }
    }
}

impl serde::Serialize for DamperNormal {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            DamperNormal::Auto => "auto",
            DamperNormal::Field => "field",
            DamperNormal::Point => "point",
        })
    }
}

impl<'de> serde::Deserialize<'de> for DamperNormal {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        param::keyword(
            d,
            MethodKey::ImplicitPenalty,
            "damper_normal",
            &[("auto", DamperNormal::Auto), ("field", DamperNormal::Field), ("point", DamperNormal::Point)],
        )
    }
}

impl Params for ImplicitParams {
    const KEY: MethodKey = MethodKey::ImplicitPenalty;
    fn validate(&self) -> Result<(), String> {
        param::positive(Self::KEY, "reference_points", self.reference_points)?;
        param::positive(Self::KEY, "saturation_points", self.saturation_points)?;
        if let Some(n) = self.substeps {
            param::within(Self::KEY, "substeps", n, 1, 100_000)?;
        }
        for (v, k) in [
            (self.stiffness, "stiffness"),
            (self.sdf_band, "sdf_band"),
            (self.point_spacing, "point_spacing"),
            (self.joint_alpha, "joint_alpha"),
            (self.impact_speed, "impact_speed"),
        ] {
            if let Some(v) = v {
                param::positive(Self::KEY, k, v)?;
            }
        }
        for (v, k) in [
            (self.damping, "damping"),
            (self.damping_ratio, "damping_ratio"),
            (Some(self.friction_stiffness), "friction_stiffness"),
            (Some(self.anchor_damping), "anchor_damping"),
        ] {
            if let Some(v) = v {
                param::non_negative(Self::KEY, k, v)?;
            }
        }
        if let Some(n) = self.n0 {
            param::within(Self::KEY, "n0", n, 1, u32::MAX)?;
        }
        param::within(Self::KEY, "friction_iterations", self.friction_iterations, 1, 100)?;
        if let Some(r) = self.sdf_resolution {
            param::within(Self::KEY, "sdf_resolution", r, 4, 2048)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_parse_and_name_bad_keys() {
        let t: toml::Table = "stiffness = 1e5\ntangential_damping = true\nn0 = 10".parse().unwrap();
        let p = ImplicitParams::from_table(&t).unwrap();
        assert_eq!(p.stiffness, Some(1e5));
        assert!(p.tangential_damping && p.n0 == Some(10) && p.friction == FrictionMode::Implicit);
        let t: toml::Table = "friction = \"explicit\"".parse().unwrap();
        assert_eq!(ImplicitParams::from_table(&t).unwrap().friction, FrictionMode::Explicit);
        let t: toml::Table = "friction = \"lagged\"".parse().unwrap();
        assert!(ImplicitParams::from_table(&t).unwrap_err().contains("`explicit` or `implicit`"));
        let bad: toml::Table = "stifness = 1.0".parse().unwrap();
        let e = ImplicitParams::from_table(&bad).unwrap_err();
        assert!(e.contains("stifness") && e.contains("stiffness"), "{e}");
        let neg: toml::Table = "damping = -1.0".parse().unwrap();
        assert!(ImplicitParams::from_table(&neg).unwrap_err().contains("solver.implicit-penalty.damping must be >= 0"));
        let zero: toml::Table = "n0 = 0".parse().unwrap();
        assert!(ImplicitParams::from_table(&zero).unwrap_err().contains("n0"));
        let t: toml::Table = "integrator = \"symplectic-euler\"\nsubsteps = 3".parse().unwrap();
        let p = ImplicitParams::from_table(&t).unwrap();
        assert!(p.integrator == Integrator::SymplecticEuler && p.substeps_for(0.01) == 3);
        let t: toml::Table = "substeps = 0".parse().unwrap();
        assert!(ImplicitParams::from_table(&t).unwrap_err().contains("substeps"));
        let t: toml::Table = "reference_points = 0.0".parse().unwrap();
        assert!(ImplicitParams::from_table(&t).unwrap_err().contains("reference_points"));
        let t: toml::Table = "saturation_points = -1.0".parse().unwrap();
        assert!(ImplicitParams::from_table(&t).unwrap_err().contains("saturation_points"));
        // the default: the fewest substeps with h ≤ 4 ms (an exact multiple is not split further)
        let d = ImplicitParams::default();
        assert_eq!([d.substeps_for(1.0 / 60.0), d.substeps_for(0.01), d.substeps_for(0.004), d.substeps_for(0.001)], [5, 3, 1, 1]);
    }
}
