//! A dashboard's reads on SQLite: a page of the queue, a task's history, the filters' choices,
//! the gauges alerting watches, and the watermark. Each runs in one read transaction.

use rusqlite::{Transaction, params_from_iter};

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
/// SQLite over an index (`tasks_due`, `attempts_by_outcome`).
pub(super) fn gauges(tx: &Transaction<'_>, now: i64) -> TxResult<Gauges> {
    let mut gauges = tx
        .prepare_cached(
            "SELECT
                COUNT(*) FILTER (WHERE state = 'pending' AND NOT paused),
                COUNT(*) FILTER (WHERE state = 'retry_scheduled' AND NOT paused),
                COUNT(*) FILTER (WHERE paused),
                MIN(CASE WHEN paused THEN NULL
                         WHEN state = 'pending' THEN updated_at
                         WHEN next_retry_at <= ?1 THEN next_retry_at END)
             FROM tasks WHERE state IN ('pending', 'retry_scheduled')",
        )?
        .query_row([now], |row| {
            Ok(Gauges {
                pending: unsigned(row, 0)?,
                retry_scheduled: unsigned(row, 1)?,
                paused: unsigned(row, 2)?,
                oldest_due_ms: row
                    .get::<_, Option<i64>>(3)?
                    .map(|since| (now - since).max(0)),
                ..Gauges::default()
            })
        })?;
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
