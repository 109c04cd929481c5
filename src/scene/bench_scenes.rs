//! Generated benchmark scenes (scene text, format 1): 3D pyramids of cubes, walls of cubes and piles of spheres,
//! as used by `cairn bench --scaling`, the validation and the Rapier oracle (`oracle/`), so that all of them run
//! exactly the same scenes.

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

/// Box3D's `large_pyramid` benchmark in kind: a wall (one cube deep) of unit cubes, `base` on the ground and
/// one fewer in each row above, no gaps between them or to the ground; density 100, friction 0.6, g = 10,
/// steps of 1/60 s, 200 steps. `base` 100 is the benchmark's 5,050 cubes.
pub fn wall_scene(base: usize) -> String {
    let n = base * (base + 1) / 2;
    let mut s = format!(
        "# wall pyramid of {n} unit cubes, base {base}, no gaps\nformat = 1\n[world]\ngravity = [0.0, 0.0, -10.0]\n\
dt = 0.016666666666666666\nduration = 3.3333333333333335\nmethod = \"lcp\"\n[[material]]\nname = \"default\"\n\
density = 100.0\nfriction = 0.6\nrestitution = 0.0\n"
    );
    let g = 2 * base + 20;
    let _ = writeln!(
        s,
        "[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [{g}, 40, 1] }}\nposition = [0.0, 0.0, -0.5]"
    );
    for row in 0..base {
        let k = base - row;
        let x0 = -0.5 * (k - 1) as f64;
        let _ = writeln!(
            s,
            "[[body]]\nname = \"row{row}\"\nshape = {{ type = \"box\", size = [1, 1, 1] }}\nposition = [{x0}, 0.0, {}]\n\
repeat = {{ count = [{k}, 1, 1], step = [1.0, 0.0, 0.0] }}",
            0.5 + row as f64
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

/// The scene `text` repeated `n` × `n` times side by side at `pitch` (m) along x and y: every body (static ones
/// too) and every joint is copied with its position (a joint's anchor) shifted, and names get the suffix
/// `@i,j` (joints' body names with them); tile (0, 0) stays in place. For benchmark figures at a
/// larger size (`cairn bench --tile`): the tiles do not interact when `pitch` exceeds the scene's footprint.
/// Errors name what the scene lacks for it (a body without a `position`, a `repeat`, a joint anchor missing).
pub fn tiled_scene(text: &str, n: usize, pitch: f64) -> Result<String, String> {
    use toml::Value;
    let mut table: toml::Table = text.parse().map_err(|e| format!("the scene does not parse: {e}"))?;
    let tile = |items: &[Value], what: &str, shift: &dyn Fn(&mut toml::Table, [f64; 2]) -> Result<(), String>| {
        let mut out = Vec::with_capacity(items.len() * n * n);
        for i in 0..n {
            for j in 0..n {
                for (k, item) in items.iter().enumerate() {
                    let mut t = item.as_table().ok_or_else(|| format!("{what} {k} is not a table"))?.clone();
                    shift(&mut t, [i as f64 * pitch, j as f64 * pitch])?;
                    out.push(Value::Table(t));
                }
            }
        }
        Ok::<_, String>(out)
    };
    let suffix = |t: &mut toml::Table, key: &str, d: [f64; 2]| {
        if let Some(Value::String(s)) = t.get_mut(key) {
            s.push_str(&format!("@{},{}", (d[0] / pitch).round(), (d[1] / pitch).round()));
        }
    };
    let shift_vec = |t: &mut toml::Table, key: &str, d: [f64; 2], what: &str| -> Result<(), String> {
        let v = t.get_mut(key).and_then(Value::as_array_mut).filter(|a| a.len() == 3);
        let v = v.ok_or_else(|| format!("{what} has no `{key}` of three numbers; --tile needs one"))?;
        for (c, dc) in v.iter_mut().zip(d) {
            let x = c.as_float().or_else(|| c.as_integer().map(|i| i as f64)).ok_or_else(|| format!("{what}: `{key}` is not numeric"))?;
            *c = Value::Float(x + dc);
        }
        Ok(())
    };
    if let Some(Value::Array(bodies)) = table.get("body").cloned() {
        let shift = |t: &mut toml::Table, d: [f64; 2]| {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("?").to_string();
            if t.contains_key("repeat") {
                return Err(format!("body `{name}` has a `repeat`; --tile does not expand repeats"));
            }
            if (d[0], d[1]) != (0.0, 0.0) {
                shift_vec(t, "position", d, &format!("body `{name}`"))?;
            }
            suffix(t, "name", d);
            Ok(())
        };
        table.insert("body".into(), Value::Array(tile(&bodies, "body", &shift)?));
    }
    if let Some(Value::Array(joints)) = table.get("joint").cloned() {
        let shift = |t: &mut toml::Table, d: [f64; 2]| {
            let name = format!("joint of `{}`", t.get("body1").and_then(Value::as_str).unwrap_or("?"));
            if (d[0], d[1]) != (0.0, 0.0) {
                shift_vec(t, "anchor", d, &name)?;
            }
            suffix(t, "body1", d);
            suffix(t, "body2", d);
            suffix(t, "name", d);
            Ok(())
        };
        table.insert("joint".into(), Value::Array(tile(&joints, "joint", &shift)?));
    }
    Ok(format!("# {n} × {n} tiles at {pitch} m\n{}", toml::to_string(&table).map_err(|e| e.to_string())?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiling_copies_bodies_and_joints_with_their_offsets() {
        let text = "format = 1\n[world]\ndt = 0.01\n[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [1, 1, 1] }\nposition = [0, 0, -0.5]\n\
[[body]]\nname = \"a\"\nshape = { type = \"box\", size = [0.2, 0.2, 0.2] }\nposition = [0.0, 0.0, 1.0]\n\
[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [0.2, 0.2, 0.2] }\nposition = [0.3, 0.0, 1.0]\n\
[[joint]]\ntype = \"hinge\"\nbody1 = \"a\"\nbody2 = \"b\"\nanchor = [0.15, 0.0, 1.0]\naxis = [0.0, 1.0, 0.0]\n";
        let tiled = tiled_scene(text, 2, 5.0).unwrap();
        let model = crate::scene::load_str(&tiled, "<tiled>", "tiled", std::path::Path::new("."), &[]).unwrap();
        assert_eq!(model.bodies.len(), 12);
        assert_eq!(model.joints.len(), 4);
        let i = model.bodies.iter().position(|x| x.name == "b@1,1").unwrap();
        let p = model.bodies[i].position;
        assert!((p.x - 5.3).abs() < 1e-12 && (p.y - 5.0).abs() < 1e-12 && (p.z - 1.0).abs() < 1e-12, "{p:?}");
        let j = model.joints.iter().find(|j| j.body2 == Some(i)).unwrap();
        assert_eq!(model.bodies[j.body1].name, "a@1,1");
        assert!((j.anchor.x - 5.15).abs() < 1e-12 && (j.anchor.y - 5.0).abs() < 1e-12, "{:?}", j.anchor);
        assert!(tiled_scene("format = 1\n[[body]]\nname = \"x\"\nshape = { type = \"sphere\", radius = 1 }\nrepeat = { count = [2, 1, 1], step = [3, 0, 0] }\nposition = [0, 0, 0]\n", 2, 5.0)
            .unwrap_err()
            .contains("repeat"));
    }
}
