//! Capture cases for `pytest` (being written; see issue 2).

use super::Case;

/// The pytest cases.
pub(crate) fn cases() -> Vec<Case> {
    Vec::new()
}
