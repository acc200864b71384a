//! Rows into records: the columns of [`super::sql::task_columns!`] into a [`TaskRecord`], an
//! attempt's row into an [`AttemptRecord`].

use tokio_postgres::Row;
use tokio_postgres::types::FromSql;

use crate::error::{FleetError, Result};
use crate::store::AttemptRecord;
use crate::task::{NewTask, TaskRecord, TaskState};

/// The column `name` of `row`.
pub(super) fn get<'a, T: FromSql<'a>>(row: &'a Row, name: &str) -> Result<T> {
    row.try_get(name)
        .map_err(|e| FleetError::Postgres(format!("column {name}: {e}")))
}

/// A list stored as JSON text.
fn list(row: &Row, name: &str) -> Result<Vec<String>> {
    let text: String = get(row, name)?;
    serde_json::from_str(&text)
        .map_err(|e| FleetError::Postgres(format!("column {name} is not a JSON list: {e}")))
}

pub(super) fn unsigned(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// A task's row.
pub(super) fn task_record(row: &Row) -> Result<TaskRecord> {
    let state: String = get(row, "state")?;
    let state = TaskState::parse(&state)
        .ok_or_else(|| FleetError::Postgres(format!("a task in an unknown state `{state}`")))?;
    let created_at: i64 = get(row, "created_at")?;
    let deadline_at: Option<i64> = get(row, "deadline_at")?;
    let spec = NewTask {
        key: get(row, "key")?,
        workspace: get(row, "workspace")?,
        rev: get(row, "rev")?,
        setup: get(row, "setup")?,
        task: get(row, "task")?,
        agents: list(row, "agents_json")?,
        max_attempts: get::<Option<i32>>(row, "max_attempts")?
            .map(|n| u32::try_from(n).unwrap_or(0)),
        only: list(row, "only_json")?,
        campaign: get(row, "campaign")?,
        priority: get(row, "priority")?,
        deadline_secs: deadline_at.map(|at| unsigned(at - created_at) / 1000),
        cost_cap_usd: get(row, "cost_cap_usd")?,
    };
    Ok(TaskRecord {
        id: get(row, "id")?,
        spec,
        state,
        paused: get(row, "paused")?,
        cancel_requested: get(row, "cancel_requested")?,
        attempts: u32::try_from(get::<i32>(row, "attempts")?).unwrap_or(0),
        next_retry_at: get(row, "next_retry_at")?,
        workdir: get(row, "workdir")?,
        branch: get(row, "branch")?,
        guidance: get(row, "guidance")?,
        reason: get(row, "reason")?,
        last_category: get(row, "last_category")?,
        cost_usd: get(row, "cost_usd")?,
        deadline_at,
        host: get(row, "workdir_host")?,
        created_at,
        updated_at: get(row, "updated_at")?,
        finished_at: get(row, "finished_at")?,
    })
}

/// An attempt's row, with its task's campaign.
pub(super) fn attempt_record(row: &Row) -> Result<AttemptRecord> {
    Ok(AttemptRecord {
        task: get(row, "task_id")?,
        number: u32::try_from(get::<i32>(row, "number")?).unwrap_or(0),
        worker: get(row, "worker")?,
        host: get(row, "host")?,
        claimed_at: get(row, "claimed_at")?,
        finished_at: get(row, "finished_at")?,
        outcome: get(row, "outcome")?,
        counted: get(row, "counted")?,
        reason: get(row, "reason")?,
        category: get(row, "category")?,
        fingerprints: list(row, "fingerprints_json")?,
        agent: get(row, "agent")?,
        agent_ms: unsigned(get(row, "agent_ms")?),
        verify_ms: unsigned(get(row, "verify_ms")?),
        tokens: get::<Option<i64>>(row, "tokens")?.map(unsigned),
        cost_usd: get(row, "cost_usd")?,
        retry_delay_ms: get::<Option<i64>>(row, "retry_delay_ms")?.map(unsigned),
        digest: get(row, "digest")?,
        campaign: get(row, "campaign")?,
    })
}
