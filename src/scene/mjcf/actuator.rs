//! MJCF `<actuator>` and `<tendon>` sections (see mod.rs for the supported subset).

use super::context::{Ctx, El};
use crate::dynamics::actuator::{Actuator, Dynamics, Servo, Transmission};
use crate::model::{JointType, Motor};
use crate::scene::robot::{Attach, Link};
use roxmltree::Node;
use std::collections::BTreeMap;

/// The names an actuator or a sensor refers to: joints (name → the robot's joint number and its link),
/// fixed tendons (name → joints and coefficients), sites (name → number).
pub(super) struct Names {
    pub joints: BTreeMap<String, (usize, usize)>,
    pub tendons: BTreeMap<String, Vec<(usize, f64)>>,
    pub sites: BTreeMap<String, usize>,
    pub actuators: BTreeMap<String, usize>,
}

/// The actuator elements cairn reads.
pub(super) const KINDS: [&str; 6] = ["motor", "position", "velocity", "intvelocity", "damper", "general"];

/// Whether a `*limited` attribute holds: true, false, or (auto) when its range is given and autolimits is on.
fn limited(cx: &Ctx, el: &El, key: &str, range: &str) -> Result<bool, String> {
    match el.get(key) {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        None | Some("auto") => Ok(cx.autolimits && el.get(range).is_some()),
        Some(x) => Err(cx.src.at(el.node, format!("`{key}` must be true, false or auto, got `{x}`"))),
    }
}

/// A range that `limited` turns on: [lo, hi] with lo ≤ hi, or None when not limited.
fn range(cx: &Ctx, el: &El, key: &str, range_key: &str) -> Result<Option<[f64; 2]>, String> {
    if !limited(cx, el, key, range_key)? {
        return Ok(None);
    }
    let [lo, hi] = el.fixed::<2>(cx, range_key)?.ok_or_else(|| cx.src.at(el.node, format!("{key}=\"true\" needs `{range_key}`")))?;
    if lo > hi {
        return Err(cx.src.at(el.node, format!("`{range_key}` is reversed: {lo} > {hi}")));
    }
    Ok(Some([lo, hi]))
}

/// One actuator element of `KINDS`, added to `out` with its `dampratio` still to apply; a `position` actuator
/// on a joint with no spring and a symmetric force range becomes that joint's motor (a servo: each method applies
/// motors implicitly where it can), every other actuator acts through its gain/bias law.
pub(super) fn actuator(
    cx: &mut Ctx,
    n: Node,
    names: &Names,
    links: &mut [Link],
    out: &mut Vec<(Actuator, Option<f64>)>,
) -> Result<(), String> {
    let tag = n.tag_name().name();
    let el = cx.el(n, "main")?;
    let mut used = vec!["name", "joint", "tendon", "site", "gear", "ctrlrange", "ctrllimited", "forcerange", "forcelimited"];
    used.extend(match tag {
        "position" => &["kp", "kv", "dampratio", "inheritrange", "timeconst"][..],
        "velocity" => &["kv"][..],
        "intvelocity" => &["kp", "kv", "dampratio", "inheritrange", "actrange", "actlimited"][..],
        "damper" => &["kv"][..],
        "general" => &["dyntype", "gaintype", "biastype", "dynprm", "gainprm", "biasprm", "actrange", "actlimited", "actearly"][..],
        _ => &[][..],
    });
    el.check(cx, &used, &["group", "user", "lengthrange"])?;
    let name = el.get("name").map(str::to_string).unwrap_or_else(|| format!("actuator{}", out.len()));
    let given: Vec<&str> = ["joint", "tendon", "site"].into_iter().filter(|k| el.get(k).is_some()).collect();
    if given.len() != 1 {
        return Err(cx.src.at(n, "give exactly one of `joint`, `tendon`, `site` (cairn's transmissions)"));
    }
    let target = el.get(given[0]).unwrap_or_default().to_string();
    let gear_v = el.nums(cx, "gear")?.unwrap_or_else(|| vec![1.0]);
    if gear_v.len() > 6 || gear_v.iter().any(|g| !g.is_finite()) {
        return Err(cx.src.at(n, "`gear` must be up to six numbers"));
    }
    let mut gear = [0.0; 6];
    gear[..gear_v.len()].copy_from_slice(&gear_v);
    let site_gear = given[0] == "site";
    if !site_gear && (gear[0] == 0.0 || gear[1..].iter().any(|&g| g != 0.0)) {
        return Err(cx.src.at(n, "`gear` on a joint or tendon must be one nonzero number (its ratio)"));
    }
    if gear.iter().all(|&g| g == 0.0) {
        return Err(cx.src.at(n, "`gear` is zero"));
    }
    let (transmission, joint) = match given[0] {
        "joint" => {
            let &(j, l) =
                names.joints.get(&target).ok_or_else(|| cx.src.at(n, format!("unknown joint `{target}` (or one that is free)")))?;
            let Attach::Joint(rj) = &links[l].attach else { unreachable!("joints map to joint links") };
            if rj.kind == JointType::Ball {
                return Err(cx.src.at(n, "an actuator on a ball joint is not supported (cairn's joint actuators act on one coordinate)"));
            }
            (Transmission::Joint(j), Some((j, l)))
        }
        "tendon" => (
            Transmission::Tendon(
                names.tendons.get(&target).cloned().ok_or_else(|| cx.src.at(n, format!("unknown fixed tendon `{target}`")))?,
            ),
            None,
        ),
        _ => (Transmission::Site(*names.sites.get(&target).ok_or_else(|| cx.src.at(n, format!("unknown site `{target}`")))?), None),
    };
    let mut ctrl = range(cx, &el, "ctrllimited", "ctrlrange")?;
    let force = range(cx, &el, "forcelimited", "forcerange")?;
    let num = |k: &str| el.num(cx, k);
    if let Some(r) = num("inheritrange")?.filter(|&r| r > 0.0) {
        let lim = joint.and_then(|(_, l)| if let Attach::Joint(j) = &links[l].attach { j.limits } else { None });
        let [lo, hi] = lim.ok_or_else(|| cx.src.at(n, "`inheritrange` needs a joint with a range"))?;
        let (mid, half) = (0.5 * (lo + hi), 0.5 * (hi - lo) * r);
        // the joint's limits are in radians (or m) already, the units of a position actuator's control
        ctrl = Some([mid - half, mid + half]);
    }
    // `kv` and `dampratio` fill one slot (MuJoCo's biasprm[2]): the element's own over its class's
    let (mut kv, mut dampratio) = (num("kv")?, num("dampratio")?);
    if kv.is_some() && dampratio.is_some() {
        match (el.node.attribute("kv").is_some(), el.node.attribute("dampratio").is_some()) {
            (true, false) => dampratio = None,
            (false, true) => kv = None,
            _ => {}
        }
    }
    let (mut a, ratio) = match tag {
        "general" => (general(cx, &el, name, transmission, gear)?, None),
        _ => crate::scene::actuators::shortcut(tag, name, transmission, gear, num("kp")?, kv, dampratio, ctrl, force)
            .map_err(|e| cx.src.at(n, e))?,
    };
    a.ctrl_range = ctrl;
    a.force_range = force;
    if tag == "position" {
        if let Some(tc) = num("timeconst")?.filter(|&t| t > 0.0) {
            a.dynamics = Dynamics::FilterExact(tc);
        }
    }
    if matches!(tag, "intvelocity" | "general") {
        a.act_range = range(cx, &el, "actlimited", "actrange")?;
    }
    if tag == "intvelocity" && a.act_range.is_none() {
        a.act_range = ctrl;
    }
    // a plain position servo on a joint without a spring: the joint's motor; a `general` actuator whose law is
    // a position servo's (gain kp, bias [0, −kp, −kv], as MuJoCo expands `position`) is one too
    let servo_law = tag == "position" || (tag == "general" && is_position_law(&a));
    // a velocity servo likewise, its control the motor's target rate (as a motor its damper is implicit; the
    // explicit law diverges on light links at MuJoCo's time steps)
    let velocity_law = matches!(tag, "velocity" | "general") && is_velocity_law(&a);
    if let (true, Some((j, l)), Dynamics::None) = (servo_law || velocity_law, joint, a.dynamics) {
        let Attach::Joint(rj) = &mut links[l].attach else { unreachable!("joints map to joint links") };
        let symmetric = force.is_none_or(|[lo, hi]| lo == -hi);
        if rj.motor.is_none() && symmetric {
            let g = gear[0];
            rj.motor = Some(Motor {
                target: 0.0,
                stiffness: if velocity_law { 0.0 } else { a.gain[0] * g * g },
                damping: -a.bias[2] * g * g,
                max_force: force.map(|[_, hi]| hi * g.abs()),
                path: Vec::new(),
            });
            a.servo = Some(Servo { joint: j, scale: 1.0 / g, whole_motor: false, velocity: velocity_law });
        }
    }
    out.push((a, ratio));
    Ok(())
}

/// Whether an actuator's law is a position servo's: force kp·u − kp·l − kv·v with kp > 0, kv ≥ 0.
fn is_position_law(a: &Actuator) -> bool {
    let kp = a.gain[0];
    kp > 0.0 && a.gain[1] == 0.0 && a.gain[2] == 0.0 && a.bias[0] == 0.0 && a.bias[1] == -kp && a.bias[2] <= 0.0
}

/// Whether an actuator's law is a velocity servo's: force kv·u − kv·v with kv > 0.
fn is_velocity_law(a: &Actuator) -> bool {
    let kv = a.gain[0];
    kv > 0.0 && a.gain[1] == 0.0 && a.gain[2] == 0.0 && a.bias[0] == 0.0 && a.bias[1] == 0.0 && a.bias[2] == -kv
}

/// A `general` actuator's law and dynamics.
fn general(cx: &Ctx, el: &El, name: String, transmission: Transmission, gear: [f64; 6]) -> Result<Actuator, String> {
    let n = el.node;
    let prm = |k: &str| -> Result<[f64; 3], String> {
        let v = el.nums(cx, k)?.unwrap_or_default();
        Ok(std::array::from_fn(|i| v.get(i).copied().unwrap_or(0.0)))
    };
    let (gainprm, biasprm, dynprm) = (prm("gainprm")?, prm("biasprm")?, prm("dynprm")?);
    let gainprm = if el.get("gainprm").is_none() { [1.0, 0.0, 0.0] } else { gainprm };
    let dynprm0 = if el.get("dynprm").is_none() { 1.0 } else { dynprm[0] };
    if el.get("actearly") == Some("true") {
        return Err(cx.src.at(n, "`actearly=\"true\"` is not supported: the force uses the activation at the start of the step"));
    }
    let gain = match el.get("gaintype").unwrap_or("fixed") {
        "fixed" => [gainprm[0], 0.0, 0.0],
        "affine" => gainprm,
        t => return Err(cx.src.at(n, format!("gaintype `{t}` is not supported; supported: fixed, affine"))),
    };
    let bias = match el.get("biastype").unwrap_or("none") {
        "none" => [0.0; 3],
        "affine" => biasprm,
        t => return Err(cx.src.at(n, format!("biastype `{t}` is not supported; supported: none, affine"))),
    };
    let dynamics = match el.get("dyntype").unwrap_or("none") {
        "none" => Dynamics::None,
        "integrator" => Dynamics::Integrator,
        "filter" | "filterexact" if !(dynprm0 > 0.0) => {
            return Err(cx.src.at(n, format!("a filter needs a time constant dynprm[0] > 0, got {dynprm0}")))
        }
        "filter" => Dynamics::Filter(dynprm0),
        "filterexact" => Dynamics::FilterExact(dynprm0),
        t => return Err(cx.src.at(n, format!("dyntype `{t}` is not supported; supported: none, integrator, filter, filterexact"))),
    };
    Ok(Actuator { name, transmission, gear, dynamics, gain, bias, ..Actuator::motor(String::new(), 0, 1.0) })
}

/// A `<tendon>` section: each fixed tendon's joints and coefficients (what an actuator on it drives). A tendon's
/// `stiffness` and `damping` become a spring and damper on its length about its length at the load pose
/// (MuJoCo's default `springlength`), through `springs` (dynamics/coupling.rs); friction, limits, an explicit
/// `springlength` and spatial tendons are errors.
pub(super) fn tendons(
    cx: &mut Ctx,
    n: Node,
    joints: &BTreeMap<String, (usize, usize)>,
    sites: &BTreeMap<String, usize>,
    out: &mut BTreeMap<String, Vec<(usize, f64)>>,
    springs: &mut Vec<crate::scene::robot::RobotCoupling>,
    spatial: &mut Vec<crate::scene::robot::RobotSiteTendon>,
) -> Result<(), String> {
    let src = cx.src;
    for t in src.children(n, &["fixed", "spatial"], &[], &mut cx.notes)? {
        let name = t.attribute("name").unwrap_or("(unnamed)");
        if t.has_tag_name("spatial") {
            spatial.push(spatial_tendon(cx, t, name, sites)?);
            continue;
        }
        let el = cx.el(t, "main")?;
        let used = ["name", "limited", "range", "stiffness", "damping", "frictionloss", "springlength", "solreflimit", "solimplimit"];
        el.check(cx, &used, &["margin", "rgba", "width", "group", "material", "solreffriction", "solimpfriction", "user"])?;
        let active = ["frictionloss"].into_iter().find(|k| el.num(cx, k).ok().flatten().is_some_and(|x| x != 0.0));
        let (stiffness, damping) = (el.num(cx, "stiffness")?.unwrap_or(0.0), el.num(cx, "damping")?.unwrap_or(0.0));
        if !(stiffness >= 0.0 && damping >= 0.0) {
            return Err(src.at(t, format!("fixed tendon `{name}`: `stiffness` and `damping` must be >= 0, got {stiffness} and {damping}")));
        }
        if el.nums(cx, "springlength")?.is_some_and(|v| v.iter().any(|&x| x != -1.0)) {
            return Err(src.at(
                t,
                format!("fixed tendon `{name}`: an explicit `springlength` is not supported (the spring rests at the load pose's length)"),
            ));
        }
        let limited = match el.get("limited") {
            Some("true") => true,
            Some("false") => false,
            _ => cx.autolimits && el.get("range").is_some(),
        };
        if let Some(what) = active {
            return Err(src.at(
                t,
                format!(
                    "fixed tendon `{name}` has {what}: tendons that exert a force are not supported beyond their stiffness, damping and limits"
                ),
            ));
        }
        let mut parts = Vec::new();
        for j in src.children(t, &["joint"], &[], &mut cx.notes)? {
            src.attrs(j, &["joint", "coef"], &[], &mut cx.notes)?;
            let jn = src.required(j, "joint")?;
            let &(k, _) = joints.get(jn).ok_or_else(|| src.at(j, format!("fixed tendon `{name}`: unknown joint `{jn}`")))?;
            parts.push((k, src.num(j, "coef")?.unwrap_or(1.0)));
        }
        if stiffness > 0.0 || damping > 0.0 {
            springs.push(crate::scene::robot::RobotCoupling {
                name: format!("tendon {name}"),
                first: parts.clone(),
                second: Vec::new(),
                poly: [0.0; 5],
                solref: [0.0; 2],
                dmax: 0.0,
                spring: Some((stiffness, damping)),
                range: None,
                at: src.at(t, "fixed"),
            });
        }
        if limited {
            // the length's range, held as MuJoCo's soft limit (solreflimit, solimplimit) by a pushing spring
            let bad = |what: &str| src.at(t, format!("fixed tendon `{name}`: {what}"));
            let range = match el.nums(cx, "range")?.as_deref() {
                Some(&[lo, hi]) if lo <= hi => [lo, hi],
                _ => return Err(bad("a limited tendon needs `range` of two numbers, low <= high")),
            };
            let (solref, dmax) = limit_softness(cx, &el, &bad)?;
            springs.push(crate::scene::robot::RobotCoupling {
                name: format!("tendon {name} limit"),
                first: parts.clone(),
                second: Vec::new(),
                poly: [0.0; 5],
                solref,
                dmax,
                spring: None,
                range: Some(range),
                at: src.at(t, "fixed"),
            });
        }
        out.insert(name.to_string(), parts);
    }
    Ok(())
}

/// A `<spatial>` tendon through sites only: its spring, damper and length limit (dynamics/site_tendon.rs).
/// Wrapping around geoms, pulleys, friction and an explicit `springlength` are errors.
fn spatial_tendon(
    cx: &mut Ctx,
    t: Node,
    name: &str,
    sites: &BTreeMap<String, usize>,
) -> Result<crate::scene::robot::RobotSiteTendon, String> {
    let src = cx.src;
    let el = cx.el(t, "main")?;
    let used = ["name", "class", "limited", "range", "stiffness", "damping", "frictionloss", "springlength", "solreflimit", "solimplimit"];
    el.check(cx, &used, &["margin", "rgba", "width", "group", "material", "solreffriction", "solimpfriction", "user"])?;
    let bad = |what: &str| src.at(t, format!("spatial tendon `{name}`: {what}"));
    let mut path = Vec::new();
    for k in t.children().filter(|k| k.is_element()) {
        match k.tag_name().name() {
            "site" => {
                let s = src.required(k, "site")?;
                path.push(*sites.get(s).ok_or_else(|| src.at(k, format!("spatial tendon `{name}`: unknown site `{s}`")))?);
            }
            other => {
                return Err(src.at(
                    k,
                    format!("spatial tendon `{name}`: <{other}> is not supported (cairn's spatial tendons run straight between sites)"),
                ))
            }
        }
    }
    if path.len() < 2 {
        return Err(bad("needs two sites or more"));
    }
    if el.num(cx, "frictionloss")?.is_some_and(|f| f != 0.0) {
        return Err(bad("`frictionloss` is not supported"));
    }
    if el.nums(cx, "springlength")?.is_some_and(|v| v.iter().any(|&x| x != -1.0)) {
        return Err(bad("an explicit `springlength` is not supported (the spring rests at the load pose's length)"));
    }
    let (stiffness, damping) = (el.num(cx, "stiffness")?.unwrap_or(0.0), el.num(cx, "damping")?.unwrap_or(0.0));
    if !(stiffness >= 0.0 && damping >= 0.0) {
        return Err(bad("`stiffness` and `damping` must be >= 0"));
    }
    let limited = match el.get("limited") {
        Some("true") => true,
        Some("false") => false,
        _ => cx.autolimits && el.get("range").is_some(),
    };
    let range = if limited {
        let range = match el.nums(cx, "range")?.as_deref() {
            Some(&[lo, hi]) if 0.0 <= lo && lo <= hi => [lo, hi],
            _ => return Err(bad("a limited tendon needs `range` of two lengths, 0 <= low <= high")),
        };
        let (solref, dmax) = limit_softness(cx, &el, &bad)?;
        Some((range, solref, dmax))
    } else {
        None
    };
    Ok(crate::scene::robot::RobotSiteTendon { name: name.to_string(), sites: path, stiffness, damping, range })
}

/// A tendon limit's `solreflimit` and `solimplimit`'s upper impedance (MuJoCo's defaults when absent).
fn limit_softness(cx: &Ctx, el: &El, bad: &dyn Fn(&str) -> String) -> Result<([f64; 2], f64), String> {
    let solref = match el.nums(cx, "solreflimit")? {
        None => super::equality::SOLREF,
        Some(v) if v.len() == 2 && ((v[0] > 0.0 && v[1] > 0.0) || (v[0] <= 0.0 && v[1] <= 0.0)) => [v[0], v[1]],
        Some(_) => return Err(bad("`solreflimit` needs 2 numbers, both > 0 (time constant, damping ratio) or both <= 0")),
    };
    let dmax = match el.nums(cx, "solimplimit")? {
        None => super::equality::DMAX,
        Some(v) if v.len() >= 2 && v[1] > 0.0 && v[1] < 1.0 => v[1],
        Some(_) => return Err(bad("`solimplimit` needs its second number in (0, 1)")),
    };
    Ok((solref, dmax))
}
