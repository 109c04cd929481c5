//! MJCF (MuJoCo's XML) models, the subset robot models use, into the kinematic tree of robot.rs.
//!
//! Supported: `<compiler>` (angle, eulerseq, meshdir, autolimits, inertiafromgeom, fitaabb), `<option>` (timestep,
//! gravity), `<default>` classes (nested, with `class` and `childclass`), `<asset><mesh>` (STL or OBJ; scale, refpos,
//! refquat, inertia), the `<worldbody>` tree of `<body>` with `<inertial>`, `<geom>` (plane, box, sphere, capsule,
//! cylinder, ellipsoid as a tessellated convex hull, mesh as its convex hull, as MuJoCo collides meshes; a primitive
//! with `mesh` fitted to it, fit.rs; `fromto`; pos, quat, euler,
//! axisangle, xyaxes, zaxis), one `<joint>` per body (hinge, slide, ball, free, `<freejoint>`) with range,
//! damping, stiffness/springref, ref, armature and frictionloss, `<site>`, `<actuator>` (motor, position, velocity,
//! intvelocity, damper, general; on joints, fixed tendons and sites; actuator.rs), `<sensor>` (sensor.rs), fixed
//! `<tendon>`s, `<contact><exclude>` and `<equality>` (connect, weld, joint, tendon; equality.rs). A body and its parent never collide (MuJoCo's parent filter). Mass and
//! inertia come from `<inertial>` or from the geoms (density or mass per geom, summed as MuJoCo sums them).
//! Visual elements (cameras, lights, textures, materials, keyframes) are noted as ignored; anything else is an
//! error naming the file, the line, the element and what is supported.

mod actuator;
mod body;
mod context;
mod equality;
mod fit;
mod frame;
mod geom;
mod include;
mod sensor;

pub use body::INTERMEDIATE_SHARE;

use super::robot::{tree_order, Attach, Link, Robot};
use super::xml::{parse, Notes, Src};
use crate::math::{Pose, Vec3};
use actuator::{actuator, tendons, Names, KINDS};
use body::body;
use context::{defaults, Class, Ctx};
use geom::{geom, GeomOut};
use roxmltree::Node;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reads the MJCF text of `file` (meshes resolved from `dir` and `compiler meshdir`).
pub fn load(text: &str, file: &str, dir: &Path) -> Result<Robot, String> {
    let (text, parts) = include::expand(text, file, dir)?;
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
        fit_aabb: false,
        classes: BTreeMap::new(),
        meshes: BTreeMap::new(),
        hfields: BTreeMap::new(),
        materials: Vec::new(),
        exclusions: Vec::new(),
        masks: Vec::new(),
        pair_geoms: Default::default(),
        pairs: Vec::new(),
        sites: Vec::new(),
        geom_frames: BTreeMap::new(),
    };
    let src = Src { file, doc: &doc, parts: &parts };
    src.attrs(root, &["model"], &[], &mut cx.notes)?;
    let kids = src.children(
        root,
        &["compiler", "option", "default", "asset", "worldbody", "actuator", "contact", "tendon", "sensor", "equality"],
        &["size", "visual", "statistic", "keyframe", "custom"],
        &mut cx.notes,
    )?;
    let mut robot = Robot::default();
    let (meshdir, total_mass) = compiler(&mut cx, &kids, dir)?;
    options(&mut cx, &kids, &mut robot)?;
    cx.classes.insert("main".into(), Class::new());
    for k in kids.iter().filter(|k| k.has_tag_name("default")) {
        defaults(&mut cx, *k, None)?;
    }
    mesh_assets(&mut cx, &kids, &meshdir)?;
    // the geoms of explicit contact pairs collide even where their bitmasks say they collide with nothing
    for k in kids.iter().filter(|k| k.has_tag_name("contact")) {
        for e in k.children().filter(|e| e.has_tag_name("pair")) {
            cx.pair_geoms.extend(["geom1", "geom2"].iter().filter_map(|g| e.attribute(*g)).map(String::from));
        }
    }
    let (mut links, joint_link, body_link) = worldbody(&mut cx, &kids)?;
    if links.is_empty() {
        return Err(format!("{file}: the model has no body and no world geometry"));
    }
    // the names actuators and sensors refer to
    let joint_links = super::robot::joint_links(&links);
    let mut names = Names { joints: BTreeMap::new(), tendons: BTreeMap::new(), sites: BTreeMap::new(), actuators: BTreeMap::new() };
    for (jname, &l) in &joint_link {
        if let Some(k) = joint_links.iter().position(|&x| x == l) {
            names.joints.insert(jname.clone(), (k, l));
        }
    }
    for (k, s) in cx.sites.iter().enumerate() {
        names.sites.insert(s.name.clone(), k);
    }
    for k in kids.iter().filter(|k| k.has_tag_name("tendon")) {
        tendons(&mut cx, *k, &names.joints, &names.sites, &mut names.tendons, &mut robot.couplings, &mut robot.site_tendons)?;
    }
    for k in kids.iter().filter(|k| k.has_tag_name("actuator")) {
        for a in src.children(*k, &KINDS, &[], &mut cx.notes)? {
            actuator(&mut cx, a, &names, &mut links, &mut robot.actuators)?;
            let (last, _) = robot.actuators.last().expect("just added");
            if names.actuators.insert(last.name.clone(), robot.actuators.len() - 1).is_some() {
                return Err(src.at(a, format!("a second actuator called `{}`", last.name)));
            }
        }
    }
    for k in kids.iter().filter(|k| k.has_tag_name("sensor")) {
        sensor::sensors(&mut cx, *k, &mut names, &body_link, &links, &mut robot.sensors)?;
    }
    for k in kids.iter().filter(|k| k.has_tag_name("equality") && !robot.flags.no_equalities) {
        equality::equalities(&mut cx, *k, &links, &body_link, &names.joints, &names.tendons, &mut robot.loops, &mut robot.couplings)?;
    }
    robot.sites = std::mem::take(&mut cx.sites);
    contact_exclusions(&mut cx, &kids, &body_link)?;
    // links are in tree order by construction; check it
    let names: Vec<String> = links.iter().map(|l| l.name.clone()).collect();
    let parents: Vec<Option<usize>> = links.iter().map(|l| l.parent).collect();
    tree_order(&names, &parents).map_err(|e| format!("{file}: {e}"))?;
    if let Some(total) = total_mass {
        set_total_mass(&mut links, total);
    }
    if robot.flags.no_limits {
        for l in &mut links {
            if let super::robot::Attach::Joint(j) = &mut l.attach {
                j.limits = None;
            }
        }
    }
    robot.links = links;
    robot.materials = cx.materials;
    robot.exclusions = cx.exclusions;
    robot.pairs = std::mem::take(&mut cx.pairs);
    robot.masks = std::mem::take(&mut cx.masks);
    if crate::scene::robot::mask_pairs(&robot.masks, |l| l).values().any(|&(some, not_all)| some && not_all) {
        cx.notes.add("geom contype/conaffinity: where some geoms of two bodies collide and others do not, cairn collides the whole pair (it filters contacts by body pair)");
    }
    robot.notes = cx.notes.lines(file);
    Ok(robot)
}

/// The `<compiler>` elements: their settings into `cx`; returns the folder meshes are read from and the
/// `settotalmass`, if any.
fn compiler(cx: &mut Ctx, kids: &[Node], dir: &Path) -> Result<(PathBuf, Option<f64>), String> {
    let src = cx.src;
    let mut meshdir = dir.to_path_buf();
    let mut total_mass = None;
    for k in kids.iter().filter(|k| k.has_tag_name("compiler")) {
        let used = ["angle", "eulerseq", "meshdir", "assetdir", "autolimits", "inertiafromgeom", "coordinate", "settotalmass", "fitaabb"];
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
        match k.attribute("fitaabb") {
            None => {}
            Some(b @ ("true" | "false")) => cx.fit_aabb = b == "true",
            Some(b) => return Err(src.at(*k, format!("`fitaabb` must be `true` or `false`, got `{b}`"))),
        }
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
    Ok((meshdir, total_mass))
}

/// The `<option>` elements: the time step and gravity into `robot`; a fluid medium is an error.
fn options(cx: &mut Ctx, kids: &[Node], robot: &mut Robot) -> Result<(), String> {
    let src = cx.src;
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
        // `<flag>`: gravity (dm_control's fish floats), contact, limit, equality and constraint (all three) can be
        // disabled; the other flags are noted
        let mut no_gravity = false;
        for f in src.children(*k, &["flag"], &[], &mut cx.notes)? {
            let off = |key: &str| -> Result<bool, String> {
                match f.attribute(key) {
                    None | Some("enable") => Ok(false),
                    Some("disable") => Ok(true),
                    Some(v) => Err(src.at(f, format!("`{key}` must be `enable` or `disable`, got `{v}`"))),
                }
            };
            no_gravity |= off("gravity")?;
            let constraint = off("constraint")?;
            robot.flags.no_contacts |= constraint || off("contact")?;
            robot.flags.no_limits |= constraint || off("limit")?;
            robot.flags.no_equalities |= constraint || off("equality")?;
            const USED: [&str; 5] = ["gravity", "constraint", "contact", "limit", "equality"];
            let others: Vec<&str> = f.attributes().map(|a| a.name()).filter(|n| !USED.contains(n)).collect();
            if !others.is_empty() {
                cx.notes.add(format!("ignored (cairn cannot use it): <flag> {}", others.join(", ")));
            }
        }
        if let Some(dt) = src.num(*k, "timestep")? {
            if dt <= 0.0 {
                return Err(src.at(*k, format!("`timestep` must be > 0, got {dt}")));
            }
            robot.dt = Some(dt);
        }
        robot.gravity = src.fixed::<3>(*k, "gravity")?.map(Vec3::from_array);
        if no_gravity {
            robot.gravity = Some(Vec3::ZERO);
        }
        // a medium: MuJoCo's inertia model (dynamics/fluid.rs)
        let (density, viscosity) = (src.num(*k, "density")?.unwrap_or(0.0), src.num(*k, "viscosity")?.unwrap_or(0.0));
        if !(density >= 0.0 && viscosity >= 0.0) {
            return Err(src.at(*k, format!("`density` and `viscosity` must be >= 0, got {density} and {viscosity}")));
        }
        let wind = Vec3::from_array(src.fixed::<3>(*k, "wind")?.unwrap_or([0.0; 3]));
        if density > 0.0 || viscosity > 0.0 {
            robot.fluid = Some(crate::dynamics::fluid::Fluid { density, viscosity, wind });
        }
    }
    Ok(())
}

/// An `<hfield>` asset: one without elevation data (`file`, `elevation`) is flat, at zero elevation, as
/// MuJoCo starts it (a task may raise it at run time; cairn cannot): kept for its geoms. With data it is refused.
fn height_field(cx: &mut Ctx, m: Node) -> Result<(), String> {
    let src = cx.src;
    if m.attribute("file").is_some() || m.attribute("elevation").is_some() {
        return Err(src.at(m, "a height field with elevation data (`file`, `elevation`) is not supported; one without is flat"));
    }
    src.attrs(m, &["name", "size", "nrow", "ncol"], &["content_type"], &mut cx.notes)?;
    let name = src.required(m, "name")?;
    let size = src.fixed::<4>(m, "size")?.ok_or_else(|| src.at(m, "missing attribute `size` (x, y, elevation, base)"))?;
    if size.iter().any(|&x| x < 0.0) || size[0] <= 0.0 || size[1] <= 0.0 {
        return Err(src.at(m, "`size`: x and y must be > 0, elevation and base >= 0"));
    }
    cx.notes.add("a height field without elevation data is flat (zero elevation, as MuJoCo starts it): a static box under its surface");
    cx.hfields.insert(name.to_string(), size);
    Ok(())
}

/// The `<asset>` elements' meshes (name → file under `meshdir`, scale, refpos, refquat, inertia) into `cx.meshes`.
fn mesh_assets(cx: &mut Ctx, kids: &[Node], meshdir: &Path) -> Result<(), String> {
    let src = cx.src;
    for k in kids.iter().filter(|k| k.has_tag_name("asset")) {
        for m in src.children(*k, &["mesh", "hfield"], &["texture", "material", "skin"], &mut cx.notes)? {
            if m.has_tag_name("hfield") {
                height_field(cx, m)?;
                continue;
            }
            let el = cx.el(m, "main")?;
            el.check(cx, &["name", "file", "scale", "refpos", "refquat", "inertia", "content_type"], &["smoothnormal", "maxhullvert"])?;
            let f = el.get("file").ok_or_else(|| src.at(m, "a mesh asset needs `file` (inline vertices are not supported)"))?;
            // the format is read from the extension: a `content_type` must agree with it
            if let Some(t) = el.get("content_type") {
                let ext = Path::new(f).extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
                if t.strip_prefix("model/") != Some(ext.as_str()) || !matches!(ext.as_str(), "stl" | "obj") {
                    return Err(src.at(
                        m,
                        format!(
                            "`content_type` `{t}` for file `{f}`: supported are model/stl and model/obj, matching the file's extension"
                        ),
                    ));
                }
            }
            let name = el
                .get("name")
                .map(str::to_string)
                .unwrap_or_else(|| Path::new(f).file_stem().and_then(|s| s.to_str()).unwrap_or(f).to_string());
            let scale = Vec3::from_array(el.fixed::<3>(cx, "scale")?.unwrap_or([1.0; 3]));
            let refpos = Vec3::from_array(el.fixed::<3>(cx, "refpos")?.unwrap_or([0.0; 3]));
            let [w, x, y, z] = el.fixed::<4>(cx, "refquat")?.unwrap_or([1.0, 0.0, 0.0, 0.0]);
            let refquat = crate::math::Quat::from_xyzw(x, y, z, w);
            if refquat.length() < 1e-12 {
                return Err(src.at(m, "`refquat` is zero"));
            }
            let refquat = refquat.normalize();
            let inertia = match el.get("inertia") {
                None => fit::MeshInertia::Legacy,
                Some(i) => fit::MeshInertia::parse(i)
                    .ok_or_else(|| src.at(m, format!("`inertia` must be `legacy`, `exact`, `convex` or `shell`, got `{i}`")))?,
            };
            let asset = fit::MeshAsset { file: meshdir.join(f), scale, refpos, refquat, inertia, inertia_set: el.get("inertia").is_some() };
            cx.meshes.insert(name, asset);
        }
    }
    Ok(())
}

/// The `<worldbody>` elements: the world's own geoms as one static link, and the bodies' tree. Returns the
/// links in tree order and the link of each joint and of each body by name.
#[allow(clippy::type_complexity)]
fn worldbody(cx: &mut Ctx, kids: &[Node]) -> Result<(Vec<Link>, BTreeMap<String, usize>, BTreeMap<String, usize>), String> {
    let src = cx.src;
    let mut joint_link: BTreeMap<String, usize> = BTreeMap::new();
    let mut body_link: BTreeMap<String, usize> = BTreeMap::new();
    let mut links: Vec<Link> = Vec::new();
    // the world's own geoms, over every <worldbody> (an included file brings its own): one static link
    let first = kids.iter().find(|k| k.has_tag_name("worldbody"));
    let mut world = Link {
        name: "world".into(),
        parent: None,
        attach: Attach::Weld,
        pose: Pose::IDENTITY,
        geoms: Vec::new(),
        inertial: None,
        at: first.map_or_else(String::new, |w| src.at(*w, "worldbody")),
        intermediate: false,
        gravcomp: 0.0,
        color: None,
    };
    let mut named = Vec::new();
    let mut masks = Vec::new();
    let mut framed = Vec::new();
    for w in kids.iter().filter(|k| k.has_tag_name("worldbody")) {
        let children = src.children(*w, &["geom", "body", "site", "frame"], &["camera", "light"], &mut cx.notes)?;
        let children = frame::fold(cx, &children, "main")?;
        if let Some(j) = children.iter().find(|c| c.node.has_tag_name("joint")) {
            return Err(src.at(j.node, "a joint in a <frame> of the <worldbody> has no body to move: put it in a <body>"));
        }
        for f in children.iter().filter(|c| c.node.has_tag_name("geom")) {
            let GeomOut { pose, shape, material, contype, conaffinity, .. } = geom(cx, f.node, &f.class, true)?;
            if let Some(name) = f.node.attribute("name") {
                named.push((name.to_string(), f.frame * pose));
            }
            if let Some(shape) = shape {
                world.geoms.push((f.frame * pose, shape, material));
                masks.push((contype, conaffinity));
            }
        }
        framed.push(children);
    }
    // (a site on the world, a sensor's fixed frame or a target, needs the world's link too)
    let has_sites = framed.iter().flatten().any(|c| c.node.has_tag_name("site"));
    if !world.geoms.is_empty() || has_sites {
        body_link.insert("world".into(), 0);
        cx.geom_frames.extend(named.into_iter().map(|(n, p)| (n, (0, p))));
        cx.masks.extend(masks.into_iter().map(|(t, a)| (0, t, a)));
        links.push(world);
        for s in framed.iter().flatten().filter(|c| c.node.has_tag_name("site")) {
            body::framed_site(cx, s, 0)?;
        }
    }
    for children in &framed {
        for f in children.iter().filter(|c| c.node.has_tag_name("body")) {
            body(cx, f.node, None, f.frame, &f.class, &mut links, &mut joint_link, &mut body_link)?;
        }
    }
    Ok((links, joint_link, body_link))
}

/// The `<contact>` elements: `<exclude>` pairs into `cx.exclusions`, `<pair>`s (explicit pairs, which collide
/// whatever the bitmasks, exclusions and the parent filter say) into `cx.pairs`.
fn contact_exclusions(cx: &mut Ctx, kids: &[Node], body_link: &BTreeMap<String, usize>) -> Result<(), String> {
    let src = cx.src;
    for k in kids.iter().filter(|k| k.has_tag_name("contact")) {
        for e in src.children(*k, &["exclude", "pair"], &[], &mut cx.notes)? {
            if e.has_tag_name("pair") {
                // what MuJoCo sets per pair: cairn's contact laws take the bodies' materials instead
                let per_pair = ["condim", "friction", "solref", "solreffriction", "solimp", "margin", "gap"];
                src.attrs(e, &["geom1", "geom2", "name", "class"], &per_pair, &mut cx.notes)?;
                let find = |key: &str| -> Result<usize, String> {
                    let n = src.required(e, key)?;
                    cx.geom_frames.get(n).map(|g| g.0).ok_or_else(|| src.at(e, format!("`{key}`: unknown geom `{n}`")))
                };
                let (a, b) = (find("geom1")?, find("geom2")?);
                if a == b {
                    return Err(src.at(e, "a contact pair's two geoms are on one body: a body does not collide with itself"));
                }
                cx.pairs.push((a, b));
                continue;
            }
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
    Ok(())
}

/// `compiler settotalmass`: every mass and inertia scaled so that the masses sum to `total`, as MuJoCo does.
fn set_total_mass(links: &mut [Link], total: f64) {
    let sum: f64 = links.iter().filter_map(|l| l.inertial.map(|i| i.mass)).sum();
    if sum > 0.0 {
        for i in links.iter_mut().filter_map(|l| l.inertial.as_mut()) {
            i.mass *= total / sum;
            i.inertia *= total / sum;
        }
    }
}
