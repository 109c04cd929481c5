//! What a step of several substeps reports: the last substep's contact points, each with its force averaged over
//! the step, and the substeps' statistics folded together; and when a substep is split.

use super::friction::Key;
use crate::method::{ContactPoint, StepStats};

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

/// Halvings at most of a substep whose joint rows do not converge.
pub(super) const MAX_SPLITS: u32 = 6;
/// A substep is split when a joint row ends farther than this from its target (m, or rad), its Newton
/// corrections having diverged (a step that turns a body too far for the rows' linearisation).
pub(super) const SPLIT_RESIDUAL: f64 = 1e-6;

/// Folds one substep's statistics into the scene step's: largest counts and depth, summed impulses, stage times
/// and points tested, and the joints' and proxies' readings averaged over the step (each substep's with weight `w`).
pub(super) fn merge_substep(total: &mut StepStats, s: StepStats, w: f64) {
    total.joints.resize(s.joints.len(), Default::default());
    for (t, r) in total.joints.iter_mut().zip(&s.joints) {
        t.force += r.force * w;
        t.torque += r.torque * w;
    }
    total.proxies.resize(s.proxies.len(), Default::default());
    for (t, r) in total.proxies.iter_mut().zip(&s.proxies) {
        for (a, b) in [
            (&mut t.contact_force, &r.contact_force),
            (&mut t.contact_torque, &r.contact_torque),
            (&mut t.coupling_force, &r.coupling_force),
            (&mut t.coupling_torque, &r.coupling_torque),
        ] {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y * w;
            }
        }
    }
    total.contacts = total.contacts.max(s.contacts);
    total.islands = total.islands.max(s.islands);
    total.max_penetration = total.max_penetration.max(s.max_penetration);
    total.normal_impulse += s.normal_impulse;
    total.friction_impulse += s.friction_impulse;
    total.iterations += s.iterations;
    count_attempt(total, &s);
    total.contact_points = s.contact_points;
}

/// Adds a substep's stage times and points tested to the scene step's (a split substep's discarded attempt too).
pub(super) fn count_attempt(total: &mut StepStats, s: &StepStats) {
    total.points_tested += s.points_tested;
    for (t, v) in total.stage_seconds.iter_mut().zip(&s.stage_seconds) {
        *t += v;
    }
}
