use super::*;
use crate::math::rng::Rng;
use crate::world::World;

/// Perturbs body `b`'s coordinate `k` (0–2 x, 3–5 rotation vector on the left, 6–8 v, 9–11 ω) by `e`.
fn perturbed(bodies: &[BodyState], b: usize, k: usize, e: f64) -> Vec<BodyState> {
    let mut out = bodies.to_vec();
    let d = Vec3::AXES[k % 3] * e;
    let s = &mut out[b];
    match k / 3 {
        0 => s.x += d,
        1 => s.q = (quat_exp(d) * s.q).normalize(),
        2 => s.v += d,
        _ => s.w += d,
    }
    out
}

/// Every block of `jac` (sides `ids`, `None` the world) against central differences of `f`'s wrench.
fn check(jac: &Jacobian, ids: [Option<usize>; 2], bodies: &[BodyState], f: impl Fn(&[BodyState]) -> Jacobian, tol: f64) {
    let e = 1e-6;
    for (side, id) in ids.iter().enumerate() {
        let Some(b) = *id else { continue };
        for k in 0..12 {
            let (p, m) = (f(&perturbed(bodies, b, k, e)), f(&perturbed(bodies, b, k, -e)));
            let col = 2 * side + (k / 3) % 2;
            for r in 0..4 {
                let fd = (p.wrench[r] - m.wrench[r]) / (2.0 * e);
                let blk = if k < 6 { jac.pos[r][col] } else { jac.vel[r][col] };
                let an = blk.col(k % 3);
                let scale = 1.0 + an.length();
                assert!((fd - an).length() < tol * scale, "side {side} coord {k} row {r}: fd {fd} vs {an}");
            }
        }
    }
}

const TWO_BOXES: &str = "format = 1\n[world]\nmethod = \"implicit-penalty\"\ndt = 0.01\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [0.4, 0.2, 0.1] }\nposition = [0.0, 0.0, 1.0]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [0.3, 0.1, 0.2] }\nposition = [0.5, 0.1, 1.0]\n";

fn random_motion(w: &mut World, seed: u64, moving: bool) {
    let mut rng = Rng::new(seed);
    for s in w.state.bodies.iter_mut() {
        let r = |rng: &mut Rng| Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
        s.x += r(&mut rng) * 0.02;
        s.q = (quat_exp(r(&mut rng) * 0.1) * s.q).normalize();
        let k = if moving { 1.0 } else { 0.0 };
        s.v = r(&mut rng) * k;
        s.w = r(&mut rng) * 2.0 * k;
    }
}

/// The motor's gradients at rest at the target (where the left-out terms of g's change vanish), for a hinge and a
/// prismatic joint between two bodies displaced and turned off their load pose, with and without a rotor
/// inertia (armature, its damper towards a fixed start rate); a saturated motor is a constant force (the rotor
/// keeps its damper).
#[test]
fn motor_gradients_match_finite_differences() {
    let h = 0.01;
    for (kind, armature) in [("hinge", 0.0), ("prismatic", 0.0), ("hinge", 0.3), ("prismatic", 0.3)] {
        let text = format!(
            "{TWO_BOXES}[[joint]]\ntype = \"{kind}\"\nbody1 = \"a\"\nbody2 = \"b\"\nanchor = [0.25, 0.05, 1.0]\naxis = [0.3, 1.0, 0.2]\n\
             motor = {{ target = 0.0, stiffness = 500.0, damping = 20.0 }}\n"
        );
        let mut w = World::from_scene_text(&text, "motor").unwrap();
        w.model.joints[0].armature = armature;
        random_motion(&mut w, 3, false);
        let (_, q, qd) = crate::dynamics::joint::coordinates(&w.model, &w.state)[0];
        let t = MotorTarget { value: q, rate: qd, external: false };
        let j = &w.model.joints[0];
        let d = joint_drive(&w.model, j, Some(&t), &w.state.bodies, h, None).unwrap();
        assert!(d.jac.wrench.iter().all(|f| f.length() < 1e-9), "{kind}: zero force at the target");
        let drive = |b: &[crate::state::BodyState]| joint_drive(&w.model, j, Some(&t), b, h, Some(qd)).unwrap().jac;
        check(&d.jac, [Some(0), Some(1)], &w.state.bodies, drive, 1e-6);
        // saturated: clamped, no gradients but the rotor's
        let mut sat = j.clone();
        sat.motor.as_mut().unwrap().max_force = Some(1.0);
        let far = MotorTarget { value: q + 0.5, ..t };
        let ds = joint_drive(&w.model, &sat, Some(&far), &w.state.bodies, h, None).unwrap();
        let row = JointPose::of(&w.model, j, &w.state.bodies).coordinate_row(j.kind).unwrap();
        assert!((ds.jac.wrench[0] - row.lin[0]).length() < 1e-12 && ds.jac.pos[0][0] == Mat3::ZERO, "{kind}");
        assert_eq!(ds.jac.vel.iter().flatten().all(|m| *m == Mat3::ZERO), armature == 0.0, "{kind}");
        // the rotor alone, without a motor
        let mut free = j.clone();
        free.motor = None;
        let df = joint_drive(&w.model, &free, None, &w.state.bodies, h, None);
        assert_eq!(df.is_some(), armature > 0.0, "{kind}");
        if let Some(df) = df {
            let drive = |b: &[crate::state::BodyState]| joint_drive(&w.model, &free, None, b, h, Some(qd)).unwrap().jac;
            check(&df.jac, [Some(0), Some(1)], &w.state.bodies, drive, 1e-6);
        }
    }
}

/// The proxy coupling's gradients, the rotational stiffness through J_r⁻¹ of a 0.7 rad error included.
#[test]
fn proxy_gradients_match_finite_differences() {
    let text =
        format!("{TWO_BOXES}[[proxy]]\nbody = \"a\"\nstiffness = 300.0\ndamping = 7.0\nangular_stiffness = 40.0\nangular_damping = 2.0\n");
    let mut w = World::from_scene_text(&text, "proxy").unwrap();
    random_motion(&mut w, 5, true);
    let p = &w.model.proxies[0];
    let target = Target {
        position: Vec3::new(0.1, -0.2, 1.1),
        rotation: quat_exp(Vec3::new(0.4, -0.5, 0.3)),
        velocity: Vec3::new(0.3, 0.0, -0.1),
        angular_velocity: Vec3::new(0.0, 1.0, 0.5),
        external: true,
    };
    let d = proxy_drive(&w.model, p, &target, &w.state.bodies[0], 0.01);
    check(&d.jac, [Some(0), None], &w.state.bodies, |b| proxy_drive(&w.model, p, &target, &b[0], 0.01).jac, 1e-6);
}

/// A proxy's target held 1 cm below where its box rests: the box settles on the ground, the coupling reads −kδ
/// and the contact force read back carries the weight and that pull (as lcp's and impulse's test).
#[test]
fn proxies_couple_and_read_back_the_contact_force() {
    let scene = "format = 1\n[world]\ndt = 0.01\nmethod = \"implicit-penalty\"\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [2.0, 2.0, 0.2] }\nposition = [0.0, 0.0, -0.1]\n\
[[body]]\nname = \"hand\"\nshape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nmass = 1.0\nposition = [0.0, 0.0, 0.3]\n\
[[proxy]]\nbody = \"hand\"\npath = [{ time = 0.0, position = [0.0, 0.0, 0.04] }]\n";
    let mut w = World::from_scene_text(scene, "proxy").unwrap();
    let first = w.step().unwrap();
    let r0 = first.proxies[0];
    assert!(r0.contact_force.iter().all(|f| f.abs() < 1e-9) && r0.coupling_force[2] < 0.0, "free fall: {r0:?}");
    let mut last = first;
    for _ in 0..200 {
        last = w.step().unwrap();
    }
    let r = last.proxies[0];
    let z = w.state.bodies[1].x.z;
    assert!((z - 0.05).abs() < 3e-3, "rests on the ground: z = {z}");
    let pull = w.model.proxies[0].stiffness * (z - 0.04);
    assert!((r.coupling_force[2] + pull).abs() < 1e-2 * pull, "coupling {:?} vs {}", r.coupling_force, -pull);
    let support = 9.81 + pull;
    assert!((r.contact_force[2] - support).abs() < 1e-2 * support, "contact {:?} vs {support}", r.contact_force);
}
