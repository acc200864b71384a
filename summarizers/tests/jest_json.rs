//! The jest-format JSON parser against every real JSON report in `testdata/{jest,vitest}/` (the
//! `.truth.json` files: jest's `--json --outputFile` and vitest's JSON reporter), checked against
//! the report's own numbers and against the human-log parse of the same run: the same counts and
//! the same failing tests, in the same files. Plus a snapshot of each report.

use crate::support;
use std::collections::BTreeSet;

use serde_json::Value;
use verdict_model::{Outcome, Report, Summarizer};
use verdict_summarizers::jest::JestSummarizer;
use verdict_summarizers::jest_json;
use verdict_summarizers::vitest::VitestSummarizer;

/// Checks the JSON report of a jest case, when the run wrote one.
pub(crate) fn check_jest(case: &str) {
    if support::truth("jest", case, "json").is_some() {
        check("jest", case, &JestSummarizer, " › ");
    }
}

/// Checks the JSON report of a vitest case, when the run wrote one.
pub(crate) fn check_vitest(case: &str) {
    if support::truth("vitest", case, "json").is_some() {
        check("vitest", case, &VitestSummarizer, " > ");
    }
}

/// The project root of a captured run: the part of a test file's absolute path before the relative
/// path the human log printed for it.
fn root_of(truth: &Value, human: &Report) -> Option<String> {
    let names: Vec<&str> = truth["testResults"]
        .as_array()?
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    human.diagnostics.iter().find_map(|d| {
        let file = d.file.as_deref()?;
        names.iter().find_map(|name| {
            name.strip_suffix(file)?
                .strip_suffix('/')
                .map(str::to_owned)
        })
    })
}

/// Parses one case's JSON report and checks it against the report itself and the human parse.
fn check(tool: &str, case: &str, human: &dyn Summarizer, separator: &str) {
    let bytes = support::truth(tool, case, "json").expect("a JSON report");
    let truth: Value = serde_json::from_slice(&bytes).expect("truth is JSON");
    let human = human.parse(&support::log(tool, case));
    let report = match root_of(&truth, &human) {
        Some(root) => jest_json::parse_relative_to(tool, &bytes, &root),
        None => jest_json::parse(tool, &bytes),
    };
    let case = format!("{tool}/{case}");
    assert_eq!(report.tool, tool);
    support::check_outcome(
        &case,
        support::exit_code(tool, &case[tool.len() + 1..]),
        &report,
    );

    // The report's own numbers.
    let n = |key: &str| truth[key].as_u64().unwrap_or(0);
    let counts = &report.counts;
    assert_eq!(counts.tests_failed, Some(n("numFailedTests")), "{case}");
    assert_eq!(counts.tests_passed, Some(n("numPassedTests")), "{case}");
    assert_eq!(
        counts.tests_skipped,
        Some(n("numPendingTests") + n("numTodoTests")),
        "{case}"
    );
    support::check_jest_format_tests(&case, &report, &truth, separator);
    if n("numTotalTests") == 0 && truth["testResults"].as_array().is_some_and(Vec::is_empty) {
        assert_eq!(report.outcome, Outcome::Errored, "{case}: no test ran");
        return;
    }

    // The human parse of the same run.
    assert_eq!(report.outcome, human.outcome, "{case}: outcome");
    assert_eq!(counts.tests_failed, human.counts.tests_failed, "{case}");
    assert_eq!(counts.tests_passed, human.counts.tests_passed, "{case}");
    assert_eq!(counts.tests_skipped, human.counts.tests_skipped, "{case}");
    assert_eq!(counts.suites_errored, human.counts.suites_errored, "{case}");
    assert_eq!(counts.files, human.counts.files, "{case}: failed files");
    let tests = |r: &Report| -> BTreeSet<(Option<String>, Option<String>)> {
        r.diagnostics
            .iter()
            .filter(|d| d.test.is_some())
            .map(|d| (d.file.clone(), d.test.clone()))
            .collect()
    };
    assert_eq!(tests(&report), tests(&human), "{case}: failing tests");
    let causes = |r: &Report| -> BTreeSet<Option<String>> {
        r.diagnostics
            .iter()
            .filter(|d| d.root_cause)
            .map(|d| d.file.clone())
            .collect()
    };
    assert_eq!(
        causes(&report),
        causes(&human),
        "{case}: suites that did not load"
    );
    for diagnostic in &report.diagnostics {
        let file = diagnostic.file.as_deref().unwrap_or("");
        assert!(!file.starts_with('/'), "{case}: {file} is not relative");
    }
    insta::assert_json_snapshot!(case.replace('/', "__"), report);
}

/// A report cut anywhere (a tool killed while writing it) is errored, never a panic or a pass.
#[test]
fn a_report_cut_anywhere_is_errored() {
    let bytes = support::truth("jest", "failing", "json").expect("a JSON report");
    for cut in (0..bytes.len() - 1).step_by(97) {
        let report = jest_json::parse("jest", &bytes[..cut]);
        assert_eq!(report.outcome, Outcome::Errored, "cut at {cut}");
        let error = report.error.expect("a reason");
        assert!(error.contains("JSON report"), "{error}");
    }
}

/// A passing run's report passes; the same report with `success: false` and nothing failed does
/// not (a coverage threshold, an error outside any test: the log has to say).
#[test]
fn success_false_without_a_failure_is_errored() {
    let bytes = support::truth("jest", "passing", "json").expect("a JSON report");
    assert_eq!(jest_json::parse("jest", &bytes).outcome, Outcome::Passed);
    let mut truth: Value = serde_json::from_slice(&bytes).expect("JSON");
    truth["success"] = Value::Bool(false);
    let changed = serde_json::to_vec(&truth).expect("JSON");
    let report = jest_json::parse("jest", &changed);
    assert_eq!(report.outcome, Outcome::Errored);
}
