//! Small arithmetic that works.

/// Adds two numbers.
///
/// ```
/// assert_eq!(passing::add(2, 3), 5);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

/// Multiplies two numbers.
pub fn mul(a: i32, b: i32) -> i32 {
    a * b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn multiplies() {
        assert_eq!(mul(2, 3), 6);
    }

    #[test]
    #[ignore = "slow"]
    fn slow() {
        assert_eq!(mul(1000, 1000), 1_000_000);
    }
}
