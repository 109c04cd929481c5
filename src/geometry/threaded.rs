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
//! matching parts keep their clearance. The convex pieces of bolt and nut (used by the other methods only) are
//! per-segment, per-pitch hulls and fill the thread's valleys: only `abd`, which collides the triangle mesh,
//! screws them together.

use super::generated::Generated;
use super::mesh::TriMeshData;
use crate::math::Vec3;

const ROWS_PER_PITCH: usize = 8;

/// Rows per pitch of a thread with `segments` around: at least [`ROWS_PER_PITCH`] and a multiple of `segments`,
/// so that the V's crest and root lines (u = 0 and ½, which advance one pitch per turn) pass through vertices
/// at every segment and run along the quads' diagonals. Then every triangle lies on one flank and the mesh is
/// the same after a screw motion of one segment (turned 2π/segments, advanced pitch/segments). With 8 rows
/// and 24 segments the crest and root cut through two quads in three, so the flanks' facets changed along the
/// helix: a bolt turned in its nut ran into the mismatch, its contact force grew 2.5× as it turned 3° and the
/// friction that came with it stopped it at 4× the torque its friction coefficient allows (implicit-penalty).
fn rows_per_pitch(segments: usize) -> usize {
    segments * ROWS_PER_PITCH.div_ceil(segments)
}

fn polar(r: f64, th: f64, z: f64) -> Vec3 {
    Vec3::new(r * th.cos(), r * th.sin(), z)
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
    Ok(Generated { mesh, pieces })
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
    Ok(Generated { mesh, pieces: coarse_pieces(&rings, segments, rpp) })
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
    // pieces: per segment and per pitch, the hull of the outer and inner points of that cell
    let mut pieces = Vec::new();
    for s in 0..n {
        for block in (0..rows).step_by(rpp) {
            let end = (block + rpp).min(rows);
            let mut pts = Vec::new();
            for k in block..=end {
                for j in [s, (s + 1) % n] {
                    pts.push(outer_rings[k][j]);
                    pts.push(inner[k][j]);
                }
            }
            pieces.push(pts);
        }
    }
    Ok(Generated { mesh, pieces })
}

/// Per segment and per pitch block: the hull of the surface points and the axis (a solid of rings).
fn coarse_pieces(rings: &[Vec<Vec3>], segments: usize, rows_per_pitch: usize) -> Vec<Vec<Vec3>> {
    let mut pieces = Vec::new();
    let mut k = 0;
    while k + 1 < rings.len() {
        let end = (k + rows_per_pitch).min(rings.len() - 1);
        for s in 0..segments {
            let mut pts = Vec::new();
            for ring in &rings[k..=end] {
                pts.push(ring[s]);
                pts.push(ring[(s + 1) % segments]);
                pts.push(Vec3::new(0.0, 0.0, ring[s].z));
            }
            pieces.push(pts);
        }
        k = end;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::mass;

    #[test]
    fn parts_are_closed_and_the_bolt_fits_the_nut() {
        let g = gear(12, 1.0, 0.3).unwrap();
        let total = crate::geometry::generated::pieces_volume(&g.pieces);
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
}
