//! A corpus of bad scenes: each must give a clear error (never a panic) naming what is wrong.

use super::load_str;
use crate::math::Vec3;
use std::path::Path;

const GROUND: &str =
    "[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n";

fn err(text: &str) -> String {
    let r = std::panic::catch_unwind(|| load_str(text, "bad.toml", "bad", Path::new("/nonexistent-dir"), &[]));
    match r {
        Err(_) => panic!("loader panicked on:\n{text}"),
        Ok(Ok(_)) => panic!("loader accepted:\n{text}"),
        Ok(Err(e)) => e.0,
    }
}

fn ok(text: &str) -> crate::model::Model {
    load_str(text, "good.toml", "good", Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn bad_scene_corpus_gives_clear_errors() {
    let body = |shape: &str, extra: &str| format!("format = 1\n[[body]]\nname = \"b\"\nshape = {shape}\n{extra}\n");
    let sphere = "{ type = \"sphere\", radius = 0.5 }";
    let cases: Vec<(String, &[&str])> = vec![
        ("[world]\ndt = 0.01\n".into(), &["missing `format`"]),
        ("format = 2\n".into(), &["format = 2", "known version is 1"]),
        ("format = 1\n[wrld]\n".into(), &["unknown field `wrld`", "world", "line 2"]),
        ("format = 1\n[world]\ndtt = 0.1\n".into(), &["unknown field `dtt`", "gravity", "line 3"]),
        ("format = 1\n[world]\ndt = \"fast\"\n".into(), &["invalid type", "line 3"]),
        ("format = 1\n[world]\ndt = 0.0\n".into(), &["world.dt must be > 0"]),
        ("format = 1\n[world]\ndt = -1.0\n".into(), &["world.dt must be > 0"]),
        ("format = 1\n[world]\ndt = nan\n".into(), &["world.dt", "finite"]),
        ("format = 1\n[world]\nduration = -1.0\n".into(), &["world.duration must be >= 0"]),
        ("format = 1\n[world]\ngravity = [0.0, inf, 0.0]\n".into(), &["world.gravity", "finite"]),
        ("format = 1\n[world]\ngravity = [0.0, 1.0]\n".into(), &["invalid length 2"]),
        ("format = 1\n[world]\nmethod = \"magic\"\n".into(), &["unknown method `magic`", "`lcp`", "`abd`"]),
        ("format = 1\n[solver.implicit-penalty]\njoint_alpha = 0.0\n".into(), &["solver.implicit-penalty.joint_alpha", "> 0"]),
        ("format = 1\n[solver.lcp]\niterations = 0\n".into(), &["solver.lcp.iterations"]),
        ("format = 1\n[solver.lcp]\niteratons = 3\n".into(), &["unknown field `iteratons`", "iterations"]),
        ("format = 1\n[solver.lcp]\nshock_fraction = 2.0\n".into(), &["shock_fraction must be in [0, 1]"]),
        ("format = 1\n[solver.abd]\nkappa = -1.0\n".into(), &["solver.abd.kappa", "> 0"]),
        ("format = 1\n[solver.abd]\nresolution = 2\n".into(), &["solver.abd.resolution", "4..=256"]),
        ("format = 1\n[solver.impulse]\nfriction_model = \"coulomb\"\n".into(), &["solver.impulse.friction_model", "`mirtich`"]),
        ("format = 1\n[solver.impulse]\npoint_window = -1.0\n".into(), &["solver.impulse.point_window must be >= 0"]),
        ("format = 1\n[solver.impulse]\nshock_iteration = 1\n".into(), &["unknown field `shock_iteration`"]),
        ("format = 1\n[[material]]\nname = \"m\"\nfriction = 0.5\nstatic_friction = 0.3\n".into(), &["material `m`", "static_friction (0.3) must be >= friction (0.5)"]),
        ("format = 1\n[[material]]\nname = \"m\"\nrestitution = 1.5\n".into(), &["material `m`", "restitution must be in [0, 1]"]),
        ("format = 1\n[[material]]\nname = \"m\"\ndensity = 0.0\n".into(), &["material `m`", "density must be > 0"]),
        ("format = 1\n[[material]]\nname = \"m\"\n[[material]]\nname = \"m\"\n".into(), &["duplicate material name `m`"]),
        ("format = 1\n[[material]]\nname = \"m\"\nfriction = -0.1\n".into(), &["friction must be >= 0"]),
        (body("{ type = \"sphere\", radius = 0.0 }", ""), &["body `b`", "`radius` must be > 0"]),
        (body("{ type = \"sphere\", radius = -1.0 }", ""), &["body `b`", "`radius` must be > 0"]),
        (body("{ type = \"sphere\" }", ""), &["body `b`", "missing `radius`"]),
        (body("{ type = \"sphere\", radius = 1.0, size = [1, 1, 1] }", ""), &["unknown key `size`", "`radius`"]),
        (body("{ type = \"blob\" }", ""), &["unknown shape type `blob`", "`sphere`"]),
        (body("{ radius = 1.0 }", ""), &["missing `type`"]),
        (body("{ type = \"box\", size = [1.0, 0.0, 1.0] }", ""), &["`size` entries must be > 0"]),
        (body("{ type = \"box\", size = [1.0, 1.0] }", ""), &["`size` must have 3 entries"]),
        (body("{ type = \"capsule\", radius = 0.5 }", ""), &["missing `length`"]),
        (body("{ type = \"cylinder\", radius = 0.5, length = -2.0 }", ""), &["`length` must be > 0"]),
        (body("{ type = \"convex\", points = [[0, 0, 0], [1, 0, 0], [0, 1, 0]] }", ""), &["at least 4 points"]),
        (body("{ type = \"convex\", points = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]] }", ""), &["convex hull"]),
        (body("{ type = \"convex\" }", ""), &["needs `points` or `mesh`"]),
        (body("{ type = \"mesh\", mesh = \"missing.obj\" }", ""), &["missing.obj", "cannot read mesh file"]),
        (body("{ type = \"mesh\" }", ""), &["missing `mesh`"]),
        (body("{ type = \"generated\", generator = \"gear\", teeth = 12 }", ""), &["`radius`"]),
        (body("{ type = \"generated\", generator = \"nut\", radius = 0.1, height = 0.1, pitch = 0.02, segments = 25 }", ""), &["`segments`", "multiple of 6"]),
        (body("{ type = \"generated\", generator = \"torus\", major_radius = 1.0, minor_radius = 1.5 }", ""), &["`minor_radius`", "smaller"]),
        (body("{ type = \"generated\", generator = \"torus\", major_radius = 1.0 }", ""), &["missing `minor_radius`"]),
        (body("{ type = \"generated\", generator = \"cup\", radius = 1.0, height = 1.0, thickness = 0.1, sides = 3 }", ""), &["unknown key `sides`"]),
        (body("{ type = \"generated\", generator = \"bowl\", radius = 1.0, thickness = 0.1, segments = 2 }", ""), &["`segments`", "from 3"]),
        (body("{ type = \"generated\", generator = \"spring\" }", ""), &["unknown generator `spring`", "`torus`"]),
        (body("{ type = \"generated\" }", ""), &["missing `generator`"]),
        (body(sphere, "mass = 0.0"), &["body `b`", "mass must be > 0"]),
        (body(sphere, "mass = -3.0"), &["mass must be > 0"]),
        (body(sphere, "rotation = [1.0, 1.0, 0.0, 0.0]"), &["unit quaternion"]),
        (body(sphere, "rotation = [0.0, 0.0, 0.0, 0.0]"), &["unit quaternion"]),
        (body(sphere, "rotation = [1.0, 0.0, 0.0, 0.0]\nrotation_deg = [0.0, 0.0, 10.0]"), &["at most one of"]),
        (body(sphere, "axis_angle = { axis = [0.0, 0.0, 0.0], angle_deg = 10.0 }"), &["axis_angle.axis is zero"]),
        (body(sphere, "position = [0.0, nan, 0.0]"), &["body `b`", "position", "finite"]),
        (body(sphere, "velocity = [0.0, 0.0]"), &["invalid length"]),
        (body(sphere, "material = \"steel\""), &["unknown material `steel`", "`default`"]),
        (body(sphere, "kind = \"floating\""), &["unknown variant `floating`", "`dynamic`"]),
        (body(sphere, "repeat = { count = [1, 0, 1], step = [1.0, 1.0, 1.0] }"), &["repeat.count must be >= 1"]),
        (body(sphere, "repeat = { count = [1, -1, 1], step = [1.0, 1.0, 1.0] }"), &["invalid value"]),
        (body(sphere, "colour = \"red\""), &["unknown field `colour`", "angular_velocity"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[body]]\nname = \"a\"\nshape = {sphere}\n"), &["duplicate body name `a`"]),
        (format!("format = 1\n{GROUND}[[joint]]\ntype = \"ball\"\nbody1 = \"ground\"\nanchor = [0.0, 0.0, 0.0]\n"), &["joint #0", "static or the world"]),
        (format!("format = 1\n{GROUND}[[joint]]\ntype = \"ball\"\nbody1 = \"nobody\"\nanchor = [0.0, 0.0, 0.0]\n"), &["joint #0", "unknown body `nobody`"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"ball\"\nbody1 = \"a\"\nbody2 = \"a\"\nanchor = [0.0, 0.0, 0.0]\n"), &["joins body `a` to itself"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 0.0, 0.0]\n"), &["axis is zero"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"weld\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\n"), &["unknown variant `weld`"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nlimits = [-4.0, 1.0]\n"), &["joint #0", "hinge limits [-4, 1]", "[-π, π]"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"ball\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nlimits = [-1.0, 1.0]\n"), &["joint #0", "`limits` need a coordinate"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"fixed\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {{ target = 0.0, stiffness = 1.0, damping = 1.0 }}\n"), &["joint #0", "a motor needs a joint coordinate"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {{ stiffness = 1.0, damping = 1.0 }}\n"), &["joint #0", "a motor needs `target` or a `path`"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {{ target = 0.0, stiffness = -1.0, damping = 1.0 }}\n"), &["joint #0: motor.stiffness must be >= 0"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"prismatic\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {{ target = 0.0, stiffness = 1.0, damping = 1.0, max_force = 0.0 }}\n"), &["joint #0: motor.max_force must be > 0"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"prismatic\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {{ stiffness = 1.0, damping = 1.0, path = [{{ time = 1.0, value = 0.0 }}, {{ time = 1.0, value = 1.0 }}] }}\n"), &["joint #0: motor.path[1].time 1 must be greater"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {{ stiffness = 1.0, damping = 1.0, path = [{{ time = 0.0, value = 4.0 }}] }}\n"), &["joint #0", "target 4 must lie within [-π, π]"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {{ stiffness = 1.0, damping = 1.0, path = [{{ time = 0.0, valu = 4.0 }}] }}\n"), &["unknown field `valu`"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\nmotor = {{ target = 0.0, stiffness = 1.0, damping = 1.0, gain = 2.0 }}\n"), &["unknown field `gain`", "max_force", "path"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[load]]\nbody = \"x\"\n"), &["load #0", "unknown body `x`"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[load]]\nbody = \"a\"\nstart = 2.0\nend = 1.0\n"), &["load #0", "must be after start"]),
        (format!("format = 1\n[[body]]\nname = \"a\"\nshape = {sphere}\n[[load]]\nbody = \"a\"\nforce = [inf, 0.0, 0.0]\n"), &["load #0: force", "finite"]),
        ("format = 1\n[[body]\n".into(), &["line 2"]),
        ("format = 1\nformat = 1\n".into(), &["duplicate key"]),
        ("".into(), &["missing `format`"]),
        ("format = \"one\"\n".into(), &["invalid type"]),
    ];
    for (text, needles) in &cases {
        let e = err(text);
        assert!(e.starts_with("bad.toml: "), "error does not name the file: {e}");
        for n in needles.iter() {
            assert!(e.contains(n), "error for\n{text}\nis\n{e}\nand does not mention `{n}`");
        }
    }
}

#[test]
fn overrides_change_values_and_report_bad_paths() {
    let text = format!("format = 1\n{GROUND}[[body]]\nname = \"c\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\n");
    let sets = vec![
        ("solver.lcp.iterations".to_string(), "50".to_string()),
        ("world.dt".into(), "0.005".into()),
        ("body.1.mass".into(), "7.0".into()),
    ];
    let m = load_str(&text, "s.toml", "s", Path::new("."), &sets).unwrap();
    assert!(m.solver.contains(crate::model::MethodKey::Lcp) && !m.solver.contains(crate::model::MethodKey::Abd));
    assert_eq!(m.dt, 0.005);
    assert_eq!(m.bodies[1].mass, 7.0);
    let bad = load_str(&text, "s.toml", "s", Path::new("."), &[("body.9.mass".into(), "1".into())]).unwrap_err().0;
    assert!(bad.contains("index 9 out of range"), "{bad}");
    let bad = load_str(&text, "s.toml", "s", Path::new("."), &[("world.dt".into(), "fast".into())]).unwrap_err().0;
    assert!(bad.contains("invalid type"), "{bad}");
}

#[test]
fn defaults_repeat_names_and_rotations() {
    let m = ok("format = 1\n[[body]]\nshape = { type = \"sphere\", radius = 1 }\n[[body]]\nname = \"c\"\nshape = { type = \"box\", size = [1, 1, 1] }\nrotation_deg = [0.0, 0.0, 90.0]\nrepeat = { count = [2, 1, 3], step = [2.0, 0.0, 1.0] }\n");
    assert_eq!(m.dt, 0.01);
    assert_eq!(m.duration, 5.0);
    assert_eq!(m.method, "lcp");
    assert_eq!(m.gravity.z, -9.81);
    assert_eq!(m.bodies.len(), 7);
    assert_eq!(m.bodies[0].name, "body0");
    assert_eq!(m.bodies[6].name, "c_1_0_2");
    assert!((m.bodies[6].position - crate::math::Vec3::new(2.0, 0.0, 2.0)).length() < 1e-15);
    let x = m.bodies[1].rotation * crate::math::Vec3::X;
    assert!((x - crate::math::Vec3::Y).length() < 1e-12);
    // sphere of radius 1 and density 1000
    assert!((m.bodies[0].mass - 4.0 / 3.0 * std::f64::consts::PI * 1000.0).abs() < 1e-9);
}

#[test]
fn meshes_load_and_open_meshes_are_rejected_on_dynamic_bodies() {
    let dir = std::env::temp_dir().join(format!("cairn-scene-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cube = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nf 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
    std::fs::write(dir.join("cube.obj"), cube).unwrap();
    std::fs::write(dir.join("open.obj"), cube.rsplit_once("f 4").unwrap().0).unwrap();
    std::fs::write(
        dir.join("inverted.obj"),
        cube.replace("f 1 4 3 2", "f 1 2 3 4")
            .replace("f 5 6 7 8", "f 5 8 7 6")
            .replace("f 1 2 6 5", "f 1 5 6 2")
            .replace("f 2 3 7 6", "f 2 6 7 3")
            .replace("f 3 4 8 7", "f 3 7 8 4")
            .replace("f 4 1 5 8", "f 4 8 5 1"),
    )
    .unwrap();
    std::fs::write(dir.join("empty.obj"), "# nothing\n").unwrap();
    let scene = |file: &str, kind: &str| {
        format!("format = 1\n[[body]]\nname = \"m\"\nkind = \"{kind}\"\nshape = {{ type = \"mesh\", mesh = \"{file}\", scale = 2.0 }}\n")
    };
    let m = load_str(&scene("cube.obj", "dynamic"), "s.toml", "s", &dir, &[]).unwrap();
    assert!((m.bodies[0].mass - 8000.0).abs() < 1e-9);
    assert!((m.bodies[0].com - crate::math::Vec3::splat(1.0)).length() < 1e-12);
    let e = load_str(&scene("open.obj", "dynamic"), "s.toml", "s", &dir, &[]).unwrap_err().0;
    assert!(e.contains("body `m`") && e.contains("open") && e.contains("open.obj"), "{e}");
    let e = load_str(&scene("inverted.obj", "dynamic"), "s.toml", "s", &dir, &[]).unwrap_err().0;
    assert!(e.contains("inverted"), "{e}");
    let e = load_str(&scene("empty.obj", "dynamic"), "s.toml", "s", &dir, &[]).unwrap_err().0;
    assert!(e.contains("no triangles"), "{e}");
    // a static body may use an open mesh
    load_str(&scene("open.obj", "static"), "s.toml", "s", &dir, &[]).unwrap();
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_bundled_scene_loads() {
    let scenes = super::list_scenes();
    assert!(scenes.len() >= 11, "bundled scenes missing: {scenes:?}");
    for p in scenes {
        match super::load(&p, &[]) {
            Ok(_) => {}
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn bad_proxies_and_volumetric_parameters_give_clear_errors() {
    let hand = "[[body]]\nname = \"hand\"\nshape = { type = \"box\", size = [0.1, 0.1, 0.1] }\n";
    let head = "format = 1\n[world]\nmethod = \"volumetric-penalty\"\n";
    let cases: Vec<(String, &[&str])> = vec![
        (format!("{head}{GROUND}[[proxy]]\nbody = \"nobody\"\n"), &["proxy #0", "unknown body `nobody`"]),
        (format!("{head}{GROUND}[[proxy]]\nbody = \"ground\"\n"), &["proxy #0", "`ground` must be dynamic"]),
        (format!("{head}{hand}[[proxy]]\nbody = \"hand\"\n[[proxy]]\nbody = \"hand\"\n"), &["proxy #1", "already has a proxy"]),
        (format!("{head}{hand}[[proxy]]\nbody = \"hand\"\nstiffness = -1.0\n"), &["proxy #0", "stiffness must be >= 0"]),
        (format!("{head}{hand}[[proxy]]\nbody = \"hand\"\nstifness = 1.0\n"), &["unknown field `stifness`", "angular_stiffness"]),
        (
            format!("{head}{hand}[[proxy]]\nbody = \"hand\"\npath = [{{ time = 1.0, position = [0.0, 0.0, 0.0] }}, {{ time = 1.0, position = [1.0, 0.0, 0.0] }}]\n"),
            &["proxy #0: path[1]", "must be after the previous waypoint"],
        ),
        (
            format!("{head}{hand}[[proxy]]\nbody = \"hand\"\npath = [{{ time = 0.0, position = [0.0, 0.0, 0.0], rotation = [2.0, 0.0, 0.0, 0.0] }}]\n"),
            &["proxy #0: path[0]", "unit quaternion"],
        ),
        (
            format!("{head}{hand}[[proxy]]\nbody = \"hand\"\npath = [{{ time = 0.0, position = [0.0, nan, 0.0] }}]\n"),
            &["path[0].position", "finite"],
        ),
        (format!("{head}[solver.volumetric-penalty]\nmodel = \"spring\"\n"), &["solver.volumetric-penalty.model", "`volume` or `point`"]),
        (format!("{head}[solver.volumetric-penalty]\nstiffness = 0.0\n"), &["solver.volumetric-penalty.stiffness must be > 0"]),
        (format!("{head}[solver.volumetric-penalty]\ndamping_ratio = -0.5\n"), &["damping_ratio must be >= 0"]),
        (format!("{head}[solver.volumetric-penalty]\ntessellation = 2\n"), &["tessellation must be in 4..=256"]),
        (format!("{head}[solver.volumetric-penalty]\nstifness = 1.0\n"), &["unknown field `stifness`", "stiffness"]),
    ];
    for (text, needles) in &cases {
        let e = err(text);
        for n in needles.iter() {
            assert!(e.contains(n), "error for\n{text}\nis `{e}`, which does not mention `{n}`");
        }
    }
}

#[test]
fn library_proxy_target_rejects_bad_input() {
    let text = "format = 1\n[world]\nmethod = \"volumetric-penalty\"\n[[body]]\nname = \"hand\"\nshape = { type = \"sphere\", radius = 0.1 }\n[[proxy]]\nbody = \"hand\"\n";
    let mut w = crate::World::new(ok(text)).unwrap();
    use crate::math::{Quat, Vec3};
    let e = w.set_proxy_target(3, Vec3::ZERO, Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO).unwrap_err();
    assert!(e.0.contains("proxy #3 does not exist"), "{e}");
    let e = w.set_proxy_target(0, Vec3::new(f64::NAN, 0.0, 0.0), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO).unwrap_err();
    assert!(e.0.contains("finite"), "{e}");
    w.set_proxy_target(0, Vec3::new(1.0, 0.0, 0.0), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO).unwrap();
}

#[test]
fn files_of_other_kinds_are_named_with_the_kinds_cairn_reads() {
    let dir = std::env::temp_dir().join(format!("cairn-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["robot.sdf", "noext"] {
        let p = dir.join(name);
        std::fs::write(&p, "<robot/>").unwrap();
        let e = super::load(&p, &[]).unwrap_err().0;
        assert!(e.contains(name) && e.contains("`.toml`") && e.contains("`.scn`") && e.contains("`.urdf`"), "{e}");
    }
    // robot files are read as such (scene/robot_tests.rs has their corpus)
    for (name, expect) in [("robot.urdf", "the robot has no <link>"), ("model.xml", "root element must be <mujoco>")] {
        let p = dir.join(name);
        std::fs::write(&p, "<robot/>").unwrap();
        let e = super::load(&p, &[]).unwrap_err().0;
        assert!(e.contains(name) && e.contains(expect), "{e}");
    }
}

#[test]
fn joints_are_stored_in_each_body_frame() {
    let m = ok("format = 1\n[world]\nmethod = \"abd\"\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [1.0, 0.2, 0.2] }\nposition = [1.0, 2.0, 3.0]\nrotation_deg = [10.0, 20.0, 30.0]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [1.0, 0.2, 0.2] }\nposition = [2.0, 2.0, 3.0]\nrotation_deg = [0.0, 90.0, 0.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nbody2 = \"b\"\nanchor = [1.5, 2.0, 3.0]\naxis = [0.0, 1.0, 1.0]\n");
    let j = &m.joints[0];
    let axis = j.axis;
    assert!((axis.length() - 1.0).abs() < 1e-15);
    for (side, body) in [(0, 0), (1, 1)] {
        let (p, r) = (m.bodies[body].position, m.bodies[body].rotation);
        let f = j.frames[side];
        assert!((p + r * f.anchor - Vec3::new(1.5, 2.0, 3.0)).length() < 1e-14, "side {side}");
        assert!((r * f.axis - axis).length() < 1e-14, "side {side}");
        assert!((r * f.reference).dot(axis).abs() < 1e-14 && ((r * f.reference).length() - 1.0).abs() < 1e-14);
    }
    // a joint to the world keeps world values on the world side
    let m = ok("format = 1\n[world]\nmethod = \"abd\"\n[[body]]\nname = \"a\"\nshape = { type = \"sphere\", radius = 0.1 }\nposition = [0.0, 0.0, 1.0]\n\
[[joint]]\ntype = \"ball\"\nbody1 = \"a\"\nanchor = [0.0, 0.0, 2.0]\n");
    assert_eq!(m.joints[0].frames[1].anchor, Vec3::new(0.0, 0.0, 2.0));
    assert_eq!(m.joints[0].frames[0].anchor, Vec3::new(0.0, 0.0, 1.0));
}

#[test]
fn typed_load_options_replace_the_world_values_and_are_checked_like_them() {
    use super::LoadOptions;
    use crate::model::MethodKey;
    let text = format!("format = 1\n[world]\ndt = 0.01\nduration = 2.0\nmethod = \"lcp\"\n{GROUND}");
    let opts = LoadOptions {
        method: Some(MethodKey::Abd),
        dt: Some(0.002),
        duration: Some(0.5),
        check_intersections: Some(true),
        sets: vec![("world.dt".into(), "0.004".into())],
        ..Default::default()
    };
    let m = super::load_str_with(&text, "s.toml", "s", Path::new("."), &opts).unwrap();
    assert_eq!((m.method, m.dt, m.duration, m.check_intersections), (MethodKey::Abd, 0.002, 0.5, true));
    // without options the file's values stand
    let m = super::load_str_with(&text, "s.toml", "s", Path::new("."), &LoadOptions::default()).unwrap();
    assert_eq!((m.method, m.dt, m.duration, m.check_intersections), (MethodKey::Lcp, 0.01, 2.0, false));
    for (opts, needle) in [
        (LoadOptions { dt: Some(-1.0), ..Default::default() }, "dt must be > 0"),
        (LoadOptions { dt: Some(f64::NAN), ..Default::default() }, "dt must be a finite number"),
        (LoadOptions { duration: Some(-1.0), ..Default::default() }, "duration must be >= 0"),
    ] {
        let e = super::load_str_with(&text, "s.toml", "s", Path::new("."), &opts).unwrap_err().0;
        assert!(e.contains(needle) && e.contains("s.toml"), "{e}");
    }
    let e = super::load_str_with(
        &format!("format = 1\n[world]\ncheck_resolution = 2\n{GROUND}"),
        "s.toml",
        "s",
        Path::new("."),
        &LoadOptions::default(),
    )
    .unwrap_err()
    .0;
    assert!(e.contains("world.check_resolution must be in 4..=256"), "{e}");
}

#[test]
fn messages_show_numbers_plainly_and_name_the_line_without_set() {
    let body = |shape: &str| format!("format = 1\n[[body]]\nname = \"b\"\nshape = {shape}\n");
    let e = super::load_str(&body("{ type = \"box\", size = [0.5, -1.0, 8.0] }"), "t.toml", "t", Path::new("."), &[]).unwrap_err().0;
    assert_eq!(e, "t.toml: body `b`: shape: `size` entries must be > 0, got [0.5, -1, 8]");
    let meshes = crate::scene::scenes_dir().join("robots/meshes");
    let e = super::load_str(&body("{ type = \"mesh\", mesh = \"forearm.stl\", scale = [0.0, 1.0, 1.0] }"), "t.toml", "t", &meshes, &[])
        .unwrap_err()
        .0;
    assert_eq!(e, "t.toml: body `b`: shape: `scale` must be finite and nonzero, got [0, 1, 1]");
    // a structural mistake of the file names its line, with or without --set; one a --set brings in says so
    let text = "format = 1\n[world]\ndt = 0.01\ngravty = [0.0, 0.0, -9.81]\n";
    let plain = super::load_str(text, "t.toml", "t", Path::new("."), &[]).unwrap_err().0;
    let set = super::load_str(text, "t.toml", "t", Path::new("."), &[("world.dt".into(), "0.02".into())]).unwrap_err().0;
    for e in [&plain, &set] {
        assert!(e.contains("line 4") && e.contains("gravty") && !e.contains("--set"), "{e}");
    }
    let e = super::load_str("format = 1\n", "t.toml", "t", Path::new("."), &[("world.gravty".into(), "1".into())]).unwrap_err().0;
    assert!(e.contains("after --set overrides") && e.contains("gravty"), "{e}");
}

#[test]
fn a_name_twice_in_one_mjcf_file_does_not_suggest_a_prefix() {
    let d = std::env::temp_dir().join(format!("cairn-mjcf-dup-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let xml = "<mujoco><worldbody>\n<body name=\"a\"><freejoint/><geom type=\"sphere\" size=\"0.1\"/></body>\n<body name=\"a\" pos=\"1 0 0\"><freejoint/><geom type=\"sphere\" size=\"0.1\"/></body>\n</worldbody></mujoco>\n";
    std::fs::write(d.join("dup.xml"), xml).unwrap();
    let e = super::load_with(&d.join("dup.xml"), &Default::default()).unwrap_err().0;
    assert!(!e.contains("prefix"), "{e}");
    std::fs::remove_dir_all(&d).ok();
}
