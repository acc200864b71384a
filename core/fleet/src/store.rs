//! The contract both backends keep. Every method is one transaction (`claim` and `finish`
//! included: at most these two per attempt, plus heartbeats for long ones), every time is the
//! database's clock, and every write of an attempt after its claim is fenced by the claim's lease
//! token: a stale token changes nothing and says so.

use std::time::Duration;

use async_trait::async_trait;
use serde::Serialize;

use crate::error::Result;
use crate::task::{NewTask, TaskId, TaskRecord, TaskState};

/// Who claims: one worker process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkerId {
    /// Unique per worker process (host, pid and a random part).
    pub id: String,
    /// The host's name: a task's later attempts run where its work directory is.
    pub host: String,
    /// The worker's process id.
    pub pid: u32,
}

/// At most `slots` sessions of `agent` (a provider name, see [`NewTask::provider`]) at once,
/// across every worker of the fleet. Held as `slots` rows with leases, so a dead worker's slot
/// expires with its lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentLimit {
    /// The provider.
    pub agent: String,
    /// How many sessions at once.
    pub slots: u32,
}

/// A task taken by one worker for one attempt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    /// The task as it stood when claimed (state `running`, `attempts` not yet counting this one).
    pub task: TaskRecord,
    /// This claim's number for the task: `(task, number)` is unique, written in the claim's
    /// transaction (interrupted claims keep their numbers; the next claim takes the next one).
    pub number: u32,
    /// The lease token every later write of this attempt carries.
    pub token: i64,
    /// When the lease runs out, by the database's clock, unless renewed.
    pub lease_until: i64,
    /// The agent slot held for this attempt: `(provider, slot)`.
    pub slot: Option<(String, u32)>,
}

/// What a heartbeat found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LeaseState {
    /// Renewed until `until`; `cancel`: a person asked to cancel the task, `pause` to pause
    /// it (the attempt finishes first); `expired`: the task is past its deadline or cost cap.
    Held {
        /// When the renewed lease runs out.
        until: i64,
        /// A person asked to cancel the task.
        cancel: bool,
        /// The task is past its deadline.
        expired: bool,
    },
    /// The lease is no longer this claim's (it expired and was rescued, or the task was
    /// cancelled and taken back): stop the agent, write nothing more.
    Lost,
}

/// How an attempt ended, as the worker reports it in [`Store::finish`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttemptEnd {
    /// The task's state after the attempt: `retry_scheduled` (with `retry_after`), `pending` (an
    /// interrupted attempt handed back, due at once), or a final state.
    pub state: TaskState,
    /// Whether the attempt counts against `max_attempts` (an interrupted attempt, a rate limit or
    /// a provider error does not).
    pub counted: bool,
    /// For `retry_scheduled`: the delay from now (the database's now) until it is due.
    pub retry_after: Option<Duration>,
    /// The attempt's outcome in one word: passed, failed, escalated, interrupted, expired,
    /// cancelled, session_failed, rate_limited.
    pub outcome: String,
    /// Why, in one line.
    pub reason: String,
    /// The failure's category (the loop's classification), for a failed attempt.
    pub category: Option<String>,
    /// The failures' fingerprints (without lines), for analytics.
    pub fingerprints: Vec<String>,
    /// The digest the next prompt carries (redacted, as every digest is).
    pub digest: Option<String>,
    /// The agent that ran (its command as given).
    pub agent: Option<String>,
    /// Milliseconds in agent sessions.
    pub agent_ms: u64,
    /// Milliseconds in verification.
    pub verify_ms: u64,
    /// Tokens the agent reported, where it reports them.
    pub tokens: Option<u64>,
    /// What the agent reported it cost, in US dollars.
    pub cost_usd: Option<f64>,
    /// The loop's events of the attempt, one NDJSON line each (as `verdict loop --events`).
    pub events: Vec<String>,
    /// The task's work directory (set on the first attempt, kept after).
    pub workdir: Option<String>,
    /// The branch holding what the agent changed.
    pub branch: Option<String>,
    /// The diff against the task's start (redacted, cut to a bound).
    pub diff: Option<String>,
    /// Hold the task's provider until this many milliseconds from now: it reported a rate limit
    /// with a retry-after.
    pub hold_provider: Option<Duration>,
}

/// One attempt as stored (a claim and how it ended).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttemptRecord {
    /// The task.
    pub task: TaskId,
    /// The claim's number.
    pub number: u32,
    /// The worker that claimed it.
    pub worker: String,
    /// Its host.
    pub host: String,
    /// When it was claimed.
    pub claimed_at: i64,
    /// When it ended (`None`: running, or lost and not yet rescued).
    pub finished_at: Option<i64>,
    /// How it ended, in one word (`interrupted` for a rescued one).
    pub outcome: Option<String>,
    /// Whether it counted.
    pub counted: bool,
    /// The rest of what [`AttemptEnd`] said: reason, category, fingerprints, agent, times,
    /// tokens, cost, retry delay (milliseconds).
    pub reason: Option<String>,
    /// The failure category.
    pub category: Option<String>,
    /// The failures' fingerprints.
    pub fingerprints: Vec<String>,
    /// The agent.
    pub agent: Option<String>,
    /// Milliseconds in agent sessions.
    pub agent_ms: u64,
    /// Milliseconds in verification.
    pub verify_ms: u64,
    /// Tokens reported.
    pub tokens: Option<u64>,
    /// Cost reported.
    pub cost_usd: Option<f64>,
    /// The delay scheduled after it, in milliseconds.
    pub retry_delay_ms: Option<u64>,
    /// The digest the next prompt carried (redacted when written, as every digest is).
    pub digest: Option<String>,
    /// The task's campaign (joined in for analytics).
    pub campaign: Option<String>,
}

/// A lease found expired and taken back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rescued {
    /// The task, due again.
    pub task: TaskId,
    /// The claim recorded as interrupted.
    pub number: u32,
    /// The worker that held it, and its host and pid: on the same host the rescuer stops the
    /// dead worker's agent tree (the task's loop state in its work directory names it).
    pub worker: String,
    /// Its host.
    pub host: String,
    /// Its pid.
    pub pid: u32,
    /// The task's work directory.
    pub workdir: Option<String>,
}

/// Which tasks a control names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Selector {
    /// One task, by id or key.
    Task(String),
    /// Every task of a campaign.
    Campaign(String),
    /// Every task whose provider is this agent.
    Agent(String),
    /// Every task.
    All,
}

/// What a person asks of tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Control {
    /// Cancel: waiting tasks end `cancelled` at once; a running one is flagged, its worker stops
    /// the agent and finishes it `cancelled`.
    Cancel,
    /// Pause: not claimed until resumed (a running attempt finishes first).
    Pause,
    /// Resume a paused task.
    Resume,
}

/// Tasks by state, and how soon the next scheduled one is due.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Tasks per state name (every state present, zero included).
    pub by_state: Vec<(TaskState, u64)>,
    /// Of the waiting tasks (pending, retry scheduled), how many are paused.
    pub paused: u64,
    /// Milliseconds until the next waiting, unpaused task is due (0: one is due now; `None`:
    /// none waits).
    pub next_due_in: Option<i64>,
}

impl Counts {
    /// How many tasks are in `state`.
    pub fn get(&self, state: TaskState) -> u64 {
        self.by_state
            .iter()
            .find(|(s, _)| *s == state)
            .map_or(0, |(_, n)| *n)
    }

    /// Whether nothing is pending, running or scheduled (paused tasks wait for a person and do
    /// not count).
    pub fn idle(&self) -> bool {
        let waiting = self.get(TaskState::Pending) + self.get(TaskState::RetryScheduled);
        self.get(TaskState::Running) == 0 && waiting <= self.paused
    }
}

/// What [`Store::prune`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Pruned {
    /// Tasks removed with their attempts and events.
    pub tasks: u64,
    /// Work directories the caller should now delete (of removed tasks, and of passed tasks
    /// at once when asked).
    pub workdirs: Vec<String>,
}

/// Which tasks [`Store::list`] shows by where they stand, as a dashboard counts them: a paused
/// waiting task is `Paused`, never `Pending` or `RetryScheduled`, so the counts add up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Listed {
    /// Tasks in this state; for `pending` and `retry_scheduled`, only the unpaused ones.
    State(TaskState),
    /// Waiting tasks (pending or retry scheduled) a person paused.
    Paused,
}

/// What [`Store::list`] shows: filters, a search and a page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ListQuery {
    /// Only tasks standing so.
    pub state: Option<Listed>,
    /// Only tasks of this campaign.
    pub campaign: Option<String>,
    /// Only tasks of this provider.
    pub provider: Option<String>,
    /// Only tasks whose key, task text or reason contains this, ignoring case (ASCII case on
    /// SQLite, every script's on PostgreSQL).
    pub search: Option<String>,
    /// How many matching tasks to skip.
    pub offset: u64,
    /// How many to return at most.
    pub limit: u64,
}

/// One task of a [`ListPage`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedTask {
    /// The task.
    pub task: TaskRecord,
    /// For a running task, the worker that holds its current claim.
    pub worker: Option<String>,
    /// For a running task, when its current claim started.
    pub claimed_at: Option<i64>,
}

/// One page of [`Store::list`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ListPage {
    /// The tasks, most recently changed first (`updated_at`, then id, descending).
    pub tasks: Vec<ListedTask>,
    /// How many tasks match the query's filters and search, over every page.
    pub total: u64,
}

/// One row of a task's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HistoryRecord {
    /// When, by the database's clock.
    pub at: i64,
    /// What happened, in a word or two: added, paused, resumed, cancelled, cancel requested,
    /// retry, expired, rescued.
    pub action: String,
    /// Its detail: the guidance given, the reason, or who asked (an origin note).
    pub detail: Option<String>,
}

/// The campaigns and providers there are, for a dashboard's filters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Facets {
    /// Every campaign a task names, sorted.
    pub campaigns: Vec<String>,
    /// Every provider a task names, sorted.
    pub providers: Vec<String>,
}

/// What alerting watches, computed in the database.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Gauges {
    /// Pending tasks not paused.
    pub pending: u64,
    /// Scheduled retries not paused.
    pub retry_scheduled: u64,
    /// Waiting tasks (pending or retry scheduled) a person paused.
    pub paused: u64,
    /// Milliseconds since the oldest due, unpaused waiting task became due: a pending one when
    /// it last changed (added, handed back, sent back or resumed), a scheduled retry at its
    /// `next_retry_at`. `None` when none is due.
    pub oldest_due_ms: Option<i64>,
    /// Attempts taken back from a worker whose lease expired (outcome `interrupted`), in all.
    pub interrupted: u64,
    /// Ended attempts by outcome, sorted by outcome.
    pub outcomes: Vec<(String, u64)>,
}

/// A fleet's database. Both backends keep every clause of this contract; the integration
/// tests run one suite against each.
#[async_trait]
pub trait Store: Send + Sync {
    /// What the database is, for messages: the file, or the URL without its password.
    fn describe(&self) -> String;

    /// Adds the tasks that are new, in one transaction; a task whose key exists changes
    /// nothing. Returns, per task in order, its id and whether it was added now.
    async fn add(&self, tasks: &[NewTask]) -> Result<Vec<(TaskId, bool)>>;

    /// Sets the fleet-wide agent limits (slot rows are created or removed to match; a limit not
    /// named is left as it is; a limit of 0 slots removes the limit). An attempt holding a
    /// removed slot runs on to its end; no new claim gets that slot.
    async fn set_limits(&self, limits: &[AgentLimit]) -> Result<()>;

    /// Takes one due task for `worker`, in one transaction: first ends waiting tasks past their
    /// deadline or cost cap (`expired`), then picks the waiting task (pending, or retry scheduled
    /// and due) that is not paused, whose provider is not held and has a free slot (when
    /// limited), highest priority first, then the longest due; a task whose work directory is on
    /// another host than `worker.host` is not taken. It moves to `running` with a new lease
    /// token and `lease` from now, its claim row `(task, number)` is inserted, and a slot row is
    /// leased. A due task is taken by exactly one worker. The expiry may sweep every waiting
    /// task at most once a second (a scan of the queue); the task about to be taken is checked
    /// on every claim, so none past its deadline or cap ever runs.
    async fn claim(&self, worker: &WorkerId, lease: Duration) -> Result<Option<Claim>>;

    /// Renews the claim's lease (and its slot's) by `lease` from now, fenced by its token.
    /// `Lost` also when the claim's slot was given to another claim after its lease ran out
    /// (an agent limit is never exceeded by a late renewal); nothing is written then.
    async fn heartbeat(&self, claim: &Claim, lease: Duration) -> Result<LeaseState>;

    /// Records how the claim's attempt ended and moves the task, fenced by its token, in one
    /// transaction: the claim row, the task (state, attempts, next_retry_at, cost, workdir,
    /// branch, diff, reason, category; the lease cleared), the events, the slot released, the
    /// provider held when asked. A cancel asked while the attempt ran wins over a state that is
    /// not final: the task ends `cancelled`. `false`: the lease was lost, nothing was written.
    async fn finish(&self, claim: &Claim, end: &AttemptEnd) -> Result<bool>;

    /// Takes back every running task whose lease has expired: the claim recorded `interrupted`
    /// (not counted), the task due at once, its slot freed.
    async fn rescue(&self) -> Result<Vec<Rescued>>;

    /// Cancels, pauses or resumes the tasks `selector` names; returns how many changed. Each
    /// change is recorded in the task's history with when, and with `note` (who asked, e.g.
    /// `dashboard`) as its detail.
    async fn control(
        &self,
        selector: &Selector,
        control: Control,
        note: Option<&str>,
    ) -> Result<u64>;

    /// Sends an ended task back (escalated, failed, expired, cancelled) with a person's
    /// guidance: pending at once, its attempt count reset to 0 (its attempts granted anew), a
    /// deadline that has passed renewed for the span it had, the guidance kept for every later
    /// prompt (as `verdict loop --guide`) and recorded with when. Its cost so far stays.
    /// `false`: the task has not ended, or it passed.
    async fn retry(&self, task: &str, guidance: &str) -> Result<bool>;

    /// One task, by id or key.
    async fn task(&self, task: &str) -> Result<Option<TaskRecord>>;

    /// The tasks `selector` names, by id.
    async fn tasks(&self, selector: &Selector) -> Result<Vec<TaskRecord>>;

    /// The task's attempts, by number; every attempt when `task` is `None`.
    async fn attempts(&self, task: Option<TaskId>) -> Result<Vec<AttemptRecord>>;

    /// The task's stored events (NDJSON lines), in order.
    async fn events(&self, task: TaskId) -> Result<Vec<String>>;

    /// The task's stored diff against its start.
    async fn diff(&self, task: TaskId) -> Result<Option<String>>;

    /// Tasks by state, and when the next is due.
    async fn counts(&self) -> Result<Counts>;

    /// One page of the tasks `query` names, most recently changed first, with how many match
    /// in all; a running task carries its current claim's worker and start. One read.
    async fn list(&self, query: &ListQuery) -> Result<ListPage>;

    /// The task's history, oldest first.
    async fn history(&self, task: TaskId) -> Result<Vec<HistoryRecord>>;

    /// The campaigns and providers the tasks name.
    async fn facets(&self) -> Result<Facets>;

    /// Waiting tasks split, the age of the oldest due one, rescues and ended attempts by
    /// outcome, each counted by the database.
    async fn gauges(&self) -> Result<Gauges>;

    /// A short text that differs after every committed transition a dashboard shows (a task's
    /// state or flags, an attempt claimed or finished, its events, a history row, a provider
    /// held, tasks pruned), from any handle or process; it is a counter every such transaction
    /// bumps, read in one indexed row. Heartbeats do not change it (a lease renewed shows
    /// nothing new), nor do claims that find nothing, agent limits or campaign caps.
    async fn watermark(&self) -> Result<String>;

    /// Caps what the tasks of `campaign` may cost together, in US dollars (`None` lifts the
    /// cap); the campaign is created if it has no task yet. Its waiting tasks expire at the next
    /// claim once their agents' reported costs reach it.
    async fn set_campaign_cap(&self, campaign: &str, cap_usd: Option<f64>) -> Result<()>;

    /// Holds `agent` (a provider) for `hold` from now: no worker claims a task of it until then
    /// (a later hold already stored stays). A worker calls it the moment an agent reports a
    /// rate limit with a retry-after, while the attempt is still running.
    async fn hold(&self, agent: &str, hold: Duration) -> Result<()>;

    /// Providers held by a reported rate limit, with until when.
    async fn held(&self) -> Result<Vec<(String, i64)>>;

    /// Removes tasks that ended more than `age` ago (their attempts and events with them), and
    /// with `passed_workdirs`, clears the work directory of every passed task at once (escalated
    /// ones keep theirs until removed). Returns what the caller should delete on disk.
    async fn prune(&self, age: Duration, passed_workdirs: bool) -> Result<Pruned>;
}
