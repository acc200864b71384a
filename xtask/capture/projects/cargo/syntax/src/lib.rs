//! Syntax errors.

mod other;

pub fn add(a: i32, b: i32) -> i32 {
    let sum = a + b
    sum
}

pub fn sub(a: i32, b: i32) -> i32 {
    a - b;
}
