//! The tests a report lists ([`Report::tests`]), over every captured log of the test runners and
//! the structured report captured with it: what CI dashboards count from the JUnit document.
//!
//! For each log and each truth document (jest's and vitest's JSON, mocha's JSON, the JUnit XML
//! of pytest, nextest and node) the report's tests must
//! - agree with its diagnostics: a failed test has a failing-test diagnostic of the same name, an
//!   errored one a diagnostic of its name or file;
//! - be exactly the tests the tool reported, where its output names every test: the tool's own
//!   counts (passed + failed + skipped, and errors for JUnit) equal `tests.len() +
//!   tests_dropped`, and for libtest, nextest and mocha the names and statuses equal those of the
//!   structured report of the same run;
//! - be empty where the output names no test by itself (a log that prints only failures).

use std::collections::BTreeMap;

use quick_xml::events::Event;
use serde_json::Value;
use verdict_model::{Kind, Report, Severity, Summarizer, TestStatus};

use crate::support;

/// The tool of a folder of `testdata/` (`wild/cargo` → `cargo`).
fn tool_of(folder: &str) -> &str {
    folder.rsplit('/').next().unwrap_or(folder)
}

/// Every failing test of `tests` has a diagnostic of its name (an errored one: of its name or
/// its file), unless the report dropped diagnostics.
fn check_agreement(case: &str, report: &Report) {
    if report.diagnostics_dropped > 0 {
        return;
    }
    for test in &report.tests {
        let named = |d: &&verdict_model::Diagnostic| {
            d.kind == Kind::Test
                && d.severity == Severity::Error
                && d.test.as_deref() == Some(test.name.as_str())
        };
        match test.status {
            TestStatus::Failed => assert!(
                report
                    .diagnostics
                    .iter()
                    .any(|d| named(&d) && !d.test_error),
                "{case}: the failed test `{}` has no failing-test diagnostic of that name",
                test.name
            ),
            TestStatus::Errored => assert!(
                report.diagnostics.iter().any(|d| named(&d)
                    || (d.test.is_none() && d.file.as_deref() == Some(test.name.as_str()))),
                "{case}: the errored test `{}` has no diagnostic of that name or file",
                test.name
            ),
            TestStatus::Passed | TestStatus::Skipped => {}
        }
    }
}

/// The report's tests, counted by status.
fn by_status(report: &Report) -> BTreeMap<&'static str, u64> {
    let mut counts = BTreeMap::new();
    for test in &report.tests {
        let status = match test.status {
            TestStatus::Passed => "passed",
            TestStatus::Failed => "failed",
            TestStatus::Errored => "errored",
            TestStatus::Skipped => "skipped",
        };
        *counts.entry(status).or_insert(0) += 1;
    }
    counts
}

/// The report's tests as `(name, status)` pairs, sorted.
fn named(report: &Report) -> Vec<(String, TestStatus)> {
    let mut tests: Vec<(String, TestStatus)> = report
        .tests
        .iter()
        .map(|t| (t.name.clone(), t.status))
        .collect();
    tests.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(format!("{:?}", a.1).cmp(&format!("{:?}", b.1)))
    });
    tests
}

/// `tests.len() + tests_dropped` equals what the tool counted.
fn check_total(case: &str, report: &Report, counted: u64) {
    assert_eq!(
        report.tests.len() as u64 + report.tests_dropped,
        counted,
        "{case}: listed tests {:?} against the tool's total",
        by_status(report)
    );
}

/// The counts of a report: passed + failed + skipped.
fn counted(report: &Report) -> u64 {
    let c = &report.counts;
    c.tests_passed.unwrap_or(0) + c.tests_failed.unwrap_or(0) + c.tests_skipped.unwrap_or(0)
}

fn check_log(folder: &str, case: &str) {
    let tool = tool_of(folder);
    let summarizer = verdict_summarizers::by_name(tool).expect("a summarizer");
    let log = support::log(folder, case);
    let report = summarizer.parse(&log);
    let case = format!("{folder}/{case}");
    check_agreement(&case, &report);
    let name = case.rsplit('/').next().unwrap_or(&case).to_owned();
    match tool {
        "jest" | "vitest" => {
            if let Some(json) = support::truth(folder, &name, "json") {
                check_jest_format(&case, tool, &json);
            }
        }
        "mocha" => check_mocha(&case, folder, &name, &report),
        "cargo" => check_libtest(&case, folder, &name, &report),
        "nextest" => check_nextest(&case, folder, &name, &report),
        "pytest" | "node-test" => {
            if let Some(xml) = support::truth(folder, &name, "xml") {
                let junit = check_junit(&case, tool, &xml);
                if !report.tests.is_empty() {
                    // `-v` named every test: the same ones, with the same results, as the JUnit
                    // report of the same run.
                    assert_eq!(named(&report), named(&junit), "{case}: pytest's tests");
                }
            }
        }
        _ => {}
    }
}

/// jest's and vitest's JSON report: a test per entry of `assertionResults`, as many as the
/// report's own totals.
fn check_jest_format(case: &str, tool: &str, json: &[u8]) {
    let truth: Value = serde_json::from_slice(json).expect("truth is JSON");
    if truth.get("testResults").is_none() {
        return;
    }
    let report = verdict_summarizers::jest_json::parse(tool, json);
    check_agreement(case, &report);
    let mut statuses = 0;
    for file in truth["testResults"].as_array().expect("testResults") {
        for test in file["assertionResults"]
            .as_array()
            .expect("assertionResults")
        {
            let status = test["status"].as_str().unwrap_or("");
            if matches!(
                status,
                "passed" | "failed" | "pending" | "skipped" | "todo" | "disabled"
            ) {
                statuses += 1;
            }
        }
    }
    check_total(case, &report, statuses);
    let n = |key: &str| truth[key].as_u64().unwrap_or(0);
    let failed = by_status(&report).get("failed").copied().unwrap_or(0);
    assert_eq!(failed, n("numFailedTests"), "{case}: failed tests");
    if tool == "jest" {
        // vitest 1 counts skipped tests as passed in its totals; jest's totals are exact.
        check_total(
            case,
            &report,
            n("numPassedTests") + n("numFailedTests") + n("numPendingTests") + n("numTodoTests"),
        );
    }
}

/// mocha: the spec reporter's tree names every test; its tests are those of mocha's JSON report
/// of the same run (`fullTitle` joins the titles with spaces where the log's names use ` > `).
fn check_mocha(case: &str, folder: &str, name: &str, report: &Report) {
    if !report.tests.is_empty() {
        check_total(case, report, counted(report));
    }
    // The truths of `wild/` are what a person read in the log, not mocha's JSON report.
    let Some(json) = support::truth(folder, name, "json").filter(|_| folder == "mocha") else {
        return;
    };
    let document = verdict_summarizers::mocha::MochaSummarizer.parse(&json);
    check_agreement(case, &document);
    check_total(case, &document, counted(&document));
    if report.tests.is_empty() {
        return;
    }
    let spaced = |r: &Report| -> Vec<(String, TestStatus)> {
        let mut tests: Vec<(String, TestStatus)> = named(r)
            .into_iter()
            .map(|(n, s)| (n.replace(" > ", " "), s))
            .collect();
        tests.sort_by(|a, b| a.0.cmp(&b.0));
        tests
    };
    assert_eq!(
        spaced(report),
        spaced(&document),
        "{case}: the log's tests are not the JSON report's"
    );
}

/// cargo: libtest names every test it runs (`test x ... ok`); they are the tests of the truth's
/// libtest JSON events of the same run.
fn check_libtest(case: &str, folder: &str, name: &str, report: &Report) {
    let Some(jsonl) = support::truth(folder, name, "jsonl") else {
        return;
    };
    let mut truth: Vec<(String, TestStatus)> = Vec::new();
    for line in String::from_utf8_lossy(&jsonl).lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if event["type"] != "test" {
            continue;
        }
        let status = match event["event"].as_str() {
            Some("ok") => TestStatus::Passed,
            Some("failed") => TestStatus::Failed,
            Some("ignored") => TestStatus::Skipped,
            _ => continue,
        };
        truth.push((event["name"].as_str().unwrap_or("").to_owned(), status));
    }
    truth.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(format!("{:?}", a.1).cmp(&format!("{:?}", b.1)))
    });
    if report.tests.is_empty() {
        // The terse format (`-q`) names only failures, and not as `test x ... FAILED`.
        return;
    }
    assert_eq!(named(report), truth, "{case}: libtest's tests");
}

/// nextest: a status line per test; they are the test cases of nextest's JUnit report of the same
/// run (its `name` is the test, its `classname` the binary).
fn check_nextest(case: &str, folder: &str, name: &str, report: &Report) {
    let Some(xml) = support::truth(folder, name, "xml") else {
        return;
    };
    let mut truth: Vec<(String, TestStatus)> = Vec::new();
    let mut reader = quick_xml::Reader::from_reader(&xml[..]);
    let mut current: Option<(String, TestStatus)> = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if AsRef::<str>::as_ref(&e.name()) == "testcase" => {
                current = Some((support::xml_attr(&e, "name"), TestStatus::Passed));
            }
            Ok(Event::Empty(e)) if AsRef::<str>::as_ref(&e.name()) == "testcase" => {
                truth.push((support::xml_attr(&e, "name"), TestStatus::Passed));
            }
            Ok(Event::Start(e) | Event::Empty(e)) => {
                if let Some((_, status)) = current.as_mut() {
                    match AsRef::<str>::as_ref(&e.name()) {
                        "failure" | "error" => *status = TestStatus::Failed,
                        "skipped" => *status = TestStatus::Skipped,
                        _ => {}
                    }
                }
            }
            Ok(Event::End(e)) if AsRef::<str>::as_ref(&e.name()) == "testcase" => {
                truth.extend(current.take());
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(error) => panic!("{case}: truth XML: {error}"),
        }
    }
    truth.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(format!("{:?}", a.1).cmp(&format!("{:?}", b.1)))
    });
    assert_eq!(named(report), truth, "{case}: nextest's tests");
    let junit = verdict_summarizers::junit::parse("nextest", &xml);
    check_agreement(case, &junit);
    check_total(
        case,
        &junit,
        counted(&junit) + junit.counts.errors.unwrap_or(0),
    );
}

/// A JUnit report (pytest's, node's): a test per `<testcase>` but pytest's own crash, as many as
/// the document counts. Returns the report read from it.
fn check_junit(case: &str, tool: &str, xml: &[u8]) -> Report {
    let report = verdict_summarizers::junit::parse(tool, xml);
    check_agreement(case, &report);
    let mut cases = 0u64;
    let mut reader = quick_xml::Reader::from_reader(xml);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e))
                if AsRef::<str>::as_ref(&e.name()) == "testcase" =>
            {
                let internal = support::xml_attr(&e, "classname") == "pytest"
                    && support::xml_attr(&e, "name") == "internal";
                cases += u64::from(!internal);
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(_) => return report,
        }
    }
    // pytest-rerunfailures writes each rerun as a case of its own: not a test.
    let reruns = count_reruns(xml);
    check_total(case, &report, cases - reruns);
    report
}

/// The reruns pytest-rerunfailures wrote: a passing case followed by one of the same name.
fn count_reruns(xml: &[u8]) -> u64 {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut last: Option<(String, String, bool)> = None;
    let mut reruns = 0;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e))
                if AsRef::<str>::as_ref(&e.name()) == "testcase" =>
            {
                let key = (
                    support::xml_attr(&e, "classname"),
                    support::xml_attr(&e, "name"),
                );
                if last
                    .as_ref()
                    .is_some_and(|(c, n, passed)| *passed && (c, n) == (&key.0, &key.1))
                {
                    reruns += 1;
                }
                last = Some((key.0, key.1, true));
            }
            Ok(Event::Start(e) | Event::Empty(e))
                if matches!(
                    AsRef::<str>::as_ref(&e.name()),
                    "failure" | "error" | "skipped"
                ) =>
            {
                if let Some(last) = last.as_mut() {
                    last.2 = false;
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
    reruns
}

mod cargo {
    crate::support::logs::cargo!(super::check_log);
}

mod jest {
    crate::support::logs::jest!(super::check_log);
}

mod vitest {
    crate::support::logs::vitest!(super::check_log);
}

mod mocha {
    crate::support::logs::mocha!(super::check_log);
}

mod nextest {
    crate::support::logs::nextest!(super::check_log);
}

mod pytest {
    crate::support::logs::pytest!(super::check_log);
}

mod node_test {
    crate::support::logs::node_test!(super::check_log);
}

mod wild_cargo {
    crate::support::logs::wild_cargo!(super::check_log);
}

mod wild_mocha {
    crate::support::logs::wild_mocha!(super::check_log);
}

mod wild_nextest {
    crate::support::logs::wild_nextest!(super::check_log);
}

mod wild_jest {
    crate::support::logs::wild_jest!(super::check_log);
}

mod wild_vitest {
    crate::support::logs::wild_vitest!(super::check_log);
}

mod wild_pytest {
    crate::support::logs::wild_pytest!(super::check_log);
}
