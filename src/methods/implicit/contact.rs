//! Contact evaluation (paper §4.1, VPS of Barbič–James): every candidate pair both ways, each penetrating point a
//! spring k|φ| along the point's own normal and a damper, summed with their gradients (gradients.rs) into one
//! [`Jacobian`] per pair. Points run in parallel in fixed chunks of [`CHUNK`], summed in order (results do not
//! depend on the thread count); blocks of shell points that cannot reach the solid are culled.

use super::field::{Field, ShellRef};
use super::gradients::{add_contact_spring, add_damper, Gains, Jacobian, PointContact, Velocities};
use crate::math::{Mat3, Quat, Vec3};
use rayon::prelude::*;

/// Points per parallel work item (fixed, so that the summation order never depends on the thread count); a
/// whole number of culling blocks.
pub const CHUNK: usize = 512;
const _: () = assert!(CHUNK % crate::geometry::point_shell::BLOCK == 0);

/// A body's pose for the contact evaluation: the origin and rotation of its reference frame (where its field
/// and shell are), and its centre of mass.
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    pub origin: Vec3,
    pub q: Quat,
    pub com: Vec3,
}

/// One side of a pair: its field, its shell and its placement.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub field: &'a dyn Field,
    pub shell: ShellRef<'a>,
    pub at: Placement,
}

/// A penetrating point of one role: the shell point's index and its contact in world quantities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub point: u32,
    pub c: PointContact,
}

/// The points of `pts` (with its shell) that penetrate `fld`'s field: role (field = `fld`, points = `pts`), with
/// the field's Hessian at each where `hessian` (the damper along the field's gradient needs it; else zero).
/// Returns the hits in shell order and the number of points tested (the points of blocks not culled that lie
/// where the field may be negative, the solid's box, and were evaluated there, whatever their sign).
pub fn hits(fld: &Side, pts: &Side, hessian: bool) -> (Vec<Hit>, usize) {
    use crate::geometry::point_shell::BLOCK;
    let qf_inv = fld.at.q.inverse();
    let rel = Mat3::from_quat(qf_inv * pts.at.q);
    let rel_abs = Mat3::from_cols(rel.x_axis.abs(), rel.y_axis.abs(), rel.z_axis.abs());
    let t = qf_inv * (pts.at.origin - fld.at.origin);
    let (rf, rp) = (Mat3::from_quat(fld.at.q), Mat3::from_quat(pts.at.q));
    let n = pts.shell.points.len();
    let blocks = pts.shell.blocks;
    // blocks must cover the shell in runs of BLOCK to be used
    let blocks = if blocks.len() == n.div_ceil(BLOCK) { blocks } else { &[] };
    let chunks: Vec<(Vec<Hit>, usize)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ci| {
            let (lo, hi) = (ci * CHUNK, ((ci + 1) * CHUNK).min(n));
            let mut out = Vec::new();
            let mut tested = 0;
            for start in (lo..hi).step_by(BLOCK) {
                if let Some((c, h)) = blocks.get(start / BLOCK) {
                    if !fld.field.may_penetrate(rel * *c + t, rel_abs * *h) {
                        continue;
                    }
                }
                for i in start..(start + BLOCK).min(hi) {
                    let s = pts.shell.points[i];
                    let r = rel * s + t;
                    // a point outside the box where the field can be negative cannot penetrate
                    if !fld.field.may_penetrate(r, Vec3::ZERO) {
                        continue;
                    }
                    let Some((d, g)) = fld.field.eval(&r) else { continue };
                    tested += 1;
                    // a point exactly on the surface touches: its spring (no force yet) and damper engage in the
                    // step, so a body set down touching does not fall freely for a step first
                    if d <= 0.0 {
                        let p = pts.at.origin + rp * s;
                        let h = if hessian { rf * fld.field.hessian(&r) * rf.transpose() } else { Mat3::ZERO };
                        let c = PointContact {
                            d,
                            g: rf * g,
                            n: rp * pts.shell.normals[i],
                            a: p - fld.at.com,
                            b: p - pts.at.com,
                            h,
                            radius: 0.0,
                        };
                        out.push(Hit { point: i as u32, c });
                    }
                }
            }
            (out, tested)
        })
        .collect();
    let tested = chunks.iter().map(|c| c.1).sum();
    (chunks.into_iter().flat_map(|c| c.0).collect(), tested)
}

/// The point index of a sphere's centre hit (no shell point has it).
pub const CENTRE: u32 = u32::MAX;

/// A sphere of `radius` about the origin of `sphere` tested as its centre C against `fld`'s field (which must
/// be exact there: [`Field::eval_far`]): one hit where d = φ(C) − r ≤ 0, at the sphere's deepest point
/// P = C − r N̂ (N̂ = ∇φ(C) normalised), with the field's Hessian at C ([`PointContact::radius`]).
pub fn centre_hit(fld: &Side, sphere: &Placement, radius: f64) -> Option<Hit> {
    let r = fld.at.q.inverse() * (sphere.origin - fld.at.origin);
    let (phi, g) = fld.field.eval_far(&r)?;
    let d = phi - radius;
    if d > 0.0 {
        return None;
    }
    let rf = Mat3::from_quat(fld.at.q);
    let g = rf * g;
    let n = g.normalize_or_zero();
    let p = sphere.origin - n * radius;
    let h = rf * fld.field.hessian_far(&r) * rf.transpose();
    Some(Hit { point: CENTRE, c: PointContact { d, g, n, a: p - fld.at.com, b: p - sphere.com, h, radius } })
}

/// The summed wrench and gradients of one role's hits with the gains' spring (times `spring_scale`, the N0 clamp) and
/// damper `gains.kd`, in the role's own order (field body first); `vel` = (v, ω) of the field body, then of
/// the point body.
pub fn role_jacobian(hits: &[Hit], gains: &Gains, spring_scale: f64, vel: &Velocities) -> Jacobian {
    let parts: Vec<Jacobian> = hits
        .par_chunks(CHUNK)
        .map(|chunk| {
            let (mut spring, mut damper) = (Jacobian::default(), Jacobian::default());
            for h in chunk {
                add_contact_spring(&h.c, gains, &mut spring);
                add_damper(&h.c, gains, vel, &mut damper);
            }
            spring.scale(spring_scale);
            spring.add(&damper, false);
            spring
        })
        .collect();
    let mut total = Jacobian::default();
    for p in &parts {
        total.add(p, false);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::implicit::field::{box_shell, BoxField, HalfSpace};

    #[test]
    fn a_box_sunk_into_a_half_space_gets_k_depth_per_point_both_ways() {
        let half = Vec3::splat(0.5);
        let (p, n) = box_shell(half, 4);
        let ground = HalfSpace { normal: Vec3::Z, offset: 0.0 };
        let cube = BoxField { half };
        let (gp, gn) = (vec![Vec3::ZERO], vec![-Vec3::Z]); // one ground point under the box's centre
        let depth = 0.01;
        let g = Side {
            field: &ground,
            shell: ShellRef::new(&gp, &gn),
            at: Placement { origin: Vec3::ZERO, q: Quat::IDENTITY, com: Vec3::ZERO },
        };
        let at = Placement { origin: Vec3::new(0.0, 0.0, 0.5 - depth), q: Quat::IDENTITY, com: Vec3::new(0.0, 0.0, 0.5 - depth) };
        let b = Side { field: &cube, shell: ShellRef::new(&p, &n), at };
        let (h1, tested) = hits(&g, &b, false);
        // tested: the points below the ground's surface, where its field may be negative
        assert_eq!(tested, p.iter().filter(|q| q.z + 0.5 - depth < 0.0).count());
        assert_eq!(h1.len(), 16); // the bottom face's lattice
        let (h2, _) = hits(&b, &g, false);
        assert_eq!(h2.len(), 1);
        let gains = Gains::linear(1000.0, 0.0, true, false);
        let j1 = role_jacobian(&h1, &gains, 1.0, &[Vec3::ZERO; 4]);
        let j2 = role_jacobian(&h2, &gains, 1.0, &[Vec3::ZERO; 4]);
        // on the box: 16 points at depth 0.01 push it up; the ground point is 0.01 inside the box's bottom face,
        // and its normal (−z, into the ground) pushes the ground down and the box up
        assert!((j1.wrench[2] - Vec3::new(0.0, 0.0, 16.0 * 1000.0 * depth)).length() < 1e-9, "{:?}", j1.wrench[2]);
        assert!((j2.wrench[0] - Vec3::new(0.0, 0.0, 1000.0 * depth)).length() < 1e-9, "{:?}", j2.wrench[0]);
        assert!(j1.wrench[3].length() < 1e-9);
    }

    #[test]
    fn culled_blocks_hold_no_point_that_may_penetrate() {
        use crate::geometry::{point_shell::PointShell, sdf::Sdf, ShapeDesc};
        let desc = ShapeDesc::Box { size: Vec3::new(1.0, 0.8, 0.6) };
        let shell = PointShell::build(&desc, 0.05).unwrap();
        let sdf = Sdf::build(&desc, &crate::geometry::sdf::SdfParams::for_shape(&desc)).unwrap();
        let fields: [&dyn Field; 2] = [&sdf, &BoxField { half: Vec3::new(0.5, 0.4, 0.3) }];
        let mut rng = crate::math::rng::Rng::new(3);
        let mut tested = 0;
        for f in fields {
            for _ in 0..20 {
                let q = crate::math::quat_exp(Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 2.0);
                let o = Vec3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5) * 1.6;
                let a = Side {
                    field: f,
                    shell: ShellRef::new(&[], &[]),
                    at: Placement { origin: Vec3::ZERO, q: Quat::IDENTITY, com: Vec3::ZERO },
                };
                let at = Placement { origin: o, q, com: o };
                let with = Side { field: f, shell: ShellRef { points: &shell.points, normals: &shell.normals, blocks: &shell.blocks }, at };
                let without = Side { shell: ShellRef::new(&shell.points, &shell.normals), ..with };
                let ((h1, t1), (h0, t0)) = (hits(&a, &with, false), hits(&a, &without, false));
                assert!(h1 == h0, "culling changed the hits");
                assert_eq!(t1, t0, "a culled block held a point in the solid's box");
                tested += t0;
            }
        }
        assert!(tested > 0);
    }

    #[test]
    fn sums_do_not_depend_on_the_thread_count() {
        let half = Vec3::new(0.5, 0.4, 0.3);
        let (p, n) = box_shell(half, 40); // 9,600 points: many chunks
        let cube = BoxField { half };
        let q = crate::math::quat_exp(Vec3::new(0.2, 0.1, 0.3));
        let a =
            Side { field: &cube, shell: ShellRef::new(&p, &n), at: Placement { origin: Vec3::ZERO, q: Quat::IDENTITY, com: Vec3::ZERO } };
        let b = Side {
            field: &cube,
            shell: ShellRef::new(&p, &n),
            at: Placement { origin: Vec3::new(0.3, 0.2, 0.5), q, com: Vec3::new(0.3, 0.2, 0.5) },
        };
        let gains = Gains::linear(1000.0, 3.0, false, false);
        let vel = [Vec3::X, Vec3::Y, Vec3::Z, Vec3::ONE];
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let (h, _) = hits(&a, &b, false);
                assert!(h.len() > CHUNK);
                role_jacobian(&h, &gains, 0.7, &vel)
            })
        };
        let one = run(1);
        for t in [2, 3, 4] {
            assert!(run(t) == one, "{t} threads");
        }
    }
}
