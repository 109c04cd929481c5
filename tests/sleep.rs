//! Sleeping (dynamics/sleep.rs): islands at rest leave the step and wake when something moving touches them, a
//! force is applied, or their state is set; with `[world] sleep = false` nothing sleeps.

use cairn::math::Vec3;
use cairn::world::{Frame, World};

/// A tower of six unit cubes on the ground and, with `striker`, a 2000 kg box thrown from the side so that it
/// strikes the tower's top at about 1.1 s, after the tower has fallen asleep.
fn tower(method: &str, sleep: bool, striker: bool) -> World {
    nudged_tower(method, sleep, striker, 0.0)
}

/// [`tower`] with the striker thrown from `nudge` m farther back.
fn nudged_tower(method: &str, sleep: bool, striker: bool, nudge: f64) -> World {
    let mut s = format!(
        "format = 1\n[world]\ndt = 0.01\nduration = 3.0\nmethod = \"{method}\"\nsleep = {sleep}\n\
         [[body]]\nname = \"ground\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [40, 40, 1] }}\nposition = [0, 0, -0.5]\n\
         [[body]]\nname = \"cube\"\nshape = {{ type = \"box\", size = [1, 1, 1] }}\nposition = [0, 0, {}]\n\
         repeat = {{ count = [1, 1, 6], step = [0, 0, 1.001] }}\n",
        0.501
    );
    if striker {
        // x(t) = −12 + 10 t, z(t) = 11.5 − ½ g t²: at t = 1.11 s it meets the sixth cube's face at z ≈ 5.5
        s += &format!(
            "[[body]]\nname = \"striker\"\nshape = {{ type = \"box\", size = [0.8, 0.8, 0.8] }}\nmass = 2000\n\
             position = [{}, 0, 11.5]\nvelocity = [10, 0, 0]\n",
            -12.0 - nudge
        );
    }
    World::from_scene_text(&s, "tower").unwrap()
}

fn run(w: &mut World, steps: usize) -> Vec<usize> {
    (0..steps).map(|_| w.step().unwrap().sleeping).collect()
}

#[test]
fn a_tower_falls_asleep_and_stays_where_it_stood() {
    for method in ["lcp", "impulse", "volumetric-penalty", "implicit-penalty"] {
        let mut w = tower(method, true, false);
        let start: Vec<Vec3> = w.state.bodies.iter().map(|b| b.x).collect();
        let mut sleeping = Vec::new();
        let mut at_sleep = None;
        for _ in 0..250 {
            sleeping.push(w.step().unwrap().sleeping);
            if at_sleep.is_none() && sleeping.last() == Some(&6) {
                at_sleep = Some(w.state.bodies.clone());
            }
        }
        let first = sleeping.iter().position(|&s| s == 6).expect("the tower never fell asleep");
        // still for 0.5 s after it settles: asleep between 0.5 and 1.5 s
        assert!((50..150).contains(&first), "{method}: asleep at step {first}");
        assert!(sleeping[first..].iter().all(|&s| s == 6), "{method}: woke without cause");
        // asleep, nothing moves, bit for bit
        assert_eq!(at_sleep.unwrap(), w.state.bodies, "{method}: a sleeping body moved");
        for i in 1..7 {
            // the tower settles across its 1 mm gaps (and, under the penalty methods, into its contacts)
            let d = (w.state.bodies[i].x - start[i]).length();
            assert!(d < 2e-3 * i as f64, "{method}: cube {i} moved {d} m");
            assert_eq!(w.state.bodies[i].v, Vec3::ZERO);
        }
    }
}

/// The median of `v` (not empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

#[test]
fn a_sleeping_tower_struck_from_the_side_falls_as_an_awake_one() {
    // strikes from starts up to 1 mm apart, each with and without sleep
    const NUDGES: [f64; 4] = [0.0, 1e-5, 1e-4, 1e-3];
    for method in ["lcp", "impulse", "volumetric-penalty", "implicit-penalty"] {
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for nudge in NUDGES {
            let mut w_on = nudged_tower(method, true, true, nudge);
            let mut w_off = nudged_tower(method, false, true, nudge);
            let s_on = run(&mut w_on, 300);
            let s_off = run(&mut w_off, 300);
            assert!(s_off.iter().all(|&s| s == 0), "{method}: bodies slept with sleep = false");
            // asleep before the strike (the striker stays awake), awake after it
            assert_eq!(s_on[100], 6, "{method}: the tower was not asleep at 1 s: {:?}", &s_on[..120]);
            assert!(s_on[130] < 6, "{method}: the tower did not wake when struck");
            for w in [&w_on, &w_off] {
                let top = (w.state.bodies[6].x - Vec3::new(0.0, 0.0, 5.506)).length();
                assert!(top > 1.0, "{method}: the top cube moved only {top} m");
            }
            on.push(w_on);
            off.push(w_off);
        }
        // the top cubes land alike with and without sleep in the plane of the strike (x–z): the tumbling is
        // chaotic (strikes from starts 1–100 µm apart put a cube's landing up to 9 m apart under
        // implicit-penalty), and a tower woken by the strike starts its contacts without the warm start or the
        // anchors an awake one kept, so over the strikes the median distance between the landings with and without
        // sleep must stay within twice the median distance between the awake towers' landings (or within 15% of
        // how far the cube flew, whichever is larger; across the plane, y, the side each cube drifts to is left to
        // round-off by the symmetric strike, so it is not compared)
        let xz = |a: Vec3, b: Vec3| (a.x - b.x).hypot(a.z - b.z);
        for i in 4..7 {
            let at = |w: &World| w.state.bodies[i].x;
            let sleep = median(on.iter().zip(&off).map(|(a, b)| xz(at(a), at(b))).collect());
            let mut apart = Vec::new();
            for j in 0..off.len() {
                for k in j + 1..off.len() {
                    apart.push(xz(at(&off[j]), at(&off[k])));
                }
            }
            let chaos = median(apart);
            let flew = median(off.iter().map(|w| (at(w) - Vec3::new(0.0, 0.0, 0.5 + (i - 1) as f64)).length()).collect());
            assert!(
                sleep <= (0.15 * flew).max(2.0 * chaos),
                "{method}: cube {i} lands a median {sleep} m apart in x–z with and without sleep (it flew {flew} m; \
                 awake towers struck from starts up to 1 mm apart land a median {chaos} m apart)"
            );
        }
    }
}

#[test]
fn a_force_a_velocity_or_a_pose_wakes_a_sleeping_body() {
    for method in ["lcp", "impulse", "volumetric-penalty", "implicit-penalty"] {
        let mut w = tower(method, true, false);
        run(&mut w, 150);
        assert_eq!(w.state.sleep.count(), 6);
        // a push on the top cube wakes the tower (one island) and moves the cube
        w.apply_force(6, Vec3::new(2e4, 0.0, 0.0), None, Frame::World).unwrap();
        let s = w.step().unwrap();
        assert_eq!(s.sleeping, 0, "{method}: a force did not wake the tower");
        assert!(w.state.bodies[6].v.x > 0.1, "{method}: the pushed cube did not move");
        let mut w = tower(method, true, false);
        run(&mut w, 150);
        w.set_body_velocity(6, Vec3::new(0.0, 3.0, 0.0), Vec3::ZERO).unwrap();
        assert_eq!(w.state.sleep.count(), 0);
        w.step().unwrap();
        assert!(w.state.bodies[6].v.y > 1.0, "{method}: a velocity set on a sleeping cube was lost");
    }
}

#[test]
fn a_kinematic_body_moving_into_a_sleeping_one_wakes_it() {
    // a cube asleep on the ground; a kinematic paddle sweeping along x reaches it at about 1.5 s
    for method in ["lcp", "impulse", "volumetric-penalty", "implicit-penalty"] {
        let s = format!(
            "format = 1\n[world]\ndt = 0.01\nmethod = \"{method}\"\n\
             [[body]]\nname = \"ground\"\nkind = \"static\"\nshape = {{ type = \"box\", size = [40, 40, 1] }}\nposition = [0, 0, -0.5]\n\
             [[body]]\nname = \"cube\"\nshape = {{ type = \"box\", size = [1, 1, 1] }}\nposition = [0, 0, 0.5]\n\
             [[body]]\nname = \"paddle\"\nkind = \"kinematic\"\nshape = {{ type = \"box\", size = [0.2, 2, 1] }}\n\
             position = [-3.1, 0, 0.6]\nvelocity = [2, 0, 0]\n"
        );
        let mut w = World::from_scene_text(&s, "paddle").unwrap();
        let sleeping = run(&mut w, 250);
        assert_eq!(sleeping[90], 1, "{method}: the cube did not fall asleep: {:?}", &sleeping[..100]);
        assert_eq!(sleeping[249], 0, "{method}: the paddle did not wake the cube");
        assert!(w.state.bodies[1].x.x > 1.0, "{method}: the cube was not pushed: x = {}", w.state.bodies[1].x.x);
    }
}

#[test]
fn a_snapshot_keeps_what_is_asleep_bit_for_bit() {
    for method in ["lcp", "impulse", "volumetric-penalty", "implicit-penalty"] {
        let mut w = tower(method, true, true);
        run(&mut w, 100);
        assert_eq!(w.state.sleep.count(), 6, "{method}");
        let snap = w.snapshot();
        let a: Vec<_> = (0..100).map(|_| (w.step().unwrap().sleeping, w.state.bodies.clone())).collect();
        w.restore(&snap).unwrap();
        let b: Vec<_> = (0..100).map(|_| (w.step().unwrap().sleeping, w.state.bodies.clone())).collect();
        assert_eq!(a, b, "{method}");
        // through the snapshot's JSON too
        let text = serde_json::to_string(&snap).unwrap();
        let back: cairn::world::Snapshot = serde_json::from_str(&text).unwrap();
        w.restore(&back).unwrap();
        let c: Vec<_> = (0..100).map(|_| (w.step().unwrap().sleeping, w.state.bodies.clone())).collect();
        assert_eq!(a, c, "{method}");
    }
}

#[test]
fn sleep_settings_are_checked() {
    for (set, msg) in [("sleep_speed = -1.0", "world.sleep_speed must be >= 0"), ("sleep_time = 0.0", "world.sleep_time must be > 0")] {
        let s = format!("format = 1\n[world]\n{set}\n[[body]]\nname = \"b\"\nshape = {{ type = \"sphere\", radius = 1 }}\n");
        let e = World::from_scene_text(&s, "bad").err().expect("accepted").to_string();
        assert!(e.contains(msg), "{e}");
    }
}
