//! The [`Store`] contract on SQLite: each method hands its work to one transaction, a write
//! (`BEGIN IMMEDIATE`) or a read snapshot.

use std::sync::atomic::Ordering;
use std::time::Duration;

use async_trait::async_trait;

use super::open::SqliteStore;
use super::{claim, control, dashboard, finish, read};
use crate::error::Result;
use crate::store::{
    AgentLimit, AttemptEnd, AttemptRecord, Claim, Control, Counts, Facets, Gauges, HistoryRecord,
    LeaseState, ListPage, ListQuery, Pruned, Rescued, Selector, Store, WorkerId,
};
use crate::task::{NewTask, TaskId, TaskRecord};

#[async_trait]
impl Store for SqliteStore {
    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    async fn add(&self, tasks: &[NewTask]) -> Result<Vec<(TaskId, bool)>> {
        let tasks = tasks.to_vec();
        self.write(move |tx, now| control::add(tx, now, &tasks))
            .await
    }

    async fn set_limits(&self, limits: &[AgentLimit]) -> Result<()> {
        let limits = limits.to_vec();
        self.write(move |tx, _| control::set_limits(tx, &limits))
            .await
    }

    async fn claim(&self, worker: &WorkerId, lease: Duration) -> Result<Option<Claim>> {
        let worker = worker.clone();
        let last_sweep = self.last_sweep.clone();
        self.write(move |tx, now| {
            let sweep = now - last_sweep.load(Ordering::Relaxed) >= claim::SWEEP_EVERY_MS;
            let claimed = claim::claim(tx, now, &worker, lease, sweep)?;
            if sweep {
                last_sweep.store(now, Ordering::Relaxed);
            }
            Ok(claimed)
        })
        .await
    }

    async fn heartbeat(&self, claim: &Claim, lease: Duration) -> Result<LeaseState> {
        let claim = claim.clone();
        self.write(move |tx, now| claim::heartbeat(tx, now, &claim, lease))
            .await
    }

    async fn finish(&self, claim: &Claim, end: &AttemptEnd) -> Result<bool> {
        let (claim, end) = (claim.clone(), end.clone());
        self.write(move |tx, now| finish::finish(tx, now, &claim, &end))
            .await
    }

    async fn rescue(&self) -> Result<Vec<Rescued>> {
        self.write(finish::rescue).await
    }

    async fn control(
        &self,
        selector: &Selector,
        control: Control,
        note: Option<&str>,
    ) -> Result<u64> {
        let selector = selector.clone();
        let note = note.map(str::to_owned);
        self.write(move |tx, now| control::control(tx, now, &selector, control, note.as_deref()))
            .await
    }

    async fn retry(&self, task: &str, guidance: &str) -> Result<bool> {
        let (task, guidance) = (task.to_owned(), guidance.to_owned());
        self.write(move |tx, now| control::retry(tx, now, &task, &guidance))
            .await
    }

    async fn task(&self, task: &str) -> Result<Option<TaskRecord>> {
        let task = task.to_owned();
        self.read(move |tx, _| read::task(tx, &task)).await
    }

    async fn tasks(&self, selector: &Selector) -> Result<Vec<TaskRecord>> {
        let selector = selector.clone();
        self.read(move |tx, _| read::tasks(tx, &selector)).await
    }

    async fn attempts(&self, task: Option<TaskId>) -> Result<Vec<AttemptRecord>> {
        self.read(move |tx, _| read::attempts(tx, task)).await
    }

    async fn events(&self, task: TaskId) -> Result<Vec<String>> {
        self.read(move |tx, _| read::events(tx, task)).await
    }

    async fn diff(&self, task: TaskId) -> Result<Option<String>> {
        self.read(move |tx, _| read::diff(tx, task)).await
    }

    async fn counts(&self) -> Result<Counts> {
        self.read(read::counts).await
    }

    async fn list(&self, query: &ListQuery) -> Result<ListPage> {
        let query = query.clone();
        self.read(move |tx, _| dashboard::list(tx, &query)).await
    }

    async fn history(&self, task: TaskId) -> Result<Vec<HistoryRecord>> {
        self.read(move |tx, _| dashboard::history(tx, task)).await
    }

    async fn facets(&self) -> Result<Facets> {
        self.read(|tx, _| dashboard::facets(tx)).await
    }

    async fn gauges(&self) -> Result<Gauges> {
        self.read(dashboard::gauges).await
    }

    async fn watermark(&self) -> Result<String> {
        self.read(|tx, _| dashboard::watermark(tx)).await
    }

    async fn set_campaign_cap(&self, campaign: &str, cap_usd: Option<f64>) -> Result<()> {
        let campaign = campaign.to_owned();
        self.write(move |tx, _| {
            tx.execute(
                "INSERT INTO campaigns (name, cost_cap_usd) VALUES (?1, ?2)
                 ON CONFLICT (name) DO UPDATE SET cost_cap_usd = excluded.cost_cap_usd",
                rusqlite::params![campaign, cap_usd],
            )?;
            Ok(())
        })
        .await
    }

    async fn hold(&self, agent: &str, hold: Duration) -> Result<()> {
        let agent = agent.to_owned();
        let ms = i64::try_from(hold.as_millis()).unwrap_or(i64::MAX);
        self.write(move |tx, now| {
            tx.execute(
                "INSERT INTO agent_holds (agent, until) VALUES (?1, ?2)
                 ON CONFLICT (agent) DO UPDATE SET until = max(until, excluded.until)",
                rusqlite::params![agent, now.saturating_add(ms)],
            )?;
            super::claim::changed(tx)?;
            Ok(())
        })
        .await
    }

    async fn held(&self) -> Result<Vec<(String, i64)>> {
        self.read(read::held).await
    }

    async fn prune(&self, age: Duration, passed_workdirs: bool) -> Result<Pruned> {
        self.write(move |tx, now| control::prune(tx, now, age, passed_workdirs))
            .await
    }
}
