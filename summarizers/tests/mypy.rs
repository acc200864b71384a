//! The mypy summarizer against every real log in `testdata/mypy/`, plus a snapshot of each report.
//!
//! The ground truth of each case is the `-O json` run of the same project and arguments
//! (`<case>.truth.jsonl`), read here with `serde_json` alone. Every error and note in it with a
//! line must be matched by one diagnostic with the same file, line, code, message and hint (and
//! column, where the log prints columns), the counts must be the JSON's, and the JSON itself read
//! by [`from_json`] must give the same diagnostics. The lines of the truth that are not JSON
//! (mypy's usage and configuration errors) must be the reason of an errored report.

use crate::support;
use std::collections::BTreeSet;

use serde_json::Value;
use verdict_model::{Diagnostic, Outcome, Report, Severity, Summarizer};
use verdict_summarizers::mypy::{MypySummarizer, from_json};

/// One error or note of the JSON truth, with a line.
#[derive(Debug)]
struct TruthItem {
    file: String,
    line: u32,
    /// 1-based, as the standard lines print it; `None` where mypy gives none (-1).
    column: Option<u32>,
    code: Option<String>,
    message: String,
    hint: Option<String>,
    error: bool,
}

/// The JSON objects of a truth file with a line (the context notes have none), and its other
/// lines.
fn read_truth(text: &str) -> (Vec<TruthItem>, Vec<String>) {
    let (mut items, mut other) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            other.push(line.to_owned());
            continue;
        };
        let number = |key: &str| v[key].as_i64().expect("a number");
        if number("line") < 1 {
            continue;
        }
        let text = |key: &str| v[key].as_str().map(str::to_owned);
        items.push(TruthItem {
            file: text("file").expect("file"),
            line: u32::try_from(number("line")).expect("a line"),
            column: u32::try_from(number("column") + 1).ok().filter(|c| *c > 0),
            code: text("code"),
            message: text("message").expect("message"),
            hint: text("hint"),
            error: v["severity"] == "error",
        });
    }
    (items, other)
}

/// Whether `d` is the diagnostic of `item`; columns are compared only where the log has them.
fn matches(d: &Diagnostic, item: &TruthItem, columns: bool) -> bool {
    let severity = if item.error {
        Severity::Error
    } else {
        Severity::Info
    };
    d.file.as_deref() == Some(item.file.as_str())
        && d.line == Some(item.line)
        && (!columns || d.column == item.column)
        // The standard lines print no code after a note.
        && (d.code == item.code || !item.error && d.code.is_none())
        && d.message == item.message
        && d.detail == item.hint
        && d.severity == severity
}

/// Checks a report against the truth of its case.
fn check_truth(case: &str, report: &Report, truth: &str, columns: bool) {
    let (items, other) = read_truth(truth);
    // An error without a line (`x.py: error: Cannot read file`) is no JSON object but text.
    let placed = report
        .diagnostics
        .iter()
        .filter(|d| d.line.is_some())
        .count();
    assert_eq!(
        placed,
        items.len(),
        "{case}: one diagnostic per error and note: {:#?}",
        report.diagnostics
    );
    for item in &items {
        assert!(
            report.diagnostics.iter().any(|d| matches(d, item, columns)),
            "{case}: no diagnostic for {item:?} in {:#?}",
            report.diagnostics
        );
    }
    let errors: Vec<&TruthItem> = items.iter().filter(|i| i.error).collect();
    if report.outcome == Outcome::Failed {
        let files: BTreeSet<&str> = errors.iter().map(|e| e.file.as_str()).collect();
        assert_eq!(
            report.counts.errors,
            Some(errors.len() as u64),
            "{case}: errors"
        );
        assert_eq!(
            report.counts.files,
            Some(files.len() as u64),
            "{case}: files"
        );
    }
    if !other.is_empty() {
        let error = report.error.as_deref().unwrap_or_default();
        assert!(
            other.iter().any(|line| error.contains(line.as_str())),
            "{case}: `{error}` says none of {other:?}"
        );
    }
}

/// Checks one captured case against its truth and meta, and snapshots its report.
fn check(case: &str) {
    let log = support::log("mypy", case);
    let summarizer = verdict_summarizers::by_name("mypy").expect("the mypy summarizer");
    let report = summarizer.parse(&log);
    let exit_code = support::exit_code("mypy", case);
    if case.starts_with("config-") {
        // mypy exits 0 after a pyproject.toml it could not read: it checked without it.
        assert_eq!(report.outcome, Outcome::Errored, "{case}: {report:#?}");
        assert!(report.error.is_some(), "{case}: says why");
    } else {
        support::check_outcome(case, exit_code, &report);
    }
    if exit_code == Some(0) {
        assert!(
            report.summary.is_some(),
            "{case}: the success line is the evidence"
        );
    }
    let truth = String::from_utf8(support::truth("mypy", case, "jsonl").expect("a truth file"))
        .expect("UTF-8 JSON");
    let columns = case.contains("columns") || case.contains("context");
    check_truth(case, &report, &truth, columns);

    // The JSON read as the verifier reads it: the same diagnostics and outcome; and a log of it
    // is told to be mypy's.
    let json = from_json(&truth);
    if truth.starts_with("{\"file\"") {
        let detected = verdict_summarizers::detect(&verdict_summarizers::sample(truth.as_bytes()));
        assert_eq!(
            detected.summarizer.name(),
            "mypy",
            "{case}: the JSON's detection"
        );
    }
    check_truth(&format!("{case} (JSON)"), &json, &truth, true);
    if report.outcome != Outcome::Passed {
        assert_eq!(json.outcome, report.outcome, "{case}: JSON outcome");
    }
    insta::assert_json_snapshot!(case, report);
}

#[test]
fn pretty_and_plain_logs_of_one_project_give_the_same_diagnostics() {
    for (plain, pretty) in [("errors", "errors-pretty"), ("strict", "strict-pretty")] {
        let read = |case: &str| MypySummarizer.parse(&support::log("mypy", case));
        let (plain, pretty) = (read(plain), read(pretty));
        assert_eq!(plain.diagnostics, pretty.diagnostics);
        assert_eq!(plain.counts, pretty.counts);
    }
    let colour = MypySummarizer.parse(&support::log("mypy", "errors-color"));
    assert_eq!(
        colour.diagnostics,
        MypySummarizer
            .parse(&support::log("mypy", "errors"))
            .diagnostics
    );
}

#[test]
fn the_generic_folders_mypy_logs_match_their_truth_too() {
    let cases: Vec<String> = support::case_names("generic")
        .into_iter()
        .filter(|c| c.starts_with("mypy-"))
        .collect();
    assert!(cases.len() >= 5, "{cases:?}");
    for case in cases {
        let log = support::log("generic", &case);
        let report = verdict_summarizers::by_name("mypy")
            .expect("the mypy summarizer")
            .parse(&log);
        support::check_outcome(&case, support::exit_code("generic", &case), &report);
        let truth = support::truth("generic", &case, "jsonl").expect("a truth file");
        let truth = String::from_utf8(truth).expect("UTF-8 JSON");
        check_truth(&case, &report, &truth, case.contains("columns"));
    }
}

#[test]
fn a_clean_json_run_is_no_evidence_and_a_usage_error_is_errored() {
    // `-O json` hides the success line: the verifier needs its own evidence of a clean run.
    let clean = from_json("\n");
    assert_eq!(clean.outcome, Outcome::Passed);
    assert_eq!(clean.evidence(), verdict_model::Evidence::Nothing);
    let usage = from_json(&String::from_utf8_lossy(&support::log(
        "mypy",
        "unknown-flag",
    )));
    assert_eq!(usage.outcome, Outcome::Errored);
    assert_eq!(
        usage.error.as_deref(),
        Some("mypy: error: unrecognized arguments: --strictt")
    );
}

#[test]
fn binary_garbage_and_endless_lines_do_not_panic() {
    let mut garbage: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
    garbage.extend(b"a.py:".repeat(50_000));
    garbage.extend(b": error: ");
    let mypy = verdict_summarizers::by_name("mypy").expect("the mypy summarizer");
    assert_ne!(mypy.parse(&garbage).outcome, Outcome::Passed);
    let report = from_json(&"{\"file\": 1}\n".repeat(1_000));
    assert_ne!(report.outcome, Outcome::Failed);
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    check(case);
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/mypy/`.
mod logs {
    crate::support::logs::mypy!(super::check_log);
}
