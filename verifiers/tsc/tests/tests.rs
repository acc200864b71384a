//! verdict-tsc's integration tests: one test binary.

mod tsc;
