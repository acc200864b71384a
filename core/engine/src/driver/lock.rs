//! One loop per workspace.

use std::path::Path;

use super::LoopError;
use crate::lock::FileLock;

/// The one loop of a workspace: a [`FileLock`] on `.verdict/loop/workspace.lock`, so a run killed
/// with `kill -9` can be resumed at once, while a live loop is never taken for an orphaned one (its
/// agent stopped) and two loops never edit one tree.
pub(super) struct WorkspaceLock {
    _lock: FileLock,
}

impl WorkspaceLock {
    /// Takes the lock of the workspace at `root`, or says that another loop holds it.
    pub(super) fn take(root: &Path) -> Result<WorkspaceLock, LoopError> {
        let path = crate::paths::workspace_lock(root);
        match FileLock::try_take(&path) {
            Ok(Some(lock)) => Ok(WorkspaceLock { _lock: lock }),
            Ok(None) => Err(LoopError::WorkspaceBusy(root.to_owned())),
            Err(error) => Err(LoopError::Lock {
                path,
                source: error.into(),
            }),
        }
    }
}
