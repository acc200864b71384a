//! `verdict fleet cancel|pause|resume`, `retry --guide` and `prune`: a person's hand on the
//! fleet.

use std::time::Duration;

use anyhow::{Result, bail};
use verdict_fleet::{Control, Selector};

use super::StateArg;
use super::open::runtime;
use crate::exit::ExitCode;

/// Arguments of `verdict fleet cancel|pause|resume`.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    state: StateArg,

    /// One task, by id or key
    #[arg(value_name = "TASK", conflicts_with_all = ["campaign", "agent", "all"])]
    task: Option<String>,

    /// Every task of a campaign
    #[arg(long, value_name = "NAME", conflicts_with_all = ["agent", "all"])]
    campaign: Option<String>,

    /// Every task of an agent (its provider: `claude` for `claude -p …`)
    #[arg(long, value_name = "NAME", conflicts_with = "all")]
    agent: Option<String>,

    /// Every task
    #[arg(long)]
    all: bool,
}

impl Args {
    fn selector(&self) -> Result<Selector> {
        Ok(match (&self.task, &self.campaign, &self.agent, self.all) {
            (Some(task), ..) => Selector::Task(task.clone()),
            (_, Some(campaign), ..) => Selector::Campaign(campaign.clone()),
            (_, _, Some(agent), _) => Selector::Agent(agent.clone()),
            (.., true) => Selector::All,
            _ => bail!(crate::run::usage(
                "name a TASK, or give --campaign, --agent or --all"
            )),
        })
    }
}

/// Runs `verdict fleet cancel|pause|resume`.
pub(crate) fn run(args: &Args, control: Control) -> Result<ExitCode> {
    let selector = args.selector()?;
    let runtime = runtime()?;
    let changed = runtime.block_on(async {
        let store = args.state.open().await?;
        if let Selector::Task(task) = &selector
            && store.task(task).await?.is_none()
        {
            bail!("no task {task} in the fleet ({})", store.describe());
        }
        anyhow::Ok(store.control(&selector, control, None).await?)
    })?;
    let verb = match control {
        Control::Cancel => "cancelled",
        Control::Pause => "paused",
        Control::Resume => "resumed",
    };
    println!("{changed} task(s) {verb}");
    Ok(ExitCode::Success)
}

/// Arguments of `verdict fleet retry`.
#[derive(clap::Args)]
pub(crate) struct RetryArgs {
    #[command(flatten)]
    state: StateArg,

    /// The task, by id or key
    #[arg(value_name = "TASK")]
    task: String,

    /// Guidance for its next prompts: text, or a file holding it
    #[arg(long, value_name = "TEXT|FILE")]
    guide: String,
}

/// Runs `verdict fleet retry TASK --guide TEXT`.
pub(crate) fn retry(args: &RetryArgs) -> Result<ExitCode> {
    let guide = match std::fs::read_to_string(&args.guide) {
        Ok(text) => text,
        Err(_) => args.guide.clone(),
    };
    if guide.trim().is_empty() {
        bail!(crate::run::usage("--guide is empty"));
    }
    let runtime = runtime()?;
    let sent = runtime.block_on(async {
        let store = args.state.open().await?;
        let Some(task) = store.task(&args.task).await? else {
            bail!("no task {} in the fleet ({})", args.task, store.describe());
        };
        let sent = store.retry(&args.task, &guide).await?;
        anyhow::Ok((task, sent))
    })?;
    match sent {
        (task, true) => {
            println!("task {} is due again, with your guidance", task.id);
            Ok(ExitCode::Success)
        }
        (task, false) => {
            eprintln!(
                "verdict: task {} is {}, not ended: only an ended task is sent back",
                task.id, task.state
            );
            Ok(ExitCode::Failures)
        }
    }
}

/// Arguments of `verdict fleet prune`.
#[derive(clap::Args)]
pub(crate) struct PruneArgs {
    #[command(flatten)]
    state: StateArg,

    /// Remove tasks that ended longer ago than this many days
    #[arg(long, value_name = "DAYS", default_value_t = 30)]
    older_than: u64,

    /// Keep the work directories of passed tasks (by default they go at once)
    #[arg(long)]
    keep_passed: bool,

    /// Where the workers made the work directories (as `fleet work --work-dir`); only what lies
    /// under it is deleted
    #[arg(long, value_name = "DIR")]
    work_dir: Option<std::path::PathBuf>,
}

/// Runs `verdict fleet prune`.
pub(crate) fn prune(args: &PruneArgs) -> Result<ExitCode> {
    let base = match &args.work_dir {
        Some(dir) => super::open::absolute(dir)?,
        None => verdict_core::paths::fleet_work(&super::open::current_dir()?),
    };
    let runtime = runtime()?;
    let age = Duration::from_secs(args.older_than.saturating_mul(86_400));
    let pruned = runtime.block_on(async {
        let store = args.state.open().await?;
        anyhow::Ok(store.prune(age, !args.keep_passed).await?)
    })?;
    let mut removed = 0;
    for dir in &pruned.workdirs {
        let removal = verdict_fleet::workdir::remove(std::path::Path::new(dir), &base);
        if runtime.block_on(removal).is_ok() {
            removed += 1;
        }
    }
    println!(
        "{} task(s) removed, {removed} work director{} deleted",
        pruned.tasks,
        if removed == 1 { "y" } else { "ies" }
    );
    Ok(ExitCode::Success)
}

/// Arguments of `verdict fleet campaign`.
#[derive(clap::Args)]
pub(crate) struct CampaignArgs {
    #[command(flatten)]
    state: StateArg,

    /// The campaign
    #[arg(value_name = "NAME")]
    name: String,

    /// The most its tasks may cost together, in US dollars, as their agents report it
    #[arg(
        long,
        value_name = "USD",
        conflicts_with = "no_cap",
        required_unless_present = "no_cap"
    )]
    cost_cap: Option<f64>,

    /// Lift the campaign's cap
    #[arg(long)]
    no_cap: bool,
}

/// Runs `verdict fleet campaign NAME --cost-cap USD`.
pub(crate) fn campaign(args: &CampaignArgs) -> Result<ExitCode> {
    if let Some(cap) = args.cost_cap
        && !(cap.is_finite() && cap >= 0.0)
    {
        bail!(crate::run::usage(
            "--cost-cap is a number of dollars, 0 or more"
        ));
    }
    let runtime = runtime()?;
    runtime.block_on(async {
        let store = args.state.open().await?;
        anyhow::Ok(store.set_campaign_cap(&args.name, args.cost_cap).await?)
    })?;
    match args.cost_cap {
        Some(cap) => println!("campaign {} may cost ${cap:.2} in all", args.name),
        None => println!("campaign {} has no cost cap", args.name),
    }
    Ok(ExitCode::Success)
}
