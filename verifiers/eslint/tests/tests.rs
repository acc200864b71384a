//! verdict-eslint's integration tests: one test binary.

mod eslint;
