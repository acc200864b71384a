//! How an attempt ends: reported by its worker ([`finish`]), or found with its lease run out
//! ([`rescue`]).

use rusqlite::{Transaction, params};

use super::claim::{history, millis};
use super::run::{TxError, TxResult};
use crate::error::FleetError;
use crate::store::{AttemptEnd, Claim, Rescued};
use crate::task::TaskState;

/// Records how a claim's attempt ended (see [`crate::Store::finish`]). The task's row is
/// written first, fenced by the token: when that changes nothing, nothing else is written. A
/// cancel a person asked for while the attempt ran wins over a state that is not final (the
/// worker may finish before its heartbeat brings the request). Guidance stays for every later
/// prompt of the task, as `verdict loop --guide` does. The work directory's host is the host of
/// the worker that claimed this attempt.
pub(super) fn finish(
    tx: &Transaction<'_>,
    now: i64,
    claim: &Claim,
    end: &AttemptEnd,
) -> TxResult<bool> {
    if end.state == TaskState::Running {
        return Err(TxError::Fleet(FleetError::Invalid(
            "an attempt cannot end with its task still running".into(),
        )));
    }
    let delay = end.retry_after.map(millis);
    // Only a scheduled retry has a due time: a pending task is due since it was added.
    let next_retry_at = match end.state {
        TaskState::RetryScheduled => Some(now + delay.unwrap_or(0)),
        _ => None,
    };
    let finished_at = end.state.is_final().then_some(now);
    let changed = tx.execute(
        "UPDATE tasks SET
            state = CASE WHEN cancel_requested AND NOT ?15 THEN 'cancelled' ELSE ?1 END,
            attempts = attempts + ?2,
            next_retry_at = CASE WHEN cancel_requested AND NOT ?15 THEN NULL ELSE ?3 END,
            cost_usd = cost_usd + COALESCE(?4, 0),
            workdir_host = CASE WHEN ?5 IS NULL THEN workdir_host
                ELSE (SELECT host FROM attempts WHERE task_id = ?13 AND number = ?14) END,
            workdir = COALESCE(?5, workdir), branch = COALESCE(?6, branch),
            diff = COALESCE(?7, diff),
            reason = CASE WHEN cancel_requested AND NOT ?15 THEN 'cancelled by a person'
                ELSE ?8 END,
            last_category = COALESCE(?9, last_category),
            lease_token = NULL, lease_until = NULL, worker = NULL, cancel_requested = 0,
            finished_at = CASE WHEN cancel_requested AND NOT ?15 THEN ?11 ELSE ?10 END,
            updated_at = ?11
         WHERE id = ?13 AND lease_token = ?12 AND state = 'running'",
        params![
            end.state.as_str(),
            end.counted,
            next_retry_at,
            end.cost_usd,
            end.workdir,
            end.branch,
            end.diff,
            end.reason,
            end.category,
            finished_at,
            now,
            claim.token,
            claim.task.id,
            claim.number,
            end.state.is_final(),
        ],
    )?;
    if changed == 0 {
        return Ok(false);
    }
    super::claim::changed(tx)?;
    record_attempt(tx, now, claim, end, delay)?;
    let mut insert =
        tx.prepare_cached("INSERT INTO events (task_id, number, line) VALUES (?1, ?2, ?3)")?;
    for line in &end.events {
        insert.execute(params![claim.task.id, claim.number, line])?;
    }
    release_slot(tx, claim)?;
    if let Some(hold) = end.hold_provider {
        tx.execute(
            "INSERT INTO agent_holds (agent, until) VALUES (?1, ?2)
             ON CONFLICT (agent) DO UPDATE SET until = max(until, excluded.until)",
            params![claim.task.spec.provider(), now.saturating_add(millis(hold))],
        )?;
    }
    Ok(true)
}

/// Writes the claim's attempt row.
fn record_attempt(
    tx: &Transaction<'_>,
    now: i64,
    claim: &Claim,
    end: &AttemptEnd,
    delay: Option<i64>,
) -> TxResult<()> {
    let fingerprints = serde_json::to_string(&end.fingerprints)
        .map_err(|error| TxError::Fleet(FleetError::Invalid(error.to_string())))?;
    tx.execute(
        "UPDATE attempts SET finished_at = ?1, outcome = ?2, counted = ?3, reason = ?4,
            category = ?5, fingerprints_json = ?6, digest = ?7, agent = ?8, agent_ms = ?9,
            verify_ms = ?10, tokens = ?11, cost_usd = ?12, retry_delay_ms = ?13
         WHERE task_id = ?14 AND number = ?15 AND token = ?16",
        params![
            now,
            end.outcome,
            end.counted,
            end.reason,
            end.category,
            fingerprints,
            end.digest,
            end.agent,
            i64::try_from(end.agent_ms).unwrap_or(i64::MAX),
            i64::try_from(end.verify_ms).unwrap_or(i64::MAX),
            end.tokens.map(|t| i64::try_from(t).unwrap_or(i64::MAX)),
            end.cost_usd,
            delay,
            claim.task.id,
            claim.number,
            claim.token,
        ],
    )?;
    Ok(())
}

/// Frees the claim's slot, if it still holds it.
fn release_slot(tx: &Transaction<'_>, claim: &Claim) -> rusqlite::Result<()> {
    if let Some((agent, slot)) = &claim.slot {
        tx.execute(
            "UPDATE agent_slots SET token = NULL, lease_until = NULL
             WHERE agent = ?1 AND slot = ?2 AND token = ?3",
            params![agent, slot, claim.token],
        )?;
    }
    Ok(())
}

/// A running task whose lease ran out.
struct Lapsed {
    id: i64,
    number: u32,
    token: i64,
    provider: String,
    workdir: Option<String>,
    cancel: bool,
}

/// Takes back every running task whose lease ran out (see [`crate::Store::rescue`]). A task a
/// person asked to cancel ends `cancelled` instead of coming due again.
pub(super) fn rescue(tx: &Transaction<'_>, now: i64) -> TxResult<Vec<Rescued>> {
    let lapsed = {
        let mut statement = tx.prepare(
            "SELECT id, claims, lease_token, provider, workdir, cancel_requested FROM tasks
             WHERE state = 'running' AND lease_until <= ?1 ORDER BY id",
        )?;
        let rows = statement.query_map([now], |row| {
            Ok(Lapsed {
                id: row.get(0)?,
                number: row.get(1)?,
                token: row.get(2)?,
                provider: row.get(3)?,
                workdir: row.get(4)?,
                cancel: row.get(5)?,
            })
        })?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    let mut rescued = Vec::with_capacity(lapsed.len());
    for task in lapsed {
        rescued.push(rescue_one(tx, now, &task)?);
    }
    Ok(rescued)
}

fn rescue_one(tx: &Transaction<'_>, now: i64, task: &Lapsed) -> TxResult<Rescued> {
    let (worker, host, pid): (String, String, u32) = tx.query_row(
        "UPDATE attempts SET finished_at = ?1, outcome = 'interrupted', counted = 0,
            reason = 'its lease expired'
         WHERE task_id = ?2 AND number = ?3 RETURNING worker, host, pid",
        params![now, task.id, task.number],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    let (state, reason, finished_at) = if task.cancel {
        ("cancelled", "cancelled by a person", Some(now))
    } else {
        ("pending", "its worker's lease expired", None)
    };
    tx.execute(
        "UPDATE tasks SET state = ?1, reason = ?2, finished_at = ?3, next_retry_at = NULL,
            lease_token = NULL, lease_until = NULL, worker = NULL, cancel_requested = 0,
            updated_at = ?4
         WHERE id = ?5",
        params![state, reason, finished_at, now, task.id],
    )?;
    tx.execute(
        "UPDATE agent_slots SET token = NULL, lease_until = NULL WHERE agent = ?1 AND token = ?2",
        params![task.provider, task.token],
    )?;
    history(
        tx,
        task.id,
        now,
        "rescued",
        Some(&format!("claim {} of {worker}", task.number)),
    )?;
    Ok(Rescued {
        task: task.id,
        number: task.number,
        worker,
        host,
        pid,
        workdir: task.workdir.clone(),
    })
}
