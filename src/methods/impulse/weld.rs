//! Welded bodies in contact: dynamic bodies joined by `fixed` joints move as one rigid body, and a contact
//! impulse on one of them is resolved with the mass and inertia of the whole weld.
//!
//! Why: a contact resolved with one member's mass alone is undone by the next joint pass, which shares the
//! member's momentum change with the rest of the weld; the composite gives at once the rigid motion the joint
//! would converge on. See docs/methods/impulse.md, "Welds".

use crate::math::{Mat3, Vec3};
use crate::model::{BodyKind, JointType, Model};
use crate::state::State;

/// No weld: the body is on its own.
const NONE: u32 = u32::MAX;

/// A weld: its inverse mass, world inverse inertia about its centre of mass `xc`, and its members
/// (`Welds::members[first..first + len]`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Composite {
    pub inv_m: f64,
    pub inv_i: Mat3,
    pub xc: Vec3,
    first: u32,
    len: u32,
}

/// The welds of a step (empty when the scene has no fixed joint between two dynamic bodies).
#[derive(Debug, Default)]
pub(super) struct Welds {
    /// Per body: its weld, or `NONE`.
    of: Vec<u32>,
    comps: Vec<Composite>,
    members: Vec<u32>,
    /// Union–find parents (workspace).
    parent: Vec<usize>,
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

impl Welds {
    /// The welds of `model` at the poses `pred`; `inv_i[k]` is body k's world inverse inertia there.
    /// `moves(k)`: body k is dynamic and awake (a sleeping body is fixed for the step).
    pub fn build(&mut self, model: &Model, pred: &State, inv_i: impl Fn(usize) -> Mat3, moves: impl Fn(usize) -> bool) {
        self.of.clear();
        self.comps.clear();
        self.members.clear();
        let dynamic = |b: usize| model.bodies[b].kind == BodyKind::Dynamic && moves(b);
        let welds = model.joints.iter().filter_map(|j| match (j.kind, j.body2) {
            (JointType::Fixed, Some(b)) if dynamic(j.body1) && dynamic(b) && b != j.body1 => Some((j.body1, b)),
            _ => None,
        });
        if welds.clone().next().is_none() {
            return;
        }
        let n = model.bodies.len();
        self.parent.clear();
        self.parent.extend(0..n);
        for (a, b) in welds {
            let (ra, rb) = (root(&mut self.parent, a), root(&mut self.parent, b));
            // the smaller index is the root: the welds come out in body order whatever the joints' order
            self.parent[ra.max(rb)] = ra.min(rb);
        }
        self.of.resize(n, NONE);
        for i in 0..n {
            let r = root(&mut self.parent, i);
            if r == i {
                continue;
            }
            if self.of[r] == NONE {
                self.of[r] = self.comps.len() as u32;
                self.comps.push(Composite { inv_m: 0.0, inv_i: Mat3::ZERO, xc: Vec3::ZERO, first: 0, len: 0 });
            }
            self.of[i] = self.of[r];
        }
        // members in body order, grouped by weld
        let mut count = vec![0u32; self.comps.len()];
        for &w in self.of.iter().filter(|&&w| w != NONE) {
            count[w as usize] += 1;
        }
        let mut first = 0;
        for (c, k) in self.comps.iter_mut().zip(&count) {
            c.first = first;
            first += k;
        }
        self.members.resize(first as usize, 0);
        for (i, &w) in self.of.iter().enumerate() {
            if w != NONE {
                let c = &mut self.comps[w as usize];
                self.members[(c.first + c.len) as usize] = i as u32;
                c.len += 1;
            }
        }
        for c in &mut self.comps {
            let ids = &self.members[c.first as usize..(c.first + c.len) as usize];
            let mass: f64 = ids.iter().map(|&k| model.bodies[k as usize].mass).sum();
            let xc = ids.iter().map(|&k| model.bodies[k as usize].mass * pred.bodies[k as usize].x).sum::<Vec3>() / mass;
            let mut inertia = Mat3::ZERO;
            for &k in ids {
                let d = pred.bodies[k as usize].x - xc;
                let m = model.bodies[k as usize].mass;
                // parallel axes: I_k + m_k(|d|² 1 − d dᵀ)
                let dd = Mat3::from_cols(d * d.x, d * d.y, d * d.z);
                inertia += inv_i(k as usize).inverse() + (Mat3::IDENTITY * d.length_squared() - dd) * m;
            }
            c.inv_m = 1.0 / mass;
            c.inv_i = inertia.inverse();
            c.xc = xc;
        }
    }

    /// Body `b`'s weld, if it has one.
    pub fn of(&self, b: usize) -> Option<&Composite> {
        match self.of.get(b) {
            Some(&w) if w != NONE => Some(&self.comps[w as usize]),
            _ => None,
        }
    }

    /// The members of weld `c`.
    pub fn members(&self, c: &Composite) -> &[u32] {
        &self.members[c.first as usize..(c.first + c.len) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body's velocity change under an impulse applied through its weld equals the rigid composite's: two unit
    /// masses 2 m apart take an impulse at one end; the composite turns about the midpoint.
    #[test]
    fn composite_of_two_point_like_bodies() {
        let src = r#"
format = 1
[world]
dt = 0.01
method = "impulse"
[[body]]
name = "a"
shape = { type = "sphere", radius = 0.1 }
position = [-1.0, 0.0, 1.0]
mass = 1.0
[[body]]
name = "b"
shape = { type = "sphere", radius = 0.1 }
position = [1.0, 0.0, 1.0]
mass = 1.0
[[body]]
name = "c"
shape = { type = "sphere", radius = 0.1 }
position = [5.0, 0.0, 1.0]
mass = 1.0
[[joint]]
type = "fixed"
body1 = "b"
body2 = "a"
anchor = [0.0, 0.0, 1.0]
axis = [0.0, 1.0, 0.0]
"#;
        let model = crate::scene::load_str(src, "weld.toml", "weld", std::path::Path::new("."), &[]).unwrap();
        let state = State::from_model(&model);
        let mut w = Welds::default();
        w.build(&model, &state, |k| crate::dynamics::integrate::inv_inertia_world(&model, k, state.bodies[k].q), |_| true);
        assert!(w.of(2).is_none());
        let c = *w.of(0).expect("a is welded");
        assert_eq!(w.members(&c), &[0, 1]);
        assert!((c.inv_m - 0.5).abs() < 1e-15);
        assert!((c.xc - Vec3::new(0.0, 0.0, 1.0)).length() < 1e-15);
        // about z: 2·(0.4·0.01) spheres' own + 2·1·1 parallel axes
        let izz = 2.0 * 0.4 * 0.01 + 2.0;
        assert!((c.inv_i.z_axis.z - 1.0 / izz).abs() < 1e-12, "{:?}", c.inv_i);
    }
}
