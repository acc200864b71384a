//! Claims, leases and agent slots: `claim` takes a due task and a free slot in one transaction,
//! `heartbeat` renews both fenced by the lease token, `rescue` takes back expired leases.

use std::time::Duration;

use deadpool_postgres::GenericClient;
use tokio_postgres::types::ToSql;

use super::PgStore;
use super::rows::{get, task_record};
use super::sql::{error, millis, notify, now, past_cap, query, task_columns};
use crate::error::Result;
use crate::store::{Claim, LeaseState, Rescued, WorkerId};

/// Ends the waiting tasks `$scope` names that are past their deadline or cost cap (or their
/// campaign's), skipping rows another transaction holds (a claimer never waits on another);
/// returns their ids.
macro_rules! expire {
    ($scope:literal) => {
        concat!(
            "WITH due AS (
                SELECT t.id,
                       CASE WHEN t.deadline_at IS NOT NULL AND t.deadline_at <= ",
            now!(),
            " THEN 'past its deadline'
                            WHEN t.cost_cap_usd IS NOT NULL AND t.cost_usd >= t.cost_cap_usd
                            THEN 'past its cost cap'
                            ELSE 'past its campaign''s cost cap' END AS why
                FROM tasks t
                WHERE t.state IN ('pending', 'retry_scheduled') AND ",
            $scope,
            " AND ",
            past_cap!(),
            " FOR UPDATE OF t SKIP LOCKED
            ), ended AS (
                UPDATE tasks SET state = 'expired', reason = due.why, next_retry_at = NULL,
                       updated_at = ",
            now!(),
            ", finished_at = ",
            now!(),
            " FROM due WHERE tasks.id = due.id
                RETURNING tasks.id, due.why
            ), history AS (
                INSERT INTO task_history (task_id, at, action, detail)
                SELECT id, ",
            now!(),
            ", 'expired', why FROM ended
            )
            SELECT id FROM ended"
        )
    };
}

/// Every waiting task past a cap (see [`PgStore::sweep_due`]).
const EXPIRE_ALL: &str = expire!("TRUE");

/// Task `$1`, picked, when it is past a cap.
const EXPIRE_ONE: &str = expire!("t.id = $1");

/// The best due task in one waiting state: not paused, its work directory nowhere or on host
/// `$1`, its provider not among `$2` (held, out of free slots, or passed over). The order is
/// `tasks_due`'s, so the server walks that index and stops at the first task that qualifies
/// instead of sorting every waiting task.
macro_rules! best_in_state {
    ($state:literal, $due:expr) => {
        concat!(
            "(SELECT t.id, t.provider, t.priority, coalesce(t.next_retry_at, t.created_at) AS due, ",
            past_cap!(),
            " AS past
            FROM tasks t
            WHERE t.state = '",
            $state,
            "' AND NOT t.paused AND ",
            $due,
            "
              AND (t.workdir_host IS NULL OR t.workdir_host = $1)
              AND t.provider <> ALL ($2::text[])
            ORDER BY t.priority DESC, t.next_retry_at, t.id
            LIMIT 1
            FOR UPDATE OF t SKIP LOCKED)"
        )
    };
}

/// The due task to take: the better of the best pending and the best due retry, highest
/// priority first, then the longest due; with whether its provider is limited. It may be past
/// a cap the last sweep did not see: [`pick`] ends it and picks again.
const PICK: &str = concat!(
    "WITH pending AS ",
    best_in_state!("pending", "TRUE"),
    ", retry AS ",
    best_in_state!("retry_scheduled", concat!("t.next_retry_at <= ", now!())),
    " SELECT c.id, c.provider,
            EXISTS (SELECT 1 FROM agent_slots s WHERE s.agent = c.provider) AS limited, c.past
    FROM (SELECT * FROM pending UNION ALL SELECT * FROM retry) AS c
    ORDER BY c.priority DESC, c.due, c.id
    LIMIT 1"
);

/// The providers no task can be claimed for now: held after a rate limit, or limited with
/// every slot leased.
const BLOCKED: &str = concat!(
    "SELECT agent FROM agent_holds WHERE until > ",
    now!(),
    " UNION
    SELECT agent FROM agent_slots GROUP BY agent
    HAVING bool_and(token IS NOT NULL AND lease_until > ",
    now!(),
    ")"
);

/// A free slot of the provider `$1` (never leased, or its lease expired), locked.
const TAKE_SLOT: &str = concat!(
    "SELECT slot FROM agent_slots
    WHERE agent = $1 AND (token IS NULL OR lease_until <= ",
    now!(),
    ")
    ORDER BY slot LIMIT 1
    FOR UPDATE SKIP LOCKED"
);

/// Moves task `$1` to running for worker `$3` on host `$4` (pid `$5`) with a new random lease
/// token and a lease of `$2` ms; inserts the claim's row and leases slot `$7` of provider `$6`.
const START: &str = concat!(
    "WITH t AS (
        UPDATE tasks SET state = 'running', claims = claims + 1, next_retry_at = NULL,
               lease_token = ('x' || substr(md5(gen_random_uuid()::text), 1, 16))::bit(64)::bigint,
               lease_until = ",
    now!(),
    " + $2, worker = $3, updated_at = ",
    now!(),
    " WHERE id = $1
        RETURNING *
    ), claimed AS (
        INSERT INTO attempts (task_id, number, worker, host, pid, token, claimed_at)
        SELECT id, claims, $3::text, $4::text, $5::integer, lease_token, ",
    now!(),
    " FROM t
    ), slot AS (
        UPDATE agent_slots SET token = t.lease_token, lease_until = t.lease_until
        FROM t WHERE agent_slots.agent = $6 AND agent_slots.slot = $7::integer
    )
    SELECT ",
    task_columns!(),
    ", claims, lease_token, lease_until FROM t"
);

/// Renews task `$1`'s lease held with token `$2` by `$3` ms, and its slot `$5` of provider
/// `$4`; says whether a person asked to cancel and whether the task is past a cap. Nothing is
/// renewed when the slot went to another claim after its lease ran out: the limit is never
/// exceeded by a late renewal. A slot removed by a lower limit does not stop the attempt.
const HEARTBEAT: &str = concat!(
    "WITH t AS (
        UPDATE tasks t SET lease_until = ",
    now!(),
    " + $3
        WHERE t.id = $1 AND t.lease_token = $2 AND t.state = 'running'
          AND NOT EXISTS (SELECT 1 FROM agent_slots s WHERE s.agent = $4
                          AND s.slot = $5::integer AND s.token IS DISTINCT FROM $2)
        RETURNING t.lease_until, t.cancel_requested, ",
    past_cap!(),
    " AS expired
    ), slot AS (
        UPDATE agent_slots SET lease_until = t.lease_until
        FROM t WHERE agent_slots.agent = $4 AND agent_slots.slot = $5::integer
               AND agent_slots.token = $2
    )
    SELECT lease_until, cancel_requested, expired FROM t"
);

/// Takes back every running task whose lease expired: due again (or cancelled, when a person
/// asked), its claim interrupted, its slot freed.
const RESCUE: &str = concat!(
    "WITH lost AS (
        SELECT id, lease_token, claims FROM tasks
        WHERE state = 'running' AND lease_until <= ",
    now!(),
    " FOR UPDATE SKIP LOCKED
    ), back AS (
        UPDATE tasks SET
            state = CASE WHEN tasks.cancel_requested THEN 'cancelled' ELSE 'pending' END,
            finished_at = CASE WHEN tasks.cancel_requested THEN ",
    now!(),
    " END,
            reason = CASE WHEN tasks.cancel_requested THEN 'cancelled by a person'
                     ELSE 'its worker''s lease expired' END,
            cancel_requested = FALSE, lease_token = NULL, lease_until = NULL, worker = NULL,
            next_retry_at = NULL, updated_at = ",
    now!(),
    " FROM lost WHERE tasks.id = lost.id
        RETURNING tasks.id, lost.lease_token, lost.claims, tasks.workdir
    ), freed AS (
        UPDATE agent_slots SET token = NULL, lease_until = NULL
        FROM back WHERE agent_slots.token = back.lease_token
    ), ended AS (
        UPDATE attempts SET finished_at = ",
    now!(),
    ", outcome = 'interrupted', counted = FALSE,
               reason = 'its lease expired'
        FROM back WHERE attempts.task_id = back.id AND attempts.number = back.claims
        RETURNING attempts.task_id, attempts.number, attempts.worker, attempts.host,
                  attempts.pid, back.workdir
    ), history AS (
        INSERT INTO task_history (task_id, at, action, detail)
        SELECT task_id, ",
    now!(),
    ", 'rescued', 'claim ' || number || ' of ' || worker FROM ended
    )
    SELECT task_id, number, worker, host, pid, workdir FROM ended"
);

impl PgStore {
    pub(super) async fn claim_task(
        &self,
        worker: &WorkerId,
        lease: Duration,
    ) -> Result<Option<Claim>> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        // Independent statements are sent together: one round trip instead of two.
        let sweep = async {
            if !self.sweep_due() {
                return Ok(Vec::new());
            }
            let rows = query(&tx, EXPIRE_ALL, &[]).await?;
            rows.iter()
                .map(|row| get::<i64>(row, "id"))
                .collect::<Result<Vec<_>>>()
        };
        let blocked = async {
            let rows = query(&tx, BLOCKED, &[]).await?;
            rows.iter()
                .map(|row| get::<String>(row, "agent"))
                .collect::<Result<Vec<_>>>()
        };
        let (mut expired, blocked) = tokio::try_join!(sweep, blocked)?;
        let picked = pick(&tx, &worker.host, blocked, &mut expired).await?;
        let Some((id, provider, slot)) = picked else {
            notify(&tx, &expired).await?;
            tx.commit().await.map_err(error)?;
            return Ok(None);
        };
        expired.push(id);
        let pid = i32::try_from(worker.pid).unwrap_or(i32::MAX);
        let lease = millis(lease);
        let params: [&(dyn ToSql + Sync); 7] = [
            &id,
            &lease,
            &worker.id,
            &worker.host,
            &pid,
            &provider,
            &slot,
        ];
        let start = query(&tx, START, &params);
        let (rows, ()) = tokio::try_join!(start, notify(&tx, &expired))?;
        let row = rows
            .first()
            .ok_or_else(|| crate::FleetError::Postgres(format!("task {id} vanished")))?;
        let claim = Claim {
            task: task_record(row)?,
            number: u32::try_from(get::<i32>(row, "claims")?).unwrap_or(0),
            token: get(row, "lease_token")?,
            lease_until: get(row, "lease_until")?,
            slot: slot.map(|n| (provider, u32::try_from(n).unwrap_or(0))),
        };
        tx.commit().await.map_err(error)?;
        Ok(Some(claim))
    }

    pub(super) async fn renew(&self, claim: &Claim, lease: Duration) -> Result<LeaseState> {
        let client = self.client().await?;
        let (agent, slot) = slot_params(claim);
        let rows = query(
            &client,
            HEARTBEAT,
            &[&claim.task.id, &claim.token, &millis(lease), &agent, &slot],
        )
        .await?;
        let Some(row) = rows.first() else {
            return Ok(LeaseState::Lost);
        };
        Ok(LeaseState::Held {
            until: get(row, "lease_until")?,
            cancel: get(row, "cancel_requested")?,
            expired: get(row, "expired")?,
        })
    }

    pub(super) async fn rescue_expired(&self) -> Result<Vec<Rescued>> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        let rows = query(&tx, RESCUE, &[]).await?;
        let mut rescued = Vec::with_capacity(rows.len());
        for row in &rows {
            rescued.push(Rescued {
                task: get(row, "task_id")?,
                number: u32::try_from(get::<i32>(row, "number")?).unwrap_or(0),
                worker: get(row, "worker")?,
                host: get(row, "host")?,
                pid: u32::try_from(get::<i32>(row, "pid")?).unwrap_or(0),
                workdir: get(row, "workdir")?,
            });
        }
        let ids: Vec<i64> = rescued.iter().map(|r| r.task).collect();
        notify(&tx, &ids).await?;
        tx.commit().await.map_err(error)?;
        Ok(rescued)
    }
}

/// The claim's slot as statement parameters (none: parameters that match no row).
pub(super) fn slot_params(claim: &Claim) -> (String, Option<i32>) {
    match &claim.slot {
        Some((agent, slot)) => (agent.clone(), i32::try_from(*slot).ok()),
        None => (String::new(), None),
    }
}

/// The due task to take, its provider, and the slot taken for it when its provider is
/// limited; `blocked` lists the providers held or out of slots. A task whose provider's free slots were all taken by a concurrent claimer since
/// the blocked providers were read is passed over, with its provider, and the next one picked;
/// a task past a cap is ended (into `expired`) and the next one picked.
async fn pick(
    tx: &impl GenericClient,
    host: &str,
    blocked: Vec<String>,
    expired: &mut Vec<i64>,
) -> Result<Option<(i64, String, Option<i32>)>> {
    let mut passed_over = blocked;
    loop {
        let rows = query(tx, PICK, &[&host, &passed_over]).await?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let id: i64 = get(row, "id")?;
        // Locked by the pick: ended here when past a cap, it cannot be picked again.
        if get::<bool>(row, "past")? && !query(tx, EXPIRE_ONE, &[&id]).await?.is_empty() {
            expired.push(id);
            continue;
        }
        let provider: String = get(row, "provider")?;
        if !get::<bool>(row, "limited")? {
            return Ok(Some((id, provider, None)));
        }
        match query(tx, TAKE_SLOT, &[&provider]).await?.first() {
            Some(slot) => return Ok(Some((id, provider, Some(get(slot, "slot")?)))),
            None => passed_over.push(provider),
        }
    }
}
