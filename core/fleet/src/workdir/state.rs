//! What the fleet keeps about a work directory in verdict's own directory for it (out of the
//! tree, see `verdict_core::paths`): the commit each task started from, the setup command's log,
//! and the throw-away index that records the agent's work.

use std::path::{Path, PathBuf};

use crate::error::{FleetError, Result};

/// The fleet's directory in verdict's directory for the work directory at `root`, beside the
/// loop's lock and logs.
pub(super) fn dir(root: &Path) -> PathBuf {
    verdict_core::paths::loop_dir(root).join("fleet")
}

/// The setup command's log.
pub(super) fn setup_log(root: &Path) -> PathBuf {
    dir(root).join("setup.log")
}

/// The mark that the task's setup command ran to its end in this work directory.
fn setup_done_file(root: &Path) -> PathBuf {
    dir(root).join("setup.done")
}

/// Marks the setup as done: a work directory found again after a worker died is not set up
/// twice, and one whose setup was cut short is set up again.
pub(super) fn mark_setup_done(root: &Path) -> Result<()> {
    let path = setup_done_file(root);
    std::fs::write(&path, b"done\n").map_err(|source| FleetError::Io {
        what: format!("write {}", path.display()),
        source,
    })
}

/// Whether the setup ran to its end here.
pub(super) fn is_setup_done(root: &Path) -> bool {
    setup_done_file(root).is_file()
}

/// A throw-away index for one recording of the agent's work (per process, so two never share it).
pub(super) fn scratch_index(root: &Path) -> PathBuf {
    dir(root).join(format!("keep-{}.index", std::process::id()))
}

/// The file holding the start of the task keyed `key` (several in-place tasks share a
/// directory, one after another).
fn start_file(root: &Path, key: &str) -> PathBuf {
    let hash = blake3::hash(key.as_bytes()).to_hex();
    dir(root).join(format!("start-{}", &hash[..16]))
}

/// The start recorded for the task keyed `key`, when there is one and it reads as a commit id.
pub(super) fn read_start(root: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(start_file(root, key)).ok()?;
    let start = text.trim();
    let is_id = (40..=64).contains(&start.len()) && start.bytes().all(|b| b.is_ascii_hexdigit());
    is_id.then(|| start.to_owned())
}

/// Records the start of the task keyed `key`.
pub(super) fn write_start(root: &Path, key: &str, start: &str) -> Result<()> {
    let path = start_file(root, key);
    create_dir(&dir(root))?;
    std::fs::write(&path, format!("{start}\n")).map_err(|source| FleetError::Io {
        what: format!("write {}", path.display()),
        source,
    })
}

/// Creates `dir` and its parents.
pub(super) fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| FleetError::Io {
        what: format!("create {}", dir.display()),
        source,
    })
}
