//! The cargo summarizer against every captured cargo log in `testdata/cargo/`.
//!
//! Each log is checked against the ground truth captured with it: cargo's `--message-format=json`
//! for builds (every error and warning at its file and line, and cargo's error count), libtest's
//! JSON events for test runs (every failing test, where it panicked, and the summed counts). Logs
//! without a truth are cargo's own failures and must be errored. Each report is also snapshotted.

mod support;

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_core::{Outcome, Report, Severity, Summarizer};
use verdict_summarizers::cargo::CargoSummarizer;

fn testdata() -> PathBuf {
    support::testdata("cargo")
}

fn cases() -> Vec<String> {
    support::case_names("cargo")
}

/// The `{…}` lines of a truth file (cargo interleaves its own stderr lines with them).
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// `file:line:col` after `panicked at ` in a failed test's output.
fn panic_location(stdout: &str) -> Option<(String, u32)> {
    let rest = &stdout[stdout.find("panicked at ")? + "panicked at ".len()..];
    let location = rest.lines().next()?.trim_end_matches(':');
    let mut parts = location.rsplitn(3, ':');
    let _column = parts.next()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?.to_owned(), line))
}

fn check_build_truth(case: &str, report: &Report, truth: &[Value]) {
    let mut errors = 0;
    let mut warnings = HashSet::new();
    for value in truth {
        if value["reason"] != "compiler-message" {
            continue;
        }
        let message = &value["message"];
        let level = message["level"].as_str().unwrap_or("");
        let span = message["spans"]
            .as_array()
            .and_then(|spans| spans.iter().find(|s| s["is_primary"] == true));
        if level == "error" {
            errors += 1;
        }
        if level == "warning" {
            warnings.insert(message.to_string());
        }
        let Some(mut span) = span else { continue };
        // A span inside std's macros is shown at the macro's call in the package's code.
        while span["file_name"]
            .as_str()
            .is_some_and(|f| f.starts_with('/'))
            && span["expansion"]["span"].is_object()
        {
            span = &span["expansion"]["span"];
        }
        let file = span["file_name"].as_str().unwrap_or("");
        let line = span["line_start"].as_u64().unwrap_or(0) as u32;
        let severity = if level == "error" {
            Severity::Error
        } else {
            Severity::Warning
        };
        let code = message["code"]["code"].as_str();
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.file.as_deref() == Some(file)
                    && d.line == Some(line)
                    && d.severity == severity
                    && (code.is_none() || d.code.as_deref() == code)),
            "{case}: no diagnostic for {level} {code:?} at {file}:{line} ({})",
            message["message"]
        );
    }
    assert_eq!(
        report.counts.errors.unwrap_or(0),
        errors,
        "{case}: error count"
    );
    if !warnings.is_empty() {
        assert_eq!(
            report.counts.warnings,
            Some(warnings.len() as u64),
            "{case}: warning count"
        );
    }
}

fn check_test_truth(case: &str, report: &Report, truth: &[Value]) {
    let (mut passed, mut failed, mut ignored) = (0, 0, 0);
    for value in truth {
        match (value["type"].as_str(), value["event"].as_str()) {
            (Some("suite"), Some("ok" | "failed")) => {
                passed += value["passed"].as_u64().unwrap_or(0);
                failed += value["failed"].as_u64().unwrap_or(0);
                ignored += value["ignored"].as_u64().unwrap_or(0);
            }
            (Some("test"), Some("failed")) => {
                let name = value["name"].as_str().unwrap_or("");
                let found: Vec<_> = report
                    .diagnostics
                    .iter()
                    .filter(|d| d.test.as_deref() == Some(name))
                    .collect();
                assert!(!found.is_empty(), "{case}: no diagnostic for test {name}");
                let stdout = value["stdout"].as_str().unwrap_or("");
                // Doc-tests are placed at their line in the documented file, not in the
                // generated test program their panic points into.
                if !name.contains(" - ")
                    && let Some((file, line)) = panic_location(stdout)
                {
                    assert!(
                        found
                            .iter()
                            .any(|d| d.file.as_deref() == Some(&*file) && d.line == Some(line)),
                        "{case}: test {name} not placed at {file}:{line}: {found:?}"
                    );
                }
            }
            _ => {}
        }
    }
    assert_eq!(report.counts.tests_passed, Some(passed), "{case}: passed");
    assert_eq!(report.counts.tests_failed, Some(failed), "{case}: failed");
    assert_eq!(
        report.counts.tests_skipped,
        Some(ignored),
        "{case}: ignored"
    );
}

/// Checks one captured case against its truth and meta, and snapshots its report.
fn check(case: &str) {
    let dir = testdata();
    let log = fs::read(dir.join(format!("{case}.log"))).expect("log");
    let meta = support::meta("cargo", case);
    let report = CargoSummarizer.parse(&log);
    let exit_code = meta["exit_code"].as_i64();

    if exit_code == Some(0) {
        assert_eq!(report.outcome, Outcome::Passed, "{case}: exit 0 is a pass");
    } else {
        assert_ne!(
            report.outcome,
            Outcome::Passed,
            "{case}: a failure is never a pass"
        );
    }

    let truth_path = dir.join(format!("{case}.truth.jsonl"));
    match fs::read_to_string(&truth_path) {
        Ok(text) => {
            let truth = json_lines(&text);
            if truth.iter().any(|v| v.get("type").is_some()) {
                check_test_truth(case, &report, &truth);
            } else {
                check_build_truth(case, &report, &truth);
            }
            if exit_code != Some(0) {
                assert_eq!(report.outcome, Outcome::Failed, "{case}: the code fails");
            }
        }
        Err(_) => {
            assert_eq!(
                report.outcome,
                Outcome::Errored,
                "{case}: nothing was built"
            );
            assert!(report.error.is_some(), "{case}: says why");
        }
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
fn the_log_is_detected_as_cargo() {
    for case in cases() {
        let log = fs::read(testdata().join(format!("{case}.log"))).expect("log");
        let detection = verdict_summarizers::detect(&verdict_summarizers::sample(&log));
        assert_eq!(detection.summarizer.name(), "cargo", "{case}");
    }
}

/// The report of one captured case.
fn report_of(case: &str) -> Report {
    CargoSummarizer.parse(&support::log("cargo", case))
}

/// (passed, failed, skipped) of a report.
fn test_counts(report: &Report) -> (Option<u64>, Option<u64>, Option<u64>) {
    (
        report.counts.tests_passed,
        report.counts.tests_failed,
        report.counts.tests_skipped,
    )
}

#[test]
fn a_result_line_a_failing_test_prints_is_its_output_not_a_summary() {
    // The test prints `test result: ok. 10 passed; …`, then panics.
    let report = report_of("test-printed-results");
    assert_eq!(test_counts(&report), (Some(1), Some(1), Some(1)));
    let failures: Vec<_> = report
        .errors()
        .map(|d| {
            (
                d.test.as_deref(),
                d.file.as_deref(),
                d.line,
                d.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        failures,
        [(
            Some("tests::prints_a_result_then_fails"),
            Some("src/lib.rs"),
            Some(12),
            "real failure"
        )]
    );
}

#[test]
fn failure_lines_a_passing_test_leaks_to_stdout_do_not_fail_it() {
    // `test inner::thing ... FAILED` and `test result: FAILED. …` written past libtest's capture.
    let report = report_of("test-leaked-output");
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(test_counts(&report), (Some(1), Some(0), Some(0)));
    assert!(report.diagnostics.is_empty(), "{report:#?}");
}
