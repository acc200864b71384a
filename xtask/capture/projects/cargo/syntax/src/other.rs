pub fn broken(x: i32) -> i32 {
    if x > 0 {
        x * 2
    } else {
        x -
    }
}

pub fn unclosed(values: &[i32]) -> i32 {
    values.iter().map(|v| v * 2).sum()
