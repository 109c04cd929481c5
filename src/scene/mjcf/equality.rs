//! MJCF `<equality>`: `connect` (a ball joint closing a loop), `weld` (a fixed joint), `joint` and `tendon` (a
//! coupling of two joint coordinates or fixed tendons, dynamics/coupling.rs). MuJoCo holds them all softly
//! (`solref`, `solimp`); cairn holds connect and weld as its joints do (rigidly, a note says so) and a coupling
//! as a spring-damper standing for MuJoCo's soft constraint. Flex equalities are refused.

use super::context::Ctx;
use crate::math::{Pose, Quat, Vec3};
use crate::model::JointType;
use crate::scene::robot::{Attach, Link, RobotCoupling, RobotLoop};
use roxmltree::Node;
use std::collections::BTreeMap;

/// MuJoCo's defaults: solref (time constant 0.02 s, damping ratio 1) and solimp's upper width 0.95.
pub(super) const SOLREF: [f64; 2] = [0.02, 1.0];
pub(super) const DMAX: f64 = 0.95;

/// Reads the `<equality>` element `n` into loop joints and couplings.
pub(super) fn equalities(
    cx: &mut Ctx,
    n: Node,
    links: &[Link],
    body_link: &BTreeMap<String, usize>,
    joints: &BTreeMap<String, (usize, usize)>,
    tendons: &BTreeMap<String, Vec<(usize, f64)>>,
    loops: &mut Vec<RobotLoop>,
    couplings: &mut Vec<RobotCoupling>,
) -> Result<(), String> {
    let src = cx.src;
    let common = ["name", "class", "active", "solref", "solimp"];
    for e in src.children(n, &["connect", "weld", "joint", "tendon", "flex"], &[], &mut cx.notes)? {
        let tag = e.tag_name().name();
        let name = e.attribute("name").unwrap_or("").to_string();
        if tag == "flex" {
            return Err(src.at(e, "<flex> is not supported in <equality>: cairn holds connect, weld, joint and tendon equalities"));
        }
        // the class's `<equality>` defaults (solref, solimp, active)
        let cls = e.attribute("class").unwrap_or("main");
        let class = cx.classes.get(cls).ok_or_else(|| src.at(e, format!("unknown default class `{cls}`")))?;
        let defaults = class.get("equality").cloned().unwrap_or_default();
        let attr = |k: &str| e.attribute(k).map(str::to_string).or_else(|| defaults.get(k).cloned());
        let nums = |k: &str| -> Result<Option<Vec<f64>>, String> { attr(k).map(|raw| src.parse_nums(e, k, &raw)).transpose() };
        match attr("active").as_deref() {
            None | Some("true") => {}
            Some("false") => {
                cx.notes
                    .add(format!("an inactive <equality><{tag}> (active=\"false\") is left out; it cannot be switched on during a run"));
                continue;
            }
            Some(v) => return Err(src.at(e, format!("`active` must be true or false, got `{v}`"))),
        }
        let link = |key: &str| -> Result<Option<usize>, String> {
            match e.attribute(key) {
                None | Some("world") => Ok(None),
                Some(b) => body_link.get(b).copied().map(Some).ok_or_else(|| src.at(e, format!("`{key}`: unknown body `{b}`"))),
            }
        };
        let site = |key: &str| -> Result<Option<(usize, Pose)>, String> {
            let Some(s) = e.attribute(key) else { return Ok(None) };
            let site = cx.sites.iter().find(|x| x.name == s).ok_or_else(|| src.at(e, format!("`{key}`: unknown site `{s}`")))?;
            Ok(Some((site.link, links[site.link].pose * site.pose)))
        };
        match tag {
            "connect" | "weld" => {
                // a rigid weld needs no point (MuJoCo's `anchor` and `torquescale` shape its softness)
                let (used, noted): (&[&str], &[&str]) = if tag == "connect" {
                    (&["body1", "body2", "anchor", "site1", "site2"], &[])
                } else {
                    (&["body1", "body2", "relpose", "site1", "site2"], &["anchor", "torquescale"])
                };
                src.attrs(e, &[&common[..], used].concat(), noted, &mut cx.notes)?;
                let (link1, link2, anchor) = match (site("site1")?, site("site2")?) {
                    (Some((l1, p1)), Some((l2, _))) => (Some(l1), Some(l2), p1.translation),
                    (None, None) => {
                        let l1 = link("body1")?.ok_or_else(|| src.at(e, "`body1` must name a body (not the world)"))?;
                        let local =
                            if tag == "connect" { src.fixed::<3>(e, "anchor")?.map_or(Vec3::ZERO, Vec3::from_array) } else { Vec3::ZERO };
                        (Some(l1), link("body2")?, links[l1].pose * local)
                    }
                    _ => return Err(src.at(e, "give both `site1` and `site2`, or bodies")),
                };
                let link1 = link1.expect("set above");
                let relative = match (tag, src.fixed::<7>(e, "relpose")?) {
                    ("weld", Some(r)) if r[3..].iter().any(|&x| x != 0.0) => {
                        let q = Quat::from_xyzw(r[4], r[5], r[6], r[3]);
                        if (q.length() - 1.0).abs() > 1e-6 {
                            return Err(src.at(e, "`relpose`: the quaternion (the last four numbers) must have length 1"));
                        }
                        Some(Pose::from_parts(Vec3::new(r[0], r[1], r[2]), q.normalize()))
                    }
                    _ => None,
                };
                if link2 == Some(link1) {
                    return Err(src.at(e, "`body1` and `body2` are the same body"));
                }
                cx.notes.add(format!(
                    "<equality><{tag}> is held rigidly ({}); its solref and solimp (MuJoCo's softness) are not used",
                    if tag == "connect" { "a ball joint" } else { "a fixed joint" }
                ));
                loops.push(RobotLoop {
                    name,
                    kind: if tag == "connect" { JointType::Ball } else { JointType::Fixed },
                    link1,
                    link2,
                    anchor,
                    relative,
                    at: src.at(e, tag),
                });
            }
            _ => {
                // a joint, or a fixed tendon (its joints and coefficients)
                let (k1, k2) = if tag == "joint" { ("joint1", "joint2") } else { ("tendon1", "tendon2") };
                src.attrs(e, &[&common[..], &[k1, k2, "polycoef"]].concat(), &[], &mut cx.notes)?;
                let part = |key: &str| -> Result<Vec<(usize, f64)>, String> {
                    let Some(name) = e.attribute(key) else { return Ok(Vec::new()) };
                    if tag == "tendon" {
                        return tendons.get(name).cloned().ok_or_else(|| src.at(e, format!("`{key}`: unknown fixed tendon `{name}`")));
                    }
                    let &(k, l) = joints.get(name).ok_or_else(|| src.at(e, format!("`{key}`: unknown joint `{name}`")))?;
                    match &links[l].attach {
                        Attach::Joint(rj) if matches!(rj.kind, JointType::Hinge | JointType::Prismatic) => Ok(vec![(k, 1.0)]),
                        _ => {
                            Err(src.at(e, format!("`{key}`: joint `{name}` is not a hinge or slide joint (only their coordinates couple)")))
                        }
                    }
                };
                let first = part(k1)?;
                if first.is_empty() {
                    return Err(src.at(e, format!("missing attribute `{k1}`")));
                }
                let second = part(k2)?;
                let poly = match nums("polycoef")? {
                    None => [0.0, 1.0, 0.0, 0.0, 0.0],
                    Some(v) if v.len() == 5 => [v[0], v[1], v[2], v[3], v[4]],
                    Some(v) => return Err(src.at(e, format!("attribute `polycoef` needs 5 numbers, got {}", v.len()))),
                };
                let solref = match nums("solref")? {
                    None => SOLREF,
                    Some(v) if v.len() == 2 && (v[0] > 0.0 && v[1] > 0.0 || v[0] < 0.0 && v[1] <= 0.0) => [v[0], v[1]],
                    Some(v) => {
                        return Err(src.at(
                            e,
                            format!(
                                "attribute `solref` needs 2 numbers, both > 0 (time constant, damping ratio) or both <= 0, got {}",
                                crate::math::show_list(&v)
                            ),
                        ))
                    }
                };
                let dmax = match nums("solimp")? {
                    None => DMAX,
                    Some(v) if v.len() >= 2 && v[1] > 0.0 && v[1] < 1.0 => v[1],
                    Some(v) => {
                        return Err(
                            src.at(e, format!("attribute `solimp` needs its second number in (0, 1), got {}", crate::math::show_list(&v)))
                        )
                    }
                };
                couplings.push(RobotCoupling { name, first, second, poly, solref, dmax, spring: None, range: None, at: src.at(e, tag) });
            }
        }
    }
    Ok(())
}
