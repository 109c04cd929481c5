//! Collision laws of the `impulse` method: the impulse `p` that one contact point receives, given the collision
//! matrix K (Δu = K·p, u the relative velocity of B with respect to A at the point, p applied to B and −p to A),
//! the incoming relative velocity u, the unit normal n (from A towards B, so u·n < 0 approaches), the
//! restitution ε and the friction coefficients.
//!
//! - [`mirtich`]: Mirtich's model (PhD thesis 1996, ch. 4), as the pulsk report uses it: the relative velocity
//!   integrated over the normal impulse, with Poisson's restitution.
//! - [`moore`]: the model Guendelman, Bridson and Fedkiw take from Moore and Wilhelms, as PhysBAM writes it.
//! See docs/methods/impulse.md, "Collision laws".

pub use crate::dynamics::collision_matrix::collision_matrix;
use crate::dynamics::collision_matrix::cross_matrix;
use crate::math::{outer, Mat3, Vec3};

/// A face contact: a linear impulse j at the face centre together with a moment impulse m = P·μ about the
/// face's locked axes (the columns of P), chosen so that the relative rotation about those axes stops. With
/// G = −([r_B]× I_B⁻¹ + [r_A]× I_A⁻¹) (the point velocity a moment causes), W = I_A⁻¹ + I_B⁻¹ and S = PᵀWP:
/// μ = −S⁻¹Pᵀ(ω_rel + Gᵀj), so the point sees K_eff = K − G P S⁻¹ Pᵀ Gᵀ and u_eff = u − G P S⁻¹ Pᵀ ω_rel, and
/// the collision law runs on those. Everything that depends on the geometry alone is formed here, once
/// (the sweeps keep it while the geometry stays the same, memo.rs `Memos`).
#[derive(Debug, Clone, Copy)]
pub struct Face {
    g: Mat3,
    /// P S⁻¹ Pᵀ (3×3, rank = number of locked axes)
    psp: Mat3,
    /// G P S⁻¹ Pᵀ
    gp: Mat3,
    /// K_eff
    k_eff: Mat3,
}

impl Face {
    /// The face of a contact at lever arms `ra`, `rb` with locked `axes` (one to three, unit, orthogonal).
    pub fn new(k: &Mat3, inv_ia: &Mat3, ra: Vec3, inv_ib: &Mat3, rb: Vec3, axes: &[Vec3]) -> Face {
        let g = -(cross_matrix(rb) * *inv_ib + cross_matrix(ra) * *inv_ia);
        let w = *inv_ia + *inv_ib;
        let psp = match axes {
            [p] => {
                let s = p.dot(w * *p);
                if s > 0.0 {
                    outer(*p, *p) * (1.0 / s)
                } else {
                    Mat3::ZERO
                }
            }
            [p, q] => {
                let (s11, s12, s22) = (p.dot(w * *p), p.dot(w * *q), q.dot(w * *q));
                let det = s11 * s22 - s12 * s12;
                if det > 0.0 {
                    let (i11, i12, i22) = (s22 / det, -s12 / det, s11 / det);
                    outer(*p, *p) * i11 + (outer(*p, *q) + outer(*q, *p)) * i12 + outer(*q, *q) * i22
                } else {
                    Mat3::ZERO
                }
            }
            // three orthonormal axes span everything: P S⁻¹ Pᵀ = W⁻¹
            [_, _, _] if w.determinant().abs() > 0.0 => w.inverse(),
            _ => Mat3::ZERO,
        };
        let gp = g * psp;
        Face { g, psp, gp, k_eff: *k - gp * g.transpose() }
    }

    /// K_eff and u_eff for the relative point velocity `u` and relative angular velocity `w_rel`.
    pub fn reduced(&self, u: Vec3, w_rel: Vec3) -> (Mat3, Vec3) {
        (self.k_eff, u - self.gp * w_rel)
    }

    /// K_eff.
    pub fn k_eff(&self) -> Mat3 {
        self.k_eff
    }

    /// The moment impulse m = −P S⁻¹ Pᵀ(ω_rel + Gᵀ j) that goes with the linear impulse `j`.
    pub fn moment(&self, j: Vec3, w_rel: Vec3) -> Vec3 {
        -(self.psp * (w_rel + self.g.transpose() * j))
    }
}

/// Friction and restitution of one contact.
#[derive(Debug, Clone, Copy)]
pub struct Coefficients {
    /// Restitution ε (Poisson for Mirtich, Newton for Moore).
    pub restitution: f64,
    /// Kinetic (sliding) friction μ.
    pub friction: f64,
    /// Static friction μ_s ≥ μ (sticking).
    pub static_friction: f64,
}

/// Moore–Wilhelms as in Guendelman et al. / PhysBAM. Returns the impulse on B (world frame).
pub fn moore(k: &Mat3, u: Vec3, n: Vec3, c: Coefficients) -> Vec3 {
    let un = u.dot(n);
    if un >= 0.0 {
        return Vec3::ZERO;
    }
    let target = -c.restitution * un * n - u;
    let stick = k.inverse() * target;
    let jn = stick.dot(n);
    let jt = stick - jn * n;
    let mut j = if jt.length() <= c.static_friction * jn && stick.dot(u + 0.5 * target) <= 0.0 {
        stick
    } else {
        let ut = u - un * n;
        let dir = if ut.length() > 1e-12 { n - c.friction * ut / ut.length() } else { n };
        -(1.0 + c.restitution) * un * dir / n.dot(*k * dir)
    };
    // energy clamp: the impulse may not add kinetic energy to the relative motion
    let a = j.dot(*k * j);
    let b = j.dot(u);
    if a + 2.0 * b > 0.0 {
        j = if b >= 0.0 || a <= 0.0 { Vec3::ZERO } else { (-2.0 * b / a) * j };
    }
    j
}

/// Mirtich's integrated impulse. Returns the impulse on B (world frame).
pub fn mirtich(k: &Mat3, u: Vec3, n: Vec3, c: Coefficients) -> Vec3 {
    Frame::new(k, n).mirtich(u, c)
}

/// What Mirtich's integration finds from K_c and the friction alone, kept with its frame: the sticking rate for
/// μ_s (`None` inside: sticking is unstable) and the resumed sliding direction for μ, each with its
/// coefficient's bits.
#[derive(Debug, Clone, Copy, Default)]
struct Rates {
    stick: Option<(u64, Option<Vec3>)>,
    resume: Option<(u64, Vec3)>,
}

/// The contact frame of Mirtich's integration: R = (t1, t2, n) and K_c = Rᵀ K R. It depends on the geometry
/// alone, so the sweeps keep it while that stays the same (memo.rs `Memos`).
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    r: Mat3,
    kc: Mat3,
    rates: Rates,
}

impl Frame {
    /// The frame of K at normal `n`.
    pub fn new(k: &Mat3, n: Vec3) -> Frame {
        let (t1, t2) = crate::math::tangent_basis(n);
        let r = Mat3::from_cols(t1, t2, n);
        Frame { r, kc: r.transpose() * *k * r, rates: Rates::default() }
    }

    /// Mirtich's impulse on B (world frame) for the incoming relative velocity `u`. The sticking rate and the
    /// resumed sliding direction, once found, are kept for the next impact in this frame.
    pub fn mirtich(&mut self, u: Vec3, c: Coefficients) -> Vec3 {
        let uc = self.r.transpose() * u;
        let pc = integrate(&self.kc, uc, c, &mut self.rates);
        self.r * pc
    }
}

/// Integration of Mirtich's model in the contact frame (z = normal). Returns the impulse in that frame.
fn integrate(k: &Mat3, u0: Vec3, c: Coefficients, rates: &mut Rates) -> Vec3 {
    let mut u = u0;
    if u.z >= 0.0 {
        return Vec3::ZERO;
    }
    let mut p = Vec3::ZERO;
    let scale = u0.length();
    // below this tangential speed the contact counts as stopped (the sliding direction is then ill-defined)
    let stick_speed = 1e-6 * scale;
    // compression (until u_z = 0), then restitution (until p_z = (1 + ε) p_c)
    let mut compressing = true;
    let mut end = f64::INFINITY;
    let mut sticking = false;
    // K is fixed during the impact (and in the frame): the sticking rate and the resumed sliding direction are
    // found once
    let (mu_s, mu) = (c.static_friction.to_bits(), c.friction.to_bits());
    for _ in 0..400 {
        let ut = Vec3::new(u.x, u.y, 0.0);
        let speed = ut.length();
        // the derivative du/dp_z and dp/dp_z in the current regime
        let dp = if sticking || speed <= stick_speed {
            let stick = match rates.stick {
                Some((m, s)) if m == mu_s => s,
                _ => rates.stick.insert((mu_s, stick_direction(k, c.static_friction))).1,
            };
            match stick {
                Some(s) => {
                    sticking = true;
                    s
                }
                None => {
                    sticking = false;
                    let phi = match rates.resume {
                        Some((m, phi)) if m == mu => phi,
                        _ => rates.resume.insert((mu, resumed_sliding(k, c.friction))).1,
                    };
                    Vec3::new(-c.friction * phi.x, -c.friction * phi.y, 1.0)
                }
            }
        } else {
            Vec3::new(-c.friction * ut.x / speed, -c.friction * ut.y / speed, 1.0)
        };
        let du = *k * dp;
        // step length in p_z: to the end of the phase, to the tangential stop, or a limited turn of direction
        let mut step = if compressing {
            if du.z <= 0.0 {
                // cannot happen for positive definite K with dp_z > 0 and |dp_t| ≤ μ; guard anyway
                f64::INFINITY
            } else {
                -u.z / du.z
            }
        } else {
            end - p.z
        };
        let mut stops = false;
        if !sticking && speed > stick_speed {
            let dut = Vec3::new(du.x, du.y, 0.0);
            let a2 = dut.length_squared();
            if a2 > 0.0 {
                let s_star = -ut.dot(dut) / a2;
                let miss = (ut + s_star * dut).length();
                if s_star > 0.0 && s_star <= step && miss <= 0.05 * speed {
                    step = s_star;
                    stops = true;
                }
                let perp = (dut - ut * (ut.dot(dut) / (speed * speed))).length();
                if perp > 0.0 && !stops {
                    step = step.min(0.05 * speed / perp);
                }
            }
        }
        if !step.is_finite() {
            break;
        }
        p += dp * step;
        u += du * step;
        if stops || sticking {
            u.x = 0.0;
            u.y = 0.0;
        }
        if compressing && (u.z >= -1e-14 * scale) {
            compressing = false;
            u.z = u.z.max(0.0);
            end = (1.0 + c.restitution) * p.z;
            if end - p.z <= 0.0 {
                break;
            }
        } else if !compressing && p.z >= end * (1.0 - 1e-14) {
            break;
        }
    }
    p
}

/// The tangential impulse rate s = dp_t/dp_z that keeps a stopped contact stopped: K_tt·s + K_tz = 0. Returns
/// dp = (s, 1) when |s| ≤ μ_s (stable sticking), else `None`.
fn stick_direction(k: &Mat3, mu_s: f64) -> Option<Vec3> {
    let (a, b, d) = (k.x_axis.x, k.y_axis.x, k.y_axis.y); // K_tt = [[a, b], [b, d]] (symmetric)
    let (e, f) = (k.z_axis.x, k.z_axis.y); // K_tz
    let det = a * d - b * b;
    if det.abs() < 1e-300 {
        return None;
    }
    let sx = -(d * e - b * f) / det;
    let sy = -(-b * e + a * f) / det;
    (sx.hypot(sy) <= mu_s).then_some(Vec3::new(sx, sy, 1.0))
}

/// Direction (unit, tangential) in which sliding resumes after an unstable stick: the φ for which the
/// tangential velocity rate K_t·(−μ cos φ, −μ sin φ, 1) points along (cos φ, sin φ). Found by scanning and
/// bisection on the cross product.
fn resumed_sliding(k: &Mat3, mu: f64) -> Vec3 {
    let rate = |phi: f64| {
        let dp = Vec3::new(-mu * phi.cos(), -mu * phi.sin(), 1.0);
        let du = *k * dp;
        (du.x, du.y)
    };
    let f = |phi: f64| {
        let (x, y) = rate(phi);
        phi.cos() * y - phi.sin() * x
    };
    let g = |phi: f64| {
        let (x, y) = rate(phi);
        phi.cos() * x + phi.sin() * y
    };
    const N: usize = 72;
    let mut best: Option<(f64, f64)> = None;
    // each f value is computed once (an interval's end is the next one's start; the bisection keeps f(l))
    let mut f_lo = f(0.0);
    for i in 0..N {
        let (lo, hi) = (i as f64 * std::f64::consts::TAU / N as f64, (i + 1) as f64 * std::f64::consts::TAU / N as f64);
        let f_hi = f(hi);
        let f_start = std::mem::replace(&mut f_lo, f_hi);
        if f_start * f_hi > 0.0 {
            continue;
        }
        let (mut l, mut h, mut fl) = (lo, hi, f_start);
        for _ in 0..50 {
            let m = 0.5 * (l + h);
            let fm = f(m);
            if fl * fm <= 0.0 {
                h = m;
            } else {
                l = m;
                fl = fm;
            }
        }
        let phi = 0.5 * (l + h);
        let growth = g(phi);
        if growth > 0.0 && best.is_none_or(|(_, gb)| growth > gb) {
            best = Some((phi, growth));
        }
    }
    let phi = best.map_or(0.0, |(p, _)| p);
    Vec3::new(phi.cos(), phi.sin(), 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn particle(m: f64) -> Mat3 {
        Mat3::from_diagonal(Vec3::splat(1.0 / m))
    }

    const C: Coefficients = Coefficients { restitution: 0.0, friction: 0.5, static_friction: 0.5 };

    #[test]
    fn closed_form_cases_of_the_reference() {
        // a point of mass 1 on static ground (n = +z from ground A towards the point B)
        let k = particle(1.0);
        for law in [mirtich, moore] {
            let p = law(&k, Vec3::new(0.1, 0.0, -1.0), Vec3::Z, C);
            let v = Vec3::new(0.1, 0.0, -1.0) + k * p;
            assert!(v.length() < 1e-9, "sticks to rest: {v:?}");
            let p = law(&k, Vec3::new(2.0, 0.0, -1.0), Vec3::Z, C);
            let v = Vec3::new(2.0, 0.0, -1.0) + k * p;
            assert!((v - Vec3::new(1.5, 0.0, 0.0)).length() < 1e-9, "slides to (1.5, 0, 0): {v:?}");
        }
    }

    #[test]
    fn frictionless_restitution_is_newton_and_poisson() {
        let k = particle(2.0);
        let c = Coefficients { restitution: 0.7, friction: 0.0, static_friction: 0.0 };
        for law in [mirtich, moore] {
            let u = Vec3::new(0.3, -0.2, -1.5);
            let v = u + k * law(&k, u, Vec3::Z, c);
            assert!((v.z - 1.05).abs() < 1e-9 && (v.x - 0.3).abs() < 1e-12, "{v:?}");
        }
        // separating contacts get nothing
        assert_eq!(mirtich(&k, Vec3::new(1.0, 0.0, 0.1), Vec3::Z, C), Vec3::ZERO);
    }

    /// K of a unit cube (mass 1) struck at a bottom corner against static ground.
    fn cube_corner() -> (Mat3, Vec3) {
        let inv_i = Mat3::from_diagonal(Vec3::splat(6.0));
        let r = Vec3::new(0.5, 0.5, -0.5);
        (collision_matrix(0.0, &Mat3::ZERO, Vec3::ZERO, 1.0, &inv_i, r), r)
    }

    #[test]
    fn mirtich_dissipates_and_ends_where_poisson_says() {
        let (k, _) = cube_corner();
        for (u, e, mu) in [
            (Vec3::new(0.3, -0.1, -1.0), 0.5, 0.3),
            (Vec3::new(0.0, 0.0, -2.0), 0.0, 0.5),
            (Vec3::new(1.0, 2.0, -0.5), 1.0, 0.8),
            (Vec3::new(-0.05, 0.02, -1.0), 0.2, 2.0),
        ] {
            let c = Coefficients { restitution: e, friction: mu, static_friction: mu };
            let p = mirtich(&k, u, Vec3::Z, c);
            let v = u + k * p;
            // energy of the relative motion never grows: ΔE = p·u + ½pᵀKp ≤ 0
            let de = p.dot(u) + 0.5 * p.dot(k * p);
            assert!(de <= 1e-12, "energy grew by {de} for u = {u:?}");
            // the impulse lies in the friction cone, and the point does not end approaching
            let pt = Vec3::new(p.x, p.y, 0.0).length();
            assert!(pt <= mu * p.z * (1.0 + 1e-9) + 1e-12, "outside the cone: {p:?}");
            assert!(v.z >= -1e-9, "still approaching: {v:?}");
        }
    }

    #[test]
    fn sticking_that_is_unstable_resumes_sliding() {
        // a cube corner struck head-on with low friction cannot stick: the tangential velocity it develops
        // stays consistent with the cone (|p_t| = μ p_z exactly when sliding throughout)
        let (k, _) = cube_corner();
        let c = Coefficients { restitution: 0.0, friction: 0.1, static_friction: 0.1 };
        let p = mirtich(&k, Vec3::new(0.0, 0.0, -1.0), Vec3::Z, c);
        let pt = Vec3::new(p.x, p.y, 0.0).length();
        assert!((pt - 0.1 * p.z).abs() < 1e-6 * p.z, "{p:?}");
        let v = Vec3::new(0.0, 0.0, -1.0) + k * p;
        assert!(v.z.abs() < 1e-9);
    }
}

#[cfg(test)]
mod face_tests {
    use super::*;

    #[test]
    fn face_impulse_stops_the_point_and_the_locked_rotation_of_two_free_bodies() {
        // two dynamic bodies with general inertias; a face contact with normal z, locked about x, y and z
        let inv_ia = Mat3::from_cols(Vec3::new(2.0, 0.1, 0.0), Vec3::new(0.1, 1.5, 0.2), Vec3::new(0.0, 0.2, 3.0));
        let inv_ib = Mat3::from_cols(Vec3::new(1.0, 0.0, 0.3), Vec3::new(0.0, 2.5, 0.0), Vec3::new(0.3, 0.0, 1.2));
        let (ima, imb) = (0.7, 1.3);
        let (ra, rb) = (Vec3::new(0.2, -0.1, 0.5), Vec3::new(-0.3, 0.2, -0.4));
        let (va, wa, vb, wb) = (Vec3::new(0.1, 0.2, 0.3), Vec3::new(0.5, -0.2, 0.1), Vec3::new(-0.2, 0.1, -0.9), Vec3::new(-0.3, 0.4, 0.2));
        for axes in [vec![Vec3::X], vec![Vec3::X, Vec3::Y], vec![Vec3::X, Vec3::Y, Vec3::Z]] {
            let k = collision_matrix(ima, &inv_ia, ra, imb, &inv_ib, rb);
            let face = Face::new(&k, &inv_ia, ra, &inv_ib, rb, &axes);
            let u = (vb + wb.cross(rb)) - (va + wa.cross(ra));
            let (k_eff, u_eff) = face.reduced(u, wb - wa);
            // the impulse that stops the point outright
            let j = -(k_eff.inverse() * u_eff);
            let m = face.moment(j, wb - wa);
            let (va2, wa2) = (va - ima * j, wa - inv_ia * (ra.cross(j) + m));
            let (vb2, wb2) = (vb + imb * j, wb + inv_ib * (rb.cross(j) + m));
            let u2 = (vb2 + wb2.cross(rb)) - (va2 + wa2.cross(ra));
            assert!(u2.length() < 1e-12, "point velocity left: {u2:?}");
            for a in &axes {
                assert!((wb2 - wa2).dot(*a).abs() < 1e-12, "rotation about {a:?} left");
            }
        }
    }
}
