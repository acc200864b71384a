//! `verdict fleet work`: a worker process. SIGTERM or Ctrl-C drains it: no new task, running
//! attempts get `--drain` seconds to finish, then are handed back interrupted.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use verdict_core::paths;
use verdict_fleet::worker::{self, Stop, StopReason, WorkerOptions};
use verdict_fleet::{AgentLimit, WorkerId};

use super::StateArg;
use super::attempt::LoopAttempts;
use super::open::{absolute, current_dir, runtime};
use crate::exit::ExitCode;

/// Arguments of `verdict fleet work`.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    state: StateArg,

    /// Attempts at once
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    concurrency: u32,

    /// Exit once nothing is pending, running or scheduled
    #[arg(long)]
    until_idle: bool,

    /// At most N sessions of an agent at once across the fleet (`claude=2`; repeatable)
    #[arg(long = "limit", value_name = "AGENT=N", value_parser = parse_limit)]
    limits: Vec<AgentLimit>,

    /// Seconds a lease lasts without a heartbeat (a dead worker's task is taken back after it)
    #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(2..))]
    lease: u64,

    /// Seconds running attempts may go on after SIGTERM before they are handed back
    #[arg(long, value_name = "SECS", default_value_t = 25)]
    drain: u64,

    /// Where tasks' work directories are made (default: beside verdict's state for the current
    /// directory)
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,

    /// Take no task while the work directories' disk has less free space (MiB)
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    min_free_disk: u64,

    /// Remove ended tasks older than this many days as the worker goes (work directories of
    /// passed tasks go at once)
    #[arg(long, value_name = "DAYS", default_value_t = 30)]
    retain_days: u64,
}

/// `claude=2`.
fn parse_limit(text: &str) -> Result<AgentLimit, String> {
    let (agent, slots) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not AGENT=N"))?;
    let slots: u32 = slots
        .trim()
        .parse()
        .map_err(|_| format!("`{slots}` is not a number of sessions"))?;
    if agent.trim().is_empty() || slots == 0 {
        return Err(format!(
            "`{text}`: an agent's name and at least one session"
        ));
    }
    Ok(AgentLimit {
        agent: agent.trim().to_owned(),
        slots,
    })
}

/// Runs `verdict fleet work`.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    crate::warn_by_default("verdict::fleet");
    let work_base = match &args.work_dir {
        Some(dir) => absolute(dir)?,
        None => paths::fleet_work(&current_dir()?),
    };
    std::fs::create_dir_all(&work_base)
        .with_context(|| format!("failed to create {}", work_base.display()))?;
    let lease = Duration::from_secs(args.lease);
    let options = WorkerOptions {
        concurrency: args.concurrency as usize,
        lease,
        // Three tries inside a lease: one lost heartbeat is not a lost lease.
        heartbeat: lease / 4,
        drain: Duration::from_secs(args.drain),
        until_idle: args.until_idle,
        min_free_bytes: args.min_free_disk.saturating_mul(1 << 20),
        work_base,
        limits: args.limits.clone(),
        retain: Some(Duration::from_secs(args.retain_days.saturating_mul(86_400))),
        ..WorkerOptions::default()
    };
    let me = worker_id();
    let runtime = runtime()?;
    let summary = runtime.block_on(async {
        let store = args.state.open().await?;
        let drain = Arc::new(Stop::default());
        drain_on_signals(&drain);
        eprintln!(
            "verdict: worker {} on {} takes tasks from {}",
            me.id,
            me.host,
            store.describe()
        );
        anyhow::Ok(worker::work(store, Arc::new(LoopAttempts), me, options, drain).await?)
    })?;
    runtime.shutdown_timeout(Duration::from_millis(200));
    eprintln!(
        "verdict: worker done: {} attempt(s) recorded, {} handed back by the drain, {} lost \
         their lease, {} expired lease(s) of other workers taken back",
        summary.finished, summary.drained, summary.lost, summary.rescued
    );
    if summary.lost > 0 {
        bail!(
            "{} attempt(s) lost their lease; their results were not written",
            summary.lost
        );
    }
    Ok(ExitCode::Success)
}

/// SIGTERM and Ctrl-C drain the worker.
fn drain_on_signals(drain: &Arc<Stop>) {
    let on_int = Arc::clone(drain);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_int.stop(StopReason::Drained);
        }
    });
    if let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    {
        let on_term = Arc::clone(drain);
        tokio::spawn(async move {
            if term.recv().await.is_some() {
                on_term.stop(StopReason::Drained);
            }
        });
    }
}

/// This worker: its host, its pid, and a part no other worker has.
fn worker_id() -> WorkerId {
    // The kernel's node name, as `uname -n` prints it.
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    let pid = std::process::id();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let salt = blake3::hash(format!("{host} {pid} {nanos}").as_bytes());
    WorkerId {
        id: format!("{host}-{pid}-{}", &salt.to_hex()[..6]),
        host,
        pid,
    }
}
