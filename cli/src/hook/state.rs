//! What `verdict hook` remembers in `.verdict/state.db` (SQLite in WAL mode, with a busy timeout:
//! a hook of another session may be writing at the same time):
//!
//! - `hook_sessions`: the block count of each chain, per (harness, chain): a row exists while a
//!   chain of blocks runs; a pass, or verdict letting the agent stop, deletes it;
//! - `hook_baselines`: the failures each session began with, per (harness, session id), kept for
//!   the session's life;
//! - `hook_session_starts`: the tree each session began on, per (harness, session id), recorded
//!   by the session-start hook;
//! - `hook_verifications`: the last verifications, by the tree they verified.
//!
//! All four are tables of the state schema's migrations (core/engine/src/state/schema.rs), which
//! [`Store::open`] applies; the loop's own tables share the file, never a table.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// How long a write waits for another writer before verdict gives up (and fails open).
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// How many trees' verifications are kept.
const KEEP_TREES: i64 = 20;

/// How long a session's baseline and start are kept after they were taken: sessions end without
/// telling.
const KEEP_BASELINE_SECS: i64 = 30 * 24 * 3600;

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
    /// Opens (creating if missing) the database at `path`, its tables made by the migrations.
    pub(crate) fn open(path: &Path) -> Result<Store> {
        let fail = || format!("failed to open the state database {}", path.display());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(fail)?;
        }
        // The schema's migrations create the hook's tables, which it shares with nothing but
        // which need the state database's versioning.
        verdict_core::state::StateDb::open(path).with_context(fail)?;
        let conn = Connection::open(path).with_context(fail)?;
        conn.busy_timeout(BUSY_TIMEOUT).with_context(fail)?;
        // The pragma answers with the mode now in force; reading it runs it.
        let _mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
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
                tx.execute(
                    "INSERT INTO hook_sessions (harness, session, blocks, last_failure, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (harness, session) DO UPDATE SET
                         blocks = excluded.blocks,
                         last_failure = excluded.last_failure,
                         updated_at = excluded.updated_at",
                    params![harness, session, next.blocks, next.last_failure, now()],
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

    /// The baseline (as JSON) of `session`, if one was kept.
    pub(crate) fn baseline(&mut self, harness: &str, session: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT failures_json FROM hook_baselines WHERE harness = ?1 AND session = ?2",
                params![harness, session],
                |row| row.get(0),
            )
            .optional()
            .context("failed to read the session's baseline in the state database")
    }

    /// Keeps `json` as the baseline of `session` unless one is kept already, in one write
    /// transaction, so that two hooks of one session agree on it; returns the kept one.
    pub(crate) fn keep_baseline(
        &mut self,
        harness: &str,
        session: &str,
        json: &str,
    ) -> Result<String> {
        let fail = "failed to keep the session's baseline in the state database";
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context(fail)?;
        let now = now();
        tx.execute(
            "INSERT OR IGNORE INTO hook_baselines (harness, session, failures_json, created_at)
             VALUES (?1, ?2, ?3, ?4)",
            params![harness, session, json, now],
        )
        .context(fail)?;
        tx.execute(
            "DELETE FROM hook_baselines WHERE created_at < ?1",
            params![now - KEEP_BASELINE_SECS],
        )
        .context(fail)?;
        let kept: String = tx
            .query_row(
                "SELECT failures_json FROM hook_baselines WHERE harness = ?1 AND session = ?2",
                params![harness, session],
                |row| row.get(0),
            )
            .context(fail)?;
        tx.commit().context(fail)?;
        Ok(kept)
    }

    /// Records `tree` as the tree `session` began on; the first record of a session stands (a
    /// resumed or compacted session keeps the tree it began on). Says whether it was recorded now.
    pub(crate) fn record_start(
        &mut self,
        harness: &str,
        session: &str,
        tree: &str,
    ) -> Result<bool> {
        let fail = "failed to record the session's start in the state database";
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context(fail)?;
        let now = now();
        let added = tx
            .execute(
                "INSERT OR IGNORE INTO hook_session_starts (harness, session, tree, created_at)
                 VALUES (?1, ?2, ?3, ?4)",
                params![harness, session, tree, now],
            )
            .context(fail)?;
        tx.execute(
            "DELETE FROM hook_session_starts WHERE created_at < ?1",
            params![now - KEEP_BASELINE_SECS],
        )
        .context(fail)?;
        tx.commit().context(fail)?;
        Ok(added > 0)
    }

    /// The tree `session` began on, if its session-start hook recorded one.
    pub(crate) fn session_start(&mut self, harness: &str, session: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT tree FROM hook_session_starts WHERE harness = ?1 AND session = ?2",
                params![harness, session],
                |row| row.get(0),
            )
            .optional()
            .context("failed to read the session's start in the state database")
    }

    /// The verifications (as JSON) kept for `tree` by `version` of verdict.
    pub(crate) fn verifications(&mut self, tree: &str, version: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT verifications_json FROM hook_verifications
                 WHERE tree = ?1 AND verdict_version = ?2",
                params![tree, version],
                |row| row.get(0),
            )
            .optional()
            .context("failed to read the last verification in the state database")
    }

    /// Keeps `json` as the verifications of `tree`, and only the last [`KEEP_TREES`] trees.
    pub(crate) fn keep_verifications(
        &mut self,
        tree: &str,
        version: &str,
        json: &str,
    ) -> Result<()> {
        let fail = "failed to keep the verification in the state database";
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context(fail)?;
        tx.execute(
            "INSERT INTO hook_verifications (tree, verdict_version, verifications_json, recorded_at)
             VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (tree, verdict_version) DO UPDATE SET
                 verifications_json = excluded.verifications_json,
                 recorded_at = excluded.recorded_at",
            params![tree, version, json, now()],
        )
        .context(fail)?;
        tx.execute(
            "DELETE FROM hook_verifications WHERE rowid NOT IN
                 (SELECT rowid FROM hook_verifications ORDER BY recorded_at DESC, rowid DESC
                  LIMIT ?1)",
            params![KEEP_TREES],
        )
        .context(fail)?;
        tx.commit().context(fail)?;
        Ok(())
    }
}

/// Seconds since the epoch.
fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
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

    /// The block counts' table is the schema's (migration 4): the loop's own opening of the
    /// database makes it, and a database whose table an older hook made keeps its chains.
    #[test]
    fn the_block_counts_table_is_a_migration_and_an_older_hooks_rows_are_kept() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("state.db");
        verdict_core::state::StateDb::open(&path).expect("opens");
        let conn = Connection::open(&path).expect("raw connection");
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM hook_sessions", [], |row| row.get(0))
            .expect("the migrations made the table");
        assert_eq!(rows, 0);

        // A database an older verdict left at schema 3, with the table as its hook made it
        // (outside the migrations) and a chain in it.
        let old = dir.path().join("old.db");
        verdict_core::state::StateDb::open(&old).expect("opens");
        let conn = Connection::open(&old).expect("raw connection");
        conn.execute_batch(
            "DROP TABLE hook_sessions;
            PRAGMA user_version = 3;
            CREATE TABLE hook_sessions (
                harness TEXT NOT NULL,
                session TEXT NOT NULL,
                blocks INTEGER NOT NULL,
                last_failure TEXT,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (harness, session)
            );
            INSERT INTO hook_sessions VALUES ('claude', 'a', 2, 'f1', 0);",
        )
        .expect("the old table");
        drop(conn);
        verdict_core::state::StateDb::open(&old).expect("opens");
        let mut store = Store::open(&old).expect("migrated");
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
    }
}
