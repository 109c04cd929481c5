//! The parameter tables of docs/methods/<key>.md, generated from the source: each row is a field of the
//! method's Params struct, its `///` doc comment and its default (`cairn params <METHOD>` prints a table;
//! tests/docs.rs checks that the docs hold what this writes).

use crate::model::MethodKey;

/// A markdown table `| key | default | meaning |` of the fields of `pub struct <struct_name> {` in `source`
/// (Rust source text): the key `solver.<key>.<field>` (serde's `rename` / `rename_all` honoured), the default
/// from `defaults` (the TOML serialisation of the struct's `Default`; a field missing there, such as an
/// `Option` that is `None`, prints `—`) and the field's doc comment on one line.
pub fn table(source: &str, struct_name: &str, key: &str, defaults: &toml::Table) -> Result<String, String> {
    let head = format!("pub struct {struct_name} {{");
    let lines: Vec<&str> = source.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&head))
        .ok_or_else(|| format!("no `{head}` in the source given for `{key}`"))?;
    // The struct's own attributes: the lines above it up to the first that is neither an attribute nor a doc comment.
    let rename_all = lines[..start]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with("#[") || l.starts_with("///") || l.starts_with("//!"))
        .find_map(|l| serde_arg(l, "rename_all"));
    let mut out = String::from("| key | default | meaning |\n|---|---|---|\n");
    let mut doc: Vec<&str> = Vec::new();
    let mut rename: Option<String> = None;
    let mut skip = false;
    let mut rows = 0;
    for line in &lines[start + 1..] {
        let l = line.trim();
        if l.starts_with('}') {
            if rows == 0 {
                return Err(format!("`{struct_name}` has no fields"));
            }
            return Ok(out);
        }
        if let Some(d) = l.strip_prefix("///") {
            doc.push(d.strip_prefix(' ').unwrap_or(d));
            continue;
        }
        if l.starts_with("#[") {
            if let Some(r) = serde_arg(l, "rename") {
                rename = Some(r);
            }
            if l.starts_with("#[serde(") && (l.contains("skip)") || l.contains("skip,") || l.contains("skip_deserializing")) {
                skip = true;
            }
            continue;
        }
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        let field = l.strip_prefix("pub(crate) ").or_else(|| l.strip_prefix("pub ")).unwrap_or(l);
        let Some((name, _ty)) = field.split_once(':') else {
            return Err(format!("`{struct_name}`: cannot read the field `{l}`"));
        };
        let name = name.trim();
        if !skip {
            let field_key = rename.take().unwrap_or_else(|| renamed(name, rename_all.as_deref()));
            let default = defaults.get(&field_key).map_or_else(|| "—".to_string(), |v| format!("`{}`", value(v)));
            out.push_str(&format!("| `solver.{key}.{field_key}` | {default} | {} |\n", one_line(&doc)));
            rows += 1;
        }
        doc.clear();
        rename = None;
        skip = false;
    }
    Err(format!("`{struct_name}` is not closed"))
}

/// The table of a method's parameters (`cairn params <METHOD>`).
pub fn method_table(key: MethodKey) -> String {
    use super::{abd, implicit, impulse, lcp, volumetric};
    fn defaults<T: serde::Serialize>(p: &T) -> toml::Table {
        toml::Table::try_from(p).expect("a method's default parameters serialise to TOML")
    }
    let k = key.as_str();
    let t = match key {
        MethodKey::Lcp => table(include_str!("lcp/mod.rs"), "LcpParams", k, &defaults(&lcp::LcpParams::default())),
        MethodKey::Impulse => table(include_str!("impulse/mod.rs"), "ImpulseParams", k, &defaults(&impulse::ImpulseParams::default())),
        MethodKey::VolumetricPenalty => {
            table(include_str!("volumetric/params.rs"), "VolumetricParams", k, &defaults(&volumetric::VolumetricParams::default()))
        }
        MethodKey::ImplicitPenalty => {
            table(include_str!("implicit/mod.rs"), "ImplicitParams", k, &defaults(&implicit::ImplicitParams::default()))
        }
        MethodKey::Abd => table(include_str!("abd/mod.rs"), "AbdParams", k, &defaults(&abd::AbdParams::default())),
    };
    t.unwrap_or_else(|e| panic!("the parameter table of `{k}`: {e}"))
}

/// The value of `arg = "..."` in a `#[serde(...)]` attribute line.
fn serde_arg(line: &str, arg: &str) -> Option<String> {
    let inner = line.strip_prefix("#[serde(")?;
    inner.split(',').find_map(|part| {
        let (k, v) = part.split_once('=')?;
        (k.trim() == arg).then(|| v.trim().trim_end_matches(")]").trim_matches('"').to_string())
    })
}

/// A field name under serde's `rename_all`.
fn renamed(name: &str, rule: Option<&str>) -> String {
    match rule {
        Some("kebab-case") => name.replace('_', "-"),
        Some("SCREAMING_SNAKE_CASE") | Some("UPPERCASE") => name.to_uppercase(),
        Some("SCREAMING-KEBAB-CASE") => name.replace('_', "-").to_uppercase(),
        Some("camelCase") | Some("PascalCase") => {
            let mut s = String::new();
            for (i, part) in name.split('_').enumerate() {
                let mut c = part.chars();
                if let Some(f) = c.next() {
                    if i == 0 && rule == Some("camelCase") {
                        s.push(f);
                    } else {
                        s.extend(f.to_uppercase());
                    }
                    s.push_str(c.as_str());
                }
            }
            s
        }
        _ => name.to_string(),
    }
}

/// A default as the scene file writes it.
fn value(v: &toml::Value) -> String {
    match v {
        // 1e-6 and 1e10 as exponents, 0.005 and 30.0 as written; a power of ten below 0.01 as 1e-3
        toml::Value::Float(x) => {
            let (a, e) = (x.abs(), format!("{x:e}"));
            let power_of_ten = e.trim_start_matches('-').starts_with("1e");
            if a != 0.0 && a.is_finite() && (a >= 1e5 || a < 1e-4 || (a < 1e-2 && power_of_ten)) {
                e
            } else {
                format!("{x:?}")
            }
        }
        toml::Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// Doc comment lines on one line: paragraphs joined by spaces, rustdoc links ``[`x`]`` as `` `x` ``, and `|`
/// escaped for the table.
fn one_line(doc: &[&str]) -> String {
    let text = doc.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    let mut s = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("[`") {
        s.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find("`]") {
            Some(j) if !after[1..j].contains('`') => {
                s.push_str(&after[..j + 1]);
                rest = &after[j + 2..];
            }
            _ => {
                s.push('[');
                rest = after;
            }
        }
    }
    s.push_str(rest);
    s.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
/// Not this one.
pub struct Other {
    pub a: f64,
}

/// Parameters.
#[derive(serde::Serialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct Demo {
    /// Sweeps. See [`Other`].
    ///
    /// Second paragraph with a|b.
    pub sweep_count: usize,
    /// Optional.
    pub limit: Option<f64>,
    /// Renamed.
    #[serde(rename = "mode")]
    pub the_mode: String,
}
"#;

    #[test]
    fn a_table_has_one_row_per_field_with_its_default_or_a_dash() {
        let mut d = toml::Table::new();
        d.insert("sweep-count".into(), toml::Value::Integer(4));
        d.insert("mode".into(), toml::Value::String("fast".into()));
        let t = table(SOURCE, "Demo", "demo", &d).unwrap();
        let rows: Vec<&str> = t.lines().collect();
        assert_eq!(rows.len(), 5, "{t}");
        assert_eq!(rows[2], "| `solver.demo.sweep-count` | `4` | Sweeps. See `Other`. Second paragraph with a\\|b. |");
        assert_eq!(rows[3], "| `solver.demo.limit` | — | Optional. |");
        assert_eq!(rows[4], "| `solver.demo.mode` | `\"fast\"` | Renamed. |");
        assert!(table(SOURCE, "Missing", "demo", &d).is_err());
    }

    #[test]
    fn floats_print_as_a_scene_writes_them() {
        assert_eq!(value(&toml::Value::Float(1e-6)), "1e-6");
        assert_eq!(value(&toml::Value::Float(1e10)), "1e10");
        assert_eq!(value(&toml::Value::Float(0.5)), "0.5");
        assert_eq!(value(&toml::Value::Float(1e-3)), "1e-3");
        assert_eq!(value(&toml::Value::Float(0.005)), "0.005");
        assert_eq!(value(&toml::Value::Float(0.1)), "0.1");
        assert_eq!(value(&toml::Value::Float(30.0)), "30.0");
        assert_eq!(value(&toml::Value::Boolean(true)), "true");
    }

    #[test]
    fn every_method_has_a_table() {
        for k in MethodKey::ALL {
            assert!(method_table(k).lines().count() > 3, "{k}");
        }
    }
}
