//! Capture cases for `vitest` (being written; see issue 2).

use super::Case;

/// The vitest cases.
pub(crate) fn cases() -> Vec<Case> {
    Vec::new()
}
