//! `verdict loop`'s command line: its flags, its examples and its exit codes in `--help`.

use std::path::PathBuf;

use crate::budget;

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
    pub(super) task: Option<String>,

    /// Read the task from a file
    #[arg(long, value_name = "FILE")]
    pub(super) task_file: Option<PathBuf>,

    /// The agent's command line or a preset name; give it several times to fall back from one
    /// agent to the next on auth, quota and model errors
    #[arg(long = "agent", value_name = "CMD")]
    pub(super) agents: Vec<String>,

    /// Attempts in all, the first included (default 3)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) max_attempts: Option<u32>,

    /// Verify with only these verifiers (comma-separated names, see `verdict list`)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub(super) only: Vec<String>,

    /// Continue the unfinished run of this task (or, without a task, the latest unfinished run)
    #[arg(long)]
    pub(super) resume: bool,

    /// Also write every event as NDJSON to this file
    #[arg(long, value_name = "FILE")]
    pub(super) events: Option<PathBuf>,

    /// Output: `human` (progress on stderr, the result on stdout) or `jsonl` (events on stdout)
    #[arg(long, value_enum, default_value_t = LoopFormat::Human)]
    pub(super) format: LoopFormat,

    /// Retries of transient agent failures (rate limit, overload, network) per attempt
    #[arg(long, value_name = "N")]
    pub(super) max_agent_retries: Option<u32>,

    /// Seconds one agent session may run (default: the agent's own setting, else 1800)
    #[arg(long, value_name = "SECS", value_parser = at_least_one_second)]
    pub(super) agent_timeout: Option<u64>,

    /// Restore the starting tree before every attempt after the first
    #[arg(long)]
    pub(super) reset: bool,

    /// Failures the starting tree already had do not block the loop
    #[arg(long)]
    pub(super) new_failures_only: bool,

    /// The task may change test infrastructure (runner configs, set-up files, test scripts)
    #[arg(long)]
    pub(super) allow_infra_edits: bool,

    /// Skip the verification of the starting tree before attempt 1
    #[arg(long)]
    pub(super) no_baseline: bool,

    /// Guidance for every retry prompt: text, or a file holding it
    #[arg(long, value_name = "TEXT|FILE")]
    pub(super) guide: Option<String>,

    /// Ask at the terminal for guidance between attempts
    #[arg(long)]
    pub(super) interactive: bool,

    /// Token budget of the digest in retry prompts
    #[arg(long, value_name = "TOKENS", value_parser = budget::parse)]
    pub(super) budget: Option<usize>,

    /// Run in this directory instead of the current one
    #[arg(short = 'C', value_name = "DIR")]
    pub(super) dir: Option<PathBuf>,
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

/// What `--format` writes on stdout.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum LoopFormat {
    Human,
    Jsonl,
}
