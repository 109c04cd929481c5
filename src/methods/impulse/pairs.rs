//! The pairs of a phase: positions predicted with the current velocities, the interfering piece pairs there
//! with their candidate points, and the report's processing order.

use super::law::Coefficients;
use super::{Group, Impulse, Point, SBody};
use crate::dynamics::integrate::{external_wrench, integrate_pose, inv_inertia_world};
use crate::math::{Mat3, Vec3};
use crate::model::Model;
use crate::state::State;

impl Impulse {
    /// Predicts positions with the current velocities, collects the interfering piece pairs there and orders
    /// them. Also loads the solver bodies (inertia at the predicted orientation).
    pub(super) fn prepare(&mut self, model: &Model, state: &State, h: f64) {
        // only the poses and the time are read at the prediction (the collision, the faces, the joints)
        self.pred.time = state.time;
        self.pred.applied.clone_from(&state.applied);
        self.pred.step = state.step;
        self.pred.bodies.clone_from(&state.bodies);
        self.pred.sleep.clone_from(&state.sleep);
        for i in 0..model.bodies.len() {
            if !state.sleep.asleep(i) {
                integrate_pose(model, i, &mut self.pred.bodies[i], h);
            }
        }
        self.collision.detect(model, &self.pred, self.params.margin, 0.0);
        // what this detection woke takes part from here on (the stage wakes it in the state too)
        self.collision.wake(&mut self.pred.sleep);
        self.awake.clear();
        self.awake.extend((0..model.bodies.len()).map(|i| crate::dynamics::sleep::awake(model, &self.pred, i)));
        crate::collision::realface::restrict(model, &self.pred, &mut self.collision);
        self.bodies.clear();
        for (i, b) in model.bodies.iter().enumerate() {
            let s = &state.bodies[i];
            // a sleeping body is fixed for the step
            let (inv_m, inv_i) =
                if self.awake[i] { (b.inv_mass(), inv_inertia_world(model, i, self.pred.bodies[i].q)) } else { (0.0, Mat3::ZERO) };
            self.bodies.push(SBody { inv_m, inv_i, v: s.v, w: s.w });
        }
        let (bodies, awake) = (&self.bodies, &self.awake);
        self.welds.build(model, &self.pred, |k| bodies[k].inv_i, |k| awake[k]);
        self.detected_with.clear();
        self.detected_with.extend(state.bodies.iter().map(|s| (s.v, s.w)));
        self.build_groups(model);
        self.group_impulse.clear();
        self.group_impulse.resize(self.groups.len(), Vec3::ZERO);
        self.memos.begin(self.groups.len());
        self.restart(model);
    }

    /// The contact phase's pairs, from the collision phase's detection (one detection per step): the working
    /// velocities are reloaded and the points kept, each depth carried forward to first order, d0 + h·(u_n − u_n0).
    /// Where a body's predicted points moved by more than half the margin, detection runs again, as in the source.
    /// See docs/methods/impulse.md, "The second prediction".
    pub(super) fn repredict(&mut self, model: &Model, state: &State, h: f64) {
        let moved = |i: usize| {
            let (s, (v0, w0)) = (&state.bodies[i], self.detected_with[i]);
            h * ((s.v - v0).length() + (s.w - w0).length() * model.bodies[i].geometry.radius_about_com)
        };
        if (0..model.bodies.len()).any(|i| self.awake[i] && moved(i) > 0.5 * self.params.margin) {
            self.carry_impulses();
            self.prepare(model, state, h);
            self.place_carried();
            return;
        }
        for (b, s) in self.bodies.iter_mut().zip(&state.bodies) {
            b.v = s.v;
            b.w = s.w;
        }
        self.restart(model);
    }

    /// Before a second detection: the collision phase's impulses of the groups it replaces, kept with their pairs'
    /// bodies, deepest points and normals.
    fn carry_impulses(&mut self) {
        for (g, &j) in self.groups.iter().zip(&self.group_impulse) {
            if j != Vec3::ZERO {
                self.carried.push((g.a, g.b, g.at, self.points[g.first as usize].n, j));
            }
        }
    }

    /// After a second detection: each carried impulse goes to the new group of the same two bodies whose deepest
    /// point is nearest to its own; those with no such group stay carried.
    fn place_carried(&mut self) {
        let (groups, impulse) = (&self.groups, &mut self.group_impulse);
        self.carried.retain(|&(a, b, at, _, j)| {
            let near = groups
                .iter()
                .enumerate()
                .filter(|(_, g)| (g.a, g.b) == (a, b))
                .min_by(|(_, g), (_, h)| (g.at - at).length_squared().total_cmp(&(h.at - at).length_squared()));
            if let Some((k, _)) = near {
                impulse[k] += j;
            }
            near.is_none()
        });
    }

    /// A phase's start: nothing frozen, no impulse accumulated, the processing order for the current velocities.
    fn restart(&mut self, model: &Model) {
        self.frozen.clear();
        self.frozen.resize(model.bodies.len(), false);
        self.accumulated.clear();
        self.accumulated.resize(self.groups.len(), (0.0, Vec3::ZERO));
        self.traversal(model);
    }

    /// Groups the detected points by piece pair (parry manifold) and keeps the candidates of each.
    fn build_groups(&mut self, model: &Model) {
        self.points.clear();
        self.groups.clear();
        let contacts = &self.collision.contacts;
        let mut start = 0;
        while start < contacts.len() {
            let c0 = &contacts[start];
            let mut end = start + 1;
            while end < contacts.len() && (contacts[end].pair, contacts[end].manifold) == (c0.pair, c0.manifold) {
                end += 1;
            }
            let run = &contacts[start..end];
            let deepest = run.iter().enumerate().fold(0, |best, (k, c)| if c.dist < run[best].dist { k } else { best });
            let dmin = run[deepest].dist;
            let first = self.points.len() as u32;
            let (a, b) = (c0.a, c0.b);
            let (pa, pb) = (&self.pred.bodies[a], &self.pred.bodies[b]);
            let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
            for (k, c) in run.iter().enumerate() {
                let keep = if self.params.point_window > 0.0 { c.dist <= dmin + self.params.point_window } else { k == deepest };
                if !keep {
                    continue;
                }
                let p = 0.5 * (c.point_a + c.point_b);
                let (ra, rb) = (p - pa.x, p - pb.x);
                let u = (bb.v + bb.w.cross(rb)) - (ba.v + ba.w.cross(ra));
                self.points.push(Point { ra, rb, n: c.normal, d0: c.dist, un0: u.dot(c.normal) });
            }
            let (mu_k, mu_s, e) = model.pair_material(a, b);
            self.groups.push(Group {
                a: a as u32,
                b: b as u32,
                first,
                len: self.points.len() as u32 - first,
                at: 0.5 * (run[deepest].point_a + run[deepest].point_b),
                coefficients: Coefficients { restitution: e, friction: mu_k, static_friction: mu_s },
            });
            start = end;
        }
    }

    /// The processing order: with `ordering`, the report's one traversal of the acceleration-axis and the
    /// velocity-axis orders; without, detection order (by body pair).
    fn traversal(&mut self, model: &Model) {
        let ng = self.groups.len();
        self.order.clear();
        if !self.params.ordering || ng == 0 {
            self.order.extend(0..ng as u32);
            return;
        }
        // main axes: total external force and total momentum of the dynamic bodies
        let mut force = Vec3::ZERO;
        let mut momentum = Vec3::ZERO;
        for (i, b) in model.bodies.iter().enumerate() {
            if self.awake[i] {
                force += external_wrench(model, &self.pred.applied, i, self.pred.time).0;
                momentum += b.mass * self.bodies[i].v;
            }
        }
        let axis = |v: Vec3| if v.length() > 1e-12 { Some(v.normalize()) } else { None };
        let (by_acc, by_vel, seen) = &mut self.scratch;
        let groups = &self.groups;
        let sorted = |out: &mut Vec<u32>, ax: Vec3| {
            out.clear();
            out.extend(0..ng as u32);
            // farthest along the axis first; ties keep detection order (stable sort)
            out.sort_by(|&i, &j| groups[j as usize].at.dot(ax).total_cmp(&groups[i as usize].at.dot(ax)));
        };
        match (axis(force), axis(momentum)) {
            (None, None) => self.order.extend(0..ng as u32),
            (Some(ax), None) | (None, Some(ax)) => {
                sorted(by_acc, ax);
                self.order.extend_from_slice(by_acc);
            }
            (Some(aa), Some(av)) => {
                sorted(by_acc, aa);
                sorted(by_vel, av);
                seen.clear();
                seen.resize(ng, false);
                let (mut i, mut j) = (0, 0);
                while self.order.len() < ng {
                    for (list, k) in [(&*by_acc, &mut i), (&*by_vel, &mut j)] {
                        while *k < ng && seen[list[*k] as usize] {
                            *k += 1;
                        }
                        if *k < ng {
                            seen[list[*k] as usize] = true;
                            self.order.push(list[*k]);
                        }
                    }
                }
            }
        }
    }
}
