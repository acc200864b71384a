//! A small library whose unit tests fail in the ways libtest reports under nextest.

/// The sum of `a` and `b`.
pub fn add(a: i32, b: i32) -> i32 {
    a + b
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
        assert_eq!(add(2, 2), 5, "two and two");
    }

    #[test]
    fn index_out_of_bounds() {
        let v: Vec<i32> = Vec::new();
        let _ = v[3];
    }

    #[test]
    #[ignore]
    fn ignored_one() {}

    #[test]
    fn prints_then_fails() {
        println!("some stdout line");
        eprintln!("some stderr line");
        panic!("boom with\nmultiple lines");
    }

    #[test]
    fn returns_err() -> Result<(), String> {
        Err("bad result".into())
    }

    #[test]
    #[should_panic(expected = "right message")]
    fn wrong_panic() {
        panic!("wrong message");
    }
}
