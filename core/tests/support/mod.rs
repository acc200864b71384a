//! Helpers of verdict-core's integration tests.

pub(crate) mod repo;
