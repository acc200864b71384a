//! Running a transaction: the connection is behind a mutex and used on tokio's blocking threads
//! (rusqlite blocks, and a write may wait on another process's lock), and a transaction that
//! meets `SQLITE_BUSY` or `SQLITE_LOCKED` is rolled back and run again, so a busy database
//! slows a caller down but never fails it mid-run.

use std::sync::PoisonError;
use std::time::{Duration, Instant};

use rusqlite::{ErrorCode, Transaction, TransactionBehavior};

use super::open::SqliteStore;
use crate::error::{FleetError, Result};

/// How long busy transactions are retried (on top of SQLite's own busy timeout) before the
/// error reaches the caller: long enough that only a stuck process, never load, exhausts it.
const BUSY_RETRY_FOR: Duration = Duration::from_secs(300);

/// An error inside a transaction: SQLite's (retried when busy), or the fleet's own.
#[derive(Debug)]
pub(super) enum TxError {
    /// SQLite failed.
    Sql(rusqlite::Error),
    /// The request cannot be served (no such task, an invalid value).
    Fleet(FleetError),
}

impl From<rusqlite::Error> for TxError {
    fn from(error: rusqlite::Error) -> TxError {
        TxError::Sql(error)
    }
}

/// The result of a transaction's body.
pub(super) type TxResult<T> = std::result::Result<T, TxError>;

/// Whether an error means another connection holds a lock for now.
fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// Runs `body` again while it fails busy, with a growing, jittered pause, for at most
/// [`BUSY_RETRY_FOR`].
pub(super) fn retry_busy<T, E>(
    mut body: impl FnMut() -> std::result::Result<T, E>,
) -> std::result::Result<T, E>
where
    E: BusyError,
{
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match body() {
            Err(error) if error.is_busy() && start.elapsed() < BUSY_RETRY_FOR => {
                // Jitter keeps processes that met the same lock from retrying in step.
                let jitter = getrandom::u64().unwrap_or(0) % 1000;
                std::thread::sleep(pause.mul_f64(0.5 + jitter as f64 / 1000.0));
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            other => return other,
        }
    }
}

/// An error that may mean "busy, try again".
pub(super) trait BusyError {
    /// Whether it does.
    fn is_busy(&self) -> bool;
}

impl BusyError for rusqlite::Error {
    fn is_busy(&self) -> bool {
        is_busy(self)
    }
}

impl BusyError for TxError {
    fn is_busy(&self) -> bool {
        matches!(self, TxError::Sql(error) if is_busy(error))
    }
}

/// The database's clock, in milliseconds since the Unix epoch (`unixepoch('subsec')` needs
/// SQLite 3.42; the bundled one is newer). Read once per transaction, so every time a
/// transaction writes is the same instant.
pub(super) fn now(tx: &Transaction<'_>) -> rusqlite::Result<i64> {
    tx.query_row(
        "SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER)",
        [],
        |row| row.get(0),
    )
}

impl SqliteStore {
    /// Runs `body` in one `BEGIN IMMEDIATE` transaction (the write lock taken up front, so it
    /// never fails half-way on a lock), committed when it returns `Ok`; `body` gets the
    /// database's now.
    pub(super) async fn write<T, F>(&self, body: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnMut(&Transaction<'_>, i64) -> TxResult<T> + Send + 'static,
    {
        self.transact(TransactionBehavior::Immediate, body).await
    }

    /// Runs `body` in one read transaction: a consistent snapshot that never waits for a
    /// writer (WAL).
    pub(super) async fn read<T, F>(&self, body: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnMut(&Transaction<'_>, i64) -> TxResult<T> + Send + 'static,
    {
        self.transact(TransactionBehavior::Deferred, body).await
    }

    async fn transact<T, F>(&self, behavior: TransactionBehavior, mut body: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnMut(&Transaction<'_>, i64) -> TxResult<T> + Send + 'static,
    {
        let conn = self.conn.clone();
        let path = self.path.clone();
        let joined = tokio::task::spawn_blocking(move || {
            // A panic in another call left no transaction open (dropping one rolls it back), so
            // the connection is still good.
            let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
            retry_busy(|| {
                let tx = conn.transaction_with_behavior(behavior)?;
                let now = now(&tx)?;
                let value = body(&tx, now)?;
                tx.commit()?;
                Ok(value)
            })
        })
        .await;
        let outcome = match joined {
            Ok(outcome) => outcome,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(_) => {
                return Err(FleetError::Unusable {
                    path: path.display().to_string(),
                    message: "the runtime shut down during a transaction".into(),
                });
            }
        };
        outcome.map_err(|error| match error {
            TxError::Sql(source) => FleetError::Sqlite { path, source },
            TxError::Fleet(error) => error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy() -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY), None)
    }

    #[test]
    fn a_busy_transaction_is_run_again_and_other_errors_are_not() {
        let mut calls = 0;
        let result: rusqlite::Result<u32> = retry_busy(|| {
            calls += 1;
            if calls < 3 { Err(busy()) } else { Ok(calls) }
        });
        assert_eq!(result.expect("the third call"), 3);
        let mut calls = 0;
        let result: std::result::Result<(), TxError> = retry_busy(|| {
            calls += 1;
            Err(TxError::Fleet(FleetError::NoSuchTask("x".into())))
        });
        assert!(result.is_err());
        assert_eq!(calls, 1);
    }
}
