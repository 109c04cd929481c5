//! Validation experiments of the `volumetric-penalty` method's source (Hasegawa, Fujii, Koike, Sato 2003,
//! "Real-time Rigid Body Simulation Based on Volumetric Penalty Method", §5; docs/methods/volumetric-penalty.md).

use super::{bundled, fit_acceleration, from_text, rel, row, Overrides, Row};
use cairn::collision::intersect::{intersect, Intersection, PolyView, Workspace};
use cairn::geometry::polytope::{Plane, Polytope};
use cairn::math::{Mat3, Pose, Quat, Vec3};
use cairn::methods::volumetric::penalty::{integrate, triangle_integrals, Patch};
use cairn::world::World;

/// Experiment names, in table order.
pub const EXPERIMENTS: [&str; 10] = [
    "vp_intersection",
    "vp_integrals",
    "vp_resting",
    "vp_cubedrop",
    "vp_incline",
    "vp_blocks4",
    "vp_proxy",
    "vp_slope_100hz",
    "vp_heavy_on_light",
    "vp_scene_depths",
];

pub(super) fn run(name: &str, method: &Overrides) -> Vec<Row> {
    let r = match name {
        "vp_intersection" => Ok(intersection()),
        "vp_integrals" => Ok(integrals()),
        "vp_resting" => resting(method),
        "vp_cubedrop" => cubedrop(method),
        "vp_incline" => incline(method),
        "vp_blocks4" => blocks4(method),
        "vp_proxy" => proxy(method),
        "vp_slope_100hz" => super::volumetric_frames::slope(method),
        "vp_heavy_on_light" => super::volumetric_frames::heavy_on_light(method),
        "vp_scene_depths" => super::volumetric_frames::scene_depths(method),
        other => Err(anyhow::anyhow!("unknown experiment `{other}`")),
    };
    r.unwrap_or_else(|e| vec![super::failed(name, e)])
}

/// A box's polytope placed in the world.
fn placed(half: Vec3, pose: &Pose) -> (Vec<Plane>, Vec<Vec3>, Vec<[u32; 2]>) {
    let s = parry3d_f64::shape::SharedShape::cuboid(half.x, half.y, half.z);
    let p = Polytope::from_piece(&Pose::IDENTITY, s.as_ref(), 8).expect("a box is a polytope");
    let (mut planes, mut vertices) = (Vec::new(), Vec::new());
    p.place(pose, &mut planes, &mut vertices);
    (planes, vertices, p.edges.clone())
}

fn intersect_boxes(a: &(Vec<Plane>, Vec<Vec3>, Vec<[u32; 2]>), b: &(Vec<Plane>, Vec<Vec3>, Vec<[u32; 2]>)) -> Option<Intersection> {
    let (mut ws, mut out) = (Workspace::default(), Intersection::default());
    let ok = intersect(
        &mut ws,
        PolyView { planes: &a.0, vertices: &a.1, edges: &a.2 },
        PolyView { planes: &b.0, vertices: &b.1, edges: &b.2 },
        &mut out,
    );
    ok.then_some(out)
}

fn intersection() -> Vec<Row> {
    let a = placed(Vec3::splat(0.5), &Pose::IDENTITY);
    let b = placed(Vec3::splat(0.5), &Pose::from_translation(Vec3::new(0.5, 0.0, 0.0)));
    let Some(i) = intersect_boxes(&a, &b) else {
        return vec![row("two unit cubes offset by (0.5, 0, 0): intersection", "a polyhedron", "none", "-", false)];
    };
    let v = i.volume();
    let p = integrate(&i, 1.0, |_, _| 0.0, |_| Vec3::ZERO, |_| Vec3::ZERO, Vec3::Z);
    let nerr = (p.normal - Vec3::X).length();
    let nv = i.distinct_vertices(1e-9).len();
    vec![
        row("two unit cubes offset by half: intersection volume", "0.5", format!("{v:.12}"), "1e-9", (v - 0.5).abs() <= 1e-9),
        row(
            "two unit cubes offset by half: normal (eq. 1)",
            "(1, 0, 0)",
            format!("({:.6}, {:.6}, {:.6})", p.normal.x, p.normal.y, p.normal.z),
            "1e-9",
            nerr <= 1e-9,
        ),
        row("two unit cubes offset by half: vertices", "8", format!("{nv}"), "exact", nv == 8),
    ]
}

/// The triangle formulas against a composite quadrature (m × m sub-triangles, each with the 3-point rule that
/// is exact for quadratics, so the comparison is exact up to rounding).
fn integrals() -> Vec<Row> {
    let mut worst = 0.0f64;
    let mut seed = 0x9e3779b97f4a7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..50 {
        let n = Vec3::new(next(), next(), next()).normalize();
        let (u, w) = cairn::math::tangent_basis(n);
        let p = [0, 1, 2].map(|_| u * next() + w * next());
        let f = [next(), next(), next()].map(|x| 1.0 + x);
        let (fe, me) = triangle_integrals(p, f);
        let (fq, mq) = quadrature(p, f, 8);
        worst = worst.max((fe - fq).length() / fq.length().max(1e-300)).max((me - mq).length() / mq.length().max(1e-300));
    }
    vec![row(
        "triangle integrals (eqs. 3, 5) vs quadrature, 50 triangles",
        "equal",
        format!("max rel err {worst:.1e}"),
        "1e-10",
        worst <= 1e-10,
    )]
}

fn quadrature(p: [Vec3; 3], f: [f64; 3], m: usize) -> (Vec3, Vec3) {
    let (a, b) = (p[1] - p[0], p[2] - p[0]);
    let ab = a.cross(b);
    let (mut fi, mut mi) = (Vec3::ZERO, Vec3::ZERO);
    let at = |s: f64, t: f64| (p[0] + a * s + b * t, f[0] + (f[1] - f[0]) * s + (f[2] - f[0]) * t);
    let mf = m as f64;
    for i in 0..m {
        for j in 0..m - i {
            let (i, j) = (i as f64, j as f64);
            let mut tris = vec![[(i, j), (i + 1.0, j), (i, j + 1.0)]];
            if i + j + 2.0 <= mf {
                tris.push([(i + 1.0, j), (i + 1.0, j + 1.0), (i, j + 1.0)]);
            }
            for t in tris {
                // 3-point rule at (4,1,1)/6 barycentrics, weight 1/3 each, of a sub-triangle of area 1/m² (in s, t)
                for (l0, l1, l2) in [(4.0, 1.0, 1.0), (1.0, 4.0, 1.0), (1.0, 1.0, 4.0)] {
                    let s = (l0 * t[0].0 + l1 * t[1].0 + l2 * t[2].0) / 6.0 / mf;
                    let tt = (l0 * t[0].1 + l1 * t[1].1 + l2 * t[2].1) / 6.0 / mf;
                    let (r, v) = at(s, tt);
                    let wgt = 0.5 / (mf * mf) / 3.0;
                    fi += ab * (v * wgt);
                    mi += r.cross(ab * (v * wgt));
                }
            }
        }
    }
    (fi, mi)
}

/// The patch between the floor (body 0) and a box body `i` at the current state.
fn floor_patch(w: &World, i: usize, k: f64) -> Option<Patch> {
    let pose = |b: usize| cairn::collision::narrow::body_pose(&w.model, &w.state, b);
    let half = |b: usize| match w.model.bodies[b].geometry.desc {
        cairn::geometry::ShapeDesc::Box { size } => Some(size / 2.0),
        _ => None,
    };
    let floor = placed(half(0)?, &pose(0));
    let cube = placed(half(i)?, &pose(i));
    let isect = intersect_boxes(&floor, &cube)?;
    Some(integrate(&isect, k, |_, _| 0.0, |_| Vec3::ZERO, |_| Vec3::ZERO, Vec3::Z))
}

fn resting(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // the source's cube (2 m, 1 kg) set flat on the floor, dt = 10 ms
    let mut w = bundled("hasegawa_cubedrop", method, &[("body.1.position", "[0.3, -0.2, 1.0]"), ("body.1.axis_angle.angle_deg", "0.0")])?;
    for _ in 0..300 {
        w.step()?;
    }
    // the spring follows the substep h = dt/substeps (10 at the scene's 10 ms frames)
    let (m, h) = (w.model.bodies[1].mass, w.model.dt / super::volumetric_frames::substeps(&w.model) as f64);
    let k = std::f64::consts::PI.powi(2) * m / (64.0 * h * h);
    let p = floor_patch(&w, 1, k).ok_or_else(|| anyhow::anyhow!("the resting cube does not touch the floor"))?;
    let x = w.state.bodies[1].x;
    let off = ((p.point - x) - Vec3::Z * (p.point - x).z).length();
    let moment = (p.point - x).cross(p.normal * p.spring).length();
    let depth = 1.0 - x.z;
    let mg = m * 9.81;
    Ok(vec![
        row("resting cube: centre of pressure under the COM", "0 m", format!("{off:.1e} m"), "1e-9 m", off <= 1e-9),
        row("resting cube: net moment about the COM", "0 N·m", format!("{moment:.1e} N·m"), "1e-9·m g", moment <= 1e-9 * mg),
        row(
            &format!("resting cube: depth (k = π²m/(8h)², h = {:.1} ms)", h * 1e3),
            format!("{:.4} mm (m g / k)", mg / k * 1e3),
            format!("{:.4} mm", depth * 1e3),
            "0.5%",
            rel(depth, mg / k) <= 5e-3,
        ),
        row("resting cube: normal force", format!("{mg:.4} N"), format!("{:.4} N", p.spring), "0.5%", rel(p.spring, mg) <= 5e-3),
    ])
}

/// Angular momentum about the cube's centre of mass along the tilt axis (x), per step, for both variants.
pub fn cubedrop_curves(sets: &[(String, String)]) -> anyhow::Result<[Vec<(f64, f64)>; 2]> {
    let mut out = [Vec::new(), Vec::new()];
    for (k, model) in ["\"volume\"", "\"point\""].iter().enumerate() {
        let mut all = sets.to_vec();
        all.push(("solver.volumetric-penalty.model".into(), model.to_string()));
        let o = Overrides(cairn::scene::LoadOptions {
            method: Some(cairn::model::MethodKey::VolumetricPenalty),
            sets: all,
            ..Default::default()
        });
        let mut w = bundled("hasegawa_cubedrop", &o, &[])?;
        let i = w.model.body_index("cube").ok_or_else(|| anyhow::anyhow!("no body `cube`"))?;
        for s in 1..=300 {
            w.step()?;
            let b = &w.state.bodies[i];
            let r = Mat3::from_quat(b.q);
            let l = r * (w.model.bodies[i].inertia * (r.transpose() * b.w));
            out[k].push((s as f64, l.x));
        }
    }
    Ok(out)
}

/// First step from which |L| stays below `frac` of its peak (None: not within the run).
fn settle_step(curve: &[(f64, f64)], frac: f64) -> Option<usize> {
    let peak = curve.iter().fold(0.0f64, |m, p| m.max(p.1.abs()));
    let last = curve.iter().rposition(|p| p.1.abs() >= frac * peak)?;
    (last + 1 < curve.len()).then_some(last + 2)
}

fn cubedrop(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let sets = method.0.sets.clone();
    let [vol, point] = cubedrop_curves(&sets)?;
    let sv = settle_step(&vol, 1e-3);
    let sp = settle_step(&point, 1e-3);
    let late = point[200..].iter().fold(0.0f64, |m, p| m.max(p.1.abs()));
    let peak = point.iter().fold(0.0f64, |m, p| m.max(p.1.abs()));
    Ok(vec![
        row(
            "cube drop (Fig. 9), volumetric: |L_x| < 1e-3 of peak from step",
            "≤ 70",
            sv.map_or("never".into(), |s| s.to_string()),
            "70",
            sv.is_some_and(|s| s <= 70),
        ),
        row(
            "cube drop (Fig. 9), single point: settles within 300 steps",
            "no",
            match sp {
                Some(s) => format!("yes, at step {s}; late |L| {:.1e} of peak", late / peak),
                None => format!("no; steps 200–300 reach {:.1e} of peak", late / peak),
            },
            "-",
            sp.is_none() && late > 1e-3 * peak,
        ),
    ])
}

/// The tilting-plane experiment: the normal load m g cos θ is there from the start (the cube placed at its
/// resting depth), and the tangential load m g sin θ is ramped up over the first second in 50 equal steps, as
/// when a plane is tilted slowly. The cube must hold iff tan θ ≤ μs, and slide at g(sin θ − μk cos θ) after
/// the ramp otherwise. (A sudden tangential load on a compliant contact overshoots: that would test the
/// transient, not the friction law.)
fn incline(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let (mu_s, mu_k) = (0.5, 0.3);
    let (g, h, ramp, steps) = (9.81, 0.005, 1.0, 50);
    let mut rows = Vec::new();
    for deg in [15.0f64, 25.0, 28.0, 35.0] {
        let th = deg.to_radians();
        let hs = h / cairn::methods::volumetric::VolumetricParams::default().substeps_for(h) as f64; // the substep
        let depth = g * th.cos() * 64.0 * hs * hs / std::f64::consts::PI.powi(2);
        let mut text = format!(
            "format = 1\n[world]\ndt = {h}\ngravity = [0.0, 0.0, {}]\n[[material]]\nname = \"default\"\nfriction = {mu_k}\nstatic_friction = {mu_s}\n\
[[body]]\nname = \"floor\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [200.0, 4.0, 1.0] }}\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"cube\"\nmass = 1.0\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [-50.0, 0.0, {}]\n",
            -g * th.cos(),
            0.5 - depth
        );
        for k in 0..steps {
            text += &format!(
                "[[load]]\nbody = \"cube\"\nforce = [{}, 0.0, 0.0]\nstart = {}\n",
                g * th.sin() / steps as f64,
                ramp * k as f64 / steps as f64
            );
        }
        let mut w = from_text(&text, method)?;
        let (mut ts, mut ss) = (Vec::new(), Vec::new());
        let mut x_held = 0.0;
        for s in 1..=500 {
            w.step()?;
            let x = w.state.bodies[1].x.x + 50.0;
            if s == 300 {
                x_held = x;
            }
            if s >= 240 {
                ts.push(w.state.time);
                ss.push(x);
            }
        }
        let creep = w.state.bodies[1].x.x + 50.0 - x_held;
        if th.tan() <= mu_s {
            rows.push(row(
                &format!("tilting plane {deg}° (tan {:.3} ≤ μs {mu_s}): holds, 1.5–2.5 s", th.tan()),
                "< 0.01 mm",
                format!("{:.2e} mm", creep * 1e3),
                "0.01 mm",
                creep.abs() < 1e-5,
            ));
        } else {
            let expect = g * (th.sin() - mu_k * th.cos());
            let a = fit_acceleration(&ts, &ss);
            rows.push(row(
                &format!("tilting plane {deg}° (tan {:.3} > μs {mu_s}): slides at g(sin − μk cos)", th.tan()),
                format!("{expect:.4} m/s²"),
                format!("{a:.4} m/s²"),
                "2%",
                rel(a, expect) <= 0.02,
            ));
        }
    }
    Ok(rows)
}

fn blocks4(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    let mut w = bundled("blocks4", method, &[])?;
    let n = (10.0 / w.model.dt).round() as usize;
    let start: Vec<Vec3> = w.state.bodies.iter().map(|b| b.x).collect();
    let (mut drift, mut tilt) = (0.0f64, 0.0f64);
    for _ in 0..n {
        w.step()?;
        for (b, x0) in w.state.bodies.iter().zip(&start).skip(1) {
            let d = b.x - *x0;
            drift = drift.max((d.x * d.x + d.y * d.y).sqrt());
            tilt = tilt.max(b.q.angle_between(Quat::IDENTITY));
        }
    }
    Ok(vec![row(
        &format!("four piled blocks stand 10 s at {:.0} Hz: sideways drift, tilt", 1.0 / w.model.dt),
        "< 1 mm, < 1e-3 rad",
        format!("{:.4} mm, {tilt:.1e} rad", drift * 1e3),
        "1 mm, 1e-3",
        drift < 1e-3 && tilt < 1e-3,
    )])
}

fn proxy(method: &Overrides) -> anyhow::Result<Vec<Row>> {
    // from the scene: the proxy pushes the bricks; the contact force it reads opposes its push
    let mut w = bundled("bricks6_proxy", method, &[])?;
    let hand = w.model.body_index("hand").ok_or_else(|| anyhow::anyhow!("no body `hand`"))?;
    let (mut push, mut worst_pen) = (0.0f64, 0.0f64);
    let n = (w.model.duration / w.model.dt).round() as usize;
    for _ in 0..n {
        let st = w.step()?;
        worst_pen = worst_pen.max(st.max_penetration);
        if let Some(r) = st.proxies.first() {
            push = push.min(r.contact_force[0]);
        }
    }
    let end = w.state.bodies[hand].x;
    let target = Vec3::new(-0.3, 0.0, 0.3);
    // from the library: hold the proxy still in the air; the coupling then carries its weight exactly
    let mut w2 = bundled("bricks6_proxy", method, &[])?;
    let m = w2.model.bodies[hand].mass;
    for _ in 0..2000 {
        w2.set_proxy_target(0, Vec3::new(0.5, 0.5, 0.5), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO)?;
        w2.step()?;
    }
    let st = w2.step()?;
    let fz = st.proxies.first().map_or(f64::NAN, |r| r.coupling_force[2]);
    Ok(vec![
        row(
            "proxy (scene path) pushes the bricks: contact force read back",
            "< 0 along x",
            format!("min Fx {push:.3} N; penetration {:.3} mm", worst_pen * 1e3),
            "< 0",
            push < 0.0,
        ),
        row(
            "proxy (scene path) ends at its last waypoint",
            "(-0.3, 0, 0.3)",
            format!("off by {:.2} mm", (end - target).length() * 1e3),
            "1 mm",
            (end - target).length() < 1e-3,
        ),
        row(
            "proxy (library target) held still: coupling carries m g",
            format!("{:.4} N", m * 9.81),
            format!("{fz:.4} N"),
            "1e-6",
            rel(fz, m * 9.81) <= 1e-6,
        ),
    ])
}
