//! Capture cases for `cargo` (being written; see issue 2).

use super::Case;

/// The cargo cases.
pub(crate) fn cases() -> Vec<Case> {
    Vec::new()
}
