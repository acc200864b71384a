//! One loop run's page: its attempts with their verifications, the digest each next prompt
//! carried, the guidance given, and its transitions as its history.

use verdict_core::agent_loop::driver::events::ScheduledRecord;
use verdict_core::agent_loop::driver::{Event, recorded_settings};
use verdict_core::model::Outcome;
use verdict_core::state::{
    AttemptHistory, AttemptRecord, EventRecord, RunHistory, RunState, VerificationRecord,
};

use super::rows::{self, worker_of};
use super::snapshot::{RunInfo, typed};
use crate::view::{AttemptView, HistoryEntry, Redacted, TaskView};

/// How an attempt ended, in one word: `interrupted`, the verification's outcome (`escalated`
/// for the last attempt of an escalated run), else how its agent session ended; `None` while it
/// runs.
pub(crate) fn outcome_of(
    attempt: &AttemptRecord,
    verification: Option<&VerificationRecord>,
    last_of: Option<RunState>,
) -> Option<String> {
    if attempt.interrupted {
        return Some("interrupted".to_owned());
    }
    match verification {
        Some(verification) if verification.outcome != Outcome::Passed => Some(match last_of {
            Some(RunState::Escalated) => "escalated".to_owned(),
            _ => verification.outcome.as_str().to_owned(),
        }),
        Some(verification) => Some(verification.outcome.as_str().to_owned()),
        None => attempt.session_outcome.clone(),
    }
}

/// The page of one run, from everything recorded about it.
pub(crate) fn task(history: RunHistory, events: &[EventRecord]) -> TaskView {
    let typed: Vec<(i64, Event)> = events
        .iter()
        .filter_map(|event| typed(event).map(|typed| (event.at, typed)))
        .collect();
    let state = history.run.state;
    let count = history.attempts.len();
    let attempts = history
        .attempts
        .iter()
        .enumerate()
        .map(|(index, attempt)| {
            let last_of = (index + 1 == count).then_some(state);
            attempt_view(attempt, last_of, &typed)
        })
        .collect();
    let info = RunInfo {
        category: history
            .attempts
            .iter()
            .filter_map(|attempt| attempt.verification.as_ref())
            .rfind(|verification| verification.outcome != Outcome::Passed)
            .and_then(|verification| verification.category.clone()),
        retry: typed.iter().rev().find_map(|(at, event)| match event {
            Event::RetryScheduled(scheduled) => Some((*at, scheduled.clone())),
            _ => None,
        }),
        last: history.transitions.last().cloned(),
        attempts: history
            .attempts
            .iter()
            .map(|attempt| attempt.attempt.clone())
            .collect(),
        run: history.run.clone(),
    };
    let (row, _) = rows::row(&info);
    let guidance = recorded_settings(&history.run)
        .and_then(|settings| settings.guidance)
        .filter(|guidance| !guidance.trim().is_empty());
    TaskView {
        row,
        text: Redacted::new(&history.run.task),
        workspace: Redacted::new(&history.run.workspace),
        workdir: None,
        branch: None,
        guidance: guidance.as_deref().map(Redacted::new),
        cost_usd: None,
        deadline_at: None,
        attempts,
        history: entries(&history, &typed),
        // The loop keeps snapshot trees, not diffs: the page has none to show.
        diff: None,
        // `verdict loop` takes no action from the page; `act` says what to run instead.
        can_retry: false,
    }
}

/// One attempt with its verification and the retry scheduled after it.
fn attempt_view(
    attempt: &AttemptHistory,
    last_of: Option<RunState>,
    events: &[(i64, Event)],
) -> AttemptView {
    let record = &attempt.attempt;
    let verification = attempt.verification.as_ref();
    let summary = events.iter().find_map(|(_, event)| match event {
        Event::VerificationFinished(verified) if verified.attempt == record.number => {
            Some(verified.summary.clone())
        }
        Event::AgentFinished(finished) if finished.attempt == record.number && finished.judged => {
            finished
                .as_failure
                .as_ref()
                .map(|failure| failure.summary.clone())
        }
        _ => None,
    });
    let retry_delay_ms = events.iter().find_map(|(_, event)| match event {
        Event::RetryScheduled(scheduled) if scheduled.next == record.number + 1 => {
            Some(scheduled.delay_ms)
        }
        _ => None,
    });
    let agent_ms = match record.finished_at {
        // An interrupted attempt's end is when it was found stopped, not when its agent ended.
        Some(end) if !record.interrupted => (end - record.started_at).max(0) as u64,
        _ => 0,
    };
    AttemptView {
        number: record.number,
        agent: Some(Redacted::new(&record.agent)),
        worker: worker_of(record),
        started_at: record.started_at,
        finished_at: record.finished_at,
        agent_ms,
        verify_ms: verification.map_or(0, |v| v.duration_ms),
        outcome: outcome_of(record, verification, last_of),
        counted: !record.interrupted,
        reason: summary.map(|summary| Redacted::new(&summary)),
        category: verification.and_then(|v| v.category.clone()),
        fingerprints: verification
            .map(|v| v.failures.iter().map(|f| Redacted::new(&f.label)).collect())
            .unwrap_or_default(),
        // A pass's digest is carried by no next prompt.
        digest: verification
            .filter(|v| v.outcome != Outcome::Passed)
            .map(|v| v.digest.as_str())
            .filter(|digest| !digest.is_empty())
            .map(Redacted::new),
        retry_delay_ms,
        tokens: None,
        cost_usd: None,
    }
}

/// The run's history: its transitions, and after each move to `retry_scheduled` the guidance
/// the retry's prompt carried (a person's between attempts, the failure category's). The driver
/// commits that move and its `retry_scheduled` event together, so the n-th of one belongs with
/// the n-th of the other; they are paired by order, not by their times, which can be equal.
fn entries(history: &RunHistory, events: &[(i64, Event)]) -> Vec<HistoryEntry> {
    let mut retries = events.iter().filter_map(|(at, event)| match event {
        Event::RetryScheduled(scheduled) => Some((*at, scheduled)),
        _ => None,
    });
    let mut entries = Vec::new();
    for transition in &history.transitions {
        entries.push(HistoryEntry {
            at: transition.at,
            action: transition.to.as_str().to_owned(),
            detail: Some(Redacted::new(&transition.reason)),
        });
        if transition.to == RunState::RetryScheduled
            && let Some((at, scheduled)) = retries.next()
        {
            guidance(&mut entries, at, scheduled);
        }
    }
    // A retry without its transition (not written by this driver): after the rest.
    for (at, scheduled) in retries {
        guidance(&mut entries, at, scheduled);
    }
    entries
}

/// The guidance a scheduled retry's prompt carries, as entries of the history.
fn guidance(entries: &mut Vec<HistoryEntry>, at: i64, scheduled: &ScheduledRecord) {
    if let Some(human) = scheduled.human.as_deref().filter(|h| !h.trim().is_empty()) {
        entries.push(HistoryEntry {
            at,
            action: "guidance".to_owned(),
            detail: Some(Redacted::new(&format!(
                "for attempt {}, from a person: {human}",
                scheduled.next
            ))),
        });
    }
    if !scheduled.guidance.trim().is_empty() {
        entries.push(HistoryEntry {
            at,
            action: "advice".to_owned(),
            detail: Some(Redacted::new(&format!(
                "for attempt {}, from the failure's category: {}",
                scheduled.next, scheduled.guidance
            ))),
        });
    }
}
