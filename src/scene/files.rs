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

/// A scene by path, or by bundled name (`pyramid20` → `scenes/pyramid20.toml`, `stack60` → `scenes/stack60.scn`).
/// A path that exists but is no regular file (a directory, `/dev/zero`) and names no bundled scene is returned
/// too, for the loader to say what it is.
pub fn find_scene(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(name);
    if p.is_file() {
        return Some(p);
    }
    let bundled = ["toml", "scn"].iter().map(|ext| scenes_dir().join(format!("{name}.{ext}"))).find(|q| q.is_file());
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
