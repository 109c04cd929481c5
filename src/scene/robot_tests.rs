//! Robots from files: the bundled models of scenes/robots/ load as written, the pendulum swings with the period
//! of its inertials, and every file of the bad corpus (scenes/robots/bad/) fails with its expected message.

use crate::geometry::ShapeDesc;
use crate::math::Vec3;
use crate::model::{BodyKind, JointType, Model};
use crate::scene;
use std::path::{Path, PathBuf};

fn robots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/robots")
}

/// Loads a robot file or scene.
fn load(path: &Path) -> Model {
    scene::load(path, &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn body<'a>(m: &'a Model, name: &str) -> &'a crate::model::Body {
    &m.bodies[m.body_index(name).unwrap_or_else(|| panic!("no body `{name}`"))]
}

#[test]
fn the_urdf_arm_loads_with_merged_tool_compound_link_mesh_and_notes() {
    let m = load(&robots().join("arm2.urdf"));
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["ground", "base", "upper_arm", "forearm"]);
    assert_eq!(body(&m, "base").kind, BodyKind::Static);
    // the upper arm: a box and a sphere in one body
    match &body(&m, "upper_arm").geometry.desc {
        ShapeDesc::Compound { parts } => assert_eq!(parts.len(), 2),
        d => panic!("upper arm is a {}", d.type_name()),
    }
    // the forearm: its closed STL mesh, with the tool welded on (mass 0.8 + 0.2, centre of mass between)
    let fore = body(&m, "forearm");
    assert!(matches!(&fore.geometry.desc, ShapeDesc::Compound { parts } if matches!(parts[0].1, ShapeDesc::Mesh { .. })));
    assert!((fore.mass - 1.0).abs() < 1e-12);
    assert!((fore.com - Vec3::new(0.0, 0.0, (0.8 * 0.2 + 0.2 * 0.44) / 1.0)).length() < 1e-12, "{:?}", fore.com);
    // inertia about the combined centre: parallel-axis sums of both
    let ixx = 0.0109 + 0.8 * (0.2 - fore.com.z).powi(2) + 0.0001 + 0.2 * (0.44 - fore.com.z).powi(2);
    assert!((fore.inertia.x_axis.x - ixx).abs() < 1e-12);
    assert!((fore.position - Vec3::new(0.0, 0.0, 0.6)).length() < 1e-12);
    // joints: shoulder (upper arm to base) and elbow (forearm to upper arm), limits, damping as a motor
    assert_eq!(m.joints.len(), 2);
    let (s, e) = (&m.joints[0], &m.joints[1]);
    assert_eq!((s.kind, s.body1, s.body2), (JointType::Hinge, 1, Some(2)));
    assert_eq!((e.body1, e.body2), (2, Some(3)));
    assert_eq!(s.limits, Some([-1.5, 1.5]));
    assert!((s.anchor - Vec3::new(0.0, 0.0, 0.15)).length() < 1e-12 && (s.axis - Vec3::Y).length() < 1e-12);
    let motor = s.motor.as_ref().unwrap();
    assert_eq!((motor.stiffness, motor.damping), (0.0, 0.1));
    assert!((e.anchor - Vec3::new(0.0, 0.0, 0.6)).length() < 1e-12);
    // parent–child pairs never collide
    assert_eq!(m.exclusions, vec![(1, 2), (2, 3)]);
    let notes = m.notes.join("\n");
    for what in ["joint `shoulder`: friction 0.05 not applied", "<visual>", "<transmission>", "<material>", "joint0 = `shoulder`"] {
        assert!(notes.contains(what), "missing note `{what}` in\n{notes}");
    }
}

#[test]
fn the_mjcf_quadruped_loads_defaults_actuators_and_exclusions() {
    let m = load(&robots().join("quadruped.xml"));
    assert_eq!(m.dt, 0.005);
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["world", "torso", "fl", "fr", "hl", "hr"]);
    assert_eq!(body(&m, "world").kind, BodyKind::Static);
    // torso: box 0.4 × 0.2 × 0.1 and an ellipsoid, density 500 from the default class
    let torso = body(&m, "torso");
    let ell = 4.0 / 3.0 * std::f64::consts::PI * 0.08 * 0.06 * 0.04 * 500.0;
    assert!((torso.mass - (0.4 * 0.2 * 0.1 * 500.0 + ell)).abs() < 1e-12, "{}", torso.mass);
    assert!((torso.position - Vec3::new(0.0, 0.0, 0.45)).length() < 1e-12);
    // a leg: the capsule from fromto and the welded foot sphere (class foot)
    let leg = body(&m, "fl");
    let cap = std::f64::consts::PI * 0.03 * 0.03 * 0.3 + 4.0 / 3.0 * std::f64::consts::PI * 0.03f64.powi(3);
    let foot = 4.0 / 3.0 * std::f64::consts::PI * 0.04f64.powi(3);
    assert!((leg.mass - 500.0 * (cap + foot)).abs() < 1e-12);
    assert_eq!(m.joints.len(), 4);
    for j in &m.joints {
        assert_eq!(j.kind, JointType::Hinge);
        let l = 60f64.to_radians();
        assert_eq!(j.limits, Some([-l, l]));
        assert_eq!(j.body1, 1);
    }
    let gains: Vec<(f64, f64)> = m.joints.iter().map(|j| j.motor.as_ref().map(|m| (m.stiffness, m.damping)).unwrap()).collect();
    // position servos kp (default 20, hl 30), kv 1 plus the joint damping 0.5; hr: the torque motor makes none
    assert_eq!(gains, [(20.0, 1.5), (20.0, 1.5), (30.0, 1.5), (0.0, 0.5)]);
    // friction materials from the classes: 0.8 (torso, legs) and 1.2 (feet: the leg body keeps its first geom's)
    assert_eq!(m.materials[torso.material].friction, 0.8);
    assert_eq!(m.exclusions, vec![(1, 2), (1, 3), (1, 4), (1, 5)]);
    let notes = m.notes.join("\n");
    // armature is applied by every method now: no note
    assert!(!notes.contains("armature"), "{notes}");
    assert!(m.joints.iter().all(|j| j.armature == 0.01), "armature reaches the joints");
    for what in ["<light>", "geometric mean", "different friction"] {
        assert!(notes.contains(what), "missing note `{what}` in\n{notes}");
    }
    // the three position servos are their joints' motors; the torque motor is an input of gear 10 within ±1
    let kinds: Vec<(bool, f64)> = m.actuators.iter().map(|a| (a.servo.is_some(), a.gear[0])).collect();
    assert_eq!(kinds, [(true, 1.0), (true, 1.0), (true, 1.0), (false, 10.0)]);
    assert_eq!(m.actuators[3].ctrl_range, Some([-1.0, 1.0]));
    assert_eq!(m.sites.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["imu"]);
    assert_eq!(m.sensors.len(), 1);
    assert!(matches!(m.sensors[0].kind, crate::dynamics::sensor::SensorKind::JointPos(0)));
}

#[test]
fn a_urdf_pendulum_swings_with_the_period_of_its_inertials_under_abd() {
    let text = format!(
        "format = 1\n[world]\ndt = 0.002\nduration = 3.0\nmethod = \"abd\"\n[[robot]]\nfile = \"{}\"\n",
        robots().join("pendulum.urdf").display()
    );
    let model = scene::load_str(&text, "pendulum.toml", "pendulum", Path::new("."), &[]).unwrap();
    let i = model.body_index("rod").unwrap();
    // link frame inertia about y: the file's ixx (its inertial frame is turned 90° about z)
    assert!((model.bodies[i].inertia.y_axis.y - 0.01).abs() < 1e-15);
    let mut world = crate::world::World::new(model).unwrap();
    let (mut t, mut last, mut crossings) = (0.0, world.state.bodies[i].x.x, Vec::new());
    while t < 3.0 {
        world.step().unwrap();
        t += 0.002;
        let x = world.state.bodies[i].x.x;
        if last > 0.0 && x <= 0.0 {
            crossings.push(t - 0.002 * x / (x - last));
        }
        last = x;
    }
    let (m, d, g, theta0) = (1.0f64, 0.5f64, 9.81f64, 0.1f64);
    let period0 = 2.0 * std::f64::consts::PI * ((0.01 + m * d * d) / (m * g * d)).sqrt();
    let expected = period0 * (1.0 + theta0 * theta0 / 16.0);
    assert!(crossings.len() >= 2, "{crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    eprintln!("pendulum period {period:.5} s, expected {expected:.5} s ({} crossings)", crossings.len());
    assert!((period - expected).abs() < 0.01 * expected, "period {period} s, expected {expected} s");
}

#[test]
fn the_arm_scene_places_two_robots_with_prefixes() {
    let m = load(&robots().join("arm2_scene.toml"));
    assert!(m.body_index("a_forearm").is_some() && m.body_index("b_forearm").is_some());
    assert_eq!(m.bodies[m.body_index("a_base").unwrap()].kind, BodyKind::Static);
    assert_eq!(m.bodies[m.body_index("b_base").unwrap()].kind, BodyKind::Dynamic);
    let b = &m.bodies[m.body_index("b_upper_arm").unwrap()];
    assert!((b.position - Vec3::new(1.0, 0.0, 0.151)).length() < 1e-12);
    assert_eq!(m.joints.len(), 4);
    // b's shoulder axis is turned 90° about z with the robot
    assert!((m.joints[2].axis - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-12);
}

#[test]
fn every_file_of_the_bad_corpus_fails_with_its_message() {
    let dir = robots().join("bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    files.sort();
    assert!(files.len() >= 15);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let expect = text.lines().next().and_then(|l| l.strip_prefix("<!-- expect: ")).and_then(|l| l.strip_suffix(" -->")).unwrap();
        let err = scene::load(&f, &[]).expect_err(&format!("{} loaded", f.display())).to_string();
        assert!(err.contains(expect), "{}:\n  got: {err}\n  expected: {expect}", f.display());
        // an error inside an included file names that file (the expected message says which)
        if !expect.contains(".xml line") {
            assert!(err.contains(&f.display().to_string()), "{err}");
        }
    }
}

#[test]
fn urdf_joint_coordinates_are_the_files_child_angle_about_the_axis() {
    // turn the forearm by +0.3 rad about the elbow's +y axis (URDF: a positive joint value): the shared joint
    // kinematics read q = 0.3 for the elbow and 0 for the shoulder
    let m = load(&robots().join("arm2.urdf"));
    let mut state = crate::state::State::from_model(&m);
    let q0 = crate::dynamics::joint::coordinates(&m, &state);
    assert!(q0.iter().all(|&(_, q, qd)| q.abs() < 1e-12 && qd == 0.0), "{q0:?}");
    let elbow = &m.joints[1];
    let r = crate::math::Quat::from_axis_angle(elbow.axis, 0.3);
    let fore = m.body_index("forearm").unwrap();
    let b = &mut state.bodies[fore];
    b.x = elbow.anchor + r * (b.x - elbow.anchor);
    b.q = r * b.q;
    let q = crate::dynamics::joint::coordinates(&m, &state);
    assert!((q[1].1 - 0.3).abs() < 1e-12 && q[0].1.abs() < 1e-12, "{q:?}");
}

#[test]
fn excluded_pairs_and_bodies_without_collision_geometry_pass_through_under_every_method() {
    let path = robots().join("ghosts.xml");
    for method in ["lcp", "impulse", "volumetric-penalty", "abd"] {
        let sets = [("world.method".to_string(), method.to_string())];
        let model = scene::load(&path, &sets).unwrap_or_else(|e| panic!("{method}: {e}"));
        let names: Vec<&str> = model.bodies.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["world", "ghost", "passer", "rester"]);
        // the ghost with every body, the passer with the floor
        assert_eq!(model.exclusions, vec![(0, 1), (0, 2), (1, 2), (1, 3)], "{method}");
        let mut world = crate::world::World::new(model).unwrap();
        let z0: Vec<f64> = world.state.bodies.iter().map(|b| b.x.z).collect();
        for _ in 0..20 {
            world.step().unwrap_or_else(|e| panic!("{method}: {e}"));
        }
        let drop = |i: usize| z0[i] - world.state.bodies[i].x.z;
        // free fall over 0.2 s: ½ g t² = 0.196 m (first-order integrators fall up to 5% further at this step)
        for i in [1, 2] {
            assert!(drop(i) > 0.18 && drop(i) < 0.22, "{method}: body {i} fell {} m", drop(i));
        }
        assert!(drop(3).abs() < 0.01, "{method}: the resting box moved {} m", drop(3));
    }
}

/// The gimbal pendulum (one MJCF body with two hinges) tilted by `rotation_deg` at placement: the period of the
/// swing and the largest excursion of the coordinate of joint `still` (which no torque drives), under lcp.
fn gimbal_swing(rotation_deg: [f64; 3], still: usize) -> (f64, f64) {
    let text = format!(
        "format = 1\n[world]\ndt = 0.001\nduration = 3.0\nmethod = \"lcp\"\n[[robot]]\nfile = \"{}\"\nrotation_deg = [{}, {}, {}]\n",
        robots().join("gimbal.xml").display(),
        rotation_deg[0],
        rotation_deg[1],
        rotation_deg[2]
    );
    let model = scene::load_str(&text, "gimbal.toml", "gimbal", Path::new("."), &[]).unwrap();
    let bob = model.body_index("bob").unwrap();
    let mut world = crate::world::World::new(model).unwrap();
    // the pivot where the placement turned it (the robot turns about its own origin)
    let pivot = world.model.joints[0].anchor;
    let swing = |w: &crate::world::World| {
        let d = w.state.bodies[bob].x - pivot;
        d.x + d.y
    };
    let (mut t, mut last, mut crossings, mut excursion) = (0.0, swing(&world), Vec::new(), 0.0f64);
    while t < 3.0 {
        world.step().unwrap();
        t += 0.001;
        let s = swing(&world);
        if last * s < 0.0 && s < 0.0 {
            crossings.push(t - 0.001 * s / (s - last));
        }
        last = s;
        excursion = excursion.max(crate::dynamics::joint::coordinates(&world.model, &world.state)[still].1.abs());
    }
    assert!(crossings.len() >= 2, "{crossings:?}");
    ((crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64, excursion)
}

#[test]
fn a_body_with_two_mjcf_hinges_is_a_gimbal_through_an_intermediate_link_that_keeps_the_mass_and_the_period() {
    let m = load(&robots().join("gimbal.xml"));
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["bob/tilt_x", "bob"]);
    let mass = 4.0 / 3.0 * std::f64::consts::PI * 0.05f64.powi(3) * 1000.0;
    let (link, bob) = (body(&m, "bob/tilt_x"), body(&m, "bob"));
    assert!((link.mass - 0.01 * mass).abs() < 1e-15 && (bob.mass - 0.99 * mass).abs() < 1e-15);
    assert!((link.com - bob.com).length() < 1e-15, "the shares keep the body's centre of mass");
    // tilt_x joins the intermediate link to the world, tilt_y the link (parent) to the bob (child)
    assert_eq!((m.joints[0].body1, m.joints[0].body2), (0, None));
    assert_eq!((m.joints[1].body1, m.joints[1].body2), (0, Some(1)));
    assert!(m.exclusions.contains(&(0, 1)));
    let notes = m.notes.join("\n");
    for what in ["intermediate links carrying 1% of its mass"] {
        assert!(notes.contains(what), "missing note `{what}` in\n{notes}");
    }
    // small swings about x (both bodies turn on tilt_x) and about y (the bob alone on tilt_y): the shares scale the
    // torque and the inertia alike, so each period is the whole body's
    let (l, r, g, theta0) = (0.5f64, 0.05f64, 9.81f64, 0.1f64);
    let period = 2.0 * std::f64::consts::PI * ((0.4 * r * r + l * l) / (g * l)).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    for (rot, still) in [([theta0.to_degrees(), 0.0, 0.0], 1), ([0.0, theta0.to_degrees(), 0.0], 0)] {
        let (t, excursion) = gimbal_swing(rot, still);
        eprintln!("gimbal tilted {rot:?}: period {t:.5} s, expected {period:.5} s; joint {still} within {excursion:.2e} rad");
        assert!((t - period).abs() < 0.005 * period, "period {t} s, expected {period} s");
        assert!(excursion < 1e-6, "joint {still} moved {excursion} rad");
    }
}

#[test]
fn mjcf_includes_put_the_included_files_children_in_place() {
    let split = load(&robots().join("included.xml"));
    let whole = load(&robots().join("gimbal.xml"));
    assert_eq!(split.dt, 0.001, "the included <option>");
    let names: Vec<&str> = split.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["bob/tilt_x", "bob"]);
    for (a, b) in split.bodies.iter().zip(&whole.bodies) {
        assert_eq!((a.mass, a.com, a.position), (b.mass, b.com, b.position));
    }
    // the default class of the included defaults reaches the joints of the included body fragment
    for j in &split.joints {
        assert_eq!(j.motor.as_ref().map(|m| (m.stiffness, m.damping)), Some((0.0, 0.5)));
    }
    assert_eq!(split.joints.iter().map(|j| j.axis).collect::<Vec<_>>(), whole.joints.iter().map(|j| j.axis).collect::<Vec<_>>());
}

#[test]
fn mjcf_settotalmass_scales_every_mass_and_inertia() {
    let dir = std::env::temp_dir().join(format!("cairn-settotalmass-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("two.xml");
    let sphere = |name: &str, z: f64, r: f64| {
        format!("<body name=\"{name}\" pos=\"0 0 {z}\"><freejoint/><geom type=\"sphere\" size=\"{r}\" density=\"1000\"/></body>")
    };
    let text =
        format!("<mujoco><compiler settotalmass=\"3\"/><worldbody>{}{}</worldbody></mujoco>", sphere("a", 1.0, 0.1), sphere("b", 2.0, 0.2));
    std::fs::write(&file, text).unwrap();
    let m = load(&file);
    let (a, b) = (body(&m, "a"), body(&m, "b"));
    assert!((a.mass + b.mass - 3.0).abs() < 1e-12);
    assert!((b.mass / a.mass - 8.0).abs() < 1e-12, "the ratio of the spheres' volumes");
    assert!((a.inertia.x_axis.x - 0.4 * a.mass * 0.01).abs() < 1e-12, "inertia scaled with the mass");
    std::fs::remove_dir_all(&dir).ok();
}

/// A geom's own `quat` beside an `euler` from its class: MuJoCo takes the element's own (a box turned 90° about z
/// by its quat, not 90° about x by the class); two orientations on one element stay an error.
#[test]
fn an_elements_own_orientation_wins_over_its_class() {
    let dir = std::env::temp_dir().join(format!("cairn-mjcf-orientation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = |geom: &str| {
        format!(
            r#"<mujoco><default><geom euler="90 0 0"/></default><worldbody>
              <body name="b"><freejoint/><geom type="box" size="0.3 0.1 0.05" mass="1" {geom}/>
              <geom type="sphere" pos="0 0 1" size="0.01" mass="0.001" euler="0 0 0"/></body></worldbody></mujoco>"#
        )
    };
    let path = dir.join("own.xml");
    std::fs::write(&path, text(r#"quat="0.70710678 0 0 0.70710678""#)).unwrap();
    let m = load(&path);
    // the box's long side (x in its frame) now lies along y: the inertia about y is the smallest
    let i = body(&m, "b").inertia;
    assert!(i.y_axis.y < i.x_axis.x && i.y_axis.y < i.z_axis.z, "{i:?}");
    std::fs::write(&path, text(r#"quat="1 0 0 0" zaxis="0 0 1""#)).unwrap();
    let e = crate::scene::load(&path, &[]).unwrap_err().to_string();
    assert!(e.contains("give at most one orientation"), "{e}");
}

/// An `<inertial mass="0">` (MuJoCo's massless body) loads on a body welded to the world, which cannot move, and
/// is refused on a body that moves.
#[test]
fn a_massless_inertial_is_allowed_where_the_body_cannot_move() {
    let dir = std::env::temp_dir().join(format!("cairn-mjcf-massless-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = |joint: &str| {
        format!(
            r#"<mujoco><worldbody><body name="base" pos="0 0 0.5">{joint}<inertial pos="0 0 0" mass="0" diaginertia="0 0 0"/>
              <body name="arm" pos="0 0 0.2"><joint type="hinge" axis="0 1 0"/>
              <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/></body></body></worldbody></mujoco>"#
        )
    };
    let path = dir.join("massless.xml");
    std::fs::write(&path, text("")).unwrap();
    let m = load(&path);
    assert_eq!(body(&m, "base").kind, crate::model::BodyKind::Static);
    std::fs::write(&path, text(r#"<joint type="slide" axis="1 0 0"/>"#)).unwrap();
    let e = crate::scene::load(&path, &[]).unwrap_err().to_string();
    assert!(e.contains("moves but has no mass"), "{e}");
}

/// An MJCF file loaded by itself combines frictions as MuJoCo does (the larger); a TOML scene keeps the geometric
/// mean unless it asks for `max`.
#[test]
fn an_mjcf_file_combines_frictions_by_the_larger() {
    let dir = std::env::temp_dir().join(format!("cairn-mjcf-friction-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.xml");
    std::fs::write(
        &path,
        r#"<mujoco><worldbody><geom type="plane" size="1 1 .1" friction="0.2"/>
           <body pos="0 0 0.1"><freejoint/><geom type="box" size=".1 .1 .1" friction="0.8" mass="1"/></body></worldbody></mujoco>"#,
    )
    .unwrap();
    let m = load(&path);
    assert_eq!(m.friction_combine, crate::model::FrictionCombine::Max);
    assert_eq!(m.pair_material(0, 1).0, 0.8);
    let scene = dir.join("s.toml");
    for (rule, mu) in [("", 0.4), ("friction_combine = \"max\"\n", 0.8)] {
        std::fs::write(&scene, format!("format = 1\n[world]\n{rule}[[robot]]\nfile = \"f.xml\"\n")).unwrap();
        let m = crate::scene::load(&scene, &[]).unwrap();
        assert!((m.pair_material(0, 1).0 - mu).abs() < 1e-12, "{rule:?}: {}", m.pair_material(0, 1).0);
    }
}
