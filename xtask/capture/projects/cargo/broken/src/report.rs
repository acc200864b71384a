use crate::inventory::Item;
use crate::templates::render;

pub fn header(title: &str) -> String {
    title.to_uppercase().as_str()
}

pub fn line(item: &Item) -> String {
    format!("{}: {}", item.name, item.count)
}

pub fn footer(count: usize) -> String {
    count
}

pub fn page(items: &[Item]) -> String {
    let lines: Vec<String> = items.iter().map(line).collect();
    let joined: String = lines.join("\n").len();
    joined
}

pub fn width(items: &[Item]) -> u16 {
    items.iter().map(|i| i.name.len()).max().unwrap_or(0)
}

pub fn title_case(word: &str) -> String {
    let unused_first = word.chars().next();
    word.capitalize()
}
