//! One attempt of a fleet's task: `verdict loop`'s run of the task in its work directory, built
//! as `verdict loop` builds it, handing a scheduled retry back to the worker.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use async_trait::async_trait;
use verdict_core::agent_loop::agent::{PoolOptions, SessionOutcome};
use verdict_core::agent_loop::driver::{
    self, Event, LoopEnd, LoopEvent, LoopOutcome, LoopParts, RunSettings,
};
use verdict_core::digest::DEFAULT_BUDGET;
use verdict_core::state::RunState;
use verdict_fleet::worker::{Attempts, Live};
use verdict_fleet::{AttemptEnd, TaskRecord, TaskState};

use crate::agent_loop::{self, Built};
use crate::exit::ExitCode;
use crate::run;

/// The fleet's attempts, run by the loop's driver.
pub(crate) struct LoopAttempts;

#[async_trait]
impl Attempts for LoopAttempts {
    async fn run(&self, task: &TaskRecord, number: u32, root: &Path, live: Live) -> AttemptEnd {
        let (sender, receiver) = tokio::sync::oneshot::channel();
        let (task, root) = (task.clone(), root.to_path_buf());
        // The driver runs on a thread and runtime of its own: an attempt's blocking work (its
        // state database, snapshots) never stalls the worker's heartbeats.
        let spawned = std::thread::Builder::new()
            .name(format!("fleet-task-{}", task.id))
            .spawn(move || {
                let end = one(&task, number, &root, live).unwrap_or_else(|error| {
                    AttemptEnd::ended(TaskState::Failed, "error", format!("{error:#}"))
                });
                let _ = sender.send(end);
            });
        if let Err(error) = spawned {
            let reason = format!("failed to start the attempt's thread: {error}");
            return AttemptEnd::ended(TaskState::Pending, "interrupted", reason);
        }
        receiver.await.unwrap_or_else(|_| {
            AttemptEnd::ended(
                TaskState::Failed,
                "error",
                "the attempt's thread died".into(),
            )
        })
    }
}

/// How long a task whose work directory another loop holds waits before it is tried again.
const BUSY_RETRY: Duration = Duration::from_secs(10);

/// Runs attempt `number` of `task` in `root` to its end or its hand-back.
fn one(task: &TaskRecord, number: u32, root: &Path, live: Live) -> Result<AttemptEnd> {
    let (root, config) = run::load_config(Some(root))?;
    let root = std::fs::canonicalize(&root)
        .with_context(|| format!("failed to resolve {}", root.display()))?;
    let policies = agent_loop::policies(&config)?;
    let spec = &task.spec;
    let settings = RunSettings {
        agents: spec.agents.clone(),
        max_attempts: Some(spec.max_attempts.unwrap_or(policies.max_attempts)),
        reset: false,
        guidance: task.guidance.clone().or_else(|| policies.guidance.clone()),
        new_failures_only: policies.new_failures_only,
        allow_infra_edits: policies.allow_infra_edits,
        budget: Some(config.run.budget.unwrap_or(DEFAULT_BUDGET)),
        only: if spec.only.is_empty() {
            config.run.only.clone()
        } else {
            spec.only.clone()
        },
        agent_timeout: None,
        max_agent_retries: Some(PoolOptions::default().max_agent_retries),
        baseline: true,
    };
    let Built {
        spec: loop_spec,
        verify,
        pool,
        runner,
        interrupted,
    } = agent_loop::build(&root, &config, spec.task.clone(), &settings, policies, true)?;
    if number > 1
        && task.guidance.is_none()
        && let Some(end) = unrecorded_end(task, &loop_spec)?
    {
        return Ok(attempt_end(task, &end, &[], Duration::ZERO));
    }
    let gate = live.clone();
    let pool = pool.with_gate(Arc::new(move || {
        let gate = gate.clone();
        Box::pin(async move { gate.until_unheld().await })
    }));
    let events = Arc::new(Mutex::new(Vec::<LoopEvent>::new()));
    let seen = Arc::clone(&events);
    let holder = live.clone();
    let parts = LoopParts {
        verify,
        pool,
        runner: runner.clone(),
        sink: Box::new(move |event: &LoopEvent| {
            if let Some(hold) = rate_limited(&event.event) {
                holder.hold_provider(hold);
            }
            seen.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(event.clone());
        }),
        guide: None,
        interrupted: Arc::clone(&interrupted),
        exit_code: ExitCode::loop_code,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the attempt's runtime")?;
    let started = Instant::now();
    let end = runtime.block_on(async {
        let stop = live.stop;
        let watcher = tokio::spawn(async move {
            stop.asked().await;
            interrupted.store(true, Ordering::SeqCst);
            runner.cancel();
        });
        let end = driver::run_with_settings(loop_spec, parts, settings).await;
        watcher.abort();
        end
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
    let end = match end {
        Ok(end) => end,
        // Another loop holds the work directory: the worker whose lease was taken back still
        // runs (stopped, or cut off and not yet fenced) and so may its agent. Not this
        // attempt's failure: handed back uncounted, to try again once that loop lets go.
        Err(error @ driver::LoopError::WorkspaceBusy { .. }) => {
            let mut end =
                AttemptEnd::ended(TaskState::RetryScheduled, "interrupted", error.to_string());
            end.retry_after = Some(BUSY_RETRY);
            return Ok(end);
        }
        Err(error) => return Err(anyhow::anyhow!("{error}")),
    };
    let events = std::mem::take(&mut *events.lock().unwrap_or_else(|p| p.into_inner()));
    Ok(attempt_end(task, &end, &events, started.elapsed()))
}

/// The end of the task's loop run in this work directory that the fleet never recorded: the
/// run ended after the task was added, yet the task is claimed again without a person's retry
/// (which sends it back with guidance), so the worker that ran it died before it wrote the
/// end. That end is recorded now, rather than the agent run again on finished work.
///
/// The run's start is on this host's clock and the task's on the database's: on PostgreSQL, a
/// skew between them matters only for a run of the same task in the same directory that ended
/// within the skew of the task's adding.
fn unrecorded_end(task: &TaskRecord, spec: &driver::LoopSpec) -> Result<Option<LoopEnd>> {
    let path = verdict_core::paths::state_db(&spec.root);
    if !path.exists() {
        return Ok(None);
    }
    let db = verdict_core::state::StateDb::open(&path)
        .with_context(|| format!("failed to open {}", path.display()))?;
    let hash = verdict_core::state::task_hash(&spec.task);
    let workspace = spec.root.to_string_lossy();
    // Newest first: the run a later attempt would resume or follow.
    let runs = db.runs()?;
    let Some(run) = runs
        .into_iter()
        .find(|r| r.task_hash == hash && r.workspace == workspace)
    else {
        return Ok(None);
    };
    if run.finished_at.is_none() || run.created_at < task.created_at {
        return Ok(None);
    }
    let state = run.final_outcome.unwrap_or(run.state);
    let history = db.history(run.id)?;
    let (counted, _) = db.attempt_counts(run.id)?;
    let digest = history
        .attempts
        .iter()
        .rev()
        .find_map(|a| a.verification.as_ref())
        .map(|v| v.digest.clone());
    Ok(Some(LoopEnd {
        run: run.id,
        state,
        outcome: LoopOutcome::of_state(state),
        attempts: counted,
        reason: history
            .transitions
            .last()
            .map(|t| t.reason.clone())
            .unwrap_or_default(),
        digest,
        resumed: true,
        retry_after: None,
    }))
}

/// The worker's record of the attempt: the loop's end, read with its events.
fn attempt_end(
    task: &TaskRecord,
    end: &LoopEnd,
    events: &[LoopEvent],
    took: Duration,
) -> AttemptEnd {
    let (state, outcome) = match end.state {
        RunState::Passed => (TaskState::Passed, "passed"),
        RunState::RetryScheduled => (TaskState::RetryScheduled, "failed"),
        RunState::Escalated => (TaskState::Escalated, "escalated"),
        RunState::Exhausted => (TaskState::Failed, "exhausted"),
        RunState::Blocked => (TaskState::Failed, "blocked"),
        RunState::SessionFailed => (TaskState::Failed, "session_failed"),
        RunState::Interrupted
        | RunState::Pending
        | RunState::AgentRunning
        | RunState::Verifying => (TaskState::Pending, "interrupted"),
    };
    let mut record = AttemptEnd::ended(state, outcome, end.reason.clone());
    record.counted = end.attempts > task.attempts;
    record.retry_after = end.retry_after;
    record.digest = end.digest.clone();
    let mut agent_ms = 0;
    let mut log = None;
    for event in events {
        match &event.event {
            Event::AgentFinished(finished) => {
                agent_ms += finished.duration_ms;
                record.agent = Some(finished.agent.clone());
                log = Some(PathBuf::from(&finished.log));
            }
            Event::VerificationFinished(verified) => {
                record.category = verified.category.map(|c| c.as_str().to_owned());
                record.fingerprints = verified
                    .failures
                    .iter()
                    .map(|(fingerprint, label)| format!("{fingerprint} {label}"))
                    .collect();
            }
            _ => {}
        }
    }
    record.agent_ms = agent_ms;
    record.verify_ms = (took.as_millis() as u64).saturating_sub(agent_ms);
    if let Some((tokens, cost)) = log.as_deref().and_then(reported_usage) {
        record.tokens = tokens;
        record.cost_usd = cost;
    }
    record.events = events.iter().map(|e| e.to_json().to_string()).collect();
    record
}

/// The retry-after an agent's rate limit reported, from the pool's retry event.
fn rate_limited(event: &Event) -> Option<Duration> {
    match event {
        Event::AgentRetry(retry) => match &retry.outcome {
            SessionOutcome::RateLimited { retry_after, .. }
            | SessionOutcome::Overloaded { retry_after, .. } => *retry_after,
            _ => None,
        },
        _ => None,
    }
}

/// What an agent reported it used, from the last lines of its log: Claude Code's
/// `--output-format json` ends with a `result` object carrying `total_cost_usd` and `usage`.
fn reported_usage(log: &Path) -> Option<(Option<u64>, Option<f64>)> {
    const TAIL: u64 = 64 * 1024;
    let mut file = std::fs::File::open(log).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut tail = Vec::new();
    file.take(TAIL).read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    text.lines().rev().find_map(|line| {
        let line = line.trim();
        if !line.starts_with('{') || !line.contains("total_cost_usd") {
            return None;
        }
        let value: serde_json::Value = serde_json::from_str(line).ok()?;
        let cost = value
            .get("total_cost_usd")
            .and_then(serde_json::Value::as_f64);
        let usage = value.get("usage");
        let tokens = usage.map(|usage| {
            [
                "input_tokens",
                "output_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
            ]
            .iter()
            .filter_map(|k| usage.get(k).and_then(serde_json::Value::as_u64))
            .sum()
        });
        Some((tokens, cost))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_json_result_gives_tokens_and_cost() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("agent.log");
        std::fs::write(
            &log,
            "working\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"total_cost_usd\":0.0421,\"usage\":{\"input_tokens\":1200,\"output_tokens\":300,\"cache_read_input_tokens\":500}}\n",
        )
        .expect("write");
        assert_eq!(reported_usage(&log), Some((Some(2000), Some(0.0421))));
        std::fs::write(&log, "no json here\n").expect("write");
        assert_eq!(reported_usage(&log), None);
    }
}
