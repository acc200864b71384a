//! The one schema of a fleet database, in the two dialects: the same tables, columns and
//! meanings on SQLite and on PostgreSQL. Times are milliseconds since the Unix epoch by the
//! database's clock; lists are JSON text. A migration is appended to both lists, never edited;
//! a database migrated by a newer verdict is refused, not misread.

/// SQLite's migrations; the database's `user_version` counts those applied.
pub(crate) const SQLITE: &[&str] = &[
    // 1: tasks, attempts, events, agent slots and holds, campaigns, a task's history.
    "
    CREATE TABLE tasks (
        id               INTEGER PRIMARY KEY,
        key              TEXT    NOT NULL UNIQUE,
        workspace        TEXT    NOT NULL,
        rev              TEXT,
        setup            TEXT,
        task             TEXT    NOT NULL,
        agents_json      TEXT    NOT NULL,
        provider         TEXT    NOT NULL,
        max_attempts     INTEGER,
        only_json        TEXT    NOT NULL DEFAULT '[]',
        campaign         TEXT,
        priority         INTEGER NOT NULL DEFAULT 0,
        deadline_at      INTEGER,
        cost_cap_usd     REAL,
        state            TEXT    NOT NULL,
        paused           INTEGER NOT NULL DEFAULT 0,
        cancel_requested INTEGER NOT NULL DEFAULT 0,
        attempts         INTEGER NOT NULL DEFAULT 0,
        claims           INTEGER NOT NULL DEFAULT 0,
        next_retry_at    INTEGER,
        workdir          TEXT,
        workdir_host     TEXT,
        branch           TEXT,
        diff             TEXT,
        guidance         TEXT,
        reason           TEXT,
        last_category    TEXT,
        cost_usd         REAL    NOT NULL DEFAULT 0,
        lease_token      INTEGER,
        lease_until      INTEGER,
        worker           TEXT,
        created_at       INTEGER NOT NULL,
        updated_at       INTEGER NOT NULL,
        finished_at      INTEGER
    );
    CREATE INDEX tasks_due ON tasks (state, paused, priority DESC, next_retry_at);
    CREATE INDEX tasks_by_campaign ON tasks (campaign);
    CREATE INDEX tasks_by_provider ON tasks (provider);
    CREATE INDEX tasks_lease ON tasks (state, lease_until);

    CREATE TABLE attempts (
        task_id           INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
        number            INTEGER NOT NULL CHECK (number >= 1),
        worker            TEXT    NOT NULL,
        host              TEXT    NOT NULL,
        pid               INTEGER NOT NULL,
        token             INTEGER NOT NULL,
        claimed_at        INTEGER NOT NULL,
        finished_at       INTEGER,
        outcome           TEXT,
        counted           INTEGER NOT NULL DEFAULT 0,
        reason            TEXT,
        category          TEXT,
        fingerprints_json TEXT    NOT NULL DEFAULT '[]',
        digest            TEXT,
        agent             TEXT,
        agent_ms          INTEGER NOT NULL DEFAULT 0,
        verify_ms         INTEGER NOT NULL DEFAULT 0,
        tokens            INTEGER,
        cost_usd          REAL,
        retry_delay_ms    INTEGER,
        PRIMARY KEY (task_id, number)
    );

    CREATE TABLE events (
        id      INTEGER PRIMARY KEY,
        task_id INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
        number  INTEGER NOT NULL,
        line    TEXT    NOT NULL
    );
    CREATE INDEX events_by_task ON events (task_id, id);

    CREATE TABLE agent_slots (
        agent       TEXT    NOT NULL,
        slot        INTEGER NOT NULL,
        token       INTEGER,
        lease_until INTEGER,
        PRIMARY KEY (agent, slot)
    );

    CREATE TABLE agent_holds (
        agent TEXT    PRIMARY KEY,
        until INTEGER NOT NULL
    );

    CREATE TABLE campaigns (
        name         TEXT PRIMARY KEY,
        cost_cap_usd REAL
    );

    CREATE TABLE task_history (
        id      INTEGER PRIMARY KEY,
        task_id INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
        at      INTEGER NOT NULL,
        action  TEXT    NOT NULL,
        detail  TEXT
    );
    CREATE INDEX task_history_by_task ON task_history (task_id, id);
    ",
    // 2: a dashboard's reads: the queue most recently changed first (in all, or in one
    // state), attempts counted by outcome, and the counter its watermark reads.
    "
    CREATE INDEX tasks_by_update ON tasks (updated_at, id);
    CREATE INDEX tasks_by_state_update ON tasks (state, updated_at, id);
    CREATE INDEX attempts_by_outcome ON attempts (outcome);
    CREATE TABLE changes (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        n  INTEGER NOT NULL
    );
    INSERT INTO changes (id, n) VALUES (1, 0);
    ",
];

/// PostgreSQL's migrations, the same as [`SQLITE`]'s in its dialect; the table
/// `verdict_fleet_schema` holds how many were applied.
pub(crate) const POSTGRES: &[&str] = &[
    // 1: as SQLite's 1.
    "
    CREATE TABLE tasks (
        id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key              TEXT    NOT NULL UNIQUE,
        workspace        TEXT    NOT NULL,
        rev              TEXT,
        setup            TEXT,
        task             TEXT    NOT NULL,
        agents_json      TEXT    NOT NULL,
        provider         TEXT    NOT NULL,
        max_attempts     INTEGER,
        only_json        TEXT    NOT NULL DEFAULT '[]',
        campaign         TEXT,
        priority         INTEGER NOT NULL DEFAULT 0,
        deadline_at      BIGINT,
        cost_cap_usd     DOUBLE PRECISION,
        state            TEXT    NOT NULL,
        paused           BOOLEAN NOT NULL DEFAULT FALSE,
        cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
        attempts         INTEGER NOT NULL DEFAULT 0,
        claims           INTEGER NOT NULL DEFAULT 0,
        next_retry_at    BIGINT,
        workdir          TEXT,
        workdir_host     TEXT,
        branch           TEXT,
        diff             TEXT,
        guidance         TEXT,
        reason           TEXT,
        last_category    TEXT,
        cost_usd         DOUBLE PRECISION NOT NULL DEFAULT 0,
        lease_token      BIGINT,
        lease_until      BIGINT,
        worker           TEXT,
        created_at       BIGINT  NOT NULL,
        updated_at       BIGINT  NOT NULL,
        finished_at      BIGINT
    );
    -- SQLite's indexes end with the rowid (the id) unnamed; PostgreSQL's names it, so a
    -- claim walks this index in its order (priority, due time, id) and stops at the first.
    CREATE INDEX tasks_due ON tasks (state, paused, priority DESC, next_retry_at, id);
    CREATE INDEX tasks_by_campaign ON tasks (campaign);
    CREATE INDEX tasks_by_provider ON tasks (provider);
    CREATE INDEX tasks_lease ON tasks (state, lease_until);

    CREATE TABLE attempts (
        task_id           BIGINT  NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
        number            INTEGER NOT NULL CHECK (number >= 1),
        worker            TEXT    NOT NULL,
        host              TEXT    NOT NULL,
        pid               INTEGER NOT NULL,
        token             BIGINT  NOT NULL,
        claimed_at        BIGINT  NOT NULL,
        finished_at       BIGINT,
        outcome           TEXT,
        counted           BOOLEAN NOT NULL DEFAULT FALSE,
        reason            TEXT,
        category          TEXT,
        fingerprints_json TEXT    NOT NULL DEFAULT '[]',
        digest            TEXT,
        agent             TEXT,
        agent_ms          BIGINT  NOT NULL DEFAULT 0,
        verify_ms         BIGINT  NOT NULL DEFAULT 0,
        tokens            BIGINT,
        cost_usd          DOUBLE PRECISION,
        retry_delay_ms    BIGINT,
        PRIMARY KEY (task_id, number)
    );

    CREATE TABLE events (
        id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        task_id BIGINT  NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
        number  INTEGER NOT NULL,
        line    TEXT    NOT NULL
    );
    CREATE INDEX events_by_task ON events (task_id, id);

    CREATE TABLE agent_slots (
        agent       TEXT    NOT NULL,
        slot        INTEGER NOT NULL,
        token       BIGINT,
        lease_until BIGINT,
        PRIMARY KEY (agent, slot)
    );

    CREATE TABLE agent_holds (
        agent TEXT   PRIMARY KEY,
        until BIGINT NOT NULL
    );

    CREATE TABLE campaigns (
        name         TEXT PRIMARY KEY,
        cost_cap_usd DOUBLE PRECISION
    );

    CREATE TABLE task_history (
        id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        task_id BIGINT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
        at      BIGINT NOT NULL,
        action  TEXT   NOT NULL,
        detail  TEXT
    );
    CREATE INDEX task_history_by_task ON task_history (task_id, id);
    ",
    // 2: as SQLite's 2.
    "
    CREATE INDEX tasks_by_update ON tasks (updated_at, id);
    CREATE INDEX tasks_by_state_update ON tasks (state, updated_at, id);
    CREATE INDEX attempts_by_outcome ON attempts (outcome);
    CREATE TABLE changes (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        n  BIGINT  NOT NULL
    );
    INSERT INTO changes (id, n) VALUES (1, 0);
    ",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The two dialects name the same tables and columns.
    #[test]
    fn both_dialects_have_the_same_columns() {
        let names = |sql: &str| -> Vec<String> {
            sql.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with("--") && !l.starts_with(')'))
                .filter_map(|l| l.split_whitespace().next())
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(SQLITE.len(), POSTGRES.len());
        for (a, b) in SQLITE.iter().zip(POSTGRES) {
            assert_eq!(names(a), names(b));
        }
    }
}
