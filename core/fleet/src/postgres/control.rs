//! What people and scripts ask of the fleet: adding tasks, agent limits, cancel, pause and
//! resume, sending an ended task back, and pruning what has ended.

use std::time::Duration;

use deadpool_postgres::GenericClient;

use super::PgStore;
use super::rows::get;
use super::sql::{
    BUMP, error, execute, millis, notify, now, query, selected, selector, task_named,
};
use crate::error::{FleetError, Result};
use crate::store::{AgentLimit, Control, Pruned, Selector};
use crate::task::{NewTask, TaskId};

/// How many tasks one `add` inserts before it has the server analyze the table.
const ANALYZE_AFTER: usize = 500;

/// Records `$2` (with `$3`) in the history of the tasks `$1`.
const HISTORY: &str = concat!(
    "INSERT INTO task_history (task_id, at, action, detail)
    SELECT id, ",
    now!(),
    ", $2, $3 FROM unnest($1::bigint[]) AS id"
);

/// The statement of each control, on the tasks [`selected!`] names; each returns the ids it
/// changed.
const CANCEL_WAITING: &str = concat!(
    "UPDATE tasks t SET state = 'cancelled', reason = 'cancelled by a person',
        next_retry_at = NULL, updated_at = ",
    now!(),
    ", finished_at = ",
    now!(),
    " WHERE t.state IN ('pending', 'retry_scheduled') AND ",
    selected!(),
    " RETURNING t.id"
);
const CANCEL_RUNNING: &str = concat!(
    "UPDATE tasks t SET cancel_requested = TRUE, updated_at = ",
    now!(),
    " WHERE t.state = 'running' AND NOT t.cancel_requested AND ",
    selected!(),
    " RETURNING t.id"
);
const PAUSE: &str = concat!(
    "UPDATE tasks t SET paused = TRUE, updated_at = ",
    now!(),
    " WHERE NOT t.paused AND t.state IN ('pending', 'retry_scheduled', 'running') AND ",
    selected!(),
    " RETURNING t.id"
);
const RESUME: &str = concat!(
    "UPDATE tasks t SET paused = FALSE, updated_at = ",
    now!(),
    " WHERE t.paused AND ",
    selected!(),
    " RETURNING t.id"
);

/// Sends task `$1` back with guidance `$2` when it has ended (not passed): due at once, its
/// attempts granted anew, and a deadline that has passed granted anew from now.
const RETRY: &str = concat!(
    "UPDATE tasks SET state = 'pending', attempts = 0, guidance = $2, next_retry_at = NULL,
        cancel_requested = FALSE, finished_at = NULL, reason = 'sent back by a person',
        deadline_at = CASE WHEN deadline_at <= ",
    now!(),
    " THEN ",
    now!(),
    " + (deadline_at - created_at) ELSE deadline_at END,
        updated_at = ",
    now!(),
    " WHERE id = $1 AND state IN ('escalated', 'failed', 'expired', 'cancelled')
    RETURNING id"
);

/// Removes the tasks that ended `$1` ms ago or longer; returns their work directories.
const PRUNE: &str = concat!(
    "DELETE FROM tasks WHERE finished_at IS NOT NULL AND finished_at <= ",
    now!(),
    " - $1
        AND state IN ('passed', 'escalated', 'failed', 'expired', 'cancelled')
    RETURNING workdir"
);

/// Clears the work directory of every passed task; returns what was cleared.
const CLEAR_PASSED: &str = "WITH old AS (
        SELECT id, workdir FROM tasks WHERE state = 'passed' AND workdir IS NOT NULL FOR UPDATE
    ), cleared AS (
        UPDATE tasks SET workdir = NULL, workdir_host = NULL FROM old WHERE tasks.id = old.id
    )
    SELECT workdir FROM old";

impl PgStore {
    pub(super) async fn add_tasks(&self, tasks: &[NewTask]) -> Result<Vec<(TaskId, bool)>> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        let added = super::add::add(&tx, tasks).await?;
        let new: Vec<i64> = added
            .iter()
            .filter(|(_, new)| *new)
            .map(|(id, _)| *id)
            .collect();
        execute(&tx, HISTORY, &[&new, &"added", &None::<String>]).await?;
        notify(&tx, &new).await?;
        tx.commit().await.map_err(error)?;
        // A claim walks the due index only once the planner knows the table is large; after a
        // big import it should not wait for autovacuum's next analysis to know.
        if new.len() >= ANALYZE_AFTER {
            execute(&client, "ANALYZE tasks", &[]).await?;
        }
        Ok(added)
    }

    /// Creates or removes slot rows to match each limit, numbered from 0 (0 slots: no rows, no
    /// limit). A running attempt whose slot row is removed runs on; its finish frees nothing.
    pub(super) async fn limits(&self, limits: &[AgentLimit]) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        for limit in limits {
            let slots = i32::try_from(limit.slots).unwrap_or(i32::MAX);
            execute(
                &tx,
                "INSERT INTO agent_slots (agent, slot)
                SELECT $1, n FROM generate_series(0, $2::integer - 1) AS n
                ON CONFLICT (agent, slot) DO NOTHING",
                &[&limit.agent, &slots],
            )
            .await?;
            execute(
                &tx,
                "DELETE FROM agent_slots WHERE agent = $1 AND slot >= $2::integer",
                &[&limit.agent, &slots],
            )
            .await?;
        }
        tx.commit().await.map_err(error)
    }

    pub(super) async fn control_tasks(
        &self,
        which: &Selector,
        control: Control,
        note: Option<&str>,
    ) -> Result<u64> {
        let (name, id, kind) = selector(which);
        let statements: &[(&str, &str)] = match control {
            Control::Cancel => &[
                (CANCEL_WAITING, "cancelled"),
                (CANCEL_RUNNING, "cancel requested"),
            ],
            Control::Pause => &[(PAUSE, "paused")],
            Control::Resume => &[(RESUME, "resumed")],
        };
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        if let Selector::Task(task) = which {
            let rows = query(
                &tx,
                concat!("SELECT ", task_named!(), " AS id"),
                &[&name, &id],
            )
            .await?;
            if rows
                .first()
                .and_then(|row| row.get::<_, Option<i64>>(0))
                .is_none()
            {
                return Err(FleetError::NoSuchTask(task.clone()));
            }
        }
        let mut changed: Vec<i64> = Vec::new();
        for (statement, action) in statements {
            let mut ids = Vec::new();
            for row in query(&tx, statement, &[&name, &id, &kind]).await? {
                ids.push(get::<i64>(&row, "id")?);
            }
            execute(&tx, HISTORY, &[&ids, action, &note]).await?;
            changed.extend(ids);
        }
        notify(&tx, &changed).await?;
        tx.commit().await.map_err(error)?;
        Ok(changed.len() as u64)
    }

    pub(super) async fn send_back(&self, task: &str, guidance: &str) -> Result<bool> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        let id: Option<i64> = task.trim().parse().ok();
        let rows = query(
            &tx,
            concat!("SELECT ", task_named!(), " AS id"),
            &[&task, &id],
        )
        .await?;
        let Some(id) = rows.first().and_then(|row| row.get::<_, Option<i64>>(0)) else {
            return Err(FleetError::NoSuchTask(task.to_owned()));
        };
        let back = query(&tx, RETRY, &[&id, &guidance]).await?;
        if back.is_empty() {
            tx.rollback().await.map_err(error)?;
            return Ok(false);
        }
        execute(&tx, HISTORY, &[&vec![id], &"retry", &Some(guidance)]).await?;
        notify(&tx, &[id]).await?;
        tx.commit().await.map_err(error)?;
        Ok(true)
    }

    pub(super) async fn prune_ended(&self, age: Duration, passed_workdirs: bool) -> Result<Pruned> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        let removed = query(&tx, PRUNE, &[&millis(age)]).await?;
        let mut pruned = Pruned {
            tasks: removed.len() as u64,
            workdirs: Vec::new(),
        };
        let mut rows = removed;
        if passed_workdirs {
            rows.extend(query(&tx, CLEAR_PASSED, &[]).await?);
        }
        for row in &rows {
            if let Some(dir) = get::<Option<String>>(row, "workdir")?
                && !pruned.workdirs.contains(&dir)
            {
                pruned.workdirs.push(dir);
            }
        }
        if !rows.is_empty() {
            execute(&tx, BUMP, &[]).await?;
        }
        tx.commit().await.map_err(error)?;
        Ok(pruned)
    }
}
