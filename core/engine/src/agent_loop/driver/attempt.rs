//! One attempt: restore the starting tree (`--reset`), commit "attempt N started", run the agent
//! through the pool, commit "attempt N finished" with whether the tree changed, then verify.

use std::sync::Arc;

use tracing::{Instrument, info_span};

use super::events::{AgentFinished, Event};
use super::recorder::{read, record, spawn_hook};
use super::run::Driver;
use super::workspace::{blocking, take};
use super::{LoopEnd, LoopError};
use crate::agent_loop::agent::{PoolRun, SessionOutcome, SessionRequest};
use crate::digest;
use crate::snapshot::TreeId;
use crate::state::{AttemptFinish, AttemptId, RunState, SessionRef};

/// An attempt whose agent session ended: what the driver knows of it.
pub(super) struct Session {
    /// The attempt's record.
    pub(super) attempt: AttemptId,
    /// Its number.
    pub(super) number: u32,
    /// What the pool did.
    pub(super) pool_run: PoolRun,
    /// Whether the workspace changed.
    pub(super) changed: bool,
    /// The tree it left, when snapshots are available.
    pub(super) after: Option<TreeId>,
}

impl Session {
    /// Its `agent_finished` event.
    pub(super) fn event(&self) -> AgentFinished {
        let result = &self.pool_run.result;
        AgentFinished {
            attempt: self.number,
            agent: result.agent.clone(),
            outcome: result.outcome.name().to_owned(),
            session: result.outcome.clone(),
            sessions: self.pool_run.sessions,
            end: self.pool_run.end,
            duration_ms: result.duration.as_millis() as u64,
            workspace_changed: self.changed,
            tree: self.after.as_ref().map(ToString::to_string),
            log: result.log_path.to_string_lossy().into_owned(),
            judged: false,
            as_failure: None,
        }
    }

    /// The sessions it ran: the retried ones, then the last, whose agent is the attempt's (an
    /// auth error or a rate limit may have handed it over from the agent it started with).
    pub(super) fn sessions(&self) -> Vec<SessionRef> {
        let result = &self.pool_run.result;
        let retried = self.pool_run.retries.iter().map(|r| SessionRef {
            agent: r.agent.clone(),
            outcome: r.outcome.name().to_owned(),
        });
        let last = (!result.agent.is_empty()).then(|| SessionRef {
            agent: result.agent.clone(),
            outcome: result.outcome.name().to_owned(),
        });
        retried.chain(last).collect()
    }

    /// What the database records of its end.
    pub(super) fn finish<'a>(&'a self, sessions: &'a [SessionRef]) -> AttemptFinish<'a> {
        let result = &self.pool_run.result;
        AttemptFinish {
            sessions,
            session_outcome: result.outcome.name(),
            output_tail: &result.output_tail,
            workspace_changed: self.changed,
        }
    }
}

impl Driver<'_> {
    /// Runs the next attempt to its verification and decision; `Some` when the run ended.
    pub(super) async fn attempt(&mut self) -> Result<Option<LoopEnd>, LoopError> {
        let run = self.run;
        let done = self.progress.judged_count();
        let number = read(self.shared, |db| db.next_attempt_number(run))?;
        // Attempt numbers are never reused, and an interrupted attempt does not count: each one
        // lets the run go one number further. Every attempt so far was judged or interrupted (an
        // unverified one was verified first), so the interrupted ones are the numbers used and
        // not judged.
        let of = self.spec.policies.max_attempts + (number - 1).saturating_sub(done);
        let prompt = self.prompt(number, of);
        let prompt_tokens = digest::tokens::count(&prompt) as u64;
        self.reset(number).await?;
        let before = self.tree_before().await?;

        let agent = self.pool.next_agent().unwrap_or_default().to_owned();
        let started = Event::AttemptStarted {
            attempt: number,
            of,
            judged_before: done,
            agent: agent.clone(),
            prompt_tokens,
        };
        let attempt = record(self.shared, run, &[started], |batch| {
            batch.begin_attempt(run, number, &agent, Some(prompt_tokens))
        })?;
        let run_dir = crate::paths::loop_dir(&self.spec.root)
            .join(format!("run-{run}"))
            .join(format!("attempt-{number}"));
        let request = SessionRequest {
            prompt,
            cwd: self.spec.root.clone(),
            run_dir,
            on_spawn: Some(spawn_hook(self.shared, attempt)),
        };
        let pool_run = self
            .pool
            .run(request)
            .instrument(info_span!("attempt", number))
            .await;
        let after = match &self.snapshots {
            Some(s) => Some(take(s).await?),
            None => None,
        };
        self.last_tree.clone_from(&after);
        let changed = match (&before, &after) {
            (Some(b), Some(a)) => b != a,
            _ => true,
        };
        let session = Session {
            attempt,
            number,
            pool_run,
            changed,
            after,
        };
        self.after_session(session).await
    }

    /// With `--reset`, restores the starting tree before every attempt after the first.
    async fn reset(&self, number: u32) -> Result<(), LoopError> {
        if !self.spec.reset || number <= 1 {
            return Ok(());
        }
        let (Some(snapshots), Some(tree)) = (&self.snapshots, &self.progress.start_tree) else {
            return Ok(());
        };
        let (s, t) = (Arc::clone(snapshots), tree.clone());
        let restored = blocking(move || s.restore(&t)).await?;
        let event = Event::WorkspaceReset {
            attempt: number,
            tree: tree.to_string(),
            restored: restored.restored,
            removed: restored.removed,
        };
        record(self.shared, self.run, &[event], |_| Ok(()))?;
        Ok(())
    }

    /// The tree the attempt starts from. It is the one the last attempt left, unless it was
    /// restored since or a person was asked for guidance (and may have edited files); reusing it
    /// saves a snapshot per attempt.
    async fn tree_before(&self) -> Result<Option<TreeId>, LoopError> {
        let reuse = !self.spec.reset && self.guide.is_none();
        Ok(match (&self.snapshots, &self.last_tree) {
            (Some(_), Some(last)) if reuse => Some(last.clone()),
            (Some(s), _) => Some(take(s).await?),
            (None, _) => None,
        })
    }

    /// Records the end of the agent session and goes on to verify, or ends the run.
    async fn after_session(&mut self, session: Session) -> Result<Option<LoopEnd>, LoopError> {
        let run = self.run;
        let number = session.number;
        let outcome = &session.pool_run.result.outcome;
        let event = Event::AgentFinished(session.event());
        let sessions = session.sessions();
        let finish = session.finish(&sessions);
        if *outcome == SessionOutcome::Cancelled || self.stop_asked() {
            // The attempt is not judged: its agent was stopped, not finished. It is marked
            // interrupted, so that it does not count against the attempts.
            let reason = format!("interrupted during attempt {number}");
            return self
                .interrupt(RunState::AgentRunning, &reason, vec![event], |batch| {
                    batch.mark_interrupted(session.attempt)
                })
                .map(Some);
        }
        if *outcome != SessionOutcome::Success {
            return self.session_failed(&session).await;
        }
        record(self.shared, run, &[event], |batch| {
            batch.finish_attempt(session.attempt, &finish)?;
            let reason = format!("attempt {number}: the agent finished");
            batch.transition(run, RunState::AgentRunning, RunState::Verifying, &reason)
        })?;
        let Session {
            attempt,
            changed,
            after,
            ..
        } = session;
        self.verify_attempt(attempt, number, changed, after).await
    }
}
