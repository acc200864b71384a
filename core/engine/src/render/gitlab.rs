//! The GitLab format: a Code Quality report, the JSON array of issues that GitLab reads from an
//! `artifacts: reports: codequality:` file and shows in merge requests and pipelines.
//!
//! ```json
//! [{ "description": "'x' is declared but its value is never read.", "check_name": "tsc/TS6133",
//!    "fingerprint": "1f0c…", "severity": "minor",
//!    "location": { "path": "packages/a/src/x.ts", "lines": { "begin": 3 } } }]
//! ```
//!
//! Choices, each for what GitLab does with the file:
//!
//! - **Every issue is complete** (`description`, `check_name`, `fingerprint`, `severity`,
//!   `location.path`, `location.lines.begin`): GitLab stops reading the array at the first issue
//!   its schema rejects, so one bad issue would hide all those after it.
//! - **Paths are relative to the repository root**, with forward slashes, as GitLab documents:
//!   it links each issue to the file at the pipeline's commit and matches it to the merge
//!   request's diff. Every path goes through [`repo_path`].
//! - **Fingerprints are unique**: GitLab keeps one issue per fingerprint. Each is a hash of the
//!   verifier, the path and the model's [`crate::model::Fingerprint`] (which ignores the line, so
//!   it survives code moving), with the occurrence number for identical findings in one file.
//! - **Descriptions** are the message, the test's name before it and the tool's detail after it,
//!   without control characters (a tool's colour escapes), cut at 2000 characters.
//! - **Severity**: an error is `major` (`critical` when it is a root cause), a warning `minor`, a
//!   note `info`; a verifier that could not verify is a `blocker`.
//! - **Findings without a file** (a failing test whose runner names no file, a custom check) are
//!   not code quality issues in GitLab's sense, but a report that left them out would look clean
//!   while the run failed. They are issues located at the project's directory, line 1.
//! - **Nothing that did not pass renders as an empty array**: an errored verifier is a `blocker`
//!   issue naming it and why; a verifier that failed with nothing to list, or a run that verified
//!   nothing, is an issue too; findings verdict did not keep are counted in one `info` issue. A
//!   verifier skipped because a verifier it needs did not pass is an `info` issue: the other
//!   verifier's issues say what is wrong. A run that passed with no warnings is `[]`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{RenderInput, counts_phrase, plural, reason};
use crate::model::{Diagnostic, Outcome, Severity, Status, Verification};

/// The longest description written, in characters: a stack trace belongs in the log.
const MAX_DESCRIPTION: usize = 2000;

/// Renders the Code Quality report, pretty-printed, with a final newline.
pub fn render(input: &RenderInput<'_>) -> String {
    let mut issues = Vec::new();
    for verification in input.verifications {
        issues_of(input, verification, &mut issues);
    }
    if issues.is_empty() && input.outcome != Outcome::Passed {
        // A run of nothing, or one whose outcome nothing above accounts for.
        let description = match input.outcome {
            Outcome::Errored if input.verifications.is_empty() => {
                "verdict could not verify: no verifier ran".to_owned()
            }
            Outcome::Errored => "verdict could not verify".to_owned(),
            _ => "verdict found failures; see the job log".to_owned(),
        };
        issues.push(issue(
            input,
            &description,
            "verdict/outcome",
            input.outcome.as_str(),
            if input.outcome == Outcome::Errored {
                "blocker"
            } else {
                "major"
            },
            None,
        ));
    }
    let mut text = serde_json::to_string_pretty(&Value::Array(issues)).unwrap_or_default();
    text.push('\n');
    text
}

/// The issues of one verifier.
fn issues_of(input: &RenderInput<'_>, verification: &Verification, issues: &mut Vec<Value>) {
    let report = &verification.report;
    let name = verification.verifier.as_str();
    let before = issues.len();
    if let Some(errored) = Errored::of(verification) {
        issues.push(issue(
            input,
            &format!("verdict: {name} {}: {}", errored.what, reason(verification)),
            errored.check,
            &format!("{}:{name}", errored.check),
            if errored.blocks { "blocker" } else { "info" },
            None,
        ));
    }
    let mut occurrences: BTreeMap<u64, u32> = BTreeMap::new();
    for diagnostic in &report.diagnostics {
        let occurrence = occurrences.entry(diagnostic.fingerprint.0).or_insert(0);
        *occurrence += 1;
        // A file outside the repository cannot be linked: the issue sits at the project's
        // directory and its description names the file.
        let path = diagnostic
            .file
            .as_deref()
            .and_then(|file| repo_path(input, file));
        issues.push(issue(
            input,
            &finding_text(name, diagnostic, path.is_some()),
            &check_name(name, diagnostic),
            &format!("{name}:{}:{occurrence}", diagnostic.fingerprint),
            severity(diagnostic),
            path.map(|path| (path, diagnostic.line)),
        ));
    }
    if report.diagnostics_dropped > 0 {
        issues.push(issue(
            input,
            &format!(
                "{name}: {} not listed: verdict keeps at most {} per verifier; the full log has them all",
                plural(report.diagnostics_dropped, "more finding", "more findings"),
                crate::model::MAX_DIAGNOSTICS,
            ),
            "verdict/not-listed",
            &format!("verdict/not-listed:{name}"),
            "info",
            None,
        ));
    }
    if report.outcome == Outcome::Failed && issues.len() == before {
        // It failed with nothing attributed to a place (a test runner's failing exit alone).
        let mut description = format!("{name} failed");
        let counts = counts_phrase(verification.kind, report);
        let said = report.summary.as_deref().map(str::trim).unwrap_or("");
        if !counts.is_empty() {
            let _ = write!(description, ": {counts}");
        } else if !said.is_empty() {
            let _ = write!(description, ": {said}");
        }
        issues.push(issue(
            input,
            &description,
            "verdict/failed",
            &format!("verdict/failed:{name}"),
            "major",
            None,
        ));
    }
}

/// How an errored verifier shows in the CI formats.
pub(super) struct Errored {
    /// The check name (GitLab) or code (rdjson).
    pub(super) check: &'static str,
    /// Whether it keeps the run from being verified, rather than following from another
    /// verifier's failure.
    pub(super) blocks: bool,
    /// What happened, after the verifier's name.
    pub(super) what: &'static str,
}

impl Errored {
    /// `None` unless the verifier's report is errored.
    pub(super) fn of(verification: &Verification) -> Option<Errored> {
        if verification.report.outcome != Outcome::Errored {
            return None;
        }
        Some(match verification.status {
            // Another shard runs it: the merged report says how it went.
            Status::NotInShard => return None,
            // A verifier it needs did not pass: that one's issues say what is wrong.
            Status::Skipped => Errored {
                check: "verdict/skipped",
                blocks: false,
                what: "did not run",
            },
            Status::Ran | Status::Cached | Status::Cancelled => Errored {
                check: "verdict/could-not-verify",
                blocks: true,
                what: "could not verify",
            },
        })
    }
}

/// One issue. `identity` is what makes its fingerprint; `location` is its path from the
/// repository root and its line, `None` for the project's directory.
fn issue(
    input: &RenderInput<'_>,
    description: &str,
    check_name: &str,
    identity: &str,
    severity: &str,
    location: Option<(String, Option<u32>)>,
) -> Value {
    let (path, line) = match location {
        Some((path, line)) => (path, line.filter(|l| *l >= 1).unwrap_or(1)),
        None => (project_path(input), 1),
    };
    json!({
        "description": clip(description),
        "check_name": check_name,
        "fingerprint": fingerprint(&path, identity),
        "severity": severity,
        "location": { "path": path, "lines": { "begin": line } },
    })
}

/// The path from the repository root, with forward slashes, of `file` as the report holds it
/// (relative to the project's directory); `None` for a path that is not in the repository (an
/// absolute one, or one that climbs out of it). Every path in this format and in
/// [`super::rdjson`] goes through here.
pub(super) fn repo_path(input: &RenderInput<'_>, file: &str) -> Option<String> {
    input.path_in_repo(file)
}

/// The project's directory from the repository root (`.` at the root): where issues without a
/// file in the repository are located.
fn project_path(input: &RenderInput<'_>) -> String {
    input.repo.project_or_dot().to_owned()
}

/// 32 hex digits of a BLAKE3 hash of the path and the issue's identity.
fn fingerprint(path: &str, identity: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    for part in ["verdict/gitlab/v1", path, identity] {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    let hash = hasher.finalize();
    let mut hex = String::with_capacity(32);
    for byte in &hash.as_bytes()[..16] {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// `<verifier>/<code>`, or `<verifier>/<kind>` for a diagnostic without a code: checks of
/// several tools share one report, so each is named with its verifier.
fn check_name(verifier: &str, diagnostic: &Diagnostic) -> String {
    match diagnostic.code.as_deref().map(str::trim) {
        Some(code) if !code.is_empty() => format!("{verifier}/{code}"),
        _ => format!("{verifier}/{}", diagnostic.kind.as_str()),
    }
}

fn severity(diagnostic: &Diagnostic) -> &'static str {
    match diagnostic.severity {
        Severity::Error if diagnostic.root_cause => "critical",
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

/// What a finding says: the message with the test's name before it and the detail after it. A
/// finding that is not `located` in the repository also names its verifier, and its file when
/// it has one outside the repository, since nothing else says where it comes from.
pub(super) fn finding_text(verifier: &str, diagnostic: &Diagnostic, located: bool) -> String {
    let mut text = String::new();
    if !located {
        let _ = write!(text, "{verifier}: ");
    }
    if let Some(test) = &diagnostic.test {
        let _ = write!(text, "{test}: ");
    }
    let message = diagnostic.message.trim();
    text.push_str(if message.is_empty() {
        "(the tool printed no message)"
    } else {
        message
    });
    if !located
        && diagnostic
            .file
            .as_deref()
            .is_some_and(|f| !f.trim().is_empty())
        && let Some(location) = diagnostic.location()
    {
        let _ = write!(text, " ({location})");
    }
    if let Some(detail) = diagnostic.detail.as_deref().map(str::trim)
        && !detail.is_empty()
    {
        let _ = write!(text, "\n\n{detail}");
    }
    text
}

/// Plain text, at most [`MAX_DESCRIPTION`] characters, with `…` where it was cut.
fn clip(text: &str) -> String {
    let text = plain_text(text);
    match text.char_indices().nth(MAX_DESCRIPTION) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// `text` without the control characters a tool's output carries (ANSI colour escapes, bells,
/// CRs), which a web page shows as garbage; line feeds and tabs stay.
pub(super) fn plain_text(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_32_hex_digits_and_differ_by_path_and_identity() {
        let a = fingerprint("src/a.ts", "tsc:00:1");
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, fingerprint("src/b.ts", "tsc:00:1"));
        assert_ne!(a, fingerprint("src/a.ts", "tsc:00:2"));
        assert_eq!(a, fingerprint("src/a.ts", "tsc:00:1"));
    }

    #[test]
    fn long_descriptions_are_cut_on_a_character() {
        let text = "é".repeat(MAX_DESCRIPTION + 5);
        let clipped = clip(&text);
        assert_eq!(clipped.chars().count(), MAX_DESCRIPTION + 1);
        assert!(clipped.ends_with('…'));
        assert_eq!(clip("short"), "short");
    }

    #[test]
    fn control_characters_are_dropped_but_lines_stay() {
        assert_eq!(plain_text("a\r\n\u{1b}[31mb\u{7}\tc"), "a\n[31mb\tc");
    }
}
