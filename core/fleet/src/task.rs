//! What a task is: the line `verdict fleet add` reads, its idempotency key, and the task as
//! stored.

use serde::{Deserialize, Serialize};

use crate::error::{FleetError, Result};

/// A task's id in its fleet database.
pub type TaskId = i64;

/// One line of `verdict fleet add --file tasks.jsonl`, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskLine {
    key: Option<String>,
    workspace: String,
    rev: Option<String>,
    setup: Option<String>,
    task: Option<String>,
    task_file: Option<String>,
    /// One command, or a list to cycle through; read by hand so a wrong shape gets a clear
    /// message.
    agent: serde_json::Value,
    max_attempts: Option<u32>,
    #[serde(default)]
    only: Vec<String>,
    campaign: Option<String>,
    #[serde(default)]
    priority: i32,
    /// Seconds from when the task is added until it must have ended.
    deadline_secs: Option<u64>,
    /// The most the task's agents may cost, in US dollars, as the agents report it.
    cost_cap_usd: Option<f64>,
}

/// A task to add, complete: its key given or derived, its task text read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewTask {
    /// The idempotency key: adding a key that exists changes nothing.
    pub key: String,
    /// A local directory, or a git repository's URL or path (checked out per task when `rev` is
    /// given or it is not a local directory).
    pub workspace: String,
    /// The revision to check out into a fresh work directory.
    pub rev: Option<String>,
    /// A command run in a fresh work directory before the first attempt, split into words as a
    /// shell would (nothing expanded).
    pub setup: Option<String>,
    /// The task text.
    pub task: String,
    /// The agents, as `verdict loop --agent` takes them (a preset name or a command line).
    pub agents: Vec<String>,
    /// Attempts in all (`None`: the loop's default).
    pub max_attempts: Option<u32>,
    /// Verify with only these verifiers (empty: every one that applies).
    pub only: Vec<String>,
    /// The campaign the task belongs to.
    pub campaign: Option<String>,
    /// Higher runs first.
    pub priority: i32,
    /// Seconds from adding until the task must have ended.
    pub deadline_secs: Option<u64>,
    /// The most its agents may cost, in US dollars.
    pub cost_cap_usd: Option<f64>,
}

impl NewTask {
    /// Reads one JSONL line; `read_file` reads a `task_file` (relative to the tasks file).
    pub fn from_line(
        line: &str,
        read_file: impl FnOnce(&str) -> Result<String>,
    ) -> Result<NewTask> {
        let line: TaskLine = serde_json::from_str(line)
            .map_err(|error| FleetError::Invalid(format!("not a task line: {error}")))?;
        let task = match (line.task, line.task_file) {
            (Some(text), None) => text,
            (None, Some(file)) => read_file(&file)?,
            (Some(_), Some(_)) => {
                return Err(FleetError::Invalid(
                    "a task line has either `task` or `task_file`, not both".into(),
                ));
            }
            (None, None) => {
                return Err(FleetError::Invalid(
                    "a task line needs `task` or `task_file`".into(),
                ));
            }
        };
        let agents = match line.agent {
            serde_json::Value::String(agent) => vec![agent],
            serde_json::Value::Array(list) => list
                .into_iter()
                .map(|a| match a {
                    serde_json::Value::String(agent) => Ok(agent),
                    other => Err(FleetError::Invalid(format!(
                        "`agent` lists commands as strings, not {other}"
                    ))),
                })
                .collect::<Result<_>>()?,
            other => {
                return Err(FleetError::Invalid(format!(
                    "`agent` is a command or a list of commands, not {other}"
                )));
            }
        };
        if agents.is_empty() || agents.iter().any(|a| a.trim().is_empty()) {
            return Err(FleetError::Invalid("a task line needs an agent".into()));
        }
        if task.trim().is_empty() {
            return Err(FleetError::Invalid("a task's text is empty".into()));
        }
        if line.workspace.trim().is_empty() {
            return Err(FleetError::Invalid("a task line needs a workspace".into()));
        }
        if line.max_attempts == Some(0) {
            return Err(FleetError::Invalid("max_attempts is at least 1".into()));
        }
        let mut new = NewTask {
            key: String::new(),
            workspace: line.workspace,
            rev: line.rev,
            setup: line.setup,
            task,
            agents,
            max_attempts: line.max_attempts,
            only: line.only,
            campaign: line.campaign,
            priority: line.priority,
            deadline_secs: line.deadline_secs,
            cost_cap_usd: line.cost_cap_usd,
        };
        new.key = match line.key {
            Some(key) if !key.trim().is_empty() => key,
            Some(_) => return Err(FleetError::Invalid("a task's key is empty".into())),
            None => new.derived_key(),
        };
        Ok(new)
    }

    /// The key of a task given none: a hash of what it asks for (workspace, revision, setup,
    /// task, agents, verifiers, campaign), so the same line added twice is one task.
    pub fn derived_key(&self) -> String {
        let content = serde_json::json!([
            self.workspace,
            self.rev,
            self.setup,
            self.task,
            self.agents,
            self.only,
            self.campaign,
        ]);
        let hash = blake3::hash(content.to_string().as_bytes());
        format!("sha-{}", &hash.to_hex()[..16])
    }

    /// The agent whose limits and rate-limit holds apply to the task: its first agent's first
    /// word (`claude` for `claude -p …`), which names the provider for the fleet's limits.
    pub fn provider(&self) -> String {
        provider_of(&self.agents)
    }
}

/// The provider name of a list of agents (see [`NewTask::provider`]).
pub fn provider_of(agents: &[String]) -> String {
    let first = agents.first().map(String::as_str).unwrap_or_default();
    let word = first.split_whitespace().next().unwrap_or_default();
    word.rsplit('/').next().unwrap_or(word).to_owned()
}

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Added, never run, due now.
    Pending,
    /// A worker holds its lease and runs an attempt.
    Running,
    /// An attempt failed; the next is due at `next_retry_at`.
    RetryScheduled,
    /// Verified green.
    Passed,
    /// Handed to a person (the loop escalated).
    Escalated,
    /// Ended without a pass: attempts spent, blocked by a policy, or a failed agent session.
    Failed,
    /// Past its deadline or its cost cap.
    Expired,
    /// Cancelled by a person.
    Cancelled,
}

impl TaskState {
    /// Every state, in the order status lists them.
    pub const ALL: [TaskState; 8] = [
        TaskState::Pending,
        TaskState::Running,
        TaskState::RetryScheduled,
        TaskState::Passed,
        TaskState::Escalated,
        TaskState::Failed,
        TaskState::Expired,
        TaskState::Cancelled,
    ];

    /// The name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Pending => "pending",
            TaskState::Running => "running",
            TaskState::RetryScheduled => "retry_scheduled",
            TaskState::Passed => "passed",
            TaskState::Escalated => "escalated",
            TaskState::Failed => "failed",
            TaskState::Expired => "expired",
            TaskState::Cancelled => "cancelled",
        }
    }

    /// The state a stored name names.
    pub fn parse(name: &str) -> Option<TaskState> {
        TaskState::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether the task has ended (nothing more runs unless a person sends it back).
    pub fn is_final(self) -> bool {
        matches!(
            self,
            TaskState::Passed
                | TaskState::Escalated
                | TaskState::Failed
                | TaskState::Expired
                | TaskState::Cancelled
        )
    }
}

impl std::fmt::Display for TaskState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task as stored. Times are milliseconds since the Unix epoch, by the database's clock.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskRecord {
    /// Its id.
    pub id: TaskId,
    /// What it was added as.
    #[serde(flatten)]
    pub spec: NewTask,
    /// Where it stands.
    pub state: TaskState,
    /// Paused: not claimed until resumed (a running attempt finishes first).
    pub paused: bool,
    /// A person asked to cancel it while it ran; its worker stops the agent.
    pub cancel_requested: bool,
    /// Attempts that count against `max_attempts` (interrupted ones do not).
    pub attempts: u32,
    /// When the next attempt is due (`retry_scheduled`; `pending` tasks are due at once).
    pub next_retry_at: Option<i64>,
    /// The task's work directory, once prepared.
    pub workdir: Option<String>,
    /// The branch in the task's repository that holds what its agent changed.
    pub branch: Option<String>,
    /// A person's guidance for the next attempt (`verdict fleet retry --guide`).
    pub guidance: Option<String>,
    /// Why it stands where it does, in one line (the last attempt's outcome, a cancel…).
    pub reason: Option<String>,
    /// The category of the last failed attempt.
    pub last_category: Option<String>,
    /// What its agents cost so far, in US dollars, where they report it.
    pub cost_usd: f64,
    /// When it must have ended.
    pub deadline_at: Option<i64>,
    /// The host that holds its work directory: its later attempts run there (unless its work was
    /// pushed as a branch another host can check out).
    pub host: Option<String>,
    /// When it was added.
    pub created_at: i64,
    /// When it last changed.
    pub updated_at: i64,
    /// When it reached a final state.
    pub finished_at: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Result<NewTask> {
        NewTask::from_line(text, |file| Ok(format!("from {file}")))
    }

    #[test]
    fn a_line_without_a_key_gets_the_same_key_each_time() {
        let text = r#"{"workspace": "repo", "task": "fix it", "agent": "claude"}"#;
        let (a, b) = (line(text).expect("a task"), line(text).expect("a task"));
        assert_eq!(a.key, b.key);
        let other = line(r#"{"workspace": "repo", "task": "fix that", "agent": "claude"}"#);
        assert_ne!(a.key, other.expect("a task").key);
    }

    #[test]
    fn a_line_reads_its_task_file_and_takes_several_agents() {
        let task = line(
            r#"{"key": "k1", "workspace": "repo", "task_file": "t.md", "agent": ["claude -p", "codex"], "priority": 5}"#,
        )
        .expect("a task");
        assert_eq!(task.key, "k1");
        assert_eq!(task.task, "from t.md");
        assert_eq!(task.agents, ["claude -p", "codex"]);
        assert_eq!(task.provider(), "claude");
        assert_eq!(task.priority, 5);
    }

    #[test]
    fn a_line_missing_what_a_task_needs_is_refused() {
        for text in [
            r#"{"workspace": "repo", "agent": "claude"}"#,
            r#"{"workspace": "repo", "task": "x", "task_file": "y", "agent": "claude"}"#,
            r#"{"workspace": "repo", "task": "x", "agent": []}"#,
            r#"{"workspace": "repo", "task": "x", "agent": "a", "max_attempts": 0}"#,
            r#"{"workspace": "repo", "task": "x", "agent": "a", "colour": "red"}"#,
        ] {
            assert!(line(text).is_err(), "{text}");
        }
    }
}
