//! Taking a due task (after ending the waiting tasks past their deadline or cost cap) and
//! renewing its lease.

use std::time::Duration;

use rusqlite::{OptionalExtension, Transaction, params};

use super::read::task_by_id;
use super::run::{TxError, TxResult};
use crate::error::FleetError;
use crate::store::{Claim, LeaseState, WorkerId};

/// Milliseconds of a duration, as the database stores them.
pub(super) fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A fresh lease token from the operating system's randomness (`getrandom`): a token no other
/// claim can guess or reuse, so a stale one never matches. Never 0.
pub(super) fn new_token() -> TxResult<i64> {
    let token = getrandom::u64().map_err(|error| {
        TxError::Fleet(FleetError::Io {
            what: "failed to read randomness for a lease token".into(),
            source: std::io::Error::other(error.to_string()),
        })
    })?;
    // 63 random bits: the token is a positive i64 in both databases.
    Ok(i64::try_from(token >> 1).unwrap_or(i64::MAX).max(1))
}

/// The condition on a task row (`t`) that its campaign has spent its cost cap, for many rows:
/// the spent campaigns are listed once.
const CAMPAIGN_OVER_CAP: &str = "t.campaign IN (
    SELECT c.name FROM campaigns c
    WHERE c.cost_cap_usd IS NOT NULL
      AND c.cost_cap_usd <= (SELECT COALESCE(SUM(x.cost_usd), 0) FROM tasks x
                             WHERE x.campaign = c.name))";

/// The same for one row: only its own campaign is summed.
const OWN_CAMPAIGN_OVER_CAP: &str = "EXISTS (
    SELECT 1 FROM campaigns c
    WHERE c.name = t.campaign AND c.cost_cap_usd IS NOT NULL
      AND c.cost_cap_usd <= (SELECT COALESCE(SUM(x.cost_usd), 0) FROM tasks x
                             WHERE x.campaign = c.name))";

/// How often (milliseconds, per store handle) [`claim`] sweeps every waiting task for expiry;
/// in between it checks only the task it is about to take. Deadlines are whole seconds, so a
/// waiting task's state lags its deadline by at most this, and no task past it ever runs.
pub(super) const SWEEP_EVERY_MS: i64 = 1000;

/// Ends waiting tasks (paused ones too) past their deadline or their own or their campaign's
/// cost cap as `expired`, with a history row each: every waiting task, or only `task`.
pub(super) fn expire(tx: &Transaction<'_>, now: i64, task: Option<i64>) -> TxResult<u64> {
    let (scope, campaign) = match task {
        Some(_) => ("t.id = ?2", OWN_CAMPAIGN_OVER_CAP),
        None => ("?2 IS NULL", CAMPAIGN_OVER_CAP),
    };
    let sql = format!(
        "UPDATE tasks AS t SET state = 'expired', finished_at = ?1, updated_at = ?1,
            reason = CASE WHEN t.deadline_at IS NOT NULL AND t.deadline_at <= ?1
                          THEN 'past its deadline'
                          WHEN t.cost_cap_usd IS NOT NULL AND t.cost_usd >= t.cost_cap_usd
                          THEN 'past its cost cap'
                          ELSE 'past its campaign''s cost cap' END
         WHERE {scope} AND t.state IN ('pending', 'retry_scheduled')
           AND ((t.deadline_at IS NOT NULL AND t.deadline_at <= ?1)
                OR (t.cost_cap_usd IS NOT NULL AND t.cost_usd >= t.cost_cap_usd)
                OR {campaign})
         RETURNING id, reason"
    );
    let expired = {
        let mut statement = tx.prepare_cached(&sql)?;
        let rows = statement.query_map(params![now, task], |row| {
            Ok((row.get::<_, i64>(0)?, row.get(1)?))
        })?;
        rows.collect::<rusqlite::Result<Vec<(i64, String)>>>()?
    };
    for (id, reason) in &expired {
        history(tx, *id, now, "expired", Some(reason))?;
    }
    Ok(expired.len() as u64)
}

/// Writes a task's history row.
pub(super) fn history(
    tx: &Transaction<'_>,
    task: i64,
    now: i64,
    action: &str,
    detail: Option<&str>,
) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO task_history (task_id, at, action, detail) VALUES (?1, ?2, ?3, ?4)",
        params![task, now, action, detail],
    )?;
    changed(tx)
}

/// Bumps the counter [`crate::Store::watermark`] reads: this transaction changes what a
/// dashboard shows. Writers take SQLite's one write lock anyway, so the row costs no waiting.
pub(super) fn changed(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.prepare_cached("UPDATE changes SET n = n + 1 WHERE id = 1")?
        .execute([])?;
    Ok(())
}

/// The best due task in one waiting state that `worker` may take: not paused, its provider
/// neither held nor out of slots, its work directory (if any) on the worker's host; highest
/// priority first, then the longest due. Pending tasks have no `next_retry_at` (they are due
/// since they were added), so within each state the order is the `tasks_due` index's and
/// SQLite walks it and stops at the first task that qualifies, instead of sorting every
/// waiting task on each claim.
const PICK: &str = "WITH blocked (agent) AS (
        SELECT agent FROM agent_holds WHERE until > ?1
        UNION
        SELECT agent FROM agent_slots GROUP BY agent
        HAVING SUM(token IS NULL OR lease_until <= ?1) = 0)
    SELECT t.id, t.provider, t.priority, COALESCE(t.next_retry_at, t.created_at)
    FROM tasks t
    WHERE t.state = ?3 AND t.paused = 0
      AND (t.next_retry_at IS NULL OR t.next_retry_at <= ?1)
      AND (t.workdir_host IS NULL OR t.workdir_host = ?2)
      AND t.provider NOT IN blocked
    ORDER BY t.priority DESC, t.next_retry_at, t.id
    LIMIT 1";

/// A task [`PICK`] found: id, provider, priority, due since.
type Candidate = (i64, String, i32, i64);

/// The task to claim: the better of the best pending and the best due retry.
fn pick(tx: &Transaction<'_>, now: i64, host: &str) -> rusqlite::Result<Option<Candidate>> {
    let mut statement = tx.prepare_cached(PICK)?;
    let mut best = |state: &str| {
        statement
            .query_row(params![now, host, state], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .optional()
    };
    let pending: Option<Candidate> = best("pending")?;
    let retry: Option<Candidate> = best("retry_scheduled")?;
    Ok(match (pending, retry) {
        (Some(p), Some(r)) => {
            // Higher priority, then due longer, then added first.
            let key = |c: &Candidate| (std::cmp::Reverse(c.2), c.3, c.0);
            Some(if key(&r) < key(&p) { r } else { p })
        }
        (p, r) => p.or(r),
    })
}

/// Takes one due task for `worker` (see [`crate::Store::claim`]).
pub(super) fn claim(
    tx: &Transaction<'_>,
    now: i64,
    worker: &WorkerId,
    lease: Duration,
    sweep: bool,
) -> TxResult<Option<Claim>> {
    if sweep {
        expire(tx, now, None)?;
    }
    let (id, provider) = loop {
        let Some((id, provider, ..)) = pick(tx, now, &worker.host)? else {
            return Ok(None);
        };
        if expire(tx, now, Some(id))? == 0 {
            break (id, provider);
        }
    };
    let token = new_token()?;
    let lease_until = now.saturating_add(millis(lease));
    // A slot whose lease ran out belonged to a dead (or cut-off) claim: it is free again, and
    // that claim's next heartbeat finds it gone.
    let slot: Option<u32> = tx
        .query_row(
            "SELECT slot FROM agent_slots WHERE agent = ?1
               AND (token IS NULL OR lease_until <= ?2) ORDER BY slot LIMIT 1",
            params![provider, now],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(slot) = slot {
        tx.execute(
            "UPDATE agent_slots SET token = ?1, lease_until = ?2 WHERE agent = ?3 AND slot = ?4",
            params![token, lease_until, provider, slot],
        )?;
    }
    let number: u32 = tx.query_row(
        "UPDATE tasks SET state = 'running', lease_token = ?1, lease_until = ?2, worker = ?3,
            claims = claims + 1, next_retry_at = NULL, updated_at = ?4
         WHERE id = ?5 RETURNING claims",
        params![token, lease_until, worker.id, now, id],
        |row| row.get(0),
    )?;
    tx.execute(
        "INSERT INTO attempts (task_id, number, worker, host, pid, token, claimed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![id, number, worker.id, worker.host, worker.pid, token, now],
    )?;
    changed(tx)?;
    let Some(task) = task_by_id(tx, id)? else {
        return Ok(None);
    };
    Ok(Some(Claim {
        task,
        number,
        token,
        lease_until,
        slot: slot.map(|slot| (provider, slot)),
    }))
}

/// Renews a claim's lease and its slot's (see [`crate::Store::heartbeat`]). The lease is lost
/// when the task is no longer running under the claim's token, or when its slot was given to
/// another claim after its lease ran out: an agent limit is never exceeded by a late renewal.
/// Nothing is written before both checks pass.
pub(super) fn heartbeat(
    tx: &Transaction<'_>,
    now: i64,
    claim: &Claim,
    lease: Duration,
) -> TxResult<LeaseState> {
    if let Some((agent, slot)) = &claim.slot {
        // Taken by another claim, or freed: lost. Removed by a lower limit: the attempt may
        // finish, and no new claim gets the slot.
        let holder: Option<Option<i64>> = tx
            .query_row(
                "SELECT token FROM agent_slots WHERE agent = ?1 AND slot = ?2",
                params![agent, slot],
                |row| row.get(0),
            )
            .optional()?;
        if holder.is_some_and(|token| token != Some(claim.token)) {
            return Ok(LeaseState::Lost);
        }
    }
    let until = now.saturating_add(millis(lease));
    let cancel: Option<bool> = tx
        .query_row(
            "UPDATE tasks SET lease_until = ?1
             WHERE id = ?2 AND lease_token = ?3 AND state = 'running'
             RETURNING cancel_requested",
            params![until, claim.task.id, claim.token],
            |row| row.get(0),
        )
        .optional()?;
    let Some(cancel) = cancel else {
        return Ok(LeaseState::Lost);
    };
    let expired: bool = tx.query_row(
        &format!(
            "SELECT COALESCE((t.deadline_at IS NOT NULL AND t.deadline_at <= ?2)
                OR (t.cost_cap_usd IS NOT NULL AND t.cost_usd >= t.cost_cap_usd)
                OR {CAMPAIGN_OVER_CAP}, 0)
             FROM tasks t WHERE t.id = ?1"
        ),
        params![claim.task.id, now],
        |row| row.get(0),
    )?;
    if let Some((agent, slot)) = &claim.slot {
        tx.execute(
            "UPDATE agent_slots SET lease_until = ?1 WHERE agent = ?2 AND slot = ?3 AND token = ?4",
            params![until, agent, slot, claim.token],
        )?;
    }
    Ok(LeaseState::Held {
        until,
        cancel,
        expired,
    })
}
