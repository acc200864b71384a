//! The inner retry layer (seed 002): [`AgentPool`] runs one attempt's session over several agents,
//! riding out transient provider failures so that they never cost the outer loop an attempt.
//!
//! The rules, applied after each session:
//!
//! - **Final outcomes** — success, time-out, turn limit, crash, cancellation — end the run: they
//!   are the outer loop's business (a session time-out is not retried here).
//! - **Transient failures** — rate limited, overloaded, network, server error — mark the agent
//!   limited for this cycle with a delay: the `retry-after` it printed, clamped to 1–60 s, else the
//!   next delay of its exponential [`Backoff`] with jitter. If another
//!   agent is not limited, it is tried at once; when every agent is limited, the pool waits the
//!   largest delay observed in the cycle, then goes on round-robin with the cycle cleared.
//! - **Skip-agent failures** — auth, quota, model unavailable, not started — take the agent out of
//!   the pool for the pool's life (credentials do not fix themselves between attempts) and move on
//!   to the next one; when none is left the run ends with [`PoolEnd::NoAgentLeft`].
//! - Every retry decision is a [`RetryRecord`] (the `agent_retry` event), handed to the hook as it
//!   is made. At most `max_agent_retries` retries of transient failures per run, after which the
//!   run ends with [`PoolEnd::RetriesExhausted`]. Moving on from an agent taken out is not such a
//!   retry and is not limited by it: an auth or quota error does not go away by trying again, and
//!   each agent is taken out at most once, so the number of agents bounds those moves.
//!
//! The pool remembers which agent last ended a run and starts the next run there.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::AgentSpec;
use super::backoff::{Backoff, BackoffPolicy, Clock, TokioClock};
use super::outcome::{OutcomeClass, SessionOutcome};
use super::session::{AgentSession, CommandSession, SessionRequest, SessionResult};
use crate::process::{CancelHandle, ProcessRunner};

/// How many retries one run may make when not configured.
pub const DEFAULT_MAX_AGENT_RETRIES: u32 = 5;

/// The inner layer's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolOptions {
    /// The most retries of transient failures (rate limit, overload, network, server error) in
    /// one run. Moving on from an agent taken out of the pool does not count.
    pub max_agent_retries: u32,
    /// The waits between retries.
    pub backoff: BackoffPolicy,
}

impl Default for PoolOptions {
    /// [`DEFAULT_MAX_AGENT_RETRIES`] retries, the default [`BackoffPolicy`].
    fn default() -> Self {
        PoolOptions {
            max_agent_retries: DEFAULT_MAX_AGENT_RETRIES,
            backoff: BackoffPolicy::default(),
        }
    }
}

/// What the pool decided after a failed session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryAction {
    /// Run the same agent again after the delay (it is the only one not taken out).
    RetrySame,
    /// Go on with another agent (after the delay when every agent was limited).
    NextAgent,
    /// Take the failed agent out of the pool and go on with another one.
    SkipAgent,
}

/// One retry decision: the payload of an `agent_retry` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RetryRecord {
    /// Which retry of the run this is (1-based).
    pub retry: u32,
    /// The agent whose session failed.
    pub agent: String,
    /// How it failed.
    #[serde(flatten)]
    pub outcome: SessionOutcome,
    /// What the pool does about it.
    pub action: RetryAction,
    /// The agent run next.
    pub next_agent: String,
    /// How long the pool waits first.
    #[serde(rename = "delay_ms", serialize_with = "millis")]
    pub delay: Duration,
    /// Whether the wait is because every agent was limited.
    pub all_limited: bool,
}

/// Why a pool run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PoolEnd {
    /// The last session ended with a final outcome (success or a session-level failure).
    Finished,
    /// The last session failed transiently, and no retry was left.
    RetriesExhausted,
    /// Every agent was taken out (auth, quota, model, could not start).
    NoAgentLeft,
}

/// What one pool run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolRun {
    /// The last session's result (the one the outer loop judges).
    pub result: SessionResult,
    /// Every retry decision, in order.
    pub retries: Vec<RetryRecord>,
    /// Why the run ended.
    pub end: PoolEnd,
    /// How many sessions ran (1 + retries).
    pub sessions: u32,
}

/// Told each [`RetryRecord`] as the decision is made (before any wait).
pub type RetryHook = Arc<dyn Fn(&RetryRecord) + Send + Sync>;

/// Awaited before each session starts: a fleet's worker holds a session back while another
/// worker's agent of the same provider reported a rate limit.
pub type SessionGate =
    Arc<dyn Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send + Sync>;

/// Several agents behind one [`AgentPool::run`], with seed 002's retries (see the module docs).
pub struct AgentPool {
    sessions: Vec<Box<dyn AgentSession>>,
    options: PoolOptions,
    clock: Arc<dyn Clock>,
    on_retry: Option<RetryHook>,
    cancel: Option<CancelHandle>,
    gate: Option<SessionGate>,
    state: Mutex<PoolState>,
}

/// What the pool remembers between runs.
#[derive(Debug)]
struct PoolState {
    /// Agents taken out (auth, quota, model, not started).
    out: Vec<bool>,
    /// The agent the next run starts with.
    cursor: usize,
}

impl std::fmt::Debug for AgentPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentPool")
            .field(
                "agents",
                &self.sessions.iter().map(|s| s.name()).collect::<Vec<_>>(),
            )
            .field("options", &self.options)
            .finish()
    }
}

impl AgentPool {
    /// A pool over `sessions` (tried in this order), sleeping with [`TokioClock`].
    pub fn new(sessions: Vec<Box<dyn AgentSession>>, options: PoolOptions) -> AgentPool {
        let out = vec![false; sessions.len()];
        AgentPool {
            sessions,
            options,
            clock: Arc::new(TokioClock),
            on_retry: None,
            cancel: None,
            gate: None,
            state: Mutex::new(PoolState { out, cursor: 0 }),
        }
    }

    /// A pool of [`CommandSession`]s, one per spec, all run by `runner` (whose cancellation also
    /// cuts the pool's waits short).
    pub fn from_specs(
        specs: Vec<AgentSpec>,
        runner: &ProcessRunner,
        options: PoolOptions,
    ) -> AgentPool {
        let sessions = specs
            .into_iter()
            .map(|spec| {
                Box::new(CommandSession::new(spec, runner.clone())) as Box<dyn AgentSession>
            })
            .collect();
        AgentPool::new(sessions, options).with_cancel(runner.cancel_handle())
    }

    /// Sleeps with `clock` instead (tests: [`RecordingClock`](super::backoff::RecordingClock)).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> AgentPool {
        self.clock = clock;
        self
    }

    /// Calls `hook` with each retry decision as it is made.
    pub fn on_retry(mut self, hook: RetryHook) -> AgentPool {
        self.on_retry = Some(hook);
        self
    }

    /// Awaits `gate` before each session (cut short by the cancel, as every wait is).
    pub fn with_gate(mut self, gate: SessionGate) -> AgentPool {
        self.gate = Some(gate);
        self
    }

    /// Cuts waits short when `cancel` fires (the next session then ends as cancelled at once).
    pub fn with_cancel(mut self, cancel: CancelHandle) -> AgentPool {
        self.cancel = Some(cancel);
        self
    }

    /// The agents' names, in order.
    pub fn agents(&self) -> Vec<&str> {
        self.sessions.iter().map(|s| s.name()).collect()
    }

    /// The agent the next run starts with: the one that ended the last run, skipping agents taken
    /// out; `None` when none is left.
    pub fn next_agent(&self) -> Option<&str> {
        let (out, cursor) = match self.state.lock() {
            Ok(state) => (state.out.clone(), state.cursor),
            Err(_) => (vec![false; self.sessions.len()], 0),
        };
        let index = next_in(&out, cursor, |_| true)?;
        Some(self.sessions[index].name())
    }

    /// Runs one attempt's session: the first agent in turn, then retries as the module docs say.
    /// Each session gets its own directory under `request.run_dir` (`01-claude`, `02-codex`, …).
    pub async fn run(&self, request: SessionRequest) -> PoolRun {
        let count = self.sessions.len();
        let (out, cursor) = match self.state.lock() {
            Ok(state) => (state.out.clone(), state.cursor),
            Err(_) => (vec![false; count], 0),
        };
        let backoffs = (0..count)
            .map(|index| {
                let mut policy = self.options.backoff.clone();
                policy.seed = policy.seed.map(|seed| seed.wrapping_add(index as u64));
                policy.delays()
            })
            .collect();
        let mut turn = Turn {
            out,
            cursor,
            backoffs,
            limited: BTreeMap::new(),
            retries: Vec::new(),
            transient: 0,
            sessions: 0,
        };
        let Some(mut index) = next_in(&turn.out, turn.cursor, |_| true) else {
            return PoolRun {
                result: self.no_agent_result(&request),
                retries: turn.retries,
                end: PoolEnd::NoAgentLeft,
                sessions: turn.sessions,
            };
        };
        loop {
            turn.sessions += 1;
            let session = &self.sessions[index];
            let mut this = request.clone();
            this.run_dir =
                request
                    .run_dir
                    .join(format!("{:02}-{}", turn.sessions, sanitize(session.name())));
            if let Some(gate) = &self.gate {
                match &self.cancel {
                    Some(cancel) => {
                        tokio::select! {
                            () = gate() => {}
                            () = cancel.cancelled_once() => {}
                        }
                    }
                    None => gate().await,
                }
            }
            let result = session.run(this).await;
            let step = match result.outcome.class() {
                OutcomeClass::Final => {
                    turn.cursor = index;
                    Step::End(PoolEnd::Finished)
                }
                OutcomeClass::SkipAgent => self.skip_agent(&mut turn, index, &result).await,
                OutcomeClass::Transient => self.after_transient(&mut turn, index, &result).await,
            };
            match step {
                Step::Next(next) => index = next,
                Step::End(end) => {
                    return self.finish(
                        &turn.out,
                        turn.cursor,
                        end,
                        turn.retries,
                        result,
                        turn.sessions,
                    );
                }
            }
        }
    }

    /// After an agent that is out (auth, quota, model, start): the next agent not waiting out a
    /// limit, or — when all are — the largest wait.
    async fn skip_agent(&self, turn: &mut Turn, index: usize, result: &SessionResult) -> Step {
        let count = self.sessions.len();
        turn.out[index] = true;
        turn.limited.remove(&index);
        turn.cursor = (index + 1) % count;
        let Some(next) = next_in(&turn.out, index + 1, |_| true) else {
            return Step::End(PoolEnd::NoAgentLeft);
        };
        // The agents left may all be waiting out a limit already.
        let all_limited = turn.all_limited();
        let delay = if all_limited {
            turn.limited.values().copied().max().unwrap_or_default()
        } else {
            Duration::ZERO
        };
        let next = if all_limited {
            turn.limited.clear();
            next
        } else {
            next_in(&turn.out, index + 1, |i| !turn.limited.contains_key(&i)).unwrap_or(next)
        };
        self.decide(
            &mut turn.retries,
            result,
            RetryAction::SkipAgent,
            next,
            delay,
            all_limited,
        )
        .await;
        Step::Next(next)
    }

    /// After a transient failure (rate limit, overload, network): the next agent not limited,
    /// the same one after its delay, or the end once the retries are spent.
    async fn after_transient(&self, turn: &mut Turn, index: usize, result: &SessionResult) -> Step {
        let delay = match result.outcome.retry_after() {
            Some(asked) => self.options.backoff.clamp_retry_after(asked),
            None => turn.backoffs[index]
                .next()
                .unwrap_or(self.options.backoff.max),
        };
        turn.limited.insert(index, delay);
        if turn.transient >= self.options.max_agent_retries {
            turn.cursor = index;
            return Step::End(PoolEnd::RetriesExhausted);
        }
        let all_limited = turn.all_limited();
        let (next, delay) = if all_limited {
            let wait = turn.limited.values().copied().max().unwrap_or(delay);
            turn.limited.clear();
            (
                next_in(&turn.out, index + 1, |_| true).unwrap_or(index),
                wait,
            )
        } else {
            let next =
                next_in(&turn.out, index + 1, |i| !turn.limited.contains_key(&i)).unwrap_or(index);
            (next, Duration::ZERO)
        };
        let action = if next == index {
            RetryAction::RetrySame
        } else {
            RetryAction::NextAgent
        };
        turn.transient += 1;
        self.decide(&mut turn.retries, result, action, next, delay, all_limited)
            .await;
        Step::Next(next)
    }

    /// Remembers what the next run needs and wraps up this one.
    fn finish(
        &self,
        out: &[bool],
        cursor: usize,
        end: PoolEnd,
        retries: Vec<RetryRecord>,
        result: SessionResult,
        sessions: u32,
    ) -> PoolRun {
        if let Ok(mut state) = self.state.lock() {
            state.out = out.to_vec();
            state.cursor = cursor;
        }
        PoolRun {
            result,
            retries,
            end,
            sessions,
        }
    }

    /// Records a decision, tells the hook, then waits `delay` (cut short by cancellation).
    async fn decide(
        &self,
        retries: &mut Vec<RetryRecord>,
        result: &SessionResult,
        action: RetryAction,
        next: usize,
        delay: Duration,
        all_limited: bool,
    ) {
        let record = RetryRecord {
            retry: retries.len() as u32 + 1,
            agent: result.agent.clone(),
            outcome: result.outcome.clone(),
            action,
            next_agent: self.sessions[next].name().to_owned(),
            delay,
            all_limited,
        };
        tracing::info!(
            agent = %record.agent,
            outcome = record.outcome.name(),
            next = %record.next_agent,
            delay_ms = delay.as_millis() as u64,
            "agent_retry"
        );
        if let Some(hook) = &self.on_retry {
            hook(&record);
        }
        retries.push(record);
        if delay.is_zero() {
            return;
        }
        match &self.cancel {
            Some(cancel) => {
                if cancel.is_cancelled() {
                    return;
                }
                tokio::select! {
                    () = self.clock.sleep(delay) => {}
                    () = cancel.cancelled_once() => {}
                }
            }
            None => self.clock.sleep(delay).await,
        }
    }

    /// The result of a run with no agent to start.
    fn no_agent_result(&self, request: &SessionRequest) -> SessionResult {
        let message = if self.sessions.is_empty() {
            "no agent is configured".to_owned()
        } else {
            "every agent was taken out of the pool (auth, quota, model or start failures)"
                .to_owned()
        };
        SessionResult {
            agent: String::new(),
            outcome: SessionOutcome::NotStarted {
                message: message.clone(),
            },
            exit: crate::verifier::Exit::NotStarted { message },
            output_tail: String::new(),
            duration: Duration::ZERO,
            pid: None,
            log_path: request.run_dir.clone(),
        }
    }
}

/// What one attempt's session(s) know as the pool moves between agents.
struct Turn {
    /// Agents out for the rest of the loop.
    out: Vec<bool>,
    /// Where the next attempt starts.
    cursor: usize,
    backoffs: Vec<Backoff>,
    /// Agents limited in the current cycle, with the delay each asked for.
    limited: BTreeMap<usize, Duration>,
    retries: Vec<RetryRecord>,
    /// Retries of transient failures, the ones `max_agent_retries` limits.
    transient: u32,
    sessions: u32,
}

impl Turn {
    /// Whether every agent left is waiting out a limit.
    fn all_limited(&self) -> bool {
        (0..self.out.len()).all(|i| self.out[i] || self.limited.contains_key(&i))
    }
}

/// What follows a session that did not end the attempt.
enum Step {
    /// Run the session of this agent.
    Next(usize),
    /// The attempt's sessions end so.
    End(PoolEnd),
}

/// The first index from `start` (wrapping) that is not out and passes `keep`.
fn next_in(out: &[bool], start: usize, keep: impl Fn(usize) -> bool) -> Option<usize> {
    let count = out.len();
    (0..count)
        .map(|offset| (start + offset) % count)
        .find(|&i| !out[i] && keep(i))
}

/// A name made safe for a directory name.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn millis<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: &T) {}

    #[tokio::test]
    async fn the_pool_and_its_runs_cross_threads() {
        let pool = AgentPool::new(Vec::new(), PoolOptions::default());
        send_sync(&pool);
        let request = SessionRequest {
            prompt: String::new(),
            cwd: ".".into(),
            run_dir: ".".into(),
            on_spawn: None,
        };
        let run = pool.run(request);
        send(&run);
        let run = run.await;
        assert_eq!((run.end, run.sessions), (PoolEnd::NoAgentLeft, 0));
        assert!(
            matches!(&run.result.outcome, SessionOutcome::NotStarted { message } if message == "no agent is configured")
        );
    }

    #[test]
    fn round_robin_skips_agents_taken_out() {
        let out = [false, true, false];
        assert_eq!(next_in(&out, 1, |_| true), Some(2));
        assert_eq!(next_in(&out, 3, |_| true), Some(0));
        assert_eq!(next_in(&out, 0, |i| i != 0), Some(2));
        assert_eq!(next_in(&[true, true], 0, |_| true), None);
        assert_eq!(next_in(&[], 0, |_| true), None);
    }
}
