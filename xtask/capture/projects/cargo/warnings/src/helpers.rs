fn never_called() -> u32 {
    42
}

pub(crate) fn shout(text: &str) -> String {
    let mut result = text.to_uppercase();
    result
}
