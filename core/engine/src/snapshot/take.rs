//! Taking a snapshot of the workspace (nested repositories included), and pinning it.

use super::error::SnapshotError;
use super::store::Snapshots;
use super::tree::TreeId;
use std::fs;

impl Snapshots {
    /// A snapshot of the workspace as it is now. The same content gives the same id.
    pub fn take(&self) -> Result<TreeId, SnapshotError> {
        let _lock = self.lock()?;
        self.take_locked()
    }

    /// Gives `tree` the ref `refs/verdict/<name>` (through a commit), so that it is kept for as
    /// long as the store exists, whatever `git gc` runs. Pinning again under a name moves it.
    pub fn pin(&self, tree: &TreeId, name: &str) -> Result<(), SnapshotError> {
        if !valid_pin_name(name) {
            return Err(SnapshotError::InvalidName(name.to_owned()));
        }
        let _lock = self.lock()?;
        self.check_tree(tree)?;
        let message = format!("verdict snapshot {name}");
        let commit = self.git(&["commit-tree", tree.as_str(), "-m", &message], None, None)?;
        let commit = String::from_utf8_lossy(&commit.stdout).trim().to_owned();
        let reference = format!("refs/verdict/{name}");
        self.git(&["update-ref", &reference, &commit], None, None)?;
        Ok(())
    }

    pub(super) fn take_locked(&self) -> Result<TreeId, SnapshotError> {
        self.open_nested_repositories()?;
        self.git(&["add", "-A", "--", "."], None, None)?;
        let output = match self.git(&["write-tree"], None, None) {
            // The private index names a file's object that the store no longer has (a `git gc
            // --prune=now` of the store took an unpinned snapshot's blobs), and `add` trusted
            // the index because the file's stat had not changed: hash the files again.
            Err(SnapshotError::Git { stderr, .. }) if stderr.contains("invalid object") => {
                fs::remove_file(&self.index).map_err(|source| SnapshotError::Io {
                    action: "remove",
                    path: self.index.clone(),
                    source,
                })?;
                self.open_nested_repositories()?;
                self.git(&["add", "-A", "--", "."], None, None)?;
                self.git(&["write-tree"], None, None)?
            }
            result => result?,
        };
        let id = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        TreeId::new(id).map_err(|e| SnapshotError::Output {
            command: "git write-tree".to_owned(),
            output: e.to_string(),
        })
    }

    /// Gives each nested repository the private index does not hold files of a placeholder entry,
    /// so that the `add -A` that follows stages its files instead of a submodule's commit (see the
    /// module docs). Nested repositories inside those show up once their parent is opened.
    pub(super) fn open_nested_repositories(&self) -> Result<(), SnapshotError> {
        let mut empty_blob: Option<String> = None;
        for _ in 0..NESTED_DEPTH {
            let others = self.git(
                &["ls-files", "--others", "--exclude-standard", "-z"],
                None,
                None,
            )?;
            // Git lists a nested repository as its directory, with a trailing slash; untracked
            // files and the files of plain untracked directories are listed one by one.
            let nested: Vec<&[u8]> = others
                .stdout
                .split(|&b| b == 0)
                .filter(|path| path.ends_with(b"/"))
                .collect();
            if nested.is_empty() {
                return Ok(());
            }
            let blob = match &empty_blob {
                Some(blob) => blob.clone(),
                None => {
                    let output = self.git_with(
                        &["hash-object", "-w", "--stdin"],
                        None,
                        Some(Vec::new()),
                        None,
                    )?;
                    let blob = String::from_utf8_lossy(&output.stdout).trim().to_owned();
                    empty_blob = Some(blob.clone());
                    blob
                }
            };
            let mut input = Vec::new();
            for dir in nested {
                input.extend_from_slice(format!("100644 {blob}\t").as_bytes());
                input.extend_from_slice(dir);
                input.extend_from_slice(NESTED_SEED.as_bytes());
                input.push(0);
            }
            self.git_with(
                &["update-index", "-z", "--index-info"],
                None,
                Some(input),
                None,
            )?;
        }
        Ok(())
    }
}

/// A name for `refs/verdict/<name>`: `/`-separated parts of `[A-Za-z0-9_.-]`, none empty, none
/// starting with `.` or ending with `.lock`.
pub(super) fn valid_pin_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('/').all(|part| {
            !part.is_empty()
                && !part.starts_with('.')
                && !part.ends_with(".lock")
                && !part.contains("..")
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        })
}

/// The mode git gives a nested repository (a submodule's commit).
pub(super) const GITLINK: u32 = 0o160000;

/// The name of the placeholder entry that makes git walk a nested repository as a plain directory
/// (see the module docs). It never exists on disk, so the `add -A` that follows removes it.
const NESTED_SEED: &str = ".verdict-nested-repository";

/// How deep nested repositories inside nested repositories are opened up.
const NESTED_DEPTH: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pin_names() {
        assert!(valid_pin_name("runs/12/start"));
        assert!(valid_pin_name("start-1.x"));
        for bad in [
            "", "a//b", ".a", "a/.b", "a.lock", "a..b", "a b", "a~1", "/a", "a/",
        ] {
            assert!(!valid_pin_name(bad), "{bad}");
        }
    }
}
