fn main() {
    let text = "format = 1\n[world]\ndt = 0.016666666666666666\n[[body]]\nname = \"ground\"\nkind = \"static\"\nshape = { type = \"box\", size = [10.0, 10.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n[[body]]\nname = \"box\"\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nposition = [0.0, 0.0, 0.5]\n";
    let model = cairn::scene::load_str(text, "x", "x", std::path::Path::new("."), &[]).unwrap();
    let mut w = cairn::World::new(model).unwrap();
    for s in 0..6 {
        let st = w.step().unwrap();
        println!("step {s}: contacts {} n {:.3} t {:.3} x {:?} w {:?}", st.contacts, st.normal_impulse, st.friction_impulse, w.state.bodies[1].x, w.state.bodies[1].w);
    }
}
