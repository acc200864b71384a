//! The retry loop's pure parts: what went wrong, what to do about it, what to tell the agent next,
//! and whether a pass can be trusted.
//!
//! - [`classify`]: a failed verification → a [`classify::Category`] with a confidence and the main
//!   location; the [`classify::FailureSet`] of failure fingerprints that says whether an attempt
//!   ended with the same failures as the one before, and which failures were already there.
//! - [`policy`]: per-category policies (attempts, delays, guidance, recovery action) with defaults in
//!   the embedded, commented `defaults.toml`, the `[loop]` table of `verdict.toml`, and
//!   [`policy::decide`], which turns a history into the next step.
//! - [`prompt`]: the first prompt (the task, and what the baseline found) and the retry prompt,
//!   each within a token bound.
//! - [`guard`]: the cheating guard — reasons a pass does not count (fewer tests ran, tests removed
//!   or skipped, tests neutered so they cannot fail, protected files changed), read from the
//!   verifications, the attempt's diff and the changed test files' text.
//!
//! **Invariant:** nothing here spawns a process, reads a file or sleeps; the driver does, and hands
//! these modules data.

pub mod classify;
pub mod guard;
pub mod policy;
pub mod prompt;
