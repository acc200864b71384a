//! The decision after a failed attempt: retry (after the category's delay, with a person's
//! guidance when `--interactive` asks for it), or end the run exhausted, blocked or escalated
//! (running the escalation command).

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;
use tracing::info;

use super::events::{Escalation, Event, ScheduledRecord};
use super::recorder::record;
use super::run::{Driver, Ending};
use super::{GuideRequest, LoopEnd, LoopError, LoopOutcome};
use crate::agent_loop::classify::Classification;
use crate::agent_loop::policy::{Decision, decide};
use crate::process::RunExtras;
use crate::state::{Batch, RunState, StateError};
use crate::verifier::{CommandSpec, Exit};

/// How long the escalation command may run.
const ESCALATION_TIMEOUT: Duration = Duration::from_secs(60);

/// A failed attempt, to decide on.
pub(super) struct Failed {
    /// The run's state now.
    pub(super) from: RunState,
    /// The attempt.
    pub(super) number: u32,
    /// What its failure was.
    pub(super) classification: Classification,
    /// Its digest (or the failed session's last output).
    pub(super) digest: String,
    /// Replaces the category's guidance in the next prompt.
    pub(super) guidance_instead: Option<String>,
    /// Its events (the verification, or the end of its failed session), stored with the
    /// decision's.
    pub(super) events: Vec<Event>,
}

impl Driver<'_> {
    /// Decides after a failed attempt, and either schedules the next attempt (`None`) or ends the
    /// run. `judged` (the attempt's verification, or the end of its failed session) is stored in
    /// the decision's transaction.
    pub(super) async fn decide_next(
        &mut self,
        failed: Failed,
        judged: impl FnOnce(&Batch<'_>) -> Result<(), StateError>,
    ) -> Result<Option<LoopEnd>, LoopError> {
        let decision = decide(
            &self.progress.judged,
            &failed.classification,
            &self.spec.policies,
        );
        let number = failed.number;
        info!(target: "verdict::loop", attempt = number, decision = decision.name());
        let (to, outcome, event, reason) = match decision {
            Decision::Retry {
                delay,
                guidance,
                refresh,
                last,
            } => {
                let scheduled = ScheduledRecord {
                    next: number + 1,
                    delay_ms: delay.as_millis() as u64,
                    guidance: failed.guidance_instead.clone().unwrap_or(guidance),
                    refresh,
                    last,
                    human: None,
                };
                let summary = failed.classification.summary.clone();
                let digest = failed.digest.clone();
                return match self.retry(failed, scheduled, judged).await? {
                    Some(delay) => Ok(Some(self.yielded(number, &summary, digest, delay))),
                    None => Ok(None),
                };
            }
            Decision::Exhausted { reason } => {
                let event = Event::RetryExhausted {
                    attempt: Some(number),
                    reason: reason.clone(),
                };
                (RunState::Exhausted, LoopOutcome::Failed, event, reason)
            }
            Decision::Block { reason } => {
                let event = Event::Blocked {
                    attempt: number,
                    reason: reason.clone(),
                };
                (RunState::Blocked, LoopOutcome::Failed, event, reason)
            }
            Decision::Escalate { reason, command } => {
                // The command runs before the decision is stored: a run stopped while it runs is
                // judged and escalated again on resume (at least once, never lost).
                let escalation = match &command {
                    Some(argv) => self.escalate(argv, &reason, &failed.digest).await,
                    None => Escalation::default(),
                };
                let event = Event::Escalated {
                    attempt: number,
                    reason: reason.clone(),
                    escalation,
                };
                (RunState::Escalated, LoopOutcome::Escalated, event, reason)
            }
        };
        let Failed {
            from,
            digest,
            mut events,
            ..
        } = failed;
        events.push(event);
        let ending = Ending {
            from,
            to,
            events,
            reason,
            outcome,
            digest: Some(digest),
        };
        self.finish(ending, judged).map(Some)
    }

    /// The end of a run stopped `retry_scheduled` to be continued when its next attempt is due
    /// ([`LoopSpec::yield_retries`](super::LoopSpec)).
    fn yielded(&self, number: u32, summary: &str, digest: String, delay: Duration) -> LoopEnd {
        LoopEnd {
            run: self.run,
            state: RunState::RetryScheduled,
            outcome: LoopOutcome::Unfinished,
            attempts: self.progress.judged_count(),
            reason: format!("attempt {number} failed: {summary}"),
            digest: Some(digest),
            resumed: self.resumed,
            retry_after: Some(delay),
        }
    }

    /// Schedules the next attempt: asks a person for guidance (`--interactive`), stores the
    /// decision, and waits the category's delay (cut short by Ctrl-C). With `yield_retries` it
    /// returns the delay instead of waiting it.
    async fn retry(
        &mut self,
        failed: Failed,
        mut scheduled: ScheduledRecord,
        judged: impl FnOnce(&Batch<'_>) -> Result<(), StateError>,
    ) -> Result<Option<Duration>, LoopError> {
        let (run, number) = (self.run, failed.number);
        if let Some(ask) = &mut self.guide {
            let request = GuideRequest {
                attempt: number,
                digest: failed.digest.clone(),
                next: scheduled.next,
            };
            // Blocks this task while the person types: nothing else of the run is in flight
            // between attempts.
            scheduled.human = ask(&request).filter(|text| !text.trim().is_empty());
        }
        let mut events = failed.events;
        events.push(Event::RetryScheduled(scheduled.clone()));
        let reason = format!("attempt {number} failed: {}", failed.classification.summary);
        record(self.shared, run, &events, |batch| {
            judged(batch)?;
            batch.transition(run, failed.from, RunState::RetryScheduled, &reason)
        })?;
        let delay = Duration::from_millis(scheduled.delay_ms);
        self.progress.scheduled = Some(scheduled);
        if self.spec.yield_retries {
            return Ok(Some(delay));
        }
        let deadline = Instant::now() + delay;
        while Instant::now() < deadline && !self.interrupted.load(Ordering::SeqCst) {
            let left = deadline.saturating_duration_since(Instant::now());
            tokio::time::sleep(left.min(Duration::from_millis(100))).await;
        }
        Ok(None)
    }

    /// Runs the escalation command with the run's summary as JSON on stdin; returns how it went.
    async fn escalate(&self, argv: &[String], reason: &str, digest: &str) -> Escalation {
        let attempts: Vec<_> = self
            .progress
            .earlier
            .iter()
            .map(|e| json!({"attempt": e.number, "summary": e.summary, "no_op": e.no_op}))
            .collect();
        let summary = json!({
            "run": self.run,
            "task": self.spec.task,
            "workspace": self.spec.root.to_string_lossy(),
            "reason": reason,
            "attempts": attempts,
            "digest": digest,
        });
        let failed = |error: String| Escalation {
            command: Some(argv.to_vec()),
            error: Some(error),
            ..Escalation::default()
        };
        let Some((program, args)) = argv.split_first() else {
            return failed("empty command".into());
        };
        let log = crate::paths::loop_dir(&self.spec.root)
            .join(format!("run-{}", self.run))
            .join("escalation.log");
        if let Some(dir) = log.parent()
            && let Err(error) = crate::files::create_private_dir(dir)
        {
            return failed(format!("failed to create {}: {error}", dir.display()));
        }
        let spec = CommandSpec {
            program: PathBuf::from(program),
            args: args.to_vec(),
            env: Default::default(),
            cwd: self.spec.root.clone(),
            timeout: ESCALATION_TIMEOUT,
            exit_codes: Default::default(),
            output_files: Vec::new(),
        };
        let extras = RunExtras {
            stdin: Some(summary.to_string().into_bytes()),
            on_spawn: None,
            log_limit: Some(crate::agent_loop::agent::LOG_LIMIT),
        };
        let captured = self.runner.run_with(&spec, &log, extras).await;
        let ok = matches!(captured.exit, Exit::Code { code: 0 });
        Escalation {
            command: Some(argv.to_vec()),
            error: None,
            exit: Some(captured.exit),
            ok: Some(ok),
            log: Some(log.to_string_lossy().into_owned()),
        }
    }
}
