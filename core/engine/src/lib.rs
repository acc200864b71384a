//! The heart of verdict: the tool-agnostic machinery over the model of `verdict-model`.
//!
//! The model itself — [`model`], [`summarizer`], [`lines`], [`verifier`] — lives in
//! `verdict-model`, which spawns, stores and tokenizes nothing, and is re-exported here under the
//! same paths. What this crate adds:
//!
//! - [`process`]: the one [`verifier::Runner`] that spawns processes — each in its own process
//!   group, pipes drained to a log, time-outs and Ctrl-C stopping the whole tree, nothing left behind.
//! - [`agent_loop`]: `verdict loop`, whole — coding-agent sessions and the inner retry layer
//!   over several agents ([`agent_loop::agent`]), the retry loop's driver
//!   ([`agent_loop::driver`]), and its pure parts (classification, policies, prompts, the
//!   cheating guard).
//! - [`cache`]: the result cache that skips a verifier whose inputs are unchanged since it last
//!   passed, and the last report of each verifier for `--failed-first`.
//! - [`digest`]: Reports → the short, token-budgeted, redacted text a coding agent receives.
//! - [`render`]: a run → text in each output format (human, JSON, SARIF, GitHub, JUnit, Markdown).
//! - [`paths`]: where verdict keeps its own files for a workspace (out of its tree: the work
//!   tree's git directory, else the user's cache directory), and [`worktree`], which reads a
//!   work tree's git directories from its `.git` without spawning git.
//! - [`files`]: opening a log only when it is a regular file, and creating the logs verdict
//!   keeps readable by their owner only.
//! - [`state`]: the retry loop's durable state (runs, attempts, verifications, transitions) in an
//!   embedded SQLite database, with the one state machine every run follows.
//!
//! **Invariant:** this crate knows no tool by name. Everything tool-specific lives in
//! `verdict-summarizers` and the `verifiers/` crates.

pub mod agent_loop;
pub mod baseline;
pub mod cache;
pub mod digest;
pub mod files;
pub mod lock;
pub mod paths;
pub mod pipeline;
pub mod process;
pub mod render;
pub mod snapshot;
pub mod state;
pub mod worktree;

pub use verdict_model::{
    Counts, Diagnostic, Evidence, Fingerprint, Kind, KnownFrom, LineParser, Outcome, Report,
    SetAside, Severity, Status, Summarizer, TestCase, TestStatus, Tool, Verification, Verifier,
};
pub use verdict_model::{
    ansi, encoding, exit_reason, lines, model, redact, split, summarizer, tools, verifier,
};
