//! The largest stable time step of a bowl stack under `implicit-penalty` and under symplectic Euler with the
//! same forces (paper §6, Fig. 11: twenty bowls, the implicit step 10× the explicit one). The forces are fixed so
//! that both integrators see the same forces at every h; a step is stable when the run ends without error, the
//! energy does not grow and no bowl goes through another; the largest is found by bisection on log h.
//! See docs/methods/implicit-penalty.md, "Validation: the largest stable step".

use super::super::{from_text, row, Overrides, Row};

const BOWLS: usize = 20;
const DURATION: f64 = 0.35;
const RADIUS: f64 = 0.1;

fn scene(h: f64, integrator: &str) -> String {
    format!(
        "format = 1\n[world]\ndt = {h}\n[solver.implicit-penalty]\nstiffness = 2.0e5\nsubsteps = 1\ntangential_damping = true\nfriction = \"explicit\"\nintegrator = \"{integrator}\"\n\
[[material]]\nname = \"ceramic\"\ndensity = 2400.0\nfriction = 0.3\nstatic_friction = 0.4\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nmaterial = \"ceramic\"\nshape = {{ type = \"box\", size = [2.0, 2.0, 0.1] }}\nposition = [0.0, 0.0, -0.05]\n\
[[body]]\nname = \"bowl\"\nmaterial = \"ceramic\"\nshape = {{ type = \"generated\", generator = \"bowl\", radius = {RADIUS}, thickness = 0.012 }}\n\
position = [0.0, 0.0, 0.005]\nrotation_deg = [4.0, 0.0, 0.0]\nrepeat = {{ count = [1, 1, {BOWLS}], step = [0.0, 0.0, 0.0625] }}\n"
    )
}

/// Whether the stack runs stably at step `h` with `integrator`.
fn stable(h: f64, integrator: &str, method: &Overrides) -> anyhow::Result<bool> {
    let mut w = from_text(&scene(h, integrator), method)?;
    let model = w.model.clone();
    let e0 = w.state.kinetic_energy(&model) + w.state.potential_energy(&model);
    let weight = model.bodies.iter().filter(|b| b.kind == cairn::model::BodyKind::Dynamic).map(|b| b.mass).sum::<f64>() * 9.81;
    let steps = (DURATION / h).ceil() as u64;
    for _ in 0..steps {
        if w.step().is_err() {
            return Ok(false);
        }
        let e = w.state.kinetic_energy(&model) + w.state.potential_energy(&model);
        let z: Vec<f64> = w.state.bodies[1..].iter().map(|b| b.x.z).collect();
        let through = z[0] < 0.0 || z.windows(2).any(|p| p[1] - p[0] < 0.02);
        if !e.is_finite() || e > e0 + 0.02 * weight * RADIUS || through {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The largest stable step by bisection on log h in [10 µs, 20 ms] (7 halvings: within 2000^(1/128) ≈ 6%).
/// The lower end is not run (25,000 steps): a bisection that never finds a stable step is an error.
fn largest_stable(integrator: &str, method: &Overrides) -> anyhow::Result<f64> {
    let (mut lo, mut hi) = (1e-5f64, 2e-2f64);
    if stable(hi, integrator, method)? {
        return Ok(hi);
    }
    let mut found = false;
    for _ in 0..7 {
        let mid = (lo * hi).sqrt();
        if stable(mid, integrator, method)? {
            (lo, found) = (mid, true);
        } else {
            hi = mid;
        }
    }
    if !found {
        anyhow::bail!("{integrator}: no stable step above {lo} s");
    }
    Ok(lo)
}

pub(super) fn stable_step(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let implicit = largest_stable("implicit", method)?;
    let explicit = largest_stable("symplectic-euler", method)?;
    let ratio = implicit / explicit;
    Ok(vec![row(
        &format!(
            "{BOWLS} bowls: largest stable step, implicit {:.3} ms vs symplectic Euler {:.3} ms (same forces)",
            implicit * 1e3,
            explicit * 1e3
        ),
        "≥ 10× (paper: 10×)",
        format!("{ratio:.1}×"),
        "10×",
        ratio >= 10.0,
    )])
}
