//! What one run of the loop needs, from the workspace's configuration and the run's settings:
//! the policies, the agents (the `claude` preset allowed to run the verification's commands), the
//! verification, the runner. `verdict loop` and a fleet's attempts build it alike.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Result, bail};
use verdict_core::agent_loop::agent::{self, AgentPool, AgentSpec, PoolOptions};
use verdict_core::agent_loop::driver::{LoopSpec, RunSettings, Verify};
use verdict_core::agent_loop::policy::Policies;
use verdict_core::digest::DEFAULT_BUDGET;
use verdict_core::pipeline::Entry;
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::Workspace;

use super::verify::PipelineVerify;
use crate::config::Config;
use crate::registry;
use crate::run::usage;
use crate::verify::Plan;

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
    let run_by: BTreeMap<String, Vec<Vec<String>>> = known
        .iter()
        .map(|k| (k.verifier.name().to_owned(), k.run_by.clone()))
        .collect();
    let plan = Plan::new(root, config, known, &settings.only, &config.run.skip)
        .map_err(|e| usage(format!("{e:#}")))?
        .with_fail_fast(false);
    // As in `verdict run`: a check whose tool is missing here is said, and set aside unless
    // the run is strict.
    let strict = crate::unverified::strict(false, config);
    let (plan, missing) = plan.without_missing_checks(strict, &settings.only, config);
    for check in &missing {
        eprintln!("verdict loop: {}", check.line());
    }
    if plan.is_empty() {
        bail!(usage(format!(
            "no verifier applies to {}, so no attempt could be verified; `verdict list` shows \
             why, and a [[verifier]] in verdict.toml adds one",
            root.display()
        )));
    }
    let specs = allow_verification(specs, plan.entries(), plan.workspace(), &run_by, root);

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
            .filter(|arg| arg.contains(agent::PROMPT))
            .map(|arg| arg.len() - agent::PROMPT.len())
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
                agent::PROMPT_FILE,
            )));
        }
    }
    Ok(())
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

/// The `claude` preset is allowed to run the commands the loop verifies with, the project's own
/// commands that run what it verifies (`run_by`, by verifier: `npm test`, `npm run lint`), and
/// the `verify` tool of `verdict mcp`: in `acceptEdits` mode a headless session would otherwise
/// be refused every command, the project's tests included. The rules follow `-p` as one
/// `--allowedTools` list, one argv element each. Other agents, and a `claude` command line a
/// person wrote, are left as they are.
fn allow_verification(
    mut specs: Vec<AgentSpec>,
    entries: &[Entry],
    workspace: &Workspace,
    run_by: &BTreeMap<String, Vec<Vec<String>>>,
    root: &Path,
) -> Vec<AgentSpec> {
    let Some(claude) = agent::presets::preset("claude") else {
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
    // Only the checks this run verifies: one that `--only` or a missing tool left out is not
    // the loop's to allow.
    let declared: Vec<Vec<String>> = entries
        .iter()
        .filter_map(|e| run_by.get(e.verifier.name()))
        .flatten()
        .cloned()
        .collect();
    let rules = agent::allowed::claude_allowed_tools(&commands, &declared, root);
    for spec in &mut specs {
        if spec.argv.as_slice() != claude {
            continue;
        }
        let at = spec
            .argv
            .iter()
            .position(|a| a == "-p")
            .map_or(1, |p| p + 1);
        let flag = std::iter::once(agent::allowed::FLAG.to_owned());
        spec.argv.splice(at..at, flag.chain(rules.iter().cloned()));
    }
    specs
}
