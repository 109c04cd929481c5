//! What several integration tests share: a world from an MJCF text written to a folder of its own.

use cairn::model::MethodKey;
use cairn::world::World;

/// A world of the MJCF text `xml` under method `m`, written as `name.xml` into a temporary folder unique to
/// the process, `name`, `m` and the text's length (tests run side by side), removed after loading.
pub fn mjcf_world(name: &str, xml: &str, m: MethodKey) -> Result<World, String> {
    let dir = std::env::temp_dir().join(format!("cairn-mjcf-{}-{name}-{m}-{}", std::process::id(), xml.len()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.xml"));
    std::fs::write(&path, xml).unwrap();
    let model = cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(m)).map_err(|e| e.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    World::new(model?).map_err(|e| e.to_string())
}
