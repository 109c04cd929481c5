//! The kinematic tree the joints make: each body's parent (a joint's body 1 is the parent of its body 2; a
//! joint to the world makes the world the parent of its body 1) and the subtree below a body, for sensors.

use crate::model::Model;

/// Each body's parent body (`None`: the world, or no joint names it as a child); the first joint that names a
/// body as its child decides.
pub fn parents(model: &Model) -> Vec<Option<usize>> {
    let mut parent = vec![None; model.bodies.len()];
    let mut seen = vec![false; model.bodies.len()];
    for j in &model.joints {
        let (child, p) = match j.body2 {
            Some(c) => (c, Some(j.body1)),
            None => (j.body1, None),
        };
        if !seen[child] {
            seen[child] = true;
            parent[child] = p;
        }
    }
    parent
}

/// Whether body `b` is `root` or below it, given each body's parent (a loop of joints stops after as many hops
/// as there are bodies).
pub fn is_below(parents: &[Option<usize>], b: usize, root: usize) -> bool {
    let mut p = Some(b);
    for _ in 0..=parents.len() {
        match p {
            Some(q) if q == root => return true,
            Some(q) => p = parents[q],
            None => return false,
        }
    }
    false
}

/// `root` and every body below it in the tree, in ascending index order.
pub fn subtree(model: &Model, root: usize) -> Vec<usize> {
    let parent = parents(model);
    (0..model.bodies.len()).filter(|&b| is_below(&parent, b, root)).collect()
}
