//! Spawning one command in its own process group and watching it to its end: exit, time-out or
//! cancel, then whatever is left of its group.

use std::ffi::OsString;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Instant;

use rustix::process::{Pid, Signal};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

use super::contain::{self, Containment, MARKER_ENV};
use super::drain::{Drained, LogSink, drain};
use super::runner::ProcessRunner;
use super::stop::{GroupGuard, Stopper};
use crate::verifier::{CommandSpec, Exit};

/// What [`ProcessRunner::supervise`] found out.
pub(super) struct Supervised {
    pub(super) exit: Exit,
    pub(super) reaped: Instant,
    pub(super) log_bytes: u64,
    pub(super) log_error: Option<io::Error>,
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
    /// piped, and its containment: the marker in its environment, its cgroup joined before exec.
    pub(super) fn spawn(
        &self,
        spec: &CommandSpec,
        piped_stdin: bool,
        contain: &Containment,
    ) -> io::Result<Child> {
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
            .env(MARKER_ENV, &contain.marker)
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
        // The child moves itself into its cgroup before exec: from its first instruction, the
        // tool and everything it starts are inside. A write that fails leaves it outside, which
        // `Containment::spawned` finds and falls back on the subreaper for.
        let procs_fd = contain.cgroup_procs_fd();
        #[allow(unsafe_code)]
        // SAFETY: the closure runs in the child between fork and exec; it only calls `signal` and
        // `write` on a descriptor opened before the fork, both async-signal-safe, allocates
        // nothing and touches no state of the parent.
        unsafe {
            command.pre_exec(move || {
                for signal in [libc::SIGINT, libc::SIGQUIT, libc::SIGTERM] {
                    libc::signal(signal, libc::SIG_DFL);
                }
                if let Some(fd) = procs_fd {
                    libc::write(fd, b"0".as_ptr().cast(), 1);
                }
                Ok(())
            });
        }
        command.spawn()
    }

    /// Drains the child's output into `file` while waiting for it to exit, time out or be
    /// cancelled; then stops whatever is left of its process group, and what left the group.
    pub(super) async fn supervise(
        &self,
        spec: &CommandSpec,
        child: &mut Child,
        sink: LogSink,
        start: Instant,
        contain: Containment,
    ) -> Supervised {
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw);
        let mut guard = GroupGuard {
            group,
            contain: Some(contain),
        };
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
        if let (Some(group), Some(leaders)) = (group, contain::leaders().as_mut()) {
            leaders.remove(&group.as_raw_pid());
        }
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
        // What left the group (`setsid`, a daemon's double fork) is stopped by the containment:
        // its cgroup killed, or its marked processes found and killed.
        if let Some(contain) = guard.contain.take() {
            let _ = tokio::task::spawn_blocking(move || drop(contain)).await;
        }
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

/// Resolves the program to execute: a path with a `/` as is (relative ones against `cwd`), a bare
/// name on `path_var`. A name found nowhere is `ENOENT`; one found only without the execute bit is
/// handed to the OS so that it fails with `EACCES`.
pub(crate) fn resolve_program(
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

#[cfg(test)]
mod tests {
    use super::*;

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
