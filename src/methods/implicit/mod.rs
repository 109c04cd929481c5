//! `implicit-penalty`: point shells against signed distance fields, exact contact gradients and one implicit
//! system per island.
//!
//! Source: Xu, Zhao, Barbič, "Implicit Multibody Penalty-Based Distributed Contact", IEEE TVCG 20(9), 2014
//! (eqs. 9–40); see docs/methods/implicit-penalty.md.
//!
//! One step, each a timed stage (method.rs):
//! 1. **collision**: bounding boxes of the bodies, sweep and prune (collision/broad.rs).
//! 2. **contact**: every candidate pair both ways, each body's point shell in the other's field (contact.rs),
//!    springs, dampers and their exact gradients (gradients.rs), points in parallel in a fixed order.
//! 3. **friction**: anchor springs, explicit (friction.rs).
//! 4. **assembly**: islands of touching dynamic bodies; per island the 6×6-block system (step.rs).
//! 5. **solve**: per island, sparse LU or a dense 6×6 solve (system.rs).
//! 6. **integrate**: momenta, positions and quaternions from (ΔP, ΔL) (step.rs); kinematic bodies move on.
//!
//! Symbols of the paper → names here:
//! - S = (x, q, P, L) (eq. 1) → `BodyState` (x, q, v = P/m, ω = R J⁻¹Rᵀ L); J → `Body::inertia`.
//! - Q (Qω = ½ω̂q), V (eq. 18), ∂q̇/∂q (eq. 11), G_ij and Z_i (eqs. 15–17) → step.rs `q_matrix`, `Kin::vm`,
//!   `qdot_jacobian`, `add_pair`; ΔS_i = (ΔP_i, ΔL_i) → the island solution.
//! - A the distance-field body, B the point-shell body, r_A, r_B, N, N̂ = R_B N, d = φ_A(r_A), g = ∇φ_A
//!   (eqs. 19–23) → gradients.rs `PointContact { d, g: R_A g, n: N̂, a: R_A r_A, b: R_B r_B }`.
//! - k, k_d (eqs. 19, 41) → `ImplicitParams::{stiffness, damping}` (per point), `gradients::Gains`.
//! - the force and torque gradients (eqs. 24–40) and the damping ones (eqs. 42–51) → `gradients::Jacobian`
//!   (`pos` in x and θ, `vel` in v and ω).
//! - N0 (eq. 77) → `ImplicitParams::n0`.
//! - the anchors of [14] (§4) → friction.rs, carried in `State::implicit_anchors`.
//! - joints, C̈ + αĊ + βC = 0, the Schur complement and SVD (§5, eqs. 52–64) → joints.rs, island.rs; the PD servo
//!   (eq. 65) and proxies → drives.rs.

pub mod contact;
pub mod drives;
pub mod field;
pub mod friction;
pub mod gradients;
pub mod joints;
mod method;
pub mod step;
pub mod system;
pub mod verify;

use crate::error::InputError;
use crate::methods::registry::{param, Params};
use crate::methods::Method;
use crate::model::{MethodKey, Model};
pub use method::{ImplicitPenalty, ImplicitStage};

/// `implicit-penalty` runs every joint (ball, hinge, prismatic, fixed) with limits and PD motors (joints.rs,
/// drives.rs) and haptic proxies (drives.rs).
pub fn supports(_model: &Model) -> Result<(), String> {
    Ok(())
}

/// The registry's constructor: builds the fields and shells of every body.
pub fn create(model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
    let params = ImplicitParams::from_model(model).map_err(|e| InputError::at(&model.name, e))?;
    Ok(Box::new(ImplicitPenalty::new(params, model)?))
}

/// Parameters of `[solver.implicit-penalty]`. Gains are per contact point; the defaults are scaled to the
/// bodies and to the method's step h (the scene's dt split into `substeps`; see each field), with n_ref =
/// `reference_points`.
///
/// Why these defaults (measured; the paper chooses k and h per scene, its Tables 1–2 did not survive extraction,
/// and its examples run at h = 0.07–0.67 ms): the first defaults were n_ref = a sixth of the smaller body's shell
/// (one face's worth of points) and h = the scene's dt. Three things went wrong with them.
/// (1) A contact is felt only once its points penetrate, so at h = 1/60 s a stack's bodies, all falling together,
/// learn of the one below one step at a time: stack10's top cube fell for ten steps (1.6 m/s) before it was
/// stopped, and with any k ≥ 1e5 N/m the stack bounced (89 mm deep at k = 1e5, exploded at 1e6). With h ≤ 4 ms
/// the same wave costs N·g·h² (1.6 mm for ten bodies).
/// (2) k tied to a face's worth of points holds one body at ωh = 1, so a contact carrying the ten bodies above
/// it sank ten times g·h² and a ring or edge contact (a bowl on another's rim: a few dozen points) stopped a
/// body only after v·h·√(n_face/n) — bowls20 popped through its 12 mm walls. k is now set by
/// n_ref = 4 points (a body on a few points is a spring–mass pair with ωh = 1, a body on a face of hundreds is
/// far stiffer; the implicit step keeps it stable, and its numerical damping only helps contact come to rest).
/// n_ref = 4 then gained energy without bound where many points touch at once on a non-convex or tilted contact
/// (arch: 70 mm deep and 1e8 J in 0.5 s; house_of_cards 100 mm); n_ref = 16 holds them (arch 2.2 mm, house of
/// cards 5.9 mm, stack10 0.77 mm, cubedrop 1.7 mm), so the default is 16.
/// (3) see `tangential_damping`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImplicitParams {
    /// Contact spring per penetrating point k, N/m. Default: the pair's reduced mass m over h²·min(N, n_ref), N
    /// the pair's penetrating points this step, so that a body resting on n_ref points is a spring–mass pair with
    /// ω·h = 1 and sinks by about g·h², and a pair touching on fewer points shares the same total spring m/h².
    /// (With m/(h²·n_ref) on every point, a contact of N < n_ref points had ω·h = √(N/n_ref) and stopped a body
    /// only after v·h·√(n_ref/N): a ragdoll's limb landing on a stair's edge at about 4 m/s on 2–8 points went
    /// 29 mm deep, 8% of the limb.)
    pub stiffness: Option<f64>,
    /// n_ref of the default spring and damper: the number of penetrating points on which a body is a
    /// spring–mass pair with ω·h = 1 (and damped with ratio ζ). Default 16.
    pub reference_points: f64,
    /// n_max of the default spring: beyond this many penetrating points a pair's total spring stays that of n_max
    /// points, each point's spring m/(h²·n_ref)·n_max/N, so a pair is a spring–mass pair with ω·h at most
    /// √(n_max/n_ref) (4 by default). Default 256. The friction anchors keep the spring of min(N, n_ref).
    ///
    /// Why: the implicit step is stable for a fixed set of springs at any ω·h, but a pair whose contact grows by
    /// hundreds of points within a step (a pile of perforated boxes on a fine shell) is pushed apart by springs
    /// the step did not see coming. articulated_boxes with `point_spacing` = 6 mm (42k points in contact) gained
    /// 1.48 kJ over its drop's energy at 0.7 s with the spring uncapped and came to rest calmly with it capped
    /// (never above its initial energy, 13.0 → 6.5 mm deep); no validate row or default matrix run changes, their
    /// pairs touch on fewer points (hexbolt's threshold torque moved 3.80 → 3.23 N·m, the statics' 3.00).
    pub saturation_points: f64,
    /// Steps of the method per scene step (h = dt/substeps; loads are evaluated at each substep's time, the
    /// step's statistics are the largest contact counts and depths and the summed impulses). Default: the fewest
    /// that keep h ≤ [`MAX_DEFAULT_STEP`] (see (1) above).
    pub substeps: Option<u32>,
    /// `implicit` (the method) or `symplectic-euler`: the same contact, damping and friction forces without
    /// their gradients, friction explicit, i.e. symplectic Euler (the paper's comparison of Fig. 11; the
    /// stable-step row of validate uses it). Default `implicit`.
    pub integrator: Integrator,
    /// Contact damper per penetrating point k_d, N·s/m. Default: 2ζ√(k·m/N), N the pair's penetrating points
    /// this step: the pair's N dampers together damp its N springs with ratio ζ, whatever the
    /// contact's size. (A damper fixed at 2ζ√(k·m/n_ref) over-damped a face contact of 100 points five times,
    /// and since the damper acts along the points' normals N̂, which a sliding block's friction torque tilts by
    /// α ≈ 1.6e-5 rad, it pulled the block into the floor with about k_d·N·v·α: a block launched at 1 m/s on a
    /// slope slid 6.5% slower than g(sin θ − μk cos θ), 1.4% with this rule.)
    pub damping: Option<f64>,
    /// Damping ratio ζ of the default damper. Default: from the pair's restitution e,
    /// ζ = −ln e/√(π² + ln²e) (1 for e = 0).
    pub damping_ratio: Option<f64>,
    /// Whether the damper acts on the whole relative velocity (the paper) or on its normal part only.
    /// Default `false`: a damper critically damping the normal motion also drags any sliding body to a stop
    /// within a few steps, which makes Coulomb friction meaningless; `true` is the paper's model.
    pub tangential_damping: bool,
    /// Friction anchor spring per point as a multiple of k. Default 0.1: the paper's springs are 10⁻⁴ of its
    /// (much stiffer) contact springs; with k tied to m/(h²n_ref), 0.1 keeps the explicit friction stable
    /// (k_t·n_ref·h²/m = 0.1) and the creep before a contact saturates near 10·μ·g·h².
    pub friction_stiffness: f64,
    /// `explicit`: the anchor springs' forces enter the right-hand side only (the paper); `implicit`: the
    /// springs of sticking points enter the system with their gradients (gradients.rs `add_anchor_spring`),
    /// kinetic friction stays explicit. Default `implicit`: with explicit springs a stack's chain of contacts
    /// has modes above the explicit limit (stack10 at the default gains grew ×1.04 per step once at rest).
    pub friction: FrictionMode,
    /// N0 of the paper's stiffness clamp (eq. 77): with N ≥ N0 penetrating points in a pair, k·N0/N. Default:
    /// off (N0 = ∞), as in all of the paper's examples but the excavator.
    pub n0: Option<u32>,
    /// Grid cells along a shape's longest extent for its distance field. Default: per shape
    /// (`geometry::sdf::SdfParams::for_shape`: 48 for primitives, 64–192 from the mesh's edge lengths).
    pub sdf_resolution: Option<u32>,
    /// Narrow-band half-width of the distance fields, m. Default: per shape, the larger of six cells and a
    /// tenth of the longest extent.
    pub sdf_band: Option<f64>,
    /// Point-shell spacing, m. Default: per shape (`geometry::point_shell::default_spacing`: a tenth of a
    /// primitive's longest extent, a mesh's median edge within [1/20, 1/10] of it).
    pub point_spacing: Option<f64>,
    /// α of the joint rows' stabilisation C̈ + αĊ + βC = 0 (β = α²/4, critically damped), 1/s (joints.rs).
    /// Default: 100/h, so that a joint error shrinks to 4% of itself in one step (measured on the 10-link chain
    /// released horizontal at h = 5 ms, largest gap over 2 s: 3.9e-7 of a link at 100/h, 3.4e-5 at 10/h,
    /// 1.2e-3 at 1/h); smaller values give a softer, slower correction, larger ones approach a projection.
    pub joint_alpha: Option<f64>,
}

impl Default for ImplicitParams {
    fn default() -> Self {
        ImplicitParams {
            stiffness: None,
            reference_points: 16.0,
            saturation_points: 256.0,
            substeps: None,
            integrator: Integrator::Implicit,
            damping: None,
            damping_ratio: None,
            tangential_damping: false,
            friction_stiffness: 0.1,
            friction: FrictionMode::Implicit,
            n0: None,
            sdf_resolution: None,
            sdf_band: None,
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
}

/// The step's integrator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrator {
    /// Semi-implicit backward Euler with the exact contact gradients (the method).
    Implicit,
    /// Symplectic Euler with the same forces (for comparison).
    SymplecticEuler,
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
        ] {
            if let Some(v) = v {
                param::positive(Self::KEY, k, v)?;
            }
        }
        for (v, k) in
            [(self.damping, "damping"), (self.damping_ratio, "damping_ratio"), (Some(self.friction_stiffness), "friction_stiffness")]
        {
            if let Some(v) = v {
                param::non_negative(Self::KEY, k, v)?;
            }
        }
        if let Some(n) = self.n0 {
            param::within(Self::KEY, "n0", n, 1, u32::MAX)?;
        }
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
