//! The batched sweep against the scalar sweep of pgs.rs: the same impulses and velocities, bit for bit, on the
//! rows of real steps (a pyramid, a ball pile, a column), with friction and without, with the lower layers of a
//! stack frozen as in shock propagation.

use super::batch::{lanes_available, Batches};
use super::pgs::sweep;
use super::pgs::{layer_row, make_rows};
use super::*;
use std::path::Path;

/// The dynamics-pass rows and velocities of `scene` (a bundled scene) after `steps` steps under `lcp`, with the
/// bodies at stack height `frozen_below` or lower frozen (0: none).
fn rows_of(scene: &str, steps: usize, frozen_below: u32) -> (Lcp, Vec<Rows>, Vec<Vel>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(format!("{scene}.toml"));
    let model = crate::scene::load(&path, &[]).unwrap();
    let mut state = State::from_model(&model);
    let mut lcp = Lcp::new(model.solver.get::<LcpParams>());
    for _ in 0..steps {
        lcp.step(&model, &mut state).unwrap();
        state.time += model.dt;
        state.step += 1;
    }
    let mut stats = StepStats::default();
    lcp.collision.borrow_pairs(&mut state);
    lcp.collision(&model, &mut state, model.dt, &mut stats).unwrap();
    lcp.analysis(&model, &state, &mut stats);
    lcp.pre_step_speeds(&model, &state);
    lcp.load_velocities(&model, &mut state, model.dt, 1.0);
    for (i, f) in lcp.frozen.iter_mut().enumerate() {
        *f = lcp.stack.height[i] <= frozen_below && frozen_below > 0;
    }
    let mut rows = Vec::new();
    lcp.velocity_rows(&state, model.dt, &mut rows, &mut Vec::new());
    let mut vel = lcp.vel.clone();
    pgs::warm(&rows, &lcp.bodies, &mut vel, true);
    (lcp, rows, vel)
}

fn bits(v: &[Vel]) -> Vec<[u64; 6]> {
    v.iter().map(|b| [b.v.x, b.v.y, b.v.z, b.w.x, b.w.y, b.w.z].map(f64::to_bits)).collect()
}

fn lambdas(rows: &[Rows]) -> Vec<[u64; 3]> {
    rows.iter().map(|r| r.lambda.map(f64::to_bits)).collect()
}

/// Sweeps the rows both ways (normal rows only for the first two sweeps) and compares every bit; returns
/// whether the batched sweep ran batched.
/// Without the lanes' instructions (AVX2) nothing is batched and the comparison is of the scalar sweep with
/// itself: the tests that need batches pass vacuously there (CI's machines have AVX2).
fn same_bits(scene: &str, steps: usize, frozen_below: u32, force: bool) -> bool {
    let (lcp, rows, vel) = rows_of(scene, steps, frozen_below);
    assert!(rows.len() > 10, "{scene}: {} rows", rows.len());
    let (mut r1, mut v1) = (rows.clone(), vel.clone());
    let (mut r2, mut v2) = (rows, vel);
    let mut batches = Batches::default();
    batches.force = force;
    let on = batches.load(&r2, &lcp.bodies);
    for k in 0..6 {
        let friction = k >= 2;
        let s1 = sweep(&mut r1, &lcp.bodies, &mut v1, friction);
        let s2 = batches.sweep(&mut r2, &lcp.bodies, &mut v2, friction);
        assert_eq!((s1.0.to_bits(), s1.1.to_bits()), (s2.0.to_bits(), s2.1.to_bits()), "{scene}: sweep {k}'s change and size");
        assert!(bits(&v1) == bits(&v2), "{scene}: velocities differ after sweep {k}");
    }
    batches.store(&mut r2);
    assert!(lambdas(&r1) == lambdas(&r2), "{scene}: impulses differ");
    // the sweeps did something: impulses and velocities moved
    assert!(r1.iter().any(|r| r.lambda[1] != 0.0) && bits(&v1) != bits(&lcp.vel), "{scene}: an idle sweep proves nothing");
    if !lanes_available() {
        assert!(!on, "no batches without the lanes");
    }
    on || !lanes_available()
}

#[test]
fn a_pyramid_sweeps_the_same_bits_batched() {
    assert!(same_bits("pyramid20", 30, 0, false), "pyramid20's rows batch well");
}

#[test]
fn a_frozen_lower_stack_sweeps_the_same_bits_batched() {
    // the layers up to 5 frozen: their bodies are read by the points above and moved by none
    assert!(same_bits("pyramid20", 30, 5, false));
}

#[test]
fn a_ball_pile_sweeps_the_same_bits_batched() {
    assert!(same_bits("balls1000", 60, 0, false));
}

#[test]
fn a_column_keeps_the_scalar_sweep_and_batched_anyway_is_the_same() {
    // every point of a column shares a body with the next: one point per batch, so the scalar sweep runs
    let (lcp, rows, _) = rows_of("stack10", 30, 0);
    assert!(!Batches::default().load(&rows, &lcp.bodies), "a column's batches are a quarter full");
    assert!(same_bits("stack10", 30, 0, true));
}

/// The schedule keeps every body's points in their order and never puts two points that move the same body
/// into one batch.
#[test]
fn the_schedule_keeps_each_bodys_order() {
    let (lcp, rows, _) = rows_of("pyramid20", 30, 3);
    let mut batches = Batches::default();
    if !batches.load(&rows, &lcp.bodies) {
        assert!(!lanes_available(), "pyramid20's rows batch well");
        return;
    }
    let sched = batches.schedule();
    let mut all: Vec<u32> = sched.iter().flatten().copied().collect();
    all.sort_unstable();
    assert!(all.iter().copied().eq(0..rows.len() as u32), "every row is scheduled once");
    let moves = |i: u32, body: u32| {
        let r = &rows[i as usize];
        (r.a == body && r.inv_ma > 0.0) || (r.b == body && r.inv_mb > 0.0)
    };
    let mut last = vec![None::<(usize, u32)>; lcp.bodies.len()];
    for (j, batch) in sched.iter().enumerate() {
        for &i in batch {
            let r = &rows[i as usize];
            for body in [r.a, r.b] {
                if moves(i, body) {
                    if let Some((lj, li)) = last[body as usize] {
                        assert!(lj < j && li < i, "body {body}: row {i} in batch {j} after row {li} in batch {lj}");
                    }
                    last[body as usize] = Some((j, i));
                }
            }
        }
    }
    let full = sched.iter().filter(|b| b.len() == 4).count();
    assert!(full * 10 >= sched.len() * 8, "pyramid20: {full} of {} batches full", sched.len());
}

/// The rows' order (order.rs): bottom-up by layer, then by colour, then in detection order; no two pairs of one
/// layer and colour share a dynamic body; a pyramid needs few colours.
#[test]
fn the_rows_are_ordered_by_layer_then_colour() {
    for (scene, steps) in [("pyramid20", 30), ("balls1000", 60)] {
        let (lcp, _, _) = rows_of(scene, steps, 0);
        let contacts = &lcp.collision.contacts;
        let mut edge = Vec::with_capacity(contacts.len());
        for (ci, c) in contacts.iter().enumerate() {
            let e = edge.last().copied().unwrap_or(0);
            edge.push(if ci > 0 && (c.a, c.b) != (contacts[ci - 1].a, contacts[ci - 1].b) { e + 1 } else { e });
        }
        let colour = &lcp.row_order.colour;
        let key = |ci: u32| (lcp.stack.edge_layer[edge[ci as usize]], colour[edge[ci as usize]], ci);
        assert_eq!(lcp.order.len(), contacts.len());
        assert!(lcp.order.windows(2).all(|w| key(w[0]) < key(w[1])), "{scene}: not sorted by (layer, colour, contact)");
        let mut seen = std::collections::BTreeMap::new();
        for (e, &(a, b)) in lcp.edges.iter().enumerate() {
            for body in [a, b] {
                if !lcp.fixed[body] {
                    let at = (lcp.stack.edge_layer[e], colour[e], body);
                    assert!(seen.insert(at, e).is_none(), "{scene}: body {body} in two pairs of layer and colour {at:?}");
                }
            }
        }
        let most = colour.iter().max().copied().unwrap_or(0);
        assert!(scene != "pyramid20" || most < 8, "pyramid20: {} colours", most + 1);
    }
}

/// Whole steps with the batched sweep and with the scalar sweep only: the same state, bit for bit, every step
/// (the solves' early stops, the joints' rows between the contact sweeps, the layers, the corrections).
#[test]
fn steps_are_the_same_bits_batched_or_not() {
    for (scene, steps) in [("pyramid20", 40), ("balls1000", 40), ("articulated_boxes", 60), ("house_of_cards", 40)] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(format!("{scene}.toml"));
        let model = crate::scene::load(&path, &[]).unwrap();
        let (mut s1, mut s2) = (State::from_model(&model), State::from_model(&model));
        let (mut batched, mut scalar) = (Lcp::new(model.solver.get::<LcpParams>()), Lcp::new(model.solver.get::<LcpParams>()));
        scalar.work.batches.off = true;
        for k in 0..steps {
            for (lcp, s) in [(&mut batched, &mut s1), (&mut scalar, &mut s2)] {
                lcp.step(&model, s).unwrap();
                s.time += model.dt;
                s.step += 1;
            }
            let state_bits = |s: &State| -> Vec<u64> {
                s.bodies
                    .iter()
                    .flat_map(|b| [b.x.x, b.x.y, b.x.z, b.q.x, b.q.y, b.q.z, b.q.w, b.v.x, b.v.y, b.v.z, b.w.x, b.w.y, b.w.z])
                    .map(f64::to_bits)
                    .collect()
            };
            assert!(state_bits(&s1) == state_bits(&s2), "{scene}: step {k} differs batched and scalar");
        }
        assert!(s1.kinetic_energy(&model) > 0.0 || scene == "pyramid20", "{scene}: nothing moved");
    }
}

/// A layer's rows from the dynamics pass's (`layer_row`) are the rows `make_rows` builds for the layer, bit for
/// bit, after earlier layers have advanced and corrected their bodies.
#[test]
fn layer_rows_are_the_rows_built_afresh() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join("pyramid20.toml");
    let model = crate::scene::load(&path, &[]).unwrap();
    let mut state = State::from_model(&model);
    let mut lcp = Lcp::new(model.solver.get::<LcpParams>());
    for _ in 0..20 {
        lcp.step(&model, &mut state).unwrap();
        state.time += model.dt;
        state.step += 1;
    }
    // one step by hand, comparing the rows of every layer as shock propagation reaches it
    let h = model.dt;
    let mut stats = StepStats::default();
    lcp.collision.borrow_pairs(&mut state);
    lcp.collision(&model, &mut state, h, &mut stats).unwrap();
    lcp.analysis(&model, &state, &mut stats);
    lcp.correction(&model, &mut state);
    lcp.dynamics(&model, &mut state, h, &mut stats).unwrap();
    let n = model.bodies.len();
    let (mut checked, mut frozen_sides) = (0, 0);
    let mut start = 0;
    while start < lcp.order.len() {
        let layer = lcp.contact_layer[lcp.order[start] as usize];
        let mut end = start;
        while end < lcp.order.len() && lcp.contact_layer[lcp.order[end] as usize] == layer {
            end += 1;
        }
        for (i, f) in lcp.frozen.iter_mut().enumerate() {
            *f = lcp.stack.height[i] <= layer;
        }
        for k in start..end {
            let ci = lcp.order[k] as usize;
            let c = &lcp.collision.contacts[ci];
            let derived = layer_row(lcp.rows[k], &lcp.row_terms[k], c, &state, &lcp.frozen);
            let (fresh, _) = make_rows::<3>(ci, c, lcp.tangents[ci], &state, &lcp.bodies, &lcp.frozen, lcp.mus[ci]);
            let key = |r: &Rows| {
                let v = |x: crate::math::Vec3| [x.x, x.y, x.z];
                let mut b = vec![r.inv_ma, r.inv_mb];
                b.extend(v(r.ra).into_iter().chain(v(r.rb)).chain(r.inv_diag).chain(r.off));
                b.into_iter().map(f64::to_bits).collect::<Vec<_>>()
            };
            assert!(key(&derived) == key(&fresh), "layer {layer}, contact {ci}: derived {derived:?} fresh {fresh:?}");
            checked += 1;
            frozen_sides += (lcp.frozen[c.a] || lcp.frozen[c.b]) as usize;
        }
        // advance this layer's upper bodies as shock propagation does (a later layer sees them moved)
        for i in 0..n {
            if lcp.stack.height[i] == layer + 1 && model.bodies[i].kind == crate::model::BodyKind::Dynamic {
                crate::dynamics::integrate::integrate_pose(&model, i, &mut state.bodies[i], h);
                lcp.bodies[i].inv_i = crate::dynamics::integrate::inv_inertia_world(&model, i, state.bodies[i].q);
            }
        }
        start = end;
    }
    lcp.collision.return_pairs(&mut state);
    assert!(checked > 1000 && frozen_sides > 500, "{checked} rows, {frozen_sides} with a frozen side");
}

/// A row gone non-finite (an infinite bias with no friction: μ·λn = 0·∞ = NaN) does not panic the sweeps; the
/// non-finite velocities are left for the stage's finite check, which names the body.
#[test]
fn a_non_finite_row_does_not_panic_the_sweeps() {
    let (lcp, mut rows, vel) = rows_of("pyramid20", 30, 0);
    let k = rows.iter().position(|r| r.inv_mb > 0.0).unwrap();
    (rows[k].mu, rows[k].bias) = (0.0, f64::NEG_INFINITY);
    let (mut r1, mut v1) = (rows.clone(), vel.clone());
    sweep(&mut r1, &lcp.bodies, &mut v1, true);
    let mut batches = Batches::default();
    batches.load(&rows, &lcp.bodies);
    let (mut r2, mut v2) = (rows, vel);
    batches.sweep(&mut r2, &lcp.bodies, &mut v2, true);
    let b = r1[k].b as usize;
    assert!(!v1[b].v.is_finite() && !v2[b].v.is_finite(), "the row's body took the infinite impulse");
}
