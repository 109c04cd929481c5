//! MJCF `gravcomp` (issue "The world's robot files load and run"): an upward force at the body's centre of mass
//! cancelling that share of its weight, as MuJoCo applies it. A free box with gravcomp 0.5 falls at g/2, one with
//! gravcomp 1 floats, under every method.

use cairn::model::MethodKey;
use cairn::world::World;

fn world(gravcomp: f64, m: MethodKey) -> World {
    let xml = format!(
        r#"<mujoco model="gc">
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="box" pos="0 0 5" gravcomp="{gravcomp}">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="2"/>
    </body>
  </worldbody>
</mujoco>"#
    );
    let dir = std::env::temp_dir().join(format!("cairn-gravcomp-{}-{gravcomp}-{m}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("gc.xml");
    std::fs::write(&path, xml).unwrap();
    let model = cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(m)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    World::new(model).unwrap()
}

#[test]
fn gravcomp_cancels_its_share_of_the_weight() {
    for m in MethodKey::ALL {
        for (gc, expect) in [(0.5, 0.5 * 0.5 * 9.81 * 0.25), (1.0, 0.0)] {
            let mut w = world(gc, m);
            let i = w.model.body_index("box").unwrap();
            let z0 = w.state.bodies[i].x.z;
            for _ in 0..250 {
                w.step().unwrap_or_else(|e| panic!("{m}: {e}"));
            }
            let drop = z0 - w.state.bodies[i].x.z;
            // ½ (1 − gc) g t² at t = 0.5 s; the integrators' first-order error is h·g·t/2 ≈ 2.5 mm
            assert!((drop - expect).abs() < 5e-3, "{m}, gravcomp {gc}: dropped {drop:.4} m, expected {expect:.4} m");
        }
    }
}
