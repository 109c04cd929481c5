//! What an ABD step reports of its contacts: each barrier pair within d̂ at the end of the step with its force
//! (barrier and lagged friction), where the incremental potential is stationary (backward Euler).

use super::*;

impl Abd {
    /// Culls the pairs at the step's final positions and reports each one within d̂ into `st` (its point, normal,
    /// bodies and force, with κ `kappa_q`, the stiffness the positions were found with); returns the smallest
    /// squared distance.
    pub(super) fn report_contacts(&mut self, kappa_q: f64, h: f64, st: &mut StepStats) -> f64 {
        let he = self.he;
        self.surfaces.positions(&self.q, &mut self.x);
        culling::candidates(&self.surfaces, &self.x, None, &self.dynamic, self.dhat, &mut self.pairs, &mut self.groups);
        let dh2 = self.dhat * self.dhat;
        let mut dmin = f64::INFINITY;
        // the forces at the end of the step, where the incremental potential is stationary (backward Euler): each
        // pair's barrier force and the friction of its lagged contact, if any
        let eps = self.eps_v * he;
        let mut lagged: Vec<([u32; 4], usize)> = self.contacts.iter().enumerate().map(|(i, c)| (c.verts, i)).collect();
        lagged.sort_unstable();
        let mut matched = vec![false; self.contacts.len()];
        let body = |v: u32| self.surfaces.vertex_body[v as usize] as usize;
        // per body pair, the contact points it reported
        let mut spans = Vec::with_capacity(self.groups.len());
        let mut terms = Vec::new();
        for g in &self.groups {
            let first_point = st.contact_points.len();
            terms.clear();
            dmin = dmin.min(counted::counted(&self.x, &self.pairs[g.range.clone()], g.range.start, dh2, &mut terms));
            for &counted::Term { pair, xs, shape, kind, d } in &terms {
                let p = &self.pairs[pair];
                // every counted term is within d̂ (or touching): counted's minimum covers them all
                st.contacts += 1;
                // the midpoint of the closest points; the normal from the second primitive to the first
                let c = distance::closest_weights(kind, &xs, p.edge_edge);
                let sum = |ks: std::ops::Range<usize>| Vec3::from_array(std::array::from_fn(|r| ks.clone().map(|k| c[k] * xs[k][r]).sum()));
                let (rel, first) = (sum(0..4), sum(0..if p.edge_edge { 2 } else { 1 }));
                let friction = match lagged.binary_search_by_key(&p.verts, |e| e.0) {
                    Ok(k) => {
                        let i = lagged[k].1;
                        matched[i] = true;
                        self.contacts[i].force(&self.x, &self.xbase, eps)
                    }
                    Err(_) => Vec3::ZERO,
                };
                if rel.length() > 0.0 {
                    let n = rel.normalize();
                    st.contact_points.push(crate::method::ContactPoint {
                        point: first - 0.5 * rel,
                        normal: n,
                        bodies: [body(p.verts[0]), body(p.verts[3])],
                        force: n * barrier::force_magnitude(shape, &xs, d, dh2, kappa_q) + friction,
                    });
                }
                st.normal_impulse += h * barrier::force_magnitude(shape, &xs, d, dh2, self.kappa);
            }
            spans.push((g.bodies, first_point..st.contact_points.len()));
        }
        // a lagged contact that left d̂ during the step still had its friction: onto the nearest point of its body
        // pair (the bodies' totals stay whole), or a point of its own where the pair reported none
        for (c, _) in self.contacts.iter().zip(&matched).filter(|(_, &m)| !m) {
            let f = c.force(&self.x, &self.xbase, eps);
            if f == Vec3::ZERO {
                continue;
            }
            let b = [body(c.verts[0]), body(c.verts[3])];
            let xs = assemble::stencil(&self.x, &c.verts);
            let sum = |ks: std::ops::Range<usize>| Vec3::from_array(std::array::from_fn(|r| ks.clone().map(|k| c.c[k] * xs[k][r]).sum()));
            // an edge–edge contact's second vertex is on the first body
            let (rel, first) = (sum(0..4), sum(0..if body(c.verts[1]) == b[0] { 2 } else { 1 }));
            let point = first - 0.5 * rel;
            let key = [b[0].min(b[1]) as u32, b[0].max(b[1]) as u32];
            let points = &st.contact_points;
            let near = spans.binary_search_by_key(&key, |s| s.0).ok().and_then(|k| {
                spans[k].1.clone().min_by(|&i, &j| (points[i].point - point).length().total_cmp(&(points[j].point - point).length()))
            });
            match near {
                Some(i) => {
                    let cp = &mut st.contact_points[i];
                    cp.force += if cp.bodies == b { f } else { -f };
                }
                None if rel.length() > 0.0 => {
                    st.contact_points.push(crate::method::ContactPoint { point, normal: rel.normalize(), bodies: b, force: f })
                }
                None => {}
            }
        }
        dmin
    }
}
