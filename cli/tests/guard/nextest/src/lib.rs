//! A tiny cart: the discount adds the percentage instead of taking it off.

pub fn subtotal(items: &[(u32, u32)]) -> u32 {
    items.iter().map(|(price, qty)| price * qty).sum()
}

pub fn discount(total: u32, percent: u32) -> u32 {
    total + total * percent / 100
}

pub fn tax(total: u32, percent: u32) -> u32 {
    total * percent / 100
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtotal_adds_lines() {
        assert_eq!(subtotal(&[(2, 2), (1, 3)]), 7);
    }

    #[test]
    fn discount_takes_the_percentage_off() {
        assert_eq!(discount(200, 10), 180);
    }

    #[test]
    fn tax_is_a_percentage() {
        assert_eq!(tax(100, 20), 20);
    }

    #[test]
    fn an_empty_cart_is_free() {
        assert_eq!(subtotal(&[]), 0);
    }
}
