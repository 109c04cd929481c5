//! Triangle-mesh import (OBJ and STL, ASCII and binary) and the checks a volume needs.

use crate::error::InputError;
use crate::math::Vec3;
use std::collections::BTreeMap;
use std::path::Path;

/// An indexed triangle mesh.
#[derive(Debug, Clone, Default)]
pub struct TriMeshData {
    pub vertices: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
}

impl TriMeshData {
    /// Scales the vertices component-wise.
    pub fn scaled(mut self, s: Vec3) -> Self {
        for v in &mut self.vertices {
            *v *= s;
        }
        // a mirroring scale flips the orientation
        if s.x * s.y * s.z < 0.0 {
            for t in &mut self.triangles {
                t.swap(1, 2);
            }
        }
        self
    }

    /// Checks what a closed, consistently oriented surface needs: no degenerate triangle, every edge shared by
    /// exactly two triangles traversing it in opposite directions. Returns a description of the first fault.
    pub fn check_closed(&self) -> Result<(), String> {
        let scale = self.vertices.iter().fold(0.0f64, |m, v| m.max(v.abs().max_element())).max(1e-300);
        let mut directed: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        for (i, t) in self.triangles.iter().enumerate() {
            let (a, b, c) = (self.vertices[t[0] as usize], self.vertices[t[1] as usize], self.vertices[t[2] as usize]);
            if (b - a).cross(c - a).length() <= 1e-12 * scale * scale {
                return Err(format!("triangle {i} is degenerate (zero area)"));
            }
            for (p, q) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                *directed.entry((p, q)).or_insert(0) += 1;
            }
        }
        for (&(p, q), &n) in &directed {
            if n > 1 {
                return Err(format!("edge ({p}, {q}) is used {n} times in the same direction: non-manifold or inconsistently oriented"));
            }
            if !directed.contains_key(&(q, p)) {
                return Err(format!(
                    "edge ({p}, {q}) has no opposite half-edge: the mesh is open (has a boundary) or inconsistently oriented"
                ));
            }
        }
        Ok(())
    }
}

/// Loads an OBJ or STL file (by extension).
pub fn load(path: &Path) -> Result<TriMeshData, InputError> {
    let name = path.display().to_string();
    // the extension first, then a regular file within the mesh size limit (`[limits] mesh_mib`)
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if ext != "obj" && ext != "stl" {
        return Err(InputError::at(&name, format!("unknown mesh extension `{ext}`: allowed are .obj and .stl")));
    }
    let bytes = crate::scene::limits::read_capped(path, crate::scene::limits::FileKind::Mesh).map_err(|e| InputError::at(&name, e))?;
    let mesh = match ext.as_str() {
        "obj" => parse_obj(&String::from_utf8_lossy(&bytes)),
        "stl" => parse_stl(&bytes),
        _ => Err(format!("unknown mesh extension `{ext}`: allowed are .obj and .stl")),
    }
    .map_err(|e| InputError::at(&name, e))?;
    if mesh.triangles.is_empty() {
        return Err(InputError::at(&name, "the mesh has no triangles"));
    }
    if let Some(v) = mesh.vertices.iter().find(|v| !crate::math::finite3(**v)) {
        return Err(InputError::at(&name, format!("non-finite vertex [{}, {}, {}]", v.x, v.y, v.z)));
    }
    Ok(mesh)
}

/// Parses Wavefront OBJ text: `v` and `f` records (polygons are fanned; `v/vt/vn` and negative indices accepted).
pub fn parse_obj(text: &str) -> Result<TriMeshData, String> {
    let mut m = TriMeshData::default();
    for (ln, line) in text.lines().enumerate() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => {
                let c: Vec<f64> = it
                    .take(3)
                    .map(|s| s.parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("line {}: bad vertex: {e}", ln + 1))?;
                if c.len() != 3 {
                    return Err(format!("line {}: a vertex needs 3 coordinates", ln + 1));
                }
                m.vertices.push(Vec3::new(c[0], c[1], c[2]));
            }
            Some("f") => {
                let mut idx = Vec::new();
                for tok in it {
                    let first = tok.split('/').next().unwrap_or("");
                    let i: i64 = first.parse().map_err(|_| format!("line {}: bad face index `{tok}`", ln + 1))?;
                    let n = m.vertices.len() as i64;
                    let k = if i > 0 { i - 1 } else { n + i };
                    if i == 0 || k < 0 || k >= n {
                        return Err(format!("line {}: face index {i} out of range (1..={n})", ln + 1));
                    }
                    idx.push(k as u32);
                }
                if idx.len() < 3 {
                    return Err(format!("line {}: a face needs at least 3 vertices", ln + 1));
                }
                for j in 1..idx.len() - 1 {
                    m.triangles.push([idx[0], idx[j], idx[j + 1]]);
                }
            }
            _ => {}
        }
    }
    Ok(m)
}

/// Parses STL, binary or ASCII; identical vertices are merged so that connectivity can be checked.
pub fn parse_stl(bytes: &[u8]) -> Result<TriMeshData, String> {
    let mut soup: Vec<[Vec3; 3]> = Vec::new();
    let is_binary = bytes.len() >= 84 && {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        bytes.len() == 84 + 50 * n
    };
    if is_binary {
        let n = (bytes.len() - 84) / 50;
        for k in 0..n {
            let base = 84 + 50 * k + 12;
            let f = |o: usize| f32::from_le_bytes([bytes[base + o], bytes[base + o + 1], bytes[base + o + 2], bytes[base + o + 3]]) as f64;
            soup.push([Vec3::new(f(0), f(4), f(8)), Vec3::new(f(12), f(16), f(20)), Vec3::new(f(24), f(28), f(32))]);
        }
    } else {
        let text = std::str::from_utf8(bytes).map_err(|_| "neither binary STL (size mismatch) nor ASCII STL".to_string())?;
        if !text.trim_start().starts_with("solid") {
            return Err("neither binary STL (size mismatch) nor ASCII STL (no `solid` header)".into());
        }
        let mut cur: Vec<Vec3> = Vec::new();
        for (ln, line) in text.lines().enumerate() {
            let mut it = line.split_whitespace();
            if it.next() == Some("vertex") {
                let c: Vec<f64> =
                    it.map(|s| s.parse::<f64>()).collect::<Result<_, _>>().map_err(|e| format!("line {}: bad vertex: {e}", ln + 1))?;
                if c.len() != 3 {
                    return Err(format!("line {}: a vertex needs 3 coordinates", ln + 1));
                }
                cur.push(Vec3::new(c[0], c[1], c[2]));
                if cur.len() == 3 {
                    soup.push([cur[0], cur[1], cur[2]]);
                    cur.clear();
                }
            }
        }
    }
    let mut m = TriMeshData::default();
    let mut index: BTreeMap<[u64; 3], u32> = BTreeMap::new();
    for tri in soup {
        let mut t = [0u32; 3];
        for (j, v) in tri.iter().enumerate() {
            let key = [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
            let next = m.vertices.len() as u32;
            t[j] = *index.entry(key).or_insert_with(|| {
                m.vertices.push(*v);
                next
            });
        }
        m.triangles.push(t);
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    const CUBE_OBJ: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

    #[test]
    fn obj_cube_is_closed_with_unit_volume() {
        let m = parse_obj(CUBE_OBJ).unwrap();
        assert_eq!(m.triangles.len(), 12);
        m.check_closed().unwrap();
        let u = super::super::mass::mesh(&m.vertices, &m.triangles);
        assert!((u.volume - 1.0).abs() < 1e-12);
    }

    #[test]
    fn open_and_bad_meshes_are_reported() {
        let mut m = parse_obj(CUBE_OBJ).unwrap();
        m.triangles.pop();
        assert!(m.check_closed().unwrap_err().contains("open"));
        assert!(parse_obj("v 0 0 0\nf 1 2 3\n").unwrap_err().contains("out of range"));
        assert!(parse_obj("v 0 0 x\n").is_err());
    }

    #[test]
    fn stl_binary_and_ascii_round_trip() {
        let m = parse_obj(CUBE_OBJ).unwrap();
        let mut bin = vec![0u8; 80];
        bin.extend((m.triangles.len() as u32).to_le_bytes());
        let mut ascii = String::from("solid cube\n");
        for t in &m.triangles {
            bin.extend([0u8; 12]);
            ascii.push_str("facet normal 0 0 0\nouter loop\n");
            for &i in t {
                let v = m.vertices[i as usize];
                for c in [v.x, v.y, v.z] {
                    bin.extend((c as f32).to_le_bytes());
                }
                ascii.push_str(&format!("vertex {} {} {}\n", v.x, v.y, v.z));
            }
            ascii.push_str("endloop\nendfacet\n");
            bin.extend([0u8; 2]);
        }
        for parsed in [parse_stl(&bin).unwrap(), parse_stl(ascii.as_bytes()).unwrap()] {
            assert_eq!(parsed.vertices.len(), 8);
            parsed.check_closed().unwrap();
        }
    }
}
