//! The pytest summarizer against every captured pytest log in `testdata/pytest/`.
//!
//! Each log is checked against the JUnit XML pytest wrote in the same run: every failing or
//! erroring test case is matched by a diagnostic for that test (or, for a file that failed to
//! collect, for that file), placed at the last line of the test's own file in the traceback the
//! XML holds; the failure, error and skip counts equal the XML's. Runs that stopped before writing
//! a report must be errored, or failed when the code did not load. Each report is snapshotted.

use crate::support;
use crate::support::xml_attr as attr;
use std::fs;
use std::path::PathBuf;

use quick_xml::Reader;
use quick_xml::events::Event;
use verdict_model::{Diagnostic, Outcome, Report, Summarizer};
use verdict_summarizers::pytest::PytestSummarizer;

fn testdata() -> PathBuf {
    support::testdata("pytest")
}

/// One `<testcase>` of the JUnit XML that failed or errored.
#[derive(Debug, Default)]
struct Failure {
    classname: String,
    name: String,
    /// The `message` attribute of its `<failure>` or `<error>`.
    message: String,
    text: String,
    /// An `<error>`, not a `<failure>`.
    error: bool,
}

/// The suite's counts and its failing cases.
#[derive(Debug, Default)]
struct Truth {
    failures: u64,
    errors: u64,
    skipped: u64,
    failing: Vec<Failure>,
}

fn read_truth(xml: &str) -> Truth {
    let mut reader = Reader::from_str(xml);
    let mut truth = Truth::default();
    let mut case: Option<Failure> = None;
    let mut in_problem = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match AsRef::<str>::as_ref(&e.name()) {
                "testsuite" => {
                    truth.failures += attr(&e, "failures").parse::<u64>().unwrap_or(0);
                    truth.errors += attr(&e, "errors").parse::<u64>().unwrap_or(0);
                    truth.skipped += attr(&e, "skipped").parse::<u64>().unwrap_or(0);
                }
                "testcase" => {
                    case = Some(Failure {
                        classname: attr(&e, "classname"),
                        name: attr(&e, "name"),
                        message: String::new(),
                        text: String::new(),
                        error: false,
                    });
                }
                name @ ("failure" | "error") => {
                    if let Some(mut case) = case.take() {
                        case.error = name == "error";
                        case.message = attr(&e, "message");
                        truth.failing.push(case);
                    }
                    in_problem = true;
                }
                _ => {}
            },
            Ok(Event::Text(t)) if in_problem => {
                if let Some(last) = truth.failing.last_mut() {
                    last.text.push_str(t.as_ref());
                }
            }
            Ok(Event::GeneralRef(r)) if in_problem => {
                if let Some(last) = truth.failing.last_mut() {
                    let entity = match AsRef::<str>::as_ref(&r) {
                        "lt" => "<",
                        "gt" => ">",
                        "amp" => "&",
                        "quot" => "\"",
                        "apos" => "'",
                        "#10" => "\n",
                        _ => "",
                    };
                    last.text.push_str(entity);
                }
            }
            Ok(Event::End(e)) if matches!(AsRef::<str>::as_ref(&e.name()), "failure" | "error") => {
                in_problem = false;
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    // pytest-xdist writes a test its worker crashed in as an error "on setup"; pytest's summary,
    // and so the log, counts it as a failed test.
    let crashed = truth
        .failing
        .iter()
        .filter(|f| f.error && f.text.contains("' crashed while running '"))
        .count() as u64;
    truth.errors -= crashed;
    truth.failures += crashed;
    truth
}

/// `tests/a.py::K::t[x]` → `tests.a.K.t[x]`, the JUnit spelling.
fn dotted(nodeid: &str) -> String {
    let (file, rest) = nodeid.split_once("::").unwrap_or((nodeid, ""));
    let file = file.trim_end_matches(".py").replace('/', ".");
    if rest.is_empty() {
        file
    } else {
        format!("{file}.{}", rest.replace("::", "."))
    }
}

/// `text` without the capture root of its project (`/tmp/verdict-capture/pytest/<project>/`,
/// where `cargo xtask capture` and the captures by hand run pytest), so that its paths are
/// relative to the rootdir like the log's.
fn without_capture_root(text: &str) -> String {
    const ROOT: &str = "/tmp/verdict-capture/pytest/";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(ROOT) {
        out.push_str(&rest[..at]);
        let after = &rest[at + ROOT.len()..];
        match after.find('/') {
            Some(slash) if !after[..slash].contains(char::is_whitespace) => {
                rest = &after[slash + 1..];
            }
            _ => {
                out.push_str(ROOT);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The first words of a message, for comparing what the log shows with the XML: whitespace
/// folded, and without the `...` pytest 6 and 7 end a cut short-summary entry with.
fn opening(message: &str) -> String {
    let message = message.strip_suffix("...").unwrap_or(message);
    let folded = message.split_whitespace().collect::<Vec<_>>().join(" ");
    folded.chars().take(25).collect()
}

/// The last line of `file` in a JUnit failure text, in any traceback style.
fn last_line_in(text: &str, file: &str) -> Option<u32> {
    let text = without_capture_root(text);
    let mut found = None;
    for line in text.lines() {
        let line = line.trim_start_matches(['E', ' ']);
        if let Some(rest) = line.strip_prefix(&format!("{file}:"))
            && let Some(n) = rest.split(':').next().and_then(|n| n.parse().ok())
        {
            found = Some(n);
        }
        if let Some(rest) = line.strip_prefix(&format!("File \"{file}\", line "))
            && let Some(n) = rest.split(',').next().and_then(|n| n.parse().ok())
        {
            found = Some(n);
        }
    }
    found
}

fn check_truth(case: &str, report: &Report, truth: &Truth, places: bool) {
    for failure in &truth.failing {
        let (file, matches): (String, Vec<&Diagnostic>) = if failure.classname.is_empty() {
            // A file that failed to collect: JUnit names it by its module.
            let file = format!("{}.py", failure.name.replace('.', "/"));
            let found = report
                .diagnostics
                .iter()
                .filter(|d| d.file.as_deref() == Some(&*file) && d.test.is_none())
                .collect();
            (file, found)
        } else {
            let want = format!("{}.{}", failure.classname, failure.name);
            let found: Vec<&Diagnostic> = report
                .diagnostics
                .iter()
                .filter(|d| d.test.as_deref().is_some_and(|t| dotted(t) == want))
                .collect();
            let file = found
                .first()
                .and_then(|d| d.test.as_deref())
                .and_then(|t| t.split("::").next())
                .unwrap_or("")
                .to_owned();
            (file, found)
        };
        assert!(
            !matches.is_empty(),
            "{case}: no diagnostic for {}::{}",
            failure.classname,
            failure.name
        );
        // With `--tb=no` the log shows no place, whatever the XML holds.
        // The message is the one the XML holds (which has the whole failure text): with
        // `--tb=no` a short-summary entry may have none to show.
        let text = format!("{} {}", failure.message, failure.text);
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            matches
                .iter()
                .any(|d| text.contains(&opening(&d.message))
                    || (!places && d.message == "test failed")),
            "{case}: {}::{} has another message than the XML's {:?}: {:?}",
            failure.classname,
            failure.name,
            failure.message,
            matches.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        if let Some(line) = last_line_in(&failure.text, &file).filter(|_| places) {
            assert!(
                matches
                    .iter()
                    .any(|d| d.file.as_deref() == Some(&*file) && d.line == Some(line)),
                "{case}: {}::{} not placed at {file}:{line}: {matches:?}",
                failure.classname,
                failure.name
            );
        }
    }
    // Nothing invented: every failing test the report names is one the XML has failing.
    for d in report.errors() {
        if let Some(test) = d.test.as_deref() {
            let dotted = dotted(test);
            assert!(
                truth
                    .failing
                    .iter()
                    .any(|f| format!("{}.{}", f.classname, f.name) == dotted),
                "{case}: {test} is reported failing, the XML has it otherwise"
            );
        }
    }
    assert_eq!(
        report.counts.tests_failed,
        Some(truth.failures),
        "{case}: failed"
    );
    assert_eq!(
        report.counts.errors.unwrap_or(0),
        truth.errors,
        "{case}: errors"
    );
    assert_eq!(
        report.counts.tests_skipped,
        Some(truth.skipped),
        "{case}: skipped"
    );
}

/// Checks one captured case against its truth and meta, and snapshots its report.
fn check(case: &str) {
    let dir = testdata();
    let log = fs::read(dir.join(format!("{case}.log"))).expect("log");
    let meta = support::meta("pytest", case);
    let report = PytestSummarizer.parse(&log);
    let exit_code = meta["exit_code"].as_i64();
    // pytest's exit codes: 0 passed, 1 tests failed, 2 interrupted (collection errors), 3
    // internal error, 4 usage error (or a conftest that fails to import), 5 no tests collected.
    match exit_code {
        Some(0) => assert_eq!(report.outcome, Outcome::Passed, "{case}"),
        Some(1) | Some(2) => assert_eq!(report.outcome, Outcome::Failed, "{case}"),
        _ => {
            assert_ne!(
                report.outcome,
                Outcome::Passed,
                "{case}: a crash is never a pass"
            );
            if report.outcome == Outcome::Errored {
                assert!(report.error.is_some(), "{case}: says why");
            } else {
                assert!(
                    report.diagnostics.iter().any(|d| d.root_cause),
                    "{case}: failed to load, with a root cause"
                );
            }
        }
    }
    if let Ok(xml) = fs::read_to_string(dir.join(format!("{case}.truth.xml")))
        && report.outcome != Outcome::Errored
    {
        let places = !meta["argv"]
            .as_array()
            .is_some_and(|argv| argv.iter().any(|a| a == "--tb=no"));
        check_truth(case, &report, &read_truth(&xml), places);
    }
    insta::assert_json_snapshot!(case.to_owned(), report);
}

#[test]
fn a_passing_test_that_printed_is_not_a_failure_with_ra() {
    // `-rA` shows each passing test that printed in a `PASSES` section, in blocks like failures.
    let report = PytestSummarizer.parse(&support::log("pytest", "passes-output-ra-all"));
    let failing: Vec<_> = report.errors().filter_map(|d| d.test.as_deref()).collect();
    assert_eq!(failing, ["test_p.py::test_fails"]);
}

#[test]
fn the_output_of_a_pytest_session_a_test_ran_is_not_this_runs() {
    // pytester's `runpytest` prints a whole session (`test session starts`, `FAILURES`, a short
    // summary with `FAILED test_x.py::test_x`), inline with `-s`, as captured output otherwise.
    for case in [
        "nested-session",
        "nested-session-ra-all",
        "nested-session-no-capture",
    ] {
        let report = PytestSummarizer.parse(&support::log("pytest", case));
        let mut failing: Vec<_> = report.errors().filter_map(|d| d.test.as_deref()).collect();
        failing.sort_unstable();
        assert_eq!(
            failing,
            [
                "test_inner.py::test_inner_mismatch",
                "test_inner.py::test_plain_fail"
            ],
            "{case}"
        );
        assert_eq!(
            (report.counts.tests_passed, report.counts.tests_failed),
            (Some(2), Some(2)),
            "{case}"
        );
    }
}

#[test]
fn a_log_of_two_pytest_runs_counts_both() {
    // One CI step running `pytest integration; pytest unit`: two sessions, two closing lines.
    let report = PytestSummarizer.parse(&support::log("pytest", "two-sessions"));
    assert_eq!(
        (report.counts.tests_passed, report.counts.tests_failed),
        (Some(3), Some(1))
    );
}

/// Everything checked of each captured log: its truth, its detection and its sections, and the
/// structured report the run wrote.
fn check_log(tool: &str, case: &str) {
    check(case);
    assert_eq!(support::detected(tool, case), tool, "{case}");
    crate::junit::check_file(case);
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/pytest/`.
mod logs {
    crate::support::logs::pytest!(super::check_log);
}
