//! The fleet's errors.

use std::path::PathBuf;

/// What went wrong in the fleet's store or worker.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// The SQLite database failed.
    #[error("fleet database {path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The error.
        #[source]
        source: rusqlite::Error,
    },
    /// The PostgreSQL server failed (or could not be reached).
    #[error("fleet database: {0}")]
    Postgres(String),
    /// The database was written by a newer verdict, or cannot be used where it is.
    #[error("fleet database {path}: {message}")]
    Unusable {
        /// The database file or URL (without its password).
        path: String,
        /// Why.
        message: String,
    },
    /// A task line or value is not what a task needs.
    #[error("{0}")]
    Invalid(String),
    /// No task has that id or key.
    #[error("no task {0} in the fleet")]
    NoSuchTask(String),
    /// Preparing a task's work directory failed.
    #[error("work directory of task {task}: {message}")]
    Workdir {
        /// The task.
        task: i64,
        /// What failed.
        message: String,
    },
    /// A git command on a task's repository or work directory failed.
    #[error("{command}: {message}")]
    Git {
        /// The command, as `git <subcommand> …`.
        command: String,
        /// How it ended and what it said.
        message: String,
    },
    /// A task's setup command failed or could not run.
    #[error("setup `{command}`: {message}")]
    Setup {
        /// The setup command as given.
        command: String,
        /// How it ended, its last lines and where its log is.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being read or written.
        what: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// The fleet's results.
pub type Result<T, E = FleetError> = std::result::Result<T, E>;
