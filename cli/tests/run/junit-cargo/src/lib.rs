//! Passing, failing and ignored tests in two modules, with a name used in both.

pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod cart {
    use super::add;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 4);
    }

    #[test]
    fn empties() {
        assert!(Vec::<i32>::new().is_empty());
    }

    #[test]
    #[ignore]
    fn discounts() {}

    #[test]
    #[should_panic(expected = "boom")]
    fn panics() {
        panic!("boom");
    }
}

#[cfg(test)]
mod text {
    #[test]
    fn adds() {
        assert_eq!("a".to_uppercase(), "A");
    }

    #[test]
    fn lower() {
        assert_eq!("A".to_lowercase(), "b");
    }
}
