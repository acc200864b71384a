//! The nextest summarizer against every captured `cargo nextest run` log in `testdata/nextest/`.
//!
//! Each log is checked against the JUnit report nextest wrote in the same run: every test case
//! with a `<failure>` or `<error>` is a failing test of the report (a flaky test's earlier failures
//! are `<flakyFailure>`s of a passing case, and do not count), placed where the failure's own
//! message says the test panicked; the failing and passing counts equal the report's. A run that
//! wrote no report (its build failed) must not pass. Each report is snapshotted.

use crate::support;
use crate::support::xml_attr as attr;
use std::collections::BTreeMap;

use quick_xml::Reader;
use quick_xml::events::Event;
use verdict_model::{Kind, Outcome, Report, Summarizer};
use verdict_summarizers::nextest::NextestSummarizer;

/// One `<testcase>` of nextest's JUnit report.
#[derive(Debug, Default)]
struct TestCase {
    /// The binary id (`nxdemo::integration`).
    classname: String,
    name: String,
    /// The `message` of its `<failure>` or `<error>`, when it has one.
    failure: Option<String>,
    skipped: bool,
}

fn read_truth(xml: &str) -> Vec<TestCase> {
    let mut reader = Reader::from_str(xml);
    let mut cases = Vec::new();
    loop {
        match reader.read_event().expect("nextest's JUnit XML") {
            Event::Start(e) | Event::Empty(e) => match AsRef::<str>::as_ref(&e.name()) {
                "testcase" => cases.push(TestCase {
                    classname: attr(&e, "classname"),
                    name: attr(&e, "name"),
                    ..TestCase::default()
                }),
                "failure" | "error" => {
                    if let Some(case) = cases.last_mut() {
                        case.failure = Some(attr(&e, "message"));
                    }
                }
                "skipped" => {
                    if let Some(case) = cases.last_mut() {
                        case.skipped = true;
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    cases
}

/// `thread 'x' (123) panicked at src/lib.rs:19:9` → `src/lib.rs:19`.
fn panic_location(message: &str) -> Option<String> {
    let at = message.split("panicked at ").nth(1)?;
    let mut parts = at.trim().trim_end_matches(':').rsplitn(3, ':');
    let _column = parts.next()?;
    let line = parts.next()?;
    let file = parts.next()?;
    Some(format!("{file}:{line}"))
}

fn check(case: &str) {
    let log = support::log("nextest", case);
    let report = NextestSummarizer.parse(&log);
    support::check_outcome(case, support::exit_code("nextest", case), &report);
    match support::truth("nextest", case, "xml") {
        Some(xml) => check_against_truth(case, &report, &String::from_utf8_lossy(&xml)),
        None => assert_ne!(
            report.outcome,
            Outcome::Passed,
            "{case}: no report, no pass"
        ),
    }
    insta::assert_json_snapshot!(case, report);
}

fn check_against_truth(case: &str, report: &Report, xml: &str) {
    let truth = read_truth(xml);
    let failing: Vec<&TestCase> = truth.iter().filter(|t| t.failure.is_some()).collect();
    let passed = truth
        .iter()
        .filter(|t| t.failure.is_none() && !t.skipped)
        .count() as u64;
    if truth.is_empty() {
        assert_eq!(report.outcome, Outcome::Errored, "{case}: no test ran");
        return;
    }
    assert_eq!(
        report.counts.tests_failed,
        Some(failing.len() as u64),
        "{case}: failed"
    );
    assert_eq!(report.counts.tests_passed, Some(passed), "{case}: passed");
    let expected = if failing.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed
    };
    assert_eq!(report.outcome, expected, "{case}: outcome");

    // Every failing case is reported once, under its test name, where it panicked.
    let mut reported: BTreeMap<&str, usize> = BTreeMap::new();
    for d in report.diagnostics.iter().filter(|d| d.kind == Kind::Test) {
        *reported.entry(d.test.as_deref().unwrap_or("")).or_default() += 1;
    }
    let mut wanted: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &failing {
        *wanted.entry(t.name.as_str()).or_default() += 1;
    }
    assert_eq!(reported, wanted, "{case}: failing tests");
    for t in &failing {
        let d = report
            .diagnostics
            .iter()
            .find(|d| d.test.as_deref() == Some(t.name.as_str()))
            .unwrap_or_else(|| panic!("{case}: {} {}", t.classname, t.name));
        let message = t.failure.as_deref().unwrap_or_default();
        if let Some(location) = panic_location(message) {
            let at = format!(
                "{}:{}",
                d.file.as_deref().unwrap_or_default(),
                d.line.unwrap_or_default()
            );
            assert_eq!(at, location, "{case}: {} {}", t.classname, t.name);
        }
        assert!(
            !d.message.is_empty() && d.message != "test failed",
            "{case}: {} says nothing of why: {d:?}",
            t.name
        );
    }
}

/// A test that crashed or timed out says so first, whatever it printed before.
#[test]
fn crashes_and_timeouts_say_how_the_test_ended() {
    let report = NextestSummarizer.parse(&support::log("nextest", "failing"));
    let message = |name: &str| {
        report
            .diagnostics
            .iter()
            .find(|d| d.test.as_deref() == Some(name))
            .map(|d| d.message.clone())
            .unwrap_or_default()
    };
    assert_eq!(message("aborts"), "test aborted with signal 6: SIGABRT");
    assert!(
        message("slow").starts_with("test timed out after 2.0"),
        "{}",
        message("slow")
    );
}

/// With retries, a test that passed on its second try is flaky: not a failure, but said; a test
/// that failed every try is reported once, from its last try's output.
#[test]
fn retries_count_a_test_once_and_name_the_flaky_one() {
    let report = NextestSummarizer.parse(&support::log("nextest", "retries"));
    assert_eq!(report.counts.tests_failed, Some(1));
    assert_eq!(report.diagnostics.len(), 1, "{report:#?}");
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("flaky") && n.contains("nxdemo::integration flaky")),
        "{:?}",
        report.notes
    );
}

/// A build that fails is the compiler's errors, not nextest's line about the command it ran.
#[test]
fn a_failed_build_is_its_compile_errors() {
    let report = NextestSummarizer.parse(&support::log("nextest", "build-error"));
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.errors, Some(1));
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.code.as_deref() == Some("E0308")),
        "{:#?}",
        report.diagnostics
    );
}

/// A log cut off in the middle of the run verified nothing of the tests after the cut.
#[test]
fn a_run_without_its_summary_is_not_a_pass() {
    let log = String::from_utf8(support::log("nextest", "passing")).expect("UTF-8");
    let cut = log
        .split("────────────\n     Summary")
        .next()
        .unwrap_or_default();
    let report = NextestSummarizer.parse(cut.as_bytes());
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    check(case);
    assert_eq!(support::detected(tool, case), tool, "{case}");
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/nextest/`.
mod logs {
    crate::support::logs::nextest!(super::check_log);
}
