//! Spatial tendons through sites (MJCF `<spatial>` of `<site>`s only, no wrapping): a string whose length is
//! the sum of the straight segments between consecutive sites. Its spring and damper (`stiffness` about the
//! load pose's length, `damping`) and its length limit (`range`, MuJoCo's soft limit as the same spring an
//! equality gets, pushing back in only: a rope) pull with a tension T along each segment, at the sites, taken
//! at the start of the step and held over it like the actuators' forces, so every method runs it.

use crate::dynamics::actuator::site_pose;
use crate::dynamics::integrate::Applied;
use crate::math::Vec3;
use crate::model::{BodyKind, Model};
use crate::state::State;

/// One spatial tendon (model site indices).
#[derive(Debug, Clone, PartialEq)]
pub struct SiteTendon {
    pub name: String,
    /// Two or more sites, in order along the tendon.
    pub sites: Vec<usize>,
    /// Spring on the length about `rest` (N/m) and damper on its rate (N·s/m).
    pub stiffness: f64,
    pub damping: f64,
    /// The load pose's length.
    pub rest: f64,
    /// The length's range, with the spring and damper holding it (N/m, N·s/m).
    pub limit: Option<([f64; 2], f64, f64)>,
}

/// The length, its rate and each site's share of the length's gradient (∂L/∂p_i, a world vector) at the state.
fn length(model: &Model, state: &State, t: &SiteTendon) -> (f64, f64, Vec<Vec3>) {
    let at: Vec<Vec3> = t.sites.iter().map(|&s| site_pose(model, state, s).0).collect();
    let vel: Vec<Vec3> =
        t.sites.iter().zip(&at).map(|(&s, &p)| crate::dynamics::actuator::point_velocity(state, model.sites[s].body, p)).collect();
    let (mut l, mut rate) = (0.0, 0.0);
    let mut grad = vec![Vec3::ZERO; at.len()];
    for i in 0..at.len() - 1 {
        let d = at[i + 1] - at[i];
        let len = d.length();
        l += len;
        let Some(u) = d.try_normalize() else { continue };
        rate += u.dot(vel[i + 1] - vel[i]);
        grad[i] -= u;
        grad[i + 1] += u;
    }
    (l, rate, grad)
}

/// The tendon's length at the state.
pub fn length_at(model: &Model, state: &State, t: &SiteTendon) -> f64 {
    length(model, state, t).0
}

/// The tension (positive pulls the sites together) of tendon `t` at the state.
pub fn tension(model: &Model, state: &State, t: &SiteTendon) -> f64 {
    let (l, rate, _) = length(model, state, t);
    let mut tension = t.stiffness * (l - t.rest) + t.damping * rate;
    if let Some(([lo, hi], k, b)) = t.limit {
        let r = l - l.clamp(lo, hi);
        let f = k * r + b * rate;
        // the limit pulls back in (a tension above the range, a push below it), never out
        tension += if r > 0.0 {
            f.max(0.0)
        } else if r < 0.0 {
            f.min(0.0)
        } else {
            0.0
        };
    }
    tension
}

/// The tendons' forces at the state, as wrenches on their sites' bodies (added to `out`).
pub fn wrenches(model: &Model, state: &State, out: &mut Vec<Applied>) {
    for t in &model.site_tendons {
        let tension = tension(model, state, t);
        if tension == 0.0 {
            continue;
        }
        let (_, _, grad) = length(model, state, t);
        for (&s, g) in t.sites.iter().zip(grad) {
            let body = model.sites[s].body;
            if model.bodies[body].kind != BodyKind::Dynamic {
                continue;
            }
            let p = site_pose(model, state, s).0;
            let force = -g * tension;
            out.push(Applied { body, force, torque: (p - state.bodies[body].x).cross(force) });
        }
    }
}

/// The inertia the length carries at the state: 1/Σ_b (|G_b|²/m_b + τ_bᵀ I_b⁻¹ τ_b), G_b and τ_b the force
/// and torque a unit tension puts on body b (0 where no body can move).
pub fn inertia(model: &Model, state: &State, t: &SiteTendon) -> f64 {
    let (_, _, grad) = length(model, state, t);
    let mut per_body: Vec<(usize, Vec3, Vec3)> = Vec::new();
    for (&s, g) in t.sites.iter().zip(grad) {
        let body = model.sites[s].body;
        let p = site_pose(model, state, s).0;
        let torque = (p - state.bodies[body].x).cross(g);
        match per_body.iter_mut().find(|e| e.0 == body) {
            Some(e) => {
                e.1 += g;
                e.2 += torque;
            }
            None => per_body.push((body, g, torque)),
        }
    }
    let inverse: f64 = per_body
        .iter()
        .filter(|(b, _, _)| model.bodies[*b].kind == BodyKind::Dynamic)
        .map(|&(b, f, tq)| {
            let inv_i = crate::dynamics::integrate::inv_inertia_world(model, b, state.bodies[b].q);
            f.length_squared() / model.bodies[b].mass + tq.dot(inv_i * tq)
        })
        .sum();
    if inverse > 0.0 {
        1.0 / inverse
    } else {
        0.0
    }
}
