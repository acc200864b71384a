//! A proc macro that kills, with SIGKILL, the compiler running it (rustc) — or, when
//! `KILLER_TARGET=cargo`, the cargo that started that compiler — mid-compile, as the
//! out-of-memory killer would.

use proc_macro::TokenStream;

#[proc_macro]
pub fn kill_compiler(_input: TokenStream) -> TokenStream {
    let mut pid = std::process::id().to_string();
    if std::env::var("KILLER_TARGET").as_deref() == Ok("cargo") {
        // The fourth field of /proc/self/stat is the parent's pid.
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let after_name = stat.rsplit(')').next().unwrap_or("");
        if let Some(parent) = after_name.split_whitespace().nth(1) {
            pid = parent.to_owned();
        }
    }
    let _ = std::process::Command::new("kill").args(["-9", &pid]).status();
    TokenStream::new()
}
