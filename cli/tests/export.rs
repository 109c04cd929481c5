//! `cairn export --gltf`, read back with the `gltf` crate: each shape's mesh once, a node per body, and an
//! animation whose samples equal `trajectory.npy`'s poses at three frames. Also `plots.html` and
//! `--metrics-every`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn cairn(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cairn")).current_dir(root()).args(args).output().unwrap();
    assert!(out.status.success(), "cairn {args:?}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// (rows, cols, data) of a float64 `.npy` file as cairn writes it (version 1 header).
fn npy(path: &Path) -> (usize, usize, Vec<f64>) {
    let b = std::fs::read(path).unwrap();
    let hlen = u16::from_le_bytes([b[8], b[9]]) as usize;
    let header = std::str::from_utf8(&b[10..10 + hlen]).unwrap();
    let shape = header.split("'shape': (").nth(1).unwrap().split(')').next().unwrap();
    let dims: Vec<usize> = shape.split(',').map(|s| s.trim().parse().unwrap()).collect();
    let data = b[10 + hlen..].chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    (dims[0], dims[1], data)
}

/// The rotation matrix (row-major) of a unit quaternion [x, y, z, w].
fn matrix(q: [f32; 4]) -> [f64; 9] {
    let [x, y, z, w] = q.map(f64::from);
    [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y - z * w),
        2.0 * (x * z + y * w),
        2.0 * (x * y + z * w),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z - x * w),
        2.0 * (x * z - y * w),
        2.0 * (y * z + x * w),
        1.0 - 2.0 * (x * x + y * y),
    ]
}

#[test]
fn gltf_export_holds_each_shape_once_and_the_trajectory_as_animation() {
    let dir = std::env::temp_dir().join(format!("cairn-export-{}", std::process::id()));
    let run = dir.join("run");
    // pyramid20, pushed sideways so that bodies translate and the end blocks tumble
    cairn(&["run", "pyramid20", "--duration", "1.0", "--set", "world.gravity=[15.0, 0.0, -9.81]", "--out", run.to_str().unwrap()]);
    let glb = dir.join("out.glb");
    let said = cairn(&["export", run.to_str().unwrap(), "--gltf", glb.to_str().unwrap()]);
    assert!(said.contains("out.glb"), "{said}");

    let bytes = std::fs::read(&glb).unwrap();
    let g = gltf::Gltf::from_slice(&bytes).unwrap();
    let blob = g.blob.clone().expect("a binary chunk");
    let (rows, cols, traj) = npy(&run.join("trajectory.npy"));
    let bodies = (cols - 1) / 12;
    assert_eq!(bodies, 211);

    // each shape once: the ground's box and the cubes' box, so two distinct POSITION accessors
    let mut positions: Vec<usize> =
        g.meshes().flat_map(|m| m.primitives().map(|p| p.get(&gltf::Semantic::Positions).unwrap().index()).collect::<Vec<_>>()).collect();
    positions.sort();
    positions.dedup();
    assert_eq!(positions.len(), 2, "distinct vertex arrays");
    // a root node (z up → y up) whose children are the bodies, named as in the scene
    let root_node = g.scenes().next().unwrap().nodes().next().unwrap();
    assert_eq!(root_node.children().count(), bodies);
    let names: Vec<String> = root_node.children().map(|n| n.name().unwrap().to_string()).collect();
    assert_eq!(names[0], "ground");

    let anim = g.animations().next().expect("an animation");
    let mut checked = 0;
    for frame in [0, rows / 2, rows - 1] {
        let row = &traj[frame * cols..(frame + 1) * cols];
        for ch in anim.channels() {
            let node = ch.target().node();
            let b = root_node.children().position(|n| n.index() == node.index()).expect("a body node");
            let reader = ch.reader(|_| Some(&blob[..]));
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            assert_eq!(times.len(), rows);
            assert!((times[frame] as f64 - (row[0] - traj[0])).abs() < 1e-6);
            let pose = &row[1 + 12 * b..13 + 12 * b];
            match reader.read_outputs().unwrap() {
                gltf::animation::util::ReadOutputs::Translations(t) => {
                    let t: Vec<[f32; 3]> = t.collect();
                    for k in 0..3 {
                        let want = pose[4 * k + 3];
                        assert!(
                            (t[frame][k] as f64 - want).abs() <= 1e-6 * want.abs().max(1.0),
                            "{} frame {frame}: {:?} vs {want}",
                            names[b],
                            t[frame]
                        );
                    }
                }
                gltf::animation::util::ReadOutputs::Rotations(r) => {
                    let r: Vec<[f32; 4]> = r.into_f32().collect();
                    let m = matrix(r[frame]);
                    for i in 0..3 {
                        for j in 0..3 {
                            assert!(
                                (m[3 * i + j] - pose[4 * i + j]).abs() < 1e-6,
                                "{} frame {frame}: R{i}{j} {} vs {}",
                                names[b],
                                m[3 * i + j],
                                pose[4 * i + j]
                            );
                        }
                    }
                }
                _ => panic!("only translation and rotation samplers"),
            }
            checked += 1;
        }
    }
    // every dynamic body (all but the ground) has its two channels, checked at three frames
    assert_eq!(checked, 3 * 2 * (bodies - 1));
    // the ground is not animated and sits where the trajectory has it
    let ground = root_node.children().next().unwrap();
    let (t, _, _) = ground.transform().decomposed();
    assert!((t[2] as f64 - traj[1 + 11]).abs() < 1e-6);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn plots_html_and_metrics_every() {
    let dir = std::env::temp_dir().join(format!("cairn-plots-{}", std::process::id()));
    cairn(&["run", "cubedrop", "--duration", "0.5", "--metrics-every", "10", "--out", dir.to_str().unwrap()]);
    let csv = std::fs::read_to_string(dir.join("metrics.csv")).unwrap();
    let steps: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(steps, ["10", "20", "30", "40", "50"]);
    let html = std::fs::read_to_string(dir.join("plots.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 5, "kinetic, potential, contacts, penetration, stages");
    for title in ["Kinetic energy", "Potential energy", "Contacts", "Largest penetration", "Stage timings", "one every 10 steps"] {
        assert!(html.contains(title), "plots.html lacks {title}");
    }
    // --metrics-every 0 is refused by name
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .current_dir(root())
        .args(["run", "cubedrop", "--metrics-every", "0", "--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--metrics-every"));
    std::fs::remove_dir_all(&dir).ok();
}
