//! A new user's first hour, replayed (issue 35): each test walks one item of that issue through the command
//! line and checks what a user sees. The browser's side (the still picture where WebGL is missing, the camera
//! fitted to the whole motion, per-body colours drawn) is `view.rs`; the Python side is
//! `python/tests/test_first_hour.py`.
//!
//! 1. The first command writes a run folder and says what to open; `cairn view --open` opens it.
//! 2. Body colours from scenes reach the page.
//! 3. Progress bars only on a terminal; every command ends with a line saying what it wrote.
//! 4. Words: displacement and drift told apart; touching and crossing told apart; whole one-line scene
//!    descriptions; tables within 120 columns.
//! 5. Errors blame the flag or key at fault; notes are one line per kind.

use std::process::Command;

fn cairn() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cairn"));
    c.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    c
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

/// Item 4: a pyramid that stands reports its displacement (the rows settle across their 1 mm gaps, up to
/// 20 mm) apart from its drift (what is left once a fall along gravity is taken out), in the run's line,
/// summary.json and bench's JSON.
#[test]
fn displacement_and_drift_are_told_apart() {
    let cwd = scratch("drift");
    let st = cairn().args(["run", "pyramid20", "--duration", "1.5", "--out"]).arg(&cwd).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let out = String::from_utf8_lossy(&st.stdout);
    assert!(out.contains("largest displacement of a body") && out.contains("drift beyond a fall along gravity"), "{out}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(cwd.join("summary.json")).unwrap()).unwrap();
    let (displaced, drift) = (summary["max_displacement"].as_f64().unwrap(), summary["max_drift_beyond_fall"].as_f64().unwrap());
    assert!(displaced > 15e-3, "the top rows fell across their gaps: {displaced}");
    assert!(drift < 2e-3, "a pyramid that stands drifts under 2 mm: {drift}");
    assert!(summary["bodies"][1]["max_drift_beyond_fall"].is_f64());
    let st = cairn().args(["bench", "--scene", "chain10", "--steps", "100", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&st.stdout).lines().next().unwrap()).unwrap();
    // a swinging chain moves sideways: that is drift too
    assert!(v["max_drift_beyond_fall"].as_f64().unwrap() > 0.1, "{v}");
    std::fs::remove_dir_all(&cwd).ok();
}

/// Item 5: a bad method names the flag, not the scene file; `--set` under another method's table is noted,
/// as the issue's own example (`--set solver.lcp.iterations=5 --method abd`); a scene name with or without
/// `.toml` resolves.
#[test]
fn errors_blame_the_flag_and_scene_names_resolve() {
    let st = cairn().args(["run", "pyramid20", "--method", "pgs", "--no-out"]).output().unwrap();
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(!st.status.success() && err.contains("--method: unknown method `pgs`: allowed are `lcp`"), "{err}");
    assert!(!err.contains("pyramid20.toml"), "the scene is not at fault: {err}");
    let st = cairn()
        .args(["run", "cubedrop", "--set", "solver.lcp.iterations=5", "--method", "abd", "--duration", "0.01", "--no-out"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(st.status.success() && err.contains("--set solver.lcp.iterations applies to lcp, but the run uses abd"), "{err}");
    for name in ["cubedrop", "cubedrop.toml", "scenes/cubedrop.toml"] {
        let st = cairn().args(["run", name, "--duration", "0.01", "--no-out"]).output().unwrap();
        assert!(st.status.success(), "{name}: {}", String::from_utf8_lossy(&st.stderr));
    }
}

/// Item 5: a robot's notes are one line per kind (links of one kind of note named together, every ignored
/// element on one line), each naming the file once; `--all-notes` prints every one.
#[test]
fn robot_notes_are_one_line_per_kind() {
    let notes = |extra: &[&str]| {
        let st = cairn().args(["run", "scenes/robots/quadruped.xml", "--duration", "0.01", "--no-out"]).args(extra).output().unwrap();
        assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
        String::from_utf8_lossy(&st.stderr).lines().filter(|l| l.starts_with("note: ")).map(String::from).collect::<Vec<_>>()
    };
    let (short, all) = (notes(&[]), notes(&["--all-notes"]));
    assert!(short.len() < all.len(), "{short:#?}");
    let friction: Vec<&String> = short.iter().filter(|l| l.contains("different friction")).collect();
    assert_eq!(friction.len(), 1, "{short:#?}");
    assert!(friction[0].contains("link `fl`, `fr` and 2 more has geoms of different friction"), "{}", friction[0]);
    assert_eq!(all.iter().filter(|l| l.contains("different friction")).count(), 4, "{all:#?}");
    assert!(short.last().unwrap().ends_with("(every note in full: --all-notes)"), "{short:#?}");
    assert!(short.iter().chain(&all).all(|l| l.matches("quadruped.xml:").count() == 1), "{short:#?}");
}
