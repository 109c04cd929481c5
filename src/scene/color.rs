//! Body colours for the viewer (no physics reads them): a scene body's `color` ([r, g, b] or [r, g, b, a] in
//! 0…1, or "#rrggbb"), an MJCF link's first geom `rgba`, a URDF link's first visual material `<color rgba>`
//! (its own or the robot's material of that name).

use roxmltree::Node;
use serde::Deserialize;
use std::collections::BTreeMap;

/// A scene body's `color` as written.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum ColorT {
    Numbers(Vec<f64>),
    Hex(String),
}

/// RGBA in 0…1 from three or four numbers in 0…1 (alpha 1 when three).
pub fn rgba(v: &[f64]) -> Result<[f64; 4], String> {
    match v {
        [r, g, b] => rgba(&[*r, *g, *b, 1.0]),
        [r, g, b, a] if [r, g, b, a].iter().all(|x| (0.0..=1.0).contains(*x)) => Ok([*r, *g, *b, *a]),
        [_, _, _, _] => Err(format!("a colour's numbers must lie in 0…1, got {}", crate::math::show_list(v))),
        _ => Err(format!("a colour needs 3 or 4 numbers (r, g, b[, a] in 0…1), got {}", v.len())),
    }
}

/// A scene body's colour.
pub(super) fn parse(c: &ColorT) -> Result<[f64; 4], String> {
    match c {
        ColorT::Numbers(v) => rgba(v),
        ColorT::Hex(s) => {
            let hex = s.strip_prefix('#').filter(|h| h.len() == 6 && h.chars().all(|c| c.is_ascii_hexdigit()));
            let v = hex.and_then(|h| u32::from_str_radix(h, 16).ok()).ok_or_else(|| format!("`{s}` is not a colour (\"#rrggbb\")"))?;
            Ok([(v >> 16 & 255) as f64 / 255.0, (v >> 8 & 255) as f64 / 255.0, (v & 255) as f64 / 255.0, 1.0])
        }
    }
}

/// A URDF `<color rgba>` under `material`, if any and valid.
fn urdf_material_rgba(material: Node) -> Option<[f64; 4]> {
    let c = material.children().find(|c| c.has_tag_name("color"))?;
    let v: Vec<f64> = c.attribute("rgba")?.split_whitespace().map(str::parse).collect::<Result<_, _>>().ok()?;
    rgba(&v).ok()
}

/// The robot's named materials' colours (`<robot><material name><color rgba>`).
pub fn urdf_materials(robot: Node) -> BTreeMap<String, [f64; 4]> {
    robot
        .children()
        .filter(|c| c.has_tag_name("material"))
        .filter_map(|m| Some((m.attribute("name")?.to_string(), urdf_material_rgba(m)?)))
        .collect()
}

/// A URDF link's colour: its first visual's material, given there or by name.
pub fn urdf_link(link: Node, named: &BTreeMap<String, [f64; 4]>) -> Option<[f64; 4]> {
    link.children().filter(|c| c.has_tag_name("visual")).find_map(|v| {
        let m = v.children().find(|c| c.has_tag_name("material"))?;
        urdf_material_rgba(m).or_else(|| named.get(m.attribute("name")?).copied())
    })
}
