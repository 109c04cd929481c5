//! The `abd` method's derivatives against finite differences: every distance case, the barrier with and
//! without the mollifier (and its PSD projection), friction and the orthogonality potential.

use crate::{row, Row};
use cairn::collision::distance::{self, Kind, PairShape};
use cairn::math::eigen;
use cairn::math::rng::Rng;
use cairn::methods::abd::friction::Contact;
use cairn::methods::abd::{affine, barrier, local};

pub(super) fn flat(x: &[[f64; 3]; 4]) -> [f64; 12] {
    std::array::from_fn(|i| x[i / 3][i % 3])
}
pub(super) fn unflat(v: &[f64; 12]) -> [[f64; 3]; 4] {
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
pub(super) fn derivatives() -> Vec<Row> {
    let mut rng = Rng(11);
    let step = 1e-6;
    // one random sequence through the checks, in this order
    let mut rows = vec![distance_derivatives(&mut rng, step)];
    rows.extend(barrier_derivatives(&mut rng, step));
    rows.push(friction_derivatives(&mut rng));
    rows.push(orthogonality_derivatives(&mut rng));
    rows
}

/// Every case of the point–triangle and edge–edge distances (cases sampled until all are seen).
fn distance_derivatives(rng: &mut Rng, step: f64) -> Row {
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
    row(
        &format!("distances: {cases} cases (PT 7, EE 9 distinct by slots): ∇, ∇² vs FD"),
        "16 cases, < 1e-6",
        format!("{cases} cases, ∇ {gd:.1e}, ∇² {hd:.1e}"),
        "1e-6",
        cases == 16 && gd < 1e-6 && hd < 1e-6,
    )
}

/// The barrier energy of near point–triangle and edge–edge pairs, with the mollifier on nearly parallel edges, as
/// Newton assembles it (local.rs), and its PSD projection in the pair's own vectors: three rows and the
/// projection's.
fn barrier_derivatives(rng: &mut Rng, step: f64) -> Vec<Row> {
    let mut rows = Vec::new();
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
    rows
}

/// Friction's λΦ(|u|) in every region of Φ, with μ_s above, below and equal to μ_k.
fn friction_derivatives(rng: &mut Rng) -> Row {
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
    fd_row("friction λΦ(|u|), μ_s→μ_k, slip in each region: ∇, ∇² vs FD", fw, true)
}

/// The orthogonality potential κv̄‖AAᵀ − I‖².
fn orthogonality_derivatives(rng: &mut Rng) -> Row {
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
    fd_row("orthogonality κv̄‖AAᵀ − I‖²: ∇, ∇² vs FD", ow, true)
}
