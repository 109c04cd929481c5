//! Generalised coordinates in MuJoCo's layout (`qpos`, `qvel`), read from the bodies' state and written back to
//! it by forward kinematics, so that a robot's state can be read and set joint by joint whatever the method.
//!
//! Layout: first each *free root* (a dynamic body that no joint hangs on a parent or the world), in body order:
//! qpos its reference-frame origin (3) and orientation [w, x, y, z] (4), qvel the origin's velocity (world frame,
//! 3) and the angular velocity in the body's frame (3), as a MuJoCo free joint; then every joint with a
//! coordinate (hinge, prismatic), in joint order: q and q̇ (`joint::coordinates`). Ball and fixed joints have no
//! entry: what hangs below them moves with their parent.

use super::joint::{wrap_angle, JointPose};
use super::tree;
use crate::math::{Quat, Vec3};
use crate::model::{BodyKind, JointType, Model};
use crate::state::{BodyState, State};

/// Where each entry of qpos and qvel comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The free roots, in body order (7 qpos and 6 qvel entries each).
    pub free: Vec<usize>,
    /// The joints with a coordinate, in joint order (one entry each).
    pub joints: Vec<usize>,
}

impl Layout {
    pub fn of(model: &Model) -> Layout {
        let mut hung = vec![false; model.bodies.len()];
        for j in &model.joints {
            hung[j.body2.unwrap_or(j.body1)] = true;
        }
        let free = (0..model.bodies.len()).filter(|&b| model.bodies[b].kind == BodyKind::Dynamic && !hung[b]).collect();
        let joints = (0..model.joints.len()).filter(|&k| matches!(model.joints[k].kind, JointType::Hinge | JointType::Prismatic)).collect();
        Layout { free, joints }
    }

    pub fn nq(&self) -> usize {
        7 * self.free.len() + self.joints.len()
    }

    pub fn nv(&self) -> usize {
        6 * self.free.len() + self.joints.len()
    }

    /// The names of qpos's entries: `body:x`, `body:y`, `body:z`, `body:qw` … `body:qz`, then the joints' names.
    pub fn qpos_names(&self, model: &Model) -> Vec<String> {
        self.names(model, &["x", "y", "z", "qw", "qx", "qy", "qz"])
    }

    /// The names of qvel's entries: `body:vx` … `body:vz`, `body:wx` … `body:wz`, then the joints' names.
    pub fn qvel_names(&self, model: &Model) -> Vec<String> {
        self.names(model, &["vx", "vy", "vz", "wx", "wy", "wz"])
    }

    fn names(&self, model: &Model, parts: &[&str]) -> Vec<String> {
        let free = self.free.iter().flat_map(|&b| parts.iter().map(move |p| format!("{}:{p}", model.bodies[b].name)));
        free.chain(self.joints.iter().map(|&k| model.joint_name(k))).collect()
    }

    /// qpos at the state.
    pub fn qpos(&self, model: &Model, state: &State) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.nq());
        for &b in &self.free {
            let q = state.bodies[b].q;
            out.extend(state.origin(model, b).to_array());
            out.extend([q.w, q.x, q.y, q.z]);
        }
        let coords = super::joint::coordinates(model, state);
        out.extend(self.joints.iter().map(|&k| coords.iter().find(|c| c.0 == k).map_or(f64::NAN, |c| c.1)));
        out
    }

    /// qvel at the state.
    pub fn qvel(&self, model: &Model, state: &State) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.nv());
        for &b in &self.free {
            let s = &state.bodies[b];
            let v = s.v + s.w.cross(state.origin(model, b) - s.x);
            out.extend(v.to_array());
            out.extend((s.q.inverse() * s.w).to_array());
        }
        let coords = super::joint::coordinates(model, state);
        out.extend(self.joints.iter().map(|&k| coords.iter().find(|c| c.0 == k).map_or(f64::NAN, |c| c.2)));
        out
    }

    /// The bodies' poses for `qpos` (velocities untouched): each free root's subtree moved rigidly to the root's
    /// pose, then each joint's subtree turned (or slid) about its axis by the coordinate's change. Joints are
    /// taken in any order: moving a joint's subtree changes no other joint's coordinate in a tree.
    pub fn place(&self, model: &Model, bodies: &mut [BodyState], qpos: &[f64]) {
        let parents = tree::parents(model);
        let n = bodies.len();
        let below = |root: usize| -> Vec<usize> { (0..n).filter(|&b| tree::is_below(&parents, b, root)).collect() };
        for (i, &r) in self.free.iter().enumerate() {
            let p = &qpos[7 * i..7 * i + 7];
            let rotation = Quat::from_xyzw(p[4], p[5], p[6], p[3]).normalize();
            let position = Vec3::new(p[0], p[1], p[2]);
            let old_origin = bodies[r].x - bodies[r].q * model.bodies[r].com;
            let turn = rotation * bodies[r].q.inverse();
            for b in below(r) {
                let s = &mut bodies[b];
                s.x = position + turn * (s.x - old_origin);
                s.q = (turn * s.q).normalize();
            }
        }
        for (i, &k) in self.joints.iter().enumerate() {
            let j = &model.joints[k];
            let pose = JointPose::of(model, j, bodies);
            let Some(row) = pose.coordinate_row(j.kind) else { continue };
            let (child, side) = match j.body2 {
                Some(c) => (c, 1),
                None => (j.body1, 0),
            };
            let target = qpos[7 * self.free.len() + i];
            let axis = pose.axis[0];
            let members = below(child);
            if j.kind == JointType::Hinge {
                let gain = row.ang[side].dot(axis);
                let angle = wrap_angle(target - row.c) / gain;
                let (pivot, turn) = (pose.p[side], Quat::from_axis_angle(axis, angle));
                for b in members {
                    let s = &mut bodies[b];
                    s.x = pivot + turn * (s.x - pivot);
                    s.q = (turn * s.q).normalize();
                }
            } else {
                let shift = axis * ((target - row.c) / row.lin[side].dot(axis));
                for b in members {
                    bodies[b].x += shift;
                }
            }
        }
    }

    /// The bodies' velocities for `qvel` at their poses now: each free root's subtree moves rigidly with it (the
    /// bodies on no free root start at rest), and each joint adds its rate's twist about its axis to its subtree.
    pub fn set_velocities(&self, model: &Model, bodies: &mut [BodyState], qvel: &[f64]) {
        let parents = tree::parents(model);
        let dynamic = |b: usize| model.bodies[b].kind == BodyKind::Dynamic;
        for (b, s) in bodies.iter_mut().enumerate() {
            if dynamic(b) {
                s.v = Vec3::ZERO;
                s.w = Vec3::ZERO;
            }
        }
        for (i, &r) in self.free.iter().enumerate() {
            let p = &qvel[6 * i..6 * i + 6];
            let origin = bodies[r].x - bodies[r].q * model.bodies[r].com;
            let w = bodies[r].q * Vec3::new(p[3], p[4], p[5]);
            let v = Vec3::new(p[0], p[1], p[2]);
            let members: Vec<usize> = (0..bodies.len()).filter(|&b| dynamic(b) && tree::is_below(&parents, b, r)).collect();
            for b in members {
                let s = &mut bodies[b];
                s.v = v + w.cross(s.x - origin);
                s.w = w;
            }
        }
        for (i, &k) in self.joints.iter().enumerate() {
            let j = &model.joints[k];
            let pose = JointPose::of(model, j, bodies);
            let Some(row) = pose.coordinate_row(j.kind) else { continue };
            let (child, side) = match j.body2 {
                Some(c) => (c, 1),
                None => (j.body1, 0),
            };
            let rate = qvel[6 * self.free.len() + i];
            let axis = pose.axis[0];
            let members: Vec<usize> = (0..bodies.len()).filter(|&b| dynamic(b) && tree::is_below(&parents, b, child)).collect();
            if j.kind == JointType::Hinge {
                let (w, pivot) = (axis * (rate / row.ang[side].dot(axis)), pose.p[side]);
                for b in members {
                    let s = &mut bodies[b];
                    s.v += w.cross(s.x - pivot);
                    s.w += w;
                }
            } else {
                let v = axis * (rate / row.lin[side].dot(axis));
                for b in members {
                    bodies[b].v += v;
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "generalized_tests.rs"]
mod tests;
