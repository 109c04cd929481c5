//! The `perforated_box` generator: a hollow box whose six walls have square holes, as a closed mesh with its
//! exact convex decomposition (for the articulated-box scene of the `implicit-penalty` method).
//!
//! `perforated_box {size = [x, y, z], wall, holes = 2}`, centred on the origin: walls `wall` thick; each wall has
//! `holes` × `holes` square-ish holes through it, separated by bars as wide as the holes. Built on a lattice of
//! (2·holes + 1)³ cells per axis: the outer layer of cells is the wall (the first and last cell `wall` thick, the
//! others equal), the cells of a wall whose two in-plane indices are both odd are the holes. The mesh is the
//! boundary of the solid cells (quads between a solid and an empty cell, outward), closed and manifold: no two
//! solid cells meet along an edge only. The convex pieces are the runs of solid cells along x (boxes).

use super::mesh::TriMeshData;
use super::revolved::Generated;
use crate::math::Vec3;
use std::collections::BTreeMap;

/// Hollow box with `holes`² holes in each wall.
pub fn perforated_box(size: Vec3, wall: f64, holes: usize) -> Result<Generated, String> {
    if holes < 1 || holes > 64 {
        return Err(format!("`holes` must be a whole number from 1 to 64, got {holes}"));
    }
    if !(size.min_element() > 0.0 && size.is_finite()) {
        return Err(format!("`size` entries must be finite and > 0, got {}", crate::math::show_list(&size.to_array())));
    }
    if !(wall > 0.0 && 2.0 * wall < size.min_element()) {
        return Err(format!("`wall` ({wall}) must be > 0 and less than half the smallest side ({})", size.min_element()));
    }
    let n = 2 * holes + 1;
    // lattice coordinates per axis: n + 1 planes
    let planes: Vec<Vec<f64>> = (0..3)
        .map(|a| {
            let (l, inner) = (size[a], (size[a] - 2.0 * wall) / (n - 2) as f64);
            (0..=n)
                .map(|i| match i {
                    0 => -l / 2.0,
                    i if i == n => l / 2.0,
                    i => -l / 2.0 + wall + inner * (i - 1) as f64,
                })
                .collect()
        })
        .collect();
    let on_wall = |i: usize| i == 0 || i == n - 1;
    let solid = |c: [i64; 3]| -> bool {
        if c.iter().any(|&x| x < 0 || x >= n as i64) {
            return false;
        }
        let c = c.map(|x| x as usize);
        let walls = c.iter().filter(|&&x| on_wall(x)).count();
        match walls {
            0 => false,
            1 => !c.iter().filter(|&&x| !on_wall(x)).all(|&x| x % 2 == 1),
            _ => true,
        }
    };
    let mut vertices = Vec::new();
    let mut index: BTreeMap<[usize; 3], u32> = BTreeMap::new();
    let mut vertex = |p: [usize; 3]| -> u32 {
        *index.entry(p).or_insert_with(|| {
            vertices.push(Vec3::new(planes[0][p[0]], planes[1][p[1]], planes[2][p[2]]));
            (vertices.len() - 1) as u32
        })
    };
    let mut triangles = Vec::new();
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let c = [i as i64, j as i64, k as i64];
                if !solid(c) {
                    continue;
                }
                for a in 0..3 {
                    for dir in [-1i64, 1] {
                        let mut nb = c;
                        nb[a] += dir;
                        if solid(nb) {
                            continue;
                        }
                        // the face at plane c[a] (dir −1) or c[a] + 1 (dir +1), spanned by the other two axes
                        let (b, d) = ((a + 1) % 3, (a + 2) % 3);
                        let base = [i, j, k];
                        let corner = |u: usize, v: usize| {
                            let mut p = base;
                            p[a] += (dir > 0) as usize;
                            p[b] += u;
                            p[d] += v;
                            p
                        };
                        let q = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)].map(&mut vertex);
                        // (b, d, a) is right-handed: counter-clockwise in (b, d) faces +a
                        if dir > 0 {
                            triangles.push([q[0], q[1], q[2]]);
                            triangles.push([q[0], q[2], q[3]]);
                        } else {
                            triangles.push([q[0], q[2], q[1]]);
                            triangles.push([q[0], q[3], q[2]]);
                        }
                    }
                }
            }
        }
    }
    let mesh = TriMeshData { vertices, triangles };
    // pieces: runs of solid cells along x
    let mut pieces = Vec::new();
    for k in 0..n {
        for j in 0..n {
            let mut i = 0;
            while i < n {
                if !solid([i as i64, j as i64, k as i64]) {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < n && solid([i as i64, j as i64, k as i64]) {
                    i += 1;
                }
                let (x0, x1) = (planes[0][start], planes[0][i]);
                let (y0, y1, z0, z1) = (planes[1][j], planes[1][j + 1], planes[2][k], planes[2][k + 1]);
                pieces.push(
                    [(x0, y0, z0), (x1, y0, z0), (x0, y1, z0), (x1, y1, z0), (x0, y0, z1), (x1, y0, z1), (x0, y1, z1), (x1, y1, z1)]
                        .map(|(x, y, z)| Vec3::new(x, y, z))
                        .to_vec(),
                );
            }
        }
    }
    mesh.check_closed().map_err(|e| format!("perforated_box: generated mesh is not closed ({e})"))?;
    if super::mass::mesh(&mesh.vertices, &mesh.triangles).volume <= 0.0 {
        return Err("perforated_box: generated mesh is inverted".into());
    }
    Ok(Generated { mesh, pieces, face_tolerance: 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{mass, revolved::pieces_volume};

    #[test]
    fn perforated_box_is_closed_with_exact_volume_and_pieces() {
        let (size, wall) = (Vec3::new(1.0, 0.8, 0.6), 0.1);
        for holes in [1, 2, 3] {
            let g = perforated_box(size, wall, holes).unwrap();
            g.mesh.check_closed().unwrap();
            let v = mass::mesh(&g.mesh.vertices, &g.mesh.triangles).volume;
            // the hollow box minus holes² holes per wall, each hole a wall-thick prism of one inner cell
            let cells = (2 * holes - 1) as f64;
            let inner = (size - Vec3::splat(2.0 * wall)) / cells;
            let shell = size.x * size.y * size.z - (size.x - 2.0 * wall) * (size.y - 2.0 * wall) * (size.z - 2.0 * wall);
            let h = (holes * holes) as f64;
            let holes_volume = 2.0 * h * wall * (inner.y * inner.z + inner.x * inner.z + inner.x * inner.y);
            let exact = shell - holes_volume;
            assert!((v - exact).abs() < 1e-12, "holes {holes}: volume {v} vs {exact}");
            assert!((pieces_volume(&g.pieces) - v).abs() < 1e-12);
            // centred, with the full size
            let (lo, hi) = g.mesh.vertices.iter().fold((Vec3::splat(9.0), Vec3::splat(-9.0)), |(l, h), p| (l.min(*p), h.max(*p)));
            assert!((lo + size * 0.5).length() < 1e-12 && (hi - size * 0.5).length() < 1e-12);
        }
        assert!(perforated_box(size, 0.5, 2).unwrap_err().contains("wall"));
        assert!(perforated_box(size, 0.1, 0).unwrap_err().contains("holes"));
    }
}
