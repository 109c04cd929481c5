use super::*;

#[test]
fn noise_is_deterministic_and_standard() {
    assert_eq!(gaussian(7, 1, 2), gaussian(7, 1, 2));
    let n = 20000;
    let xs: Vec<f64> = (0..n).map(|k| gaussian(k as u64, 3, 0)).collect();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
    assert!(mean.abs() < 0.03, "mean {mean}");
    assert!((var - 1.0).abs() < 0.05, "variance {var}");
}
