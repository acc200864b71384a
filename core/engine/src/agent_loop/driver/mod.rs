//! The retry loop's driver: `verdict loop` runs a coding agent, verifies what it did, and tries
//! again with the digest of what failed, until the verification is green or a policy stops it.
//!
//! One run, as [`run`] drives it:
//!
//! ```text
//! create the run (or resume the unfinished run of the same task)      start.rs, lock.rs
//! checkpoint the starting tree            (snapshot; pinned so --resume and --reset find it)
//! baseline verification                   (unless --no-baseline: known failures, tests that ran)
//! loop:                                                               run.rs
//!   [--reset] restore the starting tree                               attempt.rs
//!   commit "attempt N started"            → agent_running   (before the spawn)
//!   agent session(s) through the AgentPool (transient failures retried there, not counted)
//!   commit "attempt N finished"           → verifying        (after the agent is reaped)
//!   a failed session: the end, or judged failed                      session.rs
//!   verify (a tree verified before: answered from that verification, nothing run)   judge.rs
//!   re-run the failed tests once          (only they, with each tool's filter; failures that
//!                                          come and go are flaky, not the agent's)
//!   a pass: the cheating guard            (fewer, removed, skipped or neutered tests, protected files)
//!   changed test infrastructure: verify again with the starting tree's put back     infra.rs
//!   → passed | decide(): retry_scheduled | exhausted | escalated | blocked      decide.rs
//!   the next prompt, with the digest                                  prompt.rs
//! ```
//!
//! Every step that changes the run is one transaction of the state database together with its
//! [`Event`]s ([`events`], stored and told through `recorder.rs`), so a run killed at any point
//! is resumed by the next `verdict loop` of the same task with its attempt count intact: an
//! attempt that never finished is marked interrupted (its agent's process group is stopped first)
//! and does not count against `max_attempts`; an attempt whose agent finished but whose
//! verification was never recorded is verified before anything else. What the loop needs to
//! continue — the starting tree, the baseline, each attempt's failures and summary — is replayed
//! from the events (`progress.rs`), never kept in memory alone. (The verifications of the trees
//! verified in this process are kept in memory, only to answer an attempt that left a tree
//! verified before without running anything.)
//!
//! The driver is tool-agnostic: verification is the [`Verify`] the caller hands in (the CLI builds
//! it from `verdict run`'s pipeline), agents are an [`AgentPool`](crate::agent_loop::agent::AgentPool), and
//! what to do after a failure is [`decide`](crate::agent_loop::policy::decide). Only the driver
//! spawns (through the pool and the escalation command), sleeps, and touches the workspace
//! (through [`Snapshots`](crate::snapshot::Snapshots), in `workspace.rs`).

mod attempt;
mod decide;
mod error;
pub mod events;
mod infra;
mod judge;
mod lock;
mod progress;
mod prompt;
mod recorder;
mod run;
mod session;
mod spec;
mod start;
mod workspace;

pub use error::{LoopError, VerifyError};
pub use events::{Event, EventSink, LoopEvent};
pub use spec::{
    Guide, GuideRequest, LoopEnd, LoopOutcome, LoopParts, LoopSpec, RunSettings, Verify,
    VerifyRequest, recorded_settings,
};
pub use start::{run, run_with_settings};
