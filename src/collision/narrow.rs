//! Narrow phase: persistent contact manifolds per body pair (parry), flattened into contact points.
//!
//! Contact identities persist across steps through parry's feature ids: the per-point data (`ContactData`)
//! survives in the cached manifolds, so a method can warm-start from last step's impulses.

use crate::math::{Pose, Vec3};
use crate::model::Model;
use crate::state::State;
use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry3d_f64::query::{ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher};

use super::broad::BroadPhase;

/// Data a method keeps per contact point between steps (warm-start impulses).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContactData {
    pub impulse: [f64; 6],
}

type Manifold = ContactManifold<(), ContactData>;

/// A cached body pair and its manifolds.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct PairEntry {
    pub a: u32,
    pub b: u32,
    pub manifolds: Vec<Manifold>,
    #[serde(with = "workspace_text")]
    workspace: Option<ContactManifoldsWorkspace>,
}

/// A manifold workspace in a snapshot: parry's workspaces for compound shapes hold maps keyed by index pairs,
/// which JSON cannot key, so the workspace is written as the hex text of its postcard encoding (a binary serde
/// format that keeps every float's bits). Read back from that text, or from the JSON object an older snapshot
/// of a convex pair holds.
mod workspace_text {
    use parry3d_f64::query::ContactManifoldsWorkspace;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(w: &Option<ContactManifoldsWorkspace>, s: S) -> Result<S::Ok, S::Error> {
        match w {
            None => s.serialize_none(),
            Some(w) => {
                let bytes = postcard::to_allocvec(w).map_err(serde::ser::Error::custom)?;
                let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                s.serialize_some(&hex)
            }
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Hex(String),
        Object(ContactManifoldsWorkspace),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ContactManifoldsWorkspace>, D::Error> {
        match Option::<Stored>::deserialize(d)? {
            None => Ok(None),
            Some(Stored::Object(w)) => Ok(Some(w)),
            Some(Stored::Hex(h)) => {
                let bad = || serde::de::Error::custom("a manifold workspace's hex text is malformed");
                if h.len() % 2 != 0 {
                    return Err(bad());
                }
                let bytes = (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(h.get(i..i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
                    .collect::<Result<Vec<u8>, _>>()?;
                postcard::from_bytes(&bytes).map(Some).map_err(serde::de::Error::custom)
            }
        }
    }
}

impl std::fmt::Debug for PairEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PairEntry").field("a", &self.a).field("b", &self.b).field("manifolds", &self.manifolds.len()).finish()
    }
}

/// The persistent part of the narrow phase, carried in the state from step to step: the body pairs within
/// reach, sorted, each with parry's contact manifolds (feature ids, normals, warm-start data per point) and its
/// manifold workspace.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct PairCache {
    pub pairs: Vec<PairEntry>,
}

/// One contact point between bodies `a` and `b`.
#[derive(Debug, Clone, Copy)]
pub struct Contact {
    pub a: usize,
    pub b: usize,
    /// Unit normal, pointing from `a` towards `b`.
    pub normal: Vec3,
    /// World point on `a`'s surface and on `b`'s.
    pub point_a: Vec3,
    pub point_b: Vec3,
    /// Signed distance along the normal: negative when penetrating.
    pub dist: f64,
    /// Where the persistent data lives: pair, manifold, point.
    pub pair: u32,
    pub manifold: u32,
    pub slot: u32,
    /// The data carried over from the previous step (zero for a new contact).
    pub data: ContactData,
}

/// Collision workspace: broad phase, pair cache, and the buffers reused every step.
#[derive(Default)]
pub struct Collision {
    broad: BroadPhase,
    aabbs: Vec<Aabb>,
    movable: Vec<bool>,
    candidates: Vec<(u32, u32)>,
    /// Per body: whether it takes part in this detection (dynamic and awake, or woken by it).
    active: Vec<bool>,
    /// Per pair: whether its manifolds are up to date already (detected while looking for what wakes).
    done: Vec<bool>,
    /// The sleeping islands (`Sleep::island`) this detection found touched by a body that stirs, sorted: the
    /// method wakes them (`Collision::wake`).
    pub woken: Vec<u32>,
    pub pairs: Vec<PairEntry>,
    pub contacts: Vec<Contact>,
}

/// Pose of body `i`'s reference frame.
pub fn body_pose(model: &Model, state: &State, i: usize) -> Pose {
    Pose::from_parts(state.origin(model, i), state.bodies[i].q)
}

impl Collision {
    /// Finds all contact points with distance below the pair's prediction distance at the current state:
    /// `margin` plus, when `lookahead > 0`, how far the two bodies can approach within `lookahead` seconds at
    /// their current speeds (speculative contacts, so that fast bodies are caught before they pass into each
    /// other). Contacts come out in a deterministic order (by body pair, then manifold, then point).
    pub fn detect(&mut self, model: &Model, state: &State, margin: f64, lookahead: f64) {
        let n = model.bodies.len();
        self.aabbs.clear();
        self.movable.clear();
        for i in 0..n {
            let pose = body_pose(model, state, i);
            let reach = Self::reach(model, state, i, lookahead);
            self.aabbs.push(model.bodies[i].geometry.shape.compute_aabb(&pose).loosened(0.5 * margin + reach));
            self.movable.push(model.bodies[i].kind == crate::model::BodyKind::Dynamic);
        }
        self.broad.find_pairs(&self.aabbs, &self.movable, &model.exclusions, &mut self.candidates);

        // carry the manifolds of pairs that persist over, in sorted order
        let mut old = std::mem::take(&mut self.pairs).into_iter().peekable();
        for &(a, b) in &self.candidates {
            while old.peek().is_some_and(|p| (p.a, p.b) < (a, b)) {
                old.next();
            }
            let entry = match old.peek() {
                Some(p) if (p.a, p.b) == (a, b) => old.next().unwrap(),
                _ => PairEntry { a, b, manifolds: Vec::new(), workspace: None },
            };
            self.pairs.push(entry);
        }

        // sleeping bodies (dynamics/sleep.rs) take no part unless a body that stirs touches them: those pairs
        // are detected first, and a contact wakes the sleeper's island for this step
        self.active.clear();
        self.active.extend((0..n).map(|i| crate::dynamics::sleep::awake(model, state, i)));
        self.woken.clear();
        self.done.clear();
        self.done.resize(self.pairs.len(), false);
        if state.sleep.any() {
            let sleep = &state.sleep;
            for pi in 0..self.pairs.len() {
                let (a, b) = (self.pairs[pi].a as usize, self.pairs[pi].b as usize);
                let stirred = |s: usize, o: usize| sleep.asleep(s) && crate::dynamics::sleep::stirs(model, state, o);
                if !(stirred(a, b) || stirred(b, a)) {
                    continue;
                }
                self.done[pi] = true;
                if self.manifolds(model, state, pi, margin, lookahead).is_some_and(|touching| touching) {
                    self.woken.extend([a, b].into_iter().filter(|&i| sleep.asleep(i)).map(|i| sleep.island[i]));
                }
            }
            self.woken.sort_unstable();
            self.woken.dedup();
            for i in 0..n {
                if sleep.asleep(i) && self.woken.binary_search(&sleep.island[i]).is_ok() {
                    self.active[i] = true;
                }
            }
        }

        self.contacts.clear();
        for pi in 0..self.pairs.len() {
            let (a, b) = (self.pairs[pi].a as usize, self.pairs[pi].b as usize);
            if !(self.active[a] || self.active[b]) {
                continue; // asleep, or asleep against a fixed body: its manifolds wait as they are
            }
            if !self.done[pi] && self.manifolds(model, state, pi, margin, lookahead).is_none() {
                continue; // every shape pair the scene format allows is supported; nothing to collect otherwise
            }
            let prediction = margin + Self::reach(model, state, a, lookahead) + Self::reach(model, state, b, lookahead);
            let pose_a = body_pose(model, state, a);
            let pose_b = body_pose(model, state, b);
            for (mi, m) in self.pairs[pi].manifolds.iter().enumerate() {
                let w1 = pose_a * m.subshape_pos1().copied().unwrap_or(Pose::IDENTITY);
                let w2 = pose_b * m.subshape_pos2().copied().unwrap_or(Pose::IDENTITY);
                let normal = w1.rotation * m.local_n1;
                for (si, p) in m.points.iter().enumerate() {
                    if p.dist > prediction {
                        continue;
                    }
                    self.contacts.push(Contact {
                        a,
                        b,
                        normal,
                        point_a: w1.transform_point(p.local_p1),
                        point_b: w2.transform_point(p.local_p2),
                        dist: p.dist,
                        pair: pi as u32,
                        manifold: mi as u32,
                        slot: si as u32,
                        data: p.data,
                    });
                }
            }
        }
    }

    /// Updates pair `pi`'s manifolds at the current poses; whether a point lies within the pair's prediction
    /// distance (`None` when parry cannot collide the shapes).
    fn manifolds(&mut self, model: &Model, state: &State, pi: usize, margin: f64, lookahead: f64) -> Option<bool> {
        let entry = &mut self.pairs[pi];
        let (a, b) = (entry.a as usize, entry.b as usize);
        let pos12 = body_pose(model, state, a).inverse() * body_pose(model, state, b);
        let ga = &model.bodies[a].geometry.shape;
        let gb = &model.bodies[b].geometry.shape;
        let prediction = margin + Self::reach(model, state, a, lookahead) + Self::reach(model, state, b, lookahead);
        DefaultQueryDispatcher
            .contact_manifolds(&pos12, ga.as_ref(), gb.as_ref(), prediction, &mut entry.manifolds, &mut entry.workspace)
            .ok()?;
        Some(entry.manifolds.iter().any(|m| m.points.iter().any(|p| p.dist <= prediction)))
    }

    /// How far any point of body `i` can move in `lookahead` seconds at its current velocities.
    fn reach(model: &Model, state: &State, i: usize, lookahead: f64) -> f64 {
        if lookahead <= 0.0 {
            return 0.0;
        }
        let s = &state.bodies[i];
        lookahead * (s.v.length() + s.w.length() * model.bodies[i].geometry.radius_about_com)
    }

    /// Wakes the islands this detection found touched (`woken`) in `sleep`.
    pub fn wake(&self, sleep: &mut crate::dynamics::sleep::Sleep) {
        for i in 0..sleep.island.len() {
            if sleep.asleep(i) && self.woken.binary_search(&sleep.island[i]).is_ok() {
                sleep.wake(i);
            }
        }
    }

    /// Takes the persistent pair cache out of the state for the duration of a step.
    pub fn borrow_pairs(&mut self, state: &mut State) {
        self.pairs = std::mem::take(&mut state.contacts.pairs);
    }

    /// Gives the pair cache back to the state at the end of a step.
    pub fn return_pairs(&mut self, state: &mut State) {
        state.contacts.pairs = std::mem::take(&mut self.pairs);
    }

    /// Stores per-contact data back into the manifolds so that it persists to the next step.
    pub fn store(&mut self, index: usize, data: ContactData) {
        let c = self.contacts[index];
        self.pairs[c.pair as usize].manifolds[c.manifold as usize].points[c.slot as usize].data = data;
    }

    /// Largest penetration depth (≥ 0) among the current contacts.
    pub fn max_penetration(&self) -> f64 {
        self.contacts.iter().fold(0.0f64, |m, c| m.max(-c.dist))
    }
}
