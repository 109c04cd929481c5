//! Scene mutation smoke test (issue "Hostile and faulty input"): small bundled scenes, each mutated by one or two
//! hostile edits of its TOML (a number replaced by 0, −1, ±1e300, 1e155, 1e-300, NaN, ±infinity or a string, a
//! key removed, an array shortened), loaded and stepped a few steps under every method. A mutant may be refused
//! or fail a step with an error; it may not panic, and no load or step may take longer than `PATIENCE`. Prints
//! the counts (mutants tried, ran, refused, failed a step, panics, hangs) per method.

use cairn::model::MethodKey;
use std::sync::mpsc;
use std::time::Duration;
use toml::Value;

/// The scenes mutated: primitives, meshes, joints, motors, a proxy; none that is slow to step under any method.
const BASES: [&str; 11] = [
    "stack10",
    "spinning_ball",
    "cubedrop",
    "hinge_pendulum",
    "incline",
    "slider",
    "cradle",
    "fourbar",
    "blocks4",
    "bricks6_proxy",
    "two_tori",
];
/// Mutants per base scene.
const PER_BASE: usize = 40;
/// Steps each loaded mutant runs.
const STEPS: usize = 3;
/// Longest a mutant's load and steps may take under one method before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(60);

/// The paths of a value's leaves (table keys and array indices), in a deterministic order.
fn leaves(v: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Table(t) => {
            for (k, x) in t {
                path.push(k.clone());
                leaves(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                path.push(i.to_string());
                leaves(x, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn at<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let mut cur = v;
    for p in path {
        cur = match cur {
            Value::Table(t) => t.get_mut(p)?,
            Value::Array(a) => a.get_mut(p.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

const HOSTILE: [f64; 10] = [0.0, -1.0, 1e300, -1e300, 1e155, 1e-300, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e9];

/// One hostile edit of `v`; returns what it did.
fn mutate(v: &mut Value, rng: &mut oorandom::Rand64) -> String {
    let mut all = Vec::new();
    leaves(v, &mut Vec::new(), &mut all);
    let path = all[rng.rand_range(0..all.len() as u64) as usize].clone();
    let name = path.join(".");
    match rng.rand_range(0..10) {
        0 if path.len() > 1 => {
            // remove the key (or the array element) holding the leaf
            let (last, parent) = path.split_last().expect("a path of two or more");
            match at(v, parent) {
                Some(Value::Table(t)) => {
                    t.remove(last);
                }
                Some(Value::Array(a)) => {
                    a.remove(last.parse::<usize>().unwrap_or(0).min(a.len() - 1));
                }
                _ => {}
            }
            format!("removed {name}")
        }
        1 => {
            if let Some(x) = at(v, &path) {
                *x = Value::String("hostile".into());
            }
            format!("{name} = \"hostile\"")
        }
        _ => {
            let h = HOSTILE[rng.rand_range(0..HOSTILE.len() as u64) as usize];
            if let Some(x) = at(v, &path) {
                *x = if h.fract() == 0.0 && h.abs() < 1e15 && matches!(x, Value::Integer(_)) {
                    Value::Integer(h as i64)
                } else {
                    Value::Float(h)
                };
            }
            format!("{name} = {h:e}")
        }
    }
}

#[derive(Default, Debug)]
struct Counts {
    tried: usize,
    ran: usize,
    refused: usize,
    failed: usize,
    panics: Vec<String>,
    hangs: Vec<String>,
}

enum Fate {
    Ran,
    Refused,
    Failed,
}

fn try_mutant(text: String, method: MethodKey) -> Fate {
    let opts = cairn::scene::LoadOptions::method(method);
    let dir = cairn::scene::scenes_dir();
    let model = match cairn::scene::load_str_with(&text, "mutant.toml", "mutant", &dir, &opts) {
        Ok(m) => m,
        Err(_) => return Fate::Refused,
    };
    let mut w = match cairn::world::World::new(model) {
        Ok(w) => w,
        Err(_) => return Fate::Refused,
    };
    for _ in 0..STEPS {
        if w.step().is_err() {
            return Fate::Failed;
        }
    }
    Fate::Ran
}

#[test]
fn hostile_scene_mutants_never_panic_or_hang() {
    let mut rng = oorandom::Rand64::new(0x5eed_ca1e);
    let mut counts: Vec<(MethodKey, Counts)> = MethodKey::ALL.iter().map(|&m| (m, Counts::default())).collect();
    for base in BASES {
        let path = cairn::scene::find_scene(base).unwrap_or_else(|| panic!("bundled scene {base} not found"));
        let original: Value = std::fs::read_to_string(&path).unwrap().parse::<toml::Table>().map(Value::Table).unwrap();
        for k in 0..PER_BASE {
            let mut v = original.clone();
            let mut what = vec![mutate(&mut v, &mut rng)];
            if k % 2 == 1 {
                what.push(mutate(&mut v, &mut rng));
            }
            let text = toml::to_string(&v).unwrap();
            let label = format!("{base}: {}", what.join(", "));
            for (method, c) in counts.iter_mut() {
                c.tried += 1;
                let (tx, rx) = mpsc::channel();
                let (t, m) = (text.clone(), *method);
                std::thread::spawn(move || {
                    let fate = std::panic::catch_unwind(|| try_mutant(t, m));
                    let _ = tx.send(fate);
                });
                match rx.recv_timeout(PATIENCE) {
                    Ok(Ok(Fate::Ran)) => c.ran += 1,
                    Ok(Ok(Fate::Refused)) => c.refused += 1,
                    Ok(Ok(Fate::Failed)) => c.failed += 1,
                    Ok(Err(_)) => c.panics.push(label.clone()),
                    Err(_) => c.hangs.push(label.clone()),
                }
                // a hung mutant's thread keeps a core busy: what follows would time out too
                if !c.hangs.is_empty() {
                    panic!("{method}: over {PATIENCE:?}: {label}");
                }
            }
        }
    }
    let mut bad = Vec::new();
    for (m, c) in &counts {
        println!(
            "mutants {m:<18} tried {}, ran {}, refused {}, failed a step {}, panics {}, hangs {}",
            c.tried,
            c.ran,
            c.refused,
            c.failed,
            c.panics.len(),
            c.hangs.len()
        );
        bad.extend(c.panics.iter().map(|l| format!("{m}: panic: {l}")));
        bad.extend(c.hangs.iter().map(|l| format!("{m}: over {PATIENCE:?}: {l}")));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
