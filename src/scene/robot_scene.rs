//! Robots in scenes: the `[[robot]]` table that places a URDF or MJCF file, and `cairn run robot.urdf` /
//! `cairn run model.xml`, which load a file as a scene of its own (translated into a TOML scene with one
//! `[[robot]]`, so `--set` overrides and every check apply as to any scene).

use super::robot::{finish_exclusions, joint_listing, place, Bases, Placement, Robot};
use super::{rotation_of, vec3, AxisAngleT};
use crate::error::InputError;
use crate::math::Vec3;
use crate::model::{Body, Joint, Material, Model};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// A `[[robot]]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RobotT {
    /// The URDF (`.urdf`) or MJCF (`.xml`) file, relative to the scene file.
    file: String,
    /// The robot frame's position and rotation in the world (rotation as for a body).
    position: Option<[f64; 3]>,
    rotation: Option<[f64; 4]>,
    rotation_deg: Option<[f64; 3]>,
    axis_angle: Option<AxisAngleT>,
    /// Weld the root links to the world (true) or let them float (false); default: as the file says (URDF: a
    /// root joined to a link named `world` is welded, others float; MJCF: bodies without a joint are welded).
    fixed_base: Option<bool>,
    /// Prepended to every link (body) name and material name.
    prefix: Option<String>,
    /// The scene material of links the file gives none (default "default").
    material: Option<String>,
}

/// What the robots add to a scene, beside the bodies and materials added in place.
#[derive(Default)]
pub(super) struct Robots {
    pub joints: Vec<Joint>,
    pub exclusions: Vec<(u32, u32)>,
    pub notes: Vec<String>,
    pub sites: Vec<crate::model::Site>,
    /// Each with the `dampratio` still to be applied (see `scene::actuators`).
    pub actuators: Vec<(crate::dynamics::actuator::Actuator, Option<f64>)>,
    pub sensors: Vec<crate::dynamics::sensor::Sensor>,
    /// Bodies with MJCF gravity compensation and the mass it carries.
    pub gravcomp: Vec<(usize, f64)>,
    /// Joints with MJCF `springdamper` (see `robot::Placed::springdampers`).
    pub springdampers: Vec<(usize, [f64; 2], f64)>,
    /// Joint couplings with their solref and dmax (see `robot::Placed::couplings`).
    pub couplings: Vec<(crate::dynamics::coupling::Coupling, Option<([f64; 2], f64)>)>,
    /// Spatial tendons (see `robot::Placed::site_tendons`).
    pub site_tendons: Vec<crate::scene::robot::RobotSiteTendon>,
}

/// Sets the springs of joints with MJCF `springdamper` (time constant τ, damping ratio ζ) as MuJoCo does, from
/// the joint's inertia I at the load pose: stiffness I/(τζ)², damping 2I/τ, over the file's stiffness and the
/// joint's own damping (an actuator's damping on the same motor is kept).
pub(super) fn set_springdampers(model: &mut crate::model::Model, pending: &[(usize, [f64; 2], f64)]) {
    for &(j, [tau, zeta], own_damping) in pending {
        let inertia = crate::dynamics::actuator::joint_inertia(model, j);
        if let Some(m) = model.joints[j].motor.as_mut() {
            m.stiffness = inertia / (tau * zeta).powi(2);
            m.damping += 2.0 * inertia / tau - own_damping;
        }
    }
}

/// Puts the robots' joint couplings into the model with MuJoCo's soft constraint as a spring and damper: the
/// residual's effective inertia is 1/(Σ₁ c²/I + c₁² Σ₂ c²/I), I each joint's inertia at the load pose, c its
/// coefficient, c₁ the polynomial's slope at the load pose (dynamics/coupling.rs).
pub(super) fn set_couplings(model: &mut crate::model::Model, pending: Vec<(crate::dynamics::coupling::Coupling, Option<([f64; 2], f64)>)>) {
    use crate::dynamics::actuator::joint_inertia;
    for (mut c, soft) in pending {
        // a tendon's own spring (set at placing) needs nothing from the inertias
        let Some((solref, dmax)) = soft else {
            model.couplings.push(c);
            continue;
        };
        let side = |parts: &[(usize, f64)]| parts.iter().map(|&(j, k)| k * k / joint_inertia(model, j)).sum::<f64>();
        let inverse = side(&c.first) + c.poly[1] * c.poly[1] * side(&c.second);
        let inertia = if inverse.is_finite() && inverse > 0.0 { 1.0 / inverse } else { 0.0 };
        (c.stiffness, c.damping) = crate::dynamics::coupling::soft_constraint(solref, dmax, inertia, model.dt);
        model.couplings.push(c);
    }
}

/// Puts the robots' spatial tendons into the model: each rests at its length at the load pose, and a range
/// gets MuJoCo's soft limit (solreflimit, solimplimit) as a spring and damper for the length's inertia there.
pub(super) fn set_site_tendons(model: &mut crate::model::Model, pending: Vec<crate::scene::robot::RobotSiteTendon>) {
    use crate::dynamics::site_tendon::{self, SiteTendon};
    let state = crate::state::State::from_model(model);
    for t in pending {
        let mut tendon = SiteTendon { name: t.name, sites: t.sites, stiffness: t.stiffness, damping: t.damping, rest: 0.0, limit: None };
        tendon.rest = site_tendon::length_at(model, &state, &tendon);
        if let Some((range, solref, dmax)) = t.range {
            let inertia = site_tendon::inertia(model, &state, &tendon);
            let (k, b) = crate::dynamics::coupling::soft_constraint(solref, dmax, inertia, model.dt);
            tendon.limit = Some((range, k, b));
        }
        model.site_tendons.push(tendon);
    }
}

impl Robots {
    /// MJCF gravcomp as loads: an upward force at each compensated body's centre of mass, its compensated share
    /// of the weight, all the time.
    pub fn gravcomp_loads(&self, gravity: crate::math::Vec3) -> impl Iterator<Item = crate::model::Load> + '_ {
        self.gravcomp.iter().map(move |&(body, mass)| crate::model::Load {
            body,
            force: -gravity * mass,
            torque: crate::math::Vec3::ZERO,
            start: 0.0,
            end: f64::INFINITY,
        })
    }
}

/// Reads a robot file by its extension.
pub fn read(path: &Path) -> Result<Robot, String> {
    let file = path.display().to_string();
    // the extension first: nothing is read of a file that would be refused
    let ext = path.extension().and_then(|e| e.to_str());
    if !matches!(ext, Some("urdf" | "xml")) {
        return Err(format!("{file}: a robot file must be `.urdf` (URDF) or `.xml` (MJCF)"));
    }
    let text = super::limits::read_text_capped(path, super::limits::FileKind::Robot).map_err(|e| format!("{file}: {e}"))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    if ext == Some("urdf") {
        super::urdf::load(&text, &file, dir)
    } else {
        super::mjcf::load(&text, &file, dir)
    }
}

/// Places every `[[robot]]` into the scene's bodies and materials (names must stay unique); the scene's
/// (gravity, dt) only decide whether the files' own settings get a note. Also adds the exclusions of bodies
/// without collision geometry.
pub(super) fn place_all(
    tables: Vec<RobotT>,
    dir: &Path,
    bodies: &mut Vec<Body>,
    names: &mut BTreeMap<String, usize>,
    materials: &mut Vec<Material>,
    world: (Vec3, f64),
) -> Result<Robots, String> {
    let mut out = Robots::default();
    for (ri, t) in tables.into_iter().enumerate() {
        let what = format!("robot #{ri} (`{}`)", t.file);
        let robot = read(&dir.join(&t.file)).map_err(|e| format!("{what}: {e}"))?;
        let file = dir.join(&t.file).display().to_string();
        // each link is a body: counted before any is placed
        super::limits::current().check_bodies(
            bodies.len() as u64 + robot.links.len() as u64,
            &format!("{what}: its {} links make the scene", robot.links.len()),
        )?;
        let mat_name = t.material.clone().unwrap_or_else(|| "default".into());
        let material = materials.iter().position(|m| m.name == mat_name).ok_or_else(|| format!("{what}: unknown material `{mat_name}`"))?;
        let placement = Placement {
            position: vec3(t.position.unwrap_or([0.0; 3]), &format!("{what}: position"))?,
            rotation: rotation_of(t.rotation, t.rotation_deg, t.axis_angle.as_ref()).map_err(|e| format!("{what}: {e}"))?,
            fixed_base: t.fixed_base,
            prefix: t.prefix.as_deref().unwrap_or(""),
            material,
        };
        let bases = Bases { joints: out.joints.len(), actuators: out.actuators.len(), sites: out.sites.len() };
        let placed = place(&robot, &file, &placement, bodies.len(), materials.len(), bases).map_err(|e| format!("{what}: {e}"))?;
        for m in placed.materials {
            if materials.iter().any(|x| x.name == m.name) {
                return Err(format!("{what}: material `{}` exists already (give the robot a `prefix`)", m.name));
            }
            materials.push(m);
        }
        let first = bodies.len();
        for b in placed.bodies {
            match names.insert(b.name.clone(), bodies.len()) {
                // a name twice in the one file: a prefix would not separate them
                Some(i) if i >= first => return Err(format!("{what}: the file names two bodies (links) `{}`", b.name)),
                Some(_) => return Err(format!("{what}: body name `{}` exists already (give the robot a `prefix`)", b.name)),
                None => {}
            }
            bodies.push(b);
        }
        if let Some(g) = robot.gravity.filter(|g| *g != world.0) {
            out.notes.push(format!("{file}: the file's gravity [{}, {}, {}] is not used (the scene's world.gravity is)", g.x, g.y, g.z));
        }
        if let Some(dt) = robot.dt.filter(|&dt| dt != world.1) {
            out.notes.push(format!("{file}: the file's time step {dt} is not used (the scene's world.dt is)"));
        }
        if robot.fluid.is_some() {
            out.notes.push(format!("{file}: the file's medium (density, viscosity, wind) is not used (the scene's world.fluid_density, fluid_viscosity and wind are)"));
        }
        out.notes.extend(joint_listing(&file, &robot, out.joints.len()));
        out.joints.extend(placed.joints);
        out.sites.extend(placed.sites);
        out.actuators.extend(placed.actuators);
        out.sensors.extend(placed.sensors);
        out.exclusions.extend(placed.exclusions);
        out.gravcomp.extend(placed.gravcomp);
        out.couplings.extend(placed.couplings);
        out.site_tendons.extend(placed.site_tendons);
        out.springdampers.extend(placed.springdampers);
        out.notes.extend(placed.notes);
    }
    finish_exclusions(bodies, &mut out.exclusions);
    Ok(out)
}

/// `cairn run robot.urdf` / `model.xml`: the file as a scene of its own, with the file's gravity and time step
/// (MJCF `option`), and for a URDF a static ground whose top is at z = 0 (or just under the robot when it
/// reaches below 0).
/// MuJoCo's default time step (`<option timestep>`), s.
const MJCF_TIMESTEP: f64 = 0.002;

pub(super) fn load_file(path: &Path, opts: &super::LoadOptions) -> Result<Model, InputError> {
    let file = path.display().to_string();
    let robot = read(path).map_err(InputError)?;
    let is_urdf = path.extension().is_some_and(|e| e == "urdf");
    let mut scene = toml::Table::new();
    scene.insert("format".into(), 1.into());
    let mut world = toml::Table::new();
    let g = robot.gravity.unwrap_or(Vec3::new(0.0, 0.0, -9.81));
    world.insert("gravity".into(), toml::Value::Array(g.to_array().iter().map(|&x| x.into()).collect()));
    // an MJCF file without `<option timestep>` runs at MuJoCo's default step, and combines frictions as MuJoCo
    if let Some(dt) = robot.dt.or((!is_urdf).then_some(MJCF_TIMESTEP)) {
        world.insert("dt".into(), dt.into());
    }
    if !is_urdf {
        world.insert("friction_combine".into(), "max".into());
    }
    if let Some(f) = robot.fluid {
        world.insert("fluid_density".into(), f.density.into());
        world.insert("fluid_viscosity".into(), f.viscosity.into());
        world.insert("wind".into(), toml::Value::Array(f.wind.to_array().iter().map(|&x| x.into()).collect()));
    }
    scene.insert("world".into(), world.into());
    let mut t = toml::Table::new();
    let name = path.file_name().and_then(|s| s.to_str()).unwrap_or("robot").to_string();
    t.insert("file".into(), name.into());
    scene.insert("robot".into(), toml::Value::Array(vec![t.into()]));
    let mut notes = Vec::new();
    if is_urdf {
        let lowest = lowest_point(&robot).min(0.0);
        let mut ground = toml::Table::new();
        ground.insert("name".into(), "ground".into());
        ground.insert("kind".into(), "static".into());
        let shape: toml::Table = toml::from_str("type = \"box\"\nsize = [20.0, 20.0, 1.0]").map_err(|e| InputError::at(&file, e))?;
        ground.insert("shape".into(), shape.into());
        ground.insert("position".into(), toml::Value::Array(vec![0.0.into(), 0.0.into(), (lowest - 0.5).into()]));
        scene.insert("body".into(), toml::Value::Array(vec![ground.into()]));
        notes.push(format!("{file}: a URDF has no ground: cairn adds a static 20 m × 20 m box `ground` with its top at z = {lowest}"));
    }
    let text = toml::to_string(&scene).map_err(|e| InputError::at(&file, format!("translation failed: {e}")))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("robot");
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut model = super::load_str_with(&text, &file, stem, dir, opts)?;
    model.notes.extend(notes);
    Ok(model)
}

/// The lowest z of the robot's collision shapes at the zero configuration (robot frame), 0 when it has none.
fn lowest_point(robot: &Robot) -> f64 {
    let mut lowest = f64::INFINITY;
    for link in &robot.links {
        for (pose, desc, _) in &link.geoms {
            let (lo, hi) = crate::geometry::sdf::shape_box(desc);
            for k in 0..8 {
                let c = Vec3::new(
                    if k & 1 == 0 { lo.x } else { hi.x },
                    if k & 2 == 0 { lo.y } else { hi.y },
                    if k & 4 == 0 { lo.z } else { hi.z },
                );
                lowest = lowest.min((link.pose * *pose).transform_point(c).z);
            }
        }
    }
    if lowest.is_finite() {
        lowest
    } else {
        0.0
    }
}
