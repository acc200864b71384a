//! The generic summarizer against every captured log in `testdata/generic/`: gcc, make, mypy and a
//! Python crash.
//!
//! Each log is checked against the tool's own structured output: every error and warning in gcc's
//! `-fdiagnostics-format=json` and every error in mypy's `--output json` is matched by a diagnostic
//! at its file and line, and mypy's error count is the one its summary printed. Logs without a
//! truth (a crash, a link error, make with no rule) must not pass. Each report is snapshotted.

mod support;

use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_core::{Outcome, Report, Severity, Summarizer};
use verdict_summarizers::generic::GenericSummarizer;

fn testdata() -> PathBuf {
    support::testdata("generic")
}

fn cases() -> Vec<String> {
    support::case_names("generic")
}

/// Asserts a diagnostic of `severity` at `file:line`.
fn assert_placed(case: &str, report: &Report, file: &str, line: u64, severity: Severity) {
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.file.as_deref() == Some(file)
                && d.line == Some(line as u32)
                && d.severity == severity),
        "{case}: no {severity:?} at {file}:{line}"
    );
}

/// gcc's JSON: one array per compiled file, between make's own lines.
fn check_gcc(case: &str, report: &Report, truth: &str) {
    for line in truth.lines().filter(|l| l.starts_with('[')) {
        let diagnostics: Vec<Value> = serde_json::from_str(line).expect("gcc JSON");
        for d in &diagnostics {
            let severity = match d["kind"].as_str() {
                Some("error" | "fatal error") => Severity::Error,
                Some("warning") => Severity::Warning,
                _ => continue,
            };
            let caret = &d["locations"][0]["caret"];
            let file = caret["file"].as_str().unwrap_or("");
            let n = caret["line"].as_u64().unwrap_or(0);
            assert_placed(case, report, file, n, severity);
        }
    }
}

/// mypy's JSON lines.
fn check_mypy(case: &str, report: &Report, truth: &str) {
    let mut errors = 0;
    for line in truth.lines().filter(|l| l.starts_with('{')) {
        let d: Value = serde_json::from_str(line).expect("mypy JSON");
        if d["severity"] != "error" {
            continue;
        }
        errors += 1;
        let file = d["file"].as_str().unwrap_or("");
        let n = d["line"].as_u64().unwrap_or(0);
        assert_placed(case, report, file, n, Severity::Error);
    }
    if errors > 0 {
        assert_eq!(report.counts.errors, Some(errors), "{case}: mypy's count");
    }
}

/// Checks one captured case against its truth and meta, and snapshots its report.
fn check(case: &str) {
    let dir = testdata();
    let log = fs::read(dir.join(format!("{case}.log"))).expect("log");
    let meta = support::meta("generic", case);
    let report = GenericSummarizer.parse(&log);
    match meta["exit_code"].as_i64() {
        Some(0) => assert_eq!(report.outcome, Outcome::Passed, "{case}"),
        _ => {
            assert_ne!(
                report.outcome,
                Outcome::Passed,
                "{case}: a failure is never a pass"
            );
            if report.outcome == Outcome::Errored {
                assert!(report.error.is_some(), "{case}: says why");
            }
        }
    }
    if let Ok(truth) = fs::read_to_string(dir.join(format!("{case}.truth.json"))) {
        check_gcc(case, &report, &truth);
    }
    if let Ok(truth) = fs::read_to_string(dir.join(format!("{case}.truth.jsonl"))) {
        check_mypy(case, &report, &truth);
    }
    // gcc prints no count: the errors found are never presented as the tool's.
    if case.starts_with("gcc") || case.starts_with("make") {
        assert_eq!(report.counts.errors, None, "{case}");
    }
    insta::assert_json_snapshot!(case.to_owned(), report);
}

#[test]
fn every_captured_log_matches_its_truth() {
    for case in cases() {
        check(&case);
    }
}

#[test]
fn a_crash_with_a_traceback_is_placed_at_the_script() {
    let log = fs::read(testdata().join("python-traceback.log")).expect("log");
    let report = GenericSummarizer.parse(&log);
    assert_eq!(report.outcome, Outcome::Failed);
    let d = &report.diagnostics[0];
    assert_eq!(d.message, "KeyError: 'port'");
    assert_eq!(
        d.location().as_deref(),
        Some("/tmp/verdict-capture/generic/py-crash/crash.py:10")
    );
}

#[test]
fn no_other_summarizer_claims_these_logs() {
    for case in cases() {
        let log = fs::read(testdata().join(format!("{case}.log"))).expect("log");
        let detection = verdict_summarizers::detect(&verdict_summarizers::sample(&log));
        assert_eq!(detection.summarizer.name(), "generic", "{case}");
    }
}
