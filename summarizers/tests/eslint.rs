//! The eslint summarizer against every real log in `testdata/eslint/`, checked against eslint's own
//! JSON report of the same project (`-f json -o eslint-report.json`), plus a snapshot of each report.
//!
//! Stylish drops a message's final period; the JSON keeps it. The summarizer gives both formats as
//! stylish prints them, so messages are compared without it.

use crate::support;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_model::{Outcome, Report, Severity, Summarizer};
use verdict_summarizers::eslint::EslintSummarizer;

fn testdata() -> PathBuf {
    support::testdata("eslint")
}

fn read_log(case: &str) -> Vec<u8> {
    fs::read(testdata().join(format!("{case}.log"))).expect("log")
}

/// Parses one case, checks it against its ground truth, and snapshots the report.
fn check(case: &str) {
    let dir = testdata();
    let log = read_log(case);
    let meta = support::meta("eslint", case);
    let report: Report = EslintSummarizer.parse(&log);
    let exit_code = meta["exit_code"].as_i64();

    match exit_code {
        Some(0) => assert_eq!(report.outcome, Outcome::Passed, "{case}: exit 0"),
        Some(1) => assert_eq!(report.outcome, Outcome::Failed, "{case}: exit 1"),
        _ => {
            assert_eq!(
                report.outcome,
                Outcome::Errored,
                "{case}: exit {exit_code:?}"
            );
            assert!(report.error.is_some(), "{case}: errored without a reason");
        }
    }
    assert!(report.notes.is_empty(), "{case}: notes {:?}", report.notes);

    match fs::read(dir.join(format!("{case}.truth.json"))) {
        Ok(truth) => {
            let truth: Value = serde_json::from_slice(&truth).expect("truth is JSON");
            check_against_truth(case, &report, &truth);
        }
        Err(_) => assert!(
            report.diagnostics.is_empty(),
            "{case}: a crash lints nothing"
        ),
    }

    insta::assert_json_snapshot!(case, report);
}

fn check_against_truth(case: &str, report: &Report, truth: &Value) {
    let results = truth.as_array().expect("an array of results");
    let sum = |key: &str| -> u64 { results.iter().filter_map(|r| r[key].as_u64()).sum() };
    let files = results
        .iter()
        .filter(|r| {
            r["errorCount"].as_u64().unwrap_or(0) + r["warningCount"].as_u64().unwrap_or(0) > 0
        })
        .count() as u64;
    assert_eq!(
        report.counts.errors,
        Some(sum("errorCount")),
        "{case}: errors"
    );
    assert_eq!(
        report.counts.warnings,
        Some(sum("warningCount")),
        "{case}: warnings"
    );
    assert_eq!(report.counts.files, Some(files), "{case}: files");

    let mut messages = 0;
    for result in results {
        let path = result["filePath"].as_str().expect("filePath");
        for message in result["messages"].as_array().expect("messages") {
            messages += 1;
            let text = message["message"].as_str().expect("message");
            let text = text.strip_suffix('.').unwrap_or(text);
            let severity = match message["severity"].as_u64() {
                Some(2) => Severity::Error,
                _ => Severity::Warning,
            };
            let line = message["line"].as_u64().map(|n| n as u32);
            let column = message["column"].as_u64().map(|n| n as u32);
            let rule = message["ruleId"].as_str();
            let fatal = message["fatal"].as_bool().unwrap_or(false);
            let found = report.diagnostics.iter().find(|d| {
                d.file.as_deref() == Some(path)
                    && d.line == line
                    && d.column == column
                    && d.code.as_deref() == rule
                    && d.severity == severity
                    && d.message == text
            });
            let found =
                found.unwrap_or_else(|| panic!("{case}: no diagnostic for {message} in {path}"));
            if fatal {
                assert!(found.root_cause, "{case}: a parsing error is a root cause");
            }
        }
    }
    // Besides, `--max-warnings` adds eslint's own verdict, which has no file.
    assert_eq!(
        report
            .diagnostics
            .iter()
            .filter(|d| d.file.is_some())
            .count(),
        messages,
        "{case}: one diagnostic per message"
    );
}

#[test]
fn stylish_and_json_logs_of_one_run_give_the_same_report() {
    for version in ["", "v10-"] {
        let stylish = EslintSummarizer.parse(&read_log(&format!("{version}many-problems")));
        let color = EslintSummarizer.parse(&read_log(&format!("{version}many-problems-color")));
        let json = EslintSummarizer.parse(&read_log(&format!("{version}many-problems-json")));
        assert_eq!(stylish, color, "{version}: colour changes nothing");
        let by_location = |report: &Report| {
            let mut d = report.diagnostics.clone();
            d.sort_by(|a, b| {
                (&a.file, a.line, a.column, &a.code).cmp(&(&b.file, b.line, b.column, &b.code))
            });
            d
        };
        assert_eq!(by_location(&stylish), by_location(&json), "{version}");
        assert_eq!(stylish.counts, json.counts, "{version}");
    }
}

#[test]
fn eslint8_broken_eslintrc_json_error_gives_the_reason_after_the_blank_line() {
    // eslint 8 prints `Failed to read JSON file at …/.eslintrc.json:`, a blank line, then why:
    // the error stopped at the colon.
    let report = EslintSummarizer.parse(&read_log("v8-eslintrc-syntax"));
    assert_eq!(report.outcome, Outcome::Errored);
    let error = report.error.as_deref().unwrap_or("");
    assert!(
        error.starts_with("Failed to read JSON file at ")
            && error.contains("Expected ',' or '}' after property value in JSON at position 128"),
        "{error}"
    );
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    check(case);
    if case.contains("json") {
        // The line parser reads the JSON logs too.
        let log = read_log(case);
        let mut parser = EslintSummarizer.parser();
        verdict_model::lines::for_each_line_in(&log, |line| parser.line(line));
        assert_eq!(parser.finish(), EslintSummarizer.parse(&log), "{case}");
    }
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/eslint/`.
mod logs {
    crate::support::logs::eslint!(super::check_log);
}
