//! The TOML scene format, version 1 (README.md, "A scene"), loaded into a validated [`Model`].
//!
//! Syntax and type errors come from the TOML parser with line and column; every semantic check names the
//! file, the body or key, what is wrong and what is allowed. Nothing here panics on bad input.

mod actuators;
pub mod bench_scenes;
mod checks;
pub mod color;
pub mod control_csv;
mod files;
mod inertia;
mod joints;
pub mod limits;
pub mod mjcf;
pub mod notes;
mod options;
mod proxy;
pub mod robot;
mod robot_joints;
mod robot_scene;
pub mod scn;
mod sensors;
mod shape;
pub mod urdf;
mod world_table;
mod xml;
use checks::{finite, positive, vec3};
pub use files::{description, find_scene, list_robots, list_scenes, scenes_dir, set_scenes_dir};
pub use limits::Limits;
use options::apply_set_list;
pub use options::LoadOptions;

use crate::error::InputError;
use crate::math::{Mat3, Quat, Vec3};
use crate::method::params::SolverParams;
use crate::model::{Body, BodyKind, Load, Material, MethodKey, Model};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A scene file. `S` is how a `[solver.<key>]` table arrives: with its place in the text when read from the
/// text (`toml::Spanned`), without when `--set` overrides went through a `toml::Value`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneFile<S> {
    format: Option<i64>,
    world: Option<world_table::WorldT>,
    solver: Option<BTreeMap<String, S>>,
    #[serde(default)]
    material: Vec<MaterialT>,
    #[serde(default)]
    body: Vec<BodyT>,
    #[serde(default)]
    joint: Vec<joints::JointT>,
    #[serde(default)]
    load: Vec<LoadT>,
    #[serde(default)]
    proxy: Vec<proxy::ProxyT>,
    #[serde(default)]
    robot: Vec<robot_scene::RobotT>,
    #[serde(default)]
    actuator: Vec<actuators::ActuatorT>,
    #[serde(default)]
    control: Vec<actuators::ControlT>,
    #[serde(default)]
    site: Vec<sensors::SiteT>,
    #[serde(default)]
    sensor: Vec<sensors::SensorT>,
    limits: Option<Limits>,
}

/// A `[solver.<key>]` table as it arrives, with the line it starts on when known.
trait SolverTable {
    fn into_table(self) -> (toml::Table, Option<usize>);
}

impl SolverTable for toml::Spanned<toml::Table> {
    fn into_table(self) -> (toml::Table, Option<usize>) {
        let start = self.span().start;
        (self.into_inner(), Some(start))
    }
}

impl SolverTable for toml::Table {
    fn into_table(self) -> (toml::Table, Option<usize>) {
        (self, None)
    }
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
    /// The viewer's colour.
    color: Option<color::ColorT>,
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

/// Loads and validates a scene file, with optional `--set` overrides.
pub fn load(path: &Path, sets: &[(String, String)]) -> Result<Model, InputError> {
    load_with(path, &LoadOptions { sets: sets.to_vec(), ..Default::default() })
}

/// Loads and validates a scene file with the front end's options.
pub fn load_with(path: &Path, opts: &LoadOptions) -> Result<Model, InputError> {
    let file = path.display().to_string();
    let _limits = limits::scoped(opts.limits);
    if path.exists() {
        // a device or FIFO is refused by what it is, before its name
        let robot = path.extension().is_some_and(|e| e == "urdf" || e == "xml");
        let kind = if robot { limits::FileKind::Robot } else { limits::FileKind::Scene };
        limits::check_regular(path, kind).map_err(|e| InputError::at(&file, e))?;
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext == "urdf" || ext == "xml" {
        return robot_scene::load_file(path, opts);
    }
    if ext != "toml" && ext != "scn" {
        return Err(InputError::at(
            &file,
            format!(
                "cairn reads `.toml` (scene format 1), `.scn` (the pulsk format), `.urdf` and `.xml` (MJCF) files; {}",
                if ext.is_empty() { "this file has no extension".to_string() } else { format!("`.{ext}` is none of them") }
            ),
        ));
    }
    let text = limits::read_text_capped(path, limits::FileKind::Scene).map_err(|e| InputError::at(&file, e))?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("scene").to_string();
    let dir = path.parent().unwrap_or(Path::new("."));
    if path.extension().is_some_and(|e| e == "scn") {
        // the pulsk format: translated into a TOML scene, then loaded like one
        let (table, notes) = scn::to_toml(&text, opts.limits.bodies()).map_err(|e| InputError::at(&file, e))?;
        let toml_text = toml::to_string(&table).map_err(|e| InputError::at(&file, format!("translation failed: {e}")))?;
        let mut model = load_str_with(&toml_text, &file, &name, dir, opts)?;
        model.notes.extend(notes.into_iter().map(|n| format!("ignored (cairn cannot use it): {n}")));
        return Ok(model);
    }
    load_str_with(&text, &file, &name, dir, opts)
}

/// Loads a scene from text. `file` names it in messages; `dir` resolves mesh paths.
pub fn load_str(text: &str, file: &str, name: &str, dir: &Path, sets: &[(String, String)]) -> Result<Model, InputError> {
    load_str_with(text, file, name, dir, &LoadOptions { sets: sets.to_vec(), ..Default::default() })
}

/// Loads a scene from text with the front end's options.
pub fn load_str_with(text: &str, file: &str, name: &str, dir: &Path, opts: &LoadOptions) -> Result<Model, InputError> {
    let sets = &opts.sets;
    if sets.is_empty() {
        let scene: SceneFile<toml::Spanned<toml::Table>> = toml::from_str(text).map_err(|e| InputError::at(file, e))?;
        return build(scene, text, name, dir, opts).map_err(|e| InputError::at(file, e));
    }
    let scene: SceneFile<toml::Table> = {
        let table: toml::Table = text.parse().map_err(|e| InputError::at(file, e))?;
        let mut value = toml::Value::Table(table);
        if let toml::Value::Table(t) = &mut value {
            apply_set_list(t, sets).map_err(|e| InputError::at(file, e))?;
        }
        match value.try_into() {
            Ok(scene) => scene,
            Err(e) => {
                // a mistake the file itself makes is reported with its line, as without --set
                if let Err(at_line) = toml::from_str::<SceneFile<toml::Spanned<toml::Table>>>(text) {
                    return Err(InputError::at(file, at_line));
                }
                return Err(InputError::at(file, format!("after --set overrides: {e}")));
            }
        }
    };
    build(scene, text, name, dir, opts).map_err(|e| InputError::at(file, e))
}

/// Parses each `[solver.<key>]` table into its method's parameters; the message names the table and, when
/// known, the line it starts on.
fn solver_tables<S: SolverTable>(solver: Option<BTreeMap<String, S>>, text: &str) -> Result<SolverParams, String> {
    let mut out = SolverParams::default();
    for (name, s) in solver.unwrap_or_default() {
        let (table, start) = s.into_table();
        let at = match start {
            Some(b) => format!("line {}, [solver.{name}]", 1 + text[..b.min(text.len())].matches('\n').count()),
            None => format!("after --set overrides, [solver.{name}]"),
        };
        let key = MethodKey::parse(&name).map_err(|e| format!("{at}: {e}"))?;
        out.insert(key, crate::METHODS.parse_params(key, &table).map_err(|e| format!("{at}: {e}"))?);
    }
    Ok(out)
}

/// The `[[material]]` tables after the default material (which a table named `default` replaces).
fn materials(tables: Vec<MaterialT>) -> Result<Vec<Material>, String> {
    let mut materials = vec![Material::default_material()];
    let mut seen = BTreeSet::new();
    for (i, m) in tables.into_iter().enumerate() {
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
    Ok(materials)
}

/// Refuses a scene whose `[[body]]` tables, `repeat` counted, hold more bodies than the limit, before any is
/// made (a `repeat` of 1000 × 1000 × 10 would otherwise allocate until the allocator aborts).
fn count_bodies(tables: &[BodyT], lim: &Limits) -> Result<(), String> {
    let mut total: u64 = 0;
    for (bi, b) in tables.iter().enumerate() {
        let n = b.repeat.as_ref().map_or(1, |r| r.count.iter().map(|&c| c as u64).product::<u64>());
        total = total.saturating_add(n);
        if total > lim.bodies() {
            let label = b.name.as_ref().map_or(format!("body #{bi}"), |n| format!("body `{n}`"));
            let how = match &b.repeat {
                Some(r) => format!("{label} with repeat.count = [{}, {}, {}] makes the scene", r.count[0], r.count[1], r.count[2]),
                None => format!("{label} makes the scene"),
            };
            return lim.check_bodies(total, &how);
        }
    }
    Ok(())
}

/// The `[[body]]` tables, each `repeat` expanded, with their names' indices.
fn bodies(tables: Vec<BodyT>, materials: &[Material], dir: &Path) -> Result<(Vec<Body>, BTreeMap<String, usize>), String> {
    let mut bodies: Vec<Body> = Vec::new();
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut cache = shape::GeometryCache::default();
    for (bi, b) in tables.into_iter().enumerate() {
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
        let rotation = rotation_of(b.rotation, b.rotation_deg, b.axis_angle.as_ref()).map_err(|e| format!("{label}: {e}"))?;
        let position = vec3(b.position.unwrap_or([0.0; 3]), &format!("{label}: position"))?;
        let velocity = vec3(b.velocity.unwrap_or([0.0; 3]), &format!("{label}: velocity"))?;
        let angular_velocity = vec3(b.angular_velocity.unwrap_or([0.0; 3]), &format!("{label}: angular_velocity"))?;
        let color = b.color.as_ref().map(color::parse).transpose().map_err(|e| format!("{label}: color: {e}"))?;
        let (count, step) = match &b.repeat {
            Some(r) => {
                if r.count.contains(&0) {
                    let [a, b, c] = r.count;
                    return Err(format!("{label}: repeat.count must be >= 1 in every direction, got [{a}, {b}, {c}]"));
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
                        intermediate: false,
                        color,
                    });
                }
            }
        }
    }
    Ok((bodies, names))
}

/// The `[[load]]` tables.
fn loads(tables: Vec<LoadT>, names: &BTreeMap<String, usize>) -> Result<Vec<Load>, String> {
    let lookup =
        |n: &str, what: &str| -> Result<usize, String> { names.get(n).copied().ok_or_else(|| format!("{what}: unknown body `{n}`")) };
    let mut loads = Vec::new();
    for (li, l) in tables.into_iter().enumerate() {
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
    Ok(loads)
}

fn build<S: SolverTable>(s: SceneFile<S>, text: &str, name: &str, dir: &Path, opts: &LoadOptions) -> Result<Model, String> {
    match s.format {
        None => return Err("missing `format` (write `format = 1` at the top)".into()),
        Some(1) => {}
        Some(v) => return Err(format!("`format = {v}` is not known to this program: the known version is 1")),
    }
    let table = s.limits.unwrap_or_default();
    table.check_table()?;
    // the command line's limits over the scene's; the file readers below see them through `limits::current`
    let lim = opts.limits.or(&table);
    let _limits = limits::scoped(lim);
    let w = world_table::world_values(s.world, opts, &lim)?;
    let solver = solver_tables(s.solver, text)?;
    let mut materials = materials(s.material)?;
    count_bodies(&s.body, &lim)?;
    let (mut bodies, mut names) = bodies(s.body, &materials, dir)?;
    let mut placed = robot_scene::place_all(s.robot, dir, &mut bodies, &mut names, &mut materials, (w.gravity, w.dt))?;
    // the robots' joints first, then the scene's
    let mut joints = std::mem::take(&mut placed.joints);
    let robot_joints = joints.len();
    joints.extend(joints::joints(s.joint, &bodies, &names)?);
    // sites, actuators (the robots', the scene's, then the scene joints' motors as servos), controls, sensors
    let mut sites = std::mem::take(&mut placed.sites);
    sites.extend(sensors::sites(s.site, &names, &sites)?);
    let mut acts = std::mem::take(&mut placed.actuators);
    acts.extend(actuators::actuators(s.actuator, &joints, &sites, acts.len())?);
    acts.extend(actuators::servos(&joints, robot_joints));
    let (actuator_list, ratios): (Vec<_>, Vec<_>) = acts.into_iter().unzip();
    for (k, a) in actuator_list.iter().enumerate() {
        if actuator_list[..k].iter().any(|b| b.name == a.name) {
            return Err(format!("two actuators are called `{}` (give the robot a `prefix` or the actuator a `name`)", a.name));
        }
    }
    let controls = actuators::controls(s.control, &actuator_list)?;
    let mut sensor_list = std::mem::take(&mut placed.sensors);
    sensor_list.extend(sensors::sensors(s.sensor, &names, &joints, &actuator_list, &mut sites, sensor_list.len())?);
    let mut loads = loads(s.load, &names)?;
    loads.extend(placed.gravcomp_loads(w.gravity));
    let proxies = proxy::proxies(s.proxy, &bodies, &names, w.dt)?;
    // two bodies joined by a joint never collide with each other, under every method (as MuJoCo's parent–child
    // rule and URDF simulators do): a hinge's neighbours would otherwise jam at the joint
    let mut exclusions = placed.exclusions;
    exclusions.extend(joints.iter().filter_map(|j| j.body2.map(|b| (j.body1.min(b) as u32, j.body1.max(b) as u32))));
    exclusions.sort_unstable();
    exclusions.dedup();
    let mut model = Model {
        name: name.to_string(),
        gravity: w.gravity,
        dt: w.dt,
        duration: w.duration,
        method: w.method,
        check_intersections: w.check_intersections,
        check_resolution: w.check_resolution,
        friction_combine: w.friction_combine,
        sleep: w.sleep,
        fluid: w.fluid,
        solver,
        notes: placed.notes,
        materials,
        bodies,
        joints,
        loads,
        actuators: actuator_list,
        controls,
        sites,
        sensors: sensor_list,
        proxies,
        exclusions,
        limits: lim,
        couplings: Vec::new(),
        site_tendons: Vec::new(),
    };
    actuators::apply_dampratios(&mut model, &ratios)?;
    robot_scene::set_couplings(&mut model, std::mem::take(&mut placed.couplings));
    robot_scene::set_site_tendons(&mut model, std::mem::take(&mut placed.site_tendons));
    robot_scene::set_springdampers(&mut model, &placed.springdampers);
    Ok(model)
}

fn rotation_of(rotation: Option<[f64; 4]>, rotation_deg: Option<[f64; 3]>, axis_angle: Option<&AxisAngleT>) -> Result<Quat, String> {
    let given = [rotation.is_some(), rotation_deg.is_some(), axis_angle.is_some()].iter().filter(|&&x| x).count();
    if given > 1 {
        return Err("give at most one of `rotation`, `rotation_deg`, `axis_angle`".into());
    }
    if let Some(q) = rotation {
        let q = Quat::from_xyzw(finite(q[1], "rotation")?, finite(q[2], "rotation")?, finite(q[3], "rotation")?, finite(q[0], "rotation")?);
        let len = q.length();
        if (len - 1.0).abs() > 1e-6 {
            return Err(format!("rotation [w, x, y, z] must be a unit quaternion, its length is {len}"));
        }
        return Ok(q.normalize());
    }
    if let Some(d) = rotation_deg {
        let r = vec3(d, "rotation_deg")?;
        let q = Quat::from_rotation_z(r.z.to_radians()) * Quat::from_rotation_y(r.y.to_radians()) * Quat::from_rotation_x(r.x.to_radians());
        return Ok(q);
    }
    if let Some(aa) = axis_angle {
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
