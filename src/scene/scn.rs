//! The `.scn` scene format of the pulsk simulator (the pulsk project report, section "Scenefile description"),
//! translated into a TOML scene (format 1) and loaded by the same code, so that every check and `--set`
//! override applies to it too.
//!
//! Grammar: a file is a list of `primitive { parameter = value ... }` groups; `#` and `//` start comments.
//! Values: a number; a vector `(x, y, z)`; a replication 4-tuple `(xstep, ystep, zstep, n)`; `true`/`false`; a
//! hex colour `0xRRGGBB`; `random` (a random colour); a string in double quotes (or a bare file name).
//!
//! Mapping (what pulsk means → the cairn scene):
//! - `world`: `gravity` → `world.gravity`. cairn extensions: `dt`, `duration`, `method` (default: dt 0.01 s, the
//!   report's fixed step; duration 5 s; method `impulse`). `drag` and `shadows` are ignored (reported).
//! - `camera` (`lookat`, `base`, …): ignored (reported).
//! - `box`, `sphere`, `ifs`, `tri`: one body each (times the replication). `name` → body name (replicas get
//!   `_1`, `_2`, …); `base` → position; `normal` → orientation turning the body's +z onto this direction;
//!   `scale` → box edge lengths (a vector, or a number for a cube), sphere radius (a number), mesh scale (`ifs`
//!   and `tri`: a closed OBJ or STL mesh named by `filename`, relative to the scene file); `density` → density,
//!   where 0 makes the body static (immovable); `elasticity` → restitution; `friction` → friction (static and
//!   kinetic alike); `velocity` → initial velocity; cairn extension: `angular_velocity`. `color` is ignored
//!   (reported). `replication = (xstep, ystep, zstep, n)` makes n copies, copy k offset by k·step.

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
enum Value {
    Number(f64),
    Tuple(Vec<f64>),
    Bool(bool),
    Color,
    Text(String),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Number(_) => "a number",
            Value::Tuple(_) => "a vector",
            Value::Bool(_) => "true/false",
            Value::Color => "a colour",
            Value::Text(_) => "a string",
        }
    }
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    text: &'a str,
    line: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Sym(char),
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Self {
        Lexer { chars: text.char_indices().peekable(), text, line: 1 }
    }

    /// The next token with its line, or `None` at the end.
    fn next(&mut self) -> Result<Option<(Tok, usize)>, String> {
        loop {
            let Some(&(i, c)) = self.chars.peek() else { return Ok(None) };
            if c == '\n' {
                self.line += 1;
                self.chars.next();
            } else if c.is_whitespace() {
                self.chars.next();
            } else if c == '#' || self.text[i..].starts_with("//") {
                while self.chars.peek().is_some_and(|&(_, c)| c != '\n') {
                    self.chars.next();
                }
            } else if "{}()=,".contains(c) {
                self.chars.next();
                return Ok(Some((Tok::Sym(c), self.line)));
            } else if c == '"' {
                self.chars.next();
                let mut s = String::new();
                loop {
                    match self.chars.next() {
                        Some((_, '"')) => return Ok(Some((Tok::Str(s), self.line))),
                        Some((_, '\n')) | None => return Err(format!("line {}: unterminated string", self.line)),
                        Some((_, ch)) => s.push(ch),
                    }
                }
            } else {
                let mut s = String::new();
                while let Some(&(_, ch)) = self.chars.peek() {
                    if ch.is_whitespace() || "{}()=,#\"".contains(ch) {
                        break;
                    }
                    s.push(ch);
                    self.chars.next();
                }
                return Ok(Some((Tok::Word(s), self.line)));
            }
        }
    }
}

/// One `primitive { ... }` group.
struct Group {
    primitive: String,
    line: usize,
    params: Vec<(String, Value, usize)>,
}

fn parse(text: &str) -> Result<Vec<Group>, String> {
    let mut lx = Lexer::new(text);
    let mut groups = Vec::new();
    while let Some((tok, line)) = lx.next()? {
        let Tok::Word(primitive) = tok else {
            return Err(format!(
                "line {line}: expected a primitive name (world, camera, box, sphere, ifs, tri), got {}",
                describe(&Some((tok, line)))
            ));
        };
        match lx.next()? {
            Some((Tok::Sym('{'), _)) => {}
            other => return Err(format!("line {line}: expected `{{` after `{primitive}`, got {}", describe(&other))),
        }
        let mut params = Vec::new();
        loop {
            let (tok, pline) = lx.next()?.ok_or(format!("line {line}: `{primitive}` group is not closed with `}}`"))?;
            let key = match tok {
                Tok::Sym('}') => break,
                Tok::Word(w) => w,
                other => return Err(format!("line {pline}: expected a parameter name or `}}`, got {}", describe(&Some((other, pline))))),
            };
            match lx.next()? {
                Some((Tok::Sym('='), _)) => {}
                other => return Err(format!("line {pline}: expected `=` after `{key}`, got {}", describe(&other))),
            }
            let value = value(&mut lx, pline, &key)?;
            params.push((key, value, pline));
        }
        groups.push(Group { primitive, line, params });
    }
    Ok(groups)
}

fn describe(t: &Option<(Tok, usize)>) -> String {
    match t {
        None => "the end of the file".into(),
        Some((Tok::Word(w), _)) => format!("`{w}`"),
        Some((Tok::Str(s), _)) => format!("\"{s}\""),
        Some((Tok::Sym(c), _)) => format!("`{c}`"),
    }
}

fn number(w: &str, line: usize, key: &str) -> Result<f64, String> {
    let x: f64 = w.parse().map_err(|_| format!("line {line}: `{key}`: `{w}` is not a number"))?;
    if !x.is_finite() {
        return Err(format!("line {line}: `{key}`: {w} is not a finite number"));
    }
    Ok(x)
}

fn value(lx: &mut Lexer, line: usize, key: &str) -> Result<Value, String> {
    match lx.next()? {
        Some((Tok::Sym('('), _)) => {
            let mut v = Vec::new();
            loop {
                match lx.next()? {
                    Some((Tok::Word(w), l)) => v.push(number(&w, l, key)?),
                    other => return Err(format!("line {line}: `{key}`: expected a number in the vector, got {}", describe(&other))),
                }
                match lx.next()? {
                    Some((Tok::Sym(','), _)) => continue,
                    Some((Tok::Sym(')'), _)) => break,
                    other => return Err(format!("line {line}: `{key}`: expected `,` or `)` in the vector, got {}", describe(&other))),
                }
            }
            Ok(Value::Tuple(v))
        }
        Some((Tok::Str(s), _)) => Ok(Value::Text(s)),
        Some((Tok::Word(w), l)) => Ok(match w.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "random" => Value::Color,
            _ if w.starts_with("0x") || w.starts_with("0X") => {
                if w.len() != 8 || u32::from_str_radix(&w[2..], 16).is_err() {
                    return Err(format!("line {l}: `{key}`: `{w}` is not a hex colour 0xRRGGBB"));
                }
                Value::Color
            }
            _ if w.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') => Value::Number(number(&w, l, key)?),
            _ => Value::Text(w),
        }),
        other => Err(format!("line {line}: `{key}`: expected a value, got {}", describe(&other))),
    }
}

/// Translates a `.scn` text into a TOML scene table. Returns the table and the notes on what was ignored.
/// `max_bodies` is the scene's body limit (`--limit bodies`), checked before any replica is made.
pub fn to_toml(text: &str, max_bodies: u64) -> Result<(toml::Table, Vec<String>), String> {
    let groups = parse(text)?;
    let mut ignored: BTreeMap<String, usize> = BTreeMap::new();
    let mut world = toml::Table::new();
    world.insert("dt".into(), 0.01.into());
    world.insert("method".into(), "impulse".into());
    let mut bodies = Vec::new();
    let mut materials: Vec<(String, toml::Table)> = Vec::new();
    let mut names = BTreeMap::new();
    for g in &groups {
        let at = |l: usize| format!("line {l}");
        match g.primitive.as_str() {
            "world" => {
                for (k, v, l) in &g.params {
                    match (k.as_str(), v) {
                        ("gravity", Value::Tuple(t)) if t.len() == 3 => {
                            world.insert("gravity".into(), toml::Value::Array(t.iter().map(|&x| x.into()).collect()));
                        }
                        ("dt" | "duration", Value::Number(x)) => {
                            world.insert(k.clone(), (*x).into());
                        }
                        ("method", Value::Text(s)) => {
                            world.insert("method".into(), s.clone().into());
                        }
                        ("drag" | "shadows", _) => *ignored.entry(format!("world {k}")).or_default() += 1,
                        ("gravity" | "dt" | "duration" | "method", v) => {
                            return Err(format!("{}: world `{k}`: wrong type ({})", at(*l), v.kind()));
                        }
                        _ => {
                            return Err(format!(
                                "{}: unknown world parameter `{k}`; allowed: gravity, drag, shadows, dt, duration, method",
                                at(*l)
                            ))
                        }
                    }
                }
            }
            "camera" => *ignored.entry("camera".into()).or_default() += 1,
            "box" | "sphere" | "ifs" | "tri" => {
                let made = body(g, &mut ignored, &mut materials, (bodies.len() as u64, max_bodies))?;
                for mut b in made {
                    let name = b.get("name").and_then(|v| v.as_str()).unwrap_or("").to_string();
                    if let Some(first) = names.insert(name.clone(), g.line) {
                        return Err(format!("line {}: duplicate body name `{name}` (first at line {first})", g.line));
                    }
                    b.insert("name".into(), name.into());
                    bodies.push(toml::Value::Table(b));
                }
            }
            other => return Err(format!("line {}: unknown primitive `{other}`; allowed: world, camera, box, sphere, ifs, tri", g.line)),
        }
    }
    let mut root = toml::Table::new();
    root.insert("format".into(), 1.into());
    root.insert("world".into(), toml::Value::Table(world));
    let mats = materials
        .into_iter()
        .map(|(name, mut t)| {
            t.insert("name".into(), name.into());
            toml::Value::Table(t)
        })
        .collect();
    root.insert("material".into(), toml::Value::Array(mats));
    root.insert("body".into(), toml::Value::Array(bodies));
    let notes = ignored.into_iter().map(|(k, n)| if n > 1 { format!("{k} ({n}×)") } else { k }).collect();
    Ok((root, notes))
}

/// The bodies of one object group (several with a replication); `count` is (bodies so far, the body limit).
fn body(
    g: &Group,
    ignored: &mut BTreeMap<String, usize>,
    materials: &mut Vec<(String, toml::Table)>,
    count: (u64, u64),
) -> Result<Vec<toml::Table>, String> {
    let p = &g.primitive;
    let mut name = None;
    let mut base = [0.0; 3];
    let mut normal: Option<[f64; 3]> = None;
    let mut scale: Option<Value> = None;
    let (mut density, mut elasticity, mut friction) = (1000.0, 0.0, 0.5);
    let mut velocity = [0.0; 3];
    let mut angular = [0.0; 3];
    let mut replication = ([0.0; 3], 1usize);
    let mut filename = None;
    let vec3 = |v: &Value, k: &str, l: usize| match v {
        Value::Tuple(t) if t.len() == 3 => Ok([t[0], t[1], t[2]]),
        other => Err(format!("line {l}: {p} `{k}` must be a vector (x, y, z), got {}", other.kind())),
    };
    let num = |v: &Value, k: &str, l: usize| match v {
        Value::Number(x) => Ok(*x),
        other => Err(format!("line {l}: {p} `{k}` must be a number, got {}", other.kind())),
    };
    for (k, v, l) in &g.params {
        let l = *l;
        match k.as_str() {
            "name" => match v {
                Value::Text(s) => name = Some(s.clone()),
                other => return Err(format!("line {l}: {p} `name` must be a string, got {}", other.kind())),
            },
            "filename" => match v {
                Value::Text(s) => filename = Some(s.clone()),
                other => return Err(format!("line {l}: {p} `filename` must be a file name, got {}", other.kind())),
            },
            "base" => base = vec3(v, k, l)?,
            "normal" => normal = Some(vec3(v, k, l)?),
            "scale" => scale = Some(v.clone()),
            "density" => density = num(v, k, l)?,
            "elasticity" => elasticity = num(v, k, l)?,
            "friction" => friction = num(v, k, l)?,
            "velocity" => velocity = vec3(v, k, l)?,
            "angular_velocity" => angular = vec3(v, k, l)?,
            "color" => *ignored.entry("color".into()).or_default() += 1,
            "replication" => match v {
                Value::Tuple(t) if t.len() == 4 => {
                    if t[3] < 1.0 || t[3].fract() != 0.0 {
                        return Err(format!("line {l}: {p} `replication` count n must be a whole number >= 1, got {}", t[3]));
                    }
                    // counted before any copy is made: a count of 1e9 is refused here, not by the allocator
                    let (before, max) = count;
                    if t[3] > (max - before.min(max)) as f64 {
                        return Err(format!(
                            "line {l}: {p} `replication` count {} makes the scene {} bodies, over the limit of {max} bodies; raise it with `--limit bodies=N`",
                            t[3],
                            before as f64 + t[3]
                        ));
                    }
                    replication = ([t[0], t[1], t[2]], t[3] as usize);
                }
                other => return Err(format!("line {l}: {p} `replication` must be (xstep, ystep, zstep, n), got {}", other.kind())),
            },
            _ => {
                return Err(format!(
                    "line {l}: unknown {p} parameter `{k}`; allowed: name, filename, base, normal, color, scale, density, elasticity, friction, velocity, angular_velocity, replication"
                ))
            }
        }
    }
    if density < 0.0 {
        return Err(format!("line {}: {p} `density` must be >= 0 (0: static), got {density}", g.line));
    }
    let mut shape = toml::Table::new();
    match p.as_str() {
        "box" => {
            let size = match &scale {
                None => [1.0; 3],
                Some(Value::Number(s)) => [*s; 3],
                Some(v) => vec3(v, "scale", g.line)?,
            };
            shape.insert("type".into(), "box".into());
            shape.insert("size".into(), toml::Value::Array(size.iter().map(|&x| x.into()).collect()));
        }
        "sphere" => {
            let r = match &scale {
                None => 1.0,
                Some(Value::Number(s)) => *s,
                Some(Value::Tuple(t)) if t.len() == 3 && t[0] == t[1] && t[1] == t[2] => t[0],
                Some(v) => return Err(format!("line {}: sphere `scale` is its radius: a number, got {}", g.line, v.kind())),
            };
            shape.insert("type".into(), "sphere".into());
            shape.insert("radius".into(), r.into());
        }
        _ => {
            let file = filename.ok_or(format!("line {}: {p} needs `filename` (an OBJ or STL mesh)", g.line))?;
            shape.insert("type".into(), "mesh".into());
            shape.insert("mesh".into(), file.into());
            match &scale {
                None => {}
                Some(Value::Number(s)) => {
                    shape.insert("scale".into(), (*s).into());
                }
                Some(v) => {
                    let s = vec3(v, "scale", g.line)?;
                    shape.insert("scale".into(), toml::Value::Array(s.iter().map(|&x| x.into()).collect()));
                }
            }
        }
    }
    // one material per distinct (density, elasticity, friction)
    let key = format!("scn_{density}_{elasticity}_{friction}");
    if !materials.iter().any(|(n, _)| *n == key) {
        let mut m = toml::Table::new();
        m.insert("density".into(), (if density > 0.0 { density } else { 1000.0 }).into());
        m.insert("restitution".into(), elasticity.into());
        m.insert("friction".into(), friction.into());
        materials.push((key.clone(), m));
    }
    let base_name = name.unwrap_or_else(|| format!("{p}{}", g.line));
    let (step, n) = replication;
    let mut out = Vec::new();
    for k in 0..n {
        let mut b = toml::Table::new();
        b.insert("name".into(), (if n > 1 { format!("{base_name}_{}", k + 1) } else { base_name.clone() }).into());
        b.insert("shape".into(), toml::Value::Table(shape.clone()));
        let pos: Vec<toml::Value> = (0..3).map(|i| (base[i] + k as f64 * step[i]).into()).collect();
        b.insert("position".into(), toml::Value::Array(pos));
        if let Some(nrm) = normal {
            let len = (nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]).sqrt();
            if len == 0.0 {
                return Err(format!("line {}: {p} `normal` is zero", g.line));
            }
            let q = crate::math::Quat::from_rotation_arc(crate::math::Vec3::Z, crate::math::Vec3::from_array(nrm) / len);
            b.insert("rotation".into(), toml::Value::Array(vec![q.w.into(), q.x.into(), q.y.into(), q.z.into()]));
        }
        b.insert("velocity".into(), toml::Value::Array(velocity.iter().map(|&x| x.into()).collect()));
        b.insert("angular_velocity".into(), toml::Value::Array(angular.iter().map(|&x| x.into()).collect()));
        b.insert("material".into(), key.clone().into());
        if density == 0.0 {
            b.insert("kind".into(), "static".into());
        }
        out.push(b);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translates_primitives_values_and_replication() {
        let text = "# a stack\nworld { gravity = (0, 0, -9.81) shadows = true drag = 0.1 }\ncamera { lookat = (0,0,0) base = (5, 5, 5) }\n\
box { name = \"ground\" base = (0, 0, -0.5) scale = (10, 10, 1) density = 0 color = 0x808080 }\n\
box { name = \"b\" base = (0, 0, 0.5) scale = 1 density = 500 elasticity = 0.1 friction = 0.7 color = random replication = (0, 0, 1.0, 3) }\n\
sphere { base = (3, 0, 1) scale = 0.5 velocity = (1, 0, 0) normal = (0, 1, 0) } // a ball\n";
        let (t, notes) = to_toml(text, u64::MAX).unwrap();
        let bodies = t["body"].as_array().unwrap();
        assert_eq!(bodies.len(), 5);
        assert_eq!(bodies[3]["name"].as_str(), Some("b_3"));
        assert_eq!(bodies[3]["position"].as_array().unwrap()[2].as_float(), Some(2.5));
        assert_eq!(bodies[0]["kind"].as_str(), Some("static"));
        assert_eq!(bodies[4]["shape"]["radius"].as_float(), Some(0.5));
        assert_eq!(notes, vec!["camera", "color (2×)", "world drag", "world shadows"]);
        // the translation is a valid scene
        let model = crate::scene::load_str(&toml::to_string(&t).unwrap(), "t.scn", "t", std::path::Path::new("."), &[]).unwrap();
        assert_eq!(model.method, "impulse");
        assert!((model.bodies[1].mass - 500.0).abs() < 1e-9);
        let up = model.bodies[4].rotation * crate::math::Vec3::Z;
        assert!((up - crate::math::Vec3::Y).length() < 1e-12);
    }

    #[test]
    fn malformed_files_get_clear_messages() {
        for (text, want) in [
            ("box { base = (0, 0) }", "vector (x, y, z)"),
            ("box { base = (0, 0, 0 }", "expected `,` or `)`"),
            ("box { base = (0, 0, 0) ", "not closed"),
            ("box base = 1 }", "expected `{`"),
            ("cone { }", "unknown primitive `cone`"),
            ("box { colour = 0xff0000 }", "unknown box parameter `colour`"),
            ("box { color = 0xff00 }", "hex colour"),
            ("box { density = abc }", "must be a number"),
            ("box { replication = (1, 0, 0, 0) }", "replication"),
            ("box { density = -1 }", "density"),
            ("ifs { base = (0, 0, 0) }", "needs `filename`"),
            ("sphere { scale = (1, 2, 3) }", "radius"),
            ("box { name = \"a\" }\nbox { name = \"a\" }", "duplicate body name `a`"),
            ("box { name = \"a }", "unterminated string"),
            ("box { base = (1e999, 0, 0) }", "finite"),
        ] {
            let e = to_toml(text, u64::MAX).err().unwrap_or_else(|| panic!("accepted: {text}"));
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn replication_over_the_body_limit_is_refused_before_copying() {
        let e = to_toml("box { }\nbox { replication = (1, 0, 0, 1e9) }", 1_000_000).err().expect("refused");
        assert!(
            e.contains("line 2") && e.contains("1000000001 bodies") && e.contains("limit of 1000000") && e.contains("--limit bodies"),
            "{e}"
        );
        // within the limit (two bodies so far, one more allowed)
        assert!(to_toml("box { }\nbox { replication = (1, 0, 0, 2) }", 3).is_ok());
        assert!(to_toml("box { }\nbox { replication = (1, 0, 0, 3) }", 3).is_err());
    }
}
