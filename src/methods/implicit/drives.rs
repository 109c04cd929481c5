//! PD motors and haptic proxies in the `implicit-penalty` step: forces given as a wrench and its gradients
//! (`gradients::Jacobian`), so that they enter each island's system beside the contacts (step.rs `add_pair`) and
//! are integrated implicitly, stable for any gains (Xu, Zhao, Barbič 2014, §5, eq. 65). The terms of the row
//! direction's own change with the pose are left out (they vanish at rest at the target).
//! See docs/methods/implicit-penalty.md, "PD motors and proxies".

use super::gradients::{outer, skew, Jacobian};
use super::step::Kin;
use crate::dynamics::joint::{wrap_angle, JointPose, MotorTarget, Row};
use crate::dynamics::proxy::{coupling, Proxy, Target};
use crate::math::{quat_exp, Mat3, Vec3};
use crate::model::{Joint, JointType, Model};
use crate::state::BodyState;

/// A force law on one or two bodies: body `a` (the Jacobian's A), body `b` (its B; `None`: the world).
#[derive(Debug, Clone, Copy)]
pub struct Drive {
    pub a: usize,
    pub b: Option<usize>,
    pub jac: Jacobian,
}

/// The coordinate row's Jacobian as the four blocks (lin₁, ang₁, lin₂, ang₂).
fn blocks(row: &Row) -> [Vec3; 4] {
    [row.lin[0], row.ang[0], row.lin[1], row.ang[1]]
}

/// The generalised motor force at coordinate `q`, rate `qd`, target `t` (already at the end of the step):
/// (f, saturated).
pub fn motor_law(kind: JointType, joint: &Joint, t: &MotorTarget, q: f64, qd: f64) -> Option<(f64, bool)> {
    let m = joint.motor.as_ref()?;
    let mut e = t.value - q;
    if kind == JointType::Hinge {
        e = wrap_angle(e);
    }
    let f = m.stiffness * e + m.damping * (t.rate - qd);
    Some(match m.max_force {
        Some(max) if f.abs() >= max => (f.clamp(-max, max), true),
        _ => (f, false),
    })
}

/// The motor target of joint `k` at the end of a step of `h`.
pub fn end_target(targets: &[Option<MotorTarget>], k: usize, h: f64) -> Option<MotorTarget> {
    let t = targets.get(k).copied().flatten()?;
    Some(MotorTarget { value: t.value + h * t.rate, ..t })
}

/// The PD motor (at `target`, when the joint has a motor and a target) and the rotor inertia
/// (`Joint::rotor_inertia`: a damper of armature/h towards `rate0`, the coordinate's rate at the step's start;
/// `None`: the current rate, as the step calls it) of joint `joint` as a drive on its bodies at the current
/// poses; `None` with neither, or without a coordinate (ball and fixed joints have none).
pub fn joint_drive(
    model: &Model,
    joint: &Joint,
    target: Option<&MotorTarget>,
    bodies: &[BodyState],
    h: f64,
    rate0: Option<f64>,
) -> Option<Drive> {
    let motor = joint.motor.as_ref().zip(target);
    let rotor = joint.rotor_inertia() / h;
    if motor.is_none() && rotor == 0.0 {
        return None;
    }
    let row = JointPose::of(model, joint, bodies).coordinate_row(joint.kind)?;
    let vel = |b: Option<usize>| b.map_or((Vec3::ZERO, Vec3::ZERO), |b| (bodies[b].v, bodies[b].w));
    let ((v1, w1), (v2, w2)) = (vel(Some(joint.body1)), vel(joint.body2));
    let qd = row.rate([v1, v2], [w1, w2]);
    let (f, stiffness, damping) = match motor {
        Some((m, t)) => match motor_law(joint.kind, joint, t, row.c, qd)? {
            (f, true) => (f, 0.0, 0.0),
            (f, false) => (f, m.stiffness, m.damping),
        },
        None => (0.0, 0.0, 0.0),
    };
    let f = f + rotor * (rate0.unwrap_or(qd) - qd);
    let g = blocks(&row);
    let mut jac = Jacobian::default();
    for r in 0..4 {
        jac.wrench[r] = g[r] * f;
        for c in 0..4 {
            jac.pos[r][c] = outer(g[r], g[c]) * -stiffness;
            jac.vel[r][c] = outer(g[r], g[c]) * -(damping + rotor);
        }
    }
    Some(Drive { a: joint.body1, b: joint.body2, jac })
}

/// J_r⁻¹(θ) of SO(3): I + ½[θ]× + (1/|θ|² − (1 + cos|θ|)/(2|θ| sin|θ|))[θ]×².
pub fn inv_right_jacobian(theta: Vec3) -> Mat3 {
    let a = theta.length();
    let s = skew(theta);
    let c = if a < 1e-4 { 1.0 / 12.0 + a * a / 720.0 } else { 1.0 / (a * a) - (1.0 + a.cos()) / (2.0 * a * a.sin()) };
    Mat3::IDENTITY + s * 0.5 + s * s * c
}

/// The rotation vector of `R_t Rᵀ` (shortest way), as `coupling` uses it.
fn rotation_error(target: &Target, s: &BodyState) -> Vec3 {
    let mut err = target.rotation * s.q.conjugate();
    if err.w < 0.0 {
        err = -err;
    }
    let (axis, angle) = err.to_axis_angle();
    if angle.is_finite() && angle > 0.0 {
        axis * angle
    } else {
        Vec3::ZERO
    }
}

/// The target advanced by `h` along its velocities.
pub fn advanced(t: &Target, h: f64) -> Target {
    Target { position: t.position + t.velocity * h, rotation: (quat_exp(t.angular_velocity * h) * t.rotation).normalize(), ..*t }
}

/// A proxy's coupling as a drive on its body (B is the world), the target at the end of the step.
pub fn proxy_drive(model: &Model, p: &Proxy, target: &Target, s: &BodyState, h: f64) -> Drive {
    let t = advanced(target, h);
    let (f, tau) = coupling(model, p, &t, s);
    let mut jac = Jacobian::default();
    jac.wrench[0] = f;
    jac.wrench[1] = tau;
    jac.pos[0][0] = Mat3::IDENTITY * -p.stiffness;
    jac.vel[0][0] = Mat3::IDENTITY * -p.damping;
    jac.pos[1][1] = inv_right_jacobian(rotation_error(&t, s)) * -p.angular_stiffness;
    jac.vel[1][1] = Mat3::IDENTITY * -p.angular_damping;
    Drive { a: p.body, b: None, jac }
}

/// The wrench on side `i` (0: A, 1: B) as the step's linearisation applies it, for the solved (ΔP, ΔL) of the
/// dynamic sides (`None` for a static side; a kinematic side counts as static here). Mirrors step.rs `add_pair`:
/// Δx = h v + h ΔP/m, Δθ = h V(ω + I_w⁻¹ΔL), Δv = ΔP/m, Δω = Ξ Δθ + I_w⁻¹ΔL.
pub fn applied(jac: &Jacobian, sides: [Option<(&Kin, Vec3, Vec3)>; 2], h: f64, i: usize) -> (Vec3, Vec3) {
    let mut out = [jac.wrench[2 * i], jac.wrench[2 * i + 1]];
    for (j, side) in sides.iter().enumerate() {
        let Some((k, dp, dl)) = side else { continue };
        let dx = (k.v + *dp / k.m) * h;
        let dth = k.vm * (k.w + k.inv_iw * *dl) * h;
        let (dv, dw) = (*dp / k.m, k.xi * dth + k.inv_iw * *dl);
        for (row, o) in out.iter_mut().enumerate() {
            let r = 2 * i + row;
            *o += jac.pos[r][2 * j] * dx + jac.pos[r][2 * j + 1] * dth + jac.vel[r][2 * j] * dv + jac.vel[r][2 * j + 1] * dw;
        }
    }
    (out[0], out[1])
}

#[cfg(test)]
#[path = "drives_tests.rs"]
mod tests;
