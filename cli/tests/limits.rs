//! Hostile and faulty input at the command line (issue 34): limits refused with their setting named, `--limit`
//! raising them, files that are not regular files, and a run stopped by SIGINT leaving whole files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cairn() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cairn"));
    c.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    c
}

/// Runs `cairn ARGS`, expects exit status 1 and returns standard error.
fn refused(args: &[&str]) -> String {
    let o: Output = cairn().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cairn-cli-limits-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn bench_refuses_huge_steps_and_tiles_before_allocating() {
    let e = refused(&["bench", "--scene", "stack10", "--steps", "18446744073709551615"]);
    assert!(
        e.contains("--steps: 18446744073709551615 steps, over the limit of 1000000000 steps per run; raise it with `--limit steps=N`"),
        "{e}"
    );
    let e = refused(&["bench", "--scene", "stack10", "--tile", "100000"]);
    assert!(e.contains("--tile 100000: 11 bodies × 10000000000 tiles: 110000000000 bodies, over the limit of 1000000 bodies"), "{e}");
    // --limit lowers and raises it
    let e = refused(&["bench", "--scene", "cubedrop", "--tile", "3", "--limit", "bodies=17"]);
    assert!(e.contains("--tile 3: 2 bodies × 9 tiles: 18 bodies, over the limit of 17 bodies"), "{e}");
    let o =
        cairn().args(["bench", "--scene", "cubedrop", "--tile", "3", "--limit", "bodies=18", "--steps", "2", "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let e = refused(&["bench", "--scene", "stack10", "--limit", "bodys=3"]);
    assert!(e.contains("--limit: unknown key `bodys`"), "{e}");
}

#[test]
fn run_refuses_tiny_and_nan_time_steps_and_too_many_steps() {
    let e = refused(&["run", "scenes/stack10.toml", "--dt", "1e-300"]);
    assert!(e.contains("--dt = 1e-300 s is below the smallest time step allowed, 1e-9 s; lower that with `--limit dt_min=S`"), "{e}");
    let e = refused(&["run", "scenes/stack10.toml", "--dt", "nan"]);
    assert!(e.contains("--dt must be a finite number, got NaN"), "{e}");
    let e = refused(&["run", "scenes/stack10.toml", "--duration", "1e300"]);
    assert!(e.contains("--duration = 1e300 s at world.dt = 0.0166") && e.contains("over the limit of 1000000000 steps per run"), "{e}");
    let e = refused(&["run", "scenes/stack10.toml", "--limit", "steps=10"]);
    assert!(e.contains("over the limit of 10 steps per run"), "{e}");
    // --limit raises one: 10 steps of 1e-10 s
    let o =
        cairn().args(["run", "scenes/stack10.toml", "--dt", "1e-10", "--duration", "1e-9", "--limit", "dt_min=1e-12"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn devices_directories_and_fifos_are_refused_as_scenes() {
    let e = refused(&["run", "/dev/zero"]);
    assert!(e.contains("/dev/zero: cannot read scene file: it is a device; only regular files are read"), "{e}");
    let e = refused(&["run", "scenes/robots"]);
    assert!(e.contains("scenes/robots: cannot read scene file: it is a directory"), "{e}");
    let d = tmp("fifo");
    let fifo = d.join("f.toml");
    if Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
        let e = refused(&["run", fifo.to_str().unwrap()]);
        assert!(e.contains("it is a FIFO"), "{e}");
    }
    std::fs::remove_dir_all(&d).ok();
}

/// The row count of an `.npy` header, checked against the file's length.
fn npy_rows(path: &Path) -> (u64, u64) {
    let bytes = std::fs::read(path).unwrap();
    let header = String::from_utf8_lossy(&bytes[10..128]).to_string();
    let shape = header.split("'shape': (").nth(1).unwrap().split(')').next().unwrap().to_string();
    let (rows, cols) = shape.split_once(", ").unwrap();
    let (rows, cols): (u64, u64) = (rows.parse().unwrap(), cols.trim().parse().unwrap());
    assert!(bytes.len() as u64 >= 128 + rows * cols * 8, "header claims {rows} rows, the file has {} bytes", bytes.len());
    (rows, cols)
}

#[test]
fn sigint_stops_a_run_and_leaves_whole_files() {
    let out = tmp("sigint");
    let child = cairn()
        .args(["run", "balls1000", "--duration", "100", "--frame-every", "1", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // wait until a few steps are written (the handler is installed before the first step)
    let t0 = std::time::Instant::now();
    while std::fs::read_to_string(out.join("metrics.csv")).map_or(0, |m| m.lines().count()) < 3 {
        assert!(t0.elapsed().as_secs() < 120, "no steps after 120 s");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("error: interrupted after ") && err.contains(" of 6000 steps;") && err.contains("\"completed\": false"), "{err}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["completed"], false);
    let steps = summary["steps"].as_u64().unwrap();
    assert!(steps >= 2 && steps < 6000, "{steps}");
    let bodies = summary["bodies"].as_array().unwrap().len() as u64;
    // the initial frame and one per step, every metrics line whole
    assert_eq!(npy_rows(&out.join("trajectory.npy")), (steps + 1, 1 + 12 * bodies));
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    assert!(metrics.ends_with('\n'));
    assert_eq!(metrics.lines().count() as u64, 1 + steps);
    // the folder reads back (view and export read it as any run's)
    let o = cairn().args(["view"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&out).ok();
}
