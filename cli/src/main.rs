//! The `verdict` binary (being written; see issue 2).

fn main() {
    println!("verdict");
}
