//! How an attempt ended: one transaction, fenced by the claim's lease token, that moves the
//! task, completes the claim's row, stores the events, frees the slot and holds the provider.

use std::time::Duration;

use deadpool_postgres::GenericClient;

use super::PgStore;
use super::claim::slot_params;
use super::rows::get;
use super::sql::{big, error, execute, millis, notify, now, query};
use crate::error::{FleetError, Result};
use crate::store::{AttemptEnd, Claim};
use crate::task::TaskState;

/// Moves task `$1` held with token `$2` to state `$3`: the attempt counted when `$4`, due again
/// in `$5` ms when retry scheduled, `$6` dollars more spent, work directory `$7` (on the host of
/// claim `$8`), branch `$9`, diff `$10`, reason `$11`, category `$12`, final when `$13`. A
/// cancel a person asked for while the attempt ran wins over a state that is not final (the
/// worker may finish before its heartbeat brings the request). The lease and the cancel request
/// are consumed; guidance stays for every later prompt, as `verdict loop --guide` does. No row:
/// the lease was lost.
const MOVE_TASK: &str = concat!(
    "UPDATE tasks SET
        state = CASE WHEN cancel_requested AND NOT $13::boolean THEN 'cancelled' ELSE $3::text END,
        attempts = attempts + CASE WHEN $4::boolean THEN 1 ELSE 0 END,
        next_retry_at = CASE WHEN $3::text = 'retry_scheduled' AND NOT cancel_requested THEN ",
    now!(),
    " + coalesce($5::bigint, 0) END,
        cost_usd = cost_usd + coalesce($6::float8, 0),
        workdir = coalesce($7::text, workdir),
        workdir_host = CASE WHEN $7::text IS NULL THEN workdir_host
            ELSE (SELECT host FROM attempts WHERE task_id = $1 AND number = $8::integer) END,
        branch = coalesce($9::text, branch),
        diff = coalesce($10::text, diff),
        reason = CASE WHEN cancel_requested AND NOT $13::boolean THEN 'cancelled by a person'
            ELSE $11::text END,
        last_category = coalesce($12::text, last_category),
        lease_token = NULL, lease_until = NULL, worker = NULL,
        cancel_requested = FALSE,
        updated_at = ",
    now!(),
    ", finished_at = CASE WHEN $13::boolean OR cancel_requested THEN ",
    now!(),
    " END
    WHERE id = $1 AND lease_token = $2 AND state = 'running'
    RETURNING provider"
);

/// Completes claim `$2` of task `$1` with what the attempt reported.
const END_CLAIM: &str = concat!(
    "UPDATE attempts SET finished_at = ",
    now!(),
    ", outcome = $3, counted = $4, reason = $5, category = $6, fingerprints_json = $7,
        digest = $8, agent = $9, agent_ms = $10, verify_ms = $11, tokens = $12,
        cost_usd = $13, retry_delay_ms = $14
    WHERE task_id = $1 AND number = $2"
);

/// Stores the attempt's events `$3` in order.
const EVENTS: &str = "INSERT INTO events (task_id, number, line)
    SELECT $1, $2, line FROM unnest($3::text[]) WITH ORDINALITY AS e (line, n) ORDER BY n";

/// Frees slot `$3` of provider `$2` if the claim's token `$1` still holds it.
const FREE_SLOT: &str = "UPDATE agent_slots SET token = NULL, lease_until = NULL
    WHERE agent = $1 AND slot = $2::integer AND token = $3";

/// Holds provider `$1` for `$2` ms (a later hold already stored stays).
const HOLD: &str = concat!(
    "INSERT INTO agent_holds (agent, until) VALUES ($1, ",
    now!(),
    " + $2)
    ON CONFLICT (agent) DO UPDATE SET until = greatest(agent_holds.until, excluded.until)"
);

impl PgStore {
    /// Caps `campaign`'s cost, in a transaction of its own.
    pub(super) async fn cap_campaign(&self, campaign: &str, cap_usd: Option<f64>) -> Result<()> {
        let client = self.client().await?;
        execute(
            &client,
            "INSERT INTO campaigns (name, cost_cap_usd) VALUES ($1, $2)
             ON CONFLICT (name) DO UPDATE SET cost_cap_usd = excluded.cost_cap_usd",
            &[&campaign, &cap_usd],
        )
        .await?;
        Ok(())
    }

    /// Holds `agent` for `hold` from now, in a transaction of its own.
    pub(super) async fn hold_provider(&self, agent: &str, hold: Duration) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        execute(&tx, HOLD, &[&agent, &millis(hold)]).await?;
        // A held agent shows on the page: the watermark moves and listeners hear of it.
        execute(
            &tx,
            "WITH bump AS (UPDATE changes SET n = n + 1 WHERE id = 1)
            SELECT pg_notify('verdict_fleet', 'hold')",
            &[],
        )
        .await?;
        tx.commit().await.map_err(error)
    }

    pub(super) async fn finish_attempt(&self, claim: &Claim, end: &AttemptEnd) -> Result<bool> {
        if end.state == TaskState::Running {
            return Err(FleetError::Invalid(
                "an attempt cannot end with its task still running".into(),
            ));
        }
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        let id = claim.task.id;
        let number = i32::try_from(claim.number).unwrap_or(i32::MAX);
        let retry_ms = end.retry_after.map(millis);
        let rows = query(
            &tx,
            MOVE_TASK,
            &[
                &id,
                &claim.token,
                &end.state.as_str(),
                &end.counted,
                &retry_ms,
                &end.cost_usd,
                &end.workdir,
                &number,
                &end.branch,
                &end.diff,
                &end.reason,
                &end.category,
                &end.state.is_final(),
            ],
        )
        .await?;
        let Some(row) = rows.first() else {
            // The lease is another's now: nothing of this attempt is written.
            tx.rollback().await.map_err(error)?;
            return Ok(false);
        };
        let provider: String = get(row, "provider")?;
        // The rest depends only on the fence having held: sent together, one round trip.
        let events = async {
            if end.events.is_empty() {
                return Ok(0);
            }
            execute(&tx, EVENTS, &[&id, &number, &end.events]).await
        };
        let (agent, slot) = slot_params(claim);
        let free = async { execute(&tx, FREE_SLOT, &[&agent, &slot, &claim.token]).await };
        let hold = async {
            match end.hold_provider {
                Some(hold) => execute(&tx, HOLD, &[&provider, &millis(hold)]).await,
                None => Ok(0),
            }
        };
        tokio::try_join!(
            end_claim(&tx, id, number, end, retry_ms),
            events,
            free,
            hold,
            notify(&tx, std::slice::from_ref(&id))
        )?;
        tx.commit().await.map_err(error)?;
        Ok(true)
    }
}

/// Completes the claim's row with what [`AttemptEnd`] says.
async fn end_claim(
    tx: &impl GenericClient,
    id: i64,
    number: i32,
    end: &AttemptEnd,
    retry_ms: Option<i64>,
) -> Result<()> {
    let fingerprints = serde_json::to_string(&end.fingerprints)
        .map_err(|e| FleetError::Invalid(format!("fingerprints: {e}")))?;
    let retry_ms = retry_ms.filter(|_| end.state == TaskState::RetryScheduled);
    execute(
        tx,
        END_CLAIM,
        &[
            &id,
            &number,
            &end.outcome,
            &end.counted,
            &end.reason,
            &end.category,
            &fingerprints,
            &end.digest,
            &end.agent,
            &big(end.agent_ms),
            &big(end.verify_ms),
            &end.tokens.map(big),
            &end.cost_usd,
            &retry_ms,
        ],
    )
    .await
    .map(drop)
}
