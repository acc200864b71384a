//! The cheating guard (issue 4, item 6b; issue 9, item 6): reasons a pass does not count.
//!
//! - [`check`]: the [`Guard`] — tests or test files removed, skip and only markers added,
//!   assertions removed, protected paths changed — and its reasons as a failed verification
//!   ([`as_verification`]).
//! - [`identity`]: which tests ran, compared with the baseline's — by identity (every test the
//!   baseline ran, above all every one it saw fail, must run again; new tests stand in for
//!   nothing), or where a runner names no tests by its counts: fewer run, more deselected or
//!   skipped.
//! - [`neutered`]: tests changed so that they can no longer fail (an early `return`, an empty body,
//!   constant truths, swallowed assertions, expected values rewritten), judged on both sides of the
//!   change by the readers of each language: [`python`] (by indentation) and [`braces`]
//!   (JavaScript, TypeScript and Rust), over the tokens of [`lex`] and the assertions of
//!   [`assertion`], into the facts of [`body`].
//! - [`infra`]: the files that decide how a verifier's tool runs (configurations, set-up files,
//!   start scripts), and the text that puts the starting tree's version of them back.
//! - [`diff`]: the attempt's unified diff, and a changed file's old text rebuilt from its new one.
//!
//! Nothing here reads a file: the driver hands over the diff and the new text of the files
//! [`files_to_read`] names.

mod assertion;
mod body;
mod braces;
mod check;
mod diff;
mod identity;
pub mod infra;
mod lex;
mod neutered;
mod python;

pub use check::{Guard, GuardError, Violation, ViolationKind, as_verification};
pub use diff::diff_paths;
pub use neutered::{Sources, files_to_read};
