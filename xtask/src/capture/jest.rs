//! Capture cases for `jest` (being written; see issue 2).

use super::Case;

/// The jest cases.
pub(crate) fn cases() -> Vec<Case> {
    Vec::new()
}
