//! Removing a task's work directory (retention, or a half-prepared one found at the next
//! attempt), and the free space a worker checks before taking a task.

use std::path::Path;

use serde::Serialize;

use super::git::Git;
use crate::error::{FleetError, Result};

/// What [`remove`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Removed {
    /// A linked work tree, removed with `git worktree remove --force` (its repository pruned).
    Worktree,
    /// A directory (a clone), removed with everything in it.
    Directory,
    /// Nothing was there.
    Absent,
    /// Left alone: it is not under the fleet's work directories (a task that ran in its
    /// workspace in place), and a workspace is never deleted.
    Kept,
}

/// Removes the work directory `workdir` if it lies under `base`, the fleet's directory of work
/// directories; anything else — a workspace a task used in place — is never deleted
/// ([`Removed::Kept`]). A linked work tree is removed through its repository, so the repository
/// forgets it (`git worktree remove --force`, then `git worktree prune`); its branch stays.
pub async fn remove(workdir: &Path, base: &Path) -> Result<Removed> {
    if workdir.symlink_metadata().is_err() {
        return Ok(Removed::Absent);
    }
    let (Ok(dir), Ok(base)) = (workdir.canonicalize(), base.canonicalize()) else {
        return Ok(Removed::Kept);
    };
    // The task's own directory under `base` (its root may be a sub-directory of it).
    let Some(top) = dir
        .strip_prefix(&base)
        .ok()
        .and_then(|within| within.components().next())
        .map(|first| base.join(first))
    else {
        return Ok(Removed::Kept);
    };
    if let Some(tree) = verdict_core::worktree::WorkTree::at(&top)
        && tree.git_dir != tree.common_dir
    {
        let repo = tree.common_dir;
        let removed = Git::new(&repo, ["worktree", "remove", "--force", "--force"])
            .arg(&top)
            .run()
            .await;
        if removed.is_ok() && top.symlink_metadata().is_err() {
            let _ = Git::new(&repo, ["worktree", "prune"]).run().await;
            return Ok(Removed::Worktree);
        }
        // git could not (a locked or damaged work tree): delete the files and let prune
        // forget it.
        delete(&top)?;
        let _ = Git::new(&repo, ["worktree", "prune"]).run().await;
        return Ok(Removed::Worktree);
    }
    delete(&top)?;
    Ok(Removed::Directory)
}

fn delete(dir: &Path) -> Result<()> {
    std::fs::remove_dir_all(dir).map_err(|source| FleetError::Io {
        what: format!("remove {}", dir.display()),
        source,
    })
}

/// Bytes free for an unprivileged user on the filesystem holding `path`: a worker checks it
/// before taking a task, since a clone, a setup and an agent's build all need disk.
pub fn free_bytes(path: &Path) -> std::io::Result<u64> {
    let stat = rustix::fs::statvfs(path)?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}
