//! The `cairn` command line: run, validate, bench, scenes.

mod bench;
mod bench_table;
mod compare;
mod export;
mod plot;
mod plots_html;
mod progress;
mod runfiles;
mod scaling;
mod source_tables;
mod table;
mod validate_table;
mod view;

use anyhow::{bail, Context, Result};
use cairn::model::MethodKey;
use cairn::world::World;
use clap::{Args, Parser, Subcommand};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// A `--method` value as a key; an unknown one is an error listing the methods (exit status 1, as any other bad
/// input of a scene).
fn method_key(name: &str) -> Result<MethodKey> {
    MethodKey::parse(name).map_err(|e| anyhow::anyhow!("--method: {e}"))
}

/// `--set KEY=VALUE`, shared by the subcommands that load scenes.
#[derive(Args, Debug, Default)]
struct SetArgs {
    /// Override a scene value, e.g. --set solver.lcp.iterations=50 (repeatable); in validate, bench and compare
    /// every scene they load.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
}

impl SetArgs {
    fn parse(&self) -> Result<Vec<(String, String)>> {
        parse_sets(&self.sets)
    }
}

/// `--limit KEY=VALUE`, on the subcommands that load scenes from files the user names (run, bench, compare).
#[derive(Args, Debug, Default)]
struct LimitArgs {
    /// Raise (or lower) a load limit (repeatable; over the scene's [limits]): bodies (default 1000000), steps
    /// (1e9 per run), dt_min (1e-9 s), dt_max (1 s), scene_mib (64), robot_mib (64), mesh_mib (512),
    /// output_mib (4096: the files a run writes, estimated before it starts).
    #[arg(long = "limit", value_name = "KEY=VALUE")]
    limits: Vec<String>,
}

impl LimitArgs {
    fn parse(&self) -> Result<cairn::scene::Limits> {
        let mut l = cairn::scene::Limits::default();
        for s in &self.limits {
            let (k, v) = s.split_once('=').with_context(|| format!("--limit `{s}`: expected KEY=VALUE"))?;
            l.set(k, v).map_err(|e| anyhow::anyhow!(e))?;
        }
        Ok(l)
    }
}

/// The error of a run stopped by SIGINT or SIGTERM: its files are written (`"completed": false`), and the
/// process exits with status 130.
#[derive(Debug)]
struct Interrupted(String);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

#[derive(Parser)]
#[command(name = "cairn", version, about = "Rigid bodies in contact: five contact methods, one world, one scene format")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene (a .toml file, or the name of a bundled scene).
    Run {
        scene: String,
        /// Contact method (default: the scene's world.method; `cairn methods` lists them).
        #[arg(long)]
        method: Option<String>,
        /// Time step, s (overrides world.dt).
        #[arg(long, allow_hyphen_values = true)]
        dt: Option<f64>,
        /// Simulated time, s (overrides world.duration).
        #[arg(long, allow_hyphen_values = true)]
        duration: Option<f64>,
        /// Folder for trajectory.npy, metrics.csv, summary.json and plots.html (default: runs/SCENE-METHOD,
        /// with view.html too).
        #[arg(long, conflicts_with = "no_out")]
        out: Option<PathBuf>,
        /// Write nothing: only the summary lines.
        #[arg(long)]
        no_out: bool,
        #[command(flatten)]
        sets: SetArgs,
        #[command(flatten)]
        limits: LimitArgs,
        /// Write a trajectory frame every N steps (default: about 60 frames per simulated second).
        #[arg(long)]
        frame_every: Option<u64>,
        /// After every step, count touching or crossing triangle pairs and the smallest surface distance (sets
        /// world.check_intersections; adds the metrics.csv columns intersections, min_distance, crossings).
        #[arg(long)]
        check_intersections: bool,
        /// A metrics.csv row every N steps only (thins the file of long runs; plots.html reads the thinned file).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        metrics_every: Option<u64>,
        /// Record the contact points and normals of each trajectory frame (contacts.npy; `cairn view` overlays them).
        #[arg(long)]
        contacts: bool,
        /// Also write view.html into the --out folder (see `cairn view`).
        #[arg(long)]
        view: bool,
        /// Controls over time from a CSV file: a `time` column, then one column per actuator name (linear
        /// between rows, held outside); replaces the scene's [[control]] of those actuators.
        #[arg(long, value_name = "FILE.csv")]
        ctrl: Option<PathBuf>,
        /// Print every note of the scene's loader on a line of its own (by default notes of one kind share a
        /// line; summary.json's `notes` has them all).
        #[arg(long)]
        all_notes: bool,
    },
    /// Write view.html: a self-contained page (no network) that plays runs back in a browser. Give a run folder
    /// (of `cairn run --out`), several (shown side by side or overlaid, one colour per method), or a folder of
    /// `cairn compare` (its compare.json lists the runs).
    View {
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where to write the page (default: DIR/view.html for one folder, ./view.html for several).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Then open it in the system's browser (xdg-open; open on macOS; start on Windows).
        #[arg(long)]
        open: bool,
    },
    /// Export a run: one binary glTF (each shape's mesh once, each body a node, the trajectory as an animation).
    Export {
        dir: PathBuf,
        /// The .glb file to write.
        #[arg(long, required = true)]
        gltf: PathBuf,
    },
    /// Run the validation experiments and print a table; non-zero exit if any row fails.
    Validate {
        /// Contact method (`cairn methods` lists them).
        #[arg(long, default_value = "lcp")]
        method: String,
        /// Only these experiments (repeatable).
        #[arg(long)]
        only: Vec<String>,
        #[command(flatten)]
        sets: SetArgs,
        /// Folder for the plots some methods' validation writes (volumetric-penalty: the cube drop's angular
        /// momentum, cubedrop_angular_momentum.svg and .csv).
        #[arg(long, default_value = "validate-plots")]
        plots: PathBuf,
        /// Print each cell on one line, however wide the table (default: 120 columns, long cells wrapped).
        #[arg(long)]
        wide: bool,
    },
    /// Benchmark scenes: ms per step (median after warm-up), contacts, penetration, drift.
    Bench {
        /// Contact method (default: each scene's world.method; with --scaling, lcp).
        #[arg(long)]
        method: Option<String>,
        /// Scene name or path (repeatable); default: the standard scenes; `joints`: the jointed benchmark scenes
        /// (chain100, ragdoll_stairs).
        #[arg(long)]
        scene: Vec<String>,
        /// Steps per scene (default: the scene's duration).
        #[arg(long)]
        steps: Option<u64>,
        /// One JSON object per scene and line.
        #[arg(long)]
        json: bool,
        /// Keep each scene's stage timings on its line, however wide (default: on a wrapped line of their own,
        /// 120 columns).
        #[arg(long)]
        wide: bool,
        #[command(flatten)]
        sets: SetArgs,
        #[command(flatten)]
        limits: LimitArgs,
        /// Cost against size instead: generated 3D pyramids of cubes (30 to 2,870) and ball piles (100 to
        /// 4,000), ms per step against bodies and the fitted exponent (`--method`, default lcp; `--steps`,
        /// default 60).
        #[arg(long)]
        scaling: bool,
        /// Largest generated scene of --scaling, in bodies (default 1100; 4000 runs them all).
        #[arg(long, value_name = "BODIES")]
        scaling_max: Option<usize>,
        /// Tile each scene N × N times side by side (bodies, static ones too, and joints copied with offsets;
        /// the tiles do not interact) for figures at a larger size, e.g. `--scene articulated_boxes --tile 2`:
        /// 160 boxes and 96 hinges, the paper's articulated-box scene.
        #[arg(long, value_name = "N")]
        tile: Option<usize>,
        /// Distance between tiles, m (default: the span of the bodies' positions in x and y plus 1 m).
        #[arg(long, value_name = "M")]
        tile_pitch: Option<f64>,
    },
    /// Run one scene under several methods and print one table (with --out: compare.json, compare.html and
    /// each method's run folder).
    Compare {
        scene: String,
        /// Comma-separated method keys, or `all`.
        #[arg(long, default_value = "all")]
        methods: String,
        /// Simulated time, s (overrides world.duration).
        #[arg(long, allow_hyphen_values = true)]
        duration: Option<f64>,
        /// Folder for compare.json, compare.html and one run folder per method.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        sets: SetArgs,
        #[command(flatten)]
        limits: LimitArgs,
        /// Bodies whose heights are plotted (comma-separated names; default: the dynamic body that starts highest).
        #[arg(long, value_delimiter = ',')]
        bodies: Vec<String>,
        /// Skip the shared intersection check after every step (its columns then show `-`).
        #[arg(long)]
        no_check: bool,
        /// Runs at once (default: the number of cores).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// List the bundled scenes.
    Scenes,
    /// List the contact methods, one scene key a line.
    Methods,
    /// Print a method's `[solver.<METHOD>]` parameters as a markdown table (key, default, meaning), generated
    /// from the source; docs/methods/<METHOD>.md holds it between its params markers.
    Params {
        /// Contact method (`cairn methods` lists them).
        method: String,
    },
}

fn main() {
    // a reader that stops early (`cairn scenes | head`) closes the pipe: stop quietly, as other tools do,
    // instead of panicking in println!
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info.payload().downcast_ref::<String>().map(String::as_str).unwrap_or_default();
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default_hook(info);
    }));
    if let Err(e) = real_main() {
        eprintln!("error: {e:#}");
        std::process::exit(if e.downcast_ref::<Interrupted>().is_some() { 130 } else { 1 });
    }
}

fn scene_path(s: &str) -> Result<PathBuf> {
    cairn::scene::find_scene(s).with_context(|| format!("no scene file `{s}` and no bundled scene of that name (see `cairn scenes`)"))
}

fn real_main() -> Result<()> {
    match Cli::parse().command {
        Command::Run {
            scene,
            method,
            dt,
            duration,
            out,
            no_out,
            sets,
            limits,
            frame_every,
            check_intersections,
            metrics_every,
            contacts,
            view,
            ctrl,
            all_notes,
        } => {
            if (view || contacts || metrics_every.is_some()) && no_out {
                bail!("--view, --contacts and --metrics-every write into the run folder: drop --no-out");
            }
            // Without --out the run goes to runs/SCENE-METHOD with its view page, so that the first command
            // leaves something to look at (see `run`).
            let default_out = out.is_none() && !no_out;
            let view = view || default_out;
            let load = cairn::scene::LoadOptions {
                method: method.as_deref().map(method_key).transpose()?,
                dt,
                duration,
                check_intersections: check_intersections.then_some(true),
                sets: sets.parse()?,
                limits: limits.parse()?,
            };
            let options = cairn::run::RunOptions { steps: None, out, frame_every, metrics_every, contacts, cancel: None };
            cmd_run(&scene, &load, options, RunShown { view, default_out, all_notes }, ctrl.as_deref())
        }
        Command::View { dirs, out, open } => view::cmd_view(&dirs, out.as_deref(), open),
        Command::Export { dir, gltf } => cmd_export(&dir, &gltf),
        Command::Validate { method, only, sets, plots, wide } => {
            validate_table::cmd_validate(method_key(&method)?, &only, &sets.parse()?, &plots, wide)
        }
        Command::Bench { method, scene, steps, json, wide, sets, limits, scaling, scaling_max, tile, tile_pitch } => {
            let sets = sets.parse()?;
            let limits = limits.parse()?;
            if let Some(n) = steps {
                limits.check_steps(n, "--steps").map_err(|e| anyhow::anyhow!(e))?;
            }
            let method = method.as_deref().map(method_key).transpose()?;
            if scaling {
                return bench_table::scaling_table(method.unwrap_or(MethodKey::Lcp), steps, scaling_max, &sets, json);
            }
            bench_table::cmd_bench(method, scene, steps, bench_table::Format { json, wide }, &sets, &limits, tile, tile_pitch)
        }
        Command::Compare { scene, methods, duration, out, sets, limits, bodies, no_check, jobs } => {
            let req = compare::Request {
                scene: scene_path(&scene)?,
                methods: compare::parse_methods(Some(&methods))?,
                duration,
                out,
                sets: sets.parse()?,
                limits: limits.parse()?,
                bodies,
                check: !no_check,
                jobs: jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            };
            cmd_compare(&req)
        }
        Command::Params { method } => cmd_params(method_key(&method)?),
        Command::Scenes => cmd_scenes(),
        Command::Methods => {
            MethodKey::ALL.iter().for_each(|k| println!("{k}"));
            Ok(())
        }
    }
}

/// `cairn run`: the run, then its plots page (and view page) in the run folder; the last line says what to
/// open. `default_out`: no --out was given, so the folder is runs/SCENE-METHOD.
/// What `cairn run` writes and prints besides the run itself.
#[derive(Clone, Copy)]
struct RunShown {
    /// Write view.html into the run folder.
    view: bool,
    /// No --out was given: the run goes to runs/SCENE-METHOD.
    default_out: bool,
    /// Every loader note on a line of its own.
    all_notes: bool,
}

fn cmd_run(
    scene: &str,
    load: &cairn::scene::LoadOptions,
    options: cairn::run::RunOptions,
    shown: RunShown,
    ctrl: Option<&Path>,
) -> Result<()> {
    let view = shown.view;
    let out = run(scene, load, options, shown, ctrl)?;
    if let Some(dir) = &out {
        let plots = crate::plots_html::write_plots(dir)?;
        println!("plots: {}", plots.display());
        if view {
            let page = crate::view::write_view(std::slice::from_ref(dir), None)?;
            println!("view: {}", page.display());
            println!("{} {}", view::open_command(), page.display());
        } else {
            println!("{} {}", view::open_command(), plots.display());
        }
    } else {
        println!("wrote nothing (--no-out; without it the run goes to runs/SCENE-METHOD with a page to open)");
    }
    Ok(())
}

/// A note for each `--set solver.M.KEY=…` whose method M is a method other than `method`, the one that runs
/// (such a value is read but changes nothing in this run).
fn warn_other_solvers(sets: &[(String, String)], method: MethodKey) {
    for (key, _) in sets {
        let mut parts = key.split('.');
        if let (Some("solver"), Some(m)) = (parts.next(), parts.next()) {
            if MethodKey::parse(m).is_ok_and(|k| k != method) {
                eprintln!("note: --set {key} applies to {m}, but the run uses {method}");
            }
        }
    }
}

fn cmd_export(dir: &Path, gltf: &Path) -> Result<()> {
    let t0 = std::time::Instant::now();
    let spin = crate::progress::spinner(format!("exporting {} to {}", dir.display(), gltf.display()));
    let r = crate::export::write_glb(dir, gltf);
    spin.finish_and_clear();
    r?;
    let size = std::fs::metadata(gltf).map(|m| m.len()).unwrap_or(0);
    println!("wrote {} ({:.1} MB in {:.2} s)", gltf.display(), size as f64 / 1e6, t0.elapsed().as_secs_f64());
    Ok(())
}

/// `cairn compare`: the table, and with `--out` the folder's pages.
fn cmd_compare(req: &compare::Request) -> Result<()> {
    let c = compare::compare(req)?;
    print!("{}", compare::table(&c));
    if let Some(dir) = &req.out {
        println!("wrote {}/{{compare.json, compare.html}} and one run folder per method that ran", dir.display());
        if c.runs.iter().any(|r| r.status == "ran") {
            let page = crate::view::write_view(std::slice::from_ref(dir), None)?;
            println!("wrote {} (every run that ran, side by side; open it in a browser)", page.display());
        }
    } else {
        println!("wrote nothing (--out DIR writes compare.json, compare.html, view.html and the runs)");
    }
    Ok(())
}

/// `cairn scenes`: each bundled scene's name and one-line description, then the robot models.
fn cmd_scenes() -> Result<()> {
    let scenes = cairn::scene::list_scenes();
    let width = scenes.iter().filter_map(|p| p.file_stem()).map(|s| s.len()).max().unwrap_or(12);
    for p in &scenes {
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        println!("{stem:<width$}  {}", cairn::scene::description(p));
    }
    let robots = cairn::scene::list_robots();
    if !robots.is_empty() {
        println!();
        println!(
            "robot models in {} (a scene places one with [[robot]] file = \"...\"; see docs/robots.md):",
            cairn::scene::scenes_dir().join("robots").display()
        );
        let width = robots.iter().filter_map(|p| p.file_name()).map(|s| s.len()).max().unwrap_or(12);
        for p in &robots {
            let name = p.file_name().and_then(|s| s.to_str()).unwrap_or("?");
            println!("{name:<width$}  {}", cairn::scene::description(p));
        }
    }
    println!("run one with `cairn run NAME` (a robot scene by its path, e.g. scenes/robots/arm2_scene.toml)");
    Ok(())
}

/// `cairn params METHOD`: the parameter table of docs/methods/METHOD.md.
fn cmd_params(key: MethodKey) -> Result<()> {
    print!("{}", cairn::methods::param_docs::method_table(key));
    Ok(())
}

fn parse_sets(sets: &[String]) -> Result<Vec<(String, String)>> {
    sets.iter()
        .map(|s| {
            let (k, v) = s.split_once('=').with_context(|| format!("--set `{s}`: expected KEY=VALUE"))?;
            Ok((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

/// Runs the scene and prints its summary; returns the run folder written, if any (`default_out`: none was
/// given, so it is runs/SCENE-METHOD, named after the scene file and the method that runs).
fn run(
    scene: &str,
    load: &cairn::scene::LoadOptions,
    mut options: cairn::run::RunOptions,
    shown: RunShown,
    ctrl: Option<&Path>,
) -> Result<Option<PathBuf>> {
    let path = scene_path(scene)?;
    let mut model = cairn::scene::load_with(&path, load)?;
    if let Some(ctrl) = ctrl {
        cairn::scene::control_csv::apply(ctrl, &mut model)?;
    }
    warn_other_solvers(&load.sets, model.method);
    if shown.default_out {
        let stem = path.file_stem().map_or_else(|| model.name.clone(), |s| s.to_string_lossy().into_owned());
        options.out = Some(Path::new("runs").join(format!("{stem}-{}", model.method)));
    }
    let full = if options.out.is_some() { "summary.json's `notes`, or --all-notes" } else { "--all-notes" };
    let lines = cairn::scene::notes::display_lines(&path.display().to_string(), &model.notes, full);
    let lines = if shown.all_notes { cairn::scene::notes::every_line(&path.display().to_string(), &model.notes) } else { lines };
    for line in lines {
        eprintln!("note: {line}");
    }
    let mut world = World::new(model)?;
    let steps = cairn::run::default_steps(&world);
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(steps);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} steps  {elapsed} ({eta} left)  {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    options.steps = Some(steps);
    // SIGINT / SIGTERM: the run stops after the step in progress and writes its files ("completed": false)
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = cancel.clone();
    ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::SeqCst))
        .context("cannot install the SIGINT/SIGTERM handler")?;
    options.cancel = Some(cancel);
    let out = options.out.clone();
    let report = cairn::run::run(&mut world, &options, &mut |w, stats| {
        bar.inc(1);
        if w.state.step % 16 == 0 {
            bar.set_message(format!("{} contacts", stats.contacts));
        }
    });
    bar.finish_and_clear();
    let report = match (report, &out) {
        // a failed step: the files up to the last step taken are written, the summary names the failure
        (Err(cairn::RunError::Sim(e)), Some(dir)) => {
            bail!("{e}; {} holds the run up to step {} (summary.json: \"completed\": false, \"error\")", dir.display(), world.state.step)
        }
        (r, _) => r?,
    };
    if !report.completed {
        let files = match &out {
            Some(dir) => format!("; {} holds them (summary.json: \"completed\": false)", dir.display()),
            None => String::new(),
        };
        return Err(Interrupted(format!("interrupted after {} of {steps} steps{files}", report.steps)).into());
    }
    for note in world.notes().iter().skip(world.model.notes.len()) {
        eprintln!("note: {note}");
    }
    if let Some(dir) = &out {
        let extra = if options.contacts { ", contacts.npy" } else { "" };
        println!("wrote {}/{{trajectory.npy, metrics.csv, summary.json, geometry.json{extra}}}", dir.display());
    }
    let (wall, tracker) = (report.wall_seconds, report.tracker);
    let m = &world.model;
    println!(
        "{}: method {}, {} bodies, {} steps of {:.4} s in {:.2} s wall ({:.3} ms/step)",
        m.name,
        m.method,
        m.bodies.len(),
        steps,
        m.dt,
        wall,
        wall * 1e3 / steps.max(1) as f64
    );
    println!(
        "largest penetration {:.3} mm, largest displacement of a body {:.3} mm (drift beyond a fall along gravity \
         {:.3} mm), final kinetic energy {:.3e} J",
        tracker.max_penetration * 1e3,
        tracker.max_drift(m) * 1e3,
        tracker.max_drift_beyond_fall(m) * 1e3,
        world.state.kinetic_energy(m)
    );
    Ok(out)
}
