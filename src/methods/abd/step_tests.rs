//! Tests of the abd step's assembly (its energy is the line search's, and lagged Hessian blocks) and of the
//! contact forces it reports.

use super::*;
use crate::method::Method;

/// The assembly returns the same potential and smallest distance as `energy`, to the bit, at a point with
/// barrier, friction and joint terms in play: the line search takes an accepted first trial's energy from
/// the assembly, and its decisions must not depend on which of the two computed it.
/// Two boxes on the ground and a ball on a joint, 15 steps in: barrier, friction and joint terms in play. Returns
/// the method at its q, that q and a target q̃ off it (so that every term has a gradient).
fn setup() -> (Abd, Vec<f64>, Vec<f64>) {
    let text = "format = 1\n[world]\nmethod = \"abd\"\ndt = 0.01\n[solver.abd]\ndhat = 0.002\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 0.2] }\nposition = [0.0, 0.0, -0.1]\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [0.3, 0.3, 0.3] }\nposition = [0.0, 0.0, 0.1505]\nvelocity = [0.3, 0.0, 0.0]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [0.2, 0.2, 0.2] }\nposition = [0.02, 0.01, 0.4015]\nrotation_deg = [0.0, 0.0, 10.0]\n\
[[body]]\nname = \"c\"\nshape = { type = \"sphere\", radius = 0.1 }\nposition = [0.5, 0.0, 0.6]\n\
[[joint]]\ntype = \"ball\"\nbody1 = \"c\"\nanchor = [0.5, 0.0, 0.75]\n";
    let model = crate::scene::load_str(text, "t", "t", std::path::Path::new("."), &[]).unwrap();
    let mut state = State::from_model(&model);
    let mut abd = Abd::new(model.solver.get::<AbdParams>(), &model);
    for _ in 0..15 {
        abd.step(&model, &mut state).unwrap();
    }
    let q = abd.q.clone();
    // a target off q, so that every term has a gradient
    let qtilde: Vec<f64> = q.iter().enumerate().map(|(k, v)| v + 1e-4 * ((k % 7) as f64 - 3.0)).collect();
    abd.surfaces.positions(&q, &mut abd.xt);
    abd.lag_friction(&model);
    assert!(!abd.contacts.is_empty() && !abd.joints.pins.is_empty(), "friction and joint terms in play");
    (abd, q, qtilde)
}

#[test]
fn assembly_energy_is_the_line_search_energy_bit_for_bit() {
    let (mut abd, q, qtilde) = setup();
    let h = 0.01;
    let mut x = Vec::new();
    let (e, d) = abd.energy(&q, &qtilde, h, &mut x);
    let (ea, da) = abd.assemble(&q, &qtilde, h, true);
    assert!(d < abd.dhat * abd.dhat, "pairs within d̂");
    assert_eq!(e.to_bits(), ea.to_bits(), "{e} vs {ea}");
    assert_eq!(d.to_bits(), da.to_bits());
}

/// A body pair whose two bodies both settled (their last Newton move below the tolerance) keeps the last
/// assembly's Hessian blocks, bit for bit, while its gradient is the fresh one; a pair with a body still moving is
/// assembled afresh.
#[test]
fn settled_body_pairs_keep_their_hessian_blocks_and_take_fresh_gradients() {
    let (mut abd, q, qtilde) = setup();
    let h = 0.01;
    let nb = abd.bodies.len();
    let assemble_at = |abd: &mut Abd, q: &[f64], settled: &[bool], lagged: Vec<assemble::GroupTerms>| {
        abd.settled = settled.to_vec();
        abd.lagged = lagged;
        abd.assemble(q, &qtilde, h, true);
        abd.lagged.clone()
    };
    let at_q = assemble_at(&mut abd, &q, &vec![false; nb], Vec::new());
    // every dynamic body moved a little
    let q2: Vec<f64> = q.iter().enumerate().map(|(k, v)| v + 2e-7 * ((k % 5) as f64 - 2.0)).collect();
    let fresh = assemble_at(&mut abd, &q2, &vec![false; nb], Vec::new());
    let all = assemble_at(&mut abd, &q2, &vec![true; nb], at_q.clone());
    // body 1 ("a") still moving
    let mut some = vec![true; nb];
    some[1] = false;
    let part = assemble_at(&mut abd, &q2, &some, at_q.clone());
    assert!(at_q.len() >= 2 && fresh.len() == at_q.len() && all.len() == at_q.len() && part.len() == at_q.len());
    let mut changed = 0;
    for k in 0..at_q.len() {
        assert_eq!(fresh[k].bodies, at_q[k].bodies);
        assert_eq!(all[k].g, fresh[k].g, "fresh gradients");
        assert_eq!(part[k].g, fresh[k].g, "fresh gradients");
        assert_eq!(all[k].h, at_q[k].h, "kept blocks");
        let expect = if fresh[k].bodies.contains(&1) { &fresh[k].h } else { &at_q[k].h };
        assert_eq!(&part[k].h, expect, "pair {:?}", fresh[k].bodies);
        changed += usize::from(fresh[k].h != at_q[k].h);
    }
    assert!(changed > 0, "the move changed some Hessian blocks");
}

/// A 2 kg box of 0.5 m on the ground, moving at `velocity` along x.
fn box_on_ground(velocity: f64) -> (Model, State, Abd) {
    box_at("position = [-1.0, 0.0, 0.25]", velocity)
}

/// The box of [`box_on_ground`] placed by `pose` (scene keys).
fn box_at(pose: &str, velocity: f64) -> (Model, State, Abd) {
    let text = format!(
        "format = 1\n[world]\nmethod = \"abd\"\ndt = 0.01\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [4.0, 4.0, 1.0] }}\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"box\"\nshape = {{ type = \"box\", size = [0.5, 0.5, 0.5] }}\n{pose}\nmass = 2.0\nvelocity = [{velocity}, 0.0, 0.0]\n"
    );
    let model = crate::scene::load_str(&text, "t", "t", std::path::Path::new("."), &[]).unwrap();
    let state = State::from_model(&model);
    let abd = Abd::new(model.solver.get::<AbdParams>(), &model);
    (model, state, abd)
}

/// The force body `b` receives over a step's contact points.
fn force_on(st: &StepStats, b: usize) -> Vec3 {
    crate::method::contact_force_on(&st.contact_points, b)
}

/// A box settled on the ground receives m·g from its contact points: the barrier forces at the end of the step
/// balance gravity to Newton's tolerance. Each pair is between the ground and the box, and pushes the body of its
/// first primitive along the normal.
#[test]
fn a_resting_box_receives_its_weight_from_its_contact_points() {
    let (model, mut state, mut abd) = box_on_ground(0.0);
    let mut st = StepStats::default();
    for _ in 0..100 {
        st = abd.step(&model, &mut state).unwrap();
    }
    assert!(state.bodies[1].v.length() < 1e-3, "settled: {:?}", state.bodies[1].v);
    let mg = 2.0 * 9.81;
    let f = force_on(&st, 1);
    assert!((f.z / mg - 1.0).abs() < 0.01 && f.truncate().length() < 0.01 * mg, "Σ force {f:?}, m g = {mg}");
    for c in &st.contact_points {
        let mut b = c.bodies;
        b.sort_unstable();
        assert_eq!(b, [0, 1]);
        assert!(c.force.dot(c.normal) > 0.0, "the force pushes body 0 along the normal: {:?} vs {:?}", c.force, c.normal);
    }
}

/// A box sliding at 2 m/s: the tangential force it receives is the kinetic μ·m·g against its motion (the
/// friction law is μ_k beyond a slip of 2 ε_v h, far below this one), while the normal part stays m·g.
#[test]
fn a_sliding_box_receives_kinetic_friction_against_its_motion() {
    let (model, mut state, mut abd) = box_on_ground(2.0);
    let (mu_k, _, _) = model.pair_material(0, 1);
    let mg = 2.0 * 9.81;
    let mut checked = 0;
    for step in 0..30 {
        let v0 = state.bodies[1].v;
        let st = abd.step(&model, &mut state).unwrap();
        // backward Euler: the momentum change less gravity's is the contact forces at the end of the step
        let dp = (state.bodies[1].v - v0) * 2.0 / model.dt + Vec3::new(0.0, 0.0, mg);
        assert!((dp - force_on(&st, 1)).length() < 1e-4 * mg, "step {step}: {dp:?} vs {:?}", force_on(&st, 1));
        if step < 5 {
            continue;
        }
        assert!(state.bodies[1].v.x > 0.1, "still sliding at step {step}");
        let f = force_on(&st, 1);
        assert!((f.x / (-mu_k * mg) - 1.0).abs() < 0.03 && f.y.abs() < 0.01 * mg, "step {step}: Σ force {f:?}, μ m g = {}", mu_k * mg);
        assert!((f.z / mg - 1.0).abs() < 0.03, "step {step}: Σ force {f:?}");
        checked += 1;
    }
    assert!(checked > 0);
}

/// A tilted box dropped on the ground: through the impact, the rocking and the settling, each step's contact
/// forces are its momentum change less gravity's, to Newton's tolerance (pairs come and go on the way).
#[test]
fn a_dropped_box_receives_its_momentum_change_from_its_contact_points() {
    let (model, mut state, mut abd) = box_at("position = [0.3, -0.2, 0.45]\nrotation_deg = [12.0, 25.0, 5.0]", 0.5);
    let mg = 2.0 * 9.81;
    let mut peak = 0.0f64;
    for step in 0..80 {
        let v0 = state.bodies[1].v;
        let st = abd.step(&model, &mut state).unwrap();
        let dp = (state.bodies[1].v - v0) * 2.0 / model.dt + Vec3::new(0.0, 0.0, mg);
        let f = force_on(&st, 1);
        assert!((dp - f).length() < 1e-4 * mg, "step {step}: {dp:?} vs {f:?}");
        peak = peak.max(f.length());
    }
    assert!(peak > 2.0 * mg, "an impact: {peak}");
}

/// A free bar spinning at 20 rad/s (0.2 rad a step): Newton starts from the rigid pose nearest the prediction
/// and needs a handful of iterations a step (it needed 42–50 from q^t, along the chord of the rotation where
/// the stiff orthogonality term cut every step), and the bar's kinetic energy is that of the run from q^t.
#[test]
fn a_spinning_body_starts_newton_at_its_rigid_prediction() {
    let text = "format = 1\n[world]\nmethod = \"abd\"\ndt = 0.01\n\
[[body]]\nname = \"bar\"\nshape = { type = \"box\", size = [0.4, 0.1, 0.05] }\nposition = [0.0, 0.0, 5.0]\nangular_velocity = [0.3, 0.2, 20.0]\n";
    let model = crate::scene::load_str(text, "t", "t", std::path::Path::new("."), &[]).unwrap();
    let mut state = State::from_model(&model);
    let mut abd = Abd::new(model.solver.get::<AbdParams>(), &model);
    let mut iterations = 0;
    for _ in 0..30 {
        iterations += abd.step(&model, &mut state).unwrap().iterations;
    }
    assert!(iterations <= 30 * 6, "{iterations} Newton iterations in 30 steps");
    // the run from q^t (measured before the rigid start): 10.3417477968 J
    let ke = state.kinetic_energy(&model);
    assert!((ke - 10.3417477968).abs() < 1e-6, "kinetic energy {ke}");
}
