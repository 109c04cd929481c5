//! The stages of one `impulse` step (see the module documentation for their order and the sources' names), and
//! the push-out and velocity store they share.

use super::joints::JointScope;
use super::{law, Group, Impulse, SIDEWAYS};
use crate::dynamics::graph::{islands, support_levels};
use crate::dynamics::integrate::{apply_load, external_wrench, integrate_pose, inv_inertia_world};
use crate::dynamics::proxy::ImpulseCoupling;
use crate::error::SimError;
use crate::math::Vec3;
use crate::method::{check_finite, StepStats};
use crate::model::{BodyKind, Model};
use crate::state::State;

/// 2. Velocity update: v += h·F/m, L += h·τ (gravity, the scene's loads and the proxies' couplings).
pub(super) fn velocity(model: &Model, state: &mut State, h: f64, proxies: &ImpulseCoupling) {
    for (i, b) in model.bodies.iter().enumerate() {
        if b.kind == BodyKind::Dynamic && !state.sleep.asleep(i) {
            let (f, tau) = external_wrench(model, &state.applied, i, state.time);
            let (fc, tc) = proxies.on_body(model, i);
            let s = &mut state.bodies[i];
            apply_load(s, b.mass, &inv_inertia_world(model, i, s.q), f + fc, tau + tc, h);
        }
    }
}

/// 5. Position update.
pub(super) fn integrate(model: &Model, state: &mut State, h: f64) -> Result<(), SimError> {
    for i in 0..model.bodies.len() {
        if !state.sleep.asleep(i) {
            integrate_pose(model, i, &mut state.bodies[i], h);
        }
    }
    check_finite(model, state, "integrate")
}

impl Impulse {
    /// 1. Collisions at the positions predicted with the old velocities, restitution ε.
    pub(super) fn collision(&mut self, model: &Model, state: &mut State, h: f64, stats: &mut StepStats) -> Result<(), SimError> {
        check_finite(model, state, "collision")?;
        self.carried.clear();
        self.prepare(model, state, h);
        self.collision.wake(&mut state.sleep);
        self.joints.scope = (!model.joints.is_empty()).then_some(JointScope { level: None, motors: false });
        let order = std::mem::take(&mut self.order);
        stats.iterations += self.sweeps(model, &order, h, false, self.params.collision_iterations);
        self.order = order;
        self.joints.scope = None;
        stats.unresolved += self.unresolved(h);
        self.store(state);
        check_finite(model, state, "collision")
    }

    /// 3. Resting contact at the positions predicted with the new velocities, ε = 0 (the collision phase's
    ///    points, their depths following the velocity update: pairs.rs `repredict`).
    pub(super) fn contact(&mut self, model: &Model, state: &mut State, h: f64, stats: &mut StepStats) {
        self.repredict(model, state, h);
        self.collision.wake(&mut state.sleep);
        self.joints.scope = (!model.joints.is_empty()).then_some(JointScope { level: None, motors: true });
        let order = std::mem::take(&mut self.order);
        stats.iterations += self.sweeps(model, &order, h, true, self.params.contact_iterations);
        self.order = order;
        self.joints.scope = None;
        stats.unresolved += self.unresolved(h);
        stats.contacts = self.points.len();
        let (pred, points) = (&self.pred, &self.points);
        stats.contact_points = self
            .groups
            .iter()
            .flat_map(|g| {
                let x = pred.bodies[g.a as usize].x;
                points[g.first as usize..(g.first + g.len) as usize].iter().map(move |p| crate::method::ContactPoint {
                    point: x + p.ra,
                    normal: p.n,
                    bodies: [g.a as usize, g.b as usize],
                    force: Vec3::ZERO,
                })
            })
            .collect();
    }

    /// 4. Shock propagation: levels bottom-up, the bodies below each level static; then the working velocities
    ///    go to the state.
    pub(super) fn shock(&mut self, model: &Model, state: &mut State, h: f64, stats: &mut StepStats) -> Result<(), SimError> {
        let n = model.bodies.len();
        let mut fixed = std::mem::take(&mut self.fixed);
        fixed.clear();
        fixed.extend(self.awake.iter().map(|&a| !a));
        self.edges.clear();
        self.edges.extend(self.groups.iter().map(|g| (g.a as usize, g.b as usize)));
        // joints join islands
        self.edges.extend(model.joints.iter().filter_map(|j| j.body2.map(|b| (j.body1, b))));
        stats.islands = islands(n, &fixed, &self.edges).1;
        if self.params.shock_propagation && !self.groups.is_empty() {
            // the directed support graph: "up" is against the total external force (gravity)
            let mut force = Vec3::ZERO;
            for i in 0..model.bodies.len() {
                if self.awake[i] {
                    force += external_wrench(model, &state.applied, i, state.time).0;
                }
            }
            let up = if force.length() > 0.0 { -force.normalize() } else { Vec3::ZERO };
            // one edge per body pair, from the mean of its piece pairs' normals (the groups of a body pair are
            // consecutive): whether a body rests on another is a relation of the bodies, and the piece pairs of
            // two non-convex bodies (interlocked rings, a chain link pulled at an angle) have normals on every
            // side of their tubes, which per piece pair would make both rest on each other and put a whole
            // hanging chain in one strongly connected component, one level
            self.directed.clear();
            let mut k = 0;
            while k < self.groups.len() {
                let (a, b) = (self.groups[k].a, self.groups[k].b);
                let mut sum = Vec3::ZERO;
                while k < self.groups.len() && (self.groups[k].a, self.groups[k].b) == (a, b) {
                    sum += self.points[self.groups[k].first as usize].n;
                    k += 1;
                }
                let n = sum.normalize_or_zero();
                let dir = if n.dot(up) > SIDEWAYS {
                    1
                } else if n.dot(up) < -SIDEWAYS {
                    -1
                } else {
                    0
                };
                self.directed.push((a as usize, b as usize, dir));
            }
            // a jointed pair supports itself both ways, like a sideways contact: its bodies share a strongly
            // connected component and so a level, and shock propagation never freezes one side of a joint while
            // the other moves
            self.directed.extend(model.joints.iter().filter_map(|j| j.body2.map(|b| (j.body1, b, 0))));
            let level = support_levels(n, &fixed, &self.directed);
            let pair_level = |g: &Group| level[g.a as usize].max(level[g.b as usize]);
            let mut by_level = std::mem::take(&mut self.by_level);
            by_level.clone_from(&self.order);
            by_level.sort_by_key(|&g| pair_level(&self.groups[g as usize])); // stable: keeps the traversal within a level
                                                                             // the levels that hold contact pairs or joints, bottom-up
            let mut levels: Vec<u32> = by_level.iter().map(|&g| pair_level(&self.groups[g as usize])).collect();
            for (k, j) in model.joints.iter().enumerate() {
                let lv = j.body2.map_or(level[j.body1], |b| level[j.body1].max(level[b]));
                self.joints.level[k] = lv;
                levels.push(lv);
            }
            levels.sort_unstable();
            levels.dedup();
            let mut start = 0;
            for lv in levels {
                let mut end = start;
                while end < by_level.len() && pair_level(&self.groups[by_level[end] as usize]) == lv {
                    end += 1;
                }
                for (i, f) in self.frozen.iter_mut().enumerate() {
                    *f = level[i] < lv;
                }
                self.joints.scope = (!model.joints.is_empty()).then_some(JointScope { level: Some(lv), motors: true });
                self.sweeps(model, &by_level[start..end], h, true, self.params.shock_iterations);
                start = end;
            }
            self.joints.scope = None;
            self.by_level = by_level;
            self.frozen.iter_mut().for_each(|f| *f = false);
        }
        self.fixed = fixed;
        self.store(state);
        self.contact_forces(h, stats);
        check_finite(model, state, "shock propagation")
    }

    /// The contact points' forces, once every phase has applied its impulses: a group's impulse over the step,
    /// over h, shared equally by its points (the law applies it at the pair's patch or face, not per point); then
    /// the carried impulses (`carry_impulses`) at points of their own. A's force is the opposite of B's impulse.
    fn contact_forces(&self, h: f64, stats: &mut StepStats) {
        let mut k = 0;
        for (g, &j) in self.groups.iter().zip(&self.group_impulse) {
            let len = g.len as usize;
            let f = -j / (h * len.max(1) as f64);
            for c in &mut stats.contact_points[k..k + len] {
                c.force = f;
            }
            k += len;
        }
        for &(a, b, point, normal, j) in &self.carried {
            stats.contact_points.push(crate::method::ContactPoint { point, normal, bodies: [a as usize, b as usize], force: -j / h });
        }
        stats.contacts = stats.contact_points.len();
    }

    /// 6. Push-out: positions only, along the contact normals, to the push-out tolerance (off with 0 sweeps).
    ///    Then the step's penetration: the deepest the points are left, after the position update and the
    ///    push-out (first order, sweep.rs `left_penetration`).
    pub(super) fn push_out(&mut self, model: &Model, state: &mut State, h: f64, stats: &mut StepStats) -> Result<(), SimError> {
        self.shift.clear();
        if self.params.push_out_iterations > 0 {
            self.push_out_sweeps(model, state, h);
            check_finite(model, state, "push-out")?;
        }
        stats.max_penetration = self.left_penetration(h);
        Ok(())
    }

    /// Push-out: the contact points' depths after the position update (first order in the step's motion and in
    /// the push-out displacements) are reduced to `push_out_tolerance` by sequential position corrections at
    /// the depth-weighted centre of each pair's penetrating points, mass-weighted through the collision matrix.
    fn push_out_sweeps(&mut self, model: &Model, state: &mut State, h: f64) {
        let n = model.bodies.len();
        let tol = self.params.push_out_tolerance;
        // (empty: `push_out` clears it)
        let mut shift = std::mem::take(&mut self.shift);
        shift.resize(n, (Vec3::ZERO, Vec3::ZERO));
        let mut moved = false;
        for _ in 0..self.params.push_out_iterations {
            let mut any = false;
            for &gi in &self.order {
                let g = self.groups[gi as usize];
                let (a, b) = (g.a as usize, g.b as usize);
                let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
                let (mut ra, mut rb, mut wsum, mut deepest, mut normal) = (Vec3::ZERO, Vec3::ZERO, 0.0, 0.0, Vec3::ZERO);
                for p in &self.points[g.first as usize..(g.first + g.len) as usize] {
                    let un = p.normal_speed(ba, bb);
                    let (sa, sb) = (shift[a], shift[b]);
                    let moved_by = p.pushed(sa, sb);
                    let excess = -(p.d0 + h * (un - p.un0) + moved_by) - tol;
                    if excess > 0.0 {
                        ra += excess * p.ra;
                        rb += excess * p.rb;
                        wsum += excess;
                        if excess > deepest {
                            deepest = excess;
                            normal = p.n;
                        }
                    }
                }
                if wsum == 0.0 {
                    continue;
                }
                // lever arms from the rigid units' centres (a weld moves as one, weld.rs)
                let ((ima, iia, oa), (imb, iib, ob)) = (self.unit(a), self.unit(b));
                let (ra, rb) = (ra / wsum + oa, rb / wsum + ob);
                let kmat = law::collision_matrix(ima, &iia, ra, imb, &iib, rb);
                let kn = normal.dot(kmat * normal);
                if kn <= 0.0 {
                    continue;
                }
                // the displacement at the weighted centre that removes the deepest excess
                let pn = normal * (deepest / kn);
                for (body, im, ii, r, p) in [(a, ima, iia, ra, -pn), (b, imb, iib, rb, pn)] {
                    let (dx, dq) = (im * p, ii * r.cross(p));
                    match self.welds.of(body) {
                        Some(c) if im > 0.0 => {
                            for &k in self.welds.members(c) {
                                let d = self.pred.bodies[k as usize].x - c.xc;
                                shift[k as usize].0 += dx + dq.cross(d);
                                shift[k as usize].1 += dq;
                            }
                        }
                        _ => {
                            shift[body].0 += dx;
                            shift[body].1 += dq;
                        }
                    }
                }
                any = true;
                moved = true;
            }
            if !any {
                break;
            }
        }
        if moved && !model.joints.is_empty() {
            // the joints move with the bodies they join (joints.rs)
            self.push_out_joints(model, state, &mut shift);
        }
        if moved {
            for i in 0..n {
                if self.awake[i] {
                    let s = &mut state.bodies[i];
                    s.x += shift[i].0;
                    s.q = (crate::math::quat_exp(shift[i].1) * s.q).normalize();
                }
            }
        }
        self.shift = shift;
    }

    /// Writes the working velocities of the dynamic bodies back to the state.
    fn store(&self, state: &mut State) {
        for (i, b) in self.bodies.iter().enumerate() {
            if self.awake[i] {
                state.bodies[i].v = b.v;
                state.bodies[i].w = b.w;
            }
        }
    }
}
