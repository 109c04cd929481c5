//! A fluid medium around the bodies (`[world] fluid_density`, `fluid_viscosity`, `wind`; MJCF `<option density
//! viscosity wind>`), by MuJoCo's inertia model: each dynamic body is its equivalent inertia box (full sides
//! d_i = √(6 (I_j + I_k − I_i)/m) along its principal axes) and, in that frame, with v the velocity relative to
//! the wind and ω the angular velocity, receives
//!   viscous (Stokes): f = −3 π β d̄ v, τ = −π β d̄³ ω, d̄ the mean side;
//!   quadratic drag: f_i = −½ ρ d_j d_k |v_i| v_i, τ_i = −(ρ/64) d_i (d_j⁴ + d_k⁴) |ω_i| ω_i.
//! The wrench is taken at the start of each step and held over it (as the actuators' forces), so every method
//! runs it; per principal axis it is capped at what stops the body relative to the wind within the step
//! (m|v_i|/h, I_i|ω_i|/h), where an explicit drag on a light body would otherwise reverse and grow. See docs/robots.md (`<option>` density, viscosity, wind).

use crate::dynamics::integrate::Applied;
use crate::math::{Mat3, Vec3};
use crate::model::{BodyKind, Model};
use crate::state::State;

/// The medium: density ρ (kg/m³), dynamic viscosity β (Pa·s) and the wind (m/s, world frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fluid {
    pub density: f64,
    pub viscosity: f64,
    pub wind: Vec3,
}

/// Each dynamic body's principal axes (columns, in its frame) and equivalent box sides, found once.
#[derive(Debug, Clone)]
pub struct Drag {
    fluid: Fluid,
    /// Per body: principal axes, equivalent box sides, principal moments and mass.
    boxes: Vec<Option<(Mat3, [f64; 3], [f64; 3], f64)>>,
    dt: f64,
}

impl Drag {
    /// The drag of `model`'s medium; `None` without one.
    pub fn new(model: &Model) -> Option<Self> {
        let fluid = model.fluid?;
        let boxes = model
            .bodies
            .iter()
            .map(|b| {
                if b.kind != BodyKind::Dynamic || !(b.mass > 0.0) {
                    return None;
                }
                let i = b.inertia;
                let a = [[i.x_axis.x, i.y_axis.x, i.z_axis.x], [i.x_axis.y, i.y_axis.y, i.z_axis.y], [i.x_axis.z, i.y_axis.z, i.z_axis.z]];
                let (mut lam, mut v) = ([0.0; 3], [[0.0; 3]; 3]);
                crate::math::eigen::jacobi_eigen(&a, 3, &mut lam, &mut v);
                let axes = Mat3::from_cols(
                    Vec3::new(v[0][0], v[1][0], v[2][0]),
                    Vec3::new(v[0][1], v[1][1], v[2][1]),
                    Vec3::new(v[0][2], v[1][2], v[2][2]),
                );
                let side = |k: usize| (6.0 * (lam[(k + 1) % 3] + lam[(k + 2) % 3] - lam[k]) / b.mass).max(0.0).sqrt();
                Some((axes, [side(0), side(1), side(2)], lam, b.mass))
            })
            .collect();
        Some(Drag { fluid, boxes, dt: model.dt })
    }

    /// The medium's force and torque on each moving body at the state now, world frame, into `out`.
    pub fn wrenches(&self, state: &State, out: &mut Vec<Applied>) {
        let Fluid { density: rho, viscosity: beta, wind } = self.fluid;
        for (i, b) in self.boxes.iter().enumerate() {
            let Some((axes, d, moments, mass)) = b else { continue };
            let s = &state.bodies[i];
            if state.sleep.asleep(i) {
                continue;
            }
            // the principal frame in the world
            let r = Mat3::from_quat(s.q) * *axes;
            let (v, w) = (r.transpose() * (s.v - wind), r.transpose() * s.w);
            let mean = (d[0] + d[1] + d[2]) / 3.0;
            let mut f = -3.0 * std::f64::consts::PI * beta * mean * v;
            let mut t = -std::f64::consts::PI * beta * mean.powi(3) * w;
            for k in 0..3 {
                let (j, l) = ((k + 1) % 3, (k + 2) % 3);
                f[k] -= 0.5 * rho * d[j] * d[l] * v[k].abs() * v[k];
                t[k] -= rho / 64.0 * d[k] * (d[j].powi(4) + d[l].powi(4)) * w[k].abs() * w[k];
                let (fmax, tmax) = (mass * v[k].abs() / self.dt, moments[k] * w[k].abs() / self.dt);
                f[k] = f[k].clamp(-fmax, fmax);
                t[k] = t[k].clamp(-tmax, tmax);
            }
            let (force, torque) = (r * f, r * t);
            if force != Vec3::ZERO || torque != Vec3::ZERO {
                out.push(Applied { body: i, force, torque });
            }
        }
    }
}
