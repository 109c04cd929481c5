//! Tests of the abd method beside the validation rows (tests/validation.rs runs those).

use crate::world::World;

fn scene(text: &str) -> World {
    World::from_scene_text(text, "abd test").expect("scene loads")
}

#[test]
fn same_scene_gives_bit_identical_results() {
    let text = "format = 1\n[world]\nmethod = \"abd\"\n[solver.abd]\ndhat = 0.002\n\
[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [0.5, 0.5, 0.5] }\nposition = [0.0, 0.0, 0.26]\n\
[[body]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 0.2 }\nposition = [0.05, 0.0, 0.8]\nangular_velocity = [1.0, 2.0, 0.0]\n";
    let run = || {
        let mut w = scene(text);
        for _ in 0..40 {
            w.step().unwrap();
        }
        w.state.affine.clone()
    };
    assert_eq!(run(), run());
}

#[test]
fn touching_bodies_at_the_start_are_an_error_naming_them() {
    let text = "format = 1\n[world]\nmethod = \"abd\"\n\
[[body]]\nname = \"floor\"\nkind = \"static\"\nshape = { type = \"box\", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n\
[[body]]\nname = \"crate\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\n";
    let mut w = scene(text);
    let e = w.step().unwrap_err().to_string();
    assert!(e.contains("floor") && e.contains("crate") && e.contains("touch"), "{e}");
}

#[test]
fn bad_abd_parameters_are_rejected_with_the_key() {
    let e = World::from_scene_text("format = 1\n[world]\nmethod = \"abd\"\n[solver.abd]\ndhat = -1.0\n", "t").err().unwrap().to_string();
    assert!(e.contains("solver.abd.dhat"), "{e}");
    let e = World::from_scene_text("format = 1\n[world]\nmethod = \"abd\"\n[solver.abd]\nkapa = 1.0\n", "t").err().unwrap().to_string();
    assert!(e.contains("kapa"), "{e}");
}
