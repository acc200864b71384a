//! A task's work directory: where its agent and verifiers run.
//!
//! - [`prepare`]: a clone (a workspace named by URL, or a bare repository), a linked work tree
//!   at the task's revision (a local repository with `rev`), or the workspace itself (a local
//!   directory without `rev`; one loop at a time per workspace); prepared once and reused.
//! - [`run_setup`]: the task's setup command, once, in a fresh work directory.
//! - [`keep_changes`]: what the agent changed, recorded on the branch `verdict/fleet/<key>` of
//!   the task's repository (for a clone: the clone's, to be pushed) and as a redacted diff from
//!   the start, without touching the work directory's `HEAD` or index.
//! - [`remove`]: a work directory deleted by retention; a workspace used in place never is.
//! - [`free_bytes`]: the disk a worker checks before taking a task.
//!
//! **Invariant:** git runs with argv vectors, never a shell string; a workspace or revision
//! that starts with `-` is refused before git sees it.

mod git;
mod keep;
mod prepare;
mod remove;
mod setup;
mod state;

pub use keep::{DIFF_LIMIT, Kept, keep_changes};
pub use prepare::{Kind, Prepared, branch_name, prepare};
pub use remove::{Removed, free_bytes, remove};
pub use setup::{SetupOutcome, run_setup};
