pub fn shout(text: &String) -> String {
    let upper = text.to_uppercase();
    return upper;
}

pub fn count_spaces(text: &str) -> usize {
    text.chars().filter(|c| *c == ' ').collect::<Vec<_>>().len()
}

pub fn maybe_len(text: Option<&str>) -> usize {
    match text {
        Some(t) => t.len(),
        None => 0,
    }
}

pub fn ratio(a: f64) -> bool {
    a == f64::NAN
}
