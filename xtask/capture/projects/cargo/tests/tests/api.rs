use tests::{add, div};

#[test]
fn api_adds() {
    assert_eq!(add(10, 5), 15);
}

#[test]
fn api_divides() {
    assert_eq!(div(10, 3), 3);
}

#[test]
fn api_fails() {
    let result = add(10, 5);
    assert!(result == 16, "expected 16, got {result}");
}

#[test]
fn api_debug_structs() {
    assert_eq!(vec![1, 2, 3], vec![1, 2, 4]);
}
