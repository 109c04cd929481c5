//! The bundled `implicit-penalty` scenes: each loads, its fields fit the memory budget, and no two bodies start
//! interpenetrating (each body's shell points tested against the other's field, both ways).

use super::*;
use crate::scene;
use std::path::Path;

const SCENES: [&str; 5] = ["bowls20", "bowls512", "hexbolt", "articulated_boxes", "excavator"];

/// The scene as `implicit-penalty` gets it (joints, limits and motors included).
fn load(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(format!("{name}.toml"));
    match scene::load(&path, &[]) {
        Ok(m) => {
            assert_eq!(m.method, crate::model::MethodKey::ImplicitPenalty, "{name}");
            m
        }
        Err(e) => panic!("{name}: {e}"),
    }
}

/// The deepest penetration of any shell point of one body into another's field at the initial poses, as
/// (depth, the point's body, the field's body); only pairs whose fields' boxes' spheres overlap are tested.
fn deepest(model: &Model, fields: &Fields) -> (f64, usize, usize) {
    let sphere = |i: usize| {
        let (lo, hi) = fields.per_body[i].sdf.bounds();
        let b = &model.bodies[i];
        (b.position + b.rotation * ((lo + hi) * 0.5), (hi - lo).length() * 0.5)
    };
    let mut worst = (0.0, 0, 0);
    for i in 0..model.bodies.len() {
        for j in 0..model.bodies.len() {
            let (bi, bj) = (&model.bodies[i], &model.bodies[j]);
            if i == j || (bi.kind != BodyKind::Dynamic && bj.kind != BodyKind::Dynamic) {
                continue;
            }
            let ((ci, ri), (cj, rj)) = (sphere(i), sphere(j));
            if (ci - cj).length() > ri + rj {
                continue;
            }
            let inv = bj.rotation.inverse();
            for p in &fields.per_body[i].shell.points {
                let q = inv * (bi.position + bi.rotation * *p - bj.position);
                if let Some((phi, _)) = fields.per_body[j].sdf.eval(&q) {
                    if phi < worst.0 {
                        worst = (phi, i, j);
                    }
                }
            }
        }
    }
    worst
}

#[test]
fn bundled_scenes_load_fit_in_memory_and_start_apart() {
    for name in SCENES {
        let model = load(name);
        let start = std::time::Instant::now();
        let fields = Fields::build(&model, |_, b| FieldSettings::default_for(b)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let built = start.elapsed().as_secs_f64();
        let m = fields.memory();
        eprintln!("{name}: {} bodies, fields built in {built:.2} s, {m:?}", model.bodies.len());
        assert!(m.total_bytes < 256 << 20, "{name}: fields take {} MB", m.total_bytes >> 20);
        let (depth, i, j) = deepest(&model, &fields);
        // a grid field is exact at its nodes and within √3/2 of a cell between them
        let tol = fields.per_body[j].sdf.cell_size().map_or(1e-9, |h| 0.87 * h);
        assert!(
            depth > -tol,
            "{name}: a point of `{}` starts {:.4} m deep in `{}` (tolerance {tol:.4})",
            model.bodies[i].name,
            -depth,
            model.bodies[j].name
        );
    }
}

#[test]
fn bowls_share_one_field() {
    let model = load("bowls20");
    let fields = Fields::build(&model, |_, b| FieldSettings::default_for(b)).unwrap();
    assert_eq!(fields.distinct.len(), 2, "the ground and one bowl");
    assert_eq!(fields.per_body.len(), 21);
    let m = fields.memory();
    assert_eq!(m.analytic, 1);
    assert_eq!(m.body_points, fields.per_body[0].shell.len() + 20 * fields.per_body[1].shell.len());
}
