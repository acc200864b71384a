//! verdict-js-test's integration tests: one test binary, one module per part.

mod interpret;
mod node_test;
mod verify;
