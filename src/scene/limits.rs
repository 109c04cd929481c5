//! Resource limits checked at load, before anything large is allocated or read: the number of bodies, the
//! steps of a run, the smallest time step, and the size of each kind of input file (which must be a regular
//! file); and before a run, the size of its output files. A scene's `[limits]` table and the front ends' `--limit KEY=VALUE` change them; every refusal names
//! the value, the limit and the setting that raises it.

use serde::Deserialize;
use std::cell::Cell;
use std::io::Read;
use std::path::Path;

/// Default largest number of bodies of a scene.
pub const DEFAULT_BODIES: u64 = 1_000_000;
/// Default largest number of steps of a run.
pub const DEFAULT_STEPS: u64 = 1_000_000_000;
/// Default smallest time step, s.
pub const DEFAULT_DT_MIN: f64 = 1e-9;
/// Default largest time step, s (a larger step is no contact simulation; the haptic rate's substeps of a step of
/// 1e9 s would never end).
pub const DEFAULT_DT_MAX: f64 = 1.0;
/// Default largest scene file (`.toml`, `.scn`), MiB.
pub const DEFAULT_SCENE_MIB: u64 = 64;
/// Default largest robot file (URDF, MJCF and its includes), MiB.
pub const DEFAULT_ROBOT_MIB: u64 = 64;
/// Default largest mesh file (OBJ, STL), MiB.
pub const DEFAULT_MESH_MIB: u64 = 512;
/// Default largest output of a run (the files of its folder, as estimated before it starts), MiB.
pub const DEFAULT_OUTPUT_MIB: u64 = 4096;

/// The limits a front end or a scene sets; `None` keeps the default. Also the `[limits]` table of a scene
/// (where `scene_mib` is refused: the file is read before its table is).
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Largest number of bodies (after `repeat`, replication and robots).
    pub bodies: Option<u64>,
    /// Largest number of steps of a run (`world.duration / world.dt`, `cairn bench --steps`).
    pub steps: Option<u64>,
    /// Smallest time step, s.
    pub dt_min: Option<f64>,
    /// Largest time step, s.
    pub dt_max: Option<f64>,
    /// Largest scene file, MiB.
    pub scene_mib: Option<u64>,
    /// Largest robot file (URDF, MJCF, MJCF include), MiB.
    pub robot_mib: Option<u64>,
    /// Largest mesh file, MiB.
    pub mesh_mib: Option<u64>,
    /// Largest output of a run (`trajectory.npy` and `metrics.csv`, estimated before it starts), MiB.
    pub output_mib: Option<u64>,
}

/// The keys of `[limits]` and `--limit`.
pub const KEYS: [&str; 8] = ["bodies", "steps", "dt_min", "dt_max", "scene_mib", "robot_mib", "mesh_mib", "output_mib"];

/// A number for messages: plain in [1e-4, 1e6), else in exponent form (`1e300`, not 301 digits).
pub fn show(x: f64) -> String {
    if x == 0.0 || (1e-4..1e6).contains(&x.abs()) || !x.is_finite() {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// How to raise limit `key` (for messages).
pub fn how_to_raise(key: &str) -> String {
    if key == "scene_mib" {
        format!("raise it with `--limit {key}=N`")
    } else {
        format!("raise it with `--limit {key}=N` or `[limits] {key} = N` in the scene")
    }
}

impl Limits {
    pub fn bodies(&self) -> u64 {
        self.bodies.unwrap_or(DEFAULT_BODIES)
    }
    pub fn steps(&self) -> u64 {
        self.steps.unwrap_or(DEFAULT_STEPS)
    }
    pub fn dt_min(&self) -> f64 {
        self.dt_min.unwrap_or(DEFAULT_DT_MIN)
    }
    pub fn dt_max(&self) -> f64 {
        self.dt_max.unwrap_or(DEFAULT_DT_MAX)
    }
    pub fn scene_mib(&self) -> u64 {
        self.scene_mib.unwrap_or(DEFAULT_SCENE_MIB)
    }
    pub fn robot_mib(&self) -> u64 {
        self.robot_mib.unwrap_or(DEFAULT_ROBOT_MIB)
    }
    pub fn mesh_mib(&self) -> u64 {
        self.mesh_mib.unwrap_or(DEFAULT_MESH_MIB)
    }
    pub fn output_mib(&self) -> u64 {
        self.output_mib.unwrap_or(DEFAULT_OUTPUT_MIB)
    }

    /// `self`'s values where set, else `other`'s (the command line over the scene's table).
    pub fn or(&self, other: &Limits) -> Limits {
        Limits {
            bodies: self.bodies.or(other.bodies),
            steps: self.steps.or(other.steps),
            dt_min: self.dt_min.or(other.dt_min),
            dt_max: self.dt_max.or(other.dt_max),
            scene_mib: self.scene_mib.or(other.scene_mib),
            robot_mib: self.robot_mib.or(other.robot_mib),
            output_mib: self.output_mib.or(other.output_mib),
            mesh_mib: self.mesh_mib.or(other.mesh_mib),
        }
    }

    /// Sets one limit from text (`--limit KEY=VALUE`): counts and MiB are whole numbers >= 1 (`1e10` is
    /// accepted when whole), `dt_min` a positive number.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let v = value.trim();
        let whole = || -> Result<u64, String> {
            if let Ok(n) = v.parse::<u64>() {
                if n >= 1 {
                    return Ok(n);
                }
            }
            match v.parse::<f64>() {
                Ok(x) if x >= 1.0 && x.fract() == 0.0 && x < 1.8e19 => Ok(x as u64),
                _ => Err(format!("--limit {key}={v}: a whole number >= 1 is allowed here")),
            }
        };
        match key.trim() {
            "bodies" => self.bodies = Some(whole()?),
            "steps" => self.steps = Some(whole()?),
            "scene_mib" => self.scene_mib = Some(whole()?),
            "robot_mib" => self.robot_mib = Some(whole()?),
            "mesh_mib" => self.mesh_mib = Some(whole()?),
            "output_mib" => self.output_mib = Some(whole()?),
            "dt_min" | "dt_max" => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 => {
                    if key.trim() == "dt_min" {
                        self.dt_min = Some(x)
                    } else {
                        self.dt_max = Some(x)
                    }
                }
                _ => return Err(format!("--limit {}={v}: a finite number > 0 (seconds) is allowed here", key.trim())),
            },
            other => return Err(format!("--limit: unknown key `{other}`; the keys are {}", KEYS.join(", "))),
        }
        Ok(())
    }

    /// Checks the values of a scene's `[limits]` table.
    pub(super) fn check_table(&self) -> Result<(), String> {
        if self.scene_mib.is_some() {
            return Err(
                "[limits] scene_mib cannot apply to the file that holds it (the file is read before the table); use `--limit scene_mib=N`"
                    .into(),
            );
        }
        for (k, v) in [
            ("bodies", self.bodies),
            ("steps", self.steps),
            ("robot_mib", self.robot_mib),
            ("mesh_mib", self.mesh_mib),
            ("output_mib", self.output_mib),
        ] {
            if v == Some(0) {
                return Err(format!("[limits] {k} must be >= 1, got 0"));
            }
        }
        for (k, v) in [("dt_min", self.dt_min), ("dt_max", self.dt_max)] {
            if let Some(d) = v.filter(|d| !(d.is_finite() && *d > 0.0)) {
                return Err(format!("[limits] {k} must be a finite number > 0 (seconds), got {d}"));
            }
        }
        Ok(())
    }

    /// Refuses `bodies` bodies when over the limit; `what` says where they come from.
    pub fn check_bodies(&self, bodies: u64, what: &str) -> Result<(), String> {
        if bodies > self.bodies() {
            return Err(format!("{what}: {bodies} bodies, over the limit of {} bodies; {}", self.bodies(), how_to_raise("bodies")));
        }
        Ok(())
    }

    /// Refuses a run of `steps` steps when over the limit; `what` says where the number comes from.
    pub fn check_steps(&self, steps: u64, what: &str) -> Result<(), String> {
        if steps > self.steps() {
            return Err(format!("{what}: {steps} steps, over the limit of {} steps per run; {}", self.steps(), how_to_raise("steps")));
        }
        Ok(())
    }
}

/// The kinds of input file, each with its own size limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FileKind {
    Scene,
    Robot,
    Mesh,
}

impl FileKind {
    fn name(self) -> &'static str {
        match self {
            FileKind::Scene => "scene",
            FileKind::Robot => "robot",
            FileKind::Mesh => "mesh",
        }
    }
    fn mib(self, l: &Limits) -> (u64, &'static str) {
        match self {
            FileKind::Scene => (l.scene_mib(), "scene_mib"),
            FileKind::Robot => (l.robot_mib(), "robot_mib"),
            FileKind::Mesh => (l.mesh_mib(), "mesh_mib"),
        }
    }
}

thread_local! {
    /// The limits of the load in progress on this thread: the file readers deep in the loaders (meshes of
    /// shapes, URDF and MJCF files, MJCF includes) read them here rather than through every signature.
    static CURRENT: Cell<Limits> = Cell::new(Limits::default());
}

/// The limits of the load in progress on this thread (the defaults outside a load).
pub fn current() -> Limits {
    CURRENT.with(|c| c.get())
}

/// Makes `limits` the current ones until the guard is dropped (then the previous ones again).
pub(super) fn scoped(limits: Limits) -> Scoped {
    Scoped(CURRENT.with(|c| c.replace(limits)))
}

pub(super) struct Scoped(Limits);

impl Drop for Scoped {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
    }
}

/// Reads an input file of `kind` under the current limits: it must be a regular file (not a directory,
/// device or FIFO, which could block or never end) no larger than the kind's limit, checked before reading.
/// The message (without the path, which callers add) says what is wrong.
pub fn read_capped(path: &Path, kind: FileKind) -> Result<Vec<u8>, String> {
    let meta = check_regular(path, kind)?;
    let (mib, key) = kind.mib(&current());
    let max = mib.saturating_mul(1 << 20);
    let too_big = |len: u64| {
        format!("the {} file has {len} bytes, over the limit of {mib} MiB for {} files; {}", kind.name(), kind.name(), how_to_raise(key))
    };
    if meta.len() > max {
        return Err(too_big(meta.len()));
    }
    // read at most one byte past the limit: a file that grows while read (or reports no size) stops there
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {} file: {e}", kind.name()))?;
    file.take(max + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {} file: {e}", kind.name()))?;
    if bytes.len() as u64 > max {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The metadata of `path` when it is a regular file (symbolic links followed), else why not.
pub fn check_regular(path: &Path, kind: FileKind) -> Result<std::fs::Metadata, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {} file: {e}", kind.name()))?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { special_kind(&meta) };
        return Err(format!("cannot read {} file: it is {what}; only regular files are read", kind.name()));
    }
    Ok(meta)
}

#[cfg(unix)]
fn special_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::Metadata) -> &'static str {
    "not a regular file"
}

/// [`read_capped`] for text files.
pub fn read_text_capped(path: &Path, kind: FileKind) -> Result<String, String> {
    String::from_utf8(read_capped(path, kind)?).map_err(|e| format!("cannot read {} file: not UTF-8 text ({e})", kind.name()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{load_str_with, load_with, LoadOptions};

    /// A fresh folder under the temp dir for one test.
    fn tmp(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("cairn-limits-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn load(text: &str, opts: &LoadOptions) -> Result<crate::model::Model, String> {
        load_str_with(text, "t.toml", "t", Path::new("."), opts).map_err(|e| e.0)
    }

    const BALL: &str = "[[body]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 0.1 }\n";

    #[test]
    fn a_huge_repeat_is_refused_before_allocating() {
        let t0 = std::time::Instant::now();
        let text = format!("format = 1\n{BALL}repeat = {{ count = [1000, 1000, 10], step = [1.0, 1.0, 1.0] }}\n");
        let e = load(&text, &LoadOptions::default()).unwrap_err();
        assert!(
            e.contains("body `b` with repeat.count = [1000, 1000, 10]")
                && e.contains("10000000 bodies, over the limit of 1000000 bodies")
                && e.contains("--limit bodies=N")
                && e.contains("[limits] bodies = N"),
            "{e}"
        );
        assert!(t0.elapsed().as_secs_f64() < 1.0);
        // u32::MAX³ does not overflow the count
        let text = format!("format = 1\n{BALL}repeat = {{ count = [4294967295, 4294967295, 4294967295], step = [1.0, 1.0, 1.0] }}\n");
        assert!(load(&text, &LoadOptions::default()).unwrap_err().contains("over the limit"));
    }

    #[test]
    fn limits_table_and_command_line_set_the_body_limit() {
        let text = |table: &str| format!("format = 1\n{table}\n{BALL}repeat = {{ count = [2, 2, 2], step = [1.0, 1.0, 1.0] }}\n");
        let cli = |n| LoadOptions { limits: Limits { bodies: Some(n), ..Default::default() }, ..Default::default() };
        assert!(load(&text(""), &cli(7)).unwrap_err().contains("8 bodies, over the limit of 7 bodies"));
        assert_eq!(load(&text("[limits]\nbodies = 8"), &LoadOptions::default()).unwrap().bodies.len(), 8);
        assert!(load(&text("[limits]\nbodies = 7"), &LoadOptions::default()).unwrap_err().contains("limit of 7 bodies"));
        // the command line over the scene's table, either way
        assert!(load(&text("[limits]\nbodies = 7"), &cli(8)).is_ok());
        assert!(load(&text("[limits]\nbodies = 100"), &cli(7)).is_err());
        // and `--set limits.bodies`
        let set = LoadOptions { sets: vec![("limits.bodies".into(), "8".into())], ..cli(7) };
        assert!(load(&text(""), &LoadOptions { limits: Limits::default(), ..set }).is_ok());
        // what the table refuses
        for (t, want) in [
            ("[limits]\nscene_mib = 100", "use `--limit scene_mib=N`"),
            ("[limits]\nbodies = 0", "bodies must be >= 1"),
            ("[limits]\ndt_min = -1.0", "dt_min must be a finite number > 0"),
            ("[limits]\nbodys = 3", "unknown field `bodys`"),
            ("[limits]\nbodies = -3", "line 3"),
        ] {
            let e = load(&text(t), &LoadOptions::default()).unwrap_err();
            assert!(e.contains(want), "{t}: {e}");
        }
    }

    #[test]
    fn steps_and_dt_limits_are_checked_at_load_and_raised_by_the_table() {
        let scene = |world: &str, table: &str| format!("format = 1\n[world]\n{world}\n{table}\n{BALL}");
        let e = load(&scene("duration = 1e8", ""), &LoadOptions::default()).unwrap_err();
        assert!(e.contains("world.duration = 1e8 s at world.dt = 0.01 s is 1e10 steps, over the limit of 1000000000 steps per run"), "{e}");
        assert!(e.contains("--limit steps=N"), "{e}");
        assert!(load(&scene("duration = 1e8", "[limits]\nsteps = 20000000000"), &LoadOptions::default()).is_ok());
        let long = LoadOptions { duration: Some(1e300), ..Default::default() };
        assert!(load(&scene("", ""), &long).unwrap_err().contains("--duration = 1e300 s at world.dt"));
        // the smallest time step, from the file and from --dt
        let e = load(&scene("dt = 1e-320", ""), &LoadOptions::default()).unwrap_err();
        assert!(e.contains("world.dt = 1e-320 s is below the smallest time step allowed, 1e-9 s") && e.contains("dt_min"), "{e}");
        let tiny = LoadOptions { dt: Some(1e-300), ..Default::default() };
        assert!(load(&scene("", ""), &tiny).unwrap_err().contains("--dt = 1e-300 s is below"));
        let nan = LoadOptions { dt: Some(f64::NAN), ..Default::default() };
        assert_eq!(load(&scene("", ""), &nan).unwrap_err(), "t.toml: --dt must be a finite number, got NaN");
        assert!(load(&scene("dt = 1e-10\nduration = 0.0", "[limits]\ndt_min = 1e-12"), &LoadOptions::default()).is_ok());
    }

    #[test]
    fn devices_fifos_and_directories_are_refused_before_reading() {
        let d = tmp("files");
        std::os::unix::fs::symlink("/dev/zero", d.join("zero.obj")).unwrap();
        std::os::unix::fs::symlink("/dev/urandom", d.join("random.stl")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", d.join("zero.toml")).unwrap();
        std::os::unix::fs::symlink("/dev/urandom", d.join("random.urdf")).unwrap();
        std::fs::create_dir(d.join("dir.obj")).unwrap();
        let fifo = std::process::Command::new("mkfifo").arg(d.join("fifo.obj")).status().map(|s| s.success()).unwrap_or(false);
        let mesh = |file: &str, kind: &str| {
            let text = format!("format = 1\n[[body]]\nname = \"m\"\nkind = \"{kind}\"\nshape = {{ type = \"mesh\", mesh = \"{file}\" }}\n");
            load_str_with(&text, "t.toml", "t", &d, &LoadOptions::default()).unwrap_err().0
        };
        let e = mesh("zero.obj", "static");
        assert!(e.contains("zero.obj: cannot read mesh file: it is a device; only regular files are read"), "{e}");
        assert!(mesh("random.stl", "dynamic").contains("it is a device"));
        assert!(mesh("dir.obj", "static").contains("it is a directory"));
        if fifo {
            assert!(mesh("fifo.obj", "static").contains("it is a FIFO"));
        }
        // the extension is checked before anything is read
        assert!(mesh("/dev/zero", "static").contains("unknown mesh extension"));
        let e = load_with(&d.join("zero.toml"), &LoadOptions::default()).unwrap_err().0;
        assert!(e.contains("zero.toml: cannot read scene file: it is a device"), "{e}");
        let e = load_with(&d.join("random.urdf"), &LoadOptions::default()).unwrap_err().0;
        assert!(e.contains("random.urdf: cannot read robot file: it is a device"), "{e}");
        let e = load_with(&d, &LoadOptions::default()).unwrap_err().0;
        assert!(e.contains("cannot read scene file: it is a directory"), "{e}");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn file_sizes_are_checked_against_their_kinds_limit() {
        let d = tmp("sizes");
        // 2 MiB of comments: an OBJ file over a 1 MiB mesh limit, a scene over a 1 MiB scene limit
        let big = "#".repeat(2 << 20);
        std::fs::write(d.join("big.obj"), &big).unwrap();
        std::fs::write(d.join("big.toml"), format!("format = 1\n{big}\n")).unwrap();
        let text = "format = 1\n[limits]\nmesh_mib = 1\n[[body]]\nkind = \"static\"\nshape = { type = \"mesh\", mesh = \"big.obj\" }\n";
        let e = load_str_with(text, "t.toml", "t", &d, &LoadOptions::default()).unwrap_err().0;
        assert!(
            e.contains("the mesh file has 2097152 bytes, over the limit of 1 MiB for mesh files; raise it with `--limit mesh_mib=N`"),
            "{e}"
        );
        let small = LoadOptions { limits: Limits { scene_mib: Some(1), ..Default::default() }, ..Default::default() };
        let e = load_with(&d.join("big.toml"), &small).unwrap_err().0;
        assert!(e.contains("over the limit of 1 MiB for scene files; raise it with `--limit scene_mib=N`"), "{e}");
        assert!(load_with(&d.join("big.toml"), &LoadOptions::default()).is_ok());
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn robot_links_count_against_the_body_limit() {
        let dir = crate::scene::scenes_dir().join("robots");
        let text = "format = 1\n[limits]\nbodies = 3\n[[robot]]\nfile = \"arm2.urdf\"\n";
        let e = load_str_with(text, "t.toml", "t", &dir, &LoadOptions::default()).unwrap_err().0;
        assert!(
            e.contains("robot #0 (`arm2.urdf`): its") && e.contains("links make the scene") && e.contains("over the limit of 3 bodies"),
            "{e}"
        );
    }

    #[test]
    fn an_include_of_a_device_is_refused() {
        let d = tmp("include");
        std::os::unix::fs::symlink("/dev/zero", d.join("zero.xml")).unwrap();
        std::fs::write(d.join("m.xml"), "<mujoco>\n<include file=\"zero.xml\"/>\n<worldbody/>\n</mujoco>\n").unwrap();
        let e = load_with(&d.join("m.xml"), &LoadOptions::default()).unwrap_err().0;
        assert!(e.contains("line 2, <include>: cannot read `") && e.contains("zero.xml`: it is a device"), "{e}");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn limit_values_from_the_command_line_are_checked() {
        let mut l = Limits::default();
        l.set("bodies", "2e6").unwrap();
        l.set("dt_min", "1e-12").unwrap();
        assert_eq!((l.bodies(), l.dt_min()), (2_000_000, 1e-12));
        assert!(l.set("bodies", "0").unwrap_err().contains("a whole number >= 1"));
        assert!(l.set("steps", "1.5").is_err());
        assert!(l.set("dt_min", "nan").is_err());
        assert!(l.set("body", "3").unwrap_err().contains("unknown key `body`; the keys are bodies, steps"));
    }
}
