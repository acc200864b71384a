//! The fleet's integration tests: one binary, one module per file.

mod workdir;
