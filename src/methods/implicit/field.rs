//! What the method needs of a body's geometry: a signed distance field φ (φ < 0 inside, with its gradient, in
//! the body's reference frame) and a point shell (surface points with INWARD unit normals, same frame).
//!
//! The scenes use the grid and analytic fields of `geometry::sdf` and the shells of `geometry::point_shell`
//! (built once per shape by `geometry::fields`); the method itself only sees the [`Field`] trait, so the unit
//! tests and the validation rows can also use the exact fields below (sphere, box, half-space), whose values
//! and gradients are closed forms.

use crate::math::{outer, Mat3, Vec3};

/// A signed distance field in a body's reference frame.
pub trait Field: Send + Sync {
    /// φ at `p` (negative inside) and ∇φ, or `None` where the field is not defined (outside its grid): a point
    /// there is not in contact.
    fn eval(&self, p: &Vec3) -> Option<(f64, Vec3)>;

    /// φ and ∇φ at `p` wherever the field is a closed form (beyond its box too), else as [`Field::eval`]: a
    /// sphere's centre lies up to its radius outside the solid it touches.
    fn eval_far(&self, p: &Vec3) -> Option<(f64, Vec3)> {
        self.eval(p)
    }

    /// ∇²φ wherever [`Field::eval_far`] gives a value.
    fn hessian_far(&self, p: &Vec3) -> Mat3 {
        self.hessian(p)
    }

    /// ∇²φ at `p` (where [`Field::eval`] gives a value): how the gradient turns as the point moves, for the
    /// gradients of a damper that measures the rate along ∇φ.
    fn hessian(&self, p: &Vec3) -> Mat3;

    /// Whether the gradient is a closed form (exact), not a grid's interpolation (smoothed over a cell where
    /// the surface bends: at a mesh's edges and facets).
    fn exact(&self) -> bool;

    /// Whether the axis-aligned box of centre `c` and half-extents `half` (this field's frame) may hold a point
    /// with φ < 0; `false` only where none can (the contact evaluation then skips the box's points).
    fn may_penetrate(&self, _c: Vec3, _half: Vec3) -> bool {
        true
    }
}

impl Field for crate::geometry::sdf::Sdf {
    fn eval(&self, p: &Vec3) -> Option<(f64, Vec3)> {
        crate::geometry::sdf::Sdf::eval(self, p)
    }

    fn eval_far(&self, p: &Vec3) -> Option<(f64, Vec3)> {
        crate::geometry::sdf::Sdf::eval_far(self, p)
    }

    fn hessian_far(&self, p: &Vec3) -> Mat3 {
        crate::geometry::sdf::Sdf::hessian_far(self, p)
    }

    fn hessian(&self, p: &Vec3) -> Mat3 {
        crate::geometry::sdf::Sdf::hessian(self, p)
    }

    fn exact(&self) -> bool {
        self.is_exact()
    }

    fn may_penetrate(&self, c: Vec3, half: Vec3) -> bool {
        crate::geometry::sdf::Sdf::may_penetrate(self, c, half)
    }
}

/// A point shell: points on the surface and their inward unit normals, in the body's reference frame, and
/// the bounding boxes (centre, half-extents) of its runs of `blocks_of` points (empty: no culling).
#[derive(Debug, Clone, Copy)]
pub struct ShellRef<'a> {
    pub points: &'a [Vec3],
    pub normals: &'a [Vec3],
    pub blocks: &'a [(Vec3, Vec3)],
}

impl<'a> ShellRef<'a> {
    /// A shell without culling blocks.
    pub fn new(points: &'a [Vec3], normals: &'a [Vec3]) -> Self {
        ShellRef { points, normals, blocks: &[] }
    }
}

/// The exact distance to a sphere of `radius` about the origin.
#[derive(Debug, Clone, Copy)]
pub struct SphereField {
    pub radius: f64,
}

impl Field for SphereField {
    fn eval(&self, p: &Vec3) -> Option<(f64, Vec3)> {
        let l = p.length();
        let g = if l > 0.0 { *p / l } else { Vec3::Z };
        Some((l - self.radius, g))
    }

    fn hessian(&self, p: &Vec3) -> Mat3 {
        let l = p.length();
        if l > 0.0 {
            (Mat3::IDENTITY - outer(*p / l, *p / l)) / l
        } else {
            Mat3::ZERO
        }
    }

    fn exact(&self) -> bool {
        true
    }

    fn may_penetrate(&self, c: Vec3, half: Vec3) -> bool {
        (c.abs() - half).max(Vec3::ZERO).length() < self.radius
    }
}

/// The exact signed distance to a box of half extents `half` about the origin.
#[derive(Debug, Clone, Copy)]
pub struct BoxField {
    pub half: Vec3,
}

impl Field for BoxField {
    fn eval(&self, p: &Vec3) -> Option<(f64, Vec3)> {
        let q = p.abs() - self.half;
        let sign = Vec3::new(p.x.signum(), p.y.signum(), p.z.signum());
        if q.max_element() <= 0.0 {
            // inside: the nearest face
            let (axis, d) =
                [q.x, q.y, q.z].iter().copied().enumerate().fold((0, f64::NEG_INFINITY), |b, (i, v)| if v > b.1 { (i, v) } else { b });
            let mut g = Vec3::ZERO;
            g[axis] = sign[axis];
            return Some((d, g));
        }
        let o = q.max(Vec3::ZERO);
        let l = o.length();
        Some((l, o * sign / l))
    }

    fn hessian(&self, p: &Vec3) -> Mat3 {
        let q = p.abs() - self.half;
        if q.max_element() <= 0.0 {
            return Mat3::ZERO;
        }
        // outside: (P − n nᵀ)/l, P the projection on the axes where the point is beyond the face
        let o = q.max(Vec3::ZERO);
        let l = o.length();
        let n = o * Vec3::new(p.x.signum(), p.y.signum(), p.z.signum()) / l;
        let beyond = Vec3::new((q.x > 0.0) as u8 as f64, (q.y > 0.0) as u8 as f64, (q.z > 0.0) as u8 as f64);
        (Mat3::from_diagonal(beyond) - outer(n, n)) / l
    }

    fn exact(&self) -> bool {
        true
    }

    fn may_penetrate(&self, c: Vec3, half: Vec3) -> bool {
        ((c.abs() - half) - self.half).max_element() < 0.0
    }
}

/// The half-space nᵀp ≤ offset (n unit): φ = nᵀp − offset.
#[derive(Debug, Clone, Copy)]
pub struct HalfSpace {
    pub normal: Vec3,
    pub offset: f64,
}

impl Field for HalfSpace {
    fn eval(&self, p: &Vec3) -> Option<(f64, Vec3)> {
        Some((self.normal.dot(*p) - self.offset, self.normal))
    }

    fn hessian(&self, _p: &Vec3) -> Mat3 {
        Mat3::ZERO
    }

    fn exact(&self) -> bool {
        true
    }

    fn may_penetrate(&self, c: Vec3, half: Vec3) -> bool {
        self.normal.dot(c) - self.normal.abs().dot(half) < self.offset
    }
}

/// A point shell on a box of half extents `half`: an `n`×`n` lattice on each face (face normals inward), for the
/// unit tests and validation rows that use [`BoxField`].
pub fn box_shell(half: Vec3, n: usize) -> (Vec<Vec3>, Vec<Vec3>) {
    let (mut pts, mut nrm) = (Vec::new(), Vec::new());
    for axis in 0..3 {
        for s in [-1.0, 1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            for i in 0..n {
                for j in 0..n {
                    let mut p = Vec3::ZERO;
                    p[axis] = s * half[axis];
                    p[u] = half[u] * (2.0 * (i as f64 + 0.5) / n as f64 - 1.0);
                    p[v] = half[v] * (2.0 * (j as f64 + 0.5) / n as f64 - 1.0);
                    let mut nn = Vec3::ZERO;
                    nn[axis] = -s;
                    pts.push(p);
                    nrm.push(nn);
                }
            }
        }
    }
    (pts, nrm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analytic_fields_give_their_gradients() {
        let fields: [&dyn Field; 3] = [
            &SphereField { radius: 0.7 },
            &BoxField { half: Vec3::new(0.5, 0.3, 0.2) },
            &HalfSpace { normal: Vec3::new(0.6, 0.0, 0.8), offset: 0.1 },
        ];
        let pts = [Vec3::new(0.31, -0.12, 0.05), Vec3::new(0.9, 0.4, -0.3), Vec3::new(-0.2, 0.1, 0.15)];
        for f in fields {
            for p in pts {
                let (_, g) = f.eval(&p).unwrap();
                let e = 1e-6;
                for k in 0..3 {
                    let mut dp = Vec3::ZERO;
                    dp[k] = e;
                    let fd = (f.eval(&(p + dp)).unwrap().0 - f.eval(&(p - dp)).unwrap().0) / (2.0 * e);
                    assert!((fd - g[k]).abs() < 1e-8, "{fd} vs {}", g[k]);
                }
            }
        }
        assert!(BoxField { half: Vec3::splat(0.5) }.eval(&Vec3::new(0.1, 0.0, 0.45)).unwrap().0 + 0.05 < 1e-15);
    }

    #[test]
    fn may_penetrate_is_false_only_where_no_point_penetrates() {
        let fields: [&dyn Field; 3] = [
            &SphereField { radius: 0.7 },
            &BoxField { half: Vec3::new(0.5, 0.3, 0.2) },
            &HalfSpace { normal: Vec3::new(0.6, 0.0, 0.8), offset: 0.1 },
        ];
        let mut rng = crate::math::rng::Rng::new(7);
        let (mut culled, mut kept) = (0, 0);
        for f in fields {
            for _ in 0..400 {
                let c = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 3.0 - Vec3::splat(1.5);
                let half = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 0.3;
                let inside = (0..200).any(|_| {
                    let p = c + (Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 2.0 - Vec3::ONE) * half;
                    f.eval(&p).unwrap().0 < 0.0
                });
                if f.may_penetrate(c, half) {
                    kept += 1;
                } else {
                    culled += 1;
                    assert!(!inside, "culled a box with a penetrating point: {c:?} ± {half:?}");
                }
            }
        }
        assert!(culled > 100 && kept > 100, "{culled} culled, {kept} kept");
    }

    #[test]
    fn box_shell_lies_on_the_box_with_inward_normals() {
        let half = Vec3::new(0.5, 0.3, 0.2);
        let (p, n) = box_shell(half, 3);
        assert_eq!(p.len(), 54);
        for (p, n) in p.iter().zip(&n) {
            assert!(BoxField { half }.eval(p).unwrap().0.abs() < 1e-15);
            assert!(BoxField { half }.eval(&(*p + 1e-3 * *n)).unwrap().0 < 0.0);
        }
    }
}
