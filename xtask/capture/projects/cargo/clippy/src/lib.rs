//! Code clippy has opinions about.

pub mod text;

pub fn sum(values: &Vec<i32>) -> i32 {
    let mut total = 0;
    for i in 0..values.len() {
        total += values[i];
    }
    total
}

pub fn is_same(a: i32) -> bool {
    a == a
}

pub fn first(values: &[i32]) -> Option<i32> {
    if values.len() == 0 {
        return None;
    }
    Some(values[0].clone())
}

pub fn label(flag: bool) -> &'static str {
    return if flag == true { "yes" } else { "no" };
}
