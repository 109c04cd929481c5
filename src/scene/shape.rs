//! The `shape` table of a body: parsed by hand so that every message names the key and the keys allowed.

use crate::geometry::{build, mesh, perforated, revolved, threaded, Geometry, ShapeDesc};
use crate::math::Vec3;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

const TYPES: &str = "`sphere`, `box`, `capsule`, `cylinder`, `convex`, `mesh`, `generated`";

/// Geometry built per scene load; identical shape tables share one geometry (and one decomposition).
#[derive(Default)]
pub struct GeometryCache {
    built: BTreeMap<(String, bool), Geometry>,
}

fn num(t: &toml::Table, key: &str) -> Result<f64, String> {
    match t.get(key) {
        None => Err(format!("missing `{key}`")),
        Some(toml::Value::Float(x)) => Ok(*x),
        Some(toml::Value::Integer(i)) => Ok(*i as f64),
        Some(v) => Err(format!("`{key}` must be a number, got {} `{v}`", v.type_str())),
    }
}

fn positive(t: &toml::Table, key: &str) -> Result<f64, String> {
    let x = num(t, key)?;
    if !x.is_finite() {
        return Err(format!("`{key}` must be a finite number, got {x}"));
    }
    if x <= 0.0 {
        return Err(format!("`{key}` must be > 0, got {x}"));
    }
    Ok(x)
}

fn vec3_of(v: &toml::Value, key: &str) -> Result<Vec3, String> {
    let a = v.as_array().ok_or_else(|| format!("`{key}` must be an array of 3 numbers"))?;
    if a.len() != 3 {
        return Err(format!("`{key}` must have 3 entries, got {}", a.len()));
    }
    let mut out = [0.0; 3];
    for (o, x) in out.iter_mut().zip(a) {
        *o = match x {
            toml::Value::Float(f) => *f,
            toml::Value::Integer(i) => *i as f64,
            _ => return Err(format!("`{key}` must contain numbers, got {} `{x}`", x.type_str())),
        };
        if !o.is_finite() {
            return Err(format!("`{key}` must contain finite numbers, got {o}"));
        }
    }
    Ok(Vec3::from_array(out))
}

fn scale_of(t: &toml::Table) -> Result<Vec3, String> {
    let s = match t.get("scale") {
        None => Vec3::ONE,
        Some(toml::Value::Float(x)) => Vec3::splat(*x),
        Some(toml::Value::Integer(i)) => Vec3::splat(*i as f64),
        Some(v @ toml::Value::Array(_)) => vec3_of(v, "scale")?,
        Some(v) => return Err(format!("`scale` must be a number or [sx, sy, sz], got {} `{v}`", v.type_str())),
    };
    if !(s.x.is_finite() && s.y.is_finite() && s.z.is_finite()) || s.x == 0.0 || s.y == 0.0 || s.z == 0.0 {
        return Err(format!("`scale` must be finite and nonzero, got {}", crate::math::show_list(&s.to_array())));
    }
    Ok(s)
}

fn only_keys(t: &toml::Table, ty: &str, allowed: &[&str]) -> Result<(), String> {
    for k in t.keys() {
        if k != "type" && !allowed.contains(&k.as_str()) {
            return Err(format!(
                "unknown key `{k}` for a `{ty}` shape; allowed: {}",
                std::iter::once("type").chain(allowed.iter().copied()).map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    Ok(())
}

fn load_mesh(t: &toml::Table, dir: &Path) -> Result<(mesh::TriMeshData, String), String> {
    let file = match t.get("mesh") {
        Some(toml::Value::String(s)) => s.clone(),
        Some(v) => return Err(format!("`mesh` must be a file name (string), got {} `{v}`", v.type_str())),
        None => return Err("missing `mesh` (an .obj or .stl file, relative to the scene file)".into()),
    };
    let path = dir.join(&file);
    let m = mesh::load(&path).map_err(|e| e.0)?;
    Ok((m.scaled(scale_of(t)?), path.display().to_string()))
}

impl GeometryCache {
    /// Geometry of a shape table; `needs_volume` for dynamic bodies.
    pub fn geometry(&mut self, t: &toml::Table, needs_volume: bool, dir: &Path) -> Result<Geometry, String> {
        let key = (toml::to_string(t).unwrap_or_default(), needs_volume);
        if let Some(g) = self.built.get(&key) {
            return Ok(g.clone());
        }
        let ty = match t.get("type") {
            Some(toml::Value::String(s)) => s.clone(),
            Some(v) => return Err(format!("`type` must be a string, got {} `{v}`; allowed: {TYPES}", v.type_str())),
            None => return Err(format!("missing `type`; allowed: {TYPES}")),
        };
        let desc = match ty.as_str() {
            "sphere" => {
                only_keys(t, &ty, &["radius"])?;
                ShapeDesc::Sphere { radius: positive(t, "radius")? }
            }
            "box" => {
                only_keys(t, &ty, &["size"])?;
                let size = vec3_of(t.get("size").ok_or("missing `size` ([x, y, z] full edge lengths)")?, "size")?;
                if size.min_element() <= 0.0 {
                    return Err(format!("`size` entries must be > 0, got {}", crate::math::show_list(&size.to_array())));
                }
                ShapeDesc::Box { size }
            }
            "capsule" | "cylinder" => {
                only_keys(t, &ty, &["radius", "length"])?;
                let (radius, length) = (positive(t, "radius")?, positive(t, "length")?);
                if ty == "capsule" {
                    ShapeDesc::Capsule { radius, length }
                } else {
                    ShapeDesc::Cylinder { radius, length }
                }
            }
            "convex" => {
                only_keys(t, &ty, &["points", "mesh", "scale"])?;
                let points = match (t.get("points"), t.get("mesh")) {
                    (Some(_), Some(_)) => return Err("give either `points` or `mesh`, not both".into()),
                    (Some(p), None) => {
                        let arr = p.as_array().ok_or("`points` must be an array of [x, y, z]")?;
                        let s = scale_of(t)?;
                        arr.iter()
                            .enumerate()
                            .map(|(i, v)| vec3_of(v, &format!("points[{i}]")).map(|p| p * s))
                            .collect::<Result<Vec<_>, _>>()?
                    }
                    (None, Some(_)) => load_mesh(t, dir)?.0.vertices,
                    (None, None) => return Err("a `convex` shape needs `points` or `mesh`".into()),
                };
                if points.len() < 4 {
                    return Err(format!("a convex hull needs at least 4 points, got {}", points.len()));
                }
                ShapeDesc::Convex { points }
            }
            "mesh" => {
                only_keys(t, &ty, &["mesh", "scale"])?;
                let (m, source) = load_mesh(t, dir)?;
                ShapeDesc::Mesh { mesh: Arc::new(m), source }
            }
            "generated" => generated_shape(t)?,
            other => return Err(format!("unknown shape type `{other}`; allowed: {TYPES}")),
        };
        let g = build(desc, needs_volume)?;
        self.built.insert(key, g.clone());
        Ok(g)
    }
}

fn count(t: &toml::Table, key: &str, default: usize, min: usize) -> Result<usize, String> {
    match t.get(key) {
        None => Ok(default),
        Some(toml::Value::Integer(i)) if *i >= min as i64 && *i <= 4096 => Ok(*i as usize),
        Some(v) => Err(format!("`{key}` must be a whole number from {min} to 4096, got `{v}`")),
    }
}

const GENERATORS: &str = "`torus`, `bowl`, `cup`, `gear`, `bolt`, `nut`, `perforated_box`";

fn positive_or(t: &toml::Table, key: &str, default: f64) -> Result<f64, String> {
    if t.contains_key(key) {
        positive(t, key)
    } else {
        Ok(default)
    }
}

/// A `generated` shape: the generator and its parameters (geometry/revolved.rs).
fn generated_shape(t: &toml::Table) -> Result<ShapeDesc, String> {
    let name = match t.get("generator") {
        Some(toml::Value::String(s)) => s.clone(),
        Some(v) => return Err(format!("`generator` must be a string, got {} `{v}`; allowed: {GENERATORS}", v.type_str())),
        None => return Err(format!("missing `generator`; allowed: {GENERATORS}")),
    };
    let g = match name.as_str() {
        "torus" => {
            only_keys(t, "generated", &["generator", "major_radius", "minor_radius", "segments", "sides"])?;
            let (big, small) = (positive(t, "major_radius")?, positive(t, "minor_radius")?);
            revolved::torus(big, small, count(t, "segments", 24, 3)?, count(t, "sides", 12, 3)?)?
        }
        "bowl" => {
            only_keys(t, "generated", &["generator", "radius", "thickness", "segments", "sides"])?;
            revolved::bowl(positive(t, "radius")?, positive(t, "thickness")?, count(t, "segments", 24, 3)?, count(t, "sides", 12, 1)?)?
        }
        "cup" => {
            only_keys(t, "generated", &["generator", "radius", "height", "thickness", "segments"])?;
            revolved::cup(positive(t, "radius")?, positive(t, "height")?, positive(t, "thickness")?, count(t, "segments", 24, 3)?)?
        }
        "gear" => {
            only_keys(t, "generated", &["generator", "teeth", "radius", "thickness"])?;
            if !t.contains_key("teeth") {
                return Err("missing `teeth` (a whole number, at least 4)".into());
            }
            threaded::gear(count(t, "teeth", 0, 4)?, positive(t, "radius")?, positive(t, "thickness")?)?
        }
        "bolt" => {
            only_keys(t, "generated", &["generator", "radius", "length", "pitch", "depth", "segments", "head"])?;
            let pitch = positive(t, "pitch")?;
            let head = match t.get("head") {
                None => true,
                Some(toml::Value::Boolean(b)) => *b,
                Some(v) => return Err(format!("`head` must be true or false, got `{v}`")),
            };
            let depth = positive_or(t, "depth", 0.5 * pitch)?;
            threaded::bolt(positive(t, "radius")?, positive(t, "length")?, pitch, depth, count(t, "segments", 24, 6)?, head)?
        }
        "nut" => {
            only_keys(t, "generated", &["generator", "radius", "height", "pitch", "depth", "clearance", "outer", "segments"])?;
            let (radius, pitch) = (positive(t, "radius")?, positive(t, "pitch")?);
            let depth = positive_or(t, "depth", 0.5 * pitch)?;
            let clearance = positive_or(t, "clearance", 0.25 * depth)?;
            let outer = positive_or(t, "outer", 1.8 * radius)?;
            threaded::nut(radius, positive(t, "height")?, pitch, depth, clearance, outer, count(t, "segments", 24, 6)?)?
        }
        "perforated_box" => {
            only_keys(t, "generated", &["generator", "size", "wall", "holes"])?;
            let size = vec3_of(t.get("size").ok_or("missing `size` ([x, y, z] full edge lengths)")?, "size")?;
            perforated::perforated_box(size, positive(t, "wall")?, count(t, "holes", 2, 1)?)?
        }
        other => return Err(format!("unknown generator `{other}`; allowed: {GENERATORS}")),
    };
    Ok(ShapeDesc::Generated { generator: name, mesh: Arc::new(g.mesh), pieces: Arc::new(g.pieces), face_tolerance: g.face_tolerance })
}
