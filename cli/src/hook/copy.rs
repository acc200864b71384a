//! The copy of a session's start tree that its background verification runs in.
//!
//! The session-start hook answers at once, so the agent edits while the start tree is verified;
//! verified in place, the result would mix two trees. The tree is written out of the snapshot
//! store into a private directory outside the project: tools look upwards for their
//! configuration (cargo's workspace, eslint's and tsc's configs), so a copy below the project
//! would be read as part of it. What the snapshots leave out and tools need (`node_modules`,
//! `.venv`, other ignored files) is reachable through symlinks to the project's own; a build
//! output directory (cargo's `target`) is not, and the copy's builds go to verdict's own.
//!
//! The results are made the project's: verifiers already give paths relative to the directory
//! they ran in, and any absolute path of the copy left in a report's text is written as the
//! project's, so that a failure's fingerprint is the one a stop in the project computes. The
//! copy is removed when it is dropped, whatever happened.

use std::ffi::OsStr;
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result};
use verdict_core::Verification;
use verdict_core::model::Report;
use verdict_core::snapshot::{Snapshots, TreeId};

/// Ignored paths that are not linked into the copy: caches a tool writes into as it runs, which
/// would be the project's own through a link (pytest's last failures, bytecode compiled from the
/// copy's files), and git's directory.
const NOT_LINKED: &[&str] = &[
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
];

/// How the copies' directories begin; the rest is the tree's id (12 digits) and the pid of the
/// process that made it, which [`sweep`] reads.
const PREFIX: &str = "verdict-start-";

/// Removes the copies in the temporary directory whose process is gone: one killed (SIGKILL,
/// a crash) could not remove its own, and nothing else would. Only this user's are touched.
pub(super) fn sweep() {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    let uid = rustix::process::getuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(PREFIX))
            .and_then(|rest| rest.rsplit_once('-'))
            .and_then(|(_, pid)| pid.parse::<i32>().ok())
        else {
            continue;
        };
        let ours = entry.metadata().is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if ours && !alive(pid) {
            // Symlinks are removed, never followed: the project's own files stay.
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether process `pid` exists (one of another user's counts).
fn alive(pid: i32) -> bool {
    let Some(pid) = rustix::process::Pid::from_raw(pid) else {
        return false;
    };
    matches!(
        rustix::process::test_kill_process(pid),
        Ok(()) | Err(rustix::io::Errno::PERM)
    )
}

/// A start tree written out in a private directory; removed on drop.
pub(super) struct StartCopy {
    dir: PathBuf,
}

impl StartCopy {
    /// Writes `tree` out of the snapshot store of `root` into a new private directory in the
    /// system's temporary directory, and links the project's ignored paths into it.
    pub(super) fn make(root: &Path, tree: &str) -> Result<StartCopy> {
        let snapshots = Snapshots::open(root).context("failed to open the snapshot store")?;
        let id = TreeId::new(tree.to_owned()).context("not a tree id")?;
        let name = format!(
            "{PREFIX}{}-{}",
            &tree[..tree.len().min(12)],
            std::process::id()
        );
        let dir = std::env::temp_dir().join(name);
        // Not recursive: a directory already there (someone else's) is an error, never reused.
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .with_context(|| format!("failed to create {}", dir.display()))?;
        let copy = StartCopy { dir };
        snapshots
            .export(&id, &copy.dir)
            .with_context(|| format!("failed to write tree {tree} out"))?;
        let ignored = snapshots
            .ignored()
            .context("failed to list the project's ignored files")?;
        let root = snapshots.root().to_path_buf();
        for path in ignored
            .iter()
            .filter(|path| linked(path) && !build_output(&root.join(path)))
        {
            copy.link(&root, path)?;
        }
        Ok(copy)
    }

    /// The copy's directory.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes `path` of the copy a symlink to the project's, unless the copy has something there,
    /// or a symlink on the way (creating directories through it would write outside the copy).
    fn link(&self, root: &Path, path: &Path) -> Result<()> {
        let at = self.dir.join(path);
        let mut above = self.dir.clone();
        for part in path.parent().into_iter().flat_map(Path::components) {
            above.push(part);
            if above
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink())
            {
                return Ok(());
            }
        }
        if at.symlink_metadata().is_ok() {
            return Ok(());
        }
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("failed to create {}", parent.display()))?;
        }
        std::os::unix::fs::symlink(root.join(path), &at)
            .with_context(|| format!("failed to link {} into the copy", path.display()))
    }

    /// Writes the copy's absolute paths in the texts of `verifications` as the project's at
    /// `root`, recomputing the fingerprint of each diagnostic that changed.
    pub(super) fn relocate(&self, root: &Path, verifications: &mut [Verification]) -> Result<()> {
        let mut copies = vec![self.dir.clone()];
        if let Ok(real) = self.dir.canonicalize()
            && real != self.dir
        {
            copies.push(real);
        }
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        for verification in verifications {
            for copy in &copies {
                relocate_report(&mut verification.report, copy, &root)?;
                for note in &mut verification.notes {
                    *note = replace_path(note, copy, &root);
                }
            }
        }
        Ok(())
    }
}

impl Drop for StartCopy {
    fn drop(&mut self) {
        // Symlinks are removed, never followed: the project's own files stay.
        if let Err(error) = std::fs::remove_dir_all(&self.dir) {
            eprintln!(
                "verdict hook: failed to remove {} ({error})",
                self.dir.display()
            );
        }
    }
}

/// Whether an ignored path is linked into the copy (see [`NOT_LINKED`]); verdict's own directory,
/// when it is in the tree, never is.
fn linked(path: &Path) -> bool {
    let own = verdict_core::paths::in_tree_names();
    path.components().all(|part| match part {
        Component::Normal(name) => {
            !NOT_LINKED.iter().any(|n| OsStr::new(n) == name) && !own.iter().any(|n| n == name)
        }
        _ => false,
    })
}

/// Whether `dir` is a tool's build output, marked as a cache directory (a `CACHEDIR.TAG` in it,
/// as cargo writes in `target`): a build in the copy would write the start tree's artifacts over
/// the project's (its binaries), and share its build lock with the agent's builds. The copy
/// builds elsewhere (see [`CARGO_TARGET_DIR`]).
fn build_output(dir: &Path) -> bool {
    dir.join("CACHEDIR.TAG").is_file()
}

/// Where the start verifications build a Rust project, under verdict's own directory: kept
/// from one session start to the next, so that only the first one builds from nothing.
pub(super) fn cargo_target_dir(root: &Path) -> PathBuf {
    verdict_core::paths::hook_dir(root).join("start-target")
}

/// The variable that moves cargo's build output.
pub(super) const CARGO_TARGET_DIR: &str = "CARGO_TARGET_DIR";

/// `text` with `from` (a directory) written as `to`.
fn replace_path(text: &str, from: &Path, to: &Path) -> String {
    text.replace(
        from.to_string_lossy().as_ref(),
        to.to_string_lossy().as_ref(),
    )
}

/// Writes `from` as `to` in every text of `report`, and refreshes the fingerprints of the
/// diagnostics whose text changed.
fn relocate_report(report: &mut Report, from: &Path, to: &Path) -> Result<()> {
    let json = serde_json::to_string(&*report).context("failed to encode a report")?;
    // Paths as JSON spells them inside a string, so that the text stays valid JSON.
    let quoted = |path: &Path| -> Result<String> {
        let text = serde_json::to_string(path.to_string_lossy().as_ref())
            .context("failed to encode a path")?;
        Ok(text.trim_matches('"').to_owned())
    };
    let (from, to) = (quoted(from)?, quoted(to)?);
    if !json.contains(&from) {
        return Ok(());
    }
    let mut moved: Report = serde_json::from_str(&json.replace(&from, &to))
        .context("failed to decode a relocated report")?;
    for (diagnostic, before) in moved.diagnostics.iter_mut().zip(&report.diagnostics) {
        if diagnostic != before {
            diagnostic.refresh_fingerprint();
        }
    }
    *report = moved;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_gits_and_verdicts_own_directories_are_not_linked() {
        for (path, expect) in [
            ("node_modules", true),
            ("packages/a/node_modules", true),
            ("target", true),
            (".env", true),
            (".verdict", false),
            ("src/__pycache__", false),
            (".pytest_cache", false),
            ("sub/.git", false),
        ] {
            assert_eq!(linked(Path::new(path)), expect, "{path}");
        }
    }
}
