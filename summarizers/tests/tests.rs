//! The summarizers' tests, one binary: each parser against the real captured logs of
//! `testdata/<tool>/` and the logs from the wild in `testdata/wild/`, one test per log.

mod support;

mod cargo;
mod documents;
mod eslint;
mod generic;
mod jest;
mod jest_json;
mod junit;
mod mangled;
mod mocha;
mod mypy;
mod named_tests;
mod nextest;
mod node_test;
mod pyright;
mod pytest;
mod ruff;
mod tap;
mod tsc;
mod unittest;
mod vitest;
mod wild;
mod wrong_tool;
