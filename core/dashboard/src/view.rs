//! What a page shows, as plain data: a [`Source`](crate::Source) reads it from a database and
//! the renderers turn it into HTML. Every text that came from a task, an agent or a tool is a
//! [`Redacted`], which can only be made by redacting: no secret reaches a page.

use std::fmt;

use serde::Serialize;

/// Text that has passed verdict's redaction. The only way to make one is [`Redacted::new`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Redacted(String);

impl Redacted {
    /// `text` with every secret replaced by `[redacted:<kind>]`.
    pub fn new(text: &str) -> Redacted {
        Redacted(verdict_core::redact::redact(text).into_owned())
    }

    /// The redacted text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What the database holds: a fleet's queue, or the runs of `verdict loop` in one workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A fleet database (SQLite or PostgreSQL): tasks, workers, agent limits.
    Fleet,
    /// A workspace's state database: the runs of `verdict loop`.
    Loop,
}

/// Where a task stands, as the page shows it: the fleet's states, plus `paused` (a waiting
/// task a person paused) and `interrupted` (a loop run whose process stopped; it waits to be
/// resumed). Each has a name, a colour and a word, never a colour alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Added, never run, due now.
    Pending,
    /// An attempt runs.
    Running,
    /// An attempt failed; the next is due at a time.
    RetryScheduled,
    /// A waiting task a person paused.
    Paused,
    /// A loop run whose process stopped; it waits to be resumed.
    Interrupted,
    /// Verified green.
    Passed,
    /// Handed to a person.
    Escalated,
    /// Ended without a pass.
    Failed,
    /// Past its deadline or cost cap.
    Expired,
    /// Cancelled by a person.
    Cancelled,
}

impl State {
    /// Every state, in the order the page lists them.
    pub const ALL: [State; 10] = [
        State::Pending,
        State::Running,
        State::RetryScheduled,
        State::Paused,
        State::Interrupted,
        State::Passed,
        State::Escalated,
        State::Failed,
        State::Expired,
        State::Cancelled,
    ];

    /// The name in URLs, filters and `/metrics`.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Running => "running",
            State::RetryScheduled => "retry_scheduled",
            State::Paused => "paused",
            State::Interrupted => "interrupted",
            State::Passed => "passed",
            State::Escalated => "escalated",
            State::Failed => "failed",
            State::Expired => "expired",
            State::Cancelled => "cancelled",
        }
    }

    /// The words a person reads.
    pub fn label(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Running => "running",
            State::RetryScheduled => "retry scheduled",
            State::Paused => "paused",
            State::Interrupted => "interrupted",
            State::Passed => "passed",
            State::Escalated => "escalated",
            State::Failed => "failed",
            State::Expired => "expired",
            State::Cancelled => "cancelled",
        }
    }

    /// The state a URL names.
    pub fn parse(name: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether the task has ended.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            State::Passed | State::Escalated | State::Failed | State::Expired | State::Cancelled
        )
    }
}

/// What the queue page asks for: filters, a search, a page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueQuery {
    /// Only tasks in this state.
    pub state: Option<State>,
    /// Only tasks of this campaign.
    pub campaign: Option<String>,
    /// Only tasks of this agent (provider).
    pub agent: Option<String>,
    /// Only tasks whose key, task text or reason contains this (case-insensitive).
    pub search: Option<String>,
    /// The page, from 0.
    pub page: u32,
    /// Tasks per page.
    pub per_page: u32,
}

/// One line of the queue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskRow {
    /// The task's id in its database (a fleet task's id, a loop run's id).
    pub id: String,
    /// Its key (a fleet task's idempotency key; a loop run's task hash).
    pub key: Redacted,
    /// The first line of its task text, cut to a bound.
    pub title: Redacted,
    /// Where it stands.
    pub state: State,
    /// Its campaign.
    pub campaign: Option<Redacted>,
    /// The agent (a fleet's provider name, a loop's agent command).
    pub agent: Redacted,
    /// Attempts that counted so far.
    pub attempts: u32,
    /// Attempts allowed, where known.
    pub max_attempts: Option<u32>,
    /// When the next attempt is due (retry scheduled).
    pub next_retry_at: Option<i64>,
    /// Why it stands where it does, in one line.
    pub reason: Option<Redacted>,
    /// The category of its last failure.
    pub category: Option<String>,
    /// The worker running it (running).
    pub worker: Option<Redacted>,
    /// Since when it runs (running).
    pub running_since: Option<i64>,
    /// When it last changed (ms since the Unix epoch).
    pub updated_at: i64,
}

/// An agent held by a reported rate limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hold {
    /// The agent (provider).
    pub agent: String,
    /// Until when (ms since the Unix epoch).
    pub until: i64,
}

/// The queue page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueueView {
    /// Tasks per state, every state of [`State::ALL`] present (zero included).
    pub counts: Vec<(State, u64)>,
    /// The campaigns there are, for the filter.
    pub campaigns: Vec<String>,
    /// The agents there are, for the filter.
    pub agents: Vec<String>,
    /// The page of tasks the query names, most recently changed first.
    pub rows: Vec<TaskRow>,
    /// How many tasks the query's filters match in all.
    pub total: u64,
    /// Agents held by a rate limit now.
    pub held: Vec<Hold>,
}

/// One attempt of a task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttemptView {
    /// Its number.
    pub number: u32,
    /// The agent that ran.
    pub agent: Option<Redacted>,
    /// The worker that ran it (fleets).
    pub worker: Option<Redacted>,
    /// When it started.
    pub started_at: i64,
    /// When it ended (`None`: it runs).
    pub finished_at: Option<i64>,
    /// Milliseconds in agent sessions.
    pub agent_ms: u64,
    /// Milliseconds in verification.
    pub verify_ms: u64,
    /// How it ended in one word (passed, failed, escalated, interrupted…).
    pub outcome: Option<String>,
    /// Whether it counted against the attempts allowed.
    pub counted: bool,
    /// Why, in one line.
    pub reason: Option<Redacted>,
    /// The failure's category.
    pub category: Option<String>,
    /// The failures' fingerprints.
    pub fingerprints: Vec<Redacted>,
    /// The digest the next prompt carried.
    pub digest: Option<Redacted>,
    /// The delay scheduled after it, in milliseconds.
    pub retry_delay_ms: Option<u64>,
    /// Tokens the agent reported.
    pub tokens: Option<u64>,
    /// What the agent reported it cost, in US dollars.
    pub cost_usd: Option<f64>,
}

/// One entry of a task's history: added, cancelled, paused, resumed, sent back with guidance…
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryEntry {
    /// When (ms since the Unix epoch).
    pub at: i64,
    /// What happened, in one word.
    pub action: String,
    /// Its detail (the guidance given, a reason).
    pub detail: Option<Redacted>,
}

/// The task page: the task, its timeline and what its agent left.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskView {
    /// The task as its queue line shows it.
    pub row: TaskRow,
    /// The whole task text.
    pub text: Redacted,
    /// The workspace it runs on.
    pub workspace: Redacted,
    /// Its work directory.
    pub workdir: Option<Redacted>,
    /// The branch holding what the agent changed.
    pub branch: Option<Redacted>,
    /// The guidance every later prompt carries.
    pub guidance: Option<Redacted>,
    /// What its agents cost so far, where they report it.
    pub cost_usd: Option<f64>,
    /// When it must have ended.
    pub deadline_at: Option<i64>,
    /// Its attempts, by number.
    pub attempts: Vec<AttemptView>,
    /// What people and the queue did to it, in order.
    pub history: Vec<HistoryEntry>,
    /// The diff the agent left, against the task's start (cut to a bound).
    pub diff: Option<Redacted>,
    /// Whether a person may send it back with guidance (it ended without passing).
    pub can_retry: bool,
}

/// One bar of a grouping: tasks or attempts of a category, an agent or a campaign.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    /// The category, agent or campaign.
    pub name: String,
    /// Attempts in it.
    pub attempts: u64,
    /// Tasks in it.
    pub tasks: u64,
    /// Its tasks that ended.
    pub finished: u64,
    /// Its tasks that passed.
    pub passed: u64,
    /// Passed of finished, where any finished.
    pub success_rate: Option<f64>,
    /// Mean attempts of its passed tasks.
    pub attempts_to_success: Option<f64>,
}

/// A failure that keeps coming back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fingerprint {
    /// The failure, without line numbers.
    pub text: Redacted,
    /// How many attempts failed on it.
    pub occurrences: u64,
    /// How many tasks.
    pub tasks: u64,
    /// How many of those tasks it stayed unfixed in.
    pub unfixed: u64,
}

/// The analytics page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analytics {
    /// Tasks in all.
    pub tasks: u64,
    /// Tasks that ended.
    pub finished: u64,
    /// Passed of finished.
    pub success_rate: Option<f64>,
    /// Attempts in all.
    pub attempts: u64,
    /// Failed attempts by category, most first.
    pub by_category: Vec<Group>,
    /// Per agent.
    pub by_agent: Vec<Group>,
    /// Per campaign.
    pub by_campaign: Vec<Group>,
    /// The most common failures.
    pub fingerprints: Vec<Fingerprint>,
    /// Mean attempts to success over passed tasks.
    pub attempts_to_success: Option<f64>,
    /// Milliseconds in agent sessions, over every attempt.
    pub agent_ms: u64,
    /// Milliseconds in verification, over every attempt.
    pub verify_ms: u64,
    /// Agents held by a rate limit now.
    pub held: Vec<Hold>,
    /// When the figures were computed (ms since the Unix epoch): a large fleet's are
    /// recomputed in the background after a change, so they can be a few seconds old.
    pub as_of: i64,
}

/// What `/metrics` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    /// Tasks per state, every state of [`State::ALL`] present.
    pub by_state: Vec<(State, u64)>,
    /// Milliseconds since the oldest due task (pending or retry scheduled and due, not
    /// paused) became due; `None` when none is due.
    pub oldest_due_ms: Option<i64>,
    /// Attempts taken back from a worker whose lease expired (or, for loops, interrupted).
    pub rescues: u64,
    /// Agents held by a rate limit now.
    pub held: Vec<Hold>,
    /// Ended attempts by outcome (passed, failed, escalated, interrupted…).
    pub attempts_by_outcome: Vec<(String, u64)>,
}

/// Which tasks an action names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One task, by id.
    Task(String),
    /// Every task of a campaign.
    Campaign(String),
    /// Every task of an agent.
    Agent(String),
}

/// What a person asks from the page (with `--allow-actions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send an ended task back with guidance for its next prompt.
    Retry {
        /// The task's id.
        task: String,
        /// The guidance, as `--guide` takes it.
        guidance: String,
    },
    /// Cancel the tasks.
    Cancel(Target),
    /// Pause them.
    Pause(Target),
    /// Resume them.
    Resume(Target),
}

/// What an action did, for the message the page shows after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActionDone {
    /// How many tasks changed.
    pub changed: u64,
    /// One line a person reads ("2 tasks paused", "task 7 sent back with guidance").
    pub message: String,
}
