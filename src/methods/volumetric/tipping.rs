//! Friction's tipping moment, balanced by the centre of pressure. A rigid face under a friction force f
//! presses harder at its leading edge: its centre of pressure moves by δ so that the normal force's moment
//! cancels the one f exerts about the bodies' centres of mass, and the face does not tilt. The penalty over the
//! intersection volume moves its centre of pressure only as the body tilts into the patch, which lets f turn the
//! body (the contact point is 0.4 of a cube's mass along the plane) before it stops it. Here the moment
//! T = F_n (δ × n) that keeps the pair's relative tilt from changing under f is applied with f, as far as the
//! patch reaches (|δ| within it). See docs/methods/volumetric-penalty.md, "Friction's tipping moment".

use crate::collision::intersect::Intersection;
use crate::dynamics::collision_matrix::collision_matrix_at;
use crate::dynamics::integrate::inv_inertia_world;
use crate::math::{tangent_basis, Mat3, Vec3};
use crate::model::{BodyKind, Model};
use crate::state::State;

/// The tangential moment T = `map`·f on B (A gets −T) that balances friction f on B at the contact point (−f on
/// A), scaled to what the patch reaches, and the smallest effective mass of the contact point along the plane
/// with that moment applied (what a damper that stops the point within a substep is sized for).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Balance {
    pub map: Mat3,
    pub mass: f64,
}

impl Balance {
    /// No moment: the penalty's own centre of pressure.
    pub const NONE: Balance = Balance { map: Mat3::ZERO, mass: f64::INFINITY };

    /// The moment for friction `f` on B at a contact with normal force `normal_force` (> 0): T and the shift δ
    /// of the centre of pressure it stands for (T = F_n (δ × n), δ in the contact plane).
    pub fn moment(&self, f: Vec3, n: Vec3, normal_force: f64) -> (Vec3, Vec3) {
        let t = self.map * f;
        (t, n.cross(t) / normal_force)
    }
}

/// A body's world inverse inertia: zero for one that does not move this step (static, kinematic or asleep).
fn inverse_inertia(model: &Model, state: &State, i: usize) -> Mat3 {
    if model.bodies[i].kind == BodyKind::Dynamic && crate::dynamics::sleep::awake(model, state, i) {
        inv_inertia_world(model, i, state.bodies[i].q)
    } else {
        Mat3::ZERO
    }
}

/// The speed at the patch's reach (|ω_rel| across n times the reach) at which the balance is gone, m/s: a pair
/// that tilts (lands on an edge, rocks, rolls on a facet) keeps the penalty's own centre of pressure, so that
/// the moment never works on a tilt that is under way.
pub const TILT_SPEED: f64 = 0.01;

/// The balance of a contact between `a` and `b` at `point` with unit normal `n` (A towards B), whose patch
/// reaches `reach` (m) from `point` in every direction of the plane, for friction up to `mu` times the normal
/// force: whole while the pair does not tilt relative to each other, none from a tilt of [`TILT_SPEED`] at the
/// patch's reach on.
pub fn balance(model: &Model, state: &State, (a, b): (usize, usize), point: Vec3, n: Vec3, reach: f64, mu: f64) -> Balance {
    let w = state.bodies[b].w - state.bodies[a].w;
    let tilt = (w - n * w.dot(n)).length() * reach;
    if !(tilt < TILT_SPEED) {
        return Balance::NONE;
    }
    let (ia, ib) = (inverse_inertia(model, state, a), inverse_inertia(model, state, b));
    let (ra, rb) = (point - state.bodies[a].x, point - state.bodies[b].x);
    let cross = |r: Vec3| Mat3::from_cols(r.cross(Vec3::X), r.cross(Vec3::Y), r.cross(Vec3::Z));
    // relative angular acceleration per unit f (B takes f at rb, A −f at ra), and per unit moment T (B +T, A −T)
    let g = ib * cross(rb) + ia * cross(ra);
    let s = ib + ia;
    let (t1, t2) = tangent_basis(n);
    // T = x1 t1 + x2 t2 with the tangential part of g f + s T zero: a 2×2 solve per column of f
    let (s11, s12, s21, s22) = (t1.dot(s * t1), t1.dot(s * t2), t2.dot(s * t1), t2.dot(s * t2));
    let det = s11 * s22 - s12 * s21;
    if !(det.abs() > 1e-12 * (s11 * s22).abs()) || !(det.is_finite()) {
        return Balance::NONE;
    }
    let solve = |r1: f64, r2: f64| ((s22 * r1 - s12 * r2) / det, (s11 * r2 - s21 * r1) / det);
    let column = |e: Vec3| {
        let ge = g * e;
        let (x1, x2) = solve(-t1.dot(ge), -t2.dot(ge));
        t1 * x1 + t2 * x2
    };
    let mut map = Mat3::from_cols(column(Vec3::X), column(Vec3::Y), column(Vec3::Z));
    // |δ| ≤ |map|·μ for any friction within the cone: where the patch does not reach that far the moment is
    // scaled down (the body tips as much as the penalty lets it)
    let need = plane_norm(&map, t1, t2) * mu;
    if need > reach {
        map *= reach / need;
    }
    map *= 1.0 - tilt / TILT_SPEED;
    // the point's velocity change per unit f with the moment applied: K f − [rb]× I_B⁻¹ T − [ra]× I_A⁻¹ T
    let k = collision_matrix_at(model, state, a, b, point) - (cross(rb) * ib + cross(ra) * ia) * map;
    // the largest singular value of the plane's block bounds the change of the point's speed per unit force
    let sigma = plane_norm(&k, t1, t2);
    let mass = if sigma > 0.0 { 1.0 / sigma } else { f64::INFINITY };
    Balance { map, mass }
}

/// The largest singular value of `m`'s block on the plane spanned by the orthonormal `t1`, `t2`.
fn plane_norm(m: &Mat3, t1: Vec3, t2: Vec3) -> f64 {
    let (a, b, c, d) = (t1.dot(*m * t1), t1.dot(*m * t2), t2.dot(*m * t1), t2.dot(*m * t2));
    let (p, q) = (a * a + b * b + c * c + d * d, (a * d - b * c).abs());
    (0.5 * (p + (p * p - 4.0 * q * q).max(0.0).sqrt())).sqrt()
}

/// How far the intersection's footprint reaches from `point` in the plane ⟂ `n`: the least of its extents along
/// eight directions of the plane (0 where `point` lies on or outside its edge).
pub fn reach(isect: &Intersection, point: Vec3, n: Vec3) -> f64 {
    let (t1, t2) = tangent_basis(n);
    let d = std::f64::consts::FRAC_1_SQRT_2;
    let dirs = [t1, -t1, t2, -t2, (t1 + t2) * d, (t1 - t2) * d, (t2 - t1) * d, (-t1 - t2) * d];
    dirs.iter()
        .map(|&u| isect.polygon.iter().map(|&v| (v - point).dot(u)).fold(f64::NEG_INFINITY, f64::max))
        .fold(f64::INFINITY, f64::min)
        .max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cube_on_the_ground_takes_its_whole_mass_along_the_plane_and_does_not_tilt() {
        let text = "format = 1\n[world]\ndt = 0.001\nmethod = \"volumetric-penalty\"\n\
            [[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [2.0, 2.0, 0.2] }\nposition = [0.0, 0.0, -0.1]\n\
            [[body]]\nname = \"cube\"\nshape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nposition = [0.0, 0.0, 0.05]\nmass = 2.0\n";
        let w = crate::world::World::from_scene_text(text, "t").unwrap();
        let (model, state) = (&w.model, &w.state);
        let n = Vec3::Z;
        let b = balance(model, state, (0, 1), Vec3::ZERO, n, 0.05, 0.5);
        // the moment of f at the bottom face about the centre (0.05 below it) is balanced: δ = −0.05·f/F_n
        let f = Vec3::new(3.0, -1.0, 0.0);
        let (t, delta) = b.moment(f, n, 10.0);
        let rb = Vec3::new(0.0, 0.0, -0.05);
        assert!((rb.cross(f) + t).length() < 1e-12, "{t:?}");
        // f along +x at the base lifts the cube's +x edge: the pressure moves to −x
        assert!((delta + f * (0.05 / 10.0)).length() < 1e-12, "{delta:?}");
        // without the tilt, the point moves as the body does along the plane: its mass
        assert!((b.mass - 2.0).abs() < 1e-9, "{}", b.mass);
        // a patch that reaches 0.01 m holds a fifth of the moment that μ = 0.5 may ask for (0.025 m)
        let b = balance(model, state, (0, 1), Vec3::ZERO, n, 0.01, 0.5);
        let (t, _) = b.moment(f, n, 10.0);
        assert!((rb.cross(f) * 0.4 + t).length() < 1e-12, "{t:?}");
        assert!(b.mass < 2.0 && b.mass > collision_mass(model, state), "{}", b.mass);
    }

    fn collision_mass(model: &Model, state: &State) -> f64 {
        let k = collision_matrix_at(model, state, 0, 1, Vec3::ZERO);
        1.0 / k.col(0).x.max(k.col(1).y)
    }
}
