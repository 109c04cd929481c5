//! Stage 2 of the `implicit-penalty` step, contact: every candidate pair's penetrating points both ways, the
//! fast arrivals' impacts (impacts.rs), the load springs (load.rs), and each pair's gains and wrench.

use super::*;

impl ImplicitPenalty {
    /// The pair's contact gains (see `ImplicitParams`) with `points` penetrating points (both roles) and the
    /// load's stiffening `load` (load.rs): spring, damper and friction, before the N0 clamp.
    pub(super) fn gains(&self, model: &Model, a: usize, b: usize, points: f64, load: LoadSpring) -> (Gains, friction::Gains) {
        let m = reduced_mass(model, a, b);
        let h = self.h;
        let points = points.max(1.0);
        let (k0, k) = self.springs(m, points);
        let (mu_k, mu_s, e) = model.pair_material(a, b);
        let zeta = self.params.damping_ratio.unwrap_or_else(|| damping_ratio_for(e));
        // the load's stiffening r (load.rs): the tangent r·k beyond the knee (or the depth where it engaged), the
        // damper r times the paper's
        let r = load.ratio;
        let knee = if r <= 1.0 { f64::INFINITY } else { self.load_knee(model, a, b, points).max(load.engaged) };
        let kd = self.params.damping.unwrap_or(2.0 * zeta * (k * m / points).sqrt() * r);
        let implicit = self.params.friction == FrictionMode::Implicit && self.params.integrator == Integrator::Implicit;
        let kt = self.params.friction_stiffness * k0;
        let ct = self.params.anchor_damping * 2.0 * (kt * m / points).sqrt();
        (
            Gains { k, knee, stiffening: r, kd, tangential: self.params.tangential_damping, field_rate: false },
            friction::Gains { kt, mu_s, mu_k, lead: if implicit { h } else { 0.0 }, ct: if implicit { ct } else { 0.0 } },
        )
    }

    pub(super) fn placement(model: &Model, state: &State, i: usize) -> Placement {
        Placement { origin: state.origin(model, i), q: state.bodies[i].q, com: state.bodies[i].x }
    }

    /// Stage 2 over a substep of `h`: both roles of every candidate pair; the pairs with penetrating points, their impacts (impacts.rs:
    /// velocities change, depths count from the landing depths), their springs stiffened by the mass each carries
    /// (`ImplicitParams::stiffness_from_load`, load.rs).
    /// The pairs are evaluated in parallel (rayon) and collected in candidate order; each pair's sums are those
    /// of a serial evaluation, so the result does not depend on the thread count.
    pub(super) fn contacts(&mut self, model: &Model, state: &mut State, h: f64) -> Vec<PairContact> {
        use rayon::prelude::*;
        let this = &*self;
        let per_pair: Vec<(Option<PairHits>, usize)> =
            this.candidates.par_iter().map(|&(a, b)| this.pair_hits(model, state, a as usize, b as usize)).collect();
        self.points_tested = per_pair.iter().map(|p| p.1).sum();
        let hits: Vec<PairHits> = per_pair.into_iter().filter_map(|p| p.0).collect();
        self.deepest = hits.iter().flat_map(|p| p.hits.iter().flatten()).fold(0.0, |m, h| m.max(-h.c.d));
        let hits = match self.params.impacts {
            ImpactMode::Newton => {
                // the threshold from the method's step h; the impulses' forces and the relaxing over this
                // substep's own h (a split substep is shorter)
                let speed = self.params.impact_speed_for(model.gravity.length(), self.h);
                let law = impacts::ImpactLaw { speed, relax: 0.5 * speed, h };
                let out = impacts::impacts(model, state, hits, &self.landings, &law);
                self.next_landings = out.landings;
                (self.impact_impulse, self.impact_friction, self.impact_points) = (out.impulse, out.friction, out.points);
                out.pairs
            }
            _ => {
                self.next_landings.clear();
                hits
            }
        };
        let state = &*state;
        let follow = self.params.stiffness_from_load && self.params.stiffness.is_none();
        let knee = |p: &PairHits| self.load_knee(model, p.a, p.b, p.points() as f64);
        let (springs, next) = load::load_springs(model, state, &hits, &self.loads, follow, &knee);
        self.next_loads = next;
        hits.into_par_iter().zip(springs).map(|(p, l)| self.pair_contact(model, state, p, l)).collect()
    }

    /// Both roles of one candidate pair: its hits if any point penetrates, and the number of points tested.
    fn pair_hits(&self, model: &Model, state: &State, a: usize, b: usize) -> (Option<PairHits>, usize) {
        let side = |i: usize| {
            let f = &self.fields.per_body[i];
            contact::Side {
                field: f.sdf.as_ref(),
                shell: ShellRef { points: &f.shell.points, normals: &f.shell.normals, blocks: &f.shell.blocks },
                at: Self::placement(model, state, i),
            }
        };
        if let Some((f, s)) = self.centres.role(a, b) {
            let hits = self.centres.hits(a, f, s, side(f), |i| Self::placement(model, state, i));
            return (hits.map(|hits| PairHits { a, b, hits, field_rate: [true; 2] }), 1);
        }
        let (sa, sb) = (side(a), side(b));
        // per role, whether its damper acts along the field's gradient (ImplicitParams::damper_normal)
        let field_rate = [sa.field.exact(), sb.field.exact()].map(|e| self.params.damper_normal.along_field(e));
        let (h0, t0) = contact::hits(&sa, &sb, field_rate[0]);
        let (h1, t1) = contact::hits(&sb, &sa, field_rate[1]);
        let tested = t0 + t1;
        if h0.is_empty() && h1.is_empty() {
            return (None, tested);
        }
        (Some(PairHits { a, b, hits: [h0, h1], field_rate }), tested)
    }

    /// A pair's contact from its hits and its load's stiffening: its gains, and its wrench with the gradients.
    fn pair_contact(&self, model: &Model, state: &State, p: PairHits, load: LoadSpring) -> PairContact {
        let PairHits { a, b, hits: [h0, h1], field_rate } = p;
        let n = (h0.len() + h1.len()) as f64;
        let (g, fg) = self.gains(model, a, b, n, load);
        let scale = self.clamp(n);
        let (ba, bb) = (state.bodies[a], state.bodies[b]);
        let role = |r: usize| Gains { field_rate: field_rate[r], ..g };
        let mut jac = contact::role_jacobian(&h0, &role(0), scale, &[ba.v, ba.w, bb.v, bb.w]);
        jac.add(&contact::role_jacobian(&h1, &role(1), scale, &[bb.v, bb.w, ba.v, ba.w]), true);
        if self.params.integrator == Integrator::SymplecticEuler {
            // the same forces without their gradients: the system is then M ΔV = h F
            jac = Jacobian { wrench: jac.wrench, ..Jacobian::default() };
        }
        // the anchor springs follow the (clamped) contact spring: k_t = friction_stiffness·k·scale (not k²: see
        // docs/methods/implicit-penalty.md, "Friction by anchors")
        let friction = friction::Gains { kt: fg.kt * scale, ct: fg.ct * scale.sqrt(), ..fg };
        let gains = Gains { k: g.k * scale, ..g };
        let loads = [&h0, &h1].map(|hs| hs.iter().map(|h| gains.spring_force(h.c.d)).collect());
        PairContact {
            a,
            b,
            hits: [h0, h1],
            jac,
            gains,
            field_rate,
            friction,
            grips: Default::default(),
            grip_jac: Default::default(),
            loads,
        }
    }
}
