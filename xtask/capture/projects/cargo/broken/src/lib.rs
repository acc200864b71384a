//! Shop inventory and reports.

mod config_loader;
pub mod geometry;
pub mod inventory;
pub mod parser;
pub mod report;
pub mod stats;
pub mod util;

use crate::settings::Settings;
use std::collections::HashMapp;

pub fn start(name: &str) -> Settings {
    let cache: HashMapp<String, u32> = HashMapp::new();
    let unused = 3;
    Settings::load(name)
}

pub fn version() -> u32 {
    "1.0"
}
