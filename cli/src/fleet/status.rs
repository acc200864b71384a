//! `verdict fleet status`, `stats` and `history`: what the fleet's database holds, for people
//! and (`--format json`) for scripts.

use anyhow::{Result, bail};
use serde::Serialize;
use verdict_fleet::{Selector, TaskRecord, TaskState};

use super::StateArg;
use super::open::runtime;
use crate::exit::ExitCode;
use crate::history::{duration, second};
use verdict_core::render::table::{Align, clip, table};

/// Output of the fleet's read commands.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Human,
    Json,
}

/// Arguments of `verdict fleet status`.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    state: StateArg,

    /// One task, by id or key
    #[arg(value_name = "TASK", conflicts_with = "campaign")]
    task: Option<String>,

    /// The tasks of one campaign
    #[arg(long, value_name = "NAME")]
    campaign: Option<String>,

    /// `human` (a table) or `json` (one object with the counts and the tasks)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// What `status --format json` prints.
#[derive(Serialize)]
struct StatusJson<'a> {
    counts: Vec<(TaskState, u64)>,
    paused: u64,
    next_due_in_ms: Option<i64>,
    tasks: &'a [TaskRecord],
}

/// `verdict fleet status` of every task, on `state`.
pub(crate) fn status_with(state: StateArg, json: bool) -> Result<ExitCode> {
    run(&Args {
        state,
        task: None,
        campaign: None,
        format: if json { Format::Json } else { Format::Human },
    })
}

/// `verdict fleet stats` on `state`.
pub(crate) fn stats_with(state: StateArg, json: bool) -> Result<ExitCode> {
    stats(&StatsArgs {
        state,
        format: if json { Format::Json } else { Format::Human },
    })
}

/// `verdict fleet history TASK` on `state`.
pub(crate) fn history_with(state: StateArg, task: &str, json: bool) -> Result<ExitCode> {
    history(&HistoryArgs {
        state,
        task: task.to_owned(),
        diff: false,
        format: if json { Format::Json } else { Format::Human },
    })
}

/// Runs `verdict fleet status`.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let runtime = runtime()?;
    let (tasks, counts) = runtime.block_on(async {
        let store = args.state.open().await?;
        let tasks = match (&args.task, &args.campaign) {
            (Some(task), _) => match store.task(task).await? {
                Some(task) => vec![task],
                None => bail!("no task {task} in the fleet ({})", store.describe()),
            },
            (None, Some(campaign)) => store.tasks(&Selector::Campaign(campaign.clone())).await?,
            (None, None) => store.tasks(&Selector::All).await?,
        };
        anyhow::Ok((tasks, store.counts().await?))
    })?;
    match args.format {
        Format::Json => {
            let json = StatusJson {
                counts: counts.by_state.clone(),
                paused: counts.paused,
                next_due_in_ms: counts.next_due_in,
                tasks: &tasks,
            };
            println!("{}", serde_json::to_string_pretty(&json)?);
        }
        Format::Human => print!("{}", render(&tasks, &counts)),
    }
    Ok(ExitCode::Success)
}

/// The counts on one line, then one row per task.
fn render(tasks: &[TaskRecord], counts: &verdict_fleet::Counts) -> String {
    let mut out = String::new();
    let by_state: Vec<String> = counts
        .by_state
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(state, n)| format!("{n} {state}"))
        .collect();
    if by_state.is_empty() {
        return "no tasks in the fleet\n".to_owned();
    }
    out.push_str(&by_state.join(", "));
    if counts.paused > 0 {
        out.push_str(&format!(" ({} paused)", counts.paused));
    }
    out.push('\n');
    let columns = [
        ("id", Align::Right),
        ("key", Align::Left),
        ("state", Align::Left),
        ("attempts", Align::Right),
        ("next retry", Align::Left),
        ("campaign", Align::Left),
        ("work directory", Align::Left),
    ];
    let rows: Vec<Vec<String>> = tasks
        .iter()
        .map(|t| {
            let state = if t.paused && !t.state.is_final() {
                format!("{} (paused)", t.state)
            } else {
                t.state.to_string()
            };
            vec![
                t.id.to_string(),
                clip(&t.spec.key, 28),
                state,
                t.attempts.to_string(),
                t.next_retry_at.map(second).unwrap_or_default(),
                t.spec.campaign.clone().unwrap_or_default(),
                t.workdir.clone().unwrap_or_default(),
            ]
        })
        .collect();
    out.push_str(&table(&columns, &rows));
    out
}

/// Arguments of `verdict fleet stats`.
#[derive(clap::Args)]
pub(crate) struct StatsArgs {
    #[command(flatten)]
    state: StateArg,

    /// `human` or `json`
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Runs `verdict fleet stats`.
pub(crate) fn stats(args: &StatsArgs) -> Result<ExitCode> {
    let runtime = runtime()?;
    let stats = runtime.block_on(async {
        let store = args.state.open().await?;
        let tasks = store.tasks(&Selector::All).await?;
        let attempts = store.attempts(None).await?;
        anyhow::Ok(verdict_fleet::stats::compute(&tasks, &attempts))
    })?;
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&stats)?),
        Format::Human => print!("{}", verdict_fleet::stats::render(&stats)),
    }
    Ok(ExitCode::Success)
}

/// Arguments of `verdict fleet history`.
#[derive(clap::Args)]
pub(crate) struct HistoryArgs {
    #[command(flatten)]
    state: StateArg,

    /// The task, by id or key
    #[arg(value_name = "TASK")]
    task: String,

    /// Also print the diff its agent left
    #[arg(long)]
    diff: bool,

    /// `human` or `json` (the attempts and the events)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Runs `verdict fleet history TASK`.
pub(crate) fn history(args: &HistoryArgs) -> Result<ExitCode> {
    let runtime = runtime()?;
    let (task, attempts, events, diff) = runtime.block_on(async {
        let store = args.state.open().await?;
        let Some(task) = store.task(&args.task).await? else {
            bail!("no task {} in the fleet ({})", args.task, store.describe());
        };
        let attempts = store.attempts(Some(task.id)).await?;
        let events = store.events(task.id).await?;
        let diff = if args.diff {
            store.diff(task.id).await?
        } else {
            None
        };
        anyhow::Ok((task, attempts, events, diff))
    })?;
    if args.format == Format::Json {
        let events: Vec<serde_json::Value> = events
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        let json = serde_json::json!({
            "task": task, "attempts": attempts, "events": events, "diff": diff,
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::Success);
    }
    println!(
        "task {} ({}): {}, {} attempt(s){}",
        task.id,
        task.spec.key,
        task.state,
        task.attempts,
        task.reason
            .as_deref()
            .map(|r| format!(" — {r}"))
            .unwrap_or_default()
    );
    for a in &attempts {
        let took = a.finished_at.map(|end| duration(end - a.claimed_at));
        println!(
            "  #{} {} on {} {}{}{}",
            a.number,
            a.outcome.as_deref().unwrap_or("running"),
            a.host,
            second(a.claimed_at),
            took.map(|t| format!(" ({t})")).unwrap_or_default(),
            a.category
                .as_deref()
                .map(|c| format!(", {c}"))
                .unwrap_or_default(),
        );
    }
    if let Some(diff) = diff {
        print!("{diff}");
    }
    Ok(ExitCode::Success)
}
