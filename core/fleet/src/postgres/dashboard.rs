//! A dashboard's reads on PostgreSQL: a page of the queue, a task's history, the filters'
//! choices, the gauges alerting watches, and the watermark.

use tokio_postgres::IsolationLevel;
use tokio_postgres::types::ToSql;

use super::PgStore;
use super::rows::{get, task_record, unsigned};
use super::sql::{error, now, query, task_columns};
use crate::error::Result;
use crate::list::{Dialect, filter, page};
use crate::store::{Facets, Gauges, HistoryRecord, ListPage, ListQuery, ListedTask};
use crate::task::TaskId;

/// The waiting tasks split, counted over `tasks_due`.
const WAITING: &str = "SELECT state, paused, count(*) AS n FROM tasks
    WHERE state IN ('pending', 'retry_scheduled') GROUP BY state, paused";

/// Since when the oldest due, unpaused waiting task is due (a pending one since it became
/// pending, the first of `tasks_by_state_update` not paused; a scheduled retry since its time),
/// and the server's now.
const DUE_SINCE: &str = concat!(
    "SELECT least(
        (SELECT updated_at FROM tasks WHERE state = 'pending' AND NOT paused
         ORDER BY updated_at LIMIT 1),
        (SELECT min(next_retry_at) FROM tasks
         WHERE state = 'retry_scheduled' AND NOT paused AND next_retry_at <= ",
    now!(),
    ")) AS since, ",
    now!(),
    " AS now"
);

impl PgStore {
    /// One page and its total, read in one snapshot (a read-only, repeatable-read transaction).
    pub(super) async fn list_page(&self, list: &ListQuery) -> Result<ListPage> {
        let filter = filter(list, Dialect::Postgres);
        let params: Vec<&(dyn ToSql + Sync)> = filter
            .params
            .iter()
            .map(|p| p as &(dyn ToSql + Sync))
            .collect();
        let count = format!("SELECT count(*) AS n FROM tasks t WHERE {}", filter.sql);
        let select = format!(
            concat!(
                "SELECT ",
                task_columns!(),
                ",
                CASE WHEN t.state = 'running' THEN (SELECT a.worker FROM attempts a
                     WHERE a.task_id = t.id AND a.number = t.claims) END AS claim_worker,
                CASE WHEN t.state = 'running' THEN (SELECT a.claimed_at FROM attempts a
                     WHERE a.task_id = t.id AND a.number = t.claims) END AS claimed_at
                FROM tasks t WHERE {} ORDER BY t.updated_at DESC, t.id DESC {}"
            ),
            filter.sql,
            page(list)
        );
        let mut client = self.client().await?;
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .map_err(error)?;
        let (total, rows) =
            tokio::try_join!(query(&tx, &count, &params), query(&tx, &select, &params))?;
        tx.commit().await.map_err(error)?;
        let total = match total.first() {
            Some(row) => unsigned(get(row, "n")?),
            None => 0,
        };
        let tasks = rows
            .iter()
            .map(|row| {
                Ok(ListedTask {
                    task: task_record(row)?,
                    worker: get(row, "claim_worker")?,
                    claimed_at: get(row, "claimed_at")?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(ListPage { tasks, total })
    }

    pub(super) async fn task_history(&self, task: TaskId) -> Result<Vec<HistoryRecord>> {
        let client = self.client().await?;
        let rows = query(
            &client,
            "SELECT at, action, detail FROM task_history WHERE task_id = $1 ORDER BY id",
            &[&task],
        )
        .await?;
        rows.iter()
            .map(|row| {
                Ok(HistoryRecord {
                    at: get(row, "at")?,
                    action: get(row, "action")?,
                    detail: get(row, "detail")?,
                })
            })
            .collect()
    }

    /// The campaigns and providers, each read from its index, in one round trip.
    pub(super) async fn distinct_facets(&self) -> Result<Facets> {
        let client = self.client().await?;
        let (campaigns, providers) = tokio::try_join!(
            query(
                &client,
                "SELECT DISTINCT campaign AS name FROM tasks WHERE campaign IS NOT NULL
                ORDER BY campaign",
                &[],
            ),
            query(
                &client,
                "SELECT DISTINCT provider AS name FROM tasks ORDER BY provider",
                &[],
            ),
        )?;
        let names = |rows: Vec<tokio_postgres::Row>| -> Result<Vec<String>> {
            rows.iter().map(|row| get(row, "name")).collect()
        };
        Ok(Facets {
            campaigns: names(campaigns)?,
            providers: names(providers)?,
        })
    }

    /// The waiting tasks and the attempts' outcomes, each counted by the server, in one round
    /// trip.
    pub(super) async fn queue_gauges(&self) -> Result<Gauges> {
        let client = self.client().await?;
        let (waiting, due, outcomes) = tokio::try_join!(
            query(&client, WAITING, &[]),
            query(&client, DUE_SINCE, &[]),
            query(
                &client,
                "SELECT outcome, count(*) AS n FROM attempts WHERE outcome IS NOT NULL
                GROUP BY outcome ORDER BY outcome",
                &[],
            ),
        )?;
        let mut gauges = Gauges::default();
        for row in &waiting {
            let n = unsigned(get(row, "n")?);
            if get(row, "paused")? {
                gauges.paused += n;
            } else if get::<String>(row, "state")? == "pending" {
                gauges.pending += n;
            } else {
                gauges.retry_scheduled += n;
            }
        }
        if let Some(row) = due.first() {
            let now: i64 = get(row, "now")?;
            gauges.oldest_due_ms =
                get::<Option<i64>>(row, "since")?.map(|since| (now - since).max(0));
        }
        for row in &outcomes {
            gauges
                .outcomes
                .push((get(row, "outcome")?, unsigned(get(row, "n")?)));
        }
        gauges.interrupted = gauges
            .outcomes
            .iter()
            .find(|(outcome, _)| outcome == "interrupted")
            .map_or(0, |(_, n)| *n);
        Ok(gauges)
    }

    pub(super) async fn change_counter(&self) -> Result<String> {
        let client = self.client().await?;
        let rows = query(&client, "SELECT n FROM changes WHERE id = 1", &[]).await?;
        let n: i64 = match rows.first() {
            Some(row) => get(row, "n")?,
            None => 0,
        };
        Ok(n.to_string())
    }
}
