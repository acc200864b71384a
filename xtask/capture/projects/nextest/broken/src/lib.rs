//! A library that builds, with a unit test that does not.

/// Twice `x`.
pub fn twice(x: i32) -> i32 {
    x * 2
}

#[cfg(test)]
mod tests {
    #[test]
    fn twice_a_string() {
        assert_eq!(super::twice("2"), 4);
    }
}
