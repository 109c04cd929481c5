//! `cairn view` in a real browser: Debian's `chromium`, headless, with a software GL (SwiftShader through
//! ANGLE). The page of a pyramid20 run is rendered at two frames; the screenshots must show the bodies in their
//! colour where the camera looks, differ between the two times, and the page must report no error. A view of
//! two runs (lcp and impulse) must show both colours. Screenshots are kept in target/view-test/.
//!
//! Without chromium the test prints that it skipped, unless CAIRN_BROWSER_TEST=require (as in .ci/run), which
//! makes a missing browser a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn cairn(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_cairn")).current_dir(root()).args(args).output().unwrap();
    assert!(out.status.success(), "cairn {args:?}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

fn browser() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join("chromium")).find(|p| p.is_file());
    if found.is_none() {
        if std::env::var("CAIRN_BROWSER_TEST").as_deref() == Ok("require") {
            panic!("CAIRN_BROWSER_TEST=require, but no `chromium` on PATH (Debian: apt-get install -y chromium)");
        }
        eprintln!("skipped: no `chromium` on PATH (set CAIRN_BROWSER_TEST=require to make this a failure)");
    }
    found
}

/// The flags that give headless chromium a software WebGL (SwiftShader through ANGLE).
const SOFTWARE_GL: [&str; 2] = ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"];

/// Runs headless chromium on `page#hash`; with `screenshot`, writes it there, else returns the DOM after load.
fn chromium(exe: &Path, page: &Path, hash: &str, screenshot: Option<&Path>) -> String {
    chromium_with(exe, page, hash, screenshot, &SOFTWARE_GL)
}

/// [`chromium`] with `gl` as its graphics flags.
fn chromium_with(exe: &Path, page: &Path, hash: &str, screenshot: Option<&Path>, gl: &[&str]) -> String {
    let url = format!("file://{}#{hash}", page.canonicalize().unwrap().display());
    // a profile of its own per browser: the tests run side by side, and chromium locks its profile
    static BROWSERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = BROWSERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let profile = root().join(format!("target/view-test/profile-{}-{n}", std::process::id()));
    let mut c = Command::new(exe);
    c.args(["--headless", "--no-sandbox", "--disable-gpu-sandbox", "--no-first-run", "--hide-scrollbars", "--window-size=960,600"])
        .args(gl)
        .arg("--virtual-time-budget=30000")
        .arg(format!("--user-data-dir={}", profile.display()));
    match screenshot {
        Some(p) => c.arg(format!("--screenshot={}", p.display())),
        None => c.arg("--dump-dom"),
    };
    let out = c.arg(&url).output().expect("chromium runs");
    let _ = std::fs::remove_dir_all(&profile);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "chromium {url}: {stderr}");
    assert!(!stderr.contains("Uncaught"), "the page threw: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The page's status line (the `#status` element): `ok frame=…` when it rendered, `error: …` otherwise.
fn status(dom: &str) -> String {
    let at = dom.find("id=\"status\"").unwrap_or_else(|| panic!("no #status in the page: {}", &dom[..dom.len().min(2000)]));
    let rest = &dom[at..];
    let text = &rest[rest.find('>').unwrap() + 1..];
    text[..text.find('<').unwrap()].to_string()
}

struct Image {
    w: usize,
    h: usize,
    rgb: Vec<[u8; 3]>,
}

fn read_png(path: &Path) -> Image {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let n = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        c => panic!("{}: colour type {c:?}", path.display()),
    };
    let rgb = buf[..info.buffer_size()].chunks_exact(n).map(|p| [p[0], p[1], p[2]]).collect();
    Image { w: info.width as usize, h: info.height as usize, rgb }
}

impl Image {
    /// The pixels of the central box (the middle `frac` of width and height).
    fn central_pixels(&self, frac: f64) -> impl Iterator<Item = [i32; 3]> + '_ {
        let (x0, x1) = (((1.0 - frac) / 2.0 * self.w as f64) as usize, ((1.0 + frac) / 2.0 * self.w as f64) as usize);
        let (y0, y1) = (((1.0 - frac) / 2.0 * self.h as f64) as usize, ((1.0 + frac) / 2.0 * self.h as f64) as usize);
        (y0..y1).flat_map(move |y| (x0..x1).map(move |x| self.rgb[y * self.w + x].map(i32::from)))
    }

    /// The fraction of pixels in the central box (the middle `frac` of width and height) that satisfy `pred`.
    fn central(&self, frac: f64, pred: impl Fn([i32; 3]) -> bool) -> f64 {
        let (mut n, mut all) = (0, 0);
        for p in self.central_pixels(frac) {
            n += pred(p) as usize;
            all += 1;
        }
        n as f64 / all as f64
    }

    /// The mean red channel of the orange-hued pixels (red above blue by 30, lit or dark) in the central box.
    fn central_red(&self, frac: f64) -> f64 {
        let red: Vec<f64> = self.central_pixels(frac).filter(|p| p[0] - p[2] > 30).map(|p| p[0] as f64).collect();
        assert!(red.len() > 100, "hardly any orange pixels in the middle of the picture");
        red.iter().sum::<f64>() / red.len() as f64
    }
}

/// lcp's orange (#e07b20), lit: red well above blue.
fn orange(p: [i32; 3]) -> bool {
    p[0] - p[2] > 70 && p[0] > p[1]
}

/// impulse's blue (#2f6fd6), lit: blue well above red.
fn blue(p: [i32; 3]) -> bool {
    p[2] - p[0] > 70 && p[2] > p[1]
}

#[test]
fn view_of_pyramid20_renders_moves_and_logs_no_error_in_chromium() {
    let Some(exe) = browser() else { return };
    let dir = root().join("target/view-test");
    std::fs::create_dir_all(&dir).unwrap();
    let run = dir.join("pyramid20");
    // a floor tilted by gravity's sideways part (beyond the friction cone): the pyramid slides, visibly
    let (run_s, imp_s) = (run.to_str().unwrap(), dir.join("pyramid20-impulse"));
    cairn(&["run", "pyramid20", "--duration", "1.5", "--set", "world.gravity=[15.0, 0.0, -9.81]", "--out", run_s, "--view", "--contacts"]);
    let page = run.join("view.html");
    assert!(page.is_file());

    let last = 90; // 1.5 s at 60 frames per second
    let dom = chromium(&exe, &page, "frame=0", None);
    assert_eq!(status(&dom), format!("ok frame=0 runs=1 bodies=211 frames={}", last + 1));
    let dom = chromium(&exe, &page, &format!("frame={last}&contacts=1"), None);
    assert!(status(&dom).starts_with(&format!("ok frame={last} ")), "{}", status(&dom));
    // a click where the camera looks (the window's centre) opens the panel of a cube of the pyramid
    let dom = chromium(&exe, &page, "frame=30&click=480,300", None);
    let panel = &dom[dom.find("id=\"info\"").expect("an #info panel")..];
    let panel = &panel[..panel.find("</div>").unwrap()];
    for part in ["(dynamic, lcp)", "frame 30, t = 0.5000 s, step 30", "origin ", "velocity ", "stages of step 30:", "collision", "total"] {
        assert!(panel.contains(part), "the clicked body's panel lacks `{part}`: {panel}");
    }
    assert!(panel.contains(">row"), "the clicked body is not a cube of the pyramid (rowN_…): {panel}");

    let (a, b) = (dir.join("pyramid20-t0.png"), dir.join("pyramid20-t1.5.png"));
    chromium(&exe, &page, "frame=0", Some(&a));
    chromium(&exe, &page, &format!("frame={last}&contacts=1"), Some(&b));
    let (ia, ib) = (read_png(&a), read_png(&b));
    assert_eq!((ia.w, ia.h), (ib.w, ib.h));
    let body = ia.central(0.5, orange);
    assert!(body > 0.05, "{}: only {:.1}% of the central pixels are lcp's orange", a.display(), body * 100.0);
    let changed = ia.rgb.iter().zip(&ib.rgb).filter(|(p, q)| (0..3).any(|k| (p[k] as i32 - q[k] as i32).abs() > 40)).count();
    let changed = changed as f64 / ia.rgb.len() as f64;
    assert!(changed > 0.01, "only {:.2}% of the pixels differ between t = 0 and t = 1.5 s", changed * 100.0);

    // two runs side by side, one colour per method
    cairn(&[
        "run",
        "pyramid20",
        "--method",
        "impulse",
        "--duration",
        "1.5",
        "--set",
        "world.gravity=[15.0, 0.0, -9.81]",
        "--out",
        imp_s.to_str().unwrap(),
    ]);
    let multi = dir.join("view-lcp-impulse.html");
    cairn(&["view", run_s, imp_s.to_str().unwrap(), "--out", multi.to_str().unwrap()]);
    let dom = chromium(&exe, &multi, "frame=30", None);
    assert_eq!(status(&dom), format!("ok frame=30 runs=2 bodies=422 frames={}", last + 1));
    let shot = dir.join("pyramid20-lcp-impulse.png");
    chromium(&exe, &multi, "frame=30", Some(&shot));
    let im = read_png(&shot);
    let (o, bl) = (im.central(0.8, orange), im.central(0.8, blue));
    assert!(o > 0.01 && bl > 0.01, "{}: lcp orange {:.1}%, impulse blue {:.1}% of the pixels", shot.display(), o * 100.0, bl * 100.0);
    eprintln!(
        "screenshots: {}, {}, {}; lcp orange {:.1}% of the centre, {:.1}% of the pixels changed; side by side: orange {:.1}%, blue {:.1}%",
        a.display(),
        b.display(),
        shot.display(),
        body * 100.0,
        changed * 100.0,
        o * 100.0,
        bl * 100.0
    );
}

/// The z of every body's origin at every frame of a run folder's `trajectory.npy` (rows [t, per body a 3×4
/// pose row-major]), and the x.
fn trajectory_extent(dir: &Path) -> ([f64; 2], [f64; 2]) {
    let bytes = std::fs::read(dir.join("trajectory.npy")).unwrap();
    let hlen = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + hlen]).unwrap();
    let shape = header.split("'shape': (").nth(1).unwrap();
    let cols: usize = shape.split(',').nth(1).unwrap().trim().trim_end_matches(')').trim().parse().unwrap();
    let data: Vec<f64> = bytes[10 + hlen..].chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    let (mut x, mut z) = ([f64::INFINITY, f64::NEG_INFINITY], [f64::INFINITY, f64::NEG_INFINITY]);
    for row in data.chunks_exact(cols) {
        for b in 0..(cols - 1) / 12 {
            let (px, pz) = (row[1 + 12 * b + 3], row[1 + 12 * b + 11]);
            (x[0], x[1], z[0], z[1]) = (x[0].min(px), x[1].max(px), z[0].min(pz), z[1].max(pz));
        }
    }
    (x, z)
}

/// A swinging chain (chain10: it leaves a camera framed on its first frame): the camera frames every body's
/// origin over the whole motion (the page's `data-framed` box holds the trajectory's x and z ranges). Without
/// WebGL the page says so in `#no-webgl`, with the flags that give it, and shows the first frame as a picture.
#[test]
fn the_camera_frames_the_whole_motion_and_no_webgl_gets_a_picture() {
    let Some(exe) = browser() else { return };
    let dir = root().join("target/view-test");
    std::fs::create_dir_all(&dir).unwrap();
    let run = dir.join("chain10");
    cairn(&["run", "chain10", "--duration", "3", "--out", run.to_str().unwrap(), "--view"]);
    let page = run.join("view.html");
    let dom = chromium(&exe, &page, "frame=0", None);
    assert!(status(&dom).starts_with("ok frame=0"), "{}", status(&dom));
    let at = dom.find("data-framed=\"").expect("the page reports the framed box") + "data-framed=\"".len();
    let b: Vec<f64> = dom[at..at + dom[at..].find('"').unwrap()].split(' ').map(|v| v.parse().unwrap()).collect();
    let (x, z) = trajectory_extent(&run);
    assert!(b[0] <= x[0] && b[3] >= x[1] && b[2] <= z[0] && b[5] >= z[1], "framed {b:?}, the chain's x {x:?} and z {z:?}");
    let dom = chromium_with(&exe, &page, "frame=0", None, &["--disable-webgl", "--disable-3d-apis"]);
    let at = dom.find("id=\"no-webgl\"").unwrap_or_else(|| panic!("no #no-webgl without WebGL: {}", status(&dom)));
    let fallback = &dom[at..];
    assert!(fallback.contains("--use-angle=swiftshader") && fallback.contains("<circle"), "{}", &fallback[..fallback.len().min(600)]);
    assert!(status(&dom).starts_with("no WebGL"), "{}", status(&dom));
}

#[test]
fn sleeping_bodies_are_counted_and_drawn_darker_in_chromium() {
    let Some(exe) = browser() else { return };
    let dir = root().join("target/view-test");
    std::fs::create_dir_all(&dir).unwrap();
    let run = dir.join("pyramid20-sleep");
    // pyramid20 settles within 0.75 s and sleeps 0.5 s later
    cairn(&["run", "pyramid20", "--duration", "2", "--out", run.to_str().unwrap(), "--view"]);
    let page = run.join("view.html");
    let asleep = |dom: &str| -> String {
        let t = &dom[dom.find("id=\"time\"").expect("a #time element")..];
        let t = &t[..t.find('>').unwrap()];
        t.split("data-asleep=\"").nth(1).and_then(|s| s.split('"').next()).unwrap_or("").to_string()
    };
    assert_eq!(asleep(&chromium(&exe, &page, "frame=0", None)), "0");
    assert_eq!(asleep(&chromium(&exe, &page, "frame=120", None)), "210");
    // the same cubes darker once asleep: the orange pixels in the middle of the picture less bright
    let (a, b) = (dir.join("pyramid20-awake.png"), dir.join("pyramid20-asleep.png"));
    chromium(&exe, &page, "frame=10", Some(&a));
    chromium(&exe, &page, "frame=120", Some(&b));
    let (awake, sleeping) = (read_png(&a).central_red(0.5), read_png(&b).central_red(0.5));
    assert!(sleeping < 0.75 * awake, "mean red of the cubes' pixels awake {awake:.1}, asleep {sleeping:.1}");
}
