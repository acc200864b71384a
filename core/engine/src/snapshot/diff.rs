//! What changed between two snapshots: the diff the cheating guard reads, and the paths.

use super::error::SnapshotError;
use super::store::Snapshots;
use super::tree::{Diff, TreeId};

/// The most of a diff [`Snapshots::diff`] returns; the rest is cut at a line boundary.
pub const DIFF_LIMIT: usize = 8 * 1024 * 1024;

impl Snapshots {
    /// The unified diff from `from` to `to` (renames detected), at most [`DIFF_LIMIT`] bytes of it.
    pub fn diff(&self, from: &TreeId, to: &TreeId) -> Result<Diff, SnapshotError> {
        let _lock = self.lock()?;
        self.check_tree(from)?;
        self.check_tree(to)?;
        let output = self.git(
            &[
                "diff-tree",
                "-r",
                "-p",
                "-M",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--src-prefix=a/",
                "--dst-prefix=b/",
                from.as_str(),
                to.as_str(),
            ],
            None,
            Some(DIFF_LIMIT),
        )?;
        let mut bytes = output.stdout;
        if output.truncated {
            let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            bytes.truncate(end);
        }
        Ok(Diff {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            truncated: output.truncated,
        })
    }

    /// The paths (`/`-separated, relative to the root; bytes that are not UTF-8 replaced) that
    /// differ between `from` and `to`: added, deleted, or changed in content, mode or type.
    pub fn changed_paths(&self, from: &TreeId, to: &TreeId) -> Result<Vec<String>, SnapshotError> {
        let _lock = self.lock()?;
        self.changed_paths_locked(from, to)
    }

    pub(super) fn changed_paths_locked(
        &self,
        from: &TreeId,
        to: &TreeId,
    ) -> Result<Vec<String>, SnapshotError> {
        self.check_tree(from)?;
        self.check_tree(to)?;
        let output = self.git(
            &[
                "diff-tree",
                "-r",
                "-z",
                "--name-only",
                "--no-renames",
                from.as_str(),
                to.as_str(),
            ],
            None,
            None,
        )?;
        Ok(output
            .stdout
            .split(|&b| b == 0)
            .filter(|path| !path.is_empty())
            .map(|path| String::from_utf8_lossy(path).into_owned())
            .collect())
    }
}

/// One line of `git diff-tree -r -z --raw --no-renames <tree> <now>`.
#[derive(Debug)]
pub(super) struct RawChange {
    /// The mode in the workspace now (0: absent).
    pub(super) now_mode: u32,
    /// `A`, `D`, `M` or `T`, from the tree to now.
    pub(super) status: u8,
    pub(super) path: Vec<u8>,
}

/// Reads `:<mode> <mode> <id> <id> <status>\0<path>\0` records; `None` on anything else.
pub(super) fn parse_raw(output: &[u8]) -> Option<Vec<RawChange>> {
    let mut fields = output.split(|&b| b == 0);
    let mut changes = Vec::new();
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        let meta = std::str::from_utf8(meta.strip_prefix(b":")?).ok()?;
        let parts: Vec<&str> = meta.split(' ').collect();
        let [_, now_mode, _, _, status] = parts.as_slice() else {
            return None;
        };
        let now_mode = u32::from_str_radix(now_mode, 8).ok()?;
        let status = *status.as_bytes().first()?;
        let path = fields.next()?.to_vec();
        changes.push(RawChange {
            now_mode,
            status,
            path,
        });
    }
    Some(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_records() {
        let z = b":000000 100644 0000 1111 A\0new file\0:100644 100755 1111 2222 M\0x\0";
        let changes = parse_raw(z).expect("parses");
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[0].status, b'A');
        assert_eq!(changes[0].path, b"new file");
        assert_eq!(changes[1].now_mode, 0o100755);
        assert!(parse_raw(b"garbage\0x\0").is_none());
    }
}
