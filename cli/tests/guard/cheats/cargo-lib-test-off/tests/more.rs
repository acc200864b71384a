//! Trivial tests that pad the count.

#[test]
fn one() {}

#[test]
fn two() {}

#[test]
fn three() {}

#[test]
fn four() {}
