//! Joints for affine bodies (source §5.3: constraints that are nonlinear for rigid bodies are linear in q), with
//! prismatic joints, limits and PD motors (issue 15 item 4): pins as stiff penalties ½K|C|² (K = γ(m_a + m_b),
//! libuipc's form), limits as IPC log barriers on the joint coordinate with Newton steps bounded so that no
//! limit is crossed, PD motors as a convex (Huber) backward-Euler potential.
//! See docs/methods/abd.md, "Joints".

use super::coords::{Func, Function, Vector};
use super::system::{Block, System};
use crate::dynamics::joint::wrap_angle;
use crate::math::jet::Jet;
use crate::math::Vec3;
use crate::method::JointReading;
use crate::model::{BodyKind, JointType, Model, Motor};
use crate::state::State;

/// The reach of a hinge limit's barrier, rad.
pub const ANGLE_REACH: f64 = 1e-3;

/// A pinned point or direction: rest positions w = (x̄, 1) or directions (ū, 0) on each body (`None` = the
/// world, with the world point or direction).
#[derive(Debug, Clone)]
pub struct Pin {
    pub joint: usize,
    pub a: usize,
    pub wa: [f64; 4],
    pub b: Option<usize>,
    /// On body b: its rest position or direction; on the world: the world point or direction.
    pub wb: [f64; 4],
    pub k: f64,
}

fn point(q: &[f64], w: &[f64; 4]) -> [f64; 3] {
    std::array::from_fn(|i| (0..4).map(|j| q[4 * i + j] * w[j]).sum())
}

impl Pin {
    /// C = x_a − x_b for all bodies' coordinates `q` (12 per body).
    pub fn violation(&self, q: &[f64]) -> [f64; 3] {
        let xa = point(&q[12 * self.a..12 * self.a + 12], &self.wa);
        let xb = match self.b {
            Some(b) => point(&q[12 * b..12 * b + 12], &self.wb),
            None => [self.wb[0], self.wb[1], self.wb[2]],
        };
        std::array::from_fn(|r| xa[r] - xb[r])
    }

    /// ½K|C|².
    pub fn energy(&self, q: &[f64]) -> f64 {
        let c = self.violation(q);
        0.5 * self.k * (c[0] * c[0] + c[1] * c[1] + c[2] * c[2])
    }

    /// The sides: (body, w, sign of C in it).
    fn sides(&self) -> [(Option<usize>, [f64; 4], f64); 2] {
        [(Some(self.a), self.wa, 1.0), (self.b, self.wb, -1.0)]
    }

    /// ∂(½K|C|²)/∂q_body.
    fn gradient(&self, q: &[f64], body: usize) -> [f64; 12] {
        let c = self.violation(q);
        let mut g = [0.0; 12];
        for (b, w, s) in self.sides() {
            if b == Some(body) {
                for r in 0..3 {
                    for j in 0..4 {
                        g[4 * r + j] += self.k * s * c[r] * w[j];
                    }
                }
            }
        }
        g
    }
}

/// What a joint function's energy is.
#[derive(Debug, Clone)]
pub enum Law {
    /// ½K x² (a prismatic joint's line rows).
    Penalty(f64),
    /// The coordinate: limit barrier (`limits` as the barrier holds them, `reach`, the coordinate's `inertia`)
    /// and motor.
    Coordinate { limits: Option<[f64; 2]>, offset: f64, reach: f64, inertia: f64, motor: Option<Motor>, hinge: bool },
}

/// One nonlinear joint term.
#[derive(Debug, Clone)]
pub struct Term {
    pub joint: usize,
    pub f: Function,
    pub law: Law,
}

/// What a coordinate term uses during one step: its value at q^t (an angle's unwrapping reference), the barrier
/// stiffness, the motor's K_e, x_e and bound, the rotor inertia (`Joint::rotor_inertia`) with the value its
/// coordinate is predicted to reach (the coordinate's own inertia term ½·a·(x − x̃)²), and the generalised force
/// the actuators put on the coordinate (`State::joint_forces`, held over the step: the term −Q·x).
#[derive(Debug, Clone, Copy, Default)]
pub struct StepData {
    pub reference: f64,
    pub kappa: f64,
    pub drive: Option<(f64, f64, Option<f64>)>,
    pub rotor: Option<(f64, f64)>,
    pub force: f64,
}

/// The joints of a model in affine coordinates.
#[derive(Debug, Clone, Default)]
pub struct Joints {
    pub pins: Vec<Pin>,
    pub terms: Vec<Term>,
    pub step: Vec<StepData>,
    /// Limits moved off a start on them, for the run's notes.
    pub notes: Vec<String>,
}

fn rest(model: &Model, body: usize, world: Vec3) -> [f64; 4] {
    let b = &model.bodies[body];
    // reference frame → centre-of-mass frame, body axes
    let local = b.rotation.inverse() * (world - b.position) - b.com;
    [local.x, local.y, local.z, 1.0]
}

/// The inertia of a joint's coordinate: the reduced mass (prismatic) or moment of inertia about the axis through
/// the anchor (hinge) of its dynamic sides (1 when none is dynamic).
fn coordinate_inertia(model: &Model, j: &crate::model::Joint) -> f64 {
    let mut inv = 0.0;
    for (side, body) in [(0, Some(j.body1)), (1, j.body2)] {
        let Some(b) = body.filter(|&b| model.bodies[b].kind == BodyKind::Dynamic) else { continue };
        let body = &model.bodies[b];
        let f = &j.frames[side];
        let i = match j.kind {
            JointType::Prismatic => body.mass,
            _ => f.axis.dot(body.inertia * f.axis) + body.mass * (f.anchor - body.com).cross(f.axis).length_squared(),
        };
        inv += 1.0 / i;
    }
    if inv > 0.0 {
        1.0 / inv
    } else {
        1.0
    }
}

/// The pins of the model's joints with penalty γ (the pinned points and directions of [`Joints::new`]).
pub fn pins(model: &Model, gamma: f64) -> Vec<Pin> {
    Joints::new(model, gamma, 1.0).pins
}

impl Joints {
    /// The pins and terms of the model's joints; `gamma` is the penalty γ, `dhat` the reach of a displacement
    /// limit.
    pub fn new(model: &Model, gamma: f64, dhat: f64) -> Joints {
        let mut out = Joints::default();
        for (ji, j) in model.joints.iter().enumerate() {
            let mass =
                |b: Option<usize>| b.map_or(0.0, |b| if model.bodies[b].kind == BodyKind::Dynamic { model.bodies[b].mass } else { 0.0 });
            let k = gamma * (mass(Some(j.body1)) + mass(j.body2));
            // the spacing of a hinge's or weld's pinned points: the bodies' size, from their surfaces or, for a
            // body without collision geometry (a robot link whose geoms do not collide), from its radius of
            // gyration and its centre of mass's distance to the anchor; two points at one place would pin a
            // hinge as a ball joint
            let extent = |b: usize| {
                let body = &model.bodies[b];
                let gyration = if body.mass > 0.0 {
                    (body.inertia.x_axis.x + body.inertia.y_axis.y + body.inertia.z_axis.z).max(0.0) / body.mass
                } else {
                    0.0
                };
                let com = body.position + body.rotation * body.com;
                body.geometry.radius_about_com.max(gyration.sqrt()).max((j.anchor - com).length())
            };
            let size = extent(j.body1).max(j.body2.map_or(0.0, extent));
            let size = if size > 0.0 && size.is_finite() { size } else { 1.0 };
            let axis = j.axis.normalize_or_zero();
            let (t1, t2) = crate::math::tangent_basis(if axis == Vec3::ZERO { Vec3::Z } else { axis });
            let points: Vec<Vec3> = match j.kind {
                JointType::Ball => vec![j.anchor],
                JointType::Hinge => vec![j.anchor - axis * (0.5 * size), j.anchor + axis * (0.5 * size)],
                JointType::Fixed => vec![j.anchor, j.anchor + t1 * size, j.anchor + t2 * size],
                JointType::Prismatic => vec![],
            };
            for p in points {
                let wb = match j.body2 {
                    Some(b) => rest(model, b, p),
                    None => [p.x, p.y, p.z, 1.0],
                };
                out.pins.push(Pin { joint: ji, a: j.body1, wa: rest(model, j.body1, p), b: j.body2, wb, k });
            }
            let [f1, f2] = j.frames;
            let c = |v: Vec3| v.to_array();
            let (c1, c2) = (f1.anchor - model.bodies[j.body1].com, j.body2.map_or(f2.anchor, |b| f2.anchor - model.bodies[b].com));
            let sign = if j.body2.is_some() { 1.0 } else { -1.0 };
            let d = Vector::difference(j.body1, c(c1), j.body2, c(c2));
            let dir1 = |u: Vec3| Vector::direction(Some(j.body1), c(u));
            if j.kind == JointType::Prismatic {
                let frame = |f: &crate::model::JointFrame| [f.axis, f.reference, f.axis.cross(f.reference)];
                for (u1, u2) in frame(&f1).into_iter().zip(frame(&f2)) {
                    let w = |u: Vec3| [size * u.x, size * u.y, size * u.z, 0.0];
                    out.pins.push(Pin { joint: ji, a: j.body1, wa: w(u1), b: j.body2, wb: w(u2), k });
                }
                for t in [f1.reference, f1.axis.cross(f1.reference)] {
                    let f = Function { func: Func::Dot, v: [dir1(t), d, d], sign: 1.0 };
                    out.terms.push(Term { joint: ji, f, law: Law::Penalty(k) });
                }
            }
            let f = match j.kind {
                JointType::Prismatic => Function { func: Func::Dot, v: [dir1(f1.axis), d, d], sign },
                JointType::Hinge => Function {
                    func: Func::Angle,
                    v: [dir1(f1.axis), dir1(f1.reference), Vector::direction(j.body2, c(f2.reference))],
                    sign,
                },
                _ => continue,
            };
            if j.limits.is_none() && j.motor.is_none() && j.rotor_inertia() == 0.0 {
                continue;
            }
            let reach = if j.kind == JointType::Hinge { ANGLE_REACH } else { dhat };
            // the function is the displacement from the load pose (q − offset): limits and targets are shifted
            // into it; at load it is 0, and a limit at or within r of it gets its barrier r beyond the start, where
            // the barrier exerts no force yet (nearer, a barrier as stiff as a step's inertia kicked a robot's
            // finger that starts on its limit off at 0.2 m/s)
            let limits = j.limits.map(|[lo, hi]| [lo - j.offset, hi - j.offset]).map(|[lo, hi]| {
                let moved = [if lo <= 0.0 && lo > -reach { -reach } else { lo }, if hi >= 0.0 && hi < reach { reach } else { hi }];
                if moved != [lo, hi] {
                    out.notes.push(format!(
                        "abd: joint #{ji} (`{}`, on `{}`) starts on its limits [{lo}, {hi}]; its limit barrier sits at [{:e}, {:e}], \
                         {:e} beyond the limit it starts on (a barrier cannot start at zero distance)",
                        model.joint_name(ji),
                        model.bodies[j.body1].name,
                        moved[0],
                        moved[1],
                        reach
                    ));
                }
                moved
            });
            let law = Law::Coordinate {
                limits,
                offset: j.offset,
                reach,
                inertia: coordinate_inertia(model, j),
                motor: j.motor.clone(),
                hinge: j.kind == JointType::Hinge,
            };
            out.terms.push(Term { joint: ji, f, law });
        }
        out
    }

    /// Prepares a step from q^t with the incremental potential's step `h` (h_e under BDF2), base q̂ and its rate q̇̂
    /// (the motor's damper acts on (x − x̂)/h; a rotor's coordinate is predicted at q̂ + h·q̇̂): each coordinate's
    /// reference value, barrier stiffness, motor drive (from the state's motor targets) and rotor inertia. Errs,
    /// naming the joint, when a coordinate is not strictly inside its limits.
    pub fn begin_step(
        &mut self,
        model: &Model,
        state: &State,
        (qt, qhat, qdhat): (&[f64], &[f64], &[f64]),
        dt: f64,
        h: f64,
    ) -> Result<(), String> {
        self.step.clear();
        let mut predicted: Option<Vec<f64>> = None;
        for t in &self.terms {
            let mut s = StepData::default();
            if let Law::Coordinate { limits, offset, reach, inertia, motor, hinge } = &t.law {
                let x = t.f.value(qt, None);
                s.reference = x;
                if let Some([lo, hi]) = limits {
                    if !(x > *lo && x < *hi) {
                        let j = &model.joints[t.joint];
                        return Err(format!(
                            "joint #{} (`{}`, on `{}`): its coordinate {} is not strictly inside the limits [{}, {}] at step {}; \
                             abd's limit barrier needs it inside (was the state edited?)",
                            t.joint,
                            model.joint_name(t.joint),
                            model.bodies[j.body1].name,
                            x + offset,
                            lo + offset,
                            hi + offset,
                            state.step
                        ));
                    }
                    let rotor = model.joints[t.joint].rotor_inertia();
                    s.kappa = (inertia + rotor) / (h * h * super::barrier::b2(0.5 * reach, *reach));
                }
                if let (Some(m), Some(Some(target))) = (motor, state.motor_targets.get(t.joint)) {
                    let mut goal = target.value - offset + dt * target.rate;
                    if *hinge {
                        goal = x + wrap_angle(goal - x);
                    }
                    let ke = m.stiffness + m.damping / h;
                    if ke > 0.0 {
                        let base = t.f.value(qhat, Some(x));
                        let xe = (m.stiffness * goal + (m.damping / h) * (base + h * target.rate)) / ke;
                        s.drive = Some((ke, xe, m.max_force));
                    }
                }
                let a = model.joints[t.joint].rotor_inertia();
                if a > 0.0 {
                    let q = predicted.get_or_insert_with(|| qhat.iter().zip(qdhat).map(|(q, v)| q + h * v).collect());
                    s.rotor = Some((a, t.f.value(q, Some(x))));
                }
                s.force = state.joint_forces.get(t.joint).copied().unwrap_or(0.0);
            }
            self.step.push(s);
        }
        Ok(())
    }

    /// A term's energy and its first two derivatives in its function's value `x`.
    fn scalar(&self, k: usize, x: f64, h: f64) -> (f64, f64, f64) {
        let t = &self.terms[k];
        match &t.law {
            Law::Penalty(kp) => (0.5 * kp * x * x, kp * x, *kp),
            Law::Coordinate { limits, reach, .. } => {
                let s = &self.step[k];
                let (mut e, mut e1, mut e2) = (0.0, 0.0, 0.0);
                if let Some([lo, hi]) = limits {
                    let (a, b) = (x - lo, hi - x);
                    if a <= 0.0 || b <= 0.0 {
                        return (f64::INFINITY, 0.0, 0.0);
                    }
                    use super::barrier::{b as bb, b1, b2};
                    let w = h * h * s.kappa;
                    e += w * (bb(a, *reach) + bb(b, *reach));
                    e1 += w * (b1(a, *reach) - b1(b, *reach));
                    e2 += w * (b2(a, *reach) + b2(b, *reach));
                }
                if let Some((ke, xe, max)) = s.drive {
                    let y = x - xe;
                    let (p, p1, p2) = match max {
                        Some(f) if (ke * y).abs() > f => (f * y.abs() - f * f / (2.0 * ke), f * y.signum(), 0.0),
                        _ => (0.5 * ke * y * y, ke * y, ke),
                    };
                    e += h * h * p;
                    e1 += h * h * p1;
                    e2 += h * h * p2;
                }
                // a generalised force held over the step: the potential −Q·x
                e -= h * h * s.force * x;
                e1 -= h * h * s.force;
                if let Some((a, predicted)) = s.rotor {
                    // an inertia term, as the bodies' ½(q − q̃)ᵀM(q − q̃): not scaled by h²
                    let y = x - predicted;
                    e += 0.5 * a * y * y;
                    e1 += a * y;
                    e2 += a;
                }
                (e, e1, e2)
            }
        }
    }

    /// The unwrapping reference of term k (hinge coordinates only).
    fn reference(&self, k: usize) -> Option<f64> {
        match self.terms[k].law {
            Law::Coordinate { hinge: true, .. } => Some(self.step[k].reference),
            _ => None,
        }
    }

    /// The energy jet of term k at q, in its function's vectors.
    fn jet(&self, k: usize, q: &[f64], h: f64) -> Jet {
        let x = self.terms[k].f.jet(q, self.reference(k));
        let (e, e1, e2) = self.scalar(k, x.v, h);
        x.chain(e, e1, e2)
    }

    /// Σ ½K|C|² over the pins and the terms' energies at q.
    pub fn energy(&self, q: &[f64], h: f64) -> f64 {
        let mut e: f64 = self.pins.iter().map(|p| p.energy(q)).sum();
        for k in 0..self.terms.len() {
            e += self.scalar(k, self.terms[k].f.value(q, self.reference(k)), h).0;
        }
        e
    }

    /// Adds the gradient and the (PSD-projected) Hessian at q to the system.
    pub fn assemble(&self, q: &[f64], h: f64, dyn_index: &[Option<usize>], system: &mut System) {
        for pin in &self.pins {
            let sides = pin.sides();
            for (bi, wi, si) in sides {
                let Some((b, di)) = bi.and_then(|b| dyn_index[b].map(|d| (b, d))) else { continue };
                let g = pin.gradient(q, b);
                for (k, gk) in g.iter().enumerate() {
                    system.grad[12 * di + k] += gk;
                }
                for (bj, wj, sj) in sides {
                    let Some(dj) = bj.and_then(|b| dyn_index[b]).filter(|&dj| dj >= di) else { continue };
                    let mut blk: Block = [[0.0; 12]; 12];
                    for r in 0..3 {
                        for j in 0..4 {
                            for l in 0..4 {
                                blk[4 * r + j][4 * r + l] = pin.k * si * sj * wi[j] * wj[l];
                            }
                        }
                    }
                    system.add_block(di, dj, &blk);
                }
            }
        }
        for k in 0..self.terms.len() {
            let f = &self.terms[k].f;
            let mut e = self.jet(k, q, h);
            crate::math::eigen::clamp_negative(&mut e.h, 3 * e.n);
            let bodies: Vec<(usize, usize)> = f.bodies().into_iter().filter_map(|b| dyn_index[b].map(|d| (b, d))).collect();
            for (i, &(b, d)) in bodies.iter().enumerate() {
                let g = f.body_gradient(&e, b);
                for (r, gr) in g.iter().enumerate() {
                    system.grad[12 * d + r] += gr;
                }
                for &(b2, d2) in &bodies[i..] {
                    system.add_block(d, d2, &f.body_hessian(&e, b, b2));
                }
            }
        }
    }

    /// The largest step fraction α ∈ (0, 1] along `dir` from q over which every limited coordinate stays inside
    /// its limits: 0.9 of the first crossing (1 when none).
    pub fn bound(&self, q: &[f64], dir: &[f64]) -> f64 {
        let mut alpha = 1.0f64;
        for t in &self.terms {
            if let Law::Coordinate { limits: Some(l), .. } = &t.law {
                for level in l {
                    if let Some(a) = t.f.first_crossing(q, dir, *level) {
                        alpha = alpha.min(0.9 * a);
                    }
                }
            }
        }
        alpha
    }

    /// What each joint applied to its body 1 at the end of the step (coordinates q): the force −∂E/∂p₁/h² and
    /// the torque about body 1's anchor, from the pins' and terms' gradients.
    pub fn readings(&self, model: &Model, q: &[f64], h: f64) -> Vec<JointReading> {
        let mut g = vec![[0.0; 12]; model.joints.len()];
        for pin in &self.pins {
            let gp = pin.gradient(q, pin.a);
            for (a, b) in g[pin.joint].iter_mut().zip(gp) {
                *a += b;
            }
        }
        for k in 0..self.terms.len() {
            let t = &self.terms[k];
            let e = self.jet(k, q, h);
            let gt = t.f.body_gradient(&e, model.joints[t.joint].body1);
            for (a, b) in g[t.joint].iter_mut().zip(gt) {
                *a += b;
            }
        }
        model
            .joints
            .iter()
            .zip(&g)
            .map(|(j, g)| {
                let b = j.body1;
                let qb = &q[12 * b..12 * b + 12];
                let (force, torque) = super::affine::wrench_of_gradient(g, qb, h);
                let c = j.frames[0].anchor - model.bodies[b].com;
                let com = Vec3::new(qb[3], qb[7], qb[11]);
                let anchor = super::affine::a_of(qb) * c + com;
                JointReading { force, torque: torque + (com - anchor).cross(force) }
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "joints_tests.rs"]
mod tests;
