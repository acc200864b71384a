//! The unittest summarizer against every captured `python -m unittest` log in
//! `testdata/unittest/`.
//!
//! Each log is checked against what unittest's own `TestResult` held in the same run (written to
//! `truth.json` by the capture's driver, see `xtask/src/capture/unittest.rs`): the failed count is
//! `failures` + `errors` + `unexpectedSuccesses`, the skipped count `skipped`, the passed count the
//! rest of `testsRun` but the expected failures; every failure and error is a diagnostic named by
//! its id, placed where its traceback says (the frame in the test's own module, a doctest's
//! failing example), saying the traceback's exception; nothing else is reported. A run of no test
//! is errored. Each report is snapshotted.

use crate::support;
use serde_json::Value;
use verdict_model::{Outcome, Report, Summarizer};
use verdict_summarizers::unittest::UnittestSummarizer;

const TOOL: &str = "unittest";

/// Whether `file` is the module a test id starts with.
fn is_module_of(file: &str, id: &str) -> bool {
    let Some(stem) = file.strip_suffix(".py") else {
        return false;
    };
    let dotted = stem.replace('/', ".");
    (0..dotted.len())
        .filter(|&i| i == 0 || dotted.as_bytes()[i - 1] == b'.')
        .any(|i| id == &dotted[i..] || id.starts_with(&format!("{}.", &dotted[i..])))
}

/// `File "x.py", line 3` → `("x.py", 3)`.
fn frame(line: &str) -> Option<(String, u32)> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (file, rest) = rest.split_once("\", line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((file.to_owned(), digits.parse().ok()?))
}

/// Where a traceback says a test failed, and the exception it ended with.
fn expected_place(id: &str, traceback: &str) -> (Option<(String, u32)>, Option<String>) {
    if traceback.contains("Failed doctest test") {
        // doctest's report names the failing example at column 0.
        let place = traceback
            .lines()
            .filter(|l| l.starts_with("File \""))
            .find_map(frame);
        return (place, None);
    }
    let frames: Vec<(String, u32)> = traceback
        .lines()
        .filter(|l| l.starts_with("  File \""))
        .filter_map(frame)
        .collect();
    // A module that did not import is the test `unittest.loader._FailedTest.<module>`.
    let module = id
        .strip_prefix("unittest.loader._FailedTest.")
        .unwrap_or(id);
    let place = frames
        .iter()
        .rev()
        .find(|(f, _)| !f.contains("/lib/python") && is_module_of(f, module))
        .or_else(|| {
            frames
                .iter()
                .rev()
                .find(|(f, _)| !f.contains("/lib/python"))
        })
        .cloned();
    let exception = traceback
        .lines()
        .rev()
        .find(|l| !l.is_empty() && !l.starts_with(' '))
        .map(str::to_owned);
    (place, exception)
}

fn ids(truth: &Value, key: &str) -> Vec<String> {
    truth[key]
        .as_array()
        .expect(key)
        .iter()
        .map(|t| t["id"].as_str().expect("id").to_owned())
        .collect()
}

fn check(case: &str) -> Report {
    let log = support::log(TOOL, case);
    let report = UnittestSummarizer.parse(&log);
    let truth: Value = serde_json::from_slice(
        &support::truth(TOOL, case, "json").expect("the driver wrote the result"),
    )
    .expect("JSON");
    let ran = truth["testsRun"].as_u64().expect("testsRun");
    let failing = ids(&truth, "failures").len() + ids(&truth, "errors").len();
    let unexpected = ids(&truth, "unexpectedSuccesses").len();
    let skipped = ids(&truth, "skipped").len() as u64;
    let expected_failures = ids(&truth, "expectedFailures").len() as u64;
    let failed = (failing + unexpected) as u64;
    let outcome = if ran == 0 {
        Outcome::Errored
    } else if truth["wasSuccessful"] == true {
        Outcome::Passed
    } else {
        Outcome::Failed
    };
    assert_eq!(
        report.outcome, outcome,
        "{case}: outcome ({:?})",
        report.error
    );
    if ran == 0 {
        assert!(report.error.is_some(), "{case}: says why");
        return report;
    }
    assert_eq!(report.counts.tests_failed, Some(failed), "{case}: failed");
    assert_eq!(
        report.counts.tests_skipped,
        Some(skipped),
        "{case}: skipped"
    );
    assert_eq!(
        report.counts.tests_passed,
        Some(ran - failed - skipped - expected_failures),
        "{case}: passed"
    );
    for key in ["failures", "errors"] {
        for entry in truth[key].as_array().expect(key) {
            let id = entry["id"].as_str().expect("id");
            let traceback = entry["traceback"].as_str().expect("traceback");
            let d = report
                .diagnostics
                .iter()
                .find(|d| d.test.as_deref() == Some(id))
                .unwrap_or_else(|| panic!("{case}: no diagnostic for {id}"));
            let (place, exception) = expected_place(id, traceback);
            let (file, line) = place.unwrap_or_else(|| panic!("{case}: {id} has no place"));
            assert_eq!(
                d.file.as_deref(),
                Some(file.as_str()),
                "{case}: file of {id}"
            );
            assert_eq!(d.line, Some(line), "{case}: line of {id}");
            if let Some(exception) = exception {
                assert_eq!(d.message, exception, "{case}: message of {id}");
            }
        }
    }
    let mut known = ids(&truth, "failures");
    known.extend(ids(&truth, "errors"));
    known.extend(ids(&truth, "unexpectedSuccesses"));
    for d in &report.diagnostics {
        let test = d.test.as_deref().unwrap_or_default();
        assert!(
            known.iter().any(|k| k == test),
            "{case}: {test} is no failure of the run"
        );
    }
    report
}

/// A log cut off before `Ran N tests` (the interpreter killed mid-run) is never a pass.
#[test]
fn a_log_without_the_closing_lines_never_passes() {
    let log = String::from_utf8(support::log(TOOL, "py311-passing-verbose")).expect("UTF-8");
    let cut = &log[..log.find("Ran ").expect("the closing line")];
    let report = verdict_summarizers::by_name(TOOL)
        .expect("unittest")
        .parse(cut.as_bytes());
    assert_eq!(report.outcome, Outcome::Errored);
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    let report = check(case);
    insta::assert_json_snapshot!(case, report);
    assert_eq!(support::detected(tool, case), tool, "{case}");
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/unittest/`.
mod logs {
    crate::support::logs::unittest!(super::check_log);
}
