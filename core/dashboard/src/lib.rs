//! verdict's dashboard: a live web page over a loop's or a fleet's state database.
//!
//! - [`view`]: what a page shows, as plain data whose text is always redacted.
//! - [`source`]: where it comes from, a fleet's store or a workspace's loop runs.
//! - [`render`]: views → HTML (compile-time templates, inline SVG charts) and `/metrics` text.
//! - [`server`]: the HTTP server: token and `Host` checks, pages, server-sent events, actions.
//!
//! The dashboard never prints: the CLI starts it and says where it listens.

pub mod error;
pub mod render;
pub mod server;
pub mod source;
pub mod view;

pub use error::{DashboardError, Result};
pub use source::Source;

/// A new access token: 32 bytes from the operating system's randomness, in hex.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The server's clock, in ms since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
