//! Adding tasks: a batch in one statement per thousand tasks, each task's columns an array, so
//! an import of ten thousand lines is a few round trips rather than twenty thousand.

use std::collections::{HashMap, HashSet};

use deadpool_postgres::GenericClient;

use super::rows::get;
use super::sql::{now, query};
use crate::error::{FleetError, Result};
use crate::task::{NewTask, TaskId};

/// Tasks per statement.
const CHUNK: usize = 1000;

/// Inserts the tasks (one array per column) whose keys are new, in order; a key that exists,
/// or repeats within the batch, is left as it is. Returns the inserted ids and keys.
const INSERT_TASKS: &str = concat!(
    "INSERT INTO tasks (key, workspace, rev, setup, task, agents_json, provider, max_attempts,
                        only_json, campaign, priority, deadline_at, cost_cap_usd, state,
                        created_at, updated_at)
    SELECT key, workspace, rev, setup, task, agents_json, provider, max_attempts, only_json,
           campaign, priority, ",
    now!(),
    " + deadline_secs * 1000, cost_cap_usd, 'pending', ",
    now!(),
    ", ",
    now!(),
    "
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                $7::text[], $8::integer[], $9::text[], $10::text[], $11::integer[],
                $12::bigint[], $13::float8[])
         WITH ORDINALITY AS r (key, workspace, rev, setup, task, agents_json, provider,
                               max_attempts, only_json, campaign, priority, deadline_secs,
                               cost_cap_usd, n)
    ORDER BY n
    ON CONFLICT (key) DO NOTHING
    RETURNING id, key"
);

/// The columns of a chunk of tasks, as arrays.
#[derive(Default)]
struct Columns {
    key: Vec<String>,
    workspace: Vec<String>,
    rev: Vec<Option<String>>,
    setup: Vec<Option<String>>,
    task: Vec<String>,
    agents: Vec<String>,
    provider: Vec<String>,
    max_attempts: Vec<Option<i32>>,
    only: Vec<String>,
    campaign: Vec<Option<String>>,
    priority: Vec<i32>,
    deadline_secs: Vec<Option<i64>>,
    cost_cap_usd: Vec<Option<f64>>,
}

impl Columns {
    fn of(tasks: &[NewTask]) -> Result<Columns> {
        let json = |list: &[String]| {
            serde_json::to_string(list)
                .map_err(|e| FleetError::Invalid(format!("a task's list: {e}")))
        };
        let mut c = Columns::default();
        for t in tasks {
            c.key.push(t.key.clone());
            c.workspace.push(t.workspace.clone());
            c.rev.push(t.rev.clone());
            c.setup.push(t.setup.clone());
            c.task.push(t.task.clone());
            c.agents.push(json(&t.agents)?);
            c.provider.push(t.provider());
            c.max_attempts
                .push(t.max_attempts.map(|n| i32::try_from(n).unwrap_or(i32::MAX)));
            c.only.push(json(&t.only)?);
            c.campaign.push(t.campaign.clone());
            c.priority.push(t.priority);
            // A deadline beyond any real one rather than an overflow in the server.
            c.deadline_secs.push(
                t.deadline_secs
                    .map(|secs| i64::try_from(secs).unwrap_or(i64::MAX).min(1 << 40)),
            );
            c.cost_cap_usd.push(t.cost_cap_usd);
        }
        Ok(c)
    }
}

/// Adds the tasks whose keys are new; per task in order, its id and whether it was added now
/// (a key repeated within `tasks` is added once, at its first line).
pub(super) async fn add(tx: &impl GenericClient, tasks: &[NewTask]) -> Result<Vec<(TaskId, bool)>> {
    let mut inserted: HashSet<String> = HashSet::new();
    for chunk in tasks.chunks(CHUNK) {
        let c = Columns::of(chunk)?;
        let rows = query(
            tx,
            INSERT_TASKS,
            &[
                &c.key,
                &c.workspace,
                &c.rev,
                &c.setup,
                &c.task,
                &c.agents,
                &c.provider,
                &c.max_attempts,
                &c.only,
                &c.campaign,
                &c.priority,
                &c.deadline_secs,
                &c.cost_cap_usd,
            ],
        )
        .await?;
        for row in &rows {
            inserted.insert(get(row, "key")?);
        }
    }
    let keys: Vec<&str> = tasks.iter().map(|t| t.key.as_str()).collect();
    let mut ids: HashMap<String, TaskId> = HashMap::with_capacity(keys.len());
    for row in query(
        tx,
        "SELECT id, key FROM tasks WHERE key = ANY ($1)",
        &[&keys],
    )
    .await?
    {
        ids.insert(get(&row, "key")?, get(&row, "id")?);
    }
    let campaigns: Vec<&str> = tasks
        .iter()
        .filter(|t| inserted.contains(&t.key))
        .filter_map(|t| t.campaign.as_deref())
        .collect();
    query(
        tx,
        "INSERT INTO campaigns (name) SELECT DISTINCT unnest($1::text[])
        ON CONFLICT (name) DO NOTHING",
        &[&campaigns],
    )
    .await?;
    let mut added = Vec::with_capacity(tasks.len());
    for task in tasks {
        let id = *ids
            .get(&task.key)
            .ok_or_else(|| FleetError::Postgres(format!("task {} vanished", task.key)))?;
        // The first line with a new key is the one that added it.
        added.push((id, inserted.remove(&task.key)));
    }
    Ok(added)
}
