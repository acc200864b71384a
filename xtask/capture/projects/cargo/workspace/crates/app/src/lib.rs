//! The app of the shop.

pub fn checkout(items: &[u64]) -> u64 {
    let discount = 0;
    items.iter().map(|c| shop_core::price_with_tax(*c)).sum()
}

#[cfg(test)]
mod tests {
    #[test]
    fn checks_out() {
        assert_eq!(super::checkout(&[100, 200]), 360);
    }

    #[test]
    fn empty_cart() {
        assert_eq!(super::checkout(&[]), 1);
    }
}
