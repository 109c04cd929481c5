//! Reading a run folder (what `cairn run --out` writes): `geometry.json`, `trajectory.npy`, `metrics.csv`,
//! `summary.json` and the optional `contacts.npy`. Shared by `view`, `export` and `plots.html`.

use anyhow::{bail, Context, Result};
use std::path::Path;

/// A 2-D float64 array read from a `.npy` file.
pub struct Npy {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f64>,
}

/// Reads a 2-D little-endian float64 `.npy` file (as `record::NpyWriter` writes it).
pub fn read_npy(path: &Path) -> Result<Npy> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_npy(&bytes, &path.display().to_string())
}

/// Parses the bytes of a 2-D little-endian float64 `.npy` file; `name` names it in messages.
pub fn parse_npy(bytes: &[u8], name: &str) -> Result<Npy> {
    let bad = |why: &str| anyhow::anyhow!("{name}: not a 2-D float64 .npy file ({why})");
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("no NumPy magic"));
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(bad(&format!("format version {v}"))),
    };
    let header =
        std::str::from_utf8(bytes.get(start..start + hlen).ok_or_else(|| bad("header cut short"))?).map_err(|_| bad("header not UTF-8"))?;
    if !header.contains("'descr': '<f8'") || header.contains("'fortran_order': True") {
        return Err(bad("only little-endian float64 in C order is read"));
    }
    let shape = header.split("'shape': (").nth(1).and_then(|s| s.split(')').next()).ok_or_else(|| bad("no shape"))?;
    let dims: Vec<usize> = shape
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse())
        .collect::<Result<_, _>>()
        .map_err(|_| bad("bad shape"))?;
    let [rows, cols] = dims[..] else { return Err(bad(&format!("shape ({shape}) is not 2-D"))) };
    let body = &bytes[start + hlen..];
    // the header is checked against the file's length before anything is allocated: a header that claims
    // more rows than the file holds is refused; bytes past the claimed rows (a row cut short when a run was
    // killed between checkpoints) are ignored, as numpy does
    let need = rows.checked_mul(cols).and_then(|n| n.checked_mul(8));
    let Some(need) = need.filter(|&n| n <= body.len()) else {
        return Err(bad(&format!(
            "the header claims {rows} rows of {cols} values, the file holds {} whole rows",
            if cols == 0 { 0 } else { body.len() / (cols * 8) }
        )));
    };
    let data = body[..need].chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
    Ok(Npy { rows, cols, data })
}

/// A body as `geometry.json` describes it.
pub struct BodyInfo {
    pub name: String,
    pub kind: String,
    pub shape: usize,
    pub com: [f64; 3],
    /// The body's own colour (RGBA in 0…1), when the scene or robot file gives one.
    pub color: Option<[f64; 4]>,
}

/// A shape's triangle mesh, in the body's reference frame.
pub struct ShapeMesh {
    pub vertices: Vec<f64>,
    pub triangles: Vec<u32>,
}

/// `metrics.csv`: its header and rows (empty cells read as NaN).
pub struct Metrics {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<f64>>,
}

impl Metrics {
    /// The index of a column.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }
    /// The stage-timing columns (`wall_<stage>`, without `wall_total`): (stage name, column).
    pub fn stages(&self) -> Vec<(String, usize)> {
        self.columns
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.strip_prefix("wall_").filter(|s| *s != "total").map(|s| (s.to_string(), i)))
            .collect()
    }
}

/// Reads `metrics.csv`.
pub fn read_metrics(path: &Path) -> Result<Metrics> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut lines = text.lines();
    let columns: Vec<String> =
        lines.next().with_context(|| format!("{}: empty file", path.display()))?.split(',').map(str::to_string).collect();
    let mut rows = Vec::new();
    for (n, line) in lines.enumerate() {
        let row: Vec<f64> = line
            .split(',')
            .map(|c| if c.is_empty() { Ok(f64::NAN) } else { c.parse::<f64>() })
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), n + 2))?;
        if row.len() != columns.len() {
            bail!("{}:{}: {} values for {} columns", path.display(), n + 2, row.len(), columns.len());
        }
        rows.push(row);
    }
    Ok(Metrics { columns, rows })
}

/// Everything of one run folder.
pub struct Run {
    pub scene: String,
    pub method: String,
    pub dt: f64,
    pub bodies: Vec<BodyInfo>,
    pub shapes: Vec<ShapeMesh>,
    /// Frame times, s.
    pub times: Vec<f64>,
    /// Per frame and body the row-major 3×4 pose [R | p] (12 values), as in `trajectory.npy`.
    pub poses: Vec<f64>,
    pub metrics: Metrics,
    /// `contacts.npy` when the run recorded contacts: rows [step, px, py, pz, nx, ny, nz].
    pub contacts: Option<Npy>,
    /// `sleep.npy` when the run recorded it: rows [step, body, asleep (1) or woke (0)].
    pub sleep: Option<Npy>,
}

impl Run {
    /// The pose of body `b` at frame `f` (12 values).
    pub fn pose(&self, f: usize, b: usize) -> &[f64] {
        let o = (f * self.bodies.len() + b) * 12;
        &self.poses[o..o + 12]
    }
    /// The step of frame `f` (its time over the time step).
    pub fn frame_step(&self, f: usize) -> u64 {
        (self.times[f] / self.dt).round() as u64
    }
}

fn json(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))
}

/// Reads a run folder.
pub fn read_run(dir: &Path) -> Result<Run> {
    let gpath = dir.join("geometry.json");
    if !gpath.exists() {
        bail!("{} has no geometry.json: not a run folder of `cairn run --out` (or written by an older cairn; run it again)", dir.display());
    }
    let g = json(&gpath)?;
    let field = |key: &str| g.get(key).with_context(|| format!("{}: no key `{key}`", gpath.display()));
    let bad = |what: &str| anyhow::anyhow!("{}: `{what}` is malformed", gpath.display());
    let mut shapes = Vec::new();
    for s in field("shapes")?.as_array().ok_or_else(|| bad("shapes"))? {
        let vertices = s["vertices"]
            .as_array()
            .ok_or_else(|| bad("shapes[].vertices"))?
            .iter()
            .map(|v| v.as_f64().ok_or_else(|| bad("shapes[].vertices")))
            .collect::<Result<_>>()?;
        let triangles = s["triangles"]
            .as_array()
            .ok_or_else(|| bad("shapes[].triangles"))?
            .iter()
            .map(|v| v.as_u64().map(|x| x as u32).ok_or_else(|| bad("shapes[].triangles")))
            .collect::<Result<_>>()?;
        shapes.push(ShapeMesh { vertices, triangles });
    }
    let mut bodies = Vec::new();
    for b in field("bodies")?.as_array().ok_or_else(|| bad("bodies"))? {
        let com = b["com"].as_array().filter(|a| a.len() == 3).ok_or_else(|| bad("bodies[].com"))?;
        let shape = b["shape"].as_u64().ok_or_else(|| bad("bodies[].shape"))? as usize;
        if shape >= shapes.len() {
            return Err(bad("bodies[].shape"));
        }
        bodies.push(BodyInfo {
            name: b["name"].as_str().ok_or_else(|| bad("bodies[].name"))?.to_string(),
            kind: b["kind"].as_str().ok_or_else(|| bad("bodies[].kind"))?.to_string(),
            shape,
            com: std::array::from_fn(|i| com[i].as_f64().unwrap_or(f64::NAN)),
            color: b["color"].as_array().filter(|c| c.len() == 4).map(|c| std::array::from_fn(|i| c[i].as_f64().unwrap_or(1.0))),
        });
    }
    let traj = read_npy(&dir.join("trajectory.npy"))?;
    if traj.cols != 1 + 12 * bodies.len() {
        bail!(
            "{}: {} columns, but geometry.json has {} bodies (1 + 12 per body expected)",
            dir.join("trajectory.npy").display(),
            traj.cols,
            bodies.len()
        );
    }
    if traj.rows == 0 {
        bail!("{}: no frames", dir.join("trajectory.npy").display());
    }
    let mut times = Vec::with_capacity(traj.rows);
    let mut poses = Vec::with_capacity(traj.rows * 12 * bodies.len());
    for row in traj.data.chunks_exact(traj.cols) {
        times.push(row[0]);
        poses.extend_from_slice(&row[1..]);
    }
    let cpath = dir.join("contacts.npy");
    let contacts = if cpath.exists() { Some(read_npy(&cpath)?) } else { None };
    if let Some(c) = &contacts {
        if c.cols != 7 {
            bail!("{}: {} columns, 7 expected (step, point, normal)", cpath.display(), c.cols);
        }
    }
    let spath = dir.join("sleep.npy");
    let sleep = if spath.exists() { Some(read_npy(&spath)?) } else { None };
    if let Some(s) = &sleep {
        if s.cols != 3 {
            bail!("{}: {} columns, 3 expected (step, body, asleep)", spath.display(), s.cols);
        }
        if let Some(row) = s.data.chunks_exact(3).find(|r| !(r[1] >= 0.0 && (r[1] as usize) < bodies.len())) {
            bail!("{}: body {} does not exist (the run has {} bodies)", spath.display(), row[1], bodies.len());
        }
    }
    Ok(Run {
        scene: field("scene")?.as_str().unwrap_or("").to_string(),
        method: field("method")?.as_str().unwrap_or("").to_string(),
        dt: field("dt")?.as_f64().filter(|d| *d > 0.0).ok_or_else(|| bad("dt"))?,
        bodies,
        shapes,
        times,
        poses,
        metrics: read_metrics(&dir.join("metrics.csv"))?,
        contacts,
        sleep,
    })
}

/// The unit quaternion [x, y, z, w] nearest the rotation part of a row-major 3×4 pose (Shepperd's method;
/// for `abd`'s affine maps, the rotation of an almost-orthogonal A).
pub fn pose_quaternion(m: &[f64]) -> [f64; 4] {
    let (r00, r01, r02, r10, r11, r12, r20, r21, r22) = (m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]);
    let tr = r00 + r11 + r22;
    let q = if tr > r00.max(r11).max(r22) {
        let s = 2.0 * (1.0 + tr).sqrt();
        [(r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s, 0.25 * s]
    } else if r00 >= r11 && r00 >= r22 {
        let s = 2.0 * (1.0 + r00 - r11 - r22).sqrt();
        [0.25 * s, (r01 + r10) / s, (r02 + r20) / s, (r21 - r12) / s]
    } else if r11 >= r22 {
        let s = 2.0 * (1.0 + r11 - r00 - r22).sqrt();
        [(r01 + r10) / s, 0.25 * s, (r12 + r21) / s, (r02 - r20) / s]
    } else {
        let s = 2.0 * (1.0 + r22 - r00 - r11).sqrt();
        [(r02 + r20) / s, (r12 + r21) / s, 0.25 * s, (r10 - r01) / s]
    };
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let sign = if q[3] < 0.0 { -1.0 } else { 1.0 };
    q.map(|x| sign * x / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quaternion_of_a_pose_rotates_like_the_matrix() {
        // rotations about several axes, including angles near π (the branches of Shepperd's method)
        for (axis, angle) in
            [([0.0, 0.0, 1.0], 0.3), ([1.0, 2.0, -0.5], 2.9), ([0.2, -1.0, 0.1], 3.1), ([1.0, 0.0, 0.0], 3.14159), ([0.0, 1.0, 1.0], 1.0)]
        {
            let n = axis.iter().map(|a: &f64| a * a).sum::<f64>().sqrt();
            let u = axis.map(|a| a / n);
            let q = cairn::math::Quat::from_axis_angle(cairn::math::Vec3::new(u[0], u[1], u[2]), angle);
            let r = cairn::math::Mat3::from_quat(q);
            let m =
                [r.x_axis.x, r.y_axis.x, r.z_axis.x, 0.0, r.x_axis.y, r.y_axis.y, r.z_axis.y, 0.0, r.x_axis.z, r.y_axis.z, r.z_axis.z, 0.0];
            let got = pose_quaternion(&m);
            let same = (got[0] - q.x).abs() + (got[1] - q.y).abs() + (got[2] - q.z).abs() + (got[3] - q.w).abs();
            let flipped = (got[0] + q.x).abs() + (got[1] + q.y).abs() + (got[2] + q.z).abs() + (got[3] + q.w).abs();
            assert!(same.min(flipped) < 1e-12, "axis {axis:?} angle {angle}: {got:?} vs {q:?}");
        }
    }

    /// Writes an `.npy` file of `rows` rows of `cols` values whose header claims `claimed` rows.
    fn npy(path: &Path, claimed: &str, rows: usize, cols: usize) {
        let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({claimed}, {cols}), }}");
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        let pad = 128 - 10 - dict.len() - 1;
        b.extend(118u16.to_le_bytes());
        b.extend(dict.as_bytes());
        b.extend(std::iter::repeat_n(b' ', pad));
        b.push(b'\n');
        b.extend((0..rows * cols).flat_map(|k| (k as f64).to_le_bytes()));
        std::fs::write(path, b).unwrap();
    }

    /// Property test: `.npy` files made from a valid one by a few edits (a byte changed, a span cut, the shape's
    /// numbers replaced by hostile ones, the header length changed) are read or refused, never a panic; a file
    /// read holds rows × cols values. Prints the counts.
    #[test]
    fn mutated_npy_files_are_read_or_refused() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
        let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }";
        let mut seed = b"\x93NUMPY\x01\x00".to_vec();
        seed.extend(118u16.to_le_bytes());
        seed.extend(format!("{dict:<117}\n").as_bytes());
        seed.extend((0..6).flat_map(|k| (k as f64).to_le_bytes()));
        const SHAPES: &[&str] = &[
            "(3, 2)",
            "(2305843009213693952, 8)",
            "(18446744073709551615, 2)",
            "(3,)",
            "()",
            "(0, 0)",
            "(-1, 2)",
            "(3, 2, 1)",
            "(1e3, 2)",
        ];
        let edit = (0u8..4, any::<prop::sample::Index>(), any::<u8>(), prop::sample::select(SHAPES));
        let strategy = prop::collection::vec(edit, 1..4);
        let config = Config { cases: 20_000, failure_persistence: None, ..Config::default() };
        let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]));
        let (read, refused) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        runner
            .run(&strategy, |edits| {
                let mut b = seed.clone();
                for (op, at, byte, shape) in edits {
                    let i = at.index(b.len() + 1);
                    match op {
                        0 if i < b.len() => b[i] = byte,
                        1 => b.truncate(i),
                        2 => {
                            let text = String::from_utf8_lossy(&b).replacen("(3, 2)", shape, 1);
                            b = text.into_bytes();
                        }
                        _ if b.len() > 9 => b[8 + (byte as usize & 1)] = byte,
                        _ => {}
                    }
                }
                match parse_npy(&b, "fuzz.npy") {
                    Ok(a) => {
                        prop_assert_eq!(a.data.len(), a.rows * a.cols);
                        read.set(read.get() + 1);
                    }
                    Err(_) => refused.set(refused.get() + 1),
                }
                Ok(())
            })
            .unwrap();
        eprintln!("fuzz npy: {} tried, {} read, {} refused, 0 panics", read.get() + refused.get(), read.get(), refused.get());
    }

    #[test]
    fn npy_headers_are_checked_against_the_file_length() {
        let dir = std::env::temp_dir().join(format!("cairn-runfiles-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.npy");
        // a header of 2^61 rows over three rows: refused, no allocation
        npy(&p, "2305843009213693952", 3, 2);
        let e = read_npy(&p).err().unwrap().to_string();
        assert!(e.contains("the header claims 2305843009213693952 rows of 2 values, the file holds 3 whole rows"), "{e}");
        // rows * cols overflowing
        npy(&p, "18446744073709551615", 3, 2);
        assert!(read_npy(&p).is_err());
        // a truncated file: 4 claimed, 3 present
        npy(&p, "4", 3, 2);
        assert!(read_npy(&p).err().unwrap().to_string().contains("claims 4 rows"));
        // more rows than claimed (a run killed between checkpoints): the claimed ones
        npy(&p, "2", 3, 2);
        let a = read_npy(&p).unwrap();
        assert_eq!((a.rows, a.cols, a.data), (2, 2, vec![0.0, 1.0, 2.0, 3.0]));
        std::fs::remove_dir_all(&dir).ok();
    }
}
