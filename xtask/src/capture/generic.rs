//! Capture cases for `generic` (being written; see issue 2).

use super::Case;

/// The generic cases.
pub(crate) fn cases() -> Vec<Case> {
    Vec::new()
}
