//! The vitest summarizer against every real log in `testdata/vitest/`, checked against vitest's own
//! JSON report of the same run (`--reporter=json --outputFile.json`), plus a snapshot of each
//! report.
//!
//! Test names follow the summarizer's rule: the describe titles and the test title joined with
//! ` > `, as vitest prints them in its ` FAIL ` headers (the JSON's `ancestorTitles` and `title`).

mod support;

use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_core::{Outcome, Report, Summarizer};
use verdict_summarizers::vitest::VitestSummarizer;

fn testdata() -> PathBuf {
    support::testdata("vitest")
}

fn cases() -> Vec<String> {
    support::case_names("vitest")
}

/// Parses one case and checks it against its ground truth, then snapshots the report.
fn check(case: &str) {
    let report = support::check_json_case("vitest", case, &VitestSummarizer, check_against_truth);
    insta::assert_json_snapshot!(case, report);
}

fn check_against_truth(case: &str, report: &Report, truth: &Value) {
    let n = |key: &str| {
        truth[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{case}: {key}"))
    };
    if n("numTotalTests") == 0 && truth["testResults"].as_array().is_some_and(Vec::is_empty) {
        assert_eq!(report.outcome, Outcome::Errored, "{case}: no test ran");
        return;
    }
    let counts = &report.counts;
    assert_eq!(
        counts.tests_failed,
        Some(n("numFailedTests")),
        "{case}: failed"
    );
    assert_eq!(
        counts.tests_passed,
        Some(n("numPassedTests")),
        "{case}: passed"
    );
    assert_eq!(
        counts.tests_skipped,
        Some(n("numPendingTests") + n("numTodoTests")),
        "{case}: skipped"
    );
    let results = truth["testResults"].as_array().expect("testResults");
    let failed_to_load = results
        .iter()
        .filter(|r| {
            r["status"] == "failed"
                && r["assertionResults"].as_array().is_some_and(Vec::is_empty)
                && r["message"].as_str().is_some_and(|m| !m.is_empty())
        })
        .count() as u64;
    let failed_files = results.iter().filter(|r| r["status"] == "failed").count() as u64;
    assert_eq!(
        counts.suites_errored,
        Some(failed_to_load),
        "{case}: suites errored"
    );
    assert_eq!(counts.files, Some(failed_files), "{case}: files");
    let expected_outcome = if n("numFailedTests") + failed_files > 0 {
        Outcome::Failed
    } else {
        Outcome::Passed
    };
    if counts.errors.unwrap_or(0) == 0 {
        assert_eq!(report.outcome, expected_outcome, "{case}: outcome");
    } else {
        assert_eq!(
            report.outcome,
            Outcome::Failed,
            "{case}: unhandled errors fail"
        );
    }

    support::check_jest_format_tests(case, report, truth, " > ");
}

#[test]
fn every_captured_log_matches_its_truth() {
    for case in cases() {
        check(&case);
    }
}

#[test]
fn crashes_before_any_test_are_errored() {
    for case in [
        "bad-config",
        "no-tests",
        "vitest3-bad-config",
        "vitest3-no-tests",
    ] {
        let log = fs::read(testdata().join(format!("{case}.log"))).expect("log");
        let report = VitestSummarizer.parse(&log);
        assert_eq!(report.outcome, Outcome::Errored, "{case}");
    }
}

#[test]
fn unhandled_errors_are_reported_where_they_were_thrown() {
    let log = fs::read(testdata().join("unhandled.log")).expect("log");
    let report = VitestSummarizer.parse(&log);
    assert_eq!(report.counts.errors, Some(2));
    let unhandled: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code.is_some())
        .collect();
    assert_eq!(unhandled.len(), 2);
    assert_eq!(
        unhandled[0].location().as_deref(),
        Some("test/timer.test.js:5:11")
    );
}

#[test]
fn vitest_logs_are_detected_as_vitest() {
    for case in cases() {
        let log = fs::read(testdata().join(format!("{case}.log"))).expect("log");
        let sample = verdict_summarizers::sample(&log);
        let detected = verdict_summarizers::detect(&sample);
        assert_eq!(detected.summarizer.name(), "vitest", "{case}");
    }
}
