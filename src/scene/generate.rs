//! Generated benchmark scenes (scene text, format 1): 3D pyramids of cubes and piles of spheres, as used by
//! `cairn bench --scaling` and by the Rapier oracle (`oracle/`), so that both time exactly the same scenes.

use std::fmt::Write;

const HEADER: &str = "format = 1\n[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.016666666666666666\nduration = 1.0\n\
method = \"lcp\"\n[[material]]\nname = \"default\"\ndensity = 1000.0\nfriction = 0.5\nrestitution = 0.0\n";

/// Cubes in a 3D pyramid of the given base.
pub fn pyramid_bodies(base: usize) -> usize {
    (1..=base).map(|k| k * k).sum()
}

/// A 3D pyramid of cubes of edge 0.5 m: layers of k × k cubes, k = base down to 1, pitch 0.501 m, 1 mm above
/// the ground and above each layer.
pub fn pyramid_scene(base: usize) -> String {
    let mut s = format!("# 3D pyramid of {} cubes, base {base}\n{HEADER}", pyramid_bodies(base));
    let g = base as f64 * 0.6 + 10.0;
    let _ = writeln!(
        s,
        "[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [{g}, {g}, 1] }}\nposition = [0.0, 0.0, -0.5]"
    );
    for layer in 0..base {
        let k = base - layer;
        let x0 = -0.5 * (k - 1) as f64 * 0.501;
        let z = 0.251 + 0.501 * layer as f64;
        let _ = writeln!(
            s,
            "[[body]]\nname = \"layer{layer}\"\nshape = {{ type = \"box\", size = [0.5, 0.5, 0.5] }}\nposition = [{x0}, {x0}, {z}]\n\
repeat = {{ count = [{k}, {k}, 1], step = [0.501, 0.501, 0.0] }}"
        );
    }
    s
}

/// `n` spheres of radius 0.5 in s × s columns (s = ⌈√(n/10)⌉) at pitch 1.1 m from z = 1, ball m shifted by
/// (0.05 sin 1.3m, 0.05 cos 1.7m), inside a static box of inner side 1.1 s + 1 m with walls 12 m high.
pub fn pile_scene(n: usize) -> String {
    let side = ((n as f64 / 10.0).sqrt().ceil() as usize).max(1);
    let inner = 1.1 * side as f64 + 1.0;
    let mut s = format!("# pile of {n} balls\n{HEADER}");
    let (outer, off) = (inner + 2.0, 0.5 * inner + 0.5);
    let walls = [
        ("floor", [outer, outer, 1.0], [0.0, 0.0, -0.5]),
        ("wall_xp", [1.0, outer, 12.0], [off, 0.0, 6.0]),
        ("wall_xn", [1.0, outer, 12.0], [-off, 0.0, 6.0]),
        ("wall_yp", [inner, 1.0, 12.0], [0.0, off, 6.0]),
        ("wall_yn", [inner, 1.0, 12.0], [0.0, -off, 6.0]),
    ];
    for (name, size, p) in walls {
        let _ = writeln!(
            s,
            "[[body]]\nname = \"{name}\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [{}, {}, {}] }}\nposition = [{}, {}, {}]",
            size[0], size[1], size[2], p[0], p[1], p[2]
        );
    }
    let x0 = -0.5 * (side - 1) as f64 * 1.1;
    for m in 0..n {
        let (i, j, k) = (m % side, (m / side) % side, m / (side * side));
        let x = x0 + 1.1 * i as f64 + 0.05 * (1.3 * m as f64).sin();
        let y = x0 + 1.1 * j as f64 + 0.05 * (1.7 * m as f64).cos();
        let z = 1.0 + 1.1 * k as f64;
        let _ = writeln!(s, "[[body]]\nname = \"ball{m}\"\nshape = {{ type = \"sphere\", radius = 0.5 }}\nposition = [{x}, {y}, {z}]");
    }
    s
}
