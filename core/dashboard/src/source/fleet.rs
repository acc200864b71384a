//! A fleet's queue as a [`Source`]: any [`Store`], SQLite or PostgreSQL. Each page is a few
//! reads the store answers from its indexes (a page of the queue, counts, gauges, facets);
//! only analytics reads every task and attempt. Every text goes through [`Redacted::new`].

mod cache;

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::mpsc;
use verdict_fleet::stats::{self, FleetStats};
use verdict_fleet::{
    AttemptRecord, Control, Counts, FleetError, Gauges, HistoryRecord, ListQuery, Listed, Selector,
    Store, TaskId, TaskRecord, TaskState,
};

use crate::error::{DashboardError, Result};
use crate::source::Source;
use crate::view::{
    Action, ActionDone, Analytics, AttemptView, Fingerprint, Group, HistoryEntry, Hold, Kind,
    Metrics, QueueQuery, QueueView, Redacted, State, Target, TaskRow, TaskView,
};
use cache::Cache;

/// Tasks per page when the query names no size, and the most a page holds.
const PER_PAGE: u32 = 50;
const MOST_PER_PAGE: u32 = 500;

/// How many characters of a task's first line its title keeps.
const TITLE_CHARS: usize = 120;

/// How many failure fingerprints the analytics page lists.
const FINGERPRINTS: usize = 20;

/// The note an action from the page leaves in a task's history.
const NOTE: &str = "dashboard";

/// A fleet database, read through its store.
pub struct FleetSource {
    store: Arc<dyn Store>,
    /// The PostgreSQL URL to `LISTEN` on, when the store is PostgreSQL's.
    listen: Option<String>,
    /// The newest analytics computed.
    figures: Cache,
}

impl FleetSource {
    /// Reads `store` (SQLite, or PostgreSQL without live hints: the server polls the
    /// watermark).
    pub fn new(store: Arc<dyn Store>) -> FleetSource {
        FleetSource::with_listener(store, None)
    }

    /// Reads `store`, and with `Some(url)` (the PostgreSQL database the store is on) hints at
    /// changes from `LISTEN verdict_fleet` (see [`verdict_fleet::postgres::listen`]). Each call
    /// of [`Source::changes`] opens a connection of its own: call it once and share the hints.
    pub fn with_listener(store: Arc<dyn Store>, url: Option<String>) -> FleetSource {
        FleetSource {
            store,
            listen: url,
            figures: Cache::default(),
        }
    }
}

#[async_trait]
impl Source for FleetSource {
    fn describe(&self) -> String {
        self.store.describe()
    }

    fn kind(&self) -> Kind {
        Kind::Fleet
    }

    async fn watermark(&self) -> Result<String> {
        Ok(self.store.watermark().await?)
    }

    async fn queue(&self, query: &QueueQuery) -> Result<QueueView> {
        let per_page = match query.per_page {
            0 => PER_PAGE,
            n => n.min(MOST_PER_PAGE),
        };
        let list = ListQuery {
            state: query.state.and_then(listed),
            campaign: query.campaign.clone(),
            provider: query.agent.clone(),
            search: query.search.clone(),
            offset: u64::from(query.page) * u64::from(per_page),
            limit: u64::from(per_page),
        };
        // A fleet has no interrupted runs: that filter matches nothing.
        let none = query.state == Some(State::Interrupted);
        let page = async {
            if none {
                Ok(verdict_fleet::ListPage::default())
            } else {
                self.store.list(&list).await
            }
        };
        let (page, counts, gauges, facets, held) = tokio::try_join!(
            page,
            self.store.counts(),
            self.store.gauges(),
            self.store.facets(),
            self.store.held()
        )?;
        let rows = page
            .tasks
            .iter()
            .map(|t| row(&t.task, t.worker.as_deref(), t.claimed_at))
            .collect();
        Ok(QueueView {
            counts: by_state(&counts, &gauges),
            campaigns: redacted(facets.campaigns),
            agents: redacted(facets.providers),
            rows,
            total: page.total,
            held: holds(held),
        })
    }

    async fn task(&self, id: &str) -> Result<Option<TaskView>> {
        let Some(task) = self.store.task(id).await? else {
            return Ok(None);
        };
        let (attempts, history, diff) = tokio::try_join!(
            self.store.attempts(Some(task.id)),
            self.store.history(task.id),
            self.store.diff(task.id)
        )?;
        Ok(Some(task_view(&task, &attempts, &history, diff.as_deref())))
    }

    async fn analytics(&self) -> Result<Analytics> {
        let watermark = self.store.watermark().await?;
        let mut figures = self.figures.get(self.store.clone(), watermark).await?;
        // Holds run out by the clock, not by a transition: read them now.
        figures.held = holds(self.store.held().await?);
        Ok(figures)
    }

    async fn metrics(&self) -> Result<Metrics> {
        let (counts, gauges, held) =
            tokio::try_join!(self.store.counts(), self.store.gauges(), self.store.held())?;
        Ok(Metrics {
            by_state: by_state(&counts, &gauges),
            oldest_due_ms: gauges.oldest_due_ms,
            rescues: gauges.interrupted,
            held: holds(held),
            attempts_by_outcome: gauges.outcomes,
        })
    }

    async fn act(&self, action: &Action) -> Result<ActionDone> {
        match action {
            Action::Retry { task, guidance } => self.retry(task, guidance).await,
            Action::Cancel(target) => self.control(target, Control::Cancel).await,
            Action::Pause(target) => self.control(target, Control::Pause).await,
            Action::Resume(target) => self.control(target, Control::Resume).await,
        }
    }

    async fn changes(&self) -> Result<Option<mpsc::Receiver<()>>> {
        match &self.listen {
            Some(url) => Ok(Some(verdict_fleet::postgres::listen(url).await?)),
            None => Ok(None),
        }
    }
}

impl FleetSource {
    /// Sends an ended task back with guidance; an error when it has not ended, or passed.
    async fn retry(&self, id: &str, guidance: &str) -> Result<ActionDone> {
        if guidance.trim().is_empty() {
            return Err(DashboardError::Invalid(
                "the guidance is empty: say what the next attempt should do".into(),
            ));
        }
        let Some(task) = self.store.task(id).await? else {
            return Err(no_task(id));
        };
        // The id as given: the store resolves it as it did for the read above.
        if !self.store.retry(id, guidance).await? {
            return Err(DashboardError::Invalid(format!(
                "task {} is {}: only a task that ended without passing is sent back",
                task.id,
                view_state(&task).label()
            )));
        }
        Ok(ActionDone {
            changed: 1,
            message: format!("task {} sent back with guidance", task.id),
        })
    }

    /// Cancels, pauses or resumes the target's tasks; an error when none could change.
    async fn control(&self, target: &Target, control: Control) -> Result<ActionDone> {
        let (selector, named) = match target {
            Target::Task(id) => (Selector::Task(id.clone()), format!("task {id}")),
            Target::Campaign(name) => (
                Selector::Campaign(name.clone()),
                format!("campaign {}", Redacted::new(name)),
            ),
            Target::Agent(name) => (
                Selector::Agent(name.clone()),
                format!("agent {}", Redacted::new(name)),
            ),
        };
        let changed = match self.store.control(&selector, control, Some(NOTE)).await {
            Err(FleetError::NoSuchTask(id)) => return Err(no_task(&id)),
            other => other?,
        };
        let (verb, could) = match control {
            Control::Cancel => ("cancelled", "waiting or running"),
            Control::Pause => ("paused", "waiting or running and not paused"),
            Control::Resume => ("resumed", "paused"),
        };
        if changed == 0 {
            return Err(DashboardError::Invalid(format!(
                "nothing {verb}: no task of {named} is {could}"
            )));
        }
        let tasks = if changed == 1 { "task" } else { "tasks" };
        Ok(ActionDone {
            changed,
            message: format!("{changed} {tasks} of {named} {verb}"),
        })
    }
}

fn no_task(id: &str) -> DashboardError {
    DashboardError::Invalid(format!("no task {} in the fleet", Redacted::new(id)))
}

/// The store's filter for a state the page names (`None` for a state a fleet never has).
fn listed(state: State) -> Option<Listed> {
    let state = match state {
        State::Paused => return Some(Listed::Paused),
        State::Interrupted => return None,
        State::Pending => TaskState::Pending,
        State::Running => TaskState::Running,
        State::RetryScheduled => TaskState::RetryScheduled,
        State::Passed => TaskState::Passed,
        State::Escalated => TaskState::Escalated,
        State::Failed => TaskState::Failed,
        State::Expired => TaskState::Expired,
        State::Cancelled => TaskState::Cancelled,
    };
    Some(Listed::State(state))
}

/// Where a task stands on the page: a paused waiting task is `paused`.
fn view_state(task: &TaskRecord) -> State {
    match task.state {
        TaskState::Pending | TaskState::RetryScheduled if task.paused => State::Paused,
        TaskState::Pending => State::Pending,
        TaskState::RetryScheduled => State::RetryScheduled,
        TaskState::Running => State::Running,
        TaskState::Passed => State::Passed,
        TaskState::Escalated => State::Escalated,
        TaskState::Failed => State::Failed,
        TaskState::Expired => State::Expired,
        TaskState::Cancelled => State::Cancelled,
    }
}

/// Every state of the page with its count; paused waiting tasks counted apart.
fn by_state(counts: &Counts, gauges: &Gauges) -> Vec<(State, u64)> {
    State::ALL
        .into_iter()
        .map(|state| {
            let n = match state {
                State::Pending => gauges.pending,
                State::RetryScheduled => gauges.retry_scheduled,
                State::Paused => gauges.paused,
                State::Interrupted => 0,
                other => listed(other).map_or(0, |listed| match listed {
                    Listed::State(s) => counts.get(s),
                    Listed::Paused => gauges.paused,
                }),
            };
            (state, n)
        })
        .collect()
}

/// Names a person typed (campaigns, agents), redacted like every other text.
fn redacted(names: Vec<String>) -> Vec<String> {
    names
        .into_iter()
        .map(|name| Redacted::new(&name).to_string())
        .collect()
}

fn holds(held: Vec<(String, i64)>) -> Vec<Hold> {
    held.into_iter()
        .map(|(agent, until)| Hold {
            agent: Redacted::new(&agent).to_string(),
            until,
        })
        .collect()
}

/// The first line of a task's text, cut to [`TITLE_CHARS`].
fn title(text: &str) -> Redacted {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let line = line.trim();
    match line.char_indices().nth(TITLE_CHARS) {
        Some((cut, _)) => Redacted::new(&format!("{}…", &line[..cut])),
        None => Redacted::new(line),
    }
}

/// A task's line in the queue.
fn row(task: &TaskRecord, worker: Option<&str>, since: Option<i64>) -> TaskRow {
    TaskRow {
        id: task.id.to_string(),
        key: Redacted::new(&task.spec.key),
        title: title(&task.spec.task),
        state: view_state(task),
        campaign: task.spec.campaign.as_deref().map(Redacted::new),
        agent: Redacted::new(&task.spec.provider()),
        attempts: task.attempts,
        max_attempts: task.spec.max_attempts,
        next_retry_at: task.next_retry_at,
        reason: task.reason.as_deref().map(Redacted::new),
        // The last failure's category says why a task waits or ended; beside a pass it would
        // read as the reason for the pass.
        category: (task.state != TaskState::Passed)
            .then(|| task.last_category.clone())
            .flatten(),
        worker: worker.map(Redacted::new),
        running_since: since,
        updated_at: task.updated_at,
    }
}

fn attempt_view(attempt: &AttemptRecord) -> AttemptView {
    AttemptView {
        number: attempt.number,
        agent: attempt.agent.as_deref().map(Redacted::new),
        worker: Some(Redacted::new(&attempt.worker)),
        started_at: attempt.claimed_at,
        finished_at: attempt.finished_at,
        agent_ms: attempt.agent_ms,
        verify_ms: attempt.verify_ms,
        outcome: attempt.outcome.clone(),
        counted: attempt.counted,
        reason: attempt.reason.as_deref().map(Redacted::new),
        category: attempt.category.clone(),
        fingerprints: attempt
            .fingerprints
            .iter()
            .map(|f| Redacted::new(f))
            .collect(),
        digest: attempt.digest.as_deref().map(Redacted::new),
        retry_delay_ms: attempt.retry_delay_ms,
        tokens: attempt.tokens,
        cost_usd: attempt.cost_usd,
    }
}

fn history_entry(record: &HistoryRecord) -> HistoryEntry {
    HistoryEntry {
        at: record.at,
        action: record.action.clone(),
        detail: record.detail.as_deref().map(Redacted::new),
    }
}

/// The task page from the task, its attempts, its history and its diff.
fn task_view(
    task: &TaskRecord,
    attempts: &[AttemptRecord],
    history: &[HistoryRecord],
    diff: Option<&str>,
) -> TaskView {
    // The running claim is the last attempt, not yet finished.
    let current = attempts
        .last()
        .filter(|a| task.state == TaskState::Running && a.finished_at.is_none());
    let state = task.state;
    TaskView {
        row: row(
            task,
            current.map(|a| a.worker.as_str()),
            current.map(|a| a.claimed_at),
        ),
        text: Redacted::new(&task.spec.task),
        workspace: Redacted::new(&task.spec.workspace),
        workdir: task.workdir.as_deref().map(Redacted::new),
        branch: task.branch.as_deref().map(Redacted::new),
        guidance: task.guidance.as_deref().map(Redacted::new),
        cost_usd: (task.cost_usd > 0.0).then_some(task.cost_usd),
        deadline_at: task.deadline_at,
        attempts: attempts.iter().map(attempt_view).collect(),
        history: history.iter().map(history_entry).collect(),
        diff: diff.map(Redacted::new),
        can_retry: state.is_final() && state != TaskState::Passed,
    }
}

/// Mean counted attempts to a pass, per agent (the passing attempt's) and per campaign.
fn to_success(
    tasks: &[TaskRecord],
    attempts: &[AttemptRecord],
) -> (BTreeMap<String, Vec<u64>>, BTreeMap<String, Vec<u64>>) {
    let mut per_task: BTreeMap<TaskId, Vec<&AttemptRecord>> = BTreeMap::new();
    for attempt in attempts {
        per_task.entry(attempt.task).or_default().push(attempt);
    }
    let (mut agents, mut campaigns) = (BTreeMap::new(), BTreeMap::new());
    for task in tasks.iter().filter(|t| t.state == TaskState::Passed) {
        let list = per_task.get(&task.id).map_or(&[][..], Vec::as_slice);
        let passing = list.iter().find(|a| a.outcome.as_deref() == Some("passed"));
        let needed = match passing {
            Some(pass) => list
                .iter()
                .filter(|a| a.counted && a.number <= pass.number)
                .count() as u64,
            None => u64::from(task.attempts),
        };
        if let Some(agent) = passing.and_then(|a| a.agent.clone()) {
            agents.entry(agent).or_insert_with(Vec::new).push(needed);
        }
        if let Some(campaign) = &task.spec.campaign {
            campaigns
                .entry(campaign.clone())
                .or_insert_with(Vec::new)
                .push(needed);
        }
    }
    (agents, campaigns)
}

fn mean(values: Option<&Vec<u64>>) -> Option<f64> {
    let values = values.filter(|v| !v.is_empty())?;
    Some(values.iter().sum::<u64>() as f64 / values.len() as f64)
}

fn group(from: &stats::Group, to_success: &BTreeMap<String, Vec<u64>>) -> Group {
    Group {
        name: Redacted::new(&from.name).to_string(),
        attempts: from.attempts,
        tasks: from.tasks,
        finished: from.finished,
        passed: from.passed,
        success_rate: from.success_rate,
        attempts_to_success: mean(to_success.get(&from.name)),
    }
}

/// The analytics page from the fleet's figures.
/// The analytics of the whole fleet, as of now (holds are read by the caller).
async fn compute(store: &dyn Store) -> Result<Analytics> {
    let (tasks, attempts) = tokio::try_join!(store.tasks(&Selector::All), store.attempts(None))?;
    let figures = stats::compute(&tasks, &attempts);
    Ok(analytics(&figures, &tasks, &attempts, Vec::new()))
}

fn analytics(
    figures: &FleetStats,
    tasks: &[TaskRecord],
    attempts: &[AttemptRecord],
    held: Vec<Hold>,
) -> Analytics {
    let (agents, campaigns) = to_success(tasks, attempts);
    let none = BTreeMap::new();
    Analytics {
        tasks: figures.tasks,
        finished: figures.finished,
        success_rate: figures.success_rate,
        attempts: figures.attempts,
        by_category: figures
            .by_category
            .iter()
            .map(|g| group(g, &none))
            .collect(),
        by_agent: figures.by_agent.iter().map(|g| group(g, &agents)).collect(),
        by_campaign: figures
            .by_campaign
            .iter()
            .map(|g| group(g, &campaigns))
            .collect(),
        fingerprints: figures
            .common_failures
            .iter()
            .take(FINGERPRINTS)
            .map(|f| Fingerprint {
                text: Redacted::new(&f.fingerprint),
                occurrences: f.occurrences,
                tasks: f.tasks,
                unfixed: f.unfixed,
            })
            .collect(),
        attempts_to_success: figures.attempts_to_success.as_ref().map(|a| a.mean),
        as_of: crate::now_ms(),
        agent_ms: figures.time.agent_ms,
        verify_ms: figures.time.verify_ms,
        held,
    }
}
