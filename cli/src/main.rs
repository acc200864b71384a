//! The `verdict` binary: the command line over verdict's core and summarizers.
//!
//! **Invariant:** only this crate prints to stdout or stderr, and only this crate decides exit
//! codes, in one place: [`exit::ExitCode`], which every command returns.

mod agent_loop;
mod budget;
mod config;
mod config_file;
mod dashboard;
mod exit;
mod fleet;
mod global;
mod history;
mod hook;
mod json_doc;
mod list;
mod man;
mod mcp;
mod merge;
mod output;
mod packages;
mod progress;
mod registry;
mod run;
mod schema;
mod scoped;
mod summarize;
mod unverified;
mod verify;

use std::io::{self, Write};
use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};

use crate::exit::ExitCode;
use crate::global::{ColorChoice, Verbosity};

const ABOUT: &str =
    "Turn the output of code verifiers into a short, exact digest for coding agents and CI";

const EXAMPLES: &str = "\
Examples:
  verdict run
  verdict run --only tsc,eslint --format sarif=verdict.sarif --format human
  verdict list
  npx tsc --noEmit 2>&1 | verdict summarize
  verdict summarize --tool pytest --budget 300 pytest.log
  cargo test 2>&1 | verdict summarize --format json
  verdict completions bash > ~/.local/share/bash-completion/completions/verdict

Exit codes:
  0  every verifier passed (run) / the log shows a pass (summarize)
  1  failures in the code (errors, failing tests, code that does not compile, test files that
     cannot load)
  2  nothing could be verified (a tool missing, its config invalid, a crash, a time-out, no test
     ran, an unparseable failure), or verdict's own config or command line is wrong";

/// verdict's version and the commit it was built from, as `0.1.0 (0123456789ab)` (`build.rs`).
pub(crate) const VERSION: &str = env!("VERDICT_VERSION");

/// The heading of the options every command takes.
const GLOBAL: &str = "Global options";

#[derive(Parser)]
#[command(name = "verdict", version = VERSION, about = ABOUT, after_help = EXAMPLES)]
struct Cli {
    /// When to colour the output: on a terminal and in GitHub Actions (auto, honouring NO_COLOR,
    /// CLICOLOR and CLICOLOR_FORCE), always, or never
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN", help_heading = GLOBAL)]
    color: ColorChoice,

    /// Say less: no progress and no notes; the human report is nothing for a pass and the digest
    /// otherwise
    #[arg(long, short, global = true, conflicts_with = "verbose", help_heading = GLOBAL)]
    quiet: bool,

    /// Say more on stderr: the project and the verifiers, what each ran and where its log is
    /// (`run`), how a log was read (`summarize`), every event (`loop`)
    #[arg(long, short, global = true, help_heading = GLOBAL)]
    verbose: bool,

    /// Read this verdict.toml instead of looking for one (also VERDICT_CONFIG); the project is
    /// still -C or the repository's root
    #[arg(long, global = true, value_name = "FILE", help_heading = GLOBAL)]
    config: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the verifiers that apply to the project and report what failed.
    Run(run::Args),
    /// Merge the JSON reports of the shards of one run (`verdict run --shard`) into one report.
    Merge(merge::Args),
    /// Show every verifier verdict knows, whether it applies here, and why.
    List(list::ListArgs),
    /// Write a verdict.toml with the verifiers detected in the project.
    Init(list::InitArgs),
    /// Summarize a verifier's log into a token-budgeted digest.
    Summarize(summarize::Args),
    /// Act as the stop hook of Claude Code, Codex, Cursor or Gemini CLI, or install it.
    Hook(hook::Args),
    /// List the runs of `verdict loop`, or show one run's attempts and transitions.
    History(history::HistoryArgs),
    /// Show figures over every run of `verdict loop`: success rates, attempts, common failures.
    Stats(history::StatsArgs),
    /// Drive a coding agent to a green verification, retrying with the digest of what failed.
    Loop(agent_loop::Args),
    /// Run many loop tasks from a queue (SQLite or PostgreSQL) with workers and scheduled retries.
    Fleet(fleet::Args),
    /// Serve a live web page of a fleet's queue or of the loop's runs, with an access token.
    Dashboard(dashboard::Args),
    /// Serve verdict's tools to coding agents over the Model Context Protocol, or install it.
    Mcp(mcp::Args),
    /// Print the completion script of a shell.
    Completions(CompletionsArgs),
    /// Print the man page (roff) of verdict or of one of its subcommands.
    Man(man::Args),
    /// Print the JSON Schema of the JSON report or of verdict.toml.
    Schema(schema::Args),
}

/// Arguments of `verdict completions`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  verdict completions bash > ~/.local/share/bash-completion/completions/verdict
  verdict completions zsh > ~/.zfunc/_verdict
  verdict completions fish > ~/.config/fish/completions/verdict.fish")]
struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints help and version to stdout with success, usage errors to stderr with 2.
            let _ = error.print();
            let code = if error.use_stderr() {
                ExitCode::Error
            } else {
                ExitCode::Success
            };
            return code.into();
        }
    };
    global::set(global::Global {
        color: cli.color,
        verbosity: match (cli.quiet, cli.verbose) {
            (true, _) => Verbosity::Quiet,
            (false, true) => Verbosity::Verbose,
            (false, false) => Verbosity::Normal,
        },
        config: global::config_file(cli.config),
    });
    init_tracing();
    let result = match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Merge(args) => merge::run(&args),
        Command::List(args) => list::list(&args),
        Command::Init(args) => list::init(&args),
        Command::Summarize(args) => summarize::run(&args),
        Command::Hook(args) => hook::run(&args),
        Command::History(args) => history::history(&args),
        Command::Stats(args) => history::stats(&args),
        Command::Loop(args) => agent_loop::run(&args),
        Command::Fleet(args) => fleet::run(&args),
        Command::Dashboard(args) => dashboard::run(&args),
        Command::Mcp(args) => mcp::run(&args),
        Command::Completions(args) => completions(args.shell),
        Command::Man(args) => man::run(&args),
        Command::Schema(args) => schema::run(&args),
    };
    let code = match result {
        Ok(code) => code,
        Err(error) if is_broken_pipe(&error) => ExitCode::Success,
        Err(error) => {
            let _ = writeln!(io::stderr(), "verdict: error: {error:#}");
            ExitCode::Error
        }
    };
    code.into()
}

/// Writes the completion script of `shell` to stdout.
fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    let mut stdout = io::stdout().lock();
    clap_complete::generate(shell, &mut command, "verdict", &mut stdout);
    stdout.flush()?;
    Ok(ExitCode::Success)
}

/// Shows the warnings of `target` on stderr unless `VERDICT_LOG` says what to log: a long-running
/// worker's warnings (changes it could not keep, a lease it could not renew, too little disk to
/// take a task) are what its user needs to know, and were silent without `VERDICT_LOG`.
pub(crate) fn warn_by_default(target: &str) {
    if std::env::var_os("VERDICT_LOG").is_some() {
        return;
    }
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(format!("{target}=warn")))
        .with_writer(io::stderr)
        .with_ansi(global::color(global::Stream::Stderr))
        .try_init();
}

/// `VERDICT_LOG` (a `tracing` filter such as `info` or `verdict::loop=debug`) turns on verdict's
/// spans and events on stderr: the loop's `verdict_loop` and `attempt` spans and its decisions.
/// Unset, nothing is logged and nothing is paid for.
fn init_tracing() {
    let Some(filter) = std::env::var_os("VERDICT_LOG") else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_new(filter.to_string_lossy())
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(global::color(global::Stream::Stderr))
        .try_init();
}

/// A reader of our output went away (`verdict … | head`): not an error, as in ripgrep.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
}
