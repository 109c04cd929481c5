//! Joints for affine bodies (source §5.3: constraints that are nonlinear for rigid bodies are linear in q).
//! A ball joint pins one point of each body together, a hinge pins two points on its axis, a fixed joint
//! three non-collinear points; each pinned point gives C = x_a(c̄_a) − x_b(c̄_b), linear in q. They are imposed
//! as stiff penalties ½K|C|² with K = γ(m_a + m_b) (libuipc's form; γ = `joint_stiffness`), so the Hessian is
//! constant and exact. Prismatic joints and limits and motors are not supported by `abd` (rejected at load).

use crate::math::Vec3;
use crate::model::{JointType, Model};

/// A pinned point: rest positions w = (x̄, 1) on each body (`None` = the world, with a fixed world point).
#[derive(Debug, Clone)]
pub struct Pin {
    pub a: usize,
    pub wa: [f64; 4],
    pub b: Option<usize>,
    /// On body b: its rest position; on the world: the world point (with 1).
    pub wb: [f64; 4],
    pub k: f64,
}

fn rest(model: &Model, body: usize, world: Vec3) -> [f64; 4] {
    let b = &model.bodies[body];
    // reference frame → centre-of-mass frame, body axes
    let local = b.rotation.inverse() * (world - b.position) - b.com;
    [local.x, local.y, local.z, 1.0]
}

/// The pins of the model's joints. `length` sets the hinge's two points at anchor ± ½·length·axis.
pub fn pins(model: &Model, gamma: f64) -> Vec<Pin> {
    let mut out = Vec::new();
    for j in &model.joints {
        let mass = |b: Option<usize>| {
            b.map_or(0.0, |b| if model.bodies[b].kind == crate::model::BodyKind::Dynamic { model.bodies[b].mass } else { 0.0 })
        };
        let k = gamma * (mass(Some(j.body1)) + mass(j.body2));
        let size = model.bodies[j.body1].geometry.radius_about_com.max(j.body2.map_or(0.0, |b| model.bodies[b].geometry.radius_about_com));
        let axis = j.axis.normalize_or_zero();
        let (t1, t2) = crate::math::tangent_basis(if axis == Vec3::ZERO { Vec3::Z } else { axis });
        let points: Vec<Vec3> = match j.kind {
            JointType::Ball => vec![j.anchor],
            JointType::Hinge => vec![j.anchor - axis * (0.5 * size), j.anchor + axis * (0.5 * size)],
            JointType::Fixed => vec![j.anchor, j.anchor + t1 * size, j.anchor + t2 * size],
            JointType::Prismatic => vec![],
        };
        for p in points {
            let wb = match j.body2 {
                Some(b) => rest(model, b, p),
                None => [p.x, p.y, p.z, 1.0],
            };
            out.push(Pin { a: j.body1, wa: rest(model, j.body1, p), b: j.body2, wb, k });
        }
    }
    out
}

fn point(q: &[f64], w: &[f64; 4]) -> [f64; 3] {
    std::array::from_fn(|i| (0..4).map(|j| q[4 * i + j] * w[j]).sum())
}

impl Pin {
    /// C = x_a − x_b for all bodies' coordinates `q` (12 per body).
    pub fn violation(&self, q: &[f64]) -> [f64; 3] {
        let xa = point(&q[12 * self.a..12 * self.a + 12], &self.wa);
        let xb = match self.b {
            Some(b) => point(&q[12 * b..12 * b + 12], &self.wb),
            None => [self.wb[0], self.wb[1], self.wb[2]],
        };
        std::array::from_fn(|r| xa[r] - xb[r])
    }

    /// ½K|C|².
    pub fn energy(&self, q: &[f64]) -> f64 {
        let c = self.violation(q);
        0.5 * self.k * (c[0] * c[0] + c[1] * c[1] + c[2] * c[2])
    }
}
