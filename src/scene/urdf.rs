//! URDF robots (the ROS Unified Robot Description Format) into the kinematic tree of robot.rs.
//!
//! Supported: `<link>` with `<inertial>` (origin, mass, the full inertia tensor, rotated from the inertial frame
//! into the link frame) and `<collision>` geometry `box`, `cylinder`, `sphere` and `mesh` (STL or OBJ, with
//! `scale`; `package://name/…` is looked up beside the file and in its parent folders, as `name/…` and as
//! `…` inside a folder called `name`); `<joint>` of type `revolute`, `continuous`, `prismatic`, `fixed` and
//! `floating` with `origin`, `axis`, `limit` (lower, upper; effort bounds the joint's effort input, velocity is
//! noted), `mimic` (noted: the joint moves on its own, as in Bullet) and `dynamics` (damping: a motor of zero stiffness; friction: a note, since no method runs it). A link
//! named `world` is the world frame. A closed mesh collides as itself; an open one as its convex hull (noted).
//! Visuals, materials (their colour is the body's colour in the viewer), transmissions and `<gazebo>` extensions
//! are noted as ignored. Anything else is an
//! error naming the file, the line, the element and what is supported.

use super::robot::{physical_inertia, tree_order, Attach, Inertial, Link, Robot, RobotJoint};
use super::xml::{parse, Notes, Src};
use crate::geometry::mesh;
use crate::geometry::ShapeDesc;
use crate::math::{Mat3, Pose, Quat, Vec3};
use crate::model::JointType;
use roxmltree::Node;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Reads the URDF text of `file` (meshes resolved from `dir`).
pub fn load(text: &str, file: &str, dir: &Path) -> Result<Robot, String> {
    let doc = parse(file, text)?;
    let src = Src { file, doc: &doc, parts: &[] };
    let root = doc.root_element();
    if root.tag_name().name() != "robot" {
        return Err(src.at(root, "a URDF file's root element must be <robot>"));
    }
    let mut notes = Notes::default();
    src.attrs(root, &["name"], &["version", "xmlns:xacro"], &mut notes)?;
    let elems = src.children_noting(root, &["link", "joint"], &mut notes);
    // the robot's named material colours, for the viewer
    let colors = super::color::urdf_materials(root);
    // links by name
    let mut names: Vec<String> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut link_nodes = Vec::new();
    for n in elems.iter().filter(|n| n.has_tag_name("link")) {
        let name = src.required(*n, "name")?.to_string();
        if index.insert(name.clone(), names.len()).is_some() {
            return Err(src.at(*n, format!("duplicate link name `{name}`")));
        }
        names.push(name);
        link_nodes.push(*n);
    }
    if names.is_empty() {
        return Err(format!("{file}: the robot has no <link>"));
    }
    let world = index.get("world").copied();
    // joints: parent of each link, and the joint itself in the parent frame
    let mut parent_of: Vec<Option<usize>> = vec![None; names.len()];
    let mut joint_of: Vec<Option<(Node, Pose)>> = vec![None; names.len()];
    let mut joint_names = BTreeMap::new();
    for n in elems.iter().filter(|n| n.has_tag_name("joint")) {
        let name = src.required(*n, "name")?;
        if joint_names.insert(name.to_string(), ()).is_some() {
            return Err(src.at(*n, format!("duplicate joint name `{name}`")));
        }
        let link_ref = |tag: &str| -> Result<usize, String> {
            let e = n.children().find(|c| c.has_tag_name(tag)).ok_or_else(|| src.at(*n, format!("missing <{tag} link=\"…\"/>")))?;
            let l = src.required(e, "link")?;
            index.get(l).copied().ok_or_else(|| src.at(e, format!("unknown link `{l}`")))
        };
        let (parent, child) = (link_ref("parent")?, link_ref("child")?);
        if parent_of[child].is_some() || Some(child) == world {
            return Err(src.at(*n, format!("link `{}` is the child of more than one joint (a URDF is a tree)", names[child])));
        }
        if parent == child {
            return Err(src.at(*n, "a joint's parent and child are the same link"));
        }
        parent_of[child] = Some(parent);
        let origin = n.children().find(|c| c.has_tag_name("origin"));
        joint_of[child] = Some((*n, origin.map(|o| origin_pose(&src, o, &mut notes)).transpose()?.unwrap_or(Pose::IDENTITY)));
    }
    let order = tree_order(&names, &parent_of).map_err(|e| format!("{file}: {e}"))?;
    // robot-frame poses, in tree order
    let mut pose = vec![Pose::IDENTITY; names.len()];
    let mut new_index = vec![usize::MAX; names.len()];
    let mut links = Vec::new();
    for &l in &order {
        if let (Some(p), Some((_, o))) = (parent_of[l], &joint_of[l]) {
            pose[l] = pose[p] * *o;
        }
        if Some(l) == world {
            let n = link_nodes[l];
            if n.children().any(|c| c.is_element()) {
                return Err(src.at(n, "the link named `world` is the world frame: it cannot have inertial or collision elements"));
            }
            continue;
        }
        let node = link_nodes[l];
        let (geoms, inertial) = link_body(&src, node, dir, &mut notes)?;
        let parent = parent_of[l].filter(|&p| Some(p) != world).map(|p| new_index[p]);
        let attach = match &joint_of[l] {
            None => Attach::Free,
            Some((jn, _)) => joint(&src, *jn, pose[l], &mut notes)?,
        };
        new_index[l] = links.len();
        links.push(Link {
            name: names[l].clone(),
            parent,
            attach,
            pose: pose[l],
            geoms,
            inertial,
            at: src.at(node, "link"),
            intermediate: false,
            gravcomp: 0.0,
            color: super::color::urdf_link(node, &colors),
        });
    }
    let actuators = effort_inputs(&links);
    Ok(Robot { links, notes: notes.lines(file), actuators, lenient_mass: true, ..Robot::default() })
}

/// URDF `origin`: `xyz` and `rpy` (fixed axes: roll about x, then pitch about y, then yaw about z).
fn origin_pose(src: &Src, o: Node, notes: &mut Notes) -> Result<Pose, String> {
    src.attrs(o, &["xyz", "rpy"], &[], notes)?;
    let xyz = src.fixed::<3>(o, "xyz")?.unwrap_or([0.0; 3]);
    let [r, p, y] = src.fixed::<3>(o, "rpy")?.unwrap_or([0.0; 3]);
    let q = Quat::from_rotation_z(y) * Quat::from_rotation_y(p) * Quat::from_rotation_x(r);
    Ok(Pose::from_parts(Vec3::from_array(xyz), q))
}

fn origin_of(src: &Src, n: Node, notes: &mut Notes) -> Result<Pose, String> {
    match n.children().find(|c| c.has_tag_name("origin")) {
        Some(o) => origin_pose(src, o, notes),
        None => Ok(Pose::IDENTITY),
    }
}

/// A link's collision geometry and inertial.
type LinkBody = (Vec<(Pose, ShapeDesc, Option<usize>)>, Option<Inertial>);

fn link_body(src: &Src, n: Node, dir: &Path, notes: &mut Notes) -> Result<LinkBody, String> {
    src.attrs(n, &["name"], &["type"], notes)?;
    let mut geoms = Vec::new();
    let mut inertial = None;
    for c in src.children_noting(n, &["inertial", "collision"], notes) {
        if c.has_tag_name("inertial") {
            if inertial.is_some() {
                return Err(src.at(c, "a link has at most one <inertial>"));
            }
            inertial = inertial_of(src, c, notes)?;
            continue;
        }
        src.attrs(c, &["name"], &["group"], notes)?;
        let kids = src.children(c, &["origin", "geometry"], &["material", "verbose"], notes)?;
        let g = kids.iter().find(|k| k.has_tag_name("geometry")).ok_or_else(|| src.at(c, "missing <geometry>"))?;
        geoms.push((origin_of(src, c, notes)?, geometry(src, *g, dir, notes)?, None));
    }
    Ok((geoms, inertial))
}

/// An `<inertial>`; None for a mass of 0 (a massless frame, as real files write them).
fn inertial_of(src: &Src, n: Node, notes: &mut Notes) -> Result<Option<Inertial>, String> {
    let kids = src.children(n, &["origin", "mass", "inertia"], &[], notes)?;
    let origin = origin_of(src, n, notes)?;
    let m = kids.iter().find(|k| k.has_tag_name("mass")).ok_or_else(|| src.at(n, "missing <mass value=\"…\"/>"))?;
    src.attrs(*m, &["value"], &[], notes)?;
    let mass = src.num(*m, "value")?.ok_or_else(|| src.at(*m, "missing attribute `value`"))?;
    if mass < 0.0 {
        return Err(src.at(*m, format!("mass must be >= 0, got {mass}")));
    }
    let i = kids.iter().find(|k| k.has_tag_name("inertia")).ok_or_else(|| src.at(n, "missing <inertia ixx=… …/>"))?;
    let keys = ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"];
    src.attrs(*i, &keys, &[], notes)?;
    let mut v = [0.0; 6];
    for (x, k) in v.iter_mut().zip(keys) {
        *x = src.num(*i, k)?.ok_or_else(|| src.at(*i, format!("missing attribute `{k}`")))?;
    }
    if mass == 0.0 {
        return Ok(None);
    }
    let [xx, xy, xz, yy, yz, zz] = v;
    let local = Mat3::from_cols(Vec3::new(xx, xy, xz), Vec3::new(xy, yy, yz), Vec3::new(xz, yz, zz));
    let r = Mat3::from_quat(origin.rotation);
    let inertia = r * local * r.transpose();
    let (inertia, repaired) = physical_inertia(&inertia).map_err(|e| src.at(*i, e))?;
    if repaired {
        notes.add("an inertia tensor that breaks the triangle inequality by under 1% (rounding in the file) repaired to the nearest physical one: its largest principal moment lowered to the sum of the other two");
    }
    Ok(Some(Inertial { mass, com: origin.translation, inertia }))
}

fn positive(src: &Src, n: Node, key: &str) -> Result<f64, String> {
    let x = src.num(n, key)?.ok_or_else(|| src.at(n, format!("missing attribute `{key}`")))?;
    if x <= 0.0 {
        return Err(src.at(n, format!("`{key}` must be > 0, got {x}")));
    }
    Ok(x)
}

fn geometry(src: &Src, g: Node, dir: &Path, notes: &mut Notes) -> Result<ShapeDesc, String> {
    let kids = src.children(g, &["box", "cylinder", "sphere", "mesh"], &[], notes)?;
    let [s] = kids.as_slice() else {
        return Err(src.at(g, "<geometry> needs exactly one of <box>, <cylinder>, <sphere>, <mesh>"));
    };
    let s = *s;
    match s.tag_name().name() {
        "box" => {
            src.attrs(s, &["size"], &[], notes)?;
            let size = src.fixed::<3>(s, "size")?.ok_or_else(|| src.at(s, "missing attribute `size`"))?;
            if size.iter().any(|&x| x <= 0.0) {
                return Err(src.at(s, format!("`size` entries must be > 0, got {}", crate::math::show_list(&size))));
            }
            Ok(ShapeDesc::Box { size: Vec3::from_array(size) })
        }
        "cylinder" => {
            src.attrs(s, &["radius", "length"], &[], notes)?;
            Ok(ShapeDesc::Cylinder { radius: positive(src, s, "radius")?, length: positive(src, s, "length")? })
        }
        "sphere" => {
            src.attrs(s, &["radius"], &[], notes)?;
            Ok(ShapeDesc::Sphere { radius: positive(src, s, "radius")? })
        }
        _ => {
            src.attrs(s, &["filename", "scale"], &[], notes)?;
            let name = src.required(s, "filename")?;
            let path = resolve(name, dir).map_err(|e| src.at(s, e))?;
            let scale = match src.nums(s, "scale")? {
                None => Vec3::ONE,
                Some(v) if v.len() == 3 && v.iter().all(|&x| x != 0.0) => Vec3::new(v[0], v[1], v[2]),
                Some(v) if v.len() == 1 && v[0] != 0.0 => Vec3::splat(v[0]),
                Some(_) => return Err(src.at(s, "`scale` must be three nonzero numbers")),
            };
            let m = mesh::load(&path).map_err(|e| src.at(s, e.0))?.scaled(scale);
            mesh_shape(m, path.display().to_string(), notes)
        }
    }
}

/// A closed, outward mesh as itself; any other as its convex hull (noted).
pub(super) fn mesh_shape(m: mesh::TriMeshData, source: String, notes: &mut Notes) -> Result<ShapeDesc, String> {
    let closed = m.check_closed().is_ok() && crate::geometry::mass::mesh(&m.vertices, &m.triangles).volume > 0.0;
    if closed {
        return Ok(ShapeDesc::Mesh { mesh: Arc::new(m), source });
    }
    if let Some((slab, t)) = crate::geometry::flat::slab(&m.vertices) {
        notes.add(format!("mesh {source} is flat (no volume): it collides as a slab {t:.3e} m thick"));
        return Ok(ShapeDesc::Convex { points: slab });
    }
    notes.add(format!("mesh {source} is not a closed, outward surface: it collides as its convex hull"));
    Ok(ShapeDesc::Convex { points: m.vertices })
}

/// The file a mesh `filename` names: `package://pkg/rest` is searched beside the URDF and up its folders (as
/// `pkg/rest`, and as `rest` in a folder named `pkg`); `file://` paths are absolute; others are relative to `dir`.
pub(super) fn resolve(name: &str, dir: &Path) -> Result<PathBuf, String> {
    if let Some(rest) = name.strip_prefix("file://") {
        let p = PathBuf::from(rest);
        return if p.exists() { Ok(p) } else { Err(format!("mesh file `{name}` not found")) };
    }
    let Some(pkg_path) = name.strip_prefix("package://") else {
        return Ok(dir.join(name));
    };
    let (pkg, rest) = pkg_path.split_once('/').ok_or_else(|| format!("`{name}`: a package:// path needs a package and a file"))?;
    let mut tried = Vec::new();
    let mut cur = Some(dir);
    while let Some(d) = cur {
        let mut candidates = vec![d.join(pkg).join(rest)];
        if d.file_name().is_some_and(|f| f == pkg) {
            candidates.push(d.join(rest));
        }
        for c in candidates {
            if c.exists() {
                return Ok(c);
            }
            tried.push(c.display().to_string());
        }
        cur = d.parent().filter(|p| !p.as_os_str().is_empty());
    }
    let here = dir.join(rest);
    if here.exists() {
        return Ok(here);
    }
    tried.push(here.display().to_string());
    Err(format!("cannot resolve `{name}` (cairn has no ROS package path; looked for: {})", tried.join(", ")))
}

/// The joint element `n` of a child link whose frame is `frame` in the robot frame.
fn joint(src: &Src, n: Node, frame: Pose, notes: &mut Notes) -> Result<Attach, String> {
    src.attrs(n, &["name", "type"], &[], notes)?;
    let kids = src.children_noting(n, &["parent", "child", "origin", "axis", "limit", "dynamics", "mimic"], notes);
    let ty = src.required(n, "type")?;
    let kind = match ty {
        "revolute" | "continuous" => JointType::Hinge,
        "prismatic" => JointType::Prismatic,
        "fixed" => return Ok(Attach::Weld),
        "floating" => return Ok(Attach::Free),
        other => {
            return Err(src.at(
                n,
                format!("joint type `{other}` is not supported; supported: `revolute`, `continuous`, `prismatic`, `fixed`, `floating`"),
            ))
        }
    };
    let find = |t: &str| kids.iter().copied().find(|k| k.has_tag_name(t));
    if find("mimic").is_some() {
        // Bullet ignores it too; cairn has no coupled joint coordinates
        notes.add("<mimic> not applied: the joint moves on its own (cairn has no coupled joint coordinates)");
    }
    let axis_local = match find("axis") {
        Some(a) => {
            src.attrs(a, &["xyz"], &[], notes)?;
            Vec3::from_array(src.fixed::<3>(a, "xyz")?.ok_or_else(|| src.at(a, "missing attribute `xyz`"))?)
        }
        None => Vec3::X,
    };
    if axis_local.length() < 1e-12 {
        return Err(src.at(n, "the joint axis is zero"));
    }
    let mut limits = None;
    let mut effort = None;
    if let Some(l) = find("limit") {
        src.attrs(l, &["lower", "upper", "effort"], &["velocity"], notes)?;
        effort = src.num(l, "effort")?;
        if effort.is_some_and(|e| !(e >= 0.0)) {
            return Err(src.at(l, "`effort` must be a number >= 0 (N·m or N; 0: no bound)"));
        }
        if ty != "continuous" {
            let lo = src.num(l, "lower")?.unwrap_or(0.0);
            let hi = src.num(l, "upper")?.unwrap_or(0.0);
            if lo > hi {
                return Err(src.at(l, format!("limits are reversed: lower {lo} > upper {hi}")));
            }
            limits = Some([lo, hi]);
        }
    } else if ty != "continuous" {
        return Err(src.at(n, format!("a `{ty}` joint needs <limit lower=… upper=…/> (URDF requires it)")));
    }
    let (mut damping, mut friction) = (0.0, 0.0);
    if let Some(d) = find("dynamics") {
        src.attrs(d, &["damping", "friction"], &[], notes)?;
        damping = src.num(d, "damping")?.unwrap_or(0.0);
        friction = src.num(d, "friction")?.unwrap_or(0.0);
        if damping < 0.0 || friction < 0.0 {
            return Err(src.at(d, "damping and friction must be >= 0"));
        }
    }
    Ok(Attach::Joint(RobotJoint {
        name: src.required(n, "name")?.to_string(),
        kind,
        anchor: frame.translation,
        axis: (frame.rotation * axis_local).normalize(),
        limits,
        offset: 0.0,
        motor: None,
        damping,
        ball_stiffness: 0.0,
        friction,
        armature: 0.0,
        effort: effort.filter(|&e| e > 0.0),
        springdamper: None,
        at: src.at(n, "joint"),
    }))
}

/// One torque (or force) input per hinge or prismatic joint, named after it, bounded by its `effort`: URDF
/// describes no actuator, so each moving joint gets the effort input PyBullet's torque control drives.
fn effort_inputs(links: &[Link]) -> Vec<(crate::dynamics::actuator::Actuator, Option<f64>)> {
    let mut out = Vec::new();
    for (k, l) in super::robot::joint_links(links).into_iter().enumerate() {
        let Attach::Joint(j) = &links[l].attach else { continue };
        if matches!(j.kind, JointType::Hinge | JointType::Prismatic) {
            let mut a = crate::dynamics::actuator::Actuator::motor(j.name.clone(), k, 1.0);
            a.force_range = j.effort.map(|e| [-e, e]);
            out.push((a, None));
        }
    }
    out
}

#[cfg(test)]
#[path = "urdf_tests.rs"]
mod tests;
