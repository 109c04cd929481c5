//! Tests of the abd method.

use crate::world::World;

#[test]
#[ignore]
fn debug_initial_gaps() {
    let name = std::env::var("SCENE").unwrap_or("arch".into());
    let path = crate::scene::find_scene(&name).unwrap();
    let model = crate::scene::load(&path, &[]).unwrap();
    let abd = super::Abd::new(model.solver.abd.clone(), &model);
    let state = crate::state::State::from_model(&model);
    let q: Vec<f64> = state.bodies.iter().flat_map(|b| super::affine::q_from_rigid(b.x, b.q)).collect();
    let mut x = Vec::new();
    abd.surfaces().positions(&q, &mut x);
    let s = abd.surfaces();
    let (mut pairs, mut groups) = (Vec::new(), Vec::new());
    super::culling::candidates(s, &x, None, &vec![true; model.bodies.len()], 0.01, &mut pairs, &mut groups);
    for g in &groups {
        let mut dmin = f64::INFINITY;
        for p in &pairs[g.range.clone()] {
            let shape = super::barrier::PairShape { edge_edge: p.edge_edge, eps_x: p.eps_x };
            dmin = dmin.min(super::barrier::classify(shape, &super::assemble::stencil(&x, &p.verts)).1);
        }
        println!("{} {}: {:.3e}", model.bodies[g.bodies[0] as usize].name, model.bodies[g.bodies[1] as usize].name, dmin.sqrt());
    }
    println!("intersections {}", super::check::intersections(s, &x));
    for (a, b) in super::culling::triangle_pairs(s, &x).into_iter().take(400) {
        let (ta, tb) = (s.triangles[a as usize], s.triangles[b as usize]);
        let p = |t: [u32; 3]| [&x[t[0] as usize], &x[t[1] as usize], &x[t[2] as usize]];
        if super::check::triangles_intersect(p(ta), p(tb)) {
            println!("{:?} {:?} bodies {} {}", p(ta), p(tb), s.triangle_body[a as usize], s.triangle_body[b as usize]);
            break;
        }
    }
    let _ = World::new(model);
}
