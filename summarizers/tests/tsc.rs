//! The tsc summarizer against every real log in `testdata/tsc/`, plus a snapshot of each report.
//!
//! tsc has no JSON output: the ground truth of each case is the plain `--pretty false` run of the
//! same project and tsc version (`<case>.truth.txt`), read here with a strict pattern of its own,
//! independent of the summarizer. Every error in it must be matched by a diagnostic with the same
//! file, line, column, code and message, and the counts must be the truth's.

use crate::support;
use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use regex::Regex;
use verdict_model::{Outcome, Report, Summarizer};
use verdict_summarizers::tsc::TscSummarizer;

fn testdata() -> PathBuf {
    support::testdata("tsc")
}

/// One error of the plain truth.
#[derive(Debug)]
struct TruthError {
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
    code: String,
    message: String,
}

/// Reads a `--pretty false` log: one error per unindented line, chained messages indented. Any
/// other unindented line fails the test, so that a format change is noticed here first.
fn read_truth(case: &str, text: &str) -> Vec<TruthError> {
    let located = Regex::new(r"^(\S[^(]*)\((\d+),(\d+)\): error (TS\d+): (.+)$").expect("pattern");
    let global = Regex::new(r"^error (TS\d+): (.+)$").expect("pattern");
    let mut errors = Vec::new();
    for line in text.lines() {
        if line.is_empty() || line.starts_with(' ') {
            continue;
        }
        if let Some(c) = located.captures(line) {
            errors.push(TruthError {
                file: Some(c[1].to_owned()),
                line: c[2].parse().ok(),
                column: c[3].parse().ok(),
                code: c[4].to_owned(),
                message: c[5].to_owned(),
            });
        } else if let Some(c) = global.captures(line) {
            errors.push(TruthError {
                file: None,
                line: None,
                column: None,
                code: c[1].to_owned(),
                message: c[2].to_owned(),
            });
        } else {
            panic!("{case}: unexpected line in the truth: {line:?}");
        }
    }
    errors
}

fn is_config(error: &TruthError) -> bool {
    error
        .file
        .as_deref()
        .is_none_or(|f| f.ends_with("tsconfig.json"))
}

/// Parses one case, checks it against its ground truth, and snapshots the report.
fn check(case: &str) {
    let dir = testdata();
    let log = fs::read(dir.join(format!("{case}.log"))).expect("log");
    let meta = support::meta("tsc", case);
    let Ok(truth) = fs::read_to_string(dir.join(format!("{case}.truth.txt"))) else {
        // No truth: tsc never ran (the npm package `tsc`, a placeholder, printed its notice).
        // Through the check every summarizer of `all()` has, it is "could not verify".
        let report = verdict_summarizers::by_name("tsc")
            .expect("tsc")
            .parse(&log);
        assert_eq!(report.outcome, Outcome::Errored, "{case}: tsc never ran");
        assert!(
            report
                .error
                .as_deref()
                .is_some_and(|e| e.contains("never ran")),
            "{case}: {:?}",
            report.error
        );
        insta::assert_json_snapshot!(case, report);
        return;
    };
    let truth = read_truth(case, &truth);
    let report: Report = TscSummarizer.parse(&log);

    let expected = if truth.iter().any(is_config) {
        Outcome::Errored
    } else if truth.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed
    };
    assert_eq!(report.outcome, expected, "{case}: outcome");
    assert_eq!(
        meta["exit_code"] == 0,
        expected == Outcome::Passed,
        "{case}: the exit code agrees"
    );
    if expected == Outcome::Errored {
        assert!(report.error.is_some(), "{case}: errored without a reason");
    }

    let files: BTreeSet<&str> = truth.iter().filter_map(|e| e.file.as_deref()).collect();
    assert_eq!(
        report.counts.errors,
        Some(truth.len() as u64),
        "{case}: errors"
    );
    assert_eq!(
        report.counts.files,
        Some(files.len() as u64),
        "{case}: files"
    );
    assert_eq!(
        report.diagnostics.len(),
        truth.len(),
        "{case}: one diagnostic per error"
    );
    for error in &truth {
        let found = report.diagnostics.iter().any(|d| {
            d.file == error.file
                && d.line == error.line
                && d.column == error.column
                && d.code.as_deref() == Some(error.code.as_str())
                && d.message == error.message
        });
        assert!(found, "{case}: no diagnostic for {error:?}");
    }
    for diagnostic in &report.diagnostics {
        let code = diagnostic.code.as_deref().unwrap_or("");
        let expected_root = code.starts_with("TS1") && code.len() == 6
            || matches!(code, "TS2307" | "TS2305" | "TS2724")
            || diagnostic
                .file
                .as_deref()
                .is_none_or(|f| f.ends_with(".json"));
        if expected_root {
            assert!(diagnostic.root_cause, "{case}: {code} is a root cause");
        }
    }

    insta::assert_json_snapshot!(case, report);
}

#[test]
fn pretty_and_plain_logs_of_one_project_give_the_same_diagnostics() {
    for version in ["", "ts7-"] {
        let read = |name: &str| {
            let log = fs::read(testdata().join(format!("{version}{name}.log"))).expect("log");
            TscSummarizer.parse(&log)
        };
        let plain = read("many-errors-plain");
        let pretty = read("many-errors-pretty");
        assert_eq!(
            plain.diagnostics, pretty.diagnostics,
            "{version}many-errors"
        );
        assert_eq!(plain.counts, pretty.counts, "{version}many-errors");
        assert_eq!(
            pretty.summary.as_deref(),
            Some("Found 51 errors in 10 files.")
        );
    }
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    check(case);
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/tsc/`.
mod logs {
    crate::support::logs::tsc!(super::check_log);
}
