//! The pipeline: runs a set of verifiers on a workspace, concurrently and bounded, in the order
//! their `needs` allow, and turns each into a [`Verification`] whose outcome never claims more than
//! the tool showed.
//!
//! Deliberately not a task-graph framework: a bounded set of concurrent verifiers, each started
//! once everything it needs has passed. A verifier whose need did not pass is skipped (errored,
//! saying which need failed); `--fail-fast` stops starting new verifiers after the first one that
//! does not pass and lets those already running finish, so their results are still reported.
//!
//! Every captured run goes through [`reconcile`], the one place where the exit code and the parsed
//! report are checked against each other, so that linked, configured and plugin verifiers all fail
//! closed in the same way.

mod shard;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use crate::cache::{Cache, Decision, Fingerprint, Found, Lookup, Stored};
use crate::exit_reason;
use crate::model::{Evidence, Kind, Outcome, Report, Status, Verification};
use crate::verifier::{
    Captured, CommandSpec, Exit, Runner, Shard, Sharding, Verifier, VerifierError, Workspace,
};

/// One verifier as the pipeline runs it, with the settings the project gave it.
#[derive(Clone)]
pub struct Entry {
    /// The verifier.
    pub verifier: Arc<dyn Verifier>,
    /// Names of verifiers that must pass before this one starts.
    pub needs: Vec<String>,
    /// Overrides the time-out the verifier asks for.
    pub timeout: Option<Duration>,
    /// Extra environment for its command (wins over the verifier's own).
    pub env: BTreeMap<String, String>,
    /// Arguments appended to its command, after everything the verifier puts there.
    pub args: Vec<String>,
    /// The directory its command runs in, in place of the verifier's own (absolute).
    pub cwd: Option<std::path::PathBuf>,
    /// For test verifiers: whether a run that ran no test, or skipped every test, may pass.
    pub allow_no_tests: bool,
    /// What else its cached result depends on (its settings, verdict's version); see
    /// [`Cache::key`].
    pub cache_salt: String,
}

impl Entry {
    /// An entry with default settings.
    pub fn new(verifier: Arc<dyn Verifier>) -> Self {
        Entry {
            verifier,
            needs: Vec::new(),
            timeout: None,
            env: BTreeMap::new(),
            args: Vec::new(),
            cwd: None,
            allow_no_tests: false,
            cache_salt: String::new(),
        }
    }

    fn name(&self) -> &str {
        self.verifier.name()
    }
}

/// How the pipeline runs.
#[derive(Clone, Default)]
pub struct Options {
    /// At most this many verifiers at once (0 means the number of cores).
    pub jobs: usize,
    /// Stop starting verifiers after the first one that does not pass.
    pub fail_fast: bool,
    /// Where passes and last reports are kept; `None` keeps nothing (and runs everything).
    pub cache: Option<Cache>,
    /// Run every verifier even when a pass is stored for its unchanged inputs (`--no-cache`);
    /// results are still recorded for the next run.
    pub run_all: bool,
    /// Re-run first only what failed last time, and the full run only once that passes.
    pub failed_first: bool,
    /// Set when the run is interrupted: nothing new starts, and what has not run is cancelled.
    /// (Stopping what runs is the [`Runner`]'s job; the caller cancels both.)
    pub interrupted: Option<Arc<AtomicBool>>,
}

/// What the pipeline reports while it runs, for a live progress view.
#[derive(Debug, Clone)]
pub enum Event<'a> {
    /// A verifier's command started.
    Started {
        /// The verifier.
        verifier: &'a str,
    },
    /// What the cache did for a verifier that reached it (told just before it finishes).
    Cache {
        /// The verifier.
        verifier: &'a str,
        /// Whether it was served from the cache, why not, and what its run stored.
        decision: &'a Decision,
    },
    /// A verifier finished (ran, came from the cache, was skipped or cancelled).
    Finished {
        /// The result.
        verification: &'a Verification,
    },
}

/// Why the pipeline could not start.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PipelineError {
    /// Two verifiers share a name.
    #[error("two verifiers are called `{0}`")]
    DuplicateName(String),
    /// A verifier needs one that is not in the run.
    #[error("verifier `{verifier}` needs `{need}`, which is not among the verifiers to run")]
    UnknownNeed {
        /// The verifier.
        verifier: String,
        /// The missing need.
        need: String,
    },
    /// The needs form a cycle.
    #[error("the needs of these verifiers form a cycle: {}", .0.join(", "))]
    Cycle(Vec<String>),
}

/// Checks names and needs before anything runs.
pub fn validate(entries: &[Entry]) -> Result<(), PipelineError> {
    let mut names = BTreeSet::new();
    for entry in entries {
        if !names.insert(entry.name()) {
            return Err(PipelineError::DuplicateName(entry.name().to_owned()));
        }
    }
    for entry in entries {
        for need in &entry.needs {
            if !names.contains(need.as_str()) {
                return Err(PipelineError::UnknownNeed {
                    verifier: entry.name().to_owned(),
                    need: need.clone(),
                });
            }
        }
    }
    // Kahn's algorithm: whatever cannot be ordered is on a cycle (or behind one).
    let mut done: BTreeSet<&str> = BTreeSet::new();
    loop {
        let ready: Vec<&str> = entries
            .iter()
            .filter(|e| !done.contains(e.name()))
            .filter(|e| e.needs.iter().all(|n| done.contains(n.as_str())))
            .map(Entry::name)
            .collect();
        if ready.is_empty() {
            break;
        }
        done.extend(ready);
    }
    if done.len() < entries.len() {
        let stuck = entries
            .iter()
            .map(Entry::name)
            .filter(|n| !done.contains(n))
            .map(str::to_owned)
            .collect();
        return Err(PipelineError::Cycle(stuck));
    }
    Ok(())
}

/// Runs `entries` on `workspace` and returns one [`Verification`] per entry, in the entries'
/// order. `workspace.run_dir` is created; each verifier's output goes to
/// `<run_dir>/<name>.log`.
pub async fn run(
    entries: &[Entry],
    workspace: &Workspace,
    runner: Arc<dyn Runner>,
    options: &Options,
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
) -> Result<Vec<Verification>, PipelineError> {
    validate(entries)?;
    if let Err(error) = crate::files::create_private_dir(&workspace.run_dir) {
        // Without a run directory nothing can be logged: every verifier errs, none passes.
        let reason = format!(
            "failed to create the run directory {}: {error}",
            workspace.run_dir.display()
        );
        return Ok(entries
            .iter()
            .map(|e| not_run(e, Status::Skipped, reason.clone()))
            .collect());
    }
    let jobs = if options.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        options.jobs
    };
    let mut schedule = Schedule {
        entries,
        results: BTreeMap::new(),
        started: BTreeSet::new(),
        stop_starting: false,
    };
    let mut running: JoinSet<(usize, Verification, Option<Decision>)> = JoinSet::new();
    let mut tasks: std::collections::HashMap<tokio::task::Id, usize> = Default::default();
    loop {
        schedule.settle(interrupted(options), on_event);
        // Start what is ready, up to the bound.
        for (index, entry) in entries.iter().enumerate() {
            if running.len() >= jobs {
                break;
            }
            if !schedule.ready(index) {
                continue;
            }
            schedule.started.insert(index);
            on_event(Event::Started {
                verifier: entry.name(),
            });
            let entry = entry.clone();
            let workspace = workspace.clone();
            let runner = Arc::clone(&runner);
            let options = options.clone();
            let task = running.spawn(async move {
                let (verification, decision) =
                    verify(&entry, &workspace, runner.as_ref(), &options).await;
                (index, verification, decision)
            });
            tasks.insert(task.id(), index);
        }
        let Some(joined) = running.join_next_with_id().await else {
            break;
        };
        match joined {
            Ok((_, (index, verification, decision))) => {
                if options.fail_fast && !shard::satisfies_needs(&verification) {
                    schedule.stop_starting = true;
                }
                if let Some(decision) = &decision {
                    on_event(Event::Cache {
                        verifier: entries[index].name(),
                        decision,
                    });
                }
                schedule.finish(index, verification, on_event);
            }
            Err(error) => {
                // A panicking verifier must not take the run down or pass silently.
                tracing::error!("a verifier task failed: {error}");
                schedule.stop_starting |= options.fail_fast;
                if let Some(&index) = tasks.get(&error.id()) {
                    let verification = not_run(
                        &entries[index],
                        Status::Ran,
                        format!("verdict failed while running this verifier: {error}"),
                    );
                    schedule.finish(index, verification, on_event);
                }
            }
        }
    }
    Ok(schedule.into_verifications())
}

/// Whether the run is being interrupted (Ctrl-C).
fn interrupted(options: &Options) -> bool {
    options
        .interrupted
        .as_ref()
        .is_some_and(|flag| flag.load(Ordering::SeqCst))
}

/// What a pipeline run has started and finished so far.
struct Schedule<'e> {
    entries: &'e [Entry],
    /// The verification of each entry that finished (or will not run), by index.
    results: BTreeMap<usize, Verification>,
    /// The entries started.
    started: BTreeSet<usize>,
    /// Set by `--fail-fast` once a verifier did not pass.
    stop_starting: bool,
}

impl Schedule<'_> {
    /// Whether the entry at `index` has neither started nor been settled.
    fn pending(&self, index: usize) -> bool {
        !self.started.contains(&index) && !self.results.contains_key(&index)
    }

    /// Whether the entry at `index` is pending and every one it needs passed.
    fn ready(&self, index: usize) -> bool {
        self.pending(index)
            && self.entries[index].needs.iter().all(|need| {
                self.entries
                    .iter()
                    .position(|e| e.name() == need)
                    .and_then(|i| self.results.get(&i))
                    .is_some_and(shard::satisfies_needs)
            })
    }

    /// Records the verification of the entry at `index`, and tells it.
    fn finish(
        &mut self,
        index: usize,
        verification: Verification,
        on_event: &mut (dyn FnMut(Event<'_>) + Send),
    ) {
        on_event(Event::Finished {
            verification: &verification,
        });
        self.results.insert(index, verification);
    }

    /// Settles what can no longer run: skipped for a failed need, cancelled, or stopped by
    /// --fail-fast.
    fn settle(&mut self, interrupted: bool, on_event: &mut (dyn FnMut(Event<'_>) + Send)) {
        for (index, entry) in self.entries.iter().enumerate() {
            if !self.pending(index) {
                continue;
            }
            let failed_need = entry.needs.iter().find_map(|need| {
                let i = self.entries.iter().position(|e| e.name() == need)?;
                let result = self.results.get(&i)?;
                (!shard::satisfies_needs(result)).then_some(need)
            });
            let verification = if interrupted {
                not_run(
                    entry,
                    Status::Cancelled,
                    "the run was interrupted before it started".to_owned(),
                )
            } else if let Some(need) = failed_need {
                not_run(
                    entry,
                    Status::Skipped,
                    format!("not run: it needs `{need}`, which did not pass"),
                )
            } else if self.stop_starting {
                not_run(
                    entry,
                    Status::Skipped,
                    "not run: --fail-fast stopped the run after a verifier did not pass".to_owned(),
                )
            } else {
                continue;
            };
            self.finish(index, verification, on_event);
        }
    }

    /// One verification per entry, in the entries' order.
    fn into_verifications(mut self) -> Vec<Verification> {
        self.entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                self.results.remove(&index).unwrap_or_else(|| {
                    not_run(
                        entry,
                        Status::Ran,
                        "verdict failed while running this verifier (internal error; see the \
                         trace)"
                            .to_owned(),
                    )
                })
            })
            .collect()
    }
}

/// A verification for a verifier that did not run: always errored, never passed.
fn not_run(entry: &Entry, status: Status, reason: String) -> Verification {
    Verification {
        verifier: entry.name().to_owned(),
        kind: entry.verifier.kind(),
        status,
        report: Report::errored(entry.name(), reason),
        command: None,
        log: None,
        duration: Duration::ZERO,
        notes: Vec::new(),
    }
}

/// Runs one entry: the cache, the failed-first re-run, the full run. Also what the cache did,
/// for an entry that got as far as its command.
async fn verify(
    entry: &Entry,
    workspace: &Workspace,
    runner: &dyn Runner,
    options: &Options,
) -> (Verification, Option<Decision>) {
    let name = entry.name().to_owned();
    let verifier = Arc::clone(&entry.verifier);
    let started = Instant::now();
    let sharding = verifier.sharding(workspace);
    let shard_notes = match shard::place(entry, workspace, sharding) {
        shard::Place::Here(notes) => notes,
        shard::Place::Elsewhere(reason) => {
            return (not_run(entry, Status::NotInShard, reason), None);
        }
    };
    let mut spec = match verifier.command(workspace) {
        Ok(spec) => spec,
        Err(error @ VerifierError::EmptyShard { .. }) => {
            let reason = format!("not run: {error}");
            return (not_run(entry, Status::NotInShard, reason), None);
        }
        Err(error) => {
            let mut verification = not_run(entry, Status::Ran, error.to_string());
            verification.duration = started.elapsed();
            // A verifier that cannot even describe its command has not passed.
            forget(options, &name);
            return (verification, None);
        }
    };
    apply_settings(entry, &mut spec);

    let before = fingerprint(entry, workspace, &spec, options).await;
    let lookup = match look_up(entry, &spec, options, &before, started) {
        Ok(lookup) => lookup,
        Err(cached) => {
            let decision = Decision {
                lookup: Lookup::Served,
                stored: None,
            };
            return (*cached, Some(decision));
        }
    };

    let mut notes = match failed_first(entry, workspace, runner, options, started).await {
        FailedFirst::Decided(verification) => {
            // The failures still fail: nothing passed, and no earlier pass stands.
            let stored = Some(forget(options, &name));
            return (*verification, Some(Decision { lookup, stored }));
        }
        FailedFirst::RunInFull(notes) => notes,
    };
    notes.extend(shard_notes);

    let log = workspace.run_dir.join(format!("{}.log", file_name(&name)));
    let split = workspace.shard.filter(|_| sharding == Sharding::Split);
    let (report, empty_shard, log) = run_one(entry, &spec, runner, &log, split).await;
    if empty_shard {
        let verification = Verification {
            verifier: name,
            kind: verifier.kind(),
            status: Status::NotInShard,
            report,
            command: Some(argv(&spec)),
            log: Some(relative(workspace, &log)),
            duration: started.elapsed(),
            notes,
        };
        let decision = Decision {
            lookup,
            stored: Some(Stored::Nothing),
        };
        return (verification, Some(decision));
    }
    store_last(options, &name, &report);
    let stored = if report.outcome == Outcome::Passed {
        store_pass(entry, workspace, &spec, options, &report, before).await
    } else {
        forget(options, &name)
    };
    let verification = Verification {
        verifier: name,
        kind: verifier.kind(),
        status: Status::Ran,
        report,
        command: Some(argv(&spec)),
        log: Some(relative(workspace, &log)),
        duration: started.elapsed(),
        notes,
    };
    (
        verification,
        Some(Decision {
            lookup,
            stored: Some(stored),
        }),
    )
}

/// What the cache says of an entry about to run, its key taken `before`: why it must run, or
/// (`Err`) the stored pass for that key, to report as cached.
fn look_up(
    entry: &Entry,
    spec: &CommandSpec,
    options: &Options,
    before: &Result<Fingerprint, Lookup>,
    started: Instant,
) -> Result<Lookup, Box<Verification>> {
    let name = entry.name();
    Ok(match (&options.cache, before) {
        (None, _) => Lookup::NoCache,
        (_, Err(why)) => why.clone(),
        (Some(_), Ok(_)) if options.run_all => Lookup::Disabled,
        (Some(cache), Ok(before)) => match cache.find(name, &before.key) {
            Found::Pass(report) => {
                return Err(Box::new(Verification {
                    verifier: name.to_owned(),
                    kind: entry.verifier.kind(),
                    status: Status::Cached,
                    report: *report,
                    command: Some(argv(spec)),
                    log: None,
                    duration: started.elapsed(),
                    // The status says it; every report format shows the status.
                    notes: Vec::new(),
                }));
            }
            Found::OtherKey => Lookup::KeyChanged,
            Found::Nothing => Lookup::NoEntry,
        },
    })
}

/// Stores a pass under the key taken before the run, if the inputs are the same after it: a
/// file edited while the tool ran may have been read in either state, so a pass is only kept
/// for inputs that stayed as the key names them from before the run to after it.
async fn store_pass(
    entry: &Entry,
    workspace: &Workspace,
    spec: &CommandSpec,
    options: &Options,
    report: &Report,
    before: Result<Fingerprint, Lookup>,
) -> Stored {
    let (Some(cache), Ok(before)) = (&options.cache, before) else {
        return Stored::Nothing;
    };
    let after = fingerprint(entry, workspace, spec, options).await;
    if !after.is_ok_and(|after| before.unchanged_at(&after)) {
        return Stored::InputsChanged;
    }
    match cache.store_pass(entry.name(), &before.key, report) {
        Ok(()) => Stored::Stored,
        Err(error) => {
            tracing::warn!(
                "failed to store the result of {} in the cache: {error}",
                entry.name()
            );
            Stored::Failed(error.to_string())
        }
    }
}

/// Removes a verifier's stored pass after a run that did not pass, whatever key it ran with
/// (`--no-cache` too): no later run may be answered by a pass that this one contradicts.
fn forget(options: &Options, name: &str) -> Stored {
    let Some(cache) = &options.cache else {
        return Stored::Nothing;
    };
    match cache.forget(name) {
        Ok(true) => Stored::Removed,
        Ok(false) => Stored::NotPassed,
        Err(error) => {
            tracing::warn!("failed to remove the cached pass of {name}: {error}");
            Stored::Failed(error.to_string())
        }
    }
}

/// What the failed-first re-run of a verifier said.
enum FailedFirst {
    /// The failures still fail: the re-run is the verification.
    Decided(Box<Verification>),
    /// Run in full, with these notes (none when there was no re-run).
    RunInFull(Vec<String>),
}

/// With `--failed-first`, re-runs only what failed in the verifier's last run, with the tool's
/// own filter.
async fn failed_first(
    entry: &Entry,
    workspace: &Workspace,
    runner: &dyn Runner,
    options: &Options,
    started: Instant,
) -> FailedFirst {
    let name = entry.name().to_owned();
    let verifier = &entry.verifier;
    // A shard re-runs no failures first: the last run's failures may be another shard's tests.
    let Some(cache) = options
        .cache
        .as_ref()
        .filter(|_| options.failed_first && workspace.shard.is_none())
    else {
        return FailedFirst::RunInFull(Vec::new());
    };
    let Some(previous) = cache
        .last(&name)
        .filter(|previous| previous.outcome == Outcome::Failed)
    else {
        return FailedFirst::RunInFull(Vec::new());
    };
    let Some(mut rerun) = verifier.rerun_failed(workspace, &previous) else {
        return FailedFirst::RunInFull(Vec::new());
    };
    apply_settings(entry, &mut rerun);
    let failures = failures_of(entry, &previous);
    let log = workspace
        .run_dir
        .join(format!("{}.failed-first.log", file_name(&name)));
    let (report, _, log) = run_one(entry, &rerun, runner, &log, None).await;
    let plural = if failures == 1 { "" } else { "s" };
    let what = if verifier.kind() == Kind::Test {
        format!("re-ran {failures} failed test{plural} first")
    } else {
        format!("re-checked the {failures} failure{plural} of the last run first")
    };
    if report.outcome == Outcome::Errored && !interrupted(options) {
        // The narrowed run proved nothing (its filter matched no test, the tool failed on it):
        // the full run decides, as if there had been no re-run.
        return FailedFirst::RunInFull(vec![format!(
            "{what}, but that run could not verify ({}); ran in full",
            report.error.as_deref().unwrap_or("no reason given")
        )]);
    }
    if report.outcome == Outcome::Passed {
        return FailedFirst::RunInFull(vec![format!("{what}; they pass now, then ran in full")]);
    }
    store_last(options, &name, &report);
    FailedFirst::Decided(Box::new(Verification {
        verifier: name,
        kind: verifier.kind(),
        status: Status::Ran,
        report,
        command: Some(argv(&rerun)),
        log: Some(relative(workspace, &log)),
        duration: started.elapsed(),
        notes: vec![format!(
            "{what}; they still fail, so the full run was skipped"
        )],
    }))
}

/// What a failed-first re-run repeats: the distinct failing tests (and test files that did not
/// load) of a test verifier, the errors of another — never its warnings.
fn failures_of(entry: &Entry, previous: &Report) -> usize {
    let errors = previous
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::model::Severity::Error);
    if entry.verifier.kind() == Kind::Test {
        errors
            .filter_map(|d| d.test.as_deref().or(d.file.as_deref()))
            .collect::<BTreeSet<_>>()
            .len()
    } else {
        errors.filter(|d| d.file.is_some()).count()
    }
}

/// Runs one command and interprets it, off the async threads (parsing a large log takes time).
/// With `split` (the shard of a verifier that splits its tests), a run that passed with no test
/// at all is this shard having none of them: the answer is `true`, with the report errored and
/// saying so, and the caller lists it as not run in this shard. The path answered last is the
/// file that holds the tool's output ([`full_output`]), to name as its full log.
async fn run_one(
    entry: &Entry,
    spec: &CommandSpec,
    runner: &dyn Runner,
    log: &Path,
    split: Option<Shard>,
) -> (Report, bool, PathBuf) {
    let captured = runner.run(spec, log).await;
    let full = full_output(spec, &captured);
    let verifier = Arc::clone(&entry.verifier);
    let spec_owned = spec.clone();
    let allow_no_tests = entry.allow_no_tests;
    let name = entry.name().to_owned();
    let interpreted = tokio::task::spawn_blocking(move || {
        let report = verifier.interpret(&spec_owned, &captured);
        if let Some(shard) = split
            && verifier.kind() == Kind::Test
            && shard::ran_nothing(&report, &spec_owned, &captured)
        {
            let mut report = Report::errored(
                &report.tool,
                format!(
                    "not run: {name} found no test for shard {shard}: more shards than test files"
                ),
            );
            report
                .notes
                .push("the tool ran and found none of its tests in this shard".to_owned());
            return (report, true);
        }
        let mut report = reconcile(
            report,
            &spec_owned,
            &captured,
            verifier.kind(),
            allow_no_tests,
        );
        // Whatever the verifier set directly, and the reasons that quote its tool, are redacted
        // here, once for every consumer of the run: renderers, cache, baseline, loop and MCP.
        report.redact();
        (report, false)
    })
    .await;
    match interpreted {
        Ok((report, empty_shard)) => (report, empty_shard, full),
        Err(error) => (
            Report::errored(
                entry.name(),
                format!("the verifier failed while reading its output: {error}"),
            ),
            false,
            full,
        ),
    }
}

/// The file that holds what a command's tool printed, to name as its full log: the captured log,
/// unless the tool printed nothing there and wrote its output to a file of the command's
/// (`eslint -f json -o`), which the link then names — an empty log is no full log.
fn full_output(spec: &CommandSpec, captured: &Captured) -> PathBuf {
    let log_empty = std::fs::metadata(&captured.log_path).map_or(true, |m| m.len() == 0);
    if log_empty
        && let Some(path) = spec
            .output_files
            .iter()
            .zip(&captured.output_files)
            .find(|(_, bytes)| bytes.as_ref().is_some_and(|b| !b.is_empty()))
            .map(|(path, _)| path)
    {
        return path.clone();
    }
    captured.log_path.clone()
}

fn store_last(options: &Options, name: &str, report: &Report) {
    if let Some(cache) = &options.cache
        && let Err(error) = cache.store_last(name, report)
    {
        tracing::warn!("failed to record the last result of {name}: {error}");
    }
}

/// The key of an entry's run and what its inputs look like now, or why there is none.
async fn fingerprint(
    entry: &Entry,
    workspace: &Workspace,
    spec: &CommandSpec,
    options: &Options,
) -> Result<Fingerprint, Lookup> {
    if options.cache.is_none() {
        return Err(Lookup::NoCache);
    }
    let Some(inputs) = entry.verifier.inputs(workspace) else {
        return Err(Lookup::NotCacheable(
            "it does not say which files it reads: a declared script, a custom verifier without \
             `inputs`, or a plugin that names none"
                .to_owned(),
        ));
    };
    let workspace = workspace.clone();
    let spec = spec.clone();
    let salt = format!("{}\n{}", entry.name(), entry.cache_salt);
    let keyed =
        tokio::task::spawn_blocking(move || Cache::fingerprint(&workspace, &inputs, &spec, &salt))
            .await;
    match keyed {
        Ok(Ok(fingerprint)) => Ok(fingerprint),
        Ok(Err(error)) => Err(Lookup::NoKey(error.to_string())),
        Err(error) => Err(Lookup::NoKey(error.to_string())),
    }
}

fn apply_settings(entry: &Entry, spec: &mut CommandSpec) {
    if let Some(timeout) = entry.timeout {
        spec.timeout = timeout;
    }
    spec.env
        .extend(entry.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    spec.args.extend(entry.args.iter().cloned());
    if let Some(cwd) = &entry.cwd {
        spec.cwd.clone_from(cwd);
    }
}

/// The argv of a spec, for people to read and reproduce.
fn argv(spec: &CommandSpec) -> Vec<String> {
    std::iter::once(spec.program.to_string_lossy().into_owned())
        .chain(spec.args.iter().cloned())
        .collect()
}

/// A verifier name made safe as a file name (names from config are validated, plugin names are
/// not).
fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn relative(workspace: &Workspace, path: &Path) -> String {
    path.strip_prefix(&workspace.root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| PathBuf::from(path))
        .to_string_lossy()
        .into_owned()
}

/// Checks a verifier's report against how its command ended, so that no verifier can pass what
/// the tool did not show to be a pass:
///
/// - a time-out, an interruption, a signal or a command that did not start: errored;
/// - an exit code the verifier declares a pass, with failures parsed: errored (the two disagree);
/// - an exit code declared a failure, with nothing understood as one: errored;
/// - an exit code declared neither: errored, unless the report already explains it (errored);
/// - a test verifier that ran no test, or skipped every test: errored, unless `allow_no_tests`;
/// - a pass of a verifier that needs evidence (its tool always shows what it checked, see
///   [`Report::evidence_needed`]) whose output shows none: errored — a tool replaced by `exit 0`;
/// - a log cut in its middle ([`Captured::log_cut`]): said in a note, and a pass stands only when
///   the tool's own summary of the whole run was read (what was cut could hold a failure that
///   only the summary would count).
///
/// What the verifier found is kept (a timed-out test run's failures are still shown); only the
/// outcome and the reason change.
pub fn reconcile(
    mut report: Report,
    spec: &CommandSpec,
    captured: &Captured,
    kind: Kind,
    allow_no_tests: bool,
) -> Report {
    let program = spec
        .program
        .file_name()
        .map_or_else(|| spec.program.to_string_lossy(), |n| n.to_string_lossy())
        .into_owned();
    match &captured.exit {
        Exit::TimedOut => errored(
            &mut report,
            format!(
                "{program} timed out after {} and was stopped",
                human_duration(spec.timeout)
            ),
        ),
        Exit::Cancelled => errored(
            &mut report,
            format!("{program} was stopped: the run was interrupted"),
        ),
        Exit::Signal { signal } => errored(
            &mut report,
            format!("{program} was killed by signal {signal}"),
        ),
        Exit::NotStarted { message } => {
            report.outcome = Outcome::Errored;
            report.error = Some(message.clone());
        }
        Exit::Code { code } => {
            let code = *code;
            let pass = spec.exit_codes.pass.contains(&code);
            let fail = spec.exit_codes.fail.contains(&code);
            match report.outcome {
                Outcome::Errored => {}
                Outcome::Failed if pass => {
                    let found = report.diagnostics_found();
                    errored(
                        &mut report,
                        format!(
                            "{program} exited with {code}, which means a pass, but its output \
                             shows {found} failure(s); the two disagree, so nothing is verified"
                        ),
                    );
                }
                // What made it fail is said: a threshold not met, else the last errors printed.
                Outcome::Passed if fail => {
                    exit_reason::explain(&mut report, &program, code, captured, kind);
                }
                Outcome::Passed | Outcome::Failed if !pass && !fail => errored(
                    &mut report,
                    format!(
                        "{program} exited with {code}, which it does not use for a pass or for \
                         failures in the code (it may have crashed or rejected its configuration)"
                    ),
                ),
                Outcome::Passed | Outcome::Failed => {}
            }
        }
    }
    if captured.log_cut > 0 {
        judge_cut_log(&mut report, &program, captured.log_cut);
    }
    if report.outcome == Outcome::Passed
        && report.evidence() < Evidence::Checked
        && let Some(missing) = report.evidence_needed.clone()
    {
        errored(
            &mut report,
            format!("{missing}; a run that shows nothing was checked is not a pass"),
        );
    }
    if kind == Kind::Test && report.outcome == Outcome::Passed && !allow_no_tests {
        judge_no_tests(&mut report, &program);
    }
    report
}

/// Makes `report` errored for `reason`, keeping a reason it already gave.
fn errored(report: &mut Report, reason: String) {
    report.outcome = Outcome::Errored;
    report.error = match report.error.take() {
        None => Some(reason),
        // The verifier may already have said the same (a time-out, a signal).
        Some(existing) if existing.contains(&reason) => Some(existing),
        Some(existing) => Some(format!("{reason}; {existing}")),
    };
}

/// A log cut in its middle (`cut` bytes left out): said in a note, and a pass stands only on the
/// tool's own summary of the whole run.
fn judge_cut_log(report: &mut Report, program: &str, cut: u64) {
    report.note(format!(
        "the log keeps the first and last parts of {program}'s output: {cut} bytes in the \
         middle were left out, and what they held is not in this report"
    ));
    if report.outcome == Outcome::Passed && report.summary.is_none() {
        errored(
            report,
            format!(
                "{program} printed more than its log keeps ({cut} bytes were cut from the \
                 middle) and what was kept shows no summary of the whole run; a pass cannot \
                 rest on part of the output"
            ),
        );
    }
}

/// A test verifier's pass that ran no test (or skipped every one) is errored.
fn judge_no_tests(report: &mut Report, program: &str) {
    // An unexpected pass ran and passed too.
    let passed = report.counts.tests_passed.unwrap_or(0) + report.counts.tests_xpassed.unwrap_or(0);
    let skipped = report.counts.tests_skipped.unwrap_or(0);
    if passed == 0 && skipped > 0 {
        errored(
            report,
            format!(
                "{program} skipped every test ({skipped}); a run that tests nothing is not a pass (set allow_no_tests to accept it)"
            ),
        );
    } else if passed == 0 {
        errored(
            report,
            format!(
                "{program} ran no test; a run that tests nothing is not a pass (set allow_no_tests to accept it)"
            ),
        );
    }
}

pub use crate::verifier::human_duration;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Diagnostic, Severity};
    use crate::verifier::ExitCodes;

    fn spec() -> CommandSpec {
        CommandSpec {
            program: PathBuf::from("node_modules/.bin/jest"),
            args: vec![],
            env: BTreeMap::new(),
            cwd: PathBuf::from("."),
            timeout: Duration::from_secs(90),
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1],
            },
            output_files: vec![],
        }
    }

    fn captured(exit: Exit) -> Captured {
        Captured {
            exit,
            log_path: PathBuf::from("x.log"),
            log_bytes: 0,
            log_cut: 0,
            output_files: vec![],
            duration: Duration::ZERO,
        }
    }

    fn passed_tests(n: u64) -> Report {
        let mut report = Report::new("jest", Outcome::Passed);
        report.counts.tests_passed = Some(n);
        report
    }

    fn failed() -> Report {
        let mut report = Report::new("jest", Outcome::Failed);
        report.push(Diagnostic::new("jest", Kind::Test, Severity::Error, "boom"));
        report
    }

    fn check(report: Report, exit: Exit, kind: Kind, expect: Outcome, reason: Option<&str>) {
        let reconciled = reconcile(report, &spec(), &captured(exit), kind, false);
        assert_eq!(reconciled.outcome, expect, "{reconciled:?}");
        match reason {
            Some(reason) => {
                let error = reconciled.error.as_deref().unwrap_or_default();
                assert!(error.contains(reason), "{error:?} lacks {reason:?}");
            }
            None => assert_eq!(reconciled.error, None),
        }
    }

    /// A log cut in its middle may have lost a failure: a pass stands only on the tool's own
    /// summary of the whole run, and every report says what was cut.
    #[test]
    fn a_cut_log_passes_only_with_the_tools_summary() {
        let cut = |report: Report, code: i32| {
            let mut captured = captured(Exit::Code { code });
            captured.log_cut = 5_000_000;
            reconcile(report, &spec(), &captured, Kind::Test, false)
        };
        let without_summary = cut(passed_tests(3), 0);
        assert_eq!(
            without_summary.outcome,
            Outcome::Errored,
            "{without_summary:?}"
        );
        let error = without_summary.error.as_deref().unwrap_or_default();
        assert!(error.contains("5000000 bytes were cut"), "{error}");
        let mut summarized = passed_tests(3);
        summarized.summary = Some("Tests: 3 passed, 3 total".to_owned());
        let summarized = cut(summarized, 0);
        assert_eq!(summarized.outcome, Outcome::Passed, "{summarized:?}");
        let failing = cut(failed(), 1);
        assert_eq!(failing.outcome, Outcome::Failed, "{failing:?}");
        for report in [&summarized, &failing] {
            assert!(
                report
                    .notes
                    .iter()
                    .any(|n| n.contains("5000000 bytes in the middle")),
                "{report:?}"
            );
        }
    }

    #[test]
    fn a_pass_without_the_evidence_it_needs_is_errored() {
        let needing = |evidence| {
            let mut report = Report::new("tsc", Outcome::Passed);
            report.saw(evidence);
            report.needs_evidence("tsc printed nothing to show it checked any file");
            report
        };
        check(
            needing(Evidence::Nothing),
            Exit::Code { code: 0 },
            Kind::Type,
            Outcome::Errored,
            Some("tsc printed nothing to show it checked any file"),
        );
        check(
            needing(Evidence::Ran),
            Exit::Code { code: 0 },
            Kind::Type,
            Outcome::Errored,
            Some("is not a pass"),
        );
        check(
            needing(Evidence::Checked),
            Exit::Code { code: 0 },
            Kind::Type,
            Outcome::Passed,
            None,
        );
        // A summary line is evidence by itself; a report that needs none passes on its exit code.
        let mut summarized = needing(Evidence::Nothing);
        summarized.summary = Some("Found 0 errors.".to_owned());
        check(
            summarized,
            Exit::Code { code: 0 },
            Kind::Type,
            Outcome::Passed,
            None,
        );
        check(
            Report::new("custom", Outcome::Passed),
            Exit::Code { code: 0 },
            Kind::Lint,
            Outcome::Passed,
            None,
        );
    }

    #[test]
    fn agreeing_exit_codes_keep_the_outcome() {
        check(
            passed_tests(3),
            Exit::Code { code: 0 },
            Kind::Test,
            Outcome::Passed,
            None,
        );
        check(
            failed(),
            Exit::Code { code: 1 },
            Kind::Test,
            Outcome::Failed,
            None,
        );
    }

    /// A failing exit after every test passed: the log's line that says why is in the report —
    /// a threshold as a failure, anything else quoted in the reason it could not verify.
    #[test]
    fn a_failing_exit_with_every_test_passed_says_why() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let reconciled = |log: &str| {
            let path = dir.path().join("x.log");
            std::fs::write(&path, log).expect("write the log");
            let mut captured = captured(Exit::Code { code: 1 });
            captured.log_path = path;
            reconcile(passed_tests(511), &spec(), &captured, Kind::Test, false)
        };
        let threshold = reconciled(
            "  511 passing (3s)\n\nERROR: Coverage for functions (96%) does not meet global \
             threshold (100%)\n",
        );
        assert_eq!(threshold.outcome, Outcome::Failed, "{threshold:?}");
        assert_eq!(threshold.diagnostics.len(), 1, "{threshold:?}");
        assert_eq!(
            threshold.diagnostics[0].message,
            "ERROR: Coverage for functions (96%) does not meet global threshold (100%)"
        );
        let other = reconciled("  511 passing (3s)\n\nError: 2 handles are still open\n");
        assert_eq!(other.outcome, Outcome::Errored, "{other:?}");
        let error = other.error.as_deref().unwrap_or_default();
        assert!(error.contains("Error: 2 handles are still open"), "{error}");
    }

    #[test]
    fn disagreeing_exit_codes_are_errored() {
        check(
            failed(),
            Exit::Code { code: 0 },
            Kind::Test,
            Outcome::Errored,
            Some("the two disagree"),
        );
        check(
            passed_tests(3),
            Exit::Code { code: 1 },
            Kind::Test,
            Outcome::Errored,
            Some("no failure could be read"),
        );
        check(
            failed(),
            Exit::Code { code: 7 },
            Kind::Test,
            Outcome::Errored,
            Some("exited with 7"),
        );
    }

    #[test]
    fn timeouts_signals_and_interruptions_are_never_a_pass() {
        check(
            passed_tests(3),
            Exit::TimedOut,
            Kind::Test,
            Outcome::Errored,
            Some("jest timed out after 90s"),
        );
        check(
            failed(),
            Exit::Signal { signal: 9 },
            Kind::Test,
            Outcome::Errored,
            Some("signal 9"),
        );
        check(
            passed_tests(1),
            Exit::Cancelled,
            Kind::Test,
            Outcome::Errored,
            Some("interrupted"),
        );
    }

    #[test]
    fn a_test_run_that_tests_nothing_has_not_passed() {
        check(
            passed_tests(0),
            Exit::Code { code: 0 },
            Kind::Test,
            Outcome::Errored,
            Some("ran no test"),
        );
        let mut skipped = passed_tests(0);
        skipped.counts.tests_skipped = Some(4);
        check(
            skipped,
            Exit::Code { code: 0 },
            Kind::Test,
            Outcome::Errored,
            Some("skipped every test (4)"),
        );
        // Only test verifiers count tests.
        check(
            Report::new("tsc", Outcome::Passed),
            Exit::Code { code: 0 },
            Kind::Type,
            Outcome::Passed,
            None,
        );
        let allowed = reconcile(
            passed_tests(0),
            &spec(),
            &captured(Exit::Code { code: 0 }),
            Kind::Test,
            true,
        );
        assert_eq!(allowed.outcome, Outcome::Passed);
    }
}
