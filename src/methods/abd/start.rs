//! The start of a run: the coordinates from the rigid state, κ, the separation of bodies that touch
//! (separate.rs), and the check that every two bodies are apart.

use super::*;
use crate::dynamics::integrate::external_wrench;

impl Abd {
    pub(super) fn start(&mut self, model: &Model, state: &mut State, h: f64) -> Result<(), SimError> {
        // coordinates outside their limits (the barrier cannot start there) are moved just inside: two reaches
        let dhat = self.dhat;
        let reach = |j: usize| if model.joints[j].kind == crate::model::JointType::Hinge { super::joints::ANGLE_REACH } else { dhat };
        let moved = crate::dynamics::limit_start::move_into_limits(model, state, |j| 2.0 * reach(j));
        if let Some(first) = moved.first() {
            let name = |j: usize| model.joint_name(j);
            self.notes.push(format!(
                "abd: {} joint coordinate(s) started outside their limits and were moved just inside before the first step \
                 (its limit barriers cannot start beyond them; MuJoCo's soft limits push them in): first `{}` from {:.6} to {:.6}",
                moved.len(),
                name(first.joint),
                first.from,
                first.to
            ));
        }
        self.q.clear();
        self.qd.clear();
        self.history = None;
        self.pairs_at_q = false;
        for s in &state.bodies {
            self.q.extend(affine::q_from_rigid(s.x, s.q));
            self.qd.extend(affine::qdot_from_rigid(s.q, s.v, s.w));
        }
        let dynamic: Vec<&crate::model::Body> = model.bodies.iter().filter(|b| b.kind == BodyKind::Dynamic).collect();
        let mbar = if dynamic.is_empty() { 1.0 } else { dynamic.iter().map(|b| b.mass).sum::<f64>() / dynamic.len() as f64 };
        let dh2 = self.dhat * self.dhat;
        let kmin = mbar / (h * h * dh2 * barrier::b2(0.25 * dh2, dh2));
        self.kappa_max = 1e6 * self.params.kappa.unwrap_or(kmin).max(kmin);
        // one body inside another, or two at one place: refused before the separation's sweeps, which would
        // push them for seconds and fail all the same
        let x = self.vertex_positions();
        let dynamic = |a: usize, b: usize| self.dynamic[a] && self.dynamic[b];
        if let Some((pair, how)) = crate::collision::overlap::first_overlap(&self.surfaces, &x, 0.5 * self.dhat, dynamic) {
            return Err(self.overlapping(model, state, pair, how));
        }
        self.separate(model, state)?;
        // IPC's κ0 (ipc-toolkit's adaptive stiffness): the stiffness that balances the loads against the barrier at
        // the start, where bodies rest on each other; the floor of pairs not yet in contact otherwise
        self.kappa = match self.params.kappa {
            Some(k) => k,
            None => self.balancing_kappa(model, &state.applied, state.time).map_or(kmin, |k| k.min(self.kappa_max)),
        };
        // the barrier needs a positive distance between every two bodies to begin with
        let x = self.vertex_positions();
        let mut pairs = Vec::new();
        let mut groups = Vec::new();
        culling::candidates(&self.surfaces, &x, None, &self.dynamic, 0.0, &mut pairs, &mut groups);
        for g in &groups {
            for p in &pairs[g.range.clone()] {
                let shape = barrier::PairShape { edge_edge: p.edge_edge, eps_x: p.eps_x };
                if barrier::classify(shape, &assemble::stencil(&x, &p.verts)).1 <= 0.0 {
                    return Err(self.touching(model, state, g));
                }
            }
        }
        // (pairs of static or kinematic bodies never meet in a step, so they may touch or cross)
        let keep = |a: usize, b: usize| self.dynamic[a] || self.dynamic[b];
        if let Some(bodies) = check::first_crossing(&self.surfaces, &x, keep) {
            return Err(self.touching(model, state, &Group { bodies: bodies.map(|b| b as u32), range: 0..0 }));
        }
        Ok(())
    }

    /// IPC's initial κ0 = −∇B·∇E/|∇B|² restricted to the bodies' translations and weighted by their inverse
    /// masses (the residual's metric): the κ at which the barrier forces of the pairs within d̂ best balance the
    /// external loads (gravity, scene loads) on the dynamic bodies, so that bodies resting on each other at the
    /// start sit at their separated gaps instead of being pushed out to where the floor κ balances them (a
    /// column of four blocks touching at the start rose 0.97 mm, 2.8 d̂, in the first step under the floor).
    /// The affine rows are left out: there the barrier's moment about the centre of mass is balanced by V⊥,
    /// which is zero at the start; the velocity term of ∇E too: a body's speed is no load a resting contact
    /// carries. `None` when no pair is within d̂ or the loads do not press the bodies together.
    pub(super) fn balancing_kappa(&self, model: &Model, applied: &[crate::dynamics::integrate::Applied], time: f64) -> Option<f64> {
        let x = self.vertex_positions();
        let (mut pairs, mut groups) = (Vec::new(), Vec::new());
        culling::candidates(&self.surfaces, &x, None, &self.dynamic, self.dhat, &mut pairs, &mut groups);
        let dh2 = self.dhat * self.dhat;
        // Σ_v ∂B/∂x_v over each body's vertices: the barrier's gradient in the body's translation
        let mut grad = vec![Vec3::ZERO; self.bodies.len()];
        let mut terms = Vec::new();
        for g in &groups {
            counted::counted(&x, &pairs[g.range.clone()], g.range.start, dh2, &mut terms);
        }
        for t in &terms {
            let p = &pairs[t.pair];
            let Some(l) = local::barrier(t.shape, &t.xs, dh2) else { continue };
            let g = l.stencil_gradient();
            for (s, &v) in p.verts.iter().enumerate() {
                grad[self.surfaces.vertex_body[v as usize] as usize] += Vec3::new(g[3 * s], g[3 * s + 1], g[3 * s + 2]);
            }
        }
        let (mut num, mut den) = (0.0, 0.0);
        for (b, body) in self.bodies.iter().enumerate() {
            if body.kind != BodyKind::Dynamic {
                continue;
            }
            let (f, _) = external_wrench(model, applied, b, time);
            let m = body.mass[3][3];
            num += f.dot(grad[b]) / m;
            den += grad[b].length_squared() / m;
        }
        (num > 0.0 && den > 0.0 && (num / den).is_finite()).then(|| num / den)
    }

    fn touching(&self, model: &Model, state: &State, g: &Group) -> SimError {
        SimError::Solver {
            step: state.step,
            stage: "start",
            message: format!(
                "bodies `{}` and `{}` intersect in the initial configuration (their surfaces cross, more than touching \
                 contact that `abd` separates on its own); `abd` needs every two bodies apart: move them apart",
                model.bodies[g.bodies[0] as usize].name, model.bodies[g.bodies[1] as usize].name
            ),
        }
    }

    fn overlapping(&self, model: &Model, state: &State, [a, b]: [usize; 2], how: crate::collision::overlap::Overlap) -> SimError {
        let (a, b) = (&model.bodies[a].name, &model.bodies[b].name);
        let what = match how {
            crate::collision::overlap::Overlap::Coincident => {
                format!("bodies `{a}` and `{b}` are placed at one place (their surfaces coincide)")
            }
            crate::collision::overlap::Overlap::Inside => format!("body `{a}` lies inside body `{b}`"),
        };
        SimError::Solver {
            step: state.step,
            stage: "start",
            message: format!("{what} in the initial configuration; `abd` needs every two bodies apart: move them apart"),
        }
    }

    /// Pushes apart the bodies that touch at the start (separate.rs), in the coordinates and the state, and
    /// keeps a note of it. Returns whether any body moved.
    fn separate(&mut self, model: &Model, state: &mut State) -> Result<bool, SimError> {
        let g = model.gravity.length();
        let up = if g > 0.0 { -model.gravity / g } else { Vec3::ZERO };
        let name = |b: usize| &model.bodies[b].name;
        let step = state.step;
        let fail = |message: String| SimError::Solver { step, stage: "start", message };
        match separate::separate(model, &self.surfaces, &mut self.q, &self.dynamic, self.dhat, up) {
            Ok(r) => {
                if r.pairs.is_empty() {
                    return Ok(false);
                }
                let (mut far, mut who) = (0.0, 0);
                for &(b, m) in &r.moves {
                    state.bodies[b].x += m;
                    if m.length() > far {
                        (far, who) = (m.length(), b);
                    }
                }
                let [a, b] = r.pairs[0];
                self.notes.push(format!(
                    "abd: {} body pair(s) touched or were closer than {:.3e} m at the start (first: `{}` and `{}`); they \
                     were pushed apart along their contact normals to that gap ({:.4} d̂, d̂ = {:.3e} m) before the first \
                     step; largest move {:.3e} m, of `{}`",
                    r.pairs.len(),
                    r.gap,
                    name(a),
                    name(b),
                    r.gap / self.dhat,
                    self.dhat,
                    far,
                    name(who)
                ));
                Ok(true)
            }
            Err(separate::Failure::TooFar { body, by, pair, gap }) => Err(fail(format!(
                "bodies `{}` and `{}` touch or overlap in the initial configuration, and separating the touching bodies by {:.3e} m \
                 ({} d̂) would move `{}` by {:.3e} m, more than d̂ = {:.3e} m; move them apart in the scene",
                name(pair[0]),
                name(pair[1]),
                gap,
                gap / self.dhat,
                name(body),
                by,
                self.dhat
            ))),
            Err(separate::Failure::Unsettled { pair, gap }) => Err(fail(format!(
                "bodies `{}` and `{}` touch in the initial configuration and could not be pushed {:.3e} m apart ({} d̂) \
                 without closing another contact; move them apart in the scene",
                name(pair[0]),
                name(pair[1]),
                gap,
                gap / self.dhat
            ))),
        }
    }
}
