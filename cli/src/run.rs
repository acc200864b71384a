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
use std::sync::atomic::{AtomicBool, Ordering};
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

/// Runs the command and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<u8> {
    let (root, config) = load_config(args.dir.as_deref())?;
    // Verifiers resolve paths against the root, and the runner resolves relative programs against
    // their working directory: an absolute root keeps the two from compounding.
    let root = std::path::absolute(&root)
        .with_context(|| format!("failed to resolve {}", root.display()))?;
    let known = registry::all(&config, &root).map_err(|e| usage(format!("{e:#}")))?;
    let only = if args.only.is_empty() {
        config.run.only.clone()
    } else {
        args.only.clone()
    };
    let skip: Vec<String> = args.skip.iter().chain(&config.run.skip).cloned().collect();
    // A monorepo's root: say which packages this run leaves unverified (when no --only narrows
    // the run on purpose).
    let uncovered = if only.is_empty() {
        packages::uncovered(&root, &known)
    } else {
        Vec::new()
    };
    let selected = select(known, &config.workspace(&root), &config, &only, &skip)?;
    if let Some(note) = packages::note(&uncovered) {
        eprintln!("verdict: note: {note}");
    }
    if selected.is_empty() {
        bail!(usage(format!(
            "no verifier applies to {}; `verdict list` shows why, and a [[verifier]] in \
             verdict.toml adds one",
            root.display()
        )));
    }
    // Only now that something will run: a project with no verifier is left as it was.
    let run_dir = new_run_dir(&root)?;
    let workspace = config.workspace(&root).with_run_dir(&run_dir);
    let entries: Vec<Entry> = selected.iter().map(|known| entry(known, &config)).collect();
    pipeline::validate(&entries).map_err(|e| usage(e.to_string()))?;

    let budget = args.budget.or(config.run.budget).unwrap_or(DEFAULT_BUDGET);
    let cache = Some(Cache::open(root.join(".verdict").join("cache")));
    let interrupted = Arc::new(AtomicBool::new(false));
    let options = pipeline::Options {
        jobs: args.jobs.or(config.run.jobs).unwrap_or(0),
        fail_fast: args.fail_fast || config.run.fail_fast,
        cache,
        run_all: args.no_cache,
        failed_first: args.failed_first,
        interrupted: Some(Arc::clone(&interrupted)),
    };
    let baseline = args.baseline.as_deref().map(read_baseline).transpose()?;

    let names: Vec<String> = entries
        .iter()
        .map(|e| e.verifier.name().to_owned())
        .collect();
    let progress = Progress::new(&names, std::io::stderr().is_terminal() && color_allowed());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    let mut verifications = runtime.block_on(async {
        let runner = Arc::new(ProcessRunner::new());
        let on_signal = Arc::clone(&runner);
        let flag = Arc::clone(&interrupted);
        // SIGTERM (sent by CI runners cancelling a job, by `timeout`, by service managers) stops
        // the run as Ctrl-C does; without it verdict would die and leave its tools running in
        // their own process groups.
        let (term_runner, term_flag) = (Arc::clone(&runner), Arc::clone(&interrupted));
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
        pipeline::run(&entries, &workspace, runner, &options, &mut on_event).await
    })?;
    progress.finish();
    runtime.shutdown_timeout(Duration::from_millis(100));

    let known_failures = match &baseline {
        Some(baseline) => baseline.set_aside(&mut verifications),
        None => 0,
    };
    let outcome = overall(&verifications);
    let logs: Vec<String> = verifications
        .iter()
        .map(|v| v.log.clone().unwrap_or_default())
        .collect();
    let inputs: Vec<digest::Input<'_>> = verifications
        .iter()
        .zip(&logs)
        .map(|(v, log)| digest::Input {
            report: &v.report,
            log: (!log.is_empty()).then_some(log.as_str()),
        })
        .collect();
    let digest = memoized_digest(&root, &inputs, budget, args.no_cache);
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
    let id = run_id(SystemTime::now(), std::process::id());
    let dir = runs.join(&id);
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
}
