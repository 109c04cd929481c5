//! `StepStats::contact_points` (what `cairn run --contacts` records): every method reports its contacts as points
//! on the contact and unit normals along it. A tilted cube lands on the ground (cubedrop).

use cairn::method::StepStats;
use cairn::model::MethodKey;
use cairn::World;

fn landed(method: MethodKey) -> StepStats {
    let path = cairn::scene::find_scene("cubedrop").unwrap();
    let model = cairn::scene::load_with(&path, &cairn::scene::LoadOptions::method(method)).unwrap();
    let mut world = World::new(model).unwrap();
    let mut last = StepStats::default();
    for _ in 0..60 {
        last = world.step().unwrap();
    }
    last
}

#[test]
fn every_method_reports_its_contact_points_on_the_ground_with_vertical_normals() {
    for method in MethodKey::ALL {
        let s = landed(method);
        assert!(s.contacts > 0, "{method}: the cube has not landed");
        assert!(!s.contact_points.is_empty(), "{method}: {} contacts but no contact points", s.contacts);
        assert!(s.contact_points.len() <= s.contacts, "{method}: {} points for {} contacts", s.contact_points.len(), s.contacts);
        if method != MethodKey::Abd {
            assert_eq!(s.contact_points.len(), s.contacts, "{method}");
        }
        for c in &s.contact_points {
            assert!((c.normal.length() - 1.0).abs() < 1e-9, "{method}: normal {:?}", c.normal);
            assert!(c.normal.z.abs() > 0.95, "{method}: a resting cube's contact normal {:?} is not vertical", c.normal);
            // the ground's top is z = 0; the cube is 2 m wide, centred on the origin
            assert!(c.point.z.abs() < 0.02, "{method}: contact point {:?} is off the ground", c.point);
            assert!(c.point.x.abs() < 1.1 && c.point.y.abs() < 1.1, "{method}: contact point {:?} is outside the cube", c.point);
        }
    }
}
