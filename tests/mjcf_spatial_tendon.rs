//! Spatial tendons through sites (MJCF `<spatial>` of `<site>`s, as Robotiq's 2F-85 scene hangs its box and
//! dm_control's ball-in-cup ties its ball): a rope (a length range, MuJoCo's soft limit) and a spring-damper
//! string, against MuJoCo 4.0.0 (pip package, this model): the ball on the rope swings as a pendulum of 0.5 m
//! from its taut start, at (0.09009, 0.50686) after 0.3 s and (−0.25976, 0.57185) after 0.6 s (x, z); the bob
//! on the spring (k = 50 N/m about its load length 0.2 m, damping 0.5) is at z = 0.75879, 0.74220 and 0.74950
//! after 0.3, 0.6 and 1 s.

mod common;

use cairn::model::MethodKey;

const XML: &str = r#"<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <site name="anchor" pos="0 0 1"/>
    <body name="ball" pos="0.3 0 0.6"><freejoint/><geom type="sphere" size="0.02" mass="0.5"/><site name="hook"/></body>
    <site name="post" pos="1 0 1"/>
    <body name="bob" pos="1 0 0.8"><freejoint/><geom type="sphere" size="0.02" mass="0.2"/><site name="eye"/></body>
  </worldbody>
  <tendon>
    <spatial name="rope" limited="true" range="0 0.5"><site site="anchor"/><site site="hook"/></spatial>
    <spatial name="spring" stiffness="50" damping="0.5"><site site="post"/><site site="eye"/></spatial>
  </tendon>
</mujoco>
"#;

#[test]
fn a_rope_and_a_spring_string_follow_mujoco() {
    let checks: [(usize, Option<[f64; 2]>, f64); 3] =
        [(150, Some([0.09009, 0.50686]), 0.75879), (150, Some([-0.25976, 0.57185]), 0.74220), (200, None, 0.74950)];
    for m in MethodKey::ALL {
        let mut w = common::mjcf_world("spatial", XML, m).unwrap();
        assert_eq!(w.model.site_tendons.len(), 2);
        let (ball, bob) = (w.model.body_index("ball").unwrap(), w.model.body_index("bob").unwrap());
        let mut longest: f64 = 0.0;
        for (steps, swing, hang) in checks {
            for _ in 0..steps {
                w.step().unwrap_or_else(|e| panic!("{m}: {e}"));
                longest = longest.max((w.state.bodies[ball].x - cairn::math::Vec3::new(0.0, 0.0, 1.0)).length());
            }
            let (p, q) = (w.state.bodies[ball].x, w.state.bodies[bob].x);
            if let Some([x, z]) = swing {
                assert!((p.x - x).abs() < 5e-3 && (p.z - z).abs() < 5e-3, "{m}: ball at ({}, {}), MuJoCo ({x}, {z})", p.x, p.z);
            }
            assert!((q.z - hang).abs() < 1.5e-3, "{m}: bob at z = {}, MuJoCo {hang}", q.z);
        }
        assert!(longest < 0.5 + 3e-3, "{m}: the rope stretched to {longest}");
    }
}

#[test]
fn a_spatial_tendon_that_wraps_is_refused_by_name() {
    let xml = XML.replace(r#"<site site="hook"/></spatial>"#, r#"<geom geom="g"/><site site="hook"/></spatial>"#);
    let Err(e) = common::mjcf_world("spatialwrap", &xml, MethodKey::Lcp) else { panic!("a wrapping tendon loads") };
    assert!(e.contains("spatial tendon `rope`") && e.contains("<geom> is not supported"), "{e}");
}
