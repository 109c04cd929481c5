//! The command line: `run` writes the documented files, `bench --json` the documented keys, errors exit non-zero.

use std::process::Command;

fn cairn() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cairn"));
    c.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    c
}

#[test]
fn run_writes_trajectory_metrics_and_summary() {
    let out = std::env::temp_dir().join(format!("cairn-cli-run-{}", std::process::id()));
    let st = cairn()
        .args(["run", "scenes/stack10.toml", "--duration", "0.5", "--set", "solver.lcp.iterations=12", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for k in ["scene", "method", "dt", "steps", "wall_seconds", "max_penetration", "bodies"] {
        assert!(summary.get(k).is_some(), "summary.json lacks `{k}`");
    }
    assert_eq!(summary["steps"], 30);
    let b = &summary["bodies"][1];
    for k in ["name", "position", "rotation", "velocity", "angular_velocity", "max_displacement"] {
        assert!(b.get(k).is_some(), "summary body lacks `{k}`");
    }
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    let mut lines = metrics.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("step,time,kinetic_energy,potential_energy,contacts"));
    assert_eq!(lines.count(), 30);
    let npy = std::fs::read(out.join("trajectory.npy")).unwrap();
    let header = String::from_utf8_lossy(&npy[..128]);
    // frames at 60 Hz of 0.5 s: the initial one plus 30
    assert!(header.contains("'shape': (31, 133)"), "{header}");
    assert_eq!(npy.len(), 128 + 31 * 133 * 8);
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn check_intersections_adds_the_last_metrics_columns() {
    let out = std::env::temp_dir().join(format!("cairn-cli-check-{}", std::process::id()));
    let st =
        cairn().args(["run", "scenes/stack10.toml", "--duration", "0.1", "--check-intersections", "--out"]).arg(&out).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    let mut lines = metrics.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[header.len() - 3..], ["intersections", "min_distance", "crossings"]);
    assert_eq!(header[..5], ["step", "time", "kinetic_energy", "potential_energy", "contacts"]);
    for line in lines {
        let row: Vec<&str> = line.split(',').collect();
        assert_eq!(row.len(), header.len(), "{line}");
        let (meeting, crossing) = (row[row.len() - 3].parse::<usize>().unwrap(), row[row.len() - 1].parse::<usize>().unwrap());
        assert!(crossing <= meeting, "{line}");
    }
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn bench_json_has_the_documented_keys() {
    let st = cairn().args(["bench", "--scene", "incline", "--steps", "30", "--json"]).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let line = String::from_utf8_lossy(&st.stdout);
    let v: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    for k in ["scene", "method", "bodies", "steps", "ms_per_step", "contacts", "max_penetration", "max_drift"] {
        assert!(v.get(k).is_some(), "bench json lacks `{k}`");
    }
    assert_eq!(v["steps"], 30);
}

#[test]
fn bad_input_exits_nonzero_with_a_message() {
    let st = cairn().args(["run", "scenes/nonexistent.toml"]).output().unwrap();
    assert!(!st.status.success());
    assert!(String::from_utf8_lossy(&st.stderr).contains("nonexistent"));
    // every method runs every bundled scene now: an unknown method is the refusal left to check here
    let st = cairn().args(["run", "scenes/slider.toml", "--method", "nosuch"]).output().unwrap();
    assert!(!st.status.success());
    assert!(String::from_utf8_lossy(&st.stderr).contains("unknown method `nosuch`: allowed are `lcp`"));
    let st = cairn().args(["run", "scenes/stack10.toml", "--dt", "-1"]).output().unwrap();
    assert!(!st.status.success());
    assert!(String::from_utf8_lossy(&st.stderr).contains("--dt must be > 0"));
}

#[test]
fn scenes_lists_the_standard_scenes() {
    let st = cairn().arg("scenes").output().unwrap();
    let s = String::from_utf8_lossy(&st.stdout);
    for n in ["stack10", "pyramid20", "balls1000", "incline", "cubedrop", "boxstack", "ballgrid", "wall", "tower", "largemass", "silo"] {
        assert!(s.lines().any(|l| l.starts_with(n)), "`cairn scenes` lacks {n}");
    }
}

#[test]
fn compare_writes_json_html_and_a_run_folder_per_method() {
    let out = std::env::temp_dir().join(format!("cairn-cli-compare-{}", std::process::id()));
    let st = cairn().args(["compare", "cubedrop", "--duration", "0.2", "--jobs", "2", "--out"]).arg(&out).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let table = String::from_utf8_lossy(&st.stdout);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("compare.json")).unwrap()).unwrap();
    let html = std::fs::read_to_string(out.join("compare.html")).unwrap();
    assert!(html.contains("\nmm\n</text>"), "the penetration plot is in mm");
    assert_eq!(json["scene"], "cubedrop");
    let runs = json["runs"].as_array().unwrap();
    let methods = ["lcp", "impulse", "volumetric-penalty", "implicit-penalty", "abd"];
    assert_eq!(runs.len(), methods.len());
    for (r, m) in runs.iter().zip(methods) {
        assert_eq!(r["method"], m, "runs in the order asked");
        assert!(html.contains(m), "compare.html does not name {m}");
        // each method's line in its colour on every page (view.html's), in either case of hex digits
        let colour = match m {
            "lcp" => "e07b20",
            "impulse" => "2f6fd6",
            "volumetric-penalty" => "2ea043",
            "implicit-penalty" => "9b4fd0",
            _ => "d63a3a",
        };
        assert!(html.to_lowercase().contains(colour), "compare.html does not draw {m} in {colour}");
        assert!(table.contains(m), "the table does not name {m}");
        match r["status"].as_str().unwrap() {
            "ran" => {
                for k in [
                    "steps",
                    "ms_per_step",
                    "max_penetration",
                    "max_displacement",
                    "max_drift",
                    "max_drift_beyond_fall",
                    "energy_change",
                    "intersections",
                    "touching",
                    "crossings",
                    "min_distance",
                ] {
                    assert!(r.get(k).is_some(), "{m}: compare.json lacks `{k}`");
                }
                assert_eq!(r["steps"], 20);
                assert!(r["max_drift"].as_f64().unwrap() > 0.01, "{m}: the cube fell");
                let dir = out.join(r["dir"].as_str().unwrap());
                assert!(dir.join("trajectory.npy").is_file() && dir.join("summary.json").is_file(), "{m}: run folder");
            }
            "refused" => assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty()), "{m}: refused without a reason"),
            s => panic!("{m}: status {s}"),
        }
    }
    assert!(runs.iter().filter(|r| r["status"] == "ran").count() >= 4);
    assert!(html.matches("<svg").count() >= 3, "three plots: a height, the kinetic energy, the penetration");
    let view = std::fs::read_to_string(out.join("view.html")).expect("compare --out writes view.html");
    assert!(html.contains("href=\"view.html\"") && view.contains("compare.json") || view.contains("lcp"), "view.html shows the runs");
    // A run under compare gives the same trajectory as a separate `cairn run`.
    let single = out.join("single");
    let st = cairn()
        .args(["run", "cubedrop", "--method", "lcp", "--duration", "0.2", "--check-intersections", "--out"])
        .arg(&single)
        .output()
        .unwrap();
    assert!(st.status.success());
    assert_eq!(std::fs::read(single.join("trajectory.npy")).unwrap(), std::fs::read(out.join("lcp/trajectory.npy")).unwrap());
    let bad = cairn().args(["compare", "cubedrop", "--methods", "lcp,pbd"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("`pbd`"));
    std::fs::remove_dir_all(&out).ok();
}
