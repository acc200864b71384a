#[test]
fn one() {}

#[test]
fn two() {}

#[test]
fn three() {}

#[test]
fn four() {}
