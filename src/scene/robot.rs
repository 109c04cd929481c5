//! What the URDF and MJCF loaders share: a kinematic tree of links, each attached to its parent (or the world)
//! by a joint, a weld or nothing (free), turned into the model's bodies, joints and contact exclusions.
//!
//! Links welded to their parent (URDF `fixed` joints, MJCF bodies without a joint) are merged into the parent's
//! body: one rigid body with a compound shape and the summed inertials, which is exactly a weld. A root welded to
//! the world becomes a static body. Each joint joins the parent's body (`body1`) and the child's (`body2`), or the
//! child's (`body1`) to the world, with anchor and axis at the zero configuration the file describes, so the
//! joint coordinate of dynamics/joint.rs is the file's (the child's about the axis relative to the parent). A parent and its child never
//! collide (the model's exclusions), as in MuJoCo and in the usual URDF simulators; a body with no collision
//! geometry collides with nothing.

use crate::dynamics::actuator::{Actuator, Transmission};
use crate::dynamics::sensor::{Sensor, SensorKind};
use crate::geometry::compound::combine;
use crate::geometry::mass::UnitMass;
use crate::geometry::{build, ShapeDesc};
use crate::math::{Mat3, Pose, Quat, Vec3};
use crate::model::{Body, BodyKind, Joint, JointType, Material, Motor, Site, SiteShape};
use std::collections::BTreeMap;
use std::sync::Arc;

pub use super::inertia::{check_inertia, physical_inertia};

/// A link's mass, centre of mass and inertia about it (link frame and axes).
#[derive(Debug, Clone, Copy)]
pub struct Inertial {
    pub mass: f64,
    pub com: Vec3,
    pub inertia: Mat3,
}

/// What an MJCF file's `<option><flag>` disables (all false: everything on).
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags {
    /// `contact` (or `constraint`): none of the file's bodies collide with each other.
    pub no_contacts: bool,
    /// `limit` (or `constraint`): the joints' ranges are not enforced.
    pub no_limits: bool,
    /// `equality` (or `constraint`): the `<equality>` constraints are left out.
    pub no_equalities: bool,
}

/// A joint to the parent link (or the world), in the robot's frame at the zero configuration.
#[derive(Debug, Clone)]
pub struct RobotJoint {
    pub name: String,
    pub kind: JointType,
    pub anchor: Vec3,
    /// Unit axis (hinge, prismatic); ignored for ball joints.
    pub axis: Vec3,
    pub limits: Option<[f64; 2]>,
    /// The coordinate at the file's pose (MJCF `ref`).
    pub offset: f64,
    /// PD servo from an actuator or a joint spring (its damping excludes `damping` below).
    pub motor: Option<Motor>,
    /// Viscous damping on the joint coordinate (N·s/m or N·m·s/rad): added to the motor's damping.
    pub damping: f64,
    /// A ball joint's spring on its relative rotation (N·m/rad; MJCF `stiffness`), 0 for other joints.
    pub ball_stiffness: f64,
    /// Coulomb friction on the joint coordinate: no method runs it, so it becomes a note.
    pub friction: f64,
    /// Rotor inertia on the joint coordinate (MJCF `armature`).
    pub armature: f64,
    /// The largest effort of the joint's actuator (URDF `limit effort`), when given.
    pub effort: Option<f64>,
    /// MJCF `springdamper` (time constant, damping ratio): the spring's stiffness and damping are set from the
    /// joint's inertia once the model is built, over `motor`'s and `damping`.
    pub springdamper: Option<[f64; 2]>,
    /// Where the joint is written, for messages: `file line L, <joint name="…">`.
    pub at: String,
}

/// How a link hangs on its parent.
#[derive(Debug, Clone)]
pub enum Attach {
    /// Free (a floating base, or an MJCF free joint).
    Free,
    /// Rigidly welded (merged into the parent's body; a root welded to the world is static).
    Weld,
    Joint(RobotJoint),
}

/// One link of the tree.
#[derive(Debug, Clone)]
pub struct Link {
    pub name: String,
    /// Parent link; None for the world.
    pub parent: Option<usize>,
    pub attach: Attach,
    /// The link frame in the robot frame at the zero configuration.
    pub pose: Pose,
    /// Collision shapes and their material (index into `Robot::materials`, None: the robot's default).
    pub geoms: Vec<(Pose, ShapeDesc, Option<usize>)>,
    pub inertial: Option<Inertial>,
    /// Where the link is written, for messages.
    pub at: String,
    /// An intermediate link of an MJCF body with several joints (it stands for a massless frame).
    pub intermediate: bool,
    /// MJCF `gravcomp`: the fraction of the link's weight an upward force at its centre of mass cancels.
    pub gravcomp: f64,
    /// The viewer's colour (MJCF geom `rgba`, URDF visual material).
    pub color: Option<[f64; 4]>,
}

/// A robot as the file describes it. Links are in tree order (a parent before its children).
#[derive(Debug, Default)]
pub struct Robot {
    pub links: Vec<Link>,
    /// Contact materials the file defines (e.g. MJCF geom friction).
    pub materials: Vec<Material>,
    /// The file's gravity and time step (MJCF `option`), when given.
    pub gravity: Option<Vec3>,
    pub dt: Option<f64>,
    /// The file's medium (MJCF `option` density, viscosity, wind), when it has one.
    pub fluid: Option<crate::dynamics::fluid::Fluid>,
    pub notes: Vec<String>,
    /// Link pairs that never collide beyond parent and child (MJCF `<contact><exclude>`).
    pub exclusions: Vec<(usize, usize)>,
    /// Link pairs that collide whatever the bitmasks, exclusions and parent filter say (MJCF `<contact><pair>`).
    pub pairs: Vec<(usize, usize)>,
    /// What the file's `<option><flag>` disables.
    pub flags: Flags,
    /// Each collision geom's link and its MJCF contype and conaffinity bitmasks (empty: every pair collides).
    pub masks: Vec<(usize, u32, u32)>,
    /// PyBullet's reading of links without mass (URDF): a root link without mass is static, a moving one gets a
    /// small mass (both noted); otherwise (MJCF, as MuJoCo) a moving body without mass is an error.
    pub lenient_mass: bool,
    /// Frames on links (MJCF `<site>`).
    pub sites: Vec<RobotSite>,
    /// Actuators, their joints, sites and servos numbered within the robot (joints in link order, as
    /// [`joint_links`] lists them), with the `dampratio` of a `position` actuator still to be turned into kv.
    pub actuators: Vec<(Actuator, Option<f64>)>,
    /// Sensors, their joints, actuators and sites numbered within the robot, a body by its link.
    pub sensors: Vec<Sensor>,
    /// Joints closing loops (MJCF connect and weld equalities).
    pub loops: Vec<RobotLoop>,
    /// Couplings of joint coordinates (MJCF joint equalities).
    pub couplings: Vec<RobotCoupling>,
    /// Spatial tendons through sites.
    pub site_tendons: Vec<RobotSiteTendon>,
}

/// A joint that closes a loop (MJCF `<equality>` connect: a ball joint, weld: a fixed joint), in the robot's
/// frame at the zero configuration; after the tree's joints.
#[derive(Debug, Clone)]
pub struct RobotLoop {
    pub name: String,
    pub kind: JointType,
    pub link1: usize,
    /// `None`: the world.
    pub link2: Option<usize>,
    /// The joint's point, robot frame.
    pub anchor: Vec3,
    /// A weld's pose of link 2 in link 1's frame, when the file gives one (else the zero configuration's).
    pub relative: Option<Pose>,
    pub at: String,
}

/// A coupling of two joint coordinates or fixed tendons (MJCF `<equality><joint>`, `<tendon>`;
/// dynamics/coupling.rs), its joints numbered within the robot, with MuJoCo's softness still to be turned into a spring and damper.
#[derive(Debug, Clone)]
pub struct RobotCoupling {
    pub name: String,
    /// A joint (coefficient 1) or a fixed tendon's joints and coefficients.
    pub first: Vec<(usize, f64)>,
    /// The same; empty for none.
    pub second: Vec<(usize, f64)>,
    pub poly: [f64; 5],
    pub solref: [f64; 2],
    pub dmax: f64,
    /// A tendon's own spring and damper (MJCF fixed tendon `stiffness`, `damping`), which replace the soft
    /// constraint's.
    pub spring: Option<(f64, f64)>,
    /// A fixed tendon's length range (`Coupling::range`): a limit, not an equality.
    pub range: Option<[f64; 2]>,
    pub at: String,
}

/// A spatial tendon through sites (robot site indices): its spring and damper, and its length range with the
/// soft limit's solref and dmax (the spring is set once the model's inertias are known).
#[derive(Debug, Clone)]
pub struct RobotSiteTendon {
    pub name: String,
    pub sites: Vec<usize>,
    pub stiffness: f64,
    pub damping: f64,
    pub range: Option<([f64; 2], [f64; 2], f64)>,
}

/// A frame on a link, in the link's frame.
#[derive(Debug, Clone)]
pub struct RobotSite {
    pub name: String,
    pub link: usize,
    pub pose: Pose,
    pub shape: SiteShape,
}

/// The links attached by a joint, in link order: the robot's joint `k` is that of `joint_links(robot)[k]`.
pub fn joint_links(links: &[Link]) -> Vec<usize> {
    (0..links.len()).filter(|&l| matches!(links[l].attach, Attach::Joint(_))).collect()
}

/// Where and how a robot is placed in a scene.
pub struct Placement<'a> {
    pub position: Vec3,
    pub rotation: Quat,
    /// Weld the free roots to the world (true), keep them free (false), or as the file says (None).
    pub fixed_base: Option<bool>,
    pub prefix: &'a str,
    /// The scene material of links without their own (index into the model's materials).
    pub material: usize,
}

/// What a placed robot adds to the model.
#[derive(Default)]
pub struct Placed {
    pub bodies: Vec<Body>,
    pub joints: Vec<Joint>,
    pub materials: Vec<Material>,
    /// Pairs of body indices (of the whole model), a < b.
    pub exclusions: Vec<(u32, u32)>,
    pub notes: Vec<String>,
    /// Numbered within the whole model, given the counts before the robot (`Bases`).
    pub sites: Vec<Site>,
    pub actuators: Vec<(Actuator, Option<f64>)>,
    pub sensors: Vec<Sensor>,
    /// Bodies (of the whole model) with gravity compensation, and the mass it carries (Σ gravcomp × link mass).
    pub gravcomp: Vec<(usize, f64)>,
    /// Joints (of the whole model) with MJCF `springdamper`: (joint, [time constant, damping ratio], the joint's
    /// own damping, to be replaced).
    pub springdampers: Vec<(usize, [f64; 2], f64)>,
    /// Joint couplings, numbered within the whole model, with their solref and dmax (the spring and damper are
    /// set once the model's inertias are known: `scene::couplings`).
    pub couplings: Vec<(crate::dynamics::coupling::Coupling, Option<([f64; 2], f64)>)>,
    /// Spatial tendons, their sites numbered within the whole model (the rest length and the limit's spring are
    /// set once the model is built: `robot_scene::set_site_tendons`).
    pub site_tendons: Vec<RobotSiteTendon>,
}

/// How many joints, actuators and sites the model has before a robot is placed (its own are numbered after).
#[derive(Debug, Clone, Copy, Default)]
pub struct Bases {
    pub joints: usize,
    pub actuators: usize,
    pub sites: usize,
}

/// Places `robot` (read from `file`) into a model that has `base_bodies` bodies and `base_materials` materials
/// already. Errors name the file, the link or joint and what is wrong.
pub fn place(robot: &Robot, file: &str, p: &Placement, base_bodies: usize, base_materials: usize, bases: Bases) -> Result<Placed, String> {
    let mut out = Placed { notes: robot.notes.clone(), ..Placed::default() };
    let mat_index: Vec<usize> = (0..robot.materials.len()).map(|i| base_materials + i).collect();
    for m in &robot.materials {
        out.materials.push(Material { name: format!("{}{}", p.prefix, m.name), ..m.clone() });
    }
    let n = robot.links.len();
    // the body of each link: its own, or its parent's when welded to it
    let mut body_of = vec![usize::MAX; n];
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut world_welded: Vec<bool> = Vec::new();
    for (l, link) in robot.links.iter().enumerate() {
        let weld = match (&link.attach, p.fixed_base) {
            (Attach::Free, Some(true)) if link.parent.is_none() => true,
            (Attach::Weld, Some(false)) if link.parent.is_none() => false,
            (Attach::Weld, _) => true,
            _ => false,
        };
        match (weld, link.parent) {
            (true, Some(parent)) => {
                if parent >= l {
                    return Err(format!("{}: the parent link comes after its child (internal order error)", link.at));
                }
                body_of[l] = body_of[parent];
                members[body_of[l]].push(l);
            }
            _ => {
                body_of[l] = members.len();
                members.push(vec![l]);
                world_welded.push(weld && link.parent.is_none());
            }
        }
    }
    let world = |v: Vec3| p.position + p.rotation * v;
    // the small mass a moving link without one gets (lenient_mass): 1% of the lightest link that has one
    let lightest =
        robot.links.iter().filter_map(|l| l.inertial.as_ref().map(|i| i.mass)).filter(|&m| m > 0.0).fold(f64::INFINITY, f64::min);
    let small_mass = if lightest.is_finite() { 0.01 * lightest } else { 0.01 };
    for (b, links) in members.iter().enumerate() {
        let head = &robot.links[links[0]];
        let frame_inv = head.pose.inverse();
        let mut parts = Vec::new();
        let mut material = None;
        let mut inertials = Vec::new();
        let mut compensated = 0.0;
        for &l in links {
            let link = &robot.links[l];
            compensated += link.gravcomp * link.inertial.map_or(0.0, |i| i.mass);
            let rel = frame_inv * link.pose;
            for (gp, desc, m) in &link.geoms {
                let m = m.map_or(p.material, |m| mat_index[m]);
                if material.is_some_and(|x| x != m) {
                    out.notes.push(format!(
                        "{}: link `{}` has geoms of different friction; the body takes the first one's material",
                        file, head.name
                    ));
                }
                material.get_or_insert(m);
                parts.push((rel * *gp, desc.clone()));
            }
            if let Some(i) = link.inertial {
                inertials.push((rel, UnitMass { volume: i.mass, com: i.com, inertia: i.inertia }));
            }
        }
        let mut kind = if world_welded[b] { BodyKind::Static } else { BodyKind::Dynamic };
        let name = format!("{}{}", p.prefix, head.name);
        let desc = match parts.len() {
            1 if parts[0].0.translation == Vec3::ZERO && parts[0].0.rotation == Quat::IDENTITY => parts.pop().unwrap().1,
            _ => ShapeDesc::Compound { parts: Arc::new(parts) },
        };
        let geometry = build(desc, true).map_err(|e| format!("{}: link `{}`: collision geometry: {e}", head.at, head.name))?;
        let mut total = combine(&inertials);
        if kind == BodyKind::Dynamic && !(total.volume > 0.0) && robot.lenient_mass {
            if head.parent.is_none() && matches!(head.attach, Attach::Free) {
                kind = BodyKind::Static;
                out.notes.push(format!(
                    "{file}: root link `{}` has no mass: it is fixed in place (as PyBullet takes a base of mass 0)",
                    head.name
                ));
            } else {
                // a solid ball of 5 cm radius, the mass given
                let i = 0.4 * small_mass * 0.05 * 0.05;
                total = UnitMass { volume: small_mass, com: Vec3::ZERO, inertia: Mat3::from_diagonal(Vec3::splat(i)) };
                out.notes.push(format!(
                    "{file}: link `{}` moves but has no mass: given {small_mass:e} kg (1% of the lightest link's) as a 5 cm ball at its origin",
                    head.name
                ));
            }
        }
        if kind == BodyKind::Dynamic && !(total.volume > 0.0) {
            return Err(format!(
                "{}: link `{}` moves but has no mass (no inertial{}); cairn needs a positive mass on every moving link",
                head.at,
                head.name,
                if links.len() > 1 { " on it or the links welded to it" } else { "" }
            ));
        }
        let (mass, com, inertia) =
            if total.volume > 0.0 { (total.volume, total.com, total.inertia) } else { (0.0, Vec3::ZERO, Mat3::ZERO) };
        let inv_inertia = if kind == BodyKind::Dynamic {
            if inertia.determinant() <= 0.0 || !inertia.is_finite() {
                return Err(format!(
                    "{}: link `{}`: the inertia tensor {} (columns) is not positive definite",
                    head.at,
                    head.name,
                    crate::math::show_list(&inertia.to_cols_array())
                ));
            }
            inertia.inverse()
        } else {
            Mat3::ZERO
        };
        out.bodies.push(Body {
            name,
            kind,
            geometry,
            material: material.unwrap_or(p.material),
            mass,
            com,
            inertia,
            inv_inertia,
            position: world(head.pose.translation),
            rotation: (p.rotation * head.pose.rotation).normalize(),
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            intermediate: head.intermediate,
            color: links.iter().find_map(|&l| robot.links[l].color),
        });
        if compensated != 0.0 && kind == BodyKind::Dynamic {
            out.gravcomp.push((base_bodies + out.bodies.len() - 1, compensated));
        }
    }
    // bodies none of whose geoms' bitmasks meet never collide
    for (&(a, b), &(some, _)) in &mask_pairs(&robot.masks, |l| body_of[l]) {
        if !some {
            out.exclusions.push(((base_bodies + a) as u32, (base_bodies + b) as u32));
        }
    }
    for &(a, b) in &robot.exclusions {
        let (a, b) = (body_of[a], body_of[b]);
        if a != b {
            out.exclusions.push(((base_bodies + a.min(b)) as u32, (base_bodies + a.max(b)) as u32));
        }
    }
    // joints, in link order, and the parent–child exclusions
    for (l, link) in robot.links.iter().enumerate() {
        let child = body_of[l];
        let parent = link.parent.map(|q| body_of[q]);
        if parent == Some(child) {
            continue;
        }
        if let Some(q) = parent {
            out.exclusions.push(((base_bodies + q.min(child)) as u32, (base_bodies + q.max(child)) as u32));
        }
        let Attach::Joint(j) = &link.attach else { continue };
        super::robot_joints::joint_of(j, &mut out, child, parent, base_bodies, p, file)?;
        if let Some(sd) = j.springdamper {
            out.springdampers.push((bases.joints + out.joints.len() - 1, sd, j.damping));
        }
    }
    // `<flag contact="disable">`: none of the file's bodies collide with each other
    if robot.flags.no_contacts {
        let n = body_of.iter().copied().max().map_or(0, |m| m + 1);
        for a in 0..n {
            for b in a + 1..n {
                out.exclusions.push(((base_bodies + a) as u32, (base_bodies + b) as u32));
            }
        }
    }
    // explicit contact pairs collide whatever the bitmasks, <exclude> and the parent filter say
    for &(a, b) in robot.pairs.iter().filter(|_| !robot.flags.no_contacts) {
        let (a, b) = (body_of[a], body_of[b]);
        let pair = ((base_bodies + a.min(b)) as u32, (base_bodies + a.max(b)) as u32);
        out.exclusions.retain(|&e| e != pair);
    }
    // the joints that close loops, after the tree's (so that the tree's keep their numbers)
    for l in &robot.loops {
        super::robot_joints::loop_joint(robot, l, &body_of, &members, &mut out, base_bodies, p)?;
    }
    for c in &robot.couplings {
        let coupling = crate::dynamics::coupling::Coupling {
            name: format!("{}{}", p.prefix, c.name),
            first: c.first.iter().map(|&(j, k)| (bases.joints + j, k)).collect(),
            second: c.second.iter().map(|&(j, k)| (bases.joints + j, k)).collect(),
            poly: c.poly,
            stiffness: c.spring.map_or(0.0, |s| s.0),
            damping: c.spring.map_or(0.0, |s| s.1),
            range: c.range,
        };
        out.couplings.push((coupling, c.spring.is_none().then_some((c.solref, c.dmax))));
    }
    for t in &robot.site_tendons {
        let sites = t.sites.iter().map(|&s| bases.sites + s).collect();
        out.site_tendons.push(RobotSiteTendon { name: format!("{}{}", p.prefix, t.name), sites, ..t.clone() });
    }
    // sites, in the frame of the body their link is merged into
    for s in &robot.sites {
        let b = body_of[s.link];
        let head = &robot.links[members[b][0]];
        let rel = head.pose.inverse() * robot.links[s.link].pose * s.pose;
        let name = format!("{}{}", p.prefix, s.name);
        out.sites.push(Site { name, body: base_bodies + b, position: rel.translation, rotation: rel.rotation, shape: s.shape });
    }
    for (a, ratio) in &robot.actuators {
        let mut a = a.clone();
        a.name = format!("{}{}", p.prefix, a.name);
        a.transmission = match a.transmission {
            Transmission::Joint(j) => Transmission::Joint(bases.joints + j),
            Transmission::Tendon(parts) => Transmission::Tendon(parts.into_iter().map(|(j, c)| (bases.joints + j, c)).collect()),
            Transmission::Site(s) => Transmission::Site(bases.sites + s),
        };
        if let Some(s) = &mut a.servo {
            s.joint += bases.joints;
        }
        out.actuators.push((a, *ratio));
    }
    for s in &robot.sensors {
        use SensorKind::*;
        let kind = match s.kind {
            JointPos(j) => JointPos(bases.joints + j),
            JointVel(j) => JointVel(bases.joints + j),
            JointActuatorFrc(j) => JointActuatorFrc(bases.joints + j),
            ActuatorPos(k) => ActuatorPos(bases.actuators + k),
            ActuatorVel(k) => ActuatorVel(bases.actuators + k),
            ActuatorFrc(k) => ActuatorFrc(bases.actuators + k),
            Touch(x) => Touch(bases.sites + x),
            Force(x) => Force(bases.sites + x),
            Torque(x) => Torque(bases.sites + x),
            FramePos(x) => FramePos(bases.sites + x),
            FrameQuat(x) => FrameQuat(bases.sites + x),
            FrameLinVel(x) => FrameLinVel(bases.sites + x),
            FrameAngVel(x) => FrameAngVel(bases.sites + x),
            Accelerometer(x) => Accelerometer(bases.sites + x),
            Gyro(x) => Gyro(bases.sites + x),
            SubtreeCom(link) => SubtreeCom(base_bodies + body_of[link]),
        };
        out.sensors.push(Sensor { name: format!("{}{}", p.prefix, s.name), kind, ..s.clone() });
    }
    Ok(out)
}

/// For each pair of groups (a geom's group: `group_of` its link) holding collision geoms: whether some pair of
/// their geoms collides by MuJoCo's rule (`contype₁ & conaffinity₂` or `contype₂ & conaffinity₁` non-zero) and
/// whether some pair does not. Pairs of geoms within one group are left out.
pub fn mask_pairs(
    masks: &[(usize, u32, u32)],
    group_of: impl Fn(usize) -> usize,
) -> std::collections::BTreeMap<(usize, usize), (bool, bool)> {
    let mut pairs = std::collections::BTreeMap::new();
    for (i, a) in masks.iter().enumerate() {
        for b in &masks[i + 1..] {
            let (ga, gb) = (group_of(a.0), group_of(b.0));
            if ga == gb {
                continue;
            }
            let e = pairs.entry((ga.min(gb), ga.max(gb))).or_insert((false, false));
            if (a.1 & b.2) != 0 || (b.1 & a.2) != 0 {
                e.0 = true;
            } else {
                e.1 = true;
            }
        }
    }
    pairs
}

/// Adds to `exclusions` every pair of a body without collision geometry (an empty compound) with every other
/// body, then sorts and removes duplicates.
pub fn finish_exclusions(bodies: &[Body], exclusions: &mut Vec<(u32, u32)>) {
    for (i, b) in bodies.iter().enumerate() {
        if crate::geometry::compound::collides_with_nothing(&b.geometry.desc) {
            for j in 0..bodies.len() {
                if j != i {
                    exclusions.push((i.min(j) as u32, i.max(j) as u32));
                }
            }
        }
    }
    exclusions.sort_unstable();
    exclusions.dedup();
}

/// A one-line listing of a robot's joints (model index, name, type), for the model's notes.
pub fn joint_listing(file: &str, robot: &Robot, first_joint: usize) -> Option<String> {
    let names: Vec<String> = robot
        .links
        .iter()
        .filter_map(|l| if let Attach::Joint(j) = &l.attach { Some(j) } else { None })
        .enumerate()
        .map(|(k, j)| format!("joint{} = `{}` ({})", first_joint + k, j.name, format!("{:?}", j.kind).to_lowercase()))
        .collect();
    (!names.is_empty()).then(|| format!("{file}: {}", names.join(", ")))
}

/// Orders links so that every parent comes before its children (depth first from the roots, in file order);
/// `parent_of` gives each link's parent. Errors on a cycle, naming a link on it.
pub fn tree_order(names: &[String], parent_of: &[Option<usize>]) -> Result<Vec<usize>, String> {
    let n = names.len();
    let mut children: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (c, p) in parent_of.iter().enumerate() {
        if let Some(p) = p {
            children.entry(*p).or_default().push(c);
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<usize> = (0..n).filter(|&l| parent_of[l].is_none()).rev().collect();
    while let Some(l) = stack.pop() {
        order.push(l);
        if let Some(c) = children.get(&l) {
            stack.extend(c.iter().rev());
        }
    }
    if order.len() < n {
        let mut seen = vec![false; n];
        order.iter().for_each(|&l| seen[l] = true);
        let l = (0..n).find(|&l| !seen[l]).unwrap_or(0);
        return Err(format!("the links form a cycle (link `{}` is on one, or hangs from one)", names[l]));
    }
    Ok(order)
}

#[cfg(test)]
#[path = "robot_tests.rs"]
mod tests;
