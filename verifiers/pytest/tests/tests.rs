//! verdict-pytest's integration tests: one test binary, one module per part.

mod captured;
mod pytest;
mod unittest;
