//! The mocha summarizer against every real log in `testdata/mocha/`, checked against mocha's own
//! JSON report of the same project (a second run with `--reporter json`), plus a snapshot of each
//! report.
//!
//! Test names follow the summarizer's rule: the suite titles and the test title joined with ` > `;
//! mocha's JSON `fullTitle` joins the same titles with single spaces.

use crate::support;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_model::{Outcome, Report, Summarizer};
use verdict_summarizers::mocha::MochaSummarizer;

fn testdata() -> PathBuf {
    support::testdata("mocha")
}

/// Parses one case and checks it against its ground truth, then snapshots the report.
fn check(case: &str) {
    let report = support::check_json_case("mocha", case, &MochaSummarizer, check_against_truth);
    insta::assert_json_snapshot!(case, report);
}

fn check_against_truth(case: &str, report: &Report, truth: &Value) {
    let stats = &truth["stats"];
    let n = |key: &str| {
        stats[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{case}: {key}"))
    };
    let counts = &report.counts;
    assert_eq!(counts.tests_failed, Some(n("failures")), "{case}: failed");
    assert_eq!(counts.tests_passed, Some(n("passes")), "{case}: passed");
    assert_eq!(counts.tests_skipped, Some(n("pending")), "{case}: skipped");
    let expected_outcome = if n("failures") > 0 {
        Outcome::Failed
    } else {
        Outcome::Passed
    };
    assert_eq!(report.outcome, expected_outcome, "{case}: outcome");

    let failures = truth["failures"].as_array().expect("failures");
    for failure in failures {
        let full_title = failure["fullTitle"].as_str().expect("fullTitle");
        let path = failure["file"].as_str().expect("file");
        let diagnostic = report
            .diagnostics
            .iter()
            .find(|d| {
                d.test.as_deref().map(|t| t.replace(" > ", " ")).as_deref() == Some(full_title)
            })
            .unwrap_or_else(|| panic!("{case}: no diagnostic for `{full_title}`"));
        let file = diagnostic
            .file
            .as_deref()
            .unwrap_or_else(|| panic!("{case}: no file for `{full_title}`"));
        // The file is printed relative to the project, or absolute (ES modules' file:// URLs).
        assert!(
            path == file || path.ends_with(&format!("/{file}")),
            "{case}: `{full_title}` is in {path}, not {file}"
        );
        let stack = failure["err"]["stack"].as_str().unwrap_or("");
        if let Some(line) = support::frame_line_in(stack, file) {
            // The test function's frame, when there is one, is the one the summarizer reports.
            let context_line = stack.lines().find_map(|l| {
                let l = l.trim().strip_prefix("at ")?;
                let l = l.strip_prefix("async ").unwrap_or(l);
                l.starts_with("Context.")
                    .then(|| support::frame_line_in(&format!("at {l}"), file))?
            });
            assert_eq!(
                diagnostic.line,
                Some(context_line.unwrap_or(line)),
                "{case}: line of `{full_title}`"
            );
        }
    }
    assert_eq!(
        report.diagnostics.len(),
        failures.len(),
        "{case}: one diagnostic per failure"
    );
}

#[test]
fn crashes_before_any_test_are_errored() {
    for case in [
        "bad-config",
        "no-tests",
        "mocha10-bad-config",
        "mocha10-no-tests",
    ] {
        let log = fs::read(testdata().join(format!("{case}.log"))).expect("log");
        let report = MochaSummarizer.parse(&log);
        assert_eq!(report.outcome, Outcome::Errored, "{case}");
    }
}

#[test]
fn test_files_that_do_not_load_are_root_causes() {
    for (case, file) in [
        ("load-error", "/mocha/load-error/src/format.js"),
        ("syntax-error", "/mocha/syntax-error/test/broken.test.js"),
    ] {
        let log = fs::read(testdata().join(format!("{case}.log"))).expect("log");
        let report = MochaSummarizer.parse(&log);
        assert_eq!(report.outcome, Outcome::Failed, "{case}");
        let d = &report.diagnostics[0];
        assert!(d.root_cause, "{case}");
        assert!(
            d.file.as_deref().is_some_and(|f| f.ends_with(file)),
            "{case}: {:?}",
            d.file
        );
    }
}

/// Everything checked of each captured log: its truth, its detection and its sections, and the
/// structured report the run wrote.
fn check_log(tool: &str, case: &str) {
    check(case);
    assert_eq!(support::detected(tool, case), tool, "{case}");
    crate::documents::check_reports(tool, case);
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/mocha/`.
mod logs {
    crate::support::logs::mocha!(super::check_log);
}
