//! Sweep-and-prune broad phase: bounding boxes sorted along x (insertion sort on the previous order, nearly
//! linear for coherent motion, O(n log n) at worst through the initial sort), swept for overlaps in y and z.
//! The output pairs are sorted, so nothing downstream depends on the sort's tie order.

use parry3d_f64::bounding_volume::Aabb;

/// Broad-phase workspace; keeps the sorted order between steps.
#[derive(Debug, Default, Clone)]
pub struct BroadPhase {
    order: Vec<u32>,
    active: Vec<u32>,
}

impl BroadPhase {
    /// Overlapping pairs (i < j) of boxes, skipping pairs where neither body can move (`movable`) and the
    /// pairs of `excluded` (sorted, i < j: `Model::exclusions`).
    pub fn find_pairs(&mut self, aabbs: &[Aabb], movable: &[bool], excluded: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
        out.clear();
        let n = aabbs.len();
        if self.order.len() != n {
            self.order = (0..n as u32).collect();
            self.order.sort_by(|&a, &b| aabbs[a as usize].mins.x.total_cmp(&aabbs[b as usize].mins.x).then(a.cmp(&b)));
        } else {
            // insertion sort: cheap when the order barely changed since the last step
            for k in 1..n {
                let cur = self.order[k];
                let key = aabbs[cur as usize].mins.x;
                let mut j = k;
                while j > 0 && aabbs[self.order[j - 1] as usize].mins.x > key {
                    self.order[j] = self.order[j - 1];
                    j -= 1;
                }
                self.order[j] = cur;
            }
        }
        self.active.clear();
        for &i in &self.order {
            let bi = &aabbs[i as usize];
            self.active.retain(|&j| aabbs[j as usize].maxs.x >= bi.mins.x);
            for &j in &self.active {
                let bj = &aabbs[j as usize];
                if !(movable[i as usize] || movable[j as usize]) || is_excluded(excluded, i, j) {
                    continue;
                }
                if bi.mins.y <= bj.maxs.y && bj.mins.y <= bi.maxs.y && bi.mins.z <= bj.maxs.z && bj.mins.z <= bi.maxs.z {
                    out.push((i.min(j), i.max(j)));
                }
            }
            self.active.push(i);
        }
        out.sort_unstable();
    }
}

/// True when the pair (a, b), in either order, is in the sorted list `excluded` of pairs (i, j), i < j.
pub fn is_excluded(excluded: &[(u32, u32)], a: u32, b: u32) -> bool {
    !excluded.is_empty() && excluded.binary_search(&(a.min(b), a.max(b))).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;

    #[test]
    fn finds_exactly_the_brute_force_pairs() {
        let mut boxes = Vec::new();
        let mut rng = crate::math::rng::Rng::new(12345);
        let mut rnd = || rng.unit();
        for _ in 0..300 {
            let c = Vec3::new(rnd() * 10.0, rnd() * 10.0, rnd() * 10.0);
            let h = Vec3::splat(0.2 + rnd());
            boxes.push(Aabb::new(c - h, c + h));
        }
        let movable: Vec<bool> = (0..300).map(|i| i % 7 != 0).collect();
        // every pair (i, i + 1) and (i, i + 2) of even i excluded
        let excluded: Vec<(u32, u32)> = (0..298u32).step_by(2).flat_map(|i| [(i, i + 1), (i, i + 2)]).collect();
        let mut bp = BroadPhase::default();
        let mut pairs = Vec::new();
        for round in 0..2 {
            if round == 1 {
                for b in &mut boxes {
                    let d = Vec3::new(rnd() - 0.5, 0.0, 0.0);
                    *b = Aabb::new(b.mins + d, b.maxs + d);
                }
            }
            bp.find_pairs(&boxes, &movable, &excluded, &mut pairs);
            let mut brute = Vec::new();
            for i in 0..300u32 {
                for j in i + 1..300u32 {
                    let (a, b) = (&boxes[i as usize], &boxes[j as usize]);
                    let overlap = a.mins.x <= b.maxs.x
                        && b.mins.x <= a.maxs.x
                        && a.mins.y <= b.maxs.y
                        && b.mins.y <= a.maxs.y
                        && a.mins.z <= b.maxs.z
                        && b.mins.z <= a.maxs.z;
                    let skip = i % 2 == 0 && (j == i + 1 || j == i + 2);
                    if overlap && (movable[i as usize] || movable[j as usize]) && !skip {
                        brute.push((i, j));
                    }
                }
            }
            assert_eq!(pairs, brute);
            assert!(pairs.iter().all(|&(i, j)| !is_excluded(&excluded, j, i)));
        }
    }
}
