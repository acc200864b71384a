//! What the caller hands the driver — the settings of a run, the verification, the agents, the
//! sink — and what it gets back.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::VerifyError;
use super::events::EventSink;
use crate::agent_loop::agent::AgentPool;
use crate::agent_loop::policy::Policies;
use crate::model::Verification;
use crate::process::ProcessRunner;
use crate::state::{RunId, RunRecord, RunState};

/// What the end of a run means to whoever started it. The driver says what happened; the caller
/// decides what it makes of it (the CLI's exit code, in one place).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopOutcome {
    /// The run ended verified green.
    Passed,
    /// Its attempts were spent, a policy blocked it, or its agent session failed.
    Failed,
    /// It could not run: no agent could start.
    CouldNotRun,
    /// It escalated to a person.
    Escalated,
    /// Ctrl-C or SIGTERM stopped it; it waits to be resumed.
    Interrupted,
    /// It stopped in a state that is not an end: a retry handed back to be continued
    /// ([`LoopSpec::yield_retries`]).
    Unfinished,
}

impl LoopOutcome {
    /// The outcome of a run found in `state`. A failed session counts as failed: whether an agent
    /// could start at all is known only to the run that ended so.
    pub fn of_state(state: RunState) -> LoopOutcome {
        match state {
            RunState::Passed => LoopOutcome::Passed,
            RunState::Escalated => LoopOutcome::Escalated,
            RunState::Interrupted => LoopOutcome::Interrupted,
            RunState::Exhausted | RunState::Blocked | RunState::SessionFailed => {
                LoopOutcome::Failed
            }
            RunState::Pending
            | RunState::AgentRunning
            | RunState::Verifying
            | RunState::RetryScheduled => LoopOutcome::Unfinished,
        }
    }
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
/// interrupted, unfinished verifiers come back [`Status::Cancelled`](crate::model::Status).
#[async_trait]
pub trait Verify: Send + Sync {
    /// Verifies the workspace as it is now.
    async fn verify(&self, request: VerifyRequest) -> Result<Vec<Verification>, VerifyError>;

    /// The infrastructure of each verifier [`Verify::verify`] runs, by verifier name (see
    /// [`crate::verifier::Infrastructure`]): the guard puts the starting tree's versions back when
    /// an attempt changed them. The default is none.
    fn infrastructure(&self) -> Vec<(String, crate::verifier::Infrastructure)> {
        Vec::new()
    }
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
    /// Hand a scheduled retry back instead of waiting its delay: the run stops
    /// `retry_scheduled` ([`LoopEnd::retry_after`] says when the next attempt is due), and the
    /// next run of the same task continues it with no `run_resumed` event, as if it had waited.
    /// A fleet's worker sets it, so that one attempt holds a slot, not the wait after it.
    pub yield_retries: bool,
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
    /// The task may change the test infrastructure (`--allow-infra-edits`).
    pub allow_infra_edits: bool,
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
pub fn recorded_settings(run: &RunRecord) -> Option<RunSettings> {
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
    /// What that end means: the caller maps it to its exit code.
    pub outcome: LoopOutcome,
    /// Attempts judged (verified, or ended by a failed session); interrupted ones are not counted.
    pub attempts: u32,
    /// Why it ended, in one line.
    pub reason: String,
    /// The digest of the last verification (a pass's included).
    pub digest: Option<String>,
    /// Whether this invocation continued an unfinished run.
    pub resumed: bool,
    /// With [`LoopSpec::yield_retries`], a run stopped `retry_scheduled`: the delay until its
    /// next attempt is due.
    pub retry_after: Option<Duration>,
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
    /// The number the `run_finished` event reports for an outcome (its `exit_code` field): the
    /// caller's exit code for it, so that the event and the process say the same and one place
    /// (the CLI's `exit` module) decides the codes.
    pub exit_code: fn(LoopOutcome) -> u8,
}

impl std::fmt::Debug for LoopParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopParts")
            .field("pool", &self.pool)
            .field("guide", &self.guide.is_some())
            .finish()
    }
}
