//! The [`Store`] contract on PostgreSQL: each method handed to the file that does its job.

use std::time::Duration;

use async_trait::async_trait;

use super::PgStore;
use crate::error::Result;
use crate::store::{
    AgentLimit, AttemptEnd, AttemptRecord, Claim, Control, Counts, Facets, Gauges, HistoryRecord,
    LeaseState, ListPage, ListQuery, Pruned, Rescued, Selector, Store, WorkerId,
};
use crate::task::{NewTask, TaskId, TaskRecord};

#[async_trait]
impl Store for PgStore {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    async fn add(&self, tasks: &[NewTask]) -> Result<Vec<(TaskId, bool)>> {
        self.add_tasks(tasks).await
    }

    async fn set_limits(&self, limits: &[AgentLimit]) -> Result<()> {
        self.limits(limits).await
    }

    async fn claim(&self, worker: &WorkerId, lease: Duration) -> Result<Option<Claim>> {
        self.claim_task(worker, lease).await
    }

    async fn heartbeat(&self, claim: &Claim, lease: Duration) -> Result<LeaseState> {
        self.renew(claim, lease).await
    }

    async fn finish(&self, claim: &Claim, end: &AttemptEnd) -> Result<bool> {
        self.finish_attempt(claim, end).await
    }

    async fn rescue(&self) -> Result<Vec<Rescued>> {
        self.rescue_expired().await
    }

    async fn control(
        &self,
        selector: &Selector,
        control: Control,
        note: Option<&str>,
    ) -> Result<u64> {
        self.control_tasks(selector, control, note).await
    }

    async fn retry(&self, task: &str, guidance: &str) -> Result<bool> {
        self.send_back(task, guidance).await
    }

    async fn task(&self, task: &str) -> Result<Option<TaskRecord>> {
        self.one_task(task).await
    }

    async fn tasks(&self, selector: &Selector) -> Result<Vec<TaskRecord>> {
        self.some_tasks(selector).await
    }

    async fn attempts(&self, task: Option<TaskId>) -> Result<Vec<AttemptRecord>> {
        self.some_attempts(task).await
    }

    async fn events(&self, task: TaskId) -> Result<Vec<String>> {
        self.task_events(task).await
    }

    async fn diff(&self, task: TaskId) -> Result<Option<String>> {
        self.task_diff(task).await
    }

    async fn counts(&self) -> Result<Counts> {
        self.state_counts().await
    }

    async fn list(&self, query: &ListQuery) -> Result<ListPage> {
        self.list_page(query).await
    }

    async fn history(&self, task: TaskId) -> Result<Vec<HistoryRecord>> {
        self.task_history(task).await
    }

    async fn facets(&self) -> Result<Facets> {
        self.distinct_facets().await
    }

    async fn gauges(&self) -> Result<Gauges> {
        self.queue_gauges().await
    }

    async fn watermark(&self) -> Result<String> {
        self.change_counter().await
    }

    async fn set_campaign_cap(&self, campaign: &str, cap_usd: Option<f64>) -> Result<()> {
        self.cap_campaign(campaign, cap_usd).await
    }

    async fn hold(&self, agent: &str, hold: Duration) -> Result<()> {
        self.hold_provider(agent, hold).await
    }

    async fn held(&self) -> Result<Vec<(String, i64)>> {
        self.held_providers().await
    }

    async fn prune(&self, age: Duration, passed_workdirs: bool) -> Result<Pruned> {
        self.prune_ended(age, passed_workdirs).await
    }
}
