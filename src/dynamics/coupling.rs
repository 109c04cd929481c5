//! Soft equalities between joint coordinates (MJCF `<equality><joint>`: a gripper's mirrored fingers, a
//! linkage's coupled joints) or fixed tendons (`<equality><tendon>`: a leg's coupled hip and knee): joint (or
//! tendon) 1's displacement from its load pose held at a polynomial of the second's,
//! y − y₀ = c₀ + c₁(x − x₀) + c₂(x − x₀)² + c₃(x − x₀)³ + c₄(x − x₀)⁴, or at c₀ alone without a second.
//! MuJoCo holds an equality as a soft constraint (its `solref`, `solimp`); here it is a spring-damper on the
//! residual r (`soft_constraint`), acting on both coordinates (Q₁ = F, Q₂ = F ∂r/∂x with F = −K r − B ṙ)
//! through the actuators' path, so every method runs it. A fixed tendon's length limit is the same spring on its
//! distance outside the range, pushing only. See docs/robots.md, "Equality constraints".

use crate::model::Model;
use crate::state::State;

/// One equality between joint coordinates or fixed tendons (model joint indices).
#[derive(Debug, Clone, PartialEq)]
pub struct Coupling {
    /// The file's name of the equality (may be empty), for messages.
    pub name: String,
    /// y: a joint (coefficient 1) or a fixed tendon's joints and coefficients, y = Σ c (q − q₀).
    pub first: Vec<(usize, f64)>,
    /// x, the same way; empty: y is held at c₀.
    pub second: Vec<(usize, f64)>,
    /// c₀ … c₄.
    pub poly: [f64; 5],
    /// Spring on the residual, N·m/rad or N/m.
    pub stiffness: f64,
    /// Damper on the residual's rate, N·m·s/rad or N·s/m.
    pub damping: f64,
    /// A limit instead of an equality (MJCF fixed tendon `range`): y = Σ c q (the coordinates in the file's
    /// units, MuJoCo's tendon length) kept in [lo, hi], the residual its distance outside; the force only pushes
    /// back in. `second` is then empty and `poly` unused.
    pub range: Option<[f64; 2]>,
}

/// A side's displacement from the load pose and its rate at the state; `None` when a joint has no coordinate
/// (a ball or fixed joint, refused at load).
fn side(model: &Model, state: &State, parts: &[(usize, f64)]) -> Option<(f64, f64)> {
    let (mut value, mut rate) = (0.0, 0.0);
    for &(j, c) in parts {
        let (row, r) = super::actuator::joint_row(model, state, j)?;
        value += c * (row.c - model.joints[j].offset);
        rate += c * r;
    }
    Some((value, rate))
}

/// The residual r = y − poly(x), its rate and ∂r/∂x, at the state (for a limit: y's distance outside its range,
/// 0 inside).
pub fn residual(model: &Model, state: &State, c: &Coupling) -> Option<(f64, f64, f64)> {
    let (y, ydot) = side(model, state, &c.first)?;
    if let Some([lo, hi]) = c.range {
        // the length in the file's units: the displacement plus the load pose's length
        let y = y + c.first.iter().map(|&(j, k)| k * model.joints[j].offset).sum::<f64>();
        let r = y - y.clamp(lo, hi);
        return Some((r, if r == 0.0 { 0.0 } else { ydot }, 0.0));
    }
    let (x, xdot) = side(model, state, &c.second)?;
    let p = &c.poly;
    let value = p[0] + x * (p[1] + x * (p[2] + x * (p[3] + x * p[4])));
    let slope = p[1] + x * (2.0 * p[2] + x * (3.0 * p[3] + x * 4.0 * p[4]));
    Some((y - value, ydot - slope * xdot, -slope))
}

/// The generalised force of every coupling on each joint's coordinate (one entry per model joint; empty when
/// the model has none).
pub fn joint_forces(model: &Model, state: &State) -> Vec<f64> {
    if model.couplings.is_empty() {
        return Vec::new();
    }
    let mut q = vec![0.0; model.joints.len()];
    for c in &model.couplings {
        let Some((r, rate, dr_dx)) = residual(model, state, c) else { continue };
        let mut f = -c.stiffness * r - c.damping * rate;
        if c.range.is_some() {
            // a limit pushes back in, never pulls out
            f = if r > 0.0 {
                f.min(0.0)
            } else if r < 0.0 {
                f.max(0.0)
            } else {
                0.0
            };
        }
        for &(j, k) in &c.first {
            q[j] += f * k;
        }
        for &(j, k) in &c.second {
            q[j] += f * dr_dx * k;
        }
    }
    q
}

/// The spring and damper standing for MuJoCo's soft constraint with `solref` (time constant τ, damping ratio ζ)
/// and `solimp`'s upper impedance `dmax` = d on a residual of effective inertia `inertia`, for time step `dt`.
/// MuJoCo's residual follows r̈ = (1 − d) r̈_free − d (b ṙ + k r), k = 1/(d² τ² ζ²), b = 2/(d τ): a force that
/// cancels the share d of the other forces' pull plus a spring. A spring alone holds a steady pull with the
/// same residual when its stiffness is m k d/(1 − d); that is the spring here, capped where an explicit spring
/// stays stable (ω·dt ≤ ½), and the damper gives it the damping ratio ζ. τ is raised to 2·`dt` at least, as
/// MuJoCo does; a negative `solref` gives k and b directly (−stiffness, −damping).
pub fn soft_constraint(solref: [f64; 2], dmax: f64, inertia: f64, dt: f64) -> (f64, f64) {
    let (k, zeta) = if solref[0] < 0.0 {
        let (k, b) = (-solref[0] / (dmax * dmax), -solref[1].min(0.0) / dmax);
        (k, if k > 0.0 { b / (2.0 * k.sqrt()) } else { 1.0 })
    } else {
        let tau = solref[0].max(2.0 * dt);
        (1.0 / (dmax * dmax * tau * tau * solref[1] * solref[1]), solref[1])
    };
    let omega2 = (k * dmax / (1.0 - dmax)).min((0.5 / dt).powi(2));
    let stiffness = inertia * omega2;
    (stiffness, 2.0 * zeta * (stiffness * inertia).sqrt())
}
