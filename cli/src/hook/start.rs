//! The session-start hook, and the verification of the tree a session begins on.
//!
//! A session's stops block only on failures that are new since it began, so what failed on its
//! start tree must be known. The session-start hook records that tree (a snapshot id) and, when
//! no verification of it is remembered, verifies it in the background: a detached `verdict hook
//! <harness> --verify-start <tree>` runs the project's verification in place and keeps the result
//! by tree id, as a stop does, but only if the tree is still the one it began on when the tools
//! end. An edit during the run would mix two states, and a failure of the agent's own set aside
//! as old would be a pass the project never earned.
//!
//! The hook waits for that run up to [`START_WAIT_SECS`], so a quick suite is known before the
//! agent's first edit; a longer one goes on after the hook has answered. When it is not known at
//! the first stop, every failure of that stop counts (see the stop hook).

use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use verdict_core::agent_loop::agent::LOOP_SESSION_ENV;
use verdict_core::lock::FileLock;

use super::{
    ANSWER_MARGIN_SECS, Event, Harness, START_TIMEOUT_SECS, StopArgs, parse_input, read_stdin,
    start_dir, state, verify,
};
use crate::config;
use crate::exit::ExitCode;

/// How long the session-start hook waits for the verification of the start tree before it
/// answers, in seconds. Long enough for a small project's suite; short enough that a session
/// does not seem to hang when the suite is long (that one goes on in the background).
const START_WAIT_SECS: u64 = 20;

/// The session-start hook: records the tree the session begins on, starts its verification when
/// none is remembered, and answers `{}`, whatever happens (it never holds a session up past its
/// wait); what went wrong is said on stderr. Without the record the session's first stop knows no
/// baseline, and every failure counts.
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
        record_start(harness, args, read, deadline)
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

/// Records, by the harness's session id, the snapshot id of the project's tree, and has that tree
/// verified unless a verification of it is remembered; returns the note for stderr. Nothing is
/// written into a project no verifier applies to.
fn record_start(
    harness: Harness,
    args: &StopArgs,
    input: std::io::Result<String>,
    deadline: Instant,
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
        let wait = Duration::from_secs(START_WAIT_SECS)
            .min(deadline.saturating_duration_since(Instant::now()));
        note.push_str(&spawn_verification(harness, &root, &tree, wait)?);
    }
    Ok(Some(note))
}

/// Starts the verification of `tree` in a process of its own (its own process group, so that a
/// harness that kills the hook leaves it running, and no pipe of the hook's, so that the harness
/// does not wait for it), and waits for it up to `wait`. Returns the rest of the note.
fn spawn_verification(harness: Harness, root: &Path, tree: &str, wait: Duration) -> Result<String> {
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
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .context("failed to start the verification of the session's start tree")?;
    let until = Instant::now() + wait;
    loop {
        if child
            .try_wait()
            .context("failed to wait for the verification of the start tree")?
            .is_some()
        {
            return Ok("; verified it".to_owned());
        }
        if Instant::now() >= until {
            return Ok(format!(
                "; verifying it goes on in the background (log: {})",
                log_path.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// verdict's `hook/` directory, where the start verifications keep their log and lock.
fn hook_dir(root: &Path) -> std::path::PathBuf {
    verdict_core::paths::hook_dir(root)
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

/// Verifies the project if its tree is `tree`, and keeps the result by that tree if it still is
/// when the tools end.
fn verify_start_tree(harness: Harness, args: &StopArgs, tree: &str) -> Result<String> {
    let dir = args
        .dir
        .as_deref()
        .context("--verify-start needs --dir, the project's root")?;
    let config = config::discover(dir).map_err(|error| anyhow!("{error}"))?;
    let root = config.project_dir().to_path_buf();
    let selected = verify::select(&root, &config)?;
    if selected.is_empty() {
        return Ok("verdict hook: no verifier applies; nothing to verify".to_owned());
    }
    let secs = args.deadline_secs(harness);
    // One verification per tree at a time, released however this process ends.
    let lock = hook_dir(&root).join(format!("verify-start-{tree}.lock"));
    let Some(_lock) =
        FileLock::try_take(&lock).with_context(|| format!("failed to lock {}", lock.display()))?
    else {
        return Ok(format!(
            "verdict hook: tree {tree} is being verified by another session's start"
        ));
    };
    let mut store = state::Store::open(&verdict_core::paths::state_db(&root))?;
    if verify::remembered(&mut store, tree)?.is_some() {
        return Ok(format!("verdict hook: tree {tree} was verified before"));
    }
    if verify::tree_id(&root).as_deref() != Some(tree) {
        return Ok(format!(
            "verdict hook: the tree changed before tree {tree} could be verified"
        ));
    }
    let deadline = Instant::now() + Duration::from_secs(secs);
    let verifications = match verify::run(&root, &config, &selected, deadline)? {
        Ok(verifications) => verifications,
        Err(cut) => {
            return Ok(format!(
                "verdict hook: the verification of tree {tree} was cut short ({cut:?})"
            ));
        }
    };
    // Taken after the tools ended: an edit while they ran changes it.
    if verify::tree_id(&root).as_deref() != Some(tree) {
        return Ok(format!(
            "verdict hook: the tree changed while tree {tree} was verified; its result is not \
             kept"
        ));
    }
    verify::remember(&mut store, tree, &verifications)?;
    Ok(format!("verdict hook: tree {tree} verified and kept"))
}
