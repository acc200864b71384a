//! `verdict loop`: a coding agent runs, verdict verifies what it did, and the agent tries again
//! with the digest of what failed, until the verification is green or a policy stops it.
//!
//! - [`driver`]: the loop itself — runs, attempts, resume, every step one transaction of the
//!   state database and one event. It spawns (through the pool), sleeps and touches the
//!   workspace.
//! - [`agent`]: coding-agent sessions (a fresh process per session; the prompt on stdin, in a file
//!   or as one argv element, never through a shell) and the inner retry layer over several agents
//!   (rate limits, provider failures, backoff).
//!
//! The loop's pure parts — what went wrong, what to do about it, what to tell the agent next, and
//! whether a pass can be trusted:
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
//! **Invariant:** nothing in [`classify`], [`policy`], [`prompt`] or [`guard`] spawns a process,
//! reads a file or sleeps; the driver does (and the agents it runs), and hands these modules data.

pub mod agent;
pub mod classify;
pub mod driver;
pub mod guard;
pub mod policy;
pub mod prompt;
