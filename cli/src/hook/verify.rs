//! The hook's verification: the project's selection run as `verdict run` runs it, cut at the
//! hook's deadline or on a signal, and remembered by the tree it verified.
//!
//! A stop with no change to the tree since a verification answers from that verification without
//! running anything. "No change" is decided as the loop decides it: a snapshot of the workspace
//! ([`verdict_core::snapshot`], a git tree of every file not ignored) with the same id. The
//! verifications are kept in the state database by tree id and verdict's version; a snapshot that
//! cannot be taken (no git on the machine) only means verifying every time.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};
use verdict_core::Verification;
use verdict_core::model::{Kind, Report, Status};
use verdict_core::pipeline::{Entry, Event};
use verdict_core::snapshot::Snapshots;
use verdict_core::verifier::Workspace;

use super::state::Store;
use crate::config::Config;
use crate::registry::{self, Known};
use crate::verify::{self, Plan, Scope};

/// Why a verification was cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// `--deadline` came first.
    Deadline,
    /// verdict got SIGTERM or SIGINT.
    Signal,
}

/// The verifiers that apply to the project (empty: none does).
pub(super) fn select(root: &Path, config: &Config) -> Result<Vec<Known>> {
    let known = registry::all(config, root).map_err(|e| anyhow!("{e:#}"))?;
    // Detection reads the project's files only, never the run directory: the selection comes
    // first, so a project no verifier applies to (a user-wide hook runs in every project) is
    // left as it was, without a `.verdict/` nor a run directory per stop.
    verify::select(
        known,
        &config.workspace(root),
        config,
        &config.run.only,
        &config.run.skip,
    )
}

/// The id of the workspace's tree now, or `None` (said on stderr) when no snapshot can be
/// taken: then nothing is answered from memory.
pub(super) fn tree_id(root: &Path) -> Option<String> {
    match Snapshots::open(root).and_then(|snapshots| snapshots.take()) {
        Ok(tree) => Some(tree.as_str().to_owned()),
        Err(error) => {
            eprintln!("verdict hook: no snapshot of the tree ({error}); verifying without memory");
            None
        }
    }
}

/// Runs the selected verifiers as `verdict run` would (its cache and settings), cancelled at
/// `deadline` or on SIGTERM / SIGINT.
pub(super) fn run(
    root: &Path,
    config: &Config,
    selected: &[Known],
    deadline: Instant,
) -> Result<Result<Vec<Verification>, Cut>> {
    let entries: Vec<Entry> = verify::entries(selected, config);
    run_entries(root, config, entries, deadline)
}

/// Runs `entries` as [`run`] runs the selected verifiers.
pub(super) fn run_entries(
    root: &Path,
    config: &Config,
    entries: Vec<Entry>,
    deadline: Instant,
) -> Result<Result<Vec<Verification>, Cut>> {
    let plan = Plan::of_entries(root, config, entries)?;
    let workspace = plan.start()?;
    run_plan(
        &plan,
        &workspace,
        root,
        Scope::cached(false, false),
        deadline,
    )
}

/// Runs the project's verification in `copy`, a copy of one of the trees of the project at
/// `root` (see [`super::copy`]): what the copy's own configuration selects, which must be what
/// the project's selects. The run's logs and process records are the project's. The result
/// cache is neither read nor written: its keys do not name the directory, so an entry written
/// from the copy would answer the project, with a report that may name the copy.
pub(super) fn run_copy(
    root: &Path,
    config: &Config,
    copy: &Path,
    deadline: Instant,
) -> Result<Result<Vec<Verification>, Cut>> {
    let selected = select(root, config)?;
    let copy_config = crate::config::discover(copy).map_err(|e| anyhow!("{e}"))?;
    if copy_config.project_dir() != copy {
        bail!(
            "the copy's configuration names another project ({}); not verified",
            copy_config.project_dir().display()
        );
    }
    let in_copy = select(copy, &copy_config)?;
    let names = |known: &[Known]| -> Vec<String> {
        known.iter().map(|k| k.verifier.name().to_owned()).collect()
    };
    if names(&in_copy) != names(&selected) {
        bail!(
            "the copy selects other verifiers ({}) than the project ({}); not verified",
            names(&in_copy).join(", "),
            names(&selected).join(", ")
        );
    }
    let plan = Plan::of_entries(copy, &copy_config, verify::entries(&in_copy, &copy_config))?;
    let run_dir = verify::new_run_dir(root)?;
    let workspace = plan.workspace().clone().with_run_dir(&run_dir);
    let scope = Scope {
        cache: false,
        run_all: false,
        failed_first: false,
    };
    run_plan(&plan, &workspace, root, scope, deadline)
}

/// Runs `plan` in `workspace` within `scope`, its processes recorded as the project's at `root`,
/// cancelled at `deadline` or on SIGTERM / SIGINT.
fn run_plan(
    plan: &Plan,
    workspace: &Workspace,
    root: &Path,
    scope: Scope,
    deadline: Instant,
) -> Result<Result<Vec<Verification>, Cut>> {
    let runtime = verify::runtime()?;
    let verifications = runtime.block_on(async {
        let runner = verify::runner_for(root).with_grace(Duration::from_millis(500));
        let left = deadline.saturating_duration_since(Instant::now());
        // A harness that gives up on the hook kills it (SIGTERM, or SIGINT from a terminal):
        // the tools go too, rather than running on in their own process groups.
        let when = async {
            tokio::select! {
                () = tokio::time::sleep(left) => Cut::Deadline,
                () = verify::signalled() => Cut::Signal,
            }
        };
        // Cut, nothing new starts and what runs is killed at once: the harness is waiting.
        let cut = verify::Cut {
            when,
            at_once: true,
            wait: Duration::from_secs(2),
        };
        let mut on_event = |_: Event<'_>| {};
        plan.run(
            workspace,
            plan.entries(),
            scope,
            &runner,
            &mut on_event,
            cut,
        )
        .await
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
    verifications.map_err(|e| anyhow!("{e}"))
}

/// A verification as the state database keeps it: what the hook's answer is made of.
#[derive(Serialize, Deserialize)]
struct Stored {
    verifier: String,
    kind: Kind,
    status: Status,
    report: Report,
    log: Option<String>,
    notes: Vec<String>,
}

/// The verifications of `tree` by this verdict, if they were kept. A row that cannot be read
/// back is no answer: the project is verified again.
pub(super) fn remembered(store: &mut Store, tree: &str) -> Result<Option<Vec<Verification>>> {
    let Some(json) = store.verifications(tree, crate::VERSION)? else {
        return Ok(None);
    };
    let Ok(stored) = serde_json::from_str::<Vec<Stored>>(&json) else {
        return Ok(None);
    };
    Ok(Some(
        stored
            .into_iter()
            .map(|s| Verification {
                verifier: s.verifier,
                kind: s.kind,
                status: s.status,
                report: s.report,
                command: None,
                log: s.log,
                duration: Duration::ZERO,
                notes: s.notes,
            })
            .collect(),
    ))
}

/// Keeps `verifications` as the answer for `tree`.
pub(super) fn remember(
    store: &mut Store,
    tree: &str,
    verifications: &[Verification],
) -> Result<()> {
    let stored: Vec<Stored> = verifications
        .iter()
        .map(|v| Stored {
            verifier: v.verifier.clone(),
            kind: v.kind,
            status: v.status,
            report: v.report.clone(),
            log: v.log.clone(),
            notes: v.notes.clone(),
        })
        .collect();
    let json = serde_json::to_string(&stored).context("failed to encode the verifications")?;
    store.keep_verifications(tree, crate::VERSION, &json)
}
