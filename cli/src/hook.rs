//! `verdict hook <claude|codex|cursor>`: verdict as the stop hook of a coding agent that loops by
//! itself (issue 4, item 9), and `verdict hook install`, which writes that hook into the
//! harness's settings.
//!
//! When the agent wants to stop, the harness runs the hook with a JSON object on stdin. verdict
//! runs the project's verification (the same selection, pipeline and digest as `verdict run`)
//! and answers in the harness's own format: a failure keeps the agent working, with the digest as
//! its next instruction; a pass lets it stop. docs/hooks.md gives each harness's exact fields.
//!
//! Three rules keep a harness from looping for ever, whatever it does itself:
//! - verdict counts its blocks per (harness, session) in `.verdict/state.db`; after
//!   `--max-blocks` (default 3) it lets the agent stop and shows what still fails;
//! - the same failures (the same fingerprints) as at the previous block let the agent stop: the
//!   last round changed nothing verdict can see;
//! - fail open: an error of verdict itself (unreadable input, a bad verdict.toml, a locked
//!   database, a panic) or its own deadline (`--deadline`, below the harness's hook timeout) lets
//!   the agent stop with a visible message. The hook always exits 0 with a JSON answer.
//!
//! A pass, and every time verdict lets the agent stop, ends the chain of blocks: the next stop in
//! the session (a new request from the user) starts counting afresh.

mod install;
mod state;

use std::io::{Read, Write};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use verdict_core::cache::Cache;
use verdict_core::digest::{self, DEFAULT_BUDGET};
use verdict_core::model::overall;
use verdict_core::pipeline::{self, Entry, Event};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::Runner;
use verdict_core::{Outcome, Verification};

use crate::config::{self, Config};
use crate::{registry, run};

/// How much of the harness's hook timeout verdict leaves itself to stop the verifiers' process
/// groups and answer, in seconds.
const ANSWER_MARGIN_SECS: u64 = 10;

/// Blocks per chain by default.
const DEFAULT_MAX_BLOCKS: u32 = 3;

const EXAMPLES: &str = "\
Examples:
  verdict hook install claude                 # .claude/settings.json of this project
  verdict hook install codex --scope user     # ~/.codex/hooks.json
  verdict hook install cursor
  echo '{\"session_id\":\"s1\",\"cwd\":\".\",\"hook_event_name\":\"Stop\"}' | verdict hook claude

The hook always exits 0 and prints one JSON object: it blocks (keeps the agent working) only
when the project's verification fails; any error of verdict itself lets the agent stop with a
message. docs/hooks.md describes each harness's settings and fields.";

/// Arguments of `verdict hook`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: HookCommand,
}

#[derive(clap::Subcommand)]
enum HookCommand {
    /// Claude Code's Stop hook: `{"decision":"block","reason":…}` while verification fails
    Claude(StopArgs),
    /// Codex's Stop hook: `{"decision":"block","reason":…}` while verification fails
    Codex(StopArgs),
    /// Cursor's stop hook: `{"followup_message":…}` while verification fails
    Cursor(StopArgs),
    /// Write the stop hook into a harness's settings file (idempotent)
    Install(install::Args),
}

/// Arguments of the stop hooks.
#[derive(clap::Args)]
struct StopArgs {
    /// Stop verifying after this many seconds and let the agent stop; keep it below the
    /// harness's hook timeout [default: 590 for Claude Code and Codex, 50 for Cursor: 10 s inside
    /// the timeout `verdict hook install` writes]
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    deadline: Option<u64>,

    /// Let the agent stop after this many blocks in a row (a pass resets the count)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_BLOCKS,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_blocks: u32,

    /// The project to verify [default: the project the harness names, else the root of the
    /// session's directory (its verdict.toml or repository), else the current directory]
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl StopArgs {
    /// `--deadline`, else the harness's default (see [`Harness::default_deadline_secs`]).
    fn deadline_secs(&self, harness: Harness) -> u64 {
        self.deadline
            .unwrap_or_else(|| harness.default_deadline_secs())
    }
}

/// A harness verdict can be the stop hook of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Harness {
    /// Claude Code.
    Claude,
    /// OpenAI's Codex CLI.
    Codex,
    /// Cursor's agent.
    Cursor,
}

impl Harness {
    /// The name on verdict's command line and in the state database.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Codex => "codex",
            Harness::Cursor => "cursor",
        }
    }

    /// The hook timeout `verdict hook install` writes, in seconds: the harness's own default for
    /// command hooks (600 s for Claude Code and Codex), so that a real test suite has the time
    /// the harness allows; Cursor's hooks get 60 s.
    pub(crate) fn hook_timeout_secs(self) -> u64 {
        match self {
            Harness::Claude | Harness::Codex => 600,
            Harness::Cursor => 60,
        }
    }

    /// verdict's own deadline when `--deadline` is not given: just inside
    /// [`Harness::hook_timeout_secs`], so verdict answers before the harness kills the hook.
    pub(crate) fn default_deadline_secs(self) -> u64 {
        self.hook_timeout_secs() - ANSWER_MARGIN_SECS
    }

    /// The product's name, for messages.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Harness::Claude => "Claude Code",
            Harness::Codex => "Codex",
            Harness::Cursor => "Cursor",
        }
    }
}

/// Runs `verdict hook …` and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<u8> {
    match &args.command {
        HookCommand::Claude(stop_args) => Ok(stop(Harness::Claude, stop_args)),
        HookCommand::Codex(stop_args) => Ok(stop(Harness::Codex, stop_args)),
        HookCommand::Cursor(stop_args) => Ok(stop(Harness::Cursor, stop_args)),
        HookCommand::Install(install_args) => install::run(install_args),
    }
}

/// What the hook tells the harness.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    /// Let the agent stop, showing `message` to the user if there is one.
    Allow { message: Option<String> },
    /// Keep the agent working, with `reason` as its next instruction.
    Block { reason: String },
}

impl Answer {
    fn allow(message: impl Into<String>) -> Answer {
        Answer::Allow {
            message: Some(message.into()),
        }
    }

    /// The JSON object the harness reads on stdout.
    fn to_json(&self, harness: Harness) -> Value {
        match (self, harness) {
            (Answer::Block { reason }, Harness::Claude | Harness::Codex) => {
                json!({ "decision": "block", "reason": reason })
            }
            (Answer::Block { reason }, Harness::Cursor) => json!({ "followup_message": reason }),
            (Answer::Allow { message: Some(m) }, Harness::Claude | Harness::Codex) => {
                json!({ "systemMessage": m })
            }
            // Cursor's stop output has no field for the user; the message goes to stderr, which
            // Cursor shows in its hooks output.
            (Answer::Allow { .. }, _) => json!({}),
        }
    }
}

/// The stop hook: never fails, always answers, always exits 0.
fn stop(harness: Harness, args: &StopArgs) -> u8 {
    let started = Instant::now();
    let read = read_stdin(started + Duration::from_secs(args.deadline_secs(harness)));
    let answer =
        match std::panic::catch_unwind(AssertUnwindSafe(|| decide(harness, args, read, started))) {
            Ok(Ok(answer)) => answer,
            Ok(Err(error)) => Answer::allow(format!(
                "verdict hook: {error:#}; letting the agent stop (an error of verdict never blocks)"
            )),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_owned());
                Answer::allow(format!(
                    "verdict hook: verdict panicked ({what}); letting the agent stop (an error of \
                 verdict never blocks)"
                ))
            }
        };
    if let Answer::Allow { message: Some(m) } = &answer {
        let _ = writeln!(std::io::stderr(), "{m}");
    }
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", answer.to_json(harness));
    let _ = stdout.flush();
    0
}

/// All of stdin, or an error when it is not closed by `deadline` (a harness that never closes it
/// must not make verdict outlive the hook timeout). The reading thread is left behind then; the
/// process ends soon after.
fn read_stdin(deadline: Instant) -> std::io::Result<String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let read = std::io::stdin().read_to_string(&mut text).map(|_| text);
        let _ = sender.send(read);
    });
    let left = deadline.saturating_duration_since(Instant::now());
    receiver.recv_timeout(left).unwrap_or_else(|_| {
        Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "stdin was not closed before the deadline",
        ))
    })
}

/// What the hook needs from the harness's input.
#[derive(Debug, PartialEq, Eq)]
struct StopInput {
    /// The session (Claude Code, Codex) or conversation (Cursor) id.
    session: String,
    /// The project the harness names in its input (Cursor's first `workspace_roots`): fixed for
    /// the session.
    project: Option<PathBuf>,
    /// The session's working directory (`cwd` of Claude Code and Codex). Claude Code's follows
    /// the agent's `cd`, so it may be anywhere in the project, or outside it.
    cwd: Option<PathBuf>,
    /// Set when the harness says the agent did not complete (Cursor's `status` `aborted` or
    /// `error`): the user stopped it, or it crashed; verifying would only get in the way.
    not_completed: Option<String>,
    /// Set when the session cannot edit files (Claude Code's `permission_mode` `plan`): it is
    /// never told to fix code.
    read_only: bool,
}

/// Reads the harness's JSON. Unknown fields are ignored (harnesses add fields); the id is required.
fn parse_input(harness: Harness, text: &str) -> Result<StopInput> {
    // Cursor on Windows starts its payload with a byte-order mark.
    let text = text.trim_start_matches('\u{feff}');
    let value: Value = serde_json::from_str(text).with_context(|| {
        format!(
            "the hook input from {} is not JSON ({} bytes on stdin)",
            harness.title(),
            text.len()
        )
    })?;
    let Some(object) = value.as_object() else {
        bail!(
            "the hook input from {} is not a JSON object",
            harness.title()
        );
    };
    let string = |key: &str| object.get(key).and_then(Value::as_str);
    let (id_field, events): (&str, &[&str]) = match harness {
        Harness::Claude => ("session_id", &["Stop", "SubagentStop"]),
        Harness::Codex => ("session_id", &["Stop"]),
        Harness::Cursor => ("conversation_id", &["stop"]),
    };
    if let Some(event) = string("hook_event_name")
        && !events.contains(&event)
    {
        bail!(
            "`verdict hook {}` answers {}'s {} event, not `{event}`",
            harness.key(),
            harness.title(),
            events.join(" and ")
        );
    }
    let session = match string(id_field) {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => bail!(
            "the hook input from {} has no `{id_field}`",
            harness.title()
        ),
    };
    let project = match harness {
        Harness::Cursor => object
            .get("workspace_roots")
            .and_then(Value::as_array)
            .and_then(|roots| roots.first())
            .and_then(Value::as_str)
            .map(PathBuf::from),
        Harness::Claude | Harness::Codex => None,
    };
    let cwd = string("cwd").map(PathBuf::from);
    let not_completed = match harness {
        Harness::Cursor => string("status")
            .filter(|s| *s != "completed")
            .map(str::to_owned),
        Harness::Claude | Harness::Codex => None,
    };
    // Claude Code's plan mode: the agent proposes and edits nothing, so a failure is nothing it
    // could act on this turn.
    let read_only = string("permission_mode") == Some("plan");
    Ok(StopInput {
        session,
        project,
        cwd,
        not_completed,
        read_only,
    })
}

/// Reads the input, verifies, and decides.
fn decide(
    harness: Harness,
    args: &StopArgs,
    input: std::io::Result<String>,
    started: Instant,
) -> Result<Answer> {
    let input = input.context("failed to read the hook input on stdin")?;
    let input = parse_input(harness, &input)?;
    if input.not_completed.is_some() {
        return Ok(Answer::Allow { message: None });
    }
    if input.read_only {
        // Nothing is verified, so nothing is counted: the next turn that can edit is judged
        // afresh.
        return Ok(Answer::Allow { message: None });
    }
    let start = start_dir(harness, args, &input)?;
    // A directory that is not there is no project verdict could verify (a harness naming a
    // directory the agent removed, or a stale one). Said so, visibly: looking further would
    // create it (`.verdict/`) or say that no verifier applies, which is not what happened.
    match std::fs::metadata(&start.dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Ok(Answer::allow(format!(
                "verdict hook: {} ({}) is not a directory; letting the agent stop without \
                 verifying",
                start.dir.display(),
                start.named_by
            )));
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Answer::allow(format!(
                "verdict hook: {} ({}) does not exist; letting the agent stop without verifying",
                start.dir.display(),
                start.named_by
            )));
        }
        Err(error) => {
            return Err(error).with_context(|| {
                format!(
                    "failed to read {} ({})",
                    start.dir.display(),
                    start.named_by
                )
            });
        }
    }
    // The root is where verdict.toml is (looked for upwards, up to the repository root), else the
    // repository root, else the start itself: a stop from `tests/` verifies, and counts its
    // blocks in, the same project as a stop from the root.
    let config = config::discover(&start.dir).map_err(|error| anyhow!("{error}"))?;
    let root = config.dir.clone();
    let deadline = Duration::from_secs(args.deadline_secs(harness));
    let verified = match verify(&root, &config, started + deadline)? {
        Ok(verified) => verified,
        Err(Cut::Deadline) => {
            return Ok(Answer::allow(format!(
                "verdict hook: verification did not finish within its {}s deadline \
                 (--deadline); cancelled it and letting the agent stop without a verdict",
                args.deadline_secs(harness)
            )));
        }
        Err(Cut::NothingApplies) => {
            // Quiet for the user (a user-wide hook runs in every project); said on stderr.
            let _ = writeln!(
                std::io::stderr(),
                "verdict hook: no verifier applies to {}; `verdict list` shows why",
                root.display()
            );
            return Ok(Answer::Allow { message: None });
        }
        Err(Cut::Signal) => {
            return Ok(Answer::allow(
                "verdict hook: interrupted by a signal; stopped the verification and letting \
                 the agent stop without a verdict",
            ));
        }
    };
    let mut store = state::Store::open(&root.join(".verdict").join("state.db"))?;
    let max = args.max_blocks;
    let answer = store.update(harness.key(), &input.session, |session| {
        let Some(failure) = &verified.failure else {
            // A pass lets the agent stop and ends the chain.
            return (None, Answer::Allow { message: None });
        };
        let what = &verified.digest;
        if session.blocks >= max {
            let answer = Answer::allow(format!(
                "verdict: verification still fails after {} block{} (--max-blocks {max}); \
                 letting the agent stop. What fails:\n{what}",
                session.blocks,
                if session.blocks == 1 { "" } else { "s" }
            ));
            return (None, answer);
        }
        if session.last_failure.as_deref() == Some(failure.as_str()) {
            let answer = Answer::allow(format!(
                "verdict: the same failures as at the last block, so another round would not \
                 help; letting the agent stop. What fails:\n{what}"
            ));
            return (None, answer);
        }
        let next = state::Session {
            blocks: session.blocks + 1,
            last_failure: Some(failure.clone()),
        };
        let reason = format!(
            "verdict: the project's verification fails. Fix what it found, then finish.\n\n{what}"
        );
        (Some(next), Answer::Block { reason })
    })?;
    Ok(answer)
}

/// The environment variable in which Claude Code gives its hooks the project directory (where
/// the session started, whatever the agent `cd`s into since).
const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";

/// The directory the project is looked for from, and what named it (for messages).
struct Start {
    /// An absolute path.
    dir: PathBuf,
    /// `--dir`, `CLAUDE_PROJECT_DIR`, the hook input's `cwd`, …
    named_by: &'static str,
}

/// Where the project is looked for from, first found: `--dir`; the project the harness names
/// (`CLAUDE_PROJECT_DIR` for Claude Code, `workspace_roots` for Cursor), which stays put for
/// the session; the session's `cwd`, which in Claude Code follows the agent's `cd`; the current
/// directory.
fn start_dir(harness: Harness, args: &StopArgs, input: &StopInput) -> Result<Start> {
    let claude_project = match harness {
        Harness::Claude => std::env::var_os(CLAUDE_PROJECT_DIR)
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from),
        Harness::Codex | Harness::Cursor => None,
    };
    let (dir, named_by) = if let Some(dir) = &args.dir {
        (dir.clone(), "--dir")
    } else if let Some(dir) = claude_project {
        (dir, CLAUDE_PROJECT_DIR)
    } else if let Some(dir) = &input.project {
        (dir.clone(), "the hook input's `workspace_roots`")
    } else if let Some(dir) = &input.cwd {
        (dir.clone(), "the hook input's `cwd`")
    } else {
        let dir = std::env::current_dir().context("failed to read the current directory")?;
        (dir, "the current directory")
    };
    // A relative path (`"cwd": "."`) is taken from the hook's own working directory, which the
    // harness sets to the project.
    let dir = std::path::absolute(&dir)
        .with_context(|| format!("failed to resolve {}", dir.display()))?;
    Ok(Start { dir, named_by })
}

/// A finished verification.
struct Verified {
    /// The digest of every verification.
    digest: String,
    /// The identity of the failures (`None` on a pass): a hash of each failing verifier's name,
    /// outcome, error and diagnostic fingerprints.
    failure: Option<String>,
}

/// Why a verification was cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// `--deadline` came first.
    Deadline,
    /// verdict got SIGTERM or SIGINT.
    Signal,
    /// No verifier applies to the project (and verdict.toml enables none).
    NothingApplies,
}

/// Runs the project's verification as `verdict run` would (its selection, cache and budget),
/// cancelled at `deadline` or on SIGTERM / SIGINT.
fn verify(root: &Path, config: &Config, deadline: Instant) -> Result<Result<Verified, Cut>> {
    let known = registry::all(config, root).map_err(|e| anyhow!("{e:#}"))?;
    // Detection reads the project's files only, never the run directory: the selection comes
    // first, so a project no verifier applies to (a user-wide hook runs in every project) is
    // left as it was, without a `.verdict/` nor a run directory per stop.
    let selected = run::select(
        known,
        &config.workspace(root),
        config,
        &config.run.only,
        &config.run.skip,
    )?;
    if selected.is_empty() {
        // Nothing to verify is no error: a hook installed for the user runs in every project.
        return Ok(Err(Cut::NothingApplies));
    }
    let run_dir = run::new_run_dir(root)?;
    let workspace = config.workspace(root).with_run_dir(&run_dir);
    let entries: Vec<Entry> = selected.iter().map(|k| run::entry(k, config)).collect();
    pipeline::validate(&entries).map_err(|e| anyhow!("{e}"))?;
    let interrupted = Arc::new(AtomicBool::new(false));
    let options = pipeline::Options {
        jobs: config.run.jobs.unwrap_or(0),
        fail_fast: config.run.fail_fast,
        cache: Some(Cache::open(root.join(".verdict").join("cache"))),
        run_all: false,
        failed_first: false,
        interrupted: Some(Arc::clone(&interrupted)),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    let verifications = runtime.block_on(async {
        let runner = ProcessRunner::new().with_grace(Duration::from_millis(500));
        let cancel = runner.cancel_handle();
        let runner: Arc<dyn Runner> = Arc::new(runner);
        let mut on_event = |_: Event<'_>| {};
        let run = pipeline::run(&entries, &workspace, runner, &options, &mut on_event);
        tokio::pin!(run);
        let left = deadline.saturating_duration_since(Instant::now());
        // A harness that gives up on the hook kills it (SIGTERM, or SIGINT from a terminal):
        // the tools go too, rather than running on in their own process groups.
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        let terminated = async {
            match term.as_mut() {
                Some(term) => {
                    term.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        let cut = tokio::select! {
            result = &mut run => return Ok(result),
            () = tokio::time::sleep(left) => Cut::Deadline,
            () = terminated => Cut::Signal,
            _ = tokio::signal::ctrl_c() => Cut::Signal,
        };
        // Nothing new starts, and what runs is killed at once (cancelled twice: no grace).
        interrupted.store(true, Ordering::SeqCst);
        cancel.cancel();
        cancel.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(2), &mut run).await;
        Err(cut)
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
    let verifications = match verifications {
        Ok(verifications) => verifications,
        Err(cut) => return Ok(Err(cut)),
    };
    let verifications = verifications.map_err(|e| anyhow!("{e}"))?;
    let budget = config.run.budget.unwrap_or(DEFAULT_BUDGET);
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
    let digest = digest::render(&inputs, &digest::Options { budget }).text;
    let failure = (overall(&verifications) != Outcome::Passed).then(|| failure_key(&verifications));
    Ok(Ok(Verified { digest, failure }))
}

/// The identity of a set of failures: which verifiers did not pass, how, and the fingerprints
/// of what they found (with multiplicity), independent of order and of line numbers.
fn failure_key(verifications: &[Verification]) -> String {
    let mut parts: Vec<String> = verifications
        .iter()
        .filter(|v| v.outcome() != Outcome::Passed)
        .map(|v| {
            let mut prints: Vec<String> = v
                .report
                .diagnostics
                .iter()
                .map(|d| d.fingerprint.to_string())
                .collect();
            prints.sort();
            format!(
                "{}\0{}\0{}\0{}",
                v.verifier,
                v.outcome().as_str(),
                v.report.error.as_deref().unwrap_or_default(),
                prints.join(",")
            )
        })
        .collect();
    parts.sort();
    blake3::hash(parts.join("\n").as_bytes())
        .to_hex()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// verdict answers inside the timeout its install writes, with time left to stop the
    /// verifiers: 590 s of Claude Code's and Codex's 600 s, 50 s of Cursor's 60 s.
    #[test]
    fn the_default_deadline_is_just_inside_the_written_timeout() {
        for (harness, timeout, deadline) in [
            (Harness::Claude, 600, 590),
            (Harness::Codex, 600, 590),
            (Harness::Cursor, 60, 50),
        ] {
            assert_eq!(harness.hook_timeout_secs(), timeout);
            assert_eq!(harness.default_deadline_secs(), deadline);
        }
    }

    /// Checks the session, the directory the project is looked for from (the harness's project,
    /// else the `cwd`) and the not-completed status read from `input`.
    fn check(harness: Harness, input: &str, expect: Option<(&str, Option<&str>, Option<&str>)>) {
        let parsed = parse_input(harness, input).ok();
        let got = parsed.as_ref().map(|p| {
            (
                p.session.as_str(),
                p.project
                    .as_deref()
                    .or(p.cwd.as_deref())
                    .and_then(Path::to_str),
                p.not_completed.as_deref(),
            )
        });
        assert_eq!(got, expect, "{input}");
    }

    #[test]
    fn inputs_of_each_harness() {
        check(
            Harness::Claude,
            r#"{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false}"#,
            Some(("abc", Some("/p"), None)),
        );
        check(
            Harness::Claude,
            r#"{"session_id":"abc","hook_event_name":"PreToolUse"}"#,
            None,
        );
        check(Harness::Claude, r#"{"cwd":"/p"}"#, None);
        check(
            Harness::Codex,
            r#"{"session_id":"s","turn_id":"t","cwd":"/p","hook_event_name":"Stop","model":"m","stop_hook_active":true,"last_assistant_message":"done"}"#,
            Some(("s", Some("/p"), None)),
        );
        check(
            Harness::Cursor,
            "\u{feff}{\"conversation_id\":\"c\",\"generation_id\":\"g\",\"hook_event_name\":\"stop\",\"workspace_roots\":[\"/w\"],\"status\":\"completed\",\"loop_count\":0}",
            Some(("c", Some("/w"), None)),
        );
        check(
            Harness::Cursor,
            r#"{"conversation_id":"c","workspace_roots":["/w","/x"],"cwd":"/w/sub","status":"completed"}"#,
            Some(("c", Some("/w"), None)),
        );
        check(
            Harness::Cursor,
            r#"{"conversation_id":"c","status":"aborted","loop_count":1}"#,
            Some(("c", None, Some("aborted"))),
        );
        check(Harness::Cursor, "[]", None);
        check(Harness::Codex, "not json", None);
    }

    #[test]
    fn answers_in_each_harness_format() {
        let block = Answer::Block { reason: "r".into() };
        let note = Answer::allow("m");
        let quiet = Answer::Allow { message: None };
        assert_eq!(
            block.to_json(Harness::Claude),
            json!({"decision": "block", "reason": "r"})
        );
        assert_eq!(
            block.to_json(Harness::Codex),
            json!({"decision": "block", "reason": "r"})
        );
        assert_eq!(
            block.to_json(Harness::Cursor),
            json!({"followup_message": "r"})
        );
        assert_eq!(note.to_json(Harness::Claude), json!({"systemMessage": "m"}));
        assert_eq!(note.to_json(Harness::Cursor), json!({}));
        assert_eq!(quiet.to_json(Harness::Codex), json!({}));
    }
}
