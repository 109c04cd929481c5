//! The `[[proxy]]` tables of a scene (an extension of format 1, documented in the README): a dynamic body driven
//! through a 6-DoF virtual coupling towards a scripted target path.
//!
//! ```toml
//! [[proxy]]
//! body = "hand"                    # a dynamic body
//! stiffness = 2000.0               # N/m; default: critically damped at ω₀ = 0.3/dt for the body's mass
//! damping = 60.0                   # N·s/m
//! angular_stiffness = 50.0         # N·m/rad; default from the smallest principal moment
//! angular_damping = 1.0            # N·m·s/rad
//! path = [                         # waypoints of the body's reference frame, strictly increasing times
//!   { time = 0.0, position = [0.0, 0.0, 1.0] },
//!   { time = 2.0, position = [1.0, 0.0, 1.0], rotation_deg = [0.0, 0.0, 30.0] },
//! ]
//! ```

use super::{finite, vec3};
use crate::dynamics::proxy::{default_gains, Proxy, Waypoint};
use crate::math::Quat;
use crate::model::{Body, BodyKind};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProxyT {
    body: String,
    stiffness: Option<f64>,
    damping: Option<f64>,
    angular_stiffness: Option<f64>,
    angular_damping: Option<f64>,
    #[serde(default)]
    path: Vec<WaypointT>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WaypointT {
    time: f64,
    position: [f64; 3],
    rotation: Option<[f64; 4]>,
    rotation_deg: Option<[f64; 3]>,
}

/// Validates the proxies against the bodies.
pub(super) fn proxies(list: Vec<ProxyT>, bodies: &[Body], names: &BTreeMap<String, usize>, dt: f64) -> Result<Vec<Proxy>, String> {
    let mut out: Vec<Proxy> = Vec::new();
    for (pi, p) in list.into_iter().enumerate() {
        let what = format!("proxy #{pi}");
        let body = *names.get(&p.body).ok_or_else(|| format!("{what}: unknown body `{}`", p.body))?;
        if bodies[body].kind != BodyKind::Dynamic {
            return Err(format!("{what}: body `{}` must be dynamic to be driven by a coupling", p.body));
        }
        if out.iter().any(|q| q.body == body) {
            return Err(format!("{what}: body `{}` already has a proxy", p.body));
        }
        let b = &bodies[body];
        let i_min = [b.inertia.x_axis.x, b.inertia.y_axis.y, b.inertia.z_axis.z].into_iter().fold(f64::INFINITY, f64::min);
        let d = default_gains(b.mass, i_min, dt);
        let mut gains = [0.0; 4];
        for (k, (v, key)) in [
            (p.stiffness, "stiffness"),
            (p.damping, "damping"),
            (p.angular_stiffness, "angular_stiffness"),
            (p.angular_damping, "angular_damping"),
        ]
        .into_iter()
        .enumerate()
        {
            gains[k] = match v {
                Some(v) => {
                    if finite(v, &format!("{what}: {key}"))? < 0.0 {
                        return Err(format!("{what}: {key} must be >= 0, got {v}"));
                    }
                    v
                }
                None => d[k],
            };
        }
        let mut path: Vec<Waypoint> = Vec::new();
        for (wi, w) in p.path.into_iter().enumerate() {
            let wwhat = format!("{what}: path[{wi}]");
            let time = finite(w.time, &format!("{wwhat}.time"))?;
            if let Some(prev) = path.last() {
                if time <= prev.time {
                    return Err(format!("{wwhat}: time {time} must be after the previous waypoint's {}", prev.time));
                }
            }
            let rotation = match (w.rotation, w.rotation_deg) {
                (Some(_), Some(_)) => return Err(format!("{wwhat}: give `rotation` or `rotation_deg`, not both")),
                (Some(q), None) => {
                    let q = Quat::from_xyzw(q[1], q[2], q[3], q[0]);
                    if !q.is_finite() || (q.length() - 1.0).abs() > 1e-6 {
                        return Err(format!("{wwhat}: rotation [w, x, y, z] must be a finite unit quaternion"));
                    }
                    q.normalize()
                }
                (None, Some(r)) => {
                    let r = vec3(r, &format!("{wwhat}.rotation_deg"))?;
                    Quat::from_rotation_z(r.z.to_radians())
                        * Quat::from_rotation_y(r.y.to_radians())
                        * Quat::from_rotation_x(r.x.to_radians())
                }
                (None, None) => b.rotation,
            };
            path.push(Waypoint { time, position: vec3(w.position, &format!("{wwhat}.position"))?, rotation });
        }
        out.push(Proxy { body, stiffness: gains[0], damping: gains[1], angular_stiffness: gains[2], angular_damping: gains[3], path });
    }
    Ok(out)
}
