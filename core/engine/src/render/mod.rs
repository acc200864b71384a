//! Report renderers: a run's [`Verification`]s and its [`Digest`] → text in one of the
//! [`Format`]s `verdict run --format` offers.
//!
//! One closed enum, one file per format, one `match` in [`render`]. Every renderer is a pure
//! function of its [`RenderInput`]: nothing here reads the environment, the clock or the file
//! system, so the same run always renders to the same bytes.
//!
//! - [`human`]: one line per verifier, then the digest (what a person at a terminal reads).
//! - [`json`]: the stable `verdict-run/1` document (`docs/json-report.md`), also read back as a
//!   `--baseline` with [`json::parse_json`].
//! - [`sarif`]: SARIF 2.1.0 for GitHub code scanning, one run per verifier.
//! - [`github`]: GitHub Actions workflow commands (annotations), and [`github::job_summary`].
//! - [`junit`]: JUnit XML, one test suite per verifier.
//! - [`markdown`]: a report sized for a pull-request comment.
//! - [`gitlab`]: a GitLab Code Quality report.
//! - [`rdjson`]: reviewdog's Diagnostic Result (rdjson).
//!
//! The CI formats (SARIF, GitHub, JUnit, JSON) name files from the repository's root
//! ([`RenderInput::repo_path`], [`repo`]); the digest and the human format keep the project's own
//! paths.
//!
//! **Invariant:** renderers never decide an outcome: they show [`RenderInput::outcome`] and the
//! reports' own outcomes, never a pass the model does not hold.

pub mod github;
pub mod gitlab;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod rdjson;
pub mod repo;
pub mod sarif;
pub mod table;

pub use repo::Repo;

use std::borrow::Cow;
use std::fmt::Write as _;
use std::str::FromStr;
use std::time::Duration;

use crate::digest::Digest;
use crate::model::{Kind, Outcome, Report, Severity, Status, Verification};

/// Everything a renderer needs about a run.
#[derive(Debug, Clone, Copy)]
pub struct RenderInput<'a> {
    /// The verifiers' results, in the order they are to be shown.
    pub verifications: &'a [Verification],
    /// The digest of the run (the text an agent reads).
    pub digest: &'a Digest,
    /// The outcome of the whole run ([`crate::model::overall`]).
    pub outcome: Outcome,
    /// Failures set aside because a `--baseline` already had them (0 without a baseline).
    pub known_failures: u64,
    /// The code the process exits with, which the JSON document states; the CLI decides it.
    pub exit_code: u8,
    /// verdict's own version, for the formats that name the producing tool (SARIF, JSON).
    pub tool_version: &'a str,
    /// Whether the human format may use ANSI colours. The other formats ignore it.
    pub color: bool,
    /// The repository around the project (its root, the project's directory in it) and the
    /// SARIF category prefix, which the CI formats name files and runs by. The default is a
    /// project at the root of an unknown repository: paths stay as the tools printed them.
    pub repo: Repo<'a>,
    /// The shard this run is of a run split across machines (`--shard`), which the JSON
    /// document records for `verdict merge`; `None` for a whole run.
    pub shard: Option<crate::verifier::Shard>,
}

impl RenderInput<'_> {
    /// `file`, a path as a tool printed it (relative to the project, or absolute), as the CI
    /// formats write it: from the repository's root, `/`-separated, absolute only when it lies
    /// outside the repository. See [`Repo::path`].
    pub fn repo_path<'f>(&self, file: &'f str) -> Cow<'f, str> {
        self.repo.path(file)
    }

    /// [`RenderInput::repo_path`] for the formats that can only name files inside the repository
    /// (JUnit's `file`, GitLab, rdjson): `None` for an empty path or one outside it.
    pub fn path_in_repo(&self, file: &str) -> Option<String> {
        let path = self.repo.path(file.trim());
        let outside = path.is_empty()
            || repo::is_absolute(&path)
            || path.split('/').any(|segment| segment == "..");
        (!outside).then(|| path.into_owned())
    }
}

/// An output format of `verdict run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Lines per verifier and the digest, for people at a terminal.
    Human,
    /// The `verdict-run/1` JSON document.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// JUnit XML, for CI test reports.
    Junit,
    /// A Markdown report sized for a pull-request comment.
    Markdown,
    /// A GitLab Code Quality report.
    Gitlab,
    /// reviewdog's Diagnostic Result (rdjson).
    Rdjson,
}

impl Format {
    /// Every format, in the order they are documented.
    pub const ALL: [Format; 8] = [
        Format::Human,
        Format::Json,
        Format::Sarif,
        Format::Github,
        Format::Junit,
        Format::Markdown,
        Format::Gitlab,
        Format::Rdjson,
    ];

    /// The name `--format` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Junit => "junit",
            Format::Markdown => "markdown",
            Format::Gitlab => "gitlab",
            Format::Rdjson => "rdjson",
        }
    }
}

/// A format name that is not one of [`Format::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown format `{0}` (expected one of: human, json, sarif, github, junit, markdown, gitlab, rdjson)"
)]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == name)
            .ok_or_else(|| UnknownFormat(name.to_owned()))
    }
}

/// Renders a run in `format`. The text ends with a newline.
///
/// A verifier that did not run in this shard ([`Status::NotInShard`]) is left out of the formats
/// CI systems read (SARIF, GitHub, JUnit, Markdown, GitLab, rdjson): it is neither a pass nor a failure here, and
/// the shard that ran it reports it. The JSON document keeps it for `verdict merge`, and the human
/// format lists it.
pub fn render(format: Format, input: &RenderInput<'_>) -> String {
    let for_ci = !matches!(format, Format::Human | Format::Json);
    if for_ci
        && input
            .verifications
            .iter()
            .any(|v| v.status == Status::NotInShard)
    {
        let here: Vec<Verification> = input
            .verifications
            .iter()
            .filter(|v| v.status != Status::NotInShard)
            .cloned()
            .collect();
        return render(
            format,
            &RenderInput {
                verifications: &here,
                ..*input
            },
        );
    }
    match format {
        Format::Human => human::render(input),
        Format::Json => json::render(input),
        Format::Sarif => sarif::render(input),
        Format::Github => github::render(input),
        Format::Junit => junit::render(input),
        Format::Markdown => markdown::render(input),
        Format::Gitlab => gitlab::render(input),
        Format::Rdjson => rdjson::render(input),
    }
}

/// Why a verifier could not verify: the report's error, else its first note, else a generic
/// reason (an errored report without either is a bug upstream, but must still say something).
fn reason(verification: &Verification) -> String {
    let report = &verification.report;
    let text = report
        .error
        .as_deref()
        .or(report.notes.first().map(String::as_str))
        .or(verification.notes.first().map(String::as_str))
        .unwrap_or(match verification.status {
            Status::Cancelled => "the run was interrupted",
            Status::Skipped => "it did not run",
            Status::NotInShard => "it did not run in this shard",
            _ => "no reason was given",
        });
    text.trim().to_owned()
}

/// `1 error`, `3 errors`.
fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The numbers of a report in a few words: `2 failed, 5 passed, 1 skipped` for a test report,
/// `3 errors, 7 warnings in 2 files` for the others. The tool's own counts where it printed
/// them, else counts of the diagnostics kept. Empty when there is nothing to count. Failures set
/// aside against a baseline are said after them (`1 error (in the baseline)`), so that a
/// verifier that passes only against a baseline is never shown as clean.
fn counts_phrase(kind: Kind, report: &Report) -> String {
    let phrase = tool_counts_phrase(kind, report);
    match &report.set_aside {
        Some(aside) => aside.after_counts(report, &phrase),
        None => phrase,
    }
}

/// [`counts_phrase`] without what was set aside.
fn tool_counts_phrase(kind: Kind, report: &Report) -> String {
    let counts = &report.counts;
    let mut parts = Vec::new();
    let is_test = kind == Kind::Test
        || counts.tests_passed.is_some()
        || counts.tests_failed.is_some()
        || counts.tests_skipped.is_some();
    if is_test {
        let failed = counts.tests_failed.unwrap_or_else(|| {
            report
                .diagnostics
                .iter()
                .filter(|d| d.is_failed_test() && d.severity == Severity::Error)
                .count() as u64
        });
        if failed > 0 {
            parts.push(format!("{failed} failed"));
        }
        // Errors around tests (pytest's fixtures), beyond the suites that failed to run which
        // the tool counts among its errors too.
        let test_errors = counts
            .errors
            .unwrap_or(0)
            .saturating_sub(counts.suites_errored.unwrap_or(0));
        if test_errors > 0 {
            parts.push(plural(test_errors, "error", "errors"));
        }
        if let Some(passed) = counts.tests_passed {
            parts.push(format!("{passed} passed"));
        }
        if let Some(skipped) = counts.tests_skipped.filter(|n| *n > 0) {
            parts.push(format!("{skipped} skipped"));
        }
        if let Some(suites) = counts.suites_errored.filter(|n| *n > 0) {
            parts.push(format!(
                "{} failed to run",
                plural(suites, "suite", "suites")
            ));
        }
        // A test run that stopped before any test (code that does not compile) has no test
        // numbers: its errors are counted below.
        if !parts.is_empty() {
            return parts.join(", ");
        }
    }
    let count = |severity: Severity| {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count() as u64
    };
    let errors = counts.errors.unwrap_or_else(|| count(Severity::Error));
    let warnings = counts.warnings.unwrap_or_else(|| count(Severity::Warning));
    if errors > 0 {
        parts.push(plural(errors, "error", "errors"));
    }
    if warnings > 0 {
        parts.push(plural(warnings, "warning", "warnings"));
    }
    let mut phrase = parts.join(", ");
    if let Some(files) = counts.files.filter(|n| *n > 0)
        && !phrase.is_empty()
    {
        let _ = write!(phrase, " in {}", plural(files, "file", "files"));
    }
    if phrase.is_empty() && report.diagnostics_dropped > 0 {
        phrase = plural(report.diagnostics_found(), "finding", "findings");
    }
    phrase
}

/// A duration for people: `340ms`, `1.2s`, `2m 05s`.
fn duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis}ms")
    } else if millis < 60_000 {
        format!("{:.1}s", duration.as_secs_f64())
    } else {
        let secs = duration.as_secs();
        format!("{}m {:02}s", secs / 60, secs % 60)
    }
}

/// A path as the CI formats want it: forward slashes, no leading `./`.
fn forward_slashes(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut rest = path.as_str();
    while let Some(stripped) = rest.strip_prefix("./") {
        rest = stripped;
    }
    rest.to_owned()
}

/// The diagnostics of a report, most important first: errors before warnings before notes, root
/// causes first among equals, otherwise in the order the tool printed them.
fn ranked(report: &Report) -> Vec<&crate::model::Diagnostic> {
    let mut diagnostics: Vec<_> = report.diagnostics.iter().collect();
    diagnostics.sort_by_key(|d| (std::cmp::Reverse(d.severity), !d.root_cause));
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for format in Format::ALL {
            assert_eq!(format.as_str().parse::<Format>(), Ok(format));
        }
        assert_eq!(
            "xml".parse::<Format>(),
            Err(UnknownFormat("xml".to_owned()))
        );
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(duration(Duration::from_millis(340)), "340ms");
        assert_eq!(duration(Duration::from_millis(1240)), "1.2s");
        assert_eq!(duration(Duration::from_secs(125)), "2m 05s");
    }

    #[test]
    fn paths_lose_backslashes_and_dot_slashes() {
        assert_eq!(forward_slashes(r".\src\a.ts"), "src/a.ts");
        assert_eq!(forward_slashes("././b.ts"), "b.ts");
    }
}
