//! The one module that spawns processes: [`ProcessRunner`], the [`Runner`] every verifier's
//! command goes through.
//!
//! What it guarantees, in the manner of cargo-nextest's runner:
//!
//! - **No shell.** The program and its arguments are an argv vector. A bare program name is looked
//!   up on the `PATH` the command will see (the spec's, else the runner's, else verdict's own); a
//!   relative path with a `/` is resolved against the command's working directory. Standard input is
//!   `/dev/null`, so a tool that waits for input cannot hang a run — unless
//!   [`ProcessRunner::run_with`] is given bytes for it (an agent's prompt), which are written and
//!   then the pipe is closed.
//! - **A process group per command.** The child is the leader of a new process group, so that a
//!   time-out, Ctrl-C or cleanup reaches every process it started (the node processes that `npx`
//!   spawns, a test runner's workers), not just the first one.
//! - **Stopping is graceful, then certain.** On a time-out the group gets `SIGTERM`, then, if
//!   anything is still alive after the grace period, `SIGKILL`. On cancellation (Ctrl-C) the group
//!   first gets `SIGINT` — what the tool would have received from the terminal had it been in the
//!   foreground group — then the same grace → `SIGTERM` → grace → `SIGKILL` flow. A second cancel
//!   (a second Ctrl-C) skips what is left of the grace periods. A tool ended by a signal it did not
//!   get from us is [`Exit::Signal`].
//! - **Pipes drained while the tool runs.** Standard output and standard error are read
//!   concurrently and written to the log file in the order they arrive, so a tool that writes
//!   megabytes to one of them never blocks, and memory stays bounded whatever the output size.
//! - **Nothing is left behind.** Once the tool exits, its pipes get a short *leak timeout* to close
//!   (a grandchild that inherited them may keep them open); then any process still in the group is
//!   stopped with the same grace flow, and the tool itself is always reaped. Processes that left the
//!   group on purpose (`setsid`, a daemonizing tool) are out of reach of any process-group
//!   approach; their hold on the pipes is cut after the leak timeout so they cannot hang verdict.
//!   The group's other members are not our children (they are reparented when the tool exits), so
//!   reaping them is their new parent's job; a member that is already a zombie counts as gone.
//! - **Output files are fresh.** [`CommandSpec::output_files`] (relative ones against the working
//!   directory) are deleted before the tool starts and read back after it ends, so a tool that
//!   dies before writing its report is never credited with the previous run's. One that was not
//!   written, cannot be read, or is larger than the cap (256 MiB by default) is handed over as
//!   `None`, with a warning: the verifier then falls back on the log, or reports the run as
//!   errored if it cannot do without the file — never a pass built on a cut-off report.
//! - **Fail closed.** A program that cannot be started, a working directory that does not exist, a
//!   stale output file that cannot be removed or a log that cannot be written all end as
//!   [`Exit::NotStarted`] with a message naming what failed — an errored verification, never a pass.
//!
//! **Invariant:** this is the only module in verdict that spawns processes.

use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use rustix::process::{Pid, Signal};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStderr, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

use crate::verifier::{Captured, CommandSpec, Exit, Runner};

/// How long a stopped process group gets to exit before `SIGKILL`, unless configured.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// How long the output pipes may stay open after the tool exited, unless configured.
pub const DEFAULT_LEAK_TIMEOUT: Duration = Duration::from_millis(100);

/// The largest output file read back into [`Captured::output_files`], unless configured.
pub const DEFAULT_MAX_OUTPUT_FILE: u64 = 256 * 1024 * 1024;

/// How often a process group is checked for survivors while it is given its grace period.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// How long to wait for the kernel to finish off a group after `SIGKILL`.
const KILL_WAIT: Duration = Duration::from_secs(1);

/// The size of each read from a pipe.
const READ_BUFFER: usize = 64 * 1024;

/// Stops the commands of a [`ProcessRunner`]: cloned freely, typically into a Ctrl-C handler.
///
/// Cancelling is final: running commands are stopped (`SIGINT`, grace, `SIGTERM`, grace,
/// `SIGKILL`) and end as [`Exit::Cancelled`], and commands started afterwards end as
/// [`Exit::Cancelled`] at once, without being spawned. Cancelling a second time (a second Ctrl-C)
/// cuts the grace periods short: whatever is still running gets `SIGKILL` at once.
#[derive(Debug, Clone)]
pub struct CancelHandle {
    /// How many times [`CancelHandle::cancel`] was called (saturating).
    sender: Arc<watch::Sender<u8>>,
}

impl CancelHandle {
    fn new() -> Self {
        CancelHandle {
            sender: Arc::new(watch::Sender::new(0)),
        }
    }

    /// Cancels every running and future command of the runner this handle came from; called again,
    /// kills what is still running without waiting for the grace periods.
    pub fn cancel(&self) {
        self.sender
            .send_modify(|count| *count = count.saturating_add(1));
    }

    /// Whether [`CancelHandle::cancel`] has been called.
    pub fn is_cancelled(&self) -> bool {
        *self.sender.borrow() > 0
    }

    /// Resolves once [`CancelHandle::cancel`] has been called (at once if it has): for waits
    /// outside a command (a backoff between agent sessions) that a Ctrl-C must cut short.
    pub async fn cancelled_once(&self) {
        self.cancelled(1).await;
    }

    /// Whether [`CancelHandle::cancel`] has been called twice: no more grace.
    fn is_hurried(&self) -> bool {
        *self.sender.borrow() > 1
    }

    /// Resolves once [`CancelHandle::cancel`] has been called `times` times (at once if it has).
    async fn cancelled(&self, times: u8) {
        let mut receiver = self.sender.subscribe();
        // An error means the sender is gone, which cannot happen while `self` holds it.
        let _ = receiver.wait_for(|count| *count >= times).await;
    }
}

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
    /// The most bytes the log keeps; `None` keeps everything (a tool's log is parsed whole). With a
    /// limit, the log keeps the first half of it as the output arrives and the last half (held in
    /// memory until the end), with one line between them saying how many bytes were left out:
    /// for an agent's session, whose beginning and end say what it did and why it stopped, and
    /// which may print without end.
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
    grace: Duration,
    leak_timeout: Duration,
    max_output_file: u64,
    cancel: CancelHandle,
}

impl Default for ProcessRunner {
    fn default() -> Self {
        Self::new()
    }
}

impl ProcessRunner {
    /// A runner with the default grace period (5 s), leak timeout (100 ms) and output-file cap
    /// (256 MiB), adding no environment variables.
    pub fn new() -> Self {
        ProcessRunner {
            env: BTreeMap::new(),
            grace: DEFAULT_GRACE,
            leak_timeout: DEFAULT_LEAK_TIMEOUT,
            max_output_file: DEFAULT_MAX_OUTPUT_FILE,
            cancel: CancelHandle::new(),
        }
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
    fn merged_env<'a>(&'a self, spec: &'a CommandSpec) -> BTreeMap<&'a str, &'a str> {
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
        let start = Instant::now();
        let mut child = match self.spawn(spec, stdin.is_some()) {
            Ok(child) => child,
            Err(error) => {
                captured.exit = Exit::NotStarted {
                    message: format!("failed to start `{}`: {error}", spec.program.display()),
                };
                return captured;
            }
        };
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
        let sink = LogSink::new(file, log_limit);
        let run = self.supervise(spec, &mut child, sink, start).await;
        if let Some(feeder) = feeder {
            // The whole group is gone by now, so the pipe's reader is too; this cannot wait long.
            feeder.abort();
            let _ = feeder.await;
        }
        captured.exit = run.exit;
        captured.log_bytes = run.log_bytes;
        captured.duration = run.reaped.saturating_duration_since(start);
        if let Some(error) = run.log_error {
            captured.exit = Exit::NotStarted {
                message: format!("failed to write the log `{}`: {error}", log.display()),
            };
        }
        if !spec.output_files.is_empty() {
            // Reports can be large: read them off the async threads.
            let paths: Vec<PathBuf> = spec
                .output_files
                .iter()
                .map(|path| output_path(spec, path))
                .collect();
            let max = self.max_output_file;
            captured.output_files =
                match tokio::task::spawn_blocking(move || read_outputs(&paths, max)).await {
                    Ok(files) => files,
                    Err(error) => {
                        tracing::warn!(%error, "failed to read the output files");
                        vec![None; spec.output_files.len()]
                    }
                };
        }
        captured
    }
}

/// What [`ProcessRunner::supervise`] found out.
struct Supervised {
    exit: Exit,
    reaped: Instant,
    log_bytes: u64,
    log_error: Option<io::Error>,
}

/// Why the wait for the tool ended.
enum Ending {
    Exited(io::Result<ExitStatus>),
    TimedOut,
    Cancelled,
}

impl ProcessRunner {
    /// Builds and spawns the command: resolved program, argv, environment, working directory, its
    /// own process group, stdin piped when `piped_stdin` (else `/dev/null`), stdout and stderr
    /// piped.
    fn spawn(&self, spec: &CommandSpec, piped_stdin: bool) -> io::Result<Child> {
        std::fs::metadata(&spec.cwd)
            .and_then(|meta| {
                if meta.is_dir() {
                    Ok(())
                } else {
                    Err(io::Error::from(rustix::io::Errno::NOTDIR))
                }
            })
            .map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("working directory `{}`: {error}", spec.cwd.display()),
                )
            })?;
        let env = self.merged_env(spec);
        let path_var = env
            .get("PATH")
            .map(OsString::from)
            .or_else(|| std::env::var_os("PATH"));
        let program = resolve_program(&spec.program, &spec.cwd, path_var.as_deref())?;
        let mut command = Command::new(program);
        command
            .args(&spec.args)
            .envs(env)
            .current_dir(&spec.cwd)
            .stdin(if piped_stdin {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            // If the future running this command is dropped, tokio kills and reaps the direct child;
            // `GroupGuard` takes care of the rest of its group.
            .kill_on_drop(true);
        // A signal ignored by verdict (started in the background by a script, under `nohup`, by a
        // CI runner) would be ignored by every tool too, since ignored signals survive exec: the
        // SIGINT a cancellation forwards would then never reach a tool's own handler. The tool
        // gets the default dispositions a program started from a terminal has.
        #[allow(unsafe_code)]
        // SAFETY: the closure runs in the child between fork and exec; it only calls `signal`,
        // which is async-signal-safe, and touches no state of the parent.
        unsafe {
            command.pre_exec(|| {
                for signal in [libc::SIGINT, libc::SIGQUIT, libc::SIGTERM] {
                    libc::signal(signal, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        command.spawn()
    }

    /// Drains the child's output into `file` while waiting for it to exit, time out or be
    /// cancelled; then stops whatever is left of its process group.
    async fn supervise(
        &self,
        spec: &CommandSpec,
        child: &mut Child,
        sink: LogSink,
        start: Instant,
    ) -> Supervised {
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw);
        let mut guard = GroupGuard { group };
        let (stop_drain, stop_drain_rx) = oneshot::channel();
        let mut drain = tokio::spawn(drain(
            child.stdout.take(),
            child.stderr.take(),
            sink,
            stop_drain_rx,
        ));
        let mut stopper = Stopper {
            group,
            grace: self.grace,
            cancel: self.cancel.clone(),
            int_sent: false,
            term_sent: None,
        };

        let deadline = start.checked_add(spec.timeout);
        let ending = tokio::select! {
            status = child.wait() => Ending::Exited(status),
            () = sleep_until(deadline) => Ending::TimedOut,
            () = self.cancel.cancelled(1) => Ending::Cancelled,
        };
        let (exit, status) = match ending {
            Ending::Exited(status) => (None, status),
            Ending::TimedOut => {
                let status = stopper.stop(child, &[Signal::TERM]).await;
                (Some(Exit::TimedOut), status)
            }
            Ending::Cancelled => {
                let status = stopper.stop(child, &[Signal::INT, Signal::TERM]).await;
                (Some(Exit::Cancelled), status)
            }
        };
        let reaped = Instant::now();
        let exit = exit.unwrap_or_else(|| match status {
            Ok(status) => exit_of(status),
            Err(error) => Exit::NotStarted {
                message: format!("failed to wait for the tool: {error}"),
            },
        });

        // The tool is gone; its pipes get the leak timeout to close. A grandchild that still holds
        // them is stopped with the rest of the group, and whatever escaped the group loses its hold
        // on the pipes after one more leak timeout.
        let mut drained = tokio::time::timeout(self.leak_timeout, &mut drain)
            .await
            .ok();
        stopper.clear().await;
        if drained.is_none() {
            drained = tokio::time::timeout(self.leak_timeout, &mut drain)
                .await
                .ok();
        }
        let drained = match drained {
            Some(joined) => joined,
            None => {
                let _ = stop_drain.send(());
                drain.await
            }
        };
        guard.group = None;
        let (log_bytes, log_error) = match drained {
            Ok(Drained { bytes, error }) => (bytes, error),
            Err(join_error) => (0, Some(io::Error::other(join_error.to_string()))),
        };
        Supervised {
            exit,
            reaped,
            log_bytes,
            log_error,
        }
    }
}

/// Sends the signals that stop a process group, remembering when `SIGTERM` went out so that the
/// group's grace period is counted once, and cutting every grace period short on a second cancel.
struct Stopper {
    group: Option<Pid>,
    grace: Duration,
    cancel: CancelHandle,
    int_sent: bool,
    term_sent: Option<Instant>,
}

impl Stopper {
    fn signal(&mut self, signal: Signal) {
        let Some(group) = self.group else { return };
        if signal == Signal::INT {
            if self.int_sent {
                return;
            }
            self.int_sent = true;
        }
        if signal == Signal::TERM {
            if self.term_sent.is_some() {
                return;
            }
            self.term_sent = Some(Instant::now());
        }
        // ESRCH (the group is already gone) is what we want; nothing else can go wrong for a
        // group we created.
        let _ = rustix::process::kill_process_group(group, signal);
    }

    /// Stops the running tool: each signal in turn, a grace period after each, then `SIGKILL`.
    /// Returns the tool's exit status once it is reaped.
    async fn stop(&mut self, child: &mut Child, signals: &[Signal]) -> io::Result<ExitStatus> {
        for &signal in signals {
            if self.cancel.is_hurried() {
                break;
            }
            self.signal(signal);
            tokio::select! {
                waited = tokio::time::timeout(self.grace, child.wait()) => {
                    if let Ok(status) = waited {
                        return status;
                    }
                }
                () = self.cancel.cancelled(2) => break,
            }
        }
        self.signal(Signal::KILL);
        child.wait().await
    }

    /// Makes sure no process of the group survives the tool: `SIGINT` first if the run was
    /// cancelled, then `SIGTERM`, each with the grace period (counted once for `SIGTERM`, from when
    /// it was first sent), then `SIGKILL`.
    async fn clear(&mut self) {
        let Some(group) = self.group else { return };
        if !group_alive(group) {
            return;
        }
        tracing::debug!(
            group = group.as_raw_pid(),
            "the tool left processes running; stopping them"
        );
        if self.cancel.is_cancelled() && !self.int_sent {
            self.signal(Signal::INT);
            if self
                .wait_group_gone(group, Instant::now() + self.grace)
                .await
            {
                return;
            }
        }
        self.signal(Signal::TERM);
        let term_sent = self.term_sent.unwrap_or_else(Instant::now);
        if self.wait_group_gone(group, term_sent + self.grace).await {
            return;
        }
        self.signal(Signal::KILL);
        // SIGKILL cannot be ignored; a short wait lets the kernel finish the job before we return.
        let _ = wait_group_gone(group, Instant::now() + KILL_WAIT).await;
    }

    /// [`wait_group_gone`], cut short (false) by a second cancel.
    async fn wait_group_gone(&self, group: Pid, until: Instant) -> bool {
        tokio::select! {
            gone = wait_group_gone(group, until) => gone,
            () = self.cancel.cancelled(2) => false,
        }
    }
}

/// Kills the group if a run is abandoned half-way (its future dropped).
struct GroupGuard {
    group: Option<Pid>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(group) = self.group.take() {
            let _ = rustix::process::kill_process_group(group, Signal::KILL);
        }
    }
}

/// Waits until no live process is left in `group`, or `until`; true when the group is gone.
async fn wait_group_gone(group: Pid, until: Instant) -> bool {
    loop {
        if !group_alive(group) {
            return true;
        }
        let now = Instant::now();
        if now >= until {
            return false;
        }
        tokio::time::sleep(POLL_INTERVAL.min(until - now)).await;
    }
}

/// Whether any process of `group` is still running. Zombies do not count: the group's other
/// members are reparented when the tool exits, and reaping them is their new parent's job (one that
/// does not reap — a container's minimal init — must not make us wait a full grace period).
fn group_alive(group: Pid) -> bool {
    match rustix::process::test_kill_process_group(group) {
        Err(rustix::io::Errno::SRCH) => false,
        // EPERM: only processes we may not signal are left (a setuid program); nothing we can do.
        Err(_) => false,
        Ok(()) => group_has_live_member(group).unwrap_or(true),
    }
}

/// Scans `/proc` for a member of `group` that is not a zombie; `None` when `/proc` cannot be read.
fn group_has_live_member(group: Pid) -> Option<bool> {
    let group = group.as_raw_pid();
    for entry in std::fs::read_dir("/proc").ok()? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some((state, pgrp)) = parse_stat(&stat)
            && pgrp == group
            && state != 'Z'
            && state != 'X'
        {
            return Some(true);
        }
    }
    Some(false)
}

/// The state and process group of a `/proc/<pid>/stat` line: `pid (comm) state ppid pgrp …`.
/// The command name may contain spaces and parentheses, so the fields start after the last `)`.
fn parse_stat(stat: &str) -> Option<(char, i32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// How a reaped tool ended.
fn exit_of(status: ExitStatus) -> Exit {
    match (status.code(), status.signal()) {
        (Some(code), _) => Exit::Code { code },
        (None, Some(signal)) => Exit::Signal { signal },
        // Neither a code nor a signal: cannot happen for a reaped process on Unix, and must not
        // pass for success if it ever does.
        (None, None) => Exit::NotStarted {
            message: format!("the tool ended with an unknown status: {status}"),
        },
    }
}

/// Sleeps until `deadline`; forever when there is none (a time-out too large to represent).
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline.into()).await,
        None => std::future::pending().await,
    }
}

/// Creates the log file and its parent directories.
fn create_log(log: &Path) -> io::Result<File> {
    if let Some(parent) = log.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent)?;
    }
    File::create(log)
}

/// An output file's path: relative ones are relative to the command's working directory.
fn output_path(spec: &CommandSpec, path: &Path) -> PathBuf {
    spec.cwd.join(path)
}

/// Removes output files left by an earlier run, so that a tool that fails before writing its
/// report cannot be credited with the last run's.
fn remove_stale_outputs(spec: &CommandSpec) -> Result<(), String> {
    for path in &spec.output_files {
        let path = output_path(spec, path);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(format!(
                    "failed to remove the stale output file `{}`: {error}",
                    path.display()
                ));
            }
        }
    }
    Ok(())
}

/// Reads the output files back. A file the tool did not write is `None`; so is one larger than
/// `max` or one that cannot be read — the verifier then falls back on the log, and a verifier that
/// cannot do without the file must report the run as errored. A warning names the file.
fn read_outputs(paths: &[PathBuf], max: u64) -> Vec<Option<Vec<u8>>> {
    paths
        .iter()
        .map(|path| {
            let read = || -> io::Result<Option<Vec<u8>>> {
                let file = match File::open(path) {
                    Ok(file) => file,
                    Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
                    Err(error) => return Err(error),
                };
                let len = file.metadata()?.len();
                if len > max {
                    tracing::warn!(
                        path = %path.display(),
                        len,
                        max,
                        "output file larger than the cap; not read"
                    );
                    return Ok(None);
                }
                let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
                io::Read::read_to_end(&mut io::Read::take(file, max + 1), &mut bytes)?;
                if bytes.len() as u64 > max {
                    tracing::warn!(path = %path.display(), max, "output file grew past the cap; not read");
                    return Ok(None);
                }
                Ok(Some(bytes))
            };
            read().unwrap_or_else(|error| {
                tracing::warn!(path = %path.display(), %error, "failed to read an output file");
                None
            })
        })
        .collect()
}

/// Resolves the program to execute: a path with a `/` as is (relative ones against `cwd`), a bare
/// name on `path_var`. A name found nowhere is `ENOENT`; one found only without the execute bit is
/// handed to the OS so that it fails with `EACCES`.
fn resolve_program(
    program: &Path,
    cwd: &Path,
    path_var: Option<&std::ffi::OsStr>,
) -> io::Result<PathBuf> {
    if program.components().count() > 1 || program.is_absolute() {
        // Absolute, so that a relative working directory cannot make it ambiguous.
        return std::path::absolute(cwd.join(program));
    }
    let mut not_executable = None;
    for dir in std::env::split_paths(path_var.unwrap_or_default()) {
        if dir.as_os_str().is_empty() {
            continue;
        }
        let candidate = std::path::absolute(cwd.join(dir).join(program))?;
        match std::fs::metadata(&candidate) {
            Ok(meta) if meta.is_file() && meta.permissions().mode() & 0o111 != 0 => {
                return Ok(candidate);
            }
            Ok(meta) if meta.is_file() => {
                not_executable.get_or_insert(candidate);
            }
            _ => {}
        }
    }
    not_executable.ok_or_else(|| io::Error::from(rustix::io::Errno::NOENT))
}

/// What [`drain`] wrote.
struct Drained {
    /// Every byte the tool printed, kept or not.
    bytes: u64,
    error: Option<io::Error>,
}

/// Where the output goes: the log file, whole or, with a limit, its first half as it arrives and
/// its last half at the end (see [`RunExtras::log_limit`]).
struct LogSink {
    file: File,
    /// How many more bytes go straight to the file; `u64::MAX` without a limit.
    head_left: u64,
    /// The last bytes, once the head is full.
    tail: VecDeque<u8>,
    tail_cap: usize,
    /// Bytes neither in the head nor in the tail.
    dropped: u64,
}

impl LogSink {
    fn new(file: File, limit: Option<u64>) -> LogSink {
        let (head, tail_cap) = match limit {
            Some(limit) => {
                let tail = usize::try_from(limit / 2).unwrap_or(usize::MAX);
                (limit - limit / 2, tail)
            }
            None => (u64::MAX, 0),
        };
        LogSink {
            file,
            head_left: head,
            tail: VecDeque::new(),
            tail_cap,
            dropped: 0,
        }
    }

    fn write(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        if self.head_left > 0 {
            let n = usize::try_from(self.head_left)
                .unwrap_or(usize::MAX)
                .min(bytes.len());
            self.file.write_all(&bytes[..n])?;
            self.head_left -= n as u64;
            bytes = &bytes[n..];
        }
        if bytes.is_empty() {
            return Ok(());
        }
        if bytes.len() >= self.tail_cap {
            let keep = &bytes[bytes.len() - self.tail_cap..];
            self.dropped += (self.tail.len() + bytes.len() - keep.len()) as u64;
            self.tail.clear();
            self.tail.extend(keep);
            return Ok(());
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..overflow);
        self.dropped += overflow as u64;
        self.tail.extend(bytes);
        Ok(())
    }

    /// Writes the tail, after a line saying what was left out, and flushes.
    fn finish(&mut self) -> io::Result<()> {
        if self.dropped > 0 {
            let note = format!(
                "\n[verdict: {} bytes of output left out here; the log keeps the first and last {} bytes]\n",
                self.dropped, self.tail_cap
            );
            self.file.write_all(note.as_bytes())?;
        }
        let (front, back) = self.tail.as_slices();
        self.file.write_all(front)?;
        self.file.write_all(back)?;
        self.tail = VecDeque::new();
        self.file.flush()
    }
}

/// The longest part of a line held back until its end arrives (see [`drain`]); a longer one is
/// written as it is.
const MAX_PARTIAL_LINE: usize = 64 * 1024;

/// A stream's unfinished line.
#[derive(Default)]
struct Partial {
    bytes: Vec<u8>,
    /// Part of this line was written already (it outgrew [`MAX_PARTIAL_LINE`]: output without line
    /// ends, binary or a progress bar): the rest need not wait for the other stream either.
    split: bool,
}

/// Writes what stream `from` (0 stdout, 1 stderr) sent to `sink` up to its last line end, and
/// keeps the rest of the line in `partial[from]` until it ends: the other stream's lines then
/// never land inside it.
fn write_lines(
    sink: &mut LogSink,
    partial: &mut [Partial; 2],
    from: usize,
    bytes: &[u8],
) -> io::Result<()> {
    let other = &mut partial[1 - from];
    if other.split && !other.bytes.is_empty() {
        // Already split: keep the order in which the bytes came.
        sink.write(&other.bytes)?;
        other.bytes.clear();
    }
    let pending = &mut partial[from];
    match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => {
            if !pending.bytes.is_empty() {
                sink.write(&pending.bytes)?;
                pending.bytes.clear();
            }
            sink.write(&bytes[..=last])?;
            pending.bytes.extend_from_slice(&bytes[last + 1..]);
            pending.split = false;
        }
        None => pending.bytes.extend_from_slice(bytes),
    }
    if pending.bytes.len() >= MAX_PARTIAL_LINE {
        sink.write(&pending.bytes)?;
        pending.bytes.clear();
        pending.split = true;
    }
    Ok(())
}

/// Copies stdout and stderr to `sink` as they arrive until both close or `stop` fires, a line at
/// a time: a stream's unfinished line waits for its end, so that what the other stream sends
/// meanwhile never splits it (libtest's `test x ... ` on stdout, waiting for its result, once took
/// cargo's `error: test failed` from stderr into the same line, and the crash it reported was
/// lost). A stream's last line without a line end is written once both streams have closed. A
/// write error is remembered and the pipes are still drained (discarding), so the tool never
/// blocks.
async fn drain(
    mut stdout: Option<ChildStdout>,
    mut stderr: Option<ChildStderr>,
    mut sink: LogSink,
    mut stop: oneshot::Receiver<()>,
) -> Drained {
    let mut out_buf = vec![0u8; READ_BUFFER];
    let mut err_buf = vec![0u8; READ_BUFFER];
    let mut drained = Drained {
        bytes: 0,
        error: None,
    };
    // The unfinished line of stdout and of stderr.
    let mut partial: [Partial; 2] = [Partial::default(), Partial::default()];
    while stdout.is_some() || stderr.is_some() {
        // Standard output first when both have data waiting: what a tool wrote there before a
        // line of standard error is then read before it (a `harness = false` test's output
        // stays before cargo's `test failed`). Standard error can still be read late.
        let (read, from_stdout) = tokio::select! {
            biased;
            _ = &mut stop => break,
            read = read_some(&mut stdout, &mut out_buf) => (read, true),
            read = read_some(&mut stderr, &mut err_buf) => (read, false),
        };
        let buf = if from_stdout { &out_buf } else { &err_buf };
        let from = usize::from(!from_stdout);
        match read {
            Ok(0) | Err(_) => {
                if from_stdout {
                    stdout = None;
                } else {
                    stderr = None;
                }
                // Its unfinished line waits for the end: written now, the other stream's next
                // line (already sent, but not read yet) would run on from it.
            }
            Ok(n) => {
                if drained.error.is_none() {
                    match write_lines(&mut sink, &mut partial, from, &buf[..n]) {
                        Ok(()) => drained.bytes += n as u64,
                        Err(error) => drained.error = Some(error),
                    }
                }
            }
        }
    }
    for pending in &partial {
        if drained.error.is_none()
            && !pending.bytes.is_empty()
            && let Err(error) = sink.write(&pending.bytes)
        {
            drained.error = Some(error);
        }
    }
    if drained.error.is_none()
        && let Err(error) = sink.finish()
    {
        drained.error = Some(error);
    }
    drained
}

/// Reads from a pipe that may already be closed (then never resolves, so `select!` ignores it).
async fn read_some<R: tokio::io::AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
) -> io::Result<usize> {
    match pipe {
        Some(pipe) => pipe.read(buf).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_after_the_last_parenthesis() {
        assert_eq!(parse_stat("42 (sh) S 1 40 40 0 -1"), Some(('S', 40)));
        assert_eq!(parse_stat("42 (a) b) (c) Z 1 7 7 0"), Some(('Z', 7)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn bare_names_are_looked_up_on_path_and_paths_resolved_against_cwd() {
        let cwd = Path::new("/project");
        assert_eq!(
            resolve_program(Path::new("./bin/tool"), cwd, None).ok(),
            Some(PathBuf::from("/project/bin/tool"))
        );
        let missing = resolve_program(Path::new("surely-not-a-program"), cwd, Some("".as_ref()));
        assert_eq!(missing.err().map(|e| e.raw_os_error()), Some(Some(2)));
    }
}
