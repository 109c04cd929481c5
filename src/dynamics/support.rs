//! The mass each contact carries under gravity: a body's own mass and everything that rests on it, passed down
//! through the contacts it rests on. A penalty spring sized for the pair's reduced mass alone lets a heavy
//! body sink into a light one (and the light one into the ground) by the mass ratio; sized for the mass it
//! carries, a stack's contacts sink about as little as a single body resting on the ground (within twice as deep
//! under implicit-penalty's springs; about `rest_depth` at rest under volumetric-penalty's substeps).
//! See docs/methods/implicit-penalty.md, "Springs that follow the load", and docs/methods/volumetric-penalty.md,
//! "Substeps that follow the load".

use crate::math::Vec3;
use crate::model::{BodyKind, Model};
use crate::state::State;

/// One contact pair: its bodies and its summed normal from `a` toward `b` (its length weighs the pair among a
/// body's supports: the number of contact points along the normal).
#[derive(Debug, Clone, Copy)]
pub struct SupportPair {
    pub a: usize,
    pub b: usize,
    pub normal: Vec3,
}

/// Per pair, the mass (kg) the pair carries under gravity (0 where neither body rests on the other, and for
/// every pair without gravity).
///
/// A pair supports its upper body (the one its normal points to, when that body's centre of mass is strictly
/// higher than the other's or the other does not move) with the weight w = max(0, n·up) of its normal. Dynamic
/// bodies are visited from the highest down; each passes its load (its mass plus what it received) to its
/// supports in proportion to their weights, so the order of visiting is a topological order of the support
/// graph and the result does not depend on the pairs' order. Joints pass no load (passing an articulation's
/// weight to its feet made gymnasium's humanoid gain energy).
pub fn carried_mass(model: &Model, state: &State, pairs: &[SupportPair]) -> Vec<f64> {
    let mut carried = vec![0.0; pairs.len()];
    let g = model.gravity.length();
    if !(g > 0.0) || pairs.is_empty() {
        return carried;
    }
    let up = -model.gravity / g;
    let n = model.bodies.len();
    let moves = |i: usize| model.bodies[i].kind == BodyKind::Dynamic;
    let height: Vec<f64> = state.bodies.iter().map(|b| b.x.dot(up)).collect();
    let mut load: Vec<f64> = model.bodies.iter().map(|b| b.mass).collect();
    // per pair: (upper, lower, weight); only dynamic upper bodies carry load
    let edges: Vec<Option<(usize, usize, f64)>> = pairs
        .iter()
        .map(|p| {
            let s = p.normal.dot(up);
            let (upper, lower, w) = if s > 0.0 { (p.b, p.a, s) } else { (p.a, p.b, -s) };
            let below = !moves(lower) || height[lower] < height[upper];
            (w > 0.0 && moves(upper) && below).then_some((upper, lower, w))
        })
        .collect();
    // each upper body's pairs in pair order, as one flat list: body u's are by_upper[start[u]..start[u + 1]]
    let mut total = vec![0.0; n];
    let mut start = vec![0usize; n + 1];
    for &(u, _, w) in edges.iter().flatten() {
        total[u] += w;
        start[u + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut by_upper = vec![0usize; start[n]];
    for (k, e) in edges.iter().enumerate() {
        if let Some((u, _, _)) = *e {
            by_upper[fill[u]] = k;
            fill[u] += 1;
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&i| start[i + 1] > start[i]).collect();
    order.sort_by(|&i, &j| height[j].total_cmp(&height[i]).then(i.cmp(&j)));
    for u in order {
        for &k in &by_upper[start[u]..start[u + 1]] {
            let (_, lower, w) = edges[k].expect("listed");
            carried[k] = load[u] * w / total[u];
            if moves(lower) {
                load[lower] += carried[k];
            }
        }
    }
    carried
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::load_str;

    fn world(bodies: &[(&str, f64, f64)]) -> (Model, State) {
        let mut text = String::from("format = 1\n[world]\ngravity = [0.0, 0.0, -9.81]\n");
        text += "[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n";
        for (name, mass, z) in bodies {
            text += &format!(
                "[[body]]\nname = \"{name}\"\nmass = {mass}\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [0.0, 0.0, {z}]\n"
            );
        }
        let m = load_str(&text, "support.toml", "support", std::path::Path::new("."), &[]).expect("scene");
        let s = State::from_model(&m);
        (m, s)
    }

    #[test]
    fn a_stack_passes_every_weight_down_to_the_ground() {
        let (m, s) = world(&[("a", 10.0, 0.5), ("b", 1000.0, 1.5), ("c", 3.0, 2.5)]);
        let up = Vec3::Z * 4.0;
        // in no particular order, normals from the first body toward the second
        let pairs =
            [SupportPair { a: 2, b: 1, normal: -up }, SupportPair { a: 3, b: 2, normal: -up }, SupportPair { a: 0, b: 1, normal: up }];
        let c = carried_mass(&m, &s, &pairs);
        assert_eq!(c, vec![1003.0, 3.0, 1013.0]);
    }

    #[test]
    fn a_body_on_two_supports_splits_its_load_by_their_weights_and_side_contacts_carry_nothing() {
        let (m, s) = world(&[("left", 1.0, 0.5), ("right", 1.0, 0.5), ("top", 6.0, 1.5)]);
        let pairs = [
            SupportPair { a: 1, b: 3, normal: Vec3::Z * 2.0 },
            SupportPair { a: 2, b: 3, normal: Vec3::Z * 1.0 },
            // the two lower boxes side by side: a horizontal normal, and equal heights
            SupportPair { a: 1, b: 2, normal: Vec3::X * 5.0 },
            SupportPair { a: 0, b: 1, normal: Vec3::Z },
            SupportPair { a: 0, b: 2, normal: Vec3::Z },
        ];
        let c = carried_mass(&m, &s, &pairs);
        assert_eq!(c, vec![4.0, 2.0, 0.0, 5.0, 3.0]);
    }

    #[test]
    fn without_gravity_nothing_is_carried() {
        let mut text = String::from("format = 1\n[world]\ngravity = [0.0, 0.0, 0.0]\n");
        text += "[[body]]\nname = \"a\"\nshape = { type = \"sphere\", radius = 0.5 }\n";
        let m = load_str(&text, "support.toml", "support", std::path::Path::new("."), &[]).expect("scene");
        let s = State::from_model(&m);
        assert_eq!(carried_mass(&m, &s, &[SupportPair { a: 0, b: 0, normal: Vec3::Z }]), vec![0.0]);
    }
}
