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
