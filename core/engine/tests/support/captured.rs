//! The captured logs of `summarizers/testdata/` for the tests that digest them, and what those
//! tests measure of a digest. The lists of logs are the summarizers' own ([`logs`]), so a log
//! added there gets a digest test here too.
#![allow(dead_code, unused_imports, unused_macros)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "../../../../summarizers/tests/support/logs.rs"]
pub(crate) mod logs;

#[path = "../../../../summarizers/tests/support/listing.rs"]
mod listing;

pub(crate) use listing::*;

/// `summarizers/testdata/<tool>/`.
pub(crate) fn testdata(tool: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../summarizers/testdata")
        .join(tool)
}

/// The names of every captured case of `tool` (the stems of its `.log` files), sorted; fails when
/// there are none, so that a missing capture cannot pass unnoticed.
pub(crate) fn case_names(tool: &str) -> Vec<String> {
    let dir = testdata(tool);
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".log").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no captured logs in {}", dir.display());
    names
}

/// The captured log of a case.
pub(crate) fn log(tool: &str, case: &str) -> Vec<u8> {
    let path = testdata(tool).join(format!("{case}.log"));
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The tool's exit code in the captured run, from the meta file `cargo xtask capture` wrote.
pub(crate) fn exit_code(tool: &str, case: &str) -> Option<i64> {
    let path = testdata(tool).join(format!("{case}.meta.json"));
    let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let meta: Value =
        serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    meta["exit_code"].as_i64()
}

/// Whether a digest names `place` (a path, or `path:line`): as written, or relative to the root
/// its headline states (`(paths relative to /home/ci/app/)`), and never as the start of a longer number
/// (`a.ts:12` is not named by `a.ts:123`).
pub(crate) fn digest_names(text: &str, place: &str) -> bool {
    let found = |needle: &str| {
        !needle.is_empty()
            && text.match_indices(needle).any(|(at, _)| {
                let after = text[at + needle.len()..].chars().next();
                !after.is_some_and(|c| c.is_ascii_digit())
            })
    };
    if found(place) {
        return true;
    }
    text.lines().any(|line| {
        line.split_once("(paths relative to ")
            .and_then(|(_, rest)| rest.split_once(')'))
            .and_then(|(root, _)| place.strip_prefix(root))
            .is_some_and(found)
    })
}

/// The least mean share of a log's failing files its digest names.
pub(crate) const FILES_NAMED: f64 = 0.90;

/// The least mean share of a log's first ten failures its digest names with `file:line`.
pub(crate) const FIRST_TEN_NAMED: f64 = 0.85;

/// Asserts the means over logs of the shares their digests name (`files` and `first`, one share
/// per log), printing `table`, the per-log figures, either way.
pub(crate) fn assert_means(files: &[f64], first: &[f64], table: &str) {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let (files, first) = (mean(files), mean(first));
    eprintln!("{table}mean: files {files:.3}, first ten {first:.3}");
    assert!(files >= FILES_NAMED, "files named {files:.3}\n{table}");
    assert!(
        first >= FIRST_TEN_NAMED,
        "first ten named {first:.3}\n{table}"
    );
}
