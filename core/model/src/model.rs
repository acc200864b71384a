//! The model: what a verifier found, independent of which tool found it.
//!
//! A [`Report`] is the whole result of one tool run: its [`Outcome`], the tool's own [`Counts`]
//! (taken from its summary line, never from how many lines a pattern matched), the [`Diagnostic`]s
//! it could attribute, and the summary line itself. Reports serialize to JSON with serde; this is
//! the format `verdict summarize --format json` prints and the baseline format builds on, so the
//! field names are part of verdict's interface.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::redact::redact_in_place;

/// How many diagnostics a [`Report`] keeps. Beyond this the parser only counts
/// ([`Report::diagnostics_dropped`]), which keeps memory bounded on logs of any size. No digest can
/// show this many items within any sensible token budget.
pub const MAX_DIAGNOSTICS: usize = 10_000;

/// How many [`TestCase`]s a [`Report`] keeps. A suite this large is rare; beyond it the report
/// only counts ([`Report::tests_dropped`]), so memory stays bounded whatever the log.
pub const MAX_TESTS: usize = 200_000;

/// What sort of check produced a diagnostic.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The code does not build: a compiler error (rustc, a bundler).
    Build,
    /// A type checker's finding (tsc, mypy).
    Type,
    /// A linter's finding (eslint, clippy).
    Lint,
    /// A failing test, or a test file that could not load.
    Test,
    /// Anything else: a project-specific verifier, the generic fallback.
    Custom,
}

impl Kind {
    /// The lowercase name used in JSON and in the digest.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Build => "build",
            Kind::Type => "type",
            Kind::Lint => "lint",
            Kind::Test => "test",
            Kind::Custom => "custom",
        }
    }
}

/// How serious a diagnostic is. Ordered so that `Error` is the greatest.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Informational: a note or help attached to nothing else.
    Info,
    /// Does not fail the run by itself.
    Warning,
    /// Fails the run.
    Error,
}

impl Severity {
    /// The lowercase name used in JSON and in the digest.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// The verdict on one tool run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The tool ran and found nothing wrong.
    Passed,
    /// The tool ran and found failures in the code: errors, failing tests, test files that do not
    /// load.
    Failed,
    /// Nothing could be verified: the tool crashed, its configuration is invalid, it ran no test, or
    /// its output shows a failure that could not be understood. Never a pass.
    Errored,
}

impl Outcome {
    /// The lowercase name used in JSON and in the digest.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Errored => "errored",
        }
    }
}

/// A stable identity for a diagnostic, used to deduplicate and to match failures across runs.
///
/// It hashes the tool, the code, the file, the test name and the message with digits removed — not
/// the line or column, so that it survives code moving up or down a file. Two identical messages in
/// one file share a fingerprint; callers that need multiplicity count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Fingerprint(pub u64);

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl Serialize for Fingerprint {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

// A fingerprint is written as 16 lowercase hex digits, not as the number it holds.
impl JsonSchema for Fingerprint {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Fingerprint".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A stable identity of the diagnostic: 16 hexadecimal digits.",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{1,16}$"
        })
    }
}

impl<'de> Deserialize<'de> for Fingerprint {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        u64::from_str_radix(&text, 16)
            .map(Fingerprint)
            .map_err(|_| serde::de::Error::custom(format!("invalid fingerprint `{text}`")))
    }
}

impl Fingerprint {
    /// Computes the fingerprint of a diagnostic's identifying parts.
    pub fn compute(
        tool: &str,
        code: Option<&str>,
        file: Option<&str>,
        test: Option<&str>,
        message: &str,
    ) -> Fingerprint {
        let mut hasher = blake3::Hasher::new();
        // Each part is length-prefixed so that ("ab", "c") and ("a", "bc") differ.
        let mut part = |bytes: &[u8]| {
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        part(tool.as_bytes());
        part(code.unwrap_or("").as_bytes());
        part(file.map(normalize_path).unwrap_or_default().as_bytes());
        part(test.unwrap_or("").as_bytes());
        let message: String = message
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        part(message.as_bytes());
        let hash = hasher.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&hash.as_bytes()[..8]);
        Fingerprint(u64::from_le_bytes(first))
    }
}

/// Folds the spellings of one path that differ only by platform or a leading `./`.
fn normalize_path(path: &str) -> String {
    let path = path.replace('\\', "/");
    path.strip_prefix("./").unwrap_or(&path).to_owned()
}

/// One finding: an error or warning at a place in the code, or a failing test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Diagnostic {
    /// The tool that reported it (`tsc`, `eslint`, `jest`, `cargo`, `pytest`, …).
    pub tool: String,
    /// What sort of check found it.
    pub kind: Kind,
    /// How serious it is.
    pub severity: Severity,
    /// The file, as the tool printed it (usually relative to the project root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The tool's code for the rule or error: `TS2345`, `E0308`, `no-unused-vars`,
    /// `clippy::needless_range_loop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The message, on one line.
    pub message: String,
    /// The full name of the test, when this is a failing test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// A short detail: expected and received values, a panic message, the assertion that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Whether this is likely the cause of other diagnostics: an unresolved import, a missing
    /// module, a syntax error, a test file that does not load. The digest shows root causes before
    /// their cascades. Set by the summarizer, which knows its tool's codes.
    #[serde(default, skip_serializing_if = "is_false")]
    pub root_cause: bool,
    /// A test that did not fail its own check but errored around it: a fixture's set-up or
    /// tear-down raised. Tools that tell the two apart count these as errors, not as failed tests
    /// (pytest's `1 error`, JUnit's `<error>`), and so do the digest and `--baseline`. Only
    /// meaningful with [`Diagnostic::test`].
    #[serde(default, skip_serializing_if = "is_false")]
    pub test_error: bool,
    /// Stable identity for deduplication; see [`Fingerprint`].
    pub fingerprint: Fingerprint,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Diagnostic {
    /// A new diagnostic with only the required parts. Chain [`Diagnostic::at`],
    /// [`Diagnostic::with_code`], [`Diagnostic::with_test`] and [`Diagnostic::with_detail`] for the
    /// rest. The fingerprint is computed once, when the diagnostic enters a report
    /// ([`Report::push`]), not at every step of building it.
    pub fn new(tool: &str, kind: Kind, severity: Severity, message: impl Into<String>) -> Self {
        Diagnostic {
            tool: tool.to_owned(),
            kind,
            severity,
            file: None,
            line: None,
            column: None,
            code: None,
            message: message.into(),
            test: None,
            detail: None,
            root_cause: false,
            test_error: false,
            fingerprint: Fingerprint::default(),
        }
    }

    /// Sets the location. `line` and `column` are 1-based; pass `None` for what is unknown.
    pub fn at(mut self, file: impl Into<String>, line: Option<u32>, column: Option<u32>) -> Self {
        self.file = Some(file.into());
        self.line = line;
        self.column = column;
        self
    }

    /// Sets the tool's code for the rule or error.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Sets the full name of the failing test.
    pub fn with_test(mut self, test: impl Into<String>) -> Self {
        self.test = Some(test.into());
        self
    }

    /// Sets the short detail (expected/received, a panic message). It is not part of the
    /// fingerprint: values in a detail often change from run to run.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// Marks this as a likely root cause of other diagnostics (see [`Diagnostic::root_cause`]).
    pub fn as_root_cause(mut self) -> Self {
        self.root_cause = true;
        self
    }

    /// Marks a failing test as an error around the test (see [`Diagnostic::test_error`]).
    pub fn as_test_error(mut self) -> Self {
        self.test_error = true;
        self
    }

    /// Whether this is a failing test as its tool counts them: a test named, failing its own
    /// check (not a [`Diagnostic::test_error`]).
    pub fn is_failed_test(&self) -> bool {
        self.test.is_some() && !self.test_error
    }

    /// Replaces the secrets in every text of the diagnostic (see [`crate::redact`]) and says
    /// whether any was found. The fingerprint is left as it was: the caller refreshes it.
    pub fn redact(&mut self) -> bool {
        let mut changed = redact_in_place(&mut self.message);
        for text in [
            &mut self.file,
            &mut self.code,
            &mut self.test,
            &mut self.detail,
        ]
        .into_iter()
        .flatten()
        {
            changed |= redact_in_place(text);
        }
        changed
    }

    /// Recomputes [`Diagnostic::fingerprint`]; call it after changing fields directly.
    pub fn refresh_fingerprint(&mut self) {
        self.fingerprint = Fingerprint::compute(
            &self.tool,
            self.code.as_deref(),
            self.file.as_deref(),
            self.test.as_deref(),
            &self.message,
        );
    }

    /// `file:line:col`, as much of it as is known.
    pub fn location(&self) -> Option<String> {
        let file = self.file.as_deref()?;
        Some(match (self.line, self.column) {
            (Some(line), Some(column)) => format!("{file}:{line}:{column}"),
            (Some(line), None) => format!("{file}:{line}"),
            _ => file.to_owned(),
        })
    }
}

/// The tool's own counts, from its summary line. `None` means the tool did not say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Counts {
    /// Tests that passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_passed: Option<u64>,
    /// Tests that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_failed: Option<u64>,
    /// Tests skipped, pending, todo or ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_skipped: Option<u64>,
    /// Of [`Counts::tests_skipped`], the tests that failed as they were expected to (pytest's
    /// `xfailed`, which JUnit counts as skipped), where the tool counts them apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_xfailed: Option<u64>,
    /// Tests that passed although they were expected to fail (pytest's `xpassed`, not strict),
    /// where the tool counts them apart; not in [`Counts::tests_passed`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_xpassed: Option<u64>,
    /// Tests the runner found and left out on purpose, where it counts them apart from skipped
    /// ones: pytest's `deselected` (`-k`, `-m`, `--deselect`), libtest's `filtered out`; absent
    /// when none were. A count that rises from the baseline is how the cheating guard sees a test
    /// left out by a runner that names no tests. (nextest counts the tests its filters leave out
    /// as skipped.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_deselected: Option<u64>,
    /// Test files or suites that could not run (jest's `Test suite failed to run`, pytest's
    /// collection errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suites_errored: Option<u64>,
    /// Errors reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<u64>,
    /// Warnings reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<u64>,
    /// Files with at least one error or warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<u64>,
}

impl Counts {
    /// Adds the counts of another run of the same tool: each number the sum of those given, and
    /// still `None` where neither run gave it.
    pub fn add(&mut self, other: &Counts) {
        let add = |a: &mut Option<u64>, b: Option<u64>| {
            if a.is_some() || b.is_some() {
                *a = Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0)));
            }
        };
        add(&mut self.tests_passed, other.tests_passed);
        add(&mut self.tests_failed, other.tests_failed);
        add(&mut self.tests_skipped, other.tests_skipped);
        add(&mut self.tests_xfailed, other.tests_xfailed);
        add(&mut self.tests_xpassed, other.tests_xpassed);
        add(&mut self.tests_deselected, other.tests_deselected);
        add(&mut self.suites_errored, other.suites_errored);
        add(&mut self.errors, other.errors);
        add(&mut self.warnings, other.warnings);
        add(&mut self.files, other.files);
    }
}

/// How the note naming a report's CI job begins: `in the CI job `test (20.x)``.
pub const JOB_NOTE: &str = "in the CI job ";

/// The result of one tool run, as understood from its output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// The tool the output was taken for (`tsc`, `jest`, …, or `generic`).
    pub tool: String,
    /// Passed, failed, or could not verify.
    pub outcome: Outcome,
    /// The tool's own counts.
    pub counts: Counts,
    /// What the tool found, in the order it printed them, at most [`MAX_DIAGNOSTICS`].
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics found beyond [`MAX_DIAGNOSTICS`]: counted, not kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub diagnostics_dropped: u64,
    /// The tool's own summary line (`Found 3 errors in 2 files.`, `Tests: 2 failed, 5 passed, 7
    /// total`), when it printed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Why nothing could be verified, when the outcome is [`Outcome::Errored`]: the tool's own error
    /// message where there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the parser saw but could not understand, for people reading the JSON.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Every test the tool reported by name, passing, failing or skipped, in the order it
    /// reported them, at most [`MAX_TESTS`]. Empty where the tool's output names no tests (a
    /// type checker, a log that prints only failures). CI reports that count tests (JUnit) read it;
    /// failures keep their detail in [`Report::diagnostics`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<TestCase>,
    /// Tests reported beyond [`MAX_TESTS`]: counted, not kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tests_dropped: u64,
    /// Failures an earlier verification already had, taken out of [`Report::diagnostics`] so
    /// that only new ones decide the outcome (a `--baseline`, the tree a hook's session or the
    /// loop began on). [`Report::counts`] stay the tool's own, these included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_aside: Option<SetAside>,
    /// What the parser saw of its tool beyond a summary, a diagnostic or a test (which count by
    /// themselves, see [`Report::evidence`]). Read where the report is interpreted, never
    /// written out.
    #[serde(skip)]
    pub evidence: Evidence,
    /// Set by a verifier whose tool always shows what it checked (tsc with `--diagnostics`, a
    /// runner's summary): what the pass needs, said as what is missing without it. The pipeline
    /// errors a pass whose [`Report::evidence`] is short of [`Evidence::Checked`]. Never written
    /// out.
    #[serde(skip)]
    pub evidence_needed: Option<String>,
}

/// The failures of a report that an earlier verification already had, set aside by fingerprint:
/// how many of each of the tool's counts they are, and what they were known from. The tool's
/// counts minus these are the new failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SetAside {
    /// What the failures were known from.
    pub from: KnownFrom,
    /// Failing tests set aside (of [`Counts::tests_failed`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tests_failed: u64,
    /// Errors set aside (of [`Counts::errors`]), errors around tests and suites that did not run
    /// included.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub errors: u64,
    /// Of [`SetAside::errors`], test files or suites that could not run (of
    /// [`Counts::suites_errored`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub suites_errored: u64,
    /// Warnings and notes set aside (of [`Counts::warnings`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub warnings: u64,
}

impl SetAside {
    /// Nothing set aside yet, known from `from`.
    pub fn new(from: KnownFrom) -> SetAside {
        SetAside {
            from,
            tests_failed: 0,
            errors: 0,
            suites_errored: 0,
            warnings: 0,
        }
    }

    /// Adds what another run of the same tool set aside (a shard of one split run).
    pub fn add(&mut self, other: &SetAside) {
        self.tests_failed = self.tests_failed.saturating_add(other.tests_failed);
        self.errors = self.errors.saturating_add(other.errors);
        self.suites_errored = self.suites_errored.saturating_add(other.suites_errored);
        self.warnings = self.warnings.saturating_add(other.warnings);
    }

    /// The failures set aside: failing tests and errors.
    pub fn failures(&self) -> u64 {
        self.tests_failed.saturating_add(self.errors)
    }

    /// The failures of `report` that are not set aside: the tool's failing tests and errors less
    /// these, or, where the tool counted neither, the errors its diagnostics (the new ones) hold.
    pub fn new_failures(&self, report: &Report) -> u64 {
        let c = &report.counts;
        if c.tests_failed.is_some() || c.errors.is_some() || c.suites_errored.is_some() {
            let errors = c.errors.unwrap_or(0).max(c.suites_errored.unwrap_or(0));
            return c
                .tests_failed
                .unwrap_or(0)
                .saturating_add(errors)
                .saturating_sub(self.failures());
        }
        (report.errors().count() as u64).saturating_add(report.diagnostics_dropped)
    }

    /// `counts` (a report's counts in words, the tool's own) followed by what of them was set
    /// aside, so that they are never read as new: `4 failed, 2 passed (3 of the failures predate
    /// this session, 1 is new)`; where the tool printed no totals (`counts` are then of the new
    /// diagnostics), `1 error (and 2 more from before this session)`; with no counts at all,
    /// those set aside: `1 error, from before this session`.
    pub fn after_counts(&self, report: &Report, counts: &str) -> String {
        let new = self.new_failures(report);
        if counts.is_empty() {
            return format!("{}, {}", self.counted(), self.words(new));
        }
        let c = &report.counts;
        if c.tests_failed.is_some() || c.errors.is_some() || c.suites_errored.is_some() {
            return format!("{counts} ({})", self.words(new));
        }
        let old = match self.failures() {
            0 => self.warnings,
            n => n,
        };
        format!("{counts} (and {old} more {})", self.from.before())
    }

    /// What was set aside in words: `3 failed tests, 1 error`, `2 warnings`.
    fn counted(&self) -> String {
        let plural = |n: u64, one: &str, many: &str| {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        };
        let mut parts = Vec::new();
        if self.tests_failed > 0 {
            parts.push(plural(self.tests_failed, "failed test", "failed tests"));
        }
        if self.errors > 0 {
            parts.push(plural(self.errors, "error", "errors"));
        }
        if self.warnings > 0 || parts.is_empty() {
            parts.push(plural(self.warnings, "warning", "warnings"));
        }
        parts.join(", ")
    }

    /// What a report's counts are followed by, so that they are never read as new: `3 of the
    /// failures predate this session, 1 is new` where `new` failures are left, else `from before
    /// this session` (`all 3 from before this session`). Warnings count where nothing else was
    /// set aside.
    pub fn words(&self, new: u64) -> String {
        let (old, noun) = match self.failures() {
            0 => (self.warnings, "warnings"),
            n => (n, "failures"),
        };
        if new > 0 {
            let is = if new == 1 { "is" } else { "are" };
            return if old == 1 {
                format!("1 of the {noun} {}, {new} {is} new", self.from.predates())
            } else {
                format!(
                    "{old} of the {noun} {}, {new} {is} new",
                    self.from.predate()
                )
            };
        }
        match old {
            0 | 1 => self.from.before().to_owned(),
            n => format!("all {n} {}", self.from.before()),
        }
    }
}

/// What the failures of a [`SetAside`] were known from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KnownFrom {
    /// A report given to `verdict run --baseline`.
    Baseline,
    /// The tree an agent's session began on (`verdict hook`).
    Session,
    /// The tree `verdict loop` began on (`new_failures_only`).
    Loop,
}

impl KnownFrom {
    /// `from before this session`, `in the baseline`.
    pub fn before(self) -> &'static str {
        match self {
            KnownFrom::Baseline => "in the baseline",
            KnownFrom::Session => "from before this session",
            KnownFrom::Loop => "from before the loop began",
        }
    }

    /// `predate this session`, `are in the baseline`: said of several failures.
    pub fn predate(self) -> &'static str {
        match self {
            KnownFrom::Baseline => "are in the baseline",
            KnownFrom::Session => "predate this session",
            KnownFrom::Loop => "predate the loop",
        }
    }

    /// `predates this session`, `is in the baseline`: said of one failure.
    pub fn predates(self) -> &'static str {
        match self {
            KnownFrom::Baseline => "is in the baseline",
            KnownFrom::Session => "predates this session",
            KnownFrom::Loop => "predates the loop",
        }
    }
}

/// How far a tool's output shows that the tool ran and checked something.
///
/// A tool replaced by `exit 0` prints nothing, and tsc and eslint print nothing on success either:
/// the exit code alone cannot tell the two apart. Ordered from the least to the most.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Evidence {
    /// No line of the tool's own was read.
    #[default]
    Nothing,
    /// Lines of the tool's own, or the package manager's line that ran it, but none that shows
    /// what it checked.
    Ran,
    /// The tool showed that it checked something: its counts or summary, a diagnostic, a test,
    /// its machine-readable report.
    Checked,
}

/// One test as its tool reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TestCase {
    /// The test's full name, as in [`Diagnostic::test`] for a failing one.
    pub name: String,
    /// The file (or, where the tool gives no file, the suite or module) it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// How it ended.
    pub status: TestStatus,
    /// How long it ran, in milliseconds, where the tool said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl TestCase {
    /// Replaces the secrets in the test's name and file.
    fn redact(&mut self) {
        redact_in_place(&mut self.name);
        if let Some(file) = &mut self.file {
            redact_in_place(file);
        }
    }
}

/// How one [`TestCase`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    /// It passed (an unexpected pass of an expected failure too).
    Passed,
    /// It failed its own check.
    Failed,
    /// It errored around its check: set-up or tear-down raised (see [`Diagnostic::test_error`]).
    Errored,
    /// It was skipped, pending, todo, ignored, or failed as expected (xfail).
    Skipped,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Report {
    /// An empty report for `tool` with the given outcome.
    pub fn new(tool: &str, outcome: Outcome) -> Self {
        Report {
            tool: tool.to_owned(),
            outcome,
            counts: Counts::default(),
            diagnostics: Vec::new(),
            diagnostics_dropped: 0,
            summary: None,
            error: None,
            notes: Vec::new(),
            tests: Vec::new(),
            tests_dropped: 0,
            set_aside: None,
            evidence: Evidence::Nothing,
            evidence_needed: None,
        }
    }

    /// Records what the parser saw of its tool; the strongest evidence seen is kept.
    pub fn saw(&mut self, evidence: Evidence) {
        self.evidence = self.evidence.max(evidence);
    }

    /// How far the output shows its tool checked something: what the parser marked, and
    /// [`Evidence::Checked`] for any summary line, diagnostic or test the tool reported or
    /// counted.
    pub fn evidence(&self) -> Evidence {
        let counted = |n: Option<u64>| n.is_some_and(|n| n > 0);
        let c = &self.counts;
        if self.summary.is_some()
            || self.diagnostics_found() > 0
            || !self.tests.is_empty()
            || self.tests_dropped > 0
            || counted(c.tests_passed)
            || counted(c.tests_failed)
            || counted(c.tests_skipped)
            || counted(c.tests_xpassed)
        {
            Evidence::Checked
        } else {
            self.evidence
        }
    }

    /// Makes a pass need [`Evidence::Checked`] (see [`Report::evidence_needed`]); `missing` says
    /// what is missing without it, as the error of the run (`tsc printed nothing to show it
    /// checked any file`).
    pub fn needs_evidence(&mut self, missing: impl Into<String>) {
        self.evidence_needed = Some(missing.into());
    }

    /// Records a test the tool reported (its name redacted), or only counts it once
    /// [`MAX_TESTS`] are kept.
    pub fn push_test(&mut self, mut test: TestCase) {
        if self.tests.len() < MAX_TESTS {
            test.redact();
            self.tests.push(test);
        } else {
            self.tests_dropped += 1;
        }
    }

    /// An errored report: nothing could be verified, for the given reason (redacted: it may
    /// quote the tool).
    pub fn errored(tool: &str, reason: impl Into<String>) -> Self {
        let mut report = Report::new(tool, Outcome::Errored);
        let mut reason = reason.into();
        redact_in_place(&mut reason);
        report.error = Some(reason);
        report
    }

    /// Adds a diagnostic (its texts redacted, then its fingerprint computed), or only counts it
    /// once [`MAX_DIAGNOSTICS`] are kept. Redacting here, where tool output enters a report,
    /// means every consumer of the report sees only redacted text, and the fingerprint is the
    /// same whatever the secret was.
    pub fn push(&mut self, mut diagnostic: Diagnostic) {
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            diagnostic.redact();
            diagnostic.refresh_fingerprint();
            self.diagnostics.push(diagnostic);
        } else {
            self.diagnostics_dropped += 1;
        }
    }

    /// Recomputes every fingerprint, for diagnostics changed after they were pushed (a parser
    /// that learns a test's full name later). [`crate::Summarizer::parse`] calls it.
    pub fn refresh_fingerprints(&mut self) {
        for diagnostic in &mut self.diagnostics {
            diagnostic.refresh_fingerprint();
        }
    }

    /// The CI job this report's runs were read from, when the log held several jobs (a `gh run
    /// view --log`): the note [`JOB_NOTE`] begins.
    pub fn job(&self) -> Option<&str> {
        self.notes.iter().find_map(|note| {
            note.strip_prefix(JOB_NOTE)?
                .strip_prefix('`')?
                .strip_suffix('`')
        })
    }

    /// Adds a note about something the parser could not understand (redacted: it may quote the
    /// tool); keeps at most a few.
    pub fn note(&mut self, note: impl Into<String>) {
        const MAX_NOTES: usize = 20;
        if self.notes.len() < MAX_NOTES {
            let mut note = note.into();
            redact_in_place(&mut note);
            self.notes.push(note);
        }
    }

    /// Replaces the secrets in every text of the report: what [`Report::push`] and
    /// [`Report::note`] redact, and what a parser or verifier set directly (the summary, the
    /// error, a diagnostic changed after it was pushed). Fingerprints of changed diagnostics are
    /// refreshed. Every place that finishes a report from tool output calls it, so that nothing
    /// written from a report holds a secret; on a report without any it only reads.
    pub fn redact(&mut self) {
        for text in [&mut self.summary, &mut self.error].into_iter().flatten() {
            redact_in_place(text);
        }
        for note in &mut self.notes {
            redact_in_place(note);
        }
        for test in &mut self.tests {
            test.redact();
        }
        for diagnostic in &mut self.diagnostics {
            if diagnostic.redact() {
                diagnostic.refresh_fingerprint();
            }
        }
    }

    /// All diagnostics found, including those counted but not kept.
    pub fn diagnostics_found(&self) -> u64 {
        self.diagnostics.len() as u64 + self.diagnostics_dropped
    }

    /// Diagnostics kept with [`Severity::Error`].
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }
}

/// How a verifier's result was obtained in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The tool ran.
    Ran,
    /// The tool did not run: its inputs are unchanged since it last passed, and that pass stands.
    Cached,
    /// The tool did not run because a verifier it needs did not pass, or `--fail-fast` stopped the
    /// run; the report is errored and says which.
    Skipped,
    /// The run was interrupted (Ctrl-C) while or before the tool ran; the report is errored.
    Cancelled,
    /// The run is one shard of a run split across machines (`verdict run --shard`), and the tool
    /// did not run in it: it runs whole in the first shard, or this shard got none of its tests.
    /// Neither a pass nor a failure: the report is errored and says why, and `verdict merge`
    /// takes the verifier's result from the shards that ran it.
    NotInShard,
}

impl Status {
    /// The lowercase name used in JSON and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ran => "ran",
            Status::Cached => "cached",
            Status::Skipped => "skipped",
            Status::Cancelled => "cancelled",
            Status::NotInShard => "not_in_shard",
        }
    }
}

/// One verifier's part of a run: which verifier, how its result was obtained, and the [`Report`].
///
/// The report's outcome is final: the pipeline has already reconciled it with the exit code
/// (a failing exit with nothing understood, a time-out, a crash: errored, never passed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// The verifier's name (`tsc`, `cargo-test`, a project-defined name); what `--only` takes.
    pub verifier: String,
    /// The kind of check it is.
    pub kind: Kind,
    /// How the result was obtained.
    pub status: Status,
    /// What it found.
    pub report: Report,
    /// The argv it ran, for people to reproduce it (`None` when nothing ran).
    pub command: Option<Vec<String>>,
    /// Where its full output is, relative to the workspace root where possible.
    pub log: Option<String>,
    /// How long it took (zero when cached or skipped).
    pub duration: std::time::Duration,
    /// What people should know about how it ran: `cached`, `re-ran 3 failed tests first`,
    /// `2 known failures set aside (baseline)`.
    pub notes: Vec<String>,
}

impl Verification {
    /// The outcome of the verifier.
    pub fn outcome(&self) -> Outcome {
        self.report.outcome
    }
}

/// The outcome of a whole run: errored if any verifier errored, else failed if any failed, else
/// passed. An empty run has verified nothing and is errored.
///
/// A verifier [`Status::Skipped`] (a need that did not pass, `--fail-fast`) is a consequence, never
/// the cause: the verifier that did not pass decides. A verifier [`Status::NotInShard`] did not run
/// in this shard and decides nothing either; a shard in which nothing ran is errored. A build that fails and the tests it gates
/// make a run that failed (exit 1), not one that could not verify. A run of nothing but skipped
/// verifiers cannot happen (something must have not passed first); it would be errored.
pub fn overall(verifications: &[Verification]) -> Outcome {
    let deciding: Vec<&Verification> = verifications
        .iter()
        .filter(|v| !matches!(v.status, Status::Skipped | Status::NotInShard))
        .collect();
    if deciding.is_empty() {
        return Outcome::Errored;
    }
    let outcomes = deciding.iter().map(|v| v.outcome());
    if outcomes.clone().any(|o| o == Outcome::Errored) {
        Outcome::Errored
    } else if outcomes.clone().any(|o| o == Outcome::Failed) {
        Outcome::Failed
    } else {
        Outcome::Passed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verification(name: &str, status: Status, outcome: Outcome) -> Verification {
        Verification {
            verifier: name.to_owned(),
            kind: Kind::Test,
            status,
            report: Report::new(name, outcome),
            command: None,
            log: None,
            duration: std::time::Duration::ZERO,
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_skipped_verifier_never_decides_the_run() {
        let build = verification("build", Status::Ran, Outcome::Failed);
        let tests = verification("tests", Status::Skipped, Outcome::Errored);
        assert_eq!(overall(&[build.clone(), tests.clone()]), Outcome::Failed);
        let crashed = verification("lint", Status::Ran, Outcome::Errored);
        assert_eq!(overall(&[build, tests.clone(), crashed]), Outcome::Errored);
        let cancelled = verification("slow", Status::Cancelled, Outcome::Errored);
        assert_eq!(overall(&[cancelled]), Outcome::Errored);
        assert_eq!(overall(&[tests]), Outcome::Errored);
        assert_eq!(overall(&[]), Outcome::Errored);
    }

    #[test]
    fn fingerprint_ignores_line_and_digits_in_message_but_not_file() {
        let fingerprint = |mut d: Diagnostic| {
            d.refresh_fingerprint();
            d
        };
        let a = Diagnostic::new("tsc", Kind::Type, Severity::Error, "Expected 2 arguments")
            .at("src/a.ts", Some(3), Some(1))
            .with_code("TS2554");
        let b = Diagnostic::new("tsc", Kind::Type, Severity::Error, "Expected 3 arguments")
            .at("./src/a.ts", Some(40), Some(9))
            .with_code("TS2554");
        let c = Diagnostic::new("tsc", Kind::Type, Severity::Error, "Expected 2 arguments")
            .at("src/b.ts", Some(3), Some(1))
            .with_code("TS2554");
        let (a, b, c) = (fingerprint(a), fingerprint(b), fingerprint(c));
        assert_eq!(a.fingerprint, b.fingerprint);
        assert_ne!(a.fingerprint, c.fingerprint);
    }

    #[test]
    fn fingerprint_round_trips_through_json() {
        let d = Diagnostic::new("pytest", Kind::Test, Severity::Error, "assert 1 == 2")
            .with_test("tests/test_a.py::test_one");
        let json = serde_json::to_string(&d).expect("serializes");
        let back: Diagnostic = serde_json::from_str(&json).expect("deserializes");
        assert_eq!(back, d);
    }

    #[test]
    fn a_secret_never_enters_a_report_and_leaves_its_fingerprint_alone() {
        let diagnostic = |secret: &str| {
            Diagnostic::new(
                "pytest",
                Kind::Test,
                Severity::Error,
                format!("KeyError: DATABASE_PASSWORD={secret} rejected"),
            )
            .with_test("tests/test_db.py::test_connect")
            .with_detail(format!("token ghp_{secret}0123456789abcdefghijklmnop"))
        };
        let mut one = Report::new("pytest", Outcome::Failed);
        one.push(diagnostic("Hunter2Zq7xPw"));
        one.note("saw api_key=\"Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB\" in the output");
        let mut other = Report::new("pytest", Outcome::Failed);
        other.push(diagnostic("Tr0ub4dorQk9"));
        let (a, b) = (&one.diagnostics[0], &other.diagnostics[0]);
        assert_eq!(
            a.message,
            "KeyError: DATABASE_PASSWORD=[redacted:secret] rejected"
        );
        assert_eq!(a.detail.as_deref(), Some("token [redacted:github-token]"));
        assert_eq!(a.fingerprint, b.fingerprint);
        assert_eq!(
            one.notes,
            ["saw api_key=\"[redacted:secret]\" in the output"]
        );
        // What a parser sets directly is redacted by the sweep, which changes nothing twice.
        one.summary = Some("export AWS_SESSION_TOKEN=FwoGZXIvYXdzEJr0123456789abcdEFGH".into());
        one.diagnostics[0].message = "password: \"s3cr3t-Value\"".into();
        one.redact();
        assert_eq!(
            one.summary.as_deref(),
            Some("export AWS_SESSION_TOKEN=[redacted:secret]")
        );
        assert_eq!(
            one.diagnostics[0].message,
            "password: \"[redacted:secret]\""
        );
        let once = one.clone();
        one.redact();
        assert_eq!(one, once);
        let errored = Report::errored(
            "pytest",
            "crashed: Authorization: Bearer abc123def456ghi789",
        );
        assert_eq!(
            errored.error.as_deref(),
            Some("crashed: Authorization: Bearer [redacted:authorization]")
        );
    }

    #[test]
    fn report_counts_diagnostics_beyond_the_cap() {
        let mut report = Report::new("generic", Outcome::Failed);
        for i in 0..MAX_DIAGNOSTICS + 5 {
            report.push(Diagnostic::new(
                "generic",
                Kind::Custom,
                Severity::Error,
                format!("e{i}"),
            ));
        }
        assert_eq!(report.diagnostics.len(), MAX_DIAGNOSTICS);
        assert_eq!(report.diagnostics_dropped, 5);
        assert_eq!(report.diagnostics_found(), MAX_DIAGNOSTICS as u64 + 5);
    }
}
