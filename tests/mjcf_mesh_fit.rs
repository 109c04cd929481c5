//! MJCF primitive geoms fitted to a mesh (`type="capsule" mesh="…"`, also sphere, cylinder, box, ellipsoid), by
//! the mesh's equivalent inertia box and, under `<compiler fitaabb="true">`, by its bounding box in its principal
//! frame; with `fitscale`, a geom's own pos/quat, a default class, a mesh's refpos/refquat/scale and its
//! `inertia` (legacy, exact, convex). Checked against MuJoCo 4.0.0's compiled model on these files: geom_size,
//! geom_pos, geom_quat, body_mass, body_ipos and the body's inertia tensor (from body_inertia and body_iquat).

use cairn::geometry::ShapeDesc;
use cairn::math::{Mat3, Quat, Vec3};
use cairn::scene::robot::Robot;
use std::path::PathBuf;

/// An elongated, sheared parallelepiped (o + i a + j b + k c), its axes along none of the mesh's: every
/// coordinate a multiple of 1/256, so MuJoCo's single-precision vertices are exact.
const SLAB_OBJ: &str = "v 0.25 -0.5 0.125
v 1.0 -0.125 0.375
v 0.125 -0.25 0.1875
v 0.875 0.125 0.4375
v 0.3125 -0.59375 0.3125
v 1.0625 -0.21875 0.5625
v 0.1875 -0.34375 0.375
v 0.9375 0.03125 0.625
f 1 3 2
f 2 3 4
f 5 6 7
f 6 8 7
f 1 2 5
f 2 6 5
f 3 7 4
f 4 7 8
f 1 5 3
f 3 5 7
f 2 4 6
f 4 8 6
";

/// A tetrahedron with a tetrahedral pocket cut from its base: closed but not convex, so MuJoCo's default
/// ("legacy"), "exact" and "convex" mesh inertias differ.
const TENT_OBJ: &str = "v 0.0 0.0 0.125
v 1.0 0.25 0.0
v 0.375 0.75 -0.0625
v 0.5 0.25 0.875
v 0.484375 0.28125 0.53125
f 4 1 2
f 4 2 3
f 4 3 1
f 5 2 1
f 5 3 2
f 5 1 3
";

const XML: &str = r#"<mujoco model="meshfit">
  <compiler angle="degree"/>
  <asset>
    <mesh name="slab" file="slab.obj"/>
    <mesh name="tent" file="tent.obj"/>
    <mesh name="tent_exact" file="tent.obj" inertia="exact"/>
    <mesh name="tent_convex" file="tent.obj" inertia="convex"/>
    <mesh name="slab_ref" file="slab.obj" refpos="0.125 0.25 -0.5" refquat="0.8 0.6 0 0" scale="1 0.5 2"/>
  </asset>
  <default>
    <default class="fat"><geom type="cylinder" fitscale="1.5"/></default>
  </default>
  <worldbody>
    <body name="sphere"><geom type="sphere" mesh="slab"/></body>
    <body name="capsule"><geom type="capsule" mesh="slab"/></body>
    <body name="cylinder"><geom class="fat" mesh="slab"/></body>
    <body name="box"><geom type="box" mesh="slab" pos="0.1 -0.2 0.3" euler="10 20 30"/></body>
    <body name="ellipsoid"><geom type="ellipsoid" mesh="slab" density="500"/></body>
    <body name="tent_legacy"><geom type="box" mesh="tent"/></body>
    <body name="tent_exact"><geom type="ellipsoid" mesh="tent_exact"/></body>
    <body name="tent_convex"><geom type="sphere" mesh="tent_convex" mass="2"/></body>
    <body name="slab_ref"><geom type="capsule" mesh="slab_ref" quat="0.5 0.5 -0.5 0.5"/></body>
  </worldbody>
</mujoco>
"#;

/// A 2 × 2 × 0.25 plate: its bounding box in its principal frame is as long as it is wide, too short for a capsule.
const PLATE_OBJ: &str = "v -1 -1 -0.125
v 1 -1 -0.125
v -1 1 -0.125
v 1 1 -0.125
v -1 -1 0.125
v 1 -1 0.125
v -1 1 0.125
v 1 1 0.125
f 1 3 2
f 2 3 4
f 5 6 7
f 6 8 7
f 1 2 5
f 2 6 5
f 3 7 4
f 4 7 8
f 1 5 3
f 3 5 7
f 2 4 6
f 4 8 6
";

/// (body, geom type, geom_size (as many numbers as the type has), geom_pos, geom_quat [w, x, y, z], body_mass,
/// body_ipos, body inertia [xx, yy, zz, xy, xz, yz] in the body frame): MuJoCo 4.0.0 on `XML` (the default,
/// the equivalent inertia box) and on `XML` with `fitaabb="true"`.
type Row = (&'static str, &'static str, &'static [f64], [f64; 3], [f64; 4], f64, [f64; 3], [f64; 6]);

const INERTIA_BOX: [Row; 9] = [
    (
        "sphere",
        "sphere",
        &[0.22729373231796404],
        [0.5937499999999999, -0.23437500000000003, 0.375],
        [-0.16442838405138033, 0.5715716227467773, 0.14870239557092907, 0.7900359385118749],
        49.18707414228101,
        [0.5937499999999999, -0.23437500000000003, 0.375],
        [1.0164497214368602, 1.0164497214368602, 1.0164497214368604, 4.65807893538847e-17, 5.550918718230392e-17, 3.34509445334634e-17],
    ),
    (
        "capsule",
        "capsule",
        &[0.12147229540631882, 0.37820045843809513],
        [0.5937499999999999, -0.23437500000000003, 0.375],
        [-0.16442838405138033, 0.5715716227467773, 0.14870239557092907, 0.7900359385118749],
        42.5715232036292,
        [0.5937499999999999, -0.23437500000000003, 0.375],
        [1.0801354565382646, 2.6637863929242993, 2.9151449997180667, -1.038668589248131, -0.7426360104768771, -0.3676792027880574],
    ),
    (
        "cylinder",
        "cylinder",
        &[0.18220844310947823, 0.6584049092118818],
        [0.5937499999999999, -0.23437500000000003, 0.375],
        [-0.16442838405138033, 0.5715716227467773, 0.14870239557092907, 0.7900359385118749],
        137.3440732825409,
        [0.5937499999999999, -0.23437500000000003, 0.375],
        [7.336247372708631, 17.640142484233838, 19.275586672264645, -6.758012105667568, -4.831900377906256, -2.3922746188392674],
    ),
    (
        "box",
        "box",
        &[0.0923126330999974, 0.15063195771264024, 0.4389366061412545],
        [0.8215701560466647, -0.13121822848985912, 0.4506694426077107],
        [-0.4618480480797185, 0.5929332320592157, 0.16912661985364952, 0.6375913654227525],
        48.82812500002682,
        [0.8215701560466647, -0.13121822848985912, 0.4506694426077107],
        [2.282869708922826, 1.6972163875544966, 3.307575138064512, -1.2784687947666191, -0.3704246664174434, -0.5878195049748324],
    ),
    (
        "ellipsoid",
        "ellipsoid",
        &[0.0923126330999974, 0.15063195771264024, 0.4389366061412545],
        [0.5937499999999999, -0.23437500000000003, 0.375],
        [-0.16442838405138033, 0.5715716227467773, 0.14870239557092907, 0.7900359385118749],
        12.783173232387362,
        [0.5937499999999999, -0.23437500000000003, 0.375],
        [0.20036125077783196, 0.4369248723705084, 0.507457026666047, -0.15604458674165664, -0.12233894786188931, -0.05867279986531646],
    ),
    (
        "tent_legacy",
        "box",
        &[0.1855014527739248, 0.25972100509956747, 0.29273697402639676],
        [0.47042446595837895, 0.30933063358645263, 0.26806348392534907],
        [0.13379880079648532, 0.6278966299388224, 0.6070011845690024, 0.4683943476908345],
        112.8293162624573,
        [0.47042446595837895, 0.30933063358645263, 0.26806348392534907],
        [4.168976612583839, 5.386183413587444, 4.553072246048417, -0.4000904683246374, 0.17758880633323668, 0.6140664691472361],
    ),
    (
        "tent_exact",
        "ellipsoid",
        &[0.1881526838890457, 0.2732570376544421, 0.304612237610154],
        [0.4745384694719474, 0.30092306105610567, 0.3617213283828383],
        [0.6306454139626257, -0.03766072282540445, -0.31573276748017076, 0.7079412767620564],
        65.60209816414954,
        [0.4745384694719474, 0.30092306105610567, 0.3617213283828383],
        [1.6544013273194782, 2.076911884371826, 1.5918891768055616, -0.13816911187121206, 0.04979293514198798, 0.23867495093111504],
    ),
    (
        "tent_convex",
        "sphere",
        &[0.2572711942028179],
        [0.46875, 0.3125, 0.234375],
        [0.6291731325891153, -0.024555960564040413, -0.2868582739245874, 0.7219768034430089],
        2.0,
        [0.46875, 0.3125, 0.234375],
        [
            0.05295077389323544,
            0.05295077389323544,
            0.052950773893235444,
            -3.831070168713037e-18,
            2.978591626756775e-18,
            -6.036968193332166e-19,
        ],
    ),
    (
        "slab_ref",
        "capsule",
        &[0.14715059319877302, 0.42374309683282],
        [-0.3521875, -1.4200000000000004, 0.46875000000000006],
        [-0.09326484096035759, -0.00044570265987142754, -0.9173809938415893, 0.3869283950913883],
        70.99768281046423,
        [-0.3521875, -1.4200000000000004, 0.46875000000000006],
        [6.719307629257778, 3.7940561063534446, 4.024266699380643, 0.7468002486622524, 0.7185814026721199, -2.987553781513098],
    ),
];
const AABB: [Row; 9] = [
    (
        "sphere",
        "sphere",
        &[0.4815753396705375],
        [0.59375, -0.23437500000000003, 0.375],
        [-0.16442838405138033, 0.5715716227467773, 0.14870239557092907, 0.7900359385118749],
        467.8227399497684,
        [0.59375, -0.23437500000000003, 0.375],
        [43.39800832400003, 43.39800832400003, 43.398008324000045, 2.0100055947939895e-15, 1.1929481391546315e-15, 1.634304539406058e-15],
    ),
    (
        "capsule",
        "capsule",
        &[0.20023153123852308, 0.28134380843201445],
        [0.59375, -0.23437500000000003, 0.375],
        [-0.16442838405138033, 0.5715716227467773, 0.14870239557092907, 0.7900359385118749],
        104.5000571872712,
        [0.59375, -0.23437500000000003, 0.375],
        [3.3769733144604777, 6.264455741279219, 6.722759742035183, -1.8938120957303664, -1.3540537125360876, -0.6703922009353996],
    ),
    (
        "cylinder",
        "cylinder",
        &[0.3003472968577846, 0.7223630095058062],
        [0.59375, -0.23437500000000003, 0.375],
        [-0.16442838405138033, 0.5715716227467773, 0.14870239557092907, 0.7900359385118749],
        409.432979959776,
        [0.59375, -0.23437500000000003, 0.375],
        [35.221039714663604, 69.36235428477664, 74.78129672169729, -22.392252121253946, -16.01020089859268, -7.926652922595494],
    ),
    (
        "box",
        "box",
        &[0.12866783417172228, 0.20023153123852308, 0.4815753396705375],
        [0.821570156046665, -0.13121822848985906, 0.4506694426077107],
        [-0.4618480480797185, 0.5929332320592157, 0.16912661985364952, 0.6375913654227525],
        99.25598094860794,
        [0.821570156046665, -0.13121822848985906, 0.4506694426077107],
        [5.950028082488223, 4.6399846839103125, 8.50438207283518, -2.94543168828214, -0.8202060647708339, -1.4369598395080714],
    ),
    (
        "ellipsoid",
        "ellipsoid",
        &[0.12866783417172228, 0.20023153123852308, 0.4815753396705375],
        [0.59375, -0.23437500000000003, 0.375],
        [-0.16442838405138033, 0.5715716227467773, 0.14870239557092907, 0.7900359385118749],
        25.985155047749597,
        [0.59375, -0.23437500000000003, 0.375],
        [0.5743377008272902, 1.1139816679121992, 1.3110211588444856, -0.3569405146502249, -0.29157412892667606, -0.13795156652853677],
    ),
    (
        "tent_legacy",
        "box",
        &[0.2634991643621204, 0.44193890218948134, 0.45823336691538247],
        [0.5359644599320309, 0.32663951438592886, 0.2676253550371206],
        [0.13379880079648532, 0.6278966299388224, 0.6070011845690024, 0.4683943476908345],
        426.8921527555233,
        [0.5359644599320309, 0.32663951438592886, 0.2676253550371206],
        [39.13609027971136, 53.53637019030108, 42.43026029859703, -3.42089396899155, -0.5167119735199509, 7.208696641145731],
    ),
    (
        "tent_exact",
        "ellipsoid",
        &[0.2814394766684949, 0.40431013806593763, 0.4619211793335819],
        [0.3832396870229232, 0.32133847236316826, 0.26563806463789674],
        [0.6306454139626257, -0.03766072282540445, -0.31573276748017076, 0.7079412767620564],
        220.16898008229637,
        [0.3832396870229232, 0.32133847236316826, 0.26563806463789674],
        [12.586306931796955, 15.650444044637478, 11.926125859174356, -1.082593730063627, 0.5334737935112434, 1.873531953991982],
    ),
    (
        "tent_convex",
        "sphere",
        &[0.4640768449104304],
        [0.37698529216373255, 0.3166535918191059, 0.29086788487057],
        [0.6291731325891153, -0.024555960564040413, -0.2868582739245874, 0.7219768034430089],
        2.0,
        [0.37698529216373255, 0.3166535918191059, 0.29086788487057],
        [
            0.1722938543856164,
            0.1722938543856164,
            0.1722938543856164,
            -9.353800160323022e-18,
            1.2661551707795723e-17,
            -1.9188213116179424e-18,
        ],
    ),
    (
        "slab_ref",
        "capsule",
        &[0.39200856445839855, 0.2789030555060424],
        [-0.35218749999999993, -1.4200000000000002, 0.46874999999999994],
        [-0.09326484096035759, -0.00044570265987142754, -0.9173809938415893, 0.3869283950913883],
        521.626207279964,
        [-0.35218749999999993, -1.4200000000000002, 0.46874999999999994],
        [72.08025270162582, 54.52810636831356, 55.90942007233316, 4.480964164496742, 4.311644941757136, -17.925973456017644],
    ),
];

/// A folder of its own holding the meshes and `xml` as `meshfit.xml` (tests run side by side).
fn folder(name: &str, xml: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cairn-meshfit-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("slab.obj"), SLAB_OBJ).unwrap();
    std::fs::write(dir.join("tent.obj"), TENT_OBJ).unwrap();
    std::fs::write(dir.join("plate.obj"), PLATE_OBJ).unwrap();
    std::fs::write(dir.join("meshfit.xml"), xml).unwrap();
    dir
}

fn robot(name: &str, xml: &str) -> Result<Robot, String> {
    let dir = folder(name, xml);
    let r = cairn::scene::mjcf::load(xml, "meshfit.xml", &dir);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

fn aabb(xml: &str) -> String {
    xml.replace(r#"<compiler angle="degree"/>"#, r#"<compiler angle="degree" fitaabb="true"/>"#)
}

/// The geom's MuJoCo size: radius, half-length, half-sides (an ellipsoid's radii from its tessellation, which
/// has the points on its axes).
fn size(shape: &ShapeDesc) -> (&'static str, Vec<f64>) {
    match shape {
        ShapeDesc::Sphere { radius } => ("sphere", vec![*radius]),
        ShapeDesc::Capsule { radius, length } => ("capsule", vec![*radius, length / 2.0]),
        ShapeDesc::Cylinder { radius, length } => ("cylinder", vec![*radius, length / 2.0]),
        ShapeDesc::Box { size } => ("box", (*size / 2.0).to_array().to_vec()),
        ShapeDesc::Convex { points } => {
            let r = points.iter().fold(Vec3::ZERO, |m, p| m.max(p.abs()));
            ("ellipsoid", r.to_array().to_vec())
        }
        s => panic!("unexpected shape {}", s.type_name()),
    }
}

fn check(what: &str, robot: &Robot, rows: &[Row]) {
    let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * b.abs().max(1.0);
    for &(name, ty, want_size, pos, quat, mass, com, inertia) in rows {
        let l = robot.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("{what}: no body `{name}`"));
        assert_eq!(l.geoms.len(), 1, "{what} {name}");
        let (pose, shape, _) = &l.geoms[0];
        let (got_ty, got) = size(shape);
        assert_eq!(got_ty, ty, "{what} {name}: type");
        for (g, w) in got.iter().zip(want_size) {
            assert!(close(*g, *w, 1e-9), "{what} {name}: size {got:?}, MuJoCo {want_size:?}");
        }
        let p = pose.translation;
        assert!((p - Vec3::from_array(pos)).abs().max_element() < 1e-9, "{what} {name}: pos {p}, MuJoCo {pos:?}");
        // a quaternion and its negative are the same frame
        let q = pose.rotation;
        let m = Quat::from_xyzw(quat[1], quat[2], quat[3], quat[0]);
        let d = (q - m).length().min((q + m).length());
        assert!(d < 1e-9, "{what} {name}: quat [{}, {}, {}, {}], MuJoCo {quat:?}", q.w, q.x, q.y, q.z);
        let i = l.inertial.unwrap_or_else(|| panic!("{what} {name}: no mass"));
        assert!(close(i.mass, mass, 1e-9), "{what} {name}: mass {}, MuJoCo {mass}", i.mass);
        assert!((i.com - Vec3::from_array(com)).abs().max_element() < 1e-9, "{what} {name}: com {}, MuJoCo {com:?}", i.com);
        let [xx, yy, zz, xy, xz, yz] = inertia;
        let want = Mat3::from_cols(Vec3::new(xx, xy, xz), Vec3::new(xy, yy, yz), Vec3::new(xz, yz, zz));
        let scale = xx.max(yy).max(zz);
        for c in 0..3 {
            let e = (i.inertia.col(c) - want.col(c)).abs().max_element();
            assert!(e < 1e-9 * scale, "{what} {name}: inertia {}, MuJoCo {want}", i.inertia);
        }
    }
}

#[test]
fn primitives_fitted_to_the_inertia_box_match_mujoco() {
    let r = robot("box", XML).unwrap();
    check("inertia box", &r, &INERTIA_BOX);
}

#[test]
fn primitives_fitted_to_the_bounding_box_match_mujoco() {
    let r = robot("aabb", &aabb(XML)).unwrap();
    check("fitaabb", &r, &AABB);
}

#[test]
fn fitted_geoms_load_into_a_world() {
    let dir = folder("world", XML);
    let model = cairn::scene::load_with(&dir.join("meshfit.xml"), &cairn::scene::LoadOptions::method(cairn::model::MethodKey::Lcp));
    let _ = std::fs::remove_dir_all(&dir);
    let model = model.map_err(|e| e.to_string()).unwrap();
    for (name, .., mass, _, _) in INERTIA_BOX {
        let b = model.bodies.iter().find(|b| b.name == name).unwrap_or_else(|| panic!("no body `{name}`"));
        assert!((b.mass - mass).abs() < 1e-9 * mass, "{name}: mass {} (MuJoCo {mass})", b.mass);
    }
}

/// What MuJoCo refuses (and what cairn does not fit) is an error naming the file, the line and what is allowed.
#[test]
fn unfittable_geoms_are_refused() {
    let body = |geom: &str| {
        format!(
            r#"<mujoco><compiler angle="degree"/><asset><mesh name="slab" file="slab.obj"/><mesh name="plate" file="plate.obj"/>
<mesh name="shell" file="slab.obj" inertia="shell"/></asset>
<worldbody><body name="b">{geom}</body></worldbody></mujoco>"#
        )
    };
    let cases = [
        // MuJoCo 4.0.0: "size 1 must be positive in geom" (the plate's bounding box is as long as it is wide)
        (aabb(&body(r#"<geom type="capsule" mesh="plate"/>"#)), "needs a half-length > 0"),
        (body(r#"<geom type="plane" mesh="slab"/>"#), "a geom with `mesh` has type sphere, capsule, cylinder, box, ellipsoid"),
        (body(r#"<geom type="capsule" mesh="slab" fromto="0 0 0 1 0 0"/>"#), "`fromto` cannot be used"),
        (body(r#"<geom type="box" mesh="shell"/>"#), "may be legacy, exact or convex"),
        (body(r#"<geom type="box" mesh="slab" fitscale="0"/>"#), "`fitscale` must be > 0"),
        (body(r#"<geom type="box" mesh="nope"/>"#), "unknown mesh asset `nope`"),
    ];
    for (i, (xml, want)) in cases.iter().enumerate() {
        let e = robot(&format!("bad{i}"), xml).err().unwrap_or_else(|| panic!("accepted: {xml}"));
        assert!(e.contains(want) && e.contains("meshfit.xml") && e.contains("line 3"), "{e}");
    }
    // the plate's inertia box gives a capsule (MuJoCo 4.0.0: size 0.5625, 0.71875; quat 0.5, 0.5, −0.5, 0.5)
    let r = robot("plate", &body(r#"<geom type="capsule" mesh="plate"/>"#)).unwrap();
    let (_, got) = size(&r.links[0].geoms[0].1);
    assert!((got[0] - 0.5625).abs() < 1e-12 && (got[1] - 0.71875).abs() < 1e-12, "{got:?}");
}
