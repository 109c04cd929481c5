//! Property tests of every file loader (issue "Hostile and faulty input"): the TOML scene loader, the `.scn`
//! translator, URDF, MJCF, OBJ and STL, each on inputs made by proptest from valid seeds by a few edits (a span
//! replaced by or a token inserted from the format's own vocabulary and hostile numbers, a span deleted, a byte
//! changed, a number replaced). Every input must load or be refused with an error; a panic fails the test (and
//! proptest shrinks it to a small input), and so does a loader that takes longer than `PATIENCE` on the whole
//! run (a hang). Prints the counts per loader. The `.npy` reader's test is in the command line's runfiles.rs.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// Longest one loader's whole run may take before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(120);

/// Numbers a hostile or careless file holds.
const NUMBERS: &[&str] =
    &["0", "-1", "1e308", "-1e308", "1e-320", "nan", "inf", "-inf", "NaN", "1e155", "18446744073709551616", "4294967295", "0.5", "-0"];

/// One edit of an input: what, where (a fraction of the length), how long a span, and the token or byte used.
#[derive(Debug, Clone)]
struct Edit {
    op: u8,
    at: prop::sample::Index,
    span: usize,
    token: &'static str,
    byte: u8,
}

fn edits(tokens: &'static [&'static str]) -> impl Strategy<Value = Vec<Edit>> {
    let one = (0u8..5, any::<prop::sample::Index>(), 0usize..24, prop::sample::select(tokens), any::<u8>())
        .prop_map(|(op, at, span, token, byte)| Edit { op, at, span, token, byte });
    prop::collection::vec(one, 1..5)
}

/// Applies the edits to a copy of `seed`.
fn mutate(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for e in edits {
        let i = e.at.index(b.len() + 1);
        let j = (i + e.span).min(b.len());
        match e.op {
            0 => drop(b.splice(i..j, e.token.bytes())),
            1 => drop(b.splice(i..i, e.token.bytes())),
            2 => drop(b.drain(i..j)),
            3 if i < b.len() => b[i] = e.byte,
            _ => {
                // the next number at or after i replaced by a hostile one
                let Some(s) = (i..b.len()).find(|&k| b[k].is_ascii_digit()) else { continue };
                let end = (s..b.len()).find(|&k| !(b[k].is_ascii_digit() || b".eE+-".contains(&b[k]))).unwrap_or(b.len());
                let n = NUMBERS[e.byte as usize % NUMBERS.len()];
                b.splice(s..end, n.bytes());
            }
        }
    }
    b
}

/// What one loader's run saw.
#[derive(Default)]
struct Counts {
    loaded: AtomicUsize,
    refused: AtomicUsize,
}

/// Runs `cases` mutants of the seeds through `load` (true: loaded, false: refused with an error) in a thread
/// with `PATIENCE`; fails on a panic (proptest's minimal input in the message) or a hang; prints the counts.
fn fuzz(
    name: &'static str,
    cases: u32,
    seeds: Vec<Vec<u8>>,
    tokens: &'static [&'static str],
    load: impl Fn(&[u8]) -> bool + Send + Sync + 'static,
) {
    let counts = Arc::new(Counts::default());
    let c = counts.clone();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let config = Config { cases, failure_persistence: None, ..Config::default() };
        // a fixed seed: the same mutants on every run and machine
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
        let mut runner = TestRunner::new_with_rng(config, rng);
        let strategy = (0..seeds.len(), edits(tokens));
        let r = runner.run(&strategy, |(k, e)| {
            let input = mutate(&seeds[k], &e);
            let ok = load(&input);
            (if ok { &c.loaded } else { &c.refused }).fetch_add(1, Ordering::Relaxed);
            Ok(())
        });
        tx.send(r.map_err(|e| e.to_string())).ok();
    });
    match rx.recv_timeout(PATIENCE) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => panic!("{name}: {e}"),
        Err(_) => panic!("{name}: a loader hung (no end within {PATIENCE:?})"),
    }
    let (l, r) = (counts.loaded.load(Ordering::Relaxed), counts.refused.load(Ordering::Relaxed));
    eprintln!("fuzz {name}: {} tried, {l} loaded, {r} refused, 0 panics, 0 hangs", l + r);
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

const TOML_TOKENS: &[&str] = &[
    "[[body]]\n",
    "[world]\n",
    "[limits]\n",
    "[[joint]]\n",
    "[[robot]]\n",
    "[solver.lcp]\n",
    "shape = { type = \"box\", size = [1e308, 1, 1] }\n",
    "repeat = { count = [1000, 1000, 1000], step = [0, 0, 0] }\n",
    "file = \"/dev/zero\"\n",
    "kind = \"kinematic\"\n",
    "=",
    "[",
    "]",
    "{",
    "}",
    "\"",
    ",",
    "\n",
    "1e308",
    "nan",
    "-1",
    "0",
    "inf",
];

#[test]
fn toml_scenes() {
    let names =
        ["stack10", "incline", "hinge_pendulum", "slider", "cradle", "fourbar", "bricks6_proxy", "spinning_ball", "robots/arm2_scene"];
    let seeds = names.iter().map(|n| read(&format!("scenes/{n}.toml"))).collect();
    fuzz("toml scene", 10000, seeds, TOML_TOKENS, |b| {
        let mut opts = cairn::scene::LoadOptions::default();
        // bounded: a mutant that asks for a million bodies is refused, not built
        opts.limits.set("bodies", "5000").unwrap();
        cairn::scene::load_str_with(&String::from_utf8_lossy(b), "fuzz.toml", "fuzz", &root().join("scenes/robots"), &opts).is_ok()
    });
}

#[test]
fn scn_scenes() {
    let seeds = ["stack26", "stackdrop30"].iter().map(|n| read(&format!("scenes/{n}.scn"))).collect();
    const TOKENS: &[&str] = &["\n", " ", "replication", "1e308", "-1", "nan", "1000000000", "0", "{", "}", "="];
    fuzz("scn", 10000, seeds, TOKENS, |b| cairn::scene::scn::to_toml(&String::from_utf8_lossy(b), 5000).is_ok());
}

const XML_TOKENS: &[&str] = &[
    "<",
    ">",
    "/>",
    "\"",
    "=",
    "&amp;",
    "&#0;",
    "<!--",
    "-->",
    "<joint name=\"j\" type=\"free\"/>",
    "<body name=\"b\">",
    "</body>",
    "<geom type=\"mesh\" mesh=\"m\"/>",
    "<mesh name=\"m\" file=\"/dev/zero\"/>",
    "<mesh filename=\"/dev/urandom\"/>",
    "<include file=\"included.xml\"/>",
    "<include file=\"/dev/zero\"/>",
    "<link name=\"l\"/>",
    "<inertial><mass value=\"-1\"/></inertial>",
    " pos=\"1e308 0 0\"",
    " quat=\"0 0 0 0\"",
    " size=\"nan\"",
    " range=\"1 -1\"",
    " mass=\"0\"",
    "1e308",
    "nan",
    "-1",
];

#[test]
fn urdf_robots() {
    let seeds = vec![read("scenes/robots/arm2.urdf"), read("scenes/robots/pendulum.urdf")];
    let dir = root().join("scenes/robots");
    fuzz("urdf", 10000, seeds, XML_TOKENS, move |b| cairn::scene::urdf::load(&String::from_utf8_lossy(b), "fuzz.urdf", &dir).is_ok());
}

#[test]
fn mjcf_robots() {
    let seeds = ["quadruped", "gimbal", "ghosts", "included"].iter().map(|n| read(&format!("scenes/robots/{n}.xml"))).collect();
    let dir = root().join("scenes/robots");
    fuzz("mjcf", 10000, seeds, XML_TOKENS, move |b| cairn::scene::mjcf::load(&String::from_utf8_lossy(b), "fuzz.xml", &dir).is_ok());
}

#[test]
fn obj_meshes() {
    let cube = "# a unit cube\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nvn 0 0 1\nvt 0.5 0.5\n\
f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n";
    let quads =
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 0.5 1\nf 1/1/1 4/4/4 3/3/3 2/2/2\nf 1//1 2//2 5//5\nf -4 -3 -1\nf 3 4 5\nf 4 1 5\n";
    const TOKENS: &[&str] = &["v ", "f ", "vn ", "/", "//", "-1", "-100", "0", "4294967296", "1e308", "nan", "\n", " ", "#"];
    fuzz("obj", 10000, vec![cube.into(), quads.into()], TOKENS, |b| cairn::geometry::mesh::parse_obj(&String::from_utf8_lossy(b)).is_ok());
}

/// A binary STL of a tetrahedron.
fn binary_stl() -> Vec<u8> {
    let v = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let tris = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]];
    let mut b = vec![0u8; 80];
    b.extend((tris.len() as u32).to_le_bytes());
    for t in tris {
        b.extend([0u8; 12]);
        for i in t {
            b.extend(v[i].iter().flat_map(|x| x.to_le_bytes()));
        }
        b.extend([0u8; 2]);
    }
    b
}

#[test]
fn stl_meshes() {
    const TOKENS: &[&str] = &[
        "solid ",
        "facet normal 0 0 1\n",
        "outer loop\n",
        "vertex 1e308 nan -1\n",
        "endloop\n",
        "endfacet\n",
        "endsolid\n",
        "\u{ff}\u{ff}\u{ff}\u{ff}",
    ];
    fuzz("stl", 10000, vec![read("scenes/robots/meshes/forearm.stl"), binary_stl()], TOKENS, |b| {
        cairn::geometry::mesh::parse_stl(b).is_ok()
    });
}
