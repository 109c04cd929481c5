//! The contact points a step of several substeps reports: the last substep's, each with its force averaged over
//! the step.

use super::friction::Key;
use crate::method::ContactPoint;

/// The order of a substep's contact points: by body pair, then field body, then shell point (the candidate pairs
/// come sorted, each pair's two roles in turn, each role's hits in shell order).
fn point_order(k: &Key) -> (u32, u32, bool, u32) {
    (k.0.min(k.1), k.0.max(k.1), k.0 > k.1, k.2)
}

/// A substep's contact points (anchor keys, points) in [`point_order`].
fn in_order((keys, points): (Vec<Key>, Vec<ContactPoint>)) -> (Vec<Key>, Vec<ContactPoint>) {
    if keys.windows(2).all(|w| point_order(&w[0]) < point_order(&w[1])) {
        return (keys, points);
    }
    let mut both: Vec<(Key, ContactPoint)> = keys.into_iter().zip(points).collect();
    both.sort_unstable_by_key(|e| point_order(&e.0));
    both.into_iter().unzip()
}

/// The last substep's contact points with each one's force averaged over the step's substeps (`subs`: each
/// one's anchor keys and points, and its share of the step, h_k/dt; zero force in those without it). A point that
/// left before the last substep adds its share to the nearest last point of its body pair, so that each pair's
/// total stays whole, or stays a point of its own where its pair has none left.
pub(super) fn average_substeps(subs: Vec<(Vec<Key>, Vec<ContactPoint>, f64)>) -> Vec<ContactPoint> {
    let mut subs: Vec<_> = subs
        .into_iter()
        .map(|(k, mut p, w)| {
            p.iter_mut().for_each(|c| c.force *= w);
            in_order((k, p))
        })
        .collect();
    let (keys, mut points) = subs.pop().expect("a substep");
    let mut gone = Vec::new();
    for (ks, ps) in subs {
        // both in point_order: one walk
        let mut i = 0;
        for (k, p) in ks.iter().zip(ps) {
            while i < keys.len() && point_order(&keys[i]) < point_order(k) {
                i += 1;
            }
            if keys.get(i) == Some(k) {
                points[i].force += p.force;
            } else {
                gone.push(p);
            }
        }
    }
    // the points of a body pair are contiguous (point_order)
    let pair = |c: &ContactPoint| (c.bodies[0].min(c.bodies[1]), c.bodies[0].max(c.bodies[1]));
    let last = points.len();
    for g in gone {
        let f = g.force;
        let lo = points[..last].partition_point(|c| pair(c) < pair(&g));
        let hi = lo + points[lo..last].partition_point(|c| pair(c) == pair(&g));
        let dist = |i: &usize| (points[*i].point - g.point).length();
        match (lo..hi).min_by(|a, b| dist(a).total_cmp(&dist(b))) {
            Some(i) => {
                let c = &mut points[i];
                c.force += if c.bodies == g.bodies { f } else { -f };
            }
            None => points.push(ContactPoint { force: f, ..g }),
        }
    }
    points
}
