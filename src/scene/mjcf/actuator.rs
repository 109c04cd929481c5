//! MJCF `<actuator>` and `<tendon>` sections (see mod.rs for the supported subset).

use super::context::Ctx;
use crate::model::{JointType, Motor};
use crate::scene::robot::{Attach, Link};
use roxmltree::Node;
use std::collections::BTreeMap;

/// A `motor` or `position` actuator on a joint: a position servo becomes (or joins) the joint's PD motor; a
/// torque motor, with no control input in cairn, applies no torque (noted).
pub(super) fn actuator(cx: &mut Ctx, n: Node, joint_link: &BTreeMap<String, usize>, links: &mut [Link]) -> Result<(), String> {
    let el = cx.el(n, "main")?;
    let used = ["name", "joint", "gear", "kp", "kv", "forcerange", "forcelimited", "dampratio", "tendon", "site", "body", "jointinparent"];
    el.check(cx, &used, &["ctrlrange", "ctrllimited", "group", "user"])?;
    for t in ["tendon", "site", "body", "jointinparent"] {
        if el.get(t).is_some() {
            return Err(cx.src.at(n, format!("actuators on a `{t}` are not supported: only on a `joint`")));
        }
    }
    let jname = el.get("joint").ok_or_else(|| cx.src.at(n, "missing `joint`"))?.to_string();
    let &l = joint_link.get(&jname).ok_or_else(|| cx.src.at(n, format!("unknown joint `{jname}` (or one that is free)")))?;
    let gear = el.nums(cx, "gear")?.unwrap_or(vec![1.0]);
    if gear.iter().skip(1).any(|&g| g != 0.0) || gear.first() == Some(&0.0) {
        return Err(cx.src.at(n, "`gear` must be one nonzero number (the joint's ratio)"));
    }
    let g = gear.first().copied().unwrap_or(1.0);
    let limited = el.get("forcelimited") == Some("true") || (el.get("forcelimited").is_none() && cx.autolimits);
    let max_force = if limited { el.fixed::<2>(cx, "forcerange")?.map(|[lo, hi]| g.abs() * lo.abs().max(hi.abs())) } else { None };
    let Attach::Joint(j) = &mut links[l].attach else { unreachable!("joint_link holds joints only") };
    if j.kind == JointType::Ball {
        return Err(cx.src.at(n, "an actuator on a ball joint is not supported (cairn's motors act on one coordinate)"));
    }
    if n.has_tag_name("motor") {
        cx.notes.add("motor actuator (a torque input): cairn has no control input, so it applies zero torque");
        return Ok(());
    }
    if el.num(cx, "dampratio")?.is_some_and(|d| d != 0.0) {
        return Err(cx.src.at(n, "`dampratio` is not supported: give `kv`"));
    }
    let kp = el.num(cx, "kp")?.unwrap_or(1.0) * g * g;
    let kv = el.num(cx, "kv")?.unwrap_or(0.0) * g * g;
    if kp < 0.0 || kv < 0.0 {
        return Err(cx.src.at(n, "`kp` and `kv` must be >= 0"));
    }
    // the servo (target: the control, 0 at the start) adds to a joint spring exactly: k = k_s + k_p,
    // target = k_s t_s / k
    let old = j.motor.take().unwrap_or(Motor { target: 0.0, stiffness: 0.0, damping: 0.0, max_force: None, path: Vec::new() });
    let k = old.stiffness + kp;
    let target = if k > 0.0 { old.stiffness * old.target / k } else { 0.0 };
    let max = match (old.max_force, max_force) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
    j.motor = Some(Motor { target, stiffness: k, damping: old.damping + kv, max_force: max, path: Vec::new() });
    Ok(())
}

/// A `<tendon>` section. A fixed tendon couples joint coordinates only through its stiffness, damping, friction,
/// limits or an actuator; one with none of these exerts no force and is noted as ignored (the gym humanoid's
/// hip–knee tendons are such). Any other tendon is an error: cairn couples no joint coordinates.
pub(super) fn tendons(cx: &mut Ctx, n: Node, joint_link: &BTreeMap<String, usize>) -> Result<(), String> {
    let src = cx.src;
    for t in src.children(n, &["fixed", "spatial"], &[], &mut cx.notes)? {
        let name = t.attribute("name").unwrap_or("(unnamed)");
        if t.has_tag_name("spatial") {
            return Err(src.at(t, format!("spatial tendon `{name}`: tendons are not supported (cairn couples no joint coordinates)")));
        }
        let el = cx.el(t, "main")?;
        let used = ["name", "limited", "range", "stiffness", "damping", "frictionloss", "springlength"];
        el.check(
            cx,
            &used,
            &["margin", "rgba", "width", "group", "material", "solreflimit", "solimplimit", "solreffriction", "solimpfriction", "user"],
        )?;
        let active = ["stiffness", "damping", "frictionloss"].into_iter().find(|k| el.num(cx, k).ok().flatten().is_some_and(|x| x != 0.0));
        let limited = match el.get("limited") {
            Some("true") => true,
            Some("false") => false,
            _ => cx.autolimits && el.get("range").is_some(),
        };
        if let Some(what) = active.or(limited.then_some("limits")) {
            return Err(src.at(
                t,
                format!(
                    "fixed tendon `{name}` has {what}: tendons that exert a force are not supported (cairn couples no joint coordinates)"
                ),
            ));
        }
        for j in src.children(t, &["joint"], &[], &mut cx.notes)? {
            src.attrs(j, &["joint", "coef"], &[], &mut cx.notes)?;
            let jn = src.required(j, "joint")?;
            if !joint_link.contains_key(jn) {
                return Err(src.at(j, format!("fixed tendon `{name}`: unknown joint `{jn}`")));
            }
        }
        cx.notes.add("ignored: a fixed tendon without stiffness, damping, friction, limits or actuator (it exerts no force)");
    }
    Ok(())
}
