//! What can go wrong in the driver itself (not in the agent or the code it wrote).

use std::path::PathBuf;

use crate::state::{RunId, StateError};

/// What went wrong in the driver itself (not in the agent or the code it wrote).
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// The state database refused.
    #[error(transparent)]
    State(#[from] StateError),
    /// The state database could not be opened (damaged, not a database, written by a newer
    /// verdict).
    #[error("failed to open the state database {path}: {source}", path = .path.display())]
    StateFile {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: StateError,
    },
    /// The workspace could not be snapshotted or restored.
    #[error(transparent)]
    Snapshot(#[from] crate::snapshot::SnapshotError),
    /// A snapshot's work on a blocking thread did not finish (it panicked).
    #[error("snapshot task failed: {0}")]
    SnapshotTask(#[source] tokio::task::JoinError),
    /// `--reset` was asked for and the workspace cannot be snapshotted.
    #[error("--reset needs snapshots of the workspace: {0}")]
    Reset(#[source] Box<LoopError>),
    /// The verification could not run at all (its configuration, not a verifier's result).
    #[error("verification could not run: {0}")]
    Verify(#[source] VerifyError),
    /// The protected paths of the cheating guard are not valid globs.
    #[error("verification could not run: {0}")]
    Guard(#[source] crate::agent_loop::guard::GuardError),
    /// Something recorded in the database cannot be read back.
    #[error("run {run}: {message}")]
    Record {
        /// The run.
        run: RunId,
        /// What is wrong.
        message: String,
    },
    /// Another `verdict loop` process runs in this workspace right now (another task: two agents
    /// editing one tree would undo each other's work and each other's verification).
    #[error(
        "another `verdict loop`{} is running in {} right now; two loops in one workspace would \
         edit the same files — wait for it to end, or stop it (Ctrl-C)",
        holder.as_deref().map(|h| format!(" ({h})")).unwrap_or_default(),
        root.display()
    )]
    WorkspaceBusy {
        /// The workspace.
        root: PathBuf,
        /// What the holder wrote about itself (its run and pid), when it did.
        holder: Option<String>,
    },
    /// The lock that keeps a workspace to one loop could not be taken.
    #[error("failed to lock the workspace at {path}: {source}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// Why a verification could not start at all (see [`Verify`](super::Verify)).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Its run directory could not be made.
    #[error("failed to create the run directory: {0:#}")]
    RunDir(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The verifiers cannot run together (a need that names no verifier, a cycle).
    #[error("failed to start the verifiers: {0}")]
    Pipeline(#[source] crate::pipeline::PipelineError),
}
