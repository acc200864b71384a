//! The fleet's integration tests: one binary, one module per file.

mod pg_backend;
mod postgres;
