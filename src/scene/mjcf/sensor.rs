//! MJCF `<sensor>` section: the kinds of dynamics/sensor.rs; other kinds are noted as ignored (sensordata then
//! lacks them, so its layout differs from MuJoCo's: the note says so).

use super::actuator::Names;
use super::context::Ctx;
use crate::dynamics::sensor::{Sensor, SensorKind};
use crate::math::{Pose, Vec3};
use crate::model::SiteShape;
use crate::scene::robot::{Link, RobotSite};
use roxmltree::Node;
use std::collections::BTreeMap;

/// The sensors of a `<sensor>` element into `out`; a frame sensor on a body adds a site at the body's frame.
pub(super) fn sensors(
    cx: &mut Ctx,
    n: Node,
    names: &mut Names,
    body_link: &BTreeMap<String, usize>,
    links: &[Link],
    out: &mut Vec<Sensor>,
) -> Result<(), String> {
    let src = cx.src;
    for s in n.children().filter(|c| c.is_element()) {
        let tag = s.tag_name().name();
        let Some(make) = kind(tag) else {
            cx.notes.add(format!("ignored: <{tag}> sensor (not one cairn computes; sensordata lacks it)"));
            continue;
        };
        let el = cx.el(s, "main")?;
        el.check(
            cx,
            &["name", "joint", "actuator", "site", "objtype", "objname", "body", "noise", "cutoff"],
            &["user", "reftype", "refname"],
        )?;
        if el.get("reftype").is_some() || el.get("refname").is_some() {
            return Err(src.at(
                s,
                "a frame sensor relative to another frame (`reftype`/`refname`) is not supported: cairn's read in the world frame",
            ));
        }
        let name = el.get("name").map(str::to_string).unwrap_or_else(|| format!("{tag}{}", out.len()));
        let noise = el.num(cx, "noise")?.unwrap_or(0.0);
        let cutoff = el.num(cx, "cutoff")?.unwrap_or(0.0);
        crate::scene::sensors::noise_cutoff(noise, cutoff, &src.at(s, "sensor")).map_err(|e| e.to_string())?;
        let need = |k: &str| el.get(k).map(str::to_string).ok_or_else(|| src.at(s, format!("a <{tag}> sensor needs `{k}`")));
        let index = match tag {
            "jointpos" | "jointvel" | "jointactuatorfrc" => {
                let j = need("joint")?;
                names.joints.get(&j).ok_or_else(|| src.at(s, format!("unknown joint `{j}` (or one without a coordinate)")))?.0
            }
            "actuatorpos" | "actuatorvel" | "actuatorfrc" => {
                let a = need("actuator")?;
                *names.actuators.get(&a).ok_or_else(|| src.at(s, format!("unknown actuator `{a}`")))?
            }
            "subtreecom" => {
                let b = need("body")?;
                *body_link.get(&b).ok_or_else(|| src.at(s, format!("unknown body `{b}`")))?
            }
            "framepos" | "framequat" | "framelinvel" | "frameangvel" => {
                let ty = el.get("objtype").unwrap_or("site");
                let obj = need("objname")?;
                match ty {
                    "site" => *names.sites.get(&obj).ok_or_else(|| src.at(s, format!("unknown site `{obj}`")))?,
                    "body" | "xbody" => {
                        let &l = body_link.get(&obj).ok_or_else(|| src.at(s, format!("unknown body `{obj}`")))?;
                        // xbody: the body's frame; body: its inertial frame (centre of mass, the body's axes)
                        let at = if ty == "body" { links[l].inertial.map_or(Vec3::ZERO, |i| i.com) } else { Vec3::ZERO };
                        frame_site(cx, names, &format!("<{ty} {obj}>"), l, Pose::from_parts(at, crate::math::Quat::IDENTITY))
                    }
                    "geom" => {
                        let &(l, pose) = cx.geom_frames.get(&obj).ok_or_else(|| src.at(s, format!("unknown geom `{obj}`")))?;
                        frame_site(cx, names, &format!("<geom {obj}>"), l, pose)
                    }
                    t => return Err(src.at(s, format!("objtype `{t}` is not supported; supported: site, body, xbody, geom"))),
                }
            }
            _ => {
                let site = need("site")?;
                *names.sites.get(&site).ok_or_else(|| src.at(s, format!("unknown site `{site}`")))?
            }
        };
        out.push(Sensor { name, kind: make(index), noise, cutoff });
    }
    Ok(())
}

fn kind(tag: &str) -> Option<fn(usize) -> SensorKind> {
    use SensorKind::*;
    Some(match tag {
        "jointpos" => JointPos,
        "jointvel" => JointVel,
        "jointactuatorfrc" => JointActuatorFrc,
        "actuatorpos" => ActuatorPos,
        "actuatorvel" => ActuatorVel,
        "actuatorfrc" => ActuatorFrc,
        "touch" => Touch,
        "force" => Force,
        "torque" => Torque,
        "framepos" => FramePos,
        "framequat" => FrameQuat,
        "framelinvel" => FrameLinVel,
        "frameangvel" => FrameAngVel,
        "accelerometer" => Accelerometer,
        "gyro" => Gyro,
        "subtreecom" => SubtreeCom,
        _ => return None,
    })
}

/// A site at point `at` of link `link`'s frame, named `name` (added once).
fn frame_site(cx: &mut Ctx, names: &mut Names, name: &str, link: usize, pose: Pose) -> usize {
    if let Some(&k) = names.sites.get(name) {
        return k;
    }
    cx.sites.push(RobotSite { name: name.to_string(), link, pose, shape: SiteShape::Everywhere });
    names.sites.insert(name.to_string(), cx.sites.len() - 1);
    cx.sites.len() - 1
}
