//! Haptic proxies: a body driven by a target pose from outside through a 6-DoF spring-damper (virtual
//! coupling). The target comes from the scene's waypoints (`[[proxy]]` with a `path`) or, from the library,
//! from `World::set_proxy_target` each step; the force and torque the proxy receives are read back every step
//! (`StepStats::proxies`).
//!
//! Coupling on the proxy's centre of mass: F = k (x_t − x) + c (v_t − v), τ = k_r θ + c_r (ω_t − ω), with θ the
//! rotation vector of R_t Rᵀ (shortest way round). Default gains: critically damped at ω₀ = 0.3/h for the
//! body's mass (linear) and its smallest principal moment (angular), so the explicit coupling stays stable.

use crate::math::{Quat, Vec3};
use crate::model::Model;
use crate::state::{BodyState, State};

/// One waypoint of a proxy's scripted path: the pose of the body's reference frame at `time`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waypoint {
    pub time: f64,
    pub position: Vec3,
    pub rotation: Quat,
}

/// A proxy as the scene declares it.
#[derive(Debug, Clone)]
pub struct Proxy {
    pub body: usize,
    /// Linear stiffness N/m and damping N·s/m; angular N·m/rad and N·m·s/rad.
    pub stiffness: f64,
    pub damping: f64,
    pub angular_stiffness: f64,
    pub angular_damping: f64,
    /// Waypoints in increasing time; empty when the target only comes from the library.
    pub path: Vec<Waypoint>,
}

/// The target of a proxy for the coming step: the pose of the body's reference frame and its velocities.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Target {
    pub position: Vec3,
    pub rotation: Quat,
    pub velocity: Vec3,
    pub angular_velocity: Vec3,
    /// Set from the library: the scene's path no longer moves it.
    pub external: bool,
}

/// What a proxy received in a step: the contact force and torque (about its centre of mass) from the world,
/// and the coupling force and torque the target exerted on it (the device renders the opposite of these).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Reading {
    pub contact_force: [f64; 3],
    pub contact_torque: [f64; 3],
    pub coupling_force: [f64; 3],
    pub coupling_torque: [f64; 3],
}

/// Default gains for a body of mass `m` and smallest principal moment `i_min` at time step `h`.
pub fn default_gains(m: f64, i_min: f64, h: f64) -> [f64; 4] {
    let w0 = 0.3 / h;
    [m * w0 * w0, 2.0 * m * w0, i_min * w0 * w0, 2.0 * i_min * w0]
}

/// The path's target at time `t`: linear in position, spherical-linear in rotation, held before the first and
/// after the last waypoint; the velocities are those of the current segment.
pub fn path_target(path: &[Waypoint], t: f64) -> Option<Target> {
    let first = path.first()?;
    let last = path[path.len() - 1];
    let hold = |w: &Waypoint| Target {
        position: w.position,
        rotation: w.rotation,
        velocity: Vec3::ZERO,
        angular_velocity: Vec3::ZERO,
        external: false,
    };
    if t <= first.time {
        return Some(hold(first));
    }
    if t >= last.time {
        return Some(hold(&last));
    }
    let k = path.windows(2).position(|w| t < w[1].time).unwrap_or(path.len() - 2);
    let (a, b) = (path[k], path[k + 1]);
    let span = b.time - a.time;
    let s = (t - a.time) / span;
    let rb = if a.rotation.dot(b.rotation) < 0.0 { -b.rotation } else { b.rotation };
    let rel = rb * a.rotation.conjugate();
    let (axis, angle) = rel.to_axis_angle();
    Some(Target {
        position: a.position.lerp(b.position, s),
        rotation: a.rotation.slerp(rb, s),
        velocity: (b.position - a.position) / span,
        angular_velocity: axis * (angle / span),
        external: false,
    })
}

/// Moves every proxy that follows its path to the path's target at `state.time`.
pub fn follow_paths(model: &Model, state: &mut State) {
    for (p, t) in model.proxies.iter().zip(state.proxies.iter_mut()) {
        if !t.external {
            if let Some(target) = path_target(&p.path, state.time) {
                *t = target;
            }
        }
    }
}

/// The coupling force and torque on the proxy's body from its target.
pub fn coupling(model: &Model, p: &Proxy, target: &Target, s: &BodyState) -> (Vec3, Vec3) {
    let com = model.bodies[p.body].com;
    let x_t = target.position + target.rotation * com;
    let v_t = target.velocity + target.angular_velocity.cross(target.rotation * com);
    let force = p.stiffness * (x_t - s.x) + p.damping * (v_t - s.v);
    let mut err = target.rotation * s.q.conjugate();
    if err.w < 0.0 {
        err = -err;
    }
    let (axis, angle) = err.to_axis_angle();
    let theta = if angle.is_finite() && angle > 0.0 { axis * angle } else { Vec3::ZERO };
    let torque = p.angular_stiffness * theta + p.angular_damping * (target.angular_velocity - s.w);
    (force, torque)
}

/// The total coupling wrench on body `i` (zero when no proxy drives it).
pub fn coupling_on(model: &Model, state: &State, i: usize) -> (Vec3, Vec3) {
    let mut w = (Vec3::ZERO, Vec3::ZERO);
    for (p, t) in model.proxies.iter().zip(&state.proxies) {
        if p.body == i {
            let (f, tau) = coupling(model, p, t, &state.bodies[i]);
            w.0 += f;
            w.1 += tau;
        }
    }
    w
}

/// Proxies in the methods that work with impulses (`lcp`, `impulse`): the coupling wrench of each proxy,
/// evaluated once at the start of the step (explicit, like the volumetric method's), enters the step as an
/// external load beside gravity and the scene's loads; the contact wrench each proxy received is measured as
/// the change of its body's momentum over the step that the external loads and the coupling do not explain:
/// F_c = m(v₁ − v₀)/h − F_ext − F_coupling and τ_c = I_w(ω₁ − ω₀)/h − τ_ext − τ_coupling, with I_w the world
/// inertia at the orientation the method's velocity updates use (`snapshot`).
#[derive(Debug, Clone, Default)]
pub struct ImpulseCoupling {
    /// Per proxy: the coupling force and torque for this step.
    wrench: Vec<(Vec3, Vec3)>,
    /// Per proxy: its body's state when the velocity updates begin.
    before: Vec<BodyState>,
}

impl ImpulseCoupling {
    /// Evaluates the couplings at the start of a step (nothing to do without proxies).
    pub fn begin(&mut self, model: &Model, state: &State) {
        self.wrench.clear();
        self.wrench.extend(model.proxies.iter().zip(&state.proxies).map(|(p, t)| coupling(model, p, t, &state.bodies[p.body])));
        self.snapshot(model, state);
    }

    /// Records the proxies' bodies as the velocity updates begin (`lcp`: after its position correction).
    pub fn snapshot(&mut self, model: &Model, state: &State) {
        self.before.clear();
        self.before.extend(model.proxies.iter().map(|p| state.bodies[p.body]));
    }

    /// The total coupling wrench on body `i` this step.
    pub fn on_body(&self, model: &Model, i: usize) -> (Vec3, Vec3) {
        let mut w = (Vec3::ZERO, Vec3::ZERO);
        for (p, c) in model.proxies.iter().zip(&self.wrench) {
            if p.body == i {
                w.0 += c.0;
                w.1 += c.1;
            }
        }
        w
    }

    /// What each proxy received over a step of `h` that began at time `t`.
    pub fn readings(&self, model: &Model, state: &State, h: f64, t: f64) -> Vec<Reading> {
        model
            .proxies
            .iter()
            .zip(&self.wrench)
            .zip(&self.before)
            .map(|((p, c), s0)| {
                let b = &model.bodies[p.body];
                let s1 = &state.bodies[p.body];
                let (f_ext, tau_ext) = crate::dynamics::integrate::external_wrench(model, &state.applied, p.body, t);
                let (f_c, tau_c) = self.on_body(model, p.body);
                let r = crate::math::Mat3::from_quat(s0.q);
                let i_w = r * b.inertia * r.transpose();
                let force = b.mass * (s1.v - s0.v) / h - f_ext - f_c;
                let torque = i_w * (s1.w - s0.w) / h - tau_ext - tau_c;
                Reading {
                    contact_force: force.to_array(),
                    contact_torque: torque.to_array(),
                    coupling_force: c.0.to_array(),
                    coupling_torque: c.1.to_array(),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_interpolates_and_holds_at_the_ends() {
        let path = [
            Waypoint { time: 1.0, position: Vec3::ZERO, rotation: Quat::IDENTITY },
            Waypoint { time: 3.0, position: Vec3::new(2.0, 0.0, 0.0), rotation: Quat::from_rotation_z(1.0) },
        ];
        let t = path_target(&path, 2.0).unwrap();
        assert!((t.position - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-15);
        assert!((t.velocity - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-15);
        assert!((t.angular_velocity - Vec3::new(0.0, 0.0, 0.5)).length() < 1e-12);
        assert!(t.rotation.angle_between(Quat::from_rotation_z(0.5)) < 1e-12);
        assert_eq!(path_target(&path, 0.0).unwrap().position, Vec3::ZERO);
        assert_eq!(path_target(&path, 9.0).unwrap().velocity, Vec3::ZERO);
        assert!(path_target(&[], 0.0).is_none());
    }

    /// A proxy's target held 1 cm below where its box rests on the ground: under `lcp` and `impulse` the box
    /// comes to rest on the ground, the coupling pulls it down by k·δ, and the contact wrench read back carries
    /// the weight and that pull; the readings of a free fall are zero.
    #[test]
    fn lcp_and_impulse_couple_proxies_and_read_back_the_contact_wrench() {
        for method in ["lcp", "impulse"] {
            let scene = format!(
                r#"format = 1
[world]
dt = 0.01
method = "{method}"
[[body]]
name = "ground"
kind = "static"
shape = {{ type = "box", size = [2.0, 2.0, 0.2] }}
position = [0.0, 0.0, -0.1]
[[body]]
name = "hand"
shape = {{ type = "box", size = [0.1, 0.1, 0.1] }}
mass = 1.0
position = [0.0, 0.0, 0.3]
[[proxy]]
body = "hand"
path = [{{ time = 0.0, position = [0.0, 0.0, 0.04] }}]
"#
            );
            let mut w = crate::world::World::from_scene_text(&scene, "proxy").unwrap();
            let first = w.step().unwrap();
            let r0 = first.proxies[0];
            assert!(r0.contact_force.iter().chain(&r0.contact_torque).all(|f| f.abs() < 1e-9), "{method}: free fall, {r0:?}");
            assert!(r0.coupling_force[2] < 0.0, "{method}: the target below pulls down");
            let mut last = first;
            for _ in 0..150 {
                last = w.step().unwrap();
            }
            let r = last.proxies[0];
            let z = w.state.bodies[1].x.z;
            assert!((z - 0.05).abs() < 2e-3, "{method}: the box rests on the ground, z = {z}");
            let k = w.model.proxies[0].stiffness;
            let pull = k * (z - 0.04);
            assert!((r.coupling_force[2] + pull).abs() < 1e-2 * pull, "{method}: coupling {:?} vs −kδ = {}", r.coupling_force, -pull);
            let support = 9.81 + pull;
            assert!((r.contact_force[2] - support).abs() < 1e-2 * support, "{method}: contact {:?} vs {support}", r.contact_force);
            assert!(r.contact_force[0].abs() + r.contact_force[1].abs() < 1e-3 * support, "{method}: {r:?}");
        }
    }
}
