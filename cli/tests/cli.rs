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

/// A fresh empty folder under the system's temporary one, named after `what` and this process.
fn scratch(what: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cairn-cli-{what}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn run_without_out_writes_runs_scene_method_with_a_page_and_says_what_to_open() {
    let cwd = scratch("default-out");
    let st =
        Command::new(env!("CARGO_BIN_EXE_cairn")).current_dir(&cwd).args(["run", "cubedrop.toml", "--duration", "0.05"]).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let dir = cwd.join("runs/cubedrop-lcp");
    for f in ["trajectory.npy", "metrics.csv", "summary.json", "plots.html", "view.html"] {
        assert!(dir.join(f).is_file(), "runs/cubedrop-lcp lacks {f}");
    }
    let out = String::from_utf8_lossy(&st.stdout);
    let last = out.lines().last().unwrap();
    assert!(last.ends_with(" runs/cubedrop-lcp/view.html") && last.contains("open"), "{out}");
    assert!(out.contains("largest displacement of a body"), "{out}");
    // stderr is a pipe here: no progress bar drawn
    assert!(!String::from_utf8_lossy(&st.stderr).contains("steps  "), "{}", String::from_utf8_lossy(&st.stderr));
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["max_displacement"], summary["max_drift"]);
    assert!(summary["max_displacement"].as_f64().unwrap() > 0.0);

    // --no-out writes nothing; the flags that write into the folder then are errors naming --no-out
    let cwd = scratch("no-out");
    let st = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .current_dir(&cwd)
        .args(["run", "cubedrop", "--duration", "0.05", "--no-out"])
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0, "--no-out wrote something");
    let stdout = String::from_utf8_lossy(&st.stdout);
    assert!(stdout.lines().last().is_some_and(|l| l.starts_with("wrote nothing (--no-out")), "{stdout}");
    // a robot file run by itself: each note names the file once
    let robot = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/robots/quadruped.xml");
    let st = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .current_dir(&cwd)
        .arg("run")
        .arg(&robot)
        .args(["--duration", "0.01", "--no-out"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&st.stderr);
    assert!(st.status.success() && stderr.contains("note: "), "{stderr}");
    assert!(stderr.lines().all(|l| l.matches("quadruped.xml:").count() <= 1), "{stderr}");
    let st = Command::new(env!("CARGO_BIN_EXE_cairn")).current_dir(&cwd).args(["run", "cubedrop", "--no-out", "--view"]).output().unwrap();
    assert!(!st.status.success() && String::from_utf8_lossy(&st.stderr).contains("--no-out"));
    std::fs::remove_dir_all(&cwd).ok();
    std::fs::remove_dir_all(cwd.with_file_name(format!("cairn-cli-default-out-{}", std::process::id()))).ok();
}

#[test]
fn a_set_under_another_methods_solver_table_is_noted() {
    let st = cairn()
        .args(["run", "cubedrop", "--duration", "0.02", "--no-out", "--method", "impulse", "--set", "solver.lcp.iterations=5"])
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(err.contains("note: --set solver.lcp.iterations applies to lcp, but the run uses impulse"), "{err}");
    // the method's own table: no note
    let st = cairn().args(["run", "cubedrop", "--duration", "0.02", "--no-out", "--set", "solver.lcp.iterations=5"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&st.stderr).contains("applies to"), "{}", String::from_utf8_lossy(&st.stderr));
}

#[test]
fn scenes_prints_whole_one_line_descriptions_and_the_robot_models() {
    let st = cairn().arg("scenes").output().unwrap();
    let s = String::from_utf8_lossy(&st.stdout);
    let pyramid = s.lines().find(|l| l.starts_with("pyramid20 ")).unwrap();
    assert!(pyramid.contains("A 2D pyramid of 210 cubes") && pyramid.ends_with('.'), "{pyramid}");
    for l in s.lines().take_while(|l| !l.is_empty()) {
        assert!(!l.contains("issue 1") && !l.contains("peers") && !l.contains("peer comparison"), "internal reference: {l}");
        assert!(l.ends_with('.'), "not a whole sentence: {l}");
    }
    for robot in ["arm2.urdf", "quadruped.xml", "arm2_scene.toml"] {
        assert!(s.lines().any(|l| l.starts_with(robot)), "`cairn scenes` lacks the robot {robot}:\n{s}");
    }
    assert!(s.lines().any(|l| l.starts_with("quadruped.xml") && l.contains("A small quadruped.")), "{s}");
}

#[test]
fn commands_end_with_a_line_saying_what_they_wrote() {
    let st = cairn().args(["bench", "--scene", "incline", "--steps", "25"]).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let out = String::from_utf8_lossy(&st.stdout);
    assert!(out.lines().last().unwrap().starts_with("wrote nothing"), "{out}");
    assert!(out.lines().next().unwrap().contains("displ. (mm)"), "{out}");
    let st = cairn().args(["bench", "--scene", "incline", "--steps", "25", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&st.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(v["max_displacement"], v["max_drift"]);
    let st = cairn().args(["compare", "cubedrop", "--methods", "lcp", "--duration", "0.05"]).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let out = String::from_utf8_lossy(&st.stdout);
    assert!(out.lines().last().unwrap().starts_with("wrote nothing"), "{out}");
}

/// A body's own colour (scene `color`) reaches view.html, the viewer's data, as #rrggbb.
#[test]
fn a_scene_colour_reaches_the_view_page() {
    let cwd = scratch("colour");
    let scene = cwd.join("c.toml");
    std::fs::write(
        &scene,
        "format = 1\n[world]\nduration = 0.05\n[[body]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 0.1 }\ncolor = \"#ff8000\"\n",
    )
    .unwrap();
    let out = cwd.join("out");
    let st = cairn().arg("run").arg(&scene).arg("--out").arg(&out).arg("--view").output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let page = std::fs::read_to_string(out.join("view.html")).unwrap();
    assert!(page.contains("\"colors\":[\"#ff8000\"]"), "view.html lacks the body's colour");
    std::fs::remove_dir_all(&cwd).ok();
}

/// `cairn view --open` runs the system's opener on the page (a stand-in `xdg-open` on PATH records its
/// argument); without one it writes the page, says how to look at it and succeeds.
#[test]
fn view_open_runs_the_systems_opener() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let cwd = scratch("open");
    let run = cwd.join("run");
    let st = cairn().args(["run", "cubedrop", "--duration", "0.05", "--out"]).arg(&run).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let bin = cwd.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let opener = bin.join("xdg-open");
    std::fs::write(&opener, format!("#!/bin/sh\necho \"$1\" > {}\n", cwd.join("opened").display())).unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let st = cairn().env("PATH", &bin).args(["view", "--open"]).arg(&run).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let opened = std::fs::read_to_string(cwd.join("opened")).unwrap();
    assert_eq!(opened.trim(), run.join("view.html").display().to_string());
    // no opener at all: the page is written, the note says how to look at it, the command succeeds
    let st = cairn().env("PATH", cwd.join("nothing")).args(["view", "--open"]).arg(&run).output().unwrap();
    assert!(st.status.success() && String::from_utf8_lossy(&st.stderr).contains("open"), "{}", String::from_utf8_lossy(&st.stderr));
    std::fs::remove_dir_all(&cwd).ok();
}

/// `validate` and `bench` tables keep to 120 columns (long cells wrapped, bench's stage timings on a line of
/// their own); `--wide` keeps each row on one line.
#[test]
fn tables_fit_120_columns_unless_wide() {
    let widest = |args: &[&str]| {
        let st = cairn().args(args).output().unwrap();
        assert!(st.status.success(), "{args:?}: {}", String::from_utf8_lossy(&st.stderr));
        String::from_utf8_lossy(&st.stdout).lines().map(|l| l.chars().count()).max().unwrap_or(0)
    };
    let validate = ["validate", "--method", "lcp", "--only", "friction_limit"];
    assert!(widest(&validate) <= 120);
    assert!(widest(&[&validate[..], &["--wide"]].concat()) > 120, "--wide keeps the long rows");
    let bench = ["bench", "--scene", "pyramid20", "--steps", "3"];
    assert!(widest(&bench) <= 120);
    assert!(widest(&[&bench[..], &["--wide"]].concat()) > 120);
}
