//! A scene asking for what a method does not model gets a note saying so (issue "Faithful basics").

use cairn::model::MethodKey;
use cairn::world::World;

fn notes(scene: &str, m: MethodKey) -> Vec<String> {
    let path = cairn::scene::find_scene(scene).unwrap();
    let model = cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(m)).unwrap();
    World::new(model).unwrap().notes()
}

#[test]
fn abd_says_it_does_not_model_restitution() {
    let said = |n: &Vec<String>| n.iter().any(|s| s.contains("restitution is not modelled"));
    // the cradle's balls have restitution 1; stack10's cubes none
    assert!(said(&notes("cradle", MethodKey::Abd)), "{:?}", notes("cradle", MethodKey::Abd));
    assert!(!said(&notes("stack10", MethodKey::Abd)));
    assert!(!said(&notes("cradle", MethodKey::Lcp)));
}
