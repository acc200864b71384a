//! JSON reports given to `verdict summarize` as they are (`verdict summarize results.json`):
//! jest's `--json` report, vitest's `--reporter=json` and mocha's `--reporter json`. Each captured
//! report is the tool's own account of the same run as a captured log, so the two parses must
//! agree: the report is detected as its tool, is never a pass where the log is not, and counts the
//! same failing, passing and skipped tests.
//!
//! Before, such a report was read as a log with nothing in it: "no failure found", a pass, over
//! 40 failing tests.

use crate::support;
use verdict_model::{Outcome, Report};

/// Every captured JSON report of `tool`: the case and the report's bytes.
fn reports(tool: &str) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    for case in support::case_names(tool) {
        for ext in ["json", "vitest1.json"] {
            if let Some(json) = support::truth(tool, &case, ext) {
                found.push((case.clone(), json));
            }
        }
    }
    found
}

/// Checks each JSON report a jest, vitest or mocha case wrote, given to `verdict summarize` as it
/// is.
pub(crate) fn check_reports(tool: &str, case: &str) {
    for ext in ["json", "vitest1.json"] {
        if let Some(json) = support::truth(tool, case, ext) {
            check(tool, case, &json);
            if tool == "mocha" {
                check_mocha_after_output(case, &json);
            }
        }
    }
}

fn check(tool: &str, case: &str, json: &[u8]) {
    let detected = verdict_summarizers::detect(&verdict_summarizers::sample(json));
    assert_eq!(detected.summarizer.name(), tool, "{tool}/{case}: detected");
    let report = verdict_summarizers::summarize(json);
    let from_log = verdict_summarizers::by_name(tool)
        .expect("a summarizer")
        .parse(&support::log(tool, case));
    if from_log.outcome != Outcome::Passed {
        assert_ne!(
            report.outcome,
            Outcome::Passed,
            "{tool}/{case}: {report:#?}"
        );
    }
    if from_log.outcome == Outcome::Errored || report.outcome == Outcome::Errored {
        // A run that did not finish (a config error, no test) has no counts to compare.
        return;
    }
    let counts = |r: &Report| {
        (
            r.counts.tests_failed.unwrap_or(0),
            r.counts.tests_passed.unwrap_or(0),
            r.counts.tests_skipped.unwrap_or(0),
        )
    };
    assert_eq!(
        counts(&report),
        counts(&from_log),
        "{tool}/{case}: failed, passed, skipped of the report and of the log"
    );
    assert_eq!(report.outcome, from_log.outcome, "{tool}/{case}: outcome");
    let failing = |r: &Report| r.errors().filter(|d| d.test.is_some()).count();
    assert_eq!(
        failing(&report),
        failing(&from_log),
        "{tool}/{case}: failing tests reported"
    );
}

/// The reader path (`verdict summarize` on a file or stdin) takes a one-line report longer than
/// the longest line the log reader keeps, whole.
#[test]
fn a_one_line_report_longer_than_a_log_line_is_read_whole() {
    let (case, json) = reports("jest")
        .into_iter()
        .find(|(_, json)| json.len() > verdict_model::lines::MAX_LINE)
        .expect("a jest report over 64 KiB");
    assert!(!json[..json.len() - 1].contains(&b'\n'), "{case}: one line");
    let summarizer = verdict_summarizers::by_name("jest").expect("jest");
    let (read, _) = summarizer
        .parse_reader(&mut json.as_slice())
        .expect("reads from memory");
    assert_eq!(read.outcome, Outcome::Failed, "{case}");
    assert_eq!(read.counts, summarizer.parse(&json).counts, "{case}");
}

/// A JSON document that is no test report stays with the log parsers, and a report cut off
/// before its end is no pass.
#[test]
fn other_json_and_cut_reports_are_not_passes() {
    let (_, json) = reports("mocha").remove(0);
    let cut = &json[..json.len() / 2];
    let report = verdict_summarizers::by_name("mocha")
        .expect("mocha")
        .parse(cut);
    assert_ne!(report.outcome, Outcome::Passed, "{report:#?}");
    let (_, json) = reports("vitest").remove(0);
    let report = verdict_summarizers::by_name("vitest")
        .expect("vitest")
        .parse(&json[..json.len() / 2]);
    assert_ne!(report.outcome, Outcome::Passed, "{report:#?}");
}

/// mocha's JSON reporter writes to standard output after whatever the tests logged there: the
/// report after a test's `console.log` lines was "no failure found", a pass. It is read as the
/// report; cut off before its end it is no pass.
fn check_mocha_after_output(case: &str, json: &[u8]) {
    let mut log = b"hello from a test\n{\nnot the report\n".to_vec();
    log.extend_from_slice(json);
    let detected = verdict_summarizers::detect(&verdict_summarizers::sample(&log));
    assert_eq!(detected.summarizer.name(), "mocha", "{case}");
    let report = verdict_summarizers::summarize(&log);
    let direct = verdict_summarizers::summarize(json);
    assert_eq!(report.counts, direct.counts, "{case}");
    assert_eq!(report.outcome, direct.outcome, "{case}");

    let cut = &log[..log.len() - json.len() / 2];
    let report = verdict_summarizers::by_name("mocha")
        .expect("mocha")
        .parse(cut);
    assert_eq!(report.outcome, Outcome::Errored, "{case}: {report:#?}");
}
