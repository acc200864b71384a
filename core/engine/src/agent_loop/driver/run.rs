//! The driver of one run, once it exists: its parts, the loop over attempts, and the two ways a
//! run stops (ended, or interrupted to be resumed).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::events::Event;
use super::progress::Progress;
use super::recorder::{Shared, read, record};
use super::{Guide, LoopEnd, LoopError, LoopOutcome, LoopSpec, Verify, VerifyRequest};
use crate::agent_loop::agent::AgentPool;
use crate::model::{Outcome, Status, Verification};
use crate::process::ProcessRunner;
use crate::snapshot::{Snapshots, TreeId};
use crate::state::{Batch, RunId, RunState, StateError};

/// The driver of one run.
pub(super) struct Driver<'a> {
    pub(super) spec: &'a LoopSpec,
    pub(super) run: RunId,
    pub(super) shared: &'a Shared,
    pub(super) verify: Arc<dyn Verify>,
    pub(super) pool: AgentPool,
    pub(super) runner: ProcessRunner,
    pub(super) snapshots: Option<Arc<Snapshots>>,
    pub(super) interrupted: Arc<AtomicBool>,
    pub(super) resumed: bool,
    /// The workspace's tree when the loop last looked.
    pub(super) last_tree: Option<TreeId>,
    /// The verifications of each tree verified in this process (by tree id), with what they
    /// were for: a tree verified before is answered from them, with nothing run.
    pub(super) verified: BTreeMap<String, (String, Vec<Verification>)>,
    /// What the run knows so far.
    pub(super) progress: Progress,
    /// Asked for guidance between attempts (`--interactive`).
    pub(super) guide: Option<Guide>,
    /// The verifiers' test infrastructure as the loop found it when it started: the check of a
    /// pass reads it together with what the attempt's tree names, so a file the starting tree's
    /// configuration named counts even if the attempt dropped the name.
    pub(super) start_infra: Vec<(String, crate::verifier::Infrastructure)>,
    /// The caller's exit code of an outcome, which `run_finished` reports.
    pub(super) exit_code: fn(LoopOutcome) -> u8,
}

/// How a run ends: the state it moves to, the event that says why (before `run_finished`), the
/// reason, what the end means, and the digest to hand back.
pub(super) struct Ending {
    pub(super) from: RunState,
    pub(super) to: RunState,
    pub(super) events: Vec<Event>,
    pub(super) reason: String,
    pub(super) outcome: LoopOutcome,
    pub(super) digest: Option<String>,
}

impl Driver<'_> {
    /// The run's state, as stored.
    pub(super) fn state(&self) -> Result<RunState, StateError> {
        read(self.shared, |db| db.run(self.run)).map(|r| r.state)
    }

    /// Whether Ctrl-C or SIGTERM came, or `verifications` were cancelled.
    pub(super) fn is_interrupted(&self, verifications: &[Verification]) -> bool {
        self.stop_asked() || verifications.iter().any(|v| v.status == Status::Cancelled)
    }

    /// Whether Ctrl-C or SIGTERM came.
    pub(super) fn stop_asked(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    /// Verifies the workspace, in full.
    pub(super) async fn verify_once(
        &self,
        only: Option<Vec<String>>,
        fresh: bool,
        label: String,
    ) -> Result<Vec<Verification>, LoopError> {
        let request = VerifyRequest {
            only,
            fresh,
            failed_first: false,
            label,
        };
        self.verify.verify(request).await.map_err(LoopError::Verify)
    }

    /// Keeps `verifications` as the answer for `tree`. A verification in which a verifier could
    /// not verify (a time-out, a crash) is not kept: running it again may well verify.
    pub(super) fn remember(&mut self, tree: &TreeId, what: &str, verifications: &[Verification]) {
        if verifications
            .iter()
            .any(|v| matches!(v.outcome(), Outcome::Errored) || v.status == Status::Cancelled)
        {
            return;
        }
        self.verified
            .insert(tree.to_string(), (what.to_owned(), verifications.to_vec()));
    }

    /// Leaves the run `interrupted` (from `from`), to be resumed, storing `events` and `extra`'s
    /// changes with it.
    pub(super) fn interrupt(
        &self,
        from: RunState,
        reason: &str,
        mut events: Vec<Event>,
        extra: impl FnOnce(&Batch<'_>) -> Result<(), StateError>,
    ) -> Result<LoopEnd, LoopError> {
        events.push(Event::RunFinished {
            state: RunState::Interrupted,
            reason: reason.to_owned(),
            exit_code: (self.exit_code)(LoopOutcome::Interrupted),
            attempts: None,
        });
        record(self.shared, self.run, &events, |batch| {
            extra(batch)?;
            if from != RunState::Interrupted {
                batch.transition(self.run, from, RunState::Interrupted, reason)?;
            }
            Ok(())
        })?;
        Ok(LoopEnd {
            run: self.run,
            state: RunState::Interrupted,
            outcome: LoopOutcome::Interrupted,
            attempts: self.progress.judged_count(),
            reason: reason.to_owned(),
            digest: self.progress.last_digest(),
            resumed: self.resumed,
            retry_after: None,
        })
    }

    /// Ends the run as `ending` says, with `run_finished`, storing `extra`'s changes with it.
    pub(super) fn finish(
        &self,
        ending: Ending,
        extra: impl FnOnce(&Batch<'_>) -> Result<(), StateError>,
    ) -> Result<LoopEnd, LoopError> {
        let Ending {
            from,
            to,
            mut events,
            reason,
            outcome,
            digest,
        } = ending;
        let attempts = self.progress.judged_count();
        events.push(Event::RunFinished {
            state: to,
            reason: reason.clone(),
            exit_code: (self.exit_code)(outcome),
            attempts: Some(attempts),
        });
        record(self.shared, self.run, &events, |batch| {
            extra(batch)?;
            batch.transition(self.run, from, to, &reason)
        })?;
        Ok(LoopEnd {
            run: self.run,
            state: to,
            outcome,
            attempts,
            reason,
            digest,
            resumed: self.resumed,
            retry_after: None,
        })
    }

    /// Runs attempts until the run ends or is interrupted, after verifying first an attempt whose
    /// agent finished before the run was stopped.
    pub(super) async fn drive(&mut self) -> Result<LoopEnd, LoopError> {
        let stored = read(self.shared, |db| db.run(self.run))?;
        if stored.state.is_terminal() {
            // Rerunning a task whose run ended starts a new run (find_run_by_task only finds
            // unfinished ones); this is a run that ended between the lookup and now.
            return Ok(LoopEnd {
                run: self.run,
                state: stored.state,
                outcome: LoopOutcome::of_state(stored.state),
                attempts: self.progress.judged_count(),
                reason: format!("run {} had already ended {}", self.run, stored.state),
                digest: None,
                resumed: self.resumed,
                retry_after: None,
            });
        }
        if let Some(end) = self.verify_unverified().await? {
            return Ok(end);
        }
        loop {
            if let Some(end) = self.stop_before_attempt()? {
                return Ok(end);
            }
            if let Some(end) = self.attempt().await? {
                return Ok(end);
            }
        }
    }

    /// Ends the run before another attempt when its attempts are spent or a stop was asked.
    fn stop_before_attempt(&self) -> Result<Option<LoopEnd>, LoopError> {
        let state = self.state()?;
        let done = self.progress.judged_count();
        if done >= self.spec.policies.max_attempts {
            let reason = format!("{done} attempts made, none verified green");
            let ending = Ending {
                from: state,
                to: RunState::Exhausted,
                events: vec![Event::RetryExhausted {
                    attempt: None,
                    reason: reason.clone(),
                }],
                reason,
                outcome: LoopOutcome::Failed,
                digest: self.progress.last_digest(),
            };
            return self.finish(ending, |_| Ok(())).map(Some);
        }
        if self.stop_asked() {
            let reason = "interrupted between attempts";
            return self
                .interrupt(state, reason, Vec::new(), |_| Ok(()))
                .map(Some);
        }
        Ok(None)
    }

    /// An attempt whose agent finished but whose verification was never recorded is verified
    /// first: its work is there, and redoing it would spend an attempt twice.
    async fn verify_unverified(&mut self) -> Result<Option<LoopEnd>, LoopError> {
        let run = self.run;
        let unverified = read(self.shared, |db| {
            let history = db.history(run)?;
            Ok(history.attempts.last().and_then(|last| {
                let a = &last.attempt;
                let pending = last.verification.is_none() && !a.interrupted;
                (pending && a.finished_at.is_some()).then(|| {
                    let changed = a.workspace_changed.unwrap_or(true);
                    (a.id, a.number, changed, a.session_outcome.clone())
                })
            }))
        })?;
        let Some((id, number, changed, outcome)) = unverified else {
            return Ok(None);
        };
        let from = self.state()?;
        if outcome.as_deref() != Some("success")
            || !matches!(from, RunState::Interrupted | RunState::Verifying)
        {
            return Ok(None);
        }
        if from == RunState::Interrupted {
            let reason = format!("resumed: verifying attempt {number}, whose agent had finished");
            record(self.shared, run, &[], |batch| {
                batch.transition(run, RunState::Interrupted, RunState::Verifying, &reason)
            })?;
        }
        self.verify_attempt(id, number, changed, None).await
    }
}
