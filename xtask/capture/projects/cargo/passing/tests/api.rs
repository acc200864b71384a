#[test]
fn add_is_commutative() {
    assert_eq!(passing::add(4, 5), passing::add(5, 4));
}
