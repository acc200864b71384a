use test_compile_error::{double, triple};

#[test]
fn doubles() {
    let x: String = double(2);
    assert_eq!(x, 4);
}
