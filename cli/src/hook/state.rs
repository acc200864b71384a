//! The block counts of `verdict hook`, per (harness, session), in its own table of
//! `.verdict/state.db` (SQLite in WAL mode, with a busy timeout: a hook of another session may be
//! writing at the same time).
//!
//! A row exists while a chain of blocks runs; a pass, or verdict letting the agent stop, deletes
//! it. The loop's own state (core/src/state/) shares the file, never the table.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// How long a write waits for another writer before verdict gives up (and fails open).
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// Where a chain of blocks stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Session {
    /// Blocks so far in this chain.
    pub(crate) blocks: u32,
    /// The failure identity at the last block.
    pub(crate) last_failure: Option<String>,
}

/// The open database.
pub(crate) struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (creating if missing) the database at `path` and its `hook_sessions` table.
    pub(crate) fn open(path: &Path) -> Result<Store> {
        let fail = || format!("failed to open the state database {}", path.display());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(fail)?;
        }
        let conn = Connection::open(path).with_context(fail)?;
        conn.busy_timeout(BUSY_TIMEOUT).with_context(fail)?;
        // The pragma answers with the mode now in force; reading it runs it.
        let _mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .with_context(fail)?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS hook_sessions (
                harness TEXT NOT NULL,
                session TEXT NOT NULL,
                blocks INTEGER NOT NULL,
                last_failure TEXT,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (harness, session)
            )",
        )
        .with_context(fail)?;
        Ok(Store { conn })
    }

    /// Reads the session's chain, lets `decide` answer and say what the chain becomes (`None`
    /// ends it), and writes that, all in one write transaction.
    pub(crate) fn update<T>(
        &mut self,
        harness: &str,
        session: &str,
        decide: impl FnOnce(&Session) -> (Option<Session>, T),
    ) -> Result<T> {
        let fail = "failed to update the hook's block count in the state database";
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context(fail)?;
        let current = tx
            .query_row(
                "SELECT blocks, last_failure FROM hook_sessions WHERE harness = ?1 AND session = ?2",
                params![harness, session],
                |row| {
                    Ok(Session {
                        blocks: row.get(0)?,
                        last_failure: row.get(1)?,
                    })
                },
            )
            .optional()
            .context(fail)?
            .unwrap_or_default();
        let (next, answer) = decide(&current);
        match next {
            Some(next) => {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                tx.execute(
                    "INSERT INTO hook_sessions (harness, session, blocks, last_failure, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (harness, session) DO UPDATE SET
                         blocks = excluded.blocks,
                         last_failure = excluded.last_failure,
                         updated_at = excluded.updated_at",
                    params![harness, session, next.blocks, next.last_failure, now as i64],
                )
                .context(fail)?;
            }
            None => {
                tx.execute(
                    "DELETE FROM hook_sessions WHERE harness = ?1 AND session = ?2",
                    params![harness, session],
                )
                .context(fail)?;
            }
        }
        tx.commit().context(fail)?;
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_are_kept_per_harness_and_session_and_end_on_none() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join(".verdict").join("state.db");
        let mut store = Store::open(&path).expect("opens");
        let bump = |s: &Session| {
            let next = Session {
                blocks: s.blocks + 1,
                last_failure: Some(format!("f{}", s.blocks)),
            };
            (Some(next), s.blocks)
        };
        assert_eq!(store.update("claude", "a", bump).expect("update"), 0);
        assert_eq!(store.update("claude", "a", bump).expect("update"), 1);
        assert_eq!(store.update("cursor", "a", bump).expect("update"), 0);
        assert_eq!(store.update("claude", "b", bump).expect("update"), 0);
        // Reopened (another hook process), the count is still there.
        let mut store = Store::open(&path).expect("reopens");
        let seen = store
            .update("claude", "a", |s| (None, s.clone()))
            .expect("update");
        assert_eq!(
            seen,
            Session {
                blocks: 2,
                last_failure: Some("f1".into())
            }
        );
        assert_eq!(store.update("claude", "a", bump).expect("update"), 0);
    }
}
