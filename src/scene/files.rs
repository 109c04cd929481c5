//! Where the bundled scenes live, and finding a scene by name or path.

use std::path::{Path, PathBuf};

/// The bundled scenes folder: `$CAIRN_SCENES`, else `./scenes`, else the one in the source tree.
pub fn scenes_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CAIRN_SCENES") {
        return PathBuf::from(d);
    }
    let local = PathBuf::from("scenes");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
}

/// A scene by path, or by bundled name with or without its extension (`pyramid20` and `pyramid20.toml` →
/// `scenes/pyramid20.toml`, `stack60` → `scenes/stack60.scn`).
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
    ["toml", "scn"].iter().map(|ext| dir.join(format!("{name}.{ext}"))).find(|q| q.is_file())
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
