//! Trivial tests that pad the count.

#[test]
fn one() {}
