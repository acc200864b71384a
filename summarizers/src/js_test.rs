//! What the JavaScript test runners (jest, vitest, mocha) share: V8 stack frames, error lines,
//! expected/received diffs.
//!
//! All three print errors the way Node.js formats them (`TypeError: x is not a function`, then
//! `at fn (file:line:col)` frames), and all three print assertion diffs with one sign for the
//! expected side and the other for the received side. The helpers here read those pieces of one
//! line at a time, so each summarizer stays a streaming parser.

use std::borrow::Cow;

use verdict_model::model::MAX_DIAGNOSTICS;
use verdict_model::{Diagnostic, Fingerprint, Kind, LineParser, Report, Severity};

use crate::text::{clip, split_location};

/// The longest detail a diagnostic carries, in characters.
pub(crate) const MAX_DETAIL: usize = 200;

/// The longest message a diagnostic carries, in characters.
pub(crate) const MAX_MESSAGE: usize = 300;

/// How many lines of one failure block are read for its message and detail; the rest of a long
/// block (a big object diff, a deep stack) is only scanned for its location.
pub(crate) const MAX_BLOCK_LINES: usize = 50;

/// A failing test's diagnostic with only its message; the caller sets the other fields.
/// [`verdict_model::Report::push`] computes its fingerprint; a caller that needs it earlier (to
/// skip repeats) calls [`Diagnostic::refresh_fingerprint`].
pub(crate) fn failure(tool: &str, message: String) -> Diagnostic {
    Diagnostic {
        tool: tool.to_owned(),
        kind: Kind::Test,
        severity: Severity::Error,
        file: None,
        line: None,
        column: None,
        code: None,
        message,
        test: None,
        detail: None,
        root_cause: false,
        test_error: false,
        fingerprint: Fingerprint::default(),
    }
}

/// Whether `report` keeps no more diagnostics: the next ones are only counted, so there is no
/// need to build them.
pub(crate) fn is_full(report: &Report) -> bool {
    report.diagnostics.len() >= MAX_DIAGNOSTICS
}

/// Whether two spellings name the same file: equal, or one the other's absolute form.
pub(crate) fn same_file(test_file: &str, frame_file: &str) -> bool {
    if test_file == frame_file {
        return true;
    }
    let (long, short) = if test_file.len() > frame_file.len() {
        (test_file, frame_file)
    } else {
        (frame_file, test_file)
    };
    long.ends_with(short) && long[..long.len() - short.len()].ends_with(['/', '\\'])
}

/// A line of a code frame: `> 11 |     expect(…)`, `  10 |   test(…`, `     |    ^`.
pub(crate) fn is_code_frame(text: &str) -> bool {
    let rest = match text.strip_prefix('>') {
        Some(rest) => rest.trim_start(),
        None => text,
    };
    if rest.starts_with('|') {
        return true;
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].trim_start().starts_with('|')
}

/// The label lines of a diff (`- Expected  - 1`, `+ Received  + 0`, `- Snapshot  - 1`), after the
/// sign.
pub(crate) fn is_diff_label(rest: &str) -> bool {
    let rest = rest.trim_start();
    rest.starts_with("Expected") || rest.starts_with("Received") || rest.starts_with("Snapshot")
}

/// A coverage threshold the run did not meet (`Jest: "global" coverage threshold for lines (80%)
/// not met: 50%`, vitest's `ERROR: Coverage for lines (50%) does not meet global threshold
/// (80%)`): the tests passed, the run did not.
pub(crate) fn coverage_threshold(tool: &str, text: &str) -> Diagnostic {
    let mut diagnostic = failure(tool, clip(text, MAX_MESSAGE));
    diagnostic.kind = Kind::Custom;
    diagnostic.code = Some("coverage-threshold".to_owned());
    diagnostic.refresh_fingerprint();
    diagnostic
}

/// `No tests found…`: a note when the runner exits 0 for it (`--passWithNoTests`), else the
/// run is errored with the runner's words.
pub(crate) fn no_tests(report: &mut Report, message: String, passes: bool) {
    if passes {
        report.note(message);
    } else {
        report.outcome = verdict_model::Outcome::Errored;
        report.error = Some(message);
    }
}

/// A location in a stack frame: `at fn (file:line:col)`, `at file:line:col`, vitest's
/// `❯ fn file:line:col`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame<'a> {
    /// The function, when the frame names one (`Context.<anonymous>`, `async fails`).
    pub func: &'a str,
    /// The file, with a `file://` prefix removed.
    pub file: &'a str,
    pub line: u32,
    pub column: Option<u32>,
}

impl Frame<'_> {
    /// Whether the frame is in Node.js itself or in a dependency, not in the project's code.
    pub(crate) fn is_internal(&self) -> bool {
        is_internal(self.file)
    }
}

/// Parses a V8 stack frame; `text` is the line with its indentation removed, starting with `at `.
pub(crate) fn v8_frame(text: &str) -> Option<Frame<'_>> {
    let rest = text.strip_prefix("at ")?;
    let (func, location) = match rest.strip_suffix(')') {
        Some(inner) => {
            let open = inner.rfind(" (")?;
            (&inner[..open], &inner[open + 2..])
        }
        None => ("", rest),
    };
    location_frame(func, location)
}

/// Parses vitest's frame `❯ [fn ]file:line:col`; `text` is the line with its indentation removed.
pub(crate) fn vitest_frame(text: &str) -> Option<Frame<'_>> {
    let rest = text.strip_prefix('❯')?.trim();
    let (func, location) = match rest.rsplit_once(' ') {
        Some((func, location)) => (func, location),
        None => ("", rest),
    };
    location_frame(func, location)
}

fn location_frame<'a>(func: &'a str, location: &'a str) -> Option<Frame<'a>> {
    let (file, line, column) = split_location(location)?;
    let file = strip_file_url(file);
    if file.is_empty() {
        return None;
    }
    Some(Frame {
        func,
        file,
        line,
        column,
    })
}

/// Removes a `file://` prefix (ES modules print their frames as URLs), keeping a Windows drive
/// path as `C:/…` rather than `/C:/…`.
pub(crate) fn strip_file_url(path: &str) -> &str {
    let Some(rest) = path.strip_prefix("file://") else {
        return path;
    };
    let bytes = rest.as_bytes();
    if bytes.len() > 3 && bytes[0] == b'/' && bytes[1].is_ascii_alphabetic() && bytes[2] == b':' {
        &rest[1..]
    } else {
        rest
    }
}

/// Whether `file` is Node.js itself or a dependency rather than the project's code.
pub(crate) fn is_internal(file: &str) -> bool {
    file.starts_with("node:")
        || file.starts_with("internal/")
        || file.starts_with('<')
        || file.contains("node_modules/")
        || file.contains("node_modules\\")
}

/// Whether `sample` holds a package manager's echo of a script that runs `tool`: npm's
/// `> jest --ci`, yarn's `$ jest`, with `npx` or not.
pub(crate) fn runs_script(sample: &str, tool: &str) -> bool {
    sample.lines().any(|line| {
        let Some(command) = line.strip_prefix("> ").or_else(|| line.strip_prefix("$ ")) else {
            return false;
        };
        let command = command.strip_prefix("npx ").unwrap_or(command);
        command
            .strip_prefix(tool)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    })
}

/// Whether `text` (indentation removed) starts the way Node.js prints an error:
/// `Error: …`, `TypeError: …`, `AssertionError [ERR_ASSERTION]: …`, `Error [ERR_X]: …`.
pub(crate) fn is_error_line(text: &str) -> bool {
    let Some(first) = text.as_bytes().first() else {
        return false;
    };
    if !first.is_ascii_uppercase() {
        return false;
    }
    let name_end = text
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(text.len());
    let name = &text[..name_end];
    if !(name.ends_with("Error") || name.ends_with("Exception")) {
        return false;
    }
    let rest = &text[name_end..];
    rest.is_empty()
        || rest.starts_with(':')
        || (rest.starts_with(" [") && rest.contains("]:"))
        || (rest.starts_with(" {") && name_end > 0)
}

/// `text` with every run of whitespace made one space, cut to `max` characters.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    clip(&joined, max)
}

/// The changed lines of an expected/received diff, kept for a diagnostic's detail.
#[derive(Debug, Default)]
pub(crate) struct Diff {
    expected: Vec<String>,
    received: Vec<String>,
}

impl Diff {
    /// How many lines of each side are kept.
    const MAX_SIDE: usize = 3;

    pub(crate) fn push_expected(&mut self, text: &str) {
        Self::push(&mut self.expected, text);
    }

    pub(crate) fn push_received(&mut self, text: &str) {
        Self::push(&mut self.received, text);
    }

    fn push(side: &mut Vec<String>, text: &str) {
        // A trailing comma is the pretty-printer's, not the value's.
        let text = text.trim().trim_end_matches(',');
        if side.len() < Self::MAX_SIDE && !text.is_empty() {
            side.push(one_line(text, 80));
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.expected.is_empty() && self.received.is_empty()
    }

    /// Forgets what was kept (a better diff follows).
    pub(crate) fn clear(&mut self) {
        self.expected.clear();
        self.received.clear();
    }

    /// `Expected: 4, Received: 3` with the tool's own words for the two sides.
    pub(crate) fn render(&self, expected: &str, received: &str) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        if !self.expected.is_empty() {
            parts.push(format!("{expected}: {}", self.expected.join(" ")));
        }
        if !self.received.is_empty() {
            parts.push(format!("{received}: {}", self.received.join(" ")));
        }
        Some(clip(&parts.join(", "), MAX_DETAIL))
    }
}

/// Removes the equality note jest and vitest add to a matcher's message
/// (`expect(received).toBe(expected) // Object.is equality`): the digest has no room for it.
pub(crate) fn strip_equality_note(message: &str) -> &str {
    match message.rfind(" // ") {
        Some(at) if message[at..].ends_with("equality") => &message[..at],
        _ => message,
    }
}

/// Removes the prefix a monorepo task runner writes before each line of a task's output, so that
/// the parsers see the lines as the tool printed them. Two shapes are known, both read from real
/// runs:
/// - turbo: `@acme/web:test: FAIL test/a.test.js` — the package and the task, each followed by a
///   colon. The task may hold colons of its own (`test:unit`), never a space, and does not start
///   with a digit, which keeps a `file.js:3:5: message` line (eslint's unix format) whole;
/// - pnpm's recursive run: `packages/web test: FAIL test/a.test.js` — the package's folder and the
///   script. This shape is too loose to find on its own (`Test Suites: 1 failed`), so it is learned
///   from the line pnpm prints first, when the script starts: `packages/web test$ jest`.
///
/// eslint's summarizer uses it too: turbo and pnpm run linters the same way.
#[derive(Debug, Default)]
pub(crate) struct RunnerPrefixes {
    /// The prefixes pnpm announced (`packages/web test: `, without its trailing space).
    pnpm: Vec<String>,
}

impl RunnerPrefixes {
    /// How many prefixes a run announces at most: more would be a log that only looks like one.
    const MAX_PNPM: usize = 64;

    /// `line` without a task runner's prefix.
    pub(crate) fn strip<'a>(&mut self, line: &'a str) -> &'a str {
        if let Some(rest) = self.strip_pnpm(line) {
            return rest;
        }
        if let Some(prefix) = pnpm_announcement(line) {
            if self.pnpm.len() < Self::MAX_PNPM && !self.pnpm.iter().any(|p| p == prefix) {
                self.pnpm.push(prefix.to_owned());
            }
            return line;
        }
        match turbo_prefix_len(line) {
            Some(len) => line.get(len..).unwrap_or(""),
            None => line,
        }
    }

    fn strip_pnpm<'a>(&self, line: &'a str) -> Option<&'a str> {
        self.pnpm.iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix.as_str())?.strip_prefix(':')?;
            Some(rest.strip_prefix(' ').unwrap_or(rest))
        })
    }
}

/// The length of turbo's `package:task: ` at the start of `line` (with its one space; the space is
/// gone when the tool printed an empty line and the CI trimmed it), if it has one.
fn turbo_prefix_len(line: &str) -> Option<usize> {
    // This runs on every line: the package name's bytes up to the first `:` rule out most lines
    // at their first word, before anything is searched.
    let bytes = line.as_bytes();
    if !bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'@')
    {
        return None;
    }
    let colon = bytes.iter().position(|&b| {
        !(b.is_ascii_alphanumeric() || matches!(b, b'@' | b'/' | b'.' | b'_' | b'-'))
    })?;
    let after = colon + 1;
    // The prefix ends at the line's first `: `, which must come after a task's name.
    if bytes[colon] != b':' || bytes.get(after) == Some(&b' ') {
        return None;
    }
    let end = memchr::memmem::find(&bytes[after..], b": ")
        .map(|i| after + i)
        .or_else(|| (line.ends_with(':') && line.len() - 1 > colon).then(|| line.len() - 1))?;
    let task = &line[after..end];
    let task_ok = task
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && task
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'.' | b'_' | b'-'));
    task_ok.then(|| (end + 2).min(line.len()))
}

/// The prefix pnpm will write before the lines of a script it announces with
/// `packages/web test$ jest` (the folder, the script, `$` and the command): `packages/web test`.
fn pnpm_announcement(line: &str) -> Option<&str> {
    // A `$` is rare: one search for it, rather than a substring searcher built per line.
    let bytes = line.as_bytes();
    let dollar = memchr::memchr_iter(b'$', bytes).find(|&i| bytes.get(i + 1) == Some(&b' '))?;
    let prefix = &line[..dollar];
    let (folder, script) = prefix.split_once(' ')?;
    let word = |s: &str| !s.is_empty() && !s.contains(char::is_whitespace);
    (word(folder) && word(script) && !folder.starts_with('$')).then_some(prefix)
}

/// A parser that is fed its lines without a task runner's prefix (see [`RunnerPrefixes`]).
pub(crate) struct Unprefixed {
    prefixes: RunnerPrefixes,
    inner: Box<dyn LineParser>,
}

impl Unprefixed {
    /// `inner`, fed its lines without a task runner's prefix.
    pub(crate) fn wrap(inner: Box<dyn LineParser>) -> Box<dyn LineParser> {
        Box::new(Unprefixed {
            prefixes: RunnerPrefixes::default(),
            inner,
        })
    }
}

impl LineParser for Unprefixed {
    fn line(&mut self, line: &str) {
        let line = self.prefixes.strip(line);
        self.inner.line(line);
    }

    fn finish(self: Box<Self>) -> Report {
        self.inner.finish()
    }
}

/// `sample` without task runner prefixes, for a summarizer's `sniff`; borrowed when no line has
/// one.
pub(crate) fn unprefixed_sample(sample: &str) -> Cow<'_, str> {
    let mut prefixes = RunnerPrefixes::default();
    let mut out: Option<String> = None;
    let mut start = 0;
    for line in sample.split('\n') {
        let stripped = prefixes.strip(line);
        match &mut out {
            Some(out) => {
                out.push('\n');
                out.push_str(stripped);
            }
            None if stripped.len() != line.len() => {
                let mut text = sample[..start].to_owned();
                text.push_str(stripped);
                out = Some(text);
            }
            None => {}
        }
        start += line.len() + 1;
    }
    match out {
        Some(text) => Cow::Owned(text),
        None => Cow::Borrowed(sample),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// turbo's prefix by its definition: up to the line's first `: `, a package name, `:`, and a
    /// task name.
    fn turbo_prefix_by_definition(line: &str) -> Option<usize> {
        let end = line
            .find(": ")
            .or_else(|| line.ends_with(':').then(|| line.len() - 1))?;
        let (package, task) = line[..end].split_once(':')?;
        let package_ok = package
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'@')
            && package.bytes().all(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'@' | b'/' | b'.' | b'_' | b'-')
            });
        let task_ok = task
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && task
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'.' | b'_' | b'-'));
        (package_ok && task_ok).then(|| (end + 2).min(line.len()))
    }

    #[test]
    fn turbo_prefixes_are_found_as_defined() {
        for line in [
            "web:test: PASS src/a.test.ts",
            "web:test:",
            "web:test:PASS",
            "@acme/ui:lint: ✖ 2 problems",
            "a:b:c: x",
            "a:: x",
            "a: b",
            ":a: b",
            "a:1b: x",
            "pkg:task",
            "pkg:task: ",
            "Error: boom: again",
            "src/a.ts:12:5: error",
            "  web:test: indented",
            "web test: x",
            "",
        ] {
            assert_eq!(
                turbo_prefix_len(line),
                turbo_prefix_by_definition(line),
                "{line:?}"
            );
        }
    }

    #[test]
    fn v8_frames_with_and_without_a_function() {
        assert_eq!(
            v8_frame("at Context.<anonymous> (file:///tmp/p/test/a.test.js:18:5)"),
            Some(Frame {
                func: "Context.<anonymous>",
                file: "/tmp/p/test/a.test.js",
                line: 18,
                column: Some(5),
            })
        );
        let bare = v8_frame("at /tmp/p/test/a.test.js:12:26").expect("a frame");
        assert_eq!(
            (bare.func, bare.file, bare.line),
            ("", "/tmp/p/test/a.test.js", 12)
        );
        assert_eq!(v8_frame("at new Promise (<anonymous>)"), None);
        assert!(
            v8_frame("at listOnTimeout (node:internal/timers:581:17)")
                .expect("a frame")
                .is_internal()
        );
        assert_eq!(v8_frame("at the end of the day"), None);
    }

    #[test]
    fn vitest_frames() {
        let frame = vitest_frame("❯ fails test/async.test.js:9:25").expect("a frame");
        assert_eq!(
            (frame.func, frame.file, frame.line),
            ("fails", "test/async.test.js", 9)
        );
        let frame = vitest_frame("❯ test/cart.test.js:12:26").expect("a frame");
        assert_eq!((frame.file, frame.column), ("test/cart.test.js", Some(26)));
        assert_eq!(
            vitest_frame("❯ test/a.test.js (3 tests | 1 failed) 5ms"),
            None
        );
    }

    #[test]
    fn file_urls_lose_their_scheme() {
        assert_eq!(strip_file_url("file:///C:/p/a.js"), "C:/p/a.js");
        assert_eq!(strip_file_url("file:///p/a.js"), "/p/a.js");
        assert_eq!(strip_file_url("test/a.js"), "test/a.js");
    }

    #[test]
    fn error_lines() {
        assert!(is_error_line("TypeError: totalOf is not a function"));
        assert!(is_error_line(
            "AssertionError [ERR_ASSERTION]: Expected values"
        ));
        assert!(is_error_line("Error: No test files found: \"test\""));
        assert!(!is_error_line("Errors  2 errors"));
        assert!(!is_error_line("ErrorBoundary renders"));
        assert!(!is_error_line("error: lower case"));
    }

    /// Lines built from the markers the three parsers look for, shuffled, cut anywhere, with
    /// invalid UTF-8 and very long lines: no parser may panic, and each gives a report.
    #[test]
    fn parsers_survive_marker_soup() {
        use verdict_model::Summarizer;

        let pieces: &[&[u8]] = &[
            b"  \xe2\x97\x8f ",
            b"FAIL ",
            b" FAIL  ",
            b"PASS ",
            b"\xe2\x8e\xaf\xe2\x8e\xaf ",
            b"Failed Tests 3",
            b"Failed Suites x",
            b" \xe2\x9d\xaf ",
            b"at ",
            b"(",
            b")",
            b":",
            b"12",
            b"0",
            b"file:///",
            b"/",
            b" > ",
            b" \xe2\x80\xba ",
            b"Tests:",
            b"Test Suites:",
            b" Test Files ",
            b"Tests  ",
            b"Errors  ",
            b"1) ",
            b"2) ",
            b" passing (3ms)",
            b" failing",
            b" pending",
            b"Exception during run:",
            b"Error: ",
            b"SyntaxError: ",
            b"- ",
            b"+ ",
            b"Expected",
            b"Received: ",
            b"+ expected - actual",
            b"+ actual - expected",
            b"\xff\xfe",
            b"\x1b[31m",
            b"\r",
            b"\n",
            b"\n",
            b"\n",
            b"    ",
            b"  ",
            b"|",
            b"> 3 |",
            b"\"",
            b"[ ",
            b"This error originated in \"",
            b"File: ",
            b"No tests found",
            b"\xe2\x97\x8f Validation Error:",
            b"Jest: \"global\" coverage threshold",
            b"ERROR: Coverage for ",
            b" - error TS1: ",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let summarizers: [&dyn Summarizer; 3] = [
            &crate::jest::JestSummarizer,
            &crate::vitest::VitestSummarizer,
            &crate::mocha::MochaSummarizer,
        ];
        for round in 0..200 {
            let mut log = Vec::new();
            for _ in 0..400 {
                let piece = pieces[(next() % pieces.len() as u64) as usize];
                log.extend_from_slice(piece);
            }
            if round % 50 == 0 {
                log.extend(std::iter::repeat_n(b'x', 100_000));
            }
            for summarizer in summarizers {
                let report = summarizer.parse(&log);
                assert_eq!(report.tool, summarizer.name());
                let _ = summarizer.sniff(&String::from_utf8_lossy(&log));
            }
        }
    }

    #[test]
    fn task_runner_prefixes_are_removed() {
        let mut prefixes = RunnerPrefixes::default();
        assert_eq!(
            prefixes.strip("@acme/web:test: FAIL test/a.test.js"),
            "FAIL test/a.test.js"
        );
        assert_eq!(prefixes.strip("web:test:unit:   ● a › b"), "  ● a › b");
        assert_eq!(prefixes.strip("@acme/web:test: "), "");
        assert_eq!(prefixes.strip("@acme/web:test:"), "");
        for kept in [
            "Tests:       1 failed, 1 total",
            "Test Suites: 1 failed, 1 total",
            "Error: boom: again",
            "src/a.js:3:5: Unexpected var",
            "node:internal/modules/cjs/loader:1228",
            "/abs/a.js:3:5: message",
            "packages/web test: FAIL a.test.js",
        ] {
            assert_eq!(prefixes.strip(kept), kept);
        }
        assert_eq!(
            prefixes.strip("packages/web test$ jest --ci"),
            "packages/web test$ jest --ci"
        );
        assert_eq!(
            prefixes.strip("packages/web test: FAIL a.test.js"),
            "FAIL a.test.js"
        );
        assert_eq!(prefixes.strip("packages/web test: "), "");
        assert_eq!(
            prefixes.strip("packages/api test: FAIL a.test.js"),
            "packages/api test: FAIL a.test.js"
        );
    }

    #[test]
    fn samples_lose_task_runner_prefixes() {
        assert_eq!(
            unprefixed_sample("x\nweb:test: Tests: 1 failed\nweb:test: Ran all"),
            "x\nTests: 1 failed\nRan all"
        );
        assert!(matches!(unprefixed_sample("a\nb"), Cow::Borrowed("a\nb")));
    }

    #[test]
    fn equality_notes_are_removed() {
        assert_eq!(
            strip_equality_note("expect(received).toBe(expected) // Object.is equality"),
            "expect(received).toBe(expected)"
        );
        assert_eq!(strip_equality_note("a // b"), "a // b");
    }
}
