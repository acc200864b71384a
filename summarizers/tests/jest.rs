//! The jest summarizer against every real log in `testdata/jest/`, checked against jest's own JSON
//! report of the same run (`--json --outputFile`), plus a snapshot of each report.
//!
//! Test names follow the summarizer's rule: the describe titles and the test title joined with
//! ` › `, as jest prints them in its `●` headers (the JSON's `ancestorTitles` and `title`).

use crate::support;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_model::{Outcome, Report, Summarizer};
use verdict_summarizers::jest::JestSummarizer;

fn testdata() -> PathBuf {
    support::testdata("jest")
}

/// Parses one case and checks it against its ground truth, then snapshots the report.
fn check(case: &str) {
    let report = support::check_json_case("jest", case, &JestSummarizer, check_against_truth);
    insta::assert_json_snapshot!(case, report);
}

fn check_against_truth(case: &str, report: &Report, truth: &Value) {
    let n = |key: &str| {
        truth[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{case}: {key}"))
    };
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
    assert_eq!(
        counts.suites_errored,
        Some(n("numRuntimeErrorTestSuites")),
        "{case}: suites errored"
    );
    assert_eq!(
        counts.files,
        Some(n("numFailedTestSuites")),
        "{case}: files"
    );
    // `success` is false too when every test passed but the run failed (obsolete snapshots).
    let expected_outcome =
        if n("numFailedTests") + n("numRuntimeErrorTestSuites") > 0 || truth["success"] == false {
            Outcome::Failed
        } else {
            Outcome::Passed
        };
    assert_eq!(report.outcome, expected_outcome, "{case}: outcome");

    support::check_jest_format_tests(case, report, truth, " › ");
}

#[test]
fn crashes_before_any_test_are_errored() {
    for case in [
        "bad-config",
        "config-syntax",
        "missing-env",
        "no-tests",
        "jest29-bad-config",
        "jest29-config-syntax",
        "jest29-no-tests",
        "jest28-missing-env",
    ] {
        let log = fs::read(testdata().join(format!("{case}.log"))).expect("log");
        let report = JestSummarizer.parse(&log);
        assert_eq!(report.outcome, Outcome::Errored, "{case}");
    }
}

#[test]
fn the_summary_repeat_is_not_counted_twice() {
    let log = fs::read(testdata().join("many-suites.log")).expect("log");
    let report = JestSummarizer.parse(&log);
    assert_eq!(
        report.diagnostics.len() as u64,
        report.counts.tests_failed.unwrap_or(0)
    );
}

#[test]
fn summaries_of_several_packages_add_up() {
    // pnpm ran jest in two packages at once; their reports (see the case's meta file) held 9 + 2
    // failed, 4 + 2 passed, 2 skipped and 1 todo, 5 + 1 failed suites, 1 suite that failed to run.
    let report = JestSummarizer.parse(&support::log("jest", "pnpm-two-packages"));
    let counts = &report.counts;
    assert_eq!(counts.tests_failed, Some(11));
    assert_eq!(counts.tests_passed, Some(6));
    assert_eq!(counts.tests_skipped, Some(3));
    assert_eq!(counts.files, Some(6));
    assert_eq!(counts.suites_errored, Some(1));
    assert_eq!(report.outcome, Outcome::Failed);
}

#[test]
fn process_exit_in_a_test_is_one_root_cause_not_failing_tests() {
    // The jest 28 fixture calls process.exit on its test's second line.
    for (case, line) in [
        ("process-exit-workers", 1),
        ("jest29-process-exit", 1),
        ("jest28-process-exit", 2),
    ] {
        let report = JestSummarizer.parse(&support::log("jest", case));
        let exits: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.message.starts_with("process.exit called with"))
            .collect();
        assert_eq!(exits.len(), 1, "{case}: reported once");
        assert!(exits[0].test.is_none() && exits[0].root_cause, "{case}");
        assert_eq!(
            exits[0].file.as_deref(),
            Some("test/exit.test.js"),
            "{case}"
        );
        assert_eq!(exits[0].line, Some(line), "{case}");
        assert_eq!(report.outcome, Outcome::Failed, "{case}");
    }
}

#[test]
fn obsolete_snapshots_fail_a_run_whose_tests_all_passed() {
    for case in ["obsolete-snapshot", "jest29-obsolete-snapshot"] {
        let report = JestSummarizer.parse(&support::log("jest", case));
        assert_eq!(report.outcome, Outcome::Failed, "{case}");
        assert_eq!(report.counts.tests_failed, Some(0), "{case}");
        let obsolete = report
            .diagnostics
            .iter()
            .find(|d| d.code.as_deref() == Some("obsolete-snapshot"))
            .unwrap_or_else(|| panic!("{case}: no obsolete-snapshot diagnostic"));
        assert_eq!(obsolete.file.as_deref(), Some("test/a.test.js"), "{case}");
    }
}

#[test]
fn open_handles_are_notes_not_failures() {
    // `--detectOpenHandles` lists what keeps jest from exiting after the summary, each as a block
    // titled like an error outside the tests (`●  TCPSERVERWRAP`); jest exits 0 and its report
    // passes. They were read as a failure, so a passing run was failed (errored by reconcile).
    for case in [
        "open-handles",
        "jest29-open-handles",
        "jest28-open-handles",
        "jest27-open-handles",
    ] {
        let report = JestSummarizer.parse(&support::log("jest", case));
        assert_eq!(report.outcome, Outcome::Passed, "{case}");
        assert!(report.diagnostics.is_empty(), "{case}: {report:#?}");
        assert_eq!(
            report.notes,
            [
                "jest detected 1 open handle potentially keeping it from exiting: TCPSERVERWRAP at test/server.test.js:5"
            ],
            "{case}"
        );
    }
}

#[test]
fn a_log_after_the_tests_is_the_failure_of_a_run_whose_tests_passed() {
    // jest 27 to 30 print `●  Cannot log after tests are done.` and exit 1, while their JSON
    // report of the run says success with 2 tests passed (so these cases keep no truth.json: the
    // report cannot see the failure). The log line is the one failure, at the test's own line.
    for case in ["jest27-late", "jest28-late"] {
        let report = JestSummarizer.parse(&support::log("jest", case));
        assert_eq!(support::exit_code("jest", case), Some(1), "{case}");
        assert_eq!(report.outcome, Outcome::Failed, "{case}");
        assert_eq!(report.counts.tests_failed, Some(0), "{case}");
        assert_eq!(report.counts.tests_passed, Some(2), "{case}");
        let [late] = report.diagnostics.as_slice() else {
            panic!("{case}: {report:#?}");
        };
        assert!(late.message.starts_with("Cannot log after tests are done."));
        assert!(late.root_cause && late.test.is_none(), "{case}");
        assert_eq!(late.location().as_deref(), Some("test/late.test.js:3:13"));
    }
}

/// Everything checked of each captured log: its truth, its detection and its sections, and the
/// structured report the run wrote.
fn check_log(tool: &str, case: &str) {
    check(case);
    assert_eq!(support::detected(tool, case), tool, "{case}");
    crate::jest_json::check_jest(case);
    crate::documents::check_reports(tool, case);
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/jest/`.
mod logs {
    crate::support::logs::jest!(super::check_log);
}
