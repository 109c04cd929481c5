//! Geometric stiffness of the joints in `lcp`'s velocity solves: the mass matrix of a jointed body is augmented
//! to M̃ = M + h²K̃ with K̃ the stiffness of the joint forces it carries, lagged one step (their impulses of the
//! previous step, `State::carry`).
//!
//! Source: S. Andrews, M. Teichmann, P. G. Kry, "Geometric Stiffness for Real-time Constrained Multibody
//! Dynamics", Computer Graphics Forum 36(2) (Eurographics 2017); K̃ per body is the rotational block of the point
//! rows, symmetrised and made positive semi-definite (`stiff` is h²K̃). Why: the tension's restoring torque is
//! otherwise explicit and a loaded chain's links zig-zag unstably. See docs/methods/lcp.md, "Geometric stiffness".

use super::Lcp;
use crate::dynamics::joint::JointPose;
use crate::math::eigen::project_psd;
use crate::math::{Mat3, Vec3};
use crate::model::Model;
use crate::state::State;

/// K = (f·r) I − r fᵀ: the stiffness of a force `f` (fixed in the world) applied at lever arm `r` of a body
/// against the body's rotation (the torque r × f changes by −K δθ).
pub(super) fn force_stiffness(f: Vec3, r: Vec3) -> Mat3 {
    Mat3::from_diagonal(Vec3::splat(f.dot(r))) - Mat3::from_cols(r * f.x, r * f.y, r * f.z)
}

impl Lcp {
    /// Fills `stiff` (h²K̃ per body, positive semi-definite) from the joints' impulses of the previous step at
    /// the current poses, and gives the velocity solves the augmented inverse inertia (M + h²K̃)⁻¹ of every body
    /// that carries a joint force. The correction by projection keeps the true inertia (`true_inertia`).
    pub(super) fn stiffen(&mut self, model: &Model, state: &State, h: f64) {
        let n = model.bodies.len();
        self.stiff.clear();
        self.stiff.resize(n, Mat3::ZERO);
        if !self.params.geometric_stiffness || model.joints.is_empty() || self.joint_warm.len() != model.joints.len() {
            return;
        }
        let mut rows = std::mem::take(&mut self.row_buf);
        for (k, j) in model.joints.iter().enumerate() {
            let pose = JointPose::of(model, j, &state.bodies);
            rows.clear();
            pose.bilateral_rows(j.kind, &mut rows);
            let warm = &self.joint_warm[k].impulse;
            // the linear impulse the joint's rows applied to each side over the previous step
            let mut p = [Vec3::ZERO; 2];
            for (slot, r) in rows.iter().enumerate() {
                let lambda = warm[0][slot] + warm[1][slot];
                p[0] += r.lin[0] * lambda;
                p[1] += r.lin[1] * lambda;
            }
            for (s, body) in [(0, Some(j.body1)), (1, j.body2)] {
                if let Some(b) = body {
                    // h²K with f = p/h
                    self.stiff[b] += force_stiffness(p[s], pose.p[s] - pose.c[s]) * h;
                }
            }
        }
        self.row_buf = rows;
        for (b, k) in self.stiff.iter_mut().enumerate() {
            if *k == Mat3::ZERO || !self.awake[b] {
                *k = Mat3::ZERO;
                continue;
            }
            let mut a = [[0.0; 3]; 3];
            for (i, row) in a.iter_mut().enumerate() {
                for (j, x) in row.iter_mut().enumerate() {
                    *x = 0.5 * (k.col(j)[i] + k.col(i)[j]);
                }
            }
            project_psd(&mut a);
            *k = Mat3::from_cols_array_2d(&a).transpose();
            let inertia = self.bodies[b].inv_i.inverse();
            self.bodies[b].inv_i = (inertia + *k).inverse();
        }
    }

    /// Gives every dynamic body its true inverse inertia again (after the velocity solves, before a correction
    /// that follows them).
    pub(super) fn true_inertia(&mut self, model: &Model, state: &State) {
        for i in 0..model.bodies.len() {
            if self.awake[i] && self.stiff.get(i).is_some_and(|k| *k != Mat3::ZERO) {
                self.bodies[i].inv_i = self.inv_inertia(model, i, state.bodies[i].q);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    /// The torque r × f of a force fixed in the world, applied at a point turning with the body: its derivative
    /// with respect to a small rotation δθ is −K δθ (central differences).
    #[test]
    fn force_stiffness_is_the_derivative_of_the_torque() {
        let (f, r) = (Vec3::new(0.3, -1.2, 2.0), Vec3::new(0.05, 0.4, -0.2));
        let k = force_stiffness(f, r);
        let eps = 1e-6;
        for axis in Vec3::AXES {
            let torque = |t: f64| (Quat::from_scaled_axis(axis * t) * r).cross(f);
            let fd = (torque(eps) - torque(-eps)) / (2.0 * eps);
            let err = (fd + k * axis).length();
            assert!(err < 1e-8, "axis {axis}: fd {fd}, −K δθ {}", -(k * axis));
        }
    }

    /// A link pulled straight by tension at its end is stiff (K ≥ 0) against turning out of line, with K = T·|r|
    /// about the two axes across it, and nothing about its own axis.
    #[test]
    fn tension_stiffens_and_compression_is_dropped() {
        let (t, r) = (3.0, Vec3::new(0.025, 0.0, 0.0));
        let k = force_stiffness(Vec3::new(t, 0.0, 0.0), r);
        assert_eq!(k, Mat3::from_diagonal(Vec3::new(0.0, t * 0.025, t * 0.025)));
        let mut a = [[0.0; 3]; 3];
        let c = force_stiffness(Vec3::new(-t, 0.0, 0.0), r);
        for (i, row) in a.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x = c.col(j)[i];
            }
        }
        project_psd(&mut a);
        assert!(a.iter().flatten().all(|x| x.abs() < 1e-15), "{a:?}");
    }
}
