fn main() {
    let scene = std::env::args().nth(1).unwrap();
    let model = cairn::scene::load(std::path::Path::new(&scene), &[]).unwrap();
    let mut w = cairn::World::new(model).unwrap();
    let mut c = Vec::new();
    for _ in 0..300 {
        w.step().unwrap();
        let b = &w.state.bodies[1];
        let r = cairn::math::Mat3::from_quat(b.q);
        c.push((r * (w.model.bodies[1].inertia * (r.transpose() * b.w))).x);
    }
    let peak = c.iter().fold(0.0f64, |m, p| m.max(p.abs()));
    let last = c.iter().rposition(|p| p.abs() >= 1e-3 * peak).unwrap();
    println!("settle {} ; x drift {:.3e}", last + 2, w.state.bodies[1].x.y);
    for (k, p) in c.iter().enumerate() {
        if k % 4 == 0 && k < 160 && k > 30 {
            print!("{}:{:.2e} ", k + 1, p);
        }
    }
    println!();
}
