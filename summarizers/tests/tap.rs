//! The tap summarizer against every captured TAP stream in `testdata/tap/`: node-tap's and
//! tape's.
//!
//! Each log is checked against the same run's TAP read by node-tap's own parser (`tap-parser
//! --flat --json`): every test point it lists that failed and is neither todo nor skip — the
//! flattened points have no subtests, so a parent is never one — is a diagnostic whose test
//! ends with the point's name, and no other test is reported; the counts are the ones the tool
//! printed in the log (node-tap's `# { total: … }`, tape's `# pass` / `# fail`), or, where it
//! printed none, the parser's. Each report is snapshotted.

use crate::support;

use serde_json::Value;
use verdict_model::{Kind, Outcome, Report, Summarizer};
use verdict_summarizers::tap::TapSummarizer;

const TOOL: &str = "tap";

/// The failing points of tap-parser's flattened events, by their full names.
fn failing_points(events: &Value) -> Vec<String> {
    events
        .as_array()
        .expect("tap-parser's events")
        .iter()
        .filter(|e| e[0] == "assert")
        .map(|e| &e[1])
        .filter(|point| point["ok"] == false && point["todo"] == false && point["skip"] == false)
        .map(|point| point["fullname"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A count the tool printed: `key` in node-tap's `# { total: … }` line, or tape's `# key N`.
fn printed(log: &str, key: &str) -> Option<u64> {
    for line in log.lines() {
        if let Some(list) = line.strip_prefix("# { ").and_then(|l| l.strip_suffix(" }")) {
            return list.split(", ").find_map(|pair| {
                let (k, n) = pair.split_once(": ")?;
                (k == key).then(|| n.parse().ok()).flatten()
            });
        }
        if let Some(n) = line.strip_prefix(&format!("# {key} ")) {
            return n.trim().parse().ok();
        }
    }
    None
}

fn check(case: &str) -> Report {
    let log = support::log(TOOL, case);
    let report = TapSummarizer.parse(&log);
    support::check_outcome(case, support::exit_code(TOOL, case), &report);
    let truth = support::truth(TOOL, case, "json").expect("tap-parser's events");
    let events: Value = serde_json::from_slice(&truth).expect("JSON");
    let failing = failing_points(&events);
    let text = String::from_utf8_lossy(&log);
    if printed(&text, "pass").is_some() {
        assert_eq!(
            report.counts.tests_failed,
            printed(&text, "fail").or(Some(0)),
            "{case}: failed"
        );
        assert_eq!(
            report.counts.tests_passed,
            printed(&text, "pass"),
            "{case}: passed"
        );
    }
    let tests: Vec<&str> = report
        .diagnostics
        .iter()
        .filter(|d| d.kind == Kind::Test)
        .filter_map(|d| d.test.as_deref())
        .collect();
    for name in &failing {
        // tap-parser names a point by its subtests and itself; node-tap's file subtest is the
        // diagnostic's place instead.
        let own = name.rsplit(" > ").next().unwrap_or(name);
        assert!(
            tests
                .iter()
                .any(|t| t.ends_with(own) && (name.ends_with(t) || t.ends_with(name.as_str()))),
            "{case}: no diagnostic for `{name}` among {tests:?}"
        );
    }
    let crashed = report.diagnostics.iter().any(|d| {
        d.detail
            .as_deref()
            .is_some_and(|d| d.contains("thrown out"))
    });
    assert_eq!(
        report.diagnostics.len(),
        failing.len() + usize::from(crashed),
        "{case}: {:?}",
        report.diagnostics
    );
    for d in &report.diagnostics {
        assert!(
            d.line.is_some() && d.file.is_some(),
            "{case}: {d:?} is not placed"
        );
    }
    if failing.is_empty() && !crashed {
        assert_eq!(report.outcome, Outcome::Passed, "{case}");
    } else {
        assert_eq!(report.outcome, Outcome::Failed, "{case}");
    }
    report
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    let report = check(case);
    insta::assert_json_snapshot!(case, report);
    assert_eq!(support::detected(tool, case), tool, "{case}");
    support::check_sections(tool, case);
}

/// node-tap's run with failing assertions inside nested subtests: each failure once, by its own
/// name and place, with the tool's count (before, the file's, the suites' and the assertions'
/// `not ok` lines were all counted and no summarizer claimed the log).
#[test]
fn node_tap_counts_each_failure_once() {
    let report = check("node-tap-failing");
    assert_eq!(report.counts.tests_failed, Some(4));
    assert_eq!(report.diagnostics.len(), 4);
    let d = report
        .diagnostics
        .iter()
        .find(|d| d.test.as_deref() == Some("discount > takes a percentage"))
        .expect("the failing assertion, named by its subtest");
    assert_eq!(d.location().as_deref(), Some("test/cart.test.js:10:5"));
    assert_eq!(d.message, "expected 180, actual 190");
    let sections = verdict_summarizers::summarize_all(&support::log(TOOL, "node-tap-failing"));
    assert_eq!(sections.len(), 1);
    assert_eq!(sections[0].counts.tests_failed, Some(4));
}

/// tape stops at a test's uncaught exception: not a pass, and the error is named where it was
/// thrown.
#[test]
fn tape_stopped_by_an_exception_names_it() {
    let report = check("tape-crash");
    assert_eq!(report.outcome, Outcome::Failed);
    let d = &report.diagnostics[0];
    assert_eq!(d.message, "TypeError: not a quantity: three");
    assert_eq!(d.test.as_deref(), Some("parseQty"));
    assert!(
        d.file
            .as_deref()
            .is_some_and(|f| f.ends_with("src/cart.js"))
    );
}

/// One test per captured log of `testdata/tap/`.
mod logs {
    crate::support::logs::tap!(super::check_log);
}
