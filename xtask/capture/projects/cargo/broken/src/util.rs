use std::fmt::Display;

pub fn join<T: Display>(items: &[T], sep: char) -> String {
    items
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

pub fn clamp(value: i32, low: i32, high: i32) -> i32 {
    if value < low {
        return low as i64;
    }
    if value > high {
        return high.into();
    }
    value
}

pub fn repeat(text: &str, times: i32) -> String {
    text.repeat(times)
}

pub fn truthy(text: &str) -> bool {
    match text {
        "yes" | "true" => 1,
        _ => false,
    }
}

pub fn checksum(bytes: &[u8]) -> u8 {
    let unused_seed = 17;
    bytes.iter().fold(0u32, |acc, b| acc + *b as u32)
}

pub fn pad(text: &str, width: usize) -> String {
    format!("{:width$}", text, width = width, extra = 1)
}
