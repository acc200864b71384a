//! verdict-model's integration tests, one binary: each file of `tests/` is a module.

mod secrets;
