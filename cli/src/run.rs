//! `verdict run`: detect the verifiers that apply, run them through the pipeline, and report in
//! the format a person, an agent or a CI system reads.
//!
//! Exit codes: 0 every verifier passed; 1 a verifier found failures in the code; 2 a verifier
//! could not verify (tool missing, its config invalid, it crashed, timed out, ran no test) or
//! verdict's own configuration or command line is wrong.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use verdict_core::baseline::Baseline;
use verdict_core::digest;
use verdict_core::model::overall;
use verdict_core::pipeline::Event;
use verdict_core::process::ProcessRunner;
use verdict_core::render::{self, RenderInput, Repo};
use verdict_core::verifier::Workspace;
use verdict_core::{KnownFrom, Outcome, Verification};

use crate::budget;
use crate::config::{self, Config};
use crate::exit::ExitCode;
use crate::global::{self, Verbosity};
use crate::output::{self, OutputSpec, OutputSpecParser};
use crate::packages;
use crate::progress::Progress;
use crate::registry;
use crate::scoped::{self, Scoped};
use crate::unverified;
use crate::verify::{self, Cut, Plan, Scope};

const EXAMPLES: &str = "\
Examples:
  verdict run
  verdict run --only tsc,jest --budget 300
  verdict run --format sarif=verdict.sarif --format junit=junit.xml --format human
  verdict run --format sarif --output verdict.sarif     # the older spelling of sarif=FILE
  verdict run --format json=baseline.json               # on the main branch
  verdict run --baseline baseline.json                  # on a branch: only new failures count
  verdict run --shard 2/3 --format json --output shard-2.json   # one of 3 CI machines
  verdict merge shard-*.json                            # the 3 shards as one run

Exit codes:
  0  every verifier passed
  1  a verifier found failures in the code (errors, failing tests, code that does not compile)
  2  a verifier could not verify (tool missing, invalid tool config, crash, time-out, no test
     ran), or verdict's own config or command line is wrong

In GitHub Actions (GITHUB_ACTIONS=true) failures are also printed as annotations and a job
summary is appended to $GITHUB_STEP_SUMMARY, once per run whatever the formats.";

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

    /// A report to write: FORMAT, or FORMAT=PATH to write it to a file; repeat it for several
    /// reports from one run. At most one goes to stdout, and one is `human` [default: human]
    #[arg(long = "format", value_name = "FORMAT[=PATH]", value_parser = OutputSpecParser)]
    formats: Vec<OutputSpec>,

    /// Write the one report given by --format to FILE (the older spelling of FORMAT=FILE)
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,

    /// Hard limit of the digest, in tokens (o200k) [default: 500, or `run.budget`]
    #[arg(long, value_name = "N", value_parser = budget::parse)]
    budget: Option<usize>,

    /// Verifiers run at once [default: the number of cores, or `run.jobs`]
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,

    /// Start no more verifiers after the first one that does not pass
    #[arg(long)]
    fail_fast: bool,

    /// A lint or type check whose tool is not installed makes the run "could not verify" (exit
    /// 2) instead of a `not verified` line; always so in CI (`CI` set)
    #[arg(long)]
    strict: bool,

    /// Run every verifier even when its inputs are unchanged since it last passed
    #[arg(long)]
    no_cache: bool,

    /// Re-run first only what failed last time; run in full only once that passes
    #[arg(long)]
    failed_first: bool,

    /// Count only failures absent from this earlier JSON report (`--format json` output)
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,

    /// The project to verify [default: the directory of verdict.toml, else the current one];
    /// CI reports still name files from the repository's root
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,

    /// First part of the SARIF categories, `PREFIX/<project>/<verifier>/` [default: verdict];
    /// set it per matrix job when jobs verify one project in several ways
    #[arg(long, value_name = "PREFIX", value_parser = parse_category)]
    category: Option<String>,

    /// Run only shard INDEX of TOTAL (1-based, `2/3`) of a run split across CI machines: test
    /// runners run their part of the tests, everything else runs in shard 1 only; `verdict merge`
    /// combines the shards' JSON reports
    #[arg(long, value_name = "INDEX/TOTAL")]
    shard: Option<verdict_core::verifier::Shard>,

    /// With --shard: balance test files by their durations in this earlier JSON report
    /// (`--format json` output) instead of by count
    #[arg(long, value_name = "FILE", requires = "shard")]
    shard_durations: Option<PathBuf>,
}

/// A `--category` prefix: not empty, without the slashes around it.
pub(crate) fn parse_category(value: &str) -> Result<String, String> {
    let prefix = value.trim().trim_matches('/');
    if prefix.is_empty() {
        Err("a category prefix needs a name (`verdict-node20`)".to_owned())
    } else {
        Ok(prefix.to_owned())
    }
}

/// A failure of verdict's own setup: exit 2, with the message.
pub(crate) fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::anyhow!(message.into())
}

/// The project root and its configuration.
pub(crate) fn load_config(dir: Option<&Path>) -> Result<(PathBuf, Config)> {
    let start = match dir {
        // A mistyped `-C` would otherwise be a project in which no verifier applies.
        Some(dir) if !dir.is_dir() => {
            let what = if dir.exists() {
                "is not a directory"
            } else {
                "does not exist"
            };
            return Err(usage(format!(
                "the project directory {} {what}",
                dir.display()
            )));
        }
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().context("failed to read the current directory")?,
    };
    let config = config::discover(&start).map_err(|error| usage(error.to_string()))?;
    let root = match (&config.path, dir) {
        (_, Some(dir)) => dir.to_path_buf(),
        (Some(_), None) => config.project_dir().to_path_buf(),
        (None, None) => start,
    };
    Ok((root, config))
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
            strict: self.strict,
            no_cache: self.no_cache,
            failed_first: self.failed_first,
            baseline: self.baseline.clone(),
            shard: self.shard,
            shard_durations: self.shard_durations.clone(),
            files: None,
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
    /// A check whose tool is missing is "could not verify", not set aside.
    pub(crate) strict: bool,
    /// Run every verifier, whatever the cache holds.
    pub(crate) no_cache: bool,
    /// Re-run first only what failed last time.
    pub(crate) failed_first: bool,
    /// Count only failures absent from this earlier JSON report.
    pub(crate) baseline: Option<PathBuf>,
    /// Run only this shard of a run split across machines.
    pub(crate) shard: Option<verdict_core::verifier::Shard>,
    /// An earlier JSON report whose test durations balance the shards.
    pub(crate) shard_durations: Option<PathBuf>,
    /// Check only these files (MCP's `verify` with `files`, see [`scoped`]).
    pub(crate) files: Option<Vec<String>>,
}

/// A run ready to start: the project, its verifiers in a fresh run directory, and the pipeline's
/// options. [`prepare`] builds it; the caller runs [`Prepared::pipeline`] with its own runner
/// (and its own way of being cancelled), then [`Prepared::finish`].
pub(crate) struct Prepared {
    /// The project's absolute root.
    pub(crate) root: PathBuf,
    /// The configuration file in force, for `-v`.
    config: Option<PathBuf>,
    plan: Plan,
    /// The workspace, with the run's own directory.
    workspace: Workspace,
    scope: Scope,
    budget: usize,
    no_cache: bool,
    baseline: Option<Baseline>,
    /// What the user should know before the run (the workspace packages it leaves out).
    pub(crate) note: Option<String>,
    /// The digest's line naming the declared checks no verifier runs (see [`unverified`]).
    pub(crate) unverified: Option<String>,
    /// The shard this run is, if it is one.
    pub(crate) shard: Option<verdict_core::verifier::Shard>,
    /// What a check of some files only was narrowed to, and what it does not run.
    pub(crate) scoped: Option<Scoped>,
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
    /// A check of some files only: what it was narrowed to, and what did not run (a related
    /// test run that found no test included).
    pub(crate) scoped: Option<Scoped>,
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
    let plan = Plan::new(&root, &config, known, &only, &skip)
        .map_err(|e| usage(format!("{e:#}")))?
        .with_jobs(request.jobs)
        .with_fail_fast(request.fail_fast || config.run.fail_fast);
    let note = packages::note(&uncovered);
    // A check whose tool is not installed is set aside with its install command, unless the
    // run is strict or the check was asked for by name.
    let strict = unverified::strict(request.strict, &config);
    let (mut plan, missing) = plan.without_missing_checks(strict, &only, &config);
    let unverified = unverified::lines(&unverified::unrun(&config, &root), &missing);
    if plan.is_empty() {
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
    let scoped = match &request.files {
        Some(files) => Some(narrow(&mut plan, &root, files, request)?),
        None => None,
    };
    let baseline = request.baseline.as_deref().map(read_baseline).transpose()?;
    let test_durations = match &request.shard_durations {
        Some(path) => read_durations(path)?,
        None => Default::default(),
    };
    // Only now that something will run: a project with no verifier is left as it was.
    let mut workspace = plan.start()?;
    workspace.shard = request.shard;
    workspace.test_durations = test_durations;
    Ok(Prepared {
        root,
        config: config.path.clone(),
        plan,
        workspace,
        // A scoped check neither reads nor writes the cache: see [`scoped`].
        scope: match scoped {
            Some(_) => Scope::default(),
            None => Scope::cached(request.no_cache, request.failed_first),
        },
        budget: budget::resolve(request.budget, config.run.budget),
        no_cache: request.no_cache,
        baseline,
        note,
        unverified,
        shard: request.shard,
        scoped,
    })
}

/// Narrows `plan` to `files` (see [`scoped`]); a path outside the project is a usage error.
fn narrow(plan: &mut Plan, root: &Path, files: &[String], request: &Request) -> Result<Scoped> {
    if request.failed_first || request.shard.is_some() {
        bail!(usage(
            "a check of some files cannot re-run failed tests first or run as a shard"
        ));
    }
    let targets = scoped::resolve(root, files).map_err(|e| usage(format!("{e:#}")))?;
    let (entries, scoped) = scoped::narrow(plan.entries(), plan.workspace(), targets);
    plan.replace_entries(entries)?;
    Ok(scoped)
}

impl Prepared {
    /// The names of the verifiers that will run, in order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.plan.names()
    }

    /// Runs the verifiers through `runner` until they end or `cut` comes, telling `on_event` as
    /// each starts and finishes.
    pub(crate) async fn pipeline<C>(
        &self,
        runner: &ProcessRunner,
        on_event: &mut (dyn FnMut(Event<'_>) + Send),
        cut: Cut<impl Future<Output = C>>,
    ) -> Result<Result<Vec<Verification>, C>> {
        let entries = self.plan.entries();
        Ok(self
            .plan
            .run(&self.workspace, entries, self.scope, runner, on_event, cut)
            .await?)
    }

    /// Sets aside what the baseline already had, and builds the digest.
    pub(crate) fn finish(&self, mut verifications: Vec<Verification>) -> Finished {
        let mut scoped = self.scoped.clone();
        if let Some(scoped) = &mut scoped {
            scoped.take_empty_runs(&mut verifications);
        }
        // The digest ends with what the run did not verify: the declared checks no verifier
        // runs, and for a scoped check its scope and what it left out.
        let note = match (&self.unverified, &scoped) {
            (Some(unverified), Some(scoped)) => Some(format!("{}\n{unverified}", scoped.line())),
            (None, Some(scoped)) => Some(scoped.line()),
            (unverified, None) => unverified.clone(),
        };
        let known_failures = match &self.baseline {
            Some(baseline) => baseline.set_aside(&mut verifications, KnownFrom::Baseline),
            None => 0,
        };
        let outcome = overall(&verifications);
        let digest = if self.shard.is_some() {
            // What runs in another shard is that shard's to tell; the digest is of this one.
            let here: Vec<Verification> = verifications
                .iter()
                .filter(|v| v.status != verdict_core::Status::NotInShard)
                .cloned()
                .collect();
            verify::digest(
                &self.root,
                &here,
                self.budget,
                self.no_cache,
                note.as_deref(),
            )
        } else {
            verify::digest(
                &self.root,
                &verifications,
                self.budget,
                self.no_cache,
                note.as_deref(),
            )
        };
        Finished {
            verifications,
            known_failures,
            outcome,
            digest,
            scoped,
        }
    }
}

/// Runs the command and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    // The outputs are checked before anything runs: a usage error costs no verification.
    let outputs = output::resolve(&args.formats, args.output.as_deref())
        .map_err(|error| usage(error.to_string()))?;
    let prepared = prepare(&args.request())?;
    let verbosity = global::get().verbosity;
    if let Some(note) = &prepared.note
        && verbosity != Verbosity::Quiet
    {
        eprintln!("verdict: note: {note}");
    }
    if verbosity == Verbosity::Verbose {
        eprintln!(
            "verdict: project {}; running {}",
            prepared.root.display(),
            prepared.names().join(", ")
        );
        match &prepared.config {
            Some(path) => eprintln!("verdict: config: {}", path.display()),
            None => eprintln!("verdict: config: none (everything is detected)"),
        }
        eprintln!(
            "verdict: containment: {}",
            verdict_core::process::describe_containment()
        );
    }
    let progress = Progress::new(&prepared.names(), global::live_view());
    let runtime = verify::runtime()?;
    // What the cache did for each verifier, for `-v`.
    let mut cache_decisions: BTreeMap<String, String> = BTreeMap::new();
    let mut warmed = false;
    let verifications = runtime.block_on(async {
        let runner = verify::runner_for(&prepared.root);
        verify::forward_signals(&runner, prepared.plan.interrupted());
        let mut on_event = |event: Event<'_>| {
            if let Event::Cache { verifier, decision } = &event {
                cache_decisions.insert((*verifier).to_owned(), decision.to_string());
            }
            // A tool runs, so the digest will be counted: the tokenizer's table decodes meanwhile.
            // A run that the cache answers whole never loads it.
            if matches!(event, Event::Started { .. }) && !warmed {
                warmed = true;
                verdict_core::digest::tokens::warm();
            }
            progress.event(&event);
        };
        prepared
            .pipeline(&runner, &mut on_event, Cut::never())
            .await
    })?;
    let Ok(verifications) = verifications;
    progress.finish();
    runtime.shutdown_timeout(Duration::from_millis(100));

    let Finished {
        verifications,
        known_failures,
        outcome,
        digest,
        ..
    } = prepared.finish(verifications);
    let repository = Repository::of(&prepared.root);
    if verbosity == Verbosity::Verbose {
        for verification in &verifications {
            eprintln!("verdict: {}", verbose_line(verification));
            if let Some(decision) = cache_decisions.get(&verification.verifier) {
                eprintln!("verdict: {}: {decision}", verification.verifier);
            }
        }
    }
    let input = RenderInput {
        verifications: &verifications,
        digest: &digest,
        outcome,
        known_failures,
        exit_code: ExitCode::of(outcome).code(),
        tool_version: env!("CARGO_PKG_VERSION"),
        // Decided for each output by `write_outputs`.
        color: false,
        repo: repository.repo(args.category.as_deref()),
        shard: prepared.shard,
    };
    output::write_outputs(&outputs, &input, &output::Environment::from_process())?;
    Ok(ExitCode::of(outcome))
}

/// What `-v` says of one verifier: how it ended, what it ran and where its output is.
fn verbose_line(verification: &Verification) -> String {
    let mut line = format!(
        "{} {} ({}, {:.1}s)",
        verification.verifier,
        verification.outcome().as_str(),
        verification.status.as_str(),
        verification.duration.as_secs_f64()
    );
    if let Some(command) = &verification.command {
        line.push_str(&format!("; ran: {}", command.join(" ")));
    }
    if let Some(log) = &verification.log {
        line.push_str(&format!("; log: {log}"));
    }
    line
}

/// How long each test file took in the earlier report at `path`: the durations of its tests
/// (`Report::tests`), summed by file, over every verifier. Tests without a file or a duration
/// count for nothing; a report without tests balances by count.
fn read_durations(path: &Path) -> Result<std::collections::BTreeMap<String, u64>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("failed to read the shard durations {}", path.display()))?;
    let mut document = render::json::parse_json(&text).map_err(|error| {
        usage(format!(
            "{} is not a verdict JSON report (`verdict run --format json` writes one): {error}",
            path.display()
        ))
    })?;
    // The report names files from the repository's root; the split is of the project's files.
    document.to_project_paths();
    let mut durations = std::collections::BTreeMap::new();
    for verification in &document.verifications {
        for test in &verification.report.tests {
            if let (Some(file), Some(ms)) = (&test.file, test.duration_ms) {
                let total: &mut u64 = durations.entry(file.clone()).or_default();
                *total = total.saturating_add(ms);
            }
        }
    }
    Ok(durations)
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

/// The repository around a project, as the CI reports name it: its root (the nearest directory
/// holding `.git`, as for verdict.toml; else the project itself) and the project's directory in it.
pub(crate) struct Repository {
    /// The root: absolute, `/`-separated.
    root: String,
    /// The project's directory relative to the root, `/`-separated, empty at the root.
    project: String,
}

impl Repository {
    /// The repository of the project at `project` (an absolute path). Symbolic links are
    /// resolved first, as the tools resolve them in the absolute paths they print.
    pub(crate) fn of(project: &Path) -> Repository {
        let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        let root = project
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(&project);
        let relative = project.strip_prefix(root).unwrap_or(Path::new(""));
        let slashed = |path: &Path| {
            path.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        };
        let mut root_text = root.to_string_lossy().replace('\\', "/");
        while root_text.len() > 1 && root_text.ends_with('/') {
            root_text.pop();
        }
        Repository {
            root: root_text,
            project: slashed(relative),
        }
    }

    /// The same repository with the project at `project`, a directory from its root (`""` at
    /// the root).
    pub(crate) fn with_project(mut self, project: &str) -> Repository {
        self.project = project.trim_matches('/').to_owned();
        self
    }

    /// What the renderers need, with the SARIF category prefix.
    pub(crate) fn repo<'a>(&'a self, category: Option<&'a str>) -> Repo<'a> {
        Repo {
            root: Some(&self.root),
            project: &self.project,
            category,
        }
    }
}
