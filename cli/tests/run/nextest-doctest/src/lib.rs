//! A library whose unit test passes and whose doc example is broken.

/// Adds two numbers.
///
/// ```
/// assert_eq!(nextest_doctest::add(2, 2), 5);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(super::add(1, 2), 3);
    }
}
