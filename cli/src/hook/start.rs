//! The session-start hook, and the verification of the tree a session begins on.
//!
//! A session's stops block only on failures that are new since it began, so what failed on its
//! start tree must be known. The session-start hook records that tree (a snapshot id, pinned so
//! that its files stay in the snapshot store) and, when no verification of it is remembered,
//! starts one in the background and answers at once: hooks run on every session, each scripted
//! `claude -p` among them, and must not hold it up. The detached `verdict hook <harness>
//! --verify-start <tree>` verifies the tree in a copy of it ([`super::copy`]), never in place:
//! the agent edits meanwhile, and its edits must neither mix into the result nor throw it away.
//! The result is kept by tree id, as a stop keeps its own.
//!
//! The first stop that needs it waits for that run (its lock is held while it runs) within its
//! own deadline; when it has not come by then, every failure of that stop counts (see the stop
//! hook).

use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use verdict_core::agent_loop::agent::LOOP_SESSION_ENV;
use verdict_core::lock::FileLock;
use verdict_core::snapshot::{Snapshots, TreeId};

use super::copy::StartCopy;
use super::{
    ANSWER_MARGIN_SECS, Event, Harness, START_TIMEOUT_SECS, StopArgs, parse_input, read_stdin,
    start_dir, state, verify,
};
use crate::config;
use crate::exit::ExitCode;

/// How long the session-start hook waits for its background verification to take the tree's
/// lock, at most: from then on a stop that needs the result knows to wait for it. A process
/// starts in milliseconds; this bounds a machine under load, not the usual case.
const HANDSHAKE: Duration = Duration::from_millis(500);

/// How often a wait for a verification looks at its lock.
const POLL: Duration = Duration::from_millis(50);

/// The session-start hook: records the tree the session begins on, starts its verification when
/// none is remembered, and answers `{}` at once, whatever happens; what went wrong is said on
/// stderr. Without the record the session's first stop knows no baseline, and every failure
/// counts.
pub(super) fn session_start(harness: Harness, args: &StopArgs) -> ExitCode {
    if let Some(tree) = &args.verify_start {
        return verify_start(harness, args, tree);
    }
    let started = Instant::now();
    let secs = args
        .deadline
        .unwrap_or(START_TIMEOUT_SECS - ANSWER_MARGIN_SECS);
    let deadline = started + Duration::from_secs(secs);
    let read = read_stdin(deadline);
    let note = match std::panic::catch_unwind(AssertUnwindSafe(|| {
        record_start(harness, args, read)
    })) {
        Ok(Ok(note)) => note,
        Ok(Err(error)) => Some(format!(
            "verdict hook: {error:#}; the session's start is not recorded, so its first stop \
             will count every failure"
        )),
        Err(_) => Some(
            "verdict hook: verdict panicked; the session's start is not recorded, so its first \
             stop will count every failure"
                .to_owned(),
        ),
    };
    if let Some(note) = note {
        let _ = writeln!(std::io::stderr(), "{note}");
    }
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{{}}");
    let _ = stdout.flush();
    ExitCode::Success
}

/// Records, by the harness's session id, the snapshot id of the project's tree, and starts its
/// verification unless one is remembered; returns the note for stderr. Nothing is written into a
/// project no verifier applies to.
fn record_start(
    harness: Harness,
    args: &StopArgs,
    input: std::io::Result<String>,
) -> Result<Option<String>> {
    let input = input.context("failed to read the hook input on stdin")?;
    let input = parse_input(harness, Event::SessionStart, &input)?;
    if std::env::var_os(LOOP_SESSION_ENV).is_some_and(|v| !v.is_empty()) {
        // The loop's agent sessions are let go at their stop without verifying.
        return Ok(None);
    }
    let start = start_dir(harness, args, &input)?;
    if !start.dir.is_dir() {
        return Ok(Some(format!(
            "verdict hook: {} ({}) is not a directory; nothing recorded",
            start.dir.display(),
            start.named_by
        )));
    }
    let config = config::discover(&start.dir).map_err(|error| anyhow!("{error}"))?;
    let root = config.project_dir().to_path_buf();
    if verify::select(&root, &config)?.is_empty() {
        return Ok(None);
    }
    let Some(tree) = verify::tree_id(&root) else {
        return Ok(Some(
            "verdict hook: the session's start is not recorded, so its first stop will count \
             every failure"
                .to_owned(),
        ));
    };
    let mut store = state::Store::open(&verdict_core::paths::state_db(&root))?;
    let recorded = store.record_start(harness.key(), &input.session, &tree)?;
    if !recorded {
        return Ok(Some(
            "verdict hook: this session's start was recorded before; it keeps the tree it began on"
                .to_owned(),
        ));
    }
    let mut note = format!("verdict hook: this session begins on tree {tree}");
    if verify::remembered(&mut store, &tree)?.is_none() {
        drop(store);
        // Its files are read from the snapshot store once the hook has answered; nothing removes
        // them but a `git gc` of the store, so an unpinned tree is still worth verifying.
        if let Err(error) = Snapshots::open(&root)
            .and_then(|snapshots| snapshots.pin(&TreeId::new(tree.clone())?, &pin_name(&tree)))
        {
            note.push_str(&format!("; failed to pin it ({error})"));
        }
        note.push_str(&spawn_verification(harness, &root, &tree)?);
    }
    Ok(Some(note))
}

/// The name the start tree is pinned under while it waits for its verification.
fn pin_name(tree: &str) -> String {
    format!("hook/start/{tree}")
}

/// Starts the verification of `tree` in a process of its own (its own process group, so that a
/// harness that kills the hook leaves it running, and no pipe of the hook's, so that the harness
/// does not wait for it), and waits only until it holds the tree's lock. Returns the rest of the
/// note.
fn spawn_verification(harness: Harness, root: &Path, tree: &str) -> Result<String> {
    use std::os::unix::process::CommandExt as _;

    let exe = std::env::current_exe().context("failed to find verdict's own executable")?;
    let dir = hook_dir(root);
    verdict_core::files::create_private_dir(&dir)
        .with_context(|| format!("failed to create {}", dir.display()))?;
    let log_path = dir.join("verify-start.log");
    let log = verdict_core::files::create_private_file(&log_path)
        .with_context(|| format!("failed to create {}", log_path.display()))?;
    let mut child = Command::new(exe)
        .arg("hook")
        .arg(harness.key())
        .arg("--event")
        .arg(Event::SessionStart.key())
        .arg("--dir")
        .arg(root)
        .arg("--verify-start")
        .arg(tree)
        .env(
            super::copy::CARGO_TARGET_DIR,
            super::copy::cargo_target_dir(root),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .context("failed to start the verification of the session's start tree")?;
    // The child says it holds the lock by writing its pid into it.
    let holder = format!("pid {}", child.id());
    let lock = lock_path(root, tree);
    let until = Instant::now() + HANDSHAKE;
    while Instant::now() < until
        && FileLock::holder(&lock).as_deref() != Some(holder.as_str())
        && child
            .try_wait()
            .context("failed to look at the verification of the start tree")?
            .is_none()
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(format!(
        "; verifying it in the background (log: {})",
        log_path.display()
    ))
}

/// verdict's `hook/` directory, where the start verifications keep their log and lock.
fn hook_dir(root: &Path) -> PathBuf {
    verdict_core::paths::hook_dir(root)
}

/// The lock the verification of `tree` holds while it runs.
fn lock_path(root: &Path, tree: &str) -> PathBuf {
    hook_dir(root).join(format!("verify-start-{tree}.lock"))
}

/// How a wait for the verification of a tree ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Waited {
    /// None was running.
    NotRunning,
    /// One was running, and ended after this long.
    Ended(Duration),
    /// One is still running at the deadline.
    StillRunning,
}

/// Waits until no verification of `tree` started by a session-start hook runs, or `until`.
pub(super) fn wait_for_verification(root: &Path, tree: &str, until: Instant) -> Waited {
    let lock = lock_path(root, tree);
    if !lock.is_file() {
        return Waited::NotRunning;
    }
    let started = Instant::now();
    loop {
        match FileLock::try_take(&lock) {
            // Free: released at once, so that another verification of the tree is not refused.
            Ok(Some(_free)) if started.elapsed() < POLL => return Waited::NotRunning,
            Ok(Some(_free)) => return Waited::Ended(started.elapsed()),
            // A lock that cannot be taken for another reason than a holder tells nothing.
            Err(_) => return Waited::NotRunning,
            Ok(None) if Instant::now() >= until => return Waited::StillRunning,
            Ok(None) => {
                std::thread::sleep(POLL.min(until.saturating_duration_since(Instant::now())))
            }
        }
    }
}

/// The background verification of a session's start tree (`--verify-start TREE`): says on
/// stderr (its log) what it did, and exits 0 whatever happens.
fn verify_start(harness: Harness, args: &StopArgs, tree: &str) -> ExitCode {
    let note =
        match std::panic::catch_unwind(AssertUnwindSafe(|| verify_start_tree(harness, args, tree)))
        {
            Ok(Ok(note)) => note,
            Ok(Err(error)) => format!("verdict hook: {error:#}; the start tree stays unverified"),
            Err(_) => "verdict hook: verdict panicked; the start tree stays unverified".to_owned(),
        };
    let _ = writeln!(std::io::stderr(), "{note}");
    ExitCode::Success
}

/// Verifies `tree` of the project in a copy of it, and keeps the result by that tree, whatever
/// the project's tree is by then. Nothing is kept when the copy cannot be made or verified.
fn verify_start_tree(harness: Harness, args: &StopArgs, tree: &str) -> Result<String> {
    let dir = args
        .dir
        .as_deref()
        .context("--verify-start needs --dir, the project's root")?;
    let config = config::discover(dir).map_err(|error| anyhow!("{error}"))?;
    let root = config.project_dir().to_path_buf();
    // One verification per tree at a time, released however this process ends; taken first, so
    // that a stop that comes early finds it held and waits.
    let lock = lock_path(&root, tree);
    let Some(mut held) =
        FileLock::try_take(&lock).with_context(|| format!("failed to lock {}", lock.display()))?
    else {
        return Ok(format!(
            "verdict hook: tree {tree} is being verified by another session's start"
        ));
    };
    held.describe_holder(&format!("pid {}", std::process::id()))
        .with_context(|| format!("failed to write {}", lock.display()))?;
    let mut store = state::Store::open(&verdict_core::paths::state_db(&root))?;
    if verify::remembered(&mut store, tree)?.is_some() {
        unpin(&root, tree);
        return Ok(format!("verdict hook: tree {tree} was verified before"));
    }
    super::copy::sweep();
    let copy = StartCopy::make(&root, tree);
    unpin(&root, tree);
    let copy = copy?;
    let deadline = Instant::now() + Duration::from_secs(args.deadline_secs(harness));
    let mut verifications = match verify::run_copy(&root, &config, copy.dir(), deadline)? {
        Ok(verifications) => verifications,
        Err(cut) => {
            return Ok(format!(
                "verdict hook: the verification of tree {tree} was cut short ({cut:?})"
            ));
        }
    };
    copy.relocate(&root, &mut verifications)?;
    verify::remember(&mut store, tree, &verifications)?;
    Ok(format!(
        "verdict hook: tree {tree} verified in a copy of it and kept"
    ))
}

/// Removes the start tree's pin once its files are written out (or never will be); said on
/// stderr when that fails, which only leaves the tree in the store.
fn unpin(root: &Path, tree: &str) {
    if let Err(error) = Snapshots::open(root).and_then(|snapshots| snapshots.unpin(&pin_name(tree)))
    {
        eprintln!("verdict hook: failed to unpin tree {tree} ({error})");
    }
}
