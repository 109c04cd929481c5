//! The state is the whole state: snapshot → N steps equals restore → N steps bit for bit, for every method of
//! `MethodKey::ALL`, with warm starts, friction anchors and affine coordinates in play, in memory and through
//! JSON; a pose or velocity set between steps is honoured by every method.

use cairn::math::{Quat, Vec3};
use cairn::model::MethodKey;
use cairn::World;

fn world(scene: &str, method: &str) -> World {
    let path = cairn::scene::find_scene(scene).unwrap();
    let model = cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(MethodKey::parse(method).unwrap())).unwrap();
    World::new(model).unwrap()
}

/// The scenes (and steps before and after the snapshot) where what method `k` carries between steps is in play.
fn carry_scenes(k: MethodKey) -> &'static [(&'static str, usize, usize)] {
    match k {
        // contact warm starts; joint warm starts
        MethodKey::Lcp => &[("stack10", 40, 20), ("hinge_pendulum", 40, 20)],
        // persistent manifolds
        MethodKey::Impulse => &[("dominoes", 40, 20)],
        // friction anchors
        MethodKey::VolumetricPenalty => &[("blocks4", 60, 30)],
        MethodKey::ImplicitPenalty => &[("blocks4", 20, 10)],
        // affine coordinates, barrier stiffness, the factorisation's pattern
        MethodKey::Abd => &[("abd_ramp", 15, 10)],
    }
}

/// Every body's pose and velocities, as bits.
fn bits(w: &World) -> Vec<u64> {
    let mut out = Vec::new();
    for i in 0..w.model.bodies.len() {
        out.extend(w.state.pose_3x4(&w.model, i).iter().map(|x| x.to_bits()));
        let s = &w.state.bodies[i];
        out.extend(s.v.to_array().iter().chain(&s.w.to_array()).map(|x| x.to_bits()));
    }
    out
}

fn run(w: &mut World, n: usize) -> Vec<Vec<u64>> {
    (0..n)
        .map(|_| {
            w.step().unwrap();
            bits(w)
        })
        .collect()
}

fn snapshot_restores_bit_for_bit(scene: &str, method: &str, before: usize, after: usize) {
    let mut a = world(scene, method);
    run(&mut a, before);
    let snap = a.snapshot();
    let straight = run(&mut a, after);
    // a fresh world of the same scene, restored: its method workspace starts empty
    let mut b = world(scene, method);
    b.restore(&snap).unwrap();
    assert_eq!(run(&mut b, after), straight, "{scene} under {method}: restored run differs");
    // the same world, restored after running on
    a.restore(&snap).unwrap();
    assert_eq!(run(&mut a, after), straight, "{scene} under {method}: restore in place differs");
}

#[test]
fn every_method_restores_bit_for_bit() {
    for k in MethodKey::ALL {
        for &(scene, before, after) in carry_scenes(k) {
            snapshot_restores_bit_for_bit(scene, k.as_str(), before, after);
        }
    }
}

#[test]
fn a_snapshot_of_another_method_is_refused() {
    let a = world("stack10", "lcp");
    let mut b = world("stack10", "impulse");
    let e = b.restore(&a.snapshot()).unwrap_err().0;
    assert!(e.contains("lcp") && e.contains("impulse"), "{e}");
}

#[test]
fn a_pose_and_velocity_set_between_steps_are_honoured_by_every_method() {
    for k in MethodKey::ALL {
        let (scene, method) = (carry_scenes(k)[0].0, k.as_str());
        let mut w = world(scene, method);
        run(&mut w, 3);
        let i = w.model.bodies.iter().position(|b| b.kind == cairn::model::BodyKind::Dynamic).unwrap();
        // lift it well clear of everything, turned, moving sideways
        let p = w.state.origin(&w.model, i) + Vec3::new(0.0, 0.0, 50.0);
        let q = Quat::from_rotation_z(0.3);
        w.set_body_pose(i, p, q).unwrap();
        w.set_body_velocity(i, Vec3::new(1.0, 0.0, 0.0), Vec3::ZERO).unwrap();
        let dt = w.model.dt;
        w.step().unwrap();
        let s = w.state.bodies[i];
        let expected = p + q * w.model.bodies[i].com + Vec3::new(dt, 0.0, 0.0) + w.model.gravity * (dt * dt);
        assert!((s.x - expected).length() < 1e-3, "{scene} under {method}: at {:?}, expected {expected:?}", s.x);
        assert!(s.q.dot(q).abs() > 1.0 - 1e-6, "{scene} under {method}: rotation not honoured");
        assert!((s.v.x - 1.0).abs() < 1e-6, "{scene} under {method}: velocity not honoured ({:?})", s.v);
        // bad input names the body or the range
        assert!(w.set_body_pose(9999, p, q).unwrap_err().0.contains("does not exist"));
        assert!(w.set_body_velocity(i, Vec3::new(f64::NAN, 0.0, 0.0), Vec3::ZERO).unwrap_err().0.contains(&w.model.bodies[i].name));
    }
}

#[test]
fn a_snapshot_survives_serialisation_under_every_method() {
    for k in MethodKey::ALL {
        let (scene, before, after) = carry_scenes(k)[0];
        let mut a = world(scene, k.as_str());
        run(&mut a, before);
        let text = serde_json::to_string(&a.snapshot()).unwrap();
        let snap: cairn::world::Snapshot = serde_json::from_str(&text).unwrap();
        assert_eq!(snap.state.bodies.len(), a.state.bodies.len());
        let mut b = world(scene, k.as_str());
        b.restore(&snap).unwrap();
        let (x, y) = (run(&mut a, after), run(&mut b, after));
        assert_eq!(x, y, "{scene} under {k}: a snapshot read back from JSON must restore the run");
    }
}

/// A body of two geoms (a compound shape: parry's workspace keys its sub-shape pairs by index pairs) resting on
/// a floor: its snapshot goes through JSON and restores the run, under the methods that keep manifolds.
#[test]
fn a_snapshot_of_compound_contacts_survives_serialisation() {
    let xml = r#"<mujoco><option timestep="0.005"/><worldbody>
      <geom type="plane" size="2 2 0.1"/>
      <geom type="box" pos="0.6 0 0.1" size="0.1 0.1 0.1"/>
      <body name="dumbbell" pos="0 0 0.3"><freejoint/>
        <geom type="box" pos="0.2 0 0" size="0.08 0.08 0.08" mass="1"/>
        <geom type="box" pos="-0.2 0 0" size="0.08 0.08 0.08" mass="1"/>
        <geom type="capsule" fromto="-0.2 0 0 0.2 0 0" size="0.02" mass="0.1"/>
      </body></worldbody></mujoco>"#;
    let dir = std::env::temp_dir().join(format!("cairn-snapshot-compound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dumbbell.xml");
    std::fs::write(&path, xml).unwrap();
    for k in [MethodKey::Lcp, MethodKey::Impulse] {
        let load = || World::new(cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(k)).unwrap()).unwrap();
        let mut a = load();
        run(&mut a, 80);
        assert!(!a.contacts().is_empty(), "{k}: the dumbbell must rest on the floor");
        let text = serde_json::to_string(&a.snapshot()).unwrap();
        let snap: cairn::world::Snapshot = serde_json::from_str(&text).unwrap();
        let mut b = load();
        b.restore(&snap).unwrap();
        assert_eq!(run(&mut a, 30), run(&mut b, 30), "{k}: a compound pair's snapshot read back from JSON must restore the run");
    }
}

/// Two balls of restitution 0.1 under implicit-penalty, one resting on the floor and one dropped on it:
/// snapshots taken at every step around the impact (landing depths in the carry) go through JSON and restore
/// the run.
#[test]
fn an_implicit_penalty_snapshot_carries_its_landing_depths() {
    let text = "format = 1\n[world]\ndt = 0.01\nmethod = \"implicit-penalty\"\n\
[[material]]\nname = \"m\"\nrestitution = 0.1\n\
[[body]]\nname = \"floor\"\nkind = \"static\"\nmaterial = \"m\"\nshape = { type = \"box\", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"low\"\nmaterial = \"m\"\nshape = { type = \"sphere\", radius = 0.1 }\nposition = [0.0, 0.0, 0.1]\n\
[[body]]\nname = \"high\"\nmaterial = \"m\"\nshape = { type = \"sphere\", radius = 0.1 }\nposition = [0.01, 0.0, 0.6]\n";
    let load = || World::new(cairn::scene::load_str(text, "t", "t", std::path::Path::new("."), &[]).unwrap()).unwrap();
    let mut bounced = false;
    for before in 20..32 {
        let mut a = load();
        run(&mut a, before);
        let snap: cairn::world::Snapshot = serde_json::from_str(&serde_json::to_string(&a.snapshot()).unwrap()).unwrap();
        let straight = run(&mut a, 12);
        // whether the dropped ball met the resting one and bounced (its v_z: after 12 pose values and v_x, v_y)
        let high = a.model.body_index("high").unwrap();
        bounced |= straight.iter().any(|b| f64::from_bits(b[18 * high + 14]) > 0.1);
        let mut b = load();
        b.restore(&snap).unwrap();
        assert_eq!(run(&mut b, 12), straight, "a run restored after step {before} differs");
    }
    assert!(bounced, "no bounce");
}
