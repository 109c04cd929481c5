//! A ball on a slope (gravity tilted by θ over a flat ground): it rolls without slipping at a = 5/7·g sin θ where
//! μ ≥ 2/7·tan θ, and slides at g(sin θ − μ cos θ) where μ is less. The ball meets the ground as its centre
//! (`sphere_centres`), whose contact point is no material point of the ball: its friction must not hold it back.

use super::super::{fit_acceleration, from_text, rel, row, Overrides, Row};
use super::GROUND;

pub(super) fn rolling(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let g = 9.81;
    let mut rows = Vec::new();
    for (deg, mu) in [(20.0f64, 0.5f64), (30.0, 0.1)] {
        let th = deg.to_radians();
        let text = format!(
            "format = 1\n[world]\ndt = 0.005\ngravity = [{}, 0.0, {}]\n[[material]]\nname = \"default\"\nfriction = {mu}\n{GROUND}\
[[body]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\nposition = [-50.0, 0.0, 0.1]\n",
            g * th.sin(),
            -g * th.cos()
        );
        let mut w = from_text(&text, method)?;
        let (mut ts, mut xs) = (Vec::new(), Vec::new());
        for s in 1..=300 {
            w.step()?;
            if s >= 60 {
                ts.push(w.state.time);
                xs.push(w.state.bodies[1].x.x);
            }
        }
        let a = fit_acceleration(&ts, &xs);
        let (expect, law) = if mu >= 2.0 / 7.0 * th.tan() {
            (5.0 / 7.0 * g * th.sin(), "rolls at 5/7 g sin θ")
        } else {
            (g * (th.sin() - mu * th.cos()), "slides at g(sin θ − μ cos θ)")
        };
        rows.push(row(
            &format!("ball on a {deg}° slope, μ = {mu}: {law}, 0.3–1.5 s"),
            format!("{expect:.4} m/s²"),
            format!("{a:.4} m/s²"),
            "2%",
            rel(a, expect) <= 0.02,
        ));
    }
    Ok(rows)
}
