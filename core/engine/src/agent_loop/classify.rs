//! Failure classification (seed 004's taxonomy) and failure sets.
//!
//! [`classify`] reads only verdict's model — the kinds and outcomes of the verifications, the
//! reasons an errored verifier gives, the codes of root causes — never a tool's raw output, so it
//! works the same for every verifier. The order of the checks is the order of what explains the
//! rest: a machine out of memory or a time-out explains failing tests, a missing module explains
//! the type errors that follow it, a build error explains tests that cannot run.
//!
//! [`FailureSet`] is what "the same failure twice" and "failures already there" are computed on:
//! the set of failure fingerprints of a verification (tool, code, file, test name — no lines, see
//! [`Fingerprint`]), with a short label for each so the prompt and the history can say what failed.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::LazyLock;

use regex::RegexSet;
use serde::{Deserialize, Serialize};

use crate::model::{Fingerprint, Kind, Outcome, Severity, Verification};

/// What sort of failure a verification ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The code does not build or type-check.
    CodeError,
    /// Tests ran and failed, or a test file did not load.
    TestFailure,
    /// A linter found errors.
    Lint,
    /// A network or service failure during verification that may pass on its own.
    Transient,
    /// A verifier ran out of time.
    Timeout,
    /// Out of memory or disk, or killed by the system.
    ResourceExhaustion,
    /// A module, package or tool could not be found.
    DependencyMissing,
    /// A failure that came and went with no change to the workspace (decided by the driver from a
    /// re-run, see [`flaky`]).
    Flaky,
    /// Nothing above fits.
    Unknown,
}

impl Category {
    /// Every category, in declaration order.
    pub const ALL: [Category; 9] = [
        Category::CodeError,
        Category::TestFailure,
        Category::Lint,
        Category::Transient,
        Category::Timeout,
        Category::ResourceExhaustion,
        Category::DependencyMissing,
        Category::Flaky,
        Category::Unknown,
    ];

    /// The snake_case name used in configuration, events and the state database.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::CodeError => "code_error",
            Category::TestFailure => "test_failure",
            Category::Lint => "lint",
            Category::Transient => "transient",
            Category::Timeout => "timeout",
            Category::ResourceExhaustion => "resource_exhaustion",
            Category::DependencyMissing => "dependency_missing",
            Category::Flaky => "flaky",
            Category::Unknown => "unknown",
        }
    }

    /// The category named `name` (as [`Category::as_str`] spells it).
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What [`classify`] concluded about a failed verification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Classification {
    /// The category.
    pub category: Category,
    /// How sure the classification is, from 0 to 1: about 0.9 when one kind of verifier failed for a
    /// reason verdict recognises, lower when several kinds failed or the reason is only a pattern in
    /// free text, 0.5 for [`Category::Unknown`].
    pub confidence: f32,
    /// Where to start: `file:line` (or `file`) of the first root cause or error of the deciding
    /// verifier, when one is known.
    pub main_location: Option<String>,
    /// One short line saying what failed, for the history and the prompt's list of earlier attempts:
    /// `tsc failed: 3 errors; jest failed: 2 failed`.
    pub summary: String,
}

/// Reasons that mean the machine ran out of something.
static RESOURCE: LazyLock<RegexSet> = LazyLock::new(|| {
    regex_set(&[
        r"(?i)\bENOMEM\b",
        r"(?i)\bENOSPC\b",
        r"(?i)out of memory",
        r"(?i)no space left",
        r"(?i)cannot allocate memory",
        r"(?i)heap limit|allocation failed",
        r"\bMemoryError\b",
        r"(?i)disk quota exceeded",
        r"(?i)too many open files|\bEMFILE\b",
    ])
});

/// Killed by `SIGKILL`: usually the kernel's out-of-memory killer, so a weaker sign of the same.
static KILLED: LazyLock<RegexSet> =
    LazyLock::new(|| regex_set(&[r"(?i)signal 9\b", r"(?i)\bSIGKILL\b"]));

/// Reasons that mean a verifier ran out of time.
static TIMEOUT: LazyLock<RegexSet> =
    LazyLock::new(|| regex_set(&[r"(?i)\btimed out\b", r"(?i)\btime-?out\b"]));

/// Reasons that mean something the code or the tool needs is not there.
static DEPENDENCY: LazyLock<RegexSet> = LazyLock::new(|| {
    regex_set(&[
        r"(?i)not installed",
        r"(?i)cannot find module",
        r"(?i)cannot find package",
        r"\bModuleNotFoundError\b",
        r"(?i)no module named",
        r"(?i)command not found",
        r"(?i)not found on PATH",
        r"(?i)unresolved import",
        r"(?i)can't find crate",
        r"(?i)failed to resolve: use of undeclared (crate|module)",
        r"(?i)\bERR_MODULE_NOT_FOUND\b",
    ])
});

/// A file that is not there: for an errored verifier, its program or its configuration (a failing
/// test that reads a missing file is the code's business, so failed verifiers are not read for it).
static MISSING_FILE: LazyLock<RegexSet> =
    LazyLock::new(|| regex_set(&[r"(?i)no such file or directory", r"(?i)\bENOENT\b"]));

/// Reasons that look like a network or service failure.
static TRANSIENT: LazyLock<RegexSet> = LazyLock::new(|| {
    regex_set(&[
        r"\b(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|EHOSTUNREACH|ENETUNREACH)\b",
        r"(?i)socket hang up",
        r"(?i)rate.?limit",
        r"(?i)too many requests",
        r"(?i)\b(429|502|503|504)\b.*(status|error|response)|(status|error|response)\D{0,20}\b(429|502|503|504)\b",
        r"(?i)service unavailable|temporarily unavailable|bad gateway",
        r"(?i)network (error|is unreachable)",
        r"(?i)connection (reset|refused)",
    ])
});

fn regex_set(patterns: &[&str]) -> RegexSet {
    // The patterns are constants of this module; a test compiles every set.
    RegexSet::new(patterns).expect("classification patterns are valid regexes")
}

/// One failing verifier, as [`classify`] sees it.
struct Failing<'a> {
    verification: &'a Verification,
    /// The texts that explain why: the errored reason, the root causes' messages.
    reasons: Vec<&'a str>,
}

impl Failing<'_> {
    fn matches(&self, set: &RegexSet) -> bool {
        self.reasons.iter().any(|r| set.is_match(r))
    }
}

/// Classifies the failed verifications of one attempt.
///
/// Only verifications that did not pass are read. With none, the result is
/// [`Category::Unknown`] with confidence 0 and the summary `nothing failed`: a caller that
/// classifies a pass has a bug, and the result says so rather than inventing a failure.
pub fn classify(verifications: &[Verification]) -> Classification {
    let failing: Vec<Failing<'_>> = verifications
        .iter()
        .filter(|v| v.outcome() != Outcome::Passed)
        .map(|v| Failing {
            verification: v,
            reasons: reasons(v),
        })
        .collect();
    if failing.is_empty() {
        return Classification {
            category: Category::Unknown,
            confidence: 0.0,
            main_location: None,
            summary: "nothing failed".to_owned(),
        };
    }
    let summary = summary(&failing);
    let (category, confidence, deciding) = decide_category(&failing);
    let main_location = deciding
        .into_iter()
        .chain(failing.iter().map(|f| f.verification))
        .find_map(main_location);
    Classification {
        category,
        confidence,
        main_location,
        summary,
    }
}

/// The category, its confidence, and the verification that decided it (for the location).
fn decide_category<'a>(failing: &[Failing<'a>]) -> (Category, f32, Option<&'a Verification>) {
    let errored = || {
        failing
            .iter()
            .filter(|f| f.verification.outcome() == Outcome::Errored)
    };
    let first = |set: &RegexSet| {
        failing
            .iter()
            .find(|f| f.matches(set))
            .map(|f| f.verification)
    };
    // Errored verifiers first: a reason that explains why nothing could be verified outranks the
    // failures of the others, which may well be its consequences.
    if let Some(v) = errored().find(|f| f.matches(&RESOURCE)) {
        return (Category::ResourceExhaustion, 0.9, Some(v.verification));
    }
    if let Some(v) = errored().find(|f| f.matches(&TIMEOUT)) {
        return (Category::Timeout, 0.9, Some(v.verification));
    }
    if let Some(v) = errored().find(|f| f.matches(&KILLED)) {
        return (Category::ResourceExhaustion, 0.6, Some(v.verification));
    }
    if let Some(v) = errored().find(|f| f.matches(&DEPENDENCY) || f.matches(&MISSING_FILE)) {
        return (Category::DependencyMissing, 0.85, Some(v.verification));
    }
    if let Some(v) = errored().find(|f| f.matches(&TRANSIENT)) {
        return (Category::Transient, 0.8, Some(v.verification));
    }
    // A failed verifier whose every error is a missing module: nothing else is wrong. (A missing
    // module among other errors is usually a broken import of the code's own: a code error.)
    if let Some(f) = failing
        .iter()
        .find(|f| only_missing_modules(f.verification))
    {
        return (Category::DependencyMissing, 0.75, Some(f.verification));
    }
    let failed_kind = |kinds: &[Kind]| {
        failing.iter().find(|f| {
            f.verification.outcome() == Outcome::Failed && kinds.contains(&f.verification.kind)
        })
    };
    let kinds_failing = {
        let mut kinds: Vec<Kind> = failing.iter().map(|f| f.verification.kind).collect();
        kinds.sort();
        kinds.dedup();
        kinds.len()
    };
    // One kind failing is a clear signal; several at once are likely one cause seen several ways,
    // and the most fundamental is named with less certainty.
    let sure = |high: f32| if kinds_failing == 1 { high } else { high - 0.1 };
    if let Some(f) = failed_kind(&[Kind::Build, Kind::Type]) {
        return (Category::CodeError, sure(0.9), Some(f.verification));
    }
    if let Some(f) = failed_kind(&[Kind::Test]) {
        if f.matches(&TRANSIENT) {
            return (Category::Transient, 0.6, Some(f.verification));
        }
        return (Category::TestFailure, sure(0.85), Some(f.verification));
    }
    if let Some(f) = failed_kind(&[Kind::Lint]) {
        return (Category::Lint, sure(0.9), Some(f.verification));
    }
    if let Some(v) = first(&TRANSIENT) {
        return (Category::Transient, 0.6, Some(v));
    }
    (
        Category::Unknown,
        0.5,
        failing.first().map(|f| f.verification),
    )
}

/// A failed verification whose errors are all missing modules (at least one).
fn only_missing_modules(v: &Verification) -> bool {
    let mut errors = v.report.errors().peekable();
    v.outcome() == Outcome::Failed
        && errors.peek().is_some()
        && errors.all(|d| {
            DEPENDENCY.is_match(&d.message)
                || d.detail.as_deref().is_some_and(|t| DEPENDENCY.is_match(t))
        })
}

/// The texts that explain a failing verification: the errored reason, then the messages of root
/// causes (or of the first errors when none is marked), then the summary line.
fn reasons(v: &Verification) -> Vec<&str> {
    let report = &v.report;
    let mut reasons: Vec<&str> = report.error.iter().map(String::as_str).collect();
    let root: Vec<&str> = report
        .diagnostics
        .iter()
        .filter(|d| d.root_cause)
        .map(|d| d.message.as_str())
        .take(5)
        .collect();
    if root.is_empty() {
        reasons.extend(report.errors().map(|d| d.message.as_str()).take(3));
    } else {
        reasons.extend(root);
    }
    if report.outcome == Outcome::Errored {
        reasons.extend(report.summary.as_deref());
        reasons.extend(v.notes.iter().map(String::as_str));
    }
    reasons
}

/// `file:line` of the first root cause, else of the first error, of `v`.
fn main_location(v: &Verification) -> Option<String> {
    let diagnostics = &v.report.diagnostics;
    let errors = || diagnostics.iter().filter(|d| d.severity == Severity::Error);
    errors()
        .filter(|d| d.root_cause)
        .chain(errors())
        .find(|d| d.file.is_some())
        .and_then(|d| {
            let file = d.file.as_deref()?;
            Some(match d.line {
                Some(line) => format!("{file}:{line}"),
                None => file.to_owned(),
            })
        })
}

/// `tsc failed: 3 errors; jest errored: jest timed out after 90s`, each part short.
fn summary(failing: &[Failing<'_>]) -> String {
    const MAX_PART: usize = 80;
    let parts: Vec<String> = failing
        .iter()
        .map(|f| {
            let v = f.verification;
            let report = &v.report;
            let what = match report.outcome {
                Outcome::Errored => report.error.clone().unwrap_or_else(|| "errored".to_owned()),
                _ => count_phrase(v),
            };
            let what = what.lines().next().unwrap_or_default().trim().to_owned();
            let what = shorten(&what, MAX_PART);
            format!("{} {}: {what}", v.verifier, report.outcome.as_str())
        })
        .collect();
    parts.join("; ")
}

/// The failures in the tool's own units, labelled (`2 tests failed`, `3 errors`), or the tool's
/// own summary line: what the tool counts, which is not the number of distinct failures by
/// fingerprint (a test can fail twice, an error can repeat). Where known failures were set aside,
/// says how many of them predate the loop.
fn count_phrase(v: &Verification) -> String {
    let phrase = tool_count_phrase(v);
    match &v.report.set_aside {
        Some(aside) => aside.after_counts(&v.report, &phrase),
        None => phrase,
    }
}

/// [`count_phrase`] without what was set aside.
fn tool_count_phrase(v: &Verification) -> String {
    let counts = &v.report.counts;
    if let Some(failed) = counts.tests_failed.filter(|n| *n > 0) {
        let mut phrase = format!("{failed} test{} failed", if failed == 1 { "" } else { "s" });
        if let Some(suites) = counts.suites_errored.filter(|n| *n > 0) {
            phrase.push_str(&format!(
                ", {suites} file{} not loaded",
                if suites == 1 { "" } else { "s" }
            ));
        }
        return phrase;
    }
    if let Some(suites) = counts.suites_errored.filter(|n| *n > 0) {
        return format!(
            "{suites} test file{} not loaded",
            if suites == 1 { "" } else { "s" }
        );
    }
    if let Some(errors) = counts.errors.filter(|n| *n > 0) {
        return format!("{errors} error{}", if errors == 1 { "" } else { "s" });
    }
    let errors = v.report.errors().count();
    if errors > 0 {
        return format!("{errors} error{}", if errors == 1 { "" } else { "s" });
    }
    v.report
        .summary
        .clone()
        .unwrap_or_else(|| "failed".to_owned())
}

fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The set of failures of a verification: one fingerprint per distinct failure, with a short label.
///
/// A failure is an error-severity diagnostic of a verifier that did not pass (its
/// [`Fingerprint`] names tool, code, file and test, not the line). A verifier that errored, or
/// failed without a diagnostic verdict could attribute, is one failure of its own, fingerprinted
/// from its name and reason (digits ignored, so `timed out after 90s` and `after 91s` are the same).
/// Warnings are not failures. Ordered by fingerprint, so equal sets compare and serialize equal.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureSet {
    failures: BTreeMap<Fingerprint, String>,
}

impl FailureSet {
    /// The failures of one run's verifications.
    pub fn from_verifications(verifications: &[Verification]) -> FailureSet {
        let mut set = FailureSet::default();
        for v in verifications {
            let report = &v.report;
            match report.outcome {
                Outcome::Passed => {}
                Outcome::Errored => {
                    let reason = report.error.as_deref().unwrap_or("errored");
                    set.insert(
                        Fingerprint::compute(&v.verifier, Some("errored"), None, None, reason),
                        format!("{} errored: {}", v.verifier, shorten(reason, 60)),
                    );
                }
                Outcome::Failed => {
                    let mut any = false;
                    for d in report.errors() {
                        any = true;
                        set.insert(d.fingerprint, label(d));
                    }
                    if !any {
                        let summary = report.summary.as_deref().unwrap_or("failed");
                        set.insert(
                            Fingerprint::compute(&v.verifier, Some("failed"), None, None, summary),
                            format!("{} failed: {}", v.verifier, shorten(summary, 60)),
                        );
                    }
                }
            }
        }
        set
    }

    /// Adds one failure (for callers that build sets from elsewhere, such as tests or the guard).
    pub fn insert(&mut self, fingerprint: Fingerprint, label: impl Into<String>) {
        self.failures
            .entry(fingerprint)
            .or_insert_with(|| label.into());
    }

    /// No failure.
    pub fn is_empty(&self) -> bool {
        self.failures.is_empty()
    }

    /// The number of distinct failures.
    pub fn len(&self) -> usize {
        self.failures.len()
    }

    /// Whether `fingerprint` is one of the failures.
    pub fn contains(&self, fingerprint: Fingerprint) -> bool {
        self.failures.contains_key(&fingerprint)
    }

    /// The failures, ordered by fingerprint, each with its label.
    pub fn iter(&self) -> impl Iterator<Item = (Fingerprint, &str)> {
        self.failures.iter().map(|(f, l)| (*f, l.as_str()))
    }

    /// Exactly the same failures as `other` (labels aside).
    pub fn same_as(&self, other: &FailureSet) -> bool {
        self.failures.len() == other.failures.len()
            && self.failures.keys().all(|f| other.failures.contains_key(f))
    }

    /// The failures that are not in `baseline`: what this attempt broke or left broken anew.
    pub fn new_since(&self, baseline: &FailureSet) -> FailureSet {
        self.filter(|f| !baseline.contains(f))
    }

    /// The failures that `baseline` already had.
    pub fn known_in(&self, baseline: &FailureSet) -> FailureSet {
        self.filter(|f| baseline.contains(f))
    }

    /// The failures that block the loop: all of them, or with `new_failures_only` and a baseline,
    /// only those the baseline did not have (issue 4, item 5).
    pub fn blocking(&self, baseline: Option<&FailureSet>, new_failures_only: bool) -> FailureSet {
        match baseline {
            Some(baseline) if new_failures_only => self.new_since(baseline),
            _ => self.clone(),
        }
    }

    fn filter(&self, keep: impl Fn(Fingerprint) -> bool) -> FailureSet {
        FailureSet {
            failures: self
                .failures
                .iter()
                .filter(|(f, _)| keep(**f))
                .map(|(f, l)| (*f, l.clone()))
                .collect(),
        }
    }
}

/// `eslint no-undef src/a.js`, `jest cart › adds items`: enough to recognise a failure in a list.
fn label(d: &crate::model::Diagnostic) -> String {
    let mut label = d.tool.clone();
    for part in [d.code.as_deref(), d.test.as_deref().or(d.file.as_deref())]
        .into_iter()
        .flatten()
    {
        label.push(' ');
        label.push_str(part);
    }
    if d.code.is_none() && d.test.is_none() {
        label.push(' ');
        label.push_str(&shorten(&d.message, 40));
    }
    shorten(&label, 100)
}

/// The failures that differ between two verifications of an unchanged workspace: those that
/// disappeared on the re-run and those that appeared in it. Each is flaky — with no change to the
/// workspace, the code cannot be what made it come or go.
pub fn flaky_failures(first: &FailureSet, rerun: &FailureSet) -> FailureSet {
    let mut flaky = first.new_since(rerun);
    for (f, l) in rerun.new_since(first).iter() {
        flaky.insert(f, l);
    }
    flaky
}

/// Whether re-verifying an unchanged workspace changed the failures (see [`flaky_failures`]). Also
/// the test for a failure that appears with no change since a pass: `flaky(&FailureSet::default(),
/// &now)`.
pub fn flaky(first: &FailureSet, rerun: &FailureSet) -> bool {
    !first.same_as(rerun)
}
