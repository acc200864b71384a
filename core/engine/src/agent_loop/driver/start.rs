//! Run creation and resume: the workspace's lock, the run found or created, its memory replayed,
//! then the starting tree's checkpoint and baseline verification, once per run.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Value, json};
use tracing::{Instrument, info_span};

use super::events::EventSink;
use super::events::{BaselineRecord, Event, Stopped, StoredReport};
use super::judge::{digest_of, failure_refs, tests_run};
use super::lock::WorkspaceLock;
use super::progress::Progress;
use super::recorder::{Recorder, Shared, read, record, record_new, retry_hook};
use super::run::Driver;
use super::workspace::{blocking, open_snapshots, take};
use super::{LoopEnd, LoopError, LoopParts, LoopSpec, RunSettings};
use crate::agent_loop::agent::AgentPool;
use crate::agent_loop::classify::FailureSet;
use crate::model::overall;
use crate::snapshot::Snapshots;
use crate::state::{NewRun, NewVerification, RunId, RunState, StateDb, task_hash};

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
        guide,
        interrupted,
        exit_code,
    } = parts;
    // One loop per workspace, whatever its task; taken before anything is read or written.
    let mut lock = WorkspaceLock::take(&spec.root)?;
    let shared = open_recorder(&spec.root, sink)?;
    let snapshots = snapshots_for(&spec).await?;
    let config = run_config(&spec, &pool, &settings);
    let (run, resumed) = create_or_resume(&shared, &spec, config)?;
    lock.held_by(run);
    let progress = read(&shared, |db| Ok(Progress::replay(run, db)))??;
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
        verified: Default::default(),
        progress,
        guide,
        start_infra: Vec::new(),
        exit_code,
    };
    driver.start_infra = driver.verify.infrastructure();
    async move {
        driver.remember_baseline();
        driver.restore_put_back().await?;
        driver.checkpoint().await?;
        if let Some(end) = driver.baseline().await? {
            return Ok(end);
        }
        driver.drive().await
    }
    .instrument(info_span!("verdict_loop", run = run.0))
    .await
}

/// The state database of the workspace at `root`, with the sink, behind one lock.
fn open_recorder(root: &Path, sink: EventSink) -> Result<Shared, LoopError> {
    let path = crate::paths::state_db(root);
    let db = StateDb::open(&path).map_err(|source| LoopError::StateFile {
        path: path.clone(),
        source,
    })?;
    Ok(Arc::new(Mutex::new(Recorder { db, sink })))
}

/// The workspace's snapshots, when they can be had; `--reset` cannot do without.
async fn snapshots_for(spec: &LoopSpec) -> Result<Option<Arc<Snapshots>>, LoopError> {
    match open_snapshots(&spec.root).await {
        Ok(snapshots) => Ok(Some(Arc::new(snapshots))),
        Err(error) if spec.reset => Err(LoopError::Reset(Box::new(error))),
        Err(_) => Ok(None),
    }
}

/// The unfinished run of the task, resumed, or a new one; and whether it was resumed.
fn create_or_resume(
    shared: &Shared,
    spec: &LoopSpec,
    config: Value,
) -> Result<(RunId, bool), LoopError> {
    let existing = read(shared, |db| {
        db.find_run_by_task(&task_hash(&spec.task), &spec.root)
    })?;
    match existing {
        Some(found) => {
            let changed = config != found.config;
            // A run handed back to wait for its next attempt is continued as if it had waited:
            // nothing of it is unfinished, so there is nothing to resume.
            if spec.yield_retries && !changed && found.state == RunState::RetryScheduled {
                return Ok((found.id, false));
            }
            resume(shared, spec, found.id, changed.then_some(config))?;
            Ok((found.id, true))
        }
        None => Ok((create(shared, spec, config)?, false)),
    }
}

/// Resumes `run`: stops its orphaned agent, marks its unfinished attempts interrupted, and stores
/// `config` when flags given now changed it.
fn resume(
    shared: &Shared,
    spec: &LoopSpec,
    run: RunId,
    config: Option<Value>,
) -> Result<(), LoopError> {
    let resumed = read(shared, |db| db.resume(run, spec.grace))?;
    let event = Event::RunResumed {
        was: resumed.was,
        stopped: resumed.stopped.iter().map(Stopped::of).collect(),
        next_attempt: resumed.next_attempt,
        unverified: resumed.unverified.as_ref().map(|a| a.number),
        config: config.clone(),
    };
    record(shared, run, &[event], |batch| match &config {
        Some(config) => batch.update_run_config(run, config, spec.policies.max_attempts),
        None => Ok(()),
    })?;
    Ok(())
}

/// Creates the run, with its `run_started` event.
fn create(shared: &Shared, spec: &LoopSpec, config: Value) -> Result<RunId, LoopError> {
    let run = record_new(shared, |batch| {
        let run = batch.create_run(&NewRun {
            task: &spec.task,
            workspace: &spec.root,
            config: config.clone(),
            max_attempts: spec.policies.max_attempts,
        })?;
        let event = Event::RunStarted {
            task_hash: task_hash(&spec.task),
            workspace: spec.root.to_string_lossy().into_owned(),
            config,
        };
        Ok((run, vec![event]))
    })?;
    Ok(run)
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

impl Driver<'_> {
    /// A resumed run still knows its starting tree's verification (without its logs).
    fn remember_baseline(&mut self) {
        if let (Some(tree), Some(baseline)) = (
            self.progress.start_tree.clone(),
            self.progress.baseline_verifications(),
        ) {
            self.remember(&tree, "baseline", &baseline);
        }
    }

    /// Records the starting tree, pinned so that `--resume` and `--reset` find it; once per run.
    async fn checkpoint(&mut self) -> Result<(), LoopError> {
        if self.progress.start_tree.is_some() {
            return Ok(());
        }
        let Some(snapshots) = self.snapshots.clone() else {
            return Ok(());
        };
        let tree = take(&snapshots).await?;
        let (pinned, name) = (tree.clone(), format!("runs/{}/start", self.run));
        blocking(move || snapshots.pin(&pinned, &name)).await?;
        let event = Event::Checkpoint {
            tree: tree.to_string(),
        };
        record(self.shared, self.run, &[event], |_| Ok(()))?;
        self.last_tree = Some(tree.clone());
        self.progress.start_tree = Some(tree);
        Ok(())
    }

    /// Verifies the starting tree, once per run (unless `--no-baseline`); `Some` when the run was
    /// interrupted meanwhile.
    async fn baseline(&mut self) -> Result<Option<LoopEnd>, LoopError> {
        let state = self.state()?;
        if !self.spec.baseline || self.progress.baseline.is_some() || state != RunState::Pending {
            return Ok(None);
        }
        let started = Instant::now();
        let verifications = self.verify_once(None, true, "baseline".into()).await?;
        if self.is_interrupted(&verifications) {
            let reason = "interrupted during the baseline verification";
            return self
                .interrupt(state, reason, Vec::new(), |_| Ok(()))
                .map(Some);
        }
        let failures = FailureSet::from_verifications(&verifications);
        let outcome = overall(&verifications);
        let tests_run = tests_run(&verifications);
        let digest = digest_of(&verifications, self.spec.digest_budget, &self.spec.root);
        let refs = failure_refs(&failures);
        let baseline = BaselineRecord {
            outcome,
            failures,
            tests_run,
            reports: verifications.iter().map(StoredReport::of).collect(),
        };
        let event = Event::BaselineFinished(baseline.clone());
        let run = self.run;
        record(self.shared, run, &[event], |batch| {
            let verification = NewVerification {
                outcome,
                category: None,
                confidence: None,
                location: None,
                failures: &refs,
                flaky: &[],
                tests_run,
                digest: &digest.text,
                duration: started.elapsed(),
            };
            batch.record_verification(run, None, &verification)
        })?;
        self.progress.baseline = Some(baseline);
        if let Some(tree) = self.progress.start_tree.clone() {
            self.remember(&tree, "baseline", &verifications);
        }
        Ok(None)
    }
}
