//! The validation experiments of `cairn validate --method lcp`, `impulse` and `volumetric-penalty`: every row
//! must pass.

use cairn::model::MethodKey;

fn check(experiment: &str) {
    check_method(experiment, "lcp");
}

fn check_method(experiment: &str, method: &str) {
    let rows = cairn_validate::run_experiment(experiment, MethodKey::parse(method).unwrap(), &[]);
    assert!(!rows.is_empty());
    for r in &rows {
        assert!(r.pass, "{}: expected {}, measured {} (tolerance {})", r.experiment, r.expected, r.measured, r.tolerance);
    }
}

#[test]
fn free_fall_and_projectile() {
    check("free_fall");
}
#[test]
fn tumbling_box_conserves_angular_momentum() {
    check("tumbling");
}
#[test]
fn incline_sticks_and_slides() {
    check("incline");
}
#[test]
fn restitution_rebound_height() {
    check("restitution");
}
#[test]
fn resting_box_impulses() {
    check("resting_box");
}
#[test]
fn stack10_stands() {
    check("stack10");
}
#[test]
fn pyramid20_stands() {
    check("pyramid20");
}
#[test]
fn large_mass_stands() {
    check("large_mass");
}
#[test]
fn cubedrop_settles() {
    check("cubedrop");
}
#[test]
fn deterministic() {
    check("determinism");
}

#[test]
fn unknown_experiment_is_a_failing_row() {
    let rows = cairn_validate::run_experiment("nonsense", MethodKey::Lcp, &[]);
    assert_eq!(rows.len(), 1);
    assert!(!rows[0].pass);
}

#[test]
fn implicit_penalty_runs_the_shared_free_fall_rows() {
    let rows = cairn_validate::run_experiment("free_fall", MethodKey::ImplicitPenalty, &[]);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r.pass), "{rows:?}");
}

#[test]
fn shock_propagation_keeps_a_tall_stack_stiff_and_without_it_the_stack_sags() {
    // the source (Erleben 2004/2005, shock propagation): with stack-layer shock propagation penetration stays below 1e-4 m after
    // projection; without it, the 20-box stack sinks and sways
    let path = cairn::scene::find_scene("boxstack").unwrap();
    let mut result = Vec::new();
    for on in ["true", "false"] {
        let model = cairn::scene::load(&path, &[("solver.lcp.shock_propagation".into(), on.into())]).unwrap();
        let mut w = cairn::World::new(model).unwrap();
        let mut tracker = cairn::record::Tracker::new(&w.model, &w.state);
        for _ in 0..200 {
            let st = w.step().unwrap();
            tracker.update(&w.state, &st);
        }
        result.push((tracker.max_penetration, tracker.max_drift(&w.model)));
    }
    assert!(result[0].0 < 1e-4 && result[0].1 < 1e-3, "with shock propagation: penetration, drift = {:?}", result[0]);
    assert!(result[1].1 > 10.0 * result[0].1, "without shock propagation the stack should sag far more: {result:?}");
}

#[test]
fn a_kinematic_platform_carries_a_box_by_friction_and_loads_push() {
    let text = "format = 1\n[world]\ndt = 0.01\n\
[[body]]\nname = \"platform\"\nkind = \"kinematic\"\nshape = { type = \"box\", size = [20.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\nvelocity = [0.5, 0.0, 0.0]\n\
[[body]]\nname = \"box\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\nvelocity = [0.5, 0.0, 0.0]\n\
[[body]]\nname = \"pushed\"\nshape = { type = \"sphere\", radius = 0.5 }\nposition = [0.0, 50.0, 0.0]\n\
[[load]]\nbody = \"pushed\"\nforce = [0.0, 0.0, 9810.0]\ntorque = [0.0, 0.0, 0.0]\nstart = 0.0\nend = 0.5\n";
    let model = cairn::scene::load_str(text, "k.toml", "k", std::path::Path::new("."), &[]).unwrap();
    let m_pushed = model.bodies[2].mass;
    let mut w = cairn::World::new(model).unwrap();
    for _ in 0..100 {
        w.step().unwrap();
    }
    // the platform moved exactly as prescribed; the box rode along without slipping
    assert!((w.state.bodies[0].x.x - 0.5).abs() < 1e-12);
    assert!((w.state.bodies[1].x.x - 0.5).abs() < 1e-3, "box x = {}", w.state.bodies[1].x.x);
    assert!((w.state.bodies[1].v.x - 0.5).abs() < 1e-6);
    // the load (force 9810 N for 0.5 s) on a free sphere: v_z = (F/m − g)·0.5 s, then free flight
    let vz_expected = (9810.0 / m_pushed - 9.81) * 0.5 - 9.81 * 0.5;
    assert!(
        (w.state.bodies[2].v.z - vz_expected).abs() < 1e-9 * vz_expected.abs().max(1.0),
        "v_z {} vs {}",
        w.state.bodies[2].v.z,
        vz_expected
    );
}

/// Every row of `cairn validate --method impulse`: the shared experiments and the source's own.
#[test]
fn impulse_shared_rows() {
    for e in cairn_validate::EXPERIMENTS {
        check_method(e, "impulse");
    }
}
#[test]
fn impulse_bounces_and_closed_form_impulses() {
    check_method("bounces", "impulse");
    check_method("impulse_cases", "impulse");
}
#[test]
fn impulse_newtons_cradle() {
    check_method("cradle", "impulse");
}
#[test]
fn impulse_spinning_ball_rolls() {
    check_method("spinning_ball", "impulse");
}
#[test]
fn impulse_stack60_stands_without_vibrating() {
    check_method("stack60", "impulse");
}
#[test]
fn impulse_box_holds_on_a_slope() {
    check_method("slope", "impulse");
}
#[test]
fn impulse_torus_threads_onto_a_peg() {
    check_method("torus_peg", "impulse");
}

/// Every row of `cairn validate --method volumetric-penalty`, one test per experiment.
#[test]
fn volumetric_every_row() {
    for e in cairn_validate::experiments(MethodKey::VolumetricPenalty) {
        check_method(e, "volumetric-penalty");
    }
}
#[test]
fn volumetric_cube_drop_plot_data_has_both_curves() {
    let [vol, point] = cairn_validate::volumetric::cubedrop_curves(&[]).unwrap();
    assert_eq!(vol.len(), 300);
    assert_eq!(point.len(), 300);
}

/// Every row of `cairn validate --method abd`, one test per experiment, but `abd_stands` (the layered scenes over
/// their whole durations: minutes on two cores), which `.ci/run` checks through `cairn validate --method abd`.
#[test]
fn abd_every_row() {
    for e in cairn_validate::experiments(MethodKey::Abd).into_iter().filter(|e| *e != "abd_stands") {
        check_method(e, "abd");
    }
}

/// Every joint experiment for every method (validate/src/joints.rs).
#[test]
fn joint_experiments_pass_for_every_method() {
    for method in MethodKey::ALL {
        for e in cairn_validate::joints::EXPERIMENTS {
            check_method(e, method.as_str());
        }
    }
}

/// The analytic basics (friction at its limit, restitution, stopping distance, mass ratios, dominoes, and no
/// energy gain in any of them) under the two methods that meet them; `cairn validate` runs the wall of 5,050
/// cubes (`wall_pyramid`), too long to repeat here.
#[test]
fn basics_lcp_and_impulse() {
    for method in ["lcp", "impulse"] {
        for e in ["friction_limit", "restitution_impacts", "stopping_distance", "mass_ratio", "domino_chain"] {
            check_method(e, method);
        }
    }
}
