//! One loop per workspace.

use std::path::Path;

use super::LoopError;
use crate::lock::FileLock;
use crate::state::RunId;

/// The one loop of a workspace: a [`FileLock`] on `.verdict/loop/workspace.lock`, so a run killed
/// with `kill -9` can be resumed at once, while a live loop is never taken for an orphaned one (its
/// agent stopped) and two loops never edit one tree. The holder writes its pid, then its run, into
/// the file, so a loop it refuses can name it.
pub(super) struct WorkspaceLock {
    lock: FileLock,
}

impl WorkspaceLock {
    /// Takes the lock of the workspace at `root`, or says that another loop holds it (and which,
    /// when it said).
    pub(super) fn take(root: &Path) -> Result<WorkspaceLock, LoopError> {
        let path = crate::paths::workspace_lock(root);
        match FileLock::try_take(&path) {
            Ok(Some(lock)) => {
                let mut lock = WorkspaceLock { lock };
                lock.describe(&format!("pid {}", std::process::id()));
                Ok(lock)
            }
            Ok(None) => Err(LoopError::WorkspaceBusy {
                root: root.to_owned(),
                holder: holder(&path),
            }),
            Err(error) => Err(LoopError::Lock {
                path,
                source: error.into(),
            }),
        }
    }

    /// Names the run that holds the workspace, once it has one.
    pub(super) fn held_by(&mut self, run: RunId) {
        self.describe(&format!("run {}, pid {}", run.0, std::process::id()));
    }

    fn describe(&mut self, holder: &str) {
        // Only a message depends on it: a lock whose holder cannot be written is still held.
        if let Err(error) = self.lock.describe_holder(holder) {
            tracing::warn!("failed to name the workspace lock's holder: {error}");
        }
    }
}

/// What the holder of the lock at `path` wrote about itself. A holder that took the lock a moment
/// ago may not have written yet: it is given a moment (only a message waits on it).
fn holder(path: &Path) -> Option<String> {
    for _ in 0..25 {
        if let Some(holder) = FileLock::holder(path) {
            return Some(holder);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    None
}
