//! Stopping a command's process group the runner's way: each signal in turn with the grace
//! period, `SIGKILL` last, and every grace cut short by a second cancel.

use std::io;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use tokio::process::Child;

use super::cancel::CancelHandle;
use super::contain::Containment;
use super::group::{self, KILL_WAIT};

/// Sends the signals that stop a process group, remembering when `SIGTERM` went out so that the
/// group's grace period is counted once, and cutting every grace period short on a second cancel.
pub(super) struct Stopper {
    pub(super) group: Option<Pid>,
    pub(super) grace: Duration,
    pub(super) cancel: CancelHandle,
    pub(super) int_sent: bool,
    pub(super) term_sent: Option<Instant>,
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
        group::signal(group, signal);
    }

    /// Stops the running tool: each signal in turn, a grace period after each, then `SIGKILL`.
    /// Returns the tool's exit status once it is reaped.
    pub(super) async fn stop(
        &mut self,
        child: &mut Child,
        signals: &[Signal],
    ) -> io::Result<ExitStatus> {
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
    pub(super) async fn clear(&mut self) {
        let Some(group) = self.group else { return };
        if !group::alive(group) {
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
        let _ = group::wait_gone(group, Instant::now() + KILL_WAIT).await;
    }

    /// [`group::wait_gone`], cut short (false) by a second cancel.
    async fn wait_group_gone(&self, group: Pid, until: Instant) -> bool {
        tokio::select! {
            gone = group::wait_gone(group, until) => gone,
            () = self.cancel.cancelled(2) => false,
        }
    }
}

/// Kills the group if a run is abandoned half-way (its future dropped); its containment, dropped
/// with it, stops what left the group.
pub(super) struct GroupGuard {
    pub(super) group: Option<Pid>,
    pub(super) contain: Option<Containment>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(group) = self.group.take() {
            group::signal(group, Signal::KILL);
        }
    }
}
