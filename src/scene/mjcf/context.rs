//! What reading one MJCF file shares: the context (`Ctx`: compiler settings, default classes, assets, materials,
//! exclusions), elements with their default class applied (`El`), and the `<default>` classes themselves.

use crate::model::Material;
use crate::scene::xml::{list, Notes, Src};
use roxmltree::Node;
use std::collections::BTreeMap;

/// Attributes of each element kind in one default class, inherited already.
pub(super) type Class = BTreeMap<String, BTreeMap<String, String>>;

/// What the whole file shares while reading the tree.
pub(super) struct Ctx<'a> {
    pub src: Src<'a>,
    pub notes: Notes,
    /// `compiler angle`: degrees (MJCF's default) or radians.
    pub degree: bool,
    /// `compiler eulerseq`: axis of each rotation, and whether it is about the moving (intrinsic) axes.
    pub eulerseq: [(usize, bool); 3],
    pub autolimits: bool,
    /// `compiler inertiafromgeom`: "auto" (geoms unless `<inertial>`), "true" (always geoms), "false".
    pub inertia_from_geom: String,
    pub classes: BTreeMap<String, Class>,
    /// `compiler fitaabb`: a primitive geom fitted to a mesh takes the mesh's bounding box, not its equivalent
    /// inertia box.
    pub fit_aabb: bool,
    /// Mesh assets by name.
    pub meshes: BTreeMap<String, super::fit::MeshAsset>,
    /// Height field assets without elevation data (flat): name → MuJoCo's size (x and y half-extents, the
    /// elevation's scale, the base's depth).
    pub hfields: BTreeMap<String, [f64; 4]>,
    pub materials: Vec<Material>,
    /// Link pairs that never collide (`<contact><exclude>`, and a multi-joint body with its MJCF parent).
    pub exclusions: Vec<(usize, usize)>,
    /// Each collision geom's link and its contype and conaffinity bitmasks.
    pub masks: Vec<(usize, u32, u32)>,
    /// The geoms named by a `<contact><pair>`: collision geometry even with contype = conaffinity = 0.
    pub pair_geoms: std::collections::BTreeSet<String>,
    /// Link pairs that collide whatever bitmasks, exclusions and the parent filter say (`<contact><pair>`).
    pub pairs: Vec<(usize, usize)>,
    /// The bodies' `<site>`s, in file order.
    pub sites: Vec<crate::scene::robot::RobotSite>,
    /// Each named geom's link and pose in the link's frame (a frame sensor's `objtype="geom"`).
    pub geom_frames: BTreeMap<String, (usize, crate::math::Pose)>,
}

/// An element with its default class applied: the node (for messages) and the merged attributes.
pub(super) struct El<'a, 'i> {
    pub node: Node<'a, 'i>,
    pub attrs: BTreeMap<String, String>,
}

impl<'a, 'i> El<'a, 'i> {
    pub fn get(&self, k: &str) -> Option<&str> {
        self.attrs.get(k).map(String::as_str)
    }
    pub fn nums(&self, cx: &Ctx, k: &str) -> Result<Option<Vec<f64>>, String> {
        self.get(k).map(|raw| cx.src.parse_nums(self.node, k, raw)).transpose()
    }
    pub fn fixed<const N: usize>(&self, cx: &Ctx, k: &str) -> Result<Option<[f64; N]>, String> {
        match self.nums(cx, k)? {
            None => Ok(None),
            Some(v) => v
                .as_slice()
                .try_into()
                .map(Some)
                .map_err(|_| cx.src.at(self.node, format!("attribute `{k}` needs {N} number(s), got {}", v.len()))),
        }
    }
    pub fn num(&self, cx: &Ctx, k: &str) -> Result<Option<f64>, String> {
        Ok(self.fixed::<1>(cx, k)?.map(|[x]| x))
    }
    /// Checks the merged attributes like [`Src::attrs`]: used, noted (ignored with a note), or an error.
    pub fn check(&self, cx: &mut Ctx, used: &[&str], noted: &[&str]) -> Result<(), String> {
        let tag = self.node.tag_name().name();
        for k in self.attrs.keys() {
            if k == "class" || used.contains(&k.as_str()) {
                continue;
            }
            if noted.contains(&k.as_str()) {
                cx.notes.add(format!("ignored (cairn cannot use it): <{tag}> attribute `{k}`"));
                continue;
            }
            let all = list(used.iter().chain(noted));
            return Err(cx
                .src
                .at(self.node, format!("attribute `{k}` is not supported (set here or by its default class); supported: {all}")));
        }
        Ok(())
    }
}

impl Ctx<'_> {
    /// `node` with the default class `class` (its own `class` attribute wins) applied.
    pub fn el<'a, 'i>(&self, node: Node<'a, 'i>, class: &str) -> Result<El<'a, 'i>, String> {
        let cls = node.attribute("class").unwrap_or(class);
        let c = self.classes.get(cls).ok_or_else(|| self.src.at(node, format!("unknown default class `{cls}`")))?;
        let mut attrs = c.get(node.tag_name().name()).cloned().unwrap_or_default();
        // an empty attribute counts as absent, as MuJoCo reads it
        for a in node.attributes().filter(|a| !a.value().trim().is_empty()) {
            attrs.insert(a.name().to_string(), a.value().to_string());
        }
        Ok(El { node, attrs })
    }

    /// An angle in the file's unit, in radians.
    pub fn angle(&self, x: f64) -> f64 {
        if self.degree {
            x.to_radians()
        } else {
            x
        }
    }
}

/// A `<default>` element and its nested classes; `parent` is the enclosing class.
pub(super) fn defaults(cx: &mut Ctx, n: Node, parent: Option<&str>) -> Result<(), String> {
    cx.src.attrs(n, &["class"], &[], &mut cx.notes)?;
    let name = match (n.attribute("class"), parent) {
        (Some(c), _) => c.to_string(),
        (None, None) => "main".to_string(),
        (None, Some(_)) => return Err(cx.src.at(n, "a nested <default> needs `class`")),
    };
    if parent.is_some() && cx.classes.contains_key(&name) {
        return Err(cx.src.at(n, format!("duplicate default class `{name}`")));
    }
    let mut class = parent.and_then(|p| cx.classes.get(p)).cloned().unwrap_or_default();
    for c in n.children().filter(|c| c.is_element() && !c.has_tag_name("default")) {
        let slot = class.entry(c.tag_name().name().to_string()).or_default();
        for a in c.attributes().filter(|a| !a.value().trim().is_empty()) {
            slot.insert(a.name().to_string(), a.value().to_string());
        }
    }
    cx.classes.insert(name.clone(), class);
    for c in n.children().filter(|c| c.has_tag_name("default")) {
        defaults(cx, c, Some(&name))?;
    }
    Ok(())
}
