//! Joints as spring–dampers on the shared joint rows (dynamics/joint.rs), integrated semi-implicitly
//! (linearised backward Euler) at the method's substep: stable for any gain, where the gains symplectic Euler
//! allows would let a loaded chain open by millimetres. Limits are one-sided springs and PD motors clamped forces,
//! both active sets solved again up to [`MAX_PASSES`] times. The system couples only jointed bodies and is
//! eliminated serially (blocks.rs), so the result does not depend on the thread count.
//! See docs/methods/volumetric-penalty.md, "Joints".

use super::blocks::{Block, BlockSystem, Vec6};
use crate::dynamics::integrate::{integrate_pose, inv_inertia_world};
use crate::dynamics::joint::{motor_force, wrap_angle, JointPose, Row};
use crate::math::{Mat3, Vec3};
use crate::model::{BodyKind, Joint, Model, Motor};
use crate::state::State;

/// Most solves of the joint system in one substep (active-set passes of limits and motors).
pub const MAX_PASSES: usize = 8;

/// What a row is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A bilateral row: always on.
    Bilateral,
    /// A limit: on or off.
    Limit { on: bool },
    /// A motor, implicit until its force exceeds `max`, then the constant force `saturated`.
    Motor { max: Option<f64>, saturated: Option<f64> },
    /// A rotor inertia (`Joint::rotor_inertia`): a damper of armature/h towards the coordinate's rate at the
    /// substep's start (before the kick: `Joints::keep_rates`), always on.
    Rotor,
}

/// One row of this substep.
#[derive(Debug, Clone, Copy)]
struct SpringRow {
    joint: usize,
    /// The node of each side (None: not dynamic).
    nodes: [Option<usize>; 2],
    row: Row,
    kind: Kind,
    /// λ = r − d·(J v⁺).
    r: f64,
    d: f64,
    /// J·v of the sides that are not dynamic.
    known: f64,
    /// Body 1's centre of mass minus its anchor (for the torque about the anchor).
    lever: Vec3,
}

/// The joint stage: the body ↔ node maps, the block system and this substep's rows.
pub struct Joints {
    /// Per body, its node (dynamic bodies in a joint), and per node its body.
    node: Vec<Option<usize>>,
    bodies: Vec<usize>,
    sys: BlockSystem,
    rows: Vec<SpringRow>,
    scratch: Vec<Row>,
    ahead: Vec<Row>,
    /// Bodies in a joint that move (dynamic and kinematic), and every body's pose predicted by the velocities
    /// before the joint forces.
    movers: Vec<usize>,
    predicted: Vec<crate::state::BodyState>,
    rhs: Vec<Vec6>,
    vel: Vec<Vec6>,
    /// Per joint, Σ over the frame's substeps of (force, torque about body 1's anchor)·h on body 1.
    impulse: Vec<(Vec3, Vec3)>,
    /// Per joint with a rotor inertia, its coordinate's rate at the substep's start, before the kick.
    rate0: Vec<f64>,
    /// What the joints changed at the start (`Method::notes`).
    pub notes: Vec<String>,
}

/// A 6-vector of (linear, angular) parts.
fn six(l: Vec3, a: Vec3) -> Vec6 {
    Vec6::new(l.x, l.y, l.z, a.x, a.y, a.z)
}

impl Joints {
    /// The node map and the block system of the model's joint graph.
    pub fn new(model: &Model) -> Self {
        let dynamic = |b: usize| model.bodies[b].kind == BodyKind::Dynamic;
        let mut node = vec![None; model.bodies.len()];
        let mut bodies = Vec::new();
        for b in 0..model.bodies.len() {
            if dynamic(b) && model.joints.iter().any(|j| j.body1 == b || j.body2 == Some(b)) {
                node[b] = Some(bodies.len());
                bodies.push(b);
            }
        }
        let edges: Vec<(usize, usize)> = model.joints.iter().filter_map(|j| Some((node[j.body1]?, node[j.body2?]?))).collect();
        let movers = (0..model.bodies.len())
            .filter(|&b| model.bodies[b].kind != BodyKind::Static && model.joints.iter().any(|j| j.body1 == b || j.body2 == Some(b)))
            .collect();
        Joints {
            movers,
            predicted: Vec::new(),
            sys: BlockSystem::new(bodies.len(), &edges),
            node,
            bodies,
            rows: Vec::new(),
            scratch: Vec::new(),
            ahead: Vec::new(),
            rhs: Vec::new(),
            vel: Vec::new(),
            impulse: vec![(Vec3::ZERO, Vec3::ZERO); model.joints.len()],
            rate0: vec![0.0; model.joints.len()],
            notes: Vec::new(),
        }
    }

    /// Before the first step: coordinates outside their limits (a public model's zero pose, e.g. the Franka
    /// arm's fourth joint) are moved just inside (1 mrad or 0.1 mm), noted. The limit's stiff spring would
    /// otherwise fling the links in one substep (60 rad/s on the Franka arm), where MuJoCo's soft limit pushes
    /// them in over a few steps.
    pub fn enter_limits(&mut self, model: &Model, state: &mut State) {
        let margin = |j: usize| if model.joints[j].kind == crate::model::JointType::Hinge { 1e-3 } else { 1e-4 };
        let moved = crate::dynamics::limit_start::move_into_limits(model, state, margin);
        if let Some(first) = moved.first() {
            self.notes.push(format!(
                "volumetric-penalty: {} joint coordinate(s) started outside their limits and were moved just inside before \
                 the first step (the limit springs would throw the links; MuJoCo's soft limits push them in): first `{}` \
                 from {:.6} to {:.6}",
                moved.len(),
                model.joint_name(first.joint),
                first.from,
                first.to
            ));
        }
    }

    /// Keeps the coordinate rates of the joints with a rotor inertia at the substep's start, before the kick:
    /// the rotor's damper pulls towards them, so that it resists the kick's forces as inertia does.
    pub fn keep_rates(&mut self, model: &Model, state: &State) {
        for (k, j) in model.joints.iter().enumerate().filter(|(_, j)| j.rotor_inertia() > 0.0) {
            let row = JointPose::of(model, j, &state.bodies).coordinate_row(j.kind);
            self.rate0[k] = row.map_or(0.0, |r| rate(state, j, &r, |_| true));
        }
    }

    /// Starts a frame: clears the readings.
    pub fn start_frame(&mut self) {
        self.impulse.iter_mut().for_each(|x| *x = (Vec3::ZERO, Vec3::ZERO));
    }

    /// The frame's readings, one per joint: the impulses summed over the frame, over its `dt`.
    pub fn readings(&self, dt: f64) -> Vec<crate::method::JointReading> {
        self.impulse.iter().map(|(f, t)| crate::method::JointReading { force: *f / dt, torque: *t / dt }).collect()
    }

    /// The joint forces of one substep of `h`: the velocities of the jointed bodies in `state` (already kicked by
    /// gravity, loads and contacts; poses at the substep's start) become the end-of-substep velocities of the
    /// linearised backward Euler step. `(omega_h, zeta)` are the rows' gains. On a block of the system that is
    /// not positive definite, returns its body.
    pub fn solve(&mut self, model: &Model, state: &mut State, h: f64, (omega_h, zeta): (f64, f64)) -> Result<(), usize> {
        if self.bodies.is_empty() {
            return Ok(());
        }
        self.build_rows(model, state, h, omega_h / h, zeta);
        for pass in 1..=MAX_PASSES {
            self.assemble(model, state, h);
            self.sys.factor().map_err(|n| self.bodies[n])?;
            self.vel.clone_from(&self.rhs);
            self.sys.solve(&mut self.vel);
            if pass == MAX_PASSES || !self.update_active_sets(h) {
                break;
            }
        }
        for (n, &b) in self.bodies.iter().enumerate() {
            let v = &self.vel[n];
            let s = &mut state.bodies[b];
            s.v = Vec3::new(v[0], v[1], v[2]);
            s.w = Vec3::new(v[3], v[4], v[5]);
        }
        for sr in &self.rows {
            let lambda = self.force(sr) * h;
            let (f, tau) = (sr.row.lin[0] * lambda, sr.row.ang[0] * lambda);
            let acc = &mut self.impulse[sr.joint];
            acc.0 += f;
            acc.1 += tau + sr.lever.cross(f);
        }
        Ok(())
    }

    /// This substep's rows with their gains and the known velocity parts; limits start on when their predicted
    /// value is negative at the velocities before the joint forces.
    fn build_rows(&mut self, model: &Model, state: &State, h: f64, omega: f64, zeta: f64) {
        self.rows.clear();
        self.predicted.clone_from(&state.bodies);
        for &b in &self.movers {
            integrate_pose(model, b, &mut self.predicted[b], h);
        }
        for (k, j) in model.joints.iter().enumerate() {
            let nodes = [self.node[j.body1], j.body2.and_then(|b| self.node[b])];
            if nodes == [None, None] {
                continue;
            }
            // the rows at the substep's start (their Jacobians: the directions of the forces, as in SHAKE) with the
            // value they reach by v* at the end of the substep, less h·J v*: C⁺ ≈ C̃ + h·J(v⁺ − v*)
            let (pose, ahead) = (JointPose::of(model, j, &state.bodies), JointPose::of(model, j, &self.predicted));
            let back = |now: Row, pred: f64, angle: bool| {
                let d = if angle { wrap_angle(pred - now.c) } else { pred - now.c };
                Row { c: now.c + d - h * rate(state, j, &now, |_| true), ..now }
            };
            let row_of = |row: Row, kind: Kind, r: f64, d: f64| SpringRow {
                joint: k,
                nodes,
                row,
                kind,
                r,
                d,
                known: 0.0,
                lever: pose.c[0] - pose.p[0],
            };
            let spring = |row: Row, kind: Kind| {
                // a row that no dynamic side can move (a degenerate Jacobian) gets no spring
                let w = inverse_mass(model, state, j, nodes, &row);
                let m_eff = if w > 0.0 { 1.0 / w } else { 0.0 };
                let (k, c) = (m_eff * omega * omega, 2.0 * zeta * m_eff * omega);
                row_of(row, kind, -k * row.c, c + h * k)
            };
            self.scratch.clear();
            self.ahead.clear();
            pose.bilateral_rows(j.kind, &mut self.scratch);
            ahead.bilateral_rows(j.kind, &mut self.ahead);
            let first = self.rows.len();
            self.rows.extend(self.scratch.iter().zip(&self.ahead).map(|(&r, a)| spring(back(r, a.c, false), Kind::Bilateral)));
            let coordinate = pose
                .coordinate_row(j.kind)
                .zip(ahead.coordinate_row(j.kind))
                .map(|(r, a)| back(r, a.c, j.kind == crate::model::JointType::Hinge));
            if let (Some([lo, hi]), Some(q)) = (j.limits, coordinate) {
                for r in [Row { c: q.c - lo, ..q }, Row { c: q.c - hi, ..q }.negated()] {
                    self.rows.push(spring(r, Kind::Limit { on: false }));
                }
            }
            if let (Some(m), Some(q), Some(Some(target))) = (&j.motor, coordinate, state.motor_targets.get(k)) {
                // the unclamped force at q̇ = 0: kp·(q* − q) + kd·q̇* (a hinge's angle error wrapped)
                let free = Motor { max_force: None, path: Vec::new(), ..*m };
                let r = motor_force(j.kind, &free, target, q.c, 0.0);
                self.rows.push(row_of(q, Kind::Motor { max: m.max_force, saturated: None }, r, m.damping + h * m.stiffness));
            }
            if let (true, Some(q)) = (j.rotor_inertia() > 0.0, coordinate) {
                let d = j.rotor_inertia() / h;
                self.rows.push(row_of(q, Kind::Rotor, d * self.rate0[k], d));
            }
            for sr in &mut self.rows[first..] {
                sr.known = rate(state, j, &sr.row, |b| self_node(nodes, j, b).is_none());
                if let Kind::Limit { on } = &mut sr.kind {
                    *on = sr.row.c + h * rate(state, j, &sr.row, |_| true) < 0.0;
                }
            }
        }
    }

    /// Whether the row is in the implicit system: (its weight d, its force at J v⁺ = 0), or None when off.
    fn law(sr: &SpringRow) -> Option<(f64, f64)> {
        match sr.kind {
            Kind::Bilateral | Kind::Limit { on: true } | Kind::Motor { saturated: None, .. } | Kind::Rotor => {
                Some((sr.d, sr.r - sr.d * sr.known))
            }
            Kind::Limit { on: false } => None,
            Kind::Motor { saturated: Some(f), .. } => Some((0.0, f)),
        }
    }

    /// The row's force λ at the solved velocities.
    fn force(&self, sr: &SpringRow) -> f64 {
        match Self::law(sr) {
            None => 0.0,
            Some((d, r)) => r - d * self.dynamic_rate(sr),
        }
    }

    /// J·v⁺ of the row's dynamic sides at the solved velocities.
    fn dynamic_rate(&self, sr: &SpringRow) -> f64 {
        sides(sr).iter().flatten().map(|(n, a)| a.dot(&self.vel[*n])).sum()
    }

    /// The mass blocks and the rows' terms.
    fn assemble(&mut self, model: &Model, state: &State, h: f64) {
        self.sys.clear();
        self.rhs.clear();
        for &b in &self.bodies {
            let (body, s) = (&model.bodies[b], &state.bodies[b]);
            let r = Mat3::from_quat(s.q);
            let iw = r * body.inertia * r.transpose();
            let mut m = Block::zeros();
            for a in 0..3 {
                m[(a, a)] = body.mass;
                for c in 0..3 {
                    m[(3 + a, 3 + c)] = iw.col(c)[a];
                }
            }
            self.sys.add_diag(self.rhs.len(), &m);
            self.rhs.push(m * six(s.v, s.w));
        }
        for sr in &self.rows {
            let Some((d, r)) = Self::law(sr) else { continue };
            let sides = sides(sr);
            for (n, a) in sides.iter().flatten() {
                self.rhs[*n] += a * (h * r);
            }
            if d > 0.0 {
                match sides {
                    [Some(x), Some(y)] => {
                        self.sys.add_outer((x.0, &x.1), (x.0, &x.1), h * d);
                        self.sys.add_outer((y.0, &y.1), (y.0, &y.1), h * d);
                        self.sys.add_outer((x.0, &x.1), (y.0, &y.1), h * d);
                    }
                    [Some(x), None] | [None, Some(x)] => self.sys.add_outer((x.0, &x.1), (x.0, &x.1), h * d),
                    [None, None] => {}
                }
            }
        }
    }

    /// Switches limits on and off and saturates motors from the solved velocities; true if anything changed.
    fn update_active_sets(&mut self, h: f64) -> bool {
        let mut changed = false;
        for i in 0..self.rows.len() {
            let sr = self.rows[i];
            let lambda = self.force(&sr);
            let kind = match sr.kind {
                Kind::Limit { on: true } if lambda < 0.0 => Kind::Limit { on: false },
                Kind::Limit { on: false } if sr.row.c + h * (self.dynamic_rate(&sr) + sr.known) < 0.0 => Kind::Limit { on: true },
                Kind::Motor { max: Some(m), saturated: None } if lambda.abs() > m => {
                    Kind::Motor { max: Some(m), saturated: Some(m.copysign(lambda)) }
                }
                k => k,
            };
            if kind != sr.kind {
                self.rows[i].kind = kind;
                changed = true;
            }
        }
        changed
    }
}

/// The node of body `b` of joint `j` given the joint's side nodes.
fn self_node(nodes: [Option<usize>; 2], j: &Joint, b: usize) -> Option<usize> {
    if b == j.body1 {
        nodes[0]
    } else {
        nodes[1]
    }
}

/// The row's dynamic sides: (node, Jacobian 6-vector). Both sides on one node (a body jointed to itself)
/// add up.
fn sides(sr: &SpringRow) -> [Option<(usize, Vec6)>; 2] {
    let s = |i: usize| sr.nodes[i].map(|n| (n, six(sr.row.lin[i], sr.row.ang[i])));
    match (s(0), s(1)) {
        (Some(a), Some(b)) if a.0 == b.0 => [Some((a.0, a.1 + b.1)), None],
        (a, b) => [a, b],
    }
}

/// J M⁻¹ Jᵀ of a row over the joint's dynamic sides.
fn inverse_mass(model: &Model, state: &State, j: &Joint, nodes: [Option<usize>; 2], row: &Row) -> f64 {
    let mut w = 0.0;
    for (side, b) in [(0, Some(j.body1)), (1, j.body2)] {
        if let (Some(b), Some(_)) = (b, nodes[side]) {
            let inv_i = inv_inertia_world(model, b, state.bodies[b].q);
            w += row.lin[side].length_squared() / model.bodies[b].mass + row.ang[side].dot(inv_i * row.ang[side]);
        }
    }
    w
}

/// J·v of the row over the sides whose body passes `keep` (the world side moves with nothing).
fn rate(state: &State, j: &Joint, row: &Row, keep: impl Fn(usize) -> bool) -> f64 {
    let mut r = 0.0;
    for (side, b) in [(0, Some(j.body1)), (1, j.body2)] {
        if let Some(b) = b.filter(|&b| keep(b)) {
            r += row.lin[side].dot(state.bodies[b].v) + row.ang[side].dot(state.bodies[b].w);
        }
    }
    r
}

#[cfg(test)]
#[path = "joints_tests.rs"]
mod tests;
