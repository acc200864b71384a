//! The writes of the state database, inside one transaction: runs, transitions, attempts,
//! verifications and events.
//!
//! Each method of [`Batch`] is the method of the same name of [`StateDb`], without
//! the commit.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

// The documentation links to the methods a batch mirrors.
#[cfg(doc)]
use super::StateDb;
use super::{
    AttemptFinish, AttemptId, NewRun, NewVerification, Result, RunId, RunState, StateError,
    UnknownState, now_ms, task_hash,
};

/// The writes of [`StateDb`], inside one transaction opened by [`StateDb::write`]. Each method
/// does what the [`StateDb`] method of the same name does, without committing.
#[derive(Debug)]
pub struct Batch<'a> {
    pub(super) tx: &'a Transaction<'a>,
}

impl Batch<'_> {
    /// The state `run` is in, as this transaction sees it.
    pub fn state(&self, run: RunId) -> Result<RunState> {
        stored_state(self.tx, run)
    }

    /// [`StateDb::next_attempt_number`], as this transaction sees it.
    pub fn next_attempt_number(&self, run: RunId) -> Result<u32> {
        next_number(self.tx, run)
    }

    /// [`StateDb::create_run`], inside this transaction.
    pub fn create_run(&self, run: &NewRun<'_>) -> Result<RunId> {
        let tx = self.tx;
        tx.execute(
            "INSERT INTO runs (task, task_hash, workspace, config_json, max_attempts, state, \
             created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                run.task,
                task_hash(run.task),
                run.workspace.to_string_lossy(),
                run.config.to_string(),
                run.max_attempts,
                RunState::Pending.as_str(),
                now_ms(),
            ],
        )?;
        Ok(RunId(tx.last_insert_rowid()))
    }

    /// Replaces the configuration summary and the attempts allowed of `run` (a run resumed with
    /// other settings than it was started with).
    pub fn update_run_config(
        &self,
        run: RunId,
        config: &serde_json::Value,
        max_attempts: u32,
    ) -> Result<()> {
        let tx = self.tx;
        stored_state(tx, run)?;
        tx.execute(
            "UPDATE runs SET config_json = ?2, max_attempts = ?3 WHERE id = ?1",
            params![run.0, config.to_string(), max_attempts],
        )?;
        Ok(())
    }

    /// [`StateDb::transition`], inside this transaction.
    pub fn transition(&self, run: RunId, from: RunState, to: RunState, reason: &str) -> Result<()> {
        let tx = self.tx;
        let actual = stored_state(tx, run)?;
        if actual != from {
            return Err(StateError::StateMismatch {
                run,
                expected: from,
                actual,
            });
        }
        move_run(tx, run, from, to, reason)
    }

    /// [`StateDb::begin_attempt`], inside this transaction.
    pub fn begin_attempt(
        &self,
        run: RunId,
        number: u32,
        agent: &str,
        prompt_tokens: Option<u64>,
    ) -> Result<AttemptId> {
        let tx = self.tx;
        let from = stored_state(tx, run)?;
        if !from.can_go_to(RunState::AgentRunning) {
            return Err(StateError::InvalidTransition {
                from,
                to: RunState::AgentRunning,
            });
        }
        let next = next_number(tx, run)?;
        if number != next {
            return Err(StateError::AttemptOutOfOrder { run, number, next });
        }
        tx.execute(
            "INSERT INTO attempts (run_id, number, agent, prompt_tokens, started_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                run.0,
                number,
                agent,
                prompt_tokens.map(|n| n as i64),
                now_ms()
            ],
        )?;
        let attempt = AttemptId(tx.last_insert_rowid());
        move_run(
            tx,
            run,
            from,
            RunState::AgentRunning,
            &format!("attempt {number} started ({agent})"),
        )?;
        Ok(attempt)
    }

    /// [`StateDb::record_agent_process`], inside this transaction.
    pub fn record_agent_process(
        &self,
        attempt: AttemptId,
        pid: i32,
        pgid: i32,
        start_time: u64,
    ) -> Result<()> {
        let tx = self.tx;
        unfinished(tx, attempt)?;
        tx.execute(
            "UPDATE attempts SET pid = ?2, pgid = ?3, process_start = ?4 WHERE id = ?1",
            params![attempt.0, pid, pgid, start_time as i64],
        )?;
        Ok(())
    }

    /// [`StateDb::finish_attempt`], inside this transaction.
    pub fn finish_attempt(&self, attempt: AttemptId, finish: &AttemptFinish<'_>) -> Result<()> {
        let tx = self.tx;
        unfinished(tx, attempt)?;
        tx.execute(
            "UPDATE attempts SET finished_at = ?2, session_outcome = ?3, output_tail = ?4, \
             workspace_changed = ?5 WHERE id = ?1",
            params![
                attempt.0,
                now_ms(),
                finish.session_outcome,
                finish.output_tail,
                finish.workspace_changed
            ],
        )?;
        if let Some(last) = finish.sessions.last().filter(|s| !s.agent.is_empty()) {
            let sessions = serde_json::to_string(finish.sessions).map_err(|error| {
                StateError::Corrupt(format!("unserializable sessions: {error}"))
            })?;
            tx.execute(
                "UPDATE attempts SET agent = ?2, sessions_json = ?3 WHERE id = ?1",
                params![attempt.0, last.agent, sessions],
            )?;
        }
        Ok(())
    }

    /// [`StateDb::mark_interrupted`], inside this transaction.
    pub fn mark_interrupted(&self, attempt: AttemptId) -> Result<()> {
        let tx = self.tx;
        unfinished(tx, attempt)?;
        tx.execute(
            "UPDATE attempts SET finished_at = ?2, session_outcome = 'interrupted', \
             interrupted = 1 WHERE id = ?1",
            params![attempt.0, now_ms()],
        )?;
        Ok(())
    }

    /// [`StateDb::record_verification`], inside this transaction.
    pub fn record_verification(
        &self,
        run: RunId,
        attempt: Option<AttemptId>,
        verification: &NewVerification<'_>,
    ) -> Result<()> {
        let failures = serde_json::to_string(verification.failures)
            .map_err(|error| StateError::Corrupt(format!("unserializable failures: {error}")))?;
        let flaky = serde_json::to_string(verification.flaky)
            .map_err(|error| StateError::Corrupt(format!("unserializable failures: {error}")))?;
        let tx = self.tx;
        stored_state(tx, run)?;
        match attempt {
            Some(attempt) => tx.execute(
                "DELETE FROM verifications WHERE attempt_id = ?1",
                [attempt.0],
            )?,
            None => tx.execute(
                "DELETE FROM verifications WHERE run_id = ?1 AND attempt_id IS NULL",
                [run.0],
            )?,
        };
        tx.execute(
            "INSERT INTO verifications (run_id, attempt_id, outcome, category, confidence, \
             location, failures_json, tests_run, digest, duration_ms, recorded_at, flaky_json) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                run.0,
                attempt.map(|a| a.0),
                verification.outcome.as_str(),
                verification.category,
                verification.confidence,
                verification.location,
                failures,
                verification.tests_run.map(|n| n as i64),
                verification.digest,
                verification.duration.as_millis() as i64,
                now_ms(),
                flaky,
            ],
        )?;
        Ok(())
    }

    /// [`StateDb::record_event`], inside this transaction.
    pub fn record_event(
        &self,
        run: Option<RunId>,
        kind: &str,
        payload: &serde_json::Value,
    ) -> Result<()> {
        let tx = self.tx;
        tx.execute(
            "INSERT INTO events (run_id, at, kind, payload_json) VALUES (?1, ?2, ?3, ?4)",
            params![run.map(|r| r.0), now_ms(), kind, payload.to_string()],
        )?;
        Ok(())
    }
}

/// The stored state of `run`.
pub(super) fn stored_state(conn: &Connection, run: RunId) -> Result<RunState> {
    let state: Option<String> = conn
        .query_row("SELECT state FROM runs WHERE id = ?1", [run.0], |row| {
            row.get(0)
        })
        .optional()?;
    let state = state.ok_or(StateError::NoSuchRun(run))?;
    state
        .parse()
        .map_err(|error: UnknownState| StateError::Corrupt(error.to_string()))
}

/// Moves `run` (known to be in `from`) to `to` and records the transition, inside a transaction.
pub(super) fn move_run(
    conn: &Connection,
    run: RunId,
    from: RunState,
    to: RunState,
    reason: &str,
) -> Result<()> {
    if !from.can_go_to(to) {
        return Err(StateError::InvalidTransition { from, to });
    }
    let now = now_ms();
    let attempt: Option<u32> = conn.query_row(
        "SELECT MAX(number) FROM attempts WHERE run_id = ?1",
        [run.0],
        |row| row.get(0),
    )?;
    conn.execute(
        "INSERT INTO transitions (run_id, attempt, from_state, to_state, reason, at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![run.0, attempt, from.as_str(), to.as_str(), reason, now],
    )?;
    if to.is_terminal() {
        conn.execute(
            "UPDATE runs SET state = ?2, finished_at = ?3, final_outcome = ?2 WHERE id = ?1",
            params![run.0, to.as_str(), now],
        )?;
    } else {
        conn.execute(
            "UPDATE runs SET state = ?2 WHERE id = ?1",
            params![run.0, to.as_str()],
        )?;
    }
    Ok(())
}

/// One more than the highest attempt number of `run`.
pub(super) fn next_number(conn: &Connection, run: RunId) -> Result<u32> {
    let highest: Option<u32> = conn.query_row(
        "SELECT MAX(number) FROM attempts WHERE run_id = ?1",
        [run.0],
        |row| row.get(0),
    )?;
    Ok(highest.unwrap_or(0) + 1)
}

/// Fails unless `attempt` exists and has not finished.
pub(super) fn unfinished(conn: &Connection, attempt: AttemptId) -> Result<()> {
    let finished: Option<Option<i64>> = conn
        .query_row(
            "SELECT finished_at FROM attempts WHERE id = ?1",
            [attempt.0],
            |row| row.get(0),
        )
        .optional()?;
    match finished {
        None => Err(StateError::NoSuchAttempt(attempt)),
        Some(Some(_)) => Err(StateError::AttemptFinished(attempt)),
        Some(None) => Ok(()),
    }
}
