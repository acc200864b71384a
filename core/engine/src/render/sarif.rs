//! The SARIF format: SARIF 2.1.0 as GitHub code scanning accepts it.
//!
//! Choices, each for what GitHub does with the file:
//!
//! - **One run per verifier**, with the driver named `verdict/<verifier>` and
//!   `automationDetails.id` `<prefix>/<project>/<verifier>/`: the prefix is `verdict` (or
//!   `--category`), the project is its directory in the repository, left out at the repository's
//!   root (`verdict/tsc/`, `verdict/packages/a/tsc/`). GitHub rejects a file holding several runs
//!   of one category, and gives each category its own alert history, so a verifier's alerts are
//!   closed only by a later run of that verifier on that project. The id is set in the file
//!   because GitHub's upload action keeps a run's own id over its `category` input. GitHub
//!   accepts at most 20 runs per file: more than 20 verifiers do not fit one upload.
//! - **Rules** are the diagnostics' codes (`TS2345`, `no-unused-vars`), or `<verifier>/<kind>`
//!   (`jest/test`) for diagnostics without one.
//! - **Locations** are paths from the repository's root ([`RenderInput::repo_path`]), as relative
//!   URIs against `%SRCROOT%` (percent-encoded, forward slashes), with a region only when the
//!   line is known (and a column only when that is). `%SRCROOT%` is the repository's root as an
//!   absolute `file:` URI ending in `/`, when the CLI knows it. A path outside the repository is
//!   an absolute `file:` URI with no base.
//! - **Diagnostics without a file** cannot be results (GitHub requires a location, and inventing
//!   one would point at code that is not at fault). They are the run's
//!   `toolExecutionNotifications`, which GitHub shows on the tool status page, and counted in the
//!   run's `properties`.
//! - **partialFingerprints** carry the model's fingerprint (which leaves the line out) under
//!   `verdict/v1` and as `primaryLocationLineHash`, so that an alert survives its code moving and
//!   an upload through the API (which computes nothing) does not open duplicates. Both have the
//!   occurrence number appended (`…:2`) because identical messages in one file share a
//!   fingerprint and GitHub would fold them into one alert.
//! - **An errored verifier** has `executionSuccessful: false` and its reason as an error
//!   notification. Its run still holds what it found, which may be nothing: a reader must not take
//!   an empty errored run for a clean one, and the invocation says so.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::repo::is_absolute;
use super::{RenderInput, plural, reason};
use crate::model::{Diagnostic, Outcome, Severity, Verification};

/// The JSON schema URI of SARIF 2.1.0.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The key of verdict's fingerprint in `partialFingerprints`.
const FINGERPRINT_KEY: &str = "verdict/v1";

/// The key GitHub matches alerts by within a file.
const LINE_HASH_KEY: &str = "primaryLocationLineHash";

/// Renders the SARIF log, pretty-printed, with a final newline.
pub fn render(input: &RenderInput<'_>) -> String {
    let runs: Vec<Value> = input.verifications.iter().map(|v| run(v, input)).collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": runs,
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

/// One verifier's run.
fn run(verification: &Verification, input: &RenderInput<'_>) -> Value {
    let found = Findings::of(verification, input);
    let mut source_root = Map::new();
    if let Some(root) = input.repo.root {
        source_root.insert("uri".to_owned(), json!(directory_uri(root)));
    }
    source_root.insert(
        "description".to_owned(),
        json!({ "text": "The root of the repository verdict ran in." }),
    );
    json!({
        "tool": { "driver": {
            "name": format!("verdict/{}", verification.verifier),
            "version": input.tool_version,
            "rules": rules(verification, found.rules),
        } },
        "automationDetails": { "id": automation_id(input, &verification.verifier) },
        "originalUriBaseIds": { "%SRCROOT%": source_root },
        "invocations": [invocation(verification, found.notifications)],
        "results": found.results,
        "properties": properties(verification, input, found.unlocated),
    })
}

/// `<prefix>/<project>/<verifier>/`, the project left out at the repository's root. The final
/// `/` makes it all category, with no run instance after it.
pub fn automation_id(input: &RenderInput<'_>, verifier: &str) -> String {
    let prefix = input.repo.category_prefix();
    if input.repo.project.is_empty() {
        format!("{prefix}/{verifier}/")
    } else {
        format!("{prefix}/{}/{verifier}/", input.repo.project)
    }
}

/// What a run's diagnostics become: results for those with a file, notifications for the rest.
#[derive(Default)]
struct Findings {
    rules: BTreeMap<String, Rule>,
    results: Vec<Value>,
    notifications: Vec<Value>,
    /// Diagnostics without a file.
    unlocated: u64,
}

impl Findings {
    fn of(verification: &Verification, input: &RenderInput<'_>) -> Findings {
        let report = &verification.report;
        let mut found = Findings::default();
        let mut occurrences: BTreeMap<u64, u32> = BTreeMap::new();
        if report.outcome == Outcome::Errored {
            found.notifications.push(json!({
                "level": "error",
                "message": { "text": message_text(&format!(
                    "{} could not verify: {}",
                    verification.verifier,
                    reason(verification)
                )) },
            }));
        }
        for diagnostic in &report.diagnostics {
            let Some(file) = diagnostic.file.as_deref().filter(|f| !f.trim().is_empty()) else {
                found.unlocated += 1;
                found.notifications.push(json!({
                    "level": level(diagnostic.severity),
                    "message": { "text": message_text(&full_message(diagnostic)) },
                }));
                continue;
            };
            let rule_id = rule_id(verification, diagnostic);
            let rule = found.rules.entry(rule_id.clone()).or_insert_with(|| Rule {
                kind: diagnostic.kind.as_str(),
                severity: diagnostic.severity,
                example: example(&diagnostic.message),
            });
            rule.severity = rule.severity.max(diagnostic.severity);
            let occurrence = occurrences.entry(diagnostic.fingerprint.0).or_insert(0);
            *occurrence += 1;
            let fingerprint = format!("{}:{}", diagnostic.fingerprint, occurrence);
            let mut physical = Map::new();
            physical.insert(
                "artifactLocation".to_owned(),
                artifact_location(&input.repo_path(file)),
            );
            if let Some(region) = region(diagnostic) {
                physical.insert("region".to_owned(), region);
            }
            found.results.push(json!({
                "ruleId": rule_id,
                "level": level(diagnostic.severity),
                "message": { "text": message_text(&full_message(diagnostic)) },
                "locations": [{ "physicalLocation": physical }],
                "partialFingerprints": {
                    FINGERPRINT_KEY: fingerprint,
                    LINE_HASH_KEY: fingerprint,
                },
            }));
        }
        if report.diagnostics_dropped > 0 {
            found.notifications.push(json!({
                "level": "warning",
                "message": { "text": format!(
                    "{} more not listed: verdict keeps at most {} per verifier; the full log has them all",
                    plural(report.diagnostics_dropped, "finding", "findings"),
                    crate::model::MAX_DIAGNOSTICS,
                ) },
            }));
        }
        found
    }
}

/// The rules a run's results name.
fn rules(verification: &Verification, rules: BTreeMap<String, Rule>) -> Vec<Value> {
    rules
        .into_iter()
        .map(|(id, rule)| {
            json!({
                "id": id,
                "shortDescription": { "text": format!("{}: {}", verification.verifier, id) },
                // GitHub requires both; verdict knows the rule only by its code and what the tool
                // said, so that is what they say.
                "fullDescription": { "text": format!(
                    "{id}, as reported by {}; for example: {}",
                    verification.verifier, rule.example
                ) },
                "help": { "text": format!(
                    "See the documentation of {} for {id}. The verifier's full output is in its log.",
                    verification.verifier
                ) },
                "defaultConfiguration": { "level": level(rule.severity) },
                "properties": { "tags": [rule.kind] },
            })
        })
        .collect()
}

/// How the tool ran: whether it could verify, its command, and what it said beside results.
fn invocation(verification: &Verification, notifications: Vec<Value>) -> Value {
    let mut invocation = Map::new();
    invocation.insert(
        "executionSuccessful".to_owned(),
        Value::Bool(verification.report.outcome != Outcome::Errored),
    );
    if let Some(command) = &verification.command {
        invocation.insert("arguments".to_owned(), json!(command));
    }
    if !notifications.is_empty() {
        invocation.insert(
            "toolExecutionNotifications".to_owned(),
            Value::Array(notifications),
        );
    }
    Value::Object(invocation)
}

/// verdict's own numbers for the run: the project, the outcome, the status, the tool's counts.
fn properties(verification: &Verification, input: &RenderInput<'_>, unlocated: u64) -> Value {
    let report = &verification.report;
    let mut properties = Map::new();
    properties.insert("project".to_owned(), json!(input.repo.project_or_dot()));
    properties.insert("outcome".to_owned(), json!(report.outcome.as_str()));
    properties.insert("status".to_owned(), json!(verification.status.as_str()));
    properties.insert("counts".to_owned(), json!(report.counts));
    if let Some(aside) = &report.set_aside {
        properties.insert("set_aside".to_owned(), json!(aside));
    }
    if let Some(summary) = &report.summary {
        properties.insert("summary".to_owned(), json!(summary));
    }
    if unlocated > 0 {
        properties.insert("findingsWithoutLocation".to_owned(), json!(unlocated));
    }
    if report.diagnostics_dropped > 0 {
        properties.insert(
            "findingsNotListed".to_owned(),
            json!(report.diagnostics_dropped),
        );
    }
    Value::Object(properties)
}

/// What a rule needs: its kind (a tag), the most serious level seen, and the first message as an
/// example.
struct Rule {
    kind: &'static str,
    severity: Severity,
    example: String,
}

/// The first line of a message, at most 200 characters, for a rule's description.
fn example(message: &str) -> String {
    let line = message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut example: String = line.chars().take(200).collect();
    if example.len() < line.len() {
        example.push('…');
    }
    if example.is_empty() {
        example.push_str("(no message)");
    }
    example
}

/// The diagnostic's code, or `<verifier>/<kind>`.
fn rule_id(verification: &Verification, diagnostic: &Diagnostic) -> String {
    match diagnostic.code.as_deref().map(str::trim) {
        Some(code) if !code.is_empty() => code.to_owned(),
        _ => format!("{}/{}", verification.verifier, diagnostic.kind.as_str()),
    }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The message with the test's name before it and the detail after it.
fn full_message(diagnostic: &Diagnostic) -> String {
    let mut text = String::new();
    if let Some(test) = &diagnostic.test {
        let _ = write!(text, "{test}: ");
    }
    text.push_str(diagnostic.message.trim());
    if let Some(detail) = diagnostic.detail.as_deref().map(str::trim)
        && !detail.is_empty()
    {
        let _ = write!(text, "\n\n{detail}");
    }
    text
}

/// SARIF requires a non-empty message text.
fn message_text(text: &str) -> String {
    if text.trim().is_empty() {
        "(the tool printed no message)".to_owned()
    } else {
        text.to_owned()
    }
}

/// The `region` of a diagnostic: present only when the line is known (1-based, so a 0 line is
/// unknown too).
fn region(diagnostic: &Diagnostic) -> Option<Value> {
    let line = diagnostic.line.filter(|l| *l >= 1)?;
    let mut region = Map::new();
    region.insert("startLine".to_owned(), json!(line));
    if let Some(column) = diagnostic.column.filter(|c| *c >= 1) {
        region.insert("startColumn".to_owned(), json!(column));
    }
    Some(Value::Object(region))
}

/// An `artifactLocation`: a relative URI against `%SRCROOT%`, or a `file://` URI for an absolute
/// path (Unix or Windows).
fn artifact_location(file: &str) -> Value {
    let path = file.replace('\\', "/");
    if is_absolute(&path) {
        json!({ "uri": file_uri(&path) })
    } else {
        json!({
            "uri": encode_path(&super::forward_slashes(&path)),
            "uriBaseId": "%SRCROOT%",
        })
    }
}

/// The `file:` URI of an absolute path with `/` separators (Unix, Windows or UNC).
fn file_uri(path: &str) -> String {
    let bytes = path.as_bytes();
    if let Some(share) = path.strip_prefix("//") {
        format!("file://{}", encode_path(share))
    } else if let Some(rest) = path.strip_prefix('/') {
        format!("file:///{}", encode_path(rest))
    } else if bytes.len() >= 2 && bytes[1] == b':' {
        // The drive's colon stays literal: `file:///C:/…` is the usual form.
        format!("file:///{}:{}", &path[..1], encode_path(&path[2..]))
    } else {
        encode_path(path)
    }
}

/// The URI of a directory for `originalUriBaseIds`: absolute, ending in `/` as SARIF requires of
/// a base.
fn directory_uri(dir: &str) -> String {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        return "file:///".to_owned();
    }
    let mut uri = file_uri(dir);
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// Percent-encodes a path for a URI: everything but unreserved characters, `/` and a few
/// harmless sub-delimiters. `:` is always encoded, so that a relative path's first segment is
/// never read as a scheme.
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'/'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
            | b'@' => out.push(char::from(byte)),
            _ => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uris() {
        assert_eq!(
            artifact_location("src/a b%.ts"),
            json!({ "uri": "src/a%20b%25.ts", "uriBaseId": "%SRCROOT%" })
        );
        assert_eq!(
            artifact_location(r"src\win\ü.ts"),
            json!({ "uri": "src/win/%C3%BC.ts", "uriBaseId": "%SRCROOT%" })
        );
        assert_eq!(
            artifact_location(r"C:\repo\a.ts"),
            json!({ "uri": "file:///C:/repo/a.ts" })
        );
        assert_eq!(
            artifact_location("/abs/x:y.ts"),
            json!({ "uri": "file:///abs/x%3Ay.ts" })
        );
        assert_eq!(
            artifact_location("//server/share/a.ts"),
            json!({ "uri": "file://server/share/a.ts" })
        );
    }

    #[test]
    fn source_roots_are_directory_uris() {
        assert_eq!(
            directory_uri("/home/runner/work/a b"),
            "file:///home/runner/work/a%20b/"
        );
        assert_eq!(directory_uri("C:/src/app/"), "file:///C:/src/app/");
        assert_eq!(directory_uri("/"), "file:///");
    }
}
