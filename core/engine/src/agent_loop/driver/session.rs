//! A failed agent session (time-out, turn limit, crash, no agent left): the end of the run, or,
//! with `session_failures = "retry"`, an attempt judged failed without a verification.

use super::attempt::Session;
use super::decide::Failed;
use super::events::{Event, VerifiedRecord};
use super::run::{Driver, Ending};
use super::{LoopEnd, LoopError, LoopOutcome};
use crate::agent_loop::agent::{PoolEnd, RetryAction, SessionOutcome};
use crate::agent_loop::classify::{Category, Classification, FailureSet};
use crate::agent_loop::policy::{AttemptRecord, SessionFailures};
use crate::model::{Fingerprint, Outcome};
use crate::state::RunState;

impl Driver<'_> {
    /// After a session that failed: ends the run, or judges the attempt failed and decides.
    pub(super) async fn session_failed(
        &mut self,
        session: &Session,
    ) -> Result<Option<LoopEnd>, LoopError> {
        // No agent could run at all: the loop could not run.
        let could_not_run = session.pool_run.end == PoolEnd::NoAgentLeft;
        let retry = self.spec.policies.session_failures == SessionFailures::Retry && !could_not_run;
        if retry {
            return self.judge_session(session).await;
        }
        self.progress.judged.push(AttemptRecord {
            number: session.number,
            category: Category::Unknown,
            failures: FailureSet::default(),
            no_op: !session.changed,
        });
        let ending = Ending {
            from: RunState::AgentRunning,
            to: RunState::SessionFailed,
            events: vec![Event::AgentFinished(session.event())],
            reason: session_failure(session),
            outcome: if could_not_run {
                LoopOutcome::CouldNotRun
            } else {
                LoopOutcome::Failed
            },
            digest: None,
        };
        let sessions = session.sessions();
        let finish = session.finish(&sessions);
        self.finish(ending, |batch| {
            batch.finish_attempt(session.attempt, &finish)
        })
        .map(Some)
    }

    /// Configured to go on: a failed session is judged like a failed verification, without
    /// running one (its work may be half done).
    async fn judge_session(&mut self, session: &Session) -> Result<Option<LoopEnd>, LoopError> {
        let number = session.number;
        let result = &session.pool_run.result;
        let name = result.outcome.name();
        let as_failure = session_as_failure(session);
        let mut finished = session.event();
        finished.judged = true;
        finished.as_failure = Some(as_failure.clone());
        let tail = format!(
            "The agent session of attempt {number} ended with {name} before verification; its \
             last output:\n{}",
            last_lines(&result.output_tail, 10)
        );
        self.progress.note(&as_failure, Some(tail.clone()));
        let classification = Classification {
            category: Category::Unknown,
            confidence: 1.0,
            main_location: None,
            summary: as_failure.summary.clone(),
        };
        // Nothing was verified: the category's guidance ("read the verifier's output closely")
        // would point the agent at output that does not exist.
        let guidance = format!(
            "The agent session of attempt {number} ended with {name} before anything was \
             verified; its last output is above. Nothing of that attempt was checked: finish \
             the task."
        );
        let failed = Failed {
            from: RunState::AgentRunning,
            number,
            classification,
            digest: tail,
            guidance_instead: Some(guidance),
            events: vec![Event::AgentFinished(finished)],
        };
        let sessions = session.sessions();
        let finish = session.finish(&sessions);
        self.decide_next(failed, |batch| {
            batch.finish_attempt(session.attempt, &finish)
        })
        .await
    }
}

/// Why a session that failed ends the run.
fn session_failure(session: &Session) -> String {
    let number = session.number;
    let pool_run = &session.pool_run;
    match (pool_run.end, &pool_run.result.outcome) {
        (PoolEnd::NoAgentLeft, SessionOutcome::NotStarted { message }) => {
            format!("no agent could start: {message}")
        }
        (PoolEnd::NoAgentLeft, other) => {
            format!("no agent left: the last failed with {}", other.name())
        }
        (PoolEnd::RetriesExhausted, other) => format!(
            "the agent kept failing ({}) through {} retries",
            other.name(),
            pool_run
                .retries
                .iter()
                .filter(|r| r.action != RetryAction::SkipAgent)
                .count()
        ),
        (PoolEnd::Finished, other) => format!(
            "attempt {number}: the agent session ended with {}",
            other.name()
        ),
    }
}

/// A failed session as the record of a failed attempt: one failure, named after the outcome.
fn session_as_failure(session: &Session) -> VerifiedRecord {
    let name = session.pool_run.result.outcome.name();
    let label = format!("agent session {name}");
    let hash = blake3::hash(label.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash.as_bytes()[..8]);
    let mut failures = FailureSet::default();
    failures.insert(Fingerprint(u64::from_le_bytes(first)), label);
    VerifiedRecord {
        attempt: session.number,
        outcome: Outcome::Errored,
        passed: false,
        category: Some(Category::Unknown),
        confidence: Some(1.0),
        location: None,
        summary: format!("the agent session ended with {name}"),
        failures,
        flaky: FailureSet::default(),
        known: 0,
        no_op: !session.changed,
        tree: session.after.as_ref().map(ToString::to_string),
        digest_tokens: 0,
        answered_from: None,
    }
}

/// The last `n` lines of `text`.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
