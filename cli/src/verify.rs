//! The one verification path of `verdict run`, `verdict hook`, `verdict loop` and `verdict mcp`:
//! select the verifiers and configure them into the pipeline's entries ([`Plan::new`]), run them
//! in a fresh run directory ([`Plan::run`], the one function every command calls), cut short by
//! what the command answers to — Ctrl-C and SIGTERM ([`forward_signals`], [`signalled`]), a
//! deadline, a client's cancel ([`Cut`]) — and digest what they found ([`digest`]). Each command
//! then answers in its own shape: a report, a harness's JSON, the loop's next prompt, a tool result.

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, anyhow, bail};
use verdict_core::Verification;
use verdict_core::cache::Cache;
use verdict_core::digest;
use verdict_core::pipeline::{self, Entry, Event};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{Applicability, Runner, Workspace};
use verdict_core::{files, paths};

use crate::config::Config;
use crate::registry::Known;

/// How many run directories are kept; older ones are removed when a run starts.
const KEEP_RUNS: usize = 20;

/// The most bytes the kept runs hold besides the newest: older runs beyond it are removed when a
/// run starts, whatever their number. Each log is capped (32 MiB, see
/// [`verdict_core::process::DEFAULT_LOG_LIMIT`]), so a run of eight verifiers that all flood keeps
/// 256 MiB, and one such run then leaves room for nothing older.
const KEEP_BYTES: u64 = 256 * 1024 * 1024;

/// The verifiers of a project, configured and ready to run any number of times (each run in a
/// directory of its own).
pub(crate) struct Plan {
    root: PathBuf,
    /// The workspace as verdict.toml shapes it, before a run directory is given.
    workspace: Workspace,
    entries: Vec<Entry>,
    jobs: usize,
    fail_fast: bool,
    interrupted: Arc<AtomicBool>,
}

/// What one run of a [`Plan`] uses besides its verifiers.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Scope {
    /// Ask the result cache (`.verdict/cache/`), and keep what passes in it.
    pub(crate) cache: bool,
    /// Run every verifier, whatever the cache holds.
    pub(crate) run_all: bool,
    /// Run first only what failed last time (`--failed-first`).
    pub(crate) failed_first: bool,
}

impl Scope {
    /// The scope of `verdict run` and of the hooks: the cache, unless told not to.
    pub(crate) fn cached(no_cache: bool, failed_first: bool) -> Scope {
        Scope {
            cache: true,
            run_all: no_cache,
            failed_first,
        }
    }
}

/// What ends a run before its verifiers do: `when` resolves (with why) and the run stops.
pub(crate) struct Cut<F> {
    /// Resolves when the run must stop.
    pub(crate) when: F,
    /// Kill what runs at once, without the grace periods (the hook's harness is waiting).
    pub(crate) at_once: bool,
    /// How long the run is given to wind down once cut.
    pub(crate) wait: Duration,
}

impl Cut<std::future::Pending<Infallible>> {
    /// No cut: the run ends when its verifiers do (Ctrl-C cancels the runner, see
    /// [`forward_signals`]).
    pub(crate) fn never() -> Self {
        Cut {
            when: std::future::pending(),
            at_once: false,
            wait: Duration::ZERO,
        }
    }
}

impl Plan {
    /// Selects the verifiers of `known` that run on the project at `root` (see [`select`]) and
    /// configures each from `config`. An unknown name is an error; a selection with no verifier
    /// is not (each command says so in its own way, see [`Plan::is_empty`]).
    pub(crate) fn new(
        root: &Path,
        config: &Config,
        known: Vec<Known>,
        only: &[String],
        skip: &[String],
    ) -> Result<Plan> {
        let workspace = config.workspace(root);
        let selected = select(known, &workspace, config, only, skip)?;
        Plan::of_entries(root, config, entries(&selected, config))
    }

    /// A plan of entries configured by the caller (the post-edit hook's narrowed verifiers).
    pub(crate) fn of_entries(root: &Path, config: &Config, entries: Vec<Entry>) -> Result<Plan> {
        pipeline::validate(&entries).map_err(|e| anyhow!("{e}"))?;
        Ok(Plan {
            root: root.to_path_buf(),
            workspace: config.workspace(root),
            entries,
            jobs: config.run.jobs.unwrap_or(0),
            fail_fast: config.run.fail_fast,
            interrupted: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Runs at most `jobs` verifiers at once (0: the cores), instead of `[run].jobs`.
    pub(crate) fn with_jobs(mut self, jobs: Option<usize>) -> Plan {
        if let Some(jobs) = jobs {
            self.jobs = jobs;
        }
        self
    }

    /// Starts nothing new after the first verifier that does not pass, or not.
    pub(crate) fn with_fail_fast(mut self, fail_fast: bool) -> Plan {
        self.fail_fast = fail_fast;
        self
    }

    /// The plan without the lint and type checks whose tool is not installed, and those
    /// checks; unless `strict`, or the check was asked for by name (`--only`, `enabled = true`),
    /// which keeps it to fail as "could not verify". What needed a check set aside no longer
    /// waits for it.
    pub(crate) fn without_missing_checks(
        mut self,
        strict: bool,
        only: &[String],
        config: &Config,
    ) -> (Plan, Vec<crate::unverified::Missing>) {
        if strict {
            return (self, Vec::new());
        }
        let mut missing = Vec::new();
        self.entries.retain(|entry| {
            let name = entry.verifier.name();
            let asked = only.iter().any(|o| o == name)
                || config.verifiers.get(name).and_then(|s| s.enabled) == Some(true);
            if asked {
                return true;
            }
            match crate::unverified::missing(entry.verifier.as_ref(), &self.workspace) {
                Some(check) => {
                    missing.push(check);
                    false
                }
                None => true,
            }
        });
        for entry in &mut self.entries {
            entry
                .needs
                .retain(|need| !missing.iter().any(|m| &m.verifier == need));
        }
        (self, missing)
    }

    /// Puts `entries` in place of the plan's (a check narrowed to some files).
    pub(crate) fn replace_entries(&mut self, entries: Vec<Entry>) -> Result<()> {
        pipeline::validate(&entries).map_err(|e| anyhow!("{e}"))?;
        self.entries = entries;
        Ok(())
    }

    /// Whether no verifier is selected.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The names of the verifiers, in order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.entries
            .iter()
            .map(|e| e.verifier.name().to_owned())
            .collect()
    }

    /// The configured verifiers.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The project's root.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The workspace as verdict.toml shapes it, without a run directory.
    pub(crate) fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Set to start no more verifiers (with the runner's cancel, which stops what runs).
    pub(crate) fn interrupted(&self) -> &Arc<AtomicBool> {
        &self.interrupted
    }

    /// A fresh run directory, and the workspace that writes into it.
    pub(crate) fn start(&self) -> Result<Workspace> {
        let run_dir = new_run_dir(&self.root)?;
        Ok(self.workspace.clone().with_run_dir(&run_dir))
    }

    /// Runs `entries` (the plan's, or some of them) in `workspace` through `runner`, telling
    /// `on_event` as each verifier starts and finishes, until they end or `cut` comes. Cut, the
    /// run starts nothing new and its tools are stopped — gracefully, or at once — and the
    /// answer is why it was cut.
    pub(crate) async fn run<C>(
        &self,
        workspace: &Workspace,
        entries: &[Entry],
        scope: Scope,
        runner: &ProcessRunner,
        on_event: &mut (dyn FnMut(Event<'_>) + Send),
        cut: Cut<impl Future<Output = C>>,
    ) -> Result<Result<Vec<Verification>, C>, pipeline::PipelineError> {
        let options = pipeline::Options {
            jobs: self.jobs,
            fail_fast: self.fail_fast,
            cache: scope.cache.then(|| Cache::open(paths::cache(&self.root))),
            run_all: scope.run_all,
            failed_first: scope.failed_first,
            interrupted: Some(Arc::clone(&self.interrupted)),
        };
        let cancel = runner.cancel_handle();
        let runner: Arc<dyn Runner> = Arc::new(runner.clone());
        let run = pipeline::run(entries, workspace, runner, &options, on_event);
        tokio::pin!(run);
        let why = tokio::select! {
            result = &mut run => return result.map(Ok),
            why = cut.when => why,
        };
        self.interrupted.store(true, Ordering::SeqCst);
        cancel.cancel();
        if cut.at_once {
            // Cancelled twice: no grace.
            cancel.cancel();
        }
        let _ = tokio::time::timeout(cut.wait, &mut run).await;
        Ok(Err(why))
    }
}

/// The runner of a command that verifies the workspace at `root`: first what a verdict killed
/// there (`kill -9`) left running is stopped, then every command this one starts is recorded
/// while it runs, so that the next verdict can do the same for it.
pub(crate) fn runner_for(root: &Path) -> ProcessRunner {
    let running = paths::running(root);
    verdict_core::process::stop_leftovers(&running, LEFTOVER_GRACE);
    ProcessRunner::new().with_records(running)
}

/// How long a killed verdict's leftover process group gets between SIGTERM and SIGKILL.
const LEFTOVER_GRACE: Duration = Duration::from_secs(1);

/// Wires Ctrl-C and SIGTERM to `runner` and `interrupted`, once per process: the first signal
/// starts nothing new and forwards SIGINT to every tool, which winds down within the grace
/// period; a second one kills them at once. SIGTERM (sent by CI runners cancelling a job, by
/// `timeout`, by service managers) does what Ctrl-C does: without it verdict would die and leave
/// its tools running in their own process groups. Call it inside the runtime.
pub(crate) fn forward_signals(runner: &ProcessRunner, interrupted: &Arc<AtomicBool>) {
    let (int_runner, int_flag) = (runner.clone(), Arc::clone(interrupted));
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            int_flag.store(true, Ordering::SeqCst);
            int_runner.cancel();
        }
    });
    if let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    {
        let (term_runner, term_flag) = (runner.clone(), Arc::clone(interrupted));
        tokio::spawn(async move {
            while term.recv().await.is_some() {
                term_flag.store(true, Ordering::SeqCst);
                term_runner.cancel();
            }
        });
    }
}

/// Resolves at the first SIGTERM or SIGINT: for a command whose caller is waiting and that
/// answers at once when told to stop (the hook, whose harness gives up on it).
pub(crate) async fn signalled() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(term) => {
                term.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = terminated => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

/// A multi-threaded runtime for a command's verification.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")
}

/// Which verifiers run: those that apply (or that the config enables), narrowed by `only` and
/// `skip`. Names that match no verifier are errors.
pub(crate) fn select(
    known: Vec<Known>,
    workspace: &Workspace,
    config: &Config,
    only: &[String],
    skip: &[String],
) -> Result<Vec<Known>> {
    let names: BTreeSet<String> = known.iter().map(|k| k.verifier.name().to_owned()).collect();
    config.check_names(&names)?;
    for name in only.iter().chain(skip) {
        if !names.contains(name) {
            bail!(
                "no verifier is called `{name}`; known verifiers: {}",
                names.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
    }
    let mut selected = Vec::new();
    for known in known {
        let name = known.verifier.name().to_owned();
        if skip.contains(&name) {
            continue;
        }
        let enabled = config.verifiers.get(&name).and_then(|s| s.enabled);
        if enabled == Some(false) && !only.contains(&name) {
            continue;
        }
        // Named with --only or enabled in verdict.toml, a verifier runs even where detection
        // finds nothing for it (and then reports what is missing, such as its tool).
        let applies = matches!(known.verifier.applies(workspace), Applicability::Applies(_));
        if !applies && !only.contains(&name) && enabled != Some(true) {
            continue;
        }
        if !only.is_empty() && !only.contains(&name) {
            continue;
        }
        selected.push(known);
    }
    Ok(selected)
}

/// The pipeline's entries of the selected verifiers (see [`entry`]). The order a chain gives
/// holds among what runs: a command that `--only`, `--skip` or `enabled = false` leaves out is
/// not waited for, since the user asked for the rest without it.
pub(crate) fn entries(selected: &[Known], config: &Config) -> Vec<Entry> {
    let names: BTreeSet<&str> = selected.iter().map(|k| k.verifier.name()).collect();
    selected
        .iter()
        .map(|known| entry_among(known, config, &|need| names.contains(need)))
        .collect()
}

/// The pipeline's entry of a selected verifier: its settings from verdict.toml, the needs its
/// place in the project's commands gives it (unless verdict.toml sets its `needs`), and the salt
/// of its cache key.
pub(crate) fn entry(known: &Known, config: &Config) -> Entry {
    entry_among(known, config, &|_| true)
}

/// [`entry`], keeping of the chain's needs only those `runs` says are in the run.
fn entry_among(known: &Known, config: &Config, runs: &dyn Fn(&str) -> bool) -> Entry {
    let mut entry = Entry::new(Arc::clone(&known.verifier));
    let settings = config.verifiers.get(known.verifier.name());
    entry.timeout = config.timeout_for(known.verifier.name());
    if let Some(settings) = settings {
        entry.env = settings.env.clone();
        entry.args = settings.args.clone();
        entry.cwd = settings.cwd.as_ref().map(|cwd| config.dir.join(cwd));
        entry.allow_no_tests = settings.allow_no_tests;
    }
    match settings.and_then(|s| s.needs.as_ref()) {
        // What verdict.toml says replaces the chain's order.
        Some(needs) => entry.needs = needs.clone(),
        // A command the project runs after others in an `&&` chain runs only once they passed.
        None => entry
            .needs
            .extend(known.needs.iter().filter(|need| runs(need)).cloned()),
    }
    if let Some(definition) = config
        .custom
        .iter()
        .find(|d| d.name == known.verifier.name())
    {
        for need in &definition.needs {
            if !entry.needs.contains(need) {
                entry.needs.push(need.clone());
            }
        }
    }
    // The cache key covers verdict's build and every setting that can change a result.
    entry.cache_salt = format!(
        "verdict {}\nneeds {:?}\nenv {:?}\nargs {:?}\ncwd {:?}\nsettings {:?}\nallow_no_tests {}\norigin {}",
        crate::VERSION,
        entry.needs,
        entry.env,
        entry.args,
        entry.cwd,
        settings.map(|s| (&s.command, &s.paths)),
        entry.allow_no_tests,
        known.origin.describe()
    );
    entry
}

/// The digest of `verifications` within `budget` tokens, each with its log's path, and `note`
/// last (the declared checks the run did not verify, see [`crate::unverified`]), from a memo
/// under `.verdict/cache/digests/` when the same reports and budget were digested before
/// (unless `no_cache`). Building a digest loads the o200k tokenizer (about 85 ms of CPU at first
/// use); a fully cached run digests exactly the reports of the run before, so the memo is what
/// keeps such a run fast. Any problem with the memo means building the digest afresh.
pub(crate) fn digest(
    root: &Path,
    verifications: &[Verification],
    budget: usize,
    no_cache: bool,
    note: Option<&str>,
) -> digest::Digest {
    let inputs: Vec<digest::Input<'_>> = verifications.iter().map(digest::Input::of).collect();
    let options = digest::Options::new(budget).in_project(root);
    let build = || match note {
        Some(note) => digest::render_with_note(&inputs, &options, note),
        None => digest::render(&inputs, &options),
    };
    if no_cache {
        return build();
    }
    let Some(key) = digest_key(&inputs, &options, note) else {
        return build();
    };
    let dir = paths::digests(root);
    let path = dir.join(format!("{key}.json"));
    if let Some(digest) = std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<digest::Digest>(&bytes).ok())
    {
        return digest;
    }
    let digest = build();
    // Only digests without run-specific log paths repeat; keep the memo small by storing those.
    if inputs.iter().all(|i| i.log.is_none())
        && let Ok(json) = serde_json::to_vec(&digest)
        && std::fs::create_dir_all(&dir).is_ok()
    {
        let tmp = dir.join(format!(".tmp-{}", std::process::id()));
        if std::fs::write(&tmp, json).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
    }
    digest
}

/// The memo's key of a digest: verdict's build, the budget, the project's directory, the
/// note, each report and log path.
fn digest_key(
    inputs: &[digest::Input<'_>],
    options: &digest::Options,
    note: Option<&str>,
) -> Option<String> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(crate::VERSION.as_bytes());
    hasher.update(&options.budget.to_le_bytes());
    for dir in &options.project {
        hasher.update(b"project\0");
        hasher.update(dir.as_bytes());
    }
    if let Some(note) = note {
        hasher.update(b"note\0");
        hasher.update(note.as_bytes());
        hasher.update(b"\0");
    }
    for input in inputs {
        let report = serde_json::to_vec(input.report).ok()?;
        hasher.update(&report);
        hasher.update(b"\0");
        hasher.update(input.log.unwrap_or_default().as_bytes());
        hasher.update(b"\0");
    }
    Some(hasher.finalize().to_hex().to_string())
}

/// Creates `.verdict/runs/<run-id>/`, keeps the newest runs only, and makes sure git ignores
/// `.verdict/`.
pub(crate) fn new_run_dir(root: &Path) -> Result<PathBuf> {
    let runs = paths::runs(root);
    // The logs are raw tool output, secrets included: the owner's only.
    files::create_private_dir(&runs)
        .with_context(|| format!("failed to create {}", runs.display()))?;
    let ignore = paths::gitignore(root);
    if !ignore.exists() {
        std::fs::write(
            &ignore,
            "# verdict's run logs and cache; never commit them\n*\n",
        )
        .with_context(|| format!("failed to write {}", ignore.display()))?;
    }
    // One process may start several runs within a second (`verdict mcp`, the loop's re-runs):
    // after its first, each gets `<id>.000001`, `<id>.000002`… from a counter that never goes
    // back (a name pruned below is never made again), so they sort in the order made.
    static RUNS_IN_PROCESS: AtomicU64 = AtomicU64::new(0);
    let id = run_id(SystemTime::now(), std::process::id());
    let dir = match RUNS_IN_PROCESS.fetch_add(1, Ordering::Relaxed) {
        0 => runs.join(&id),
        n => runs.join(format!("{id}.{n:06}")),
    };
    files::create_private_dir(&dir)
        .with_context(|| format!("failed to create {}", dir.display()))?;
    prune_runs(&runs, &dir, KEEP_RUNS, KEEP_BYTES);
    Ok(dir)
}

/// Keeps, besides `newest`, the newest run directories that fit in `keep` runs (with `newest`)
/// and `bytes`, and removes every older one (the ids sort by time).
fn prune_runs(runs: &Path, newest: &Path, keep: usize, bytes: u64) {
    let Ok(read) = std::fs::read_dir(runs) else {
        return;
    };
    let mut old: Vec<PathBuf> = read
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p != newest)
        .collect();
    old.sort();
    let mut kept = 1;
    let mut held = 0u64;
    let mut full = false;
    for path in old.into_iter().rev() {
        if !full {
            let size = dir_size(&path);
            if kept < keep && held.saturating_add(size) <= bytes {
                kept += 1;
                held += size;
                continue;
            }
            full = true;
        }
        let _ = std::fs::remove_dir_all(path);
    }
}

/// The bytes of the files under `dir` (symlinks not followed).
fn dir_size(dir: &Path) -> u64 {
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    read.filter_map(|e| e.ok())
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => dir_size(&entry.path()),
            Ok(kind) if kind.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// A run id that sorts by time: `20261122T034501Z-4242`.
fn run_id(now: SystemTime, pid: u32) -> String {
    let ms = now
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let (year, month, day, hour, minute, second) = verdict_core::render::table::civil(ms);
    format!("{year:04}{month:02}{day:02}T{hour:02}{minute:02}{second:02}Z-{pid}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_sort_by_time_and_read_as_dates() {
        let at = |secs| UNIX_EPOCH + Duration::from_secs(secs);
        assert_eq!(run_id(at(0), 7), "19700101T000000Z-7");
        assert_eq!(run_id(at(1_795_318_200), 42), "20261122T033000Z-42");
        assert!(run_id(at(1_795_318_200), 1) < run_id(at(1_795_318_201), 1));
    }

    /// `verdict mcp` runs many verifications in one process, often within a second: each has
    /// its own directory, in the order made, and the newest is never the one pruned.
    #[test]
    fn runs_within_a_second_get_directories_of_their_own() {
        let root = tempfile::tempdir().expect("a temp dir");
        let dirs: Vec<PathBuf> = (0..30)
            .map(|_| new_run_dir(root.path()).expect("a run directory"))
            .collect();
        let unique: BTreeSet<&PathBuf> = dirs.iter().collect();
        assert_eq!(unique.len(), dirs.len(), "{dirs:#?}");
        let mut sorted = dirs.clone();
        sorted.sort();
        assert_eq!(sorted, dirs, "made out of order");
        assert!(dirs.last().is_some_and(|d| d.is_dir()));
    }

    /// Older runs go when they are more than the count, or than the bytes, kept; the newest
    /// stays whatever its size, and the runs directory is the owner's only.
    #[test]
    fn old_runs_are_pruned_by_count_and_by_bytes() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().expect("a temp dir");
        let runs = root.path().join("runs");
        let make = |name: &str, bytes: usize| {
            let dir = runs.join(name);
            std::fs::create_dir_all(&dir).expect("mkdir");
            std::fs::write(dir.join("a.log"), vec![b'x'; bytes]).expect("write");
            dir
        };
        for (i, size) in [100, 100, 100, 100, 300, 100].iter().enumerate() {
            make(&format!("{i}"), *size);
        }
        let newest = make("9", 1000);
        prune_runs(&runs, &newest, 20, 450);
        let mut left: Vec<String> = std::fs::read_dir(&runs)
            .expect("read")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        left.sort();
        // 5 (100) and 4 (300) fit in 450 bytes; 3 would not, so it and everything older go.
        assert_eq!(left, ["4", "5", "9"]);
        prune_runs(&runs, &newest, 2, 450);
        assert!(!runs.join("4").exists() && runs.join("5").exists());

        let dir = new_run_dir(root.path()).expect("a run directory");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(dir.parent().expect("runs")), 0o700);
    }

    /// Sleeps far longer than any test waits.
    struct Sleeper;

    #[async_trait::async_trait]
    impl verdict_core::Verifier for Sleeper {
        fn name(&self) -> &str {
            "sleeper"
        }

        fn kind(&self) -> verdict_core::Kind {
            verdict_core::Kind::Test
        }

        fn applies(&self, _: &Workspace) -> Applicability {
            Applicability::Applies("always".to_owned())
        }

        fn command(
            &self,
            workspace: &Workspace,
        ) -> Result<verdict_core::verifier::CommandSpec, verdict_core::verifier::VerifierError>
        {
            Ok(verdict_core::verifier::CommandSpec {
                program: PathBuf::from("sleep"),
                args: vec!["30".to_owned()],
                env: Default::default(),
                cwd: workspace.root.clone(),
                timeout: Duration::from_secs(60),
                exit_codes: Default::default(),
                output_files: Vec::new(),
            })
        }

        fn interpret(
            &self,
            _: &verdict_core::verifier::CommandSpec,
            _: &verdict_core::verifier::Captured,
        ) -> verdict_core::Report {
            verdict_core::Report::errored("sleeper", "it only sleeps")
        }
    }

    /// A cut (the hook's deadline, an MCP client's cancel) ends the run at once and says why.
    #[test]
    fn a_cut_run_stops_its_tools_and_says_why() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let config = crate::config::discover(dir.path()).expect("the default config");
        let entries = vec![Entry::new(Arc::new(Sleeper))];
        let plan = Plan::of_entries(dir.path(), &config, entries).expect("a plan");
        let workspace = plan.start().expect("a run directory");
        let began = std::time::Instant::now();
        let ran = runtime()
            .expect("a runtime")
            .block_on(async {
                let runner = ProcessRunner::new();
                let cut = Cut {
                    when: async {
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        "deadline"
                    },
                    at_once: true,
                    wait: Duration::from_secs(5),
                };
                let mut on_event = |_: Event<'_>| {};
                plan.run(
                    &workspace,
                    plan.entries(),
                    Scope::default(),
                    &runner,
                    &mut on_event,
                    cut,
                )
                .await
            })
            .expect("the pipeline starts");
        assert!(matches!(ran, Err("deadline")));
        assert!(plan.interrupted().load(Ordering::SeqCst));
        // Killed at once: far from the 30 s of the sleep, and from the runner's 5 s grace.
        assert!(
            began.elapsed() < Duration::from_secs(4),
            "{:?}",
            began.elapsed()
        );
    }
}
