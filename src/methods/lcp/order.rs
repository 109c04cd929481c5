//! The order of `lcp`'s contact rows: bottom-up by stack layer (shock propagation's order, and the source's
//! for the sweeps); within a layer by colour, then in detection order. The colours are a greedy colouring
//! (first fit, pairs in detection order) of the layer's body pairs such that no two pairs of one colour share a
//! dynamic body, so that the points of a colour can be swept four at a time (batch.rs). Gauss-Seidel's order
//! within a layer is the method's free choice; this one is as deterministic as the detection order.

use crate::collision::narrow::Contact;

/// Most colours per layer; a pair past them takes the last one, after its own colour's pairs (a valid order
/// still, only less parallel).
const COLOURS: u32 = 64;

/// Workspace of the row order.
#[derive(Debug, Default)]
pub(super) struct RowOrder {
    /// Counting-sort starts (per layer, then per layer and colour).
    starts: Vec<u32>,
    /// The pairs by layer.
    by_layer: Vec<u32>,
    /// Per body: (the layer its colours belong to, the colours its pairs in that layer use).
    used: Vec<(u32, u64)>,
    /// Per pair: its colour; per layer: its colours and the first bucket of its colours.
    pub(super) colour: Vec<u8>,
    colours: Vec<u32>,
    base: Vec<u32>,
    /// Per contact: its (layer, colour) bucket.
    bucket: Vec<u32>,
}

impl RowOrder {
    /// Orders `contacts` (a pair's contacts consecutive, the pairs in `edges`' order, pair e in layer
    /// `edge_layer[e]` of `layers`); `fixed` marks the bodies no row moves. Writes the contacts' order and each
    /// contact's layer.
    pub(super) fn build(
        &mut self,
        contacts: &[Contact],
        (edges, edge_layer, layers): (&[(usize, usize)], &[u32], u32),
        fixed: &[bool],
        (order, contact_layer): (&mut Vec<u32>, &mut Vec<u32>),
    ) {
        let layers = layers as usize;
        // the pairs by layer (a stable counting sort)
        counting_sort(edge_layer.iter().copied(), layers, &mut self.starts, &mut self.by_layer);
        // first-fit colours, layer by layer
        self.used.clear();
        self.used.resize(fixed.len(), (u32::MAX, 0));
        self.colour.clear();
        self.colour.resize(edges.len(), 0);
        self.colours.clear();
        self.colours.resize(layers, 0);
        for &e in &self.by_layer {
            let ((a, b), l) = (edges[e as usize], edge_layer[e as usize]);
            let mut taken = 0u64;
            for i in [a, b] {
                if !fixed[i] && self.used[i].0 == l {
                    taken |= self.used[i].1;
                }
            }
            let c = taken.trailing_ones().min(COLOURS - 1);
            for i in [a, b] {
                if !fixed[i] {
                    let u = &mut self.used[i];
                    let before = if u.0 == l { u.1 } else { 0 };
                    *u = (l, before | 1u64 << c);
                }
            }
            self.colour[e as usize] = c as u8;
            self.colours[l as usize] = self.colours[l as usize].max(c + 1);
        }
        // the contacts by (layer, colour), stable
        self.base.clear();
        let mut total = 0u32;
        for &c in &self.colours {
            self.base.push(total);
            total += c;
        }
        contact_layer.clear();
        self.bucket.clear();
        let mut e = 0usize;
        for (ci, c) in contacts.iter().enumerate() {
            if ci > 0 && (c.a, c.b) != (contacts[ci - 1].a, contacts[ci - 1].b) {
                e += 1;
            }
            let l = edge_layer[e];
            contact_layer.push(l);
            self.bucket.push(self.base[l as usize] + self.colour[e] as u32);
        }
        counting_sort(self.bucket.iter().copied(), total as usize, &mut self.starts, order);
    }
}

/// A stable counting sort of the indices 0..len of `keys` (each below `buckets`) into `out`.
fn counting_sort(keys: impl Iterator<Item = u32> + Clone, buckets: usize, starts: &mut Vec<u32>, out: &mut Vec<u32>) {
    starts.clear();
    starts.resize(buckets + 1, 0);
    let mut len = 0;
    for k in keys.clone() {
        starts[k as usize + 1] += 1;
        len += 1;
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    out.clear();
    out.resize(len, 0);
    for (i, k) in keys.enumerate() {
        out[starts[k as usize] as usize] = i as u32;
        starts[k as usize] += 1;
    }
}
