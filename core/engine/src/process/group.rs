//! Process groups: reading `/proc`, telling whether a group still has a live member, waiting for
//! it to go, and stopping it — `SIGTERM`, the grace period, then `SIGKILL`. The runner stops its
//! commands' groups with these, and so does the loop's recovery of an agent a killed loop left
//! behind (`state::orphan`), so both count the same processes as alive and wait the same way.

use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use serde::Serialize;

/// How often a process group is checked for survivors while it is given its grace period.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// How long to wait for the kernel to finish off a group after `SIGKILL`.
pub(super) const KILL_WAIT: Duration = Duration::from_secs(1);

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

impl ProcStat {
    /// Whether the process runs: a zombie (`Z`) or a dead one (`X`) waits only to be reaped, which
    /// is its parent's job.
    fn is_live(&self) -> bool {
        self.state != 'Z' && self.state != 'X'
    }
}

/// Reads `/proc/<pid>/stat`; `None` when there is no such process (or no `/proc`).
pub fn proc_stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
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
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    // Fields 3 (state), 5 (pgrp) and 22 (starttime) of proc(5), counted from 1.
    Some(ProcStat {
        state: fields.first()?.chars().next()?,
        pgid: fields.get(2)?.parse().ok()?,
        start_time: fields.get(19)?.parse().ok()?,
    })
}

/// Sends `signal` to every process of `group`. ESRCH (the group is already gone) is what we want,
/// and nothing else can go wrong for a group we may signal.
pub(super) fn signal(group: Pid, signal: Signal) {
    let _ = rustix::process::kill_process_group(group, signal);
}

/// Whether any process of `group` is still running. Zombies do not count: the group's other
/// members are reparented when their leader exits, and reaping them is their new parent's job (one
/// that does not reap — a container's minimal init — must not make us wait a full grace period).
pub(super) fn alive(group: Pid) -> bool {
    match rustix::process::test_kill_process_group(group) {
        // ESRCH: the group is empty. EPERM: only processes we may not signal are left (a setuid
        // program); nothing we can do.
        Err(_) => false,
        Ok(()) => has_live_member(group).unwrap_or(true),
    }
}

/// Scans `/proc` for a live member of `group`; `None` when `/proc` cannot be read.
fn has_live_member(group: Pid) -> Option<bool> {
    let group = group.as_raw_pid();
    for entry in std::fs::read_dir("/proc").ok()? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|name| name.parse::<i32>().ok()) else {
            continue;
        };
        if proc_stat(pid).is_some_and(|stat| stat.pgid == group && stat.is_live()) {
            return Some(true);
        }
    }
    Some(false)
}

/// Waits until no live process is left in `group`, or `until`; true when the group is gone.
pub(super) async fn wait_gone(group: Pid, until: Instant) -> bool {
    loop {
        match next_poll(group, until) {
            Some(pause) => tokio::time::sleep(pause).await,
            None => return !alive(group),
        }
    }
}

/// [`wait_gone`] for a thread that may block.
fn wait_gone_blocking(group: Pid, until: Instant) -> bool {
    loop {
        match next_poll(group, until) {
            Some(pause) => std::thread::sleep(pause),
            None => return !alive(group),
        }
    }
}

/// How long to sleep before looking at `group` again; `None` when the wait is over (the group is
/// gone, or `until` has come).
fn next_poll(group: Pid, until: Instant) -> Option<Duration> {
    if !alive(group) {
        return None;
    }
    let now = Instant::now();
    (now < until).then(|| POLL_INTERVAL.min(until - now))
}

/// What [`stop_group`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupEnd {
    /// No live member of the group was running.
    Gone,
    /// The group ended after `SIGTERM`, within the grace period.
    Terminated,
    /// The group outlived the grace period and was sent `SIGKILL`.
    Killed,
}

/// Stops every process of `group` from a thread that may block, as the runner stops a command's
/// group: `SIGTERM`, up to `grace` for the group to go, then `SIGKILL` and a short wait for the
/// kernel to finish the job.
pub fn stop_group(group: Pid, grace: Duration) -> GroupEnd {
    if !alive(group) {
        return GroupEnd::Gone;
    }
    signal(group, Signal::TERM);
    if wait_gone_blocking(group, Instant::now() + grace) {
        return GroupEnd::Terminated;
    }
    signal(group, Signal::KILL);
    wait_gone_blocking(group, Instant::now() + KILL_WAIT);
    GroupEnd::Killed
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn stat_fields_after_the_last_parenthesis() {
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
        assert_eq!(parse_stat("42 (cut short) S 1"), None);
        assert_eq!(parse_stat("garbage"), None);
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
        assert!(stat.is_live());
    }

    /// A group whose leader is gone and whose last member ignores `SIGTERM`: the leader of
    /// `sh -c 'trap "" TERM; sleep 30 & exit 0'`, reaped, leaves the `sleep` behind.
    pub(crate) fn spawn_abandoned_group() -> (i32, u64) {
        use std::os::unix::process::CommandExt as _;
        let mut leader = std::process::Command::new("sh")
            .args(["-c", "trap '' TERM; sleep 30 & exit 0"])
            .process_group(0)
            .stdin(std::process::Stdio::null())
            .spawn()
            .expect("spawn sh");
        let pid = leader.id() as i32;
        let start = process_start_time(pid).unwrap_or(0);
        // The `sleep` was forked before the leader exited, so it is in the group by now.
        leader.wait().expect("reap the leader");
        (pid, start)
    }

    #[test]
    fn a_group_whose_last_member_ignores_sigterm_is_killed_after_the_grace() {
        let (pgid, _) = spawn_abandoned_group();
        let group = Pid::from_raw(pgid).expect("a group id");
        assert!(alive(group), "the sleep runs on in the group");
        let grace = Duration::from_millis(200);
        let began = Instant::now();
        assert_eq!(stop_group(group, grace), GroupEnd::Killed);
        let took = began.elapsed();
        assert!(took >= grace, "killed before the grace ended: {took:?}");
        assert!(
            took < grace + KILL_WAIT + Duration::from_secs(1),
            "{took:?}"
        );
        assert!(!alive(group), "nothing of the group is left");
        assert_eq!(stop_group(group, grace), GroupEnd::Gone);
    }

    #[test]
    fn a_group_that_heeds_sigterm_ends_within_the_grace() {
        use std::os::unix::process::CommandExt as _;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("spawn sleep");
        let group = Pid::from_raw(child.id() as i32).expect("a group id");
        assert_eq!(
            stop_group(group, Duration::from_secs(5)),
            GroupEnd::Terminated
        );
        // Not reaped yet, the child is a zombie: gone, as the runner counts it.
        assert!(!alive(group));
        let status = child.wait().expect("reap");
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(libc::SIGTERM)
        );
    }
}
