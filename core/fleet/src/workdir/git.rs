//! Running one git command on a task's repository or work directory: an argv vector (never a
//! shell string), its own process group stopped whole on a time-out, stdout kept up to a bound,
//! and none of the caller's `GIT_*` variables that could point it at another repository.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rustix::process::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use crate::error::{FleetError, Result};

/// How long a git command on a local repository may run.
pub(super) const LOCAL_TIMEOUT: Duration = Duration::from_secs(300);
/// How long a clone or fetch from a remote may run.
pub(super) const REMOTE_TIMEOUT: Duration = Duration::from_secs(1800);
/// How long a stopped git gets between `SIGTERM` and `SIGKILL`.
const GRACE: Duration = Duration::from_secs(2);
/// The most of git's stderr kept for a message.
const STDERR_LIMIT: usize = 64 * 1024;
/// How many lines of git's stderr a message quotes.
const STDERR_LINES: usize = 5;

/// Settings every command gets: a repository's own config must not start a process of its
/// choosing (an fsmonitor, a hook of a repository cloned from elsewhere), and bytes go in and
/// come out as they are.
const CONFIG: &[&str] = &[
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.autocrlf=false",
    "commit.gpgSign=false",
    // `ext::` runs a command; git refuses it by default, and so does verdict whatever the
    // user's config says.
    "protocol.ext.allow=never",
];

/// The `GIT_*` variables a command keeps: how git finds its programs and how it reaches a
/// remote (ssh, credentials, proxies, certificates). The rest (GIT_DIR, GIT_WORK_TREE,
/// GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY …) would point it at another repository.
const KEPT_ENV: &[&str] = &[
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_SSH_VARIANT",
    "GIT_ASKPASS",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_SSL_CAINFO",
    "GIT_SSL_CAPATH",
    "GIT_PROXY_COMMAND",
    "GIT_HTTP_USER_AGENT",
];

/// A git command being built: `git -C <dir> <config> <args…>`.
pub(super) struct Git {
    command: Command,
    name: String,
    timeout: Duration,
    limit: Option<usize>,
}

/// What a git command printed on stdout.
pub(super) struct Output {
    /// Its stdout, up to the limit.
    pub(super) stdout: Vec<u8>,
    /// How many bytes of stdout were past the limit (read and dropped).
    pub(super) cut: u64,
}

impl Output {
    /// Stdout as one trimmed line (a commit id, a path).
    pub(super) fn line(&self) -> String {
        String::from_utf8_lossy(&self.stdout).trim().to_owned()
    }
}

impl Git {
    /// `git -C dir args…`.
    pub(super) fn new<I, S>(dir: &Path, args: I) -> Git
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = Command::new("git");
        for (key, _) in std::env::vars_os() {
            if key.as_encoded_bytes().starts_with(b"GIT_")
                && !KEPT_ENV.iter().any(|kept| key == OsStr::new(kept))
            {
                command.env_remove(key);
            }
        }
        command.arg("-C").arg(dir);
        for setting in CONFIG {
            command.args(["-c", setting]);
        }
        let args: Vec<OsString> = args
            .into_iter()
            .map(|a| a.as_ref().to_os_string())
            .collect();
        let name = format!(
            "git {}",
            args.iter()
                .take(2)
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ")
        );
        command
            .args(&args)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        Git {
            command,
            name,
            timeout: LOCAL_TIMEOUT,
            limit: None,
        }
    }

    /// Adds one argument (a path, a revision).
    pub(super) fn arg(mut self, arg: impl AsRef<OsStr>) -> Git {
        self.command.arg(arg);
        self
    }

    /// Sets an environment variable.
    pub(super) fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Git {
        self.command.env(key, value);
        self
    }

    /// Sets how long it may run.
    pub(super) fn timeout(mut self, timeout: Duration) -> Git {
        self.timeout = timeout;
        self
    }

    /// Keeps at most `bytes` of stdout (the rest is read, counted and dropped).
    pub(super) fn limit(mut self, bytes: usize) -> Git {
        self.limit = Some(bytes);
        self
    }

    /// Runs it: its stdout when it exits 0, else an error quoting its stderr.
    pub(super) async fn run(self) -> Result<Output> {
        let Git {
            mut command,
            name,
            timeout,
            limit,
        } = self;
        let mut child = command.spawn().map_err(|error| FleetError::Git {
            command: name.clone(),
            message: format!("failed to start git: {error}"),
        })?;
        let group = child.id().and_then(|id| Pid::from_raw(id as i32));
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let work = async {
            let (out, err) = tokio::join!(
                read_bounded(stdout, limit.unwrap_or(usize::MAX)),
                read_bounded(stderr, STDERR_LIMIT),
            );
            let status = child.wait().await;
            (out, err, status)
        };
        let Ok((out, err, status)) = tokio::time::timeout(timeout, work).await else {
            // Stop the whole group: a clone's ssh or remote helper holds the pipes too.
            if let Some(group) = group {
                let _ = tokio::task::spawn_blocking(move || {
                    verdict_core::process::stop_group(group, GRACE)
                })
                .await;
            }
            return Err(FleetError::Git {
                command: name,
                message: format!("timed out after {} s and was stopped", timeout.as_secs()),
            });
        };
        let status = status.map_err(|error| FleetError::Git {
            command: name.clone(),
            message: format!("failed to wait for git: {error}"),
        })?;
        let (stdout, cut) = out;
        if !status.success() {
            let stderr = String::from_utf8_lossy(&err.0);
            let lines: Vec<&str> = stderr
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .take(STDERR_LINES)
                .collect();
            let said = if lines.is_empty() {
                "nothing on stderr".to_owned()
            } else {
                lines.join(" / ")
            };
            return Err(FleetError::Git {
                command: name,
                message: format!("{status}: {said}"),
            });
        }
        Ok(Output { stdout, cut })
    }
}

/// Reads `pipe` to its end, keeping the first `limit` bytes and counting the rest.
async fn read_bounded(pipe: Option<impl AsyncRead + Unpin>, limit: usize) -> (Vec<u8>, u64) {
    let mut kept = Vec::new();
    let mut cut = 0u64;
    let Some(mut pipe) = pipe else {
        return (kept, cut);
    };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = limit.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buf[..room]);
                cut += (n - room) as u64;
            }
        }
    }
    (kept, cut)
}
