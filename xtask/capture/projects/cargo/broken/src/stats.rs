pub fn mean(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    sum / values.len()
}

pub fn median(values: &mut Vec<f64>) -> f64 {
    values.sort();
    values[values.len() / 2]
}

pub fn max(values: &[i32]) -> i32 {
    values.iter().max()
}

pub fn count_above(values: &[i32], limit: i32) -> u32 {
    values.iter().filter(|v| **v > limit).count()
}

pub fn ratio(a: u32, b: u32) -> f32 {
    a / b
}

pub fn percent(part: u64, whole: u64) -> String {
    let p: f64 = part * 100 / whole;
    p
}

pub fn summary(values: &[f64]) -> (f64, f64) {
    (mean(values), variance(values))
}
