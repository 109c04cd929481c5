//! `cairn view`: a self-contained `view.html` that plays one or more runs back in a browser, from disk, with no
//! network. three.js (cli/vendor/three/, vendored) and the page (cli/assets/view.html, view.js) are embedded
//! into the binary. Each shape's mesh is in the page once; the poses are a Float32 array
//! [px, py, pz, qx, qy, qz, qw] per frame and body, base64, drawn with one instanced mesh per run and shape.

use crate::runfiles::{pose_quaternion, read_run, Run};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const TEMPLATE: &str = include_str!("../assets/view.html");
const APP: &str = include_str!("../assets/view.js");
const THREE_CORE: &str = include_str!("../vendor/three/three.core.js");
const THREE_MODULE: &str = include_str!("../vendor/three/three.module.js");
const ORBIT_CONTROLS: &str = include_str!("../vendor/three/OrbitControls.js");

/// The colour of a method's bodies (`None` for a name that is no method's).
pub fn method_colour(method: &str) -> Option<&'static str> {
    Some(match cairn::model::MethodKey::parse(method).ok()? {
        cairn::model::MethodKey::Lcp => "#e07b20",
        cairn::model::MethodKey::Impulse => "#2f6fd6",
        cairn::model::MethodKey::VolumetricPenalty => "#2ea043",
        cairn::model::MethodKey::ImplicitPenalty => "#9b4fd0",
        cairn::model::MethodKey::Abd => "#d63a3a",
    })
}

/// The colours of further runs of a method already shown, in order.
const MORE_COLOURS: [&str; 5] = ["#c9a400", "#18a3a3", "#d0508f", "#6b7f1a", "#7a5230"];

/// Base64 (standard alphabet, padded).
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        out.push(A[(n >> 18) as usize & 63] as char);
        out.push(A[(n >> 12) as usize & 63] as char);
        out.push(if c.len() > 1 { A[(n >> 6) as usize & 63] as char } else { '=' });
        out.push(if c.len() > 2 { A[n as usize & 63] as char } else { '=' });
    }
    out
}

fn f32s(values: impl IntoIterator<Item = f64>) -> String {
    base64(&values.into_iter().flat_map(|v| (v as f32).to_le_bytes()).collect::<Vec<u8>>())
}

fn u8s(values: &[u8]) -> String {
    base64(values)
}

fn u32s(values: impl IntoIterator<Item = u32>) -> String {
    base64(&values.into_iter().flat_map(u32::to_le_bytes).collect::<Vec<u8>>())
}

/// The runs `cairn view` shows for its arguments: run folders, or a folder of `cairn compare` (with
/// `compare.json`), whose ran runs are shown in its order. Returns (label, folder) pairs and where `view.html`
/// goes by default: into the folder when there is one argument, else into the current folder.
pub fn resolve(args: &[PathBuf]) -> Result<(Vec<(String, PathBuf)>, PathBuf)> {
    if args.is_empty() {
        bail!("cairn view: give a run folder (of `cairn run --out`), several, or a folder of `cairn compare`");
    }
    let mut runs = Vec::new();
    for dir in args {
        let compare = dir.join("compare.json");
        if compare.exists() {
            let text = std::fs::read_to_string(&compare).with_context(|| format!("cannot read {}", compare.display()))?;
            let c: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", compare.display()))?;
            let list = c["runs"].as_array().with_context(|| format!("{}: no `runs` list", compare.display()))?;
            let before = runs.len();
            for (k, r) in list.iter().enumerate() {
                let method = r["method"].as_str().with_context(|| format!("{}: runs[{k}] has no `method`", compare.display()))?;
                match r["status"].as_str() {
                    Some("ran") => {}
                    Some(_) => continue,
                    None => bail!("{}: runs[{k}] ({method}) has no `status` (\"ran\" or \"refused\")", compare.display()),
                }
                let sub = r["dir"].as_str().with_context(|| format!("{}: runs[{k}] ({method}) ran but has no `dir`", compare.display()))?;
                runs.push((method.to_string(), dir.join(sub)));
            }
            if runs.len() == before {
                bail!("{}: no run has status \"ran\"; nothing to show", compare.display());
            }
        } else if dir.join("trajectory.npy").exists() {
            runs.push((String::new(), dir.clone()));
        } else {
            bail!("{}: neither a run folder (trajectory.npy) nor a compare folder (compare.json)", dir.display());
        }
    }
    let out = if args.len() == 1 { args[0].join("view.html") } else { PathBuf::from("view.html") };
    Ok((runs, out))
}

/// The page's data for one run: bodies, poses, the stage timings and contacts of each frame.
fn run_json(run: &Run, label: &str, colour: &str, shape_ids: &[usize]) -> serde_json::Value {
    let (nb, nf) = (run.bodies.len(), run.times.len());
    let mut poses = Vec::with_capacity(nf * nb * 7);
    for f in 0..nf {
        for b in 0..nb {
            let m = run.pose(f, b);
            poses.extend([m[3], m[7], m[11]]);
            poses.extend(pose_quaternion(m));
        }
    }
    // each frame's stage timings and contact count: the last metrics row at or before the frame's step
    let m = &run.metrics;
    let stages = m.stages();
    let (step_col, contacts_col) = (m.col("step"), m.col("contacts"));
    let mut stage_ms = Vec::with_capacity(nf * stages.len());
    let (mut contact_count, mut metric_steps, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    let mut row = None;
    for f in 0..nf {
        let step = run.frame_step(f);
        steps.push(step);
        if let Some(sc) = step_col {
            let mut k = row.map_or(0, |r| r + 1);
            while k < m.rows.len() && m.rows[k][sc] <= step as f64 {
                row = Some(k);
                k += 1;
            }
        }
        let r = row.map(|k| &m.rows[k]);
        metric_steps.push(r.zip(step_col).map_or(0, |(r, c)| r[c] as u64));
        stage_ms.extend(stages.iter().map(|(_, c)| r.map_or(0.0, |r| r[*c] * 1e3)));
        contact_count.push(r.zip(contacts_col).map_or(0.0, |(r, c)| r[c]));
    }
    let (mut offsets, mut data) = (vec![0u32], Vec::new());
    if let Some(c) = &run.contacts {
        let mut k = 0;
        for &step in &steps {
            while k < c.rows && (c.data[7 * k] as u64) < step {
                k += 1;
            }
            while k < c.rows && c.data[7 * k] as u64 == step {
                data.extend_from_slice(&c.data[7 * k + 1..7 * k + 7]);
                k += 1;
            }
            offsets.push((data.len() / 6) as u32);
        }
    }
    // each frame's sleeping bodies, as a 0/1 byte per frame and body (sleep.npy's events replayed up to the
    // frame's step); empty when the run recorded none
    let mut asleep: Vec<u8> = Vec::new();
    if let Some(s) = run.sleep.as_ref().filter(|s| s.rows > 0) {
        let mut now = vec![0u8; nb];
        let mut k = 0;
        for &step in &steps {
            while k < s.rows && s.data[3 * k] as u64 <= step {
                now[s.data[3 * k + 1] as usize] = (s.data[3 * k + 2] != 0.0) as u8;
                k += 1;
            }
            asleep.extend_from_slice(&now);
        }
    }
    serde_json::json!({
        "label": label,
        "method": run.method,
        "color": colour,
        "bodies": run.bodies.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(),
        "kinds": run.bodies.iter().map(|b| b.kind.as_str()).collect::<Vec<_>>(),
        // each body's own colour (#rrggbb), or null: shown when the page has one run
        "colors": run.bodies.iter().map(|b| b.color.map(|c| format!("#{:02x}{:02x}{:02x}", (c[0] * 255.0).round() as u8, (c[1] * 255.0).round() as u8, (c[2] * 255.0).round() as u8))).collect::<Vec<_>>(),
        "shape": run.bodies.iter().map(|b| shape_ids[b.shape]).collect::<Vec<_>>(),
        "com": f32s(run.bodies.iter().flat_map(|b| b.com)),
        "times": run.times,
        "steps": steps,
        "metric_steps": metric_steps,
        "poses": f32s(poses),
        "stages": stages.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(),
        "stage_ms": f32s(stage_ms),
        "contact_count": f32s(contact_count),
        "contact_offsets": run.contacts.as_ref().map(|_| u32s(offsets)),
        "contact_data": run.contacts.as_ref().map(|_| f32s(data)),
        "asleep": (!asleep.is_empty()).then(|| u8s(&asleep)),
    })
}

/// Builds the page for `runs` ((label, folder) pairs; an empty label: the run's method).
pub fn view_html(runs: &[(String, PathBuf)]) -> Result<String> {
    let mut shapes: Vec<serde_json::Value> = Vec::new();
    let mut shape_index: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    let mut out_runs = Vec::new();
    let mut scenes = Vec::new();
    for (label, dir) in runs {
        let run = read_run(dir)?;
        // shapes shared across runs of the same scene are in the page once
        let ids: Vec<usize> = run
            .shapes
            .iter()
            .map(|s| {
                let key = (f32s(s.vertices.iter().copied()), u32s(s.triangles.iter().copied()));
                let next = shapes.len();
                let id = *shape_index.entry(key.clone()).or_insert(next);
                if id == next {
                    shapes.push(serde_json::json!({"vertices": key.0, "triangles": key.1}));
                }
                id
            })
            .collect();
        let label = if label.is_empty() { run.method.clone() } else { label.clone() };
        let n = used.entry(run.method.clone()).or_insert(0);
        let colour = match method_colour(&run.method) {
            Some(c) if *n == 0 => c,
            _ => MORE_COLOURS[(out_runs.len()) % MORE_COLOURS.len()],
        };
        *n += 1;
        if !scenes.contains(&run.scene) {
            scenes.push(run.scene.clone());
        }
        out_runs.push(run_json(&run, &label, colour, &ids));
    }
    let labels: Vec<&str> = out_runs.iter().filter_map(|r| r["label"].as_str()).collect();
    let data = serde_json::json!({"title": format!("{} ({})", scenes.join(", "), labels.join(", ")), "shapes": shapes, "runs": out_runs});
    // '<' only occurs inside JSON strings; escaped, no "</script" can end the data block
    let data = serde_json::to_string(&data)?.replace('<', "\\u003c");
    for (name, text) in
        [("three.core.js", THREE_CORE), ("three.module.js", THREE_MODULE), ("OrbitControls.js", ORBIT_CONTROLS), ("view.js", APP)]
    {
        if text.contains("</script") {
            bail!("embedded {name} contains `</script`: it cannot be inlined");
        }
    }
    // placeholders filled in the order they appear, each searched after the text already inserted
    let mut html =
        String::with_capacity(TEMPLATE.len() + data.len() + THREE_CORE.len() + THREE_MODULE.len() + APP.len() + ORBIT_CONTROLS.len());
    let mut rest = TEMPLATE;
    for (mark, text) in [
        ("/*CAIRN_DATA*/", data.as_str()),
        ("/*THREE_CORE*/", THREE_CORE),
        ("/*THREE_MODULE*/", THREE_MODULE),
        ("/*ORBIT_CONTROLS*/", ORBIT_CONTROLS),
        ("/*CAIRN_APP*/", APP),
    ] {
        let at = rest.find(mark).with_context(|| format!("the page template has no {mark}"))?;
        html.push_str(&rest[..at]);
        html.push_str(text);
        rest = &rest[at + mark.len()..];
    }
    html.push_str(rest);
    Ok(html)
}

/// `cairn view DIR…`: writes the page (to `out`, or by default into the one folder given, else `./view.html`)
/// and returns its path.
pub fn write_view(args: &[PathBuf], out: Option<&Path>) -> Result<PathBuf> {
    let (runs, default_out) = resolve(args)?;
    let path = out.map_or(default_out, Path::to_path_buf);
    let html = view_html(&runs)?;
    std::fs::write(&path, html).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_4648_test_vectors() {
        for (plain, coded) in
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")]
        {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
    }

    #[test]
    fn resolve_refuses_a_folder_that_is_no_run_and_reads_compare_json() {
        let dir = std::env::temp_dir().join(format!("cairn-view-resolve-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("lcp")).unwrap();
        let err = resolve(std::slice::from_ref(&dir)).unwrap_err().to_string();
        assert!(err.contains("neither a run folder"), "{err}");
        std::fs::write(
            dir.join("compare.json"),
            r#"{"scene": "s", "runs": [{"method": "lcp", "status": "ran", "dir": "lcp"}, {"method": "abd", "status": "refused"}]}"#,
        )
        .unwrap();
        let (runs, out) = resolve(std::slice::from_ref(&dir)).unwrap();
        assert_eq!(runs, vec![("lcp".to_string(), dir.join("lcp"))]);
        assert_eq!(out, dir.join("view.html"));
        std::fs::write(dir.join("compare.json"), r#"{"scene": "s", "runs": [{"method": "abd", "status": "refused"}]}"#).unwrap();
        let err = resolve(std::slice::from_ref(&dir)).unwrap_err().to_string();
        assert!(err.contains("no run has status"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// The system's command that opens a file in its application (a page in the browser).
pub fn open_command() -> &'static str {
    if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "start"
    } else {
        "xdg-open"
    }
}

/// `cairn view`: writes the page and, with `--open`, opens it.
pub fn cmd_view(dirs: &[PathBuf], out: Option<&Path>, open: bool) -> Result<()> {
    let t0 = std::time::Instant::now();
    let path = write_view(dirs, out)?;
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!("wrote {} ({:.1} MB in {:.2} s)", path.display(), size as f64 / 1e6, t0.elapsed().as_secs_f64());
    if open {
        open_in_browser(&path);
    }
    Ok(())
}

/// Opens `page` with the system's opener; where there is none (a server without a desktop), says how to look
/// at it instead. The page is written either way, so this never fails the command.
fn open_in_browser(page: &Path) {
    let mut c = if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new(open_command())
    };
    match c.arg(page).stdin(std::process::Stdio::null()).status() {
        Ok(s) if s.success() => println!("opened {} with {}", page.display(), open_command()),
        Ok(s) => eprintln!("note: `{} {}` exited with {s}; open the page in a browser yourself", open_command(), page.display()),
        Err(e) => eprintln!(
            "note: cannot run `{}` ({e}): no desktop opener here; open {} in a browser yourself (or copy it to a machine with one)",
            open_command(),
            page.display()
        ),
    }
}
