//! Running one git command with its stdin and stderr served by threads of their own.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;

use super::error::SnapshotError;

/// The most of git's stderr kept for an error message.
const STDERR_LIMIT: usize = 64 * 1024;
/// How many lines of git's stderr an error message quotes.
const STDERR_LINES: usize = 5;

/// What a git command printed on stdout.
pub(super) struct Captured {
    pub(super) stdout: Vec<u8>,
    /// Whether stdout was cut at the limit (the command was then stopped).
    pub(super) truncated: bool,
}

/// Runs `command` (named `name` in errors), feeding it `input`, keeping at most `limit` bytes of
/// its stdout. Stdin and stderr are served by threads of their own, so a full pipe never blocks.
pub(super) fn run(
    mut command: Command,
    name: &str,
    input: Option<Vec<u8>>,
    limit: Option<usize>,
) -> Result<Captured, SnapshotError> {
    command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|source| {
        if source.kind() == io::ErrorKind::NotFound {
            SnapshotError::GitMissing(source)
        } else {
            SnapshotError::Io {
                action: "start",
                path: PathBuf::from("git"),
                source,
            }
        }
    })?;
    let writer = match (input, child.stdin.take()) {
        (Some(input), Some(mut stdin)) => Some(thread::spawn(move || {
            // A git that stops reading early is reported by its exit status, not here.
            let _ = stdin.write_all(&input);
        })),
        _ => None,
    };
    let reader = child.stderr.take().map(|stderr| {
        thread::spawn(move || {
            let mut kept = Vec::new();
            let mut stderr = stderr;
            let _ = (&mut stderr)
                .take(STDERR_LIMIT as u64)
                .read_to_end(&mut kept);
            // The rest is read and dropped: a git blocked on a full pipe would never exit.
            let _ = io::copy(&mut stderr, &mut io::sink());
            kept
        })
    });
    let mut stdout = Vec::new();
    let mut truncated = false;
    if let Some(out) = child.stdout.take() {
        let cap = limit.map_or(u64::MAX, |l| l as u64 + 1);
        let read = out.take(cap).read_to_end(&mut stdout);
        if let Some(limit) = limit
            && stdout.len() > limit
        {
            stdout.truncate(limit);
            truncated = true;
            let _ = child.kill();
        }
        read.map_err(|source| SnapshotError::Io {
            action: "read the output of",
            path: PathBuf::from(name),
            source,
        })?;
    }
    let status = child.wait().map_err(|source| SnapshotError::Io {
        action: "wait for",
        path: PathBuf::from(name),
        source,
    })?;
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let stderr = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    if !status.success() && !truncated {
        let stderr = String::from_utf8_lossy(&stderr);
        let lines: Vec<&str> = stderr
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(STDERR_LINES)
            .collect();
        return Err(SnapshotError::Git {
            command: name.to_owned(),
            status: status.to_string(),
            stderr: if lines.is_empty() {
                "nothing on stderr".to_owned()
            } else {
                lines.join(" / ")
            },
        });
    }
    Ok(Captured { stdout, truncated })
}
