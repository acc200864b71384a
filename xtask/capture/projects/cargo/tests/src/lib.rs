//! A small calculator with failing tests.

pub mod money;
pub mod text;

/// Adds two numbers.
///
/// ```
/// assert_eq!(tests::add(2, 2), 5);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

/// Divides, panicking on zero.
///
/// ```
/// assert_eq!(tests::div(6, 3), 2);
/// ```
pub fn div(a: i32, b: i32) -> i32 {
    if b == 0 {
        panic!("division by zero");
    }
    a / b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn adds_wrong() {
        assert_eq!(add(1, 1), 3);
    }

    #[test]
    fn adds_with_message() {
        assert_eq!(add(2, 2), 5, "2 + 2 should be {}", 5);
    }

    #[test]
    fn not_equal() {
        assert_ne!(add(1, 1), 2);
    }

    #[test]
    fn bool_assert() {
        let x = add(1, 1);
        assert!(x > 5);
    }

    #[test]
    fn divides_by_zero() {
        div(1, 0);
    }

    #[test]
    #[should_panic(expected = "division by zero")]
    fn should_panic_but_does_not() {
        div(4, 2);
    }

    #[test]
    #[ignore]
    fn ignored() {}

    mod nested {
        #[test]
        fn deep_unwrap_none() {
            let v: Option<u8> = None;
            v.unwrap();
        }
    }
}
