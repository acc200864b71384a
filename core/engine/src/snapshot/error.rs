//! What can go wrong with a snapshot.

use std::io;
use std::path::PathBuf;

use super::tree::TreeId;

/// Why a snapshot operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// `git` could not be started.
    #[error("git is needed for snapshots: {0}")]
    GitMissing(#[source] io::Error),
    /// A git command failed.
    #[error("`{command}` failed ({status}): {stderr}")]
    Git {
        /// The command, without the options every call shares (`git add -A`).
        command: String,
        /// How it ended (`exit status 128`).
        status: String,
        /// The first lines of what it printed on stderr.
        stderr: String,
    },
    /// A git command printed something this module does not understand.
    #[error("unexpected output from `{command}`: {output}")]
    Output {
        /// The command.
        command: String,
        /// What it printed (the start of it).
        output: String,
    },
    /// A file of the workspace or of the snapshot store could not be read or written.
    #[error("failed to {action} {path}: {source}", path = .path.display())]
    Io {
        /// What was being done (`remove`, `create`).
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// Not a tree id.
    #[error("invalid tree id `{0}`: expected 40 or 64 hexadecimal digits")]
    InvalidTreeId(String),
    /// Not a name [`Snapshots::pin`](super::Snapshots::pin) accepts.
    #[error(
        "invalid pin name `{0}`: expected `/`-separated parts of letters, digits, `_`, `-` and `.`"
    )]
    InvalidName(String),
    /// The tree is not in the snapshot store.
    #[error("no snapshot tree {tree} in {git_dir}", git_dir = .git_dir.display())]
    UnknownTree {
        /// The tree asked for.
        tree: TreeId,
        /// The private repository looked in.
        git_dir: PathBuf,
    },
    /// After a restore the workspace still differs from the tree.
    #[error("restoring tree {tree} left these paths different: {}", .paths.join(", "))]
    RestoreIncomplete {
        /// The tree that was restored.
        tree: TreeId,
        /// Some of the paths that still differ.
        paths: Vec<String>,
    },
    /// Another process held the snapshot lock for too long.
    #[error(
        "snapshots are locked by process {pid} ({lock}); remove the file if no verdict runs there",
        lock = .lock.display()
    )]
    Busy {
        /// The lock file.
        lock: PathBuf,
        /// The pid written in it.
        pid: i32,
    },
}
