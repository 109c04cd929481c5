//! Damping on a ball joint's relative rotation (MJCF `damping` on a ball joint; `Joint::ball_damping`): the
//! torque −d·ω_rel on the child and +d·ω_rel on the parent, ω_rel = ω_child − ω_parent. It is taken at the start
//! of each step and held over it, as the actuators' forces are, so every method runs it; linearly implicit in
//! the pair's own rotation so that no gain can make it overshoot: with K = I₁⁻¹ + I₂⁻¹ (world frame, dynamic
//! sides only), T = d·(1 + h·d·K)⁻¹·ω_rel, the torque of backward Euler on the two bodies' rotation alone.
//! See docs/robots.md (joint `damping`).

use crate::dynamics::integrate::{inv_inertia_world, Applied};
use crate::math::{Mat3, Vec3};
use crate::model::{BodyKind, JointType, Model};
use crate::state::State;

/// Whether any joint of `model` has ball damping.
pub fn any(model: &Model) -> bool {
    model.joints.iter().any(|j| j.kind == JointType::Ball && j.ball_damping > 0.0)
}

/// The damping torques of the ball joints at `state` over a step of `h`, appended to `out` (none where the
/// relative rotation is still, so that a resting body is not kept awake).
pub fn wrenches(model: &Model, state: &State, h: f64, out: &mut Vec<Applied>) {
    let moving = |b: usize| model.bodies[b].kind == BodyKind::Dynamic;
    for j in model.joints.iter().filter(|j| j.kind == JointType::Ball && j.ball_damping > 0.0) {
        // body 1 is the parent and body 2 the child; a joint to the world has the child as body 1
        let (child, parent) = match j.body2 {
            Some(c) => (c, Some(j.body1)),
            None => (j.body1, None),
        };
        let w_rel = state.bodies[child].w - parent.map_or(Vec3::ZERO, |p| state.bodies[p].w);
        let mut k = Mat3::ZERO;
        for b in [Some(child), parent].into_iter().flatten().filter(|&b| moving(b)) {
            k += inv_inertia_world(model, b, state.bodies[b].q);
        }
        if w_rel == Vec3::ZERO || k == Mat3::ZERO {
            continue;
        }
        let d = j.ball_damping;
        let t = (Mat3::IDENTITY + k * (h * d)).inverse() * w_rel * d;
        out.push(Applied { body: child, force: Vec3::ZERO, torque: -t });
        if let Some(p) = parent {
            out.push(Applied { body: p, force: Vec3::ZERO, torque: t });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::world::World;

    /// A body spinning on a ball joint to the world, nothing else acting: each step multiplies its spin by
    /// (1 + h·d/I)⁻¹ exactly (backward Euler), for a gain explicit damping could not take (h·d/I = 50).
    #[test]
    fn a_spinning_body_decays_as_backward_euler_for_any_gain() {
        let text = "format = 1\n[world]\nmethod = \"lcp\"\ngravity = [0.0, 0.0, 0.0]\ndt = 0.01\nsleep = false\n\
[[body]]\nname = \"top\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = 1.0\nangular_velocity = [0.0, 0.0, 2.0]\n\
[[joint]]\ntype = \"ball\"\nbody1 = \"top\"\nanchor = [0.0, 0.0, 0.0]\n";
        let mut w = World::from_scene_text(text, "ball damping").unwrap();
        let i = w.model.bodies[0].inertia.col(2).z;
        let d = 50.0 * i / 0.01;
        w.model.joints[0].ball_damping = d;
        for k in 1..=5 {
            w.step().unwrap();
            let want = 2.0 / (1.0 + 0.01 * d / i).powi(k);
            let got = w.state.bodies[0].w.z;
            assert!((got - want).abs() < 1e-9 * 2.0, "step {k}: {got} vs {want}");
        }
    }
}
