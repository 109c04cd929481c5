//! The `[[actuator]]` and `[[control]]` tables of a scene, and the model's list of actuators: the robots'
//! (in file order), the scene's tables, then each scene joint's motor as a servo named after its joint.
//!
//! ```toml
//! [[actuator]]
//! name = "shoulder"                 # default actuator<k>
//! type = "motor"                    # motor | position | velocity | intvelocity | damper | general
//! joint = "shoulder"                # a joint's name (a scene joint's `name`, else joint<k>), or `site`
//! gear = 1.0                        # a site: six numbers, force then torque in the site's frame
//! kp = 100.0                        # position, intvelocity
//! kv = 10.0                         # velocity, damper; position and intvelocity: optional damping
//! dampratio = 1.0                   # position, intvelocity: kv from the joint's inertia (instead of kv)
//! ctrlrange = [-1.0, 1.0]           # optional (required for damper and intvelocity)
//! forcerange = [-50.0, 50.0]        # optional
//! # general: gain = [g0, g1, g2], bias = [b0, b1, b2] (force = (g0 + g1 l + g2 v)·input + b0 + b1 l + b2 v),
//! # dynamics = "none" | "integrator" | "filter" | "filterexact", timeconst (s, filters), actrange
//!
//! [[control]]
//! actuator = "shoulder"
//! value = 0.5                       # or path = [[0.0, 0.0], [1.0, 0.5]] (time, value), or
//! # sine = { amplitude = 0.5, frequency = 1.0, phase = 0.0, offset = 0.0 }
//! ```

use super::finite;
use crate::dynamics::actuator::{Actuator, Control, Dynamics, Schedule, Servo, Transmission};
use crate::model::{Joint, JointType, Model, Site};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ActuatorT {
    name: Option<String>,
    #[serde(rename = "type")]
    kind: String,
    joint: Option<String>,
    site: Option<String>,
    gear: Option<toml::Value>,
    kp: Option<f64>,
    kv: Option<f64>,
    dampratio: Option<f64>,
    ctrlrange: Option<[f64; 2]>,
    forcerange: Option<[f64; 2]>,
    /// `general`: force = (gain·[1, l, v])·input + bias·[1, l, v]
    gain: Option<[f64; 3]>,
    bias: Option<[f64; 3]>,
    /// `general`: none | integrator | filter | filterexact (the input is then the activation)
    dynamics: Option<String>,
    /// `general`: the filter's time constant, s
    timeconst: Option<f64>,
    actrange: Option<[f64; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ControlT {
    actuator: String,
    value: Option<f64>,
    path: Option<Vec<[f64; 2]>>,
    sine: Option<SineT>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SineT {
    amplitude: f64,
    frequency: f64,
    #[serde(default)]
    phase: f64,
    #[serde(default)]
    offset: f64,
}

/// The kinds of `[[actuator]]`, for messages.
const KINDS: &str = "`motor`, `position`, `velocity`, `intvelocity`, `damper`, `general`";

/// A range [lo, hi] with lo ≤ hi, both finite.
pub(crate) fn range(r: [f64; 2], what: &str) -> Result<[f64; 2], String> {
    let [lo, hi] = [finite(r[0], what)?, finite(r[1], what)?];
    if lo > hi {
        return Err(format!("{what} [{lo}, {hi}] is reversed"));
    }
    Ok([lo, hi])
}

/// One actuator of MJCF's shortcut kinds on a transmission: the gain/bias law and dynamics each kind stands
/// for. `kp`, `kv` in the actuator's units; `ctrlrange` checked by the caller. Returns the actuator and its
/// `dampratio` still to be applied.
#[allow(clippy::too_many_arguments)]
pub(crate) fn shortcut(
    kind: &str,
    name: String,
    transmission: Transmission,
    gear: [f64; 6],
    kp: Option<f64>,
    kv: Option<f64>,
    dampratio: Option<f64>,
    ctrl_range: Option<[f64; 2]>,
    force_range: Option<[f64; 2]>,
) -> Result<(Actuator, Option<f64>), String> {
    let mut a = Actuator { name, transmission, gear, ..Actuator::motor(String::new(), 0, 1.0) };
    a.ctrl_range = ctrl_range;
    a.force_range = force_range;
    for (v, k) in [(kp, "kp"), (kv, "kv"), (dampratio, "dampratio")] {
        if let Some(v) = v {
            if !(finite(v, k)? >= 0.0) {
                return Err(format!("`{k}` must be >= 0, got {v}"));
            }
        }
    }
    if kv.is_some_and(|v| v != 0.0) && dampratio.is_some_and(|d| d != 0.0) {
        return Err("give `kv` or `dampratio`, not both".into());
    }
    let allowed = |keys: &[&str]| -> Result<(), String> {
        for (given, k) in [(kp.is_some(), "kp"), (kv.is_some(), "kv"), (dampratio.is_some(), "dampratio")] {
            if given && !keys.contains(&k) {
                return Err(format!("a `{kind}` actuator takes no `{k}`"));
            }
        }
        Ok(())
    };
    let mut ratio = None;
    match kind {
        "motor" => allowed(&[])?,
        "position" => {
            allowed(&["kp", "kv", "dampratio"])?;
            let kp = kp.unwrap_or(1.0);
            a.gain = [kp, 0.0, 0.0];
            a.bias = [0.0, -kp, -kv.unwrap_or(0.0)];
            ratio = dampratio.filter(|&d| d > 0.0);
        }
        "velocity" => {
            allowed(&["kv"])?;
            let kv = kv.unwrap_or(1.0);
            a.gain = [kv, 0.0, 0.0];
            a.bias = [0.0, 0.0, -kv];
        }
        "intvelocity" => {
            allowed(&["kp", "kv", "dampratio"])?;
            let kp = kp.unwrap_or(1.0);
            a.dynamics = Dynamics::Integrator;
            a.gain = [kp, 0.0, 0.0];
            a.bias = [0.0, -kp, -kv.unwrap_or(0.0)];
            ratio = dampratio.filter(|&d| d > 0.0);
        }
        "damper" => {
            allowed(&["kv"])?;
            let kv = kv.unwrap_or(0.0);
            a.gain = [0.0, 0.0, -kv];
            match ctrl_range {
                Some([lo, _]) if lo >= 0.0 => {}
                _ => return Err("a `damper` needs `ctrlrange` with a lower bound >= 0 (its control scales the damping)".into()),
            }
        }
        _ => return Err(format!("unknown actuator type `{kind}`: allowed are {KINDS}")),
    }
    Ok((a, ratio))
}

/// A `gear`: one number for a joint (its ratio), six for a site.
fn gear_of(v: Option<&toml::Value>, site: bool, what: &str) -> Result<[f64; 6], String> {
    let num = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
    let mut g = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    match (v, site) {
        (None, _) => {}
        (Some(v), false) => g[0] = num(v).ok_or_else(|| format!("{what}: `gear` on a joint is one number"))?,
        (Some(toml::Value::Array(a)), true) if a.len() == 6 => {
            for (k, x) in a.iter().enumerate() {
                g[k] = num(x).ok_or_else(|| format!("{what}: `gear` must be six numbers"))?;
            }
        }
        (Some(_), true) => return Err(format!("{what}: `gear` on a site is six numbers (force, then torque, in the site's frame)")),
    }
    for x in g {
        finite(x, &format!("{what}: gear"))?;
    }
    if g.iter().all(|&x| x == 0.0) {
        return Err(format!("{what}: `gear` is zero"));
    }
    Ok(g)
}

/// The joint called `name` (a scene joint's `name`, else `joint<k>`; a robot's with its prefix).
pub(super) fn joint_named(joints: &[Joint], name: &str) -> Option<usize> {
    joints.iter().position(|j| j.name == name).or_else(|| {
        let k: usize = name.strip_prefix("joint")?.parse().ok()?;
        (k < joints.len() && joints[k].name.is_empty()).then_some(k)
    })
}

/// The scene's `[[actuator]]` tables, after the robots' actuators.
pub(super) fn actuators(
    tables: Vec<ActuatorT>,
    joints: &[Joint],
    sites: &[Site],
    first: usize,
) -> Result<Vec<(Actuator, Option<f64>)>, String> {
    let mut out = Vec::new();
    for (k, t) in tables.into_iter().enumerate() {
        let what = format!("actuator #{k}");
        let name = t.name.clone().unwrap_or_else(|| format!("actuator{}", first + k));
        let what = format!("{what} (`{name}`)");
        let transmission = match (&t.joint, &t.site) {
            (Some(j), None) => {
                let idx = joint_named(joints, j).ok_or_else(|| format!("{what}: unknown joint `{j}`"))?;
                if !matches!(joints[idx].kind, JointType::Hinge | JointType::Prismatic) {
                    return Err(format!("{what}: joint `{j}` has no coordinate (only hinge and prismatic joints take an actuator)"));
                }
                Transmission::Joint(idx)
            }
            (None, Some(s)) => {
                Transmission::Site(sites.iter().position(|x| &x.name == s).ok_or_else(|| format!("{what}: unknown site `{s}`"))?)
            }
            _ => return Err(format!("{what}: give exactly one of `joint` and `site`")),
        };
        let gear = gear_of(t.gear.as_ref(), t.site.is_some(), &what)?;
        let ctrl = t.ctrlrange.map(|r| range(r, &format!("{what}: ctrlrange"))).transpose()?;
        let force = t.forcerange.map(|r| range(r, &format!("{what}: forcerange"))).transpose()?;
        if t.kind == "intvelocity" && ctrl.is_none() {
            return Err(format!(
                "{what}: an `intvelocity` actuator needs `ctrlrange` (its activation, the integrated control, is kept within it)"
            ));
        }
        let general_keys = [
            ("gain", t.gain.is_some()),
            ("bias", t.bias.is_some()),
            ("dynamics", t.dynamics.is_some()),
            ("timeconst", t.timeconst.is_some()),
            ("actrange", t.actrange.is_some()),
        ];
        if t.kind != "general" {
            if let Some((k, _)) = general_keys.iter().find(|k| k.1) {
                return Err(format!("{what}: `{k}` belongs to a `general` actuator, not a `{}` one", t.kind));
            }
        }
        let (mut a, ratio) = if t.kind == "general" {
            (general(&t, name, transmission, gear, &what)?, None)
        } else {
            shortcut(&t.kind, name, transmission, gear, t.kp, t.kv, t.dampratio, ctrl, force).map_err(|e| format!("{what}: {e}"))?
        };
        a.ctrl_range = ctrl;
        a.force_range = force;
        if t.kind == "intvelocity" {
            a.act_range = ctrl;
        }
        out.push((a, ratio));
    }
    Ok(out)
}

/// A `general` actuator's table: its law, dynamics and activation range.
fn general(t: &ActuatorT, name: String, transmission: Transmission, gear: [f64; 6], what: &str) -> Result<Actuator, String> {
    for (given, k) in [(t.kp.is_some(), "kp"), (t.kv.is_some(), "kv"), (t.dampratio.is_some(), "dampratio")] {
        if given {
            return Err(format!("{what}: a `general` actuator takes `gain` and `bias`, not `{k}`"));
        }
    }
    let three = |v: Option<[f64; 3]>, k: &str, default: [f64; 3]| -> Result<[f64; 3], String> {
        let v = v.unwrap_or(default);
        for x in v {
            finite(x, &format!("{what}: {k}"))?;
        }
        Ok(v)
    };
    let tau = || -> Result<f64, String> {
        let tc = t.timeconst.ok_or_else(|| format!("{what}: a filter needs `timeconst` (s)"))?;
        if !(finite(tc, &format!("{what}: timeconst"))? > 0.0) {
            return Err(format!("{what}: `timeconst` must be > 0, got {tc}"));
        }
        Ok(tc)
    };
    let dynamics = match t.dynamics.as_deref().unwrap_or("none") {
        "none" => Dynamics::None,
        "integrator" => Dynamics::Integrator,
        "filter" => Dynamics::Filter(tau()?),
        "filterexact" => Dynamics::FilterExact(tau()?),
        d => return Err(format!("{what}: unknown dynamics `{d}`: allowed are none, integrator, filter, filterexact")),
    };
    let mut a = Actuator::motor(name, 0, 1.0);
    a.transmission = transmission;
    a.gear = gear;
    a.gain = three(t.gain, "gain", [1.0, 0.0, 0.0])?;
    a.bias = three(t.bias, "bias", [0.0; 3])?;
    a.dynamics = dynamics;
    a.act_range = t.actrange.map(|r| range(r, &format!("{what}: actrange"))).transpose()?;
    Ok(a)
}

/// Each scene joint with a motor (joints `first_scene_joint..`) as a servo actuator named after its joint.
pub(super) fn servos(model_joints: &[Joint], first_scene_joint: usize) -> Vec<(Actuator, Option<f64>)> {
    let mut out = Vec::new();
    for (k, j) in model_joints.iter().enumerate().skip(first_scene_joint) {
        let Some(m) = &j.motor else { continue };
        let name = if j.name.is_empty() { format!("joint{k}") } else { j.name.clone() };
        let mut a = Actuator::motor(name, k, 1.0);
        a.gain = [m.stiffness, 0.0, 0.0];
        a.bias = [0.0, -m.stiffness, -m.damping];
        a.force_range = m.max_force.map(|f| [-f, f]);
        a.servo = Some(Servo { joint: k, scale: 1.0, whole_motor: true, velocity: false });
        out.push((a, None));
    }
    out
}

/// The `[[control]]` tables.
pub(super) fn controls(tables: Vec<ControlT>, actuators: &[Actuator]) -> Result<Vec<Control>, String> {
    let mut out: Vec<Control> = Vec::new();
    for (k, t) in tables.into_iter().enumerate() {
        let what = format!("control #{k}");
        let actuator = actuators.iter().position(|a| a.name == t.actuator).ok_or_else(|| {
            let names: Vec<String> = actuators.iter().map(|a| format!("`{}`", a.name)).collect();
            format!(
                "{what}: unknown actuator `{}` (the scene has {})",
                t.actuator,
                if names.is_empty() { "none".into() } else { names.join(", ") }
            )
        })?;
        if out.iter().any(|c| c.actuator == actuator) {
            return Err(format!("{what}: actuator `{}` has a control already", t.actuator));
        }
        let schedule = match (t.value, t.path, t.sine) {
            (Some(v), None, None) => Schedule::Constant(finite(v, &format!("{what}: value"))?),
            (None, Some(p), None) => Schedule::Path(path(p, &what)?),
            (None, None, Some(s)) => {
                for (v, k) in [(s.amplitude, "amplitude"), (s.frequency, "frequency"), (s.phase, "phase"), (s.offset, "offset")] {
                    finite(v, &format!("{what}: sine.{k}"))?;
                }
                Schedule::Sine { amplitude: s.amplitude, frequency: s.frequency, phase: s.phase, offset: s.offset }
            }
            _ => return Err(format!("{what}: give exactly one of `value`, `path` and `sine`")),
        };
        out.push(Control { actuator, schedule });
    }
    Ok(out)
}

/// A path of (time, value) points, times strictly increasing.
pub(crate) fn path(p: Vec<[f64; 2]>, what: &str) -> Result<Vec<[f64; 2]>, String> {
    if p.is_empty() {
        return Err(format!("{what}: `path` is empty"));
    }
    for (k, w) in p.iter().enumerate() {
        finite(w[0], &format!("{what}: path[{k}] time"))?;
        finite(w[1], &format!("{what}: path[{k}] value"))?;
        if k > 0 && w[0] <= p[k - 1][0] {
            return Err(format!("{what}: path[{k}] time {} must be greater than the previous point's {}", w[0], p[k - 1][0]));
        }
    }
    Ok(p)
}

/// Turns each pending `dampratio` into kv = dampratio·2·√(kp·m), m the inertia the actuator drives (its
/// joint's at the initial pose over gear²), as MuJoCo does; a servo's motor gets the same damping.
pub(super) fn apply_dampratios(model: &mut Model, ratios: &[Option<f64>]) -> Result<(), String> {
    for (k, ratio) in ratios.iter().enumerate() {
        let Some(ratio) = *ratio else { continue };
        let a = &model.actuators[k];
        let j = match &a.transmission {
            Transmission::Joint(j) => *j,
            _ => return Err(format!("actuator `{}`: `dampratio` needs a joint transmission", a.name)),
        };
        let g = a.gear[0];
        let m = crate::dynamics::actuator::joint_inertia(model, j) / (g * g);
        let kv = ratio * 2.0 * (a.gain[0] * m).sqrt();
        let servo = a.servo;
        model.actuators[k].bias[2] = -kv;
        if let (Some(_), Some(motor)) = (servo, model.joints[j].motor.as_mut()) {
            motor.damping += kv * g * g;
        }
    }
    Ok(())
}
