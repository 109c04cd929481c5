//! Time integration of rigid bodies.
//!
//! Velocities: symplectic Euler, v ← v + h·F/m. Positions: x ← x + h·v. Orientation: the angular momentum
//! L = I_w ω is what is conserved, so the rotation is advanced with a midpoint rule in L:
//! R_½ = exp(½h ω)R, ω_½ = I_w(R_½)⁻¹L, R' = exp(h ω_½)R and finally ω' = I_w(R')⁻¹L. A torque-free body keeps
//! L exactly (to rounding) and its kinetic energy to second order in h.

use crate::math::{quat_exp, Mat3, Quat, Vec3};
use crate::model::{BodyKind, Model};
use crate::state::BodyState;

/// External force and torque on body `i` at time `t` (gravity and the scene's loads).
pub fn external_wrench(model: &Model, applied: &[Applied], i: usize, t: f64) -> (Vec3, Vec3) {
    let b = &model.bodies[i];
    let mut f = model.gravity * b.mass;
    let mut tau = Vec3::ZERO;
    for l in model.loads.iter().filter(|l| l.body == i && t >= l.start && t < l.end) {
        f += l.force;
        tau += l.torque;
    }
    for a in applied.iter().filter(|a| a.body == i) {
        f += a.force;
        tau += a.torque;
    }
    (f, tau)
}

/// A force and torque the user applied to a body for the next step only (`World::apply_force`,
/// `World::apply_torque`): world frame, the torque about the body's centre of mass. Held in
/// `State::applied`, so a snapshot keeps it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Applied {
    pub body: usize,
    pub force: Vec3,
    pub torque: Vec3,
}

/// The linear part of the velocity update from external loads over `h` (symplectic Euler's kick):
/// v ← v + f·(h/m).
pub fn linear_kick(s: &mut BodyState, mass: f64, f: Vec3, h: f64) {
    s.v += f * (h / mass);
}

/// The velocity update of a dynamic body from an external force `f` and torque `tau` over `h`: v ← v + f·(h/m)
/// and ω ← ω + I_w⁻¹·τ·h, with `inv_i` the body's world inverse inertia. `lcp` and `impulse` use it; the
/// volumetric method updates ω through the angular momentum instead and uses [`linear_kick`] only.
pub fn apply_load(s: &mut BodyState, mass: f64, inv_i: &Mat3, f: Vec3, tau: Vec3, h: f64) {
    linear_kick(s, mass, f, h);
    s.w += *inv_i * tau * h;
}

/// World-frame inverse inertia of a body at orientation `q`.
pub fn inv_inertia_world(model: &Model, i: usize, q: Quat) -> Mat3 {
    let r = Mat3::from_quat(q);
    r * model.bodies[i].inv_inertia * r.transpose()
}

/// Advances the pose of one body over `h` with its current velocities (see the module comment).
pub fn integrate_pose(model: &Model, i: usize, s: &mut BodyState, h: f64) {
    let body = &model.bodies[i];
    integrate_pose_with(model, i, &body.inertia, &body.inv_inertia, s, h);
}

/// [`integrate_pose`] with the body's inertia and its inverse (body frame) given: a method that keeps a body's
/// inertia apart from the model's (`lcp` takes folded rotor inertia out) turns it with its own.
pub fn integrate_pose_with(model: &Model, i: usize, inertia: &Mat3, inv_inertia: &Mat3, s: &mut BodyState, h: f64) {
    let body = &model.bodies[i];
    let world_inv = |q: Quat| {
        let r = Mat3::from_quat(q);
        r * *inv_inertia * r.transpose()
    };
    match body.kind {
        BodyKind::Static => {}
        BodyKind::Kinematic => {
            s.x += h * s.v;
            s.q = (quat_exp(h * s.w) * s.q).normalize();
        }
        BodyKind::Dynamic => {
            s.x += h * s.v;
            let r = Mat3::from_quat(s.q);
            let l = r * (*inertia * (r.transpose() * s.w));
            let q_half = (quat_exp(0.5 * h * s.w) * s.q).normalize();
            let w_half = world_inv(q_half) * l;
            s.q = (quat_exp(h * w_half) * s.q).normalize();
            s.w = world_inv(s.q) * l;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{build, ShapeDesc};
    use crate::model::{Body, Material, MethodKey};

    fn one_box(size: Vec3, w: Vec3) -> Model {
        let g = build(ShapeDesc::Box { size }, true).unwrap();
        let m = g.unit_mass.volume * 1000.0;
        let inertia = g.unit_mass.inertia * 1000.0;
        Model {
            name: "t".into(),
            gravity: Vec3::ZERO,
            dt: 0.01,
            duration: 1.0,
            method: MethodKey::Lcp,
            solver: Default::default(),
            check_intersections: false,
            check_resolution: 16,
            sleep: Default::default(),
            fluid: None,
            friction_combine: Default::default(),
            notes: vec![],
            proxies: vec![],
            exclusions: vec![],
            limits: Default::default(),
            couplings: vec![],
            site_tendons: vec![],
            materials: vec![Material::default_material()],
            bodies: vec![Body {
                name: "b".into(),
                kind: BodyKind::Dynamic,
                geometry: g,
                material: 0,
                mass: m,
                com: Vec3::ZERO,
                inertia,
                inv_inertia: inertia.inverse(),
                position: Vec3::ZERO,
                rotation: Quat::IDENTITY,
                velocity: Vec3::ZERO,
                angular_velocity: w,
                intermediate: false,
                color: None,
            }],
            joints: vec![],
            loads: vec![],
            actuators: vec![],
            controls: vec![],
            sites: vec![],
            sensors: vec![],
        }
    }

    #[test]
    fn free_rotation_conserves_angular_momentum_and_energy() {
        let model = one_box(Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.1, 2.0, 0.05));
        let mut s = crate::state::State::from_model(&model);
        let l = |s: &BodyState| {
            let r = Mat3::from_quat(s.q);
            r * (model.bodies[0].inertia * (r.transpose() * s.w))
        };
        let l0 = l(&s.bodies[0]);
        let e0 = s.kinetic_energy(&model);
        for _ in 0..1000 {
            integrate_pose(&model, 0, &mut s.bodies[0], 0.01);
        }
        let l1 = l(&s.bodies[0]);
        assert!((l1 - l0).length() / l0.length() < 1e-12);
        assert!(((s.kinetic_energy(&model) - e0) / e0).abs() < 1e-2);
    }
}
