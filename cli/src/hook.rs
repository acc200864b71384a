//! `verdict hook <claude|codex|cursor|gemini>`: verdict as the stop hook of a coding agent that
//! loops by itself (issue 4, item 9; issue 11), and `verdict hook install`, which writes that hook
//! into the harness's settings.
//!
//! When the agent wants to stop, the harness runs the hook with a JSON object on stdin. verdict
//! runs the project's verification (the same selection, pipeline and digest as `verdict run`)
//! and answers in the harness's own format: a failure keeps the agent working, with the digest as
//! its next instruction; a pass lets it stop. docs/hooks.md gives each harness's exact fields.
//!
//! What makes it a hook a team can leave on:
//! - a session's own failures only: the failures of the tree a session began on (its baseline,
//!   by the harness's session id) never block that session; only new ones do, matched by
//!   fingerprint as `verdict run --baseline` matches them. The session-start hook (`--event
//!   session-start`) records that tree, answers at once and has it verified in the background,
//!   in a copy ([`start`], [`copy`]); a stop waits for that within its deadline. Its failures are
//!   known when that tree was verified, and when they are not, every failure counts (fail
//!   closed) until the agent is first let go, whose failures are the baseline from then on;
//! - a stop with no change to the tree since a verification answers from it at once;
//! - an agent that cannot edit (plan mode, a read-only subagent) is never told to fix code, and a
//!   subagent's blocks are counted apart from its parent's (by `agent_id`);
//! - an agent session of `verdict loop` is let go at once: the loop verifies each attempt itself;
//! - the answer stays within what every harness takes whole, ending with the full log's path.
//!
//! Three rules keep a harness from looping for ever, whatever it does itself:
//! - verdict counts its blocks per (harness, chain) in `.verdict/state.db`; after
//!   `--max-blocks` (default 3) it lets the agent stop and shows what still fails;
//! - the same failures (the same fingerprints) as at the previous block let the agent stop: the
//!   last round changed nothing verdict can see;
//! - fail open: an error of verdict itself (unreadable input, a bad verdict.toml, a locked
//!   database, a panic) or its own deadline (`--deadline`, below the harness's hook timeout) lets
//!   the agent stop with a visible message. The hook always exits 0 with a JSON answer.
//!
//! A pass, and every time verdict lets the agent stop, ends the chain of blocks: the next stop in
//! the session (a new request from the user) starts counting afresh.
//!
//! `--event post-edit` is another kind of hook, run after each edit rather than at the stop: see
//! [`post_edit`].

mod baseline;
mod claude_version;
mod copy;
mod fit;
mod install;
mod post_edit;
mod start;
mod state;
mod subagent;
mod verify;

use std::io::{Read, Write};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use verdict_core::agent_loop::agent::LOOP_SESSION_ENV;
use verdict_core::{Outcome, Verification};

use crate::config;
use crate::exit::ExitCode;
use baseline::SessionBaseline;
use verify::Cut;

/// How much of the harness's hook timeout verdict leaves itself to stop the verifiers' process
/// groups and answer, in seconds.
pub(crate) const ANSWER_MARGIN_SECS: u64 = 10;

/// Blocks per chain by default.
const DEFAULT_MAX_BLOCKS: u32 = 3;

/// The session-start hook's timeout as installed, in seconds. The hook answers at once; only the
/// first snapshot of a large tree (every file hashed once) takes seconds.
const START_TIMEOUT_SECS: u64 = 30;

const EXAMPLES: &str = "\
Examples:
  verdict hook install claude                 # .claude/settings.json of this repository
  verdict hook install claude --scope local   # .claude/settings.local.json (not committed)
  verdict hook install codex --scope user     # ~/.codex/hooks.json
  verdict hook install cursor
  verdict hook install gemini                 # .gemini/settings.json
  verdict hook install claude --post-edit     # also the fast check after each edit
  echo '{\"session_id\":\"s1\",\"cwd\":\".\",\"hook_event_name\":\"Stop\"}' | verdict hook claude
  echo '{\"session_id\":\"s1\",\"cwd\":\".\",\"hook_event_name\":\"SessionStart\"}' \
    | verdict hook claude --event session-start

The hook always exits 0 and prints one JSON object: it blocks (keeps the agent working) only
when the project's verification finds failures the session did not begin with; any error of
verdict itself lets the agent stop with a message. `hook install` writes both events: the
session-start hook records the tree the session began on, answers at once and verifies that tree
in the background (in a copy of it), so that what failed before the session is told from what the
session broke. With --post-edit it also writes the post-edit hook (`--event post-edit`): after
each edit, tsc, eslint and clippy (and the project's `fast = true` verifiers) run, and the edited
files' diagnostics are added to the agent's context, within --budget tokens (150); it never
blocks. docs/hooks.md describes each harness's settings and fields.";

/// Arguments of `verdict hook`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: HookCommand,
}

#[derive(clap::Subcommand)]
enum HookCommand {
    /// Claude Code's Stop and SubagentStop hook: `{"decision":"block","reason":…}` on new
    /// failures, what fails as `hookSpecificOutput.additionalContext`
    Claude(StopArgs),
    /// Codex's Stop hook: `{"decision":"block","reason":…}` on new failures
    Codex(StopArgs),
    /// Cursor's stop hook: `{"followup_message":…}` on new failures
    Cursor(StopArgs),
    /// Gemini CLI's AfterAgent hook: `{"decision":"deny","reason":…}` on new failures
    Gemini(StopArgs),
    /// Write the stop and session-start hooks into a harness's settings file (idempotent)
    Install(install::Args),
}

/// Arguments of the stop hooks.
#[derive(clap::Args)]
struct StopArgs {
    /// Stop verifying after this many seconds and let the agent stop; keep it below the
    /// harness's hook timeout [default: 590 for Claude Code, Codex and Gemini CLI, 50 for
    /// Cursor: 10 s inside the timeout `verdict hook install` writes]
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

    /// The harness's event this hook answers
    #[arg(long, value_enum, default_value_t = Event::Stop)]
    event: Event,

    /// The answer's token budget [default: `[run] budget` of verdict.toml, else 500, for the
    /// stop; 150 for post-edit, whose context is added after every edit]
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u64).range(1..))]
    budget: Option<u64>,

    /// With `--event session-start`: verify TREE, a snapshot of the project, in a copy of it,
    /// and keep the result for the sessions that begin on it (what the session-start hook runs
    /// in the background)
    #[arg(long, value_name = "TREE", hide = true)]
    verify_start: Option<String>,
}

/// The events `verdict hook <harness>` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Event {
    /// The agent wants to stop (Claude Code's and Codex's `Stop` and `SubagentStop`, Cursor's
    /// `stop`, Gemini CLI's `AfterAgent`): verify, and block on the session's own failures
    Stop,
    /// A session begins (`SessionStart`, Cursor's `sessionStart`): record the tree it begins
    /// on, and verify it unless a verification of it is remembered
    SessionStart,
    /// The agent edited files (Claude Code's and Codex's `PostToolUse`, Gemini CLI's
    /// `AfterTool`): run the fast verifiers and add the edited files' diagnostics to its context,
    /// never blocking
    PostEdit,
}

impl Event {
    /// The value of `--event`.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Event::Stop => "stop",
            Event::SessionStart => "session-start",
            Event::PostEdit => "post-edit",
        }
    }

    /// The harness's own names of the event, as its settings and hook input spell them.
    pub(crate) fn names(self, harness: Harness) -> &'static [&'static str] {
        match (self, harness) {
            (Event::Stop, Harness::Claude | Harness::Codex) => &["Stop", "SubagentStop"],
            (Event::Stop, Harness::Cursor) => &["stop"],
            (Event::Stop, Harness::Gemini) => &["AfterAgent"],
            (Event::SessionStart, Harness::Cursor) => &["sessionStart"],
            (Event::SessionStart, _) => &["SessionStart"],
            (Event::PostEdit, Harness::Claude | Harness::Codex) => &["PostToolUse"],
            (Event::PostEdit, Harness::Gemini) => &["AfterTool"],
            (Event::PostEdit, Harness::Cursor) => &["afterFileEdit"],
        }
    }
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
    /// Google's Gemini CLI.
    Gemini,
}

impl Harness {
    /// The name on verdict's command line and in the state database.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Codex => "codex",
            Harness::Cursor => "cursor",
            Harness::Gemini => "gemini",
        }
    }

    /// The hook timeout `verdict hook install` writes, in seconds: the harness's own default for
    /// command hooks (600 s for Claude Code and Codex), so that a real test suite has the time
    /// the harness allows; Gemini CLI's default (60 s) is too short for a test suite, so it gets
    /// 600 s written too; Cursor's hooks get 60 s.
    pub(crate) fn hook_timeout_secs(self) -> u64 {
        match self {
            Harness::Claude | Harness::Codex | Harness::Gemini => 600,
            Harness::Cursor => 60,
        }
    }

    /// verdict's own deadline when `--deadline` is not given: just inside
    /// [`Harness::hook_timeout_secs`], so verdict answers before the harness kills the hook.
    pub(crate) fn default_deadline_secs(self) -> u64 {
        self.hook_timeout_secs() - ANSWER_MARGIN_SECS
    }

    /// The timeout `verdict hook install` writes for the session-start hook, in seconds: it
    /// answers at once, leaving the verification of the start tree to the background.
    pub(crate) fn start_timeout_secs(self) -> u64 {
        START_TIMEOUT_SECS
    }

    /// The product's name, for messages.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Harness::Claude => "Claude Code",
            Harness::Codex => "Codex",
            Harness::Cursor => "Cursor",
            Harness::Gemini => "Gemini CLI",
        }
    }

    /// The environment variable in which the harness gives its hooks the project directory
    /// (where the session started, whatever the agent `cd`s into since).
    fn project_env(self) -> Option<&'static str> {
        match self {
            Harness::Claude => Some("CLAUDE_PROJECT_DIR"),
            Harness::Gemini => Some("GEMINI_PROJECT_DIR"),
            Harness::Codex | Harness::Cursor => None,
        }
    }
}

/// Runs `verdict hook …` and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    match &args.command {
        HookCommand::Claude(stop_args) => Ok(hook(Harness::Claude, stop_args)),
        HookCommand::Codex(stop_args) => Ok(hook(Harness::Codex, stop_args)),
        HookCommand::Cursor(stop_args) => Ok(hook(Harness::Cursor, stop_args)),
        HookCommand::Gemini(stop_args) => Ok(hook(Harness::Gemini, stop_args)),
        HookCommand::Install(install_args) => install::run(install_args),
    }
}

/// The hook of `args.event`.
fn hook(harness: Harness, args: &StopArgs) -> ExitCode {
    match args.event {
        Event::Stop => stop(harness, args),
        Event::SessionStart => start::session_start(harness, args),
        Event::PostEdit => post_edit::run(harness, args),
    }
}

/// What the hook tells the harness.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    /// Let the agent stop, showing `message` to the user if there is one.
    Allow { message: Option<String> },
    /// Keep the agent working: `instruction`, then `details`, is its next prompt.
    Block {
        /// What the agent is to do: verdict's own sentence.
        instruction: String,
        /// What fails: the digest, ending with where the full log is; empty when the answer had
        /// to be cut inside the instruction.
        details: String,
        /// The hook point of Claude Code that asked (`Stop` or `SubagentStop`), which its
        /// hook-specific output names.
        point: &'static str,
    },
}

impl Answer {
    fn allow(message: impl Into<String>) -> Answer {
        Answer::Allow {
            message: Some(message.into()),
        }
    }

    /// A block with `text`, which [`fit::answer`] composed of `instruction`, a blank line and
    /// the details.
    fn block(instruction: &str, text: String, point: &'static str) -> Answer {
        let details = text
            .strip_prefix(instruction)
            .and_then(|rest| rest.strip_prefix("\n\n"));
        let (instruction, details) = match details {
            Some(details) => (instruction.to_owned(), details.to_owned()),
            // Cut inside the instruction (too long a prefix): the text is all instruction.
            None => (text, String::new()),
        };
        Answer::Block {
            instruction,
            details,
            point,
        }
    }

    /// The JSON object the harness reads on stdout.
    fn to_json(&self, harness: Harness) -> Value {
        match (self, harness) {
            // Claude Code shows a block's reason as a hook error and `additionalContext` on Stop
            // and SubagentStop as feedback, and gives the model both: the reason is verdict's
            // instruction, the feedback what fails.
            (
                Answer::Block {
                    instruction,
                    details,
                    point,
                },
                Harness::Claude,
            ) if !details.is_empty() => json!({
                "decision": "block",
                "reason": instruction,
                "hookSpecificOutput": { "hookEventName": point, "additionalContext": details },
            }),
            (Answer::Block { .. }, Harness::Claude | Harness::Codex) => {
                json!({ "decision": "block", "reason": self.prompt() })
            }
            // Gemini CLI's AfterAgent: `deny` rejects the response and sends the reason to the
            // agent as a new prompt.
            (Answer::Block { .. }, Harness::Gemini) => {
                json!({ "decision": "deny", "reason": self.prompt() })
            }
            (Answer::Block { .. }, Harness::Cursor) => {
                json!({ "followup_message": self.prompt() })
            }
            (
                Answer::Allow { message: Some(m) },
                Harness::Claude | Harness::Codex | Harness::Gemini,
            ) => {
                json!({ "systemMessage": m })
            }
            // Cursor's stop output has no field for the user; the message goes to stderr, which
            // Cursor shows in its hooks output.
            (Answer::Allow { .. }, _) => json!({}),
        }
    }

    /// A block's whole text, as one prompt: the instruction, a blank line and the details.
    fn prompt(&self) -> String {
        match self {
            Answer::Block {
                instruction,
                details,
                ..
            } if !details.is_empty() => format!("{instruction}\n\n{details}"),
            Answer::Block { instruction, .. } => instruction.clone(),
            Answer::Allow { message } => message.clone().unwrap_or_default(),
        }
    }
}

/// The stop hook: never fails, always answers, always exits 0.
fn stop(harness: Harness, args: &StopArgs) -> ExitCode {
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
    ExitCode::Success
}

/// The most bytes of hook input verdict reads. A harness sends a small JSON object (ids, paths,
/// at most the agent's last message: kilobytes); anything larger is refused rather than held in
/// memory whole.
pub(crate) const MAX_INPUT: u64 = 8 * 1024 * 1024;

/// All of stdin, or an error when it is not closed by `deadline` (a harness that never closes it
/// must not make verdict outlive the hook timeout) or holds more than [`MAX_INPUT`] bytes. The
/// reading thread is left behind on a time-out; the process ends soon after.
fn read_stdin(deadline: Instant) -> std::io::Result<String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(read_bounded(std::io::stdin().lock(), MAX_INPUT));
    });
    let left = deadline.saturating_duration_since(Instant::now());
    receiver.recv_timeout(left).unwrap_or_else(|_| {
        Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "stdin was not closed before the deadline",
        ))
    })
}

/// At most `limit` bytes of `input` as text; more is an error that says so, after reading no
/// more than one byte past the limit.
fn read_bounded(input: impl Read, limit: u64) -> std::io::Result<String> {
    let mut text = String::new();
    input.take(limit + 1).read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "the input is larger than {} MiB, the most verdict reads (a harness sends a few \
                 kilobytes of JSON)",
                limit / (1024 * 1024)
            ),
        ));
    }
    Ok(text)
}

/// What the hook needs from the harness's input.
#[derive(Debug, PartialEq, Eq)]
struct StopInput {
    /// The session (Claude Code, Codex, Gemini CLI) or conversation (Cursor) id.
    session: String,
    /// A subagent's stop (Claude Code's `SubagentStop`): its `agent_id` (`None` when the
    /// harness gives none) and `agent_type`.
    subagent: Option<Subagent>,
    /// The project the harness names in its input (Cursor's first `workspace_roots`): fixed for
    /// the session.
    project: Option<PathBuf>,
    /// The session's working directory (`cwd` of Claude Code, Codex and Gemini CLI). Claude
    /// Code's follows the agent's `cd`, so it may be anywhere in the project, or outside it.
    cwd: Option<PathBuf>,
    /// Set when the harness says the agent did not complete (Cursor's `status` `aborted` or
    /// `error`): the user stopped it, or it crashed; verifying would only get in the way.
    not_completed: Option<String>,
    /// Set when the session cannot edit files (Claude Code's `permission_mode` `plan`): it is
    /// never told to fix code.
    read_only: bool,
}

/// The subagent a stop is of.
#[derive(Debug, PartialEq, Eq)]
struct Subagent {
    id: Option<String>,
    kind: Option<String>,
}

impl StopInput {
    /// Claude Code's hook point that asked: `SubagentStop` for a subagent's stop, else `Stop`.
    fn point(&self) -> &'static str {
        if self.subagent.is_some() {
            "SubagentStop"
        } else {
            "Stop"
        }
    }

    /// What the blocks are counted by: the session, or a subagent of it apart from the parent.
    fn chain(&self) -> String {
        match &self.subagent {
            None => self.session.clone(),
            Some(Subagent { id: Some(id), .. }) => format!("{}/agent/{id}", self.session),
            Some(Subagent { id: None, .. }) => format!("{}/agent", self.session),
        }
    }
}

/// The JSON object a harness sent on stdin.
fn input_object(harness: Harness, text: &str) -> Result<serde_json::Map<String, Value>> {
    // Cursor on Windows starts its payload with a byte-order mark.
    let text = text.trim_start_matches('\u{feff}');
    let value: Value = serde_json::from_str(text).with_context(|| {
        format!(
            "the hook input from {} is not JSON ({} bytes on stdin)",
            harness.title(),
            text.len()
        )
    })?;
    match value {
        Value::Object(object) => Ok(object),
        _ => bail!(
            "the hook input from {} is not a JSON object",
            harness.title()
        ),
    }
}

/// The input's `cwd`: `None` when it is absent, `null` or empty. Any other value that is not a
/// string is an error: taking the hook's own directory instead would verify another tree.
fn cwd_of(harness: Harness, object: &serde_json::Map<String, Value>) -> Result<Option<PathBuf>> {
    match object.get("cwd") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(cwd)) if cwd.is_empty() => Ok(None),
        Some(Value::String(cwd)) => Ok(Some(PathBuf::from(cwd))),
        Some(other) => bail!(
            "the hook input from {} has a `cwd` that is not a string ({}), so the directory the \
             agent works in is unknown",
            harness.title(),
            json_type(other)
        ),
    }
}

/// The name of a JSON value's type, for messages.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reads the harness's JSON for `event`. Unknown fields are ignored (harnesses add fields); the id
/// is required.
fn parse_input(harness: Harness, event_kind: Event, text: &str) -> Result<StopInput> {
    let object = &input_object(harness, text)?;
    let string = |key: &str| object.get(key).and_then(Value::as_str);
    let id_field = match harness {
        Harness::Claude | Harness::Codex | Harness::Gemini => "session_id",
        Harness::Cursor => "conversation_id",
    };
    let events = event_kind.names(harness);
    let event = string("hook_event_name");
    if let Some(event) = event
        && !events.contains(&event)
    {
        bail!(
            "`verdict hook {} --event {}` answers {}'s {} event, not `{event}`",
            harness.key(),
            event_kind.key(),
            harness.title(),
            events.join(" and ")
        );
    }
    // Cursor's stop names the conversation, which its sessionStart gives too; its own
    // `session_id` is the fallback.
    let fallback = (harness == Harness::Cursor && event_kind == Event::SessionStart)
        .then(|| string("session_id"))
        .flatten();
    let session = match string(id_field).or(fallback) {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => bail!(
            "the hook input from {} has no `{id_field}`",
            harness.title()
        ),
    };
    let subagent = (event == Some("SubagentStop")).then(|| Subagent {
        id: string("agent_id")
            .filter(|id| !id.is_empty())
            .map(str::to_owned),
        kind: string("agent_type")
            .filter(|t| !t.is_empty())
            .map(str::to_owned),
    });
    let project = match harness {
        Harness::Cursor => object
            .get("workspace_roots")
            .and_then(Value::as_array)
            .and_then(|roots| roots.first())
            .and_then(Value::as_str)
            .map(PathBuf::from),
        Harness::Claude | Harness::Codex | Harness::Gemini => None,
    };
    let cwd = cwd_of(harness, object)?;
    let not_completed = match harness {
        Harness::Cursor => string("status")
            .filter(|s| *s != "completed")
            .map(str::to_owned),
        Harness::Claude | Harness::Codex | Harness::Gemini => None,
    };
    // Claude Code's plan mode: the agent proposes and edits nothing, so a failure is nothing it
    // could act on this turn.
    let read_only = string("permission_mode") == Some("plan");
    Ok(StopInput {
        session,
        subagent,
        project,
        cwd,
        not_completed,
        read_only,
    })
}

/// The answer to a stop whose start directory is not a directory or is not there; `None` when
/// it is one.
fn missing_start(start: &Start) -> Result<Option<Answer>> {
    // A directory that is not there is no project verdict could verify (a harness naming a
    // directory the agent removed, or a stale one). Said so, visibly: looking further would
    // create it (`.verdict/`) or say that no verifier applies, which is not what happened.
    match std::fs::metadata(&start.dir) {
        Ok(meta) if meta.is_dir() => Ok(None),
        Ok(_) => Ok(Some(Answer::allow(format!(
            "verdict hook: {} ({}) is not a directory; letting the agent stop without \
                 verifying",
            start.dir.display(),
            start.named_by
        )))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Ok(Some(Answer::allow(format!(
                "verdict hook: {} ({}) does not exist; letting the agent stop without verifying",
                start.dir.display(),
                start.named_by
            ))))
        }
        Err(error) => Err(error).with_context(|| {
            format!(
                "failed to read {} ({})",
                start.dir.display(),
                start.named_by
            )
        }),
    }
}

/// The answer to a stop that is let go without verifying anything, whatever the project: an
/// agent that did not complete, an attempt of `verdict loop`, a session that cannot edit.
fn let_go_unverified(input: &StopInput) -> Option<Answer> {
    if input.not_completed.is_some() {
        return Some(Answer::Allow { message: None });
    }
    if std::env::var_os(LOOP_SESSION_ENV).is_some_and(|v| !v.is_empty()) {
        // `verdict loop` verifies each attempt of its agent itself, after the agent stops.
        let _ = writeln!(
            std::io::stderr(),
            "verdict hook: inside a `verdict loop` attempt ({LOOP_SESSION_ENV} is set); the \
             loop verifies it, so the hook lets the agent stop"
        );
        return Some(Answer::Allow { message: None });
    }
    // Nothing is verified, so nothing is counted: the next turn that can edit is judged afresh.
    input.read_only.then_some(Answer::Allow { message: None })
}

/// Reads the input, verifies, and decides.
fn decide(
    harness: Harness,
    args: &StopArgs,
    input: std::io::Result<String>,
    started: Instant,
) -> Result<Answer> {
    let input = input.context("failed to read the hook input on stdin")?;
    let input = parse_input(harness, Event::Stop, &input)?;
    if let Some(answer) = let_go_unverified(&input) {
        return Ok(answer);
    }
    let start = start_dir(harness, args, &input)?;
    if let Some(answer) = missing_start(&start)? {
        return Ok(answer);
    }
    // The root is where verdict's configuration is (looked for upwards, up to the repository
    // root), else the repository root, else the start itself: a stop from `tests/` verifies, and
    // counts its blocks in, the same project as a stop from the root.
    let config = config::discover(&start.dir).map_err(|error| anyhow!("{error}"))?;
    let root = config.project_dir().to_path_buf();
    if read_only_subagent(harness, &input, &root) {
        // It reports to its parent, which can edit, and whose own stop is verified.
        return Ok(Answer::Allow { message: None });
    }
    let selected = verify::select(&root, &config)?;
    if selected.is_empty() {
        // Quiet for the user (a user-wide hook runs in every project); said on stderr.
        let _ = writeln!(
            std::io::stderr(),
            "verdict hook: no verifier applies to {}; `verdict list` shows why",
            root.display()
        );
        return Ok(Answer::Allow { message: None });
    }
    let mut store = state::Store::open(&verdict_core::paths::state_db(&root))?;
    let tree = verify::tree_id(&root);
    let deadline = started + Duration::from_secs(args.deadline_secs(harness));
    let mut verifications = match verified(
        &mut store,
        &root,
        tree.as_deref(),
        deadline,
        harness,
        args,
        |deadline| verify::run(&root, &config, &selected, deadline),
    )? {
        Ok(verifications) => verifications,
        Err(answer) => return Ok(answer),
    };
    // The failures of the tree the session began on are its baseline; a subagent's stops share
    // their session's. Until it is known, nothing is set aside.
    let (found, start_late) = session_baseline(
        &mut store,
        harness,
        &input.session,
        (&root, tree.as_deref()),
        &verifications,
        deadline,
    )?;
    let (unknown, first_check) = (
        found.is_none(),
        found.as_ref().is_some_and(|f| f.first_check),
    );
    let baseline = found.map(|f| f.baseline).unwrap_or_default();
    let (known, old_errors) = baseline.set_aside(&mut verifications);
    let new_failures = verifications
        .iter()
        .zip(&old_errors)
        .any(|(v, old)| v.outcome() != Outcome::Passed && !old);
    let flag = args.budget.and_then(|b| usize::try_from(b).ok());
    let budget = crate::budget::resolve(flag, config.run.budget);
    // Without the start's failures, the first time the agent is let go, what fails then is kept
    // as the session's baseline (what failed at its first check): it was shown, and the later
    // turns of the session are not blocked on it again.
    let first_failures = unknown.then(|| SessionBaseline::of(&verifications));
    let stop = Stop {
        verifications: &verifications,
        old_errors: &old_errors,
        known,
        unknown,
        start_late,
        first_check,
        new_failures,
        max_blocks: args.max_blocks,
        budget,
        root: &root,
        point: input.point(),
    };
    let answer = store.update(harness.key(), &input.chain(), |session| {
        stop.answer(session)
    })?;
    if let (Some(first), Answer::Allow { .. }) = (first_failures, &answer) {
        let json = serde_json::to_string(&first).context("failed to encode a baseline")?;
        store.keep_baseline(harness.key(), &input.session, &json)?;
    }
    Ok(answer)
}

/// Whether the stop is a Claude Code subagent's whose kind cannot edit the project.
fn read_only_subagent(harness: Harness, input: &StopInput, root: &Path) -> bool {
    matches!(
        &input.subagent,
        Some(Subagent { kind: Some(kind), .. })
            if harness == Harness::Claude && subagent::is_read_only(kind, root)
    )
}

/// What one stop found, against which its session's chain of blocks is judged.
struct Stop<'a> {
    verifications: &'a [Verification],
    /// For each verification, whether its failure was there when the session began.
    old_errors: &'a [bool],
    /// How many failures are set aside as the session's baseline.
    known: u64,
    /// Whether what failed before the session is not known (nothing is set aside).
    unknown: bool,
    /// Whether the verification of the tree the session began on was still running at the
    /// deadline (so `unknown`).
    start_late: bool,
    /// Whether this stop kept the session's baseline.
    first_check: bool,
    new_failures: bool,
    max_blocks: u32,
    budget: usize,
    root: &'a Path,
    /// Claude Code's hook point of this stop, `Stop` or `SubagentStop`.
    point: &'static str,
}

impl Stop<'_> {
    /// The answer to the agent, and the chain's next state when this stop blocks.
    fn answer(&self, session: &state::Session) -> (Option<state::Session>, Answer) {
        let (known, max) = (self.known, self.max_blocks);
        if !self.new_failures {
            if self.known > 0 {
                let _ = writeln!(
                    std::io::stderr(),
                    "verdict hook: {known} failure{} {} there when this session began; set \
                 aside for this session{}",
                    if self.known == 1 { "" } else { "s" },
                    if self.known == 1 { "was" } else { "were" },
                    if self.first_check {
                        " (its baseline, kept now)"
                    } else {
                        ""
                    },
                );
            }
            // A pass (of what is new) lets the agent stop and ends the chain.
            return (None, Answer::Allow { message: None });
        }
        let shown: Vec<Verification> = self
            .verifications
            .iter()
            .zip(self.old_errors)
            .filter(|(_, old)| !**old)
            .map(|(v, _)| v.clone())
            .collect();
        let failure = failure_key(&shown);
        let set_aside = if self.start_late {
            " (the verification of the tree this session began on had not finished by the \
             deadline, so what failed before this session is not known and every failure counts)"
                .to_owned()
        } else if self.unknown {
            " (what failed before this session is not known, so every failure counts)".to_owned()
        } else if self.known > 0 {
            format!(
                " ({known} failure{} from before this session set aside)",
                if self.known == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        };
        if session.blocks >= max {
            let prefix = format!(
                "verdict: verification still fails after {} block{} (--max-blocks {max}); \
             letting the agent stop. What fails{set_aside}:",
                session.blocks,
                if session.blocks == 1 { "" } else { "s" }
            );
            return (
                None,
                Answer::allow(fit::answer(&prefix, &shown, self.budget, self.root)),
            );
        }
        if session.last_failure.as_deref() == Some(failure.as_str()) {
            let prefix = format!(
                "verdict: the same failures as at the last block, so another round would not \
             help; letting the agent stop. What fails{set_aside}:"
            );
            return (
                None,
                Answer::allow(fit::answer(&prefix, &shown, self.budget, self.root)),
            );
        }
        let next = state::Session {
            blocks: session.blocks + 1,
            last_failure: Some(failure),
        };
        let prefix = format!(
            "verdict: the project's verification fails{set_aside}. Fix what it found, then \
         finish."
        );
        let text = fit::answer(&prefix, &shown, self.budget, self.root);
        (Some(next), Answer::block(&prefix, text, self.point))
    }
}

/// The verifications of the tree `tree`: remembered when it was verified before, else `run`
/// within the hook's deadline (and remembered); a cut run is the answer that lets the agent stop.
/// A verification of the same tree that a session-start hook started is waited for first, up to
/// half the time left, rather than run twice.
fn verified(
    store: &mut state::Store,
    root: &Path,
    tree: Option<&str>,
    deadline: Instant,
    harness: Harness,
    args: &StopArgs,
    run: impl FnOnce(Instant) -> Result<std::result::Result<Vec<Verification>, Cut>>,
) -> Result<std::result::Result<Vec<Verification>, Answer>> {
    if let Some(tree) = tree
        && verify::remembered(store, tree)?.is_none()
    {
        let half = deadline.saturating_duration_since(Instant::now()) / 2;
        if let start::Waited::Ended(waited) =
            start::wait_for_verification(root, tree, Instant::now() + half)
        {
            let _ = writeln!(
                std::io::stderr(),
                "verdict hook: waited {:.1}s for the verification of this tree that a session's \
                 start began",
                waited.as_secs_f64()
            );
        }
    }
    if let Some(verifications) = tree
        .map(|t| verify::remembered(store, t))
        .transpose()?
        .flatten()
    {
        let _ = writeln!(
            std::io::stderr(),
            "verdict hook: the tree is unchanged since the last verification; answering from it"
        );
        return Ok(Ok(verifications));
    }
    match run(deadline)? {
        Ok(verifications) => {
            if let Some(tree) = tree {
                verify::remember(store, tree, &verifications)?;
            }
            Ok(Ok(verifications))
        }
        Err(Cut::Deadline) => Ok(Err(Answer::allow(format!(
            "verdict hook: verification did not finish within its {}s deadline (--deadline); \
             cancelled it and letting the agent stop without a verdict",
            args.deadline_secs(harness)
        )))),
        Err(Cut::Signal) => Ok(Err(Answer::allow(
            "verdict hook: interrupted by a signal; stopped the verification and letting the \
             agent stop without a verdict",
        ))),
    }
}

/// The session's baseline at a stop whose verification of the tree `place.1` of the project at
/// `place.0` is `verifications` (see [`baseline::at_stop`]). When it is not known yet because
/// the verification of the tree the session began on still runs in the background, waits for
/// it up to `deadline`; the flag says it did not come by then.
fn session_baseline(
    store: &mut state::Store,
    harness: Harness,
    session: &str,
    place: (&Path, Option<&str>),
    verifications: &[Verification],
    deadline: Instant,
) -> Result<(Option<baseline::Found>, bool)> {
    let (root, tree) = place;
    let found = baseline::at_stop(store, harness, session, tree, verifications)?;
    if found.is_some() {
        return Ok((found, false));
    }
    let Some(start) = store.session_start(harness.key(), session)? else {
        return Ok((None, false));
    };
    match start::wait_for_verification(root, &start, deadline) {
        start::Waited::NotRunning => Ok((None, false)),
        start::Waited::StillRunning => {
            let _ = writeln!(
                std::io::stderr(),
                "verdict hook: the verification of tree {start}, which this session began on, \
                 had not finished by the deadline; every failure counts"
            );
            Ok((None, true))
        }
        start::Waited::Ended(waited) => {
            let _ = writeln!(
                std::io::stderr(),
                "verdict hook: waited {:.1}s for the verification of tree {start}, which this \
                 session began on",
                waited.as_secs_f64()
            );
            let found = baseline::at_stop(store, harness, session, tree, verifications)?;
            Ok((found, false))
        }
    }
}

/// The directory the project is looked for from, and what named it (for messages).
struct Start {
    /// An absolute path.
    dir: PathBuf,
    /// `--dir`, `CLAUDE_PROJECT_DIR`, the hook input's `cwd`, …
    named_by: &'static str,
}

/// Where the project is looked for from, first found: `--dir`; the project the harness names
/// (`CLAUDE_PROJECT_DIR` for Claude Code, `GEMINI_PROJECT_DIR` for Gemini CLI, `workspace_roots`
/// for Cursor), which stays put for the session; the session's `cwd`, which in Claude Code
/// follows the agent's `cd`; the current directory.
fn start_dir(harness: Harness, args: &StopArgs, input: &StopInput) -> Result<Start> {
    let named_project = harness.project_env().and_then(|name| {
        std::env::var_os(name)
            .filter(|dir| !dir.is_empty())
            .map(|dir| (PathBuf::from(dir), name))
    });
    let (dir, named_by) = if let Some(dir) = &args.dir {
        (dir.clone(), "--dir")
    } else if let Some((dir, name)) = named_project {
        (dir, name)
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
    if named_by != "--dir"
        && let Some(cwd) = &input.cwd
        && let Ok(cwd) = std::path::absolute(cwd)
        && let Some(dir) = same_place_in_work_tree(&dir, &cwd)
    {
        return Ok(Start {
            dir,
            named_by: "the hook input's `cwd`, a work tree of the project's repository",
        });
    }
    Ok(Start { dir, named_by })
}

/// When the session works in another work tree of the project's repository than the one the
/// harness names (Claude Code's worktree sessions set `CLAUDE_PROJECT_DIR` to the main checkout
/// and `cwd` to the worktree), the project's place in that work tree: its edits are there, and
/// verifying the named checkout would pass on a tree the agent never touched. `None` when `cwd`
/// is in the project's own work tree, or outside its repository (the agent `cd`'d elsewhere).
fn same_place_in_work_tree(project: &Path, cwd: &Path) -> Option<PathBuf> {
    use verdict_core::worktree::WorkTree;
    let named = WorkTree::find(project)?;
    let working = WorkTree::find(cwd)?;
    if !working.is_sibling_of(&named) {
        return None;
    }
    // A project below its work tree's top (a package of a monorepo) is the same package there.
    let within = project.strip_prefix(&named.top).ok()?;
    let there = working.top.join(within);
    Some(if there.is_dir() { there } else { working.top })
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
    use std::path::Path;

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
        let parsed = parse_input(harness, Event::Stop, input).ok();
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
        let block = Answer::block("i", "i\n\nd".into(), "Stop");
        let note = Answer::allow("m");
        let quiet = Answer::Allow { message: None };
        // Claude Code: the block's instruction as its reason, what fails as feedback.
        assert_eq!(
            block.to_json(Harness::Claude),
            json!({
                "decision": "block",
                "reason": "i",
                "hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "d"}
            })
        );
        let subagent = Answer::block("i", "i\n\nd".into(), "SubagentStop");
        assert_eq!(
            subagent.to_json(Harness::Claude)["hookSpecificOutput"]["hookEventName"],
            "SubagentStop"
        );
        // A text cut inside the instruction has no details to give apart.
        let cut = Answer::block("a long instruction", "a long (cut)".into(), "Stop");
        assert_eq!(
            cut.to_json(Harness::Claude),
            json!({"decision": "block", "reason": "a long (cut)"})
        );
        // The other harnesses read the whole text as one reason, as before.
        assert_eq!(
            block.to_json(Harness::Codex),
            json!({"decision": "block", "reason": "i\n\nd"})
        );
        assert_eq!(
            block.to_json(Harness::Gemini),
            json!({"decision": "deny", "reason": "i\n\nd"})
        );
        assert_eq!(
            block.to_json(Harness::Cursor),
            json!({"followup_message": "i\n\nd"})
        );
        assert_eq!(note.to_json(Harness::Claude), json!({"systemMessage": "m"}));
        assert_eq!(note.to_json(Harness::Cursor), json!({}));
        assert_eq!(quiet.to_json(Harness::Codex), json!({}));
    }
}
