//! Penalty force and moment integrated over the intersection polyhedron (Hasegawa et al. §4.3–4.5).
//!
//! The intersection's boundary, split into triangles, is integrated as a height field over the plane ⟂ n:
//! for a triangle with projected vertices p, p + a, p + b and values f, f + f_a, f + f_b at them (the spring
//! k·height or the damper c·(v·n) of the body the face belongs to),
//! ∫∫ f dA · (a×b) = (f0 + f1 + f2)/6 · (a×b) and ∫∫ r × f (a×b) dA = [(2f0+f1+f2)p0 + (f0+2f1+f2)p1 +
//! (f0+f1+2f2)p2]/24 × (a×b), which are the paper's eqs. (3) and (5) written per vertex. Summed over the
//! closed boundary, the heights give the volume times k; divided by the projected area (each point of the
//! patch is covered twice, once from above and once from below), the spring acts on the mean depth.

use crate::collision::intersect::{Intersection, Side};
use crate::math::Vec3;

/// The integrals of one triangle for a linear field with vertex values `f`, vertices `p` projected on the
/// plane ⟂ n through the origin: (force, moment about the origin). Both are along / across a×b.
pub fn triangle_integrals(p: [Vec3; 3], f: [f64; 3]) -> (Vec3, Vec3) {
    let (a, b) = (p[1] - p[0], p[2] - p[0]);
    let ab = a.cross(b);
    let force = ab * ((f[0] + f[1] + f[2]) / 6.0);
    let lever = (p[0] * (2.0 * f[0] + f[1] + f[2]) + p[1] * (f[0] + 2.0 * f[1] + f[2]) + p[2] * (f[0] + f[1] + 2.0 * f[2])) / 24.0;
    (force, lever.cross(ab))
}

/// What the integration of one intersection gives.
#[derive(Debug, Clone, Copy, Default)]
pub struct Patch {
    /// Unit contact normal, from A towards B (the direction B is pushed).
    pub normal: Vec3,
    /// Intersection volume, m³, and its area projected on the plane ⟂ n, m².
    pub volume: f64,
    pub area: f64,
    /// Normal force on B, N (spring on the mean depth plus damper, clamped at zero: no pull).
    pub force: f64,
    /// The spring part alone, N.
    pub spring: f64,
    /// Application point (centre of pressure), world.
    pub point: Vec3,
    /// Pressure-weighted mean distance from `point` over the patch (the torsional friction arm), m.
    pub arm: f64,
}

/// Integrates the penalty over `isect`. `k` is the pair's spring; `damper(point, n)` gives its damper for the
/// centre of pressure and normal of the spring alone; `vel_a(x)` and `vel_b(x)` give the velocities of the
/// bodies' material points at x. `fallback` is the normal used when the faces give none (a symmetric overlap).
pub fn integrate(
    isect: &Intersection,
    k: f64,
    damper: impl Fn(Vec3, Vec3) -> f64,
    vel_a: impl Fn(Vec3) -> Vec3,
    vel_b: impl Fn(Vec3) -> Vec3,
    fallback: Vec3,
) -> Patch {
    integrate_law(isect, k, |_, _, _| (1.0, -1.0), damper, vel_a, vel_b, fallback)
}

/// The normal of eq. (1): the area-weighted face normals of the intersection, A's minus B's, from A toward B;
/// `fallback` when they cancel (a symmetric overlap).
pub fn face_normal(isect: &Intersection, fallback: Vec3) -> Vec3 {
    face_normal_of(isect, fallback, |_| true)
}

/// [`face_normal`] over the faces for which `surface` holds: the faces that lie on the bodies' surfaces, not
/// on a plane where two convex pieces of one body meet (mod.rs, `Volumetric::normal`).
pub fn face_normal_of(isect: &Intersection, fallback: Vec3, surface: impl Fn(&crate::collision::intersect::Face) -> bool) -> Vec3 {
    let mut n = Vec3::ZERO;
    for f in isect.faces.iter().filter(|f| surface(f)) {
        let sign = match f.side {
            Side::A => 1.0,
            Side::B => -1.0,
            Side::Both => 0.0,
        };
        let p = isect.face_vertices(f);
        for j in 1..p.len() - 1 {
            n += sign * (p[j] - p[0]).cross(p[j + 1] - p[0]);
        }
    }
    let len = n.length();
    if len > 1e-12 * isect.volume().abs().powf(2.0 / 3.0) && len > 0.0 {
        n / len
    } else {
        fallback
    }
}

/// The extent (max − min) of the intersection's vertices along `n`.
pub fn extent(isect: &Intersection, n: Vec3) -> f64 {
    let (lo, hi) = isect.polygon.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), p| {
        let z = p.dot(n);
        (l.min(z), u.max(z))
    });
    (hi - lo).max(0.0)
}

/// [`integrate`] with a spring law on the mean depth: `law(point, n, f)` gets the linear spring force
/// f = k·(mean depth) and returns (the factor s by which the spring's force and moment are scaled, the damper
/// c); `damper` is then not used unless `law` returns a negative c. The centre of pressure of the spring is
/// that of the linear field (s scales force and moment alike).
pub fn integrate_law(
    isect: &Intersection,
    k: f64,
    law: impl Fn(Vec3, Vec3, f64) -> (f64, f64),
    damper: impl Fn(Vec3, Vec3) -> f64,
    vel_a: impl Fn(Vec3) -> Vec3,
    vel_b: impl Fn(Vec3) -> Vec3,
    fallback: Vec3,
) -> Patch {
    integrate_along(isect, face_normal(isect, fallback), k, law, damper, vel_a, vel_b)
}

/// [`integrate_law`] along a given unit normal `n` (from A toward B).
pub fn integrate_along(
    isect: &Intersection,
    n: Vec3,
    k: f64,
    law: impl Fn(Vec3, Vec3, f64) -> (f64, f64),
    damper: impl Fn(Vec3, Vec3) -> f64,
    vel_a: impl Fn(Vec3) -> Vec3,
    vel_b: impl Fn(Vec3) -> Vec3,
) -> Patch {
    let o = isect.center;
    let (mut fs, mut ms, mut fd, mut md, mut area2, mut volume) = (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO, 0.0, 0.0);
    for f in &isect.faces {
        let p = isect.face_vertices(f);
        for j in 1..p.len() - 1 {
            let tri = [p[0], p[j], p[j + 1]];
            let h = tri.map(|x| (x - o).dot(n));
            let proj = [0, 1, 2].map(|i| (tri[i] - o) - n * h[i]);
            let (f1, m1) = triangle_integrals(proj, h.map(|x| k * x));
            fs += f1;
            ms += m1;
            let g = tri.map(|x| if f.side == Side::B { vel_b(x) } else { vel_a(x) }.dot(n));
            let (f2, m2) = triangle_integrals(proj, g);
            fd += f2;
            md += m2;
            let ab = (proj[1] - proj[0]).cross(proj[2] - proj[0]);
            area2 += ab.dot(n).abs();
            volume += (tri[0] - o).dot((tri[1] - o).cross(tri[2] - o)) / 6.0;
        }
    }
    let area = area2 / 4.0;
    if !(area > 0.0) || !(volume > 0.0) {
        return Patch { normal: n, volume: volume.max(0.0), area, point: o, ..Default::default() };
    }
    let linear = fs.dot(n) / area;
    let cop = if fs.length_squared() > 0.0 { o + fs.cross(ms) / fs.length_squared() } else { o };
    let (scale, c_law) = law(cop, n, linear);
    let (fs, ms) = (fs * scale, ms * scale);
    let spring = linear * scale;
    let c = if fs.length_squared() == 0.0 {
        0.0
    } else if c_law >= 0.0 {
        c_law
    } else {
        damper(cop, n)
    };
    let (fd, md) = (fd * c, md * c);
    let mut total = (fs + fd).dot(n) / area;
    let (mut ftot, mut mtot) = (fs + fd, ms + md);
    if total <= 0.0 {
        total = 0.0;
        ftot = fs;
        mtot = ms;
    }
    let point = if ftot.length_squared() > 0.0 { o + ftot.cross(mtot) / ftot.length_squared() } else { o };
    // torsional arm: ∫ depth·|r − point| dA / ∫ depth dA, by the centroid rule on each triangle split 4×4
    const M: usize = 4;
    let (mut num, mut den) = (0.0, 0.0);
    for f in &isect.faces {
        let p = isect.face_vertices(f);
        for j in 1..p.len() - 1 {
            let tri = [p[0], p[j], p[j + 1]];
            let ab = (tri[1] - tri[0]).cross(tri[2] - tri[0]).dot(n) / 2.0 / (M * M) as f64;
            if ab == 0.0 {
                continue;
            }
            for s in 0..M {
                for t in 0..M - s {
                    for (ds, dt, ok) in [(1.0 / 3.0, 1.0 / 3.0, true), (2.0 / 3.0, 2.0 / 3.0, s + t + 1 < M)] {
                        if ok {
                            let (u, v) = ((s as f64 + ds) / M as f64, (t as f64 + dt) / M as f64);
                            let x = tri[0] + (tri[1] - tri[0]) * u + (tri[2] - tri[0]) * v;
                            let h = (x - o).dot(n);
                            let r = (x - point) - n * (x - point).dot(n);
                            num += ab * h * r.length();
                            den += ab * h;
                        }
                    }
                }
            }
        }
    }
    let arm = if den > 0.0 { (num / den).max(0.0) } else { 0.0 };
    Patch { normal: n, volume, area, force: total, spring, point, arm }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::intersect::{intersect, tests::placed_box, PolyView, Workspace};
    use crate::math::{Pose, Quat};

    /// Degree-5-exact enough: a fine barycentric midpoint grid on the triangle.
    fn quadrature(p: [Vec3; 3], f: [f64; 3]) -> (Vec3, Vec3) {
        let (a, b) = (p[1] - p[0], p[2] - p[0]);
        let ab = a.cross(b);
        let m = 400;
        let (mut fi, mut mi) = (Vec3::ZERO, Vec3::ZERO);
        let cell = 1.0 / (m * m) as f64; // each small triangle has 1/m² of the area
        for i in 0..m {
            for j in 0..m - i {
                // the two small triangles of the cell (i, j): centroids
                for (s, t, ok) in [
                    ((i as f64 + 1.0 / 3.0) / m as f64, (j as f64 + 1.0 / 3.0) / m as f64, true),
                    ((i as f64 + 2.0 / 3.0) / m as f64, (j as f64 + 2.0 / 3.0) / m as f64, i + j + 1 < m),
                ] {
                    if !ok {
                        continue;
                    }
                    let val = f[0] + s * (f[1] - f[0]) + t * (f[2] - f[0]);
                    let r = p[0] + a * s + b * t;
                    fi += ab * (val * cell / 2.0);
                    mi += r.cross(ab * (val * cell / 2.0));
                }
            }
        }
        (fi, mi)
    }

    #[test]
    fn triangle_integrals_match_quadrature() {
        let n = Vec3::new(0.2, -0.3, 1.0).normalize();
        let (u, w) = crate::math::tangent_basis(n);
        let p = [u * 0.3 + w * -0.2, u * 1.1 + w * 0.4, u * -0.4 + w * 0.9];
        for f in [[1.0, 2.0, 3.0], [0.5, -0.25, 4.0], [0.0, 0.0, 1.0]] {
            let (fe, me) = triangle_integrals(p, f);
            let (fq, mq) = quadrature(p, f);
            // the midpoint rule on a linear field is exact for the force, and second order for the moment
            assert!((fe - fq).length() <= 1e-10 * fe.length().max(1.0), "{fe} vs {fq}");
            assert!((me - mq).length() <= 1e-5 * me.length().max(1.0), "{me} vs {mq}");
        }
    }

    #[test]
    fn triangle_moment_is_exact_against_a_polynomial_rule() {
        // Dunavant's 3-point rule (degree 2) is exact for r·f with r and f linear: compare to 1e-12
        let n = Vec3::new(0.0, 0.0, 1.0);
        let (u, w) = crate::math::tangent_basis(n);
        let p = [u * 0.3 + w * -0.2, u * 1.1 + w * 0.4, u * -0.4 + w * 0.9];
        let f = [0.7, -1.3, 2.9];
        let ab = (p[1] - p[0]).cross(p[2] - p[0]);
        let mut m = Vec3::ZERO;
        for (l0, l1, l2) in [(4.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0), (1.0 / 6.0, 4.0 / 6.0, 1.0 / 6.0), (1.0 / 6.0, 1.0 / 6.0, 4.0 / 6.0)] {
            let r = p[0] * l0 + p[1] * l1 + p[2] * l2;
            let v = f[0] * l0 + f[1] * l1 + f[2] * l2;
            m += r.cross(ab * v) / 6.0; // weight 1/3 × area |ab|/2
        }
        let (_, me) = triangle_integrals(p, f);
        assert!((me - m).length() <= 1e-12, "{me} vs {m}");
    }

    fn patch(
        floor: &(Vec<crate::geometry::polytope::Plane>, Vec<Vec3>, Vec<[u32; 2]>),
        cube: &(Vec<crate::geometry::polytope::Plane>, Vec<Vec3>, Vec<[u32; 2]>),
    ) -> Patch {
        let mut ws = Workspace::default();
        let mut out = Intersection::default();
        assert!(intersect(
            &mut ws,
            PolyView { planes: &floor.0, vertices: &floor.1, edges: &floor.2 },
            PolyView { planes: &cube.0, vertices: &cube.1, edges: &cube.2 },
            &mut out
        ));
        integrate(&out, 1000.0, |_, _| 0.0, |_| Vec3::ZERO, |_| Vec3::ZERO, Vec3::Z)
    }

    #[test]
    fn resting_cube_presses_under_its_centre_with_its_mean_depth() {
        let floor = placed_box(Vec3::new(5.0, 5.0, 0.5), Pose::from_translation(Vec3::new(0.0, 0.0, -0.5)));
        let cube = placed_box(Vec3::splat(0.5), Pose::from_translation(Vec3::new(0.3, -0.2, 0.5 - 0.01)));
        let p = patch(&floor, &cube);
        assert!((p.normal - Vec3::Z).length() < 1e-12);
        assert!((p.volume - 0.01).abs() < 1e-12 && (p.area - 1.0).abs() < 1e-12);
        assert!((p.spring - 1000.0 * 0.01).abs() < 1e-9, "spring {}", p.spring);
        assert!((p.point.x - 0.3).abs() < 1e-12 && (p.point.y + 0.2).abs() < 1e-12);
        // the arm of a uniform unit square about its centre: ∫|r| dA = (√2 + ln(1+√2))/6
        let arm = (2f64.sqrt() + (1.0 + 2f64.sqrt()).ln()) / 6.0;
        assert!((p.arm - arm).abs() < 2e-2 * arm, "arm {} vs {}", p.arm, arm);
    }

    #[test]
    fn tilted_cube_presses_nearer_its_low_edge() {
        // the moment must level the cube: the centre of pressure lies on the deeper side of the centre
        let floor = placed_box(Vec3::new(5.0, 5.0, 0.5), Pose::from_translation(Vec3::new(0.0, 0.0, -0.5)));
        let th: f64 = 0.01;
        let cube = placed_box(Vec3::splat(0.5), Pose::from_parts(Vec3::new(0.0, 0.0, 0.5 - 0.01), Quat::from_rotation_y(th)));
        let p = patch(&floor, &cube);
        // rotation about +y lowers the +x side: the depth grows linearly along x with slope tan θ over the
        // projected width cos θ, so the centroid lies tan θ·cos²θ/(12·depth) beyond the patch's centre
        // the patch is centred under the bottom face's centre, x = −½ sin θ, where the depth is ½ cos θ − 0.49
        let depth = 0.5 * th.cos() - 0.49;
        let expect = -0.5 * th.sin() + th.tan() * th.cos().powi(2) / (12.0 * depth);
        assert!(p.point.x > 0.0 && (p.point.x - expect).abs() < 2e-3 * expect, "x̄ {} vs {}", p.point.x, expect);
    }
}
