//! `cairn bench --scaling`: how a method's cost grows with the scene's size. Two families of scenes generated
//! here: 3D pyramids of 0.5 m cubes (bases 4 to 20: Σk² = 30 to 2,870 cubes, pitch 0.501 m, 1 mm gaps, as
//! pyramid20 in 3D) and piles of spheres of radius 0.5 dropped into a walled box (100 to 4,000, in columns at
//! pitch 1.1 m about ten high, jittered as balls1000, which is the 1,000 pile). Each is timed by
//! `bench::bench_scene` (median ms per step after the warm-up), and the exponent p of ms ∝ bodiesᵖ is fitted by
//! least squares on log–log per family.

use crate::bench::{bench_scene, BenchResult};

/// Bases of the 3D pyramids.
pub const PYRAMID_BASES: [usize; 9] = [4, 6, 8, 10, 12, 14, 16, 18, 20];
/// Sizes of the ball piles.
pub const PILE_SIZES: [usize; 6] = [100, 250, 500, 1000, 2000, 4000];
/// Default largest scene (dynamic bodies) and steps per scene, so that the default run stays short.
pub const DEFAULT_MAX_BODIES: usize = 1100;
pub const DEFAULT_STEPS: u64 = 60;

pub use cairn::scene::bench_scenes::{pile_scene, pyramid_bodies, pyramid_scene};

/// Least-squares slope of ln y against ln x (the exponent p of y ∝ xᵖ); `None` below two points.
pub fn fitted_exponent(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let m = points.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = points.iter().map(|&(x, y)| (x.ln(), y.ln())).unzip();
    let (mx, my) = (lx.iter().sum::<f64>() / m, ly.iter().sum::<f64>() / m);
    let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx) * (x - mx)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// One generated scene's figures.
pub struct ScalingRow {
    pub family: &'static str,
    /// Dynamic bodies.
    pub bodies: usize,
    pub result: BenchResult,
}

/// Times every generated scene of at most `max_bodies` dynamic bodies for `steps` steps under `method`,
/// calling `report` after each, and returns the rows and the fitted exponent per family.
pub fn run(
    method: cairn::model::MethodKey,
    steps: u64,
    max_bodies: usize,
    sets: &[(String, String)],
    report: &mut dyn FnMut(&ScalingRow),
) -> anyhow::Result<(Vec<ScalingRow>, Vec<(&'static str, Option<f64>)>)> {
    let mut scenes: Vec<(&'static str, usize, String)> = Vec::new();
    for b in PYRAMID_BASES.into_iter().filter(|&b| pyramid_bodies(b) <= max_bodies) {
        scenes.push(("pyramid3d", pyramid_bodies(b), pyramid_scene(b)));
    }
    for n in PILE_SIZES.into_iter().filter(|&n| n <= max_bodies) {
        scenes.push(("balls", n, pile_scene(n)));
    }
    let dir = std::env::temp_dir().join(format!("cairn-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut rows = Vec::new();
    for (family, bodies, text) in scenes {
        let path = dir.join(format!("{family}{bodies}.toml"));
        std::fs::write(&path, text)?;
        // the solver's cost against size: every body awake (a pyramid settles within the run)
        let mut sets = sets.to_vec();
        sets.insert(0, ("world.sleep".into(), "false".into()));
        let result = bench_scene(&path, Some(method), Some(steps), &sets, &cairn::scene::Limits::default());
        std::fs::remove_file(&path)?;
        let row = ScalingRow { family, bodies, result: result? };
        report(&row);
        rows.push(row);
    }
    std::fs::remove_dir(&dir)?;
    let fits = ["pyramid3d", "balls"]
        .into_iter()
        .map(|f| {
            let pts: Vec<(f64, f64)> = rows.iter().filter(|r| r.family == f).map(|r| (r.bodies as f64, r.result.ms_per_step)).collect();
            (f, fitted_exponent(&pts))
        })
        .collect();
    Ok((rows, fits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_scenes_load_with_the_stated_body_counts() {
        for (text, dynamic, total) in [(pyramid_scene(4), 30, 31), (pile_scene(100), 100, 105), (pile_scene(250), 250, 255)] {
            let m = cairn::scene::load_str(&text, "t", "t", std::path::Path::new("."), &[]).unwrap();
            assert_eq!(m.bodies.len(), total);
            let n = m.bodies.iter().filter(|b| b.kind == cairn::model::BodyKind::Dynamic).count();
            assert_eq!(n, dynamic);
        }
        assert_eq!(pyramid_bodies(20), 2870);
        // the 1,000 pile is balls1000's layout
        let m = cairn::scene::load_str(&pile_scene(1000), "t", "t", std::path::Path::new("."), &[]).unwrap();
        let b1 = &m.bodies[m.body_index("ball1").unwrap()];
        assert!((b1.position.x - -3.801822090729).abs() < 1e-9 && (b1.position.y - -4.956442224715).abs() < 1e-9);
    }

    #[test]
    fn the_fitted_exponent_recovers_a_power_law() {
        let pts: Vec<(f64, f64)> = [30.0, 300.0, 3000.0].iter().map(|&x: &f64| (x, 0.02 * x.powf(1.3))).collect();
        assert!((fitted_exponent(&pts).unwrap() - 1.3).abs() < 1e-12);
        assert_eq!(fitted_exponent(&pts[..1]), None);
    }
}
