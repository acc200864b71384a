//! Cancelling a runner's commands: the handle a Ctrl-C handler holds.

use std::sync::Arc;

use tokio::sync::watch;

/// Stops the commands of a [`ProcessRunner`](super::ProcessRunner): cloned freely, typically into a Ctrl-C handler.
///
/// Cancelling is final: running commands are stopped (`SIGINT`, grace, `SIGTERM`, grace,
/// `SIGKILL`) and end as [`Exit::Cancelled`](crate::verifier::Exit::Cancelled), and commands started afterwards end as
/// [`Exit::Cancelled`](crate::verifier::Exit::Cancelled) at once, without being spawned. Cancelling a second time (a second Ctrl-C)
/// cuts the grace periods short: whatever is still running gets `SIGKILL` at once.
#[derive(Debug, Clone)]
pub struct CancelHandle {
    /// How many times [`CancelHandle::cancel`] was called (saturating).
    sender: Arc<watch::Sender<u8>>,
}

impl CancelHandle {
    pub(super) fn new() -> Self {
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
    pub(super) fn is_hurried(&self) -> bool {
        *self.sender.borrow() > 1
    }

    /// Resolves once [`CancelHandle::cancel`] has been called `times` times (at once if it has).
    pub(super) async fn cancelled(&self, times: u8) {
        let mut receiver = self.sender.subscribe();
        // An error means the sender is gone, which cannot happen while `self` holds it.
        let _ = receiver.wait_for(|count| *count >= times).await;
    }
}
