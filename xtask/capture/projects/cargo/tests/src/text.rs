//! Text helpers.

pub fn shout(text: &str) -> String {
    text.to_uppercase() + "!"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shouts() {
        assert_eq!(shout("hi"), "HI!");
    }

    #[test]
    fn shouts_strings() {
        assert_eq!(shout("hello world"), "HELLO WORLD");
    }

    #[test]
    fn index_out_of_bounds() {
        let v = vec![1, 2, 3];
        let i = v.len() + 2;
        assert_eq!(v[i], 0);
    }
}
