//! Landings as impacts (`VolumetricParams::landing_impacts`): a body that lands on one resting on something else
//! rides the penalty spring back up (a cube on an equal one at 0.45 of its speed, a 1000 times heavier one at
//! 0.96), because the lower body between the two contacts bounds every damper it
//! takes part in (explicit integration) while stopping the landing body asks for a damper sized for the chain. So
//! a body pair whose points approach faster than the impact speed and that carries more than [`LANDING_LOAD`] times
//! its reduced mass takes Newton's impact law as impulses over the overlaps the substep
//! found (with the pairs it pushes against), then shock propagation (`dynamics::impact`); its new contacts'
//! springs then act beyond the depth it landed at. See docs/methods/volumetric-penalty.md, "Landings as impacts".

use super::friction::Anchor;
use super::Volumetric;
use crate::dynamics::impact::{heavy_landings, joined_to_impacts, mobilities, relative, resolve, ImpactRow};
use crate::dynamics::support::SupportPair;
use crate::method::ContactPoint;
use crate::model::Model;
use crate::state::State;

/// A fast pair is a landing where it carries more than this many times its reduced mass: the landing body is more
/// than half as heavy as the one it lands on, which rests on another (a cube dropped on an equal one rebounded at
/// 0.45 of its speed on the springs alone, the pair's damper being sized for the two bodies; at ratio 1000, 0.96),
/// or a loaded body rings on its support.
const LANDING_LOAD: f64 = 1.5;

impl Volumetric {
    /// The substep's landings (substep `h`, one of `substeps` in the frame) on the velocities at its start:
    /// impulses into the bodies' velocities, reported in the frame's contact wrenches and points as forces over
    /// the substep. Returns the normal impulses' sum, N·s.
    pub(super) fn landing_impacts(&mut self, model: &Model, state: &mut State, h: f64, substeps: u32) -> f64 {
        if !self.params.landing_impacts || self.overlaps.is_empty() {
            return 0.0;
        }
        let speed = self.params.impact_speed_for(model.gravity.length(), h);
        let point = |o: &super::Overlap| (o.point_a + o.point_b) * 0.5;
        let approach = |state: &State, o: &super::Overlap| {
            let x = point(o);
            o.normal.dot(relative(state, o.a, o.b, x - state.bodies[o.a].x, x - state.bodies[o.b].x))
        };
        if !self.overlaps.iter().any(|o| approach(state, o) < -speed) {
            return 0.0;
        }
        // the body pairs: runs of overlaps (sorted by key, so by bodies)
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for (k, o) in self.overlaps.iter().enumerate() {
            match runs.last_mut() {
                Some(r) if (self.overlaps[r.0].a, self.overlaps[r.0].b) == (o.a, o.b) => r.1 = k + 1,
                _ => runs.push((k, k + 1)),
            }
        }
        // each pair's fastest approach (m/s, > 0 approaching)
        let arrival: Vec<f64> =
            runs.iter().map(|&(s, e)| self.overlaps[s..e].iter().map(|o| -approach(state, o)).fold(0.0, f64::max)).collect();
        let fast: Vec<bool> = arrival.iter().map(|&u| u > speed).collect();
        let support: Vec<SupportPair> = runs
            .iter()
            .map(|&(s, e)| {
                let o = &self.overlaps[s];
                SupportPair { a: o.a, b: o.b, normal: self.overlaps[s..e].iter().map(|o| o.normal).sum() }
            })
            .collect();
        let landing = heavy_landings(model, state, &support, &fast, LANDING_LOAD);
        if !landing.iter().any(|&l| l) {
            return 0.0;
        }
        let mob = mobilities(model, state);
        let bodies: Vec<(usize, usize)> = support.iter().map(|p| (p.a, p.b)).collect();
        let joined = joined_to_impacts(&bodies, &landing, &mob);
        // a pair's rows at the corners of its pieces' intersection (one row at EPA's points would spin a face
        // that lands flat), or at EPA's point where the intersection has no volume
        let overlaps = std::mem::take(&mut self.overlaps);
        let mut rows = Vec::new();
        let mut corners = Vec::new();
        for (&(s, e), _) in runs.iter().zip(&joined).filter(|(_, &j)| j) {
            for (k, o) in overlaps[s..e].iter().enumerate() {
                let (mu, _, restitution) = model.pair_material(o.a, o.b);
                let (pa, pb) =
                    (crate::collision::narrow::body_pose(model, state, o.a), crate::collision::narrow::body_pose(model, state, o.b));
                corners.clear();
                if self.intersect_pieces(&pa, &pb, (o.a, o.key.2 as usize), (o.b, o.key.3 as usize)) {
                    corners.extend_from_slice(&self.isect.polygon);
                    corners.sort_by(|p, q| p.to_array().partial_cmp(&q.to_array()).unwrap_or(std::cmp::Ordering::Equal));
                    corners.dedup();
                }
                if corners.is_empty() {
                    corners.push(point(o));
                }
                for &x in &corners {
                    let arms = (x - state.bodies[o.a].x, x - state.bodies[o.b].x);
                    rows.extend(ImpactRow::new(state, &mob, (o.a, o.b), o.normal, arms, (restitution, mu, speed), (s + k) as u32));
                }
            }
        }
        self.overlaps = overlaps;
        resolve(model, state, &mob, &mut rows);
        // a landing pair's new contacts: their springs act from the depth the impact found them at, no deeper than
        // the arrival ran in a substep (a contact that lost its anchor, asleep or a sliver, is new too); a contact
        // whose spring already acted keeps its depths (a landing depth taken at every fast approach of a loaded
        // pair would let it sink step by step)
        let g = model.gravity.length();
        for ((&(s, e), _), &u) in runs.iter().zip(&landing).zip(&arrival).filter(|((_, &h), _)| h) {
            for o in &self.overlaps[s..e] {
                if let Err(k) = self.anchors.binary_search_by_key(&o.key, |e| e.0) {
                    let landing = o.depth.min(u * h + g * h * h);
                    self.anchors.insert(k, (o.key, Anchor { landing, ..Anchor::default() }));
                }
            }
        }
        // reported as forces over the substep, averaged over the frame's substeps
        let w = 1.0 / (h * f64::from(substeps));
        let known = self.frame_points.len();
        let mut total = 0.0;
        for r in rows.iter().filter(|r| r.jn > 0.0) {
            let j = r.impulse();
            total += r.jn;
            let x = state.bodies[r.f].x + r.arm_f;
            for (i, sign) in [(r.s, 1.0), (r.f, -1.0)] {
                self.frame_force[i] += j * (sign * w);
                self.frame_torque[i] += (x - state.bodies[i].x).cross(j * (sign * w));
            }
            // the piece pair's point reports the force on A (`r.f`), its corners' impulses summed
            let o = &self.overlaps[r.tag as usize];
            match self.frame_points[..known].binary_search_by_key(&o.key, |e| e.0) {
                Ok(i) => self.frame_points[i].1.force -= j * w,
                Err(_) => match self.frame_points[known..].iter_mut().find(|e| e.0 == o.key) {
                    Some(e) => e.1.force -= j * w,
                    None => {
                        let c = ContactPoint { point: point(o), normal: o.normal, bodies: [o.a, o.b], force: -j * w };
                        self.frame_points.push((o.key, c));
                    }
                },
            }
        }
        if self.frame_points.len() > known {
            self.frame_points.sort_unstable_by_key(|e| e.0);
        }
        total
    }

    /// Before the first substep of a run: contacts that start deep (a public model's zero pose puts the Franka
    /// arm's hand 30 mm into its fifth link) keep their depth as a landing depth, so that the spring pushes the
    /// bodies apart as the depth relaxes (at half the impact speed) instead of throwing them apart in a substep,
    /// as MuJoCo's soft contacts let such starts settle.
    pub(super) fn start_depths(&mut self) {
        for o in &self.overlaps {
            if let Err(k) = self.anchors.binary_search_by_key(&o.key, |e| e.0) {
                self.anchors.insert(k, (o.key, Anchor { landing: o.depth, ..Anchor::default() }));
            }
        }
    }
}
