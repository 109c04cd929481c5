//! Exact gradients of one contact point's force and torque (paper §4.1–4.2, eqs. 22–51; every sign re-derived
//! and checked against finite differences in the tests below). Blocks are 3×3, rows (F_A, τ_A, F_B, τ_B), columns
//! (x_A, θ_A, x_B, θ_B) for [`Jacobian::pos`] and (v_A, ω_A, v_B, ω_B) for [`Jacobian::vel`].
//! See docs/methods/implicit-penalty.md, "Exact contact gradients".

use crate::math::{Mat3, Vec3};

/// The cross-product matrix [v]×.
pub fn skew(v: Vec3) -> Mat3 {
    Mat3::from_cols(Vec3::new(0.0, v.z, -v.y), Vec3::new(-v.z, 0.0, v.x), Vec3::new(v.y, -v.x, 0.0))
}

pub use crate::math::outer;

/// The wrench of a pair on its two bodies and its gradients (see the module comment for the layout).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jacobian {
    /// (F_A, τ_A, F_B, τ_B).
    pub wrench: [Vec3; 4],
    /// ∂(F_A, τ_A, F_B, τ_B)/∂(x_A, θ_A, x_B, θ_B).
    pub pos: [[Mat3; 4]; 4],
    /// ∂(F_A, τ_A, F_B, τ_B)/∂(v_A, ω_A, v_B, ω_B).
    pub vel: [[Mat3; 4]; 4],
}

impl Default for Jacobian {
    fn default() -> Self {
        Jacobian { wrench: [Vec3::ZERO; 4], pos: [[Mat3::ZERO; 4]; 4], vel: [[Mat3::ZERO; 4]; 4] }
    }
}

impl Jacobian {
    /// Adds `o`; with `swap`, `o` is of the reversed role (its A is this pair's B), so its rows and columns of the
    /// two bodies trade places.
    pub fn add(&mut self, o: &Jacobian, swap: bool) {
        let m = |i: usize| if swap { (i + 2) % 4 } else { i };
        for r in 0..4 {
            self.wrench[m(r)] += o.wrench[r];
            for c in 0..4 {
                self.pos[m(r)][m(c)] += o.pos[r][c];
                self.vel[m(r)][m(c)] += o.vel[r][c];
            }
        }
    }

    /// Scales the wrench and gradients (the N0 clamp on the spring part).
    pub fn scale(&mut self, s: f64) {
        for r in 0..4 {
            self.wrench[r] *= s;
            for c in 0..4 {
                self.pos[r][c] *= s;
                self.vel[r][c] *= s;
            }
        }
    }
}

/// One penetrating point, in world quantities (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointContact {
    /// φ_A at the point (< 0).
    pub d: f64,
    /// R_A ∇φ_A.
    pub g: Vec3,
    /// N̂ = R_B N.
    pub n: Vec3,
    /// P − x_A and P − x_B.
    pub a: Vec3,
    pub b: Vec3,
    /// R_A ∇²φ_A R_Aᵀ at the point: how `g` turns as the point moves through A's field.
    pub h: Mat3,
    /// 0 for a shell point. For a sphere of B tested as its centre C (contact.rs, [`centre_hit`]), its radius r:
    /// the point P is the sphere's deepest point C − r N̂ (there friction acts), d = φ_A(C) − r, N̂ = G, `h` is
    /// taken at C, and the spring and damper act as at C along G ([`PointContact::centre`]), so that B's spin
    /// turns neither.
    ///
    /// [`centre_hit`]: super::contact::centre_hit
    pub radius: f64,
}

impl PointContact {
    /// A sphere contact as its spring and damper see it: the arms to the centre C = P + r N̂.
    fn centre(&self) -> PointContact {
        let s = self.n * self.radius;
        PointContact { a: self.a + s, b: self.b + s, ..*self }
    }
}

/// Gains of one point: spring k (N/m), damper k_d (N·s/m), whether the damper acts on the tangential
/// relative velocity too, and otherwise along which normal it measures the rate of approach.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gains {
    pub k: f64,
    /// The penetration (m) beyond which the spring's tangent is `stiffening`·k ([`Gains::spring_at`]; the load's
    /// stiffening, `ImplicitParams::stiffness_from_load`); `f64::INFINITY`: a linear spring.
    pub knee: f64,
    pub stiffening: f64,
    pub kd: f64,
    pub tangential: bool,
    /// `true`: along the field's gradient G, −k_d G Gᵀu (Gᵀu the depth's own rate of change); `false`: along the
    /// point's normal, −k_d N̂ N̂ᵀu (the paper). Either is dissipative.
    pub field_rate: bool,
}

impl Gains {
    /// Gains of a linear spring (no knee).
    pub fn linear(k: f64, kd: f64, tangential: bool, field_rate: bool) -> Gains {
        Gains { k, knee: f64::INFINITY, stiffening: 1.0, kd, tangential, field_rate }
    }

    /// The linear spring that the hardening spring is at depth `d` (φ < 0): (k', d') with force k'·|d'| along
    /// the normal and the same gradient in d. Below the knee δ it is (k, d); beyond, the force is
    /// kδ + rk(|d| − δ) = rk·|d + δ(1 − 1/r)|, r = `stiffening`.
    pub fn spring_at(&self, d: f64) -> (f64, f64) {
        if -d <= self.knee {
            (self.k, d)
        } else {
            let r = self.stiffening;
            (self.k * r, d + self.knee * (1.0 - 1.0 / r))
        }
    }

    /// The size of the spring's force at depth `d`.
    pub fn spring_force(&self, d: f64) -> f64 {
        let (k, d) = self.spring_at(d);
        -k * d
    }
}

/// Velocities (v_A, ω_A, v_B, ω_B), world frame.
pub type Velocities = [Vec3; 4];

/// The relative velocity u = v_A + ω_A × a − v_B − ω_B × b of A's material point at P with respect to B's.
pub fn relative_velocity(c: &PointContact, vel: &Velocities) -> Vec3 {
    vel[0] + vel[1].cross(c.a) - vel[2] - vel[3].cross(c.b)
}

/// The spring's wrench and gradients of one point (the part the N0 clamp scales), added to `out`.
pub fn add_spring(c: &PointContact, k: f64, out: &mut Jacobian) {
    let fa = c.n * (k * c.d);
    let kng = outer(c.n * k, c.g);
    // ∂F_A/∂(x_A, θ_A, x_B, θ_B); none in velocities
    let df = [-kng, kng * skew(c.a), kng, -kng * skew(c.b) - skew(fa)];
    add_forces(c, fa, &df, &[Mat3::ZERO; 4], out);
}

/// The spring of a sphere's centre C (arms to C): F_A = k d G with d = φ_A(C) − r, the gradient of the potential
/// ½k d²: δF_A = k(GGᵀ + dH)δc − k d[G]×δθ_A, δc = δx_B − [b]×δθ_B − δx_A + [a]×δθ_A.
fn add_centre_spring(c: &PointContact, k: f64, out: &mut Jacobian) {
    let fa = c.g * (k * c.d);
    let q = (outer(c.g, c.g) + c.h * c.d) * k;
    let df = [-q, q * skew(c.a) - skew(c.g) * (k * c.d), q, -q * skew(c.b)];
    add_forces(c, fa, &df, &[Mat3::ZERO; 4], out);
}

/// [`add_spring`] with the gains' spring law at the point's depth (at a sphere's centre where `radius` > 0).
pub fn add_contact_spring(c: &PointContact, g: &Gains, out: &mut Jacobian) {
    let (k, d) = g.spring_at(c.d);
    if c.radius > 0.0 {
        add_centre_spring(&PointContact { d, ..c.centre() }, k, out);
    } else {
        add_spring(&PointContact { d, ..*c }, k, out);
    }
}

/// The damper's wrench and gradients of one point, added to `out` (a sphere's centre: along G, as at C).
pub fn add_damper(c: &PointContact, g: &Gains, vel: &Velocities, out: &mut Jacobian) {
    let centre = c.radius > 0.0;
    let c = &if centre { c.centre() } else { *c };
    let g = &Gains { field_rate: g.field_rate || centre, ..*g };
    let u = relative_velocity(c, vel);
    let (wa, wb) = (skew(vel[1]), skew(vel[3]));
    let sb = skew(c.b);
    // ∂u/∂(x_A, θ_A, x_B, θ_B) and ∂u/∂(v_A, ω_A, v_B, ω_B)
    let du_pos = [-wa, Mat3::ZERO, wa, -wa * sb + wb * sb];
    let du_vel = [Mat3::IDENTITY, -skew(c.a), -Mat3::IDENTITY, sb];
    let (fa, dp, dv) = if g.tangential {
        (u * -g.kd, du_pos.map(|m| m * -g.kd), du_vel.map(|m| m * -g.kd))
    } else if g.field_rate {
        // F_A = −k_d G Gᵀu: δF_A = −k_d (G Gᵀδu + M δG) with M = (Gᵀu) I + G uᵀ and
        // δG = −[G]×δθ_A + H(δx_B − [b]×δθ_B − δx_A + [a]×δθ_A)
        let gg = outer(c.g, c.g);
        let un = c.g.dot(u);
        let mh = (Mat3::IDENTITY * un + outer(c.g, u)) * c.h;
        let mut dp = du_pos.map(|m| gg * m * -g.kd);
        dp[0] += mh * g.kd;
        dp[1] += ((Mat3::IDENTITY * un + outer(c.g, u)) * skew(c.g) - mh * skew(c.a)) * g.kd;
        dp[2] -= mh * g.kd;
        dp[3] += mh * sb * g.kd;
        (c.g * (-g.kd * un), dp, du_vel.map(|m| gg * m * -g.kd))
    } else {
        let nn = outer(c.n, c.n);
        let un = c.n.dot(u);
        let mut dp = du_pos.map(|m| nn * m * -g.kd);
        // the normal turns with B: δ(N̂N̂ᵀu) = −(N̂ᵀu)[N̂]×δθ_B − N̂uᵀ[N̂]×δθ_B
        let sn = skew(c.n);
        dp[3] += (sn * un + outer(c.n, u) * sn) * g.kd;
        (c.n * (-g.kd * un), dp, du_vel.map(|m| nn * m * -g.kd))
    };
    add_forces(c, fa, &dp, &dv, out);
}

/// The anchor spring of implicit friction, added to `out`: F_B = k_t T s with s = (x_A + α) − (x_B + b) the
/// stretch from B's point to A's anchor (α = the anchor's arm from A's centre of mass, fixed in A) and
/// T = I − N̂N̂ᵀ the projection on the contact plane, which turns with B; F_A = −F_B, both at the point.
/// δs = δx_A − [α]×δθ_A − δx_B + [b]×δθ_B and δT s = ((N̂ᵀs)[N̂]× + N̂sᵀ[N̂]×) δθ_B.
pub fn add_anchor_spring(c: &PointContact, alpha: Vec3, kt: f64, out: &mut Jacobian) {
    let (fa, dp) = anchor_spring(c, alpha, kt);
    add_forces(c, fa, &dp, &[Mat3::ZERO; 4], out);
}

/// A sticking point's anchor spring and damper ([`add_anchor_spring`], [`add_anchor_damper`]) added to `out`
/// together: [`add_forces`] is linear in the force and its gradients, so one pass over the blocks takes both.
pub fn add_sticking_anchor(c: &PointContact, alpha: Vec3, kt: f64, ct: f64, vel: &Velocities, out: &mut Jacobian) {
    let (fs, ds) = anchor_spring(c, alpha, kt);
    let (fd, dp, dv) = tangential(c, vel, tangential_velocity(c, vel) * -ct, Mat3::IDENTITY * -ct);
    add_forces(c, fs + fd, &std::array::from_fn(|j| ds[j] + dp[j]), &dv, out);
}

/// The anchor spring's force on A and its gradient over the bodies' motions ([`add_anchor_spring`]).
fn anchor_spring(c: &PointContact, alpha: Vec3, kt: f64) -> (Vec3, [Mat3; 4]) {
    let s = alpha - c.a; // anchor − P = (x_A + α) − (x_A + a)
    let t = Mat3::IDENTITY - outer(c.n, c.n);
    let sn = skew(c.n);
    let fb = t * s * kt;
    let turn = sn * c.n.dot(s) + outer(c.n, s) * sn;
    let dts = [t, -t * skew(alpha), -t, t * skew(c.b) + turn];
    (-fb, dts.map(|m| m * -kt))
}

/// Kinetic friction with its gradients, added to `out`: F_A = −μ_k f_n ẑ (`mu_fn` = μ_k f_n, held over the step)
/// and ẑ = Tu/|Tu| the direction of the slip (u the relative velocity of A's point with respect to
/// B's, T = I − N̂N̂ᵀ turning with B). With c = μ_k f_n/|Tu|: δF_A = −c (I − ẑẑᵀ) δ(Tu): the force keeps its
/// magnitude along the slip and damps across it (the step cannot swing the slip's direction past the force, as an
/// explicit force does). f_n's own gradient is left out: that rank-one term is not symmetric and made backward
/// Euler unstable (a chain of dominoes gained 8 kJ). See docs/methods/implicit-penalty.md, "Kinetic friction,
/// implicit".
pub fn add_kinetic_friction(c: &PointContact, mu_fn: f64, vel: &Velocities, out: &mut Jacobian) {
    let tu = tangential_velocity(c, vel);
    let (slip, z) = (tu.length(), tu.normalize_or_zero());
    let coef = if slip > 0.0 { mu_fn / slip } else { 0.0 };
    add_tangential(c, vel, z * -mu_fn, (Mat3::IDENTITY - outer(z, z)) * -coef, out);
}

/// The damper of a sticking anchor, added to `out`: F_A = −c_t T u (`ct` = c_t, N·s/m), the tangential part of
/// the relative velocity u (T = I − N̂N̂ᵀ turning with B), so that only the motion static friction forbids is
/// damped. δF_A = −c_t δ(Tu).
pub fn add_anchor_damper(c: &PointContact, ct: f64, vel: &Velocities, out: &mut Jacobian) {
    let tu = tangential_velocity(c, vel);
    add_tangential(c, vel, tu * -ct, Mat3::IDENTITY * -ct, out);
}

/// Tu, the tangential part of the relative velocity ([`relative_velocity`]).
fn tangential_velocity(c: &PointContact, vel: &Velocities) -> Vec3 {
    let u = relative_velocity(c, vel);
    u - c.n * c.n.dot(u)
}

/// Adds a tangential force `fa` on A whose gradient is `q` δ(Tu), with δ(Tu) from the bodies' motions and
/// velocities and from T turning with B: (N̂ᵀu)[N̂]×δθ_B + N̂uᵀ[N̂]×δθ_B.
fn add_tangential(c: &PointContact, vel: &Velocities, fa: Vec3, q: Mat3, out: &mut Jacobian) {
    let (fa, dp, dv) = tangential(c, vel, fa, q);
    add_forces(c, fa, &dp, &dv, out);
}

/// The force and gradients of [`add_tangential`].
fn tangential(c: &PointContact, vel: &Velocities, fa: Vec3, q: Mat3) -> (Vec3, [Mat3; 4], [Mat3; 4]) {
    let u = relative_velocity(c, vel);
    let (wa, wb) = (skew(vel[1]), skew(vel[3]));
    let (sb, sn) = (skew(c.b), skew(c.n));
    let t = Mat3::IDENTITY - outer(c.n, c.n);
    let du_pos = [-wa, Mat3::ZERO, wa, -wa * sb + wb * sb];
    let du_vel = [Mat3::IDENTITY, -skew(c.a), -Mat3::IDENTITY, sb];
    let mut dp = du_pos.map(|m| q * t * m);
    dp[3] += q * (sn * c.n.dot(u) + outer(c.n, u) * sn);
    (fa, dp, du_vel.map(|m| q * t * m))
}

/// Tu at the step's start and its change δ(Tu) over the bodies' changes `m`, as the step's linearised system
/// takes them ([`add_tangential`]).
fn applied_tangential_velocity(c: &PointContact, vel: &Velocities, m: &[Motion; 2]) -> (Vec3, Vec3) {
    let ([xa, _, va, wa], [xb, tb, vb, wb]) = (m[0], m[1]);
    let u = relative_velocity(c, vel);
    let du = vel[1].cross(xb - xa) + (vel[3] - vel[1]).cross(c.b.cross(tb)) + va - c.a.cross(wa) - vb + c.b.cross(wb);
    let (un, nt) = (c.n.dot(u), c.n.cross(tb));
    (u - c.n * un, (du - c.n * c.n.dot(du)) + nt * un + c.n * u.dot(nt))
}

/// The kinetic friction's force on A ([`add_kinetic_friction`]) as the step's linearised system applies it, as
/// [`applied_force`].
pub fn applied_kinetic_force(c: &PointContact, mu_fn: f64, vel: &Velocities, m: &[Motion; 2]) -> Vec3 {
    let (tu, d) = applied_tangential_velocity(c, vel, m);
    let (slip, z) = (tu.length(), tu.normalize_or_zero());
    let coef = if slip > 0.0 { mu_fn / slip } else { 0.0 };
    z * -mu_fn - (d - z * z.dot(d)) * coef
}

/// The anchor damper's force on A ([`add_anchor_damper`]) as the step's linearised system applies it, as
/// [`applied_force`].
pub fn applied_anchor_damper_force(c: &PointContact, ct: f64, vel: &Velocities, m: &[Motion; 2]) -> Vec3 {
    let (tu, d) = applied_tangential_velocity(c, vel, m);
    -(tu + d) * ct
}

/// A body's change over a step as the step's linearisation takes it: (Δx, Δθ, Δv, Δω).
pub type Motion = [Vec3; 4];

/// The spring's and damper's force on A of one point as the step's linearised system applies it: the force at
/// the start plus its gradients ([`add_spring`], [`add_damper`]) times the bodies' changes `m` (A's, then B's).
pub fn applied_force(c: &PointContact, g: &Gains, vel: &Velocities, m: &[Motion; 2]) -> Vec3 {
    let ([xa, ta, va, wa], [xb, tb, vb, wb]) = (m[0], m[1]);
    let centre = c.radius > 0.0;
    let c = &if centre { c.centre() } else { *c };
    let g = &Gains { field_rate: g.field_rate || centre, ..*g };
    let (k, d) = g.spring_at(c.d);
    let dc = xb - xa + c.a.cross(ta) - c.b.cross(tb);
    let spring = if centre {
        // δF = k G Gᵀδc + k d (H δc + δθ_A × G)
        let fs = c.g * (k * d);
        fs + c.g * (k * c.g.dot(dc)) + (c.h * dc + ta.cross(c.g)) * (k * d)
    } else {
        // δF = k N̂ ∇φ·δc + δθ_B × F (N̂ turns with B)
        let fs = c.n * (k * d);
        fs + c.n * (k * c.g.dot(dc)) + tb.cross(fs)
    };
    // damper: δu from the poses (the arms and A's point move) and from the velocities
    let u = relative_velocity(c, vel);
    let du = vel[1].cross(xb - xa) + (vel[3] - vel[1]).cross(c.b.cross(tb)) + va - c.a.cross(wa) - vb + c.b.cross(wb);
    let damper = if g.tangential {
        -(u + du) * g.kd
    } else if g.field_rate {
        let dg = ta.cross(c.g) + c.h * (xb - c.b.cross(tb) - xa + c.a.cross(ta));
        -(c.g * c.g.dot(u + du) + c.g * u.dot(dg) + dg * c.g.dot(u)) * g.kd
    } else {
        let (un, nt) = (c.n.dot(u), c.n.cross(tb));
        -c.n * (g.kd * (un + c.n.dot(du))) + (nt * un + c.n * u.dot(nt)) * g.kd
    };
    spring + damper
}

/// The anchor spring's force on A ([`add_anchor_spring`]) as the step's linearised system applies it, as
/// [`applied_force`].
pub fn applied_anchor_force(c: &PointContact, alpha: Vec3, kt: f64, m: &[Motion; 2]) -> Vec3 {
    let ([xa, ta, ..], [xb, tb, ..]) = (m[0], m[1]);
    let s = alpha - c.a;
    let t = |v: Vec3| v - c.n * c.n.dot(v);
    let nt = c.n.cross(tb);
    -(t(s) + t(xa - alpha.cross(ta) - xb + c.b.cross(tb)) + nt * c.n.dot(s) + c.n * s.dot(nt)) * kt
}

/// Adds a force `fa` on A (and −fa on B) at the point, with its gradients, and the torques about the centres
/// of mass with theirs: ∂τ_A = [a]×∂F_A − [F_A]×∂a, ∂τ_B = [b]×∂F_B − [F_B]×∂b, ∂a = (−I, 0, I, −[b]×),
/// ∂b = (0, 0, 0, −[b]×).
fn add_forces(c: &PointContact, fa: Vec3, dfp: &[Mat3; 4], dfv: &[Mat3; 4], out: &mut Jacobian) {
    let (sa, sb, sf) = (skew(c.a), skew(c.b), skew(fa));
    out.wrench[0] += fa;
    out.wrench[1] += c.a.cross(fa);
    out.wrench[2] -= fa;
    out.wrench[3] += c.b.cross(-fa);
    let da = [-Mat3::IDENTITY, Mat3::ZERO, Mat3::IDENTITY, -sb];
    for j in 0..4 {
        out.pos[0][j] += dfp[j];
        out.pos[1][j] += sa * dfp[j] - sf * da[j];
        out.pos[2][j] -= dfp[j];
        out.pos[3][j] -= sb * dfp[j];
        out.vel[0][j] += dfv[j];
        out.vel[1][j] += sa * dfv[j];
        out.vel[2][j] -= dfv[j];
        out.vel[3][j] -= sb * dfv[j];
    }
    // −[F_B]×∂b/∂θ_B = −[−F_A]×(−[b]×) = −[F_A]×[b]×
    out.pos[3][3] -= sf * sb;
}

#[cfg(test)]
#[path = "gradients_tests.rs"]
mod tests;
