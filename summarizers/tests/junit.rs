//! The JUnit parser against every JUnit XML file pytest wrote in the captured runs of
//! `testdata/pytest/` (`<case>.truth.xml`), checked against the XML's own attributes (read here
//! with a separate, minimal reader) and against the log parser's report of the same run: the same
//! failing tests, and — where both show the same traceback — the same fingerprints. Each report
//! is snapshotted.

use crate::support;
use std::collections::BTreeSet;

use verdict_model::{Kind, Outcome, Report, Severity, Summarizer};
use verdict_summarizers::junit;
use verdict_summarizers::pytest::PytestSummarizer;

/// A `key="value"` attribute of the `<testsuite` elements, summed (a log of two pytest runs has
/// the two runs' suites), read without an XML library.
fn suite_attribute(xml: &str, key: &str) -> u64 {
    let suites: Vec<&str> = xml.split("<testsuite ").skip(1).collect();
    assert!(!suites.is_empty(), "a testsuite");
    suites
        .iter()
        .map(|suite| {
            let suite = &suite[..suite.find('>').expect("closed")];
            let at = suite
                .find(&format!(" {key}=\""))
                .unwrap_or_else(|| panic!("{key}"));
            let value = &suite[at + key.len() + 3..];
            value[..value.find('"').expect("quoted")]
                .parse::<u64>()
                .expect("a number")
        })
        .sum()
}

/// `n label` in pytest's summary line (`3 failed, 12 passed, 1 xpassed in 0.1s`), summed over
/// the runs of a log of several (`2 passed in 0.1s; 1 failed in 0.2s`).
fn count(summary: &str, label: &str) -> Option<u64> {
    summary
        .split("; ")
        .filter_map(|line| {
            line.split(", ").find_map(|part| {
                let (n, rest) = part.split_once(' ')?;
                (rest == label || rest.starts_with(&format!("{label} "))).then(|| n.parse().ok())?
            })
        })
        .reduce(|a, b| a + b)
}

/// The failing tests of a report: node ids, and files for what failed to collect.
fn failing(report: &Report) -> BTreeSet<String> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error && d.kind == Kind::Test)
        .filter_map(|d| d.test.clone().or_else(|| d.file.clone()))
        .collect()
}

/// Checks the JUnit file of a pytest case, when the run wrote one: counts, outcome, agreement with
/// the log parser; cut anywhere it is errored; given to `verdict summarize` it is read as JUnit.
pub(crate) fn check_file(case: &str) {
    if support::truth("pytest", case, "xml").is_none() {
        return;
    }
    check(case);
    check_truncated(case);
    check_read_as_junit(case);
}

/// Checks one case: counts, outcome, and agreement with the log parser.
fn check(case: &str) {
    let xml = support::truth("pytest", case, "xml").expect("xml");
    let text = String::from_utf8(xml.clone()).expect("UTF-8");
    let report = junit::parse("pytest", &xml);
    insta::assert_json_snapshot!(case.to_owned(), report);
    let log = PytestSummarizer.parse(&support::log("pytest", case));
    let meta = support::meta("pytest", case);
    let argv: Vec<String> = meta["argv"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();

    let (tests, mut failures, mut errors, skipped) = (
        suite_attribute(&text, "tests"),
        suite_attribute(&text, "failures"),
        suite_attribute(&text, "errors"),
        suite_attribute(&text, "skipped"),
    );
    // pytest-xdist writes a test its worker crashed in as an error "on setup"; pytest counts it
    // as a failed test, and so does the reader.
    let crashed = text
        .matches("<error message=\"failed on setup with &quot;worker '")
        .count() as u64;
    errors -= crashed;
    failures += crashed;
    let c = &report.counts;
    assert_eq!(c.tests_failed, Some(failures), "{case}: failures");
    assert_eq!(c.errors.unwrap_or(0), errors, "{case}: errors");
    assert_eq!(c.tests_skipped, Some(skipped), "{case}: skipped");
    // Passed as pytest's own summary line says, where the log has one: JUnit cannot tell an
    // unexpected pass from a pass, so those count as passed too. `tests` minus the rest is no
    // measure: it counts a test whose tear-down failed twice in pytest 8 and once in pytest 9.
    match log.summary.as_deref().and_then(|s| count(s, "passed")) {
        Some(passed) => assert_eq!(
            c.tests_passed,
            Some(
                passed
                    + log
                        .summary
                        .as_deref()
                        .and_then(|s| count(s, "xpassed"))
                        .unwrap_or(0)
            ),
            "{case}: passed, as pytest's summary: {:?}",
            log.summary
        ),
        None => assert!(
            c.tests_passed.unwrap_or(0) <= tests - failures - skipped,
            "{case}: passed"
        ),
    }

    // pytest's own crash is written as one error case; it is no test of the code.
    if text.contains("classname=\"pytest\" name=\"internal\"") {
        assert_eq!(report.outcome, Outcome::Errored, "{case}");
        assert!(
            report
                .error
                .as_deref()
                .is_some_and(|e| e.contains("plugin exploded")),
            "{case}: {:?}",
            report.error
        );
        return;
    }
    let expected = match (failures + errors, tests) {
        (0, 0) => Outcome::Errored,
        (0, _) => Outcome::Passed,
        _ => Outcome::Failed,
    };
    assert_eq!(report.outcome, expected, "{case}");
    assert_eq!(
        report.diagnostics.len() as u64,
        failures + errors,
        "{case}: one diagnostic per failing case"
    );
    if expected != Outcome::Errored {
        assert_eq!(report.outcome, log.outcome, "{case}: outcome as the log's");
        assert_eq!(c.tests_failed, log.counts.tests_failed, "{case}: failed");
        assert_eq!(c.tests_skipped, log.counts.tests_skipped, "{case}: skipped");
    }

    // The same failing tests, by the same names.
    let from_log = failing(&log);
    let from_xml = failing(&report);
    assert_eq!(from_xml, from_log, "{case}: failing tests");

    // Where the log shows the tracebacks the XML holds, the same diagnostics, to the fingerprint.
    let same_text = !argv
        .iter()
        .any(|a| a == "--tb=line" || a == "--tb=no" || a == "-rA");
    if same_text {
        for d in &report.diagnostics {
            let twin = log
                .diagnostics
                .iter()
                .find(|l| l.fingerprint == d.fingerprint)
                .unwrap_or_else(|| {
                    panic!(
                        "{case}: no log diagnostic with the fingerprint of {d:?}\nlog: {:?}",
                        log.diagnostics
                            .iter()
                            .filter(|l| l.test == d.test && l.file == d.file)
                            .collect::<Vec<_>>()
                    )
                });
            assert_eq!(twin.location(), d.location(), "{case}: {:?}", d.test);
            assert_eq!(twin.root_cause, d.root_cause, "{case}: {:?}", d.test);
        }
    }
}

/// A JUnit file cut short is errored, never passed.
fn check_truncated(case: &str) {
    let xml = support::truth("pytest", case, "xml").expect("xml");
    for cut in [xml.len() / 3, xml.len() / 2, xml.len() - 20] {
        let report = junit::parse("pytest", &xml[..cut]);
        assert_eq!(report.outcome, Outcome::Errored, "{case} cut at {cut}");
        assert!(
            report
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with("unreadable JUnit XML")),
            "{case}: {:?}",
            report.error
        );
    }
}

/// `verdict summarize results.xml` was answered by the generic fallback: "no failure found", a
/// pass, for a pytest report with failures. Every captured JUnit file is now read as JUnit (and no
/// captured log is: [`support::check_sections`]).
fn check_read_as_junit(case: &str) {
    let xml = support::truth("pytest", case, "xml").expect("the JUnit file");
    let detection = verdict_summarizers::detect(&verdict_summarizers::sample(&xml));
    assert_eq!(detection.summarizer.name(), "junit", "{case}");
    let read = verdict_summarizers::summarize(&xml);
    // The document names pytest, so its cases are named as pytest's log parser names them.
    assert_eq!(read.tool, "pytest", "{case}");
    let direct = junit::parse("pytest", &xml);
    assert_eq!(read.counts, direct.counts, "{case}");
    assert_eq!(read.outcome, direct.outcome, "{case}");
    assert_eq!(failing(&read), failing(&direct), "{case}");
}

/// Node.js's test runner writes its top-level tests as cases of `<testsuites>` and a `todo` test
/// as a skipped case with a failure: the counts are the cases' (those of the TAP log of the same
/// run), and the todo is no failure.
#[test]
fn node_test_runner_cases_outside_suites_are_counted() {
    let case = "node22-failing-tap";
    let xml = support::truth("node-test", case, "xml").expect("node's JUnit file");
    let report = verdict_summarizers::summarize(&xml);
    let tap = String::from_utf8(support::log("node-test", case)).expect("the TAP log");
    let total = |key: &str| {
        tap.lines()
            .find_map(|line| line.strip_prefix(key))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .expect("a TAP total")
    };
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.tests_passed, Some(total("# pass ")));
    assert_eq!(
        report.counts.tests_skipped,
        Some(total("# skipped ") + total("# todo "))
    );
    let failing: Vec<_> = report.errors().filter_map(|d| d.test.clone()).collect();
    assert!(
        failing.contains(&"test::total adds price times quantity".to_owned()),
        "{failing:?}"
    );
    assert!(!failing.iter().any(|t| t.contains("todo")), "{failing:?}");
}

/// Node.js's JUnit reporter writes a `<testsuite>` per `describe` and counts each nested suite as
/// a test of its parent; the failures of every node-test case's report are its failing cases, as
/// the spec log's own footer of the same run says (`ℹ fail 1`). Where every test sits in nested
/// `describe` blocks (the `suites` cases, shaped as commander's suite), the passed and skipped
/// counts are the footer's too. (A `t.test` parent is a `<testsuite>` as well, which node's footer
/// counts as a test and the report, reading the XML, cannot tell from a `describe`.)
///
/// Checked for each spec log of `testdata/node-test/` from `node_test`'s test of that log.
pub(crate) fn check_node_spec(case: &str) {
    if !case.ends_with("-spec") {
        return;
    }
    let Some(xml) = support::truth("node-test", case, "xml") else {
        return;
    };
    let report = verdict_summarizers::summarize(&xml);
    let log = String::from_utf8_lossy(&support::log("node-test", case)).into_owned();
    let footer = |key: &str| {
        log.lines()
            .find_map(|line| line.strip_prefix(&format!("ℹ {key} ")))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{case}: no `ℹ {key}` in the log"))
    };
    assert_eq!(report.counts.tests_failed, Some(footer("fail")), "{case}");
    if case.contains("-suites-") {
        assert_eq!(report.counts.tests_passed, Some(footer("pass")), "{case}");
        assert_eq!(
            report.counts.tests_skipped,
            Some(footer("skipped") + footer("todo")),
            "{case}"
        );
    }
}
