//! `verdict fleet`: many loop tasks in a queue on SQLite or PostgreSQL, and the workers that run
//! them (see `verdict_fleet`). One file per command; this one declares them and dispatches.

mod add;
mod attempt;
mod control;
pub(crate) mod open;
mod status;
mod work;

use anyhow::Result;

use crate::exit::ExitCode;

const EXAMPLES: &str = "\
Examples:
  verdict fleet add --file tasks.jsonl
  verdict fleet work --concurrency 4 --limit claude=2
  verdict fleet status --campaign migrate-jest
  verdict fleet retry 17 --guide 'The fixture moved to tests/data; use that one.'
  verdict fleet pause --agent claude
  verdict fleet campaign jest29 --cost-cap 50
  verdict fleet work --state postgres://verdict@db.internal/fleet --until-idle

A task line of tasks.jsonl (all but workspace, task and agent optional):
  {\"key\": \"repo-a-jest29\", \"workspace\": \"https://git.example.com/a.git\", \"rev\": \"main\",
   \"setup\": \"npm ci\", \"task\": \"Migrate to Jest 29\", \"agent\": [\"claude\", \"codex\"],
   \"max_attempts\": 4, \"only\": [\"jest\"], \"campaign\": \"jest29\", \"priority\": 5,
   \"deadline_secs\": 7200, \"cost_cap_usd\": 5}";

/// Arguments of `verdict fleet`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Command,
}

/// Where the fleet's database is, for every subcommand.
#[derive(clap::Args, Clone)]
pub(crate) struct StateArg {
    /// The fleet database: a file (SQLite) or a postgres:// URL (default: fleet.db where verdict
    /// keeps its state for the current directory, or $VERDICT_FLEET_STATE)
    #[arg(long, value_name = "FILE|URL")]
    state: Option<String>,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Add tasks (adding a key that exists changes nothing)
    Add(add::Args),
    /// Show the tasks: state, attempts, next retry, work directory
    Status(status::Args),
    /// Take due tasks and run their attempts until stopped (SIGTERM drains)
    Work(work::Args),
    /// Cancel tasks: waiting ones at once, running ones by stopping their agent
    Cancel(control::Args),
    /// Pause tasks: none is taken until resumed (a running attempt finishes first)
    Pause(control::Args),
    /// Resume paused tasks
    Resume(control::Args),
    /// Send an ended task back with a person's guidance for its next prompts
    Retry(control::RetryArgs),
    /// Figures over the fleet: success by category, agent and campaign, common failures
    Stats(status::StatsArgs),
    /// One task's attempts, events and diff
    History(status::HistoryArgs),
    /// Remove ended tasks older than an age, and their work directories
    Prune(control::PruneArgs),
    /// Cap what a campaign's tasks may cost together
    Campaign(control::CampaignArgs),
}

/// `verdict history --state`: the fleet's tasks, or one task's history.
pub(crate) fn history_of(state: &str, task: Option<i64>, json: bool) -> Result<ExitCode> {
    let state = StateArg {
        state: Some(state.to_owned()),
    };
    match task {
        Some(task) => status::history_with(state, &task.to_string(), json),
        None => status::status_with(state, json),
    }
}

/// `verdict stats --state`: the fleet's figures.
pub(crate) fn stats_of(state: &str, json: bool) -> Result<ExitCode> {
    let state = StateArg {
        state: Some(state.to_owned()),
    };
    status::stats_with(state, json)
}

/// Runs `verdict fleet …`.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    match &args.command {
        Command::Add(args) => add::run(args),
        Command::Status(args) => status::run(args),
        Command::Work(args) => work::run(args),
        Command::Cancel(args) => control::run(args, verdict_fleet::Control::Cancel),
        Command::Pause(args) => control::run(args, verdict_fleet::Control::Pause),
        Command::Resume(args) => control::run(args, verdict_fleet::Control::Resume),
        Command::Retry(args) => control::retry(args),
        Command::Stats(args) => status::stats(args),
        Command::History(args) => status::history(args),
        Command::Prune(args) => control::prune(args),
        Command::Campaign(args) => control::campaign(args),
    }
}
