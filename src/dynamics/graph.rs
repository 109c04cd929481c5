//! The contact graph: islands (connected components through dynamic bodies) and the stack analysis of the
//! `lcp` source (Erleben): stack heights by breadth-first search from the fixed bodies, and stack layers.
//!
//! Height 0 are the fixed bodies; an edge gets layer max(h_a, h_b) − 1, solved with the bodies of height ℓ
//! held fixed. Contacts with walls carry no height (`seeds`), so a pile touching a wall is not frozen early;
//! joints join an articulation's bodies into one node. See docs/methods/lcp.md, "Stack layers".

use std::collections::VecDeque;

/// Result of the stack analysis.
#[derive(Debug, Clone, Default)]
pub struct StackAnalysis {
    /// Stack height per body.
    pub height: Vec<u32>,
    /// Layer per edge (same order as the edges given).
    pub edge_layer: Vec<u32>,
    /// Layer per joint edge (same order as the joints given; empty without joints).
    pub joint_layer: Vec<u32>,
    /// Number of layers (max edge or joint layer + 1; 0 without edges).
    pub layers: u32,
}

/// Stack analysis of a contact graph with `n` bodies. `fixed[i]` marks the roots; `edges` are body pairs.
pub fn stack_analysis(n: usize, fixed: &[bool], edges: &[(usize, usize)]) -> StackAnalysis {
    stack_analysis_jointed(n, fixed, edges, &[])
}

/// Stack analysis with joints (`lcp`): a joint between two dynamic bodies joins them into one node of the
/// stack (an edge of length 0 in the breadth-first search, so every body of an articulation gets the height
/// of its lowest member), and a joint to a fixed body is an edge of length 1 like a contact. Every joint
/// therefore lies inside one layer with both its bodies free, and shock propagation never fixes one side of a
/// joint while solving the other. Also returns the layer of each joint edge (`StackAnalysis::joint_layer`).
pub fn stack_analysis_jointed(n: usize, fixed: &[bool], edges: &[(usize, usize)], joints: &[(usize, usize)]) -> StackAnalysis {
    let mut out = StackAnalysis::default();
    GraphWork::default().stack_analysis(n, fixed, edges, &[], joints, &mut out);
    out
}

/// Buffers of the graph algorithms, kept between steps so that a method that runs them every step
/// (`lcp`) allocates nothing once they have grown to the scene's size. The results are those of the free
/// functions `stack_analysis_jointed` and `islands`, which run on a fresh workspace.
#[derive(Debug, Clone, Default)]
pub struct GraphWork {
    start: Vec<usize>,
    fill: Vec<usize>,
    adj: Vec<(usize, u32)>,
    queue: VecDeque<usize>,
    parent: Vec<usize>,
    root_id: Vec<u32>,
    /// Island per body after `islands` (`u32::MAX` for fixed bodies).
    pub island: Vec<u32>,
}

impl GraphWork {
    /// `stack_analysis_jointed` into `out`, reusing this workspace's and `out`'s buffers.
    ///
    /// `seeds` (empty: every edge) tells per contact edge whether a fixed body passes height through it.
    pub fn stack_analysis(
        &mut self,
        n: usize,
        fixed: &[bool],
        edges: &[(usize, usize)],
        seeds: &[bool],
        joints: &[(usize, usize)],
        out: &mut StackAnalysis,
    ) {
        // adjacency in CSR form, deterministic order; weight 0 for joints between dynamic bodies
        let (start, fill, adj) = (&mut self.start, &mut self.fill, &mut self.adj);
        start.clear();
        start.resize(n + 1, 0);
        // a contact edge with a fixed body that is not a seed takes no part in the search
        let searched = |k: usize, a: usize, b: usize| k >= edges.len() || !(fixed[a] || fixed[b]) || seeds.get(k).copied().unwrap_or(true);
        for (k, &(a, b)) in edges.iter().chain(joints).enumerate() {
            if searched(k, a, b) {
                start[a + 1] += 1;
                start[b + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        fill.clear();
        fill.extend_from_slice(start);
        adj.clear();
        adj.resize(start[n], (0, 1));
        for (k, &(a, b)) in edges.iter().chain(joints).enumerate() {
            if !searched(k, a, b) {
                continue;
            }
            let w = if k >= edges.len() && !fixed[a] && !fixed[b] { 0 } else { 1 };
            adj[fill[a]] = (b, w);
            fill[a] += 1;
            adj[fill[b]] = (a, w);
            fill[b] += 1;
        }
        // breadth-first search with edges of length 0 and 1 (a deque: length-0 neighbours go to the front);
        // with contact edges only this is the plain breadth-first search of the source
        let unreached = u32::MAX;
        let height = &mut out.height;
        height.clear();
        height.resize(n, unreached);
        let queue = &mut self.queue;
        queue.clear();
        for i in 0..n {
            if fixed[i] {
                height[i] = 0;
                queue.push_back(i);
            }
        }
        while let Some(i) = queue.pop_front() {
            for &(j, w) in &adj[start[i]..start[i + 1]] {
                if !fixed[j] && (height[j] == unreached || height[i] + w < height[j]) {
                    height[j] = height[i] + w;
                    if w == 0 {
                        queue.push_front(j);
                    } else {
                        queue.push_back(j);
                    }
                }
            }
        }
        // bodies with no path to a fixed body; an unreached articulation shares one height through its joints
        let max_reached = height.iter().filter(|&&h| h != unreached).max().copied().unwrap_or(0);
        for h in height.iter_mut() {
            if *h == unreached {
                *h = max_reached + 1;
            }
        }
        let layer = |&(a, b): &(usize, usize)| {
            let (ha, hb) = (height[a], height[b]);
            ha.max(hb).saturating_sub(1)
        };
        out.edge_layer.clear();
        out.edge_layer.extend(edges.iter().map(layer));
        out.joint_layer.clear();
        out.joint_layer.extend(joints.iter().map(layer));
        out.layers = out.edge_layer.iter().chain(&out.joint_layer).max().map_or(0, |m| m + 1);
    }

    /// `islands` into `self.island`, reusing this workspace's buffers; returns the number of islands.
    pub fn islands(&mut self, n: usize, fixed: &[bool], edges: &[(usize, usize)]) -> usize {
        let parent = &mut self.parent;
        parent.clear();
        parent.extend(0..n);
        fn find(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                p[i] = p[p[i]];
                i = p[i];
            }
            i
        }
        for &(a, b) in edges {
            if fixed[a] || fixed[b] {
                continue;
            }
            let (ra, rb) = (find(parent, a), find(parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
        let (id, root_id) = (&mut self.island, &mut self.root_id);
        id.clear();
        id.resize(n, u32::MAX);
        root_id.clear();
        root_id.resize(n, u32::MAX);
        let mut count = 0u32;
        for i in 0..n {
            if fixed[i] {
                continue;
            }
            let r = find(parent, i);
            if root_id[r] == u32::MAX {
                root_id[r] = count;
                count += 1;
            }
            id[i] = root_id[r];
        }
        count as usize
    }
}

/// Support levels of the directed contact graph, as Guendelman et al. build it for shock propagation: a contact
/// whose normal points up (against gravity) means the upper body rests on the lower one, an edge lower → upper;
/// a sideways contact goes both ways. Bodies in one strongly connected component share a level; a component's
/// level is one more than the highest level among the components it rests on, fixed bodies being level 0
/// (and nothing rests *under* a fixed body). `edges` are (a, b, dir): dir > 0 when b rests on a, < 0 when a rests
/// on b, 0 for sideways. Returns the level per body.
pub fn support_levels(n: usize, fixed: &[bool], edges: &[(usize, usize, i8)]) -> Vec<u32> {
    // directed adjacency among dynamic bodies (CSR, in edge order: deterministic)
    let mut arcs: Vec<(usize, usize)> = Vec::with_capacity(2 * edges.len());
    for &(a, b, dir) in edges {
        if dir >= 0 {
            arcs.push((a, b));
        }
        if dir <= 0 {
            arcs.push((b, a));
        }
    }
    let mut start = vec![0usize; n + 1];
    for &(u, _) in &arcs {
        start[u + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut adj = vec![0usize; arcs.len()];
    for &(u, v) in &arcs {
        adj[fill[u]] = v;
        fill[u] += 1;
    }
    // Tarjan's strongly connected components over the dynamic bodies, iteratively
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack = Vec::new();
    let mut comps = 0usize;
    let mut next = 0usize;
    let mut call: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if fixed[root] || index[root] != NONE {
            continue;
        }
        call.push((root, start[root]));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (u, ref mut k)) = call.last_mut() {
            if *k < start[u + 1] {
                let v = adj[*k];
                *k += 1;
                if fixed[v] {
                    continue;
                }
                if index[v] == NONE {
                    index[v] = next;
                    low[v] = next;
                    next += 1;
                    stack.push(v);
                    on_stack[v] = true;
                    call.push((v, start[v]));
                } else if on_stack[v] {
                    low[u] = low[u].min(index[v]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[u]);
                }
                if low[u] == index[u] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = comps;
                        if w == u {
                            break;
                        }
                    }
                    comps += 1;
                }
            }
        }
    }
    // Tarjan emits components in reverse topological order: walk them from the last emitted (sources) on
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); comps];
    for i in 0..n {
        if comp[i] != NONE {
            members[comp[i]].push(i);
        }
    }
    let mut comp_level = vec![1u32; comps];
    for c in (0..comps).rev() {
        for &u in &members[c] {
            // resting on a fixed body: level 1 (already the minimum)
            for &v in &adj[start[u]..start[u + 1]] {
                if !fixed[v] && comp[v] != c {
                    comp_level[comp[v]] = comp_level[comp[v]].max(comp_level[c] + 1);
                }
            }
        }
    }
    (0..n).map(|i| if fixed[i] { 0 } else { comp_level[comp[i]] }).collect()
}

/// Islands: connected components of the contact graph, where fixed bodies do not connect. Returns the island
/// index per body (fixed bodies get `u32::MAX`) and the number of islands with at least one edge or body.
pub fn islands(n: usize, fixed: &[bool], edges: &[(usize, usize)]) -> (Vec<u32>, usize) {
    let mut work = GraphWork::default();
    let count = work.islands(n, fixed, edges);
    (work.island, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_heights_and_layers_follow_the_source() {
        // ground 0; a stack 1-2-3 on it; 4 rests on 1 and 2 sideways; 5 and 6 touch each other in the air
        let fixed = [true, false, false, false, false, false, false];
        let edges = [(0, 1), (1, 2), (2, 3), (1, 4), (4, 2), (5, 6)];
        let s = stack_analysis(7, &fixed, &edges);
        assert_eq!(&s.height[..5], &[0, 1, 2, 3, 2]);
        assert_eq!(s.height[5], 4);
        assert_eq!(s.edge_layer, vec![0, 1, 2, 1, 1, 3]);
        assert_eq!(s.layers, 4);
    }

    #[test]
    fn joints_join_an_articulation_into_one_stack_node() {
        // ground 0; a chain 1-2-3 hinged to the ground at 1 (node 0 stands for the world); 4 rests on 3 and 5
        // on 4; 6-7 jointed in the air; 3 also touches the ground
        let fixed = [true, false, false, false, false, false, false, false];
        let contacts = [(3, 4), (4, 5), (0, 3)];
        let joints = [(0, 1), (1, 2), (2, 3), (6, 7)];
        let s = stack_analysis_jointed(8, &fixed, &contacts, &joints);
        assert_eq!(&s.height[..6], &[0, 1, 1, 1, 2, 3]);
        assert_eq!(s.height[6], s.height[7]);
        assert_eq!(s.height[6], 4);
        assert_eq!(s.edge_layer, vec![1, 2, 0]);
        assert_eq!(s.joint_layer, vec![0, 0, 0, 3]);
        assert_eq!(s.layers, 4);
        // without joints the same contacts give the plain breadth-first heights
        assert_eq!(stack_analysis_jointed(8, &fixed, &contacts, &[]).height, stack_analysis(8, &fixed, &contacts).height);
    }

    #[test]
    fn a_wall_contact_that_is_no_seed_leaves_the_height_to_the_support() {
        // ground 0, wall 1; a column 4 on the ground, 3 on 4, 2 on 3, and 2 touches the wall sideways
        let fixed = [true, true, false, false, false];
        let edges = [(0, 4), (4, 3), (3, 2), (1, 2)];
        let mut out = StackAnalysis::default();
        GraphWork::default().stack_analysis(5, &fixed, &edges, &[true, true, true, false], &[], &mut out);
        assert_eq!(out.height, vec![0, 0, 3, 2, 1]);
        // the wall contact is solved in the top ball's layer, the wall fixed
        assert_eq!(out.edge_layer, vec![0, 1, 2, 2]);
        // as a seed (the source's search) the wall would put the top ball next to the ground
        GraphWork::default().stack_analysis(5, &fixed, &edges, &[], &[], &mut out);
        assert_eq!(out.height, vec![0, 0, 1, 2, 1]);
    }

    #[test]
    fn support_levels_follow_gravity_not_graph_distance() {
        // ground 0, wall 1 (fixed); a column 2 on 3 on 4 on the ground, and the top ball 2 also touches the wall
        // sideways: by graph distance it would be next to the fixed bodies, by support it is on top
        let fixed = [true, true, false, false, false];
        let edges = [(0, 4, 1), (4, 3, 1), (3, 2, 1), (1, 2, 0)];
        assert_eq!(support_levels(5, &fixed, &edges), vec![0, 0, 3, 2, 1]);
        // two bodies side by side on the ground share a component and a level; one resting on both is above
        let edges = [(0, 2, 1), (0, 3, 1), (2, 3, 0), (2, 4, 1), (4, 3, -1)];
        assert_eq!(support_levels(5, &fixed, &edges), vec![0, 0, 1, 1, 2]);
    }

    #[test]
    fn a_reused_workspace_gives_the_fresh_results() {
        let mut work = GraphWork::default();
        let mut out = StackAnalysis::default();
        // a larger graph first, so that the buffers hold stale entries when the smaller ones run
        let fixed = [true, false, false, false, false, false, false, false];
        work.stack_analysis(8, &fixed, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)], &[], &[(0, 7)], &mut out);
        assert_eq!(work.islands(8, &fixed, &[(1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)]), 1);
        let (contacts, joints) = ([(3, 4), (4, 5), (0, 3)], [(0, 1), (1, 2), (2, 3), (6, 7)]);
        work.stack_analysis(8, &fixed, &contacts, &[], &joints, &mut out);
        let fresh = stack_analysis_jointed(8, &fixed, &contacts, &joints);
        assert_eq!(
            (&out.height, &out.edge_layer, &out.joint_layer, out.layers),
            (&fresh.height, &fresh.edge_layer, &fresh.joint_layer, fresh.layers)
        );
        let fixed = [true, false, false, false];
        let count = work.islands(4, &fixed, &[(0, 1), (0, 2), (2, 3)]);
        assert_eq!((work.island.clone(), count), islands(4, &fixed, &[(0, 1), (0, 2), (2, 3)]));
        assert_eq!(count, 2);
    }

    #[test]
    fn islands_do_not_connect_through_fixed_bodies() {
        let fixed = [true, false, false, false];
        let (id, n) = islands(4, &fixed, &[(0, 1), (0, 2), (2, 3)]);
        assert_eq!(n, 2);
        assert_eq!(id[2], id[3]);
        assert_ne!(id[1], id[2]);
    }
}
