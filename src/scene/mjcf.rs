//! MJCF (MuJoCo's XML) models, the subset robot models use, into the kinematic tree of robot.rs.
//!
//! Supported: `<compiler>` (angle, eulerseq, meshdir, autolimits, inertiafromgeom), `<option>` (timestep,
//! gravity), `<default>` classes (nested, with `class` and `childclass`), `<asset><mesh>` (STL or OBJ), the
//! `<worldbody>` tree of `<body>` with `<inertial>`, `<geom>` (plane, box, sphere, capsule, cylinder, ellipsoid as a
//! tessellated convex hull, mesh as its convex hull, as MuJoCo collides meshes; `fromto`; pos, quat, euler,
//! axisangle, xyaxes, zaxis), one `<joint>` per body (hinge, slide, ball, free, `<freejoint>`) with range,
//! damping, stiffness/springref, armature and frictionloss, `<actuator>` `motor` and `position` on joints, and
//! `<contact><exclude>`. A body and its parent never collide (MuJoCo's parent filter). Mass and inertia come
//! from `<inertial>` or from the geoms (density or mass per geom, summed as MuJoCo sums them). Visual elements
//! (sites, cameras, lights, textures, materials, sensors, keyframes) are noted as ignored; anything else is an
//! error naming the file, the line, the element and what is supported.

use super::mjcf_geom::{actuator, geom, inertial, orientation, tendons, GeomOut};
use super::robot::{tree_order, Attach, Link, Robot, RobotJoint};
use super::xml::{list, parse, Notes, Src};
use crate::geometry::compound::combine;
use crate::math::{Pose, Vec3};
use crate::model::{JointType, Material};
use roxmltree::Node;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Attributes of each element kind in one default class, inherited already.
pub(super) type Class = BTreeMap<String, BTreeMap<String, String>>;

/// What the whole file shares while reading the tree.
pub(super) struct Ctx<'a> {
    pub src: Src<'a>,
    pub notes: Notes,
    /// `compiler angle`: degrees (MJCF's default) or radians.
    pub degree: bool,
    /// `compiler eulerseq`: axis of each rotation, and whether it is about the moving (intrinsic) axes.
    pub eulerseq: [(usize, bool); 3],
    pub autolimits: bool,
    /// `compiler inertiafromgeom`: "auto" (geoms unless `<inertial>`), "true" (always geoms), "false".
    pub inertia_from_geom: String,
    pub classes: BTreeMap<String, Class>,
    /// Mesh assets: name → (file, scale).
    pub meshes: BTreeMap<String, (PathBuf, Vec3)>,
    pub materials: Vec<Material>,
    /// Link pairs that never collide (`<contact><exclude>`, and a multi-joint body with its MJCF parent).
    pub exclusions: Vec<(usize, usize)>,
}

/// An element with its default class applied: the node (for messages) and the merged attributes.
pub(super) struct El<'a, 'i> {
    pub node: Node<'a, 'i>,
    pub attrs: BTreeMap<String, String>,
}

impl<'a, 'i> El<'a, 'i> {
    pub fn get(&self, k: &str) -> Option<&str> {
        self.attrs.get(k).map(String::as_str)
    }
    pub fn nums(&self, cx: &Ctx, k: &str) -> Result<Option<Vec<f64>>, String> {
        self.get(k).map(|raw| cx.src.parse_nums(self.node, k, raw)).transpose()
    }
    pub fn fixed<const N: usize>(&self, cx: &Ctx, k: &str) -> Result<Option<[f64; N]>, String> {
        match self.nums(cx, k)? {
            None => Ok(None),
            Some(v) => v
                .as_slice()
                .try_into()
                .map(Some)
                .map_err(|_| cx.src.at(self.node, format!("attribute `{k}` needs {N} number(s), got {}", v.len()))),
        }
    }
    pub fn num(&self, cx: &Ctx, k: &str) -> Result<Option<f64>, String> {
        Ok(self.fixed::<1>(cx, k)?.map(|[x]| x))
    }
    /// Checks the merged attributes like [`Src::attrs`]: used, noted (ignored with a note), or an error.
    pub fn check(&self, cx: &mut Ctx, used: &[&str], noted: &[&str]) -> Result<(), String> {
        let tag = self.node.tag_name().name();
        for k in self.attrs.keys() {
            if k == "class" || used.contains(&k.as_str()) {
                continue;
            }
            if noted.contains(&k.as_str()) {
                cx.notes.add(format!("ignored (cairn cannot use it): <{tag}> attribute `{k}`"));
                continue;
            }
            let all = list(used.iter().chain(noted));
            return Err(cx
                .src
                .at(self.node, format!("attribute `{k}` is not supported (set here or by its default class); supported: {all}")));
        }
        Ok(())
    }
}

impl Ctx<'_> {
    /// `node` with the default class `class` (its own `class` attribute wins) applied.
    pub fn el<'a, 'i>(&self, node: Node<'a, 'i>, class: &str) -> Result<El<'a, 'i>, String> {
        let cls = node.attribute("class").unwrap_or(class);
        let c = self.classes.get(cls).ok_or_else(|| self.src.at(node, format!("unknown default class `{cls}`")))?;
        let mut attrs = c.get(node.tag_name().name()).cloned().unwrap_or_default();
        for a in node.attributes() {
            attrs.insert(a.name().to_string(), a.value().to_string());
        }
        Ok(El { node, attrs })
    }

    /// An angle in the file's unit, in radians.
    pub fn angle(&self, x: f64) -> f64 {
        if self.degree {
            x.to_radians()
        } else {
            x
        }
    }
}

/// Reads the MJCF text of `file` (meshes resolved from `dir` and `compiler meshdir`).
pub fn load(text: &str, file: &str, dir: &Path) -> Result<Robot, String> {
    let (text, parts) = super::mjcf_include::expand(text, file, dir)?;
    let doc = parse(file, &text)?;
    let src = Src { file, doc: &doc, parts: &parts };
    let root = doc.root_element();
    if root.tag_name().name() != "mujoco" {
        return Err(src.at(root, "an MJCF file's root element must be <mujoco>"));
    }
    let mut cx = Ctx {
        src,
        notes: Notes::default(),
        degree: true,
        eulerseq: [(0, true), (1, true), (2, true)],
        autolimits: true,
        inertia_from_geom: "auto".into(),
        classes: BTreeMap::new(),
        meshes: BTreeMap::new(),
        materials: Vec::new(),
        exclusions: Vec::new(),
    };
    let src = Src { file, doc: &doc, parts: &parts };
    src.attrs(root, &["model"], &[], &mut cx.notes)?;
    let kids = src.children(
        root,
        &["compiler", "option", "default", "asset", "worldbody", "actuator", "contact", "tendon"],
        &["size", "visual", "statistic", "sensor", "keyframe", "custom"],
        &mut cx.notes,
    )?;
    let mut robot = Robot::default();
    let mut meshdir = dir.to_path_buf();
    let mut total_mass = None;
    for k in kids.iter().filter(|k| k.has_tag_name("compiler")) {
        let used = ["angle", "eulerseq", "meshdir", "assetdir", "autolimits", "inertiafromgeom", "coordinate", "settotalmass"];
        src.attrs(
            *k,
            &used,
            &["texturedir", "discardvisual", "strippath", "balanceinertia", "fusestatic", "inertiagrouprange", "usethread"],
            &mut cx.notes,
        )?;
        match k.attribute("angle") {
            None | Some("degree") => cx.degree = true,
            Some("radian") => cx.degree = false,
            Some(a) => return Err(src.at(*k, format!("`angle` must be `degree` or `radian`, got `{a}`"))),
        }
        if let Some(c) = k.attribute("coordinate").filter(|&c| c != "local") {
            return Err(src.at(*k, format!("coordinate=\"{c}\" is not supported: only local coordinates")));
        }
        if let Some(seq) = k.attribute("eulerseq") {
            let b = seq.as_bytes();
            if b.len() != 3 || !b.iter().all(|c| b"xyzXYZ".contains(c)) {
                return Err(src.at(*k, format!("`eulerseq` must be three letters of xyzXYZ, got `{seq}`")));
            }
            cx.eulerseq = std::array::from_fn(|i| ((b[i].to_ascii_lowercase() - b'x') as usize, b[i].is_ascii_lowercase()));
        }
        if let Some(d) = k.attribute("meshdir").or(k.attribute("assetdir")) {
            meshdir = dir.join(d);
        }
        cx.autolimits = k.attribute("autolimits") != Some("false");
        if let Some(m) = src.num(*k, "settotalmass")? {
            total_mass = (m > 0.0).then_some(m);
        }
        if let Some(i) = k.attribute("inertiafromgeom") {
            if !["auto", "true", "false"].contains(&i) {
                return Err(src.at(*k, format!("`inertiafromgeom` must be `auto`, `true` or `false`, got `{i}`")));
            }
            cx.inertia_from_geom = i.into();
        }
    }
    for k in kids.iter().filter(|k| k.has_tag_name("option")) {
        src.attrs(
            *k,
            &["timestep", "gravity", "density", "viscosity", "wind"],
            &[
                "integrator",
                "iterations",
                "solver",
                "tolerance",
                "cone",
                "impratio",
                "noslip_iterations",
                "ls_iterations",
                "jacobian",
                "o_margin",
                "o_solref",
                "o_solimp",
                "magnetic",
            ],
            &mut cx.notes,
        )?;
        src.children(*k, &[], &["flag"], &mut cx.notes)?;
        if let Some(dt) = src.num(*k, "timestep")? {
            if dt <= 0.0 {
                return Err(src.at(*k, format!("`timestep` must be > 0, got {dt}")));
            }
            robot.dt = Some(dt);
        }
        robot.gravity = src.fixed::<3>(*k, "gravity")?.map(Vec3::from_array);
        for key in ["density", "viscosity"] {
            if src.num(*k, key)?.is_some_and(|x| x != 0.0) {
                return Err(src.at(*k, format!("`{key}` (a fluid medium) is not supported: cairn simulates in vacuum")));
            }
        }
        if src.fixed::<3>(*k, "wind")?.is_some_and(|w| w != [0.0; 3]) {
            return Err(src.at(*k, "`wind` is not supported: cairn has no medium"));
        }
    }
    cx.classes.insert("main".into(), Class::new());
    for k in kids.iter().filter(|k| k.has_tag_name("default")) {
        defaults(&mut cx, *k, None)?;
    }
    for k in kids.iter().filter(|k| k.has_tag_name("asset")) {
        for m in src.children(*k, &["mesh"], &["texture", "material", "skin"], &mut cx.notes)? {
            let el = cx.el(m, "main")?;
            el.check(&mut cx, &["name", "file", "scale"], &["refpos", "refquat", "smoothnormal", "maxhullvert", "inertia"])?;
            let f = el.get("file").ok_or_else(|| src.at(m, "a mesh asset needs `file` (inline vertices are not supported)"))?;
            let name = el
                .get("name")
                .map(str::to_string)
                .unwrap_or_else(|| Path::new(f).file_stem().and_then(|s| s.to_str()).unwrap_or(f).to_string());
            let scale = Vec3::from_array(el.fixed::<3>(&cx, "scale")?.unwrap_or([1.0; 3]));
            cx.meshes.insert(name, (meshdir.join(f), scale));
        }
    }
    let mut joint_link: BTreeMap<String, usize> = BTreeMap::new();
    let mut body_link: BTreeMap<String, usize> = BTreeMap::new();
    let mut links: Vec<Link> = Vec::new();
    for w in kids.iter().filter(|k| k.has_tag_name("worldbody")) {
        // the world's own geoms: one static link
        let mut world = Link {
            name: "world".into(),
            parent: None,
            attach: Attach::Weld,
            pose: Pose::IDENTITY,
            geoms: Vec::new(),
            inertial: None,
            at: src.at(*w, "worldbody"),
        };
        let children = src.children(*w, &["geom", "body"], &["site", "camera", "light"], &mut cx.notes)?;
        for g in children.iter().filter(|c| c.has_tag_name("geom")) {
            let GeomOut { pose, shape, material, .. } = geom(&mut cx, *g, "main", true)?;
            if let Some(shape) = shape {
                world.geoms.push((pose, shape, material));
            }
        }
        if !world.geoms.is_empty() {
            body_link.insert("world".into(), links.len());
            links.push(world);
        }
        for b in children.iter().filter(|c| c.has_tag_name("body")) {
            body(&mut cx, *b, None, Pose::IDENTITY, "main", &mut links, &mut joint_link, &mut body_link)?;
        }
    }
    if links.is_empty() {
        return Err(format!("{file}: the model has no body and no world geometry"));
    }
    for k in kids.iter().filter(|k| k.has_tag_name("actuator")) {
        for a in src.children(*k, &["motor", "position"], &[], &mut cx.notes)? {
            actuator(&mut cx, a, &joint_link, &mut links)?;
        }
    }
    for k in kids.iter().filter(|k| k.has_tag_name("tendon")) {
        tendons(&mut cx, *k, &joint_link)?;
    }
    for k in kids.iter().filter(|k| k.has_tag_name("contact")) {
        for e in src.children(*k, &["exclude"], &[], &mut cx.notes)? {
            src.attrs(e, &["body1", "body2", "name"], &[], &mut cx.notes)?;
            let find = |key: &str| -> Result<usize, String> {
                let n = src.required(e, key)?;
                body_link
                    .get(n)
                    .copied()
                    .ok_or_else(|| src.at(e, format!("`{key}`: unknown body `{n}` (or one without collision geometry)")))
            };
            cx.exclusions.push((find("body1")?, find("body2")?));
        }
    }
    // links are in tree order by construction; check it
    let names: Vec<String> = links.iter().map(|l| l.name.clone()).collect();
    let parents: Vec<Option<usize>> = links.iter().map(|l| l.parent).collect();
    tree_order(&names, &parents).map_err(|e| format!("{file}: {e}"))?;
    if let Some(total) = total_mass {
        // `compiler settotalmass`: every mass and inertia scaled so that the masses sum to it, as MuJoCo does
        let sum: f64 = links.iter().filter_map(|l| l.inertial.map(|i| i.mass)).sum();
        if sum > 0.0 {
            for i in links.iter_mut().filter_map(|l| l.inertial.as_mut()) {
                i.mass *= total / sum;
                i.inertia *= total / sum;
            }
        }
    }
    robot.links = links;
    robot.materials = cx.materials;
    robot.exclusions = cx.exclusions;
    robot.notes = cx.notes.lines(file);
    Ok(robot)
}

/// A `<default>` element and its nested classes; `parent` is the enclosing class.
fn defaults(cx: &mut Ctx, n: Node, parent: Option<&str>) -> Result<(), String> {
    cx.src.attrs(n, &["class"], &[], &mut cx.notes)?;
    let name = match (n.attribute("class"), parent) {
        (Some(c), _) => c.to_string(),
        (None, None) => "main".to_string(),
        (None, Some(_)) => return Err(cx.src.at(n, "a nested <default> needs `class`")),
    };
    if parent.is_some() && cx.classes.contains_key(&name) {
        return Err(cx.src.at(n, format!("duplicate default class `{name}`")));
    }
    let mut class = parent.and_then(|p| cx.classes.get(p)).cloned().unwrap_or_default();
    for c in n.children().filter(|c| c.is_element() && !c.has_tag_name("default")) {
        let slot = class.entry(c.tag_name().name().to_string()).or_default();
        for a in c.attributes() {
            slot.insert(a.name().to_string(), a.value().to_string());
        }
    }
    cx.classes.insert(name.clone(), class);
    for c in n.children().filter(|c| c.has_tag_name("default")) {
        defaults(cx, c, Some(&name))?;
    }
    Ok(())
}

/// A `<body>` whose parent link is `parent` (None: the world) with frame `frame` in the robot frame.
#[allow(clippy::too_many_arguments)]
fn body(
    cx: &mut Ctx,
    n: Node,
    parent: Option<usize>,
    frame: Pose,
    class: &str,
    links: &mut Vec<Link>,
    joint_link: &mut BTreeMap<String, usize>,
    body_link: &mut BTreeMap<String, usize>,
) -> Result<(), String> {
    let used = ["name", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "childclass"];
    cx.src.attrs(n, &used, &["user"], &mut cx.notes)?;
    let class = n.attribute("childclass").unwrap_or(class).to_string();
    if !cx.classes.contains_key(&class) {
        return Err(cx.src.at(n, format!("unknown childclass `{class}`")));
    }
    let me = Node::clone(&n);
    let local = Pose::from_parts(Vec3::from_array(cx.src.fixed::<3>(n, "pos")?.unwrap_or([0.0; 3])), orientation(cx, &cx.el(me, &class)?)?);
    let pose = frame * local;
    let src = cx.src;
    let kids = src.children(n, &["inertial", "joint", "freejoint", "geom", "body"], &["site", "camera", "light"], &mut cx.notes)?;
    let name = n.attribute("name").map(str::to_string).unwrap_or_else(|| format!("body{}", links.len()));
    // the joints: a body with several is chained through intermediate links (below)
    let joints: Vec<Node> = kids.iter().copied().filter(|k| k.has_tag_name("joint") || k.has_tag_name("freejoint")).collect();
    let mut attaches = Vec::new();
    for j in &joints {
        attaches.push(joint(cx, *j, &class, pose)?);
    }
    if attaches.len() > 1 && attaches.iter().any(|a| matches!(a, Attach::Free)) {
        return Err(src.at(
            joints[0],
            format!("body `{name}` has a free joint among its {} joints: a free joint must be a body's only joint", joints.len()),
        ));
    }
    // geoms and mass
    let mut geoms = Vec::new();
    let mut masses = Vec::new();
    for g in kids.iter().filter(|k| k.has_tag_name("geom")) {
        let out = geom(cx, *g, &class, false)?;
        if let Some(s) = out.shape {
            geoms.push((out.pose, s, out.material));
        }
        masses.push((out.pose, out.mass));
    }
    let explicit = kids.iter().find(|k| k.has_tag_name("inertial")).map(|i| inertial(cx, *i)).transpose()?;
    let from_geoms = || {
        let m = combine(&masses);
        (m.volume > 0.0).then_some(super::robot::Inertial { mass: m.volume, com: m.com, inertia: m.inertia })
    };
    let inertial = match (cx.inertia_from_geom.as_str(), explicit) {
        ("true", _) | ("auto", None) => from_geoms(),
        (_, e) => e,
    };
    let last = attaches.pop().unwrap_or(Attach::Weld);
    let (parent, inertial) = chain_joints(cx, n, &name, parent, pose, attaches, inertial, links, joint_link)?;
    let index = links.len();
    if let Attach::Joint(j) = &last {
        joint_link.insert(j.name.clone(), index);
    }
    body_link.insert(name.clone(), index);
    links.push(Link { name, parent, attach: last, pose, geoms, inertial, at: src.at(n, "body") });
    for b in kids.iter().filter(|k| k.has_tag_name("body")) {
        body(cx, *b, Some(index), pose, &class, links, joint_link, body_link)?;
    }
    Ok(())
}

/// The share of a body's mass and inertia that each intermediate link of a multi-joint body carries.
pub const INTERMEDIATE_SHARE: f64 = 0.01;

/// MJCF applies a body's joints one after the other (each axis fixed in the frame the previous ones moved). cairn
/// joins two bodies by one joint, so every joint but the last hangs an intermediate link (no geometry, named
/// `body/joint`) on the previous one, and the body hangs on the last. MuJoCo's intermediate frames are massless;
/// here each carries `INTERMEDIATE_SHARE` of the body's mass and inertia (same centre and axes), taken from the
/// body, so the total is exact at the model's pose. Returns the body's parent link and its remaining inertial.
#[allow(clippy::too_many_arguments)]
fn chain_joints(
    cx: &mut Ctx,
    n: Node,
    name: &str,
    mut parent: Option<usize>,
    pose: Pose,
    attaches: Vec<Attach>,
    inertial: Option<super::robot::Inertial>,
    links: &mut Vec<Link>,
    joint_link: &mut BTreeMap<String, usize>,
) -> Result<(Option<usize>, Option<super::robot::Inertial>), String> {
    if attaches.is_empty() {
        return Ok((parent, inertial));
    }
    // the body and its MJCF parent stay a parent–child pair that never collides
    if let Some(p) = parent {
        cx.exclusions.push((p, links.len() + attaches.len()));
    }
    let Some(full) = inertial.filter(|i| i.mass > 0.0) else {
        return Err(cx
            .src
            .at(n, format!("body `{name}` has {} joints but no mass to share with their intermediate links", attaches.len() + 1)));
    };
    let part = |share: f64| super::robot::Inertial { mass: full.mass * share, com: full.com, inertia: full.inertia * share };
    let intermediates = attaches.len();
    for a in attaches {
        let Attach::Joint(j) = &a else { unreachable!("free joints are refused among several") };
        joint_link.insert(j.name.clone(), links.len());
        let at = format!("{} (intermediate link of joint `{}`)", cx.src.at(n, "body"), j.name);
        links.push(Link {
            name: format!("{name}/{}", j.name),
            parent,
            attach: a,
            pose,
            geoms: Vec::new(),
            inertial: Some(part(INTERMEDIATE_SHARE)),
            at,
        });
        parent = Some(links.len() - 1);
    }
    cx.notes.add(format!(
        "a body with several joints is chained through intermediate links carrying {}% of its mass each (MuJoCo's are massless)",
        INTERMEDIATE_SHARE * 100.0
    ));
    Ok((parent, Some(part(1.0 - INTERMEDIATE_SHARE * intermediates as f64))))
}

/// A `<joint>` or `<freejoint>` of a body whose frame is `frame` (robot frame).
fn joint(cx: &mut Ctx, n: Node, class: &str, frame: Pose) -> Result<Attach, String> {
    if n.has_tag_name("freejoint") {
        cx.src.attrs(n, &["name"], &["group", "align"], &mut cx.notes)?;
        return Ok(Attach::Free);
    }
    let el = cx.el(n, class)?;
    let used = ["name", "type", "pos", "axis", "range", "limited", "damping", "stiffness", "springref", "armature", "frictionloss", "ref"];
    let noted = [
        "group",
        "user",
        "margin",
        "solreflimit",
        "solimplimit",
        "solreffriction",
        "solimpfriction",
        "actuatorfrcrange",
        "actuatorfrclimited",
        "actuatorgravcomp",
    ];
    el.check(cx, &used, &noted)?;
    let kind = match el.get("type").unwrap_or("hinge") {
        "hinge" => JointType::Hinge,
        "slide" => JointType::Prismatic,
        "ball" => JointType::Ball,
        "free" => return Ok(Attach::Free),
        t => return Err(cx.src.at(n, format!("joint type `{t}` is not supported; supported: `hinge`, `slide`, `ball`, `free`"))),
    };
    if el.num(cx, "ref")?.is_some_and(|r| r != 0.0) {
        return Err(cx.src.at(n, "`ref` (a joint zero other than the model's pose) is not supported"));
    }
    let pos = Vec3::from_array(el.fixed::<3>(cx, "pos")?.unwrap_or([0.0; 3]));
    let axis = Vec3::from_array(el.fixed::<3>(cx, "axis")?.unwrap_or([0.0, 0.0, 1.0]));
    if axis.length() < 1e-12 {
        return Err(cx.src.at(n, "the joint axis is zero"));
    }
    let limited = match el.get("limited") {
        Some("true") => true,
        Some("false") => false,
        None | Some("auto") => cx.autolimits && el.get("range").is_some(),
        Some(x) => return Err(cx.src.at(n, format!("`limited` must be true, false or auto, got `{x}`"))),
    };
    let mut limits = None;
    if limited {
        let [lo, hi] = el.fixed::<2>(cx, "range")?.ok_or_else(|| cx.src.at(n, "limited=\"true\" needs `range`"))?;
        if lo > hi {
            return Err(cx.src.at(n, format!("range is reversed: {lo} > {hi}")));
        }
        if kind == JointType::Ball {
            cx.notes.add("ball joint range (a cone limit) not applied: cairn's joint limits are on hinge and slide coordinates");
        } else {
            limits = Some(if kind == JointType::Hinge { [cx.angle(lo), cx.angle(hi)] } else { [lo, hi] });
        }
    }
    let nonneg = |k: &str| -> Result<f64, String> {
        let x = el.num(cx, k)?.unwrap_or(0.0);
        if x < 0.0 {
            return Err(cx.src.at(n, format!("`{k}` must be >= 0, got {x}")));
        }
        Ok(x)
    };
    let (damping, stiffness, armature, friction) = (nonneg("damping")?, nonneg("stiffness")?, nonneg("armature")?, nonneg("frictionloss")?);
    let springref = el.num(cx, "springref")?.unwrap_or(0.0);
    let motor = (stiffness > 0.0).then(|| {
        let target = if kind == JointType::Hinge { cx.angle(springref) } else { springref };
        crate::model::Motor { target, stiffness, damping: 0.0, max_force: None, path: Vec::new() }
    });
    if kind == JointType::Ball && (damping > 0.0 || stiffness > 0.0) {
        return Err(cx.src.at(n, "damping or stiffness on a ball joint is not supported (cairn's motors act on one coordinate)"));
    }
    let name = el.get("name").map(str::to_string).unwrap_or_else(|| format!("joint@line{}", cx.src.line(n)));
    Ok(Attach::Joint(RobotJoint {
        name,
        kind,
        anchor: frame.transform_point(pos),
        axis: (frame.rotation * axis).normalize(),
        limits,
        motor,
        damping,
        friction,
        armature,
        at: cx.src.at(n, "joint"),
    }))
}
