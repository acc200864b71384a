//! Stopping the agent a killed loop left behind, without hitting an innocent process.
//!
//! When the loop is killed with `-9` during an attempt, its agent runs on (it has its own process
//! group) and keeps editing the tree. The resumed loop must stop it before anything else. The state
//! database holds the agent's pid, its process group and its start time (field 22 of
//! `/proc/<pid>/stat`, in clock ticks since boot); the start time tells the recorded process apart
//! from a later one that was given the same pid. Linux only (it reads `/proc`); elsewhere nothing is
//! found and nothing is killed.

use std::fs;
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use serde::Serialize;

/// How often the group is polled while waiting for it to go.
const POLL: Duration = Duration::from_millis(20);
/// How long to wait for the kernel to finish a `SIGKILL`.
const KILL_WAIT: Duration = Duration::from_secs(2);

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

/// One process as `/proc/<pid>/stat` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// The one-letter state (`R`, `S`, `Z` …).
    pub state: char,
    /// The process group id.
    pub pgid: i32,
    /// The start time, in clock ticks after boot.
    pub start_time: u64,
}

/// Reads `/proc/<pid>/stat`; `None` when there is no such process (or no `/proc`).
pub fn proc_stat(pid: i32) -> Option<ProcStat> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// The start time of a running process, to record beside its pid right after it is spawned.
pub fn process_start_time(pid: i32) -> Option<u64> {
    proc_stat(pid).map(|stat| stat.start_time)
}

/// Parses the text of `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may
/// itself hold spaces and parentheses, so the fields are counted from the last `)`.
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 3 (state), 5 (pgrp) and 22 (starttime) of proc(5), counted from 1.
    Some(ProcStat {
        state: fields.first()?.chars().next()?,
        pgid: fields.get(2)?.parse().ok()?,
        start_time: fields.get(19)?.parse().ok()?,
    })
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
    if !group_alive(group) {
        return OrphanOutcome::Gone;
    }
    let _ = rustix::process::kill_process_group(group, Signal::TERM);
    if wait_gone(group, grace) {
        return OrphanOutcome::Terminated;
    }
    let _ = rustix::process::kill_process_group(group, Signal::KILL);
    wait_gone(group, KILL_WAIT);
    OrphanOutcome::Killed
}

/// Polls until no live member of `group` is left or `within` has passed; true when it is gone.
fn wait_gone(group: Pid, within: Duration) -> bool {
    let until = Instant::now() + within;
    loop {
        if !group_alive(group) {
            return true;
        }
        let now = Instant::now();
        if now >= until {
            return false;
        }
        thread::sleep(POLL.min(until - now));
    }
}

/// Whether a member of `group` runs that is not a zombie (zombies are their parent's to reap).
fn group_alive(group: Pid) -> bool {
    match rustix::process::test_kill_process_group(group) {
        Ok(()) => {}
        // ESRCH: the group is empty. EPERM: only processes we may not signal are left.
        Err(_) => return false,
    }
    let Ok(entries) = fs::read_dir("/proc") else {
        return true;
    };
    entries.flatten().any(|entry| {
        entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<i32>().ok())
            .and_then(proc_stat)
            .is_some_and(|stat| stat.pgid == group.as_raw_pid() && stat.state != 'Z')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_stat_line_whose_name_holds_parentheses_and_spaces() {
        let line = "4242 (my (odd) agent) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 \
                    987654 10000 200 18446744073709551615";
        assert_eq!(
            parse_stat(line),
            Some(ProcStat {
                state: 'S',
                pgid: 4242,
                start_time: 987654
            })
        );
        assert_eq!(parse_stat("4242 (cut short) S 1"), None);
    }

    #[test]
    fn reads_its_own_start_time() {
        let me = std::process::id() as i32;
        let stat = proc_stat(me).expect("/proc/self/stat");
        assert_eq!(process_start_time(me), Some(stat.start_time));
        assert_eq!(
            stat.pgid,
            rustix::process::getpgrp().as_raw_pid(),
            "the process group field is read"
        );
        assert_ne!(stat.state, 'Z');
    }
}
