//! Rows to records, and the queries that only read.

use rusqlite::types::Type;
use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::run::{TxError, TxResult};
use crate::error::FleetError;
use crate::store::{AttemptRecord, Counts, Selector};
use crate::task::{NewTask, TaskId, TaskRecord, TaskState};

/// The columns [`task_from_row`] reads, in its order.
pub(super) const TASK_COLUMNS: &str = "id, key, workspace, rev, setup, task, agents_json, \
    max_attempts, only_json, campaign, priority, deadline_at, cost_cap_usd, state, paused, \
    cancel_requested, attempts, next_retry_at, workdir, branch, guidance, reason, \
    last_category, cost_usd, workdir_host, created_at, updated_at, finished_at";

/// A stored JSON list of strings.
fn json_list(row: &Row<'_>, index: usize) -> rusqlite::Result<Vec<String>> {
    let text: String = row.get(index)?;
    serde_json::from_str(&text)
        .map_err(|error| rusqlite::Error::FromSqlConversionFailure(index, Type::Text, error.into()))
}

/// A stored count or duration, never negative.
pub(super) fn unsigned(row: &Row<'_>, index: usize) -> rusqlite::Result<u64> {
    Ok(u64::try_from(row.get::<_, i64>(index)?).unwrap_or(0))
}

/// An optional stored count.
fn unsigned_opt(row: &Row<'_>, index: usize) -> rusqlite::Result<Option<u64>> {
    Ok(row
        .get::<_, Option<i64>>(index)?
        .map(|n| u64::try_from(n).unwrap_or(0)))
}

/// Reads a task from a row of [`TASK_COLUMNS`].
pub(super) fn task_from_row(row: &Row<'_>) -> rusqlite::Result<TaskRecord> {
    let state: String = row.get(13)?;
    let state = TaskState::parse(&state).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            13,
            Type::Text,
            format!("unknown task state {state:?}").into(),
        )
    })?;
    let deadline_at: Option<i64> = row.get(11)?;
    let created_at: i64 = row.get(25)?;
    let spec = NewTask {
        key: row.get(1)?,
        workspace: row.get(2)?,
        rev: row.get(3)?,
        setup: row.get(4)?,
        task: row.get(5)?,
        agents: json_list(row, 6)?,
        max_attempts: row.get(7)?,
        only: json_list(row, 8)?,
        campaign: row.get(9)?,
        priority: row.get(10)?,
        deadline_secs: deadline_at.map(|at| u64::try_from((at - created_at) / 1000).unwrap_or(0)),
        cost_cap_usd: row.get(12)?,
    };
    Ok(TaskRecord {
        id: row.get(0)?,
        spec,
        state,
        paused: row.get(14)?,
        cancel_requested: row.get(15)?,
        attempts: row.get(16)?,
        next_retry_at: row.get(17)?,
        workdir: row.get(18)?,
        branch: row.get(19)?,
        guidance: row.get(20)?,
        reason: row.get(21)?,
        last_category: row.get(22)?,
        cost_usd: row.get(23)?,
        deadline_at,
        host: row.get(24)?,
        created_at,
        updated_at: row.get(26)?,
        finished_at: row.get(27)?,
    })
}

/// The id of the task `task` names: a key first (keys are the user's names), then an id.
pub(super) fn resolve(tx: &Transaction<'_>, task: &str) -> rusqlite::Result<Option<TaskId>> {
    let by_key = tx
        .query_row("SELECT id FROM tasks WHERE key = ?1", [task], |row| {
            row.get(0)
        })
        .optional()?;
    if by_key.is_some() {
        return Ok(by_key);
    }
    let Ok(id) = task.trim().parse::<TaskId>() else {
        return Ok(None);
    };
    tx.query_row("SELECT id FROM tasks WHERE id = ?1", [id], |row| row.get(0))
        .optional()
}

/// The SQL condition and its one parameter for the tasks `selector` names (`?1`); a task that
/// does not exist is an error.
pub(super) fn selection(
    tx: &Transaction<'_>,
    selector: &Selector,
) -> TxResult<(&'static str, rusqlite::types::Value)> {
    use rusqlite::types::Value;
    Ok(match selector {
        Selector::Task(task) => match resolve(tx, task)? {
            Some(id) => ("id = ?1", Value::Integer(id)),
            None => return Err(TxError::Fleet(FleetError::NoSuchTask(task.clone()))),
        },
        Selector::Campaign(name) => ("campaign = ?1", Value::Text(name.clone())),
        Selector::Agent(agent) => ("provider = ?1", Value::Text(agent.clone())),
        Selector::All => ("?1 IS NULL", Value::Null),
    })
}

/// One task by id.
pub(super) fn task_by_id(tx: &Transaction<'_>, id: TaskId) -> rusqlite::Result<Option<TaskRecord>> {
    tx.query_row(
        &format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?1"),
        [id],
        task_from_row,
    )
    .optional()
}

/// One task by id or key.
pub(super) fn task(tx: &Transaction<'_>, task: &str) -> TxResult<Option<TaskRecord>> {
    match resolve(tx, task)? {
        Some(id) => Ok(task_by_id(tx, id)?),
        None => Ok(None),
    }
}

/// The tasks a selector names, by id (an unknown task is an empty list).
pub(super) fn tasks(tx: &Transaction<'_>, selector: &Selector) -> TxResult<Vec<TaskRecord>> {
    let (condition, value) = match selection(tx, selector) {
        Ok(found) => found,
        Err(TxError::Fleet(FleetError::NoSuchTask(_))) => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let mut statement = tx.prepare(&format!(
        "SELECT {TASK_COLUMNS} FROM tasks WHERE {condition} ORDER BY id"
    ))?;
    let rows = statement.query_map([value], task_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn attempt_from_row(row: &Row<'_>) -> rusqlite::Result<AttemptRecord> {
    Ok(AttemptRecord {
        task: row.get(0)?,
        number: row.get(1)?,
        worker: row.get(2)?,
        host: row.get(3)?,
        claimed_at: row.get(4)?,
        finished_at: row.get(5)?,
        outcome: row.get(6)?,
        counted: row.get(7)?,
        reason: row.get(8)?,
        category: row.get(9)?,
        fingerprints: json_list(row, 10)?,
        agent: row.get(11)?,
        agent_ms: unsigned(row, 12)?,
        verify_ms: unsigned(row, 13)?,
        tokens: unsigned_opt(row, 14)?,
        cost_usd: row.get(15)?,
        retry_delay_ms: unsigned_opt(row, 16)?,
        campaign: row.get(17)?,
        digest: row.get(18)?,
    })
}

/// A task's attempts by number, or every attempt (by task, then number).
pub(super) fn attempts(tx: &Transaction<'_>, task: Option<TaskId>) -> TxResult<Vec<AttemptRecord>> {
    let mut statement = tx.prepare(
        "SELECT a.task_id, a.number, a.worker, a.host, a.claimed_at, a.finished_at, a.outcome,
                a.counted, a.reason, a.category, a.fingerprints_json, a.agent, a.agent_ms,
                a.verify_ms, a.tokens, a.cost_usd, a.retry_delay_ms, t.campaign, a.digest
         FROM attempts a JOIN tasks t ON t.id = a.task_id
         WHERE ?1 IS NULL OR a.task_id = ?1
         ORDER BY a.task_id, a.number",
    )?;
    let rows = statement.query_map([task], attempt_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A task's events, in order.
pub(super) fn events(tx: &Transaction<'_>, task: TaskId) -> TxResult<Vec<String>> {
    let mut statement = tx.prepare("SELECT line FROM events WHERE task_id = ?1 ORDER BY id")?;
    let rows = statement.query_map([task], |row| row.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A task's stored diff.
pub(super) fn diff(tx: &Transaction<'_>, task: TaskId) -> TxResult<Option<String>> {
    let diff = tx
        .query_row("SELECT diff FROM tasks WHERE id = ?1", [task], |row| {
            row.get(0)
        })
        .optional()?;
    Ok(diff.flatten())
}

/// Tasks by state, the paused waiting ones, and when the next is due. Each query walks the
/// `tasks_due` index only.
pub(super) fn counts(tx: &Transaction<'_>, now: i64) -> TxResult<Counts> {
    let mut statement =
        tx.prepare_cached("SELECT state, paused, COUNT(*) FROM tasks GROUP BY state, paused")?;
    let found = statement
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, bool>(1)?,
                unsigned(row, 2)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let count = |state: TaskState, paused: Option<bool>| -> u64 {
        found
            .iter()
            .filter(|(s, p, _)| s == state.as_str() && paused.is_none_or(|paused| *p == paused))
            .map(|(_, _, n)| n)
            .sum()
    };
    let by_state = TaskState::ALL
        .into_iter()
        .map(|s| (s, count(s, None)))
        .collect();
    let paused =
        count(TaskState::Pending, Some(true)) + count(TaskState::RetryScheduled, Some(true));
    // A pending task is due since it was added; a scheduled retry at its time.
    let next_due = if count(TaskState::Pending, Some(false)) > 0 {
        Some(now)
    } else {
        tx.query_row(
            "SELECT MIN(next_retry_at) FROM tasks WHERE state = 'retry_scheduled' AND paused = 0",
            [],
            |row| row.get::<_, Option<i64>>(0),
        )?
    };
    Ok(Counts {
        by_state,
        paused,
        next_due_in: next_due.map(|at| (at - now).max(0)),
    })
}

/// Providers held until a time still ahead.
pub(super) fn held(tx: &Transaction<'_>, now: i64) -> TxResult<Vec<(String, i64)>> {
    let mut statement =
        tx.prepare("SELECT agent, until FROM agent_holds WHERE until > ?1 ORDER BY agent")?;
    let rows = statement.query_map(params![now], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
