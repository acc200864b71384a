//! The pyright summarizer against every real log in `testdata/pyright/`, checked against pyright's
//! own `--outputjson` report of the same project, plus a snapshot of each report; and
//! [`from_json`] on that report, which must read the same diagnostics.
//!
//! The truth files hold what pyright wrote to stderr too (one pipe, as a CI log shows it): the
//! lines around the JSON object are its complaints about the configuration.

use crate::support;

use serde_json::Value;
use verdict_model::{Outcome, Report, Severity, Summarizer};
use verdict_summarizers::pyright::{PyrightSummarizer, from_json};

const TOOL: &str = "pyright";

/// A truth file split into its JSON report and the lines pyright wrote around it.
struct Truth {
    json: Value,
    /// Whether anything but the JSON is in the file: a configuration pyright rejected.
    complained: bool,
    text: String,
}

fn read_truth(case: &str) -> Option<Truth> {
    let bytes = support::truth(TOOL, case, "json")?;
    let text = String::from_utf8(bytes).expect("truth is UTF-8");
    let start = text.find("\n{\n").map_or(0, |at| at + 1);
    let end = text.rfind("\n}\n").map_or(text.len(), |at| at + 2);
    let json: Value = serde_json::from_str(&text[start..end])
        .unwrap_or_else(|e| panic!("{case}: truth is no JSON: {e}"));
    let complained = !text[..start].trim().is_empty() || !text[end..].trim().is_empty();
    Some(Truth {
        json,
        complained,
        text,
    })
}

/// Whether the case ran with `--level`, which lists only errors but counts everything in the JSON.
fn filtered(case: &str) -> bool {
    support::meta(TOOL, case)["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .any(|a| a == "--level")
}

/// Parses one case, checks it against its ground truth, and snapshots the report.
fn check(case: &str) {
    let log = support::log(TOOL, case);
    let report: Report = PyrightSummarizer.parse(&log);
    let exit_code = support::exit_code(TOOL, case);
    let truth = read_truth(case);
    let verbose_no_files = String::from_utf8_lossy(&log).contains("\nNo source files found.\n");
    let expected = match exit_code {
        Some(0) if verbose_no_files => Outcome::Errored,
        Some(0) => Outcome::Passed,
        Some(1) if truth.as_ref().is_some_and(|t| t.complained) => Outcome::Errored,
        Some(1) => Outcome::Failed,
        _ => Outcome::Errored,
    };
    assert_eq!(report.outcome, expected, "{case}: outcome ({exit_code:?})");
    if expected == Outcome::Errored {
        let error = report.error.as_deref().unwrap_or_default();
        assert!(error.starts_with("pyright "), "{case}: error {error:?}");
    }
    assert!(report.notes.is_empty(), "{case}: notes {:?}", report.notes);
    match &truth {
        Some(truth) => check_against_truth(case, &report, truth),
        None => assert!(report.diagnostics.is_empty(), "{case}: nothing was checked"),
    }
    insta::assert_json_snapshot!(case, report);
}

/// Every diagnostic and count of the JSON report is in the text log's report, and [`from_json`]
/// reads the JSON to the same diagnostics.
fn check_against_truth(case: &str, report: &Report, truth: &Truth) {
    let listed = truth.json["generalDiagnostics"]
        .as_array()
        .expect("generalDiagnostics");
    assert_eq!(
        report.diagnostics.len(),
        listed.len(),
        "{case}: one diagnostic per diagnostic of the JSON"
    );
    for (diagnostic, expected) in report.diagnostics.iter().zip(listed) {
        check_diagnostic(case, diagnostic, expected);
    }
    let summary = &truth.json["summary"];
    assert_eq!(
        report.counts.errors,
        summary["errorCount"].as_u64(),
        "{case}: errors"
    );
    if !filtered(case) {
        assert_eq!(
            report.counts.warnings,
            summary["warningCount"].as_u64(),
            "{case}: warnings"
        );
        let counted = |severity: &str| listed.iter().filter(|d| d["severity"] == severity).count();
        assert_eq!(
            summary["informationCount"].as_u64(),
            Some(counted("information") as u64),
            "{case}: informations"
        );
    }

    let json = from_json(&truth.text);
    assert_eq!(json.diagnostics, report.diagnostics, "{case}: from_json");
    assert_eq!(
        json.counts.errors, report.counts.errors,
        "{case}: from_json"
    );
    assert_eq!(json.counts.files, report.counts.files, "{case}: from_json");
    let analyzed = summary["filesAnalyzed"].as_u64().expect("filesAnalyzed");
    if analyzed == 0 {
        // The text output of a run that analyzed nothing reads like a pass; the JSON does not.
        assert_eq!(json.outcome, Outcome::Errored, "{case}: no file analyzed");
        assert_eq!(json.error.as_deref(), Some("pyright analyzed no file"));
    } else {
        assert_eq!(json.outcome, report.outcome, "{case}: from_json outcome");
        assert_eq!(json.error, report.error, "{case}: from_json error");
    }
    insta::assert_json_snapshot!(format!("{case}-json"), json);
}

/// One diagnostic against its JSON entry: positions are 0-based there, the message's further
/// lines are the detail.
fn check_diagnostic(case: &str, diagnostic: &verdict_model::Diagnostic, expected: &Value) {
    let message = expected["message"].as_str().expect("message");
    let mut lines = message.lines();
    assert_eq!(
        Some(diagnostic.message.as_str()),
        lines.next(),
        "{case}: message"
    );
    let rest: Vec<&str> = lines.map(str::trim).collect();
    let detail = (!rest.is_empty()).then(|| rest.join(" "));
    assert_eq!(diagnostic.detail, detail, "{case}: detail of {message}");
    assert_eq!(
        diagnostic.file.as_deref(),
        expected["file"].as_str(),
        "{case}: file"
    );
    let position = |key: &str| {
        expected["range"]["start"][key]
            .as_u64()
            .map(|n| u32::try_from(n + 1).expect("a position"))
    };
    assert_eq!(
        diagnostic.line,
        position("line"),
        "{case}: line of {message}"
    );
    assert_eq!(
        diagnostic.column,
        position("character"),
        "{case}: column of {message}"
    );
    assert_eq!(
        diagnostic.code.as_deref(),
        expected["rule"].as_str(),
        "{case}: rule of {message}"
    );
    let severity = match expected["severity"].as_str() {
        Some("error") => Severity::Error,
        Some("warning") => Severity::Warning,
        _ => Severity::Info,
    };
    assert_eq!(
        diagnostic.severity, severity,
        "{case}: severity of {message}"
    );
    if severity == Severity::Error && diagnostic.code.is_none() {
        assert!(
            diagnostic.root_cause,
            "{case}: a syntax error is a root cause"
        );
    }
}

#[test]
fn a_missing_import_is_a_root_cause_and_a_type_error_is_not() {
    let report = PyrightSummarizer.parse(&support::log(TOOL, "many-errors"));
    let root = |code: &str| {
        report
            .diagnostics
            .iter()
            .find(|d| d.code.as_deref() == Some(code))
            .map(|d| d.root_cause)
    };
    assert_eq!(root("reportMissingImports"), Some(true));
    assert_eq!(root("reportOperatorIssue"), Some(false));
    assert_eq!(report.counts.files, Some(2));
    assert_eq!(
        report.summary.as_deref(),
        Some("9 errors, 1 warning, 2 informations")
    );
}

#[test]
fn json_without_a_report_is_could_not_verify() {
    for text in [
        "",
        "Unexpected option --strictt.\npyright --help for usage\n",
        "{\"a\": 1}",
    ] {
        let report = from_json(text);
        assert_eq!(report.outcome, Outcome::Errored, "{text:?}");
        assert!(report.error.is_some(), "{text:?}");
    }
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    check(case);
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/pyright/`.
mod logs {
    crate::support::logs::pyright!(super::check_log);
}
