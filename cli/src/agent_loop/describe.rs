//! The loop's events in words for people: one line per step, and the phase the status line shows.

use verdict_core::agent_loop::classify::FailureSet;
use verdict_core::agent_loop::driver::events::{InfraChange, StoredReport};
use verdict_core::agent_loop::driver::{Event, LoopEvent};

/// The labels of `failures` (the flaky failures of a `verification_finished` event: failures
/// that came and went when the failed tests ran again).
pub(super) fn labels(failures: &FailureSet) -> Vec<String> {
    failures.iter().map(|(_, label)| label.to_owned()).collect()
}

/// What the loop is doing after `event`, for the status line; `None` when the event does not
/// change the phase.
pub(super) fn phase(event: &LoopEvent) -> Option<String> {
    Some(match &event.event {
        Event::RunStarted { .. } | Event::RunResumed { .. } => {
            "checking the starting tree".to_owned()
        }
        Event::AttemptStarted { agent, .. } => format!("{agent} is working"),
        Event::AgentRetry(retry) => {
            format!("waiting to retry the agent ({})", retry.outcome.name())
        }
        Event::AgentFinished(_) | Event::WorkspaceReset { .. } => "verifying".to_owned(),
        Event::InfraPutBack { .. } => {
            "verifying with the starting tree's test infrastructure".to_owned()
        }
        Event::RetryScheduled(_) => "waiting for the next attempt".to_owned(),
        _ => return None,
    })
}

/// The failures of a `baseline_finished` event's reports in each tool's own units, labelled:
/// `pytest: 7 tests failed; eslint: 3 errors`.
fn tool_units(reports: &[StoredReport]) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let positive = |n: Option<u64>| n.filter(|n| *n > 0);
    reports
        .iter()
        .filter_map(|stored| {
            let counts = &stored.report.counts;
            let mut parts = Vec::new();
            if let Some(n) = positive(counts.tests_failed) {
                parts.push(plural(n, "test failed", "tests failed"));
            }
            if let Some(n) = positive(counts.suites_errored) {
                parts.push(plural(n, "test file not loaded", "test files not loaded"));
            }
            if let Some(n) = positive(counts.errors) {
                parts.push(plural(n, "error", "errors"));
            }
            (!parts.is_empty()).then(|| format!("{}: {}", stored.verifier, parts.join(", ")))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A value as its JSON text without quotes: the name of a state or an outcome.
fn name_of(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// The line of an `infra_put_back` event: the files whose starting version went back.
fn put_back_line(attempt: u32, files: &[InfraChange]) -> String {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    format!(
        "attempt {attempt}: test infrastructure changed ({}); verifying with the starting tree's \
         version put back",
        paths.join(", ")
    )
}

/// The line of an `infra_restored` event: the attempt's files are back, and what the check found.
fn restored_line(attempt: u32, passed: Option<bool>) -> String {
    let found = match passed {
        Some(true) => "; the tests pass without it",
        Some(false) => "; the tests do not pass without it",
        None => "",
    };
    format!("attempt {attempt}: the attempt's test infrastructure written back{found}")
}

/// One line for people about `event`, or `None` for events they need not see.
pub(super) fn describe(event: &LoopEvent) -> Option<String> {
    let run = event.run;
    Some(match &event.event {
        Event::RunStarted { .. } => format!("run {run} started"),
        Event::RunResumed {
            was,
            unverified: Some(n),
            ..
        } => format!(
            "resuming run {run} (it was {}; verifying attempt {n}, whose agent had finished)",
            was.as_str()
        ),
        Event::RunResumed {
            was, next_attempt, ..
        } => format!(
            "resuming run {run} (it was {}; next attempt {next_attempt})",
            was.as_str()
        ),
        Event::Checkpoint { .. } | Event::RunFinished { .. } => return None,
        Event::BaselineFinished(baseline) => {
            let units = tool_units(&baseline.reports);
            format!(
                "baseline: {}{}, {} distinct failure(s) by fingerprint already there",
                name_of(&baseline.outcome),
                if units.is_empty() {
                    String::new()
                } else {
                    format!(" ({units})")
                },
                baseline.failures.len()
            )
        }
        Event::AttemptStarted {
            attempt,
            agent,
            prompt_tokens,
            ..
        } => format!("attempt {attempt} — {agent} is working ({prompt_tokens} prompt tokens)"),
        Event::AgentRetry(retry) => format!(
            "{} {}: retrying with {} in {} ms",
            retry.agent,
            retry.outcome.name(),
            retry.next_agent,
            retry.delay_ms
        ),
        Event::AgentFinished(finished) => format!(
            "attempt {}: agent {} ({} s){}",
            finished.attempt,
            finished.outcome,
            finished.duration_ms / 1000,
            if finished.workspace_changed {
                ""
            } else {
                ", no change to the workspace"
            }
        ),
        Event::WorkspaceReset { .. } => "workspace restored to the starting tree".to_owned(),
        Event::InfraPutBack { attempt, files, .. } => put_back_line(*attempt, files),
        Event::InfraRestored {
            attempt, passed, ..
        } => restored_line(*attempt, *passed),
        Event::VerificationFinished(verified) => {
            let flaky = labels(&verified.flaky);
            format!(
                "attempt {}: {}{}",
                verified.attempt,
                if verified.passed {
                    "verified green".to_owned()
                } else {
                    // The tools' own counts, then how many distinct failures they make.
                    format!(
                        "{} ({} distinct failure(s) by fingerprint)",
                        verified.summary,
                        verified.failures.len()
                    )
                },
                if flaky.is_empty() {
                    String::new()
                } else {
                    format!("; flaky, not blamed on the agent: {}", flaky.join(", "))
                }
            )
        }
        Event::RetryScheduled(scheduled) => format!("attempt {} next", scheduled.next),
        Event::RetryExhausted { reason, .. } => format!("exhausted: {reason}"),
        Event::Escalated { reason, .. } => format!("escalated: {reason}"),
        Event::Blocked { reason, .. } => format!("blocked: {reason}"),
    })
}
