//! The `abd` method's additive CCD: the head-on case and randomized trajectories.

use crate::{row, Row};
use cairn::collision::ccd;
use cairn::collision::distance::{self, PairShape};
use cairn::math::rng::Rng;

fn pt_distance(x: &[[f64; 3]; 4]) -> f64 {
    distance::point_triangle(x).1.sqrt()
}

/// Additive CCD: the head-on case, and randomized trajectories that never report a step past the impact.
pub(super) fn ccd_rows() -> Vec<Row> {
    let shape = PairShape { edge_edge: false, eps_x: 0.0 };
    let x = [[0.2, 0.2, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let dx = [[0.0, 0.0, -1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]];
    let t = ccd::toi(shape, &x, &dx, 0.0, 1.0).unwrap_or(f64::NAN);
    let t2 = ccd::toi(shape, &x, &dx, 0.1, 1.0).unwrap_or(f64::NAN);
    let mut rows = vec![
        row("ACCD head-on, gap 1, closing 2 (s = 0.9)", "toi 0.45", format!("{t:.6}"), "1e-9", (t - 0.45).abs() < 1e-9),
        row("ACCD head-on with thickness ξ = 0.1", "toi 0.405", format!("{t2:.6}"), "1e-9", (t2 - 0.405).abs() < 1e-9),
    ];
    // random colliding trajectories: each pair meets at t* (the point inside the triangle, or the edges
    // crossing); the reported time must not pass the first contact, found by dense sampling
    let mut rng = Rng(5);
    let (mut bad, mut n, mut missed) = (0, 0, 0);
    for trial in 0..2000 {
        let ee = trial % 2 == 1;
        let shape = PairShape { edge_edge: ee, eps_x: 0.0 };
        let tstar = 0.05 + 0.9 * (0.5 + 0.5 * rng.symmetric());
        // configuration at impact
        let mut at: [[f64; 3]; 4] = rng.stencil();
        if ee {
            // make b0–b1 pass through a point of a0–a1
            let s = 0.5 + 0.4 * rng.symmetric();
            let m: [f64; 3] = std::array::from_fn(|r| at[0][r] + s * (at[1][r] - at[0][r]));
            let u = 0.5 + 0.4 * rng.symmetric();
            let dir: [f64; 3] = std::array::from_fn(|_| rng.symmetric());
            at[2] = std::array::from_fn(|r| m[r] - u * dir[r]);
            at[3] = std::array::from_fn(|r| m[r] + (1.0 - u) * dir[r]);
        } else {
            let (u, v) = (0.25 + 0.2 * rng.symmetric(), 0.25 + 0.2 * rng.symmetric());
            at[0] = std::array::from_fn(|r| at[1][r] + u * (at[2][r] - at[1][r]) + v * (at[3][r] - at[1][r]));
        }
        let vel: [[f64; 3]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| 2.0 * rng.symmetric()));
        let x0: [[f64; 3]; 4] = std::array::from_fn(|k| std::array::from_fn(|r| at[k][r] - tstar * vel[k][r]));
        let dist = |t: f64| {
            let xt: [[f64; 3]; 4] = std::array::from_fn(|k| std::array::from_fn(|r| x0[k][r] + t * vel[k][r]));
            if ee {
                distance::edge_edge(&xt).1.sqrt()
            } else {
                pt_distance(&xt)
            }
        };
        if dist(0.0) < 1e-3 {
            continue;
        }
        n += 1;
        match ccd::toi(shape, &x0, &vel, 0.0, 1.0) {
            None => missed += 1,
            Some(t) => {
                let samples = 2000;
                let first = (0..=samples).map(|i| tstar * i as f64 / samples as f64).find(|&s| dist(s) < 1e-9).unwrap_or(tstar);
                if t > first || t > tstar {
                    bad += 1;
                }
            }
        }
    }
    rows.push(row(
        &format!("ACCD, {n} random colliding PT/EE trajectories: toi ≤ first contact"),
        "0 past, 0 missed",
        format!("{bad} past, {missed} missed"),
        "exact",
        bad == 0 && missed == 0 && n > 1000,
    ));
    rows
}
