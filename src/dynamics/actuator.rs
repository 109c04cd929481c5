//! Actuators: control inputs turned into forces on the bodies, as MJCF defines them.
//!
//! An actuator has a transmission (a joint, a fixed tendon over joints, or a site), a gear, optional activation
//! dynamics and an affine gain/bias law: with l and v the actuator's length and velocity (the transmission's
//! coordinate and rate times the gear) and u the input (the activation when the actuator has dynamics, else the
//! control clamped to its range), the scalar force is `gain·[1, l, v]·u + bias·[1, l, v]`, clamped to the force
//! range. A joint receives gear·force, a tendon's joint coef·gear·force, a site the wrench gear·force in its
//! frame. The forces are explicit (evaluated at the start of the step and held over it) and reach every method
//! as external wrenches. A servo (a scene's joint motor, or an MJCF `position` actuator that can be one) is
//! instead realised by its joint's motor, which each method applies as it applies motors (implicitly where it
//! can); its control is the motor's target.

use crate::dynamics::integrate::Applied;
use crate::dynamics::joint::{JointPose, MotorTarget, Row};
use crate::math::{Quat, Vec3};
use crate::model::{JointType, Model};
use crate::state::State;

/// Where an actuator's force goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Transmission {
    /// A hinge or prismatic joint (model index).
    Joint(usize),
    /// A fixed tendon: joints (model index) and coefficients; its length is Σ coef·q.
    Tendon(Vec<(usize, f64)>),
    /// A site (model index): the force acts as the wrench gear·force, in the site's frame, at the site.
    Site(usize),
}

/// Activation dynamics (MJCF `dyntype`): how the activation follows the control.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dynamics {
    None,
    /// ȧ = u
    Integrator,
    /// ȧ = (u − a)/τ, explicit Euler
    Filter(f64),
    /// The same filter integrated exactly over the step.
    FilterExact(f64),
}

/// A servo realised by joint `joint`'s motor: the motor's target is `scale`·ctrl (a scene motor: scale 1; an
/// MJCF `position` actuator of gear g: 1/g), or its target rate for a velocity servo (an MJCF `velocity`
/// actuator: a motor of stiffness 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Servo {
    pub joint: usize,
    pub scale: f64,
    /// The reported force is the whole motor's (a scene motor), not the gain/bias law's.
    pub whole_motor: bool,
    /// The control sets the target rate, not the target position.
    pub velocity: bool,
}

impl Servo {
    /// The motor target for control `u` (already clamped to the control range).
    pub fn target(&self, model: &Model, u: f64) -> MotorTarget {
        if self.velocity {
            MotorTarget { value: 0.0, rate: u * self.scale, external: true }
        } else {
            MotorTarget { value: servo_value(model, self.joint, u * self.scale), rate: 0.0, external: true }
        }
    }

    /// The control that motor target `t` stands for.
    pub fn ctrl(&self, t: &MotorTarget) -> f64 {
        if self.velocity {
            t.rate / self.scale
        } else {
            t.value / self.scale
        }
    }
}

/// One actuator (see the module comment).
#[derive(Debug, Clone, PartialEq)]
pub struct Actuator {
    pub name: String,
    pub transmission: Transmission,
    /// Joint and tendon transmissions use `gear[0]`; a site all six (force, then torque, in the site's frame).
    pub gear: [f64; 6],
    pub dynamics: Dynamics,
    /// gain·[1, l, v] (MJCF gaintype fixed: [kp, 0, 0]; affine: gainprm[0..3]).
    pub gain: [f64; 3],
    /// bias·[1, l, v] (MJCF biastype none: zeros; affine: biasprm[0..3]).
    pub bias: [f64; 3],
    pub ctrl_range: Option<[f64; 2]>,
    pub force_range: Option<[f64; 2]>,
    pub act_range: Option<[f64; 2]>,
    pub servo: Option<Servo>,
}

impl Actuator {
    /// A torque (or force) input on joint `joint` of gear `gear`: gain 1, no bias, no dynamics.
    pub fn motor(name: String, joint: usize, gear: f64) -> Self {
        Actuator {
            name,
            transmission: Transmission::Joint(joint),
            gear: [gear, 0.0, 0.0, 0.0, 0.0, 0.0],
            dynamics: Dynamics::None,
            gain: [1.0, 0.0, 0.0],
            bias: [0.0; 3],
            ctrl_range: None,
            force_range: None,
            act_range: None,
            servo: None,
        }
    }

    /// Whether the actuator has an activation state.
    pub fn has_activation(&self) -> bool {
        self.dynamics != Dynamics::None
    }
}

/// A control schedule of a scene (`[[control]]`, `cairn run --ctrl`): the actuator's control as a function of
/// time, applied before each step unless the control was set from the library.
#[derive(Debug, Clone, PartialEq)]
pub struct Control {
    pub actuator: usize,
    pub schedule: Schedule,
}

/// A control as a function of time.
#[derive(Debug, Clone, PartialEq)]
pub enum Schedule {
    Constant(f64),
    /// Linear between (time, value) points in strictly increasing time, held outside.
    Path(Vec<[f64; 2]>),
    /// offset + amplitude·sin(2π·frequency·t + phase)
    Sine {
        amplitude: f64,
        frequency: f64,
        phase: f64,
        offset: f64,
    },
}

impl Schedule {
    /// The control at time `t`.
    pub fn at(&self, t: f64) -> f64 {
        match self {
            Schedule::Constant(c) => *c,
            Schedule::Path(p) => match (p.first(), p.last()) {
                (Some(a), _) if t <= a[0] => a[1],
                (_, Some(b)) if t >= b[0] => b[1],
                (None, _) | (_, None) => 0.0,
                _ => {
                    let k = p.windows(2).position(|w| t < w[1][0]).unwrap_or(p.len() - 2);
                    let (a, b) = (p[k], p[k + 1]);
                    a[1] + (b[1] - a[1]) * (t - a[0]) / (b[0] - a[0])
                }
            },
            Schedule::Sine { amplitude, frequency, phase, offset } => {
                offset + amplitude * (2.0 * std::f64::consts::PI * frequency * t + phase).sin()
            }
        }
    }
}

/// The controls and activations of a state: one entry per actuator.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Inputs {
    /// The control of each actuator (for a servo: its motor's target, or target rate for a velocity servo, over
    /// `scale`).
    pub ctrl: Vec<f64>,
    /// The activation of each actuator (0 and unused for one without dynamics).
    pub act: Vec<f64>,
    /// The control was set from the library: the scene's schedule no longer moves it.
    pub external: Vec<bool>,
}

impl Inputs {
    /// Controls 0 (a servo: its motor's initial target), activations 0.
    pub fn initial(model: &Model, motor_targets: &[Option<MotorTarget>]) -> Self {
        let n = model.actuators.len();
        let mut ctrl = vec![0.0; n];
        for (k, a) in model.actuators.iter().enumerate() {
            if let Some(s) = a.servo {
                if let Some(Some(t)) = motor_targets.get(s.joint) {
                    ctrl[k] = s.ctrl(t);
                }
            }
        }
        Inputs { ctrl, act: vec![0.0; n], external: vec![false; n] }
    }
}

/// A joint's coordinate row (hinge angle or prismatic displacement) at the state, and its rate.
pub(crate) fn joint_row(model: &Model, state: &State, j: usize) -> Option<(Row, f64)> {
    let joint = &model.joints[j];
    let pose = JointPose::of(model, joint, &state.bodies);
    let row = pose.coordinate_row(joint.kind)?;
    let vel = |b: Option<usize>| b.map_or((Vec3::ZERO, Vec3::ZERO), |b| (state.bodies[b].v, state.bodies[b].w));
    let ((v1, w1), (v2, w2)) = (vel(Some(joint.body1)), vel(joint.body2));
    let rate = row.rate([v1, v2], [w1, w2]);
    Some((row, rate))
}

/// A site's world pose (position, rotation) at the state.
pub fn site_pose(model: &Model, state: &State, site: usize) -> (Vec3, Quat) {
    site_pose_in(model, &state.bodies, site)
}

/// A site's world pose with the bodies at `bodies`.
pub fn site_pose_in(model: &Model, bodies: &[crate::state::BodyState], site: usize) -> (Vec3, Quat) {
    let s = &model.sites[site];
    let b = &bodies[s.body];
    let origin = b.x - b.q * model.bodies[s.body].com;
    (origin + b.q * s.position, b.q * s.rotation)
}

/// The world velocity of a point `p` moving with body `i`.
pub fn point_velocity(state: &State, i: usize, p: Vec3) -> Vec3 {
    point_velocity_in(&state.bodies, i, p)
}

/// The world velocity of a point `p` moving with body `i` at `bodies`.
pub fn point_velocity_in(bodies: &[crate::state::BodyState], i: usize, p: Vec3) -> Vec3 {
    let b = &bodies[i];
    b.v + b.w.cross(p - b.x)
}

/// Actuator `k`'s length and velocity at the state (the transmission's coordinate and rate, times the gear;
/// a site's length is 0 and its velocity gear·(the site's velocity in its frame)).
pub fn length_velocity(model: &Model, state: &State, k: usize) -> (f64, f64) {
    let a = &model.actuators[k];
    let g = a.gear[0];
    match &a.transmission {
        Transmission::Joint(j) => joint_row(model, state, *j).map_or((0.0, 0.0), |(row, rate)| (g * row.c, g * rate)),
        Transmission::Tendon(parts) => {
            let (mut l, mut v) = (0.0, 0.0);
            for &(j, coef) in parts {
                if let Some((row, rate)) = joint_row(model, state, j) {
                    l += coef * row.c;
                    v += coef * rate;
                }
            }
            (g * l, g * v)
        }
        Transmission::Site(site) => {
            let (p, r) = site_pose(model, state, *site);
            let body = model.sites[*site].body;
            let inv = r.inverse();
            let lin = inv * point_velocity(state, body, p);
            let ang = inv * state.bodies[body].w;
            let v = a.gear[0] * lin.x + a.gear[1] * lin.y + a.gear[2] * lin.z + a.gear[3] * ang.x + a.gear[4] * ang.y + a.gear[5] * ang.z;
            (0.0, v)
        }
    }
}

/// Actuator `k`'s input: its activation when it has dynamics, else its control clamped to its range.
fn input(model: &Model, inputs: &Inputs, k: usize) -> f64 {
    let a = &model.actuators[k];
    if a.has_activation() {
        return inputs.act[k];
    }
    let u = inputs.ctrl[k];
    a.ctrl_range.map_or(u, |[lo, hi]| u.clamp(lo, hi))
}

/// Actuator `k`'s scalar force at the state (for a servo: its law, or its whole motor's force for a scene
/// motor), clamped to its force range.
pub fn force(model: &Model, state: &State, k: usize) -> f64 {
    let a = &model.actuators[k];
    if let (Some(s), Transmission::Joint(j)) = (a.servo, &a.transmission) {
        if s.whole_motor {
            let joint = &model.joints[*j];
            let (Some(m), Some(Some(t)), Some((row, rate))) = (&joint.motor, state.motor_targets.get(*j), joint_row(model, state, *j))
            else {
                return 0.0;
            };
            return crate::dynamics::joint::motor_force(joint.kind, m, t, row.c, rate);
        }
    }
    let (l, v) = length_velocity(model, state, k);
    let u = input(model, &state.inputs, k);
    let f = (a.gain[0] + a.gain[1] * l + a.gain[2] * v) * u + a.bias[0] + a.bias[1] * l + a.bias[2] * v;
    a.force_range.map_or(f, |[lo, hi]| f.clamp(lo, hi))
}

/// Every actuator's force at the state.
pub fn forces(model: &Model, state: &State) -> Vec<f64> {
    (0..model.actuators.len()).map(|k| force(model, state, k)).collect()
}

/// The wrench of generalised force `tau` on joint `j`, on its bodies (Jᵀτ of the coordinate row).
fn push_joint(model: &Model, state: &State, j: usize, tau: f64, out: &mut Vec<Applied>) {
    let joint = &model.joints[j];
    let Some((row, _)) = joint_row(model, state, j) else { return };
    for (side, body) in [Some(joint.body1), joint.body2].into_iter().enumerate() {
        if let Some(b) = body.filter(|&b| model.bodies[b].kind == crate::model::BodyKind::Dynamic) {
            out.push(Applied { body: b, force: row.lin[side] * tau, torque: row.ang[side] * tau });
        }
    }
}

/// The wrenches of the actuators that are not servos, for forces `f` (one per actuator), added to `out` (world
/// frame, about each body's centre of mass). A joint's generalised force Q acts as Jᵀ·Q on its two bodies; the
/// joints of a chain through intermediate links (an MJCF body with several joints) act together on the chain's
/// two end bodies, as through MuJoCo's massless frames (`chain_wrench`).
/// `extra`: generalised forces on the joints' coordinates from elsewhere (couplings; empty for none), applied
/// the same way.
pub fn wrenches(model: &Model, state: &State, f: &[f64], extra: &[f64], carried: &[bool], out: &mut Vec<Applied>) {
    let mut q = vec![0.0; model.joints.len()];
    let mut any = extra.iter().any(|&x| x != 0.0);
    for (qj, &x) in q.iter_mut().zip(extra) {
        *qj += x;
    }
    for (k, a) in model.actuators.iter().enumerate() {
        if a.servo.is_some() || f[k] == 0.0 {
            continue;
        }
        match &a.transmission {
            Transmission::Joint(_) | Transmission::Tendon(_) => add_joint_forces(a, f[k], &mut q),
            Transmission::Site(site) => {
                let body = model.sites[*site].body;
                if model.bodies[body].kind != crate::model::BodyKind::Dynamic {
                    continue;
                }
                let (p, r) = site_pose(model, state, *site);
                let g = &a.gear;
                let force = r * Vec3::new(g[0], g[1], g[2]) * f[k];
                let torque = r * Vec3::new(g[3], g[4], g[5]) * f[k];
                let arm = p - state.bodies[body].x;
                out.push(Applied { body, force, torque: torque + arm.cross(force) });
            }
        }
        any = true;
    }
    if !any {
        return;
    }
    let inter = |b: Option<usize>| b.is_some_and(|b| model.bodies[b].intermediate);
    for (j, joint) in model.joints.iter().enumerate() {
        if inter(Some(joint.body1)) || inter(joint.body2) {
            // a chain: handled once, from its last joint (the one whose child is not intermediate)
            if !inter(joint.body2) && joint.body2.is_some() {
                chain_wrench(model, state, j, &q, out);
            }
        } else if q[j] != 0.0 && !carried.get(j).copied().unwrap_or(false) {
            push_joint(model, state, j, q[j], out);
        }
    }
}

/// Adds actuator `a`'s generalised force for force `f` to its joints' entries of `q` (joint and tendon
/// transmissions).
fn add_joint_forces(a: &Actuator, f: f64, q: &mut [f64]) {
    match &a.transmission {
        Transmission::Joint(j) => q[*j] += a.gear[0] * f,
        Transmission::Tendon(parts) => parts.iter().for_each(|&(j, coef)| q[j] += coef * a.gear[0] * f),
        Transmission::Site(_) => {}
    }
}

/// The generalised force the actuators' forces `f` put on each joint's coordinate (joint and tendon
/// transmissions; servos, which act as their joints' motors, left out).
pub fn joint_forces(model: &Model, f: &[f64]) -> Vec<f64> {
    let mut q = vec![0.0; model.joints.len()];
    for (k, a) in model.actuators.iter().enumerate() {
        if a.servo.is_none() && f[k] != 0.0 {
            add_joint_forces(a, f[k], &mut q);
        }
    }
    q
}

/// Whether joint `j` is a link of an MJCF multi-joint chain (either side an intermediate link), whose actuators'
/// forces go through the chain's end bodies.
pub fn in_chain(model: &Model, j: usize) -> bool {
    let joint = &model.joints[j];
    model.bodies[joint.body1].intermediate || joint.body2.is_some_and(|b| model.bodies[b].intermediate)
}

/// The joint whose child (body 2) is `body`.
fn joint_into(model: &Model, body: usize) -> Option<usize> {
    model.joints.iter().position(|j| j.body2 == Some(body))
}

/// The generalised forces `q` of a chain P → I₁ → … → C (intermediate links I, the chain's last joint `last`)
/// as one wrench W on C and −W on P: with each joint's twist sᵢ of C per unit rate (all links beyond it moving
/// with it), W = Σ λᵢ sᵢ with Σᵢ λᵢ (sᵢ·sⱼ) = q_j, so W does the work q_j·q̇_j on every joint's motion, as
/// generalised forces do on a chain of massless frames. Parallel axes (a singular system) fall back to each
/// joint's own Jᵀ·q.
fn chain_wrench(model: &Model, state: &State, last: usize, q: &[f64], out: &mut Vec<Applied>) {
    let child = model.joints[last].body2.expect("a chain's last joint has a child");
    let mut chain = vec![last];
    let mut top = model.joints[last].body1;
    while model.bodies[top].intermediate {
        match joint_into(model, top) {
            Some(j) if !chain.contains(&j) => {
                chain.push(j);
                top = model.joints[j].body1;
            }
            _ => break,
        }
    }
    if chain.iter().all(|&j| q[j] == 0.0) {
        return;
    }
    let parent = (!model.bodies[top].intermediate).then_some(top);
    let xc = state.bodies[child].x;
    // each joint's twist of the child per unit rate: (linear velocity of the child's centre, angular velocity)
    let twist = |j: usize| -> Option<[Vec3; 2]> {
        let joint = &model.joints[j];
        let b2 = &state.bodies[joint.body2?];
        let axis = b2.q * joint.frames[1].axis;
        let origin = b2.x - b2.q * model.bodies[joint.body2?].com;
        let anchor = origin + b2.q * joint.frames[1].anchor;
        match joint.kind {
            JointType::Hinge => Some([axis.cross(xc - anchor), axis]),
            JointType::Prismatic => Some([axis, Vec3::ZERO]),
            _ => None,
        }
    };
    let twists: Option<Vec<[Vec3; 2]>> = chain.iter().map(|&j| twist(j)).collect();
    let n = chain.len();
    let solved = twists.and_then(|s| {
        let mut g = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..n {
                g[a * n + b] = s[a][0].dot(s[b][0]) + s[a][1].dot(s[b][1]);
            }
        }
        let rhs: Vec<f64> = chain.iter().map(|&j| q[j]).collect();
        let lambda = solve_gram(&g, &rhs, n)?;
        let mut w = [Vec3::ZERO; 2];
        for (l, t) in lambda.iter().zip(&s) {
            w[0] += *l * t[0];
            w[1] += *l * t[1];
        }
        Some(w)
    });
    match solved {
        Some([force, torque]) => {
            if model.bodies[child].kind == crate::model::BodyKind::Dynamic {
                out.push(Applied { body: child, force, torque });
            }
            if let Some(p) = parent.filter(|&p| model.bodies[p].kind == crate::model::BodyKind::Dynamic) {
                let arm = xc - state.bodies[p].x;
                out.push(Applied { body: p, force: -force, torque: -torque - arm.cross(force) });
            }
        }
        None => chain.iter().for_each(|&j| push_joint(model, state, j, q[j], out)),
    }
}

/// Solves the symmetric positive definite system G·λ = r (n×n, row-major); None when G is singular to
/// within 1e-9 of its largest diagonal (parallel joint axes).
fn solve_gram(g: &[f64], r: &[f64], n: usize) -> Option<Vec<f64>> {
    let m = nalgebra::DMatrix::from_row_slice(n, n, g);
    let scale = (0..n).map(|i| g[i * n + i]).fold(0.0, f64::max);
    let chol = m.cholesky()?;
    let l = chol.l();
    if (0..n).any(|i| l[(i, i)] * l[(i, i)] <= 1e-9 * scale) {
        return None;
    }
    Some(chol.solve(&nalgebra::DVector::from_row_slice(r)).iter().copied().collect())
}

/// The generalised force the actuators exert on joint `j`, for forces `f`: Σ gear·force over the actuators on
/// it (a tendon's: coef·gear·force; a servo on it: its force).
pub fn joint_force(model: &Model, f: &[f64], j: usize) -> f64 {
    let mut tau = 0.0;
    for (k, a) in model.actuators.iter().enumerate() {
        match &a.transmission {
            Transmission::Joint(jj) if *jj == j => {
                tau += if a.servo.is_some_and(|s| s.whole_motor) { f[k] } else { a.gear[0] * f[k] };
            }
            Transmission::Tendon(parts) => tau += parts.iter().filter(|p| p.0 == j).map(|p| p.1 * a.gear[0] * f[k]).sum::<f64>(),
            _ => {}
        }
    }
    tau
}

/// Moves each scheduled control that was not set from the library to its schedule's value at `state.time`,
/// and each servo's motor target to its control.
pub fn follow_controls(model: &Model, state: &mut State) {
    if state.inputs.ctrl.len() != model.actuators.len() {
        state.inputs = Inputs::initial(model, &state.motor_targets);
    }
    for c in &model.controls {
        if !state.inputs.external[c.actuator] {
            state.inputs.ctrl[c.actuator] = c.schedule.at(state.time);
            let a = &model.actuators[c.actuator];
            if let Some(s) = a.servo {
                let u = state.inputs.ctrl[c.actuator];
                state.motor_targets[s.joint] = Some(s.target(model, a.ctrl_range.map_or(u, |[lo, hi]| u.clamp(lo, hi))));
            }
        }
    }
}

/// A servo target wrapped into a hinge's (−π, π].
pub fn servo_value(model: &Model, joint: usize, value: f64) -> f64 {
    if model.joints[joint].kind == JointType::Hinge {
        crate::dynamics::joint::wrap_angle(value)
    } else {
        value
    }
}

/// Advances the activations over `dt` from the controls (after the forces of the step were taken).
pub fn advance_activations(model: &Model, inputs: &mut Inputs, dt: f64) {
    for (k, a) in model.actuators.iter().enumerate() {
        let u = a.ctrl_range.map_or(inputs.ctrl[k], |[lo, hi]| inputs.ctrl[k].clamp(lo, hi));
        let x = inputs.act[k];
        let next = match a.dynamics {
            Dynamics::None => continue,
            Dynamics::Integrator => x + dt * u,
            Dynamics::Filter(tau) => x + dt * (u - x) / tau.max(dt),
            Dynamics::FilterExact(tau) => x + (u - x) * (1.0 - (-dt / tau).exp()),
        };
        inputs.act[k] = a.act_range.map_or(next, |[lo, hi]| next.clamp(lo, hi));
    }
}

/// The inertia a joint's coordinate carries at the model's initial pose: Σ over the bodies it moves (the
/// child's side of the tree) of the inertia about the axis (hinge) or the mass (prismatic). What MJCF's
/// `dampratio` is computed from.
pub fn joint_inertia(model: &Model, j: usize) -> f64 {
    let joint = &model.joints[j];
    let moved = crate::dynamics::tree::subtree(model, joint.body2.unwrap_or(joint.body1));
    let mut m = 0.0;
    for b in moved {
        let body = &model.bodies[b];
        if body.kind != crate::model::BodyKind::Dynamic {
            continue;
        }
        match joint.kind {
            JointType::Prismatic => m += body.mass,
            _ => {
                let x = body.position + body.rotation * body.com;
                let r = x - joint.anchor;
                let perp = r - joint.axis * r.dot(joint.axis);
                let a = body.rotation.inverse() * joint.axis;
                m += a.dot(body.inertia * a) + body.mass * perp.length_squared();
            }
        }
    }
    m
}

#[cfg(test)]
#[path = "actuator_tests.rs"]
mod tests;
