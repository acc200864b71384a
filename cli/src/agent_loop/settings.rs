//! The run's settings: the flags given, else a resumed run's own, else `verdict.toml` and the
//! defaults; stderr names the flags that override what a resumed run was started with.

use std::path::Path;

use anyhow::{Context, Result};
use verdict_core::agent_loop::agent::PoolOptions;
use verdict_core::agent_loop::driver::{self, RunSettings};
use verdict_core::agent_loop::policy::Policies;
use verdict_core::digest::DEFAULT_BUDGET;
use verdict_core::state::{RunRecord, StateDb};

use super::args::Args;
use crate::config::Config;

/// The run's settings: the flags given, else — for a run that continues an unfinished one — the
/// settings it was started with, else the configuration and the defaults. A flag given to a
/// resumed run overrides what it was started with, and stderr says so.
pub(super) fn settings(
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

/// `--guide`: a file's contents when it names a file, else the text itself.
fn read_guide(guide: &str) -> Result<String> {
    let path = Path::new(guide);
    if guide.len() < 4096 && path.is_file() {
        return std::fs::read_to_string(path)
            .with_context(|| format!("failed to read the guidance file {}", path.display()));
    }
    Ok(guide.to_owned())
}
