//! What people and scripts ask of the queue: add tasks, set agent limits, cancel, pause,
//! resume, retry with guidance, prune.

use std::time::Duration;

use rusqlite::{OptionalExtension, Transaction, params};

use super::claim::{changed, history, millis};
use super::read::{resolve, selection};
use super::run::{TxError, TxResult};
use crate::error::FleetError;
use crate::store::{AgentLimit, Control, Pruned, Selector};
use crate::task::{NewTask, TaskId};

fn json(value: &[String]) -> TxResult<String> {
    serde_json::to_string(value)
        .map_err(|error| TxError::Fleet(FleetError::Invalid(error.to_string())))
}

/// Adds the tasks whose keys are new (see [`crate::Store::add`]); a deadline counts from now.
pub(super) fn add(
    tx: &Transaction<'_>,
    now: i64,
    tasks: &[NewTask],
) -> TxResult<Vec<(TaskId, bool)>> {
    let mut added = Vec::with_capacity(tasks.len());
    for task in tasks {
        if let Some(campaign) = &task.campaign {
            tx.prepare_cached("INSERT INTO campaigns (name) VALUES (?1) ON CONFLICT DO NOTHING")?
                .execute([campaign])?;
        }
        let deadline_at = task
            .deadline_secs
            .map(|secs| now.saturating_add(millis(Duration::from_secs(secs))));
        let id: Option<TaskId> = tx
            .prepare_cached(
                "INSERT INTO tasks (key, workspace, rev, setup, task, agents_json, provider,
                    max_attempts, only_json, campaign, priority, deadline_at, cost_cap_usd,
                    state, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'pending', ?14, ?14)
                 ON CONFLICT (key) DO NOTHING RETURNING id",
            )?
            .query_row(
                params![
                    task.key,
                    task.workspace,
                    task.rev,
                    task.setup,
                    task.task,
                    json(&task.agents)?,
                    task.provider(),
                    task.max_attempts,
                    json(&task.only)?,
                    task.campaign,
                    task.priority,
                    deadline_at,
                    task.cost_cap_usd,
                    now,
                ],
                |row| row.get(0),
            )
            .optional()?;
        match id {
            Some(id) => {
                history(tx, id, now, "added", None)?;
                added.push((id, true));
            }
            None => {
                let id =
                    tx.query_row("SELECT id FROM tasks WHERE key = ?1", [&task.key], |row| {
                        row.get(0)
                    })?;
                added.push((id, false));
            }
        }
    }
    Ok(added)
}

/// Creates or removes slot rows to match each limit. A limit of 0 slots removes the limit (no
/// slot rows: the provider is not limited); to stop a provider, pause its tasks.
pub(super) fn set_limits(tx: &Transaction<'_>, limits: &[AgentLimit]) -> TxResult<()> {
    for limit in limits {
        tx.execute(
            "DELETE FROM agent_slots WHERE agent = ?1 AND slot >= ?2",
            params![limit.agent, limit.slots],
        )?;
        for slot in 0..limit.slots {
            tx.execute(
                "INSERT INTO agent_slots (agent, slot) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                params![limit.agent, slot],
            )?;
        }
    }
    Ok(())
}

/// Runs an `UPDATE … RETURNING id` over the selected tasks and writes a history row for each
/// one changed.
fn update_each(
    tx: &Transaction<'_>,
    now: i64,
    sql: &str,
    value: &rusqlite::types::Value,
    action: &str,
    note: Option<&str>,
) -> TxResult<u64> {
    let ids = {
        let mut statement = tx.prepare(sql)?;
        let rows = statement.query_map(params![value, now], |row| row.get::<_, i64>(0))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    for id in &ids {
        history(tx, *id, now, action, note)?;
    }
    Ok(ids.len() as u64)
}

/// Cancels, pauses or resumes the selected tasks (see [`crate::Store::control`]); a task
/// already so is not counted.
pub(super) fn control(
    tx: &Transaction<'_>,
    now: i64,
    selector: &Selector,
    control: Control,
    note: Option<&str>,
) -> TxResult<u64> {
    let (condition, value) = selection(tx, selector)?;
    let waiting = "state IN ('pending', 'retry_scheduled')";
    let not_final = "state IN ('pending', 'retry_scheduled', 'running')";
    match control {
        Control::Cancel => {
            let ended = update_each(
                tx,
                now,
                &format!(
                    "UPDATE tasks SET state = 'cancelled', reason = 'cancelled by a person',
                        finished_at = ?2, updated_at = ?2
                     WHERE {condition} AND {waiting} RETURNING id"
                ),
                &value,
                "cancelled",
                note,
            )?;
            let flagged = update_each(
                tx,
                now,
                &format!(
                    "UPDATE tasks SET cancel_requested = 1, updated_at = ?2
                     WHERE {condition} AND state = 'running' AND cancel_requested = 0
                     RETURNING id"
                ),
                &value,
                "cancel requested",
                note,
            )?;
            Ok(ended + flagged)
        }
        Control::Pause | Control::Resume => {
            let (to, action) = match control {
                Control::Pause => (1, "paused"),
                _ => (0, "resumed"),
            };
            update_each(
                tx,
                now,
                &format!(
                    "UPDATE tasks SET paused = {to}, updated_at = ?2
                     WHERE {condition} AND {not_final} AND paused <> {to} RETURNING id"
                ),
                &value,
                action,
                note,
            )
        }
    }
}

/// Sends an ended task (not passed) back with guidance (see [`crate::Store::retry`]): due now,
/// its attempt count reset to 0 (the person's guidance starts a fresh series), a deadline that
/// has passed renewed for the span it had, the guidance stored with a history row. Its cost so
/// far stays: a task that ended over its cost cap ends so again.
pub(super) fn retry(tx: &Transaction<'_>, now: i64, task: &str, guidance: &str) -> TxResult<bool> {
    let Some(id) = resolve(tx, task)? else {
        return Err(TxError::Fleet(FleetError::NoSuchTask(task.to_owned())));
    };
    let changed = tx.execute(
        "UPDATE tasks SET state = 'pending', attempts = 0, next_retry_at = NULL, guidance = ?2,
            reason = 'sent back by a person', finished_at = NULL, cancel_requested = 0,
            deadline_at = CASE WHEN deadline_at IS NOT NULL AND deadline_at <= ?1
                               THEN ?1 + (deadline_at - created_at) ELSE deadline_at END,
            updated_at = ?1
         WHERE id = ?3 AND state IN ('escalated', 'failed', 'expired', 'cancelled')",
        params![now, guidance, id],
    )?;
    if changed == 0 {
        return Ok(false);
    }
    history(tx, id, now, "retry", Some(guidance))?;
    Ok(true)
}

/// Removes tasks that ended more than `age` ago and, with `passed_workdirs`, clears the work
/// directories of passed tasks (see [`crate::Store::prune`]); expired provider holds go too.
pub(super) fn prune(
    tx: &Transaction<'_>,
    now: i64,
    age: Duration,
    passed_workdirs: bool,
) -> TxResult<Pruned> {
    let before = now.saturating_sub(millis(age));
    let removed = {
        let mut statement = tx.prepare(
            "DELETE FROM tasks WHERE finished_at IS NOT NULL AND finished_at <= ?1
               AND state IN ('passed', 'escalated', 'failed', 'expired', 'cancelled')
             RETURNING workdir",
        )?;
        let rows = statement.query_map([before], |row| row.get::<_, Option<String>>(0))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    let mut pruned = Pruned {
        tasks: removed.len() as u64,
        workdirs: removed.into_iter().flatten().collect(),
    };
    if passed_workdirs {
        // RETURNING would give the cleared values: read the directories first.
        let passed = {
            let mut statement = tx.prepare(
                "SELECT workdir FROM tasks WHERE state = 'passed' AND workdir IS NOT NULL",
            )?;
            let rows = statement.query_map([], |row| row.get::<_, String>(0))?;
            rows.collect::<rusqlite::Result<Vec<_>>>()?
        };
        tx.execute(
            "UPDATE tasks SET workdir = NULL, workdir_host = NULL, updated_at = ?1
             WHERE state = 'passed' AND workdir IS NOT NULL",
            [now],
        )?;
        pruned.workdirs.extend(passed);
    }
    tx.execute("DELETE FROM agent_holds WHERE until <= ?1", [now])?;
    if pruned.tasks > 0 || !pruned.workdirs.is_empty() {
        changed(tx)?;
    }
    Ok(pruned)
}
