//! `verdict fleet work`: takes due tasks and runs one attempt of each at a time, holding a lease
//! with a heartbeat, until told to drain or, with `until_idle`, until nothing waits.
//!
//! One attempt, as [`work`] runs it:
//!
//! ```text
//! claim (one transaction: running, lease token, claim row, agent slot)
//! heartbeat every `heartbeat`: renew, or stop the agent (cancelled, expired, lease lost, or the
//!   database out of reach until the lease would lapse: self-fencing)
//! prepare the work directory (worktree or clone at its revision; setup on a fresh one)
//! run the attempt (the loop's driver, handing a scheduled retry back)
//! keep what the agent changed (a branch and the diff)
//! finish (one transaction, fenced by the lease token: a stale token changes nothing)
//! ```
//!
//! No database transaction is open across an attempt: the claim and the finish are each one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tracing::{info, warn};

use crate::error::Result;
use crate::store::{AgentLimit, AttemptEnd, Claim, LeaseState, Store, WorkerId};
use crate::task::{TaskId, TaskRecord, TaskState};
use crate::workdir;

/// The environment variable that holds a worker at one point of an attempt, for the chaos
/// tests: `POINT:DIR`, the point one of `claimed`, `prepared`, `ran` (the attempt ended, its
/// result not yet written). The worker writes `DIR/POINT-<pid>` and waits there for ever, to
/// be killed.
pub const PAUSE_ENV: &str = "VERDICT_FLEET_PAUSE_AT";

/// Holds the worker at `point` when [`PAUSE_ENV`] names it.
async fn pause_at(point: &str) {
    let Some(value) = std::env::var_os(PAUSE_ENV) else {
        return;
    };
    let value = value.to_string_lossy();
    let Some((named, dir)) = value.split_once(':') else {
        return;
    };
    if named != point {
        return;
    }
    let mark = Path::new(dir).join(format!("{point}-{}", std::process::id()));
    let _ = std::fs::write(&mark, b"");
    std::future::pending::<()>().await;
}

/// Why an attempt was told to stop before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// A person cancelled the task.
    Cancelled,
    /// The task passed its deadline or cost cap.
    Expired,
    /// The worker lost its lease (or could not renew it in time): another worker may take it.
    LeaseLost,
    /// The worker is draining and the drain deadline passed.
    Drained,
}

/// Tells a running attempt to stop: its runner stops the agent and returns the attempt
/// interrupted.
#[derive(Debug, Default)]
pub struct Stop {
    asked: AtomicBool,
    reason: Mutex<Option<StopReason>>,
    notify: Notify,
}

impl Stop {
    /// Asks the attempt to stop; the first reason given is kept.
    pub fn stop(&self, reason: StopReason) {
        let mut held = self.reason.lock().unwrap_or_else(|p| p.into_inner());
        held.get_or_insert(reason);
        self.asked.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Why the attempt was asked to stop, if it was.
    pub fn reason(&self) -> Option<StopReason> {
        *self.reason.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the attempt was asked to stop.
    pub fn is_asked(&self) -> bool {
        self.asked.load(Ordering::SeqCst)
    }

    /// Resolves once the attempt is asked to stop (at once if it was).
    pub async fn asked(&self) {
        loop {
            let notified = self.notify.notified();
            if self.is_asked() {
                return;
            }
            notified.await;
        }
    }
}

/// What a running attempt holds of its worker: the [`Stop`] it must heed, and a way to hold its
/// provider fleet-wide the moment an agent reports a rate limit.
#[derive(Clone)]
pub struct Live {
    /// Set when the attempt must stop.
    pub stop: Arc<Stop>,
    holds: tokio::sync::mpsc::UnboundedSender<Duration>,
    store: Arc<dyn Store>,
    provider: String,
    /// The worker's runtime: the store is only ever used there (a connection a pool opened on
    /// an attempt's own runtime would die with it).
    runtime: tokio::runtime::Handle,
}

impl Live {
    /// Resolves once no rate limit holds the task's provider: awaited before each agent session,
    /// so that no session starts before a retry-after another worker's agent reported. A
    /// database that cannot be asked does not hold the session back.
    pub async fn until_unheld(&self) {
        loop {
            let store = Arc::clone(&self.store);
            let asked = self.runtime.spawn(async move { store.held().await });
            let held = match asked.await {
                Ok(Ok(held)) => held.iter().any(|(agent, _)| *agent == self.provider),
                _ => false,
            };
            if !held || self.stop.is_asked() {
                return;
            }
            tokio::time::sleep(HOLD_POLL).await;
        }
    }

    /// Holds the task's provider for `hold` from now across the fleet: no worker starts a
    /// session of it before the reported retry-after.
    pub fn hold_provider(&self, hold: Duration) {
        // The worker's forwarder ends with the attempt; a hold after that has nowhere to go.
        let _ = self.holds.send(hold);
    }
}

/// How often a session held back by a rate limit looks whether the hold has ended.
const HOLD_POLL: Duration = Duration::from_millis(250);

/// Runs one attempt of a task in its work directory: the CLI runs the loop's driver there with
/// `yield_retries`, so the attempt, its judgement, prompts and events are the loop's own.
///
/// Contract: returns how the attempt ended; an attempt told to [`Stop`] stops its agent and
/// returns soon, as interrupted (the worker turns the stop's reason into the task's state).
/// The returned [`AttemptEnd`]'s `workdir`, `branch` and `diff` are filled in by the worker.
#[async_trait]
pub trait Attempts: Send + Sync {
    /// Runs attempt `number` of `task` in `root`.
    async fn run(&self, task: &TaskRecord, number: u32, root: &Path, live: Live) -> AttemptEnd;
}

/// How a worker works.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// Attempts at once.
    pub concurrency: usize,
    /// How long a lease lasts unless renewed.
    pub lease: Duration,
    /// How often a running attempt renews its lease (well inside `lease`).
    pub heartbeat: Duration,
    /// How long running attempts may go on after a drain is asked before they are handed back
    /// interrupted.
    pub drain: Duration,
    /// Exit once nothing is pending, running or scheduled.
    pub until_idle: bool,
    /// The longest wait between looks at the queue.
    pub poll: Duration,
    /// Take no task while the work directories' filesystem has less free space than this.
    pub min_free_bytes: u64,
    /// Where tasks' work directories are made.
    pub work_base: PathBuf,
    /// Fleet-wide limits per agent provider.
    pub limits: Vec<AgentLimit>,
    /// How long a task's setup command may run.
    pub setup_timeout: Duration,
    /// Remove tasks that ended longer ago than this, as the worker goes (and the work
    /// directories of passed tasks at once); `None`: keep everything.
    pub retain: Option<Duration>,
}

impl Default for WorkerOptions {
    fn default() -> Self {
        WorkerOptions {
            concurrency: 1,
            lease: Duration::from_secs(60),
            heartbeat: Duration::from_secs(10),
            drain: Duration::from_secs(25),
            until_idle: false,
            poll: Duration::from_secs(1),
            min_free_bytes: 1 << 30,
            work_base: PathBuf::from("fleet-work"),
            limits: Vec::new(),
            setup_timeout: Duration::from_secs(1800),
            retain: None,
        }
    }
}

/// What a worker did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkSummary {
    /// Attempts it finished and recorded.
    pub finished: u64,
    /// Attempts whose lease it lost (their results not written).
    pub lost: u64,
    /// Attempts handed back interrupted by a drain.
    pub drained: u64,
    /// Expired leases of other workers it took back.
    pub rescued: u64,
}

/// How often a worker applies the retention.
const PRUNE_EVERY: Duration = Duration::from_secs(600);

/// Removes ended tasks older than `age`, and the work directories the store gives up.
async fn prune(store: &Arc<dyn Store>, age: Duration, base: &Path) -> Result<()> {
    let pruned = store.prune(age, true).await?;
    for dir in &pruned.workdirs {
        if let Err(error) = workdir::remove(Path::new(dir), base).await {
            warn!(target: "verdict::fleet", dir, %error, "could not remove a work directory");
        }
    }
    Ok(())
}

/// The worker's state while it runs.
struct Running {
    set: JoinSet<(TaskId, Result<Ended>)>,
    stops: HashMap<TaskId, Arc<Stop>>,
}

/// How one claimed attempt ended, for the worker's summary.
enum Ended {
    Finished { drained: bool },
    Lost,
}

/// Works until `drain` is asked and running attempts are done (or handed back), or with
/// `until_idle` until nothing waits. `drain` is set by SIGTERM in the CLI.
pub async fn work(
    store: Arc<dyn Store>,
    attempts: Arc<dyn Attempts>,
    me: WorkerId,
    options: WorkerOptions,
    drain: Arc<Stop>,
) -> Result<WorkSummary> {
    store.set_limits(&options.limits).await?;
    let options = Arc::new(options);
    let mut summary = WorkSummary::default();
    let mut running = Running {
        set: JoinSet::new(),
        stops: HashMap::new(),
    };
    let mut last_rescue: Option<Instant> = None;
    let mut last_prune: Option<Instant> = None;
    let mut drain_since: Option<Instant> = None;
    let mut low_disk_said = false;
    // Looks in a row that found a task due but could not claim it.
    let mut unclaimable = 0;
    loop {
        if drain.is_asked() {
            let since = *drain_since.get_or_insert_with(Instant::now);
            if running.set.is_empty() {
                break;
            }
            if since.elapsed() >= options.drain {
                for stop in running.stops.values() {
                    stop.stop(StopReason::Drained);
                }
            }
            wait_for_one(
                &mut running,
                &mut summary,
                Duration::from_millis(100),
                &drain,
            )
            .await;
            continue;
        }
        if last_rescue.is_none_or(|at| at.elapsed() >= options.lease / 2) {
            let rescued = store.rescue().await?;
            for r in &rescued {
                info!(target: "verdict::fleet", task = r.task, attempt = r.number, worker = %r.worker, "rescued an expired lease");
            }
            summary.rescued += rescued.len() as u64;
            last_rescue = Some(Instant::now());
        }
        if let Some(age) = options.retain
            && last_prune.is_none_or(|at| at.elapsed() >= PRUNE_EVERY)
        {
            prune(&store, age, &options.work_base).await?;
            last_prune = Some(Instant::now());
        }
        let took = fill(
            &store,
            &attempts,
            &me,
            &options,
            &mut running,
            &mut low_disk_said,
        )
        .await?;
        if !took && running.set.is_empty() && options.until_idle && store.counts().await?.idle() {
            break;
        }
        let wait = if took {
            unclaimable = 0;
            Duration::ZERO
        } else {
            next_look(&store, &options, running.set.len(), &mut unclaimable).await?
        };
        wait_for_one(&mut running, &mut summary, wait, &drain).await;
    }
    Ok(summary)
}

/// Claims due tasks while slots are free; whether it took any.
async fn fill(
    store: &Arc<dyn Store>,
    attempts: &Arc<dyn Attempts>,
    me: &WorkerId,
    options: &Arc<WorkerOptions>,
    running: &mut Running,
    low_disk_said: &mut bool,
) -> Result<bool> {
    let mut took = false;
    while running.set.len() < options.concurrency {
        if let Some(free) = low_disk(options) {
            if !*low_disk_said {
                warn!(target: "verdict::fleet", free, need = options.min_free_bytes, "too little free disk to take a task");
                *low_disk_said = true;
            }
            break;
        }
        *low_disk_said = false;
        let Some(claim) = store.claim(me, options.lease).await? else {
            break;
        };
        took = true;
        info!(target: "verdict::fleet", task = claim.task.id, attempt = claim.number, "claimed");
        let stop = Arc::new(Stop::default());
        running.stops.insert(claim.task.id, Arc::clone(&stop));
        let (store, attempts, options) =
            (Arc::clone(store), Arc::clone(attempts), Arc::clone(options));
        running.set.spawn(async move {
            let id = claim.task.id;
            (id, attempt(store, attempts, claim, options, stop).await)
        });
    }
    Ok(took)
}

/// The free bytes where work directories go, when fewer than the minimum.
fn low_disk(options: &WorkerOptions) -> Option<u64> {
    let mut probe = options.work_base.as_path();
    // The base may not exist yet: ask the nearest directory that does.
    while !probe.exists() {
        probe = probe.parent()?;
    }
    let probe = if probe.as_os_str().is_empty() {
        Path::new(".")
    } else {
        probe
    };
    let free = workdir::free_bytes(probe).ok()?;
    (free < options.min_free_bytes).then_some(free)
}

/// How long to wait before looking at the queue again: until the next task is due, at most
/// `poll`; `poll` while every slot is taken. Called after a claim found nothing: a task due
/// now that could not be claimed waits on something else (its agent held by a rate limit or
/// out of slots, its work directory on another host), so it is looked at again after
/// [`UNCLAIMABLE_WAIT`], not at once in a busy loop.
async fn next_look(
    store: &Arc<dyn Store>,
    options: &WorkerOptions,
    running: usize,
    unclaimable: &mut u32,
) -> Result<Duration> {
    if running >= options.concurrency {
        return Ok(options.poll);
    }
    let counts = store.counts().await?;
    Ok(match counts.next_due_in {
        // The first time, the task may have come due just after the claim looked: look again
        // at once.
        Some(ms) if ms <= 0 && *unclaimable == 0 => {
            *unclaimable += 1;
            Duration::from_millis(1)
        }
        Some(ms) if ms <= 0 => UNCLAIMABLE_WAIT.min(options.poll),
        Some(ms) => {
            *unclaimable = 0;
            Duration::from_millis(ms as u64).min(options.poll)
        }
        None => options.poll,
    })
}

/// How soon a worker looks again at a task that is due but could not be claimed.
const UNCLAIMABLE_WAIT: Duration = Duration::from_millis(200);

/// Waits `wait` at most for a running attempt to end (or a drain to be asked), and counts every
/// attempt that has ended by then: one that ended frees its slot only once it is joined, so
/// all of them are, not one a turn.
async fn wait_for_one(
    running: &mut Running,
    summary: &mut WorkSummary,
    wait: Duration,
    drain: &Stop,
) {
    let joined = tokio::select! {
        biased;
        joined = running.set.join_next(), if !running.set.is_empty() => joined,
        () = drain.asked(), if !drain.is_asked() => None,
        () = tokio::time::sleep(wait) => None,
    };
    let Some(joined) = joined else {
        return;
    };
    count_ended(running, summary, joined);
    while let Some(joined) = running.set.try_join_next() {
        count_ended(running, summary, joined);
    }
}

/// Counts one joined attempt in the worker's summary.
fn count_ended(
    running: &mut Running,
    summary: &mut WorkSummary,
    joined: std::result::Result<(TaskId, Result<Ended>), tokio::task::JoinError>,
) {
    match joined {
        Ok((task, ended)) => {
            running.stops.remove(&task);
            match ended {
                Ok(Ended::Finished { drained }) => {
                    summary.finished += 1;
                    summary.drained += u64::from(drained);
                }
                Ok(Ended::Lost) => summary.lost += 1,
                Err(error) => {
                    warn!(target: "verdict::fleet", task, %error, "an attempt could not be recorded");
                }
            }
        }
        Err(error) => warn!(target: "verdict::fleet", %error, "an attempt's task failed"),
    }
}

/// One claimed attempt, from the heartbeat's start to the fenced finish.
async fn attempt(
    store: Arc<dyn Store>,
    attempts: Arc<dyn Attempts>,
    claim: Claim,
    options: Arc<WorkerOptions>,
    stop: Arc<Stop>,
) -> Result<Ended> {
    let lost = Arc::new(AtomicBool::new(false));
    let beat = tokio::spawn(heartbeat(
        Arc::clone(&store),
        claim.clone(),
        Arc::clone(&options),
        Arc::clone(&stop),
        Arc::clone(&lost),
    ));
    pause_at("claimed").await;
    let mut end = match prepared(&claim, &options).await {
        Ok(prepared) => {
            pause_at("prepared").await;
            run_in(&store, &attempts, &claim, &prepared, &stop).await
        }
        Err(end) => *end,
    };
    pause_at("ran").await;
    beat.abort();
    if lost.load(Ordering::SeqCst) || stop.reason() == Some(StopReason::LeaseLost) {
        return Ok(Ended::Lost);
    }
    let drained = apply_stop(&mut end, stop.reason());
    if store.finish(&claim, &end).await? {
        info!(target: "verdict::fleet", task = claim.task.id, attempt = claim.number, state = %end.state, "finished");
        Ok(Ended::Finished { drained })
    } else {
        Ok(Ended::Lost)
    }
}

/// The task's work directory, prepared (and set up when fresh); an attempt end that fails the
/// task when it cannot be.
async fn prepared(
    claim: &Claim,
    options: &WorkerOptions,
) -> std::result::Result<workdir::Prepared, Box<AttemptEnd>> {
    let task = &claim.task;
    let fail = |reason: String| Box::new(AttemptEnd::ended(TaskState::Failed, "workdir", reason));
    let prepared = workdir::prepare(task, &options.work_base)
        .await
        .map_err(|error| fail(format!("could not prepare its work directory: {error}")))?;
    if prepared.fresh
        && let Some(setup) = &task.spec.setup
    {
        // Recorded where the next attempt looks: a worker that dies during the setup leaves
        // nothing running.
        let running = verdict_core::paths::running(&prepared.root);
        let runner = verdict_core::process::ProcessRunner::new().with_records(running);
        workdir::run_setup(&runner, &prepared.root, setup, options.setup_timeout)
            .await
            .map_err(|error| {
                let mut end = fail(format!("its setup command failed: {error}"));
                end.workdir = Some(prepared.root.to_string_lossy().into_owned());
                end
            })?;
    }
    Ok(prepared)
}

/// Runs the attempt in `root` and keeps what the agent changed.
async fn run_in(
    store: &Arc<dyn Store>,
    attempts: &Arc<dyn Attempts>,
    claim: &Claim,
    prepared: &workdir::Prepared,
    stop: &Arc<Stop>,
) -> AttemptEnd {
    let root = &prepared.root;
    let (holds, mut held) = tokio::sync::mpsc::unbounded_channel();
    let provider = claim.task.spec.provider();
    let live = Live {
        stop: Arc::clone(stop),
        holds,
        store: Arc::clone(store),
        provider: provider.clone(),
        runtime: tokio::runtime::Handle::current(),
    };
    let forward = {
        let store = Arc::clone(store);
        tokio::spawn(async move {
            while let Some(hold) = held.recv().await {
                if let Err(error) = store.hold(&provider, hold).await {
                    warn!(target: "verdict::fleet", %provider, %error, "could not hold the agent");
                }
            }
        })
    };
    let mut end = attempts.run(&claim.task, claim.number, root, live).await;
    forward.abort();
    end.workdir = Some(root.to_string_lossy().into_owned());
    let kept = workdir::keep_changes(root, prepared.start.as_deref(), prepared.branch.as_deref());
    match kept.await {
        Ok(kept) => {
            end.branch = kept.branch;
            end.diff = kept.diff;
        }
        Err(error) => {
            warn!(target: "verdict::fleet", task = claim.task.id, %error, "could not keep the agent's changes");
        }
    }
    end
}

/// Turns a stop's reason into the task's state; whether a drain handed the attempt back.
fn apply_stop(end: &mut AttemptEnd, reason: Option<StopReason>) -> bool {
    let Some(reason) = reason else {
        return false;
    };
    // An attempt stopped from outside is not the agent's failure: it does not count.
    let (state, outcome, why) = match reason {
        StopReason::Cancelled => (TaskState::Cancelled, "cancelled", "cancelled by a person"),
        StopReason::Expired => (
            TaskState::Expired,
            "expired",
            "past its deadline or cost cap",
        ),
        StopReason::Drained => (
            TaskState::Pending,
            "interrupted",
            "handed back: its worker was draining",
        ),
        StopReason::LeaseLost => return false,
    };
    if end.state == TaskState::Passed {
        // The attempt finished before the stop reached it: its pass stands.
        return false;
    }
    end.state = state;
    end.counted = false;
    end.retry_after = None;
    end.outcome = outcome.to_owned();
    end.reason = why.to_owned();
    reason == StopReason::Drained
}

/// Renews the lease every `heartbeat` while the attempt runs; stops the attempt when the task
/// is cancelled or expired, when the lease is lost, and — self-fencing — when the database has
/// been out of reach so long that the lease may lapse before the next try.
async fn heartbeat(
    store: Arc<dyn Store>,
    claim: Claim,
    options: Arc<WorkerOptions>,
    stop: Arc<Stop>,
    lost: Arc<AtomicBool>,
) {
    // Measured on this process's monotonic clock from before the last renewal was sent: the
    // database renewed it no earlier, so the lease lasts at least this long.
    let mut renewed = Instant::now();
    loop {
        tokio::time::sleep(options.heartbeat).await;
        let sent = Instant::now();
        // A database cut off mid-statement may not answer for minutes (TCP): a renewal that
        // takes longer than a heartbeat counts as failed.
        let renewal =
            tokio::time::timeout(options.heartbeat, store.heartbeat(&claim, options.lease));
        let answer = match renewal.await {
            Ok(answer) => answer,
            Err(_) => Err(crate::FleetError::Invalid(format!(
                "the database did not answer a heartbeat within {:?}",
                options.heartbeat
            ))),
        };
        match answer {
            Ok(LeaseState::Held {
                cancel, expired, ..
            }) => {
                renewed = sent;
                if cancel {
                    stop.stop(StopReason::Cancelled);
                }
                if expired {
                    stop.stop(StopReason::Expired);
                }
            }
            Ok(LeaseState::Lost) => {
                lost.store(true, Ordering::SeqCst);
                stop.stop(StopReason::LeaseLost);
                return;
            }
            Err(error) => {
                warn!(target: "verdict::fleet", task = claim.task.id, %error, "could not renew the lease");
                if renewed.elapsed() + options.heartbeat >= options.lease {
                    lost.store(true, Ordering::SeqCst);
                    stop.stop(StopReason::LeaseLost);
                    return;
                }
            }
        }
    }
}

impl AttemptEnd {
    /// An attempt that ended the task in `state` before any agent ran (its work directory could
    /// not be prepared): not counted.
    pub fn ended(state: TaskState, outcome: &str, reason: String) -> AttemptEnd {
        AttemptEnd {
            state,
            counted: false,
            retry_after: None,
            outcome: outcome.to_owned(),
            reason,
            category: None,
            fingerprints: Vec::new(),
            digest: None,
            agent: None,
            agent_ms: 0,
            verify_ms: 0,
            tokens: None,
            cost_usd: None,
            events: Vec::new(),
            workdir: None,
            branch: None,
            diff: None,
            hold_provider: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drain_hands_the_attempt_back_uncounted_and_a_pass_stands() {
        let mut end = AttemptEnd::ended(TaskState::RetryScheduled, "failed", "x".into());
        end.counted = true;
        assert!(apply_stop(&mut end, Some(StopReason::Drained)));
        assert_eq!((end.state, end.counted), (TaskState::Pending, false));
        let mut passed = AttemptEnd::ended(TaskState::Passed, "passed", "green".into());
        assert!(!apply_stop(&mut passed, Some(StopReason::Cancelled)));
        assert_eq!(passed.state, TaskState::Passed);
    }
}
