//! The core of the shop.

pub fn price_with_tax(cents: u64) -> u64 {
    cents + cents / 5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_tax() {
        assert_eq!(price_with_tax(100), 121);
    }

    #[test]
    fn zero() {
        assert_eq!(price_with_tax(0), 0);
    }
}
