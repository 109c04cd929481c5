//! The `[[site]]` and `[[sensor]]` tables of a scene.
//!
//! ```toml
//! [[site]]
//! name = "foot"
//! body = "shin"
//! position = [0.0, 0.0, -0.2]       # in the body's frame (default its origin)
//! rotation = [1.0, 0.0, 0.0, 0.0]   # [w, x, y, z] (default identity)
//! shape = { type = "sphere", radius = 0.05 }   # box (size), capsule / cylinder (radius, length), ellipsoid
//!                                              # (radii); default: everywhere (touch counts all contacts)
//!
//! [[sensor]]
//! name = "foot_touch"               # default <type><k>
//! type = "touch"                    # jointpos, jointvel, actuatorpos, actuatorvel, actuatorfrc,
//!                                   # jointactuatorfrc, touch, force, torque, framepos, framequat, framelinvel,
//!                                   # frameangvel, accelerometer, gyro, subtreecom
//! site = "foot"                     # or body = "shin" (its origin and axes), joint = …, actuator = …
//! noise = 0.0                       # standard deviation of added Gaussian noise
//! cutoff = 0.0                      # clamp to ±cutoff (0: none)
//! ```

use super::{finite, vec3};
use crate::dynamics::actuator::Actuator;
use crate::dynamics::sensor::{Sensor, SensorKind};
use crate::math::{Quat, Vec3};
use crate::model::{Joint, JointType, Site, SiteShape};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SiteT {
    name: String,
    body: String,
    position: Option<[f64; 3]>,
    rotation: Option<[f64; 4]>,
    shape: Option<SiteShapeT>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SiteShapeT {
    #[serde(rename = "type")]
    kind: String,
    radius: Option<f64>,
    length: Option<f64>,
    size: Option<[f64; 3]>,
    radii: Option<[f64; 3]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SensorT {
    name: Option<String>,
    #[serde(rename = "type")]
    kind: String,
    site: Option<String>,
    body: Option<String>,
    joint: Option<String>,
    actuator: Option<String>,
    #[serde(default)]
    noise: f64,
    #[serde(default)]
    cutoff: f64,
}

/// The scene's `[[site]]` tables.
pub(super) fn sites(tables: Vec<SiteT>, names: &BTreeMap<String, usize>, existing: &[Site]) -> Result<Vec<Site>, String> {
    let mut out: Vec<Site> = Vec::new();
    for (k, t) in tables.into_iter().enumerate() {
        let what = format!("site #{k} (`{}`)", t.name);
        if existing.iter().chain(&out).any(|s| s.name == t.name) {
            return Err(format!("{what}: a site of that name exists already"));
        }
        let body = *names.get(&t.body).ok_or_else(|| format!("{what}: unknown body `{}`", t.body))?;
        let position = vec3(t.position.unwrap_or([0.0; 3]), &format!("{what}: position"))?;
        let rotation = match t.rotation {
            None => Quat::IDENTITY,
            Some(r) => {
                let q = Quat::from_xyzw(r[1], r[2], r[3], r[0]);
                if !q.is_finite() || (q.length() - 1.0).abs() > 1e-6 {
                    return Err(format!("{what}: rotation [w, x, y, z] must be a finite unit quaternion"));
                }
                q.normalize()
            }
        };
        let shape = t.shape.map(|s| site_shape(s, &what)).transpose()?.unwrap_or(SiteShape::Everywhere);
        out.push(Site { name: t.name, body, position, rotation, shape });
    }
    Ok(out)
}

fn site_shape(s: SiteShapeT, what: &str) -> Result<SiteShape, String> {
    let pos = |v: Option<f64>, k: &str| -> Result<f64, String> {
        let v = v.ok_or_else(|| format!("{what}: a `{}` site shape needs `{k}`", s.kind))?;
        if !(finite(v, &format!("{what}: shape.{k}"))? > 0.0) {
            return Err(format!("{what}: shape.{k} must be > 0, got {v}"));
        }
        Ok(v)
    };
    let pos3 = |v: Option<[f64; 3]>, k: &str| -> Result<Vec3, String> {
        let v = v.ok_or_else(|| format!("{what}: a `{}` site shape needs `{k}`", s.kind))?;
        for x in v {
            pos(Some(x), k)?;
        }
        Ok(Vec3::from_array(v))
    };
    Ok(match s.kind.as_str() {
        "sphere" => SiteShape::Sphere(pos(s.radius, "radius")?),
        "box" => SiteShape::Box(0.5 * pos3(s.size, "size")?),
        "capsule" => SiteShape::Capsule(pos(s.radius, "radius")?, 0.5 * pos(s.length, "length")?),
        "cylinder" => SiteShape::Cylinder(pos(s.radius, "radius")?, 0.5 * pos(s.length, "length")?),
        "ellipsoid" => SiteShape::Ellipsoid(pos3(s.radii, "radii")?),
        other => return Err(format!("{what}: unknown site shape `{other}`: allowed are sphere, box, capsule, cylinder, ellipsoid")),
    })
}

/// What a sensor kind reads: a joint, an actuator, a site (or a body's frame), or a body's subtree.
enum Target {
    Joint,
    Actuator,
    Site,
    Subtree,
}

/// The kind named `tag` and what it reads.
fn kind_of(tag: &str) -> Option<(fn(usize) -> SensorKind, Target)> {
    use SensorKind::*;
    Some(match tag {
        "jointpos" => (JointPos, Target::Joint),
        "jointvel" => (JointVel, Target::Joint),
        "jointactuatorfrc" => (JointActuatorFrc, Target::Joint),
        "actuatorpos" => (ActuatorPos, Target::Actuator),
        "actuatorvel" => (ActuatorVel, Target::Actuator),
        "actuatorfrc" => (ActuatorFrc, Target::Actuator),
        "touch" => (Touch, Target::Site),
        "force" => (Force, Target::Site),
        "torque" => (Torque, Target::Site),
        "framepos" => (FramePos, Target::Site),
        "framequat" => (FrameQuat, Target::Site),
        "framelinvel" => (FrameLinVel, Target::Site),
        "frameangvel" => (FrameAngVel, Target::Site),
        "accelerometer" => (Accelerometer, Target::Site),
        "gyro" => (Gyro, Target::Site),
        "subtreecom" => (SubtreeCom, Target::Subtree),
        _ => return None,
    })
}

/// Checks a sensor's `noise` (≥ 0) and `cutoff` (≥ 0).
pub(crate) fn noise_cutoff(noise: f64, cutoff: f64, what: &str) -> Result<(), String> {
    for (v, k) in [(noise, "noise"), (cutoff, "cutoff")] {
        if !(finite(v, &format!("{what}: {k}"))? >= 0.0) {
            return Err(format!("{what}: `{k}` must be >= 0, got {v}"));
        }
    }
    Ok(())
}

/// The scene's `[[sensor]]` tables; a sensor on a body's frame adds a site (`<body>` at its origin) to `sites`.
pub(super) fn sensors(
    tables: Vec<SensorT>,
    names: &BTreeMap<String, usize>,
    joints: &[Joint],
    actuators: &[Actuator],
    sites: &mut Vec<Site>,
    first: usize,
) -> Result<Vec<Sensor>, String> {
    let mut out = Vec::new();
    for (k, t) in tables.into_iter().enumerate() {
        let name = t.name.clone().unwrap_or_else(|| format!("{}{}", t.kind, first + k));
        let what = format!("sensor #{k} (`{name}`)");
        let (make, target) = kind_of(&t.kind)
            .ok_or_else(|| format!("{what}: unknown sensor type `{}`: allowed are {}", t.kind, SensorKind::TAGS.join(", ")))?;
        noise_cutoff(t.noise, t.cutoff, &what)?;
        let given: Vec<&str> =
            [("site", t.site.is_some()), ("body", t.body.is_some()), ("joint", t.joint.is_some()), ("actuator", t.actuator.is_some())]
                .into_iter()
                .filter(|x| x.1)
                .map(|x| x.0)
                .collect();
        let need = match target {
            Target::Joint => "`joint`",
            Target::Actuator => "`actuator`",
            Target::Site => "`site` or `body`",
            Target::Subtree => "`body`",
        };
        let ok = match target {
            Target::Joint => given == ["joint"],
            Target::Actuator => given == ["actuator"],
            Target::Site => given == ["site"] || given == ["body"],
            Target::Subtree => given == ["body"],
        };
        if !ok {
            return Err(format!(
                "{what}: a `{}` sensor reads {need} (got {})",
                t.kind,
                if given.is_empty() { "none".into() } else { given.join(", ") }
            ));
        }
        let body = |n: &str| names.get(n).copied().ok_or_else(|| format!("{what}: unknown body `{n}`"));
        let index = match target {
            Target::Joint => {
                let j = t.joint.as_deref().unwrap_or_default();
                let idx = super::actuators::joint_named(joints, j).ok_or_else(|| format!("{what}: unknown joint `{j}`"))?;
                if !matches!(joints[idx].kind, JointType::Hinge | JointType::Prismatic) {
                    return Err(format!("{what}: joint `{j}` has no coordinate (only hinge and prismatic joints)"));
                }
                idx
            }
            Target::Actuator => {
                let a = t.actuator.as_deref().unwrap_or_default();
                actuators.iter().position(|x| x.name == a).ok_or_else(|| format!("{what}: unknown actuator `{a}`"))?
            }
            Target::Site => match (&t.site, &t.body) {
                (Some(s), _) => sites.iter().position(|x| &x.name == s).ok_or_else(|| format!("{what}: unknown site `{s}`"))?,
                (None, Some(b)) => body_site(sites, b, body(b)?),
                (None, None) => unreachable!("checked above"),
            },
            Target::Subtree => body(t.body.as_deref().unwrap_or_default())?,
        };
        out.push(Sensor { name, kind: make(index), noise: t.noise, cutoff: t.cutoff });
    }
    Ok(out)
}

/// The site at body `body`'s origin and axes (named `<body>`), added once.
fn body_site(sites: &mut Vec<Site>, name: &str, body: usize) -> usize {
    let site = Site { name: format!("<{name}>"), body, position: Vec3::ZERO, rotation: Quat::IDENTITY, shape: SiteShape::Everywhere };
    if let Some(k) = sites.iter().position(|s| *s == site) {
        return k;
    }
    sites.push(site);
    sites.len() - 1
}
