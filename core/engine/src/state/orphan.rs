//! Stopping the agent a killed loop left behind, without hitting an innocent process.
//!
//! When the loop is killed with `-9` during an attempt, its agent runs on (it has its own process
//! group) and keeps editing the tree. The resumed loop must stop it before anything else. The state
//! database holds the agent's pid, its process group and its start time (field 22 of
//! `/proc/<pid>/stat`, in clock ticks since boot); the start time tells the recorded process apart
//! from a later one that was given the same pid. Linux only (it reads `/proc`); elsewhere nothing is
//! found and nothing is killed.

use std::time::Duration;

use rustix::process::Pid;
use serde::Serialize;

use crate::process::{GroupEnd, stop_group};
pub use crate::process::{ProcStat, parse_stat, proc_stat, process_start_time};

/// What [`stop_orphaned_group`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OrphanOutcome {
    /// Nothing of the recorded group was running.
    Gone,
    /// The pid belongs to a different process now (another start time); nothing was signalled.
    Reused,
    /// The group ended after `SIGTERM`, within the grace period.
    Terminated,
    /// The group outlived the grace period and was sent `SIGKILL`.
    Killed,
}

/// Stops what is left of an agent's process group recorded as (`pid`, `pgid`, `start_time`):
/// `SIGTERM` to the group, up to `grace` for it to go, then `SIGKILL`.
///
/// The group is signalled only when it is still *that* agent's: if the leader `pid` runs with
/// another start time, the pid was reused and nothing is signalled ([`OrphanOutcome::Reused`]).
/// If the leader is gone (or a zombie) while other members of the group live on, those are the
/// agent's children — a process group id is not handed out again while the group has members —
/// and they are stopped.
pub fn stop_orphaned_group(pid: i32, pgid: i32, start_time: u64, grace: Duration) -> OrphanOutcome {
    let (Some(leader), Some(group)) = (Pid::from_raw(pid), Pid::from_raw(pgid)) else {
        return OrphanOutcome::Gone;
    };
    if let Some(stat) = proc_stat(leader.as_raw_pid())
        && stat.state != 'Z'
        && (stat.start_time != start_time || stat.pgid != pgid)
    {
        return OrphanOutcome::Reused;
    }
    // The runner's own way of stopping a group: `SIGTERM`, the grace period, `SIGKILL`.
    match stop_group(group, grace) {
        GroupEnd::Gone => OrphanOutcome::Gone,
        GroupEnd::Terminated => OrphanOutcome::Terminated,
        GroupEnd::Killed => OrphanOutcome::Killed,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::process::group::tests::spawn_abandoned_group;

    /// Recovery stops what a dead agent left in its group the way the runner stops a command's
    /// leftovers: the leader is gone, its child ignores `SIGTERM`, so it gets `SIGKILL` once the
    /// grace has passed.
    #[test]
    fn the_children_of_a_dead_agent_are_stopped_like_a_commands_leftovers() {
        let (pid, start) = spawn_abandoned_group();
        let grace = Duration::from_millis(200);
        let began = Instant::now();
        assert_eq!(
            stop_orphaned_group(pid, pid, start, grace),
            OrphanOutcome::Killed
        );
        assert!(began.elapsed() >= grace);
        assert_eq!(
            stop_orphaned_group(pid, pid, start, grace),
            OrphanOutcome::Gone
        );
    }
}
