//! Sensors: what a controller reads after each step, as MJCF defines them, computed the same way for every
//! method from the states before and after the step, the step's contact forces and its actuator forces.
//!
//! Accelerations are the step's velocity change over dt. `force` and `torque` are the interaction between a
//! site's body and its parent: the wrench the parent side exerts on the body's subtree, which is what the
//! subtree's momentum change needs beyond gravity, loads, applied forces and contacts (joint reactions,
//! motors and actuators on that joint included), in the site's frame, the torque about the site.

use crate::dynamics::actuator;
use crate::dynamics::integrate::{external_wrench, Applied};
use crate::math::{Mat3, Vec3};
use crate::method::ContactPoint;
use crate::model::{BodyKind, Model};
use crate::state::{BodyState, State};

/// What a sensor measures (indices are the model's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SensorKind {
    JointPos(usize),
    JointVel(usize),
    ActuatorPos(usize),
    ActuatorVel(usize),
    ActuatorFrc(usize),
    JointActuatorFrc(usize),
    Touch(usize),
    Force(usize),
    Torque(usize),
    FramePos(usize),
    FrameQuat(usize),
    FrameLinVel(usize),
    FrameAngVel(usize),
    Accelerometer(usize),
    Gyro(usize),
    /// The centre of mass of a body's subtree.
    SubtreeCom(usize),
}

impl SensorKind {
    /// Numbers the sensor writes.
    pub fn dim(&self) -> usize {
        use SensorKind::*;
        match self {
            JointPos(_) | JointVel(_) | ActuatorPos(_) | ActuatorVel(_) | ActuatorFrc(_) | JointActuatorFrc(_) | Touch(_) => 1,
            FrameQuat(_) => 4,
            _ => 3,
        }
    }

    /// The MJCF element name of the kind.
    pub fn tag(&self) -> &'static str {
        use SensorKind::*;
        match self {
            JointPos(_) => "jointpos",
            JointVel(_) => "jointvel",
            ActuatorPos(_) => "actuatorpos",
            ActuatorVel(_) => "actuatorvel",
            ActuatorFrc(_) => "actuatorfrc",
            JointActuatorFrc(_) => "jointactuatorfrc",
            Touch(_) => "touch",
            Force(_) => "force",
            Torque(_) => "torque",
            FramePos(_) => "framepos",
            FrameQuat(_) => "framequat",
            FrameLinVel(_) => "framelinvel",
            FrameAngVel(_) => "frameangvel",
            Accelerometer(_) => "accelerometer",
            Gyro(_) => "gyro",
            SubtreeCom(_) => "subtreecom",
        }
    }

    /// Every kind's tag, for messages.
    pub const TAGS: [&'static str; 16] = [
        "jointpos",
        "jointvel",
        "actuatorpos",
        "actuatorvel",
        "actuatorfrc",
        "jointactuatorfrc",
        "touch",
        "force",
        "torque",
        "framepos",
        "framequat",
        "framelinvel",
        "frameangvel",
        "accelerometer",
        "gyro",
        "subtreecom",
    ];
}

/// One sensor.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensor {
    pub name: String,
    pub kind: SensorKind,
    /// Standard deviation of zero-mean Gaussian noise added to each number (0: none); deterministic in the
    /// step, the sensor and the component, so a run and its restored snapshot read the same.
    pub noise: f64,
    /// Each number is clamped to ±cutoff (a touch sensor to [0, cutoff]); 0: no cutoff.
    pub cutoff: f64,
}

/// What the sensors read from besides the state after the step.
pub struct StepRecord<'a> {
    /// The bodies before the step (for accelerations).
    pub before: &'a [BodyState],
    /// Forces applied from outside during the step (not the actuators').
    pub applied: &'a [Applied],
    /// The time at the start of the step.
    pub time: f64,
    pub contacts: &'a [ContactPoint],
    pub actuator_forces: &'a [f64],
}

/// Offsets of each sensor's numbers in the flat data, and the total.
pub fn layout(model: &Model) -> (Vec<usize>, usize) {
    let mut at = Vec::with_capacity(model.sensors.len());
    let mut n = 0;
    for s in &model.sensors {
        at.push(n);
        n += s.kind.dim();
    }
    (at, n)
}

/// Every sensor's numbers, flat in the model's order (MuJoCo's `sensordata`).
pub fn read(model: &Model, state: &State, rec: &StepRecord, out: &mut Vec<f64>) {
    out.clear();
    let dt = model.dt;
    let mut parent_cache: Option<Vec<Option<usize>>> = None;
    // every joint's (q, q̇), computed once when a sensor first needs one
    let mut coords: Option<Vec<(f64, f64)>> = None;
    for (si, s) in model.sensors.iter().enumerate() {
        let start = out.len();
        use SensorKind::*;
        match s.kind {
            JointPos(j) | JointVel(j) => {
                let all = coords.get_or_insert_with(|| {
                    let mut v = vec![(0.0, 0.0); model.joints.len()];
                    for (k, q, qd) in crate::dynamics::joint::coordinates(model, state) {
                        v[k] = (q, qd);
                    }
                    v
                });
                let (q, qd) = all[j];
                out.push(if matches!(s.kind, JointPos(_)) { q } else { qd });
            }
            ActuatorPos(k) => out.push(actuator::length_velocity(model, state, k).0),
            ActuatorVel(k) => out.push(actuator::length_velocity(model, state, k).1),
            ActuatorFrc(k) => out.push(rec.actuator_forces.get(k).copied().unwrap_or(0.0)),
            JointActuatorFrc(j) => out.push(actuator::joint_force(model, rec.actuator_forces, j)),
            Touch(site) => out.push(touch(model, state, rec, site)),
            Force(site) | Torque(site) => {
                let parents = parent_cache.get_or_insert_with(|| crate::dynamics::tree::parents(model));
                let (f, t) = interaction(model, state, rec, site, parents);
                let (_, r) = actuator::site_pose(model, state, site);
                let v = r.inverse() * if matches!(s.kind, Force(_)) { f } else { t };
                out.extend([v.x, v.y, v.z]);
            }
            FramePos(site) => {
                let (p, _) = actuator::site_pose(model, state, site);
                out.extend([p.x, p.y, p.z]);
            }
            FrameQuat(site) => {
                let (_, r) = actuator::site_pose(model, state, site);
                out.extend([r.w, r.x, r.y, r.z]);
            }
            FrameLinVel(site) => {
                let (p, _) = actuator::site_pose(model, state, site);
                let v = actuator::point_velocity(state, model.sites[site].body, p);
                out.extend([v.x, v.y, v.z]);
            }
            FrameAngVel(site) => {
                let w = state.bodies[model.sites[site].body].w;
                out.extend([w.x, w.y, w.z]);
            }
            Accelerometer(site) => {
                let body = model.sites[site].body;
                let (p1, r) = actuator::site_pose(model, state, site);
                let (p0, _) = actuator::site_pose_in(model, rec.before, site);
                let v1 = actuator::point_velocity(state, body, p1);
                let v0 = actuator::point_velocity_in(rec.before, body, p0);
                let a = r.inverse() * ((v1 - v0) / dt - model.gravity);
                out.extend([a.x, a.y, a.z]);
            }
            Gyro(site) => {
                let (_, r) = actuator::site_pose(model, state, site);
                let w = r.inverse() * state.bodies[model.sites[site].body].w;
                out.extend([w.x, w.y, w.z]);
            }
            SubtreeCom(body) => {
                let parents = parent_cache.get_or_insert_with(|| crate::dynamics::tree::parents(model));
                let (mut m, mut mx) = (0.0, Vec3::ZERO);
                for b in (0..model.bodies.len()).filter(|&b| crate::dynamics::tree::is_below(parents, b, body)) {
                    m += model.bodies[b].mass;
                    mx += model.bodies[b].mass * state.bodies[b].x;
                }
                let c = if m > 0.0 { mx / m } else { state.bodies[body].x };
                out.extend([c.x, c.y, c.z]);
            }
        }
        for (c, x) in out[start..].iter_mut().enumerate() {
            if s.noise > 0.0 {
                *x += s.noise * gaussian(state.step, si, c);
            }
            if s.cutoff > 0.0 {
                let lo = if matches!(s.kind, Touch(_)) { 0.0 } else { -s.cutoff };
                *x = x.clamp(lo, s.cutoff);
            }
        }
    }
}

/// The normal contact force on the site's body from the contacts whose point lies in the site's volume.
fn touch(model: &Model, state: &State, rec: &StepRecord, site: usize) -> f64 {
    let body = model.sites[site].body;
    let (p, r) = actuator::site_pose(model, state, site);
    let inv = r.inverse();
    let mut sum = 0.0;
    for c in rec.contacts {
        if c.bodies[0] != body && c.bodies[1] != body {
            continue;
        }
        if model.sites[site].shape.contains(inv * (c.point - p)) {
            sum += c.force.dot(c.normal).abs();
        }
    }
    sum
}

/// The force and the torque (about the site) that the parent side exerts on the subtree of the site's body
/// during the step, world frame.
fn interaction(model: &Model, state: &State, rec: &StepRecord, site: usize, parents: &[Option<usize>]) -> (Vec3, Vec3) {
    let (p, _) = actuator::site_pose(model, state, site);
    let root = model.sites[site].body;
    let inside: Vec<bool> = (0..model.bodies.len()).map(|b| crate::dynamics::tree::is_below(parents, b, root)).collect();
    let dt = model.dt;
    let (mut f, mut t) = (Vec3::ZERO, Vec3::ZERO);
    for b in (0..model.bodies.len()).filter(|&b| inside[b] && model.bodies[b].kind == BodyKind::Dynamic) {
        let body = &model.bodies[b];
        let (s0, s1) = (&rec.before[b], &state.bodies[b]);
        let momentum = |s: &BodyState| {
            let r = Mat3::from_quat(s.q);
            r * (body.inertia * (r.transpose() * s.w))
        };
        let (fe, te) = external_wrench(model, rec.applied, b, rec.time);
        let need = body.mass * (s1.v - s0.v) / dt - fe;
        f += need;
        t += (s1.x - p).cross(need) + (momentum(s1) - momentum(s0)) / dt - te;
    }
    for c in rec.contacts {
        for b in c.bodies.into_iter().filter(|&b| inside[b]) {
            let fc = c.force_on(b);
            f -= fc;
            t -= (c.point - p).cross(fc);
        }
    }
    (f, t)
}

/// A standard normal number that depends only on (step, sensor, component).
fn gaussian(step: u64, sensor: usize, component: usize) -> f64 {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let seed = mix(step ^ mix((sensor as u64) << 8 | component as u64));
    let u1 = ((mix(seed) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let u2 = ((mix(seed ^ 0x5555) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
#[path = "sensor_tests.rs"]
mod tests;
