//! Tests of the abd method beside the validation rows (tests/validation.rs runs those).

use super::{Abd, AbdParams, Hessian};
use crate::method::Method;
use crate::state::State;
use crate::world::World;

fn scene(text: &str) -> World {
    World::from_scene_text(text, "abd test").expect("scene loads")
}

#[test]
fn same_scene_gives_bit_identical_results() {
    let text = "format = 1\n[world]\nmethod = \"abd\"\n[solver.abd]\ndhat = 0.002\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [0.5, 0.5, 0.5] }\nposition = [0.0, 0.0, 0.26]\n\
[[body]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 0.2 }\nposition = [0.05, 0.0, 0.8]\nangular_velocity = [1.0, 2.0, 0.0]\n";
    let run = || {
        let mut w = scene(text);
        for _ in 0..40 {
            w.step().unwrap();
        }
        w.state.affine.clone()
    };
    assert_eq!(run(), run());
}

#[test]
fn touching_bodies_are_separated_and_crossing_ones_are_an_error_naming_them() {
    let text = |z: f64| {
        format!(
            "format = 1\n[world]\nmethod = \"abd\"\n\
[[body]]\nname = \"floor\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [4.0, 4.0, 1.0] }}\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"crate\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [0.0, 0.0, {z}]\n"
        )
    };
    // resting at zero distance: pushed up by 0.1 d̂ (d̂ = 1 mm for a unit cube), noted once
    let mut w = scene(&text(0.5));
    w.step().unwrap();
    let notes = w.notes();
    assert!(notes.len() == 1 && notes[0].contains("floor") && notes[0].contains("crate"), "{notes:?}");
    // sunk 1 cm into the floor: an error naming both
    let mut w = scene(&text(0.49));
    let e = w.step().unwrap_err().to_string();
    // (the pushes to clear it add up past d̂, or the surfaces still cross after them)
    assert!(e.contains("floor") && e.contains("crate") && e.contains("start"), "{e}");
}

#[test]
fn bad_abd_parameters_are_rejected_with_the_key() {
    let e = World::from_scene_text("format = 1\n[world]\nmethod = \"abd\"\n[solver.abd]\ndhat = -1.0\n", "t").err().unwrap().to_string();
    assert!(e.contains("solver.abd.dhat"), "{e}");
    let e = World::from_scene_text("format = 1\n[world]\nmethod = \"abd\"\n[solver.abd]\nkapa = 1.0\n", "t").err().unwrap().to_string();
    assert!(e.contains("kapa"), "{e}");
}

/// A kinematic paddle at 2 m/s pushes a box along the ground: the box is carried at the paddle's speed, the
/// paddle keeps to its prescription, and nothing intersects. (With the prescribed motion applied outside the
/// Newton solve, the paddle stalled at first contact.)
#[test]
fn a_kinematic_body_pushes_a_dynamic_one() {
    let text = "format = 1\n[world]\nmethod = \"abd\"\ndt = 0.01\n[solver.abd]\ncheck_intersections = true\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 0.1] }\nposition = [0.0, 0.0, -0.05]\n\
[[body]]\nname = \"paddle\"\nkind = \"kinematic\"\nshape = { type = \"box\", size = [0.05, 0.6, 0.3] }\nposition = [-0.3, 0.0, 0.2]\nvelocity = [2.0, 0.0, 0.0]\n\
[[body]]\nname = \"box\"\nshape = { type = \"box\", size = [0.2, 0.2, 0.2] }\nposition = [0.0, 0.0, 0.1005]\n";
    let mut w = scene(text);
    for _ in 0..40 {
        let st = w.step().unwrap();
        assert_eq!(st.intersections, Some(0), "step {}", w.state.step);
    }
    let abd_x = |w: &World, b: usize| {
        let q = &w.state.affine[b];
        q[3]
    };
    // the paddle's prescription is x = −0.3 + 2t = 0.5 at 0.4 s; its coordinates lag by no more than a millimetre
    assert!((abd_x(&w, 1) - 0.5).abs() < 1e-3, "paddle at {}", abd_x(&w, 1));
    // the box rides ahead of the paddle's face (0.025 + 0.1 m from the paddle's centre, plus the gap)
    let gap = abd_x(&w, 2) - abd_x(&w, 1) - 0.125;
    assert!(gap > 0.0 && gap < 2e-3, "gap {gap}");
    assert!((w.state.bodies[2].v.x - 2.0).abs() < 0.05, "box at {} m/s", w.state.bodies[2].v.x);
}

/// A crate resting on the floor at the start carries its weight near the gap it was separated to: κ0 balances
/// the load there, so no step moves it by more than 5% of that gap and its smallest distance to the floor stays
/// within half the gap of it. (Under the inertia-scaled κ the barrier at 0.1 d̂ pushed with many times the
/// weight, out to where it balanced it, 0.3–0.9 d̂: a column of four blocks rose 0.97 mm, 2.8 d̂, in one step.)
/// What does move is small: the affine body yields to V⊥ under its weight (its centre sinks about 3 µm) and
/// tilts a little over the floor's diagonal, so one corner sits 9% closer.
#[test]
fn a_crate_resting_at_the_start_stays_at_its_separated_gap() {
    let text = "format = 1\n[world]\nmethod = \"abd\"\ndt = 0.01\n\
[[body]]\nname = \"floor\"\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"crate\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\n";
    let mut w = scene(text);
    let gap = super::separate::SEPARATION * 1e-3;
    let mut z = 0.5 + gap;
    for _ in 0..11 {
        let d = w.step().unwrap().min_distance.expect("in contact");
        let z1 = w.state.bodies[1].x.z;
        assert!((z1 - z).abs() < 0.05 * gap, "step moved the crate {} (gap {gap})", z1 - z);
        assert!((d - gap).abs() < 0.5 * gap, "gap {d}, separated to {gap}");
        z = z1;
    }
}

/// A proxy's target held 1 cm below where its box rests on the ground (as the lcp and impulse test in
/// dynamics/proxy.rs): the box rests on the ground, the coupling (a potential) pulls it down by k·δ, and the
/// contact wrench read back from the barrier and friction carries the weight and that pull; in free fall the
/// contact reading is zero.
#[test]
fn proxies_couple_as_a_potential_and_read_back_the_contact_wrench() {
    let text = "format = 1\n[world]\ndt = 0.01\nmethod = \"abd\"\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [2.0, 2.0, 0.2] }\nposition = [0.0, 0.0, -0.1]\n\
[[body]]\nname = \"hand\"\nshape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nmass = 1.0\nposition = [0.0, 0.0, 0.3]\n\
[[proxy]]\nbody = \"hand\"\npath = [{ time = 0.0, position = [0.0, 0.0, 0.04] }]\n";
    let mut w = scene(text);
    let first = w.step().unwrap();
    let r0 = first.proxies[0];
    assert!(r0.contact_force.iter().chain(&r0.contact_torque).all(|f| f.abs() < 1e-9), "free fall: {r0:?}");
    assert!(r0.coupling_force[2] < 0.0, "the target below pulls down: {r0:?}");
    let mut last = first;
    for _ in 0..150 {
        last = w.step().unwrap();
    }
    let r = last.proxies[0];
    let z = w.state.bodies[1].x.z;
    assert!((z - 0.05).abs() < 2e-3, "the box rests on the ground, z = {z}");
    let k = w.model.proxies[0].stiffness;
    let pull = k * (z - 0.04);
    assert!((r.coupling_force[2] + pull).abs() < 1e-2 * pull, "coupling {:?} vs −kδ = {}", r.coupling_force, -pull);
    let support = 9.81 + pull;
    assert!((r.contact_force[2] - support).abs() < 1e-2 * support, "contact {:?} vs {support}", r.contact_force);
    assert!(r.contact_force[0].abs() + r.contact_force[1].abs() < 1e-3 * support, "{r:?}");
}

/// The joint readings of a body hanging at rest from a hinge to the world carry its weight, and a prismatic
/// joint's limit barrier holds a block pushed into its limit by gravity without the coordinate passing it.
#[test]
fn a_limit_holds_a_loaded_slider_and_readings_carry_the_load() {
    let text = "format = 1\n[world]\ndt = 0.01\nmethod = \"abd\"\n\
[[body]]\nname = \"block\"\nshape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nmass = 2.0\nposition = [0.0, 0.0, 0.0]\n\
[[joint]]\ntype = \"prismatic\"\nbody1 = \"block\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 0.0, 1.0]\nlimits = [-0.05, 0.05]\n";
    let mut w = scene(text);
    let mut last = None;
    for _ in 0..100 {
        last = Some(w.step().unwrap());
        let q = crate::dynamics::joint::coordinates(&w.model, &w.state)[0].1;
        assert!(q > -0.05, "the coordinate {q} passed the limit");
    }
    let f = last.unwrap().joints[0].force;
    assert!((f.z - 2.0 * 9.81).abs() < 1e-3 * 2.0 * 9.81 && f.x.abs() + f.y.abs() < 1e-6, "{f}");
}

/// A box resting on another box and a ball resting on the ground, under both Hessians: Newton minimises the same
/// potential either way, so after half a second every body is where the other run has it, within what the
/// stopping tolerance allows (a vertex move below 1e-3·l_c·h per step).
#[test]
fn exact_and_projected_hessians_reach_the_same_states() {
    let text = |hessian: &str| {
        format!(
            "format = 1\n[world]\nmethod = \"abd\"\ndt = 0.01\n[solver.abd]\nhessian = \"{hessian}\"\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [4.0, 4.0, 1.0] }}\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"a\"\nshape = {{ type = \"box\", size = [0.5, 0.5, 0.5] }}\nposition = [0.0, 0.0, 0.2505]\n\
[[body]]\nname = \"b\"\nshape = {{ type = \"box\", size = [0.3, 0.3, 0.3] }}\nposition = [0.05, 0.02, 0.652]\nrotation_deg = [0.0, 0.0, 20.0]\n\
[[body]]\nname = \"c\"\nshape = {{ type = \"sphere\", radius = 0.2 }}\nposition = [1.0, 0.0, 0.201]\n"
        )
    };
    let run = |hessian: &str| {
        let mut w = scene(&text(hessian));
        for _ in 0..50 {
            w.step().unwrap();
        }
        w.state.bodies.iter().map(|b| b.x).collect::<Vec<_>>()
    };
    let (exact, projected) = (run("exact"), run("projected"));
    let tol = 50.0 * 1e-3 * 0.3 * 0.01;
    for (b, (e, p)) in exact.iter().zip(&projected).enumerate() {
        assert!((*e - *p).length() < tol, "body {b}: {e} vs {p}");
    }
    // and the runs did differ: the setting reaches the Newton matrix
    assert!(exact.iter().zip(&projected).any(|(e, p)| e != p));
}

/// The light wrecking ball's first step meets an indefinite exact Newton matrix (the chain's rings hang in
/// curved contact): the step falls back to projected Hessians and converges; with `projected` nothing falls back.
#[test]
fn an_indefinite_exact_matrix_falls_back_to_the_projection() {
    let path = crate::scene::find_scene("wrecking_ball_light").expect("bundled");
    for (hessian, falls_back) in [("exact", true), ("projected", false)] {
        let model = crate::scene::load(&path, &[("solver.abd.hessian".into(), hessian.into())]).unwrap();
        let mut state = State::from_model(&model);
        let params = model.solver.get::<AbdParams>();
        assert_eq!(params.hessian == Hessian::Exact, falls_back);
        let mut abd = Abd::new(params, &model);
        let st = abd.step(&model, &mut state).unwrap();
        assert!(st.iterations < 100, "{hessian}: {} iterations", st.iterations);
        assert_eq!(abd.projected_steps > 0, falls_back, "{hessian}: {} steps fell back", abd.projected_steps);
    }
}

#[test]
fn an_unknown_hessian_setting_is_rejected_naming_the_choices() {
    let e =
        World::from_scene_text("format = 1\n[world]\nmethod = \"abd\"\n[solver.abd]\nhessian = \"psd\"\n", "t").err().unwrap().to_string();
    assert!(e.contains("hessian") && e.contains("exact") && e.contains("projected"), "{e}");
}

/// A hinge whose file pose lies outside its limits (gym's ant's ankles: range 30°–70°, pose 0) starts just
/// inside them, with a note, and its coordinate stays within them while the arm swings under gravity.
#[test]
fn a_coordinate_starting_outside_its_limits_starts_just_inside() {
    let mut w = scene(
        "format = 1\n[world]\nmethod = \"abd\"\ndt = 0.01\n[[body]]\nname = \"arm\"\nshape = { type = \"box\", size = [1.0, 0.1, 0.1] }\n\
         position = [0.5, 0.0, 0.0]\n[[joint]]\ntype = \"hinge\"\nbody1 = \"arm\"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\n\
         limits = [0.5, 1.2]\n",
    );
    for _ in 0..100 {
        w.step().unwrap();
        let q = crate::dynamics::joint::coordinates(&w.model, &w.state)[0].1;
        assert!((0.5..=1.2).contains(&q), "step {}: q = {q}", w.state.step);
    }
    assert!(w.notes().iter().any(|n| n.contains("1 joint coordinate(s) started outside their limits")), "{:?}", w.notes());
}
