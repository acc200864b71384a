//! The JSON report jest writes with `--json --outputFile` (and vitest with `--reporter=json`, in
//! the same shape), turned into a [`verdict_model::Report`].
//!
//! What the report holds, and what becomes of it:
//! - the counts `numFailedTests`, `numPassedTests`, `numPendingTests` + `numTodoTests` (both
//!   skipped), `numRuntimeErrorTestSuites` (jest only; for vitest the suites that failed with a
//!   message and no test are counted instead);
//! - `testResults[]`, one per test file (`name` is an absolute path, made relative to the project
//!   root when it is known), with `assertionResults[]`, one per test: a `failed` one becomes a
//!   diagnostic per entry of its `failureMessages` (a test fails more than once with vitest's
//!   `expect.soft` or a jest `afterEach` that throws too), named by its `ancestorTitles` and
//!   `title` joined the way the tool prints them in its human output (jest ` › `, vitest ` > `), so
//!   that both parses of one run name a test alike. Its message is the first line of the entry
//!   (ANSI stripped), the detail the lines after it up to the stack, and its line the first stack
//!   frame in the test file (else the `location` the tool recorded);
//! - a test file that failed with a `message` and no failing test did not load (a syntax error, a
//!   missing module): a root cause. jest's message is the `● Test suite failed to run` block of its
//!   human output, so it is read by the [`jest`](crate::jest) summarizer; vitest's is the error
//!   alone. A jest file with failing tests whose message also has that block (an `afterAll` that
//!   threw) gets its root cause too;
//! - `wasInterrupted`, a report with no test file and no test, and `success: false` with nothing
//!   that failed (a coverage threshold, an error outside any test) are errored: the log says more.
//!
//! A report that is not JSON, or not of this shape (a file cut off when the tool was killed), is
//! errored with the parser's message; parsing never panics.

use serde::Deserialize;
use verdict_model::{Diagnostic, Kind, Outcome, Report, Summarizer, TestCase, TestStatus};

use crate::js_test::{
    Diff, MAX_DETAIL, MAX_MESSAGE, failure, is_code_frame, is_diff_label, is_internal, one_line,
    strip_equality_note, v8_frame,
};
use crate::text::clip;

/// The parts of the report this parser reads; everything is optional so that another version's
/// report still parses.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonReport {
    num_total_tests: Option<u64>,
    num_passed_tests: Option<u64>,
    num_failed_tests: Option<u64>,
    num_pending_tests: Option<u64>,
    num_todo_tests: Option<u64>,
    num_runtime_error_test_suites: Option<u64>,
    success: Option<bool>,
    was_interrupted: Option<bool>,
    test_results: Option<Vec<FileResult>>,
    snapshot: Option<SnapshotSummary>,
}

/// jest's snapshot totals: what it fails a run for when every test passed.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SnapshotSummary {
    /// Snapshots no test read (obsolete).
    unchecked: Option<u64>,
    /// Snapshot files whose test file is gone.
    files_removed: Option<u64>,
    /// `-u` removed them: no failure.
    did_update: Option<bool>,
    #[serde(default)]
    unchecked_keys_by_file: Vec<UncheckedKeys>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UncheckedKeys {
    #[serde(default)]
    file_path: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileResult {
    #[serde(default)]
    name: String,
    status: Option<String>,
    message: Option<String>,
    #[serde(default)]
    assertion_results: Vec<TestResult>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TestResult {
    #[serde(default)]
    ancestor_titles: Vec<String>,
    #[serde(default)]
    title: String,
    full_name: Option<String>,
    #[serde(default)]
    status: String,
    #[serde(default)]
    failure_messages: Vec<String>,
    location: Option<Location>,
    /// Milliseconds (jest, vitest); `null` for a test that did not run.
    duration: Option<f64>,
}

#[derive(Debug, Deserialize)]
struct Location {
    line: Option<u32>,
    column: Option<u32>,
}

/// How sure `tool` wrote `sample` when it starts as a JSON report: 99 when the report is
/// `tool`'s (see [`writer_of`]), 0 when it is the other runner's; `None` when it is no such report,
/// and the sample is sniffed as text.
pub(crate) fn sniff_document(sample: &str, tool: &str) -> Option<u8> {
    crate::document::starts_as_object(sample).then(|| {
        if writer_of(sample) == Some(tool) {
            99
        } else {
            0
        }
    })
}

/// Which tool wrote a jest-format JSON report, from a cleaned sample of it: `jest` when it has
/// the keys only jest writes (`numRuntimeErrorTestSuites`, `openHandles`), else `vitest`; `None`
/// when the sample does not start as such a report.
pub(crate) fn writer_of(sample: &str) -> Option<&'static str> {
    if !crate::document::starts_as_object(sample)
        || !sample.contains("\"numTotalTests\"")
        || !sample.contains("\"testResults\"")
    {
        return None;
    }
    if sample.contains("\"numRuntimeErrorTestSuites\"") || sample.contains("\"openHandles\"") {
        Some("jest")
    } else {
        Some("vitest")
    }
}

/// A JSON document given to `verdict summarize` as jest's report; `None` when it is not one.
pub(crate) fn jest_document(json: &[u8]) -> Option<Report> {
    is_report(json).then(|| parse("jest", json))
}

/// A JSON document given to `verdict summarize` as vitest's report; `None` when it is not one.
pub(crate) fn vitest_document(json: &[u8]) -> Option<Report> {
    is_report(json).then(|| parse("vitest", json))
}

fn is_report(json: &[u8]) -> bool {
    let has = |key: &str| memchr::memmem::find(json, key.as_bytes()).is_some();
    has("\"testResults\"") && has("\"numTotalTests\"")
}

/// Parses a jest-format JSON report written by `tool` (`jest` or `vitest`), keeping file paths as
/// the report gives them (absolute). Prefer [`parse_relative_to`] when the project root is known.
pub fn parse(tool: &str, json: &[u8]) -> Report {
    parse_inner(tool, json, None)
}

/// Parses a jest-format JSON report written by `tool` (`jest` or `vitest`) for the project at
/// `root` (an absolute path): file paths under it are made relative to it, as the tools' human
/// output prints them.
pub fn parse_relative_to(tool: &str, json: &[u8], root: &str) -> Report {
    let root = root.trim_end_matches('/');
    parse_inner(tool, json, (!root.is_empty()).then_some(root))
}

/// The diagnostic for obsolete snapshots, which fail jest's run unless `-u` removed them.
fn obsolete_snapshots(snapshot: &SnapshotSummary, root: Option<&str>) -> Option<Diagnostic> {
    let unchecked = snapshot.unchecked.unwrap_or(0);
    let files_removed = snapshot.files_removed.unwrap_or(0);
    if snapshot.did_update == Some(true) || unchecked + files_removed == 0 {
        return None;
    }
    let message = if unchecked > 0 {
        let suites = snapshot.unchecked_keys_by_file.len();
        format!(
            "{unchecked} snapshot{} obsolete from {suites} test suite{}; re-run jest with `-u` to \
             remove {}",
            if unchecked == 1 { "" } else { "s" },
            if suites == 1 { "" } else { "s" },
            if unchecked == 1 { "it" } else { "them" },
        )
    } else {
        format!(
            "{files_removed} snapshot file{} obsolete; re-run jest with `-u` to remove {}",
            if files_removed == 1 { "" } else { "s" },
            if files_removed == 1 { "it" } else { "them" },
        )
    };
    let mut diagnostic = failure("jest", message);
    diagnostic.kind = Kind::Custom;
    diagnostic.code = Some("obsolete-snapshot".to_owned());
    diagnostic.file = snapshot
        .unchecked_keys_by_file
        .first()
        .filter(|keys| !keys.file_path.is_empty())
        .map(|keys| relative(&keys.file_path, root));
    Some(diagnostic)
}

/// How `tool` joins the describe titles and the test title in its human output.
fn separator(tool: &str) -> &'static str {
    if tool == "vitest" { " > " } else { " › " }
}

fn parse_inner(tool: &str, json: &[u8], root: Option<&str>) -> Report {
    let mut parsed: JsonReport = match serde_json::from_slice(json) {
        Ok(parsed) => parsed,
        Err(error) => {
            return Report::errored(
                tool,
                format!("{tool}'s JSON report could not be read: {error}"),
            );
        }
    };
    let Some(files) = parsed.test_results.take() else {
        return Report::errored(
            tool,
            format!("{tool}'s JSON report has no `testResults`: not a jest-format report"),
        );
    };
    let mut report = Report::new(tool, Outcome::Passed);
    let mut counted = TallyFromTests::default();
    let mut suites_errored = 0u64;
    let mut failed_files = 0u64;
    let mut failed_without_reason = Vec::new();
    for file in &files {
        let path = relative(&file.name, root);
        let before = report.diagnostics_found();
        for test in &file.assertion_results {
            counted.count(&test.status);
            if let Some(status) = test_status(&test.status) {
                report.push_test(TestCase {
                    name: test_name(tool, test, &file.name),
                    file: Some(path.clone()),
                    status,
                    duration_ms: test
                        .duration
                        .filter(|d| d.is_finite() && *d >= 0.0)
                        .map(|d| d.round() as u64),
                });
            }
            if test.status == "failed" {
                for diagnostic in test_diagnostics(tool, &path, &file.name, root, test) {
                    report.push(diagnostic);
                }
            }
        }
        // Only the end is trimmed: jest's message is its human block, whose two-space indent
        // before `● Test suite failed to run` is what makes it a test file's block and not a
        // column-0 configuration error.
        let message = file.message.as_deref().unwrap_or("").trim_end();
        let file_failed = file.status.as_deref() == Some("failed");
        let failing_tests = report.diagnostics_found() - before;
        if file_failed && failing_tests == 0 && !message.trim().is_empty() {
            suites_errored += 1;
            for diagnostic in suite_diagnostics(tool, &path, message, root) {
                report.push(diagnostic);
            }
        } else if file_failed && failing_tests == 0 {
            failed_without_reason.push(path.clone());
        } else if file_failed && tool == "jest" {
            // A file with failing tests whose message also holds a `Test suite failed to run`
            // block: an error outside any test (an `afterAll` that threw). jest counts it in
            // `numRuntimeErrorTestSuites`; the message is the only place that says what it was.
            for diagnostic in jest_suite_blocks(&path, message, root) {
                report.push(diagnostic);
            }
        }
        failed_files += u64::from(file_failed);
    }
    if tool == "jest"
        && parsed.success == Some(false)
        && let Some(diagnostic) = parsed
            .snapshot
            .as_ref()
            .and_then(|snapshot| obsolete_snapshots(snapshot, root))
    {
        report.push(diagnostic);
    }

    set_counts(&mut report, &parsed, &counted, suites_errored, failed_files);
    let nothing_found = files.is_empty() && parsed.num_total_tests.unwrap_or(counted.total) == 0;
    set_outcome(
        tool,
        &mut report,
        &parsed,
        nothing_found,
        failed_without_reason,
    );
    report
}

/// The report's counts: the report's own where it states them, else the tests' statuses.
fn set_counts(
    report: &mut Report,
    parsed: &JsonReport,
    counted: &TallyFromTests,
    suites_errored: u64,
    failed_files: u64,
) {
    let counts = &mut report.counts;
    counts.tests_failed = Some(parsed.num_failed_tests.unwrap_or(counted.failed));
    counts.tests_passed = Some(parsed.num_passed_tests.unwrap_or(counted.passed));
    counts.tests_skipped = Some(match (parsed.num_pending_tests, parsed.num_todo_tests) {
        (None, None) => counted.skipped,
        (pending, todo) => pending.unwrap_or(0) + todo.unwrap_or(0),
    });
    let stated = counts.tests_failed.unwrap_or(0)
        + counts.tests_passed.unwrap_or(0)
        + counts.tests_skipped.unwrap_or(0);
    if parsed.num_total_tests.is_some_and(|total| stated > total) && counted.total > 0 {
        // vitest 1 counts skipped and todo tests in `numPassedTests` too (9 passed of 49 with
        // 40 failed and 1 todo): the tests' own statuses are the counts.
        counts.tests_failed = Some(counted.failed);
        counts.tests_passed = Some(counted.passed);
        counts.tests_skipped = Some(counted.skipped);
    }
    counts.suites_errored = Some(
        parsed
            .num_runtime_error_test_suites
            .unwrap_or(suites_errored),
    );
    counts.files = Some(failed_files);
}

/// The run's outcome, once the failures are in `report`: failed, or errored when the run was
/// interrupted, found no test file (`nothing_found`) or failed without saying why.
fn set_outcome(
    tool: &str,
    report: &mut Report,
    parsed: &JsonReport,
    nothing_found: bool,
    failed_without_reason: Vec<String>,
) {
    if parsed.was_interrupted == Some(true) {
        report.outcome = Outcome::Errored;
        report.error = Some(format!("{tool}: the test run was interrupted"));
    } else if report.diagnostics_found() > 0 || report.counts.tests_failed.unwrap_or(0) > 0 {
        report.outcome = Outcome::Failed;
        for path in failed_without_reason {
            report.note(format!(
                "{tool} marked {path} as failed without a failing test or a message"
            ));
        }
    } else if nothing_found && parsed.success != Some(true) {
        report.outcome = Outcome::Errored;
        report.error = Some(format!("{tool} found no test files: nothing was verified"));
    } else if parsed.success == Some(false) || !failed_without_reason.is_empty() {
        report.outcome = Outcome::Errored;
        report.error = Some(match failed_without_reason.first() {
            Some(path) => format!(
                "{tool} marked {path} as failed without a failing test or a message; see the log"
            ),
            None => format!(
                "{tool} reported a failed run without a failing test (a coverage threshold, an \
                 error outside any test?); see the log"
            ),
        });
    }
}

/// Tallies of the tests themselves, for a report that lacks the `num…` totals.
#[derive(Debug, Default)]
struct TallyFromTests {
    total: u64,
    passed: u64,
    failed: u64,
    skipped: u64,
}

impl TallyFromTests {
    fn count(&mut self, status: &str) {
        self.total += 1;
        match status {
            "passed" => self.passed += 1,
            "failed" => self.failed += 1,
            "pending" | "skipped" | "todo" | "disabled" => self.skipped += 1,
            _ => {}
        }
    }
}

/// `path` relative to `root` when it lies under it.
fn relative(path: &str, root: Option<&str>) -> String {
    let path = crate::js_test::strip_file_url(path);
    match root.and_then(|root| path.strip_prefix(root)?.strip_prefix('/')) {
        Some(rest) => rest.to_owned(),
        None => path.to_owned(),
    }
}

/// `text` with every `<root>/` removed, so that messages name files as the human output does.
fn relativize_text(text: &str, root: Option<&str>) -> String {
    match root {
        Some(root) => text
            .replace(&format!("file://{root}/"), "")
            .replace(&format!("{root}/"), ""),
        None => text.to_owned(),
    }
}

/// The diagnostics of one failing test: one per entry of its `failureMessages` — a test can fail
/// more than once (vitest's `expect.soft`, a jest `afterEach` that throws after the test's own
/// assertion failed), and each failure is its own place in the code. A failed test without a
/// message still gets one.
fn test_diagnostics(
    tool: &str,
    path: &str,
    absolute: &str,
    root: Option<&str>,
    test: &TestResult,
) -> Vec<Diagnostic> {
    if test.failure_messages.is_empty() {
        return vec![test_diagnostic(tool, path, absolute, root, test, "")];
    }
    test.failure_messages
        .iter()
        .map(|raw| test_diagnostic(tool, path, absolute, root, test, raw))
        .collect()
}

/// The diagnostic of one failure (`raw`, an entry of `failureMessages`) of a failing test.
fn test_diagnostic(
    tool: &str,
    path: &str,
    absolute: &str,
    root: Option<&str>,
    test: &TestResult,
    raw: &str,
) -> Diagnostic {
    let text = verdict_model::lines::clean(raw.as_bytes());
    let failure_text = FailureText::read(&text, tool);
    let message = relativize_text(
        failure_text.message.as_deref().unwrap_or("test failed"),
        root,
    );
    let mut diagnostic = failure(tool, clip(&message, MAX_MESSAGE));
    diagnostic.file = Some(path.to_owned());
    let in_file = |frame_file: &str| {
        let frame_file = crate::js_test::strip_file_url(frame_file);
        frame_file == absolute || frame_file == path || relative(frame_file, root) == path
    };
    let frame = text.lines().find_map(|line| {
        let frame = v8_frame(line.trim())?;
        (!frame.is_internal() && in_file(frame.file)).then_some((frame.line, frame.column))
    });
    let location = frame.or_else(|| {
        let location = test.location.as_ref()?;
        Some((location.line?, location.column))
    });
    if let Some((line, column)) = location {
        diagnostic.line = Some(line);
        diagnostic.column = column;
    }
    diagnostic.test = Some(test_name(tool, test, absolute));
    diagnostic.detail = failure_text.detail.map(|d| relativize_text(&d, root));
    diagnostic
}

/// A test's name: its describe titles and title joined the way `tool` prints them. vitest's
/// report of a `--typecheck` type test starts its titles with its file's path (`file`, the
/// report's absolute one), which its human output does not.
fn test_name(tool: &str, test: &TestResult, file: &str) -> String {
    if test.title.is_empty() {
        return test.full_name.clone().unwrap_or_default();
    }
    let separator = separator(tool);
    let mut name = String::new();
    // vitest 1 starts every test's titles with an empty one (the file's own suite).
    let titles = test.ancestor_titles.iter().skip_while(|t| t.is_empty());
    let own_file = |title: &String| !title.is_empty() && file.ends_with(&format!("/{title}"));
    for title in titles.skip_while(|t| own_file(t)) {
        name.push_str(title);
        name.push_str(separator);
    }
    name.push_str(&test.title);
    name
}

/// How a test's `status` counts ([`TallyFromTests::count`]); `None` for one it does not count.
fn test_status(status: &str) -> Option<TestStatus> {
    match status {
        "passed" => Some(TestStatus::Passed),
        "failed" => Some(TestStatus::Failed),
        "pending" | "skipped" | "todo" | "disabled" => Some(TestStatus::Skipped),
        _ => None,
    }
}

/// The message and detail of a failure message: its first line, and from the lines after it up to
/// the code frame or the stack, the `Expected: …` / `Received: …` lines or the changed lines of a
/// diff.
#[derive(Debug, Default)]
struct FailureText {
    message: Option<String>,
    detail: Option<String>,
}

impl FailureText {
    fn read(text: &str, tool: &str) -> FailureText {
        let mut message: Option<String> = None;
        let mut plain = Vec::new();
        let mut diff = Diff::default();
        for line in text.lines() {
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            if trimmed.starts_with("at ") || is_code_frame(trimmed) {
                break;
            }
            if message.is_none() {
                let first = match trimmed.strip_prefix("Error: ") {
                    // jest prints a plain `Error`'s message without its name.
                    Some(rest) if tool == "jest" => rest,
                    _ => trimmed,
                };
                message = Some(strip_equality_note(first).to_owned());
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix('-') {
                if !is_diff_label(rest) {
                    diff.push_expected(rest);
                }
            } else if let Some(rest) = trimmed.strip_prefix('+') {
                if !is_diff_label(rest) {
                    diff.push_received(rest);
                }
            } else if plain.len() < 4
                && (trimmed.starts_with("Expected") || trimmed.starts_with("Received"))
                && !trimmed.ends_with(':')
            {
                // `Received:` alone introduces a multi-line value: nothing to show on one line.
                plain.push(one_line(trimmed, 100));
            } else if plain.is_empty() && trimmed.starts_with("New snapshot was not written") {
                let sentence = trimmed.split_inclusive(". ").next().unwrap_or(trimmed);
                plain.push(one_line(sentence, 100));
            }
        }
        let detail = if plain.is_empty() {
            diff.render("Expected", "Received")
        } else {
            Some(clip(&plain.join(", "), MAX_DETAIL))
        };
        FailureText { message, detail }
    }
}

/// The `● Test suite failed to run` blocks of a jest file's message, as root causes. jest's
/// message is its human output for the file: its own parser knows every kind of block (babel's
/// syntax errors, missing modules, ts-jest's type errors, a hook outside any test that threw).
fn jest_suite_blocks(path: &str, message: &str, root: Option<&str>) -> Vec<Diagnostic> {
    if !message.contains("● ") {
        return Vec::new();
    }
    let message = relativize_text(message, root);
    let log = format!("FAIL {path}\n{message}\n");
    crate::jest::JestSummarizer
        .parse(log.as_bytes())
        .diagnostics
        .into_iter()
        .filter(|d| d.root_cause)
        .collect()
}

/// The root-cause diagnostics of a test file that did not load.
fn suite_diagnostics(tool: &str, path: &str, message: &str, root: Option<&str>) -> Vec<Diagnostic> {
    if tool == "jest" {
        let causes = jest_suite_blocks(path, message, root);
        if !causes.is_empty() {
            return causes;
        }
    }
    let message = relativize_text(message, root);
    let cleaned = verdict_model::lines::clean(message.as_bytes());
    let first = cleaned
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('●'))
        .unwrap_or("test file failed to run");
    let mut diagnostic = failure(tool, clip(&one_line(first, MAX_MESSAGE), MAX_MESSAGE));
    diagnostic.file = Some(path.to_owned());
    diagnostic.root_cause = true;
    // Where in the project the error was thrown, when its stack says so.
    if let Some(frame) = cleaned
        .lines()
        .find_map(|line| v8_frame(line.trim()).filter(|f| !is_internal(f.file)))
        && relative(frame.file, root) == path
    {
        diagnostic.line = Some(frame.line);
        diagnostic.column = frame.column;
    }
    vec![diagnostic]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_and_foreign_json_is_errored() {
        for json in [
            &b"{\"numTotalTests\": 3, \"testResults\": [{\"na"[..],
            b"",
            b"[1, 2]",
            b"{}",
        ] {
            let report = parse("jest", json);
            assert_eq!(report.outcome, Outcome::Errored);
            assert!(report.error.is_some());
        }
    }

    #[test]
    fn matcher_messages_lose_the_error_name_and_equality_note_in_jest_only() {
        let text = "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 4\nReceived: 3\n    at Object.<anonymous> (/p/test/a.test.js:3:5)";
        let jest = FailureText::read(text, "jest");
        assert_eq!(
            jest.message.as_deref(),
            Some("expect(received).toBe(expected)")
        );
        assert_eq!(jest.detail.as_deref(), Some("Expected: 4, Received: 3"));
        let vitest = FailureText::read("Error: boom\n    at x (/p/a.js:1:1)", "vitest");
        assert_eq!(vitest.message.as_deref(), Some("Error: boom"));
        assert_eq!(vitest.detail, None);
    }

    #[test]
    fn paths_under_the_root_become_relative() {
        assert_eq!(relative("/p/q/test/a.js", Some("/p/q")), "test/a.js");
        assert_eq!(relative("file:///p/q/test/a.js", Some("/p/q")), "test/a.js");
        assert_eq!(relative("/p/qq/test/a.js", Some("/p/q")), "/p/qq/test/a.js");
        assert_eq!(relative("/p/q/test/a.js", None), "/p/q/test/a.js");
    }
}
