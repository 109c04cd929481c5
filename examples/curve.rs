fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sets: Vec<(String, String)> = args.chunks(2).map(|c| (c[0].clone(), c[1].clone())).collect();
    let c = cairn::validate::volumetric::cubedrop_curves(&sets).unwrap();
    let peak = c[0].iter().fold(0.0f64, |m, p| m.max(p.1.abs()));
    let last = c[0].iter().rposition(|p| p.1.abs() >= 1e-3 * peak).unwrap();
    let first = c[0].iter().position(|p| p.1.abs() > 0.0).unwrap();
    println!("impact {} settle {}", first + 1, last + 2);
}
