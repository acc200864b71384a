//! The loop's events: every state transition and retry decision, one variant of [`Event`] each.
//!
//! An event is stored in the state database (so `verdict history` and a resumed run see it), handed
//! to the caller's sink (the CLI writes NDJSON to `--events FILE` or stdout, and drives its progress
//! view from them), and logged as a `tracing` event inside the run's span.
//!
//! Each line of the NDJSON stream is `{"event": <kind>, "run": <id>, "time_ms": <ms since the
//! epoch>, …fields}`, the fields in the order of their names; docs/loop.md lists the fields of each
//! kind. The database keeps the kind in a column of its own and the fields as a JSON object, the
//! format every run so far was stored in: [`Event::from_stored`] reads both back.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::agent_loop::agent::{PoolEnd, RetryAction, RetryRecord, SessionOutcome};
use crate::agent_loop::classify::{Category, FailureSet};
use crate::model::{Kind, Outcome, Report, Status, Verification};
use crate::state::{RunId, RunState, StoppedAttempt};
use crate::verifier::Exit;

/// One event of a run, tagged with its kind (`"event": "attempt_started"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A run was created.
    RunStarted {
        /// The task's hash, which a later `verdict loop` of the same task finds the run by.
        task_hash: String,
        /// The workspace root.
        workspace: String,
        /// The run's configuration: agents, max_attempts, options, and `settings` (what
        /// `--resume` goes on with).
        config: Value,
    },
    /// An unfinished run was picked up again.
    RunResumed {
        /// The state it was found in.
        was: RunState,
        /// The attempts that had not finished, and what stopping their agent found.
        stopped: Vec<Stopped>,
        /// The number of the next attempt.
        next_attempt: u32,
        /// The attempt verified first, when its agent had finished and its verification was never
        /// recorded.
        unverified: Option<u32>,
        /// The run's new configuration when flags given to the resuming command changed it.
        config: Option<Value>,
    },
    /// The starting tree was recorded.
    Checkpoint {
        /// The starting tree's id.
        tree: String,
    },
    /// The baseline verification of the starting tree finished.
    BaselineFinished(BaselineRecord),
    /// An attempt's agent session is about to start.
    AttemptStarted {
        /// Its number.
        attempt: u32,
        /// The number of the run's last attempt: `max_attempts` plus the interrupted ones.
        of: u32,
        /// Attempts that counted before it.
        judged_before: u32,
        /// The agent it starts with.
        agent: String,
        /// The prompt's size in tokens.
        prompt_tokens: u64,
    },
    /// The inner layer retried the agent session.
    AgentRetry(AgentRetry),
    /// The attempt's agent session ended.
    AgentFinished(AgentFinished),
    /// The workspace was restored to the starting tree before an attempt (`--reset`).
    WorkspaceReset {
        /// The attempt about to start.
        attempt: u32,
        /// The tree restored.
        tree: String,
        /// Paths written back: changed, deleted or changed in type since the tree.
        restored: usize,
        /// Paths removed: added since the tree.
        removed: usize,
    },
    /// An attempt that passed had changed test infrastructure: the starting tree's version of it
    /// was put back in the workspace, to verify once more (stored before the first file is
    /// written, so a resumed run restores the attempt's tree).
    InfraPutBack {
        /// The attempt.
        attempt: u32,
        /// The attempt's tree, restored afterwards.
        tree: String,
        /// Each file put back and what the attempt had changed in it.
        files: Vec<InfraChange>,
    },
    /// The attempt's versions of the files were written back after the verification with the
    /// starting tree's infrastructure.
    InfraRestored {
        /// The attempt.
        attempt: u32,
        /// Whether the tests passed with the starting tree's infrastructure; absent when a resumed
        /// run restored the files of a verification that was cut short.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        passed: Option<bool>,
    },
    /// An attempt's verification finished.
    VerificationFinished(VerifiedRecord),
    /// Another attempt follows.
    RetryScheduled(ScheduledRecord),
    /// The attempts are spent.
    RetryExhausted {
        /// The attempt judged last; absent when the run found its attempts spent before any
        /// judgement (on resume).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attempt: Option<u32>,
        /// Why.
        reason: String,
    },
    /// The loop escalated to a person.
    Escalated {
        /// The attempt judged last.
        attempt: u32,
        /// Why.
        reason: String,
        /// The escalation command and how it ended.
        escalation: Escalation,
    },
    /// A policy blocked the run.
    Blocked {
        /// The attempt judged last.
        attempt: u32,
        /// Why.
        reason: String,
    },
    /// The run ended, or was interrupted.
    RunFinished {
        /// Its state now: terminal, or `interrupted`.
        state: RunState,
        /// Why, in one line.
        reason: String,
        /// The caller's exit code of the run's end ([`LoopParts::exit_code`](super::LoopParts)):
        /// the CLI's, so that the event says what the process exits with.
        exit_code: u8,
        /// Attempts that counted; absent for an interrupted run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attempts: Option<u32>,
    },
}

impl Event {
    /// The kind's snake_case name, as stored and streamed.
    pub fn name(&self) -> &'static str {
        match self {
            Event::RunStarted { .. } => "run_started",
            Event::RunResumed { .. } => "run_resumed",
            Event::Checkpoint { .. } => "checkpoint",
            Event::BaselineFinished(_) => "baseline_finished",
            Event::AttemptStarted { .. } => "attempt_started",
            Event::AgentRetry(_) => "agent_retry",
            Event::AgentFinished(_) => "agent_finished",
            Event::WorkspaceReset { .. } => "workspace_reset",
            Event::InfraPutBack { .. } => "infra_put_back",
            Event::InfraRestored { .. } => "infra_restored",
            Event::VerificationFinished(_) => "verification_finished",
            Event::RetryScheduled(_) => "retry_scheduled",
            Event::RetryExhausted { .. } => "retry_exhausted",
            Event::Escalated { .. } => "escalated",
            Event::Blocked { .. } => "blocked",
            Event::RunFinished { .. } => "run_finished",
        }
    }

    /// The attempt the event is about, for the kinds that name one.
    pub fn attempt(&self) -> Option<u32> {
        match self {
            Event::AttemptStarted { attempt, .. }
            | Event::WorkspaceReset { attempt, .. }
            | Event::InfraPutBack { attempt, .. }
            | Event::InfraRestored { attempt, .. }
            | Event::Escalated { attempt, .. }
            | Event::Blocked { attempt, .. } => Some(*attempt),
            Event::AgentFinished(finished) => Some(finished.attempt),
            Event::VerificationFinished(verified) => Some(verified.attempt),
            Event::RetryExhausted { attempt, .. } => *attempt,
            _ => None,
        }
    }

    /// The event's fields as a JSON object, without its kind: what the database stores.
    pub fn fields(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(mut fields)) => {
                fields.remove("event");
                fields
            }
            // Every variant is a struct or a newtype of one, with string keys: always an object.
            _ => Map::new(),
        }
    }

    /// An event as the database stores it: its kind, and its fields as a JSON object.
    pub fn from_stored(kind: &str, fields: &Value) -> Result<Event, serde_json::Error> {
        let mut object = match fields {
            Value::Object(fields) => fields.clone(),
            _ => Map::new(),
        };
        object.insert("event".into(), Value::from(kind));
        serde_json::from_value(Value::Object(object))
    }

    /// The event as streamed: the baseline's reports (every diagnostic of the starting tree) are
    /// kept in the database for a resumed run's guard; the stream carries the figures, not
    /// megabytes of reports.
    pub(crate) fn for_stream(&self) -> Event {
        match self {
            Event::BaselineFinished(baseline) => Event::BaselineFinished(BaselineRecord {
                reports: Vec::new(),
                ..baseline.clone()
            }),
            other => other.clone(),
        }
    }
}

/// One file of test infrastructure put back, in an `infra_put_back` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InfraChange {
    /// The path, relative to the workspace root.
    pub path: String,
    /// What the attempt had changed in it (`added`, `` `jest` changed to … ``).
    pub what: String,
}

/// An attempt found unfinished on resume, in a `run_resumed` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    /// Its number.
    pub attempt: u32,
    /// What stopping its recorded process group found (`gone`, `reused`, `terminated`, `killed`);
    /// `None` when no process was recorded.
    pub outcome: Option<String>,
}

impl Stopped {
    /// The event's view of an attempt stopped on resume.
    pub fn of(stopped: &StoppedAttempt) -> Stopped {
        let outcome = stopped.outcome.and_then(|outcome| {
            serde_json::to_value(outcome)
                .ok()
                .and_then(|name| name.as_str().map(str::to_owned))
        });
        Stopped {
            attempt: stopped.number,
            outcome,
        }
    }
}

/// The baseline verification, in its `baseline_finished` event.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BaselineRecord {
    /// The starting tree's overall outcome.
    pub outcome: Outcome,
    /// The failures it already had.
    pub failures: FailureSet,
    /// How many tests ran, when a test verifier said.
    pub tests_run: Option<u64>,
    /// The reports themselves: stored for a resumed run (its guard and known failures), left out
    /// of the stream.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reports: Vec<StoredReport>,
}

/// A verification's parts the loop needs again after a resume (the guard's test counts, the known
/// failures' fingerprints).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredReport {
    /// The verifier's name.
    pub verifier: String,
    /// What sort of verifier.
    pub kind: Kind,
    /// Whether it ran.
    pub status: Status,
    /// What it reported.
    pub report: Report,
}

impl StoredReport {
    /// The parts of `verification` to store.
    pub fn of(verification: &Verification) -> StoredReport {
        StoredReport {
            verifier: verification.verifier.clone(),
            kind: verification.kind,
            status: verification.status,
            report: verification.report.clone(),
        }
    }

    /// The verification again, without its command, log, duration or notes.
    pub fn to_verification(&self) -> Verification {
        Verification {
            verifier: self.verifier.clone(),
            kind: self.kind,
            status: self.status,
            report: self.report.clone(),
            command: None,
            log: None,
            duration: std::time::Duration::ZERO,
            notes: Vec::new(),
        }
    }
}

/// One retry decision of the inner layer, in an `agent_retry` event.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AgentRetry {
    /// Which retry of the run this is (1-based).
    pub retry: u32,
    /// The agent whose session failed.
    pub agent: String,
    /// How it failed (`outcome`, and `retry_after_ms` when the agent printed one).
    #[serde(flatten)]
    pub outcome: SessionOutcome,
    /// What the pool does about it.
    pub action: RetryAction,
    /// The agent run next.
    pub next_agent: String,
    /// How long the pool waits first, in ms.
    pub delay_ms: u64,
    /// Whether the wait is because every agent was limited.
    pub all_limited: bool,
}

impl AgentRetry {
    /// The event's view of the pool's decision.
    pub fn of(retry: &RetryRecord) -> AgentRetry {
        AgentRetry {
            retry: retry.retry,
            agent: retry.agent.clone(),
            outcome: retry.outcome.clone(),
            action: retry.action,
            next_agent: retry.next_agent.clone(),
            delay_ms: retry.delay.as_millis() as u64,
            all_limited: retry.all_limited,
        }
    }
}

/// The end of an attempt's agent session, in an `agent_finished` event.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AgentFinished {
    /// The attempt.
    pub attempt: u32,
    /// The agent that ran the last session, recorded as the attempt's agent.
    pub agent: String,
    /// How the last session ended, by name (`success`, `timeout` …).
    pub outcome: String,
    /// How the last session ended, with its details.
    pub session: SessionOutcome,
    /// How many sessions ran (1 + retries).
    pub sessions: u32,
    /// Why the pool stopped.
    pub end: PoolEnd,
    /// The last session's duration in ms.
    pub duration_ms: u64,
    /// Whether the workspace changed during the attempt.
    pub workspace_changed: bool,
    /// The tree the attempt left, when snapshots are available.
    pub tree: Option<String>,
    /// The last session's log.
    pub log: String,
    /// Set when the failed session was judged as a failed attempt (`session_failures = "retry"`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub judged: bool,
    /// The failed session as the judged attempt's record, when `judged`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub as_failure: Option<VerifiedRecord>,
}

/// An attempt's verification, judged, in its `verification_finished` event.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VerifiedRecord {
    /// The attempt.
    pub attempt: u32,
    /// The overall outcome, after flaky and known failures were set aside and the guard ran.
    pub outcome: Outcome,
    /// Whether the attempt counts as verified green.
    pub passed: bool,
    /// The failure's category, when it failed.
    pub category: Option<Category>,
    /// How sure the classification is.
    pub confidence: Option<f32>,
    /// The main location of the failure.
    pub location: Option<String>,
    /// One line about the verification.
    pub summary: String,
    /// The failures that count.
    pub failures: FailureSet,
    /// Failures that came and went.
    pub flaky: FailureSet,
    /// Failures set aside because the baseline had them.
    pub known: usize,
    /// Whether the attempt left the workspace as it found it.
    pub no_op: bool,
    /// The tree verified, when snapshots are available.
    pub tree: Option<String>,
    /// The digest's size in tokens.
    pub digest_tokens: usize,
    /// The verification this one was answered from, with nothing run (`baseline`,
    /// `attempt 2`): the tree had not changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_from: Option<String>,
}

/// What a retry decided for the next prompt, in its `retry_scheduled` event.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ScheduledRecord {
    /// The next attempt's number.
    pub next: u32,
    /// The wait before it, in ms.
    pub delay_ms: u64,
    /// The category's guidance for the next prompt.
    pub guidance: String,
    /// Whether the next prompt asks for a fresh look (the same failure came back).
    pub refresh: bool,
    /// Whether the next attempt is the last.
    pub last: bool,
    /// A person's guidance, asked for between attempts (`--interactive`).
    pub human: Option<String>,
}

/// The escalation command and how it ended, in an `escalated` event.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Escalation {
    /// The command; `None` when none is configured.
    pub command: Option<Vec<String>>,
    /// Why it could not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<Exit>,
    /// Whether it exited 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// Its log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

/// One event of a run, with the run it belongs to and when it happened.
#[derive(Debug, Clone)]
pub struct LoopEvent {
    /// The run it belongs to.
    pub run: RunId,
    /// When, in ms since the Unix epoch.
    pub time_ms: i64,
    /// What happened.
    pub event: Event,
}

impl LoopEvent {
    /// The event as one JSON object: `event`, `run`, `time_ms` and the event's fields.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("event".into(), Value::from(self.event.name()));
        object.insert("run".into(), Value::from(self.run.0));
        object.insert("time_ms".into(), Value::from(self.time_ms));
        for (key, value) in self.event.fields() {
            object.entry(key).or_insert(value);
        }
        Value::Object(object)
    }

    /// The event as one NDJSON line, without the newline: `event`, `run` and `time_ms` first (so a
    /// reader of the raw stream sees what an event is at its start), then the event's fields.
    pub fn to_line(&self) -> String {
        let mut line = format!(
            "{{\"event\":\"{}\",\"run\":{},\"time_ms\":{}",
            self.event.name(),
            self.run.0,
            self.time_ms
        );
        for (key, value) in self.event.fields() {
            if matches!(key.as_str(), "run" | "time_ms") {
                continue;
            }
            line.push(',');
            line.push_str(&Value::from(key).to_string());
            line.push(':');
            line.push_str(&value.to_string());
        }
        line.push('}');
        line
    }
}

/// Told every event as it happens (after it is stored).
pub type EventSink = Box<dyn FnMut(&LoopEvent) + Send>;

#[cfg(test)]
mod tests {
    use super::*;

    fn scheduled() -> Event {
        Event::RetryScheduled(ScheduledRecord {
            next: 2,
            delay_ms: 0,
            guidance: String::new(),
            refresh: false,
            last: true,
            human: None,
        })
    }

    #[test]
    fn lines_put_the_kind_run_and_time_first_then_the_fields_by_name() {
        let event = LoopEvent {
            run: RunId(7),
            time_ms: 1_000,
            event: scheduled(),
        };
        assert_eq!(
            event.to_line(),
            r#"{"event":"retry_scheduled","run":7,"time_ms":1000,"delay_ms":0,"guidance":"","human":null,"last":true,"next":2,"refresh":false}"#
        );
        // The line is the JSON object, field for field.
        let parsed: Value = serde_json::from_str(&event.to_line()).expect("valid JSON");
        assert_eq!(parsed, event.to_json());
    }

    #[test]
    fn a_stored_event_reads_back_as_the_event_it_was() {
        let event = Event::RunFinished {
            state: RunState::Interrupted,
            reason: "interrupted between attempts".into(),
            exit_code: 130,
            attempts: None,
        };
        let fields = Value::Object(event.fields());
        assert_eq!(
            fields,
            serde_json::json!({"state": "interrupted", "reason": "interrupted between attempts", "exit_code": 130})
        );
        let back = Event::from_stored(event.name(), &fields).expect("reads back");
        assert_eq!(back.name(), "run_finished");
        assert!(matches!(
            back,
            Event::RunFinished {
                exit_code: 130,
                attempts: None,
                ..
            }
        ));
    }

    #[test]
    fn an_unknown_kind_is_an_error() {
        assert!(Event::from_stored("no_such_event", &serde_json::json!({})).is_err());
    }
}
