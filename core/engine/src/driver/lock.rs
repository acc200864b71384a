//! One loop per workspace.

use std::path::Path;
use std::time::Duration;

use super::LoopError;

/// The one loop of a workspace: an exclusive transaction held open on a small SQLite file,
/// `.verdict/loop/workspace.lock`. SQLite locks it with the operating system's file locks, which the
/// kernel releases when the process ends however it ends, so a run killed with `kill -9` can be
/// resumed at once, while a live loop is never taken for an orphaned one (its agent stopped) and
/// two loops never edit one tree.
pub(super) struct WorkspaceLock {
    _connection: rusqlite::Connection,
}

impl WorkspaceLock {
    /// Takes the lock of the workspace at `root`, or says that another loop holds it.
    pub(super) fn take(root: &Path) -> Result<WorkspaceLock, LoopError> {
        let path = crate::paths::workspace_lock(root);
        let failed = |source: Box<dyn std::error::Error + Send + Sync>| LoopError::Lock {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| failed(e.into()))?;
        }
        let connection = rusqlite::Connection::open(&path).map_err(|e| failed(e.into()))?;
        connection
            .busy_timeout(Duration::ZERO)
            .map_err(|e| failed(e.into()))?;
        match connection.execute_batch("BEGIN EXCLUSIVE") {
            Ok(()) => Ok(WorkspaceLock {
                _connection: connection,
            }),
            Err(rusqlite::Error::SqliteFailure(error, _))
                if matches!(
                    error.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) =>
            {
                Err(LoopError::WorkspaceBusy(root.to_owned()))
            }
            Err(error) => Err(failed(error.into())),
        }
    }
}
