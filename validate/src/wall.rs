//! A wall of cubes with no gaps (Box3D's `large_pyramid` benchmark in kind: 5,050 unit cubes, base 100, density
//! 100, friction 0.6, g = 10, steps of 1/60 s, 200 steps), a scene none of the bundled ones resembles: every
//! cube touches its neighbours and the row below from the start, so a stack solver must carry the whole weight
//! at once. Only gravity does work, so the total energy may not rise; what a method's position correction
//! adds in lifting bodies out of their overlaps is of the order of the weight times the overlaps (tenths of a
//! millimetre), which the row allows up to the weight times 1 mm.

use super::{from_text, row, Overrides, Row};

/// The experiment's name.
pub const EXPERIMENTS: [&str; 1] = ["wall_pyramid"];

/// The cubes on the ground.
const BASE: usize = 100;
/// Steps of 1/60 s, as the benchmark.
const STEPS: usize = 200;

pub fn run(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = from_text(&cairn::scene::bench_scenes::wall_scene(BASE), method)?;
    let m = w.model.clone();
    let weight: f64 =
        m.bodies.iter().filter(|b| b.kind == cairn::model::BodyKind::Dynamic).map(|b| b.mass).sum::<f64>() * m.gravity.length();
    let start_x: Vec<_> = w.state.bodies.iter().map(|b| b.x).collect();
    let energy = |w: &cairn::world::World| w.state.kinetic_energy(&w.model) + w.state.potential_energy(&w.model);
    let e0 = energy(&w);
    let (mut rise, mut moved) = (0.0f64, 0.0f64);
    for _ in 0..STEPS {
        w.step()?;
        rise = rise.max(energy(&w) - e0);
        for (b, x0) in w.state.bodies.iter().zip(&start_x) {
            moved = moved.max((b.x - *x0).length());
        }
    }
    let lift = rise / weight;
    let n = BASE * (BASE + 1) / 2;
    Ok(vec![
        row(
            &format!("wall of {n} cubes, no gaps, {STEPS} steps: largest rise of kinetic + potential energy"),
            "none (only gravity does work)",
            format!("{:.3e} J (the weight lifted {:.3} mm)", rise, lift * 1e3),
            "weight × 1 mm",
            lift < 1e-3,
        ),
        row(
            &format!("wall of {n} cubes, no gaps, {STEPS} steps: largest displacement of a cube"),
            "the wall holds (Rapier sags 0.9 m)",
            format!("{:.1} mm", moved * 1e3),
            "50 mm",
            moved < 0.05,
        ),
    ])
}
