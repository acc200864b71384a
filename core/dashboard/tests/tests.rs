//! The dashboard's integration tests: one binary, one module per file.

mod fleet_source;
