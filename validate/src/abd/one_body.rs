//! The `abd` method's single-body experiments: orthogonality of a spinning box, a resting box, and a cube on
//! the ramp sliding or held by friction.

use crate::{bundled, fit_acceleration, from_text, rel, row, Overrides, Row};
use cairn::math::rng::Rng;
use cairn::methods::abd::affine;

pub(super) fn orthogonality(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut rng = Rng(3);
    let mut worst = 0.0f64;
    for _ in 0..20 {
        let axis = cairn::math::Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()).normalize();
        let q = affine::q_from_rigid(cairn::math::Vec3::ZERO, cairn::math::Quat::from_axis_angle(axis, 3.0 * rng.symmetric()));
        worst = worst.max(affine::ortho_energy(&q, 1.0));
    }
    // a free body spinning fast about a non-principal axis, κ = 100 MPa
    let text = "format = 1\n[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.01\n[solver.abd]\northogonality = 1e8\n[[body]]\nname = \"box\"\nshape = { type = \"box\", size = [0.1, 0.2, 0.3] }\nangular_velocity = [3.0, 20.0, 5.0]\n";
    let mut w = from_text(text, method)?;
    let mut emax = 0.0f64;
    for _ in 0..200 {
        w.step()?;
        emax = emax.max(affine::orthogonality_error(&w.state.affine[0]));
    }
    Ok(vec![
        row("V⊥ of 20 random rotations", "0", format!("{worst:.1e}"), "1e-24", worst < 1e-24),
        row("box spinning at 21 rad/s, 2 s, κ = 100 MPa: max ‖AAᵀ − I‖", "< 1e-3", format!("{emax:.2e}"), "1e-3", emax < 1e-3),
    ])
}

pub(super) fn resting(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // a unit box released 1 mm above the ground: it comes to rest in the barrier's range, carrying m g
    let text = "format = 1\n[world]\ndt = 0.01\n[solver.abd]\ndhat = 0.002\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"box\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.501]\n";
    let mut w = from_text(text, method)?;
    let mgh = w.model.bodies[1].mass * 9.81 * w.model.dt;
    let (mut sum, mut k, mut gap) = (0.0, 0.0, 0.0);
    for s in 0..100 {
        let st = w.step()?;
        if s >= 50 {
            sum += st.normal_impulse;
            k += 1.0;
            gap = st.min_distance.unwrap_or(f64::NAN);
        }
    }
    let n = sum / k;
    Ok(vec![
        row("resting box: Σ κ|b′|2d·h per step", format!("{mgh:.4} N·s (m g h)"), format!("{n:.4} N·s"), "1%", rel(n, mgh) <= 0.01),
        row("resting box: gap in (0, d̂)", "(0, 2 mm)", format!("{:.3} mm", gap * 1e3), "-", gap > 0.0 && gap < 0.002),
    ])
}

pub(super) fn ramp(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // cubes on a 30° ramp with μ from 0 to 1 (libuipc's sim_case 11); the pair μ is the cube's (ramp μ = 1 and
    // the cube's material μ², combined by the geometric mean)
    let mut w = bundled("abd_ramp", method, &[])?;
    let th = 30f64.to_radians();
    let down = cairn::math::Vec3::new(th.cos(), 0.0, -th.sin());
    let cubes: Vec<(usize, f64)> = w
        .model
        .bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| b.name.starts_with("cube"))
        .map(|(i, b)| (i, w.model.materials[b.material].friction.sqrt()))
        .collect();
    let x0: Vec<_> = cubes.iter().map(|&(i, _)| w.state.bodies[i].x).collect();
    let mut ts = Vec::new();
    let mut ss = vec![Vec::new(); cubes.len()];
    let steps = (1.0 / w.model.dt).round() as usize;
    let eps_v = w.model.solver.get::<cairn::methods::abd::AbdParams>().friction_velocity.unwrap_or(0.0);
    for _ in 0..steps {
        w.step()?;
        if w.state.time > 0.3 {
            ts.push(w.state.time);
            for (k, &(i, _)) in cubes.iter().enumerate() {
                ss[k].push((w.state.bodies[i].x - x0[k]).dot(down));
            }
        }
    }
    // creep is measured once the cubes have landed (from 0.3 s): the smoothed static friction allows less than
    // ε_v of sliding speed below the friction limit
    let t = ts.last().copied().unwrap_or(0.0) - ts.first().copied().unwrap_or(0.0);
    let mut rows = Vec::new();
    for (k, &(_, mu)) in cubes.iter().enumerate() {
        if mu >= th.tan() {
            let creep = ss[k].last().copied().unwrap_or(0.0) - ss[k].first().copied().unwrap_or(0.0);
            rows.push(row(
                &format!("ramp 30°, μ = {mu:.2} ≥ tan 30°: holds, 0.3–1 s"),
                format!("creep ≤ ε_v t = {:.2} mm", eps_v * t * 1e3),
                format!("{:.3} mm", creep * 1e3),
                "ε_v·t",
                creep.abs() <= eps_v * t,
            ));
        } else {
            let expect = 9.81 * (th.sin() - mu * th.cos());
            let a = fit_acceleration(&ts, &ss[k]);
            rows.push(row(
                &format!("ramp 30°, μ = {mu:.2} < tan 30°: slides at g(sin − μ cos)"),
                format!("{expect:.4} m/s²"),
                format!("{a:.4} m/s²"),
                "3%",
                rel(a, expect) <= 0.03,
            ));
        }
    }
    Ok(rows)
}

pub(super) fn static_ramp(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // μ_s = 0.7 ≥ tan 30° > μ_k = 0.4 (cube materials μ², the ramp's 1): a cube set down at rest stays put; one
    // launched down the slope at 1 m/s never slows below ε_v and slides at g(sin − μ_k cos)
    let th = 30f64.to_radians();
    let (c, s) = (th.cos(), th.sin());
    let (mu_s, mu_k) = (0.7f64, 0.4f64);
    let text = format!(
        "format = 1\n[world]\ndt = 0.01\n[solver.abd]\ndhat = 0.001\nfriction_velocity = 0.001\n\
[[material]]\nname = \"ramp\"\nfriction = 1.0\n[[material]]\nname = \"cube\"\nfriction = {fk}\nstatic_friction = {fs}\n\
[[body]]\nname = \"ramp\"\nkind = \"static\"\nmaterial = \"ramp\"\nshape = {{ type = \"box\", size = [12.0, 6.0, 0.5] }}\n\
rotation_deg = [0.0, 30.0, 0.0]\nposition = [{rx}, 0.0, {rz}]\n\
[[body]]\nname = \"resting\"\nmaterial = \"cube\"\nshape = {{ type = \"box\", size = [0.5, 0.5, 0.5] }}\n\
rotation_deg = [0.0, 30.0, 0.0]\nposition = [{cx}, -1.5, {cz}]\n\
[[body]]\nname = \"launched\"\nmaterial = \"cube\"\nshape = {{ type = \"box\", size = [0.5, 0.5, 0.5] }}\n\
rotation_deg = [0.0, 30.0, 0.0]\nposition = [{cx}, 1.5, {cz}]\nvelocity = [{vx}, 0.0, {vz}]\n",
        fk = mu_k * mu_k,
        fs = mu_s * mu_s,
        // the ramp's top face through the origin, the cubes' centres 0.25 m + 0.5 mm above it
        rx = -0.25 * s,
        rz = -0.25 * c,
        cx = 0.2505 * s,
        cz = 0.2505 * c,
        vx = c,
        vz = -s,
    );
    let mut w = from_text(&text, method)?;
    let down = cairn::math::Vec3::new(c, 0.0, -s);
    let x0 = [w.state.bodies[1].x, w.state.bodies[2].x];
    let (mut ts, mut rest, mut slide) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..100 {
        w.step()?;
        if w.state.time > 0.3 {
            ts.push(w.state.time);
            rest.push((w.state.bodies[1].x - x0[0]).dot(down));
            slide.push((w.state.bodies[2].x - x0[1]).dot(down));
        }
    }
    let eps_v = w.model.solver.get::<cairn::methods::abd::AbdParams>().friction_velocity.unwrap_or(0.0);
    let t = ts.last().copied().unwrap_or(0.0) - ts.first().copied().unwrap_or(0.0);
    let creep = rest.last().copied().unwrap_or(0.0) - rest.first().copied().unwrap_or(0.0);
    let expect = 9.81 * (s - mu_k * c);
    let a = fit_acceleration(&ts, &slide);
    Ok(vec![
        row(
            "ramp 30°, μ_s 0.7 ≥ tan 30° > μ_k 0.4: cube at rest holds, 0.3–1 s",
            format!("creep ≤ ε_v t = {:.2} mm", eps_v * t * 1e3),
            format!("{:.3} mm", creep * 1e3),
            "ε_v·t",
            creep.abs() <= eps_v * t,
        ),
        row(
            "ramp 30°, μ_s 0.7, μ_k 0.4: cube launched at 1 m/s slides at g(sin − μ_k cos)",
            format!("{expect:.4} m/s²"),
            format!("{a:.4} m/s²"),
            "3%",
            rel(a, expect) <= 0.03,
        ),
    ])
}
