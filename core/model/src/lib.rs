//! The model every crate of verdict speaks, and nothing that spawns, stores or tokenizes.
//!
//! - [`model`]: [`Diagnostic`], [`Report`] and their parts — what a verifier found, in the tool's own
//!   numbers — and [`Verification`], a report together with how its command ended.
//! - [`summarizer`]: the [`Summarizer`] trait, a pure parser from a tool's raw output to a [`Report`],
//!   fed line by line so that logs of any size stream through in bounded memory.
//! - [`lines`]: the streaming line reader every summarizer is fed by (ANSI stripped, CRLF folded,
//!   invalid UTF-8 replaced, endless lines cut), with what it decides once per input beside it.
//! - [`verifier`]: the [`Verifier`] trait — describe a command ([`verifier::CommandSpec`], plain
//!   data), interpret its captured output — and the [`verifier::Runner`] trait a runner implements.
//! - [`redact`]: secrets in tool output replaced with `[redacted:<kind>]`, applied where text
//!   enters a [`Report`] so that everything written from it is redacted.
//! - [`exit_reason`]: the lines of a log that say why its command failed when no failure was
//!   itemized (a coverage threshold, a leak check, a wrapper's own error), by their phrasing.
//! - [`split`]: a command line typed by a person split into words the way a shell would, without
//!   running or expanding anything.
//!
//! **Invariant:** this crate spawns, stores and tokenizes nothing, and knows no tool by name.
//! Summarizers, verifier crates and plugins depend on it alone; `verdict-core` holds the machinery.

pub mod ansi;
pub mod encoding;
pub mod exit_reason;
pub mod lines;
pub mod model;
mod mojibake;
pub mod redact;
pub mod split;
pub mod summarizer;
pub mod tools;
pub mod verifier;
mod wrappers;

pub use model::{
    Counts, Diagnostic, Evidence, Fingerprint, JOB_NOTE, Kind, KnownFrom, Outcome, Report,
    SetAside, Severity, Status, TestCase, TestStatus, Verification,
};
pub use summarizer::{LineParser, Summarizer};
pub use tools::Tool;
pub use verifier::Verifier;
pub use wrappers::JOB_MARKER;
