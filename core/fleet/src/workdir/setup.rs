//! A task's setup command (`npm ci`, `pnpm install --frozen-lockfile`), run once in a fresh work
//! directory before the first attempt: a linked work tree or a clone has no `node_modules`.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{CommandSpec, Exit, ExitCodes, Runner};

use super::state;
use crate::error::{FleetError, Result};

/// How many of the log's last lines a failure quotes.
const TAIL_LINES: usize = 20;
/// How much of the log's end is read for them.
const TAIL_BYTES: u64 = 8 * 1024;

/// A setup command that ran and exited 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SetupOutcome {
    /// Its log (standard output and error, as they came).
    pub log: PathBuf,
    /// How long it ran.
    pub duration: Duration,
}

/// Runs `setup` in the work directory at `root` through `runner`: split into words as a shell
/// would, nothing expanded, no shell run. Its log is kept in verdict's directory for the work
/// directory. A command that cannot be split or started, exits non-zero, is killed by a signal or
/// runs past `timeout` is an error that says how it ended, quotes its last lines (redacted) and
/// names its log.
pub async fn run_setup(
    runner: &ProcessRunner,
    root: &Path,
    setup: &str,
    timeout: Duration,
) -> Result<SetupOutcome> {
    let fail = |message: String| FleetError::Setup {
        command: setup.to_owned(),
        message,
    };
    let mut words = verdict_core::split::split_command(setup)
        .map_err(|error| fail(error.reason))?
        .into_iter();
    let program = words.next().ok_or_else(|| fail("no command".into()))?;
    let log = state::setup_log(root);
    state::create_dir(&state::dir(root))?;
    let spec = CommandSpec {
        program: PathBuf::from(program),
        args: words.collect(),
        env: Default::default(),
        cwd: root.to_path_buf(),
        timeout,
        exit_codes: ExitCodes {
            pass: vec![0],
            fail: Vec::new(),
        },
        output_files: Vec::new(),
    };
    let captured = runner.run(&spec, &log).await;
    let ended = match &captured.exit {
        Exit::Code { code: 0 } => {
            state::mark_setup_done(root)?;
            return Ok(SetupOutcome {
                log,
                duration: captured.duration,
            });
        }
        Exit::Code { code } => format!("exited with code {code}"),
        Exit::Signal { signal } => format!("was killed by signal {signal}"),
        Exit::TimedOut => format!("ran past its {} s and was stopped", timeout.as_secs()),
        Exit::Cancelled => "was stopped (the worker was interrupted)".to_owned(),
        Exit::NotStarted { message } => format!("could not start: {message}"),
    };
    let tail = tail(&log);
    let said = if tail.is_empty() {
        "it printed nothing".to_owned()
    } else {
        format!("its last lines:\n{tail}")
    };
    Err(fail(format!("{ended}; {said}\n(log: {})", log.display())))
}

/// The last lines of the log, redacted.
fn tail(log: &Path) -> String {
    let Ok(mut file) = std::fs::File::open(log) else {
        return String::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(TAIL_BYTES);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err() || file.read_to_end(&mut bytes).is_err() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    // The first line of a cut read may be a part of one.
    let skip = usize::from(from > 0 && lines.len() > 1);
    let keep = lines.len().saturating_sub(TAIL_LINES).max(skip);
    lines[keep..]
        .iter()
        .map(|line| verdict_core::redact::redact(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}
