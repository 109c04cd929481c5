//! A benchmark oracle, not part of cairn: times a scene of boxes and spheres under cairn and under Rapier
//! (rapier3d-f64 0.36, as in the peer comparison of docs/benchmarks.md: default features, sleeping off, default
//! solver settings)
//! in one process, alternating rounds, and prints the paired ratio with each engine's drift. The issue on speed
//! asks for the ratio to Rapier measured in the same run; this is that measurement. It is not a dependency of the
//! engine and not a default workspace member, so `cargo test --release` never builds Rapier.
//!
//!     cargo run --release -p cairn-rapier-oracle -- [--method lcp] [--steps N] [--rounds R] SCENE...
//!
//! SCENE is a scene file, `pyramid3d:BASE` (a 3D pyramid of cubes, as `cairn bench --scaling`), `wall:BASE` (a
//! wall of unit cubes with no gaps, Box3D's `large_pyramid` in kind at base 100) or `balls:N` (a
//! pile of N spheres). Both engines get the same bodies, poses, densities, friction (Rapier averages the two
//! coefficients, cairn takes their geometric mean: equal here, where every scene has one material), no
//! restitution and the scene's time step. Times are the median wall time per step after 20 warm-up steps.

use cairn::geometry::ShapeDesc;
use cairn::model::{BodyKind, Model};
use rapier3d_f64::prelude::*;
use std::time::Instant;

const WARMUP: usize = 20;

struct Args {
    method: String,
    steps: usize,
    rounds: usize,
    scenes: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { method: "lcp".into(), steps: 300, rounds: 2, scenes: Vec::new() };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--method" => a.method = value("--method")?,
            "--steps" => a.steps = value("--steps")?.parse().map_err(|e| format!("--steps: {e}"))?,
            "--rounds" => a.rounds = value("--rounds")?.parse().map_err(|e| format!("--rounds: {e}"))?,
            s if s.starts_with("--") => return Err(format!("unknown option `{s}` (allowed: --method, --steps, --rounds)")),
            s => a.scenes.push(s.to_string()),
        }
    }
    if a.scenes.is_empty() {
        return Err("name at least one scene: a file, pyramid3d:BASE, wall:BASE or balls:N".into());
    }
    if a.steps <= WARMUP {
        return Err(format!("--steps must exceed the {WARMUP} warm-up steps"));
    }
    Ok(a)
}

/// The scene's model under `method`.
fn load(scene: &str, method: &str) -> Result<Model, String> {
    let mut opts = cairn::scene::LoadOptions::method(cairn::model::MethodKey::parse(method)?);
    // Rapier runs with sleeping off: so does cairn
    opts.sets.push(("world.sleep".into(), "false".into()));
    let generated = |text: String, name: &str| {
        cairn::scene::load_str_with(&text, name, name, std::path::Path::new("."), &opts).map_err(|e| e.to_string())
    };
    if let Some(base) = scene.strip_prefix("pyramid3d:") {
        let b: usize = base.parse().map_err(|e| format!("{scene}: {e}"))?;
        return generated(cairn::scene::bench_scenes::pyramid_scene(b), scene);
    }
    if let Some(base) = scene.strip_prefix("wall:") {
        let b: usize = base.parse().map_err(|e| format!("{scene}: {e}"))?;
        return generated(cairn::scene::bench_scenes::wall_scene(b), scene);
    }
    if let Some(n) = scene.strip_prefix("balls:") {
        let n: usize = n.parse().map_err(|e| format!("{scene}: {e}"))?;
        return generated(cairn::scene::bench_scenes::pile_scene(n), scene);
    }
    cairn::scene::load_with(std::path::Path::new(scene), &opts).map_err(|e| e.to_string())
}

/// The same bodies in Rapier, sleeping off.
fn rapier_world(model: &Model) -> Result<PhysicsWorld, String> {
    if !model.joints.is_empty() || !model.loads.is_empty() || !model.proxies.is_empty() {
        return Err(format!("{}: joints, loads and proxies are not translated to Rapier", model.name));
    }
    let mut w = PhysicsWorld::new();
    w.gravity = model.gravity;
    w.integration_parameters.dt = model.dt;
    for b in &model.bodies {
        let m = &model.materials[b.material];
        let collider = match &b.geometry.desc {
            ShapeDesc::Box { size } => ColliderBuilder::cuboid(0.5 * size.x, 0.5 * size.y, 0.5 * size.z),
            ShapeDesc::Sphere { radius } => ColliderBuilder::ball(*radius),
            other => return Err(format!("body `{}`: a {} is not translated (boxes and spheres only)", b.name, other.type_name())),
        };
        let collider = collider.density(m.density).friction(m.friction).restitution(m.restitution);
        let pose = Pose::from_parts(b.position, b.rotation);
        let body = match b.kind {
            BodyKind::Dynamic => RigidBodyBuilder::dynamic().can_sleep(false),
            _ => RigidBodyBuilder::fixed(),
        }
        .pose(pose)
        .linvel(b.velocity)
        .angvel(b.angular_velocity);
        let h = w.bodies.insert(body);
        w.colliders.insert_with_parent(collider, h, &mut w.bodies);
    }
    Ok(w)
}

/// What one engine gave over one round.
struct Timing {
    median_ms: f64,
    drift: f64,
}

/// Steps `steps` times; `step` returns the dynamic bodies' positions after the step (taken outside the timer).
fn time(
    steps: usize,
    start: &[Vec3],
    mut step: impl FnMut() -> Result<(), String>,
    mut positions: impl FnMut() -> Vec<Vec3>,
) -> Result<Timing, String> {
    let mut ms = Vec::with_capacity(steps);
    let mut drift = 0.0f64;
    for k in 0..steps {
        let t = Instant::now();
        step()?;
        if k >= WARMUP {
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        for (p, p0) in positions().iter().zip(start) {
            drift = drift.max((*p - *p0).length());
        }
    }
    ms.sort_by(f64::total_cmp);
    Ok(Timing { median_ms: ms[ms.len() / 2], drift })
}

fn run_cairn(model: &Model, steps: usize) -> Result<Timing, String> {
    let dynamic: Vec<usize> = (0..model.bodies.len()).filter(|&i| model.bodies[i].kind == BodyKind::Dynamic).collect();
    let mut world = cairn::World::new(model.clone()).map_err(|e| e.to_string())?;
    let origin = |w: &cairn::World| dynamic.iter().map(|&i| w.state.origin(&w.model, i)).collect::<Vec<_>>();
    let start = origin(&world);
    let cell = std::cell::RefCell::new(&mut world);
    time(steps, &start, || cell.borrow_mut().step().map(|_| ()).map_err(|e| e.to_string()), || origin(&cell.borrow()))
}

fn run_rapier(model: &Model, steps: usize) -> Result<Timing, String> {
    let w = std::cell::RefCell::new(rapier_world(model)?);
    let dynamic: Vec<RigidBodyHandle> = w.borrow().bodies.iter().filter(|(_, b)| b.is_dynamic()).map(|(h, _)| h).collect();
    let positions = || dynamic.iter().map(|&h| w.borrow().bodies[h].translation()).collect::<Vec<_>>();
    let start = positions();
    time(
        steps,
        &start,
        || {
            w.borrow_mut().step();
            Ok(())
        },
        positions,
    )
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    println!("scene | bodies | round | cairn {} ms/step | Rapier ms/step | ratio | cairn drift mm | Rapier drift mm", args.method);
    for scene in &args.scenes {
        let result = (|| -> Result<(), String> {
            let model = load(scene, &args.method)?;
            let n = model.bodies.iter().filter(|b| b.kind == BodyKind::Dynamic).count();
            for round in 1..=args.rounds {
                let c = run_cairn(&model, args.steps)?;
                let r = run_rapier(&model, args.steps)?;
                println!(
                    "{scene} | {n} | {round} | {:.3} | {:.3} | {:.2} | {:.3} | {:.3}",
                    c.median_ms,
                    r.median_ms,
                    c.median_ms / r.median_ms,
                    c.drift * 1e3,
                    r.drift * 1e3
                );
            }
            Ok(())
        })();
        if let Err(e) = result {
            eprintln!("{scene}: {e}");
        }
    }
}
