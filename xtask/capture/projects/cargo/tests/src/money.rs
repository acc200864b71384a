//! Money parsing.

pub fn parse_cents(text: &str) -> Result<i64, std::num::ParseIntError> {
    let (units, cents) = text.split_once('.').unwrap_or((text, "0"));
    Ok(units.parse::<i64>()? * 100 + cents.parse::<i64>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_whole() {
        assert_eq!(parse_cents("3").unwrap(), 300);
    }

    #[test]
    fn parses_cents() {
        assert_eq!(parse_cents("3.5").unwrap(), 350);
    }

    #[test]
    fn rejects_garbage() {
        parse_cents("abc").unwrap();
    }

    #[test]
    fn returns_error() -> Result<(), String> {
        Err("the ledger is unbalanced".to_owned())
    }

    #[test]
    fn multiline_panic() {
        panic!("first line of the reason\nsecond line of the reason");
    }
}
