//! The generic summarizer against every captured log in `testdata/generic/`: gcc, make, mypy, a
//! Python crash and Node.js's test runner in TAP.
//!
//! Each log is checked against the tool's own structured output: every error and warning in gcc's
//! `-fdiagnostics-format=json` and every error in mypy's `--output json` is matched by a diagnostic
//! at its file and line, and mypy's error count is the one its summary printed. Logs without a
//! truth (a crash, a link error, make with no rule) must not pass. Each report is snapshotted.

use crate::support;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_model::{Outcome, Report, Severity, Summarizer};
use verdict_summarizers::generic::GenericSummarizer;

fn testdata() -> PathBuf {
    support::testdata("generic")
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

/// node's JUnit report: every test case with a failure (and no `todo` skip) is a failing test of
/// the report, at the line of the first frame in a test file; the passing ones are counted.
fn check_node_junit(case: &str, report: &Report, truth: &str) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(truth);
    let (mut failing, mut passed) = (Vec::new(), 0u64);
    // The open test case: its name, whether it failed (and the failure's text), whether skipped.
    let mut open: Option<(String, Option<String>, bool)> = None;
    let mut in_failure = false;
    loop {
        match reader.read_event().expect("node's JUnit XML") {
            Event::Start(e) | Event::Empty(e) if AsRef::<str>::as_ref(&e.name()) == "testcase" => {
                if let Some(done) = open.take() {
                    tally(done, &mut failing, &mut passed);
                }
                let name = e
                    .attributes()
                    .filter_map(Result::ok)
                    .find(|a| AsRef::<str>::as_ref(&a.key) == "name")
                    .and_then(|a| {
                        a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .ok()
                            .map(|v| v.into_owned())
                    })
                    .unwrap_or_default();
                open = Some((name, None, false));
            }
            Event::Start(e) | Event::Empty(e) if AsRef::<str>::as_ref(&e.name()) == "failure" => {
                if let Some(open) = open.as_mut() {
                    open.1 = Some(String::new());
                }
                in_failure = true;
            }
            Event::Start(e) | Event::Empty(e) if AsRef::<str>::as_ref(&e.name()) == "skipped" => {
                if let Some(open) = open.as_mut() {
                    open.2 = true;
                }
            }
            Event::Text(text) if in_failure => {
                if let Some((_, Some(failure), _)) = open.as_mut() {
                    failure.push_str(&text.xml10_content());
                }
            }
            Event::End(e) if AsRef::<str>::as_ref(&e.name()) == "failure" => in_failure = false,
            Event::End(e) if AsRef::<str>::as_ref(&e.name()) == "testcase" => {
                if let Some(done) = open.take() {
                    tally(done, &mut failing, &mut passed);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    fn tally(
        (name, failure, skipped): (String, Option<String>, bool),
        failing: &mut Vec<(String, String)>,
        passed: &mut u64,
    ) {
        match (failure, skipped) {
            (_, true) => {}
            (Some(failure), false) => failing.push((name, failure)),
            (None, false) => *passed += 1,
        }
    }
    let frame = regex::Regex::new(r"\((/[^():]+\.[cm]?[jt]s):(\d+):\d+\)").expect("regex");
    assert_eq!(
        report.counts.tests_failed,
        Some(failing.len() as u64),
        "{case}: failed"
    );
    assert_eq!(report.counts.tests_passed, Some(passed), "{case}: passed");
    for (name, failure) in &failing {
        let diagnostic = report
            .diagnostics
            .iter()
            .find(|d| d.test.as_deref() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("{case}: no failing test `{name}`"));
        let (_, [file, line]) = frame
            .captures(failure)
            .unwrap_or_else(|| panic!("{case}: no frame in {failure}"))
            .extract();
        assert_eq!(diagnostic.file.as_deref(), Some(file), "{case}: {name}");
        assert_eq!(
            diagnostic.line.map(u64::from),
            line.parse().ok(),
            "{case}: {name}"
        );
    }
    let tests = report
        .diagnostics
        .iter()
        .filter(|d| d.test.is_some())
        .count();
    assert_eq!(
        tests,
        failing.len(),
        "{case}: a failing test the truth lacks"
    );
}

/// Checks one captured case against its truth and meta, and snapshots its report.
fn check(case: &str) {
    let dir = testdata();
    let log = fs::read(dir.join(format!("{case}.log"))).expect("log");
    let meta = support::meta("generic", case);
    let report = GenericSummarizer.parse(&log);
    match meta["exit_code"].as_i64() {
        // gcc prints nothing when it compiles cleanly: an empty log shows no tool ran, and is
        // "could not verify" unless the tool is named (it is errored, never a pass of nothing).
        Some(0) if log.is_empty() => assert_eq!(
            report.error.as_deref(),
            Some(verdict_summarizers::generic::EMPTY),
            "{case}"
        ),
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
    if let Ok(truth) = fs::read_to_string(dir.join(format!("{case}.truth.xml"))) {
        check_node_junit(case, &report, &truth);
    }
    // gcc prints no count: the errors found are never presented as the tool's.
    if case.starts_with("gcc") || case.starts_with("make") {
        assert_eq!(report.counts.errors, None, "{case}");
    }
    insta::assert_json_snapshot!(case.to_owned(), report);
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

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    check(case);
    // mypy's logs were captured here before mypy had a summarizer; detection now picks it, and
    // `tests/mypy.rs` reads them with it too.
    if case.starts_with("mypy-") {
        assert_eq!(support::detected(tool, case), "mypy", "{case}");
        return;
    }
    assert_eq!(support::detected(tool, case), tool, "{case}");
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/generic/`.
mod logs {
    crate::support::logs::generic!(super::check_log);
}
