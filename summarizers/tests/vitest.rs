//! The vitest summarizer against every real log in `testdata/vitest/`, checked against vitest's own
//! JSON report of the same run (`--reporter=json --outputFile.json`), plus a snapshot of each
//! report.
//!
//! Test names follow the summarizer's rule: the describe titles and the test title joined with
//! ` > `, as vitest prints them in its ` FAIL ` headers (the JSON's `ancestorTitles` and `title`).
//!
//! vitest 1's JSON report is kept as `<case>.truth.vitest1.json` rather than `.truth.json`, and
//! read as truth only through [`vitest1_as_truth`]: its totals are not the run's (`numPassedTests`
//! is every test that did not fail, skipped and todo ones included, and `numPendingTests` counts
//! none; the log's ` Tests ` line of the same run says `7 passed | 1 skipped | 1 todo` where the
//! report says 9 passed), its `ancestorTitles` start with the file's own nameless suite (`""`), and
//! its `failureMessages` are the bare messages without a stack, the line being in `location`
//! instead. Each test's `status` is right. (The jest-format JSON parser, which reads every
//! `.truth.json`, takes vitest 1's totals and titles as they are.)

use crate::support;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_model::{Outcome, Report, Summarizer};
use verdict_summarizers::vitest::VitestSummarizer;

fn testdata() -> PathBuf {
    support::testdata("vitest")
}

/// Parses one case and checks it against its ground truth, then snapshots the report.
fn check(case: &str) {
    let report = match support::truth("vitest", case, "vitest1.json") {
        Some(bytes) => {
            let report = VitestSummarizer.parse(&support::log("vitest", case));
            support::check_outcome(case, support::exit_code("vitest", case), &report);
            let truth: Value = serde_json::from_slice(&bytes).expect("vitest 1's report is JSON");
            let truth = vitest1_as_truth(truth);
            check_against_truth(case, &report, &truth);
            check_located_failures_have_lines(case, &report, &truth);
            report
        }
        None => support::check_json_case("vitest", case, &VitestSummarizer, check_against_truth),
    };
    insta::assert_json_snapshot!(case, report);
}

/// vitest 1's JSON report as the later versions write it: totals counted from each test's
/// `status`, and `ancestorTitles` without the file's own suite. (A test that never ran because its
/// describe block's `beforeAll` threw is `pending`, counted as skipped here as vitest 2 counts it;
/// vitest 1's own ` Tests ` line leaves it out, so a case with one would need more than this.)
fn vitest1_as_truth(mut report: Value) -> Value {
    let (mut passed, mut failed, mut skipped, mut todo) = (0u64, 0u64, 0u64, 0u64);
    for file in report["testResults"]
        .as_array_mut()
        .expect("testResults")
        .iter_mut()
    {
        for test in file["assertionResults"]
            .as_array_mut()
            .expect("assertionResults")
            .iter_mut()
        {
            match test["status"].as_str().expect("a status") {
                "passed" => passed += 1,
                "failed" => failed += 1,
                "todo" => todo += 1,
                _ => skipped += 1,
            }
            let titles = test["ancestorTitles"]
                .as_array_mut()
                .expect("ancestorTitles");
            assert_eq!(titles.first(), Some(&Value::from("")), "the file's suite");
            titles.remove(0);
        }
    }
    report["numPassedTests"] = passed.into();
    report["numFailedTests"] = failed.into();
    report["numPendingTests"] = skipped.into();
    report["numTodoTests"] = todo.into();
    report
}

/// vitest 1's report has no stack for a failure, only its `location`: the first frame of the
/// error's stack, in whatever file (`src/shapes.js:7` for an error thrown there, where the
/// summarizer takes the test file's frame, `test/shapes.test.js:23`). Every failure vitest located
/// has a line in the report; the lines themselves are in the snapshot (all 40 of vitest1-failing
/// equal the `location`).
fn check_located_failures_have_lines(case: &str, report: &Report, truth: &Value) {
    for file in truth["testResults"].as_array().expect("testResults") {
        let path = file["name"].as_str().expect("a file name");
        for test in file["assertionResults"].as_array().expect("tests") {
            let Some(line) = test["location"]["line"].as_u64() else {
                continue;
            };
            let mut titles: Vec<&str> = test["ancestorTitles"]
                .as_array()
                .expect("ancestorTitles")
                .iter()
                .map(|t| t.as_str().expect("a title"))
                .collect();
            titles.push(test["title"].as_str().expect("a title"));
            let name = titles.join(" > ");
            let diagnostic = report
                .diagnostics
                .iter()
                .find(|d| {
                    d.test.as_deref() == Some(name.as_str())
                        && d.file
                            .as_deref()
                            .is_some_and(|f| path.ends_with(&format!("/{f}")))
                })
                .unwrap_or_else(|| panic!("{case}: no diagnostic for `{name}` in {path}"));
            assert!(
                diagnostic.line.is_some(),
                "{case}: `{name}` has no line (vitest's first frame is at line {line})"
            );
        }
    }
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
fn crashes_before_any_test_are_errored() {
    for case in [
        "bad-config",
        "no-tests",
        "vitest3-bad-config",
        "vitest3-no-tests",
        "vitest1-bad-config",
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

/// vitest 1 heads the error of a config that does not load `Unhandled Error`, where later versions
/// print `Startup Error`: it is the reason no test ran, not an error beside the run.
#[test]
fn vitest1_config_errors_say_why() {
    let report = VitestSummarizer.parse(&support::log("vitest", "vitest1-bad-config"));
    assert_eq!(report.outcome, Outcome::Errored);
    assert_eq!(
        report.error.as_deref(),
        Some(
            "failed to load config from /tmp/verdict-capture/vitest/bad-config/vitest.config.js: \
             Error: Build failed with 1 error: vitest.config.js:7:4: ERROR: Expected \"}\" but \
             found \"testTimeout\""
        )
    );
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}

/// vitest 2 pads a workspace project's label with two spaces (` FAIL |client|  packages/…`):
/// the file is the path after it, found in the frames.
#[test]
fn vitest2_workspace_labels_are_not_part_of_the_file() {
    let report = VitestSummarizer.parse(&support::log("vitest", "vitest2-workspace"));
    let located: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.test.is_some())
        .map(|d| d.location())
        .collect();
    assert_eq!(
        located,
        [
            Some("packages/client/test/ui.test.js:4:20".to_owned()),
            Some("packages/server/test/api.test.js:3:15".to_owned()),
        ]
    );
}

/// Everything checked of each captured log: its truth, its detection and its sections, and the
/// structured report the run wrote.
fn check_log(tool: &str, case: &str) {
    check(case);
    assert_eq!(support::detected(tool, case), tool, "{case}");
    crate::jest_json::check_vitest(case);
    crate::documents::check_reports(tool, case);
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/vitest/`.
mod logs {
    crate::support::logs::vitest!(super::check_log);
}

/// A `test.each` title made from an array (`[ 'a', '/c' ] -> a/c`) holds ` [ `, which made its
/// header read as a file's (` FAIL  a.test.ts [ a.test.ts ]`): a phantom failure placed in the
/// file `test/resolve.test.ts > resolveURL >` with no line, and the test itself unexplained.
#[test]
fn a_title_with_brackets_is_a_tests_not_a_files() {
    let report = VitestSummarizer.parse(&support::log("vitest", "each-typecheck"));
    for d in &report.diagnostics {
        assert!(
            d.file.as_deref().is_some_and(|f| !f.contains(" > ")) && d.line.is_some(),
            "a phantom: {d:?}"
        );
    }
    let d = report
        .diagnostics
        .iter()
        .find(|d| d.test.as_deref() == Some("resolveURL > [ 'a', '/c' ] -> a/c"))
        .expect("the failing test.each case");
    assert_eq!(d.location().as_deref(), Some("test/resolve.test.ts:12:48"));
}

/// The failing tests of a log as `summarize` reads it: name, file and line.
fn failing_tests(log: &[u8]) -> Vec<(Option<String>, Option<String>, Option<u32>)> {
    verdict_summarizers::summarize_all(log)
        .iter()
        .flat_map(|report| &report.diagnostics)
        .map(|d| (d.test.clone(), d.file.clone(), d.line))
        .collect()
}

#[test]
fn a_log_garbled_by_a_baltic_code_page_names_its_failures() {
    // The captured log's bytes decoded as cp1257: `⎯ Failed Tests 40 ⎯` and `❯ file:line` come
    // through as `āˇÆ` and `ā¯Æ`.
    let clean = failing_tests(&support::log("vitest", "failing-no-color"));
    let garbled = failing_tests(&support::log("wild/vitest", "derived-failing-cp1257"));
    assert!(clean.len() >= 40, "{clean:?}");
    let located = garbled.iter().filter(|(_, _, line)| line.is_some()).count();
    assert!(located >= 30, "{located} of {} located", garbled.len());
    assert_eq!(garbled, clean);
}

#[test]
fn a_title_a_terminal_wrapped_at_80_columns_is_read_whole() {
    // The captured log cut at 80 columns: each ` FAIL  file > describe > test` header goes on
    // in the next line.
    let clean = failing_tests(&support::log("vitest", "long-titles"));
    let wrapped = failing_tests(&support::log(
        "wild/vitest",
        "derived-long-titles-wrapped-80",
    ));
    assert_eq!(clean.len(), 2, "{clean:?}");
    assert!(
        clean.iter().all(|(name, _, line)| name
            .as_deref()
            .is_some_and(|name| name.ends_with(" date") || name.ends_with(" total"))
            && line.is_some()),
        "{clean:?}"
    );
    assert_eq!(wrapped, clean);
}
