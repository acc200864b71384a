//! Capture cases for `mocha` (being written; see issue 2).

use super::Case;

/// The mocha cases.
pub(crate) fn cases() -> Vec<Case> {
    Vec::new()
}
