//! verdict-plugin-abi's integration tests: one test binary.

mod export;
