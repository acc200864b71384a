//! `verdict loop`: drives a coding agent to a green verification (see `verdict_core::agent_loop::driver`).
//!
//! This module gathers the settings (flags over `verdict.toml`'s `[loop]` and `[[agent]]` over the
//! embedded defaults), builds the verification from `verdict run`'s pipeline, streams the events
//! (NDJSON to `--events FILE` or to stdout with `--format jsonl`, a line per step on stderr for
//! people), and turns the run's end into the exit code.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use async_trait::async_trait;
use verdict_core::Verification;
use verdict_core::agent_loop::agent::{AgentPool, AgentSpec, PoolOptions};
use verdict_core::agent_loop::classify::FailureSet;
use verdict_core::agent_loop::driver::events::StoredReport;
use verdict_core::agent_loop::driver::{
    self, Event, Guide, GuideRequest, LoopEvent, LoopParts, LoopSpec, RunSettings, Verify,
    VerifyError, VerifyRequest,
};
use verdict_core::agent_loop::policy::Policies;
use verdict_core::cache::Cache;
use verdict_core::digest::DEFAULT_BUDGET;
use verdict_core::model::{Kind, Outcome, Report};
use verdict_core::paths;
use verdict_core::pipeline::{self, Entry};
use verdict_core::process::ProcessRunner;
use verdict_core::state::{RunRecord, RunState, StateDb};
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, InfraFile, Infrastructure, Verifier, VerifierError,
    Workspace,
};

use crate::budget;
use crate::config::Config;
use crate::exit::ExitCode;
use crate::global::{self, Verbosity};
use crate::registry;
use crate::run::{self, usage};
use crate::verify::{self, Cut, Plan, Scope};

const EXAMPLES: &str = "\
Examples:
  verdict loop --task 'Make the failing cart tests pass' --agent claude
  verdict loop --task-file TASK.md --agent 'aider --yes-always --message {prompt}' --max-attempts 5
  verdict loop --task-file TASK.md --agent claude --agent codex      # codex when claude is out of quota
  verdict loop --task-file TASK.md --resume                        # after a crash or Ctrl-C
  verdict loop --task 'Fix the lint errors' --agent claude --format jsonl > events.ndjson

The prompt reaches the agent on stdin, or as one argument where the command holds {prompt}, or as
a file's path where it holds {prompt_file}; no shell ever runs it. A preset name alone (claude,
codex, aider, gemini) runs that agent's documented command.

Exit codes:
  0  verified green
  1  attempts exhausted, blocked by a policy, or the agent session failed
  2  could not run: bad config or command line, no agent could start, verification could not start
  3  escalated to a person (the same failure twice, or a policy's escalate action)
  130 interrupted (Ctrl-C, SIGTERM): `verdict loop --resume` continues the run";

/// Arguments of `verdict loop`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    /// The task for the agent
    #[arg(long, value_name = "TEXT", conflicts_with = "task_file")]
    task: Option<String>,

    /// Read the task from a file
    #[arg(long, value_name = "FILE")]
    task_file: Option<PathBuf>,

    /// The agent's command line or a preset name; give it several times to fall back from one
    /// agent to the next on auth, quota and model errors
    #[arg(long = "agent", value_name = "CMD")]
    agents: Vec<String>,

    /// Attempts in all, the first included (default 3)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_attempts: Option<u32>,

    /// Verify with only these verifiers (comma-separated names, see `verdict list`)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    only: Vec<String>,

    /// Continue the unfinished run of this task (or, without a task, the latest unfinished run)
    #[arg(long)]
    resume: bool,

    /// Also write every event as NDJSON to this file
    #[arg(long, value_name = "FILE")]
    events: Option<PathBuf>,

    /// Output: `human` (progress on stderr, the result on stdout) or `jsonl` (events on stdout)
    #[arg(long, value_enum, default_value_t = LoopFormat::Human)]
    format: LoopFormat,

    /// Retries of transient agent failures (rate limit, overload, network) per attempt
    #[arg(long, value_name = "N")]
    max_agent_retries: Option<u32>,

    /// Seconds one agent session may run (default: the agent's own setting, else 1800)
    #[arg(long, value_name = "SECS", value_parser = at_least_one_second)]
    agent_timeout: Option<u64>,

    /// Restore the starting tree before every attempt after the first
    #[arg(long)]
    reset: bool,

    /// Failures the starting tree already had do not block the loop
    #[arg(long)]
    new_failures_only: bool,

    /// The task may change test infrastructure (runner configs, set-up files, test scripts)
    #[arg(long)]
    allow_infra_edits: bool,

    /// Skip the verification of the starting tree before attempt 1
    #[arg(long)]
    no_baseline: bool,

    /// Guidance for every retry prompt: text, or a file holding it
    #[arg(long, value_name = "TEXT|FILE")]
    guide: Option<String>,

    /// Ask at the terminal for guidance between attempts
    #[arg(long)]
    interactive: bool,

    /// Token budget of the digest in retry prompts
    #[arg(long, value_name = "TOKENS", value_parser = budget::parse)]
    budget: Option<usize>,

    /// Run in this directory instead of the current one
    #[arg(short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// `--agent-timeout`: a whole number of seconds, at least 1, as `[[agent]].timeout` must be (0
/// would stop every session at once).
fn at_least_one_second(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("must be at least 1 second".to_owned()),
        Ok(secs) => Ok(secs),
        Err(error) => Err(format!("not a number of seconds: {error}")),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LoopFormat {
    Human,
    Jsonl,
}

/// Runs the command and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let (root, config) = run::load_config(args.dir.as_deref())?;
    // Runs are found again by their workspace's path, so one directory must have one spelling
    // whichever way it was named (`-C proj/`, `-C proj`, through a symlink).
    let root = std::fs::canonicalize(&root)
        .with_context(|| format!("failed to resolve {}", root.display()))?;
    let task = task(args, &root)?;
    let policies = policies(&config)?;
    let settings = settings(args, &root, &task, &config, &policies)?;
    let built = build(&root, &config, task, &settings, policies, false)?;
    if settings.reset {
        events_outside_the_tree(args.events.as_deref(), &root)?;
    }
    let output = Output::new(args)?;
    let sink = {
        let output = Arc::clone(&output);
        Box::new(move |event: &LoopEvent| {
            let mut output = output.lock().unwrap_or_else(|p| p.into_inner());
            output.event(event);
        })
    };
    let guide = args.interactive.then(interactive_guide).flatten();
    let Built {
        spec,
        verify,
        pool,
        runner,
        interrupted,
    } = built;
    let parts = LoopParts {
        verify,
        pool,
        runner: runner.clone(),
        sink,
        guide,
        interrupted: Arc::clone(&interrupted),
        exit_code: ExitCode::loop_code,
    };

    let runtime = verify::runtime()?;
    let end = runtime.block_on(async {
        verify::forward_signals(&runner, &interrupted);
        driver::run_with_settings(spec, parts, settings).await
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
    // Each of the loop's errors says what it comes from in its message.
    let end = end.map_err(|e| usage(e.to_string()))?;
    let mut output = output.lock().unwrap_or_else(|p| p.into_inner());
    output.finish(&end)?;
    Ok(ExitCode::of_loop(end.outcome))
}

/// The loop's policies: `[loop]` over the embedded defaults.
pub(crate) fn policies(config: &Config) -> Result<Policies> {
    Policies::with_config(&config.retry_loop).map_err(|e| usage(format!("verdict.toml: {e}")))
}

/// What one run of the loop needs besides its sink and guide, from the workspace's
/// configuration and the run's settings: `verdict loop` and a fleet's attempts build it alike.
pub(crate) struct Built {
    pub(crate) spec: LoopSpec,
    pub(crate) verify: Arc<dyn Verify>,
    pub(crate) pool: AgentPool,
    pub(crate) runner: ProcessRunner,
    pub(crate) interrupted: Arc<std::sync::atomic::AtomicBool>,
}

/// Builds the run of `task` in `root` with `settings` (every value filled in); `yield_retries`
/// hands scheduled retries back (a fleet's attempt).
pub(crate) fn build(
    root: &Path,
    config: &Config,
    task: String,
    settings: &RunSettings,
    mut policies: Policies,
    yield_retries: bool,
) -> Result<Built> {
    // Every value below is known: `settings` fills each one in.
    policies.max_attempts = settings.max_attempts.unwrap_or(policies.max_attempts);
    policies.new_failures_only = settings.new_failures_only;
    policies.allow_infra_edits = settings.allow_infra_edits;
    let specs = agents(settings, config)?;
    let guidance = settings.guidance.clone();
    prompt_fits_one_argument(
        &specs,
        &task,
        settings.budget.unwrap_or(DEFAULT_BUDGET),
        guidance.as_deref(),
    )?;

    // The verification: `verdict run`'s selection, built once.
    let known = registry::all(config, root).map_err(|e| usage(format!("{e:#}")))?;
    let plan = Plan::new(root, config, known, &settings.only, &config.run.skip)
        .map_err(|e| usage(format!("{e:#}")))?
        .with_fail_fast(false);
    if plan.is_empty() {
        bail!(usage(format!(
            "no verifier applies to {}, so no attempt could be verified; `verdict list` shows \
             why, and a [[verifier]] in verdict.toml adds one",
            root.display()
        )));
    }
    let specs = allow_verification(specs, plan.entries(), plan.workspace(), root);

    let interrupted = Arc::clone(plan.interrupted());
    let runner = crate::verify::runner_for(root);
    let verify = Arc::new(PipelineVerify {
        plan,
        runner: runner.clone(),
    });
    let pool_options = PoolOptions {
        max_agent_retries: settings
            .max_agent_retries
            .unwrap_or(PoolOptions::default().max_agent_retries),
        ..PoolOptions::default()
    };
    let pool = AgentPool::from_specs(specs, &runner, pool_options);

    let spec = LoopSpec {
        task,
        root: root.to_path_buf(),
        policies,
        baseline: settings.baseline,
        reset: settings.reset,
        digest_budget: settings.budget.unwrap_or(DEFAULT_BUDGET),
        guidance,
        flaky_rerun: true,
        grace: Duration::from_secs(2),
        yield_retries,
    };
    Ok(Built {
        spec,
        verify,
        pool,
        runner,
        interrupted,
    })
}

/// The task: `--task`, `--task-file`, or with `--resume` alone the latest unfinished run's.
fn task(args: &Args, root: &Path) -> Result<String> {
    let task = match (&args.task, &args.task_file) {
        (Some(task), _) => task.clone(),
        (None, Some(file)) => std::fs::read_to_string(file)
            .with_context(|| format!("failed to read the task file {}", file.display()))?,
        (None, None) if args.resume => {
            let path = verdict_core::paths::state_db(root);
            let db = StateDb::open(&path)
                .with_context(|| format!("failed to open the state database {}", path.display()))?;
            let runs = db.runs()?;
            let workspace = root.to_string_lossy();
            match runs
                .into_iter()
                .find(|r| !r.state.is_terminal() && r.workspace == workspace)
            {
                Some(run) => run.task,
                None => bail!(usage(format!(
                    "no unfinished loop run to resume in {}",
                    root.display()
                ))),
            }
        }
        (None, None) => bail!(usage("give the task with --task TEXT or --task-file FILE")),
    };
    if task.trim().is_empty() {
        bail!(usage("the task is empty"));
    }
    if args.resume && (args.task.is_some() || args.task_file.is_some()) {
        let path = verdict_core::paths::state_db(root);
        let db = StateDb::open(&path)
            .with_context(|| format!("failed to open the state database {}", path.display()))?;
        let hash = verdict_core::state::task_hash(&task);
        if db.find_run_by_task(&hash, root)?.is_none() {
            bail!(usage(format!(
                "--resume: no unfinished loop run of this task in {}",
                root.display()
            )));
        }
    }
    Ok(task)
}

/// The longest single argument Linux passes to a program (`MAX_ARG_STRLEN`, 32 pages of 4 KiB).
const MAX_ARG_LEN: usize = 32 * 4096;

/// Bytes a digest token is counted at when sizing the longest prompt: twice what a token of code
/// or English averages, so that a digest of unusual text still fits the estimate.
const BYTES_PER_TOKEN: usize = 8;

/// With an agent that takes the prompt as one argument (`{prompt}`), checks before attempt 1 that
/// the longest retry prompt the run can write — the task, the digest's budget, verdict's own lines
/// and a person's guidance (`verdict_core::agent_loop::prompt`'s bound) — fits in one argument.
/// Past it the agent cannot start, which used to end the run after attempt 1 had already run.
fn prompt_fits_one_argument(
    specs: &[AgentSpec],
    task: &str,
    budget: usize,
    guidance: Option<&str>,
) -> Result<()> {
    let longest = task.len()
        + guidance.map_or(0, str::len)
        + (budget + verdict_core::agent_loop::prompt::OVERHEAD_TOKENS) * BYTES_PER_TOKEN;
    for spec in specs {
        // The words around the placeholder in its argument count too (`--message={prompt}`).
        let around = spec
            .argv
            .iter()
            .filter(|arg| arg.contains(verdict_core::agent_loop::agent::PROMPT))
            .map(|arg| arg.len() - verdict_core::agent_loop::agent::PROMPT.len())
            .max();
        let Some(around) = around else {
            continue;
        };
        if longest + around >= MAX_ARG_LEN {
            bail!(usage(format!(
                "the retry prompts of this task can make an argument of about {} bytes (a task of \
                 {} bytes, a digest of up to {budget} tokens, verdict's own lines and the \
                 guidance), over the {} KiB Linux allows for one argument; give agent `{}` the \
                 prompt through {} or on stdin, or shorten the task",
                longest + around,
                task.len(),
                MAX_ARG_LEN / 1024,
                spec.name,
                verdict_core::agent_loop::agent::PROMPT_FILE,
            )));
        }
    }
    Ok(())
}

/// The run's settings: the flags given, else — for a run that continues an unfinished one — the
/// settings it was started with, else the configuration and the defaults. A flag given to a
/// resumed run overrides what it was started with, and stderr says so.
fn settings(
    args: &Args,
    root: &Path,
    task: &str,
    config: &Config,
    policies: &Policies,
) -> Result<RunSettings> {
    let (run, was) = match unfinished_run(root, task)? {
        Some(run) => {
            let was = driver::recorded_settings(&run);
            (Some(run.id), was)
        }
        None => (None, None),
    };
    let guide = args.guide.as_deref().map(read_guide).transpose()?;
    let settings = RunSettings {
        agents: match &was {
            _ if !args.agents.is_empty() => args.agents.clone(),
            Some(was) => was.agents.clone(),
            None => policies.agents.clone(),
        },
        max_attempts: Some(
            args.max_attempts
                .or(was.as_ref().and_then(|w| w.max_attempts))
                .unwrap_or(policies.max_attempts),
        ),
        reset: args.reset || was.as_ref().is_some_and(|w| w.reset),
        guidance: match &was {
            _ if guide.is_some() => guide.clone(),
            Some(was) => was.guidance.clone(),
            None => policies.guidance.clone(),
        },
        new_failures_only: args.new_failures_only
            || was
                .as_ref()
                .map_or(policies.new_failures_only, |w| w.new_failures_only),
        allow_infra_edits: args.allow_infra_edits
            || was
                .as_ref()
                .map_or(policies.allow_infra_edits, |w| w.allow_infra_edits),
        budget: Some(
            args.budget
                .or(was.as_ref().and_then(|w| w.budget))
                .or(config.run.budget)
                .unwrap_or(DEFAULT_BUDGET),
        ),
        only: match &was {
            _ if !args.only.is_empty() => args.only.clone(),
            Some(was) => was.only.clone(),
            None => config.run.only.clone(),
        },
        agent_timeout: args
            .agent_timeout
            .or(was.as_ref().and_then(|w| w.agent_timeout)),
        max_agent_retries: Some(
            args.max_agent_retries
                .or(was.as_ref().and_then(|w| w.max_agent_retries))
                .unwrap_or(PoolOptions::default().max_agent_retries),
        ),
        baseline: !args.no_baseline && was.as_ref().is_none_or(|w| w.baseline),
    };
    if let (Some(run), Some(was)) = (run, &was) {
        let overrides = overrides(&settings, was);
        if !overrides.is_empty() {
            eprintln!(
                "verdict: run {run} goes on with the settings it was started with, except what \
                 is given here: {}",
                overrides.join(", ")
            );
        }
    }
    Ok(settings)
}

/// The settings of `now` that differ from those a run was started with (`was`), for people.
fn overrides(now: &RunSettings, was: &RunSettings) -> Vec<String> {
    fn shown<T: std::fmt::Debug>(value: &Option<T>) -> String {
        match value {
            Some(value) => format!("{value:?}"),
            None => "none".to_owned(),
        }
    }
    let mut out = Vec::new();
    if now.agents != was.agents {
        out.push(format!("--agent {:?} (was {:?})", now.agents, was.agents));
    }
    if now.max_attempts != was.max_attempts {
        out.push(format!(
            "--max-attempts {} (was {})",
            shown(&now.max_attempts),
            shown(&was.max_attempts)
        ));
    }
    if now.reset != was.reset {
        out.push("--reset".to_owned());
    }
    if now.guidance != was.guidance {
        out.push("--guide (new guidance)".to_owned());
    }
    if now.new_failures_only != was.new_failures_only {
        out.push("--new-failures-only".to_owned());
    }
    if now.allow_infra_edits != was.allow_infra_edits {
        out.push("--allow-infra-edits".to_owned());
    }
    if now.budget != was.budget {
        out.push(format!(
            "--budget {} (was {})",
            shown(&now.budget),
            shown(&was.budget)
        ));
    }
    if now.only != was.only {
        out.push(format!("--only {:?} (was {:?})", now.only, was.only));
    }
    if now.agent_timeout != was.agent_timeout {
        out.push(format!(
            "--agent-timeout {} (was {})",
            shown(&now.agent_timeout),
            shown(&was.agent_timeout)
        ));
    }
    if now.max_agent_retries != was.max_agent_retries {
        out.push(format!(
            "--max-agent-retries {} (was {})",
            shown(&now.max_agent_retries),
            shown(&was.max_agent_retries)
        ));
    }
    if now.baseline != was.baseline {
        out.push("--no-baseline".to_owned());
    }
    out
}

/// The unfinished run of `task` in `root`, which this invocation continues.
fn unfinished_run(root: &Path, task: &str) -> Result<Option<RunRecord>> {
    let path = verdict_core::paths::state_db(root);
    if !path.exists() {
        return Ok(None);
    }
    let db = StateDb::open(&path)
        .with_context(|| format!("failed to open the state database {}", path.display()))?;
    Ok(db.find_run_by_task(&verdict_core::state::task_hash(task), root)?)
}

/// The agents: the names the settings hold (`--agent` values — a preset, an `[[agent]]` name, or a
/// command line — or `[loop].agents`), else every `[[agent]]` table in order.
fn agents(settings: &RunSettings, config: &Config) -> Result<Vec<AgentSpec>> {
    let named = &settings.agents;
    let mut specs = Vec::new();
    if named.is_empty() {
        for agent in &config.agents {
            specs.push(
                agent
                    .to_spec()
                    .map_err(|e| usage(format!("verdict.toml: {e}")))?,
            );
        }
    }
    for name in named {
        let table = config.agents.iter().find(|a| {
            a.to_spec().is_ok_and(|spec| spec.name == *name) || a.name.as_deref() == Some(name)
        });
        let spec = match table {
            Some(table) => table.to_spec(),
            None => AgentSpec::from_command(name),
        }
        .map_err(|e| usage(format!("--agent {name:?}: {e}")))?;
        specs.push(spec);
    }
    if specs.is_empty() {
        bail!(usage(
            "no agent to run: give --agent CMD (or a preset: claude, codex, aider, gemini), or \
             add an [[agent]] table to verdict.toml"
        ));
    }
    if let Some(secs) = settings.agent_timeout {
        for spec in &mut specs {
            spec.timeout = Duration::from_secs(secs);
        }
    }
    // Two agents of one name would share log directories and events.
    let mut seen = std::collections::BTreeSet::new();
    for (index, spec) in specs.iter_mut().enumerate() {
        if !seen.insert(spec.name.clone()) {
            spec.name = format!("{}-{}", spec.name, index + 1);
            seen.insert(spec.name.clone());
        }
    }
    Ok(specs)
}

/// The `claude` preset is allowed to run the commands the loop verifies with (and the `verify`
/// tool of `verdict mcp`): in `acceptEdits` mode a headless session would otherwise be refused
/// every command, the project's tests included. The rules follow `-p` as one `--allowedTools`
/// list, one argv element each. Other agents, and a `claude` command line a person wrote, are
/// left as they are.
fn allow_verification(
    mut specs: Vec<AgentSpec>,
    entries: &[Entry],
    workspace: &Workspace,
    root: &Path,
) -> Vec<AgentSpec> {
    let Some(claude) = verdict_core::agent_loop::agent::presets::preset("claude") else {
        return specs;
    };
    let commands: Vec<Vec<String>> = entries
        .iter()
        .filter_map(|e| e.verifier.command(workspace).ok())
        .map(|spec| {
            std::iter::once(spec.program.to_string_lossy().into_owned())
                .chain(spec.args)
                .collect()
        })
        .collect();
    let rules = verdict_core::agent_loop::agent::allowed::claude_allowed_tools(&commands, root);
    for spec in &mut specs {
        if spec.argv.as_slice() != claude {
            continue;
        }
        let at = spec
            .argv
            .iter()
            .position(|a| a == "-p")
            .map_or(1, |p| p + 1);
        let flag = std::iter::once(verdict_core::agent_loop::agent::allowed::FLAG.to_owned());
        spec.argv.splice(at..at, flag.chain(rules.iter().cloned()));
    }
    specs
}

/// With `--reset`, the events file must not be part of the tree that is restored before every
/// attempt: the restore would take it back to what it held at the start (or remove it), and the
/// events written since would be lost. Under `.verdict/` it is never part of the tree.
fn events_outside_the_tree(events: Option<&Path>, root: &Path) -> Result<()> {
    let Some(path) = events else {
        return Ok(());
    };
    let absolute = std::path::absolute(path)
        .with_context(|| format!("failed to resolve {}", path.display()))?;
    // The file may not exist yet, its directory must: when it does not, opening the file fails
    // with the error that says so.
    let Some(dir) = absolute
        .parent()
        .and_then(|d| std::fs::canonicalize(d).ok())
    else {
        return Ok(());
    };
    if dir.starts_with(root) && !dir.starts_with(paths::dir(root)) {
        bail!(usage(format!(
            "--events {}: the file is inside the workspace, which --reset restores before every \
             attempt, so the events written until then would be lost; write it outside {} or \
             under verdict's directory",
            path.display(),
            root.display()
        )));
    }
    Ok(())
}

/// `--guide`: a file's contents when it names a file, else the text itself.
fn read_guide(guide: &str) -> Result<String> {
    let path = Path::new(guide);
    if guide.len() < 4096 && path.is_file() {
        return std::fs::read_to_string(path)
            .with_context(|| format!("failed to read the guidance file {}", path.display()));
    }
    Ok(guide.to_owned())
}

/// `--interactive`: asks at the terminal between attempts; `None` (with a warning) when there is
/// no terminal, so that a loop in CI never waits for a person who is not there.
fn interactive_guide() -> Option<Guide> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty");
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let tty = match tty {
        Ok(tty) if interactive => tty,
        _ => {
            eprintln!("verdict: --interactive needs a terminal; going on without asking");
            return None;
        }
    };
    let tty = Arc::new(Mutex::new(tty));
    Some(Box::new(move |request: &GuideRequest| {
        let mut tty = tty.lock().ok()?;
        let _ = writeln!(
            tty,
            "\nattempt {} failed verification:\n{}\n\nguidance for attempt {} (end with an empty \
             line; nothing to go on as is):",
            request.attempt, request.digest, request.next
        );
        let mut reader = std::io::BufReader::new(&*tty);
        let mut text = String::new();
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) if line.trim().is_empty() => break,
                Ok(_) => text.push_str(&line),
            }
        }
        let text = text.trim_end().to_owned();
        (!text.is_empty()).then_some(text)
    }))
}

/// `verdict run`'s verification path as the loop's verification.
struct PipelineVerify {
    plan: Plan,
    runner: ProcessRunner,
}

#[async_trait]
impl Verify for PipelineVerify {
    async fn verify(&self, request: VerifyRequest) -> Result<Vec<Verification>, VerifyError> {
        let workspace = self
            .plan
            .start()
            .map_err(|e| VerifyError::RunDir(e.into()))?;
        let entries: Vec<Entry> = self
            .plan
            .entries()
            .iter()
            .filter(|e| {
                request
                    .only
                    .as_ref()
                    .is_none_or(|only| only.iter().any(|n| n == e.verifier.name()))
            })
            .map(|e| {
                let mut entry = e.clone();
                // A re-run of some verifiers drops the needs it does not include: they passed.
                if let Some(only) = &request.only {
                    entry.needs.retain(|n| only.contains(n));
                }
                entry
            })
            .collect();
        if request.failed_first {
            return self.failed_only(entries, &workspace).await;
        }
        let scope = Scope {
            cache: true,
            run_all: request.fresh,
            failed_first: false,
        };
        self.pipeline(&entries, &workspace, scope).await
    }

    /// Each planned verifier's infrastructure, read from the plan's workspace (verdict.toml's
    /// commands, no run directory) and from the tree as it is when the loop asks: before the
    /// first attempt, the starting tree.
    fn infrastructure(&self) -> Vec<(String, Infrastructure)> {
        infrastructure(self.plan.entries(), self.plan.workspace())
    }
}

/// The infrastructure of each of `entries`' verifiers in `workspace`, by verifier name. A
/// verifier whose command verdict.toml runs in another directory (`cwd`) has its tool find its
/// config files there: each file it names in the root alone (`jest.config.*`) counts there too.
fn infrastructure(entries: &[Entry], workspace: &Workspace) -> Vec<(String, Infrastructure)> {
    entries
        .iter()
        .map(|entry| {
            let mut infra = entry.verifier.infrastructure(workspace);
            let dir = entry
                .cwd
                .as_deref()
                .and_then(|cwd| cwd.strip_prefix(&workspace.root).ok())
                .map(|dir| dir.to_string_lossy().replace('\\', "/"))
                .filter(|dir| !dir.is_empty() && !dir.starts_with(".."));
            if let Some(dir) = dir {
                let there: Vec<InfraFile> = infra
                    .files
                    .iter()
                    .filter(|file| !file.glob.contains('/'))
                    .map(|file| InfraFile {
                        glob: format!(
                            "{}/{}",
                            verdict_verifier_support::infra::escape(&dir),
                            file.glob
                        ),
                        part: file.part.clone(),
                    })
                    .collect();
                infra.files.extend(there);
            }
            (entry.verifier.name().to_owned(), infra)
        })
        .collect()
}

impl PipelineVerify {
    /// The verification path itself, never cut: Ctrl-C and SIGTERM reach the runner.
    async fn pipeline(
        &self,
        entries: &[Entry],
        workspace: &Workspace,
        scope: Scope,
    ) -> Result<Vec<Verification>, VerifyError> {
        let mut on_event = |_: pipeline::Event<'_>| {};
        let ran = self
            .plan
            .run(
                workspace,
                entries,
                scope,
                &self.runner,
                &mut on_event,
                Cut::never(),
            )
            .await
            .map_err(VerifyError::Pipeline)?;
        let Ok(verifications) = ran;
        Ok(verifications)
    }

    /// The flaky re-run: each verifier runs only the tests that failed in its last run, with the
    /// tool's own filter (`Verifier::rerun_failed`, what `verdict run --failed-first` runs first),
    /// and never in full after it. A verifier with no such filter, or whose filtered run cannot
    /// verify (the filter matched nothing), runs in full. Nothing of it is cached: the next
    /// verification's `--failed-first` and cache see the full runs only.
    async fn failed_only(
        &self,
        entries: Vec<Entry>,
        workspace: &Workspace,
    ) -> Result<Vec<Verification>, VerifyError> {
        let cache = Cache::open(paths::cache(self.plan.root()));
        let uncached = Scope {
            cache: false,
            run_all: true,
            failed_first: false,
        };
        let mut narrowed = Vec::new();
        let entries: Vec<Entry> = entries
            .into_iter()
            .map(|mut entry| {
                let name = entry.verifier.name().to_owned();
                let previous = cache
                    .last(&name)
                    .filter(|report| report.outcome == Outcome::Failed);
                if let Some(previous) = previous
                    && let Some(spec) = entry.verifier.rerun_failed(workspace, &previous)
                {
                    let failed = previous
                        .errors()
                        .filter_map(|d| d.test.as_deref().or(d.file.as_deref()))
                        .collect::<std::collections::BTreeSet<_>>()
                        .len();
                    narrowed.push((name, entry.clone(), failed));
                    entry.verifier = Arc::new(FailedOnly {
                        inner: Arc::clone(&entry.verifier),
                        spec,
                    });
                }
                entry
            })
            .collect();
        let mut verifications = self.pipeline(&entries, workspace, uncached).await?;
        let mut again = Vec::new();
        for verification in &mut verifications {
            let Some((_, full, failed)) =
                narrowed.iter().find(|(n, ..)| *n == verification.verifier)
            else {
                continue;
            };
            let plural = if *failed == 1 { "" } else { "s" };
            if verification.outcome() == Outcome::Errored
                && !self.plan.interrupted().load(Ordering::SeqCst)
            {
                let mut full = full.clone();
                full.needs.clear();
                again.push(full);
            } else {
                verification.notes.push(format!(
                    "re-ran only the {failed} failed test{plural}, with the tool's own filter"
                ));
            }
        }
        if again.is_empty() {
            return Ok(verifications);
        }
        let full = self.pipeline(&again, workspace, uncached).await?;
        for mut run in full {
            run.notes.push(
                "the re-run of the failed tests alone could not verify; ran in full".to_owned(),
            );
            if let Some(slot) = verifications
                .iter_mut()
                .find(|v| v.verifier == run.verifier)
            {
                *slot = run;
            }
        }
        Ok(verifications)
    }
}

/// A verifier narrowed to what failed in its last run: its command is the tool's own filtered
/// re-run; reading the output, its name and kind are the verifier's.
struct FailedOnly {
    inner: Arc<dyn Verifier>,
    spec: CommandSpec,
}

#[async_trait]
impl Verifier for FailedOnly {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn kind(&self) -> Kind {
        self.inner.kind()
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        self.inner.applies(workspace)
    }

    fn command(&self, _workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        Ok(self.spec.clone())
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        self.inner.interpret(spec, captured)
    }
}

/// Where the events go: NDJSON (a file, stdout), and a line per step on stderr for people — under
/// a live status line (the attempt, the phase, the time it has taken) when stderr is a terminal.
struct Output {
    file: Option<std::io::BufWriter<std::fs::File>>,
    jsonl: bool,
    /// `-q`: no line per step; `-v`: every event's NDJSON line on stderr too.
    verbosity: Verbosity,
    started: Instant,
    status: Option<indicatif::ProgressBar>,
    attempt: Option<(u64, u64)>,
    /// The flaky failures of the last verification, for the result.
    flaky: Vec<String>,
    error: Option<std::io::Error>,
}

impl Output {
    fn new(args: &Args) -> Result<Arc<Mutex<Output>>> {
        let file = match &args.events {
            Some(path) => Some(std::io::BufWriter::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .with_context(|| format!("failed to open {}", path.display()))?,
            )),
            None => None,
        };
        let status = global::live_view().then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner:.cyan} {msg} {elapsed}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            bar.set_message("starting");
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Ok(Arc::new(Mutex::new(Output {
            file,
            jsonl: args.format == LoopFormat::Jsonl,
            verbosity: global::get().verbosity,
            started: Instant::now(),
            status,
            attempt: None,
            flaky: Vec::new(),
            error: None,
        })))
    }

    fn event(&mut self, event: &LoopEvent) {
        let line = event.to_line();
        if let Some(file) = &mut self.file
            && let Err(error) = writeln!(file, "{line}").and_then(|()| file.flush())
        {
            self.error.get_or_insert(error);
        }
        if self.jsonl {
            let mut stdout = std::io::stdout().lock();
            if let Err(error) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
                self.error.get_or_insert(error);
            }
        }
        match &event.event {
            Event::AttemptStarted { attempt, of, .. } => {
                // The attempt's number, of the attempts the run may make (more than
                // --max-attempts after an interrupted attempt, which does not count), as the
                // prompt says.
                self.attempt = Some((u64::from(*attempt), u64::from(*of)));
            }
            Event::VerificationFinished(verified) => self.flaky = labels(&verified.flaky),
            _ => {}
        }
        if self.verbosity == Verbosity::Verbose {
            match &self.status {
                Some(bar) => bar.println(&line),
                None => eprintln!("{line}"),
            }
        }
        if let Some(text) = describe(event).filter(|_| self.verbosity != Verbosity::Quiet) {
            let elapsed = self.started.elapsed().as_secs();
            let line = format!(
                "verdict loop [{:>2}:{:02}] {text}",
                elapsed / 60,
                elapsed % 60
            );
            match &self.status {
                Some(bar) => bar.println(line),
                None => eprintln!("{line}"),
            }
        }
        if let Some(bar) = &self.status
            && let Some(phase) = phase(event)
        {
            let attempt = match self.attempt {
                Some((n, of)) => format!("attempt {n}/{of} · "),
                None => String::new(),
            };
            bar.set_message(format!("{attempt}{phase}"));
            // The elapsed time counts the phase.
            bar.reset_elapsed();
        }
    }

    fn finish(&mut self, end: &driver::LoopEnd) -> Result<()> {
        if let Some(bar) = self.status.take() {
            bar.finish_and_clear();
        }
        if let Some(error) = self.error.take() {
            return Err(error).context("failed to write the events");
        }
        if self.jsonl {
            return Ok(());
        }
        let mut stdout = std::io::stdout().lock();
        let attempts = match end.attempts {
            1 => "1 attempt".to_owned(),
            n => format!("{n} attempts"),
        };
        writeln!(
            stdout,
            "verdict loop: run {} {} after {attempts}: {}",
            end.run, end.state, end.reason
        )?;
        if !self.flaky.is_empty() {
            writeln!(
                stdout,
                "flaky (failed, then passed when run again; not blamed on the agent): {}",
                self.flaky.join(", ")
            )?;
        }
        if end.state != RunState::Passed
            && let Some(digest) = &end.digest
            && !digest.is_empty()
        {
            writeln!(stdout, "\n{digest}")?;
        }
        if end.state == RunState::Interrupted {
            writeln!(stdout, "\n`verdict loop --resume` continues this run.")?;
        }
        stdout.flush()?;
        Ok(())
    }
}

/// The labels of `failures` (the flaky failures of a `verification_finished` event: failures
/// that came and went when the failed tests ran again).
fn labels(failures: &FailureSet) -> Vec<String> {
    failures.iter().map(|(_, label)| label.to_owned()).collect()
}

/// What the loop is doing after `event`, for the status line; `None` when the event does not
/// change the phase.
fn phase(event: &LoopEvent) -> Option<String> {
    Some(match &event.event {
        Event::RunStarted { .. } | Event::RunResumed { .. } => {
            "checking the starting tree".to_owned()
        }
        Event::AttemptStarted { agent, .. } => format!("{agent} is working"),
        Event::AgentRetry(retry) => {
            format!("waiting to retry the agent ({})", retry.outcome.name())
        }
        Event::AgentFinished(_) | Event::WorkspaceReset { .. } => "verifying".to_owned(),
        Event::InfraPutBack { .. } => {
            "verifying with the starting tree's test infrastructure".to_owned()
        }
        Event::RetryScheduled(_) => "waiting for the next attempt".to_owned(),
        _ => return None,
    })
}

/// The failures of a `baseline_finished` event's reports in each tool's own units, labelled:
/// `pytest: 7 tests failed; eslint: 3 errors`.
fn tool_units(reports: &[StoredReport]) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let positive = |n: Option<u64>| n.filter(|n| *n > 0);
    reports
        .iter()
        .filter_map(|stored| {
            let counts = &stored.report.counts;
            let mut parts = Vec::new();
            if let Some(n) = positive(counts.tests_failed) {
                parts.push(plural(n, "test failed", "tests failed"));
            }
            if let Some(n) = positive(counts.suites_errored) {
                parts.push(plural(n, "test file not loaded", "test files not loaded"));
            }
            if let Some(n) = positive(counts.errors) {
                parts.push(plural(n, "error", "errors"));
            }
            (!parts.is_empty()).then(|| format!("{}: {}", stored.verifier, parts.join(", ")))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A value as its JSON text without quotes: the name of a state or an outcome.
fn name_of(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// The line of an `infra_put_back` event: the files whose starting version went back.
fn put_back_line(
    attempt: u32,
    files: &[verdict_core::agent_loop::driver::events::InfraChange],
) -> String {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    format!(
        "attempt {attempt}: test infrastructure changed ({}); verifying with the starting tree's \
         version put back",
        paths.join(", ")
    )
}

/// The line of an `infra_restored` event: the attempt's files are back, and what the check found.
fn restored_line(attempt: u32, passed: Option<bool>) -> String {
    let found = match passed {
        Some(true) => "; the tests pass without it",
        Some(false) => "; the tests do not pass without it",
        None => "",
    };
    format!("attempt {attempt}: the attempt's test infrastructure written back{found}")
}

/// One line for people about `event`, or `None` for events they need not see.
fn describe(event: &LoopEvent) -> Option<String> {
    let run = event.run;
    Some(match &event.event {
        Event::RunStarted { .. } => format!("run {run} started"),
        Event::RunResumed {
            was,
            unverified: Some(n),
            ..
        } => format!(
            "resuming run {run} (it was {}; verifying attempt {n}, whose agent had finished)",
            was.as_str()
        ),
        Event::RunResumed {
            was, next_attempt, ..
        } => format!(
            "resuming run {run} (it was {}; next attempt {next_attempt})",
            was.as_str()
        ),
        Event::Checkpoint { .. } | Event::RunFinished { .. } => return None,
        Event::BaselineFinished(baseline) => {
            let units = tool_units(&baseline.reports);
            format!(
                "baseline: {}{}, {} distinct failure(s) by fingerprint already there",
                name_of(&baseline.outcome),
                if units.is_empty() {
                    String::new()
                } else {
                    format!(" ({units})")
                },
                baseline.failures.len()
            )
        }
        Event::AttemptStarted {
            attempt,
            agent,
            prompt_tokens,
            ..
        } => format!("attempt {attempt} — {agent} is working ({prompt_tokens} prompt tokens)"),
        Event::AgentRetry(retry) => format!(
            "{} {}: retrying with {} in {} ms",
            retry.agent,
            retry.outcome.name(),
            retry.next_agent,
            retry.delay_ms
        ),
        Event::AgentFinished(finished) => format!(
            "attempt {}: agent {} ({} s){}",
            finished.attempt,
            finished.outcome,
            finished.duration_ms / 1000,
            if finished.workspace_changed {
                ""
            } else {
                ", no change to the workspace"
            }
        ),
        Event::WorkspaceReset { .. } => "workspace restored to the starting tree".to_owned(),
        Event::InfraPutBack { attempt, files, .. } => put_back_line(*attempt, files),
        Event::InfraRestored {
            attempt, passed, ..
        } => restored_line(*attempt, *passed),
        Event::VerificationFinished(verified) => {
            let flaky = labels(&verified.flaky);
            format!(
                "attempt {}: {}{}",
                verified.attempt,
                if verified.passed {
                    "verified green".to_owned()
                } else {
                    // The tools' own counts, then how many distinct failures they make.
                    format!(
                        "{} ({} distinct failure(s) by fingerprint)",
                        verified.summary,
                        verified.failures.len()
                    )
                },
                if flaky.is_empty() {
                    String::new()
                } else {
                    format!("; flaky, not blamed on the agent: {}", flaky.join(", "))
                }
            )
        }
        Event::RetryScheduled(scheduled) => format!("attempt {} next", scheduled.next),
        Event::RetryExhausted { reason, .. } => format!("exhausted: {reason}"),
        Event::Escalated { reason, .. } => format!("escalated: {reason}"),
        Event::Blocked { reason, .. } => format!("blocked: {reason}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loop_verification_names_each_planned_verifiers_infrastructure() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("test")).expect("mkdir");
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"test": "mocha -r ./test/spy.js"}, "devDependencies": {"mocha": "*"}}"#,
        )
        .expect("write");
        std::fs::write(dir.path().join("test/spy.js"), "").expect("write");
        std::fs::write(
            dir.path().join("verdict.toml"),
            "[verifiers.mocha]\ncwd = \"web\"\n",
        )
        .expect("write");
        let (root, config) = run::load_config(Some(dir.path())).expect("config");
        let known = registry::all(&config, &root).expect("registry");
        let only = vec!["mocha".to_owned()];
        let plan = Plan::new(&root, &config, known, &only, &[]).expect("plan");
        let verify = PipelineVerify {
            plan,
            runner: ProcessRunner::new(),
        };
        let infrastructure = verify.infrastructure();
        let names: Vec<&str> = infrastructure.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["mocha"]);
        let globs: Vec<&str> = infrastructure[0]
            .1
            .files
            .iter()
            .map(|f| f.glob.as_str())
            .collect();
        assert!(globs.contains(&".mocharc.json"), "{globs:?}");
        assert!(globs.contains(&"test/spy.js"), "{globs:?}");
        // Run in `web/` by verdict.toml, mocha finds its config there.
        assert!(globs.contains(&"web/.mocharc.json"), "{globs:?}");
        // No run directory is made to read it.
        assert!(!root.join(".verdict/runs").exists());
    }
}
