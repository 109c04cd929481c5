//! Tests of the abd step's assembly: its energy is the line search's, and lagged Hessian blocks.

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
