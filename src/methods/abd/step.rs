//! One ABD time step: prediction, lagged friction, and Newton's method with the CCD-bounded line search.

use super::*;
use crate::dynamics::integrate::external_wrench;
use crate::math::{quat_exp, Mat3};
use crate::method::stages::StageTimer;
use assemble::GroupTerms;
use rayon::prelude::*;

/// The weight of a body's ½‖q − q̃‖²_M: 1 for dynamic bodies, the holding weight for kinematic ones (q̃ is
/// then the prescription).
fn inertia_weight(kind: BodyKind) -> f64 {
    if kind == BodyKind::Kinematic {
        KINEMATIC_WEIGHT
    } else {
        1.0
    }
}

/// The turn (Frobenius norm of the change of A, about √2 times the angle) above which a body's rigid prediction
/// starts Newton (`Abd::rotating_start`).
const ROTATING_START_TURN: f64 = 1e-3;

/// A bound on the largest vertex move of a body's coordinate change `d` (12).
fn body_move(body: &Body, d: &[f64]) -> f64 {
    let dp = (d[3] * d[3] + d[7] * d[7] + d[11] * d[11]).sqrt();
    let da = [0, 1, 2, 4, 5, 6, 8, 9, 10].iter().map(|&k| d[k] * d[k]).sum::<f64>().sqrt();
    dp + da * body.radius
}

/// Largest vertex move of a coordinate change `dq` over the moving bodies.
fn largest_move(bodies: &[Body], dq: &[f64]) -> f64 {
    let mut m = 0.0f64;
    for (b, body) in bodies.iter().enumerate() {
        if body.kind == BodyKind::Static {
            continue;
        }
        m = m.max(body_move(body, &dq[12 * b..12 * b + 12]));
    }
    m
}

impl Abd {
    /// The incremental potential at `q` over the candidate pairs, and the smallest squared distance among them.
    /// `qtilde` holds the prediction of dynamic bodies and the prescription of kinematic ones.
    fn energy(&self, q: &[f64], qtilde: &[f64], h: f64, x: &mut Vec<[f64; 3]>) -> (f64, f64) {
        self.surfaces.positions(q, x);
        let (eb, dmin) = assemble::barrier_energy(x, &self.pairs, &self.groups, self.dhat * self.dhat);
        (self.total_energy(q, qtilde, h, x, eb), dmin)
    }

    /// The incremental potential from its barrier part `eb` (Σ m·b, as `assemble::barrier_energy` sums it) and
    /// the positions `x` at `q`: one formula for the line search and the assembly, so both give the same bits.
    fn total_energy(&self, q: &[f64], qtilde: &[f64], h: f64, x: &[[f64; 3]], eb: f64) -> f64 {
        let mut e = 0.0;
        for (b, body) in self.bodies.iter().enumerate() {
            if body.kind == BodyKind::Static {
                continue;
            }
            let w = inertia_weight(body.kind);
            for r in 0..3 {
                let d: [f64; 4] = std::array::from_fn(|j| q[12 * b + 4 * r + j] - qtilde[12 * b + 4 * r + j]);
                for j in 0..4 {
                    for l in 0..4 {
                        e += 0.5 * w * d[j] * body.mass[j][l] * d[l];
                    }
                }
            }
            if body.kind == BodyKind::Dynamic {
                e += h * h * affine::ortho_energy(&q[12 * b..12 * b + 12], body.kv);
            }
        }
        e += h * h * self.kappa * eb;
        e += h * h * assemble::friction_energy(x, &self.xbase, &self.contacts, self.eps_v * h);
        e += self.joints.energy(q, h);
        e += self.couplings.iter().map(|c| c.energy(q, h)).sum::<f64>();
        e
    }

    fn add_terms(&mut self, terms: &[GroupTerms]) {
        for t in terms {
            let d = [self.dyn_index[t.bodies[0] as usize], self.dyn_index[t.bodies[1] as usize]];
            for i in 0..2 {
                let Some(di) = d[i] else { continue };
                for k in 0..12 {
                    self.system.grad[12 * di + k] += t.g[i][k];
                }
                self.system.add_block(di, di, &t.h[2 * i]);
            }
            // add_block fills both H_01 and H_10
            if let [Some(d0), Some(d1)] = d {
                self.system.add_block(d0, d1, &t.h[1]);
            }
        }
    }

    /// Gradient and Hessian of the incremental potential at `q` into the system, the barrier pairs' Hessians exact
    /// when `exact` (else projected); returns the potential and the smallest squared distance, as [`Abd::energy`]
    /// gives them.
    fn assemble(&mut self, q: &[f64], qtilde: &[f64], h: f64, exact: bool) -> (f64, f64) {
        let n_dyn = self.dyn_index.iter().flatten().count();
        self.system.clear(n_dyn);
        // inertia and orthogonality per body (in parallel, added in body order)
        let per_body: Vec<(usize, [f64; 12], Block)> = self
            .bodies
            .par_iter()
            .enumerate()
            .filter_map(|(b, body)| {
                let d = self.dyn_index[b]?;
                let mut blk: Block = [[0.0; 12]; 12];
                let mut grad = [0.0; 12];
                let w = inertia_weight(body.kind);
                for r in 0..3 {
                    for j in 0..4 {
                        let mut g = 0.0;
                        for l in 0..4 {
                            g += w * body.mass[j][l] * (q[12 * b + 4 * r + l] - qtilde[12 * b + 4 * r + l]);
                            blk[4 * r + j][4 * r + l] = w * body.mass[j][l];
                        }
                        grad[4 * r + j] = g;
                    }
                }
                if body.kind == BodyKind::Kinematic {
                    return Some((d, grad, blk));
                }
                let qb = &q[12 * b..12 * b + 12];
                let mut g = [0.0; 12];
                affine::ortho_gradient(qb, body.kv, &mut g);
                let mut ho = affine::ortho_hessian(qb, body.kv);
                eigen::project_psd(&mut ho);
                let idx = |k: usize| 4 * (k / 3) + k % 3;
                for k in 0..12 {
                    grad[k] += h * h * g[k];
                }
                for a in 0..9 {
                    for c in 0..9 {
                        blk[idx(a)][idx(c)] += h * h * ho[a][c];
                    }
                }
                Some((d, grad, blk))
            })
            .collect();
        for (d, grad, blk) in &per_body {
            for k in 0..12 {
                self.system.grad[12 * d + k] += grad[k];
            }
            self.system.add_block(*d, *d, blk);
        }
        self.surfaces.positions(q, &mut self.x);
        let dh2 = self.dhat * self.dhat;
        // exact Hessians: the body pairs whose bodies both settled keep the last assembly's blocks
        let lag = exact.then_some((&self.lagged[..], &self.settled[..]));
        let terms =
            assemble::barrier_terms(&self.surfaces, &self.x, &self.pairs, &self.groups, &self.moving, dh2, h * h * self.kappa, exact, lag);
        self.add_terms(&terms);
        let (eb, dmin) = assemble::sum_groups(terms.iter().map(|t| (t.energy, t.dmin)));
        self.lagged = terms;
        let terms = assemble::friction_terms(&self.surfaces, &self.x, &self.xbase, &self.contacts, &self.moving, self.eps_v * h, h * h);
        self.add_terms(&terms);
        self.joints.assemble(q, h, &self.dyn_index, &mut self.system);
        for c in &self.couplings {
            let Some(d) = self.dyn_index[c.body] else { continue };
            let (g, diag) = c.derivatives(q, h);
            let mut blk: Block = [[0.0; 12]; 12];
            for k in 0..12 {
                self.system.grad[12 * d + k] += g[k];
                blk[k][k] = diag[k];
            }
            self.system.add_block(d, d, &blk);
        }
        (self.total_energy(q, qtilde, h, &self.x, eb), dmin)
    }

    /// Friction contacts lagged at the start of the step: pairs within d̂ with their normal force.
    fn lag_friction(&mut self, model: &Model) {
        self.contacts.clear();
        // the previous step ended by culling at these same positions
        if !self.pairs_at_q {
            culling::candidates(&self.surfaces, &self.xt, None, &self.dynamic, self.dhat, &mut self.pairs, &mut self.groups);
        }
        let dh2 = self.dhat * self.dhat;
        let mut terms = Vec::new();
        for g in &self.groups {
            counted::counted(&self.xt, &self.pairs[g.range.clone()], g.range.start, dh2, &mut terms);
        }
        for &counted::Term { pair, xs, shape, kind, d } in &terms {
            if d <= 0.0 {
                continue;
            }
            let p = &self.pairs[pair];
            let b0 = self.surfaces.vertex_body[p.verts[0] as usize] as usize;
            let b1 = self.surfaces.vertex_body[p.verts[3] as usize] as usize;
            let (mu_k, mu_s, _) = model.pair_material(b0, b1);
            let lambda = barrier::force_magnitude(shape, &xs, d, dh2, self.kappa);
            if mu_s.max(mu_k) * lambda <= 0.0 {
                continue;
            }
            let c = distance::closest_weights(kind, &xs, p.edge_edge);
            let rel: [f64; 3] = std::array::from_fn(|r| (0..4).map(|k| c[k] * xs[k][r]).sum());
            let n = Vec3::from_array(rel);
            if n.length() == 0.0 {
                continue;
            }
            let (t1, t2) = crate::math::tangent_basis(n.normalize());
            self.contacts.push(Contact { verts: p.verts, c, t: [t1.to_array(), t2.to_array()], lambda, mu_s, mu_k });
        }
    }

    /// Advances one step of `h`: the friction stage (prediction and lagged friction), Newton's method (culling,
    /// assembly, solve, CCD and line search per iteration) and the check stage (velocities, contacts, check).
    pub(super) fn advance(&mut self, model: &Model, state: &mut State, h: f64) -> Result<StepStats, SimError> {
        let mut st = StepStats::default();
        let mut t = StageTimer::start();
        let qt = self.q.clone();
        self.start_q.clone_from(&qt);
        self.start_qd.clone_from(&self.qd);
        // the base q̂, its velocity and the potential's step: BDF2 from the last step's start, else backward Euler
        let (qhat, qdhat) = match self.history.take() {
            Some(p) => {
                self.he = 2.0 * h / 3.0;
                let mix = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (4.0 * x - y) / 3.0).collect::<Vec<f64>>();
                (mix(&qt, &p.prev_q), mix(&self.qd, &p.prev_qd))
            }
            None => {
                self.he = h;
                (qt.clone(), self.qd.clone())
            }
        };
        let qtilde = t.time(AbdStage::Friction, || self.friction(model, state, &qt, (&qhat, &qdhat), h))?;
        let (q, kappa_q) = self.newton(state, &qt, &qtilde, h, &mut st, &mut t)?;
        t.time(AbdStage::Check, || self.finish(model, state, (q, kappa_q), &qhat, h, &mut st));
        t.finish(&mut st);
        Ok(st)
    }

    /// The friction stage: the prediction q̃ = q + h q̇ + h² M⁻¹f (kinematic bodies: their prescription), and the
    /// friction lagged at q^t, and the joints' and proxies' terms for the step. Returns q̃.
    fn friction(
        &mut self,
        model: &Model,
        state: &mut State,
        qt: &[f64],
        (qhat, qdhat): (&[f64], &[f64]),
        h: f64,
    ) -> Result<Vec<f64>, SimError> {
        let (step, he) = (state.step, self.he);
        self.joints.begin_step(model, state, (qt, qhat, qdhat), h, he).map_err(|message| SimError::Solver {
            step,
            stage: "friction",
            message,
        })?;
        self.couplings = couplings::begin(model, state, qhat, h, he);
        let nb = self.bodies.len();
        let mut qtilde = qhat.to_vec();
        for b in 0..nb {
            match self.bodies[b].kind {
                BodyKind::Dynamic => {
                    let (f, tau) = external_wrench(model, &state.applied, b, state.time);
                    let m = &self.bodies[b].mass;
                    let s = Mat3::from_cols(
                        Vec3::new(m[0][0], m[1][0], m[2][0]),
                        Vec3::new(m[0][1], m[1][1], m[2][1]),
                        Vec3::new(m[0][2], m[1][2], m[2][2]),
                    );
                    // torque as the generalised force Q_A = ½[τ]× A⁻ᵀ (work τ·δθ for δA = [δθ]× A); M⁻¹ per row: S⁻¹
                    let a = affine::a_of(&qt[12 * b..]);
                    let qa = Mat3::from_cols(tau.cross(Vec3::X), tau.cross(Vec3::Y), tau.cross(Vec3::Z)) * a.inverse().transpose() * 0.5;
                    let acc = qa * s.inverse();
                    for r in 0..3 {
                        for j in 0..3 {
                            qtilde[12 * b + 4 * r + j] += he * qdhat[12 * b + 4 * r + j] + he * he * acc.col(j)[r];
                        }
                        qtilde[12 * b + 4 * r + 3] += he * qdhat[12 * b + 4 * r + 3] + he * he * f[r] / m[3][3];
                    }
                }
                BodyKind::Kinematic => {
                    let s = &mut state.bodies[b];
                    s.x += s.v * h;
                    s.q = (quat_exp(s.w * h) * s.q).normalize();
                    qtilde[12 * b..12 * b + 12].copy_from_slice(&affine::q_from_rigid(s.x, s.q));
                }
                BodyKind::Static => {}
            }
            // a force too large for f64 (gravity of 1e308) must stop the run, not leave a prediction Newton's
            // line search can only refuse (the body would stay frozen)
            if qtilde[12 * b..12 * b + 12].iter().any(|x| !x.is_finite()) {
                let body = model.bodies[b].name.clone();
                return Err(SimError::NonFinite { body, step, stage: "friction", quantity: "predicted position" });
            }
        }
        self.surfaces.positions(qt, &mut self.xt);
        self.surfaces.positions(qhat, &mut self.xbase);
        self.lag_friction(model);
        // Newton re-culls from here on
        self.pairs_at_q = false;
        Ok(qtilde)
    }

    /// Newton's method from q^t on the incremental potential, each iteration timed stage by stage. Returns the
    /// final q and the barrier stiffness κ it was found with (κ may double after it); sets the iterations and the
    /// residual of `st`.
    fn newton(
        &mut self,
        state: &State,
        qt: &[f64],
        qtilde: &[f64],
        h: f64,
        st: &mut StepStats,
        t: &mut StageTimer<AbdStage>,
    ) -> Result<(Vec<f64>, f64), SimError> {
        let tol = self.params.tolerance * self.scale * h;
        // the unbalanced force's displacement M⁻¹∇E over a step: tolerance/10 of what gravity adds in one step
        // (of l_c/s² without gravity)
        let accel = if self.gravity > 0.0 { self.gravity } else { self.scale };
        let tol_r = 0.1 * self.params.tolerance * accel * h * h;
        let mut q = qt.to_vec();
        let mut kappa_q = self.kappa;
        // the incremental potential's step (h, or 2h/3 under BDF2); the tolerances above use the real step
        let he = self.he;
        let mut prev_dmin = f64::INFINITY;
        let mut x = Vec::new();
        let mut last_move = 0.0;
        // the pairs cover every pair within d̂ at q: at first those friction lagging used (culled at q^t), after
        // an accepted line search the pairs swept along its segment
        let mut swept = true;
        let mut e_at_q: Option<f64> = None;
        // the system holds the assembly at q (done with the line search's first trial when it is accepted)
        let mut assembled = false;
        // whether the line search assembles its first trial (see `line_search`): while first trials are accepted
        let mut speculate = true;
        // exact barrier Hessians until an iteration's matrix is indefinite, then projected ones for the rest of
        // the step (at most one wasted assembly per step)
        let mut exact = self.params.hessian == Hessian::Exact;
        self.lagged.clear();
        self.settled.clear();
        self.settled.resize(self.bodies.len(), false);
        if let Some(p_dyn) = self.rotating_start(qt, qtilde) {
            // a first move to the rigid poses nearest the prediction of the bodies that turn (see
            // docs/methods/abd.md, "Rotating start"): one trial within the CCD bound, kept if it lowers the energy
            let dir = t.time(AbdStage::Culling, || {
                self.surfaces.positions(&q, &mut self.x);
                self.cull_along(&q, &p_dyn)
            });
            let alpha_ccd = t.time(AbdStage::Ccd, || self.ccd_bound().min(self.joints.bound(&q, &dir)));
            let (accepted, at, _) = self.line_search(&q, &dir, qtilde, he, alpha_ccd, None, (true, false, false, exact), &mut x, t);
            if let Some((trial, _, e1)) = accepted {
                (q, e_at_q, assembled) = (trial, Some(e1), at);
            }
        }
        for _ in 0..self.params.max_iterations {
            // Newton direction
            if !assembled {
                t.time(AbdStage::Culling, || self.cull(&q, swept));
                let (_, d_at_q) = t.time(AbdStage::Assembly, || self.assemble(&q, qtilde, he, exact));
                // κ doubles when the distance shrinks below KAPPA_GROWTH_GAP·d̂ from one iterate to the next (IPC):
                // the first iteration compares with q^t, so gaps that start small do not stiffen the barrier unless
                // they close
                prev_dmin = prev_dmin.min(d_at_q);
            }
            // (either way `self.x` now holds the positions at q, and the system the gradient there)
            let unbalanced = self.residual_move();
            let mut p_dyn = t.time(AbdStage::Solve, || self.system.solve(!exact));
            if p_dyn.is_err() && exact {
                exact = false;
                self.projected_steps += 1;
                t.time(AbdStage::Assembly, || self.assemble(&q, qtilde, he, false));
                p_dyn = t.time(AbdStage::Solve, || self.system.solve(true));
            }
            let p_dyn = p_dyn.map_err(|message| SimError::Solver { step: state.step, stage: "solve", message })?;
            let dir = t.time(AbdStage::Culling, || self.cull_along(&q, &p_dyn));
            last_move = largest_move(&self.bodies, &dir);
            for (b, body) in self.bodies.iter().enumerate() {
                self.settled[b] = body.kind == BodyKind::Static || body_move(body, &dir[12 * b..12 * b + 12]) < tol;
            }
            // a direction below tolerance ends the loop, but is taken first (it is already computed; only the CCD
            // and one energy evaluation are left), without backtracking
            // a short step while forces are still unbalanced (static friction's stiff zone) is taken like a last
            // one (one trial, no backtracking: at this size the energy's decrease is near its rounding, and 40
            // halvings cost more than the step), but the loop goes on
            let short = last_move < tol;
            let last = short && unbalanced < tol_r;
            st.iterations += 1;
            // CCD along the direction bounds the step
            // (and no joint coordinate may cross a limit on the way)
            let alpha_ccd = t.time(AbdStage::Ccd, || self.ccd_bound().min(self.joints.bound(&q, &dir)));
            let accepted;
            let first_taken;
            (accepted, assembled, first_taken) =
                self.line_search(&q, &dir, qtilde, he, alpha_ccd, e_at_q, (short, last, speculate, exact), &mut x, t);
            speculate = first_taken;
            if short && accepted.is_none() {
                st.iterations -= 1;
            }
            let Some((trial, dmin, e1)) = accepted else { break };
            // a short step that leaves the energy as it was: the unbalanced force is at its rounding floor, and
            // further iterations would repeat it until the cap
            let stalled = short && e_at_q.is_some_and(|e0| e1 >= e0);
            q = trial;
            kappa_q = self.kappa;
            e_at_q = Some(e1);
            swept = true;
            // adaptive barrier stiffness
            let dh2 = self.dhat * self.dhat;
            if dmin < (KAPPA_GROWTH_GAP * KAPPA_GROWTH_GAP) * dh2 && dmin < prev_dmin && self.kappa < self.kappa_max {
                self.kappa = (2.0 * self.kappa).min(self.kappa_max);
                // the energy and the assembly changed with κ
                e_at_q = None;
                assembled = false;
            }
            prev_dmin = dmin;
            if last || stalled {
                break;
            }
        }
        st.residual = last_move / (self.scale * h);
        Ok((q, kappa_q))
    }

    /// The move from q^t to the rigid poses nearest the prediction (`affine::rigid_prediction`) of the dynamic
    /// bodies whose rotation it turns by more than [`ROTATING_START_TURN`] (0 for the others), per dynamic body
    /// as the solve orders them; `None` when no body turns that much.
    fn rotating_start(&self, qt: &[f64], qtilde: &[f64]) -> Option<Vec<f64>> {
        let mut p = vec![0.0; 12 * self.dyn_index.iter().flatten().count()];
        let mut any = false;
        for (b, body) in self.bodies.iter().enumerate() {
            let Some(d) = self.dyn_index[b].filter(|_| body.kind == BodyKind::Dynamic) else { continue };
            let to = affine::rigid_prediction(&qtilde[12 * b..12 * b + 12]);
            let turn = (affine::a_of(&to) - affine::a_of(&qt[12 * b..12 * b + 12])).to_cols_array().iter().map(|v| v * v).sum::<f64>();
            if turn > ROTATING_START_TURN * ROTATING_START_TURN {
                any = true;
                for k in 0..12 {
                    p[12 * d + k] = to[k] - qt[12 * b + k];
                }
            }
        }
        any.then_some(p)
    }

    /// The largest vertex move of M⁻¹∇E (the system's gradient, per moving body, over its weighted mass): how far
    /// the forces left unbalanced at q would move a body within the step. The Newton step alone is no measure of
    /// convergence where static friction makes the Hessian stiff: there every step is shorter than ε_v·h while
    /// the net force may still be far from balanced (a cube on a slope just steeper than its friction angle
    /// stopped each step in the static zone and crept at ≤ ε_v instead of sliding).
    fn residual_move(&self) -> f64 {
        let mut r = vec![0.0; self.q.len()];
        for (b, body) in self.bodies.iter().enumerate() {
            let Some(d) = self.dyn_index[b] else { continue };
            let w = inertia_weight(body.kind);
            let m = &body.mass;
            let s = Mat3::from_cols(
                Vec3::new(m[0][0], m[1][0], m[2][0]),
                Vec3::new(m[0][1], m[1][1], m[2][1]),
                Vec3::new(m[0][2], m[1][2], m[2][2]),
            )
            .inverse();
            for row in 0..3 {
                let g = &self.system.grad[12 * d + 4 * row..12 * d + 4 * row + 4];
                let a = s * Vec3::new(g[0], g[1], g[2]) / w;
                for j in 0..3 {
                    r[12 * b + 4 * row + j] = a[j];
                }
                r[12 * b + 4 * row + 3] = g[3] / (w * m[3][3]);
            }
        }
        largest_move(&self.bodies, &r)
    }

    /// Culling stage before an assembly: the positions at `q`, and the pairs within d̂ there unless the last
    /// line search's swept pairs (`swept`) already cover them.
    fn cull(&mut self, q: &[f64], swept: bool) {
        self.surfaces.positions(q, &mut self.x);
        if !swept {
            culling::candidates(&self.surfaces, &self.x, None, &self.dynamic, self.dhat, &mut self.pairs, &mut self.groups);
        }
    }

    /// Culling stage along a Newton direction: the direction over all bodies (from the dynamic bodies' `p_dyn`)
    /// and the pairs within d̂ anywhere on the segment q → q + direction. Returns the direction.
    fn cull_along(&mut self, q: &[f64], p_dyn: &[f64]) -> Vec<f64> {
        let nb = self.bodies.len();
        let mut dir = vec![0.0; 12 * nb];
        for b in 0..nb {
            if let Some(d) = self.dyn_index[b] {
                dir[12 * b..12 * b + 12].copy_from_slice(&p_dyn[12 * d..12 * d + 12]);
            }
        }
        let qn: Vec<f64> = q.iter().zip(&dir).map(|(a, d)| a + d).collect();
        self.surfaces.positions(&qn, &mut self.x1);
        culling::candidates(&self.surfaces, &self.x, Some(&self.x1), &self.dynamic, self.dhat, &mut self.pairs, &mut self.groups);
        dir
    }

    /// Line search stage: backtracking on the energy from the CCD bound `alpha_ccd` (one trial when `short`; the
    /// trial not assembled when `last`). When `speculate`, the first trial is evaluated by an assembly, which also
    /// gives its energy, so that an accepted first trial needs no assembly of its own; results are the same bits
    /// either way. Returns the accepted (q, smallest squared distance, energy), if any, whether the system holds the
    /// assembly at it, and whether the first trial was accepted. See docs/methods/abd.md, "Line search".
    #[allow(clippy::too_many_arguments)]
    fn line_search(
        &mut self,
        q: &[f64],
        dir: &[f64],
        qtilde: &[f64],
        h: f64,
        alpha_ccd: f64,
        e_at_q: Option<f64>,
        (short, last, speculate, exact): (bool, bool, bool, bool),
        x: &mut Vec<[f64; 3]>,
        t: &mut StageTimer<AbdStage>,
    ) -> (Option<(Vec<f64>, f64, f64)>, bool, bool) {
        let e0 = match e_at_q {
            Some(e) => e,
            None => self.energy(q, qtilde, h, x).0,
        };
        let mut alpha = alpha_ccd;
        let mut accepted = None;
        let mut assembled = false;
        let mut first_taken = false;
        for trial_no in 0..if short { 1 } else { 40 } {
            let trial: Vec<f64> = q.iter().zip(dir).map(|(a, d)| a + alpha * d).collect();
            let assemble = trial_no == 0 && !last && speculate;
            let (e1, dmin) = if assemble {
                t.lap(AbdStage::LineSearch);
                t.time(AbdStage::Assembly, || self.assemble(&trial, qtilde, h, exact))
            } else {
                self.energy(&trial, qtilde, h, x)
            };
            if e1 <= e0 && dmin > 0.0 {
                assembled = assemble;
                first_taken = trial_no == 0;
                accepted = Some((trial, dmin, e1));
                break;
            }
            alpha *= 0.5;
        }
        t.lap(AbdStage::LineSearch);
        (accepted, assembled, first_taken)
    }

    /// Check stage: velocities q̇ = (q − q^t)/h and the rigid view of the state, then what the step ends with:
    /// contacts within d̂ with their forces, the smallest distance, and (optionally) the intersection check.
    /// `kappa_q` is the barrier stiffness q was found with.
    fn finish(&mut self, model: &Model, state: &mut State, (q, kappa_q): (Vec<f64>, f64), qhat: &[f64], h: f64, st: &mut StepStats) {
        let he = self.he;
        let nb = self.bodies.len();
        for b in 0..nb {
            if self.bodies[b].kind == BodyKind::Static {
                continue;
            }
            for k in 0..12 {
                self.qd[12 * b + k] = (q[12 * b + k] - qhat[12 * b + k]) / he;
            }
            if self.bodies[b].kind == BodyKind::Dynamic {
                let qb = &q[12 * b..12 * b + 12];
                let rot = affine::nearest_rotation(&affine::a_of(qb));
                let (v, w) = affine::rigid_velocity(&self.qd[12 * b..12 * b + 12], rot);
                let s = &mut state.bodies[b];
                s.x = Vec3::new(qb[3], qb[7], qb[11]);
                s.q = rot;
                s.v = v;
                s.w = w;
            }
        }
        self.q = q;
        state.affine = (0..nb).map(|b| std::array::from_fn(|k| self.q[12 * b + k])).collect();

        let dmin = self.report_contacts(kappa_q, h, st);
        self.pairs_at_q = true;
        let dh2 = self.dhat * self.dhat;
        st.min_distance = (dmin < dh2).then(|| dmin.max(0.0).sqrt());
        st.islands = self.groups.len();
        st.resolutions = self.contacts.len();
        if self.params.check_intersections {
            let (meeting, crossing) = check::contacts(&self.surfaces, &self.x);
            (st.intersections, st.crossings) = (Some(meeting), Some(crossing));
        }
        if !model.joints.is_empty() {
            st.joints = self.joints.readings(model, &self.q, he);
        }
        if !self.couplings.is_empty() {
            st.proxies = self.proxy_readings(he);
        }
    }
}

#[cfg(test)]
#[path = "step_tests.rs"]
mod tests;
