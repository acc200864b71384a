//! The store's lock: one operation at a time, in this process and across processes.

use std::fs;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use super::error::SnapshotError;
use super::store::{Snapshots, write};

/// How long an operation waits for another process's lock before giving up.
const LOCK_WAIT: Duration = Duration::from_secs(30);
/// How often a held lock is looked at again.
const LOCK_POLL: Duration = Duration::from_millis(20);

impl Snapshots {
    /// Takes the lock of the store: this process's mutex, then the lock file, waiting for another
    /// process that holds it and taking over one whose owner is gone.
    pub(super) fn lock(&self) -> Result<StoreLock<'_>, SnapshotError> {
        static TEMP: AtomicU64 = AtomicU64::new(0);
        let serial = self.serial.lock().unwrap_or_else(PoisonError::into_inner);
        let pid = std::process::id();
        let start = crate::process::process_start_time(pid as i32).unwrap_or(0);
        let deadline = Instant::now() + LOCK_WAIT;
        let dir = self.lock.parent().unwrap_or(&self.root);
        loop {
            // Written whole under a name of its own, then linked into place: the lock file is
            // never seen empty or half written.
            let temp = dir.join(format!(
                "snapshots.lock.{pid}.{}",
                TEMP.fetch_add(1, Ordering::Relaxed)
            ));
            write(&temp, &format!("{pid} {start}\n"))?;
            let linked = fs::hard_link(&temp, &self.lock);
            let _ = fs::remove_file(&temp);
            match linked {
                Ok(()) => break,
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
                Err(source) => {
                    return Err(SnapshotError::Io {
                        action: "create",
                        path: self.lock.clone(),
                        source,
                    });
                }
            }
            let text = match fs::read_to_string(&self.lock) {
                Ok(text) => text,
                // Released meanwhile: try again at once.
                Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                Err(source) => {
                    return Err(SnapshotError::Io {
                        action: "read",
                        path: self.lock.clone(),
                        source,
                    });
                }
            };
            // A lock file is linked into place whole, so one that cannot be read as a pid was
            // damaged (a crash before its data reached the disk) and is as stale as one whose
            // owner is gone. Two processes taking over the same stale lock at the same moment
            // could both succeed; that needs two loops on one workspace right after a crash.
            let owner = parse_lock(&text);
            let Some(owner) = owner.filter(|&(pid, start)| alive(pid, start)) else {
                if Instant::now() > deadline {
                    return Err(SnapshotError::Busy {
                        lock: self.lock.clone(),
                        pid: owner.map_or(0, |(pid, _)| pid),
                    });
                }
                let _ = fs::remove_file(&self.lock);
                continue;
            };
            if Instant::now() > deadline {
                return Err(SnapshotError::Busy {
                    lock: self.lock.clone(),
                    pid: owner.0,
                });
            }
            thread::sleep(LOCK_POLL);
        }
        // Holding the lock, nobody else uses the indexes: a lock git left on them was left by a
        // git that was killed, and would make every later call fail.
        for index in [&self.index, &self.restore_index] {
            let mut stale = index.clone().into_os_string();
            stale.push(".lock");
            let _ = fs::remove_file(stale);
        }
        Ok(StoreLock {
            path: &self.lock,
            _serial: serial,
        })
    }
}

/// The held lock of a store; dropping it releases it.
pub(super) struct StoreLock<'a> {
    path: &'a Path,
    _serial: MutexGuard<'a, ()>,
}

impl Drop for StoreLock<'_> {
    fn drop(&mut self) {
        let _ = fs::remove_file(self.path);
    }
}

/// The pid and start time written in a lock file.
pub(super) fn parse_lock(text: &str) -> Option<(i32, u64)> {
    let mut fields = text.split_whitespace();
    let pid = fields.next()?.parse().ok()?;
    let start = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    Some((pid, start))
}

/// Whether the process that wrote a lock still runs (a later process given the same pid, told
/// apart by its start time where `/proc` has it, does not count).
pub(super) fn alive(pid: i32, start: u64) -> bool {
    let Some(process) = rustix::process::Pid::from_raw(pid) else {
        return false;
    };
    match rustix::process::test_kill_process(process) {
        Ok(()) | Err(rustix::io::Errno::PERM) => {}
        Err(_) => return false,
    }
    match crate::process::process_start_time(pid) {
        Some(now) if start != 0 => now == start,
        _ => true,
    }
}
