//! Containment: finding and stopping every process a command started, including those that left
//! its process group (`setsid`, a double-forked daemon), which no signal to the group reaches.
//!
//! Three mechanisms, the best the machine allows chosen once per process ([`mechanism`]):
//!
//! - **cgroup** — a cgroup v2 per command, created below verdict's own cgroup
//!   (`<own>/verdict-<pid>-<n>`). The child moves itself into it between fork and exec, before the
//!   tool runs a single instruction, so nothing it starts can be outside; at the command's end
//!   `cgroup.kill` ends everything in it (or, without `cgroup.kill`, `SIGKILL` to each pid of
//!   `cgroup.procs` until it is empty), and the directory is removed once `cgroup.events` says it
//!   is no longer populated. Needs a cgroup2 mount (found in `/proc/self/mountinfo`) and a
//!   cgroup verdict may create children in: as root, or delegated.
//! - **subreaper** — without a writable cgroup2 hierarchy, verdict becomes a child subreaper
//!   (`PR_SET_CHILD_SUBREAPER`), so an orphan re-parents to verdict, not to init. Every command
//!   carries a marker in its environment ([`MARKER_ENV`], unique per command), inherited by all it
//!   starts; at the command's end verdict walks `/proc` and kills each process whose environment
//!   holds the marker, that is in the command's process group, or whose parent is one of those,
//!   until none is left, then reaps the zombies re-parented to it.
//! - **group** — the process group alone (no cgroup, no subreaper): what escapes it survives.
//!
//! `VERDICT_CONTAINMENT=cgroup|subreaper|group` forces one (`auto`, the default, detects); a
//! forced cgroup that cannot be made falls back to the subreaper, and [`describe`] says which is in
//! use. Every command is also recorded while it runs ([`super::record`]), so that a verdict killed
//! with `-9` leaves nothing the next run in the workspace cannot stop.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, Write as _};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::group::{self, proc_stat};

/// The environment variable that forces a mechanism: `cgroup`, `subreaper`, `group` or `auto`.
pub const CONTAINMENT_ENV: &str = "VERDICT_CONTAINMENT";

/// The environment variable every command (and all it starts) carries: the command's marker.
pub const MARKER_ENV: &str = "VERDICT_COMMAND_ID";

/// How long the leftovers of a command get to disappear after `SIGKILL` (or `cgroup.kill`).
const KILL_WAIT: Duration = Duration::from_secs(2);

/// How often a cgroup or the process table is looked at again while waiting.
const POLL: Duration = Duration::from_millis(5);

/// How verdict finds every process of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// A cgroup v2 per command.
    Cgroup,
    /// verdict as child subreaper, and a walk of `/proc` for the command's marker.
    Subreaper,
    /// The process group alone.
    Group,
}

impl Mechanism {
    /// The name `VERDICT_CONTAINMENT` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Mechanism::Cgroup => "cgroup",
            Mechanism::Subreaper => "subreaper",
            Mechanism::Group => "group",
        }
    }
}

/// What was detected, once per process.
#[derive(Debug)]
struct Detected {
    mechanism: Mechanism,
    /// verdict's own cgroup directory, under which each command's is made.
    cgroup_parent: Option<PathBuf>,
    /// Why a better mechanism was not used, for `-v`.
    why_not: Option<String>,
}

static DETECTED: OnceLock<Detected> = OnceLock::new();

/// Set once a cgroup could not take a command: the later ones use the subreaper.
static CGROUP_FAILED: AtomicBool = AtomicBool::new(false);

/// Numbers the commands of this process, for their cgroup's name and marker.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// The pids of the commands the runner spawned and has not reaped yet: the reaping of orphans
/// must leave them to the runner. Held across a spawn, so no walk sees a leader not listed yet.
static LEADERS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

fn detected() -> &'static Detected {
    DETECTED.get_or_init(detect)
}

/// The mechanism in use for the commands this process starts.
pub fn mechanism() -> Mechanism {
    let detected = detected();
    if detected.mechanism == Mechanism::Cgroup && CGROUP_FAILED.load(Ordering::Relaxed) {
        return Mechanism::Subreaper;
    }
    detected.mechanism
}

/// One line for `-v`: the mechanism in use, and where, or why not a better one.
pub fn describe() -> String {
    let detected = detected();
    match (mechanism(), &detected.cgroup_parent) {
        (Mechanism::Cgroup, Some(parent)) => format!(
            "cgroup (a cgroup v2 per command, under {})",
            parent.display()
        ),
        (mechanism, _) => {
            let what = match mechanism {
                Mechanism::Subreaper => {
                    "subreaper (orphans re-parent to verdict; a command's processes are found by \
                     the marker in their environment)"
                }
                _ => "group (the process group alone: what leaves it is not stopped)",
            };
            match &detected.why_not {
                Some(why) => format!("{what}; {why}"),
                None => what.to_owned(),
            }
        }
    }
}

fn detect() -> Detected {
    let forced = std::env::var(CONTAINMENT_ENV).unwrap_or_default();
    let forced = forced.trim();
    let subreaper = |why_not: Option<String>| {
        become_subreaper();
        Detected {
            mechanism: Mechanism::Subreaper,
            cgroup_parent: None,
            why_not,
        }
    };
    match forced {
        "group" => {
            return Detected {
                mechanism: Mechanism::Group,
                cgroup_parent: None,
                why_not: Some(format!("forced by {CONTAINMENT_ENV}=group")),
            };
        }
        "subreaper" => return subreaper(Some(format!("forced by {CONTAINMENT_ENV}=subreaper"))),
        "" | "auto" | "cgroup" => {}
        other => tracing::warn!(
            "{CONTAINMENT_ENV}={other} is not one of cgroup, subreaper, group, auto; detecting"
        ),
    }
    match cgroup_parent() {
        Ok(parent) => Detected {
            mechanism: Mechanism::Cgroup,
            cgroup_parent: Some(parent),
            why_not: None,
        },
        Err(why) => subreaper(Some(format!("no cgroup: {why}"))),
    }
}

/// Makes verdict the reaper of its descendants' orphans.
fn become_subreaper() {
    #[allow(unsafe_code)]
    // SAFETY: `prctl(PR_SET_CHILD_SUBREAPER, 1)` takes plain integers and changes only a flag of
    // this process.
    let done = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    if done != 0 {
        tracing::warn!(
            error = %io::Error::last_os_error(),
            "could not become a child subreaper"
        );
    }
}

/// verdict's own cgroup directory, if a child can be made in it (made and removed to know).
fn cgroup_parent() -> Result<PathBuf, String> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("/proc/self/mountinfo: {e}"))?;
    let (mount_root, mount_point) =
        cgroup2_mount(&mountinfo).ok_or("no cgroup2 file system is mounted")?;
    let own = std::fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| format!("/proc/self/cgroup: {e}"))?;
    let own = own_cgroup(&own).ok_or("verdict's cgroup v2 is not in /proc/self/cgroup")?;
    let within = Path::new(own)
        .strip_prefix(&mount_root)
        .map_err(|_| format!("verdict's cgroup {own} is outside the cgroup2 mount"))?;
    let parent = mount_point.join(within);
    let probe = parent.join(format!("verdict-{}-probe", std::process::id()));
    std::fs::create_dir(&probe).map_err(|e| {
        format!(
            "cannot create a cgroup in {} ({e}): not root, nor delegated",
            parent.display()
        )
    })?;
    let has_kill = probe.join("cgroup.kill").exists();
    let has_procs = probe.join("cgroup.procs").exists();
    let _ = std::fs::remove_dir(&probe);
    if !has_procs {
        return Err(format!("{} has no cgroup.procs", parent.display()));
    }
    if !has_kill {
        tracing::debug!("no cgroup.kill (a kernel before 5.14): cgroups are emptied pid by pid");
    }
    Ok(parent)
}

/// The root and mount point of the first cgroup2 mount of `mountinfo` (proc(5)'s format: the
/// file system type follows the ` - ` separator; field 4 is the mount's root, 5 its mount point).
fn cgroup2_mount(mountinfo: &str) -> Option<(PathBuf, PathBuf)> {
    mountinfo.lines().find_map(|line| {
        let (fields, rest) = line.split_once(" - ")?;
        if rest.split_whitespace().next()? != "cgroup2" {
            return None;
        }
        let fields: Vec<&str> = fields.split_whitespace().collect();
        Some((
            PathBuf::from(unescape(fields.get(3)?)),
            PathBuf::from(unescape(fields.get(4)?)),
        ))
    })
}

/// The octal escapes (`\040` for a space) of a path in mountinfo.
fn unescape(field: &str) -> String {
    let mut out = Vec::with_capacity(field.len());
    let bytes = field.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && let Ok(code) = u8::from_str_radix(&field[i + 1..i + 4], 8)
        {
            out.push(code);
            i += 4;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The path of the cgroup v2 line (`0::/path`) of `/proc/self/cgroup`.
fn own_cgroup(text: &str) -> Option<&str> {
    text.lines().find_map(|line| line.strip_prefix("0::"))
}

/// One command's containment: its marker, its cgroup when it has one, and its record.
#[derive(Debug)]
pub(crate) struct Containment {
    /// The value of [`MARKER_ENV`] the command runs with.
    pub(crate) marker: String,
    /// The command's cgroup, made before the spawn.
    cgroup: Option<Cgroup>,
    mechanism: Mechanism,
    /// The command's process group (= its pid), once spawned.
    group: Option<Pid>,
    /// The command's record, removed once everything of it is stopped.
    record: Option<PathBuf>,
    stopped: bool,
}

/// A command's cgroup directory, and its `cgroup.procs` opened for the child to write itself in.
#[derive(Debug)]
struct Cgroup {
    path: PathBuf,
    procs: Option<File>,
}

impl Containment {
    /// A fresh containment for the next command: its cgroup made when cgroups are in use, and
    /// its record written in `records` when given.
    pub(crate) fn new(records: Option<&Path>) -> Containment {
        let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        let me = std::process::id();
        let started = group::process_start_time(me as i32).unwrap_or(0);
        let marker = format!("{me}-{started}-{sequence}");
        let mut mechanism = mechanism();
        let mut cgroup = None;
        if mechanism == Mechanism::Cgroup
            && let Some(parent) = &detected().cgroup_parent
        {
            let path = parent.join(format!("verdict-{me}-{sequence}"));
            let made = std::fs::create_dir(&path).and_then(|()| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(path.join("cgroup.procs"))
            });
            match made {
                Ok(procs) => {
                    cgroup = Some(Cgroup {
                        path,
                        procs: Some(procs),
                    });
                }
                Err(error) => {
                    let _ = std::fs::remove_dir(&path);
                    tracing::warn!(%error, "could not make a cgroup for a command; using the subreaper");
                    fall_back_to_subreaper();
                    mechanism = Mechanism::Subreaper;
                }
            }
        }
        let record = records.and_then(|dir| {
            super::record::write(dir, &marker, cgroup.as_ref().map(|c| c.path.as_path()))
        });
        Containment {
            marker,
            cgroup,
            mechanism,
            group: None,
            record,
            stopped: false,
        }
    }

    /// The descriptor of the command's `cgroup.procs`, which the child writes `0` to between fork
    /// and exec (moving itself in).
    pub(crate) fn cgroup_procs_fd(&self) -> Option<i32> {
        self.cgroup
            .as_ref()
            .and_then(|c| c.procs.as_ref())
            .map(AsRawFd::as_raw_fd)
    }

    /// Once spawned as `pid`: the descriptor of `cgroup.procs` is closed, the record completed,
    /// and the child checked to be in its cgroup — if it could not move itself in (a cgroup
    /// that refuses processes), this command and the later ones fall back to the subreaper.
    pub(crate) fn spawned(&mut self, pid: Option<u32>) {
        let pid = pid.and_then(|pid| i32::try_from(pid).ok());
        self.group = pid.and_then(Pid::from_raw);
        if let (Some(record), Some(pid)) = (&self.record, pid) {
            super::record::spawned(record, pid);
        }
        let Some(cgroup) = &mut self.cgroup else {
            return;
        };
        cgroup.procs = None;
        let Some(pid) = pid else { return };
        let Some(name) = cgroup.path.file_name().and_then(|n| n.to_str()) else {
            return;
        };
        // Unreadable: the child is gone already, and nothing it started can have escaped the
        // group without running first.
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/cgroup")) else {
            return;
        };
        let inside = own_cgroup(&text).is_some_and(|path| path.ends_with(&format!("/{name}")));
        if !inside && group::proc_stat(pid).is_some_and(|stat| stat.state != 'Z') {
            tracing::warn!(
                cgroup = %cgroup.path.display(),
                "a command could not move into its cgroup; using the subreaper"
            );
            let _ = std::fs::remove_dir(&cgroup.path);
            self.cgroup = None;
            fall_back_to_subreaper();
            self.mechanism = Mechanism::Subreaper;
        }
    }

    /// Stops every process of the command that is left — what the stop of its process group
    /// could not reach — removes its cgroup and its record. Blocks for at most a few seconds.
    pub(crate) fn stop(&mut self) {
        if self.stopped {
            return;
        }
        let done = match (&self.cgroup, self.mechanism) {
            (Some(cgroup), _) => kill_cgroup(&cgroup.path),
            (None, Mechanism::Subreaper) => {
                kill_marked(&self.marker, self.group);
                reap_orphans();
                true
            }
            (None, _) => true,
        };
        self.stopped = true;
        // A cgroup that could not be emptied keeps its record: the next run tries again.
        if done && let Some(record) = self.record.take() {
            let _ = std::fs::remove_file(record);
        }
    }
}

impl Drop for Containment {
    fn drop(&mut self) {
        // A run abandoned half-way (its future dropped) still leaves nothing behind.
        self.stop();
    }
}

fn fall_back_to_subreaper() {
    if !CGROUP_FAILED.swap(true, Ordering::Relaxed) {
        become_subreaper();
    }
}

/// Kills everything in the cgroup at `path`, waits until it is empty and removes it; true once it
/// is gone (or was).
pub(crate) fn kill_cgroup(path: &Path) -> bool {
    if !path.is_dir() {
        return true;
    }
    let killed = std::fs::OpenOptions::new()
        .write(true)
        .open(path.join("cgroup.kill"))
        .and_then(|mut file| file.write_all(b"1"))
        .is_ok();
    let until = Instant::now() + KILL_WAIT;
    loop {
        if !killed {
            // No `cgroup.kill`: each pid in turn, again until none is left (a fork between two
            // reads is killed on the next round).
            for pid in cgroup_pids(path) {
                if let Some(pid) = Pid::from_raw(pid) {
                    let _ = rustix::process::kill_process(pid, Signal::KILL);
                }
            }
        }
        if !populated(path) && std::fs::remove_dir(path).is_ok() {
            return true;
        }
        if Instant::now() >= until {
            tracing::warn!(cgroup = %path.display(), "a command's cgroup could not be emptied");
            return false;
        }
        std::thread::sleep(POLL);
    }
}

/// Whether the cgroup at `path` (or one below it) still has a process; `cgroup.events` says so,
/// zombies included until they are reaped, which their new parent does.
fn populated(path: &Path) -> bool {
    match std::fs::read_to_string(path.join("cgroup.events")) {
        Ok(events) => events.lines().any(|line| line.trim() == "populated 1"),
        Err(_) => !cgroup_pids(path).is_empty(),
    }
}

/// The pids of `cgroup.procs`.
fn cgroup_pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path.join("cgroup.procs"))
        .map(|text| text.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// One process of the table, as far as attributing it needs.
struct Entry {
    ppid: i32,
    pgid: i32,
    live: bool,
}

/// Every process of `/proc`, with its parent and group.
fn process_table() -> HashMap<i32, Entry> {
    let mut table = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return table;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(rest) = text.rfind(')').map(|at| &text[at + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
        let (Some(state), Some(ppid), Some(pgid)) = (
            fields.first().and_then(|s| s.chars().next()),
            fields.get(1).and_then(|s| s.parse().ok()),
            fields.get(2).and_then(|s| s.parse().ok()),
        ) else {
            continue;
        };
        table.insert(
            pid,
            Entry {
                ppid,
                pgid,
                live: state != 'Z' && state != 'X',
            },
        );
    }
    table
}

/// Whether the environment of `pid` (as it was at its exec) holds `MARKER_ENV=marker`.
fn has_marker(pid: i32, marker: &str) -> bool {
    let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let wanted = format!("{MARKER_ENV}={marker}");
    environ
        .split(|&b| b == 0)
        .any(|entry| entry == wanted.as_bytes())
}

/// The live processes of a command: those whose environment holds its marker, those of its
/// process group, and the descendants of either.
fn marked(marker: &str, group: Option<Pid>) -> Vec<i32> {
    let table = process_table();
    let me = std::process::id() as i32;
    let group = group.map(Pid::as_raw_pid);
    let mut ours: HashMap<i32, bool> = HashMap::new();
    fn decide(
        pid: i32,
        table: &HashMap<i32, Entry>,
        ours: &mut HashMap<i32, bool>,
        marker: &str,
        group: Option<i32>,
        me: i32,
        depth: u32,
    ) -> bool {
        if let Some(&known) = ours.get(&pid) {
            return known;
        }
        let Some(entry) = table.get(&pid) else {
            return false;
        };
        let is_ours = pid != me
            && (Some(entry.pgid) == group
                || has_marker(pid, marker)
                || (depth < 64
                    && entry.ppid > 1
                    && entry.ppid != me
                    && decide(entry.ppid, table, ours, marker, group, me, depth + 1)));
        ours.insert(pid, is_ours);
        is_ours
    }
    let mut found = Vec::new();
    for (&pid, entry) in &table {
        if entry.live && decide(pid, &table, &mut ours, marker, group, me, 0) {
            found.push(pid);
        }
    }
    found
}

/// Kills the live processes of a command (see [`marked`]) until none is left or the wait is over;
/// returns how many were found.
pub(crate) fn kill_marked(marker: &str, group: Option<Pid>) -> usize {
    let until = Instant::now() + KILL_WAIT;
    let mut seen = HashSet::new();
    loop {
        let left = marked(marker, group);
        if left.is_empty() {
            return seen.len();
        }
        for &pid in &left {
            seen.insert(pid);
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
            }
        }
        if Instant::now() >= until {
            tracing::warn!(
                left = left.len(),
                "some processes of a command outlived SIGKILL"
            );
            return seen.len();
        }
        std::thread::sleep(POLL);
    }
}

/// Takes the list of the runner's unreaped commands; a walk that reaps orphans holds it.
pub(crate) fn leaders() -> MutexGuard<'static, Option<HashSet<i32>>> {
    LEADERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Reaps the zombies re-parented to verdict as subreaper: children of verdict that are not in
/// verdict's own process group (the runner's commands lead groups of their own, and so does what
/// they `setsid`), leaving alone the commands the runner will reap itself.
pub(crate) fn reap_orphans() {
    let leaders = leaders();
    let me = std::process::id() as i32;
    let own_group = rustix::process::getpgrp().as_raw_pid();
    for (pid, entry) in process_table() {
        if entry.ppid != me || entry.live || entry.pgid == own_group {
            continue;
        }
        if leaders.as_ref().is_some_and(|set| set.contains(&pid)) {
            continue;
        }
        let mut status = 0;
        #[allow(unsafe_code)]
        // SAFETY: `waitpid` of one pid with WNOHANG writes only `status`, a local.
        unsafe {
            libc::waitpid(pid, &mut status, libc::WNOHANG);
        }
    }
}

/// Whether a process still runs as `pid` with the start time `start` (zombies do not count).
pub(crate) fn same_process(pid: i32, start: u64) -> bool {
    proc_stat(pid)
        .is_some_and(|stat| stat.start_time == start && stat.state != 'Z' && stat.state != 'X')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_cgroup2_mount_in_a_hybrid_layout() {
        let mountinfo = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";
        assert_eq!(
            cgroup2_mount(mountinfo),
            Some((PathBuf::from("/"), PathBuf::from("/sys/fs/cgroup/unified")))
        );
        let pure =
            "25 1 0:22 /user.slice /sys/fs/cgroup\\040v2 rw - cgroup2 cgroup2 rw,nsdelegate\n";
        assert_eq!(
            cgroup2_mount(pure),
            Some((
                PathBuf::from("/user.slice"),
                PathBuf::from("/sys/fs/cgroup v2")
            ))
        );
        assert_eq!(cgroup2_mount("1 2 0:3 / /proc rw - proc proc rw\n"), None);
    }

    #[test]
    fn reads_the_v2_line_of_proc_self_cgroup() {
        let text = "4:memory:/x\n0::/user.slice/session-1.scope\n";
        assert_eq!(own_cgroup(text), Some("/user.slice/session-1.scope"));
        assert_eq!(own_cgroup("4:memory:/x\n"), None);
    }
}
