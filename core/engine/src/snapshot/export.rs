//! Writing a snapshot out into another directory, and naming what the snapshots leave out: what a
//! copy of the workspace needs to verify a tree while the workspace itself moves on.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::error::SnapshotError;
use super::store::Snapshots;
use super::tree::TreeId;

/// The most bytes of ignored paths [`Snapshots::ignored`] reads.
const IGNORED_LIMIT: usize = 16 * 1024 * 1024;

impl Snapshots {
    /// Writes every file of `tree` under `dest` (an existing directory, empty or holding nothing
    /// the tree has): content, executable bit, symlinks as symlinks. The workspace and the
    /// snapshot index are not touched.
    pub fn export(&self, tree: &TreeId, dest: &Path) -> Result<(), SnapshotError> {
        let _lock = self.lock()?;
        self.check_tree(tree)?;
        let dest = dest.to_str().ok_or_else(|| SnapshotError::Io {
            action: "export into",
            path: dest.to_owned(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the path is not UTF-8, which git's --prefix needs",
            ),
        })?;
        // An index of its own, so that the stat cache of the snapshot index is kept.
        let index = self.git_dir.join("verdict-export.index");
        let _ = fs::remove_file(&index);
        let prefix = format!("--prefix={}/", dest.trim_end_matches('/'));
        let result = self
            .git(&["read-tree", tree.as_str()], Some(&index), None)
            .and_then(|_| self.git(&["checkout-index", "-a", "-f", &prefix], Some(&index), None));
        let _ = fs::remove_file(&index);
        result.map(|_| ())
    }

    /// The paths under the root that the snapshots leave out and that are there now, relative to
    /// the root: a wholly ignored directory once (`node_modules`, `target`), otherwise each
    /// ignored file. verdict's own directory is among them when it is in the tree.
    pub fn ignored(&self) -> Result<Vec<PathBuf>, SnapshotError> {
        let _lock = self.lock()?;
        let listed = self.git(
            &[
                "ls-files",
                "--others",
                "--ignored",
                "--exclude-standard",
                "--directory",
                "-z",
            ],
            None,
            Some(IGNORED_LIMIT),
        )?;
        if listed.truncated {
            // A list cut short would leave out what a copy needs, silently.
            return Err(SnapshotError::Output {
                command: "git ls-files --others --ignored".to_owned(),
                output: format!("more than {IGNORED_LIMIT} bytes of paths"),
            });
        }
        Ok(listed
            .stdout
            .split(|&b| b == 0)
            .filter(|path| !path.is_empty())
            .map(|path| {
                let path = path.strip_suffix(b"/").unwrap_or(path);
                PathBuf::from(OsStr::from_bytes(path))
            })
            .collect())
    }

    /// Removes the ref [`Snapshots::pin`] gave under `name`; the tree may then go at the next
    /// `git gc`. A name never pinned is no error.
    pub fn unpin(&self, name: &str) -> Result<(), SnapshotError> {
        if !super::take::valid_pin_name(name) {
            return Err(SnapshotError::InvalidName(name.to_owned()));
        }
        let _lock = self.lock()?;
        let reference = format!("refs/verdict/{name}");
        self.git(&["update-ref", "-d", &reference], None, None)?;
        Ok(())
    }
}
