//! The retry loop's driver: `verdict loop` runs a coding agent, verifies what it did, and tries
//! again with the digest of what failed, until the verification is green or a policy stops it.
//!
//! One run, as [`run`] drives it:
//!
//! ```text
//! create the run (or resume the unfinished run of the same task)
//! checkpoint the starting tree            (snapshot; pinned so --resume and --reset find it)
//! baseline verification                   (unless --no-baseline: known failures, tests that ran)
//! loop:
//!   [--reset] restore the starting tree
//!   commit "attempt N started"            → agent_running   (before the spawn)
//!   agent session(s) through the AgentPool (transient failures retried there, not counted)
//!   commit "attempt N finished"           → verifying        (after the agent is reaped)
//!   verify (a tree verified before: answered from that verification, nothing run)
//!   re-run the failed tests once          (only they, with each tool's filter; failures that
//!                                          come and go are flaky, not the agent's)
//!   a pass: the cheating guard            (fewer, removed, skipped or neutered tests, protected files)
//!   → passed | decide(): retry_scheduled (prompt with the digest) | exhausted | escalated | blocked
//! ```
//!
//! Every step that changes the run is one transaction of the state database together with its
//! event ([`events`]), so a run killed at any point is resumed by the next `verdict loop` of the same
//! task with its attempt count intact: an attempt that never finished is marked interrupted (its
//! agent's process group is stopped first) and does not count against `max_attempts`; an attempt
//! whose agent finished but whose verification was never recorded is verified before anything else.
//! What the loop needs to continue — the starting tree, the baseline, each attempt's failures and
//! summary — is read back from the events, never from memory. (The verifications of the trees
//! verified in this process are kept in memory, only to answer an attempt that left a tree
//! verified before without running anything.)
//!
//! The driver is tool-agnostic: verification is the [`Verify`] the caller hands in (the CLI builds
//! it from `verdict run`'s pipeline), agents are an [`AgentPool`], and what to do after a failure is
//! [`decide`]. Only the driver spawns (through the pool and the escalation command), sleeps, and
//! touches the workspace (through [`Snapshots`]).

pub mod events;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tracing::{info, info_span};

use crate::agent::session::{SpawnHook, SpawnInfo};
use crate::agent::{AgentPool, PoolEnd, PoolRun, RetryRecord, SessionOutcome, SessionRequest};
use crate::agent_loop::classify::{Category, Classification, FailureSet, classify, flaky_failures};
use crate::agent_loop::guard::{Guard, Sources, as_verification, files_to_read};
use crate::agent_loop::policy::{AttemptRecord, Decision, Policies, SessionFailures, decide};
use crate::agent_loop::prompt::{
    BaselineFound, EarlierAttempt, PreviousAttempt, RetryPrompt, first_prompt, retry_prompt,
};
use crate::baseline::Baseline;
use crate::digest;
use crate::model::{Kind, Outcome, Report, Status, Verification};
use crate::process::{ProcessRunner, RunExtras};
use crate::snapshot::{Snapshots, TreeId};
use crate::state::{
    AttemptFinish, AttemptId, Batch, FailureRef, NewRun, NewVerification, RunId, RunState,
    SessionRef, StateDb, StateError, now_ms, process_start_time, task_hash,
};
use crate::verifier::{CommandSpec, Exit};
pub use events::{EventKind, EventSink, LoopEvent};
use tracing::Instrument;

/// Exit code of a run that ended verified green.
pub const EXIT_PASSED: u8 = 0;
/// Exit code of a run whose attempts were spent, that a policy blocked, or whose agent session
/// failed.
pub const EXIT_FAILED: u8 = 1;
/// Exit code of a run that could not run (no agent could start, verification could not start).
pub const EXIT_ERROR: u8 = 2;
/// Exit code of a run that escalated to a person.
pub const EXIT_ESCALATED: u8 = 3;
/// Exit code of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it); the run
/// waits to be resumed.
pub const EXIT_INTERRUPTED: u8 = 130;

/// How long the escalation command may run.
const ESCALATION_TIMEOUT: Duration = Duration::from_secs(60);

/// What went wrong in the driver itself (not in the agent or the code it wrote).
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// The state database refused.
    #[error(transparent)]
    State(#[from] StateError),
    /// The state database could not be opened (damaged, not a database, written by a newer
    /// verdict).
    #[error("failed to open the state database {path}: {source}", path = .path.display())]
    StateFile {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: StateError,
    },
    /// The workspace could not be snapshotted or restored.
    #[error(transparent)]
    Snapshot(#[from] crate::snapshot::SnapshotError),
    /// A snapshot's work on a blocking thread did not finish (it panicked).
    #[error("snapshot task failed: {0}")]
    SnapshotTask(#[source] tokio::task::JoinError),
    /// `--reset` was asked for and the workspace cannot be snapshotted.
    #[error("--reset needs snapshots of the workspace: {0}")]
    Reset(#[source] Box<LoopError>),
    /// The verification could not run at all (its configuration, not a verifier's result).
    #[error("verification could not run: {0}")]
    Verify(#[source] VerifyError),
    /// The protected paths of the cheating guard are not valid globs.
    #[error("verification could not run: {0}")]
    Guard(#[source] crate::agent_loop::guard::GuardError),
    /// Something recorded in the database cannot be read back.
    #[error("run {run}: {message}")]
    Record {
        /// The run.
        run: RunId,
        /// What is wrong.
        message: String,
    },
    /// Another `verdict loop` process runs in this workspace right now (another task: two agents
    /// editing one tree would undo each other's work and each other's verification).
    #[error(
        "another `verdict loop` is running in {0} right now; two loops in one workspace would \
         edit the same files — wait for it to end, or stop it (Ctrl-C)"
    )]
    WorkspaceBusy(PathBuf),
    /// The lock that keeps a workspace to one loop could not be taken.
    #[error("failed to lock the workspace at {path}: {source}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// Why a verification could not start at all (see [`Verify`]).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Its run directory could not be made.
    #[error("failed to create the run directory: {0:#}")]
    RunDir(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The verifiers cannot run together (a need that names no verifier, a cycle).
    #[error("failed to start the verifiers: {0}")]
    Pipeline(#[source] crate::pipeline::PipelineError),
}

/// What one verification runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyRequest {
    /// Only these verifiers (the re-run of failed tests); `None`: the whole selection.
    pub only: Option<Vec<String>>,
    /// Ignore the result cache: run every selected verifier.
    pub fresh: bool,
    /// Run only what failed in each verifier's last run, with the tool's own filter (as
    /// `verdict run --failed-first`): a verifier whose failures still fail is not run in full.
    /// The flaky re-run asks for this, so that it repeats the failed tests, not the suite.
    pub failed_first: bool,
    /// What the verification is for, for logs: `baseline`, `attempt-2`, `attempt-2-rerun`.
    pub label: String,
}

/// The verification the loop runs after each attempt: `verdict run`'s pipeline in the CLI.
///
/// Contract: a verifier that could not verify is an errored [`Verification`], not an `Err`; `Err`
/// is for a verification that cannot start at all (its configuration). When the run is being
/// interrupted, unfinished verifiers come back [`Status::Cancelled`].
#[async_trait]
pub trait Verify: Send + Sync {
    /// Verifies the workspace as it is now.
    async fn verify(&self, request: VerifyRequest) -> Result<Vec<Verification>, VerifyError>;
}

/// Asked between attempts (`--interactive`) for a person's guidance for the next prompt; `None`
/// when they have nothing to add.
pub type Guide = Box<dyn FnMut(&GuideRequest) -> Option<String> + Send>;

/// What the person is shown before being asked for guidance.
#[derive(Debug, Clone)]
pub struct GuideRequest {
    /// The attempt that just failed.
    pub attempt: u32,
    /// Its digest.
    pub digest: String,
    /// The attempt that comes next.
    pub next: u32,
}

/// The settings of one loop run.
#[derive(Debug, Clone)]
pub struct LoopSpec {
    /// The task, as the person gave it.
    pub task: String,
    /// The workspace root (the agent's working directory, what is verified).
    pub root: PathBuf,
    /// The policies (attempts, categories, repeats, protected paths, escalation).
    pub policies: Policies,
    /// Verify the starting tree before attempt 1 (`--no-baseline` turns it off).
    pub baseline: bool,
    /// Restore the starting tree before each attempt after the first (`--reset`).
    pub reset: bool,
    /// The digest's token budget in retry prompts.
    pub digest_budget: usize,
    /// A person's guidance for every retry prompt (`--guide`, and `[loop].guidance`).
    pub guidance: Option<String>,
    /// Re-run the test verifiers that failed once, with no change, to tell flaky failures apart.
    pub flaky_rerun: bool,
    /// The wait between SIGTERM and SIGKILL when stopping an orphaned agent on resume.
    pub grace: Duration,
}

/// The settings of a run that [`LoopSpec`] does not hold and the caller needs to continue the run
/// as it was started: what `verdict loop` was given (or took from its configuration) when the run
/// was created. They are stored with the run (`run_started`'s `config.settings`, and the run's
/// record) and read back with [`recorded_settings`], so that `verdict loop --resume` goes on with
/// them instead of with whatever its own command line says (or leaves out). The driver itself only
/// stores them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunSettings {
    /// The agents as given (`--agent` values, or `[loop].agents`); empty: every `[[agent]]` table.
    pub agents: Vec<String>,
    /// Attempts in all.
    pub max_attempts: Option<u32>,
    /// Restore the starting tree before each attempt after the first.
    pub reset: bool,
    /// A person's guidance for every retry prompt.
    pub guidance: Option<String>,
    /// Failures the starting tree already had do not block the loop.
    pub new_failures_only: bool,
    /// The digest's token budget in retry prompts.
    pub budget: Option<usize>,
    /// Verify with only these verifiers (empty: every one that applies).
    pub only: Vec<String>,
    /// One agent session's time limit in seconds, when given for every agent.
    pub agent_timeout: Option<u64>,
    /// Transient agent failures retried per attempt.
    pub max_agent_retries: Option<u32>,
    /// Whether the starting tree is verified before attempt 1.
    pub baseline: bool,
}

/// The settings stored with `run` when it was created (or last resumed with other settings);
/// `None` for a run recorded before settings were stored.
pub fn recorded_settings(run: &crate::state::RunRecord) -> Option<RunSettings> {
    let settings = run.config.get("settings")?;
    serde_json::from_value(settings.clone()).ok()
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopEnd {
    /// The run.
    pub run: RunId,
    /// Its state now: terminal, or `interrupted`.
    pub state: RunState,
    /// The process exit code (`EXIT_*`).
    pub exit_code: u8,
    /// Attempts judged (verified, or ended by a failed session); interrupted ones are not counted.
    pub attempts: u32,
    /// Why it ended, in one line.
    pub reason: String,
    /// The digest of the last verification (a pass's included).
    pub digest: Option<String>,
    /// Whether this invocation continued an unfinished run.
    pub resumed: bool,
}

/// What the driver works with, besides its settings.
pub struct LoopParts {
    /// The verification.
    pub verify: Arc<dyn Verify>,
    /// The agents, with the inner retry layer.
    pub pool: AgentPool,
    /// Runs the escalation command (and shares the agents' cancellation).
    pub runner: ProcessRunner,
    /// Told every event.
    pub sink: EventSink,
    /// Asked for guidance between attempts (`--interactive`).
    pub guide: Option<Guide>,
    /// Set on Ctrl-C / SIGTERM: the loop stops after the step in progress, leaving the run
    /// `interrupted`.
    pub interrupted: Arc<AtomicBool>,
}

impl std::fmt::Debug for LoopParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopParts")
            .field("pool", &self.pool)
            .field("guide", &self.guide.is_some())
            .finish()
    }
}

/// The database and the sink behind one lock: events are stored in the transaction of the change
/// they describe, then told to the sink, in order, from the driver and from the pool's retry hook.
struct Recorder {
    db: StateDb,
    sink: EventSink,
}

type Shared = Arc<Mutex<Recorder>>;

/// Stores `f`'s changes and `events` in one transaction, then tells the sink.
fn record<T>(
    shared: &Shared,
    run: RunId,
    events: &[(EventKind, Value)],
    f: impl FnOnce(&Batch<'_>) -> Result<T, StateError>,
) -> Result<T, StateError> {
    let mut recorder = shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let value = recorder.db.write(|batch| {
        let value = f(batch)?;
        for (kind, payload) in events {
            batch.record_event(Some(run), kind.as_str(), payload)?;
        }
        Ok(value)
    })?;
    let time_ms = now_ms();
    for (kind, payload) in events {
        let mut payload = payload.clone();
        // The baseline's reports (every diagnostic of the starting tree) are kept in the database
        // for a resumed run's guard; the stream carries the figures, not megabytes of reports.
        if *kind == EventKind::BaselineFinished
            && let Value::Object(fields) = &mut payload
        {
            fields.remove("reports");
        }
        let event = LoopEvent {
            kind: *kind,
            run,
            time_ms,
            payload,
        };
        info!(target: "verdict::loop", event = kind.as_str(), payload = %event.payload);
        (recorder.sink)(&event);
    }
    Ok(value)
}

/// Reads from the database under the lock.
fn read<T>(
    shared: &Shared,
    f: impl FnOnce(&StateDb) -> Result<T, StateError>,
) -> Result<T, StateError> {
    let recorder = shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&recorder.db)
}

/// The baseline verification, as recorded in its event.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct BaselineRecord {
    outcome: Outcome,
    failures: FailureSet,
    tests_run: Option<u64>,
    reports: Vec<StoredReport>,
}

/// A verification's parts the loop needs again after a resume (the guard's test counts, the known
/// failures' fingerprints).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredReport {
    verifier: String,
    kind: Kind,
    status: Status,
    report: Report,
}

impl StoredReport {
    fn of(verification: &Verification) -> StoredReport {
        StoredReport {
            verifier: verification.verifier.clone(),
            kind: verification.kind,
            status: verification.status,
            report: verification.report.clone(),
        }
    }

    fn to_verification(&self) -> Verification {
        Verification {
            verifier: self.verifier.clone(),
            kind: self.kind,
            status: self.status,
            report: self.report.clone(),
            command: None,
            log: None,
            duration: Duration::ZERO,
            notes: Vec::new(),
        }
    }
}

/// An attempt's verification, as recorded in its `verification_finished` event.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct VerifiedRecord {
    attempt: u32,
    outcome: Outcome,
    passed: bool,
    category: Option<Category>,
    confidence: Option<f32>,
    location: Option<String>,
    summary: String,
    failures: FailureSet,
    flaky: FailureSet,
    known: usize,
    no_op: bool,
    tree: Option<String>,
    digest_tokens: usize,
    /// The verification this one was answered from, with nothing run (`baseline`,
    /// `attempt-2`): the tree had not changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    answered_from: Option<String>,
}

/// What a retry decided for the next prompt, as recorded in its `retry_scheduled` event.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct ScheduledRecord {
    next: u32,
    delay_ms: u64,
    guidance: String,
    refresh: bool,
    last: bool,
    human: Option<String>,
}

/// Everything the loop knows about its run so far, rebuilt from the events on resume.
#[derive(Debug, Default)]
struct Progress {
    start_tree: Option<TreeId>,
    baseline: Option<BaselineRecord>,
    /// Judged attempts, for [`decide`].
    judged: Vec<AttemptRecord>,
    /// One line per judged attempt, for the prompt.
    earlier: Vec<EarlierAttempt>,
    /// The last failed verification's digest, attempt number and no-op flag.
    last_failure: Option<(u32, String, bool)>,
    /// What the last retry decision asked of the next prompt.
    scheduled: Option<ScheduledRecord>,
    /// Trees whose verification passed: a failure on one of them came with no change since a pass.
    passed_trees: BTreeSet<String>,
}

impl Progress {
    fn replay(run: RunId, db: &StateDb) -> Result<Progress, LoopError> {
        let history = db.history(run)?;
        let digests: BTreeMap<u32, String> = history
            .attempts
            .iter()
            .filter_map(|a| Some((a.attempt.number, a.verification.as_ref()?.digest.clone())))
            .collect();
        let mut progress = Progress::default();
        let bad = |message: String| LoopError::Record { run, message };
        for event in db.events(run)? {
            match event.kind.as_str() {
                "checkpoint" => {
                    let tree = event.payload.get("tree").and_then(Value::as_str);
                    progress.start_tree = tree.and_then(|t| TreeId::new(t.to_owned()).ok());
                }
                "baseline_finished" => {
                    let record: BaselineRecord = serde_json::from_value(event.payload)
                        .map_err(|e| bad(format!("unreadable baseline event: {e}")))?;
                    progress.baseline = Some(record);
                }
                "verification_finished" => {
                    let record: VerifiedRecord = serde_json::from_value(event.payload)
                        .map_err(|e| bad(format!("unreadable verification event: {e}")))?;
                    progress.note(&record, digests.get(&record.attempt).cloned());
                }
                // A failed session judged without verification (session_failures = "retry").
                "agent_finished"
                    if event.payload.get("judged").and_then(Value::as_bool) == Some(true) =>
                {
                    let record: VerifiedRecord = serde_json::from_value(
                        event.payload.get("as_failure").cloned().unwrap_or_default(),
                    )
                    .map_err(|e| bad(format!("unreadable session event: {e}")))?;
                    progress.note(&record, None);
                }
                "retry_scheduled" => {
                    let record: ScheduledRecord = serde_json::from_value(event.payload)
                        .map_err(|e| bad(format!("unreadable retry event: {e}")))?;
                    progress.scheduled = Some(record);
                }
                _ => {}
            }
        }
        Ok(progress)
    }

    /// Takes in a judged attempt.
    fn note(&mut self, record: &VerifiedRecord, digest: Option<String>) {
        if record.passed {
            if let Some(tree) = &record.tree {
                self.passed_trees.insert(tree.clone());
            }
            return;
        }
        self.judged.push(AttemptRecord {
            number: record.attempt,
            category: record.category.unwrap_or(Category::Unknown),
            failures: record.failures.clone(),
            no_op: record.no_op,
        });
        self.earlier.push(EarlierAttempt {
            number: record.attempt,
            summary: record.summary.clone(),
            no_op: record.no_op,
        });
        self.last_failure = Some((record.attempt, digest.unwrap_or_default(), record.no_op));
    }

    fn known(&self) -> Option<Baseline> {
        let baseline = self.baseline.as_ref()?;
        let verifications: Vec<Verification> = baseline
            .reports
            .iter()
            .map(StoredReport::to_verification)
            .collect();
        Some(Baseline::from_verifications(&verifications))
    }

    fn baseline_verifications(&self) -> Option<Vec<Verification>> {
        let baseline = self.baseline.as_ref()?;
        Some(
            baseline
                .reports
                .iter()
                .map(StoredReport::to_verification)
                .collect(),
        )
    }
}

/// Runs the loop for `spec` to its end (or to an interruption). See the module docs.
pub async fn run(spec: LoopSpec, parts: LoopParts) -> Result<LoopEnd, LoopError> {
    run_with_settings(spec, parts, RunSettings::default()).await
}

/// [`run`], storing `settings` with the run: with a new run, and with a resumed run whose settings
/// (or whose [`LoopSpec`]'s) differ from those recorded, so that the next resume goes on with the
/// ones in force now.
pub async fn run_with_settings(
    spec: LoopSpec,
    parts: LoopParts,
    settings: RunSettings,
) -> Result<LoopEnd, LoopError> {
    let LoopParts {
        verify,
        pool,
        runner,
        sink,
        mut guide,
        interrupted,
    } = parts;
    let db_path = spec.root.join(crate::state::DEFAULT_PATH);
    // One loop per workspace, whatever its task; taken before anything is read or written.
    let _lock = WorkspaceLock::take(&spec.root)?;
    let db = StateDb::open(&db_path).map_err(|source| LoopError::StateFile {
        path: db_path.clone(),
        source,
    })?;
    let existing = db.find_run_by_task(&task_hash(&spec.task), &spec.root)?;
    let shared: Shared = Arc::new(Mutex::new(Recorder { db, sink }));
    let snapshots = match open_snapshots(&spec.root).await {
        Ok(snapshots) => Some(Arc::new(snapshots)),
        Err(error) if spec.reset => return Err(LoopError::Reset(Box::new(error))),
        Err(_) => None,
    };

    let (run, resumed) = match existing {
        Some(found) => {
            let resumed = read(&shared, |db| db.resume(found.id, spec.grace))?;
            let config = run_config(&spec, &pool, &settings);
            let changed = config != found.config;
            let stopped: Vec<Value> = resumed
                .stopped
                .iter()
                .map(|s| json!({"attempt": s.number, "outcome": s.outcome}))
                .collect();
            record(
                &shared,
                found.id,
                &[(
                    EventKind::RunResumed,
                    json!({
                        "was": resumed.was,
                        "stopped": stopped,
                        "next_attempt": resumed.next_attempt,
                        "unverified": resumed.unverified.as_ref().map(|a| a.number),
                        "config": changed.then(|| config.clone()),
                    }),
                )],
                |batch| {
                    if changed {
                        batch.update_run_config(found.id, &config, spec.policies.max_attempts)?;
                    }
                    Ok(())
                },
            )?;
            (found.id, true)
        }
        None => {
            let config = run_config(&spec, &pool, &settings);
            let run = record_new_run(&shared, &spec, config.clone())?;
            (run, false)
        }
    };
    let span = info_span!("verdict_loop", run = run.0);
    let mut progress = read(&shared, |db| Ok(Progress::replay(run, db)))??;

    let mut driver = Driver {
        spec: &spec,
        run,
        shared: &shared,
        verify,
        pool: pool.on_retry(retry_hook(&shared, run)),
        runner,
        snapshots,
        interrupted,
        resumed,
        last_tree: None,
        verified: BTreeMap::new(),
    };
    // A resumed run still knows its starting tree's verification (without its logs).
    if let (Some(tree), Some(baseline)) = (&progress.start_tree, progress.baseline_verifications())
    {
        driver.remember(tree, "baseline", &baseline);
    }

    // The starting tree and the baseline, once per run.
    if progress.start_tree.is_none()
        && let Some(snapshots) = &driver.snapshots
    {
        let tree = take(snapshots).await?;
        let pin = Arc::clone(snapshots);
        let (pinned, name) = (tree.clone(), format!("runs/{run}/start"));
        blocking(move || pin.pin(&pinned, &name)).await?;
        record(
            &shared,
            run,
            &[(EventKind::Checkpoint, json!({"tree": tree.to_string()}))],
            |_| Ok(()),
        )?;
        driver.last_tree = Some(tree.clone());
        progress.start_tree = Some(tree);
    }
    let state = read(&shared, |db| db.run(run))?.state;
    if spec.baseline && progress.baseline.is_none() && state == RunState::Pending {
        let started = Instant::now();
        let verifications = driver
            .verify_once(None, true, "baseline".into())
            .instrument(span.clone())
            .await?;
        if driver.is_interrupted(&verifications) {
            return driver.interrupt(
                state,
                "interrupted during the baseline verification",
                &progress,
                Vec::new(),
                |_| Ok(()),
            );
        }
        let failures = FailureSet::from_verifications(&verifications);
        let outcome = crate::model::overall(&verifications);
        let tests_run = tests_run(&verifications);
        let digest = digest_of(&verifications, spec.digest_budget);
        let record_value = BaselineRecord {
            outcome,
            failures: failures.clone(),
            tests_run,
            reports: verifications.iter().map(StoredReport::of).collect(),
        };
        let refs = failure_refs(&failures);
        let payload = serde_json::to_value(&record_value).unwrap_or_default();
        record(
            &shared,
            run,
            &[(EventKind::BaselineFinished, payload)],
            |batch| {
                batch.record_verification(
                    run,
                    None,
                    &NewVerification {
                        outcome,
                        category: None,
                        confidence: None,
                        location: None,
                        failures: &refs,
                        flaky: &[],
                        tests_run,
                        digest: &digest.text,
                        duration: started.elapsed(),
                    },
                )
            },
        )?;
        progress.baseline = Some(record_value);
        if let Some(tree) = progress.start_tree.clone() {
            driver.remember(&tree, "baseline", &verifications);
        }
    }
    driver
        .drive(&mut progress, &mut guide)
        .instrument(span)
        .await
}

/// The one loop of a workspace: an exclusive transaction held open on a small SQLite file,
/// `.verdict/loop/workspace.lock`. SQLite locks it with the operating system's file locks, which the
/// kernel releases when the process ends however it ends, so a run killed with `kill -9` can be
/// resumed at once, while a live loop is never taken for an orphaned one (its agent stopped) and
/// two loops never edit one tree.
struct WorkspaceLock {
    _connection: rusqlite::Connection,
}

impl WorkspaceLock {
    fn take(root: &Path) -> Result<WorkspaceLock, LoopError> {
        let path = crate::paths::workspace_lock(root);
        let failed = |source: Box<dyn std::error::Error + Send + Sync>| LoopError::Lock {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| failed(e.into()))?;
        }
        let connection = rusqlite::Connection::open(&path).map_err(|e| failed(e.into()))?;
        connection
            .busy_timeout(Duration::ZERO)
            .map_err(|e| failed(e.into()))?;
        match connection.execute_batch("BEGIN EXCLUSIVE") {
            Ok(()) => Ok(WorkspaceLock {
                _connection: connection,
            }),
            Err(rusqlite::Error::SqliteFailure(error, _))
                if matches!(
                    error.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) =>
            {
                Err(LoopError::WorkspaceBusy(root.to_owned()))
            }
            Err(error) => Err(failed(error.into())),
        }
    }
}

/// The run's configuration summary, stored with it.
fn run_config(spec: &LoopSpec, pool: &AgentPool, settings: &RunSettings) -> Value {
    json!({
        "settings": settings,
        "agents": pool.agents(),
        "max_attempts": spec.policies.max_attempts,
        "baseline": spec.baseline,
        "reset": spec.reset,
        "new_failures_only": spec.policies.new_failures_only,
        "digest_budget": spec.digest_budget,
        "on_repeat": spec.policies.on_repeat,
        "session_failures": spec.policies.session_failures,
        "protected": spec.policies.protected,
    })
}

fn record_new_run(shared: &Shared, spec: &LoopSpec, config: Value) -> Result<RunId, StateError> {
    let mut recorder = shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let payload = json!({
        "task_hash": task_hash(&spec.task),
        "workspace": spec.root.to_string_lossy(),
        "config": config,
    });
    let run = recorder.db.write(|batch| {
        let run = batch.create_run(&NewRun {
            task: &spec.task,
            workspace: &spec.root,
            config: config.clone(),
            max_attempts: spec.policies.max_attempts,
        })?;
        batch.record_event(Some(run), EventKind::RunStarted.as_str(), &payload)?;
        Ok(run)
    })?;
    let event = LoopEvent {
        kind: EventKind::RunStarted,
        run,
        time_ms: now_ms(),
        payload,
    };
    (recorder.sink)(&event);
    Ok(run)
}

/// The pool's retry decisions, stored and streamed as `agent_retry` events.
fn retry_hook(shared: &Shared, run: RunId) -> crate::agent::pool::RetryHook {
    let shared = Arc::clone(shared);
    Arc::new(move |retry: &RetryRecord| {
        let payload = serde_json::to_value(retry).unwrap_or_default();
        // A failure to store a retry decision must not stop the agent; the attempt's own records
        // still land, and the decision is in the agent's log directory.
        if let Err(error) = record(
            &shared,
            run,
            &[(EventKind::AgentRetry, payload)],
            |_| Ok(()),
        ) {
            tracing::warn!("failed to record an agent retry: {error}");
        }
    })
}

/// The text of the workspace's files at `paths` (relative, `/`-separated, as a diff names them)
/// for the cheating guard. A file that cannot be read, is larger than 2 MiB or has a path that
/// leaves the workspace is left out; the guard then judges it by the diff's lines alone.
fn read_sources(root: &Path, paths: &[String]) -> Sources {
    const LIMIT: u64 = 2 * 1024 * 1024;
    let mut sources = Sources::new();
    for path in paths {
        let relative = Path::new(path);
        let inside = relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            continue;
        }
        let full = root.join(relative);
        let small = std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_file() && m.len() <= LIMIT);
        if !small {
            continue;
        }
        if let Ok(bytes) = std::fs::read(&full) {
            sources.insert(path.clone(), String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    sources
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, crate::snapshot::SnapshotError> + Send + 'static,
) -> Result<T, LoopError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(result) => result.map_err(LoopError::Snapshot),
        Err(error) => Err(LoopError::SnapshotTask(error)),
    }
}

async fn open_snapshots(root: &Path) -> Result<Snapshots, LoopError> {
    let root = root.to_owned();
    blocking(move || Snapshots::open(&root)).await
}

async fn take(snapshots: &Arc<Snapshots>) -> Result<TreeId, LoopError> {
    let snapshots = Arc::clone(snapshots);
    blocking(move || snapshots.take()).await
}

/// The failures as the state database stores them.
fn failure_refs(failures: &FailureSet) -> Vec<FailureRef> {
    failures
        .iter()
        .map(|(fingerprint, label)| FailureRef {
            fingerprint,
            label: label.to_owned(),
        })
        .collect()
}

/// How many tests the test verifiers ran, when any says.
fn tests_run(verifications: &[Verification]) -> Option<u64> {
    let counts: Vec<u64> = verifications
        .iter()
        .filter(|v| v.kind == Kind::Test)
        .filter_map(|v| {
            let c = &v.report.counts;
            match (c.tests_passed, c.tests_failed) {
                (None, None) => None,
                (p, f) => Some(p.unwrap_or(0) + f.unwrap_or(0)),
            }
        })
        .collect();
    (!counts.is_empty()).then(|| counts.iter().sum())
}

fn digest_of(verifications: &[Verification], budget: usize) -> digest::Digest {
    let inputs: Vec<digest::Input<'_>> = verifications.iter().map(digest::Input::of).collect();
    digest::render(&inputs, &digest::Options { budget })
}

/// The driver of one run, once it exists.
struct Driver<'a> {
    spec: &'a LoopSpec,
    run: RunId,
    shared: &'a Shared,
    verify: Arc<dyn Verify>,
    pool: AgentPool,
    runner: ProcessRunner,
    snapshots: Option<Arc<Snapshots>>,
    interrupted: Arc<AtomicBool>,
    resumed: bool,
    /// The workspace's tree when the loop last looked.
    last_tree: Option<TreeId>,
    /// The verifications of each tree verified in this process (by tree id), with what they
    /// were for: a tree verified before is answered from them, with nothing run.
    verified: BTreeMap<String, (String, Vec<Verification>)>,
}

/// One attempt's verification, judged.
struct Judged {
    verifications: Vec<Verification>,
    /// The verifications as the tools reported them (after the flaky re-run, before known
    /// failures and the guard): what a later attempt on the same tree is answered from.
    as_verified: Vec<Verification>,
    digest: digest::Digest,
    record: VerifiedRecord,
    classification: Option<Classification>,
}

impl Driver<'_> {
    fn state(&self) -> Result<RunState, StateError> {
        read(self.shared, |db| db.run(self.run)).map(|r| r.state)
    }

    fn is_interrupted(&self, verifications: &[Verification]) -> bool {
        self.interrupted.load(Ordering::SeqCst)
            || verifications.iter().any(|v| v.status == Status::Cancelled)
    }

    async fn verify_once(
        &self,
        only: Option<Vec<String>>,
        fresh: bool,
        label: String,
    ) -> Result<Vec<Verification>, LoopError> {
        self.verify
            .verify(VerifyRequest {
                only,
                fresh,
                failed_first: false,
                label,
            })
            .await
            .map_err(LoopError::Verify)
    }

    /// Keeps `verifications` as the answer for `tree`. A verification in which a verifier could
    /// not verify (a time-out, a crash) is not kept: running it again may well verify.
    fn remember(&mut self, tree: &TreeId, what: &str, verifications: &[Verification]) {
        if verifications
            .iter()
            .any(|v| matches!(v.outcome(), Outcome::Errored) || v.status == Status::Cancelled)
        {
            return;
        }
        self.verified
            .insert(tree.to_string(), (what.to_owned(), verifications.to_vec()));
    }

    /// Leaves the run `interrupted` (from `from`), to be resumed.
    fn interrupt(
        &self,
        from: RunState,
        reason: &str,
        progress: &Progress,
        mut events: Vec<(EventKind, Value)>,
        extra: impl FnOnce(&Batch<'_>) -> Result<(), StateError>,
    ) -> Result<LoopEnd, LoopError> {
        events.push((
            EventKind::RunFinished,
            json!({"state": RunState::Interrupted, "reason": reason, "exit_code": EXIT_INTERRUPTED}),
        ));
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
            exit_code: EXIT_INTERRUPTED,
            attempts: progress.judged.len() as u32,
            reason: reason.to_owned(),
            digest: progress.last_failure.as_ref().map(|(_, d, _)| d.clone()),
            resumed: self.resumed,
        })
    }

    /// Moves the run from `from` to the terminal `to`, with its event and `run_finished`.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        from: RunState,
        to: RunState,
        mut events: Vec<(EventKind, Value)>,
        reason: &str,
        exit_code: u8,
        progress: &Progress,
        digest: Option<String>,
        extra: impl FnOnce(&Batch<'_>) -> Result<(), StateError>,
    ) -> Result<LoopEnd, LoopError> {
        let attempts = progress.judged.len() as u32;
        events.push((
            EventKind::RunFinished,
            json!({"state": to, "reason": reason, "exit_code": exit_code, "attempts": attempts}),
        ));
        record(self.shared, self.run, &events, |batch| {
            extra(batch)?;
            batch.transition(self.run, from, to, reason)
        })?;
        Ok(LoopEnd {
            run: self.run,
            state: to,
            exit_code,
            attempts,
            reason: reason.to_owned(),
            digest,
            resumed: self.resumed,
        })
    }

    async fn drive(
        &mut self,
        progress: &mut Progress,
        guide: &mut Option<Guide>,
    ) -> Result<LoopEnd, LoopError> {
        let run = self.run;
        let record_now = read(self.shared, |db| db.run(run))?;
        if record_now.state.is_terminal() {
            // Rerunning a task whose run ended starts a new run (find_run_by_task only finds
            // unfinished ones); this is a run that ended between the lookup and now.
            return Ok(LoopEnd {
                run,
                state: record_now.state,
                exit_code: exit_code_of(record_now.state),
                attempts: progress.judged.len() as u32,
                reason: format!("run {run} had already ended {}", record_now.state),
                digest: None,
                resumed: self.resumed,
            });
        }
        // An attempt whose agent finished but whose verification was never recorded is verified
        // first: its work is there, and redoing it would spend an attempt twice.
        let unverified = read(self.shared, |db| {
            let history = db.history(run)?;
            Ok(history.attempts.last().and_then(|last| {
                let a = &last.attempt;
                (last.verification.is_none() && !a.interrupted && a.finished_at.is_some()).then(
                    || {
                        (
                            a.id,
                            a.number,
                            a.workspace_changed.unwrap_or(true),
                            a.session_outcome.clone(),
                        )
                    },
                )
            }))
        })?;
        if let Some((id, number, changed, outcome)) = unverified
            && outcome.as_deref() == Some("success")
            && matches!(self.state()?, RunState::Interrupted | RunState::Verifying)
        {
            let from = self.state()?;
            if from == RunState::Interrupted {
                record(self.shared, run, &[], |batch| {
                    batch.transition(
                        run,
                        RunState::Interrupted,
                        RunState::Verifying,
                        &format!("resumed: verifying attempt {number}, whose agent had finished"),
                    )
                })?;
            }
            if let Some(end) = self
                .verify_attempt(progress, guide, id, number, changed, None)
                .await?
            {
                return Ok(end);
            }
        }

        loop {
            let state = self.state()?;
            let done = progress.judged.len() as u32;
            if done >= self.spec.policies.max_attempts {
                let reason = format!("{done} attempts made, none verified green");
                return self.finish(
                    state,
                    RunState::Exhausted,
                    vec![(EventKind::RetryExhausted, json!({"reason": reason}))],
                    &reason,
                    EXIT_FAILED,
                    progress,
                    progress.last_failure.as_ref().map(|(_, d, _)| d.clone()),
                    |_| Ok(()),
                );
            }
            if self.interrupted.load(Ordering::SeqCst) {
                return self.interrupt(
                    state,
                    "interrupted between attempts",
                    progress,
                    Vec::new(),
                    |_| Ok(()),
                );
            }
            let number = read(self.shared, |db| db.next_attempt_number(run))?;
            // Attempt numbers are never reused, and an interrupted attempt does not count: each
            // one lets the run go one number further. Every attempt so far was judged or
            // interrupted (an unverified one was verified above), so the interrupted ones are
            // the numbers used and not judged.
            let of = self.spec.policies.max_attempts + (number - 1).saturating_sub(done);
            let prompt = self.prompt(progress, number, of);
            let prompt_tokens = digest::tokens::count(&prompt) as u64;

            if self.spec.reset
                && number > 1
                && let (Some(snapshots), Some(tree)) = (&self.snapshots, &progress.start_tree)
            {
                let (s, t) = (Arc::clone(snapshots), tree.clone());
                let restored = blocking(move || s.restore(&t)).await?;
                record(
                    self.shared,
                    run,
                    &[(
                        EventKind::WorkspaceReset,
                        json!({"attempt": number, "tree": tree.to_string(), "restored": restored.restored, "removed": restored.removed}),
                    )],
                    |_| Ok(()),
                )?;
            }
            // The tree the last attempt left is the one this attempt starts from, unless it was
            // restored since or a person was asked for guidance (and may have edited files);
            // reusing it saves a snapshot per attempt.
            let reuse = !self.spec.reset && guide.is_none();
            let before = match (&self.snapshots, &self.last_tree) {
                (Some(_), Some(last)) if reuse => Some(last.clone()),
                (Some(s), _) => Some(take(s).await?),
                (None, _) => None,
            };

            let agent = self.pool.next_agent().unwrap_or_default().to_owned();
            let attempt = record(
                self.shared,
                run,
                &[(
                    EventKind::AttemptStarted,
                    json!({"attempt": number, "of": of, "judged_before": done, "agent": agent, "prompt_tokens": prompt_tokens}),
                )],
                |batch| batch.begin_attempt(run, number, &agent, Some(prompt_tokens)),
            )?;
            let run_dir = self
                .spec
                .root
                .join(".verdict")
                .join("loop")
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
            if let Some(end) = self
                .after_session(progress, guide, attempt, number, pool_run, changed, after)
                .await?
            {
                return Ok(end);
            }
        }
    }

    /// Records the end of the agent session and goes on to verify, or ends the run.
    #[allow(clippy::too_many_arguments)]
    async fn after_session(
        &mut self,
        progress: &mut Progress,
        guide: &mut Option<Guide>,
        attempt: AttemptId,
        number: u32,
        pool_run: PoolRun,
        changed: bool,
        after: Option<TreeId>,
    ) -> Result<Option<LoopEnd>, LoopError> {
        let run = self.run;
        let result = &pool_run.result;
        let outcome = &result.outcome;
        let payload = json!({
            "attempt": number,
            "agent": result.agent,
            "outcome": outcome.name(),
            "session": outcome,
            "sessions": pool_run.sessions,
            "end": pool_run.end,
            "duration_ms": result.duration.as_millis() as u64,
            "workspace_changed": changed,
            "tree": after.as_ref().map(ToString::to_string),
            "log": result.log_path.to_string_lossy(),
        });
        // The agent that ran the attempt is the last session's: an auth error or a rate limit
        // may have handed it over from the agent the attempt started with.
        let sessions: Vec<SessionRef> = pool_run
            .retries
            .iter()
            .map(|r| SessionRef {
                agent: r.agent.clone(),
                outcome: r.outcome.name().to_owned(),
            })
            .chain((!result.agent.is_empty()).then(|| SessionRef {
                agent: result.agent.clone(),
                outcome: outcome.name().to_owned(),
            }))
            .collect();
        let finish = AttemptFinish {
            sessions: &sessions,
            session_outcome: outcome.name(),
            output_tail: &result.output_tail,
            workspace_changed: changed,
        };
        if *outcome == SessionOutcome::Cancelled || self.interrupted.load(Ordering::SeqCst) {
            // The attempt is not judged: its agent was stopped, not finished. It is marked
            // interrupted, so that it does not count against the attempts.
            return self
                .interrupt(
                    RunState::AgentRunning,
                    &format!("interrupted during attempt {number}"),
                    progress,
                    vec![(EventKind::AgentFinished, payload)],
                    |batch| batch.mark_interrupted(attempt),
                )
                .map(Some);
        }
        if *outcome == SessionOutcome::Success {
            record(
                self.shared,
                run,
                &[(EventKind::AgentFinished, payload)],
                |batch| {
                    batch.finish_attempt(attempt, &finish)?;
                    batch.transition(
                        run,
                        RunState::AgentRunning,
                        RunState::Verifying,
                        &format!("attempt {number}: the agent finished"),
                    )
                },
            )?;
            return self
                .verify_attempt(progress, guide, attempt, number, changed, after)
                .await;
        }
        // The session failed. No agent could run at all: the loop could not run (exit 2).
        let could_not_run = pool_run.end == PoolEnd::NoAgentLeft;
        let reason = match (pool_run.end, outcome) {
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
                    .filter(|r| r.action != crate::agent::RetryAction::SkipAgent)
                    .count()
            ),
            (PoolEnd::Finished, other) => format!(
                "attempt {number}: the agent session ended with {}",
                other.name()
            ),
        };
        let retry = self.spec.policies.session_failures == SessionFailures::Retry && !could_not_run;
        if !retry {
            let exit = if could_not_run {
                EXIT_ERROR
            } else {
                EXIT_FAILED
            };
            progress.judged.push(AttemptRecord {
                number,
                category: Category::Unknown,
                failures: FailureSet::default(),
                no_op: !changed,
            });
            let end = self.finish(
                RunState::AgentRunning,
                RunState::SessionFailed,
                vec![(EventKind::AgentFinished, payload)],
                &reason,
                exit,
                progress,
                None,
                |batch| batch.finish_attempt(attempt, &finish),
            )?;
            return Ok(Some(end));
        }
        // Configured to go on: a failed session is judged like a failed verification, without
        // running one (its work may be half done).
        let mut failures = FailureSet::default();
        let hash = blake3::hash(format!("agent session {}", outcome.name()).as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&hash.as_bytes()[..8]);
        failures.insert(
            crate::model::Fingerprint(u64::from_le_bytes(first)),
            format!("agent session {}", outcome.name()),
        );
        let as_failure = VerifiedRecord {
            attempt: number,
            outcome: Outcome::Errored,
            passed: false,
            category: Some(Category::Unknown),
            confidence: Some(1.0),
            location: None,
            summary: format!("the agent session ended with {}", outcome.name()),
            failures,
            flaky: FailureSet::default(),
            known: 0,
            no_op: !changed,
            tree: after.as_ref().map(ToString::to_string),
            digest_tokens: 0,
            answered_from: None,
        };
        let mut payload = payload;
        if let Value::Object(map) = &mut payload {
            map.insert("judged".into(), Value::Bool(true));
            map.insert(
                "as_failure".into(),
                serde_json::to_value(&as_failure).unwrap_or_default(),
            );
        }
        let tail = format!(
            "The agent session of attempt {number} ended with {} before verification; its last output:\n{}",
            outcome.name(),
            last_lines(&result.output_tail, 10)
        );
        progress.note(&as_failure, Some(tail.clone()));
        let classification = Classification {
            category: Category::Unknown,
            confidence: 1.0,
            main_location: None,
            summary: as_failure.summary.clone(),
        };
        // Nothing was verified: the category's guidance ("read the verifier's output closely")
        // would point the agent at output that does not exist.
        let guidance = format!(
            "The agent session of attempt {number} ended with {} before anything was verified; \
             its last output is above. Nothing of that attempt was checked: finish the task.",
            outcome.name()
        );
        self.decide_next(
            progress,
            guide,
            RunState::AgentRunning,
            number,
            &classification,
            tail,
            Some(guidance),
            vec![(EventKind::AgentFinished, payload)],
            |batch| batch.finish_attempt(attempt, &finish),
        )
        .await
    }

    /// Verifies attempt `number` (the run is `verifying`) and decides what follows.
    async fn verify_attempt(
        &mut self,
        progress: &mut Progress,
        guide: &mut Option<Guide>,
        attempt: AttemptId,
        number: u32,
        changed: bool,
        tree: Option<TreeId>,
    ) -> Result<Option<LoopEnd>, LoopError> {
        let run = self.run;
        let started = Instant::now();
        let tree = match (&self.snapshots, tree) {
            (_, Some(tree)) => Some(tree),
            (Some(s), None) => Some(take(s).await?),
            (None, None) => None,
        };
        let judged = self.judge(progress, number, changed, tree.as_ref()).await?;
        let Some(judged) = judged else {
            return self
                .interrupt(
                    RunState::Verifying,
                    &format!("interrupted verifying attempt {number}"),
                    progress,
                    Vec::new(),
                    |_| Ok(()),
                )
                .map(Some);
        };
        let Judged {
            verifications,
            as_verified,
            digest,
            record: verified,
            classification,
        } = judged;
        if let Some(tree) = &tree {
            self.remember(tree, &format!("attempt {number}"), &as_verified);
        }
        let refs = failure_refs(&verified.failures);
        let flaky = failure_refs(&verified.flaky);
        let tests = tests_run(&verifications);
        let category = verified.category.map(Category::as_str);
        let payload = serde_json::to_value(&verified).unwrap_or_default();
        let new_verification = NewVerification {
            outcome: verified.outcome,
            category,
            confidence: verified.confidence.map(f64::from),
            location: verified.location.as_deref(),
            failures: &refs,
            flaky: &flaky,
            tests_run: tests,
            digest: &digest.text,
            duration: started.elapsed(),
        };
        if verified.passed {
            let reason = format!("attempt {number} verified green");
            let mut events = vec![(EventKind::VerificationFinished, payload)];
            events.push((
                EventKind::RunFinished,
                json!({"state": RunState::Passed, "reason": reason, "exit_code": EXIT_PASSED, "attempts": progress.judged.len() + 1}),
            ));
            record(self.shared, run, &events, |batch| {
                batch.record_verification(run, Some(attempt), &new_verification)?;
                batch.transition(run, RunState::Verifying, RunState::Passed, &reason)
            })?;
            progress.note(&verified, Some(digest.text.clone()));
            return Ok(Some(LoopEnd {
                run,
                state: RunState::Passed,
                exit_code: EXIT_PASSED,
                attempts: progress.judged.len() as u32 + 1,
                reason,
                digest: Some(digest.text),
                resumed: self.resumed,
            }));
        }
        progress.note(&verified, Some(digest.text.clone()));
        let classification = classification.unwrap_or(Classification {
            category: verified.category.unwrap_or(Category::Unknown),
            confidence: verified.confidence.unwrap_or(0.5),
            main_location: verified.location.clone(),
            summary: verified.summary.clone(),
        });
        // The verification and the decision are stored in one transaction: a run stopped between
        // them would resume with the attempt judged but not decided on.
        self.decide_next(
            progress,
            guide,
            RunState::Verifying,
            number,
            &classification,
            digest.text.clone(),
            None,
            vec![(EventKind::VerificationFinished, payload)],
            |batch| batch.record_verification(run, Some(attempt), &new_verification),
        )
        .await
    }

    /// Verifies the workspace after attempt `number` and judges it: flaky failures apart, known
    /// failures apart (`new_failures_only`), the cheating guard on a pass. `None`: interrupted.
    async fn judge(
        &self,
        progress: &Progress,
        number: u32,
        changed: bool,
        tree: Option<&TreeId>,
    ) -> Result<Option<Judged>, LoopError> {
        let spec = self.spec;
        // A tree verified before is answered from that verification: the tools would only say
        // again what they said (flaky failures aside, which the re-run below tells apart when
        // the tree is first verified).
        let remembered = tree.and_then(|t| self.verified.get(t.as_str()));
        let answered_from = remembered.map(|(what, _)| what.clone());
        let mut verifications = match remembered {
            Some((what, verifications)) => verifications
                .iter()
                .map(|v| {
                    let mut v = v.clone();
                    v.duration = Duration::ZERO;
                    let of = if what == "baseline" {
                        "the baseline"
                    } else {
                        what
                    };
                    v.notes.push(format!(
                        "answered from the verification of {of}: the tree has not changed since"
                    ));
                    v
                })
                .collect(),
            None => {
                self.verify_once(None, false, format!("attempt-{number}"))
                    .await?
            }
        };
        if self.is_interrupted(&verifications) {
            return Ok(None);
        }
        let mut flaky = FailureSet::default();
        let first = FailureSet::from_verifications(&verifications);
        // A failure on a tree that passed before came with no change since the pass.
        if !first.is_empty()
            && let Some(tree) = tree
            && (progress.passed_trees.contains(&tree.to_string())
                || (progress.start_tree.as_ref() == Some(tree)
                    && progress
                        .baseline
                        .as_ref()
                        .is_some_and(|b| b.outcome == Outcome::Passed)))
        {
            flaky = first.clone();
        }
        // Failed test verifiers run once more, untouched: what comes and goes is flaky.
        let failed_tests: Vec<String> = verifications
            .iter()
            .filter(|v| v.kind == Kind::Test && v.outcome() == Outcome::Failed)
            .map(|v| v.verifier.clone())
            .collect();
        if spec.flaky_rerun
            && answered_from.is_none()
            && flaky.is_empty()
            && !failed_tests.is_empty()
        {
            // Only the failed tests run again, each tool with its own filter; a verifier that
            // has none, or whose filtered run cannot verify, runs in full.
            let rerun = self
                .verify
                .verify(VerifyRequest {
                    only: Some(failed_tests.clone()),
                    fresh: true,
                    failed_first: true,
                    label: format!("attempt-{number}-rerun"),
                })
                .await
                .map_err(LoopError::Verify)?;
            if self.is_interrupted(&rerun) {
                return Ok(None);
            }
            // A re-run that could not verify tells nothing: its verifier's failures stand.
            let rerun: Vec<Verification> = rerun
                .into_iter()
                .filter(|v| matches!(v.outcome(), Outcome::Passed | Outcome::Failed))
                .collect();
            let before: Vec<Verification> = verifications
                .iter()
                .filter(|v| rerun.iter().any(|r| r.verifier == v.verifier))
                .cloned()
                .collect();
            flaky = flaky_failures(
                &FailureSet::from_verifications(&before),
                &FailureSet::from_verifications(&rerun),
            );
            if !flaky.is_empty() {
                let labels = flaky.iter().map(|(_, l)| l).collect::<Vec<_>>().join(", ");
                // The first run stands for each verifier, with the failures that went away
                // taken out of it: the re-run may have run only the failed tests, and its
                // counts are not the suite's.
                for again in rerun {
                    if let Some(slot) = verifications
                        .iter_mut()
                        .find(|v| v.verifier == again.verifier)
                    {
                        set_aside_flaky(slot, &flaky);
                        slot.notes.push(format!(
                            "failed tests re-run: flaky failures set aside: {labels}"
                        ));
                    }
                }
            }
        }
        let as_verified = verifications.clone();
        let mut known = 0;
        // The guard compares the tests that ran with the baseline's, so it is shown the
        // verifications as they ran: setting known failures aside also takes them out of the
        // counts, and a pass under `new_failures_only` would look like fewer tests ran.
        let mut as_ran = None;
        if spec.policies.new_failures_only
            && let Some(baseline) = progress.known()
        {
            as_ran = Some(verifications.clone());
            known = baseline.set_aside(&mut verifications) as usize;
        }
        let mut failures = FailureSet::from_verifications(&verifications);
        for (fingerprint, _) in flaky.iter() {
            failures = failures.new_since(&single(fingerprint));
        }
        let errored = verifications
            .iter()
            .any(|v| v.outcome() == Outcome::Errored);
        let mut passed = failures.is_empty() && !errored;
        if passed {
            let ran = as_ran.as_deref().unwrap_or(&verifications);
            let violations = self.guard_check(progress, ran, tree).await?;
            if let Some(guard) = as_verification(&violations) {
                verifications.push(guard);
                failures = FailureSet::from_verifications(&verifications);
                passed = false;
            }
        }
        let digest = digest_of(&verifications, spec.digest_budget);
        let outcome = match (passed, crate::model::overall(&verifications)) {
            (true, _) => Outcome::Passed,
            (false, Outcome::Passed) => Outcome::Failed,
            (false, outcome) => outcome,
        };
        let classification = (!passed).then(|| {
            let mut classification = classify(&verifications);
            if failures.is_empty() && !flaky.is_empty() {
                classification.category = Category::Flaky;
            }
            classification
        });
        let record = VerifiedRecord {
            attempt: number,
            outcome,
            passed,
            category: classification.as_ref().map(|c| c.category),
            confidence: classification.as_ref().map(|c| c.confidence),
            location: classification
                .as_ref()
                .and_then(|c| c.main_location.clone()),
            summary: classification
                .as_ref()
                .map_or_else(|| "verified green".to_owned(), |c| c.summary.clone()),
            failures,
            flaky,
            known,
            no_op: !changed,
            tree: tree.map(ToString::to_string),
            digest_tokens: digest.tokens,
            answered_from,
        };
        Ok(Some(Judged {
            verifications,
            as_verified,
            digest,
            record,
            classification,
        }))
    }

    /// The cheating guard's reasons a pass does not count.
    async fn guard_check(
        &self,
        progress: &Progress,
        verifications: &[Verification],
        tree: Option<&TreeId>,
    ) -> Result<Vec<crate::agent_loop::guard::Violation>, LoopError> {
        let guard = Guard::new(&self.spec.policies.protected)
            .map_err(LoopError::Guard)?
            .allow_test_edits(self.spec.policies.allow_test_edits);
        let (diff, sources) = match (&self.snapshots, &progress.start_tree, tree) {
            (Some(s), Some(start), Some(now)) if start != now => {
                let (s, a, b) = (Arc::clone(s), start.clone(), now.clone());
                blocking(move || {
                    let diff = s.diff(&a, &b)?.text;
                    // The guard reads changed tests whole; it reads no file itself.
                    let sources = read_sources(s.root(), &files_to_read(&diff));
                    Ok((diff, sources))
                })
                .await?
            }
            _ => (String::new(), Sources::new()),
        };
        let baseline = progress.baseline_verifications();
        Ok(guard.check(baseline.as_deref(), verifications, &diff, &sources))
    }

    /// After a failed attempt (the run is in `from`): decides, and either schedules the next
    /// attempt (`None`) or ends the run. `guidance_instead` replaces the category's guidance in
    /// the next prompt. `events` and `judged` (the attempt's verification, or
    /// the end of its failed session) are stored in the decision's transaction.
    #[allow(clippy::too_many_arguments)]
    async fn decide_next(
        &mut self,
        progress: &mut Progress,
        guide: &mut Option<Guide>,
        from: RunState,
        number: u32,
        classification: &Classification,
        digest: String,
        guidance_instead: Option<String>,
        mut events: Vec<(EventKind, Value)>,
        judged: impl FnOnce(&Batch<'_>) -> Result<(), StateError>,
    ) -> Result<Option<LoopEnd>, LoopError> {
        let run = self.run;
        let decision = decide(&progress.judged, classification, &self.spec.policies);
        info!(target: "verdict::loop", attempt = number, decision = decision.name());
        match decision {
            Decision::Retry {
                delay,
                guidance,
                refresh,
                last,
            } => {
                let next = number + 1;
                let human = match guide {
                    Some(ask) => {
                        let request = GuideRequest {
                            attempt: number,
                            digest: digest.clone(),
                            next,
                        };
                        // Blocks this task while the person types: nothing else of the run
                        // is in flight between attempts.
                        ask(&request).filter(|text| !text.trim().is_empty())
                    }
                    None => None,
                };
                let scheduled = ScheduledRecord {
                    next,
                    delay_ms: delay.as_millis() as u64,
                    guidance: guidance_instead.unwrap_or(guidance),
                    refresh,
                    last,
                    human,
                };
                let payload = serde_json::to_value(&scheduled).unwrap_or_default();
                events.push((EventKind::RetryScheduled, payload));
                record(self.shared, run, &events, |batch| {
                    judged(batch)?;
                    batch.transition(
                        run,
                        from,
                        RunState::RetryScheduled,
                        &format!("attempt {number} failed: {}", classification.summary),
                    )
                })?;
                progress.scheduled = Some(scheduled);
                if !delay.is_zero() {
                    let interrupted = Arc::clone(&self.interrupted);
                    let deadline = Instant::now() + delay;
                    while Instant::now() < deadline && !interrupted.load(Ordering::SeqCst) {
                        let left = deadline.saturating_duration_since(Instant::now());
                        tokio::time::sleep(left.min(Duration::from_millis(100))).await;
                    }
                }
                Ok(None)
            }
            Decision::Exhausted { reason } => {
                events.push((
                    EventKind::RetryExhausted,
                    json!({"attempt": number, "reason": reason}),
                ));
                self.finish(
                    from,
                    RunState::Exhausted,
                    events,
                    &reason,
                    EXIT_FAILED,
                    progress,
                    Some(digest),
                    judged,
                )
                .map(Some)
            }
            Decision::Block { reason } => {
                events.push((
                    EventKind::Blocked,
                    json!({"attempt": number, "reason": reason}),
                ));
                self.finish(
                    from,
                    RunState::Blocked,
                    events,
                    &reason,
                    EXIT_FAILED,
                    progress,
                    Some(digest),
                    judged,
                )
                .map(Some)
            }
            Decision::Escalate { reason, command } => {
                // The command runs before the decision is stored: a run stopped while it runs is
                // judged and escalated again on resume (at least once, never lost).
                let escalation = match &command {
                    Some(argv) => self.escalate(argv, &reason, progress, &digest).await,
                    None => json!({"command": null}),
                };
                events.push((
                    EventKind::Escalated,
                    json!({"attempt": number, "reason": reason, "escalation": escalation}),
                ));
                self.finish(
                    from,
                    RunState::Escalated,
                    events,
                    &reason,
                    EXIT_ESCALATED,
                    progress,
                    Some(digest),
                    judged,
                )
                .map(Some)
            }
        }
    }

    /// Runs the escalation command with the run's summary as JSON on stdin; returns how it went.
    async fn escalate(
        &self,
        argv: &[String],
        reason: &str,
        progress: &Progress,
        digest: &str,
    ) -> Value {
        let summary = json!({
            "run": self.run,
            "task": self.spec.task,
            "workspace": self.spec.root.to_string_lossy(),
            "reason": reason,
            "attempts": progress.earlier.iter().map(|e| json!({"attempt": e.number, "summary": e.summary, "no_op": e.no_op})).collect::<Vec<_>>(),
            "digest": digest,
        });
        let Some((program, args)) = argv.split_first() else {
            return json!({"command": argv, "error": "empty command"});
        };
        let log = self
            .spec
            .root
            .join(".verdict")
            .join("loop")
            .join(format!("run-{}", self.run))
            .join("escalation.log");
        if let Some(dir) = log.parent()
            && let Err(error) = std::fs::create_dir_all(dir)
        {
            return json!({"command": argv, "error": format!("failed to create {}: {error}", dir.display())});
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
            log_limit: Some(crate::agent::LOG_LIMIT),
        };
        let captured = self.runner.run_with(&spec, &log, extras).await;
        let ok = matches!(captured.exit, Exit::Code { code: 0 });
        json!({"command": argv, "exit": captured.exit, "ok": ok, "log": log.to_string_lossy()})
    }

    /// The prompt of attempt `number`, of `of` the run may make now.
    fn prompt(&self, progress: &Progress, number: u32, of: u32) -> String {
        let spec = self.spec;
        let Some((previous, digest, no_op)) = &progress.last_failure else {
            // What the baseline found: rebuilt from its stored reports, so a resumed run writes
            // the same first prompt.
            let digest = progress
                .baseline
                .as_ref()
                .filter(|b| b.outcome != Outcome::Passed)
                .map(|b| {
                    let verifications: Vec<Verification> = b
                        .reports
                        .iter()
                        .map(StoredReport::to_verification)
                        .collect();
                    digest_of(&verifications, spec.digest_budget).text
                });
            let baseline = digest.as_deref().map(|digest| BaselineFound {
                digest,
                known: spec.policies.new_failures_only,
                digest_budget: spec.digest_budget,
            });
            return first_prompt(&spec.task, baseline.as_ref());
        };
        let scheduled = progress.scheduled.clone().unwrap_or_default();
        let earlier: Vec<EarlierAttempt> = progress
            .earlier
            .iter()
            .filter(|e| e.number != *previous)
            .cloned()
            .collect();
        let human: Option<String> = match (&spec.guidance, &scheduled.human) {
            (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
            (Some(a), None) => Some(a.clone()),
            (None, Some(b)) => Some(b.clone()),
            (None, None) => None,
        };
        retry_prompt(&RetryPrompt {
            task: &spec.task,
            previous: PreviousAttempt {
                number: *previous,
                digest,
                no_op: *no_op,
            },
            earlier: &earlier,
            human_guidance: human.as_deref(),
            policy_guidance: Some(scheduled.guidance.as_str()).filter(|g| !g.is_empty()),
            refresh: scheduled.refresh,
            attempt: number,
            max_attempts: of,
            digest_budget: spec.digest_budget,
        })
    }
}

/// A set of one fingerprint (to subtract it).
/// Takes the failures of `flaky` out of `verification`'s report: their diagnostics go, and each
/// distinct test among them counts as passed rather than failed.
fn set_aside_flaky(verification: &mut Verification, flaky: &FailureSet) {
    let report = &mut verification.report;
    let flaky_fingerprints: BTreeSet<crate::model::Fingerprint> =
        flaky.iter().map(|(f, _)| f).collect();
    let mut tests = BTreeSet::new();
    report.diagnostics.retain(|d| {
        let is_flaky = flaky_fingerprints.contains(&d.fingerprint);
        if is_flaky && let Some(test) = &d.test {
            tests.insert(test.clone());
        }
        !is_flaky
    });
    let moved = tests.len() as u64;
    if let (Some(failed), Some(passed)) = (
        report.counts.tests_failed.as_mut(),
        report.counts.tests_passed.as_mut(),
    ) {
        let moved = moved.min(*failed);
        *failed -= moved;
        *passed += moved;
    }
    // Every failure came and went: the verifier passed, as a re-run in full would have said.
    if report.outcome == Outcome::Failed
        && report.errors().next().is_none()
        && report.diagnostics_dropped == 0
    {
        report.outcome = Outcome::Passed;
    }
}

fn single(fingerprint: crate::model::Fingerprint) -> FailureSet {
    let mut set = FailureSet::default();
    set.insert(fingerprint, "");
    set
}

/// Records each spawned agent's pid, process group and start time against `attempt`.
fn spawn_hook(shared: &Shared, attempt: AttemptId) -> SpawnHook {
    let shared = Arc::clone(shared);
    Arc::new(move |info: &SpawnInfo| {
        let start = process_start_time(info.pid as i32).unwrap_or(0);
        let result = read(&shared, |db| {
            db.record_agent_process(attempt, info.pid as i32, info.pgid as i32, start)
        });
        if let Err(error) = result {
            tracing::warn!("failed to record the agent's process: {error}");
        }
    })
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The exit code of a run that ended in `state`.
pub fn exit_code_of(state: RunState) -> u8 {
    match state {
        RunState::Passed => EXIT_PASSED,
        RunState::Escalated => EXIT_ESCALATED,
        RunState::Interrupted => EXIT_INTERRUPTED,
        RunState::Pending
        | RunState::AgentRunning
        | RunState::Verifying
        | RunState::RetryScheduled => EXIT_ERROR,
        RunState::Exhausted | RunState::Blocked | RunState::SessionFailed => EXIT_FAILED,
    }
}
