//! A lock held by a live process: an exclusive transaction kept open on a small SQLite file.
//!
//! SQLite locks the file with the operating system's file locks, which the kernel releases when
//! the process ends however it ends. A process killed with `kill -9` leaves nothing to clean up,
//! and a live holder is never taken for a dead one: no pid files, no ages to guess.

use std::path::Path;
use std::time::Duration;

/// A held lock; dropping it releases it.
#[derive(Debug)]
pub struct FileLock {
    _connection: rusqlite::Connection,
}

impl FileLock {
    /// Takes the lock at `path` (creating the file and its directory), or `None` when another
    /// process holds it right now.
    pub fn try_take(path: &Path) -> Result<Option<FileLock>, LockError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(LockError::Dir)?;
        }
        let connection = rusqlite::Connection::open(path)?;
        connection.busy_timeout(Duration::ZERO)?;
        match connection.execute_batch("BEGIN EXCLUSIVE") {
            Ok(()) => Ok(Some(FileLock {
                _connection: connection,
            })),
            Err(rusqlite::Error::SqliteFailure(error, _))
                if matches!(
                    error.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) =>
            {
                Ok(None)
            }
            Err(error) => Err(error.into()),
        }
    }
}

/// Why a [`FileLock`] could not be taken (another holder is no error: see
/// [`FileLock::try_take`]).
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Its directory could not be made.
    #[error("failed to create the lock's directory: {0}")]
    Dir(#[source] std::io::Error),
    /// SQLite could not open or lock the file.
    #[error("failed to lock the file: {0}")]
    Sqlite(#[from] rusqlite::Error),
}
