//! A crate whose compilation is killed: the proc macro below kills the compiler running it, as the
//! out-of-memory killer would.

killer::kill_compiler!();

pub fn answer() -> u32 {
    42
}
