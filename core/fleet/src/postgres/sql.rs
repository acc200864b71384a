//! What every statement shares: the server's clock, the task columns, the selector of a
//! control, and the helpers that prepare (once per connection) and run a statement.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use crate::error::{FleetError, Result};
use crate::store::Selector;

/// The server's clock in milliseconds since the epoch. `now()` is the transaction's start, so
/// every row one transition writes carries the same instant (a claim's `claimed_at` is its
/// task's `updated_at`), and transactions are short enough that it is the time of the write.
macro_rules! now {
    () => {
        "(extract(epoch from now()) * 1000)::bigint"
    };
}
pub(super) use now;

/// The columns [`super::rows::task_record`] reads, in a statement on `tasks`.
macro_rules! task_columns {
    () => {
        "id, key, workspace, rev, setup, task, agents_json, max_attempts, only_json, campaign, \
         priority, deadline_at, cost_cap_usd, state, paused, cancel_requested, attempts, \
         next_retry_at, workdir, workdir_host, branch, guidance, reason, last_category, cost_usd, \
         created_at, updated_at, finished_at"
    };
}
pub(super) use task_columns;

/// Whether the task `t` is past its deadline or its cost cap, or its campaign past its cap.
/// The campaigns past their caps are an array computed once per statement, not a subquery
/// the planner weighs for every task (which made it sort every waiting task).
macro_rules! past_cap {
    () => {
        concat!(
            "((t.deadline_at IS NOT NULL AND t.deadline_at <= ",
            now!(),
            ") OR (t.cost_cap_usd IS NOT NULL AND t.cost_usd >= t.cost_cap_usd) \
             OR t.campaign = ANY (ARRAY (SELECT c.name FROM campaigns c \
               WHERE c.cost_cap_usd IS NOT NULL AND c.cost_cap_usd <= \
               (SELECT coalesce(sum(u.cost_usd), 0) FROM tasks u WHERE u.campaign = c.name))))"
        )
    };
}
pub(super) use past_cap;

/// The task by id or key: `$1` the text as given, `$2` it as an id when it is a number. An id
/// wins over a key that reads the same.
macro_rules! task_named {
    () => {
        "coalesce((SELECT x.id FROM tasks x WHERE x.id = $2::bigint), \
                  (SELECT x.id FROM tasks x WHERE x.key = $1::text))"
    };
}
pub(super) use task_named;

/// Whether the task `t` is one a [`Selector`] names, from the parameters [`selector`] makes:
/// `$1` the name, `$2` it as an id, `$3` the selector's kind.
macro_rules! selected {
    () => {
        concat!(
            "(CASE $3::text WHEN 'all' THEN TRUE \
              WHEN 'campaign' THEN t.campaign = $1::text \
              WHEN 'agent' THEN t.provider = $1::text \
              ELSE t.id = ",
            task_named!(),
            " END)"
        )
    };
}
pub(super) use selected;

/// The parameters of [`selected!`]: the name, it as an id, the kind.
pub(super) fn selector(selector: &Selector) -> (String, Option<i64>, &'static str) {
    match selector {
        Selector::Task(name) => (name.clone(), name.trim().parse().ok(), "task"),
        Selector::Campaign(name) => (name.clone(), None, "campaign"),
        Selector::Agent(name) => (name.clone(), None, "agent"),
        Selector::All => (String::new(), None, "all"),
    }
}

/// A failed statement, with the server's message: the error's own text is only "db error",
/// and what the server said is its source.
pub(super) fn error(error: tokio_postgres::Error) -> FleetError {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text = format!("{text}: {cause_text}");
        }
        source = cause.source();
    }
    FleetError::Postgres(text)
}

/// Runs `sql` (prepared once per connection) and returns its rows.
pub(super) async fn query(
    client: &impl GenericClient,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<Row>> {
    let statement = client.prepare_cached(sql).await.map_err(error)?;
    client.query(&statement, params).await.map_err(error)
}

/// Runs `sql` (prepared once per connection) and returns how many rows it changed.
pub(super) async fn execute(
    client: &impl GenericClient,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<u64> {
    let statement = client.prepare_cached(sql).await.map_err(error)?;
    client.execute(&statement, params).await.map_err(error)
}

/// Bumps the counter [`crate::Store::watermark`] reads. Every transaction that bumps it does so
/// last, so the row's lock is held only while it commits and never waited on while holding
/// another (no deadlock); a notifying transaction's commit is serialized by the server anyway.
pub(super) const BUMP: &str = "UPDATE changes SET n = n + 1 WHERE id = 1";

/// Tells the listeners (the dashboard) that these tasks changed, when the transaction commits,
/// and bumps the watermark's counter. The last statement of its transaction (see [`BUMP`]).
pub(super) async fn notify(client: &impl GenericClient, tasks: &[i64]) -> Result<()> {
    if tasks.is_empty() {
        return Ok(());
    }
    let tasks = tasks.to_vec();
    execute(
        client,
        "WITH bump AS (UPDATE changes SET n = n + 1 WHERE id = 1)
        SELECT pg_notify('verdict_fleet', id::text) FROM unnest($1::bigint[]) AS id",
        &[&tasks],
    )
    .await
    .map(drop)
}

/// Milliseconds of a duration, as the database stores them.
pub(super) fn millis(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A count as the database stores it.
pub(super) fn big(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
