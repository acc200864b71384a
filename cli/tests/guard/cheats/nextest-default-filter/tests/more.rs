#[test]
fn one() {}
