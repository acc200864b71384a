//! Where verdict keeps its own files for a workspace, named here once so that the CLI, the cache,
//! the snapshots and the loop agree on the layout.
//!
//! The directory ([`dir`]) is where the project's own tools do not look: a formatter's `**/*.json`
//! or a linter's walk of the tree would otherwise find verdict's JSON and fail the project.
//!
//! - In a git work tree, inside its own git directory (as `git rev-parse --git-dir` names it):
//!   `.git/verdict/` for a checkout, `.git/worktrees/<name>/verdict/` for a linked work tree, so
//!   that each work tree has its own; a project below the work tree's top (a package of a
//!   monorepo) gets `<git dir>/verdict/projects/<its path, `/` written `%2F`>/`.
//! - Outside any repository, in the user's cache directory: `$XDG_CACHE_HOME/verdict/<hash>/`,
//!   else `~/.cache/verdict/<hash>/`, the hash being of the project's canonical path.
//! - `VERDICT_STATE_DIR` overrides both: a relative path is taken from the project's root
//!   (`VERDICT_STATE_DIR=.verdict` keeps the state in the tree, as verdict did before), an
//!   absolute one is used as it is.
//!
//! Under it:
//! - `runs/<id>/`: one directory per run, with each verifier's log and output files;
//! - `cache/`: the result cache (`cache/digests/` memoises digests);
//! - `state.db`: the loop's and the hook's SQLite database;
//! - `fleet.db`, `fleet-work/`: `verdict fleet`'s default database and its tasks' work
//!   directories;
//! - `loop/`: the loop's workspace lock and each run's agent logs;
//! - `hook/`: the session-start verifications' logs and locks;
//! - `running/`: one record per command while it runs (`process::stop_leftovers` reads them);
//! - `snapshots.git`, `snapshots.index`, `snapshots.restore.index`, `snapshots.lock`: the private
//!   repository of the workspace's snapshots;
//! - `.gitignore`: keeps all of it out of the user's repository when it is in the tree.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::worktree::WorkTree;

/// The name of verdict's directory in a workspace's tree, where verdict kept its files before
/// they moved out of the tree, and where `VERDICT_STATE_DIR=.verdict` keeps them.
pub const DIR: &str = ".verdict";

/// The environment variable that says where verdict keeps its files.
pub const STATE_DIR_ENV: &str = "VERDICT_STATE_DIR";

/// verdict's directory for the workspace at `root` (see the module's documentation).
pub fn dir(root: &Path) -> PathBuf {
    if let Some(named) = std::env::var_os(STATE_DIR_ENV).filter(|v| !v.is_empty()) {
        return root.join(named);
    }
    if let Some(tree) = WorkTree::find(root) {
        let base = tree.git_dir.join("verdict");
        return match project_within(root, &tree.top) {
            Some(name) => base.join("projects").join(name),
            None => base,
        };
    }
    match cache_home() {
        Some(cache) => cache.join("verdict").join(path_hash(root)),
        // Nowhere else to put it.
        None => root.join(DIR),
    }
}

/// The first component of verdict's directory when it is inside the tree of `root` (a relative
/// `VERDICT_STATE_DIR`), besides [`DIR`]: names a walk of the tree must leave out, at any depth
/// (a sub-project verdict was run in has its own).
pub fn in_tree_names() -> Vec<OsString> {
    let mut names = vec![OsString::from(DIR)];
    if let Some(named) = std::env::var_os(STATE_DIR_ENV).filter(|v| !v.is_empty()) {
        let named = PathBuf::from(named);
        if let Some(Component::Normal(first)) = named.components().next()
            && first != DIR
        {
            names.push(first.to_os_string());
        }
    }
    names
}

/// The name of the project at `root` below its work tree's `top`: its relative path with `%`
/// written `%25` and `/` written `%2F` (one directory name per project, none inside another's);
/// `None` for the top itself.
fn project_within(root: &Path, top: &Path) -> Option<String> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let top = top.canonicalize().unwrap_or_else(|_| top.to_path_buf());
    let within = root.strip_prefix(&top).ok()?;
    if within.as_os_str().is_empty() {
        return None;
    }
    let parts: Vec<String> = within
        .components()
        .map(|c| c.as_os_str().to_string_lossy().replace('%', "%25"))
        .collect();
    Some(parts.join("%2F"))
}

/// `$XDG_CACHE_HOME`, else `~/.cache`; `None` without either.
fn cache_home() -> Option<PathBuf> {
    let absolute = |value: Option<OsString>| value.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(std::env::var_os("XDG_CACHE_HOME"))
        .or_else(|| absolute(std::env::var_os("HOME")).map(|home| home.join(".cache")))
}

/// A short hash of `root`'s canonical path, naming its directory in the cache.
fn path_hash(root: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let hash = blake3::hash(root.as_os_str().as_encoded_bytes());
    hash.to_hex()[..16].to_owned()
}

/// Moves the `.verdict/` an older verdict left in the tree of `root` to [`dir`], and says what it
/// did (for stderr); `None` when there was nothing to move. When the new place already has some
/// of the same entries, the rest are moved and what is left stays, said so.
pub fn migrate(root: &Path) -> Option<String> {
    let legacy = root.join(DIR);
    let target = dir(root);
    if !legacy.is_dir() || same_dir(&legacy, &target) {
        return None;
    }
    let moved = |to: &Path| {
        format!(
            "verdict: moved its files from {} to {} (out of the tree, where the project's tools \
             do not look; VERDICT_STATE_DIR=.verdict keeps them in the tree)",
            legacy.display(),
            to.display()
        )
    };
    if let Some(parent) = target.parent()
        && let Err(error) = std::fs::create_dir_all(parent)
    {
        return Some(format!(
            "verdict: could not move {} to {}: {error}; its files are kept in the new place from \
             now on, so remove {} (or set VERDICT_STATE_DIR=.verdict to keep using it)",
            legacy.display(),
            target.display(),
            legacy.display()
        ));
    }
    if std::fs::rename(&legacy, &target).is_ok() {
        return Some(moved(&target));
    }
    // The new place exists already: move each entry it lacks.
    let _ = std::fs::create_dir_all(&target);
    if let Ok(entries) = std::fs::read_dir(&legacy) {
        for entry in entries.flatten() {
            let to = target.join(entry.file_name());
            if !to.exists() {
                let _ = std::fs::rename(entry.path(), &to);
            }
        }
    }
    if std::fs::remove_dir(&legacy).is_ok() {
        return Some(moved(&target));
    }
    Some(format!(
        "verdict: moved what it could of {} to {}; the rest is older than what is there, and \
         verdict no longer reads it: remove {} (or set VERDICT_STATE_DIR=.verdict to keep using \
         it)",
        legacy.display(),
        target.display(),
        legacy.display()
    ))
}

/// Whether two paths name the same directory (both resolved when they exist).
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// `<dir>/.gitignore`, which keeps verdict's files out of the user's repository when they are in
/// its tree.
pub fn gitignore(root: &Path) -> PathBuf {
    dir(root).join(".gitignore")
}

/// `<dir>/runs`: a directory per run.
pub fn runs(root: &Path) -> PathBuf {
    dir(root).join("runs")
}

/// `<dir>/cache`: the result cache.
pub fn cache(root: &Path) -> PathBuf {
    dir(root).join("cache")
}

/// `<dir>/cache/digests`: digests memoised by their reports and budget.
pub fn digests(root: &Path) -> PathBuf {
    cache(root).join("digests")
}

/// `<dir>/state.db`: the state database.
pub fn state_db(root: &Path) -> PathBuf {
    dir(root).join("state.db")
}

/// The default fleet database of `verdict fleet` run in `root`.
pub fn fleet_db(root: &Path) -> PathBuf {
    dir(root).join("fleet.db")
}

/// Where `verdict fleet work` run in `root` makes its tasks' work directories by default.
pub fn fleet_work(root: &Path) -> PathBuf {
    dir(root).join("fleet-work")
}

/// `<dir>/loop`: the loop's lock and logs.
pub fn loop_dir(root: &Path) -> PathBuf {
    dir(root).join("loop")
}

/// `<dir>/loop/workspace.lock`: held by the one loop of the workspace.
pub fn workspace_lock(root: &Path) -> PathBuf {
    loop_dir(root).join("workspace.lock")
}

/// `<dir>/hook`: the session-start verifications' logs and locks.
pub fn hook_dir(root: &Path) -> PathBuf {
    dir(root).join("hook")
}

/// `<dir>/running`: a record of each command verdict runs, while it runs (its pid, start time,
/// cgroup and marker), so that the next verdict stops what a killed one left running.
pub fn running(root: &Path) -> PathBuf {
    dir(root).join("running")
}

/// `<dir>/snapshots.<suffix>`: the snapshot store's repository (`git`), index (`index`),
/// restore index (`restore.index`) and lock (`lock`).
pub fn snapshots(root: &Path, suffix: &str) -> PathBuf {
    dir(root).join(format!("snapshots.{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_is_under_the_one_directory() {
        let root = Path::new("/p");
        let base = dir(root);
        for path in [
            gitignore(root),
            runs(root),
            digests(root),
            state_db(root),
            workspace_lock(root),
            hook_dir(root),
            snapshots(root, "git"),
        ] {
            assert!(path.starts_with(&base), "{}", path.display());
        }
        assert_eq!(digests(root), base.join("cache/digests"));
        assert_eq!(snapshots(root, "git"), base.join("snapshots.git"));
    }

    #[test]
    fn a_repository_keeps_it_in_its_git_directory_per_project() {
        let temp = tempfile::tempdir().expect("a temp dir");
        let repo = temp.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
        std::fs::create_dir_all(repo.join("packages/a%b")).expect("mkdir");
        if std::env::var_os(STATE_DIR_ENV).is_some() {
            // The override is tested by the CLI's tests, in processes of their own.
            return;
        }
        assert_eq!(dir(&repo), repo.join(".git/verdict"));
        assert_eq!(
            dir(&repo.join("packages/a%b")),
            repo.join(".git/verdict/projects/packages%2Fa%25b")
        );
    }
}
