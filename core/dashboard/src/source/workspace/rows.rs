//! A loop run as the queue shows it: its state in the page's terms, its line, and the query's
//! filters over the lines.

use verdict_core::state::{AttemptRecord, RunState};

use super::snapshot::{RunInfo, Snapshot};
use crate::view::{QueueQuery, QueueView, Redacted, State, TaskRow};

/// How many characters of a task's first line its title keeps.
const TITLE_CHARS: usize = 120;
/// Lines per page when the query does not say.
const PER_PAGE: usize = 50;

/// Where a run stands, in the page's states. The three ways a run fails without a person
/// (`exhausted`, `blocked`, `session_failed`) are all `failed`; the line's reason names which.
pub(crate) fn state_of(state: RunState) -> State {
    match state {
        RunState::Pending => State::Pending,
        RunState::AgentRunning | RunState::Verifying => State::Running,
        RunState::RetryScheduled => State::RetryScheduled,
        RunState::Interrupted => State::Interrupted,
        RunState::Passed => State::Passed,
        RunState::Escalated => State::Escalated,
        RunState::Exhausted | RunState::Blocked | RunState::SessionFailed => State::Failed,
    }
}

/// The agent a run works with: its last attempt's, else the first its configuration names.
pub(crate) fn agent_of(info: &RunInfo) -> String {
    if let Some(attempt) = info.attempts.last() {
        return attempt.agent.clone();
    }
    info.run
        .config
        .get("agents")
        .and_then(|agents| agents.get(0))
        .and_then(|agent| agent.as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The first line of a task's text, cut to [`TITLE_CHARS`]. It takes the text redacted whole, so
/// that a cut never splits a secret past the point where redaction recognises it.
fn title_of(whole: &Redacted) -> Redacted {
    let line = whole.as_str().lines().next().unwrap_or_default();
    let cut: String = line.chars().take(TITLE_CHARS).collect();
    if cut.len() < line.len() {
        Redacted::new(&format!("{cut}…"))
    } else {
        Redacted::new(&cut)
    }
}

/// The attempt that runs now: the last one, when it neither finished nor was interrupted.
pub(crate) fn running_attempt(attempts: &[AttemptRecord]) -> Option<&AttemptRecord> {
    attempts
        .last()
        .filter(|attempt| attempt.finished_at.is_none() && !attempt.interrupted)
}

/// The worker of an attempt: the loop records its agent's pid, not its host.
pub(crate) fn worker_of(attempt: &AttemptRecord) -> Option<Redacted> {
    attempt.pid.map(|pid| Redacted::new(&format!("pid {pid}")))
}

/// Why a run stands where it does, in one line.
fn reason_of(info: &RunInfo) -> Option<String> {
    let state = info.run.state;
    let last = info
        .last
        .as_ref()
        .map(|transition| transition.reason.clone());
    match state {
        RunState::Exhausted | RunState::Blocked | RunState::SessionFailed => Some(match last {
            Some(reason) => format!("{state}: {reason}"),
            None => state.to_string(),
        }),
        RunState::RetryScheduled if info.retry.is_none() => Some(match last {
            Some(reason) => format!("retry scheduled: {reason}"),
            None => "retry scheduled".to_owned(),
        }),
        RunState::Verifying => Some(match last {
            Some(reason) => format!("verifying: {reason}"),
            None => "verifying".to_owned(),
        }),
        _ => last,
    }
}

/// A run's queue line, and the lower-cased text the search looks in (its key, its whole task
/// text and its reason, all redacted).
pub(crate) fn row(info: &RunInfo) -> (TaskRow, String) {
    let run = &info.run;
    let running = matches!(run.state, RunState::AgentRunning | RunState::Verifying)
        .then(|| running_attempt(&info.attempts).or(info.attempts.last()))
        .flatten();
    let next_retry_at = (run.state == RunState::RetryScheduled)
        .then_some(info.retry.as_ref())
        .flatten()
        .map(|(at, scheduled)| at.saturating_add(scheduled.delay_ms.min(i64::MAX as u64) as i64));
    let reason = reason_of(info).map(|reason| Redacted::new(&reason));
    let text = Redacted::new(&run.task);
    let title = title_of(&text);
    let row = TaskRow {
        id: run.id.to_string(),
        key: Redacted::new(&run.task_hash),
        title,
        state: state_of(run.state),
        campaign: None,
        agent: Redacted::new(&agent_of(info)),
        attempts: info.attempts.iter().filter(|a| !a.interrupted).count() as u32,
        max_attempts: Some(run.max_attempts),
        next_retry_at,
        reason,
        // The last failure's category says why a run waits or ended; beside a pass it would
        // read as the reason for the pass.
        category: (run.state != RunState::Passed)
            .then(|| info.category.clone())
            .flatten(),
        worker: running.and_then(worker_of),
        running_since: running.map(|attempt| attempt.started_at),
        updated_at: info
            .last
            .as_ref()
            .map_or(run.created_at, |transition| transition.at),
    };
    let haystack = format!(
        "{}\n{}\n{}",
        row.key,
        text,
        row.reason
            .as_ref()
            .map(Redacted::as_str)
            .unwrap_or_default()
    )
    .to_lowercase();
    (row, haystack)
}

/// The queue page of `snapshot` for `query`. A loop has no campaigns and holds no agent back
/// between runs; its held agents are the pool's (see [`super::figures::held`]).
pub(crate) fn queue(snapshot: &Snapshot, query: &QueueQuery, now: i64) -> QueueView {
    let counts = super::figures::by_state(snapshot);
    let mut agents: Vec<String> = snapshot
        .rows
        .iter()
        .map(|row| row.agent.as_str().to_owned())
        .filter(|agent| !agent.is_empty())
        .collect();
    agents.sort();
    agents.dedup();
    let search = query.search.as_deref().map(str::to_lowercase);
    let mut matching: Vec<&TaskRow> = snapshot
        .rows
        .iter()
        .zip(&snapshot.haystacks)
        .filter(|(row, haystack)| {
            query.state.is_none_or(|state| row.state == state)
                // A loop run belongs to no campaign: a campaign filter matches none.
                && query.campaign.is_none()
                && query.agent.as_deref().is_none_or(|agent| row.agent.as_str() == agent)
                && search.as_deref().is_none_or(|search| haystack.contains(search))
        })
        .map(|(row, _)| row)
        .collect();
    // Most recently changed first; the newer run first among equals.
    matching.sort_by_key(|row| std::cmp::Reverse(row.updated_at));
    let total = matching.len() as u64;
    let per_page = match query.per_page {
        0 => PER_PAGE,
        n => n as usize,
    };
    let rows = matching
        .into_iter()
        .skip((query.page as usize).saturating_mul(per_page))
        .take(per_page)
        .cloned()
        .collect();
    QueueView {
        counts,
        campaigns: Vec::new(),
        agents,
        rows,
        total,
        held: super::figures::held(snapshot, now),
    }
}
