use std::collections::HashMap;

pub struct Item {
    pub name: String,
    pub count: u32,
}

pub fn total(items: &[Item]) -> u32 {
    let mut sum: u32 = 0;
    for item in items {
        sum += item.name;
    }
    sum
}

pub fn find<'a>(items: &'a [Item], name: &str) -> Option<&'a Item> {
    items.iter().find(|i| i.name == name).unwrap()
}

pub fn restock(item: &mut Item, amount: i64) {
    item.count += amount;
}

pub fn names(items: &[Item]) -> Vec<String> {
    items.iter().map(|i| i.name).collect::<Vec<&str>>()
}

pub fn by_name(items: Vec<Item>) -> HashMap<String, Item> {
    let map = HashMap::new();
    for item in items {
        map.insert(item.name.clone(), item);
    }
    map
}

pub fn is_empty(item: &Item) -> bool {
    item.count
}
