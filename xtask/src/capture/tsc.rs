//! Capture cases for `tsc` (being written; see issue 2).

use super::Case;

/// The tsc cases.
pub(crate) fn cases() -> Vec<Case> {
    Vec::new()
}
