//! The per-scene cache of distance fields and point shells for `implicit-penalty`: one [`Sdf`] and one
//! [`PointShell`] per distinct shape, shared (`Arc`) by every body of that shape, built once when the method
//! starts.
//!
//! Bodies share a field when their shapes are the same (keyed by mesh address or exact parameters; built in
//! order of first use, so nothing depends on addresses' order). Dynamic bodies get grid fields, static and
//! kinematic primitives the exact analytic field. See docs/methods/implicit-penalty.md, "Distance fields".

use super::point_shell::{default_spacing, PointShell};
use super::sdf::{Sdf, SdfParams};
use super::ShapeDesc;
use crate::model::{Body, BodyKind, Model};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How one body's field and shell are built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldSettings {
    /// Grid parameters (for the analytic kind only `band` is used: the field's box is the shape's grown by it).
    pub sdf: SdfParams,
    /// Point-shell spacing, m.
    pub spacing: f64,
    /// Use the exact analytic field (spheres, boxes, capsules, cylinders only; ignored for other shapes).
    pub analytic: bool,
}

impl FieldSettings {
    /// The defaults described in the module documentation.
    pub fn default_for(body: &Body) -> FieldSettings {
        let desc = &body.geometry.desc;
        let primitive =
            matches!(desc, ShapeDesc::Sphere { .. } | ShapeDesc::Box { .. } | ShapeDesc::Capsule { .. } | ShapeDesc::Cylinder { .. });
        FieldSettings {
            sdf: SdfParams::for_shape(desc),
            spacing: default_spacing(desc),
            analytic: primitive && body.kind != BodyKind::Dynamic,
        }
    }
}

/// One distinct shape's field and shell.
#[derive(Debug, Clone)]
pub struct Field {
    pub sdf: Arc<Sdf>,
    pub shell: Arc<PointShell>,
}

/// Every body's field and shell; bodies with the same shape and settings share one.
#[derive(Debug, Clone, Default)]
pub struct Fields {
    /// Per body (model order).
    pub per_body: Vec<Field>,
    /// Per body: the index of its distinct field in `distinct`.
    pub shape_of: Vec<usize>,
    /// The distinct fields, in order of first use.
    pub distinct: Vec<Field>,
}

/// What the fields hold, for `summary.json` and `bench`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FieldMemory {
    /// Distinct shapes (fields built).
    pub shapes: usize,
    /// Of those, analytic fields (no grid).
    pub analytic: usize,
    /// Grid nodes over all distinct grid fields.
    pub grid_nodes: usize,
    /// Bytes of the distance fields.
    pub sdf_bytes: usize,
    /// Shell points over all distinct shells, and over all bodies.
    pub shell_points: usize,
    pub body_points: usize,
    /// Bytes of the point shells.
    pub shell_bytes: usize,
    /// `sdf_bytes + shell_bytes`.
    pub total_bytes: usize,
}

/// A body's key: what makes two fields identical.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Mesh(usize, Vec<u64>),
    Params(&'static str, Vec<u64>),
}

fn key(desc: &ShapeDesc, s: &FieldSettings) -> Key {
    let mut settings = vec![s.sdf.resolution as u64, s.sdf.band.to_bits(), s.spacing.to_bits(), s.analytic as u64];
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    let params = match desc {
        ShapeDesc::Sphere { radius } => bits(&[*radius]),
        ShapeDesc::Box { size } => bits(&size.to_array()),
        ShapeDesc::Capsule { radius, length } | ShapeDesc::Cylinder { radius, length } => bits(&[*radius, *length]),
        ShapeDesc::Convex { points } => bits(&points.iter().flat_map(|p| p.to_array()).collect::<Vec<_>>()),
        ShapeDesc::Mesh { mesh, .. } | ShapeDesc::Generated { mesh, .. } => {
            return Key::Mesh(Arc::as_ptr(mesh) as usize, settings);
        }
        ShapeDesc::Compound { parts } => return Key::Mesh(Arc::as_ptr(parts) as usize, settings),
    };
    settings.extend(params);
    Key::Params(desc.type_name(), settings)
}

impl Fields {
    /// Builds the fields of every body of `model`; `settings(index, body)` says how (use
    /// [`FieldSettings::default_for`] for the defaults). Errors name the body.
    pub fn build(model: &Model, settings: impl Fn(usize, &Body) -> FieldSettings) -> Result<Fields, String> {
        let mut index: BTreeMap<Key, usize> = BTreeMap::new();
        let mut fields = Fields::default();
        for (i, body) in model.bodies.iter().enumerate() {
            let s = settings(i, body);
            let desc = &body.geometry.desc;
            let k = key(desc, &s);
            let id = match index.get(&k) {
                Some(&id) => id,
                None => {
                    let what = |e: String| format!("body `{}`: {} field: {e}", body.name, desc.type_name());
                    let sdf = match s.analytic.then(|| Sdf::analytic(desc, s.sdf.band)).flatten() {
                        Some(a) => a,
                        None => Sdf::build(desc, &s.sdf).map_err(what)?,
                    };
                    let shell = PointShell::build(desc, s.spacing).map_err(what)?;
                    fields.distinct.push(Field { sdf: Arc::new(sdf), shell: Arc::new(shell) });
                    index.insert(k, fields.distinct.len() - 1);
                    fields.distinct.len() - 1
                }
            };
            fields.shape_of.push(id);
            fields.per_body.push(fields.distinct[id].clone());
        }
        Ok(fields)
    }

    /// Total bytes of the distinct fields and shells (what the scene holds once).
    pub fn memory_bytes(&self) -> usize {
        self.memory().total_bytes
    }

    /// The memory report the method puts into `summary.json` and `bench`.
    pub fn memory(&self) -> FieldMemory {
        let sdf_bytes = self.distinct.iter().map(|f| f.sdf.memory_bytes()).sum::<usize>();
        let shell_bytes = self.distinct.iter().map(|f| f.shell.memory_bytes()).sum::<usize>();
        FieldMemory {
            shapes: self.distinct.len(),
            analytic: self.distinct.iter().filter(|f| f.sdf.is_analytic()).count(),
            grid_nodes: self.distinct.iter().map(|f| f.sdf.nodes().iter().product::<usize>()).sum(),
            sdf_bytes,
            shell_points: self.distinct.iter().map(|f| f.shell.len()).sum(),
            body_points: self.per_body.iter().map(|f| f.shell.len()).sum(),
            shell_bytes,
            total_bytes: sdf_bytes + shell_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene;

    const SCENE: &str = r#"
format = 1
[world]
method = "implicit-penalty"
[[body]]
name = "ground"
kind = "static"
shape = { type = "box", size = [100.0, 100.0, 1.0] }
position = [0.0, 0.0, -0.5]
[[body]]
name = "bowl"
shape = { type = "generated", generator = "bowl", radius = 0.1, thickness = 0.02 }
position = [0.0, 0.0, 0.1]
repeat = { count = [1, 1, 3], step = [0.0, 0.0, 0.05] }
[[body]]
name = "other_bowl"
shape = { type = "generated", generator = "bowl", radius = 0.1, thickness = 0.02 }
position = [0.5, 0.0, 0.1]
[[body]]
name = "box_a"
shape = { type = "box", size = [0.1, 0.1, 0.1] }
position = [1.0, 0.0, 0.1]
[[body]]
name = "box_b"
shape = { type = "box", size = [0.1, 0.1, 0.1] }
position = [1.5, 0.0, 0.1]
"#;

    /// Loads a scene for `implicit-penalty`; while that method is not in the build, through another method
    /// (only the method's own check differs).
    fn load(text: &str) -> Model {
        let dir = std::path::Path::new(".");
        match scene::load_str(text, "fields.toml", "fields", dir, &[]) {
            Ok(m) => m,
            Err(e) if e.to_string().contains("not implemented yet") => {
                let sets = [("world.method".to_string(), "abd".to_string())];
                scene::load_str(text, "fields.toml", "fields", dir, &sets).unwrap()
            }
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn bodies_of_one_shape_share_one_field_and_the_ground_is_analytic() {
        let model = load(SCENE);
        let fields = Fields::build(&model, |_, b| FieldSettings::default_for(b)).unwrap();
        assert_eq!(fields.per_body.len(), 7);
        // ground, the bowls (repeated and identical tables), the boxes
        assert_eq!(fields.shape_of, vec![0, 1, 1, 1, 1, 2, 2]);
        assert!(fields.distinct[0].sdf.is_analytic() && !fields.distinct[1].sdf.is_analytic());
        assert!(Arc::ptr_eq(&fields.per_body[1].sdf, &fields.per_body[4].sdf));
        let m = fields.memory();
        assert_eq!((m.shapes, m.analytic), (3, 1));
        let grids: usize = fields.distinct.iter().map(|f| f.sdf.memory_bytes()).sum();
        assert_eq!(m.sdf_bytes, grids);
        assert!(m.grid_nodes * 8 <= m.sdf_bytes && m.sdf_bytes < 64 << 20, "{m:?}");
        assert_eq!(m.body_points, fields.per_body.iter().map(|f| f.shell.len()).sum::<usize>());
        assert_eq!(fields.memory_bytes(), m.sdf_bytes + m.shell_bytes);
        // other settings for one body give it its own field; a settings error names the body
        let fine = Fields::build(&model, |i, b| {
            let mut s = FieldSettings::default_for(b);
            if i == 4 {
                s.spacing /= 2.0;
            }
            s
        })
        .unwrap();
        assert_eq!(fine.shape_of, vec![0, 1, 1, 1, 2, 3, 3]);
        let err = Fields::build(&model, |_, b| FieldSettings { spacing: -1.0, ..FieldSettings::default_for(b) }).unwrap_err();
        assert!(err.contains("body `ground`") && err.contains("spacing"), "{err}");
    }
}

#[cfg(test)]
#[path = "fields_scenes_tests.rs"]
mod scenes_tests;
