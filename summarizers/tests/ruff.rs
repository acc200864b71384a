//! The ruff summarizer against every real log in `testdata/ruff/`, checked against ruff's own JSON
//! output of the same project (`ruff check --output-format json`, `ruff format --check
//! --output-format json`), plus a snapshot of each report.
//!
//! The human formats print paths relative to the project; the JSON prints them absolute, so a
//! diagnostic's file matches when the JSON's path ends with it.

use std::collections::BTreeSet;

use serde_json::Value;
use verdict_model::{Evidence, Outcome, Report, Severity, Summarizer};
use verdict_summarizers::ruff::{RuffSummarizer, from_json};

use crate::support;

const TOOL: &str = "ruff";

/// Parses one case, checks it against its ground truth, and snapshots the report.
fn check(case: &str) {
    let log = support::log(TOOL, case);
    let report = RuffSummarizer.parse(&log);
    if case == "no-files" {
        // ruff exits 0 having checked no file: could not verify (see the summarizer's docs).
        assert_eq!(report.outcome, Outcome::Errored, "{case}");
    } else {
        support::check_outcome(case, support::exit_code(TOOL, case), &report);
    }
    assert!(report.notes.is_empty(), "{case}: notes {:?}", report.notes);
    match support::truth(TOOL, case, "json") {
        Some(truth) => {
            let truth = String::from_utf8(truth).expect("UTF-8");
            let truth: Value = serde_json::from_str(json_part(&truth)).expect("truth is JSON");
            check_against_truth(case, &report, &truth);
        }
        None => {
            assert_eq!(report.outcome, Outcome::Errored, "{case}: a crash");
            assert!(
                report.diagnostics.is_empty(),
                "{case}: a crash lints nothing"
            );
        }
    }
    insta::assert_json_snapshot!(case, report);
}

/// The same diagnostics and counts as ruff's JSON output.
fn check_against_truth(case: &str, report: &Report, truth: &Value) {
    let entries = truth.as_array().expect("an array of diagnostics");
    let files: BTreeSet<&str> = entries
        .iter()
        .map(|e| e["filename"].as_str().expect("filename"))
        .collect();
    assert_eq!(
        report.counts.errors,
        Some(entries.len() as u64),
        "{case}: errors"
    );
    assert_eq!(
        report.counts.files,
        Some(files.len() as u64),
        "{case}: files"
    );
    assert_eq!(
        report.diagnostics.len(),
        entries.len(),
        "{case}: one diagnostic per entry"
    );
    for entry in entries {
        let path = entry["filename"].as_str().expect("filename");
        let line = entry["location"]["row"].as_u64().map(|n| n as u32);
        let column = entry["location"]["column"].as_u64().map(|n| n as u32);
        let code = entry["code"].as_str();
        let message = entry["message"].as_str().expect("message");
        let severity = match entry["severity"].as_str() {
            Some("warning") => Severity::Warning,
            _ => Severity::Error,
        };
        let found = report.diagnostics.iter().any(|d| {
            d.file
                .as_deref()
                .is_some_and(|file| path == file || path.ends_with(&format!("/{file}")))
                && d.line == line
                && d.column == column
                && d.code.as_deref() == code
                && d.message == message
                && d.severity == severity
                && d.root_cause == (code == Some("invalid-syntax"))
        });
        assert!(found, "{case}: no diagnostic for {entry}");
    }
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    check(case);
    if case.contains("json") {
        // The whole-output reader gives the line parser's diagnostics and counts.
        let text = String::from_utf8(support::log(tool, case)).expect("UTF-8");
        let whole = from_json(json_part(&text));
        let lines = RuffSummarizer.parse(text.as_bytes());
        assert_eq!(whole.diagnostics, lines.diagnostics, "{case}");
        assert_eq!(whole.counts, lines.counts, "{case}");
        assert_eq!(whole.outcome, lines.outcome, "{case}");
    }
    // `[]` alone names no tool (eslint's JSON of no files is the same), so it is read as generic.
    if case != "passing-json" {
        support::check_sections(tool, case);
    }
}

/// The JSON array in ruff's output, after what it printed on stderr before it (`-v`'s lines, a
/// warning).
fn json_part(text: &str) -> &str {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let line_end = line.trim_end();
        if line_end == "[" || line_end == "[]" {
            return &text[at..];
        }
        at += line.len();
    }
    text
}

/// One test per captured log of `testdata/ruff/`.
mod logs {
    crate::support::logs::ruff!(super::check_log);
}

fn parse(case: &str) -> Report {
    RuffSummarizer.parse(&support::log(TOOL, case))
}

/// What identifies a diagnostic across formats: file, line, column, code, message.
type Key = (String, Option<u32>, Option<u32>, Option<String>, String);

#[test]
fn full_concise_and_json_logs_of_one_project_give_the_same_diagnostics() {
    let key = |report: &Report| -> Vec<Key> {
        report
            .diagnostics
            .iter()
            .map(|d| {
                let file = d.file.clone().unwrap_or_default();
                let file = file
                    .strip_prefix("/tmp/verdict-capture/ruff/many-problems/")
                    .map_or(file.clone(), str::to_owned);
                (file, d.line, d.column, d.code.clone(), d.message.clone())
            })
            .collect()
    };
    let full = parse("many-problems");
    assert_eq!(key(&full), key(&parse("many-problems-concise")));
    assert_eq!(key(&full), key(&parse("many-problems-json")));
    assert_eq!(key(&full), key(&parse("many-problems-verbose")));
    assert_eq!(full.counts, parse("many-problems-concise").counts);
}

#[test]
fn the_summary_keeps_the_fixable_count() {
    let report = parse("many-problems");
    assert_eq!(
        report.summary.as_deref(),
        Some(
            "Found 9 errors. [*] 5 fixable with `--fix` (1 unsafe fix available with `--fix \
             --unsafe-fixes`)."
        )
    );
    let help = report
        .diagnostics
        .iter()
        .find(|d| d.code.as_deref() == Some("F401"))
        .and_then(|d| d.detail.as_deref());
    assert_eq!(help, Some("Remove unused import: `os`"));
}

#[test]
fn a_config_error_gives_ruffs_causes() {
    let report = parse("config-error");
    let error = report.error.unwrap_or_default();
    assert!(
        error.starts_with("ruff failed: Failed to parse /tmp/verdict-capture/ruff/config-error/")
            && error.contains("TOML parse error at line 6, column 15")
            && error.ends_with("invalid type: string \"long\", expected i64"),
        "{error}"
    );
    let error = parse("bad-rule").error.unwrap_or_default();
    assert!(error.contains("Unknown rule selector `XYZ9`"), "{error}");
    let error = parse("unknown-format").error.unwrap_or_default();
    assert!(error.starts_with("error: invalid value 'jsn'"), "{error}");
}

#[test]
fn only_the_verbose_count_of_files_shows_a_json_pass_checked_any() {
    // `[]` alone is the same whether ruff checked a thousand files or none.
    assert_eq!(parse("passing-json").evidence(), Evidence::Ran);
    assert_eq!(parse("passing-verbose-json").evidence(), Evidence::Checked);
    // With nothing to lint, ruff still says all checks passed: could not verify.
    let no_files = parse("no-files");
    assert_eq!(no_files.evidence(), Evidence::Ran);
    assert_eq!(no_files.outcome, Outcome::Errored);
    assert_eq!(
        no_files.error.as_deref(),
        Some("ruff found no Python file to check")
    );
}

#[test]
fn from_json_fails_closed_on_what_is_no_json_output() {
    for text in ["", "  \n", "ruff failed", "[{\"code\": 1}"] {
        let report = from_json(text);
        assert_eq!(report.outcome, Outcome::Errored, "{text:?}");
        assert!(report.error.is_some(), "{text:?}");
    }
    assert_eq!(from_json("[]").outcome, Outcome::Passed);
}

#[test]
fn garbage_and_cut_output_never_pass() {
    let cut = support::log(TOOL, "many-problems-json");
    let cut = &cut[..cut.len() / 2];
    let report = RuffSummarizer.parse(cut);
    assert_ne!(report.outcome, Outcome::Passed);
    let mut garbage = vec![0xffu8, 0, b'[', b'\n'];
    garbage.extend(std::iter::repeat_n(b'{', 100_000));
    // What shows nothing of ruff's is no pass once the log's ending is checked, as every
    // summarizer's is.
    let checked = verdict_summarizers::by_name(TOOL).expect("ruff is listed");
    assert_ne!(checked.parse(&garbage).outcome, Outcome::Passed);
    assert_eq!(RuffSummarizer.parse(&garbage).evidence(), Evidence::Nothing);
    let report = RuffSummarizer.parse(b"[\n  {\n");
    assert_eq!(report.outcome, Outcome::Errored);
}

#[test]
fn two_runs_in_one_log_count_both() {
    // `ruff check src && ruff check tests` in one CI step, here two real runs' logs.
    for (first, second) in [
        ("many-problems", "syntax-error"),
        ("many-problems-json", "passing-json"),
    ] {
        let mut log = support::log(TOOL, first);
        if !log.ends_with(b"\n") {
            log.push(b'\n');
        }
        log.extend(support::log(TOOL, second));
        let report = RuffSummarizer.parse(&log);
        let (a, b) = (parse(first), parse(second));
        let errors = a.counts.errors.unwrap_or(0) + b.counts.errors.unwrap_or(0);
        assert_eq!(report.counts.errors, Some(errors), "{first} + {second}");
        assert_eq!(
            report.diagnostics.len(),
            a.diagnostics.len() + b.diagnostics.len(),
            "{first} + {second}"
        );
        assert_eq!(report.outcome, Outcome::Failed, "{first} + {second}");
    }
}
