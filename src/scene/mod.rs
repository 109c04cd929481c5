//! The TOML scene format, version 1 (shared/design/scene-format.md), loaded into a validated [`Model`].
//!
//! Syntax and type errors come from the TOML parser with line and column; every semantic check names the
//! file, the body or key, what is wrong and what is allowed. Nothing here panics on bad input.

mod files;
mod proxy;
pub mod scn;
mod shape;
pub use files::{find_scene, list_scenes, scenes_dir};

use crate::error::InputError;
use crate::math::{Mat3, Quat, Vec3};
use crate::methods::impulse::{FrictionModel, ImpulseParams};
use crate::methods::lcp::LcpParams;
use crate::methods::volumetric::{PenaltyModel, VolumetricParams};
use crate::model::{Body, BodyKind, Joint, JointType, Load, Material, Model, Motor, SolverParams};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneFile {
    format: Option<i64>,
    world: Option<WorldT>,
    solver: Option<SolverT>,
    #[serde(default)]
    material: Vec<MaterialT>,
    #[serde(default)]
    body: Vec<BodyT>,
    #[serde(default)]
    joint: Vec<JointT>,
    #[serde(default)]
    load: Vec<LoadT>,
    #[serde(default)]
    proxy: Vec<proxy::ProxyT>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WorldT {
    gravity: Option<[f64; 3]>,
    dt: Option<f64>,
    duration: Option<f64>,
    method: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SolverT {
    lcp: Option<LcpT>,
    impulse: Option<ImpulseT>,
    #[serde(rename = "volumetric-penalty")]
    volumetric_penalty: Option<VolumetricT>,
    #[serde(rename = "implicit-penalty")]
    implicit_penalty: Option<toml::Table>,
    abd: Option<AbdT>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LcpT {
    iterations: Option<usize>,
    normal_sweeps: Option<usize>,
    tolerance: Option<f64>,
    shock_propagation: Option<bool>,
    shock_fraction: Option<f64>,
    layer_iterations: Option<usize>,
    correction: Option<bool>,
    correction_iterations: Option<usize>,
    correction_tolerance: Option<f64>,
    margin: Option<f64>,
    restitution_threshold: Option<f64>,
    static_speed: Option<f64>,
    warm_start: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImpulseT {
    collision_iterations: Option<usize>,
    contact_iterations: Option<usize>,
    shock_propagation: Option<bool>,
    shock_iterations: Option<usize>,
    friction_model: Option<String>,
    ordering: Option<bool>,
    point_window: Option<f64>,
    restitution_ramp: Option<bool>,
    push_out_iterations: Option<usize>,
    push_out_tolerance: Option<f64>,
    margin: Option<f64>,
    resolved_speed: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VolumetricT {
    stiffness: Option<f64>,
    damping: Option<f64>,
    damping_ratio: Option<f64>,
    friction_stiffness: Option<f64>,
    model: Option<String>,
    tessellation: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AbdT {
    dhat: Option<f64>,
    kappa: Option<f64>,
    orthogonality: Option<f64>,
    friction_velocity: Option<f64>,
    tolerance: Option<f64>,
    max_iterations: Option<usize>,
    resolution: Option<u32>,
    joint_stiffness: Option<f64>,
    check_intersections: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialT {
    name: String,
    density: Option<f64>,
    friction: Option<f64>,
    static_friction: Option<f64>,
    restitution: Option<f64>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum KindT {
    Dynamic,
    Static,
    Kinematic,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AxisAngleT {
    axis: [f64; 3],
    angle_deg: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RepeatT {
    count: [u32; 3],
    step: [f64; 3],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BodyT {
    name: Option<String>,
    shape: toml::Table,
    position: Option<[f64; 3]>,
    rotation: Option<[f64; 4]>,
    rotation_deg: Option<[f64; 3]>,
    axis_angle: Option<AxisAngleT>,
    velocity: Option<[f64; 3]>,
    angular_velocity: Option<[f64; 3]>,
    material: Option<String>,
    mass: Option<f64>,
    kind: Option<KindT>,
    repeat: Option<RepeatT>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum JointTypeT {
    Ball,
    Hinge,
    Prismatic,
    Fixed,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MotorT {
    target: f64,
    stiffness: f64,
    damping: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JointT {
    #[serde(rename = "type")]
    kind: JointTypeT,
    body1: String,
    body2: Option<String>,
    anchor: [f64; 3],
    axis: Option<[f64; 3]>,
    limits: Option<[f64; 2]>,
    motor: Option<MotorT>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoadT {
    body: String,
    force: Option<[f64; 3]>,
    torque: Option<[f64; 3]>,
    start: Option<f64>,
    end: Option<f64>,
}

/// Checks helpers: each returns an error message naming `what`.
fn finite(x: f64, what: &str) -> Result<f64, String> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!("{what} must be a finite number, got {x}"))
    }
}
fn positive(x: f64, what: &str) -> Result<f64, String> {
    finite(x, what)?;
    if x > 0.0 {
        Ok(x)
    } else {
        Err(format!("{what} must be > 0, got {x}"))
    }
}
fn vec3(a: [f64; 3], what: &str) -> Result<Vec3, String> {
    for x in a {
        finite(x, what)?;
    }
    Ok(Vec3::from_array(a))
}

/// Loads and validates a scene file, with optional `--set` overrides.
pub fn load(path: &Path, sets: &[(String, String)]) -> Result<Model, InputError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| InputError::at(&file, format!("cannot read scene file: {e}")))?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("scene").to_string();
    let dir = path.parent().unwrap_or(Path::new("."));
    if path.extension().is_some_and(|e| e == "scn") {
        // the pulsk format: translated into a TOML scene, then loaded like one
        let (table, notes) = scn::to_toml(&text).map_err(|e| InputError::at(&file, e))?;
        let toml_text = toml::to_string(&table).map_err(|e| InputError::at(&file, format!("translation failed: {e}")))?;
        let mut model = load_str(&toml_text, &file, &name, dir, sets)?;
        model.notes = notes.into_iter().map(|n| format!("ignored (cairn cannot use it): {n}")).collect();
        return Ok(model);
    }
    load_str(&text, &file, &name, dir, sets)
}

/// Loads a scene from text. `file` names it in messages; `dir` resolves mesh paths.
pub fn load_str(text: &str, file: &str, name: &str, dir: &Path, sets: &[(String, String)]) -> Result<Model, InputError> {
    let scene: SceneFile = if sets.is_empty() {
        toml::from_str(text).map_err(|e| InputError::at(file, e))?
    } else {
        let table: toml::Table = text.parse().map_err(|e| InputError::at(file, e))?;
        let mut value = toml::Value::Table(table);
        if let toml::Value::Table(t) = &mut value {
            apply_set_list(t, sets).map_err(|e| InputError::at(file, e))?;
        }
        value.try_into().map_err(|e| InputError::at(file, format!("after --set overrides: {e}")))?
    };
    build(scene, file, name, dir).map_err(|e| InputError::at(file, e))
}

fn apply_set_list(t: &mut toml::Table, sets: &[(String, String)]) -> Result<(), String> {
    let mut value = toml::Value::Table(std::mem::take(t));
    let r = set_in_value(&mut value, sets);
    if let toml::Value::Table(back) = value {
        *t = back;
    }
    r
}

/// Applies `key=value` overrides to a scene. Keys are dotted paths (`solver.lcp.iterations`, `world.dt`,
/// `body.0.mass`); values are TOML values (a bare word that is not TOML is taken as a string).
fn set_in_value(root: &mut toml::Value, sets: &[(String, String)]) -> Result<(), String> {
    for (key, raw) in sets {
        let value: toml::Value = match format!("v = {raw}").parse::<toml::Table>() {
            Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(raw.clone())),
            Err(_) => toml::Value::String(raw.clone()),
        };
        let parts: Vec<&str> = key.split('.').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(format!("--set {key}: empty path segment"));
        }
        let mut cur = &mut *root;
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            cur = match cur {
                toml::Value::Table(t) => {
                    if last {
                        t.insert(part.to_string(), value);
                        break;
                    }
                    t.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()))
                }
                toml::Value::Array(a) => {
                    let len = a.len();
                    let idx: usize =
                        part.parse().map_err(|_| format!("--set {key}: `{part}` must be an index into an array of {len} entries"))?;
                    let slot =
                        a.get_mut(idx).ok_or_else(|| format!("--set {key}: index {idx} out of range (the array has {len} entries)"))?;
                    if last {
                        *slot = value;
                        break;
                    }
                    slot
                }
                _ => return Err(format!("--set {key}: `{}` is not a table or an array", parts[..i].join("."))),
            };
        }
    }
    Ok(())
}

fn lcp_params(t: Option<LcpT>) -> Result<LcpParams, String> {
    let d = LcpParams::default();
    let Some(t) = t else { return Ok(d) };
    let p = LcpParams {
        iterations: t.iterations.unwrap_or(d.iterations),
        normal_sweeps: t.normal_sweeps.unwrap_or(d.normal_sweeps),
        tolerance: t.tolerance.unwrap_or(d.tolerance),
        shock_propagation: t.shock_propagation.unwrap_or(d.shock_propagation),
        shock_fraction: t.shock_fraction.unwrap_or(d.shock_fraction),
        layer_iterations: t.layer_iterations.unwrap_or(d.layer_iterations),
        correction: t.correction.unwrap_or(d.correction),
        correction_iterations: t.correction_iterations.unwrap_or(d.correction_iterations),
        correction_tolerance: t.correction_tolerance.unwrap_or(d.correction_tolerance),
        margin: t.margin.unwrap_or(d.margin),
        restitution_threshold: t.restitution_threshold.unwrap_or(d.restitution_threshold),
        static_speed: t.static_speed.unwrap_or(d.static_speed),
        warm_start: t.warm_start.unwrap_or(d.warm_start),
    };
    let f = finite(p.shock_fraction, "solver.lcp.shock_fraction")?;
    if !(0.0..=1.0).contains(&f) {
        return Err(format!("solver.lcp.shock_fraction must be in [0, 1], got {f}"));
    }
    for (v, k) in [
        (p.correction_tolerance, "correction_tolerance"),
        (p.margin, "margin"),
        (p.restitution_threshold, "restitution_threshold"),
        (p.static_speed, "static_speed"),
    ] {
        finite(v, &format!("solver.lcp.{k}"))?;
        if v < 0.0 {
            return Err(format!("solver.lcp.{k} must be >= 0, got {v}"));
        }
    }
    if p.iterations == 0 {
        return Err("solver.lcp.iterations must be >= 1".into());
    }
    Ok(p)
}

fn impulse_params(t: Option<ImpulseT>) -> Result<ImpulseParams, String> {
    let d = ImpulseParams::default();
    let Some(t) = t else { return Ok(d) };
    let friction_model = match t.friction_model.as_deref() {
        None => d.friction_model,
        Some("mirtich") => FrictionModel::Mirtich,
        Some("moore") => FrictionModel::Moore,
        Some(other) => return Err(format!("solver.impulse.friction_model must be `mirtich` or `moore`, got `{other}`")),
    };
    let p = ImpulseParams {
        collision_iterations: t.collision_iterations.unwrap_or(d.collision_iterations),
        contact_iterations: t.contact_iterations.unwrap_or(d.contact_iterations),
        shock_propagation: t.shock_propagation.unwrap_or(d.shock_propagation),
        shock_iterations: t.shock_iterations.unwrap_or(d.shock_iterations),
        friction_model,
        ordering: t.ordering.unwrap_or(d.ordering),
        point_window: t.point_window.unwrap_or(d.point_window),
        restitution_ramp: t.restitution_ramp.unwrap_or(d.restitution_ramp),
        push_out_iterations: t.push_out_iterations.unwrap_or(d.push_out_iterations),
        push_out_tolerance: t.push_out_tolerance.unwrap_or(d.push_out_tolerance),
        margin: t.margin.unwrap_or(d.margin),
        resolved_speed: t.resolved_speed.unwrap_or(d.resolved_speed),
    };
    for (v, k) in [
        (p.point_window, "point_window"),
        (p.margin, "margin"),
        (p.resolved_speed, "resolved_speed"),
        (p.push_out_tolerance, "push_out_tolerance"),
    ] {
        finite(v, &format!("solver.impulse.{k}"))?;
        if v < 0.0 {
            return Err(format!("solver.impulse.{k} must be >= 0, got {v}"));
        }
    }
    Ok(p)
}

fn volumetric_params(t: Option<VolumetricT>) -> Result<VolumetricParams, String> {
    let d = VolumetricParams::default();
    let Some(t) = t else { return Ok(d) };
    let model = match t.model.as_deref() {
        None => d.model,
        Some("volume") => PenaltyModel::Volume,
        Some("point") => PenaltyModel::Point,
        Some(other) => return Err(format!("solver.volumetric-penalty.model must be `volume` or `point`, got `{other}`")),
    };
    for (v, k) in [
        (t.stiffness, "stiffness"),
        (t.damping, "damping"),
        (t.damping_ratio, "damping_ratio"),
        (t.friction_stiffness, "friction_stiffness"),
    ] {
        if let Some(v) = v {
            finite(v, &format!("solver.volumetric-penalty.{k}"))?;
            if v < 0.0 || (k == "stiffness" && v == 0.0) {
                return Err(format!("solver.volumetric-penalty.{k} must be {}, got {v}", if k == "stiffness" { "> 0" } else { ">= 0" }));
            }
        }
    }
    let tessellation = t.tessellation.unwrap_or(d.tessellation);
    if !(4..=256).contains(&tessellation) {
        return Err(format!("solver.volumetric-penalty.tessellation must be in 4..=256, got {tessellation}"));
    }
    Ok(VolumetricParams {
        stiffness: t.stiffness,
        damping: t.damping,
        damping_ratio: t.damping_ratio,
        friction_stiffness: t.friction_stiffness.unwrap_or(d.friction_stiffness),
        model,
        tessellation,
    })
}

fn abd_params(t: Option<AbdT>) -> Result<crate::methods::abd::AbdParams, String> {
    let d = crate::methods::abd::AbdParams::default();
    let Some(t) = t else { return Ok(d) };
    let pos = |v: Option<f64>, k: &str| -> Result<Option<f64>, String> { v.map(|v| positive(v, &format!("solver.abd.{k}"))).transpose() };
    let max_iterations = t.max_iterations.unwrap_or(d.max_iterations);
    if max_iterations == 0 {
        return Err("solver.abd.max_iterations must be >= 1, got 0".into());
    }
    let resolution = t.resolution.unwrap_or(d.resolution);
    if !(4..=256).contains(&resolution) {
        return Err(format!("solver.abd.resolution must be in 4..=256, got {resolution}"));
    }
    Ok(crate::methods::abd::AbdParams {
        dhat: pos(t.dhat, "dhat")?,
        kappa: pos(t.kappa, "kappa")?,
        orthogonality: pos(t.orthogonality, "orthogonality")?.unwrap_or(d.orthogonality),
        friction_velocity: pos(t.friction_velocity, "friction_velocity")?,
        tolerance: pos(t.tolerance, "tolerance")?.unwrap_or(d.tolerance),
        max_iterations,
        resolution,
        joint_stiffness: pos(t.joint_stiffness, "joint_stiffness")?.unwrap_or(d.joint_stiffness),
        check_intersections: t.check_intersections.unwrap_or(d.check_intersections),
    })
}

fn unknown_method_table(t: &Option<toml::Table>, key: &str) -> Result<(), String> {
    match t {
        Some(t) if !t.is_empty() => Err(format!(
            "[solver.{key}]: unknown key(s) {}: method `{key}` has no parameters in this build",
            t.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
        )),
        _ => Ok(()),
    }
}

fn build(s: SceneFile, _file: &str, name: &str, dir: &Path) -> Result<Model, String> {
    match s.format {
        None => return Err("missing `format` (write `format = 1` at the top)".into()),
        Some(1) => {}
        Some(v) => return Err(format!("`format = {v}` is not known to this program: the known version is 1")),
    }
    let w = s.world.unwrap_or(WorldT { gravity: None, dt: None, duration: None, method: None });
    let gravity = vec3(w.gravity.unwrap_or([0.0, 0.0, -9.81]), "world.gravity")?;
    let dt = positive(w.dt.unwrap_or(0.01), "world.dt")?;
    let duration = finite(w.duration.unwrap_or(5.0), "world.duration")?;
    if duration < 0.0 {
        return Err(format!("world.duration must be >= 0, got {duration}"));
    }
    let method = w.method.unwrap_or_else(|| "lcp".into());
    let mut solver = SolverParams::default();
    if let Some(st) = s.solver {
        solver.lcp = lcp_params(st.lcp)?;
        solver.impulse = impulse_params(st.impulse)?;
        solver.volumetric = volumetric_params(st.volumetric_penalty)?;
        unknown_method_table(&st.implicit_penalty, "implicit-penalty")?;
        solver.abd = abd_params(st.abd)?;
    }

    // materials
    let mut materials = vec![Material::default_material()];
    let mut seen = BTreeSet::new();
    for (i, m) in s.material.into_iter().enumerate() {
        let what = format!("material `{}`", m.name);
        if !seen.insert(m.name.clone()) {
            return Err(format!("duplicate material name `{}` (material #{i})", m.name));
        }
        let friction = finite(m.friction.unwrap_or(0.5), &format!("{what}: friction"))?;
        if friction < 0.0 {
            return Err(format!("{what}: friction must be >= 0, got {friction}"));
        }
        let static_friction = finite(m.static_friction.unwrap_or(friction), &format!("{what}: static_friction"))?;
        if static_friction < friction {
            return Err(format!("{what}: static_friction ({static_friction}) must be >= friction ({friction})"));
        }
        let restitution = finite(m.restitution.unwrap_or(0.0), &format!("{what}: restitution"))?;
        if !(0.0..=1.0).contains(&restitution) {
            return Err(format!("{what}: restitution must be in [0, 1], got {restitution}"));
        }
        let density = positive(m.density.unwrap_or(1000.0), &format!("{what}: density"))?;
        let mat = Material { name: m.name.clone(), density, friction, static_friction, restitution };
        if m.name == "default" {
            materials[0] = mat;
        } else {
            materials.push(mat);
        }
    }

    // bodies
    let mut bodies: Vec<Body> = Vec::new();
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut cache = shape::GeometryCache::default();
    for (bi, b) in s.body.into_iter().enumerate() {
        let label = match &b.name {
            Some(n) => format!("body `{n}`"),
            None => format!("body #{bi}"),
        };
        let kind = match b.kind.unwrap_or(KindT::Dynamic) {
            KindT::Dynamic => BodyKind::Dynamic,
            KindT::Static => BodyKind::Static,
            KindT::Kinematic => BodyKind::Kinematic,
        };
        let geometry = cache.geometry(&b.shape, kind == BodyKind::Dynamic, dir).map_err(|e| format!("{label}: shape: {e}"))?;
        let mat_name = b.material.clone().unwrap_or_else(|| "default".into());
        let material = materials.iter().position(|m| m.name == mat_name).ok_or_else(|| {
            format!(
                "{label}: unknown material `{mat_name}` (defined: {})",
                materials.iter().map(|m| format!("`{}`", m.name)).collect::<Vec<_>>().join(", ")
            )
        })?;
        let um = geometry.unit_mass;
        let (mass, inertia) = match b.mass {
            Some(m) => {
                positive(m, &format!("{label}: mass"))?;
                (m, um.inertia * (m / um.volume))
            }
            None => (materials[material].density * um.volume, um.inertia * materials[material].density),
        };
        if kind == BodyKind::Dynamic && !(mass > 0.0 && mass.is_finite()) {
            return Err(format!("{label}: the shape has no volume, so the body has no mass"));
        }
        let inv_inertia = if kind == BodyKind::Dynamic { inertia.inverse() } else { Mat3::ZERO };
        let rotation = rotation_of(&b).map_err(|e| format!("{label}: {e}"))?;
        let position = vec3(b.position.unwrap_or([0.0; 3]), &format!("{label}: position"))?;
        let velocity = vec3(b.velocity.unwrap_or([0.0; 3]), &format!("{label}: velocity"))?;
        let angular_velocity = vec3(b.angular_velocity.unwrap_or([0.0; 3]), &format!("{label}: angular_velocity"))?;
        let (count, step) = match &b.repeat {
            Some(r) => {
                if r.count.contains(&0) {
                    return Err(format!("{label}: repeat.count must be >= 1 in every direction, got {:?}", r.count));
                }
                (r.count, vec3(r.step, &format!("{label}: repeat.step"))?)
            }
            None => ([1, 1, 1], Vec3::ZERO),
        };
        for i in 0..count[0] {
            for j in 0..count[1] {
                for k in 0..count[2] {
                    let index = bodies.len();
                    let base = b.name.clone().unwrap_or_else(|| format!("body{index}"));
                    let name = if b.repeat.is_some() && b.name.is_some() { format!("{base}_{i}_{j}_{k}") } else { base };
                    if names.insert(name.clone(), index).is_some() {
                        return Err(format!("duplicate body name `{name}`"));
                    }
                    let offset = Vec3::new(i as f64 * step.x, j as f64 * step.y, k as f64 * step.z);
                    bodies.push(Body {
                        name,
                        kind,
                        geometry: geometry.clone(),
                        material,
                        mass,
                        com: um.com,
                        inertia,
                        inv_inertia,
                        position: position + offset,
                        rotation,
                        velocity,
                        angular_velocity,
                    });
                }
            }
        }
    }

    // joints
    let lookup =
        |n: &str, what: &str| -> Result<usize, String> { names.get(n).copied().ok_or_else(|| format!("{what}: unknown body `{n}`")) };
    let mut joints = Vec::new();
    for (ji, j) in s.joint.into_iter().enumerate() {
        let what = format!("joint #{ji}");
        let body1 = lookup(&j.body1, &what)?;
        let body2 = match j.body2.as_deref() {
            None | Some("world") => None,
            Some(n) => Some(lookup(n, &what)?),
        };
        if body2 == Some(body1) {
            return Err(format!("{what}: joins body `{}` to itself", j.body1));
        }
        let fixed = |b: Option<usize>| b.is_none_or(|b| bodies[b].kind != BodyKind::Dynamic);
        if fixed(Some(body1)) && fixed(body2) {
            return Err(format!("{what}: both bodies are static or the world; a joint needs a moving body"));
        }
        let kind = match j.kind {
            JointTypeT::Ball => JointType::Ball,
            JointTypeT::Hinge => JointType::Hinge,
            JointTypeT::Prismatic => JointType::Prismatic,
            JointTypeT::Fixed => JointType::Fixed,
        };
        let anchor = vec3(j.anchor, &format!("{what}: anchor"))?;
        let axis = vec3(j.axis.unwrap_or([0.0, 0.0, 1.0]), &format!("{what}: axis"))?;
        if matches!(kind, JointType::Hinge | JointType::Prismatic) && j.axis.is_none() {
            return Err(format!("{what}: a {kind:?} joint needs `axis`"));
        }
        if axis.length() < 1e-12 {
            return Err(format!("{what}: axis is zero"));
        }
        if let Some([lo, hi]) = j.limits {
            finite(lo, &format!("{what}: limits"))?;
            finite(hi, &format!("{what}: limits"))?;
            if lo > hi {
                return Err(format!("{what}: limits [{lo}, {hi}] are reversed"));
            }
        }
        let motor = match j.motor {
            Some(m) => {
                finite(m.target, &format!("{what}: motor.target"))?;
                for (v, k) in [(m.stiffness, "stiffness"), (m.damping, "damping")] {
                    if finite(v, &format!("{what}: motor.{k}"))? < 0.0 {
                        return Err(format!("{what}: motor.{k} must be >= 0, got {v}"));
                    }
                }
                Some(Motor { target: m.target, stiffness: m.stiffness, damping: m.damping })
            }
            None => None,
        };
        joints.push(Joint { kind, body1, body2, anchor, axis: axis.normalize(), limits: j.limits, motor });
    }

    // loads
    let mut loads = Vec::new();
    for (li, l) in s.load.into_iter().enumerate() {
        let what = format!("load #{li}");
        let body = lookup(&l.body, &what)?;
        let start = finite(l.start.unwrap_or(0.0), &format!("{what}: start"))?;
        let end = l.end.unwrap_or(f64::INFINITY);
        if end.is_nan() || end <= start {
            return Err(format!("{what}: end ({end}) must be after start ({start})"));
        }
        loads.push(Load {
            body,
            force: vec3(l.force.unwrap_or([0.0; 3]), &format!("{what}: force"))?,
            torque: vec3(l.torque.unwrap_or([0.0; 3]), &format!("{what}: torque"))?,
            start,
            end,
        });
    }

    let proxies = proxy::proxies(s.proxy, &bodies, &names, dt)?;
    let model = Model {
        name: name.to_string(),
        gravity,
        dt,
        duration,
        method,
        solver,
        notes: Vec::new(),
        materials,
        bodies,
        joints,
        loads,
        proxies,
    };
    crate::methods::check_supported(&model)?;
    Ok(model)
}

fn rotation_of(b: &BodyT) -> Result<Quat, String> {
    let given = [b.rotation.is_some(), b.rotation_deg.is_some(), b.axis_angle.is_some()].iter().filter(|&&x| x).count();
    if given > 1 {
        return Err("give at most one of `rotation`, `rotation_deg`, `axis_angle`".into());
    }
    if let Some(q) = b.rotation {
        let q = Quat::from_xyzw(finite(q[1], "rotation")?, finite(q[2], "rotation")?, finite(q[3], "rotation")?, finite(q[0], "rotation")?);
        let len = q.length();
        if (len - 1.0).abs() > 1e-6 {
            return Err(format!("rotation [w, x, y, z] must be a unit quaternion, its length is {len}"));
        }
        return Ok(q.normalize());
    }
    if let Some(d) = b.rotation_deg {
        let r = vec3(d, "rotation_deg")?;
        let q = Quat::from_rotation_z(r.z.to_radians()) * Quat::from_rotation_y(r.y.to_radians()) * Quat::from_rotation_x(r.x.to_radians());
        return Ok(q);
    }
    if let Some(aa) = &b.axis_angle {
        let axis = vec3(aa.axis, "axis_angle.axis")?;
        if axis.length() < 1e-12 {
            return Err("axis_angle.axis is zero".into());
        }
        let angle = finite(aa.angle_deg, "axis_angle.angle_deg")?;
        return Ok(Quat::from_axis_angle(axis.normalize(), angle.to_radians()));
    }
    Ok(Quat::IDENTITY)
}

#[cfg(test)]
mod tests;
