//! `cairn run --ctrl FILE.csv`: a scripted run drives an actuator; metrics.csv gets its columns and the sensors'.

use std::process::Command;

const SCENE: &str = r#"format = 1
[world]
gravity = [0.0, 0.0, 0.0]
dt = 0.01
duration = 1.0
[[body]]
name = "wheel"
shape = { type = "cylinder", radius = 0.5, length = 0.1 }
[[joint]]
type = "hinge"
name = "axle"
body1 = "wheel"
anchor = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]
[[actuator]]
name = "drive"
type = "motor"
joint = "axle"
[[control]]
actuator = "drive"
value = 0.0
[[sensor]]
name = "speed"
type = "jointvel"
joint = "axle"
"#;

fn setup(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cairn-ctrl-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("wheel.toml"), SCENE).unwrap();
    dir
}

#[test]
fn a_ctrl_csv_drives_the_actuator_and_metrics_show_it() {
    let dir = setup("ok");
    // torque 2 N·m for the first half second, then 0: the wheel spins up, then coasts at 2·0.5/I
    std::fs::write(dir.join("u.csv"), "time,drive\n0.0,2.0\n0.5,2.0\n0.5001,0.0\n").unwrap();
    let out = dir.join("run");
    let st = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .current_dir(&dir)
        .args(["run", "wheel.toml", "--ctrl", "u.csv", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    let mut lines = metrics.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    let (ctrl, force, speed) = (col("ctrl_drive"), col("force_drive"), col("sensor_speed"));
    let rows: Vec<Vec<f64>> = lines.map(|l| l.split(',').map(|x| x.parse().unwrap_or(f64::NAN)).collect()).collect();
    assert_eq!(rows.len(), 100);
    assert_eq!(rows[10][ctrl], 2.0);
    assert_eq!(rows[10][force], 2.0);
    let last = rows.last().unwrap();
    assert_eq!(last[ctrl], 0.0);
    // I = m r²/2 of a 0.5 m × 0.1 m cylinder of density 1000; 2 N·m for 0.5 s (50 steps)
    let m = 1000.0 * std::f64::consts::PI * 0.25 * 0.1;
    let expected = 2.0 * 0.5 / (0.5 * m * 0.25);
    assert!((last[speed].abs() - expected).abs() / expected < 0.03, "speed {} expected {expected}", last[speed]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_ctrl_csv_names_the_file_line_and_column() {
    let dir = setup("bad");
    for (text, expect) in [
        ("time,brake\n0,1\n", "line 1: unknown actuator `brake`; the scene's actuators: `drive`"),
        ("t,drive\n0,1\n", "line 1: the first column must be `time`"),
        ("time,drive\n0,1\n0,2\n", "line 3: time 0 must be greater than the previous row's 0"),
        ("time,drive\n0,x\n", "line 2: column `drive`: `x` is not a number"),
    ] {
        std::fs::write(dir.join("u.csv"), text).unwrap();
        let st = Command::new(env!("CARGO_BIN_EXE_cairn"))
            .current_dir(&dir)
            .args(["run", "wheel.toml", "--ctrl", "u.csv", "--no-out"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&st.stderr);
        assert!(!st.status.success() && err.contains("u.csv: ") && err.contains(expect), "{text:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_reader_that_stops_early_does_not_make_it_panic() {
    // stdout is a pipe whose reader is already gone: the first write fails with a broken pipe
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let st = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .arg("scenes")
        .stdout(writer)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(st.status.success(), "{:?}: {err}", st.status);
}
