//! Every run of a workspace's state database read at once, with what the queue shows of each
//! already redacted: the pages over all runs (queue, analytics, metrics) are computed from it,
//! and [`LoopSource`](super::LoopSource) keeps one until another connection commits.

use std::collections::HashMap;

use verdict_core::agent_loop::driver::Event;
use verdict_core::agent_loop::driver::events::{AgentRetry, ScheduledRecord};
use verdict_core::state::{
    AttemptRecord, EventRecord, RunId, RunRecord, StateDb, StateError, Stats, TransitionRecord,
    VerificationRecord,
};

use super::rows;
use crate::view::TaskRow;

/// One run with what its queue line needs.
#[derive(Debug, Clone)]
pub(crate) struct RunInfo {
    /// The run.
    pub(crate) run: RunRecord,
    /// Its attempts by number, without their output.
    pub(crate) attempts: Vec<AttemptRecord>,
    /// Its last transition.
    pub(crate) last: Option<TransitionRecord>,
    /// Its last scheduled retry: when it was scheduled and what it decided.
    pub(crate) retry: Option<(i64, ScheduledRecord)>,
    /// The category of its last failed attempt verification.
    pub(crate) category: Option<String>,
}

/// A retry of the pool inside an attempt, for the agents held by a rate limit.
#[derive(Debug, Clone)]
pub(crate) struct PoolRetry {
    /// When it was decided.
    pub(crate) at: i64,
    /// What was decided.
    pub(crate) retry: AgentRetry,
}

/// The whole database, read at one moment.
#[derive(Debug)]
pub(crate) struct Snapshot {
    /// Every run, newest first.
    pub(crate) runs: Vec<RunInfo>,
    /// Each run's queue line, in the order of `runs`.
    pub(crate) rows: Vec<TaskRow>,
    /// Each run's redacted, lower-cased key, task text and reason, for the search.
    pub(crate) haystacks: Vec<String>,
    /// The verification of every attempt (digests left out), with its run.
    pub(crate) verifications: Vec<(RunId, VerificationRecord)>,
    /// The pool's retries for a rate limit or an overload.
    pub(crate) pool_retries: Vec<PoolRetry>,
    /// The figures of `verdict stats`.
    pub(crate) stats: Stats,
}

impl Snapshot {
    /// A database that does not exist yet: no run.
    pub(crate) fn empty() -> Snapshot {
        Snapshot {
            runs: Vec::new(),
            rows: Vec::new(),
            haystacks: Vec::new(),
            verifications: Vec::new(),
            pool_retries: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// Reads every run of `db`.
    pub(crate) fn load(db: &StateDb) -> Result<Snapshot, StateError> {
        let mut attempts: HashMap<RunId, Vec<AttemptRecord>> = HashMap::new();
        for attempt in db.every_attempt()? {
            attempts.entry(attempt.run).or_default().push(attempt);
        }
        let mut last: HashMap<RunId, TransitionRecord> =
            db.last_transitions()?.into_iter().collect();
        let verifications = db.attempt_verifications()?;
        let mut category = HashMap::new();
        for (run, verification) in &verifications {
            if verification.outcome != verdict_core::model::Outcome::Passed {
                category.insert(*run, verification.category.clone());
            }
        }
        let mut retry = HashMap::new();
        for (run, event) in db.events_of_kind("retry_scheduled")? {
            if let (Some(run), Some(Event::RetryScheduled(scheduled))) = (run, typed(&event)) {
                retry.insert(run, (event.at, scheduled));
            }
        }
        let runs: Vec<RunInfo> = db
            .runs()?
            .into_iter()
            .map(|run| RunInfo {
                attempts: attempts.remove(&run.id).unwrap_or_default(),
                last: last.remove(&run.id),
                retry: retry.remove(&run.id),
                category: category.remove(&run.id).flatten(),
                run,
            })
            .collect();
        let (rows, haystacks) = runs.iter().map(rows::row).unzip();
        Ok(Snapshot {
            runs,
            rows,
            haystacks,
            verifications,
            pool_retries: pool_retries(db)?,
            stats: db.stats()?,
        })
    }
}

/// The pool's retries after a rate limit or an overload, the ones that hold an agent back.
fn pool_retries(db: &StateDb) -> Result<Vec<PoolRetry>, StateError> {
    Ok(db
        .events_of_kind("agent_retry")?
        .into_iter()
        .filter_map(|(_, event)| match typed(&event) {
            Some(Event::AgentRetry(retry)) => Some(PoolRetry {
                at: event.at,
                retry,
            }),
            _ => None,
        })
        .collect())
}

/// The event as the driver wrote it; `None` for one this build cannot read.
pub(crate) fn typed(event: &EventRecord) -> Option<Event> {
    Event::from_stored(&event.kind, &event.payload).ok()
}
