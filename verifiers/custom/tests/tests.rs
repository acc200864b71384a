//! verdict-custom's integration tests: one test binary.

mod pipeline;
mod run;
