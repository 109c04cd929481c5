//! `cairn export RUN_DIR --gltf out.glb`: the run as one binary glTF 2.0 file. Each shape's mesh is stored once
//! (positions and indices; viewers compute flat normals, as the glTF specification asks when none are given),
//! each body is a node named after it, and the trajectory is an animation with a translation and a rotation
//! sampler per moving body over the shared frame times. Z is up in cairn, Y in glTF: the root node turns the
//! world by −90° about x, so the bodies' own nodes carry cairn's poses unchanged.

use crate::runfiles::{pose_quaternion, read_run, Run};
use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::path::Path;

const FLOAT: u32 = 5126;
const UINT: u32 = 5125;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// The binary chunk being built and the JSON lists that point into it.
#[derive(Default)]
struct Builder {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Builder {
    /// Appends a buffer view (4-byte aligned) of `bytes`; returns its index.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let mut v = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }
    /// An accessor of `count` elements of `kind` into view `view` at `offset`; returns its index.
    fn accessor(
        &mut self,
        view: usize,
        offset: usize,
        component: u32,
        count: usize,
        kind: &str,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> usize {
        let mut a = json!({"bufferView": view, "byteOffset": offset, "componentType": component, "count": count, "type": kind});
        if let Some((min, max)) = bounds {
            a["min"] = json!(min);
            a["max"] = json!(max);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }
}

fn f32_bytes(values: impl IntoIterator<Item = f64>) -> Vec<u8> {
    values.into_iter().flat_map(|v| (v as f32).to_le_bytes()).collect()
}

fn bounds(values: &[f32], width: usize) -> (Vec<f32>, Vec<f32>) {
    let mut min = vec![f32::INFINITY; width];
    let mut max = vec![f32::NEG_INFINITY; width];
    for c in values.chunks_exact(width) {
        for k in 0..width {
            min[k] = min[k].min(c[k]);
            max[k] = max[k].max(c[k]);
        }
    }
    (min, max)
}

/// The rotation quaternions [x, y, z, w] of body `b` over the frames, with signs kept continuous (so that
/// interpolation takes the short way).
fn rotations(run: &Run, b: usize) -> Vec<[f64; 4]> {
    let mut out: Vec<[f64; 4]> = Vec::with_capacity(run.times.len());
    for f in 0..run.times.len() {
        let mut q = pose_quaternion(run.pose(f, b));
        if let Some(p) = out.last() {
            if p.iter().zip(&q).map(|(a, b)| a * b).sum::<f64>() < 0.0 {
                q = q.map(|x| -x);
            }
        }
        out.push(q);
    }
    out
}

/// The glTF document (JSON) and binary chunk of a run.
pub fn gltf_of_run(run: &Run) -> Result<(Value, Vec<u8>)> {
    let mut g = Builder::default();
    let colour = crate::view::method_colour(&run.method).unwrap_or("#e07b20");
    let rgb: Vec<f64> = (0..3).map(|k| u8::from_str_radix(&colour[1 + 2 * k..3 + 2 * k], 16).map_or(0.5, |x| x as f64 / 255.0)).collect();
    let linear = |c: f64| if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
    let materials = json!([
        {"name": format!("{} dynamic", run.method), "pbrMetallicRoughness": {"baseColorFactor": [linear(rgb[0]), linear(rgb[1]), linear(rgb[2]), 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.75}},
        {"name": "static", "pbrMetallicRoughness": {"baseColorFactor": [0.33, 0.35, 0.38, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.9}},
    ]);
    // each shape's vertices and triangles once; a mesh per shape and material, sharing the accessors
    let mut shape_accessors = Vec::new();
    for s in &run.shapes {
        let pos: Vec<f32> = s.vertices.iter().map(|&v| v as f32).collect();
        let pv = g.view(&pos.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(), Some(ARRAY_BUFFER));
        let pa = g.accessor(pv, 0, FLOAT, pos.len() / 3, "VEC3", Some(bounds(&pos, 3)));
        let iv = g.view(&s.triangles.iter().flat_map(|i| i.to_le_bytes()).collect::<Vec<u8>>(), Some(ELEMENT_ARRAY_BUFFER));
        let ia = g.accessor(iv, 0, UINT, s.triangles.len(), "SCALAR", None);
        shape_accessors.push((pa, ia));
    }
    let mut meshes: Vec<Value> = Vec::new();
    let mut mesh_of = std::collections::BTreeMap::new();
    let mut nodes = vec![
        json!({"name": run.scene, "rotation": [-std::f64::consts::FRAC_1_SQRT_2, 0.0, 0.0, std::f64::consts::FRAC_1_SQRT_2], "children": (1..=run.bodies.len()).collect::<Vec<_>>()}),
    ];
    for (b, body) in run.bodies.iter().enumerate() {
        let material = usize::from(body.kind == "static");
        let mesh = *mesh_of.entry((body.shape, material)).or_insert_with(|| {
            let (pa, ia) = shape_accessors[body.shape];
            meshes.push(json!({"name": format!("shape{}", body.shape), "primitives": [{"attributes": {"POSITION": pa}, "indices": ia, "material": material}]}));
            meshes.len() - 1
        });
        let m = run.pose(0, b);
        nodes.push(json!({"name": body.name, "mesh": mesh, "translation": [m[3], m[7], m[11]], "rotation": pose_quaternion(m)}));
    }
    // the animation: shared times; per moving body one translation and one rotation sampler
    let nf = run.times.len();
    let t0 = run.times[0];
    let times: Vec<f32> = run.times.iter().map(|t| (t - t0) as f32).collect();
    let tv = g.view(&times.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(), None);
    let ta = g.accessor(tv, 0, FLOAT, nf, "SCALAR", Some(bounds(&times, 1)));
    let moving: Vec<usize> = (0..run.bodies.len()).filter(|&b| run.bodies[b].kind != "static").collect();
    let translations = f32_bytes(moving.iter().flat_map(|&b| (0..nf).flat_map(move |f| [3, 7, 11].map(|k| run.pose(f, b)[k]))));
    let rotations_bytes = f32_bytes(moving.iter().flat_map(|&b| rotations(run, b).into_iter().flatten()));
    let trv = g.view(&translations, None);
    let rov = g.view(&rotations_bytes, None);
    let (mut samplers, mut channels) = (Vec::new(), Vec::new());
    for (k, &b) in moving.iter().enumerate() {
        let tr = g.accessor(trv, k * nf * 12, FLOAT, nf, "VEC3", None);
        let ro = g.accessor(rov, k * nf * 16, FLOAT, nf, "VEC4", None);
        for (path, output) in [("translation", tr), ("rotation", ro)] {
            samplers.push(json!({"input": ta, "output": output, "interpolation": "LINEAR"}));
            channels.push(json!({"sampler": samplers.len() - 1, "target": {"node": b + 1, "path": path}}));
        }
    }
    let mut doc = json!({
        "asset": {"version": "2.0", "generator": format!("cairn {} (cairn export)", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
        "scenes": [{"name": run.scene, "nodes": [0]}],
        "nodes": nodes,
        "meshes": meshes,
        "materials": materials,
        "buffers": [{"byteLength": 0}],
    });
    if !channels.is_empty() && nf > 1 {
        doc["animations"] = json!([{"name": format!("{} ({})", run.scene, run.method), "samplers": samplers, "channels": channels}]);
    }
    while g.bin.len() % 4 != 0 {
        g.bin.push(0);
    }
    doc["buffers"][0]["byteLength"] = json!(g.bin.len());
    doc["bufferViews"] = json!(g.views);
    doc["accessors"] = json!(g.accessors);
    Ok((doc, g.bin))
}

/// Writes the run in `dir` as a binary glTF file `out`.
pub fn write_glb(dir: &Path, out: &Path) -> Result<()> {
    let run = read_run(dir)?;
    let (doc, bin) = gltf_of_run(&run)?;
    let mut text = serde_json::to_vec(&doc)?;
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let total =
        u32::try_from(total).with_context(|| format!("{}: the glTF would be {total} bytes, over the format's 4 GiB", out.display()))?;
    let mut glb = Vec::with_capacity(total as usize);
    glb.extend(b"glTF");
    glb.extend(2u32.to_le_bytes());
    glb.extend(total.to_le_bytes());
    glb.extend((text.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(&text);
    glb.extend((bin.len() as u32).to_le_bytes());
    glb.extend(b"BIN\0");
    glb.extend(&bin);
    std::fs::write(out, glb).with_context(|| format!("cannot write {}", out.display()))
}
