//! `abd` keeps the stacking scenes standing over their whole duration (issue 16: "stack10, pyramid20, stack60,
//! wall and tower stand under `abd` with drift below 2 mm beyond their initial gaps"), each over its whole
//! duration (stack10 also has a 2 s row with its own measure, ordinary_scenes.rs); the gaps are found from the bodies'
//! bounding boxes at the start.

use crate::{bundled, row, Overrides, Row};
use cairn::math::Vec3;
use cairn::model::BodyKind;
use cairn::world::World;

/// The stacking scenes, each run for its whole duration.
const SCENES: [&str; 5] = ["stack10", "pyramid20", "stack60", "wall", "tower"];

/// How far each dynamic body may sink by closing the gaps below it: the gap to the layer it rests on (the bodies
/// under its footprint whose tops are within a quarter of its height of the highest of them) plus the most that
/// layer may sink; 0 for static bodies. Boxes from the bodies' axis-aligned bounding boxes at the start.
pub(super) fn allowed_drops(w: &World) -> Vec<f64> {
    let n = w.model.bodies.len();
    let boxes: Vec<_> = (0..n)
        .map(|i| w.model.bodies[i].geometry.shape.compute_aabb(&cairn::collision::narrow::body_pose(&w.model, &w.state, i)))
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| boxes[a].mins.z.total_cmp(&boxes[b].mins.z).then(a.cmp(&b)));
    let mut drop = vec![0.0f64; n];
    for &i in &order {
        if w.model.bodies[i].kind != BodyKind::Dynamic {
            continue;
        }
        let (bi, tol) = (&boxes[i], 1e-6);
        let under = |j: usize| {
            let bj = &boxes[j];
            j != i
                && bj.maxs.z <= bi.mins.z + tol
                && bj.mins.x < bi.maxs.x - tol
                && bj.maxs.x > bi.mins.x + tol
                && bj.mins.y < bi.maxs.y - tol
                && bj.maxs.y > bi.mins.y + tol
        };
        let top = (0..n).filter(|&j| under(j)).map(|j| boxes[j].maxs.z).fold(f64::NEG_INFINITY, f64::max);
        if top.is_finite() {
            let window = 0.25 * (bi.maxs.z - bi.mins.z);
            drop[i] = (0..n)
                .filter(|&j| under(j) && boxes[j].maxs.z >= top - window)
                .map(|j| bi.mins.z - boxes[j].maxs.z + drop[j])
                .fold(0.0, f64::max);
        }
    }
    drop
}

/// The largest drift beyond the initial gaps over the scene's duration: a body's sideways move in full, its rise
/// above its start and its fall beyond the gaps below it ([`allowed_drops`]).
fn drift_beyond_gaps(name: &str, method: &Overrides) -> anyhow::Result<(f64, f64, usize)> {
    let mut w = bundled(name, method, &[])?;
    let drops = allowed_drops(&w);
    let dynamic: Vec<usize> = (0..w.model.bodies.len()).filter(|&i| w.model.bodies[i].kind == BodyKind::Dynamic).collect();
    let x0: Vec<Vec3> = w.state.bodies.iter().map(|b| b.x).collect();
    let steps = (w.model.duration / w.model.dt).round() as usize;
    let mut beyond = 0.0f64;
    for _ in 0..steps {
        w.step()?;
        for &i in &dynamic {
            let d = w.state.bodies[i].x - x0[i];
            let vertical = d.z.max(0.0) + (-d.z - drops[i]).max(0.0);
            beyond = beyond.max((d.x * d.x + d.y * d.y + vertical * vertical).sqrt());
        }
    }
    Ok((beyond, w.model.duration, dynamic.len()))
}

/// One row per stacking scene.
pub(super) fn stands(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for name in SCENES {
        let (beyond, duration, bodies) = drift_beyond_gaps(name, method)?;
        rows.push(row(
            &format!("{name} ({bodies} bodies) under the default d̂, {duration} s: largest drift beyond the initial gaps"),
            "< 2 mm",
            format!("{:.3} mm", beyond * 1e3),
            "2 mm",
            beyond < 2e-3,
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_add_up_the_gaps_of_a_column_and_skip_layers_further_down() {
        // three unit cubes 1 mm apart on a ground whose top is at 0, the lowest 2 mm up; a fourth cube off to the
        // side on the ground
        let text = "format = 1\n[world]\ndt = 0.01\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.502]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 1.503]\n\
[[body]]\nname = \"c\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.2, 0.0, 2.504]\n\
[[body]]\nname = \"d\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [3.0, 0.0, 0.5]\n";
        let w = World::from_scene_text(text, "t").unwrap();
        let d = allowed_drops(&w);
        let want = [0.0, 0.002, 0.003, 0.004, 0.0];
        for (got, want) in d.iter().zip(want) {
            assert!((got - want).abs() < 1e-9, "{d:?}");
        }
    }
}
