//! The `node-test` summarizer: Node.js's own test runner (`node --test`), in each of its reporters.
//!
//! - **spec** (the default on a terminal, and everywhere since Node.js 22): a tree of `✔`/`✖`
//!   lines, the footer (`ℹ tests 18`, `ℹ pass 4`, `ℹ fail 9`, `ℹ cancelled 1`, `ℹ skipped 2`,
//!   `ℹ todo 2`), then `✖ failing tests:` with each failure again: `test at test/a.test.js:9:1`,
//!   `✖ name (0.9ms)`, and the error with its stack indented below. Node.js 20 also prints the
//!   errors inside the tree; the failures are read from the closing section only, once each.
//! - **dot**: a line of `.` and `X`, then `Failed tests:` with each failure as spec shows it, but
//!   without its `test at` location, and no footer.
//! - **tap** (the default of Node.js 20 when the output is not a terminal): read by
//!   [`crate::tap_stream`], which the generic reader shares.
//!
//! Counts are the footer's (TAP's `# pass`/`# fail` totals); skipped and todo tests count as
//! skipped. Each failure is placed at the first stack frame in the test's own file (the line that
//! threw), else at the test's location; a suite that failed only because its tests did (`'1
//! subtest failed'`) and a failing `# TODO` test are not failures. A file that throws outside any
//! test is reported by node as the file failing with `'test failed'`: its error and place are the
//! ones node printed above it. A spec log without its footer (the run was cut off) is errored.

use verdict_model::{
    Diagnostic, Evidence, Kind, LineParser, Outcome, Report, Severity, Summarizer,
};

use crate::tap_stream::{Names, Tap};
use crate::text::{clip, split_location};

const TOOL: &str = "node-test";
const MAX_MESSAGE: usize = 300;
/// Body lines kept per failure: the message and the first frames are near the top.
const MAX_BODY_LINES: usize = 80;
/// Errors thrown outside tests that are remembered for their file's failure.
const MAX_FILE_ERRORS: usize = 100;

/// The summarizer for `node --test`.
#[derive(Debug, Default, Clone, Copy)]
pub struct NodeTestSummarizer;

impl Summarizer for NodeTestSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        let has_line = |prefix: &str| sample.lines().any(|l| l.starts_with(prefix));
        // The spec footer and its closing section are node's alone.
        if (has_line("ℹ tests ") && has_line("ℹ pass ")) || has_line("✖ failing tests:") {
            return 95;
        }
        // Node's TAP: totals with `# suites`, or subtests announced by `# Subtest:` with their
        // `duration_ms` (node-tap announces its subtests so too, and times them with `# time=`).
        let durations = || {
            sample
                .lines()
                .any(|l| l.trim_start().starts_with("duration_ms: "))
        };
        if has_line("TAP version 13")
            && (has_line("# suites ") || (has_line("# Subtest: ") && durations()))
        {
            return 90;
        }
        if has_line("Failed tests:") && has_line("✖ ") && sample.lines().any(is_dots) {
            return 85;
        }
        // A passing dot log is nothing but dots (bytes that were not UTF-8 aside).
        let mut lines = sample
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('\u{FFFD}'))
            .peekable();
        if lines.peek().is_some() && lines.all(is_dots) {
            return 40;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser {
            report: Report::new(TOOL, Outcome::Passed),
            tap: Tap::new(TOOL, Names::Node),
            human: false,
            footer: Footer::default(),
            dots: None,
            other_lines: false,
            failing_section: false,
            section_seen: false,
            location: None,
            entry: None,
            file_errors: Vec::new(),
            error: None,
            load_errors: Vec::new(),
        })
    }
}

/// The most test files whose load error is kept: each is a file node could not run.
const MAX_LOAD_ERRORS: usize = 1000;

/// A test file node could not load, as its process printed it before node reported the file
/// as failed (`/w/test/a.test.js:7`, the source line and caret, `SyntaxError: Unexpected token
/// ';'`): node itself places that failure at the file's line 1 with the reason `test failed`.
struct LoadError {
    file: String,
    line: u32,
    message: Option<String>,
}

/// `/w/test/a.test.js:7`, a whole line: the place a process that died while loading a file
/// printed first. Also with TAP's `# ` before it.
fn load_place(text: &str) -> Option<(&str, u32)> {
    let (file, line) = text.rsplit_once(':')?;
    let absolute = file.starts_with('/')
        || file.starts_with("file://")
        || file.as_bytes().get(1..3) == Some(b":\\");
    if !absolute || line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((file, line.parse().ok()?))
}

/// `SyntaxError: Unexpected token ';'`, `Error [ERR_MODULE_NOT_FOUND]: Cannot find …`, `Error:
/// …`: the line naming the error a file's load died of.
fn is_error_line(text: &str) -> bool {
    let Some((name, _)) = text.split_once(": ") else {
        return false;
    };
    let name = name.split_once(" [").map_or(name, |(name, _)| name);
    name.ends_with("Error") && name.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The spec reporter's footer.
#[derive(Default)]
struct Footer {
    seen: bool,
    tests: Option<u64>,
    pass: Option<u64>,
    fail: Option<u64>,
    cancelled: Option<u64>,
    skipped: Option<u64>,
    todo: Option<u64>,
}

/// A failure of the closing section being read.
struct Entry {
    name: String,
    todo: bool,
    location: Option<(String, u32)>,
    body: Vec<String>,
}

/// An error printed outside any test (`Error: …` at column 0, then its stack).
struct FileError {
    message: String,
    place: Option<(String, u32, Option<u32>)>,
}

struct Parser {
    report: Report,
    tap: Tap,
    /// Whether a spec or dot line was seen (then no line is read as TAP).
    human: bool,
    footer: Footer,
    /// The dot reporter's progress: whether an `X` was among the dots.
    dots: Option<bool>,
    /// Whether a line that is neither the dot reporter's, its footer nor its failing section was
    /// seen: dots among other lines are no evidence that node ran tests.
    other_lines: bool,
    failing_section: bool,
    /// Whether the closing section of failures was reached (the dot reporter lists todo tests
    /// there too).
    section_seen: bool,
    /// The `test at …` line above the next entry.
    location: Option<(String, u32)>,
    entry: Option<Entry>,
    /// Errors thrown outside tests, by the file of their first frame.
    file_errors: Vec<(String, FileError)>,
    /// The error outside tests whose stack is being read.
    error: Option<FileError>,
    /// Test files that died while loading, with where and why, the last one first filled in.
    load_errors: Vec<LoadError>,
}

/// Whether a line is the dot reporter's progress: `.` per passing test, `X` per failing one (up
/// to any bytes that were not UTF-8, which carry no text).
fn is_dots(line: &str) -> bool {
    let line = line.split('\u{FFFD}').next().unwrap_or(line).trim_end();
    !line.is_empty() && line.bytes().all(|b| b == b'.' || b == b'X')
}

/// `at fn (path:line:col)` or `at path:line:col`: the place.
fn frame(line: &str) -> Option<(String, u32, Option<u32>)> {
    let rest = line.trim_start().strip_prefix("at ")?;
    let inner = match rest.strip_suffix(')') {
        Some(inner) => &inner[inner.rfind('(')? + 1..],
        None => rest,
    };
    let inner = inner.strip_prefix("file://").unwrap_or(inner);
    let (file, line, column) = split_location(inner)?;
    Some((file.to_owned(), line, column))
}

/// Frames of Node.js itself and of installed packages say where an error surfaced, not where to
/// fix it.
fn is_foreign(file: &str) -> bool {
    file.starts_with("node:") || file.contains("/node_modules/") || !file.contains('/')
}

/// Whether a path names a test file, by the conventions `node --test` itself looks for.
fn is_test_file(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.contains(".test.")
        || name.contains("-test.")
        || name.contains("_test.")
        || name.contains(".spec.")
        || name.starts_with("test")
        || file.contains("/test/")
        || file.contains("/tests/")
}

/// Whether `frame_file` (absolute, from a stack) and `file` (as the location shows it, often
/// relative) are the same file.
fn same_file(frame_file: &str, file: &str) -> bool {
    frame_file == file || frame_file.ends_with(&format!("/{}", file.trim_start_matches("./")))
}

/// A name that is a path: node's entry for a test file that failed as a whole.
fn is_path(name: &str) -> bool {
    !name.contains(' ')
        && [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"]
            .iter()
            .any(|e| name.ends_with(e))
}

/// Splits `✖ name (0.91ms) # TODO` into the name and whether it is a todo test.
fn entry_name(text: &str) -> (String, bool) {
    let (mut name, directive) = match text.rfind(" # ") {
        Some(at) => (&text[..at], Some(&text[at + 3..])),
        None => (text, None),
    };
    if name.ends_with("ms)")
        && let Some(open) = name.rfind(" (")
    {
        name = &name[..open];
    }
    let todo = directive.is_some_and(|d| d.starts_with("TODO"));
    (name.trim().to_owned(), todo)
}

impl Parser {
    fn footer_line(&mut self, rest: &str) {
        let Some((key, value)) = rest.split_once(' ') else {
            return;
        };
        let Ok(n) = value.trim().parse::<u64>() else {
            return;
        };
        let footer = &mut self.footer;
        footer.seen = true;
        match key {
            "tests" => footer.tests = Some(n),
            "pass" => footer.pass = Some(n),
            "fail" => footer.fail = Some(n),
            "cancelled" => footer.cancelled = Some(n),
            "skipped" => footer.skipped = Some(n),
            "todo" => footer.todo = Some(n),
            _ => {}
        }
    }

    fn finish_error(&mut self) {
        if let Some(error) = self.error.take()
            && let Some((file, _, _)) = error.place.clone()
            && self.file_errors.len() < MAX_FILE_ERRORS
        {
            self.file_errors.push((file, error));
        }
    }

    /// A line of the spec tree or dot progress: only errors thrown outside tests are kept.
    fn tree_line(&mut self, line: &str) {
        if let Some(error) = self.error.as_mut() {
            if let Some(place) = frame(line) {
                if error.place.is_none() && !is_foreign(&place.0) {
                    error.place = Some(place);
                }
                return;
            }
            if !line.trim().is_empty() {
                self.finish_error();
            }
        }
        let column0 = !line.starts_with(' ');
        if column0
            && let Some((head, _)) = line.split_once(": ")
            && head.ends_with("Error")
            && !head.contains(' ')
        {
            self.error = Some(FileError {
                message: clip(line.trim(), MAX_MESSAGE),
                place: None,
            });
        }
    }

    fn finish_entry(&mut self) {
        let Some(entry) = self.entry.take() else {
            return;
        };
        if entry.todo {
            return;
        }
        let body: Vec<&str> = entry
            .body
            .iter()
            .map(|l| l.strip_prefix("  ").unwrap_or(l))
            .collect();
        let text: Vec<&str> = body
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        // A parent whose subtests failed says only that: the subtests are the failures.
        let Some(mut message) = entry_message(&text) else {
            return;
        };
        let frames: Vec<(String, u32, Option<u32>)> =
            text.iter().filter_map(|l| frame(l)).collect();
        let mut file = entry.location.as_ref().map(|(f, _)| f.clone());
        let mut line = entry.location.as_ref().map(|(_, l)| *l);
        let mut column = None;
        let in_own_file = file
            .as_deref()
            .and_then(|own| frames.iter().find(|(f, _, _)| same_file(f, own)));
        if let Some((_, l, c)) = in_own_file {
            line = Some(*l);
            column = *c;
        } else if let Some((f, l, c)) = frames
            .iter()
            .find(|(f, _, _)| !is_foreign(f) && is_test_file(f))
        {
            if file.is_none() {
                file = Some(f.clone());
            }
            if file.as_deref().is_some_and(|own| same_file(f, own)) {
                line = Some(*l);
                column = *c;
            }
        }
        // A test file that failed as a whole: the error thrown outside its tests says why.
        if is_path(&entry.name) && frames.is_empty() {
            let own = file.clone().unwrap_or_else(|| entry.name.clone());
            if let Some((f, error)) = self
                .file_errors
                .iter()
                .find(|(f, _)| same_file(f, &own) || same_file(&own, f))
            {
                message = error.message.clone();
                if file.is_none() {
                    file = Some(f.clone());
                }
                if let Some((_, l, c)) = &error.place {
                    line = Some(*l);
                    column = *c;
                }
            }
        }
        if file.is_none() && is_path(&entry.name) {
            file = Some(entry.name.clone());
        }
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Test,
            Severity::Error,
            clip(&message, MAX_MESSAGE),
        )
        .with_test(clip(&entry.name, MAX_MESSAGE));
        if let Some(file) = file {
            d = d.at(file, line, column);
        }
        self.report.push(d);
    }

    fn failing_line(&mut self, line: &str) {
        if let Some(location) = line.strip_prefix("test at ") {
            self.finish_entry();
            self.location =
                split_location(location.trim()).map(|(file, line, _)| (file.to_owned(), line));
            return;
        }
        if let Some(rest) = line.strip_prefix("✖ ") {
            self.finish_entry();
            let (name, todo) = entry_name(rest);
            self.entry = Some(Entry {
                name,
                todo,
                location: self.location.take(),
                body: Vec::new(),
            });
            return;
        }
        if line.starts_with(' ') || line.is_empty() {
            if let Some(entry) = self.entry.as_mut()
                && entry.body.len() < MAX_BODY_LINES
            {
                entry.body.push(line.to_owned());
            }
            return;
        }
        // Anything else at column 0 ends the section.
        self.finish_entry();
        self.failing_section = false;
    }
}

/// A failure's message from the non-blank lines of its entry's body; `None` for a parent test
/// whose message only counts its failed subtests.
fn entry_message(text: &[&str]) -> Option<String> {
    let first = text.first().copied().unwrap_or("");
    let unquoted = first
        .strip_prefix('\'')
        .and_then(|f| f.strip_suffix('\''))
        .unwrap_or(first);
    let parent = unquoted
        .strip_suffix(" subtests failed")
        .or_else(|| unquoted.strip_suffix(" subtest failed"))
        .is_some_and(|n| n.parse::<u64>().is_ok());
    if parent {
        return None;
    }
    let mut message = unquoted.to_owned();
    if message.ends_with(':') {
        // `Expected values to be strictly equal:` with `7 !== 8` below says it in one line; a
        // multi-line diff below does not.
        match text.get(1) {
            Some(next) if next.contains("!==") || next.contains("!=") => {
                message.push(' ');
                message.push_str(next);
            }
            _ => {
                message.pop();
            }
        }
    }
    if message.is_empty() {
        message = "test failed".to_owned();
    }
    Some(message)
}

impl Parser {
    /// Notes a test file's load error from the lines its process printed (in TAP, as comments).
    fn load_error_line(&mut self, line: &str) {
        let text = line.strip_prefix("# ").unwrap_or(line);
        // Most lines are settled by their first byte: a place starts with `/`, `f` (a file URL)
        // or a drive letter, an error's name with a capital.
        let Some(&first) = text.as_bytes().first() else {
            return;
        };
        if !(first == b'/' || first == b'f' || first.is_ascii_uppercase()) {
            return;
        }
        if first != b'/' && self.load_errors.last().is_none_or(|e| e.message.is_some()) {
            // Not a path of Unix, and no load error waiting for its message: only a URL or a
            // Windows path can still be a place.
            if !(text.starts_with("file://") || text.as_bytes().get(1) == Some(&b':')) {
                return;
            }
        }
        if let Some((file, line)) = load_place(text) {
            if self.load_errors.len() < MAX_LOAD_ERRORS {
                self.load_errors.push(LoadError {
                    file: file.to_owned(),
                    line,
                    message: None,
                });
            }
        } else if let Some(last) = self.load_errors.last_mut()
            && last.message.is_none()
            && is_error_line(text)
        {
            last.message = Some(clip(text.trim(), MAX_LOAD_MESSAGE));
        }
    }

    /// Places and explains each failure node named by a test file and reported only as `test
    /// failed`, from the load error that file's process printed.
    fn explain_load_errors(&mut self) {
        if self.load_errors.is_empty() {
            return;
        }
        for d in &mut self.report.diagnostics {
            if d.message.trim_matches('\'') != "test failed" {
                continue;
            }
            // Node 20 names the file absolute, Node 22 relative to where it ran.
            let names = |e: &LoadError, name: Option<&str>| {
                name.is_some_and(|name| {
                    name == e.file
                        || e.file.strip_suffix(name).is_some_and(|dir| {
                            !name.starts_with('/') && (dir.ends_with('/') || dir.ends_with('\\'))
                        })
                })
            };
            let Some(error) = self.load_errors.iter().find(|e| {
                e.message.is_some() && (names(e, d.test.as_deref()) || names(e, d.file.as_deref()))
            }) else {
                continue;
            };
            if let Some(message) = &error.message {
                d.message = message.clone();
            }
            // The file as node named it in its report stays: relative, it is the project's.
            if !names(error, d.file.as_deref()) {
                d.file = Some(error.file.clone());
            }
            d.line = Some(error.line);
            d.column = None;
            d.refresh_fingerprint();
        }
    }
}

/// The longest load error kept.
const MAX_LOAD_MESSAGE: usize = 300;

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        if line.len() < 4096 {
            self.load_error_line(line);
        }
        if !self.human && self.tap.line(line, &mut self.report) {
            return;
        }
        if self.failing_section {
            self.failing_line(line);
            if self.failing_section {
                return;
            }
        }
        if let Some(rest) = line.strip_prefix("ℹ ") {
            self.human = true;
            self.footer_line(rest);
            return;
        }
        if line == "✖ failing tests:" || line == "Failed tests:" {
            self.human = true;
            self.finish_error();
            self.failing_section = true;
            self.section_seen = true;
            return;
        }
        if is_dots(line) {
            self.human = true;
            let failed = line.contains('X');
            self.dots = Some(self.dots.unwrap_or(false) || failed);
            return;
        }
        if line.starts_with("✔ ") || line.starts_with("✖ ") || line.starts_with("▶ ") {
            self.human = true;
        }
        // A line with bytes that were not UTF-8 is damage, not another tool's output.
        if !line.trim().is_empty() && !line.contains('\u{FFFD}') {
            self.other_lines = true;
        }
        self.tree_line(line);
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.finish_entry();
        self.tap.close(&mut self.report);
        self.explain_load_errors();
        let mut report = self.report;
        let found = report.diagnostics_found();
        // One dot per test shows it ran some, but only in a dot log: a passing one is nothing
        // but dots, a failing one has its section. (`cargo test -q` prints dots too, among lines
        // of its own.)
        if self.dots.is_some() && (!self.other_lines || self.section_seen) {
            report.saw(Evidence::Checked);
        }
        let counts = &mut report.counts;
        let failures = report
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error);
        let (failed, cancelled, finished) = if self.footer.seen {
            let footer = &self.footer;
            counts.tests_passed = footer.pass;
            counts.tests_failed = footer.fail;
            counts.tests_skipped = match (footer.skipped, footer.todo) {
                (None, None) => None,
                (s, t) => Some(s.unwrap_or(0) + t.unwrap_or(0)),
            };
            let mut summary = Vec::new();
            for (label, n) in [
                ("tests", footer.tests),
                ("pass", footer.pass),
                ("fail", footer.fail),
                ("cancelled", footer.cancelled),
                ("skipped", footer.skipped),
                ("todo", footer.todo),
            ] {
                if let Some(n) = n {
                    summary.push(format!("{label} {n}"));
                }
            }
            report.summary = Some(summary.join(", "));
            (
                footer.fail.unwrap_or(0),
                footer.cancelled.unwrap_or(0),
                true,
            )
        } else if self.tap.seen && !self.human {
            counts.tests_passed = self.tap.pass;
            counts.tests_failed = self.tap.fail;
            counts.tests_skipped = self.tap.skipped;
            (
                self.tap.fail.unwrap_or(0),
                self.tap.cancelled.unwrap_or(0),
                self.tap.fail.is_some(),
            )
        } else if let Some(x) = self.dots {
            // The dot reporter prints no totals: an `X` without the `Failed tests:` section
            // (todo tests are `X` too) is a cut log.
            let n = found;
            if failures {
                counts.tests_failed = Some(n);
            }
            (n, 0, !x || self.section_seen)
        } else {
            (0, 0, false)
        };
        report.outcome = if failures || failed > 0 || cancelled > 0 {
            if failures {
                Outcome::Failed
            } else {
                report.error = Some(format!(
                    "node reports {} failing tests but the log names none",
                    failed + cancelled
                ));
                Outcome::Errored
            }
        } else if finished {
            Outcome::Passed
        } else {
            report.error = Some(
                "the log ends before the summary of node's test runner (`ℹ tests …`, `# tests …`)"
                    .to_owned(),
            );
            Outcome::Errored
        };
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        NodeTestSummarizer.parse(log.as_bytes())
    }

    #[test]
    fn an_elided_diff_line_does_not_end_a_tap_failure() {
        let log = "TAP version 13\n# Subtest: fx\nnot ok 1 - fx\n  ---\n  duration_ms: 1\n  type: 'test'\n  location: '/app/t.test.js:3:1'\n  failureType: 'testCodeFailure'\n  error: |-\n    output differs\n    + actual - expected\n    ...\n    -a\n  code: 'ERR_ASSERTION'\n  stack: |-\n    check (file:///app/lib.js:9:3)\n    TestContext.<anonymous> (file:///app/t.test.js:5:3)\n  ...\n1..1\n# tests 1\n# pass 0\n# fail 1\n";
        let report = parse(log);
        let d = report.diagnostics.first().expect("a failure");
        assert_eq!(
            (d.file.as_deref(), d.line),
            (Some("/app/t.test.js"), Some(5))
        );
    }

    /// A spec log whose footer says tests failed is never a pass, even when its failures cannot
    /// be read.
    #[test]
    fn a_footer_with_failures_never_passes() {
        let report = parse("✔ adds (0.5ms)\nℹ tests 12\nℹ pass 5\nℹ fail 7\n");
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(report.counts.tests_failed, Some(7));
    }

    #[test]
    fn a_spec_log_without_its_footer_is_errored() {
        let report = parse("✔ adds (0.5ms)\n✔ subtracts (0.1ms)\n");
        assert_eq!(report.outcome, Outcome::Errored);
    }

    #[test]
    fn a_failure_is_placed_at_the_frame_in_its_test_file() {
        let report = parse(concat!(
            "ℹ tests 2\nℹ pass 1\nℹ fail 1\n\n✖ failing tests:\n\n",
            "test at test/cart.test.js:25:1\n",
            "✖ fetchPrice of a missing sku (0.31ms)\n",
            "  Error: no price for missing\n",
            "      at fetchPrice (/app/src/cart.js:21:11)\n",
            "      at TestContext.<anonymous> (/app/test/cart.test.js:26:23)\n",
            "      at Test.runInAsyncScope (node:async_hooks:206:9)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert_eq!(d.location().as_deref(), Some("test/cart.test.js:26:23"));
        assert_eq!(d.message, "Error: no price for missing");
        assert_eq!(d.test.as_deref(), Some("fetchPrice of a missing sku"));
    }

    #[test]
    fn dots_alone_are_a_pass_and_todo_failures_are_not_failures() {
        assert_eq!(NodeTestSummarizer.sniff("........\n"), 40);
        assert_eq!(parse("........\n").outcome, Outcome::Passed);
        let report = parse("..X.\n\nFailed tests:\n\n✖ coupons (0.1ms) # TODO\n  Error: later\n");
        assert_eq!(report.outcome, Outcome::Passed);
    }

    #[test]
    fn garbage_does_not_panic() {
        for log in [
            "✖ ",
            "test at ",
            "ℹ ",
            "ℹ fail x",
            "✖ failing tests:\n✖ (",
            "Error: x\n    at (",
        ] {
            let _ = parse(log);
        }
    }
}
