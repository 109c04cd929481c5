//! Sleeping: an island of bodies that has stayed still for a while leaves the step (no detection among its
//! bodies, no rows, no integration) until something that moves touches it, a force is applied to it, or its
//! pose or velocity is set from outside. What is asleep is part of the state (a snapshot restores it).
//!
//! Still: a body's fastest point, |v| + |ω|·r (r its radius about its centre of mass), below `[world]
//! sleep_speed`. An island (bodies joined by this step's contacts and joints; fixed and kinematic bodies do not
//! join) falls asleep when every body in it has been still for `sleep_time`. Bodies that are driven never sleep,
//! nor do their islands: a haptic proxy's body, a body on a joint with a motor, a body under a scene load that
//! has not ended. Methods that sleep report so ([`crate::method::Method::sleeps`]); see docs/scene-format.md, "Sleeping".

use crate::model::{BodyKind, Model};
use crate::state::State;

/// `[world] sleep`, `sleep_speed`, `sleep_time`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SleepParams {
    pub enabled: bool,
    /// A body whose fastest point moves slower than this is still, m/s.
    pub speed: f64,
    /// An island whose bodies have all been still this long falls asleep, s.
    pub time: f64,
}

impl Default for SleepParams {
    fn default() -> Self {
        SleepParams { enabled: true, speed: 0.01, time: 0.5 }
    }
}

/// Marks an awake body in [`Sleep::island`].
pub const AWAKE: u32 = u32::MAX;

/// What is asleep, per body; empty before the first step that sleeps (every body awake).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sleep {
    /// How long each body has been still, s.
    pub still: Vec<f64>,
    /// The island a sleeping body fell asleep with (the smallest body index in it), [`AWAKE`] for a body awake.
    pub island: Vec<u32>,
    /// Bodies whose pose or velocity was set from outside since the last step: they wake what they touch in
    /// the next step, as a moving body does.
    #[serde(default)]
    pub stirred: Vec<usize>,
    /// The contact points of the sleeping bodies as the step before they fell asleep reported them (forces
    /// included): the world reports them for every step they sleep, so that sensors and contact forces read a
    /// resting body's weight as before.
    #[serde(default)]
    pub contacts: Vec<crate::method::ContactPoint>,
    /// The same for the joints of sleeping bodies: (joint, its bodies, what it applied).
    #[serde(default)]
    pub joints: Vec<(usize, [usize; 2], crate::method::JointReading)>,
}

impl Sleep {
    /// Whether body `i` is asleep.
    #[inline]
    pub fn asleep(&self, i: usize) -> bool {
        self.island.get(i).is_some_and(|&k| k != AWAKE)
    }

    /// Whether any body is asleep.
    pub fn any(&self) -> bool {
        self.island.iter().any(|&k| k != AWAKE)
    }

    /// Bodies asleep.
    pub fn count(&self) -> usize {
        self.island.iter().filter(|&&k| k != AWAKE).count()
    }

    /// Wakes body `i` and every body that fell asleep with it; its stillness starts again.
    pub fn wake(&mut self, i: usize) {
        let Some(&k) = self.island.get(i) else { return };
        if k == AWAKE {
            if let Some(s) = self.still.get_mut(i) {
                *s = 0.0;
            }
            return;
        }
        for (isl, still) in self.island.iter_mut().zip(self.still.iter_mut()) {
            if *isl == k {
                *isl = AWAKE;
                *still = 0.0;
            }
        }
        let island = &self.island;
        let asleep = |b: usize| island.get(b).is_some_and(|&k| k != AWAKE);
        self.contacts.retain(|c| c.bodies.iter().any(|&b| asleep(b)));
        self.joints.retain(|(_, bodies, _)| bodies.iter().any(|&b| asleep(b)));
    }

    /// Body `i`'s pose or velocity was set from outside: it wakes, and wakes what it touches in the next step.
    pub fn stir(&mut self, i: usize) {
        self.wake(i);
        if !self.stirred.contains(&i) {
            self.stirred.push(i);
        }
    }

    /// Wakes every body.
    pub fn wake_all(&mut self) {
        self.island.iter_mut().for_each(|k| *k = AWAKE);
        self.still.iter_mut().for_each(|s| *s = 0.0);
    }
}

/// Whether body `i` takes part in the step: dynamic and not asleep.
#[inline]
pub fn awake(model: &Model, state: &State, i: usize) -> bool {
    model.bodies[i].kind == BodyKind::Dynamic && !state.sleep.asleep(i)
}

/// Whether body `i` can wake a sleeping body it touches: a dynamic body awake, a kinematic body moving, a body
/// set from outside since the last step.
pub fn stirs(model: &Model, state: &State, i: usize) -> bool {
    if state.sleep.stirred.contains(&i) {
        return true;
    }
    match model.bodies[i].kind {
        BodyKind::Dynamic => !state.sleep.asleep(i),
        BodyKind::Kinematic => {
            let s = &state.bodies[i];
            s.v != crate::math::Vec3::ZERO || s.w != crate::math::Vec3::ZERO
        }
        _ => false,
    }
}

/// For a method whose contacts need the bodies' bounds to overlap (the penalty methods), with `pairs` its broad
/// phase's body pairs (over every dynamic body, asleep or not): wakes each sleeping island whose bounds a body
/// that stirs overlaps, then keeps the pairs with a body awake (the others wait as they are).
pub fn wake_and_keep(model: &Model, state: &mut State, pairs: &mut Vec<(u32, u32)>) {
    if !state.sleep.any() {
        return;
    }
    let mut woken = Vec::new();
    for &(a, b) in pairs.iter() {
        let (a, b) = (a as usize, b as usize);
        for (s, o) in [(a, b), (b, a)] {
            if state.sleep.asleep(s) && stirs(model, state, o) {
                woken.push(s);
            }
        }
    }
    for i in woken {
        state.sleep.wake(i);
    }
    pairs.retain(|&(a, b)| awake(model, state, a as usize) || awake(model, state, b as usize));
}

/// Before a step: wakes the islands of bodies that a force or torque applied from outside acts on this step
/// (`World::apply_force`, the actuators' wrenches), and of the bodies of a joint whose coordinate takes a
/// force (`State::joint_forces`).
pub fn wake_driven(model: &Model, state: &mut State) {
    if !state.sleep.any() {
        return;
    }
    let zero = crate::math::Vec3::ZERO;
    let mut driven: Vec<usize> = state.applied.iter().filter(|a| a.force != zero || a.torque != zero).map(|a| a.body).collect();
    for (k, &f) in state.joint_forces.iter().enumerate() {
        if f != 0.0 {
            if let Some(j) = model.joints.get(k) {
                driven.push(j.body1);
                driven.extend(j.body2);
            }
        }
    }
    for i in driven {
        state.sleep.wake(i);
    }
}

/// Bodies that never sleep (nor their islands): a proxy's body, a body on a joint with a motor, a body under a
/// scene load that has not ended at `time`.
fn restless(model: &Model, state: &State, time: f64) -> Vec<bool> {
    let mut r = vec![false; model.bodies.len()];
    for p in &model.proxies {
        r[p.body] = true;
    }
    for (j, t) in model.joints.iter().zip(&state.motor_targets) {
        if t.is_some() {
            r[j.body1] = true;
            if let Some(b) = j.body2 {
                r[b] = true;
            }
        }
    }
    for l in model.loads.iter().filter(|l| time < l.end) {
        r[l.body] = true;
    }
    r
}

/// After a step of a method that sleeps: the step's outputs (`stats`) gain what the sleeping bodies report (their
/// contact points and joint readings from before they fell asleep); each awake body's stillness advances or
/// restarts, and each island (joined by this step's contacts and the joints) whose bodies have all been still
/// for `sleep_time` falls asleep, its velocities zeroed and its contacts and joint readings kept.
pub fn update(model: &Model, state: &mut State, stats: &mut crate::method::StepStats) {
    let p = model.sleep;
    let n = model.bodies.len();
    if !p.enabled || n == 0 {
        return;
    }
    if state.sleep.island.len() != n || state.sleep.still.len() != n {
        state.sleep.still = vec![0.0; n];
        state.sleep.island = vec![AWAKE; n];
    }
    let restless = restless(model, state, state.time);
    let joins: Vec<bool> = (0..n).map(|i| awake(model, state, i)).collect();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let contacts = stats.contact_points.iter().map(|c| (c.bodies[0], c.bodies[1]));
    let joints = model.joints.iter().filter_map(|j| j.body2.map(|b| (j.body1, b)));
    for (a, b) in contacts.chain(joints) {
        if a < n && b < n && joins[a] && joins[b] {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    // the shortest stillness per island (restless bodies count as never still)
    let mut least = vec![f64::INFINITY; n];
    for i in 0..n {
        if !joins[i] {
            continue;
        }
        let s = &state.bodies[i];
        let speed = s.v.length() + s.w.length() * model.bodies[i].geometry.radius_about_com;
        let still = &mut state.sleep.still[i];
        *still = if restless[i] || !(speed < p.speed) { 0.0 } else { *still + model.dt };
        let r = find(&mut parent, i);
        least[r] = least[r].min(*still);
    }
    // what the sleeping bodies report, before this step's sleepers join them (counted with the method's)
    stats.contact_points.extend_from_slice(&state.sleep.contacts);
    stats.contacts += state.sleep.contacts.len();
    for &(k, _, r) in &state.sleep.joints {
        if let Some(slot) = stats.joints.get_mut(k) {
            *slot = r;
        }
    }
    let mut fell = vec![false; n];
    for i in 0..n {
        if joins[i] && least[find(&mut parent, i)] >= p.time {
            fell[i] = true;
            // the root is the island's smallest index (unions keep the smaller root)
            state.sleep.island[i] = find(&mut parent, i) as u32;
            state.bodies[i].v = crate::math::Vec3::ZERO;
            state.bodies[i].w = crate::math::Vec3::ZERO;
        }
    }
    if fell.iter().any(|&f| f) {
        let new = |b: usize| b < n && fell[b];
        state.sleep.contacts.extend(stats.contact_points.iter().filter(|c| new(c.bodies[0]) || new(c.bodies[1])));
        for (k, j) in model.joints.iter().enumerate() {
            let b2 = j.body2.unwrap_or(usize::MAX);
            if new(j.body1) || new(b2) {
                let r = stats.joints.get(k).copied().unwrap_or_default();
                state.sleep.joints.push((k, [j.body1, b2], r));
            }
        }
    }
    stats.sleeping = state.sleep.count();
}
