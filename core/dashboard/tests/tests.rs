//! The dashboard's integration tests, one binary: each module tests one part against real
//! databases.

mod loop_source;
