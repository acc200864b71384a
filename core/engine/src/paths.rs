//! Where verdict keeps its own files in a workspace: everything under `<root>/.verdict/`, named
//! here once so that the CLI, the cache, the snapshots and the loop agree on the layout.
//!
//! - `runs/<id>/`: one directory per run, with each verifier's log and output files;
//! - `cache/`: the result cache (`cache/digests/` memoises digests);
//! - `state.db`: the loop's and the hook's SQLite database;
//! - `loop/`: the loop's workspace lock and each run's agent logs;
//! - `snapshots.git`, `snapshots.index`, `snapshots.restore.index`, `snapshots.lock`: the private
//!   repository of the workspace's snapshots;
//! - `.gitignore`: keeps all of it out of the user's repository.

use std::path::{Path, PathBuf};

/// The name of verdict's directory in a workspace.
pub const DIR: &str = ".verdict";

/// `<root>/.verdict`.
pub fn dir(root: &Path) -> PathBuf {
    root.join(DIR)
}

/// `<root>/.verdict/.gitignore`, which keeps verdict's files out of the user's repository.
pub fn gitignore(root: &Path) -> PathBuf {
    dir(root).join(".gitignore")
}

/// `<root>/.verdict/runs`: a directory per run.
pub fn runs(root: &Path) -> PathBuf {
    dir(root).join("runs")
}

/// `<root>/.verdict/cache`: the result cache.
pub fn cache(root: &Path) -> PathBuf {
    dir(root).join("cache")
}

/// `<root>/.verdict/cache/digests`: digests memoised by their reports and budget.
pub fn digests(root: &Path) -> PathBuf {
    cache(root).join("digests")
}

/// `<root>/.verdict/state.db`: the state database.
pub fn state_db(root: &Path) -> PathBuf {
    dir(root).join("state.db")
}

/// `<root>/.verdict/loop`: the loop's lock and logs.
pub fn loop_dir(root: &Path) -> PathBuf {
    dir(root).join("loop")
}

/// `<root>/.verdict/loop/workspace.lock`: held by the one loop of the workspace.
pub fn workspace_lock(root: &Path) -> PathBuf {
    loop_dir(root).join("workspace.lock")
}

/// `<root>/.verdict/snapshots.<suffix>`: the snapshot store's repository (`git`), index
/// (`index`), restore index (`restore.index`) and lock (`lock`).
pub fn snapshots(root: &Path, suffix: &str) -> PathBuf {
    dir(root).join(format!("snapshots.{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_is_under_the_verdict_directory() {
        let root = Path::new("/p");
        for path in [
            gitignore(root),
            runs(root),
            digests(root),
            state_db(root),
            workspace_lock(root),
            snapshots(root, "git"),
        ] {
            assert!(path.starts_with("/p/.verdict"), "{}", path.display());
        }
        assert_eq!(digests(root), Path::new("/p/.verdict/cache/digests"));
        assert_eq!(
            snapshots(root, "git"),
            Path::new("/p/.verdict/snapshots.git")
        );
    }
}
