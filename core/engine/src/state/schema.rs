//! The schema of the state database and its migrations, numbered by SQLite's `user_version`.
//!
//! A migration is appended, never edited: a database written by an older verdict is brought
//! forward step by step, and one written by a newer verdict is refused rather than misread.

use rusqlite::Transaction;

use super::{Result, StateError};

/// The migrations, in order; the database's `user_version` is how many have been applied.
const MIGRATIONS: &[&str] = &[
    // 1: runs, attempts, verifications, transitions, events.
    "
    CREATE TABLE runs (
        id            INTEGER PRIMARY KEY,
        task          TEXT    NOT NULL,
        task_hash     TEXT    NOT NULL,
        workspace     TEXT    NOT NULL,
        config_json   TEXT    NOT NULL DEFAULT '{}',
        max_attempts  INTEGER NOT NULL CHECK (max_attempts >= 1),
        state         TEXT    NOT NULL,
        created_at    INTEGER NOT NULL,
        finished_at   INTEGER,
        final_outcome TEXT
    );
    CREATE INDEX runs_by_task ON runs (task_hash, workspace);

    CREATE TABLE attempts (
        id                INTEGER PRIMARY KEY,
        run_id            INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        number            INTEGER NOT NULL CHECK (number >= 1),
        agent             TEXT    NOT NULL,
        prompt_tokens     INTEGER,
        pid               INTEGER,
        pgid              INTEGER,
        process_start     INTEGER,
        started_at        INTEGER NOT NULL,
        finished_at       INTEGER,
        session_outcome   TEXT,
        output_tail       TEXT,
        workspace_changed INTEGER,
        interrupted       INTEGER NOT NULL DEFAULT 0,
        UNIQUE (run_id, number)
    );

    -- attempt_id NULL: the baseline verification of the run's starting tree.
    CREATE TABLE verifications (
        id            INTEGER PRIMARY KEY,
        run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        attempt_id    INTEGER REFERENCES attempts (id) ON DELETE CASCADE,
        outcome       TEXT    NOT NULL,
        category      TEXT,
        confidence    REAL,
        location      TEXT,
        failures_json TEXT    NOT NULL DEFAULT '[]',
        tests_run     INTEGER,
        digest        TEXT    NOT NULL DEFAULT '',
        duration_ms   INTEGER NOT NULL,
        recorded_at   INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX verifications_of_attempt ON verifications (attempt_id)
        WHERE attempt_id IS NOT NULL;
    CREATE UNIQUE INDEX baseline_of_run ON verifications (run_id) WHERE attempt_id IS NULL;

    -- attempt: the highest attempt number of the run when the transition happened.
    CREATE TABLE transitions (
        id         INTEGER PRIMARY KEY,
        run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        attempt    INTEGER,
        from_state TEXT    NOT NULL,
        to_state   TEXT    NOT NULL,
        reason     TEXT    NOT NULL,
        at         INTEGER NOT NULL
    );
    CREATE INDEX transitions_of_run ON transitions (run_id, id);

    CREATE TABLE events (
        id           INTEGER PRIMARY KEY,
        run_id       INTEGER REFERENCES runs (id) ON DELETE CASCADE,
        at           INTEGER NOT NULL,
        kind         TEXT    NOT NULL,
        payload_json TEXT    NOT NULL
    );
    CREATE INDEX events_of_run ON events (run_id, id);
    ",
    // 2: the sessions an attempt ran (the agent that ran it may not be the one it started with),
    // and the flaky failures a verification set aside.
    "
    ALTER TABLE attempts ADD COLUMN sessions_json TEXT;
    ALTER TABLE verifications ADD COLUMN flaky_json TEXT NOT NULL DEFAULT '[]';
    ",
    // 3: `verdict hook`: the failures each session began with (by harness and session id), the
    // tree each session began on (recorded by its session-start hook), and the verifications it
    // answered with, by the tree they verified, so that a stop with no change since answers at
    // once.
    "
    CREATE TABLE hook_baselines (
        harness       TEXT    NOT NULL,
        session       TEXT    NOT NULL,
        failures_json TEXT    NOT NULL,
        created_at    INTEGER NOT NULL,
        PRIMARY KEY (harness, session)
    );

    CREATE TABLE hook_session_starts (
        harness    TEXT    NOT NULL,
        session    TEXT    NOT NULL,
        tree       TEXT    NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (harness, session)
    );

    CREATE TABLE hook_verifications (
        tree               TEXT    NOT NULL,
        verdict_version    TEXT    NOT NULL,
        verifications_json TEXT    NOT NULL,
        recorded_at        INTEGER NOT NULL,
        PRIMARY KEY (tree, verdict_version)
    );
    ",
    // 4: `verdict hook`'s block count per chain of blocks, by harness and chain. The hook created
    // this table itself before it was a migration, so a database it wrote may have it already.
    "
    CREATE TABLE IF NOT EXISTS hook_sessions (
        harness      TEXT    NOT NULL,
        session      TEXT    NOT NULL,
        blocks       INTEGER NOT NULL,
        last_failure TEXT,
        updated_at   INTEGER NOT NULL,
        PRIMARY KEY (harness, session)
    );
    ",
];

/// Applies the migrations the database lacks, inside the caller's (immediate) transaction, so that
/// two processes opening a new database at once do not both create it.
pub(super) fn migrate(tx: &Transaction<'_>) -> Result<()> {
    let found: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    let supported = MIGRATIONS.len() as i64;
    if found > supported {
        return Err(StateError::SchemaTooNew { found, supported });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", index as i64 + 1)?;
    }
    Ok(())
}

/// The schema version this build writes.
pub(super) const VERSION: i64 = MIGRATIONS.len() as i64;
