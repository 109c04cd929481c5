//! Validation experiments of the `abd` method (Lan et al. 2022, "Affine Body Dynamics"; docs/methods/abd.md):
//! derivatives against finite differences, additive CCD, orthogonality, the ramp, the thin
//! plate at 100 m/s, and no intersection in any bundled scene.

use super::{bundled, fit_acceleration, from_text, rel, row, Overrides, Row};
use cairn::collision::ccd;
use cairn::collision::distance::{self, Kind, PairShape};
use cairn::math::eigen;
use cairn::math::rng::Rng;
use cairn::methods::abd::friction::Contact;
use cairn::methods::abd::{affine, barrier, local};

/// Experiment names, in table order.
pub const EXPERIMENTS: [&str; 15] = [
    "abd_derivatives",
    "abd_ccd",
    "abd_orthogonality",
    "abd_resting",
    "abd_ramp",
    "abd_static_ramp",
    "abd_plate",
    "abd_pendulum",
    "abd_house",
    "abd_gears",
    "abd_scenes",
    "abd_stack",
    "abd_stands",
    "abd_near_limit",
    "abd_touching",
];

/// The bundled scenes of the method, each run for `steps` steps (at least), with the intersection check on.
pub const SCENES: [(&str, usize); 8] = [
    ("abd_ramp", 60),
    ("wrecking_ball_light", 60),
    ("house_of_cards", 40),
    ("arch", 40),
    ("chain_net", 40),
    ("bolt_nut", 30),
    ("hinge_pendulum", 60),
    ("gears", 30),
];

pub(super) fn run(name: &str, method: &Overrides) -> Vec<Row> {
    let r = match name {
        "abd_derivatives" => Ok(derivatives()),
        "abd_ccd" => Ok(ccd_rows()),
        "abd_orthogonality" => orthogonality(method),
        "abd_resting" => resting(method),
        "abd_ramp" => ramp(method),
        "abd_static_ramp" => static_ramp(method),
        "abd_plate" => crate::abd_scenes::plate(method),
        "abd_pendulum" => crate::abd_scenes::pendulum(method),
        "abd_house" => crate::abd_scenes::house(method),
        "abd_gears" => crate::abd_scenes::gears(method),
        "abd_scenes" => crate::abd_scenes::scenes(method),
        "abd_stack" => crate::abd_stand::stack(method),
        "abd_stands" => crate::abd_stands::stands(method),
        "abd_near_limit" => crate::abd_stand::near_limit(method),
        "abd_touching" => crate::abd_stand::touching(method),
        other => Err(anyhow::anyhow!("unknown experiment `{other}`")),
    };
    r.unwrap_or_else(|e| vec![super::failed(name, e)])
}

fn flat(x: &[[f64; 3]; 4]) -> [f64; 12] {
    std::array::from_fn(|i| x[i / 3][i % 3])
}
fn unflat(v: &[f64; 12]) -> [[f64; 3]; 4] {
    std::array::from_fn(|k| std::array::from_fn(|r| v[3 * k + r]))
}

/// A finite-difference row: the worst relative gradient and Hessian errors against 1e-6 (and `enough` cases).
fn fd_row(label: &str, worst: (f64, f64), enough: bool) -> Row {
    row(label, "< 1e-6", format!("∇ {:.1e}, ∇² {:.1e}", worst.0, worst.1), "1e-6", enough && worst.0 < 1e-6 && worst.1 < 1e-6)
}

/// Relative errors of an analytic gradient and Hessian against central differences (of the value for the
/// gradient, of the analytic gradient for the Hessian). `None` when the perturbation changes the case.
pub fn fd_errors<const N: usize>(
    x: &[f64; N],
    value: impl Fn(&[f64; N]) -> f64,
    grad: impl Fn(&[f64; N]) -> [f64; N],
    hess: &[[f64; N]; N],
    step: f64,
) -> (f64, f64) {
    let g = grad(x);
    let mut gfd = [0.0; N];
    let mut hfd = [[0.0; N]; N];
    for i in 0..N {
        let mut a = *x;
        let mut b = *x;
        a[i] += step;
        b[i] -= step;
        gfd[i] = (value(&a) - value(&b)) / (2.0 * step);
        let (ga, gb) = (grad(&a), grad(&b));
        for j in 0..N {
            hfd[j][i] = (ga[j] - gb[j]) / (2.0 * step);
        }
    }
    let gmax = g.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    let hmax = hess.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    let ge = (0..N).map(|i| (g[i] - gfd[i]).abs()).fold(0.0, f64::max) / gmax;
    let he = (0..N).flat_map(|i| (0..N).map(move |j| (i, j))).map(|(i, j)| (hess[i][j] - hfd[i][j]).abs()).fold(0.0, f64::max) / hmax;
    (ge, he)
}

fn kind_name(k: Kind, ee: bool) -> String {
    let p = if ee { "EE" } else { "PT" };
    match k {
        Kind::PointPoint(i, j) => format!("{p} point–point ({i},{j})"),
        Kind::PointLine(i, j, l) => format!("{p} point–edge ({i},{j},{l})"),
        Kind::PointPlane => format!("{p} point–triangle"),
        Kind::LineLine => format!("{p} edge–edge"),
    }
}

/// Gradients and Hessians of every distance case, the barrier with and without the mollifier, friction and the
/// orthogonality potential, against finite differences.
fn derivatives() -> Vec<Row> {
    let mut rows = Vec::new();
    let mut rng = Rng(11);
    let step = 1e-6;
    // distances: every case of both stencils, from random configurations (cases are sampled until all are seen)
    let mut seen: Vec<(String, f64, f64)> = Vec::new();
    for trial in 0..20000 {
        let ee = trial % 2 == 1;
        let x = rng.stencil();
        let (kind, _) = if ee { distance::edge_edge(&x) } else { distance::point_triangle(&x) };
        let name = kind_name(kind, ee);
        let same = |v: &[f64; 12]| {
            let y = unflat(v);
            (if ee { distance::edge_edge(&y) } else { distance::point_triangle(&y) }).0 == kind
        };
        let xf = flat(&x);
        if !(0..12).all(|i| {
            let mut a = xf;
            a[i] += 10.0 * step;
            let mut b = xf;
            b[i] -= 10.0 * step;
            same(&a) && same(&b)
        }) {
            continue;
        }
        let d = distance::eval_dual(kind, &x);
        let (ge, he) = fd_errors(&xf, |v| distance::eval::<f64>(kind, &unflat(v)), |v| distance::eval_dual(kind, &unflat(v)).g, &d.h, step);
        match seen.iter_mut().find(|s| s.0 == name) {
            Some(s) => {
                s.1 = s.1.max(ge);
                s.2 = s.2.max(he);
            }
            None => seen.push((name, ge, he)),
        }
    }
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    let cases = seen.len();
    let (gd, hd) = seen.iter().fold((0.0f64, 0.0f64), |(a, b), s| (a.max(s.1), b.max(s.2)));
    rows.push(row(
        &format!("distances: {cases} cases (PT 7, EE 9 distinct by slots): ∇, ∇² vs FD"),
        "16 cases, < 1e-6",
        format!("{cases} cases, ∇ {gd:.1e}, ∇² {hd:.1e}"),
        "1e-6",
        cases == 16 && gd < 1e-6 && hd < 1e-6,
    ));
    // barrier energy of near pairs, PT and EE, with the mollifier on nearly parallel edges
    let dh = 0.3f64;
    let mut worst = [(0.0f64, 0.0f64); 3];
    let mut count = [0usize; 3];
    let mut proj = (0usize, 0.0f64);
    for trial in 0..3000 {
        let which = trial % 3;
        let mut x = rng.stencil();
        let shape = match which {
            0 => PairShape { edge_edge: false, eps_x: 0.0 },
            _ => {
                if which == 2 {
                    // nearly parallel edges: b1 − b0 close to a1 − a0
                    for r in 0..3 {
                        x[3][r] = x[2][r] + (x[1][r] - x[0][r]) + 0.02 * rng.symmetric();
                    }
                }
                let ea: f64 = (0..3).map(|r| (x[1][r] - x[0][r]).powi(2)).sum();
                let eb: f64 = (0..3).map(|r| (x[3][r] - x[2][r]).powi(2)).sum();
                PairShape { edge_edge: true, eps_x: 1e-3 * ea * eb }
            }
        };
        // scale the configuration so that the pair is within d̂
        let (_, d2) = barrier::classify(shape, &x);
        if d2 >= dh * dh || d2 < 1e-4 {
            continue;
        }
        if which == 2 && distance::cross_norm2::<f64>(&x) >= shape.eps_x {
            continue;
        }
        let xf = flat(&x);
        let k0 = barrier::classify(shape, &x).0;
        let stable = (0..12).all(|i| {
            let mut a = xf;
            a[i] += 10.0 * step;
            let mut b = xf;
            b[i] -= 10.0 * step;
            barrier::classify(shape, &unflat(&a)).0 == k0 && barrier::classify(shape, &unflat(&b)).0 == k0
        });
        if !stable {
            continue;
        }
        // the closed form Newton uses (local.rs), mapped to the 12 stencil coordinates
        let Some(l) = local::barrier(shape, &x, dh * dh) else { continue };
        let (ge, he) = fd_errors(
            &xf,
            |v| barrier::energy(shape, &unflat(v), dh * dh),
            |v| local::barrier(shape, &unflat(v), dh * dh).map_or([0.0; 12], |l| l.stencil_gradient()),
            &l.stencil_hessian(),
            step * 1e-2,
        );
        worst[which] = (worst[which].0.max(ge), worst[which].1.max(he));
        count[which] += 1;
        // the projection done in the pair's own vectors against the 12×12 projection of the dual-number Hessian
        if let Some(d) = barrier::energy_dual(shape, &x, dh * dh) {
            let mut reference = d.h;
            eigen::project_psd(&mut reference);
            let got = local::barrier_projected(shape, &x, dh * dh).map_or([[0.0; 12]; 12], |p| p.stencil_hessian());
            let top = reference.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
            let err = got.iter().flatten().zip(reference.iter().flatten()).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            proj = (proj.0 + 1, proj.1.max(err / top));
        }
    }
    for (k, label) in
        ["barrier, point–triangle pairs", "barrier, edge–edge pairs", "barrier × mollifier, nearly parallel edges"].iter().enumerate()
    {
        rows.push(fd_row(&format!("{label} ({} within d̂): ∇, ∇² vs FD", count[k]), worst[k], count[k] >= 20));
    }
    rows.push(row(
        &format!("PSD projection in the pair's vectors vs 12×12 stencil projection ({} pairs)", proj.0),
        "< 1e-8",
        format!("{:.1e}", proj.1),
        "1e-8",
        proj.0 >= 60 && proj.1 < 1e-8,
    ));
    // friction: every region of Φ (slip below ε/2, up to ε, beyond), with μ_s above, below and equal to μ_k
    let mut fw = (0.0f64, 0.0f64);
    for trial in 0..200 {
        let xt = rng.stencil();
        let mut x = xt;
        let amp = [1e-3, 4e-3, 0.3][(trial / 3) % 3];
        for p in x.iter_mut() {
            for v in p.iter_mut() {
                *v += amp * rng.symmetric();
            }
        }
        let n = cairn::math::Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric() + 2.0).normalize();
        let (t1, t2) = cairn::math::tangent_basis(n);
        // static above sliding, below, and equal
        let (mu_s, mu_k) = [(0.9, 0.6), (0.4, 0.7), (0.7, 0.7)][trial % 3];
        let c = Contact { verts: [0, 1, 2, 3], c: [1.0, -0.2, -0.3, -0.5], t: [t1.to_array(), t2.to_array()], lambda: 1.3, mu_s, mu_k };
        let eps = 0.01;
        let xt_v = xt.to_vec();
        let e = |v: &[f64; 12]| c.energy(&unflat(v), &xt_v, eps);
        let g = |v: &[f64; 12]| c.derivatives(&unflat(v), &xt_v, eps).0;
        let (_, h) = c.derivatives(&x, &xt_v, eps);
        let slip = c.slip(&x, &xt_v);
        let y = (slip[0] * slip[0] + slip[1] * slip[1]).sqrt();
        if (y - eps).abs() < 1e-3 * eps || (y - 2.0 * eps).abs() < 1e-3 * eps {
            continue;
        }
        let (ge, he) = fd_errors(&flat(&x), e, g, &h, 1e-7);
        fw = (fw.0.max(ge), fw.1.max(he));
    }
    rows.push(fd_row("friction λΦ(|u|), μ_s→μ_k, slip in each region: ∇, ∇² vs FD", fw, true));
    // orthogonality potential
    let mut ow = (0.0f64, 0.0f64);
    for _ in 0..50 {
        let q: [f64; 12] =
            std::array::from_fn(|k| if k % 4 == 3 { rng.symmetric() } else { (k % 5 == 0) as u8 as f64 + 0.3 * rng.symmetric() });
        let kv = 2.5;
        let h9 = affine::ortho_hessian(&q, kv);
        let idx = |k: usize| 4 * (k / 3) + k % 3;
        let a9: [f64; 9] = std::array::from_fn(|k| q[idx(k)]);
        let full = |a: &[f64; 9]| {
            let mut qq = q;
            for k in 0..9 {
                qq[idx(k)] = a[k];
            }
            qq
        };
        let (ge, he) = fd_errors(
            &a9,
            |a| affine::ortho_energy(&full(a), kv),
            |a| {
                let mut g = [0.0; 12];
                affine::ortho_gradient(&full(a), kv, &mut g);
                std::array::from_fn(|k| g[idx(k)])
            },
            &h9,
            1e-6,
        );
        ow = (ow.0.max(ge), ow.1.max(he));
    }
    rows.push(fd_row("orthogonality κv̄‖AAᵀ − I‖²: ∇, ∇² vs FD", ow, true));
    rows
}

fn pt_distance(x: &[[f64; 3]; 4]) -> f64 {
    distance::point_triangle(x).1.sqrt()
}

/// Additive CCD: the head-on case, and randomized trajectories that never report a step past the impact.
fn ccd_rows() -> Vec<Row> {
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

fn orthogonality(method: &Overrides) -> anyhow::Result<Vec<Row>> {
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

fn resting(method: &Overrides) -> anyhow::Result<Vec<Row>> {
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

fn ramp(method: &Overrides) -> anyhow::Result<Vec<Row>> {
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

fn static_ramp(method: &Overrides) -> anyhow::Result<Vec<Row>> {
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
