//! The node-test summarizer against every captured `node --test` log in `testdata/node-test/`:
//! the spec, dot and tap reporters of Node.js 20 and 22.
//!
//! Each log is checked against the JUnit report node wrote in the same run (a second reporter of
//! the same `node --test`): the footer's counts are the report's `<!-- pass N -->` and `<!-- fail
//! N -->` (dot prints none); every test case with a `<failure>` and no `<skipped>` (a failing todo
//! test is not a failure) is a diagnostic of that name, placed at the first frame of its failure's
//! stack in a test file, and saying what the failure says; a diagnostic names no other test, but a
//! suite whose hook failed (JUnit lists only the tests it cancelled). Each report is snapshotted.

use crate::support;
use std::collections::BTreeSet;

use crate::support::xml_attr as attr;
use quick_xml::Reader;
use quick_xml::events::Event;
use verdict_model::{Kind, Outcome, Report, Summarizer};
use verdict_summarizers::node_test::NodeTestSummarizer;

const TOOL: &str = "node-test";

/// One `<testcase>` of node's JUnit report.
#[derive(Debug, Default)]
struct TestCase {
    name: String,
    /// The `message` of its `<failure>` and the failure's text.
    failure: Option<(String, String)>,
    skipped: bool,
}

/// The test cases, the names of the suites, and the totals node writes as comments.
struct Truth {
    cases: Vec<TestCase>,
    suites: BTreeSet<String>,
    totals: Vec<(String, u64)>,
}

impl Truth {
    fn total(&self, key: &str) -> Option<u64> {
        self.totals.iter().find(|(k, _)| k == key).map(|(_, n)| *n)
    }
}

fn read_truth(xml: &str) -> Truth {
    let mut reader = Reader::from_str(xml);
    let mut truth = Truth {
        cases: Vec::new(),
        suites: BTreeSet::new(),
        totals: Vec::new(),
    };
    let mut in_failure = false;
    loop {
        match reader.read_event().expect("node's JUnit XML") {
            Event::Start(e) | Event::Empty(e) => match AsRef::<str>::as_ref(&e.name()) {
                "testcase" => truth.cases.push(TestCase {
                    name: attr(&e, "name"),
                    ..TestCase::default()
                }),
                "testsuite" => {
                    truth.suites.insert(attr(&e, "name"));
                }
                "failure" => {
                    if let Some(case) = truth.cases.last_mut() {
                        case.failure = Some((attr(&e, "message"), String::new()));
                    }
                    in_failure = true;
                }
                "skipped" => {
                    if let Some(case) = truth.cases.last_mut() {
                        case.skipped = true;
                    }
                }
                _ => {}
            },
            Event::Text(text) if in_failure => {
                if let Some(TestCase {
                    failure: Some((_, body)),
                    ..
                }) = truth.cases.last_mut()
                {
                    body.push_str(&text.xml10_content());
                }
            }
            Event::End(e) if AsRef::<str>::as_ref(&e.name()) == "failure" => in_failure = false,
            Event::Comment(comment) => {
                let text = comment[..].trim().to_owned();
                if let Some((key, n)) = text.split_once(' ')
                    && let Ok(n) = n.parse()
                {
                    truth.totals.push((key.to_owned(), n));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    truth
}

/// The first `(path:line:col)` frame of a failure's text in a test file: where it threw.
fn test_frame_line(text: &str) -> Option<u32> {
    // node wraps the error a test threw: the wrapper's stack is where the test was started, the
    // `cause:`'s where it threw.
    let text = text.split_once("cause:").map_or(text, |(_, cause)| cause);
    text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("at ")?;
        let inner = match rest.strip_suffix(')') {
            Some(r) => &r[r.rfind('(')? + 1..],
            None => rest,
        };
        let mut parts = inner.rsplitn(3, ':');
        let _column = parts.next()?;
        let line: u32 = parts.next()?.parse().ok()?;
        let path = parts.next()?;
        (path.contains("/test/") && !path.starts_with("node:")).then_some(line)
    })
}

fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn check(case: &str) -> Report {
    let log = support::log(TOOL, case);
    let report = NodeTestSummarizer.parse(&log);
    support::check_outcome(case, support::exit_code(TOOL, case), &report);
    let xml = support::truth(TOOL, case, "xml").expect("node wrote its JUnit report");
    let truth = read_truth(&String::from_utf8_lossy(&xml));
    let failing: Vec<&TestCase> = truth
        .cases
        .iter()
        .filter(|t| t.failure.is_some() && !t.skipped)
        .collect();
    if !case.contains("-dot") {
        assert_eq!(
            report.counts.tests_failed,
            truth.total("fail"),
            "{case}: failed"
        );
        assert_eq!(
            report.counts.tests_passed,
            truth.total("pass"),
            "{case}: passed"
        );
        let skipped = truth.total("skipped").unwrap_or(0) + truth.total("todo").unwrap_or(0);
        assert_eq!(
            report.counts.tests_skipped,
            Some(skipped),
            "{case}: skipped"
        );
    }
    let expected = if failing.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed
    };
    assert_eq!(report.outcome, expected, "{case}: outcome");
    for t in &failing {
        let d = report
            .diagnostics
            .iter()
            .find(|d| d.test.as_deref() == Some(t.name.as_str()))
            .unwrap_or_else(|| panic!("{case}: no diagnostic for `{}`", t.name));
        let (message, text) = t.failure.as_ref().expect("failing");
        // Without a stack, only spec and tap say where the test is (dot prints no location).
        let placed = if let Some(line) = test_frame_line(text) {
            assert_eq!(d.line, Some(line), "{case}: line of `{}`", t.name);
            true
        } else {
            !case.contains("-dot")
        };
        if placed {
            assert!(
                d.line.is_some() && d.file.as_deref().is_some_and(|f| f.contains("test/")),
                "{case}: `{}` is not placed in its test file: {d:?}",
                t.name
            );
        }
        if message != "test failed" {
            let wanted: String = squeeze(message).chars().take(30).collect();
            assert!(
                squeeze(&d.message).contains(&wanted),
                "{case}: `{}` says {:?}, node {message:?}",
                t.name,
                d.message
            );
        }
    }
    // Nothing else is reported: a suite's own failure (a hook) aside, each test is a failing one.
    let failing_names: BTreeSet<&str> = failing.iter().map(|t| t.name.as_str()).collect();
    for d in report.diagnostics.iter().filter(|d| d.kind == Kind::Test) {
        let name = d.test.as_deref().unwrap_or_default();
        assert!(
            failing_names.contains(name) || truth.suites.contains(name),
            "{case}: `{name}` is no failing test of the report"
        );
    }
    report
}

/// A spec log cut off before its footer, and one whose footer says 7 failed but whose failures
/// are gone, are never a pass.
/// A test file node cannot load is reported as `test failed` at the file's line 1; its
/// process printed the place and the error first, and they are the failure's.
#[test]
fn a_file_node_could_not_load_is_placed_and_explained_by_its_load_error() {
    for case in ["node20-syntax-errors-tap", "node22-syntax-errors-spec"] {
        let report = NodeTestSummarizer.parse(&support::log("node-test", case));
        let failures: Vec<(String, u32, String)> = report
            .diagnostics
            .iter()
            .map(|d| {
                let file = d.file.as_deref().unwrap_or_default();
                let file = file.rsplit('/').next().unwrap_or(file).to_owned();
                (file, d.line.unwrap_or(0), d.message.clone())
            })
            .collect();
        assert_eq!(
            failures,
            [
                (
                    "cart.test.js".to_owned(),
                    7,
                    "SyntaxError: Unexpected token ';'".to_owned()
                ),
                (
                    "esm.test.js".to_owned(),
                    1,
                    "SyntaxError: Cannot use import statement outside a module".to_owned()
                ),
                (
                    "format.test.js".to_owned(),
                    6,
                    "SyntaxError: Unexpected end of input".to_owned()
                ),
            ],
            "{case}"
        );
        assert_eq!(report.counts.tests_failed, Some(3), "{case}");
        assert_eq!(report.counts.tests_passed, Some(1), "{case}");
    }
}

#[test]
fn a_cut_spec_log_never_passes() {
    let log = String::from_utf8(support::log(TOOL, "node22-failing-spec")).expect("UTF-8");
    let before_footer = &log[..log.find("ℹ tests").expect("a footer")];
    let report = NodeTestSummarizer.parse(before_footer.as_bytes());
    assert_eq!(report.outcome, Outcome::Errored);
    let footer_only = &log
        [log.find("ℹ tests").expect("a footer")..log.find("✖ failing tests:").expect("failures")];
    let report = NodeTestSummarizer.parse(footer_only.as_bytes());
    assert_ne!(report.outcome, Outcome::Passed);
    assert_eq!(report.counts.tests_failed, Some(9));
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    let report = check(case);
    insta::assert_json_snapshot!(case, report);
    assert_eq!(support::detected(tool, case), tool, "{case}");
    crate::junit::check_node_spec(case);
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/node-test/`.
mod logs {
    crate::support::logs::node_test!(super::check_log);
}
