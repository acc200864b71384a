//! Reads: tasks, attempts, events, diffs, counts and holds. Each is one statement.

use super::PgStore;
use super::rows::{attempt_record, get, task_record};
use super::sql::{now, query, selected, selector, task_columns, task_named};
use crate::error::Result;
use crate::store::{AttemptRecord, Counts, Selector};
use crate::task::{TaskId, TaskRecord, TaskState};

impl PgStore {
    pub(super) async fn one_task(&self, task: &str) -> Result<Option<TaskRecord>> {
        let client = self.client().await?;
        let id: Option<i64> = task.trim().parse().ok();
        let rows = query(
            &client,
            concat!(
                "SELECT ",
                task_columns!(),
                " FROM tasks WHERE id = ",
                task_named!()
            ),
            &[&task, &id],
        )
        .await?;
        rows.first().map(task_record).transpose()
    }

    pub(super) async fn some_tasks(&self, which: &Selector) -> Result<Vec<TaskRecord>> {
        let client = self.client().await?;
        let (name, id, kind) = selector(which);
        let rows = query(
            &client,
            concat!(
                "SELECT ",
                task_columns!(),
                " FROM tasks t WHERE ",
                selected!(),
                " ORDER BY t.id"
            ),
            &[&name, &id, &kind],
        )
        .await?;
        rows.iter().map(task_record).collect()
    }

    pub(super) async fn some_attempts(&self, task: Option<TaskId>) -> Result<Vec<AttemptRecord>> {
        let client = self.client().await?;
        let rows = query(
            &client,
            "SELECT a.*, t.campaign FROM attempts a JOIN tasks t ON t.id = a.task_id
            WHERE $1::bigint IS NULL OR a.task_id = $1
            ORDER BY a.task_id, a.number",
            &[&task],
        )
        .await?;
        rows.iter().map(attempt_record).collect()
    }

    pub(super) async fn task_events(&self, task: TaskId) -> Result<Vec<String>> {
        let client = self.client().await?;
        let rows = query(
            &client,
            "SELECT line FROM events WHERE task_id = $1 ORDER BY id",
            &[&task],
        )
        .await?;
        rows.iter().map(|row| get(row, "line")).collect()
    }

    pub(super) async fn task_diff(&self, task: TaskId) -> Result<Option<String>> {
        let client = self.client().await?;
        let rows = query(&client, "SELECT diff FROM tasks WHERE id = $1", &[&task]).await?;
        Ok(rows
            .first()
            .map(|row| get::<Option<String>>(row, "diff"))
            .transpose()?
            .flatten())
    }

    pub(super) async fn state_counts(&self) -> Result<Counts> {
        let client = self.client().await?;
        let rows = query(
            &client,
            concat!(
                "SELECT state, count(*) AS n,
                    count(*) FILTER (WHERE paused) AS paused,
                    min(CASE WHEN state = 'pending' THEN 0
                        ELSE greatest(next_retry_at - ",
                now!(),
                ", 0) END) FILTER (WHERE NOT paused) AS due_in
                FROM tasks GROUP BY state"
            ),
            &[],
        )
        .await?;
        let mut counts = Counts {
            by_state: TaskState::ALL.iter().map(|s| (*s, 0)).collect(),
            ..Counts::default()
        };
        for row in &rows {
            let name: String = get(row, "state")?;
            let Some(state) = TaskState::parse(&name) else {
                continue;
            };
            let n = u64::try_from(get::<i64>(row, "n")?).unwrap_or(0);
            if let Some(entry) = counts.by_state.iter_mut().find(|(s, _)| *s == state) {
                entry.1 = n;
            }
            if matches!(state, TaskState::Pending | TaskState::RetryScheduled) {
                counts.paused += u64::try_from(get::<i64>(row, "paused")?).unwrap_or(0);
                if let Some(due) = get::<Option<i64>>(row, "due_in")? {
                    counts.next_due_in = Some(counts.next_due_in.map_or(due, |d| d.min(due)));
                }
            }
        }
        Ok(counts)
    }

    pub(super) async fn held_providers(&self) -> Result<Vec<(String, i64)>> {
        let client = self.client().await?;
        let rows = query(
            &client,
            concat!(
                "SELECT agent, until FROM agent_holds WHERE until > ",
                now!(),
                " ORDER BY agent"
            ),
            &[],
        )
        .await?;
        rows.iter()
            .map(|row| Ok((get(row, "agent")?, get(row, "until")?)))
            .collect()
    }
}
