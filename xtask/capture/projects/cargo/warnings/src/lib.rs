//! Compiles, with warnings.

mod helpers;

use std::collections::HashMap;
use std::fmt::Write;

pub fn sum(values: &[i32]) -> i32 {
    let count = values.len();
    values.iter().sum()
}

pub fn greet(name: &str) -> String {
    let mut out = String::new();
    let unused_prefix = "Hello";
    out.push_str(name);
    out
}

#[deprecated(note = "use `sum`")]
pub fn total(values: &[i32]) -> i32 {
    sum(values)
}

pub fn grand_total(values: &[i32]) -> i32 {
    total(values)
}
