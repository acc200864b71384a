//! The rdjson format: reviewdog's Diagnostic Result (`reviewdog -f=rdjson`), which reviewdog
//! posts as review comments, checks or annotations on GitHub, GitLab, Bitbucket and Gerrit.
//!
//! ```json
//! { "source": { "name": "verdict" }, "diagnostics": [
//!   { "message": "Type 'string' is not assignable to type 'number'.",
//!     "location": { "path": "src/a.ts", "range": { "start": { "line": 3, "column": 7 } } },
//!     "severity": "ERROR", "source": { "name": "tsc" }, "code": { "value": "TS2322" } } ] }
//! ```
//!
//! Choices, each for what reviewdog does with the file:
//!
//! - **One diagnostic per finding**, with the verifier as its `source` and the tool's code as
//!   its `code`. Severities map one to one (`ERROR`, `WARNING`, `INFO`). Messages are the
//!   message, the test's name before it and the tool's detail after it, without control
//!   characters (a tool's colour escapes).
//! - **Paths are relative to the repository root** (through [`super::gitlab::repo_path`]):
//!   reviewdog matches them against the diff of the change under review.
//! - **Positions**: the line and column the tool printed, as given (reviewdog counts columns in
//!   UTF-8 bytes; most tools count characters, which differ only on lines with non-ASCII text
//!   before the column). No `end`: verdict does not keep one. No `suggestions`: verdict keeps
//!   no fixes.
//! - **Findings without a file in the repository** have no `location` (the format allows it;
//!   inventing a place would point at code that is not at fault). reviewdog reports them only
//!   with `-filter-mode=nofilter`, since they are in no diff.
//! - **Nothing that did not pass renders as an empty list**: an errored verifier is an `ERROR`
//!   diagnostic naming it and why (code `verdict/could-not-verify`); a verifier that failed with
//!   nothing to list, or a run that verified nothing, is one too; findings verdict did not keep
//!   are counted in one `INFO` diagnostic. A run that passed with nothing to say is
//!   `"diagnostics": []`.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::gitlab::{Errored, finding_text, plain_text, repo_path};
use super::{RenderInput, counts_phrase, plural, reason};
use crate::model::{Diagnostic, Outcome, Severity, Verification};

/// Renders the Diagnostic Result, pretty-printed, with a final newline.
pub fn render(input: &RenderInput<'_>) -> String {
    let mut diagnostics = Vec::new();
    for verification in input.verifications {
        diagnostics_of(input, verification, &mut diagnostics);
    }
    if diagnostics.is_empty() && input.outcome != Outcome::Passed {
        let message = match input.outcome {
            Outcome::Errored if input.verifications.is_empty() => {
                "verdict could not verify: no verifier ran"
            }
            Outcome::Errored => "verdict could not verify",
            _ => "verdict found failures; see the job log",
        };
        diagnostics.push(unlocated("verdict", message, "ERROR", "verdict/outcome"));
    }
    let result = json!({
        "source": { "name": "verdict" },
        "diagnostics": diagnostics,
    });
    let mut text = serde_json::to_string_pretty(&result).unwrap_or_default();
    text.push('\n');
    text
}

/// The diagnostics of one verifier.
fn diagnostics_of(input: &RenderInput<'_>, verification: &Verification, out: &mut Vec<Value>) {
    let report = &verification.report;
    let name = verification.verifier.as_str();
    let before = out.len();
    if let Some(errored) = Errored::of(verification) {
        let message = format!("verdict: {name} {}: {}", errored.what, reason(verification));
        let severity = if errored.blocks { "ERROR" } else { "INFO" };
        out.push(unlocated(name, &message, severity, errored.check));
    }
    for diagnostic in &report.diagnostics {
        out.push(diagnostic_of(input, name, diagnostic));
    }
    if report.diagnostics_dropped > 0 {
        let message = format!(
            "{name}: {} not listed: verdict keeps at most {} per verifier; the full log has them all",
            plural(report.diagnostics_dropped, "more finding", "more findings"),
            crate::model::MAX_DIAGNOSTICS,
        );
        out.push(unlocated(name, &message, "INFO", "verdict/not-listed"));
    }
    if report.outcome == Outcome::Failed && out.len() == before {
        let mut message = format!("{name} failed");
        let counts = counts_phrase(verification.kind, report);
        let said = report.summary.as_deref().map(str::trim).unwrap_or("");
        if !counts.is_empty() {
            let _ = write!(message, ": {counts}");
        } else if !said.is_empty() {
            let _ = write!(message, ": {said}");
        }
        out.push(unlocated(name, &message, "ERROR", "verdict/failed"));
    }
}

/// A diagnostic of verdict's own about a verifier, at no place.
fn unlocated(source: &str, message: &str, severity: &str, code: &str) -> Value {
    json!({
        "message": plain_text(message),
        "severity": severity,
        "source": { "name": source },
        "code": { "value": code },
    })
}

/// One finding.
fn diagnostic_of(input: &RenderInput<'_>, verifier: &str, diagnostic: &Diagnostic) -> Value {
    let mut out = Map::new();
    let path = diagnostic
        .file
        .as_deref()
        .and_then(|file| repo_path(input, file));
    let message = finding_text(verifier, diagnostic, path.is_some());
    out.insert("message".to_owned(), json!(plain_text(&message)));
    if let Some(path) = path {
        let mut location = Map::new();
        location.insert("path".to_owned(), json!(path));
        if let Some(line) = diagnostic.line.filter(|l| position(*l)) {
            let mut start = Map::new();
            start.insert("line".to_owned(), json!(line));
            if let Some(column) = diagnostic.column.filter(|c| position(*c)) {
                start.insert("column".to_owned(), json!(column));
            }
            location.insert("range".to_owned(), json!({ "start": start }));
        }
        out.insert("location".to_owned(), Value::Object(location));
    }
    out.insert("severity".to_owned(), json!(severity(diagnostic.severity)));
    out.insert("source".to_owned(), json!({ "name": verifier }));
    if let Some(code) = diagnostic
        .code
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        out.insert("code".to_owned(), json!({ "value": code }));
    }
    Value::Object(out)
}

/// Whether `n` is a line or column reviewdog reads: 1-based, and an `int32` in its protobuf
/// schema (a larger number would make it reject the whole file).
fn position(n: u32) -> bool {
    n >= 1 && i32::try_from(n).is_ok()
}

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "ERROR",
        Severity::Warning => "WARNING",
        Severity::Info => "INFO",
    }
}
