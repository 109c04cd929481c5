//! A ball joint's spring and damper on its relative rotation (MJCF `stiffness` and `damping` on a ball joint;
//! `Joint::ball_stiffness`, `Joint::ball_damping`): the torque −k·θ − d·ω_rel on the child and its opposite on
//! the parent, θ the rotation vector from the rest rotation `Joint::ball_rest` to the child's rotation relative
//! to its parent (world frame), ω_rel = ω_child − ω_parent. It is taken at the start of each step and held
//! over it, as the actuators' forces are, so every method runs it; linearly implicit in the pair's own rotation
//! so that no gain can make it unstable: with K = I₁⁻¹ + I₂⁻¹ (world frame, dynamic sides only), the rate at
//! the step's end ω⁺ = (1 + hK(αhk + d))⁻¹(ω_rel − hKkθ) and the torque T = kθ + (αhk + d)ω⁺: the damper
//! implicit (backward Euler on the two bodies' rotation alone, as MuJoCo's Euler integrator takes joint
//! damping), the spring explicit (α = 0, as MuJoCo's) while β = h²k·tr K ≤ 1 and implicit by α = 1 − 1/β
//! beyond. MuJoCo's ball-joint spring is −k times the quaternion difference from the model's pose. See
//! docs/robots.md (joint `stiffness`, `damping`).

use crate::dynamics::integrate::{inv_inertia_world, Applied};
use crate::math::{Mat3, Quat, Vec3};
use crate::model::{BodyKind, Joint, JointType, Model};
use crate::state::State;

fn sprung(j: &Joint) -> bool {
    j.kind == JointType::Ball && (j.ball_damping > 0.0 || j.ball_stiffness > 0.0)
}

/// Whether any joint of `model` has a ball-joint spring or damper.
pub fn any(model: &Model) -> bool {
    model.joints.iter().any(sprung)
}

/// The rotation vector of `q` (angle ≤ π), rad.
fn rotation_vector(q: Quat) -> Vec3 {
    let q = if q.w < 0.0 { -q } else { q };
    let s = q.xyz().length();
    if s < 1e-12 {
        return q.xyz() * 2.0;
    }
    q.xyz() * (2.0 * s.atan2(q.w) / s)
}

/// The spring and damping torques of the ball joints at `state` over a step of `h`, appended to `out` (none
/// where the joint is at rest and still, so that a resting body is not kept awake).
pub fn wrenches(model: &Model, state: &State, h: f64, out: &mut Vec<Applied>) {
    let moving = |b: usize| model.bodies[b].kind == BodyKind::Dynamic;
    for j in model.joints.iter().filter(|j| sprung(j)) {
        // body 1 is the parent and body 2 the child; a joint to the world has the child as body 1
        let (child, parent) = match j.body2 {
            Some(c) => (c, Some(j.body1)),
            None => (j.body1, None),
        };
        let w_rel = state.bodies[child].w - parent.map_or(Vec3::ZERO, |p| state.bodies[p].w);
        let q_parent = parent.map_or(Quat::IDENTITY, |p| state.bodies[p].q);
        let theta = if j.ball_stiffness > 0.0 {
            q_parent * rotation_vector(q_parent.inverse() * state.bodies[child].q * j.ball_rest.inverse())
        } else {
            Vec3::ZERO
        };
        let mut k = Mat3::ZERO;
        for b in [Some(child), parent].into_iter().flatten().filter(|&b| moving(b)) {
            k += inv_inertia_world(model, b, state.bodies[b].q);
        }
        if (w_rel == Vec3::ZERO && theta == Vec3::ZERO) || k == Mat3::ZERO {
            continue;
        }
        let (d, ks) = (j.ball_damping, j.ball_stiffness);
        let spring = theta * ks;
        // the spring's share taken at the step's end: none while symplectic Euler holds it (β = h²k·tr K ≤ 1),
        // rising to all of it for stiff springs (det of the step's map 1/β < 1 there: stable at any gain)
        let beta = h * h * ks * (k.col(0).x + k.col(1).y + k.col(2).z);
        let alpha = if beta > 1.0 { 1.0 - 1.0 / beta } else { 0.0 };
        let c = alpha * h * ks + d;
        let w_end = (Mat3::IDENTITY + k * (h * c)).inverse() * (w_rel - k * (spring * h));
        let t = spring + w_end * c;
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

    /// A body turned 0.5 rad from its rest on a sprung ball joint, nothing else acting: a spring that symplectic
    /// Euler holds (β = 0.25) swings back through its rest with its amplitude kept (within 2%), and one 400 times stiffer (β =
    /// 100, explicit Euler would blow up) only settles, never swinging past 0.5 rad.
    #[test]
    fn a_sprung_body_swings_back_and_a_stiff_spring_stays_bounded() {
        let text = "format = 1\n[world]\nmethod = \"lcp\"\ngravity = [0.0, 0.0, 0.0]\ndt = 0.01\nsleep = false\n\
[[body]]\nname = \"top\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = 1.0\nrotation_deg = [0.0, 0.0, 28.64788975654116]\n\
[[joint]]\ntype = \"ball\"\nbody1 = \"top\"\nanchor = [0.0, 0.0, 0.0]\n";
        for (beta, steps) in [(0.25, 200), (100.0, 200)] {
            let mut w = World::from_scene_text(text, "ball spring").unwrap();
            let i = w.model.bodies[0].inertia.col(2).z;
            w.model.joints[0].ball_stiffness = beta * i / (3.0 * 0.01 * 0.01);
            let angle = |w: &World| super::rotation_vector(w.state.bodies[0].q).z;
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for _ in 0..steps {
                w.step().unwrap();
                lo = lo.min(angle(&w));
                hi = hi.max(angle(&w));
                // symplectic Euler's swing reaches its amplitude within O(hΩ) (hΩ = √(β/3) = 0.29 here)
                let bound = if beta < 1.0 { 0.5 * 1.02 } else { 0.5 + 1e-9 };
                assert!(angle(&w).abs() <= bound, "β {beta}: {}", angle(&w));
            }
            if beta < 1.0 {
                assert!(lo < -0.49 && hi > 0.49, "β {beta}: swung between {lo} and {hi}");
            } else {
                assert!(angle(&w).abs() < 0.5 && lo > -0.5, "β {beta}: {lo} .. {}", angle(&w));
            }
        }
    }

    #[test]
    fn the_rotation_vector_is_the_axis_times_the_angle() {
        use crate::math::{Quat, Vec3};
        let axis = Vec3::new(1.0, -2.0, 0.5).normalize();
        for angle in [1e-9, 0.3, 2.0, 3.1] {
            let v = super::rotation_vector(Quat::from_axis_angle(axis, angle));
            assert!((v - axis * angle).length() < 1e-12 * angle.max(1.0), "{angle}: {v}");
            // the same rotation given as −q
            let v = super::rotation_vector(-Quat::from_axis_angle(axis, angle));
            assert!((v - axis * angle).length() < 1e-12 * angle.max(1.0), "{angle}, −q: {v}");
        }
    }
}
