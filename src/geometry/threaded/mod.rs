//! Generated machine parts of the scene format's `generated` type: `gear`, `bolt` and `nut`.
//!
//! - `gear {teeth, radius, thickness}`: a spur gear extruded along z (centred), `radius` the tip radius;
//!   trapezoidal teeth of module m = 2·radius/(teeth + 2), root radius radius − 2.25 m. Its convex pieces are
//!   exact: the root polygon's prism and one prism per tooth.
//! - `bolt {radius, length, pitch}` (optional `depth` = 0.5·pitch, `segments` = 24, `head` = true): a rod with a
//!   right-handed V thread of major radius `radius` from z = 0 to `length`, and a cylindrical head of radius
//!   1.6·radius and height 2·pitch above it.
//! - `nut {radius, height, pitch}` (optional `depth` = 0.5·pitch, `clearance` = depth/4, `outer` = 1.8·radius,
//!   `segments` = 24): a hexagonal nut (across corners 2·outer) from z = 0 to `height` whose threaded hole is the
//!   bolt of the same radius, pitch and depth, grown by `clearance`: that bolt turns into it with a gap.
//!
//! Threads are radial height fields r(θ, z) sampled on the same grid for bolt and nut (at least 8 rows per pitch, a multiple of the segments: `rows_per_pitch`), so
//! matching parts keep their clearance. The convex pieces of bolt and nut (for the methods that collide convex
//! pieces) follow the helix: a tooth per segment and turn, a core prism (bolt) or wedges out to the hexagon (nut),
//! so bolt and nut pieces keep the clearance between their flanks too (`pieces.rs`).

use super::mesh::TriMeshData;
use super::revolved::Generated;
use crate::math::Vec3;
use pieces::polar;

mod pieces;

const ROWS_PER_PITCH: usize = 8;

/// Rows per pitch of a thread with `segments` around: at least [`ROWS_PER_PITCH`] and a multiple of `segments`,
/// so that the V's crest and root lines (u = 0 and ½, which advance one pitch per turn) pass through vertices
/// at every segment and run along the quads' diagonals. Then every triangle lies on one flank and the mesh is
/// the same after a screw motion of one segment (turned 2π/segments, advanced pitch/segments). With 8 rows
/// and 24 segments the crest and root cut through two quads in three, so the flanks' facets changed along the
/// helix and a bolt turned in its nut jammed on the mismatch (docs/benchmarks.md).
fn rows_per_pitch(segments: usize) -> usize {
    segments * ROWS_PER_PITCH.div_ceil(segments)
}

/// How far a tooth's face may lie from the thread's mesh and count as real: an eighth of the smaller of the depth
/// and the half pitch. A flank of a tooth (the hull of the ridge's cross-sections at both ends of a segment) bows
/// off the mesh's flank by a fraction of a millimetre at 24 segments; the cuts through the inside (the cross-sections,
/// the faces on the core or body) have their centroids a third of the ridge's height or more inside.
fn face_tolerance(depth: f64, pitch: f64) -> f64 {
    0.125 * depth.min(0.5 * pitch)
}

/// The V-thread radius at angle θ and height z.
fn thread_radius(radius: f64, pitch: f64, depth: f64, th: f64, z: f64) -> f64 {
    let u = ((z - pitch * th / std::f64::consts::TAU) / pitch).rem_euclid(1.0);
    radius - depth + depth * (1.0 - (2.0 * u - 1.0).abs())
}

/// Closed surface from rings of equal length going up in z, capped by fans to the axis at both ends.
fn solid_of_rings(rings: &[Vec<Vec3>]) -> TriMeshData {
    let s = rings[0].len();
    let mut vertices: Vec<Vec3> = rings.iter().flatten().copied().collect();
    let id = |k: usize, j: usize| (k * s + j % s) as u32;
    let mut triangles = Vec::new();
    for k in 0..rings.len() - 1 {
        for j in 0..s {
            triangles.push([id(k, j), id(k, j + 1), id(k + 1, j + 1)]);
            triangles.push([id(k, j), id(k + 1, j + 1), id(k + 1, j)]);
        }
    }
    let c0 = vertices.len() as u32;
    vertices.push(Vec3::new(0.0, 0.0, rings[0][0].z));
    let c1 = vertices.len() as u32;
    vertices.push(Vec3::new(0.0, 0.0, rings[rings.len() - 1][0].z));
    let last = rings.len() - 1;
    for j in 0..s {
        triangles.push([c0, id(0, j + 1), id(0, j)]);
        triangles.push([c1, id(last, j), id(last, j + 1)]);
    }
    TriMeshData { vertices, triangles }
}

fn check(mesh: &TriMeshData, what: &str) -> Result<(), String> {
    mesh.check_closed().map_err(|e| format!("{what}: generated mesh is not closed ({e})"))?;
    if super::mass::mesh(&mesh.vertices, &mesh.triangles).volume <= 0.0 {
        return Err(format!("{what}: generated mesh is inverted"));
    }
    Ok(())
}

/// Spur gear.
pub fn gear(teeth: usize, radius: f64, thickness: f64) -> Result<Generated, String> {
    if teeth < 4 {
        return Err(format!("`teeth` must be at least 4, got {teeth}"));
    }
    let m = 2.0 * radius / (teeth as f64 + 2.0);
    let root = radius - 2.25 * m;
    if root <= 0.0 {
        return Err("the gear's root radius is not positive".into());
    }
    let pitch_angle = std::f64::consts::TAU / teeth as f64;
    // per tooth: root start, tip start, tip end, root end (root half a pitch wide, tip a quarter)
    let mut outline = Vec::new();
    for k in 0..teeth {
        let a = k as f64 * pitch_angle;
        outline.push((root, a));
        outline.push((radius, a + 0.125 * pitch_angle));
        outline.push((radius, a + 0.375 * pitch_angle));
        outline.push((root, a + 0.5 * pitch_angle));
    }
    let (z0, z1) = (-0.5 * thickness, 0.5 * thickness);
    let rings: Vec<Vec<Vec3>> = [z0, z1].iter().map(|&z| outline.iter().map(|&(r, a)| polar(r, a, z)).collect()).collect();
    let mesh = solid_of_rings(&rings);
    check(&mesh, "gear")?;
    let prism =
        |pts: &[(f64, f64)]| -> Vec<Vec3> { [z0, z1].iter().flat_map(|&z| pts.iter().map(move |&(r, a)| polar(r, a, z))).collect() };
    let core: Vec<(f64, f64)> = outline.iter().copied().filter(|&(r, _)| r == root).collect();
    let mut pieces = vec![prism(&core)];
    for k in 0..teeth {
        pieces.push(prism(&outline[4 * k..4 * k + 4]));
    }
    Ok(Generated { mesh, pieces, face_tolerance: 0.0 })
}

/// Threaded bolt (with a head unless `head` is false).
pub fn bolt(radius: f64, length: f64, pitch: f64, depth: f64, segments: usize, head: bool) -> Result<Generated, String> {
    if depth >= radius {
        return Err(format!("`depth` ({depth}) must be smaller than `radius` ({radius})"));
    }
    let rpp = rows_per_pitch(segments);
    let rows = ((length / pitch) * rpp as f64).round().max(1.0) as usize;
    let dz = length / rows as f64;
    let th = |s: usize| std::f64::consts::TAU * s as f64 / segments as f64;
    let mut rings: Vec<Vec<Vec3>> = (0..=rows)
        .map(|j| {
            let z = j as f64 * dz;
            (0..segments).map(|s| polar(thread_radius(radius, pitch, depth, th(s), z), th(s), z)).collect()
        })
        .collect();
    if head {
        let rh = 1.6 * radius;
        for z in [length, length + 2.0 * pitch] {
            rings.push((0..segments).map(|s| polar(rh, th(s), z)).collect());
        }
    }
    let mesh = solid_of_rings(&rings);
    check(&mesh, "bolt")?;
    // the ridge between two roots (u = 0 and 1) with the crest (u = ½) between, climbing p per turn
    let ridge = |t: f64, k: i64| {
        let z0 = pitch * (t / std::f64::consts::TAU + k as f64);
        [(radius - depth, z0), (radius, z0 + 0.5 * pitch), (radius - depth, z0 + pitch)]
    };
    let turns = -2..=(length / pitch).ceil() as i64 + 1;
    let mut pieces = pieces::teeth(&ridge, segments, turns, 0.0, length);
    pieces.push(pieces::ring_prism(radius - depth, segments, 0.0, length));
    if head {
        pieces.push(pieces::ring_prism(1.6 * radius, segments, length, length + 2.0 * pitch));
    }
    Ok(Generated { mesh, pieces, face_tolerance: face_tolerance(depth, pitch) })
}

/// Hexagonal nut with a threaded hole.
pub fn nut(radius: f64, height: f64, pitch: f64, depth: f64, clearance: f64, outer: f64, segments: usize) -> Result<Generated, String> {
    if segments % 6 != 0 {
        return Err(format!("`segments` must be a multiple of 6 for the hexagon, got {segments}"));
    }
    if outer <= radius + clearance {
        return Err(format!("`outer` ({outer}) must exceed `radius` + `clearance` ({})", radius + clearance));
    }
    let rpp = rows_per_pitch(segments);
    let rows = ((height / pitch) * rpp as f64).round().max(1.0) as usize;
    let dz = height / rows as f64;
    let th = |s: usize| std::f64::consts::TAU * s as f64 / segments as f64;
    let sector = std::f64::consts::TAU / 6.0;
    let hex = |a: f64| outer * (sector / 2.0).cos() / ((a.rem_euclid(sector)) - sector / 2.0).cos();
    let inner: Vec<Vec<Vec3>> = (0..=rows)
        .map(|j| {
            let z = j as f64 * dz;
            (0..segments).map(|s| polar(thread_radius(radius, pitch, depth, th(s), z) + clearance, th(s), z)).collect()
        })
        .collect();
    let outer_rings: Vec<Vec<Vec3>> =
        (0..=rows).map(|j| (0..segments).map(|s| polar(hex(th(s)), th(s), j as f64 * dz)).collect()).collect();
    let n = segments;
    let mut vertices: Vec<Vec3> = outer_rings.iter().flatten().copied().collect();
    let off = vertices.len();
    vertices.extend(inner.iter().flatten().copied());
    let o = |k: usize, j: usize| (k * n + j % n) as u32;
    let i = |k: usize, j: usize| (off + k * n + j % n) as u32;
    let mut triangles = Vec::new();
    for k in 0..rows {
        for j in 0..n {
            triangles.push([o(k, j), o(k, j + 1), o(k + 1, j + 1)]);
            triangles.push([o(k, j), o(k + 1, j + 1), o(k + 1, j)]);
            triangles.push([i(k, j), i(k + 1, j + 1), i(k, j + 1)]);
            triangles.push([i(k, j), i(k + 1, j), i(k + 1, j + 1)]);
        }
    }
    for j in 0..n {
        triangles.push([o(0, j), i(0, j), i(0, j + 1)]);
        triangles.push([o(0, j), i(0, j + 1), o(0, j + 1)]);
        triangles.push([o(rows, j), i(rows, j + 1), i(rows, j)]);
        triangles.push([o(rows, j), o(rows, j + 1), i(rows, j + 1)]);
    }
    let mesh = TriMeshData { vertices, triangles };
    check(&mesh, "nut")?;
    // the nut's ridge points inwards where the bolt has its root (u = 0), its base on the crest radius + clearance
    let ridge = |t: f64, k: i64| {
        let z0 = pitch * (t / std::f64::consts::TAU + k as f64);
        let base = radius + clearance;
        [(base, z0 - 0.5 * pitch), (radius - depth + clearance, z0), (base, z0 + 0.5 * pitch)]
    };
    let turns = -2..=(height / pitch).ceil() as i64 + 1;
    let mut pieces = pieces::teeth(&ridge, n, turns, 0.0, height);
    pieces.extend(pieces::wedges(radius + clearance, &hex, n, 0.0, height));
    Ok(Generated { mesh, pieces, face_tolerance: face_tolerance(depth, pitch) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::mass;

    #[test]
    fn parts_are_closed_and_the_bolt_fits_the_nut() {
        let g = gear(12, 1.0, 0.3).unwrap();
        let total = crate::geometry::revolved::pieces_volume(&g.pieces);
        let v = mass::mesh(&g.mesh.vertices, &g.mesh.triangles).volume;
        assert!((total - v).abs() < 1e-9 * v, "gear pieces {total} vs {v}");
        let b = bolt(0.1, 0.5, 0.05, 0.025, 24, true).unwrap();
        let n = nut(0.1, 0.15, 0.05, 0.025, 0.025 / 4.0, 0.18, 24).unwrap();
        // at equal (θ, z) the nut's hole is the bolt's radius plus the clearance
        let r_b = thread_radius(0.1, 0.05, 0.025, 0.3, 0.07);
        assert!(r_b > 0.075 - 1e-12 && r_b < 0.1 + 1e-12);
        assert!(b.mesh.triangles.len() > 1000 && n.mesh.triangles.len() > 500);
    }

    #[test]
    fn every_thread_facet_lies_on_one_flank() {
        // a facet across the crest or root cuts it off: its centroid lies inside the V by more than the polygon's
        // sag (with 8 rows per pitch and 24 segments, by up to 2 mm); on one flank it is off by the sag at most
        let (radius, pitch, depth, segments) = (0.1, 0.05, 0.025, 24);
        assert_eq!((rows_per_pitch(24), rows_per_pitch(6), rows_per_pitch(48)), (24, 12, 48));
        let b = bolt(radius, 0.2, pitch, depth, segments, false).unwrap();
        let sag = radius * (1.0 - (std::f64::consts::PI / segments as f64).cos());
        let mut worst = 0.0f64;
        for t in &b.mesh.triangles {
            let c = t.iter().map(|&i| b.mesh.vertices[i as usize]).fold(Vec3::ZERO, |s, v| s + v) / 3.0;
            let r = (c.x * c.x + c.y * c.y).sqrt();
            if r < 1e-9 || c.z < 1e-9 || c.z > 0.2 - 1e-9 {
                continue; // the end caps
            }
            let th = c.y.atan2(c.x);
            worst = worst.max((r - thread_radius(radius, pitch, depth, th, c.z)).abs());
        }
        assert!(worst <= sag * (1.0 + 1e-6), "a facet's centroid is {worst} off the V (sag {sag})");
    }

    /// Each piece's convex hull.
    fn hulls(pieces: &[Vec<Vec3>]) -> Vec<parry3d_f64::shape::SharedShape> {
        pieces.iter().map(|p| parry3d_f64::shape::SharedShape::convex_hull(p).expect("a piece with a 3-D hull")).collect()
    }

    #[test]
    fn thread_pieces_fill_the_parts_and_keep_the_clearance() {
        use crate::math::{Pose, Quat};
        let (radius, pitch, depth, segments) = (0.1, 0.05, 0.025, 24);
        let clearance = depth / 4.0;
        let b = bolt(radius, 0.5, pitch, depth, segments, true).unwrap();
        let n = nut(radius, 0.15, pitch, depth, clearance, 0.18, segments).unwrap();
        // the pieces' volume is the mesh's, up to the hulls' bulge over the twisted flanks
        for (g, what) in [(&b, "bolt"), (&n, "nut")] {
            let total = crate::geometry::revolved::pieces_volume(&g.pieces);
            let v = mass::mesh(&g.mesh.vertices, &g.mesh.triangles).volume;
            assert!((total - v).abs() < 2e-3 * v, "{what}: pieces {total} vs mesh {v}");
            // every piece's corner lies in the solid or within the polygon's sag of its surface
            let surface = parry3d_f64::shape::TriMesh::with_flags(
                g.mesh.vertices.clone(),
                g.mesh.triangles.clone(),
                parry3d_f64::shape::TriMeshFlags::ORIENTED,
            )
            .unwrap();
            let sag = 1.8 * radius * (1.0 - (std::f64::consts::PI / segments as f64).cos());
            for p in g.pieces.iter().flatten() {
                let proj = parry3d_f64::query::PointQuery::project_local_point(&surface, *p, true);
                assert!(proj.is_inside || (proj.point - *p).length() < sag, "{what}: corner {p:?} outside the solid");
            }
        }
        // the bolt one pitch into the nut (as in bolt_nut), and turned on along its helix by a fraction of a
        // segment: no bolt piece touches a nut piece, and the flanks are about clearance·cos 45° apart
        let (bh, nh) = (hulls(&b.pieces), hulls(&n.pieces));
        for turn in [0.0, 0.3, 0.5] {
            let angle = -turn * std::f64::consts::TAU / segments as f64;
            let pose = Pose::from_parts(Vec3::new(0.0, 0.0, 0.1 + pitch * angle / std::f64::consts::TAU), Quat::from_rotation_z(angle));
            let mut closest = f64::INFINITY;
            for x in &bh {
                for y in &nh {
                    let d = parry3d_f64::query::distance(&pose, x.as_ref(), &Pose::IDENTITY, y.as_ref()).unwrap();
                    closest = closest.min(d.distance);
                }
            }
            let flank = clearance * std::f64::consts::FRAC_1_SQRT_2;
            assert!(closest > 0.5 * flank && closest < 1.2 * flank, "turned {turn} segment: closest {closest} (flank gap {flank})");
        }
    }
}
