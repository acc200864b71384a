//! Helpers of verdict-core's integration tests.

pub(crate) mod captured;
pub(crate) mod repo;

pub(crate) use captured::*;
