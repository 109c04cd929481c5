//! What a front end sets on a scene besides its file: the typed [`LoadOptions`] and the `--set` overrides of
//! dotted paths, applied to the parsed TOML before it is deserialized.

use super::Limits;
use crate::model::MethodKey;

/// What a front end sets on a scene besides its file: typed values that replace the file's `[world]` ones
/// (checked as the file's are), and `--set` overrides of arbitrary paths (`solver.lcp.iterations=50`), applied
/// to the text first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadOptions {
    /// Replaces `world.method`.
    pub method: Option<MethodKey>,
    /// Replaces `world.dt`, s.
    pub dt: Option<f64>,
    /// Replaces `world.duration`, s.
    pub duration: Option<f64>,
    /// Replaces `world.check_intersections`.
    pub check_intersections: Option<bool>,
    /// `key=value` overrides of scene paths.
    pub sets: Vec<(String, String)>,
    /// `--limit KEY=VALUE`: limits set by the front end, over the scene's `[limits]` table.
    pub limits: Limits,
}

impl LoadOptions {
    /// Options that only run `method`.
    pub fn method(method: MethodKey) -> Self {
        LoadOptions { method: Some(method), ..Default::default() }
    }
}

pub(super) fn apply_set_list(t: &mut toml::Table, sets: &[(String, String)]) -> Result<(), String> {
    let mut value = toml::Value::Table(std::mem::take(t));
    let r = set_in_value(&mut value, sets);
    if let toml::Value::Table(back) = value {
        *t = back;
    }
    r
}

/// Applies `key=value` overrides to a scene. Keys are dotted paths (`solver.lcp.iterations`, `world.dt`,
/// `body.0.mass`); values are TOML values (a bare word that is not TOML is taken as a string).
fn set_in_value(root: &mut toml::Value, sets: &[(String, String)]) -> Result<(), String> {
    for (key, raw) in sets {
        let value: toml::Value = match format!("v = {raw}").parse::<toml::Table>() {
            Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(raw.clone())),
            Err(_) => toml::Value::String(raw.clone()),
        };
        let parts: Vec<&str> = key.split('.').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(format!("--set {key}: empty path segment"));
        }
        let mut cur = &mut *root;
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            cur = match cur {
                toml::Value::Table(t) => {
                    if last {
                        t.insert(part.to_string(), value);
                        break;
                    }
                    t.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()))
                }
                toml::Value::Array(a) => {
                    let len = a.len();
                    let idx: usize =
                        part.parse().map_err(|_| format!("--set {key}: `{part}` must be an index into an array of {len} entries"))?;
                    let slot =
                        a.get_mut(idx).ok_or_else(|| format!("--set {key}: index {idx} out of range (the array has {len} entries)"))?;
                    if last {
                        *slot = value;
                        break;
                    }
                    slot
                }
                _ => return Err(format!("--set {key}: `{}` is not a table or an array", parts[..i].join("."))),
            };
        }
    }
    Ok(())
}
