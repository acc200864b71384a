//! Writing a snapshot back into the workspace, only where it differs, and checking the result.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::diff::parse_raw;
use super::error::SnapshotError;
use super::store::Snapshots;
use super::take::GITLINK;
use super::tree::{Restored, TreeId};

/// How many differing paths a failed restore names.
const RESTORE_PATHS: usize = 10;

impl Snapshots {
    /// Makes the workspace equal `tree`: files changed or deleted since come back (content,
    /// executable bit, symlinks as symlinks), files added since are removed together with the
    /// directories they leave empty. Ignored files are not touched. Checks the result with a new
    /// snapshot and fails naming what still differs.
    pub fn restore(&self, tree: &TreeId) -> Result<Restored, SnapshotError> {
        let _lock = self.lock()?;
        self.check_tree(tree)?;
        let now = self.take_locked()?;
        if now == *tree {
            return Ok(Restored::default());
        }
        let raw = self.git(
            &[
                "diff-tree",
                "-r",
                "-z",
                "--raw",
                "--no-renames",
                tree.as_str(),
                now.as_str(),
            ],
            None,
            None,
        )?;
        let changes = parse_raw(&raw.stdout).ok_or_else(|| SnapshotError::Output {
            command: "git diff-tree -r -z --raw".to_owned(),
            output: String::from_utf8_lossy(&raw.stdout[..raw.stdout.len().min(200)]).into_owned(),
        })?;

        // Whatever stands where the tree has something else goes first: a file where the tree
        // has a directory, a symlink where it has a directory of files.
        let mut removed = 0;
        let mut checkout = Vec::new();
        let mut emptied = BTreeSet::new();
        for change in &changes {
            let path = Path::new(OsStr::from_bytes(&change.path));
            match change.status {
                b'A' => {
                    self.remove(path, change.now_mode)?;
                    removed += 1;
                    emptied.extend(path.ancestors().skip(1).map(Path::to_owned));
                }
                b'T' => {
                    self.remove(path, change.now_mode)?;
                    checkout.push(change.path.as_slice());
                }
                b'D' | b'M' => checkout.push(change.path.as_slice()),
                _ => {
                    return Err(SnapshotError::Output {
                        command: "git diff-tree -r -z --raw".to_owned(),
                        output: format!("status {}", char::from(change.status)),
                    });
                }
            }
        }
        // Deepest first, so a parent is tried once its children are gone; a directory still
        // holding something (an ignored file) stays.
        let mut emptied: Vec<PathBuf> = emptied
            .into_iter()
            .filter(|dir| !dir.as_os_str().is_empty())
            .collect();
        emptied.sort_by_key(|dir| std::cmp::Reverse(dir.components().count()));
        for dir in emptied {
            let _ = fs::remove_dir(self.root.join(dir));
        }

        if !checkout.is_empty() {
            // A separate index holding the tree, so the stat cache of the snapshot index is kept.
            let _ = fs::remove_file(&self.restore_index);
            let index = Some(self.restore_index.as_path());
            self.git(&["read-tree", tree.as_str()], index, None)?;
            let mut input = Vec::new();
            for path in &checkout {
                input.extend_from_slice(path);
                input.push(0);
            }
            let result = self.git_with(
                &["checkout-index", "-f", "-z", "--stdin"],
                index,
                Some(input),
                None,
            );
            let _ = fs::remove_file(&self.restore_index);
            result?;
        }

        let after = self.take_locked()?;
        if after != *tree {
            let mut paths = self.changed_paths_locked(tree, &after)?;
            paths.truncate(RESTORE_PATHS);
            return Err(SnapshotError::RestoreIncomplete {
                tree: tree.clone(),
                paths,
            });
        }
        Ok(Restored {
            restored: checkout.len(),
            removed,
        })
    }

    /// Fails with [`SnapshotError::UnknownTree`] unless `tree` is a tree of the store.
    pub(super) fn check_tree(&self, tree: &TreeId) -> Result<(), SnapshotError> {
        let kind = self.git(&["cat-file", "-t", tree.as_str()], None, None);
        match kind {
            Ok(output) if output.stdout.trim_ascii() == b"tree" => Ok(()),
            Ok(_) | Err(SnapshotError::Git { .. }) => Err(SnapshotError::UnknownTree {
                tree: tree.clone(),
                git_dir: self.git_dir.clone(),
            }),
            Err(error) => Err(error),
        }
    }

    /// Removes what stands at `path` now: a file or symlink, or a nested repository (a directory).
    pub(super) fn remove(&self, path: &Path, mode: u32) -> Result<(), SnapshotError> {
        let full = self.root.join(path);
        let result = if mode == GITLINK {
            fs::remove_dir_all(&full)
        } else {
            fs::remove_file(&full)
        };
        match result {
            Err(source) if source.kind() != io::ErrorKind::NotFound => Err(SnapshotError::Io {
                action: "remove",
                path: full,
                source,
            }),
            _ => Ok(()),
        }
    }
}
