//! Where the bundled scenes live, and finding a scene by name or path.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// The folder [`set_scenes_dir`] names, if any.
static SET_DIR: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Names the bundled scenes folder for this process, ahead of `./scenes` and the source tree (`$CAIRN_SCENES`
/// still wins); `None` undoes it. The Python package names the copy its wheel carries.
pub fn set_scenes_dir(dir: Option<PathBuf>) {
    *SET_DIR.write().unwrap_or_else(|e| e.into_inner()) = dir;
}

/// The bundled scenes folder: `$CAIRN_SCENES`, else the one [`set_scenes_dir`] named, else `./scenes`, else
/// the one in the source tree.
pub fn scenes_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CAIRN_SCENES") {
        return PathBuf::from(d);
    }
    if let Some(d) = SET_DIR.read().unwrap_or_else(|e| e.into_inner()).clone() {
        return d;
    }
    let local = PathBuf::from("scenes");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
}

/// A scene by path, or by bundled name with or without its extension (`pyramid20` and `pyramid20.toml` →
/// `scenes/pyramid20.toml`, `stack60` → `scenes/stack60.scn`). A path that exists but is no regular file (a
/// directory, `/dev/zero`) and names no bundled scene is returned too, for the loader to say what it is.
pub fn find_scene(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(name);
    if p.is_file() {
        return Some(p);
    }
    let dir = scenes_dir();
    // "pyramid20.toml" given from outside the repository root: the bundled file of that name.
    if matches!(p.extension().and_then(|e| e.to_str()), Some("toml" | "scn")) && p.components().count() == 1 {
        let q = dir.join(&p);
        if q.is_file() {
            return Some(q);
        }
    }
    let bundled = ["toml", "scn"].iter().map(|ext| dir.join(format!("{name}.{ext}"))).find(|q| q.is_file());
    bundled.or_else(|| p.exists().then_some(p))
}

/// The bundled scenes, sorted by file name.
pub fn list_scenes() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(scenes_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "toml" || e == "scn")).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The robot models and robot scenes bundled in `scenes/robots/` (URDF, MJCF and the TOML scenes that place
/// them), sorted by file name; the test fixtures in its subfolders are left out.
pub fn list_robots() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(scenes_dir().join("robots"))
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "urdf" || e == "xml" || e == "toml"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// A bundled file's one-line description, as `cairn scenes` prints it: a scene's first comment line without
/// its leading `NAME:`, or a robot file's first sentence of its first XML comment. Empty when there is none.
pub fn description(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if matches!(path.extension().and_then(|e| e.to_str()), Some("urdf" | "xml")) {
        let Some(start) = text.find("<!--") else { return String::new() };
        let body = &text[start + 4..];
        let comment = body[..body.find("-->").unwrap_or(body.len())].split_whitespace().collect::<Vec<_>>().join(" ");
        // the first sentence; when that is longer than a line, the part before a colon that introduces details
        let mut end = comment.find(". ").unwrap_or(comment.len());
        // or before a parenthesis
        if end > 100 {
            end = comment[..end].find(": ").unwrap_or(end);
        }
        if end > 100 {
            end = comment[..end].find(" (").unwrap_or(end);
        }
        return format!("{}.", comment[..end].trim_end_matches('.'));
    }
    let first = text.lines().next().unwrap_or("");
    let Some(line) = first.strip_prefix('#') else { return String::new() };
    let line = line.trim();
    line.strip_prefix(stem).and_then(|r| r.strip_prefix(':')).unwrap_or(line).trim().to_string()
}
