//! The loop's events: every state transition and retry decision, as one JSON object each.
//!
//! An event is stored in the state database (so `verdict history` and a resumed run see it), handed
//! to the caller's sink (the CLI writes NDJSON to `--events FILE` or stdout, and drives its progress
//! view from them), and logged as a `tracing` event inside the run's span.
//!
//! Each line of the NDJSON stream is `{"event": <kind>, "run": <id>, "time_ms": <ms since the
//! epoch>, …payload}`; docs/loop.md lists the payload of each kind.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::state::RunId;

/// The kinds of event, in the order a run usually emits them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A run was created (payload: task hash, agents, max attempts, options).
    RunStarted,
    /// An unfinished run was picked up again (payload: the state it was found in, the attempts
    /// stopped, the next attempt).
    RunResumed,
    /// The starting tree was recorded (payload: its tree id).
    Checkpoint,
    /// The baseline verification of the starting tree finished (payload: outcome, failures, tests
    /// run, and the verifications themselves, which the cheating guard compares against).
    BaselineFinished,
    /// An attempt's agent session is about to start (payload: attempt, agent, prompt tokens).
    AttemptStarted,
    /// The inner layer retried the agent session (payload: the retry decision).
    AgentRetry,
    /// The attempt's agent session ended (payload: outcome, duration, whether the workspace changed).
    AgentFinished,
    /// The workspace was restored to the starting tree before an attempt (`--reset`).
    WorkspaceReset,
    /// An attempt's verification finished (payload: outcome, category, confidence, location,
    /// failures, flaky failures, the summary line, digest tokens).
    VerificationFinished,
    /// Another attempt follows (payload: its number, the delay, whether it is the last).
    RetryScheduled,
    /// The attempts are spent (payload: reason).
    RetryExhausted,
    /// The loop escalated to a person (payload: reason, the command run and how it ended).
    Escalated,
    /// A policy blocked the run (payload: reason).
    Blocked,
    /// The run ended (payload: final state, attempts, exit code).
    RunFinished,
}

impl EventKind {
    /// The snake_case name, as stored and streamed.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::RunStarted => "run_started",
            EventKind::RunResumed => "run_resumed",
            EventKind::Checkpoint => "checkpoint",
            EventKind::BaselineFinished => "baseline_finished",
            EventKind::AttemptStarted => "attempt_started",
            EventKind::AgentRetry => "agent_retry",
            EventKind::AgentFinished => "agent_finished",
            EventKind::WorkspaceReset => "workspace_reset",
            EventKind::VerificationFinished => "verification_finished",
            EventKind::RetryScheduled => "retry_scheduled",
            EventKind::RetryExhausted => "retry_exhausted",
            EventKind::Escalated => "escalated",
            EventKind::Blocked => "blocked",
            EventKind::RunFinished => "run_finished",
        }
    }
}

/// One event of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopEvent {
    /// What happened.
    pub kind: EventKind,
    /// The run it belongs to.
    pub run: RunId,
    /// When, in ms since the Unix epoch.
    pub time_ms: i64,
    /// The kind's own fields (a JSON object).
    pub payload: Value,
}

impl LoopEvent {
    /// The event as one JSON object: `event`, `run` and `time_ms` first, then the payload's fields.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("event".into(), Value::from(self.kind.as_str()));
        object.insert("run".into(), Value::from(self.run.0));
        object.insert("time_ms".into(), Value::from(self.time_ms));
        if let Value::Object(fields) = &self.payload {
            for (key, value) in fields {
                object.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
        Value::Object(object)
    }

    /// The event as one NDJSON line, without the newline: `event`, `run` and `time_ms` first (so a
    /// reader of the raw stream sees what an event is at its start), then the payload's fields.
    pub fn to_line(&self) -> String {
        let mut line = format!(
            "{{\"event\":\"{}\",\"run\":{},\"time_ms\":{}",
            self.kind.as_str(),
            self.run.0,
            self.time_ms
        );
        if let Value::Object(fields) = &self.payload {
            for (key, value) in fields {
                if matches!(key.as_str(), "event" | "run" | "time_ms") {
                    continue;
                }
                line.push(',');
                line.push_str(&Value::from(key.as_str()).to_string());
                line.push(':');
                line.push_str(&value.to_string());
            }
        }
        line.push('}');
        line
    }

    /// The payload field `key`, if it is there.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.payload.get(key)
    }
}

/// Told every event as it happens (after it is stored).
pub type EventSink = Box<dyn FnMut(&LoopEvent) + Send>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_put_the_kind_run_and_time_first_and_keep_them_from_the_payload() {
        let event = LoopEvent {
            kind: EventKind::RetryScheduled,
            run: RunId(7),
            time_ms: 1_000,
            payload: serde_json::json!({"attempt": 2, "run": "not this", "delay_ms": 0}),
        };
        assert_eq!(
            event.to_line(),
            r#"{"event":"retry_scheduled","run":7,"time_ms":1000,"attempt":2,"delay_ms":0}"#
        );
        // The line is the JSON object, field for field.
        let parsed: Value = serde_json::from_str(&event.to_line()).expect("valid JSON");
        assert_eq!(parsed, event.to_json());
    }

    #[test]
    fn every_kind_serializes_as_its_name() {
        for kind in [
            EventKind::RunStarted,
            EventKind::RunResumed,
            EventKind::Checkpoint,
            EventKind::BaselineFinished,
            EventKind::AttemptStarted,
            EventKind::AgentRetry,
            EventKind::AgentFinished,
            EventKind::WorkspaceReset,
            EventKind::VerificationFinished,
            EventKind::RetryScheduled,
            EventKind::RetryExhausted,
            EventKind::Escalated,
            EventKind::Blocked,
            EventKind::RunFinished,
        ] {
            assert_eq!(
                serde_json::to_value(kind).expect("serialize"),
                Value::from(kind.as_str())
            );
        }
    }
}
