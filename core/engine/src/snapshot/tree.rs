//! The ids of snapshots, and what comparing and restoring them gives back.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::error::SnapshotError;

/// The id of a snapshot: a git tree id (40 hexadecimal digits, or 64 in a SHA-256 repository),
/// stored by the loop as a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TreeId(String);

impl TreeId {
    /// Checks that `id` is a full tree id (hexadecimal, either case; kept in lower case).
    pub fn new(id: String) -> Result<TreeId, SnapshotError> {
        let valid = matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit());
        if !valid {
            return Err(SnapshotError::InvalidTreeId(id));
        }
        Ok(TreeId(id.to_ascii_lowercase()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TreeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for TreeId {
    type Error = SnapshotError;

    fn try_from(id: String) -> Result<TreeId, SnapshotError> {
        TreeId::new(id)
    }
}

impl From<TreeId> for String {
    fn from(id: TreeId) -> String {
        id.0
    }
}

/// A unified diff between two snapshots, as `git diff` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    /// The diff (`diff --git a/… b/…` headers, `@@` hunks; bytes that are not UTF-8 replaced).
    /// When [`Diff::truncated`], it ends at the last whole line within [`DIFF_LIMIT`](super::DIFF_LIMIT).
    pub text: String,
    /// Whether the diff was longer than [`DIFF_LIMIT`](super::DIFF_LIMIT) and cut.
    pub truncated: bool,
}

/// What [`Snapshots::restore`](super::Snapshots::restore) did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Restored {
    /// Paths written back: changed, deleted or changed in type since the tree.
    pub restored: usize,
    /// Paths removed: added since the tree.
    pub removed: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_ids_are_checked_and_lowercased() {
        let upper = "4B825DC642CB6EB9A060E54BF8D69288FBEE4904".to_owned();
        let id = TreeId::new(upper).expect("valid");
        assert_eq!(id.as_str(), "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
        assert!(TreeId::new("4b825dc".to_owned()).is_err());
        assert!(TreeId::new("z".repeat(40)).is_err());
        assert!(TreeId::new("a".repeat(64)).is_ok());
        let json = serde_json::to_string(&id).expect("serializes");
        assert_eq!(json, "\"4b825dc642cb6eb9a060e54bf8d69288fbee4904\"");
        assert!(serde_json::from_str::<TreeId>("\"nope\"").is_err());
    }
}
