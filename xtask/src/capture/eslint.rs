//! Capture cases for `eslint` (being written; see issue 2).

use super::Case;

/// The eslint cases.
pub(crate) fn cases() -> Vec<Case> {
    Vec::new()
}
