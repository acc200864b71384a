//! A dashboard's reads on SQLite: a page of the queue, a task's history, the filters' choices,
//! the gauges alerting watches, and the watermark. Each runs in one read transaction.

use rusqlite::{OptionalExtension, Transaction, params_from_iter};

use super::read::{TASK_COLUMNS, task_from_row, unsigned};
use super::run::TxResult;
use crate::list::{Dialect, filter, page};
use crate::store::{Facets, Gauges, HistoryRecord, ListPage, ListQuery, ListedTask};
use crate::task::TaskId;

/// One page of the tasks `query` names, and how many match. Without a search, the order is an
/// index's (`tasks_by_update`, or `tasks_by_state_update` with a state), so a page reads only
/// its rows.
pub(super) fn list(tx: &Transaction<'_>, query: &ListQuery) -> TxResult<ListPage> {
    let filter = filter(query, Dialect::Sqlite);
    let total: i64 = tx
        .prepare_cached(&format!(
            "SELECT COUNT(*) FROM tasks t WHERE {}",
            filter.sql
        ))?
        .query_row(params_from_iter(&filter.params), |row| row.get(0))?;
    let sql = format!(
        "SELECT {TASK_COLUMNS},
            CASE WHEN t.state = 'running' THEN (SELECT a.worker FROM attempts a
                 WHERE a.task_id = t.id AND a.number = t.claims) END,
            CASE WHEN t.state = 'running' THEN (SELECT a.claimed_at FROM attempts a
                 WHERE a.task_id = t.id AND a.number = t.claims) END
         FROM tasks t WHERE {}
         ORDER BY t.updated_at DESC, t.id DESC {}",
        filter.sql,
        page(query)
    );
    let mut statement = tx.prepare_cached(&sql)?;
    let rows = statement.query_map(params_from_iter(&filter.params), |row| {
        Ok(ListedTask {
            task: task_from_row(row)?,
            worker: row.get(28)?,
            claimed_at: row.get(29)?,
        })
    })?;
    Ok(ListPage {
        tasks: rows.collect::<rusqlite::Result<_>>()?,
        total: u64::try_from(total).unwrap_or(0),
    })
}

/// A task's history, oldest first.
pub(super) fn history(tx: &Transaction<'_>, task: TaskId) -> TxResult<Vec<HistoryRecord>> {
    let mut statement = tx.prepare_cached(
        "SELECT at, action, detail FROM task_history WHERE task_id = ?1 ORDER BY id",
    )?;
    let rows = statement.query_map([task], |row| {
        Ok(HistoryRecord {
            at: row.get(0)?,
            action: row.get(1)?,
            detail: row.get(2)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The distinct values of a column that has an index, sorted.
fn distinct(tx: &Transaction<'_>, column: &str) -> TxResult<Vec<String>> {
    let mut statement = tx.prepare_cached(&format!(
        "SELECT DISTINCT {column} FROM tasks WHERE {column} IS NOT NULL ORDER BY {column}"
    ))?;
    let rows = statement.query_map([], |row| row.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The campaigns and providers there are.
pub(super) fn facets(tx: &Transaction<'_>) -> TxResult<Facets> {
    Ok(Facets {
        campaigns: distinct(tx, "campaign")?,
        providers: distinct(tx, "provider")?,
    })
}

/// Waiting tasks split, the oldest due one's age, rescues and outcomes, each counted by
/// SQLite over an index: the counts over `tasks_due`, the oldest due pending task the first of
/// `tasks_by_state_update` not paused, outcomes over `attempts_by_outcome`.
pub(super) fn gauges(tx: &Transaction<'_>, now: i64) -> TxResult<Gauges> {
    let mut gauges = Gauges::default();
    let mut statement = tx.prepare_cached(
        "SELECT state, paused, COUNT(*) FROM tasks
         WHERE state IN ('pending', 'retry_scheduled') GROUP BY state, paused",
    )?;
    let rows = statement.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, bool>(1)?,
            unsigned(row, 2)?,
        ))
    })?;
    for found in rows {
        match found? {
            (_, true, n) => gauges.paused += n,
            (state, false, n) if state == "pending" => gauges.pending += n,
            (_, false, n) => gauges.retry_scheduled += n,
        }
    }
    // A pending task is due since it became pending; a scheduled retry since its time.
    let pending: Option<i64> = tx
        .prepare_cached(
            "SELECT updated_at FROM tasks WHERE state = 'pending' AND paused = 0
             ORDER BY updated_at LIMIT 1",
        )?
        .query_row([], |row| row.get(0))
        .optional()?;
    let retry: Option<i64> = tx
        .prepare_cached(
            "SELECT MIN(next_retry_at) FROM tasks
             WHERE state = 'retry_scheduled' AND paused = 0 AND next_retry_at <= ?1",
        )?
        .query_row([now], |row| row.get(0))?;
    let since = match (pending, retry) {
        (Some(p), Some(r)) => Some(p.min(r)),
        (p, r) => p.or(r),
    };
    gauges.oldest_due_ms = since.map(|since| (now - since).max(0));
    let mut statement = tx.prepare_cached(
        "SELECT outcome, COUNT(*) FROM attempts WHERE outcome IS NOT NULL
         GROUP BY outcome ORDER BY outcome",
    )?;
    let rows = statement.query_map([], |row| Ok((row.get::<_, String>(0)?, unsigned(row, 1)?)))?;
    gauges.outcomes = rows.collect::<rusqlite::Result<_>>()?;
    gauges.interrupted = gauges
        .outcomes
        .iter()
        .find(|(outcome, _)| outcome == "interrupted")
        .map_or(0, |(_, n)| *n);
    Ok(gauges)
}

/// The change counter, as text.
pub(super) fn watermark(tx: &Transaction<'_>) -> TxResult<String> {
    let n: i64 = tx
        .prepare_cached("SELECT n FROM changes WHERE id = 1")?
        .query_row([], |row| row.get(0))?;
    Ok(n.to_string())
}
