//! MJCF geoms, orientations and inertials (see mod.rs for the supported subset).

use super::context::{Ctx, El};
use crate::geometry::mass::{self, UnitMass};
use crate::geometry::ShapeDesc;
use crate::math::{Mat3, Pose, Quat, Vec3};
use crate::model::Material;
use crate::scene::robot::{check_inertia, Inertial};
use roxmltree::Node;

/// A geom: its pose in the body frame, its collision shape (None for a visual geom, contype = conaffinity = 0),
/// its material and its mass properties (mass-scaled).
pub(super) struct GeomOut {
    pub pose: Pose,
    pub shape: Option<ShapeDesc>,
    pub material: Option<usize>,
    pub mass: UnitMass,
    /// MuJoCo's collision bitmasks: two geoms collide when `contype₁ & conaffinity₂` or `contype₂ &
    /// conaffinity₁` is non-zero.
    pub contype: u32,
    pub conaffinity: u32,
    /// The viewer's colour (`rgba`, also from the class; MuJoCo's default grey is left to the viewer).
    pub rgba: Option<[f64; 4]>,
}

/// The rotation an element's quat, euler, axisangle, xyaxes or zaxis gives (at most one, the element's own
/// over one from its class; identity if none).
pub(super) fn orientation(cx: &Ctx, el: &El) -> Result<Quat, String> {
    let mut keys: Vec<&str> = ["quat", "euler", "axisangle", "xyaxes", "zaxis"].into_iter().filter(|k| el.get(k).is_some()).collect();
    // the element's own orientation over one its class gives (MuJoCo's precedence)
    if keys.len() > 1 {
        let own: Vec<&str> = keys.iter().copied().filter(|k| el.node.attribute(*k).is_some()).collect();
        if own.len() == 1 {
            keys = own;
        }
    }
    if keys.len() > 1 {
        return Err(cx.src.at(el.node, format!("give at most one orientation; got {}", keys.join(", "))));
    }
    let bad = |what: &str| cx.src.at(el.node, what.to_string());
    Ok(match keys.first().copied() {
        None => Quat::IDENTITY,
        Some("quat") => {
            let [w, x, y, z] = el.fixed::<4>(cx, "quat")?.unwrap_or([1.0, 0.0, 0.0, 0.0]);
            let q = Quat::from_xyzw(x, y, z, w);
            if q.length() < 1e-12 {
                return Err(bad("`quat` is zero"));
            }
            q.normalize()
        }
        Some("axisangle") => {
            let [x, y, z, a] = el.fixed::<4>(cx, "axisangle")?.unwrap_or([0.0, 0.0, 1.0, 0.0]);
            let axis = Vec3::new(x, y, z);
            if axis.length() < 1e-12 {
                return Err(bad("`axisangle` has a zero axis"));
            }
            Quat::from_axis_angle(axis.normalize(), cx.angle(a))
        }
        Some("euler") => {
            let e = el.fixed::<3>(cx, "euler")?.unwrap_or([0.0; 3]);
            let mut q = Quat::IDENTITY;
            for (i, &(axis, moving)) in cx.eulerseq.iter().enumerate() {
                let r = Quat::from_axis_angle([Vec3::X, Vec3::Y, Vec3::Z][axis], cx.angle(e[i]));
                q = if moving { q * r } else { r * q };
            }
            q
        }
        Some("xyaxes") => {
            let v = el.fixed::<6>(cx, "xyaxes")?.unwrap_or([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
            let x = Vec3::new(v[0], v[1], v[2]);
            let y = Vec3::new(v[3], v[4], v[5]);
            let x = x.try_normalize().ok_or_else(|| bad("`xyaxes`: the x axis is zero"))?;
            let y = (y - x * x.dot(y)).try_normalize().ok_or_else(|| bad("`xyaxes`: the y axis is parallel to x"))?;
            Quat::from_mat3(&Mat3::from_cols(x, y, x.cross(y)))
        }
        _ => {
            let z = Vec3::from_array(el.fixed::<3>(cx, "zaxis")?.unwrap_or([0.0, 0.0, 1.0]));
            Quat::from_rotation_arc(Vec3::Z, z.try_normalize().ok_or_else(|| bad("`zaxis` is zero"))?)
        }
    })
}

/// The contact material of friction coefficient `mu` (one per distinct value).
fn friction_material(cx: &mut Ctx, mu: f64) -> usize {
    let name = format!("mjcf_friction_{mu}");
    if let Some(i) = cx.materials.iter().position(|m| m.name == name) {
        return i;
    }
    cx.notes.add(
        "geom friction: the sliding coefficient, combined by `world.friction_combine` (a file loaded by itself: the larger, as MuJoCo; a scene that places it: the scene's rule, the geometric mean unless it sets \"max\"); torsional and rolling friction are not used",
    );
    cx.materials.push(Material { name, friction: mu, static_friction: mu, ..Material::default_material() });
    cx.materials.len() - 1
}

/// A `<geom>` in a body with default class `class` (`in_world`: of the worldbody, where planes are allowed).
pub(super) fn geom(cx: &mut Ctx, n: Node, class: &str, in_world: bool) -> Result<GeomOut, String> {
    let el = cx.el(n, class)?;
    let used = [
        "name",
        "type",
        "size",
        "fromto",
        "pos",
        "quat",
        "euler",
        "axisangle",
        "xyaxes",
        "zaxis",
        "mesh",
        "fitscale",
        "hfield",
        "rgba",
        "density",
        "mass",
        "friction",
        "contype",
        "conaffinity",
    ];
    let noted = ["material", "group", "condim", "margin", "gap", "solref", "solimp", "solmix", "priority", "user"];
    el.check(cx, &used, &noted)?;
    let ty = el.get("type").unwrap_or("sphere").to_string();
    let mut size = el.nums(cx, "size")?.unwrap_or_default();
    // a primitive with `mesh`: fitted to the mesh (its size, and its frame moved to the mesh's)
    let fitted = match el.get("mesh").filter(|_| ty != "mesh") {
        None => None,
        Some(name) => {
            if el.get("fromto").is_some() {
                return Err(cx.src.at(n, format!("`fromto` cannot be used on a geom fitted to mesh `{name}`")));
            }
            let scale = el.num(cx, "fitscale")?.unwrap_or(1.0);
            Some(super::fit::fit(cx, n, &ty, name, scale)?)
        }
    };
    let mut pose = Pose::from_parts(Vec3::from_array(el.fixed::<3>(cx, "pos")?.unwrap_or([0.0; 3])), orientation(cx, &el)?);
    if let Some(f) = fitted {
        size = f.size;
        pose *= f.pose;
    }
    let need = |k: usize| -> Result<(), String> {
        if size.len() < k || size[..k].iter().any(|&x| x <= 0.0) {
            return Err(cx.src.at(n, format!("a `{ty}` geom needs {k} positive `size` number(s), got {}", crate::math::show_list(&size))));
        }
        Ok(())
    };
    let mut half = None;
    if let Some([ax, ay, az, bx, by, bz]) = el.fixed::<6>(cx, "fromto")? {
        if !matches!(ty.as_str(), "capsule" | "cylinder") {
            return Err(cx.src.at(n, format!("`fromto` is supported on capsule and cylinder geoms, not `{ty}`")));
        }
        let (p, h) = segment(cx, n, [ax, ay, az, bx, by, bz])?;
        pose = p;
        half = Some(h);
    }
    let (shape, unit) = match ty.as_str() {
        "sphere" => {
            need(1)?;
            (ShapeDesc::Sphere { radius: size[0] }, mass::sphere(size[0]))
        }
        "capsule" | "cylinder" => {
            need(if half.is_some() { 1 } else { 2 })?;
            let (r, l) = (size[0], 2.0 * half.unwrap_or_else(|| size[1]));
            if ty == "capsule" {
                (ShapeDesc::Capsule { radius: r, length: l }, mass::capsule(r, l))
            } else {
                (ShapeDesc::Cylinder { radius: r, length: l }, mass::cylinder(r, l))
            }
        }
        "box" => {
            need(3)?;
            let s = Vec3::new(size[0], size[1], size[2]) * 2.0;
            (ShapeDesc::Box { size: s }, mass::cuboid(s))
        }
        "ellipsoid" => {
            need(3)?;
            let r = Vec3::new(size[0], size[1], size[2]);
            let (v, _) = parry3d_f64::shape::Ball::new(1.0).to_trimesh(24, 12);
            let s = mass::sphere(1.0);
            let vol = s.volume * r.x * r.y * r.z;
            let inertia = Mat3::from_diagonal(Vec3::new(r.y * r.y + r.z * r.z, r.x * r.x + r.z * r.z, r.x * r.x + r.y * r.y) * (vol / 5.0));
            (ShapeDesc::Convex { points: v.into_iter().map(|p| p * r).collect() }, UnitMass { volume: vol, com: Vec3::ZERO, inertia })
        }
        "mesh" => {
            let name = el.get("mesh").ok_or_else(|| cx.src.at(n, "a mesh geom needs `mesh`"))?;
            let (m, asset) = super::fit::mesh_data(cx, n, name)?;
            if asset.inertia_set {
                cx.notes.add("mesh asset `inertia`: a mesh geom's mass is its closed mesh's (or its convex hull's when open); the attribute is used by primitives fitted to the mesh");
            }
            let own = mass::mesh(&m.vertices, &m.triangles);
            let closed = m.check_closed().is_ok() && own.volume > 0.0;
            let mut points = m.vertices;
            // an open surface with no volume to speak of (a closed mesh keeps its own hull and mass)
            if let Some((slab, t)) = crate::geometry::flat::slab(&points).filter(|_| !closed) {
                cx.notes.add(format!(
                    "mesh `{name}` is flat (no volume): it collides, and weighs, as a slab {:.3e} m thick ({}% of its width)",
                    t,
                    100.0 * crate::geometry::flat::SLAB_SHARE
                ));
                points = slab;
            }
            let unit = if closed {
                own
            } else {
                let hull = parry3d_f64::shape::SharedShape::convex_hull(&points)
                    .ok_or_else(|| cx.src.at(n, "the mesh has no 3-D convex hull"))?;
                let (hv, ht) = hull.as_convex_polyhedron().ok_or_else(|| cx.src.at(n, "convex hull failed"))?.to_trimesh();
                mass::mesh(&hv, &ht)
            };
            (ShapeDesc::Convex { points }, unit)
        }
        "plane" => {
            if !in_world {
                return Err(cx.src.at(n, "a plane geom belongs to the worldbody (cairn's planes are static)"));
            }
            let sx = size.first().copied().filter(|&x| x > 0.0).unwrap_or(50.0);
            let sy = size.get(1).copied().filter(|&x| x > 0.0).unwrap_or(50.0);
            if size.first().is_none_or(|&x| x <= 0.0) {
                cx.notes.add("an infinite plane becomes a static box 100 m across and 1 m thick under the plane");
            }
            pose = pose * Pose::from_translation(Vec3::new(0.0, 0.0, -0.5));
            let s = Vec3::new(2.0 * sx, 2.0 * sy, 1.0);
            (ShapeDesc::Box { size: s }, mass::cuboid(s))
        }
        "hfield" => {
            // flat (no elevation data): a static box from the surface at z = 0 down by the base's depth (1 m
            // when it has none)
            if !in_world {
                return Err(cx.src.at(n, "a height field geom belongs to the worldbody (cairn's height fields are static)"));
            }
            let name = el.get("hfield").ok_or_else(|| cx.src.at(n, "a height field geom needs `hfield`"))?;
            let [rx, ry, _, base] = *cx.hfields.get(name).ok_or_else(|| cx.src.at(n, format!("unknown height field asset `{name}`")))?;
            let depth = if base > 0.0 { base } else { 1.0 };
            pose = pose * Pose::from_translation(Vec3::new(0.0, 0.0, -0.5 * depth));
            let s = Vec3::new(2.0 * rx, 2.0 * ry, depth);
            (ShapeDesc::Box { size: s }, mass::cuboid(s))
        }
        t => {
            return Err(cx.src.at(
                n,
                format!(
                    "geom type `{t}` is not supported; supported: `plane`, `box`, `sphere`, `capsule`, `cylinder`, `ellipsoid`, `mesh`, `hfield` (flat)"
                ),
            ))
        }
    };
    let mass = if in_world {
        UnitMass { volume: 0.0, com: Vec3::ZERO, inertia: Mat3::ZERO }
    } else {
        let scale = match (el.num(cx, "mass")?, el.num(cx, "density")?.unwrap_or(1000.0)) {
            (Some(m), _) if m >= 0.0 => m / unit.volume,
            (None, d) if d >= 0.0 => d,
            _ => return Err(cx.src.at(n, "`mass` and `density` must be >= 0")),
        };
        UnitMass { volume: unit.volume * scale, com: unit.com, inertia: unit.inertia * scale }
    };
    let mask = |k: &str| -> Result<u32, String> {
        match el.get(k) {
            None => Ok(1),
            Some(t) => {
                t.trim().parse::<u32>().map_err(|_| cx.src.at(n, format!("`{k}` must be a non-negative integer bitmask, got `{t}`")))
            }
        }
    };
    let (contype, conaffinity) = (mask("contype")?, mask("conaffinity")?);
    // a geom of an explicit contact pair collides (with its pair) whatever its bitmasks
    let visual = contype == 0 && conaffinity == 0 && !n.attribute("name").is_some_and(|g| cx.pair_geoms.contains(g));
    let mu = el.nums(cx, "friction")?.and_then(|v| v.first().copied()).unwrap_or(1.0);
    if mu < 0.0 {
        return Err(cx.src.at(n, format!("friction must be >= 0, got {mu}")));
    }
    let material = (!visual).then(|| friction_material(cx, mu));
    let rgba = el.nums(cx, "rgba")?.map(|v| crate::scene::color::rgba(&v).map_err(|e| cx.src.at(n, format!("`rgba`: {e}")))).transpose()?;
    Ok(GeomOut { pose, shape: (!visual).then_some(shape), material, mass, contype, conaffinity, rgba })
}

/// An `<inertial>`: pos, orientation, mass, and diaginertia or fullinertia, in the body frame.
/// `None` for a mass of 0: a massless body, as MuJoCo allows on a body that cannot move (a moving one without
/// mass is refused when the robot is placed). A zero inertia tensor is a point mass, likewise refused when placed
/// on a body that moves and has no inertia from its other links.
pub(super) fn inertial(cx: &mut Ctx, n: Node) -> Result<Option<Inertial>, String> {
    let el = cx.el(n, "main")?;
    el.check(cx, &["pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "mass", "diaginertia", "fullinertia"], &[])?;
    let q = orientation(cx, &el)?;
    let mass = el.num(cx, "mass")?.ok_or_else(|| cx.src.at(n, "missing `mass`"))?;
    if mass < 0.0 {
        return Err(cx.src.at(n, format!("`mass` must be >= 0, got {mass}")));
    }
    let local = match (el.fixed::<3>(cx, "diaginertia")?, el.fixed::<6>(cx, "fullinertia")?) {
        (Some(d), None) => Mat3::from_diagonal(Vec3::from_array(d)),
        (None, Some([xx, yy, zz, xy, xz, yz])) => Mat3::from_cols(Vec3::new(xx, xy, xz), Vec3::new(xy, yy, yz), Vec3::new(xz, yz, zz)),
        _ => return Err(cx.src.at(n, "give exactly one of `diaginertia` and `fullinertia`")),
    };
    if mass == 0.0 {
        return Ok(None);
    }
    let r = Mat3::from_quat(q);
    let inertia = r * local * r.transpose();
    // a zero tensor is a point mass (physical; a moving body needs inertia from elsewhere, checked when placed)
    if inertia != Mat3::ZERO {
        check_inertia(&inertia).map_err(|e| cx.src.at(n, e))?;
    }
    Ok(Some(Inertial { mass, com: Vec3::from_array(el.fixed::<3>(cx, "pos")?.unwrap_or([0.0; 3])), inertia }))
}

/// The pose (centre, z along the segment) and half-length of a capsule's or cylinder's `fromto` segment.
pub(super) fn segment(cx: &Ctx, n: Node, [ax, ay, az, bx, by, bz]: [f64; 6]) -> Result<(Pose, f64), String> {
    let (a, b) = (Vec3::new(ax, ay, az), Vec3::new(bx, by, bz));
    let d = (b - a).try_normalize().ok_or_else(|| cx.src.at(n, "`fromto` has two equal ends"))?;
    Ok((Pose::from_parts((a + b) * 0.5, Quat::from_rotation_arc(Vec3::Z, d)), (b - a).length() / 2.0))
}
