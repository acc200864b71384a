//! The heart of verdict: the model every other crate speaks, and the tool-agnostic machinery.
//!
//! - [`model`]: [`Diagnostic`], [`Report`] and their parts — what a verifier found, in the tool's own
//!   numbers.
//! - [`summarizer`]: the [`Summarizer`] trait, a pure parser from a tool's raw output to a [`Report`],
//!   fed line by line so that logs of any size stream through in bounded memory.
//! - [`lines`]: the streaming line reader every summarizer is fed by (ANSI stripped, CRLF folded,
//!   invalid UTF-8 replaced, endless lines cut).
//! - [`verifier`]: the [`Verifier`] trait — describe a command, interpret its captured output.
//! - [`process`]: the one [`verifier::Runner`] that spawns processes — each in its own process
//!   group, pipes drained to a log, time-outs and Ctrl-C stopping the whole tree, nothing left behind.
//! - [`agent`]: coding-agent sessions (a fresh process per session, the prompt on stdin, in a
//!   file or as one argv element — never through a shell) and the inner retry layer over several
//!   agents (rate limits, provider failures, backoff).
//! - [`cache`]: the result cache that skips a verifier whose inputs are unchanged since it last
//!   passed, and the last report of each verifier for `--failed-first`.
//! - [`digest`]: Reports → the short, token-budgeted, redacted text a coding agent receives.
//! - [`render`]: a run → text in each output format (human, JSON, SARIF, GitHub, JUnit, Markdown).
//! - [`state`]: the retry loop's durable state (runs, attempts, verifications, transitions) in an
//!   embedded SQLite database, with the one state machine every run follows.
//!
//! **Invariant:** this crate knows no tool by name. Everything tool-specific lives in
//! `verdict-summarizers` and the `verifiers/` crates.

pub mod agent;
pub mod agent_loop;
pub mod ansi;
pub mod baseline;
pub mod cache;
pub mod digest;
pub mod driver;
pub mod encoding;
pub mod lines;
pub mod model;
mod mojibake;
pub mod paths;
pub mod pipeline;
pub mod process;
pub mod render;
pub mod snapshot;
pub mod state;
pub mod summarizer;
pub mod verifier;
mod wrappers;

pub use model::{
    Counts, Diagnostic, Fingerprint, Kind, Outcome, Report, Severity, Status, Verification,
};
pub use summarizer::{LineParser, Summarizer};
pub use verifier::Verifier;
