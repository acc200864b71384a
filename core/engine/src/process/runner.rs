//! [`ProcessRunner`]: its settings, and one command's run from the log's creation to the output
//! files read back.

use std::collections::{BTreeMap, HashSet};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::process::Child;

use super::cancel::CancelHandle;
use super::contain::{self, Containment};
use super::drain::LogSink;
use super::outputs::{create_log, output_path, read_outputs, remove_stale_outputs};
use crate::verifier::{Captured, CommandSpec, Exit, Runner};

/// How long a stopped process group gets to exit before `SIGKILL`, unless configured.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// How long the output pipes may stay open after the tool exited, unless configured.
pub const DEFAULT_LEAK_TIMEOUT: Duration = Duration::from_millis(100);

/// The largest output file read back into [`Captured::output_files`], unless configured.
pub const DEFAULT_MAX_OUTPUT_FILE: u64 = 256 * 1024 * 1024;

/// The most bytes a command's log keeps, unless configured: its first and its last 16 MiB, with
/// a line between them saying how much was left out. Far above what a tool prints about a
/// project's failures (a failing run of thousands of tests prints a few MiB), so a summarizer
/// sees all a real run says; a tool that prints without end (a test logging in a loop) fills
/// no disk, and the last 16 MiB — held in memory until the end — hold its summary.
pub const DEFAULT_LOG_LIMIT: u64 = 32 * 1024 * 1024;

/// What [`ProcessRunner::run_with`] adds to a plain [`Runner::run`]: bytes for the command's
/// standard input and a hook told the child's pid as soon as it exists.
#[derive(Default)]
pub struct RunExtras {
    /// Written to the command's standard input, which is then closed (so the command sees the end
    /// of its input). `None` keeps standard input on `/dev/null`. A command that exits or closes its
    /// input without reading everything is not an error: the rest is dropped.
    pub stdin: Option<Vec<u8>>,
    /// Called once with the child's pid right after the spawn, before the command is awaited (the
    /// child may already have exited). The pid is also the child's process group id, since every
    /// command leads its own group. Not called when the command could not be started.
    pub on_spawn: Option<Box<dyn FnOnce(u32) + Send>>,
    /// The most bytes the log keeps; `None` keeps the runner's limit
    /// ([`ProcessRunner::with_log_limit`]). The log keeps the first half of it as the output
    /// arrives and the last half (held in memory until the end), with one line between them
    /// saying how many bytes were left out ([`Captured::log_cut`]): the beginning and the end of
    /// an output say what ran and how it ended (a runner's summary, why an agent stopped).
    pub log_limit: Option<u64>,
}

impl std::fmt::Debug for RunExtras {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunExtras")
            .field("stdin", &self.stdin.as_ref().map(Vec::len))
            .field("on_spawn", &self.on_spawn.is_some())
            .field("log_limit", &self.log_limit)
            .finish()
    }
}

/// The [`Runner`] that spawns real processes (see the module docs for what it guarantees).
#[derive(Debug, Clone)]
pub struct ProcessRunner {
    env: BTreeMap<String, String>,
    pub(super) grace: Duration,
    pub(super) leak_timeout: Duration,
    max_output_file: u64,
    log_limit: Option<u64>,
    pub(super) cancel: CancelHandle,
    records: Option<PathBuf>,
}

impl Default for ProcessRunner {
    fn default() -> Self {
        Self::new()
    }
}

impl ProcessRunner {
    /// A runner with the default grace period (5 s), leak timeout (100 ms), output-file cap
    /// (256 MiB) and log limit (32 MiB), adding no environment variables.
    pub fn new() -> Self {
        ProcessRunner {
            env: BTreeMap::new(),
            grace: DEFAULT_GRACE,
            leak_timeout: DEFAULT_LEAK_TIMEOUT,
            max_output_file: DEFAULT_MAX_OUTPUT_FILE,
            log_limit: Some(DEFAULT_LOG_LIMIT),
            cancel: CancelHandle::new(),
            records: None,
        }
    }

    /// Records each command in `dir` while it runs (`paths::running`), so that the next verdict
    /// in the workspace stops what this one leaves running if it is killed ([`super::stop_leftovers`]).
    pub fn with_records(mut self, dir: impl Into<PathBuf>) -> Self {
        self.records = Some(dir.into());
        self
    }

    /// Sets an environment variable for every command this runner starts. A command's own
    /// [`CommandSpec::env`] wins over it.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Sets how long a signalled process group gets before the next, harder signal.
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Sets how long the output pipes may stay open after the tool itself exited.
    pub fn with_leak_timeout(mut self, leak_timeout: Duration) -> Self {
        self.leak_timeout = leak_timeout;
        self
    }

    /// Sets the largest output file read back; a larger one is handed over as `None`.
    pub fn with_max_output_file(mut self, bytes: u64) -> Self {
        self.max_output_file = bytes;
        self
    }

    /// Sets the most bytes a command's log keeps (its first and last halves); `None` keeps all.
    pub fn with_log_limit(mut self, bytes: Option<u64>) -> Self {
        self.log_limit = bytes;
        self
    }

    /// A handle that cancels this runner's commands (shared by every clone of the runner).
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// Cancels every running and future command (see [`CancelHandle`]).
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Whether this runner has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The environment a command sees on top of verdict's own: the runner's, then the spec's.
    pub(super) fn merged_env<'a>(&'a self, spec: &'a CommandSpec) -> BTreeMap<&'a str, &'a str> {
        let mut env: BTreeMap<&str, &str> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        env.extend(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        env
    }
}

#[async_trait]
impl Runner for ProcessRunner {
    async fn run(&self, spec: &CommandSpec, log: &Path) -> Captured {
        self.run_with(spec, log, RunExtras::default()).await
    }
}

impl ProcessRunner {
    /// [`Runner::run`] with [`RunExtras`]: input fed to the command's standard input and a hook
    /// that learns the child's pid (= its process group) before the command is awaited. Every
    /// guarantee of the module docs holds the same (process group, time-out, cancellation, drained
    /// pipes, nothing left behind).
    pub async fn run_with(&self, spec: &CommandSpec, log: &Path, extras: RunExtras) -> Captured {
        let RunExtras {
            stdin,
            on_spawn,
            log_limit,
        } = extras;
        let mut captured = Captured {
            exit: Exit::Cancelled,
            log_path: log.to_path_buf(),
            log_bytes: 0,
            log_cut: 0,
            output_files: vec![None; spec.output_files.len()],
            duration: Duration::ZERO,
        };
        let file = match create_log(log) {
            Ok(file) => file,
            Err(error) => {
                captured.exit = Exit::NotStarted {
                    message: format!("failed to create the log `{}`: {error}", log.display()),
                };
                return captured;
            }
        };
        if self.is_cancelled() {
            return captured;
        }
        if let Err(message) = remove_stale_outputs(spec) {
            captured.exit = Exit::NotStarted { message };
            return captured;
        }
        // The duration counts from the spawn itself: the tool may be running before `spawn` returns.
        let mut contain = Containment::new(self.records.as_deref());
        let start = Instant::now();
        let spawned = {
            // Held across the spawn: the reaping of orphans never takes the command for one.
            let mut leaders = contain::leaders();
            let spawned = self.spawn(spec, stdin.is_some(), &contain);
            if let Some(pid) = spawned.as_ref().ok().and_then(Child::id) {
                leaders.get_or_insert_with(HashSet::new).insert(pid as i32);
            }
            spawned
        };
        let mut child = match spawned {
            Ok(child) => child,
            Err(error) => {
                captured.exit = Exit::NotStarted {
                    message: format!("failed to start `{}`: {error}", spec.program.display()),
                };
                return captured;
            }
        };
        contain.spawned(child.id());
        if let (Some(on_spawn), Some(pid)) = (on_spawn, child.id()) {
            on_spawn(pid);
        }
        // The input is written by its own task so that a command that reads slowly (or not at all)
        // cannot stop its output from being drained; a closed pipe (EPIPE) just ends the writing.
        let feeder = match (stdin, child.stdin.take()) {
            (Some(bytes), Some(mut pipe)) => Some(tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                let _ = pipe.write_all(&bytes).await;
                let _ = pipe.shutdown().await;
            })),
            _ => None,
        };
        let log_limit = log_limit.or(self.log_limit);
        let sink = LogSink::new(file, log_limit);
        let run = self.supervise(spec, &mut child, sink, start, contain).await;
        if let Some(feeder) = feeder {
            // The whole group is gone by now, so the pipe's reader is too; this cannot wait long.
            feeder.abort();
            let _ = feeder.await;
        }
        captured.exit = run.exit;
        // The sink keeps the first and last halves of the limit and drops the rest.
        captured.log_cut = log_limit.map_or(0, |limit| run.log_bytes.saturating_sub(limit));
        captured.log_bytes = match captured.log_cut {
            0 => run.log_bytes,
            _ => std::fs::metadata(log).map_or(run.log_bytes - captured.log_cut, |m| m.len()),
        };
        captured.duration = run.reaped.saturating_duration_since(start);
        if let Some(error) = run.log_error {
            captured.exit = Exit::NotStarted {
                message: format!("failed to write the log `{}`: {error}", log.display()),
            };
        }
        if !spec.output_files.is_empty() {
            captured.output_files = self.read_output_files(spec, log).await;
        }
        captured
    }

    /// The command's output files, made the owner's only where they lie beside its log.
    async fn read_output_files(&self, spec: &CommandSpec, log: &Path) -> Vec<Option<Vec<u8>>> {
        let paths: Vec<PathBuf> = spec
            .output_files
            .iter()
            .map(|path| output_path(spec, path))
            .collect();
        // A tool's report beside its log is raw output too: the owner's only, as the log.
        if let Some(dir) = log.parent() {
            for path in paths.iter().filter(|path| path.starts_with(dir)) {
                let _ = std::fs::set_permissions(
                    path,
                    std::fs::Permissions::from_mode(crate::files::PRIVATE_FILE),
                );
            }
        }
        let max = self.max_output_file;
        // Reports can be large: read them off the async threads.
        match tokio::task::spawn_blocking(move || read_outputs(&paths, max)).await {
            Ok(files) => files,
            Err(error) => {
                tracing::warn!(%error, "failed to read the output files");
                vec![None; spec.output_files.len()]
            }
        }
    }
}
