//! verdict-cargo's integration tests: one test binary, one module per verifier family.

mod cargo;
mod nextest;
