//! `verdict run`: detect the verifiers that apply, run them through the pipeline, and report in
//! the format a person, an agent or a CI system reads.
//!
//! Exit codes: 0 every verifier passed; 1 a verifier found failures in the code; 2 a verifier
//! could not verify (tool missing, its config invalid, it crashed, timed out, ran no test) or
//! verdict's own configuration or command line is wrong.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use verdict_core::baseline::Baseline;
use verdict_core::cache::Cache;
use verdict_core::digest::{self, DEFAULT_BUDGET};
use verdict_core::model::overall;
use verdict_core::pipeline::{self, Entry, Event};
use verdict_core::process::ProcessRunner;
use verdict_core::render::{self, Format, RenderInput};
use verdict_core::verifier::{Applicability, Runner, Workspace};
use verdict_core::{Outcome, Verification};

use crate::config::{self, Config};
use crate::packages;
use crate::progress::Progress;
use crate::registry::{self, Known};

const EXAMPLES: &str = "\
Examples:
  verdict run
  verdict run --only tsc,jest --budget 300
  verdict run --format sarif --output verdict.sarif
  verdict run --format json --output baseline.json      # on the main branch
  verdict run --baseline baseline.json                  # on a branch: only new failures count

Exit codes:
  0  every verifier passed
  1  a verifier found failures in the code (errors, failing tests, code that does not compile)
  2  a verifier could not verify (tool missing, invalid tool config, crash, time-out, no test
     ran), or verdict's own config or command line is wrong

In GitHub Actions (GITHUB_ACTIONS=true) failures are also printed as annotations and a job
summary is appended to $GITHUB_STEP_SUMMARY.";

/// Arguments of `verdict run`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    /// Run only these verifiers (comma-separated names, see `verdict list`)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    only: Vec<String>,

    /// Do not run these verifiers
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    skip: Vec<String>,

    /// Output format
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,

    /// Write the report to FILE instead of stdout
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,

    /// Hard limit of the digest, in tokens (o200k) [default: 500, or `run.budget`]
    #[arg(long, value_name = "N", value_parser = parse_budget)]
    budget: Option<usize>,

    /// Verifiers run at once [default: the number of cores, or `run.jobs`]
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,

    /// Start no more verifiers after the first one that does not pass
    #[arg(long)]
    fail_fast: bool,

    /// Run every verifier even when its inputs are unchanged since it last passed
    #[arg(long)]
    no_cache: bool,

    /// Re-run first only what failed last time; run in full only once that passes
    #[arg(long)]
    failed_first: bool,

    /// Count only failures absent from this earlier JSON report (`--format json` output)
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,

    /// The project to verify [default: the directory of verdict.toml, else the current one]
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    /// Progress and the digest, for people
    Human,
    /// The verifications and the digest, in verdict's documented JSON schema
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF readers
    Sarif,
    /// GitHub Actions workflow commands (annotations)
    Github,
    /// JUnit XML of the verifiers and their failing tests
    Junit,
    /// A Markdown report sized for a pull-request comment
    Markdown,
}

impl FormatArg {
    fn format(self) -> Format {
        match self {
            FormatArg::Human => Format::Human,
            FormatArg::Json => Format::Json,
            FormatArg::Sarif => Format::Sarif,
            FormatArg::Github => Format::Github,
            FormatArg::Junit => Format::Junit,
            FormatArg::Markdown => Format::Markdown,
        }
    }
}

fn parse_budget(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "`{text}` is not a token budget (a whole number, at least 1)"
        )),
    }
}

/// A failure of verdict's own setup: exit 2, with the message.
pub(crate) fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::anyhow!(message.into())
}

/// The project root and its configuration.
pub(crate) fn load_config(dir: Option<&Path>) -> Result<(PathBuf, Config)> {
    let start = match dir {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().context("failed to read the current directory")?,
    };
    let config = config::discover(&start).map_err(|error| usage(error.to_string()))?;
    let root = match (&config.path, dir) {
        (_, Some(dir)) => dir.to_path_buf(),
        (Some(_), None) => config.dir.clone(),
        (None, None) => start,
    };
    Ok((root, config))
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
    for name in only.iter().chain(skip).chain(config.verifiers.keys()) {
        if !names.contains(name) {
            bail!(usage(format!(
                "no verifier is called `{name}`; known verifiers: {}",
                names.iter().cloned().collect::<Vec<_>>().join(", ")
            )));
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

impl Args {
    /// What the command line asks of the run.
    fn request(&self) -> Request {
        Request {
            dir: self.dir.clone(),
            only: self.only.clone(),
            skip: self.skip.clone(),
            budget: self.budget,
            jobs: self.jobs,
            fail_fast: self.fail_fast,
            no_cache: self.no_cache,
            failed_first: self.failed_first,
            baseline: self.baseline.clone(),
        }
    }
}

/// What a run is asked to do, by `verdict run`'s command line or by the `verify` tool of
/// `verdict mcp`; `None` and empty fields fall back to verdict.toml, then to the defaults.
#[derive(Debug, Default, Clone)]
pub(crate) struct Request {
    /// The project [default: the directory of verdict.toml, else the current one].
    pub(crate) dir: Option<PathBuf>,
    /// Run only these verifiers.
    pub(crate) only: Vec<String>,
    /// Do not run these verifiers.
    pub(crate) skip: Vec<String>,
    /// The digest's budget in tokens.
    pub(crate) budget: Option<usize>,
    /// Verifiers run at once.
    pub(crate) jobs: Option<usize>,
    /// Start nothing new after the first verifier that does not pass.
    pub(crate) fail_fast: bool,
    /// Run every verifier, whatever the cache holds.
    pub(crate) no_cache: bool,
    /// Re-run first only what failed last time.
    pub(crate) failed_first: bool,
    /// Count only failures absent from this earlier JSON report.
    pub(crate) baseline: Option<PathBuf>,
}

/// A run ready to start: the project, its verifiers in a fresh run directory, and the pipeline's
/// options. [`prepare`] builds it; the caller runs [`Prepared::pipeline`] with its own runner
/// (and its own way of being cancelled), then [`Prepared::finish`].
pub(crate) struct Prepared {
    /// The project's absolute root.
    pub(crate) root: PathBuf,
    entries: Vec<Entry>,
    workspace: Workspace,
    options: pipeline::Options,
    /// Set to stop starting verifiers (with the runner's cancel, which stops what runs).
    pub(crate) interrupted: Arc<AtomicBool>,
    budget: usize,
    no_cache: bool,
    baseline: Option<Baseline>,
    /// What the user should know before the run (the workspace packages it leaves out).
    pub(crate) note: Option<String>,
}

/// A finished run, ready to render.
pub(crate) struct Finished {
    /// One per verifier, in the order of the run.
    pub(crate) verifications: Vec<Verification>,
    /// Failures set aside because the baseline had them.
    pub(crate) known_failures: u64,
    /// The outcome of the whole run.
    pub(crate) outcome: Outcome,
    /// The digest, within the budget.
    pub(crate) digest: digest::Digest,
}

/// Loads the configuration, selects the verifiers and creates the run directory: everything of
/// a run up to starting the pipeline. Usage errors (an unknown verifier, nothing that applies,
/// a bad baseline) are errors here, before anything runs.
pub(crate) fn prepare(request: &Request) -> Result<Prepared> {
    let (root, config) = load_config(request.dir.as_deref())?;
    // Verifiers resolve paths against the root, and the runner resolves relative programs against
    // their working directory: an absolute root keeps the two from compounding.
    let root = std::path::absolute(&root)
        .with_context(|| format!("failed to resolve {}", root.display()))?;
    let known = registry::all(&config, &root).map_err(|e| usage(format!("{e:#}")))?;
    let only = if request.only.is_empty() {
        config.run.only.clone()
    } else {
        request.only.clone()
    };
    let skip: Vec<String> = request
        .skip
        .iter()
        .chain(&config.run.skip)
        .cloned()
        .collect();
    // A monorepo's root: say which packages this run leaves unverified (when no --only narrows
    // the run on purpose).
    let uncovered = if only.is_empty() {
        packages::uncovered(&root, &known)
    } else {
        Vec::new()
    };
    let selected = select(known, &config.workspace(&root), &config, &only, &skip)?;
    let note = packages::note(&uncovered);
    if selected.is_empty() {
        // The packages' note explains the most common case: a monorepo's root with nothing of
        // its own to verify.
        let packages = note
            .map(|n| format!("\nverdict: note: {n}"))
            .unwrap_or_default();
        bail!(usage(format!(
            "no verifier applies to {}; `verdict list` shows why, and a [[verifier]] in \
             verdict.toml adds one{packages}",
            root.display()
        )));
    }
    let baseline = request.baseline.as_deref().map(read_baseline).transpose()?;
    // Only now that something will run: a project with no verifier is left as it was.
    let run_dir = new_run_dir(&root)?;
    let workspace = config.workspace(&root).with_run_dir(&run_dir);
    let entries: Vec<Entry> = selected.iter().map(|known| entry(known, &config)).collect();
    pipeline::validate(&entries).map_err(|e| usage(e.to_string()))?;

    let budget = request
        .budget
        .or(config.run.budget)
        .unwrap_or(DEFAULT_BUDGET);
    let interrupted = Arc::new(AtomicBool::new(false));
    let options = pipeline::Options {
        jobs: request.jobs.or(config.run.jobs).unwrap_or(0),
        fail_fast: request.fail_fast || config.run.fail_fast,
        cache: Some(Cache::open(root.join(".verdict").join("cache"))),
        run_all: request.no_cache,
        failed_first: request.failed_first,
        interrupted: Some(Arc::clone(&interrupted)),
    };
    Ok(Prepared {
        root,
        entries,
        workspace,
        options,
        interrupted,
        budget,
        no_cache: request.no_cache,
        baseline,
        note,
    })
}

impl Prepared {
    /// The names of the verifiers that will run, in order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.entries
            .iter()
            .map(|e| e.verifier.name().to_owned())
            .collect()
    }

    /// Runs the verifiers through `runner`, telling `on_event` as each starts and finishes.
    pub(crate) async fn pipeline(
        &self,
        runner: Arc<dyn Runner>,
        on_event: &mut (dyn FnMut(Event<'_>) + Send),
    ) -> Result<Vec<Verification>> {
        Ok(pipeline::run(
            &self.entries,
            &self.workspace,
            runner,
            &self.options,
            on_event,
        )
        .await?)
    }

    /// Sets aside what the baseline already had, and builds the digest.
    pub(crate) fn finish(&self, mut verifications: Vec<Verification>) -> Finished {
        let known_failures = match &self.baseline {
            Some(baseline) => baseline.set_aside(&mut verifications),
            None => 0,
        };
        let outcome = overall(&verifications);
        let digest = digest_of(&self.root, &verifications, self.budget, self.no_cache);
        Finished {
            verifications,
            known_failures,
            outcome,
            digest,
        }
    }
}

/// The digest of `verifications`, each with its log's path (see [`memoized_digest`]).
fn digest_of(
    root: &Path,
    verifications: &[Verification],
    budget: usize,
    no_cache: bool,
) -> digest::Digest {
    let inputs: Vec<digest::Input<'_>> = verifications.iter().map(digest::Input::of).collect();
    memoized_digest(root, &inputs, budget, no_cache)
}

/// Runs the command and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<u8> {
    let prepared = prepare(&args.request())?;
    if let Some(note) = &prepared.note {
        eprintln!("verdict: note: {note}");
    }
    let progress = Progress::new(
        &prepared.names(),
        std::io::stderr().is_terminal() && color_allowed(),
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    let verifications = runtime.block_on(async {
        let runner = Arc::new(ProcessRunner::new());
        let on_signal = Arc::clone(&runner);
        let flag = Arc::clone(&prepared.interrupted);
        // SIGTERM (sent by CI runners cancelling a job, by `timeout`, by service managers) stops
        // the run as Ctrl-C does; without it verdict would die and leave its tools running in
        // their own process groups.
        let (term_runner, term_flag) = (Arc::clone(&runner), Arc::clone(&prepared.interrupted));
        if let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            tokio::spawn(async move {
                while term.recv().await.is_some() {
                    term_flag.store(true, Ordering::SeqCst);
                    term_runner.cancel();
                }
            });
        }
        tokio::spawn(async move {
            // The first Ctrl-C forwards SIGINT to every tool and lets them wind down within the
            // grace period; a second one kills them at once.
            while tokio::signal::ctrl_c().await.is_ok() {
                flag.store(true, Ordering::SeqCst);
                on_signal.cancel();
            }
        });
        let runner: Arc<dyn Runner> = runner;
        let mut on_event = |event: Event<'_>| progress.event(&event);
        prepared.pipeline(runner, &mut on_event).await
    })?;
    progress.finish();
    runtime.shutdown_timeout(Duration::from_millis(100));

    let Finished {
        verifications,
        known_failures,
        outcome,
        digest,
    } = prepared.finish(verifications);
    let input = RenderInput {
        verifications: &verifications,
        digest: &digest,
        outcome,
        known_failures,
        tool_version: env!("CARGO_PKG_VERSION"),
        color: args.output.is_none() && std::io::stdout().is_terminal() && color_allowed(),
    };
    let format = args.format.format();
    let text = render::render(format, &input);
    let in_actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
    let mut stdout = std::io::stdout().lock();
    if in_actions && !matches!(format, Format::Github) {
        // The runner reads workflow commands from a step's stdout and stderr alike. They go to
        // stdout beside a report for people (or when the report goes to a file), and to stderr
        // when stdout carries a machine-readable document they would corrupt.
        let annotations = render::render(Format::Github, &input);
        let document_on_stdout =
            args.output.is_none() && matches!(format, Format::Json | Format::Sarif | Format::Junit);
        if document_on_stdout {
            std::io::stderr().lock().write_all(annotations.as_bytes())?;
        } else {
            stdout.write_all(annotations.as_bytes())?;
        }
    }
    match &args.output {
        Some(path) => std::fs::write(path, &text)
            .with_context(|| format!("failed to write {}", path.display()))?,
        None => {
            stdout.write_all(text.as_bytes())?;
            if !text.ends_with('\n') {
                stdout.write_all(b"\n")?;
            }
        }
    }
    stdout.flush()?;
    if in_actions && let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&summary)
            .with_context(|| format!("failed to open {}", Path::new(&summary).display()))?;
        file.write_all(render::github::job_summary(&input).as_bytes())?;
    }
    Ok(outcome.exit_code() as u8)
}

/// The digest of `inputs`, from a memo under `.verdict/cache/digests/` when the same reports and
/// budget were digested before. Building a digest loads the o200k tokenizer (about 85 ms of CPU
/// at first use); a fully cached run digests exactly the reports of the run before, so the memo
/// is what keeps such a run fast. Any problem with the memo means building the digest afresh.
fn memoized_digest(
    root: &Path,
    inputs: &[digest::Input<'_>],
    budget: usize,
    no_cache: bool,
) -> digest::Digest {
    let build = || digest::render(inputs, &digest::Options { budget });
    if no_cache {
        return build();
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.update(&budget.to_le_bytes());
    for input in inputs {
        let Ok(report) = serde_json::to_vec(input.report) else {
            return build();
        };
        hasher.update(&report);
        hasher.update(b"\0");
        hasher.update(input.log.unwrap_or_default().as_bytes());
        hasher.update(b"\0");
    }
    let dir = root.join(".verdict").join("cache").join("digests");
    let path = dir.join(format!("{}.json", hasher.finalize().to_hex()));
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

/// Colour is allowed unless `NO_COLOR` is set (to anything non-empty) or `TERM=dumb`.
pub(crate) fn color_allowed() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|v| v == "dumb");
    !no_color && !dumb
}

pub(crate) fn entry(known: &Known, config: &Config) -> Entry {
    let mut entry = Entry::new(Arc::clone(&known.verifier));
    let settings = config.verifiers.get(known.verifier.name());
    entry.timeout = config.timeout_for(known.verifier.name());
    if let Some(settings) = settings {
        entry.needs = settings.needs.clone();
        entry.env = settings.env.clone();
        entry.args = settings.args.clone();
        entry.cwd = settings.cwd.as_ref().map(|cwd| config.dir.join(cwd));
        entry.allow_no_tests = settings.allow_no_tests;
    }
    // A command the project runs after others in an `&&` chain runs only once they passed.
    entry.needs.extend(known.needs.iter().cloned());
    if let Some(definition) = config
        .custom
        .iter()
        .find(|d| d.name == known.verifier.name())
    {
        entry.needs.extend(definition.needs.iter().cloned());
    }
    // The cache key covers verdict's version and every setting that can change a result.
    entry.cache_salt = format!(
        "verdict {}\nneeds {:?}\nenv {:?}\nargs {:?}\ncwd {:?}\nsettings {:?}\nallow_no_tests {}\norigin {}",
        env!("CARGO_PKG_VERSION"),
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

/// Creates `.verdict/runs/<run-id>/`, keeps the newest runs only, and makes sure git ignores
/// `.verdict/`.
pub(crate) fn new_run_dir(root: &Path) -> Result<PathBuf> {
    const KEEP_RUNS: usize = 20;
    let verdict = root.join(".verdict");
    let runs = verdict.join("runs");
    std::fs::create_dir_all(&runs)
        .with_context(|| format!("failed to create {}", runs.display()))?;
    let ignore = verdict.join(".gitignore");
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
    std::fs::create_dir_all(&dir).with_context(|| format!("failed to create {}", dir.display()))?;
    // Old runs go, oldest first (the ids sort by time).
    if let Ok(read) = std::fs::read_dir(&runs) {
        let mut old: Vec<PathBuf> = read
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        old.sort();
        let excess = old.len().saturating_sub(KEEP_RUNS);
        for path in old.into_iter().take(excess) {
            let _ = std::fs::remove_dir_all(path);
        }
    }
    Ok(dir)
}

/// A run id that sorts by time: `20261122T034501Z-4242`.
fn run_id(now: SystemTime, pid: u32) -> String {
    let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z-{pid}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn read_baseline(path: &Path) -> Result<Baseline> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("failed to read the baseline {}", path.display()))?;
    let document = render::json::parse_json(&text).map_err(|error| {
        usage(format!(
            "{} is not a verdict JSON report (`verdict run --format json` writes one): {error}",
            path.display()
        ))
    })?;
    let mut baseline = Baseline::default();
    for verification in &document.verifications {
        baseline.add(&verification.verifier, &verification.report);
    }
    Ok(baseline)
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
}
