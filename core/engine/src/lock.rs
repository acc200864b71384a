//! A lock held by a live process: an exclusive `flock` on a small file.
//!
//! The kernel releases the lock when the process ends however it ends: a process killed with
//! `kill -9` leaves nothing to clean up, and a live holder is never taken for a dead one (no pid
//! files to trust, no ages to guess). The file is opened close-on-exec, so an agent or tool the
//! holder starts never inherits it. The holder may write a line into the file that names it, for
//! those it refuses.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use rustix::fs::{FlockOperation, flock};

/// The longest holder description read back; a longer file is not one of ours.
const HOLDER_MAX: u64 = 512;

/// A held lock; dropping it releases it.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Takes the lock at `path` (creating the file and its directory), or `None` when another
    /// process holds it right now. Of several takers at the same moment exactly one gets it.
    pub fn try_take(path: &Path) -> Result<Option<FileLock>, LockError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(LockError::Dir)?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(LockError::Open)?;
        match flock(&file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Some(FileLock { file })),
            Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
            Err(error) => Err(LockError::Lock(error.into())),
        }
    }

    /// Records who holds the lock (a run, a pid), replacing what was there, for
    /// [`FileLock::holder`] to tell whoever is refused.
    pub fn describe_holder(&mut self, holder: &str) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(holder.as_bytes())?;
        self.file.flush()
    }

    /// What the holder of the lock at `path` wrote about itself, if it wrote anything readable.
    /// It may be stale or half-written: it is for a message, never for a decision.
    pub fn holder(path: &Path) -> Option<String> {
        let mut text = String::new();
        File::open(path)
            .ok()?
            .take(HOLDER_MAX)
            .read_to_string(&mut text)
            .ok()?;
        let text = text.trim();
        let readable = !text.is_empty() && !text.contains(|c: char| c.is_control());
        readable.then(|| text.to_owned())
    }
}

/// Why a [`FileLock`] could not be taken (another holder is no error: see
/// [`FileLock::try_take`]).
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Its directory could not be made.
    #[error("failed to create the lock's directory: {0}")]
    Dir(#[source] io::Error),
    /// The file could not be opened or created.
    #[error("failed to open the lock file: {0}")]
    Open(#[source] io::Error),
    /// The kernel refused the lock for another reason than a holder.
    #[error("failed to lock the file: {0}")]
    Lock(#[source] io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_refused_and_names_its_holder_until_dropped() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("a/b.lock");
        let mut held = FileLock::try_take(&path).expect("taken").expect("free");
        assert_eq!(FileLock::holder(&path), None);
        held.describe_holder("run 7 (pid 42)").expect("written");
        assert!(FileLock::try_take(&path).expect("tried").is_none());
        assert_eq!(FileLock::holder(&path).as_deref(), Some("run 7 (pid 42)"));
        held.describe_holder("pid 9").expect("rewritten");
        assert_eq!(FileLock::holder(&path).as_deref(), Some("pid 9"));
        drop(held);
        assert!(FileLock::try_take(&path).expect("tried").is_some());
    }

    #[test]
    fn binary_content_names_no_holder() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("old.lock");
        std::fs::write(&path, b"SQLite format 3\0\x10\x00").expect("written");
        assert_eq!(FileLock::holder(&path), None);
        assert!(FileLock::try_take(&path).expect("tried").is_some());
    }
}
