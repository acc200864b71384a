//! The JSON report jest writes with `--json --outputFile` (and vitest with `--reporter=json`, in
//! the same shape), turned into a [`verdict_core::Report`].
