//! The JSON format: the `verdict-run/1` document, described field by field in
//! `docs/json-report.md`.
//!
//! It is also verdict's baseline format: `verdict run --format json --output FILE` writes one and
//! `--baseline FILE` reads it back with [`parse_json`], matching failures by the fingerprints each
//! report's diagnostics carry. The types here are the schema: they are `Serialize` and
//! `Deserialize`, and a change to them is a change to a documented interface. Unknown fields are
//! ignored when reading, so that adding a field does not break older readers; removing or
//! changing one needs a new schema version.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::RenderInput;
use crate::digest::Digest;
use crate::model::{Kind, Outcome, Report, Status};
use crate::verifier::Shard;

/// The schema name and version every document carries in `schema`.
pub const SCHEMA: &str = "verdict-run/1";

/// A whole run, as `verdict run --format json` writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunDocument {
    /// The schema's name and version: always `verdict-run/1` ([`SCHEMA`]).
    #[schemars(extend("const" = SCHEMA))]
    pub schema: String,
    /// verdict's version that wrote the document.
    pub verdict_version: String,
    /// The outcome of the whole run.
    pub outcome: Outcome,
    /// The exit code verdict exits with for this outcome (0, 1 or 2).
    pub exit_code: i32,
    /// Failures set aside because the `--baseline` had them.
    pub known_failures: u64,
    /// The project's directory relative to the repository's root, `.` at the root. The
    /// diagnostics' files are relative to the repository's root; the digest's to this directory.
    #[serde(default = "dot")]
    pub project: String,
    /// One entry per verifier, in run order.
    pub verifications: Vec<VerificationDocument>,
    /// The digest an agent reads.
    pub digest: DigestDocument,
    /// Which shard of a run split across machines this is (`verdict run --shard 2/3`); absent
    /// for a whole run. `verdict merge` reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardDocument>,
}

/// The shard a document is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShardDocument {
    /// Which shard, from 1 to `total`.
    pub index: u32,
    /// How many shards the run was split into.
    pub total: u32,
}

impl From<Shard> for ShardDocument {
    fn from(shard: Shard) -> Self {
        ShardDocument {
            index: shard.index,
            total: shard.total,
        }
    }
}

impl ShardDocument {
    /// The shard, when `index` and `total` make one (`1 <= index <= total`).
    pub fn shard(self) -> Option<Shard> {
        Shard::new(self.index, self.total)
    }
}

/// One verifier's part of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VerificationDocument {
    /// The verifier's name (`tsc`, `cargo-test`, …).
    pub verifier: String,
    /// The kind of check.
    pub kind: Kind,
    /// How the result was obtained: `ran`, `cached`, `skipped`, `cancelled`.
    pub status: Status,
    /// The verifier's outcome (the same as `report.outcome`, here for convenience).
    pub outcome: Outcome,
    /// How long it ran, in milliseconds (0 when it did not run).
    pub duration_ms: u64,
    /// The argv it ran, when it ran something.
    pub command: Option<Vec<String>>,
    /// Where its full output is.
    pub log: Option<String>,
    /// How it ran (`cached`, `re-ran 3 failed tests first`, …).
    pub notes: Vec<String>,
    /// What it found: the model's [`Report`], every diagnostic with its fingerprint.
    pub report: Report,
}

/// The digest part of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DigestDocument {
    /// The digest text, lines separated by `\n`.
    pub text: String,
    /// Its size in tokens (o200k_base).
    pub tokens: usize,
    /// The token budget it was built for.
    pub budget: usize,
}

impl From<&Digest> for DigestDocument {
    fn from(digest: &Digest) -> Self {
        DigestDocument {
            text: digest.text.clone(),
            tokens: digest.tokens,
            budget: digest.budget,
        }
    }
}

impl RunDocument {
    /// The document of a run.
    pub fn new(input: &RenderInput<'_>) -> Self {
        RunDocument {
            schema: SCHEMA.to_owned(),
            verdict_version: input.tool_version.to_owned(),
            outcome: input.outcome,
            exit_code: i32::from(input.exit_code),
            known_failures: input.known_failures,
            project: input.repo.project_or_dot().to_owned(),
            verifications: input
                .verifications
                .iter()
                .map(|v| VerificationDocument {
                    verifier: v.verifier.clone(),
                    kind: v.kind,
                    status: v.status,
                    outcome: v.outcome(),
                    duration_ms: u64::try_from(v.duration.as_millis()).unwrap_or(u64::MAX),
                    command: v.command.clone(),
                    log: v.log.clone(),
                    notes: v.notes.clone(),
                    report: repo_paths(input, &v.report),
                })
                .collect(),
            digest: DigestDocument::from(input.digest),
            shard: input.shard.map(ShardDocument::from),
        }
    }
}

/// [`RunDocument`] borrowing the run instead of copying it, for writing: a merged run of many
/// shards can list hundreds of thousands of tests. The same fields in the same order, so that it
/// serializes to the same text (checked by a test).
#[derive(Serialize)]
struct RunView<'a> {
    schema: &'a str,
    verdict_version: &'a str,
    outcome: Outcome,
    exit_code: i32,
    known_failures: u64,
    project: &'a str,
    verifications: Vec<VerificationView<'a>>,
    digest: DigestDocument,
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<ShardDocument>,
}

/// [`VerificationDocument`], borrowed (see [`RunView`]).
#[derive(Serialize)]
struct VerificationView<'a> {
    verifier: &'a str,
    kind: Kind,
    status: Status,
    outcome: Outcome,
    duration_ms: u64,
    command: &'a Option<Vec<String>>,
    log: &'a Option<String>,
    notes: &'a [String],
    report: Cow<'a, Report>,
}

impl<'a> RunView<'a> {
    fn new(input: &RenderInput<'a>) -> Self {
        RunView {
            schema: SCHEMA,
            verdict_version: input.tool_version,
            outcome: input.outcome,
            exit_code: i32::from(input.exit_code),
            known_failures: input.known_failures,
            project: input.repo.project_or_dot(),
            verifications: input
                .verifications
                .iter()
                .map(|v| VerificationView {
                    verifier: &v.verifier,
                    kind: v.kind,
                    status: v.status,
                    outcome: v.outcome(),
                    duration_ms: u64::try_from(v.duration.as_millis()).unwrap_or(u64::MAX),
                    command: &v.command,
                    log: &v.log,
                    notes: &v.notes,
                    report: repo_paths_view(input, &v.report),
                })
                .collect(),
            digest: DigestDocument::from(input.digest),
            shard: input.shard.map(ShardDocument::from),
        }
    }
}

/// The document's `project` when an older document has none.
fn dot() -> String {
    ".".to_owned()
}

/// [`repo_paths`], copying the report only when a path changes (a project below the root).
fn repo_paths_view<'a>(input: &RenderInput<'_>, report: &'a Report) -> Cow<'a, Report> {
    let moves = |file: Option<&str>| {
        file.is_some_and(|file| matches!(input.repo_path(file), Cow::Owned(_)))
    };
    let changes = report
        .diagnostics
        .iter()
        .any(|diagnostic| moves(diagnostic.file.as_deref()))
        || report.tests.iter().any(|test| moves(test.file.as_deref()));
    if changes {
        Cow::Owned(repo_paths(input, report))
    } else {
        Cow::Borrowed(report)
    }
}

/// `report` with its diagnostics' and tests' files named from the repository's root. The
/// fingerprints stay as computed from the tool's own paths, so that a `--baseline` matches
/// whatever `-C` says.
fn repo_paths(input: &RenderInput<'_>, report: &Report) -> Report {
    let mut report = report.clone();
    let files = report
        .diagnostics
        .iter_mut()
        .map(|d| &mut d.file)
        .chain(report.tests.iter_mut().map(|t| &mut t.file));
    for file in files {
        if let Some(file) = file
            && let Cow::Owned(path) = input.repo_path(file)
        {
            *file = path;
        }
    }
    report
}

impl RunDocument {
    /// Turns the diagnostics' and tests' files back into paths relative to
    /// [`RunDocument::project`], as the
    /// tools printed them (with `/` separators): what a reader that renders the run again needs,
    /// the digest included (`verdict merge`). A file elsewhere in the repository climbs out of the
    /// project with `..`; an absolute one stays absolute. Rendering the result with the same
    /// project gives the same repository paths again.
    pub fn to_project_paths(&mut self) {
        let project = self.project.trim_matches('/');
        if project.is_empty() || project == "." {
            return;
        }
        let depth = project.split('/').filter(|s| !s.is_empty()).count();
        for verification in &mut self.verifications {
            let report = &mut verification.report;
            let files = report
                .diagnostics
                .iter_mut()
                .map(|d| &mut d.file)
                .chain(report.tests.iter_mut().map(|t| &mut t.file));
            for file in files {
                let Some(file) = file else {
                    continue;
                };
                if super::repo::is_absolute(file) {
                    continue;
                }
                *file = match file
                    .strip_prefix(project)
                    .and_then(|rest| rest.strip_prefix('/'))
                {
                    Some(inside) => inside.to_owned(),
                    None => format!("{}{file}", "../".repeat(depth)),
                };
            }
        }
    }
}

/// Renders the JSON document, pretty-printed, with a final newline.
pub fn render(input: &RenderInput<'_>) -> String {
    let document = RunView::new(input);
    // Serializing plain data with string keys into a String cannot fail; should it ever, the
    // output must still not look like a pass.
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_else(|error| {
        format!(
            "{{\"schema\": \"{SCHEMA}\", \"outcome\": \"errored\", \"exit_code\": 2, \"error\": {}}}",
            serde_json::Value::String(format!("failed to write the JSON report: {error}"))
        )
    });
    text.push('\n');
    text
}

/// Why a text is not a `verdict-run/1` document.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// Not JSON, or JSON of another shape.
    #[error("invalid verdict JSON report: {0}")]
    Json(#[from] serde_json::Error),
    /// A verdict document of another schema version.
    #[error("unsupported schema `{found}` (this verdict reads `{SCHEMA}`)")]
    Schema {
        /// The schema the document names.
        found: String,
    },
}

/// Reads a document back (a `--baseline`). The schema is checked before the rest, so that a
/// document of a future version fails with that reason rather than a missing field.
pub fn parse_json(text: &str) -> Result<RunDocument, ParseError> {
    #[derive(Deserialize)]
    struct Header {
        schema: Option<String>,
    }
    let header: Header = serde_json::from_str(text)?;
    match header.schema {
        Some(schema) if schema == SCHEMA => Ok(serde_json::from_str(text)?),
        Some(found) => Err(ParseError::Schema { found }),
        None => Err(ParseError::Schema {
            found: "(none)".to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::{self, Input};
    use crate::model::{Diagnostic, Severity, TestCase, TestStatus, Verification};
    use crate::verifier::Shard;

    /// What is written borrowed is what [`RunDocument`] would write: same fields, same order.
    #[test]
    fn the_borrowed_view_writes_the_document() {
        let mut report = Report::new("jest", Outcome::Failed);
        report.push(
            Diagnostic::new("jest", Kind::Test, Severity::Error, "boom")
                .at("a.test.js", Some(3), None)
                .with_test("a > b"),
        );
        report.push_test(TestCase {
            name: "a > b".to_owned(),
            file: Some("a.test.js".to_owned()),
            status: TestStatus::Failed,
            duration_ms: Some(4),
        });
        report.summary = Some("Tests: 1 failed".to_owned());
        let verifications = [Verification {
            verifier: "jest".to_owned(),
            kind: Kind::Test,
            status: Status::Ran,
            report,
            command: Some(vec!["jest".to_owned()]),
            log: Some(".verdict/runs/x/jest.log".to_owned()),
            duration: std::time::Duration::from_millis(1500),
            notes: vec!["a note".to_owned()],
        }];
        let inputs: Vec<Input<'_>> = verifications.iter().map(Input::of).collect();
        let digest = digest::render(&inputs, &digest::Options::new(100));
        let package = super::super::Repo {
            root: Some("/src/repo"),
            project: "packages/a",
            category: None,
        };
        for (shard, repo) in [
            (None, super::super::Repo::default()),
            (Shard::new(2, 3), super::super::Repo::default()),
            (None, package),
        ] {
            let input = RenderInput {
                verifications: &verifications,
                digest: &digest,
                outcome: Outcome::Failed,
                known_failures: 1,
                exit_code: 1,
                tool_version: "0.0.0-test",
                color: false,
                repo,
                shard,
            };
            let mut expected =
                serde_json::to_string_pretty(&RunDocument::new(&input)).expect("serializes");
            expected.push('\n');
            assert_eq!(render(&input), expected);
            let mut back = parse_json(&expected).expect("parses back");
            assert_eq!(back.shard.and_then(ShardDocument::shard), shard);
            // Diagnostics and tests alike name files from the repository's root, and come back
            // to the project's paths.
            let prefix = if repo.project.is_empty() {
                ""
            } else {
                "packages/a/"
            };
            let report = &back.verifications[0].report;
            assert_eq!(
                report.diagnostics[0].file.as_deref(),
                Some(format!("{prefix}a.test.js").as_str())
            );
            assert_eq!(
                report.tests[0].file.as_deref(),
                Some(format!("{prefix}a.test.js").as_str())
            );
            back.to_project_paths();
            let report = &back.verifications[0].report;
            assert_eq!(report.diagnostics[0].file.as_deref(), Some("a.test.js"));
            assert_eq!(report.tests[0].file.as_deref(), Some("a.test.js"));
        }
    }
}
