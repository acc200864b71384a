//! Records of the commands that run, one small file each in a directory of the workspace's state
//! (`paths::running`), so that what a verdict killed with `-9` left running is stopped by the next
//! verdict in that workspace ([`stop_leftovers`]), as `verdict loop --resume` stops an agent.
//!
//! A record is written before the spawn (the command's marker and cgroup), completed right after
//! it (the pid, which is also the process group, and its start time), and removed once everything
//! of the command is stopped. It names its owner — the verdict process, by pid and start time —
//! so that a live verdict's commands are never taken for leftovers.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rustix::process::Pid;
use serde::{Deserialize, Serialize};

use super::contain::{kill_cgroup, kill_marked, same_process};
use super::group::{self, GroupEnd, proc_stat, process_start_time};

/// What a record holds.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    /// The verdict process that runs the command.
    owner_pid: i32,
    owner_start: u64,
    /// The command's marker ([`super::contain::MARKER_ENV`]).
    marker: String,
    /// The command's cgroup directory, if it has one.
    cgroup: Option<PathBuf>,
    /// The command's pid (= its process group) and start time, once spawned.
    pid: Option<i32>,
    start: Option<u64>,
}

/// Writes the record of a command about to be spawned; its path, or `None` when it cannot be
/// written (the command then runs unrecorded, said in the log).
pub(crate) fn write(dir: &Path, marker: &str, cgroup: Option<&Path>) -> Option<PathBuf> {
    let me = std::process::id() as i32;
    let record = Record {
        owner_pid: me,
        owner_start: process_start_time(me).unwrap_or(0),
        marker: marker.to_owned(),
        cgroup: cgroup.map(Path::to_path_buf),
        pid: None,
        start: None,
    };
    let path = dir.join(format!("{marker}.json"));
    match store(&path, &record) {
        Ok(()) => Some(path),
        Err(error) => {
            tracing::warn!(%error, path = %path.display(), "could not record a command");
            None
        }
    }
}

/// Adds the spawned command's pid and start time to its record.
pub(crate) fn spawned(path: &Path, pid: i32) {
    let Some(mut record) = load(path) else { return };
    record.pid = Some(pid);
    record.start = process_start_time(pid);
    let _ = store(path, &record);
}

fn store(path: &Path, record: &Record) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let json = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    // Written whole, then renamed: a reader never sees half a record.
    let partial = path.with_extension("partial");
    std::fs::write(&partial, json)?;
    std::fs::rename(&partial, path)
}

fn load(path: &Path) -> Option<Record> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Stops what the commands recorded in `dir` left running when their verdict died: each record
/// whose owner is gone (or is another process now) has its cgroup killed and removed, its process
/// group stopped (`SIGTERM`, `grace`, `SIGKILL`) if its leader is still the recorded process or
/// gone, and every process carrying its marker killed; then the record goes. Records of a live
/// verdict are left alone. Returns how many records were leftovers.
pub fn stop_leftovers(dir: &Path, grace: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut stopped = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|ext| ext != "json") {
            continue;
        }
        let Some(record) = load(&path) else {
            // Half-written by a verdict killed at that moment, or not ours: nothing to act on.
            let _ = std::fs::remove_file(&path);
            continue;
        };
        if same_process(record.owner_pid, record.owner_start) {
            continue;
        }
        stopped += 1;
        tracing::debug!(marker = %record.marker, "stopping what a killed verdict left running");
        if let Some(cgroup) = &record.cgroup {
            kill_cgroup(cgroup);
        }
        if let (Some(pid), Some(start)) = (record.pid, record.start)
            && let Some(leader) = Pid::from_raw(pid)
        {
            // The group is still the command's when its leader is the recorded process, or gone
            // while members live on (a group id is not reused while the group has members).
            let reused = proc_stat(pid).is_some_and(|stat| {
                stat.state != 'Z' && (stat.start_time != start || stat.pgid != pid)
            });
            if !reused && group::stop_group(leader, grace) == GroupEnd::Killed {
                tracing::debug!(group = pid, "a leftover group needed SIGKILL");
            }
        }
        kill_marked(&record.marker, None);
        let _ = std::fs::remove_file(&path);
    }
    stopped
}
