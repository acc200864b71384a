//! The `vitest` summarizer: vitest's `default`, `verbose` and `dot` reporters, as a CI log shows
//! them (no terminal).
//!
//! The reporters differ in how they list the tests as they run (` ✓`/` ❯`/` ×` trees, one line
//! per test, dots); the failures and the counts come after, the same for all three:
//! - `⎯⎯⎯ Failed Suites N ⎯⎯⎯`: test files that did not load (a missing module, a syntax error),
//!   each headed ` FAIL  test/a.test.js [ test/a.test.js ]`, and describe blocks whose
//!   `beforeAll`/`afterAll` threw, headed ` FAIL  test/a.test.js > db` (named by the describe
//!   titles, and errors around tests rather than failed tests) — root causes, and `N` is
//!   [`Counts::suites_errored`](verdict_model::Counts). Through one pipe the summary may land inside
//!   such a block, before its frames: the block goes on past it;
//! - `⎯⎯⎯ Failed Tests N ⎯⎯⎯`: one block per error, headed by ` FAIL  file > describe > test` (several
//!   headers when tests share an error, as when a `beforeEach` throws), then the error
//!   (`AssertionError: expected 3 to be 4 // Object.is equality`), `Expected`/`Received` lines or a
//!   `- Expected` / `+ Received` diff, and ` ❯ file:line:col` frames with code frames;
//!   the blocks end at a `⎯⎯⎯[1/42]⎯` rule. The test name is what follows the file in the header:
//!   the describe titles and the test title joined with ` > ` (the JSON report's
//!   `ancestorTitles` and `title`); the location is the first frame in that file;
//! - `⎯⎯⎯ Unhandled Errors ⎯⎯⎯`: errors thrown outside any test (`Uncaught Exception`,
//!   `Unhandled Rejection`), located by their first frame in the project or by
//!   `This error originated in "file" test file`;
//! - the counts come from ` Test Files  1 failed | 2 passed (3)`, `      Tests  2 failed | 5 passed |
//!   1 skipped | 1 todo (9)` (skipped and todo count as skipped; the line is the summary) and
//!   `     Errors  2 errors`, added up over the runs a log holds;
//! - the file tree printed as files finish (` ❯ file (3 tests | 1 failed)`, `× title`, `→ message`,
//!   see [`Tree`]) gives the failures of a log that kept only stdout, where the blocks above are
//!   missing;
//! - `failed to load config from …` with a `Startup Error` (vitest 1: an `Unhandled Error`),
//!   `No test files found, exiting with code 1`, and unhandled errors in a run where no test ran
//!   (` Tests  no tests`: a test environment that is not installed) mean nothing was verified: the
//!   outcome is errored.
//!
//! The `tap` and `tap-flat` reporters print something else altogether (see [`Tap`]), read from
//! their `TAP version 13` line on.

use std::collections::HashSet;

use verdict_model::{Diagnostic, Kind, LineParser, Outcome, Report, Summarizer};

use crate::js_test::{
    Diff, MAX_BLOCK_LINES, MAX_DETAIL, MAX_MESSAGE, Unprefixed, coverage_threshold, failure,
    is_error_line, is_full, is_internal, no_tests, one_line, strip_equality_note,
    unprefixed_sample, vitest_frame,
};
use crate::text::{clip, count_of, split_location};

/// Parses vitest output.
#[derive(Debug, Default, Clone, Copy)]
pub struct VitestSummarizer;

impl Summarizer for VitestSummarizer {
    fn name(&self) -> &'static str {
        "vitest"
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        // A JSON report (`--reporter=json`), which names vitest only in its file paths.
        if let Some(score) = crate::jest_json::sniff_document(sample, "vitest") {
            return score;
        }
        let sample = &*unprefixed_sample(sample);
        // The TAP reporters: results timed with ` # time=`, which neither mocha's TAP nor Node's
        // (with its `# Subtest:` lines) prints.
        if sample.contains("TAP version 13")
            && sample.contains(" # time=")
            && !sample.contains("# Subtest:")
        {
            return 85;
        }
        // The `⎯` rules and the padded `Test Files` line are vitest's alone.
        let rules = sample.contains("⎯⎯⎯");
        if rules && (sample.contains(" Test Files ") || sample.contains(" FAIL  ")) {
            return 95;
        }
        if sample.contains(" Test Files  ") || sample.contains(" RUN  v") && rules {
            return 90;
        }
        if sample.contains("No test files found, exiting with code") {
            return 90;
        }
        if sample.contains(" RUN  v") || sample.contains("vitest") {
            return 60;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Unprefixed::wrap(Box::new(Parser::new()))
    }

    fn parse(&self, log: &[u8]) -> Report {
        crate::document::parse(
            log,
            crate::jest_json::vitest_document,
            "vitest",
            self.parser(),
        )
    }

    fn parse_reader(
        &self,
        reader: &mut dyn std::io::Read,
    ) -> std::io::Result<(Report, verdict_model::lines::Stats)> {
        crate::document::parse_reader(
            reader,
            crate::jest_json::vitest_document,
            "vitest",
            self.parser(),
        )
    }
}

const TOOL: &str = "vitest";

/// How many ` FAIL ` headers one error block keeps.
const MAX_HEADERS: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    FailedSuites,
    FailedTests,
    Unhandled,
    Startup,
}

/// One ` FAIL ` header: the file and, for a test, its name.
#[derive(Debug)]
struct Header {
    file: String,
    test: Option<String>,
}

/// The error block being read. Bounded: a few short strings, whatever the block's length.
#[derive(Debug, Default)]
struct Block {
    /// The report is full: the headers are counted, the lines not read.
    count_only: bool,
    headers: Vec<Header>,
    /// The block is an unhandled error (`Uncaught Exception`, `Unhandled Rejection`).
    unhandled: Option<String>,
    message: Option<String>,
    expected_received: Vec<String>,
    diff: Diff,
    /// After a `- Expected:` / `+ Received:` label, the side the next plain line belongs to.
    pending_side: Option<bool>,
    frames: Vec<(String, u32, Option<u32>)>,
    origin: Option<String>,
    /// Past `This error originated in …`.
    epilogue: bool,
    /// `Caused by: Error: Cannot find package 'jsdom' …`: what an unhandled error wraps.
    cause: Option<String>,
    /// The run's summary was printed inside the block: only the block's frames, or its error
    /// when none was read yet, can follow.
    after_summary: bool,
    lines: usize,
}

impl Block {
    fn is_open(&self) -> bool {
        !self.headers.is_empty() || self.unhandled.is_some()
    }

    /// Whether `text` (trimmed), printed after the run's summary, still belongs to the block.
    fn continues(&self, text: &str) -> bool {
        // What an error block holds: frames, code frames, the values and diff of an assertion,
        // what an error wraps; the `|` of a coverage table (`----|----`) is none of it.
        let part = text.starts_with(['-', '+'])
            || text.starts_with("Expected")
            || text.starts_with("Received")
            || text.starts_with("Caused by: ")
            || text.starts_with("Serialized Error: ");
        text.is_empty()
            || text.starts_with('❯')
            || is_code_frame(text)
            || part && !text.contains('|')
            || self.message.is_none() && is_error_line(text)
    }

    fn line(&mut self, line: &str) {
        if self.count_only {
            return;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            self.pending_side = None;
            return;
        }
        self.lines += 1;
        if text.starts_with('❯') {
            // The first frames only: the one in the test file is among them.
            if self.frames.len() < 8
                && let Some(frame) = vitest_frame(text)
                && !frame.is_internal()
            {
                self.frames
                    .push((frame.file.to_owned(), frame.line, frame.column));
            }
            return;
        }
        if is_code_frame(text) || self.lines > MAX_BLOCK_LINES {
            return;
        }
        if self.epilogue {
            return;
        }
        if let Some(rest) = text.strip_prefix("This error originated in \"") {
            // What follows explains what an unhandled error may mean: not part of it.
            self.epilogue = true;
            if let Some((file, _)) = rest.split_once('"') {
                self.origin = Some(file.to_owned());
            }
            return;
        }
        if let Some(location) = text.strip_prefix("File: ") {
            // Vite's transform errors name the file that does not parse.
            if let Some((file, line, column)) = split_location(location.trim())
                && !is_internal(file)
                && self.frames.len() < 8
            {
                self.frames.push((file.to_owned(), line, column));
            }
            return;
        }
        if self.message.is_none() {
            self.message = Some(text.to_owned());
            return;
        }
        if let Some(cause) = text.strip_prefix("Caused by: ") {
            if self.cause.is_none() {
                self.cause = Some(format!("Caused by: {}", one_line(cause, MAX_DETAIL)));
            }
            return;
        }
        if text.starts_with("Expected: ") || text.starts_with("Received: ") {
            if self.expected_received.len() < 4 {
                self.expected_received.push(one_line(text, 100));
            }
            return;
        }
        let (minus, rest) = match (text.strip_prefix('-'), text.strip_prefix('+')) {
            (Some(rest), _) => (true, Some(rest)),
            (None, Some(rest)) => (false, Some(rest)),
            (None, None) => (false, None),
        };
        if let Some(rest) = rest {
            let label = rest.trim_start();
            if label.starts_with("Expected") || label.starts_with("Received") {
                // `- Expected:` puts the value on the next lines; `- Expected` is a diff legend.
                self.pending_side = label.ends_with(':').then_some(minus);
            } else if minus {
                self.diff.push_expected(rest);
            } else {
                self.diff.push_received(rest);
            }
            return;
        }
        match self.pending_side {
            Some(true) => self.diff.push_expected(text),
            Some(false) => self.diff.push_received(text),
            None => {}
        }
    }

    /// The diagnostics of the block: one per header, or one for an unhandled error.
    fn into_diagnostics(self, suites: bool, report: &mut Report) {
        if self.count_only {
            report.diagnostics_dropped += self.headers.len().max(1) as u64;
            return;
        }
        let push = |d: Diagnostic, report: &mut Report| report.push(d);
        let detail = if self.expected_received.is_empty() {
            self.diff.render("Expected", "Received")
        } else {
            Some(clip(&self.expected_received.join(", "), MAX_DETAIL))
        };
        let message = self.message.unwrap_or_else(|| "test failed".to_owned());
        let message = clip(strip_equality_note(&message), MAX_MESSAGE);
        let locate = |file: &str| {
            self.frames
                .iter()
                .find(|(frame_file, ..)| same_file(file, frame_file))
                .map(|(_, line, column)| (*line, *column))
        };
        if let Some(label) = &self.unhandled {
            let mut diagnostic = failure(TOOL, message);
            let origin = self.origin.as_deref();
            let located = origin
                .and_then(|file| locate(file).map(|(l, c)| (file.to_owned(), Some(l), c)))
                .or_else(|| {
                    self.frames
                        .first()
                        .map(|(f, l, c)| (f.clone(), Some(*l), *c))
                })
                .or_else(|| origin.map(|file| (file.to_owned(), None, None)));
            if let Some((file, line, column)) = located {
                diagnostic.file = Some(file);
                diagnostic.line = line;
                diagnostic.column = column;
            }
            diagnostic.code = Some(label.clone());
            // `[vitest-pool]: Failed to start forks worker` says little; what it wraps says why.
            diagnostic.detail = detail.or(self.cause.map(|cause| clip(&cause, MAX_DETAIL)));
            diagnostic.refresh_fingerprint();
            push(diagnostic, report);
            return;
        }
        for header in &self.headers {
            if is_full(report) {
                report.diagnostics_dropped += 1;
                continue;
            }
            let mut diagnostic = failure(TOOL, message.clone());
            if let Some((line, column)) = locate(&header.file) {
                diagnostic.line = Some(line);
                diagnostic.column = column;
            }
            diagnostic.file = Some(header.file.clone());
            diagnostic.test = header.test.clone();
            diagnostic.root_cause = suites;
            // A failed suite named by a describe block (` FAIL  a.test.ts > db`) is a
            // `beforeAll`/`afterAll` that threw: an error around its tests, not a failed test.
            diagnostic.test_error = suites && header.test.is_some();
            diagnostic.detail = detail.clone();
            diagnostic.refresh_fingerprint();
            push(diagnostic, report);
        }
    }
}

#[derive(Debug)]
struct Parser {
    report: Report,
    section: Section,
    block: Block,
    /// The number in `Failed Suites N`.
    failed_suites: Option<u64>,
    saw_summary: bool,
    config_error: Option<String>,
    /// `No test files found, exiting with code N`, and whether N is 0.
    no_tests: Option<(String, bool)>,
    crash: Option<String>,
    /// Lines read after the startup error's message, looking for its location.
    startup_lines: usize,
    /// The project directory from the ` RUN ` line, with a trailing `/`.
    root: Option<String>,
    /// ` MISSING DEPENDENCY  Cannot find dependency 'jsdom'`: what vitest could not load.
    missing_dependency: Option<String>,
    /// The `tap` or `tap-flat` reporter's output, from its `TAP version 13` line on.
    tap: Option<Tap>,
    /// The failures the file tree lists as the tests run, for a log without the error blocks.
    tree: Tree,
    /// A ` FAIL ` header a terminal wrapped at [`WRAP_WIDTH`] columns, read so far: the lines
    /// after it are its rest until one is not.
    wrapped_header: Option<String>,
}

/// The width at which a terminal copied from, or a CI console, wraps lines.
const WRAP_WIDTH: usize = 80;

/// Whether `line` is the rest of a ` FAIL ` header cut at [`WRAP_WIDTH`]: not blank, not a
/// rule, another header or the block's error (`AssertionError: …`, `Error: …`).
fn continues_header(line: &str) -> bool {
    let text = line.trim_ascii();
    if text.is_empty() || text.starts_with('⎯') || text.starts_with("FAIL ") {
        return false;
    }
    let name = text.split_once(": ").map_or("", |(name, _)| name);
    let is_error = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'))
        && (name.ends_with("Error") || name.ends_with("Exception") || name == "Error");
    !is_error
}

impl Parser {
    fn new() -> Parser {
        Parser {
            report: Report::new(TOOL, Outcome::Passed),
            section: Section::None,
            block: Block::default(),
            failed_suites: None,
            saw_summary: false,
            config_error: None,
            no_tests: None,
            crash: None,
            startup_lines: 0,
            root: None,
            missing_dependency: None,
            tap: None,
            tree: Tree::default(),
            wrapped_header: None,
        }
    }

    fn finish_block(&mut self) {
        let mut block = std::mem::take(&mut self.block);
        if !block.is_open() {
            return;
        }
        // `Cannot find module './x.js' imported from /abs/project/src/a.js`: the project's own
        // root adds nothing.
        if let (Some(root), Some(message)) = (&self.root, &mut block.message)
            && message.contains(root.as_str())
        {
            *message = message.replace(root.as_str(), "");
        }
        let report = &mut self.report;
        block.into_diagnostics(self.section == Section::FailedSuites, report);
    }

    /// A line of the `Startup Error` section: the error, and what it says next when it ends
    /// with `:` (`Error: Build failed with 1 error:` is followed by the parse error).
    fn startup_line(&mut self, text: &str) {
        let text = text.trim_ascii();
        if text.is_empty() || self.startup_lines >= 8 {
            return;
        }
        match &mut self.crash {
            None if is_error_line(text) => {
                self.crash = Some(one_line(text, MAX_MESSAGE));
                self.startup_lines = 0;
            }
            Some(crash) if crash.ends_with(':') => {
                crash.push(' ');
                crash.push_str(&one_line(text, MAX_MESSAGE));
            }
            Some(crash) => {
                self.startup_lines += 1;
                // rolldown's report frames the place: `╭─[ vitest.config.js:7:5 ]`.
                if let Some(location) = text
                    .strip_prefix("╭─[")
                    .and_then(|rest| rest.strip_suffix(']'))
                {
                    crash.push_str(&format!(" ({})", location.trim()));
                    self.startup_lines = 8;
                }
            }
            None => {}
        }
    }

    /// A `⎯` line: a section header, an error's sub-header, or the rule that ends a block.
    fn rule(&mut self, text: &str) {
        self.finish_block();
        let title = text.trim_matches(|c: char| c == '⎯' || c.is_whitespace());
        if title.is_empty() || title.starts_with('[') {
            return;
        }
        if let Some(rest) = title.strip_prefix("Failed Suites") {
            self.section = Section::FailedSuites;
            self.failed_suites = rest.trim().parse().ok();
        } else if title.starts_with("Failed Tests") {
            self.section = Section::FailedTests;
        } else if title == "Unhandled Errors" {
            self.section = Section::Unhandled;
        } else if title.starts_with("Startup Error")
            || self.config_error.is_some() && title == "Unhandled Error"
        {
            // vitest 1 heads the error of a config that does not load `Unhandled Error`, not
            // `Startup Error`: after `failed to load config from …` it is the reason no test ran.
            self.section = Section::Startup;
        } else if title.starts_with("Unhandled")
            || title.starts_with("Uncaught")
            || title.ends_with("Error")
        {
            self.section = Section::Unhandled;
            self.block.unhandled = Some(title.to_owned());
        }
    }

    fn header(&mut self, rest: &str) {
        if self.block.message.is_some() {
            self.finish_block();
        }
        if self.block.headers.len() >= MAX_HEADERS {
            return;
        }
        if is_full(&self.report) {
            // Counted when the block ends; the file and name are not needed.
            self.block.count_only = true;
            self.block.headers.push(Header {
                file: String::new(),
                test: None,
            });
            return;
        }
        let mut rest = rest.trim();
        // A workspace project's label: `|client| test/a.test.js > …` (vitest 2 pads it with a
        // second space: `|client|  test/a.test.js > …`).
        if let Some(label) = rest.strip_prefix('|')
            && let Some((_, after)) = label.split_once("| ")
        {
            rest = after.trim_start();
        }
        // A test's title may hold ` [ ` (`test.each`'s `$input`: `> [ 'a', '/c' ] -> a/c`):
        // the header is a file's (` FAIL  a.test.ts [ a.test.ts ]`) only when its ` [ ` comes
        // before any ` > `.
        let test_title = rest.split_once(" > ");
        let suite = rest
            .split_once(" [ ")
            .filter(|(file, _)| test_title.is_none_or(|(before, _)| file.len() < before.len()));
        let header = if let Some((file, _)) = suite {
            Header {
                file: file.to_owned(),
                test: None,
            }
        } else if let Some((file, test)) = test_title {
            // `--typecheck` names a type test's file with the line of its `test`
            // (` FAIL  test/types.test-d.ts:6 > join > takes strings`); its frame gives the line
            // of the error.
            let file = match file.rsplit_once(':') {
                Some((path, line))
                    if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    path
                }
                _ => file,
            };
            Header {
                file: file.to_owned(),
                test: Some(test.to_owned()),
            }
        } else {
            Header {
                file: rest.to_owned(),
                test: None,
            }
        };
        self.block.headers.push(header);
    }

    fn summary_line(&mut self, text: &str) -> bool {
        // Each run's counts add up: a log may hold several runs (a workspace's packages, watch
        // mode's reruns), and a failed run stays failed whatever the runs after it say.
        let add = |total: &mut Option<u64>, n: u64| *total = Some(total.unwrap_or(0) + n);
        let counts = &mut self.report.counts;
        if let Some(rest) = text.strip_prefix("Test Files ") {
            self.saw_summary = true;
            add(&mut counts.files, count_of(rest, "failed").unwrap_or(0));
        } else if let Some(rest) = text.strip_prefix("Tests ") {
            self.saw_summary = true;
            add(
                &mut counts.tests_failed,
                count_of(rest, "failed").unwrap_or(0),
            );
            // `test.fails` tests that failed as expected count as passed, as in the JSON report.
            add(
                &mut counts.tests_passed,
                count_of(rest, "passed").unwrap_or(0)
                    + count_of(rest, "expected fail").unwrap_or(0),
            );
            add(
                &mut counts.tests_skipped,
                count_of(rest, "skipped").unwrap_or(0) + count_of(rest, "todo").unwrap_or(0),
            );
            self.report.summary = Some(one_line(text, MAX_MESSAGE));
        } else if let Some(rest) = text.strip_prefix("Errors ") {
            if let Some(n) = count_of(rest, "errors").or_else(|| count_of(rest, "error")) {
                add(&mut counts.errors, n);
            }
        } else {
            return false;
        }
        true
    }
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        if let Some(tap) = &mut self.tap {
            tap.line(line);
            return;
        }
        if line == "TAP version 13" {
            self.tap = Some(Tap::new());
            return;
        }
        if self.wrapped_header_line(line) {
            return;
        }
        let text = line.trim_ascii_start();
        let Some(&first) = text.as_bytes().first() else {
            if self.block.is_open() {
                self.block.line(line);
            }
            return;
        };
        // `⎯` is U+23AF: E2 8E AF.
        if first == 0xE2 && text.starts_with('⎯') {
            self.rule(text);
            return;
        }
        if first == b'F'
            && let Some(rest) = text.strip_prefix("FAIL ")
            && matches!(self.section, Section::FailedSuites | Section::FailedTests)
        {
            // A title cut at the terminal's width goes on in the next line.
            if line.chars().count() == WRAP_WIDTH {
                self.wrapped_header = Some(rest.to_owned());
            } else {
                self.header(rest);
            }
            return;
        }
        if self.block.is_open() && self.open_block_line(line, text) {
            return;
        }
        self.outside_line(line, text.trim_ascii_end());
    }

    fn finish(mut self: Box<Self>) -> Report {
        if let Some(tap) = self.tap.take() {
            return tap.finish();
        }
        if let Some(header) = self.wrapped_header.take() {
            self.header(&header);
        }
        self.finish_block();
        let mut report = self.report;
        self.tree.report_uncovered(&mut report);
        let errored_suites = self.failed_suites.unwrap_or(0);
        if self.saw_summary || self.failed_suites.is_some() {
            report.counts.suites_errored = Some(errored_suites);
        }
        let counts = &report.counts;
        let failed = counts.tests_failed.unwrap_or(0) > 0
            || counts.files.unwrap_or(0) > 0
            || counts.errors.unwrap_or(0) > 0
            || errored_suites > 0
            || !report.diagnostics.is_empty();
        if let Some(error) = self.config_error {
            report.outcome = Outcome::Errored;
            report.error = Some(match self.crash {
                Some(crash) => format!("{error}: {crash}"),
                None => error,
            });
        } else if failed && no_test_ran(&report) {
            // Only errors outside any test, and not one test ran (` Tests  no tests`): vitest
            // could not run the tests (a test environment such as jsdom that is not installed).
            // That says nothing about the code.
            let first = report.diagnostics.first();
            report.outcome = Outcome::Errored;
            report.error = Some(match (self.missing_dependency, first) {
                (Some(missing), _) => format!("vitest ran no test: {missing}"),
                (None, Some(d)) => match &d.detail {
                    Some(detail) => format!("vitest ran no test: {}; {detail}", d.message),
                    None => format!("vitest ran no test: {}", d.message),
                },
                (None, None) => "vitest ran no test; see the log".to_owned(),
            });
        } else if failed {
            report.outcome = Outcome::Failed;
        } else if let Some((message, passes)) = self.no_tests {
            no_tests(&mut report, message, passes);
        } else if self.saw_summary {
            report.outcome = Outcome::Passed;
        } else if let Some(crash) = self.crash {
            report.outcome = Outcome::Errored;
            report.error = Some(crash);
        } else {
            // vitest ends every run it finishes with its ` Tests ` summary: without it, nothing
            // says the tests passed (the process died, or the log was cut).
            report.outcome = Outcome::Errored;
            report.error = Some("the log ends before vitest's summary (` Tests  …`)".to_owned());
        }
        report
    }
}

impl Parser {
    /// The line after a `FAIL` title cut at the terminal's width: its rest, which may itself be
    /// cut again; `true` when the line was taken.
    fn wrapped_header_line(&mut self, line: &str) -> bool {
        let Some(mut header) = self.wrapped_header.take() else {
            return false;
        };
        if continues_header(line) {
            header.push_str(line.trim_ascii_end());
            if line.chars().count() == WRAP_WIDTH {
                self.wrapped_header = Some(header);
            } else {
                self.header(&header);
            }
            return true;
        }
        self.header(&header);
        false
    }

    /// A line while a failure block is open: the block's, or vitest's summary read from the
    /// other pipe; `false` when it ended the block and is read as any other line.
    fn open_block_line(&mut self, line: &str, text: &str) -> bool {
        let trimmed = text.trim_ascii_end();
        if line.starts_with(' ') && (self.summary_line(trimmed) || is_summary_tail(trimmed))
            || is_report_written(trimmed)
        {
            // vitest prints its errors to stderr and its summary to stdout, and a file
            // reporter's note after it: read from two pipes, these may land inside a block,
            // before the block's frames or its error (seen with a `beforeAll` that threw).
            // The block goes on past them.
            self.block.after_summary = true;
            return true;
        }
        if !self.block.after_summary || self.block.continues(trimmed) {
            self.block.line(line);
            return true;
        }
        // After the summary, a line that cannot be the block's (`ERROR: Coverage for …`)
        // ends it.
        self.finish_block();
        false
    }

    /// A line outside any block: the file tree, the startup section, the summary, and the lines
    /// that say the run did not verify anything (a config that does not load, no test files).
    fn outside_line(&mut self, line: &str, text: &str) {
        if self.tree.line(line, text) {
            return;
        }
        if self.section == Section::Startup {
            self.startup_line(text);
            return;
        }
        if let Some(rest) = text.strip_prefix("RUN ") {
            // ` RUN  v5.1.1 /path/to/project`: messages name files under it absolute.
            if let Some((_, root)) = rest.trim().split_once(' ') {
                self.root = Some(format!("{}/", root.trim_end_matches('/')));
            }
            return;
        }
        if line.starts_with(' ') && self.summary_line(text) {
            return;
        }
        if text.starts_with("ERROR: Coverage for ") {
            // `ERROR: Coverage for lines (50%) does not meet global threshold (80%)`: the tests
            // passed, the run did not.
            self.report.push(coverage_threshold(TOOL, text));
            return;
        }
        if let Some(rest) = text.strip_prefix("MISSING DEPENDENCY") {
            self.missing_dependency = Some(one_line(rest, MAX_MESSAGE));
            return;
        }
        if let Some(rest) = text.strip_prefix("failed to load config from ") {
            self.config_error = Some(format!("failed to load config from {}", rest.trim()));
        } else if text.starts_with("No test files found") {
            let passes = text.contains("exiting with code 0");
            self.no_tests = Some((text.to_owned(), passes));
        } else if self.crash.is_none() && self.section == Section::None && is_error_line(text) {
            self.crash = Some(one_line(text, MAX_MESSAGE));
        }
    }
}

/// The file tree the default reporter prints as files finish, on stdout:
///
/// ```text
///  ❯ test/a.test.ts (3 tests | 1 failed) 12ms          (vitest 2 to 4; `|unit| ` may precede)
///      × adds two numbers 9ms
///        → expected 3 to be 4 // Object.is equality
///  ❯ tests/b.test.ts  (18 tests | 2 failed) 12ms       (vitest 1)
///    ❯ tests/b.test.ts > Suite > parses a range
///      → Cannot read properties of undefined (reading 'x')
///  ❯ test/c.test.ts (0 test)                           (a file that did not load)
///  × tests/d.test.ts > Suite > parses a date 3ms       (vitest 1's verbose reporter)
/// ```
///
/// The error blocks go to stderr: a log that kept only stdout has its failures only here. They
/// are reported for the files no error block names, so a full log is not reported twice.
#[derive(Debug, Default)]
struct Tree {
    /// The failing file whose tests are listed below it.
    file: Option<String>,
    failures: Vec<TreeFailure>,
    /// Failures past [`verdict_model::model::MAX_DIAGNOSTICS`]: only counted.
    dropped: u64,
    /// The last line read was a failed test: a `→` line under it is its message.
    awaiting_message: bool,
}

#[derive(Debug)]
struct TreeFailure {
    file: String,
    /// None for a file that ran no test.
    test: Option<String>,
    message: Option<String>,
}

impl Tree {
    /// Reads `line` if it is part of the tree; `text` is the line trimmed at both ends.
    fn line(&mut self, line: &str, text: &str) -> bool {
        let awaiting = std::mem::take(&mut self.awaiting_message);
        let indent = line.len() - line.trim_ascii_start().len();
        if indent == 1 {
            self.file = None;
            // vitest 1's verbose reporter: one line per test, `× file > describe > test`.
            if let Some(rest) = text.strip_prefix("× ")
                && let Some((file, test)) = rest.split_once(" > ")
                && !file.contains(' ')
            {
                self.push(file.to_owned(), Some(without_timing(test).to_owned()));
                self.awaiting_message = true;
                return true;
            }
            let Some(rest) = text.strip_prefix("❯ ") else {
                return false;
            };
            let Some((file, counts)) = file_and_counts(rest) else {
                return false;
            };
            if counts.contains(" failed") {
                self.file = Some(file.to_owned());
            } else if counts.starts_with("0 test") {
                self.push(file.to_owned(), None);
            }
            return counts.contains(" failed") || counts.starts_with("0 test");
        }
        if indent < 3 {
            return false;
        }
        if let Some(message) = text.strip_prefix("→ ") {
            if awaiting && let Some(last) = self.failures.last_mut() {
                last.message = Some(one_line(message, MAX_MESSAGE));
            }
            return awaiting;
        }
        let Some(file) = &self.file else {
            return false;
        };
        // vitest 1 names the failed test by its path, later versions by its title and timing.
        let test = if let Some(rest) = text.strip_prefix("❯ ") {
            rest.strip_prefix(file.as_str())
                .and_then(|rest| rest.strip_prefix(" > "))
                .map(str::to_owned)
        } else {
            text.strip_prefix("× ")
                .map(|rest| without_timing(rest).to_owned())
        };
        let Some(test) = test else {
            return false;
        };
        let file = file.clone();
        self.push(file, Some(test));
        self.awaiting_message = true;
        true
    }

    fn push(&mut self, file: String, test: Option<String>) {
        if self.failures.len() >= verdict_model::model::MAX_DIAGNOSTICS {
            self.dropped += 1;
            return;
        }
        self.failures.push(TreeFailure {
            file,
            test,
            message: None,
        });
    }

    /// Reports the failures of the files no diagnostic of `report` names.
    fn report_uncovered(self, report: &mut Report) {
        if self.failures.is_empty() {
            return;
        }
        let covered: HashSet<String> = report
            .diagnostics
            .iter()
            .filter_map(|d| d.file.clone())
            .collect();
        for entry in self.failures {
            if covered.contains(&entry.file) {
                continue;
            }
            if is_full(report) {
                report.diagnostics_dropped += 1;
                continue;
            }
            let is_test = entry.test.is_some();
            let message = entry.message.unwrap_or_else(|| {
                if is_test {
                    "test failed (its error is not in the log)".to_owned()
                } else {
                    "the file ran no test (its error is not in the log)".to_owned()
                }
            });
            let mut diagnostic = failure(TOOL, strip_equality_note(&message).to_owned());
            diagnostic.file = Some(entry.file);
            diagnostic.root_cause = !is_test;
            diagnostic.test = entry.test;
            report.push(diagnostic);
        }
        report.diagnostics_dropped += self.dropped;
    }
}

/// Splits a tree line's `file (3 tests | 1 failed) 12ms` (with a project label before the file,
/// or two spaces before the counts in vitest 1) into the file and `3 tests | 1 failed`.
fn file_and_counts(rest: &str) -> Option<(&str, &str)> {
    let open = rest.find(" (")?;
    let close = open + rest[open..].find(')')?;
    let counts = &rest[open + 2..close];
    if !counts.starts_with(|c: char| c.is_ascii_digit()) || !counts.contains(" test") {
        return None;
    }
    let mut file = rest[..open].trim_end();
    if let Some(label) = file.strip_prefix('|')
        && let Some((_, after)) = label.split_once("| ")
    {
        file = after.trim_start();
    }
    (!file.is_empty() && !file.contains(' ')).then_some((file, counts))
}

/// A test's title without the duration vitest prints after it (`adds two numbers 9ms`).
fn without_timing(title: &str) -> &str {
    match title.rsplit_once(' ') {
        Some((head, last))
            if last.ends_with('s')
                && last.starts_with(|c: char| c.is_ascii_digit())
                && last
                    .trim_end_matches("ms")
                    .trim_end_matches('s')
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b == b'.') =>
        {
            head
        }
        _ => title,
    }
}

/// vitest's `tap` reporter, and its `tap-flat` one:
///
/// ```text
/// not ok 1 - test/a.test.js # time=16.52ms {        (tap: a file, then describe blocks, nested)
///     not ok 2 - add(2, 2) = 5 # time=6.83ms
///         ---
///         error:
///             name: "AssertionError"
///             message: "expected 4 to be 5 // Object.is equality"
///         at: "/project/test/a.test.js:3:86"
///         actual: "4"
///         expected: "5"
///         ...
///     ok 3 - handles bigint # TODO
/// }
/// not ok 2 - test/load.test.js                      (a file that did not load)
/// not ok 2 - test/a.test.js > add > add(2, 2) = 5   (tap-flat: the whole path on each line)
/// ```
///
/// A result line ending with `{` opens a file or describe block that `}` closes. There are no
/// totals: the counts are the results'.
#[derive(Debug)]
struct Tap {
    report: Report,
    /// The names of the open blocks, the file first.
    open: Vec<String>,
    /// The failure whose YAML block is being read.
    failure: Option<TapFailure>,
    passed: u64,
    failed: u64,
    skipped: u64,
    suites_errored: u64,
    failed_files: HashSet<String>,
    /// The project directory, with a trailing `/`: an `at` path without the file it is in.
    root: Option<String>,
}

#[derive(Debug, Default)]
struct TapFailure {
    file: String,
    /// The describe titles and the test title joined with ` > `; none for a file that did not
    /// load.
    test: Option<String>,
    name: Option<String>,
    message: Option<String>,
    at: Option<String>,
    actual: Option<String>,
    expected: Option<String>,
}

impl Tap {
    fn new() -> Tap {
        Tap {
            report: Report::new(TOOL, Outcome::Passed),
            open: Vec::new(),
            failure: None,
            passed: 0,
            failed: 0,
            skipped: 0,
            suites_errored: 0,
            failed_files: HashSet::new(),
            root: None,
        }
    }

    fn line(&mut self, line: &str) {
        let text = line.trim_ascii();
        if let Some(failure) = &mut self.failure {
            if text == "..." {
                self.finish_failure();
            } else {
                failure.yaml_line(text);
            }
            return;
        }
        if text == "}" {
            self.open.pop();
            return;
        }
        let (ok, rest) = match (text.strip_prefix("not ok "), text.strip_prefix("ok ")) {
            (Some(rest), _) => (false, rest),
            (None, Some(rest)) => (true, rest),
            (None, None) => return,
        };
        let Some((_, rest)) = rest.split_once(" - ") else {
            return;
        };
        let (rest, block) = match rest.strip_suffix(" {") {
            Some(rest) => (rest, true),
            None => (rest, false),
        };
        // ` # time=1.2ms`, ` # TODO`, ` # SKIP`: directives after the name.
        let (name, directives) = rest.split_once(" # ").unwrap_or((rest, ""));
        if block {
            if self.open.len() < 64 {
                self.open.push(name.to_owned());
            }
            return;
        }
        let mut path: Vec<&str> = self.open.iter().map(String::as_str).collect();
        path.extend(name.split(" > "));
        let Some((file, titles)) = path.split_first() else {
            return;
        };
        if ok {
            if directives.starts_with("TODO") || directives.starts_with("SKIP") {
                self.skipped += 1;
            } else {
                self.passed += 1;
            }
            return;
        }
        let test = (!titles.is_empty()).then(|| titles.join(" > "));
        if test.is_some() {
            self.failed += 1;
        } else {
            self.suites_errored += 1;
        }
        if self.failed_files.len() < 10_000 {
            self.failed_files.insert((*file).to_owned());
        }
        self.failure = Some(TapFailure {
            file: (*file).to_owned(),
            test,
            ..TapFailure::default()
        });
    }

    fn finish_failure(&mut self) {
        let Some(pending) = self.failure.take() else {
            return;
        };
        if is_full(&self.report) {
            self.report.diagnostics_dropped += 1;
            return;
        }
        let message = match (pending.name, pending.message) {
            (Some(name), Some(message)) => format!("{name}: {message}"),
            (None, Some(message)) => message,
            (Some(name), None) => name,
            (None, None) => "test failed".to_owned(),
        };
        let mut location = None;
        if let Some((file, line, column)) = pending.at.as_deref().and_then(split_location)
            && same_file(&pending.file, file)
        {
            location = Some((line, column));
            if let Some(root) = file.strip_suffix(pending.file.as_str())
                && root.len() > 1
                && self.root.is_none()
            {
                self.root = Some(root.to_owned());
            }
        }
        let message = strip_equality_note(&message);
        let mut diagnostic = failure(TOOL, clip(message, MAX_MESSAGE));
        if let Some((line, column)) = location {
            diagnostic.line = Some(line);
            diagnostic.column = column;
        }
        diagnostic.file = Some(pending.file);
        if let (Some(expected), Some(actual)) = (pending.expected, pending.actual) {
            diagnostic.detail = Some(clip(
                &format!("Expected: {expected}, Received: {actual}"),
                MAX_DETAIL,
            ));
        }
        match pending.test {
            Some(test) => diagnostic.test = Some(test),
            None => diagnostic.root_cause = true,
        }
        self.report.push(diagnostic);
    }

    fn finish(mut self) -> Report {
        self.finish_failure();
        let mut report = self.report;
        // `imported from /abs/project/src/a.js`: the project's own root adds nothing.
        if let Some(root) = &self.root {
            for diagnostic in &mut report.diagnostics {
                if diagnostic.message.contains(root.as_str()) {
                    diagnostic.message = diagnostic.message.replace(root.as_str(), "");
                    diagnostic.refresh_fingerprint();
                }
            }
        }
        let counts = &mut report.counts;
        counts.tests_passed = Some(self.passed);
        counts.tests_failed = Some(self.failed);
        counts.tests_skipped = Some(self.skipped);
        counts.suites_errored = Some(self.suites_errored);
        counts.files = Some(self.failed_files.len() as u64);
        report.outcome = if self.failed + self.suites_errored > 0 {
            Outcome::Failed
        } else if self.passed + self.skipped > 0 {
            Outcome::Passed
        } else {
            report.error = Some("vitest's TAP output holds no test result".to_owned());
            Outcome::Errored
        };
        report
    }
}

impl TapFailure {
    /// A line of the YAML block under a failure; only one-line values are kept.
    fn yaml_line(&mut self, text: &str) {
        let Some((key, value)) = text.split_once(": ") else {
            return;
        };
        let Some(value) = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .filter(|v| !v.is_empty())
        else {
            return;
        };
        let value = value.replace("\\\"", "\"");
        let slot = match key {
            "name" => &mut self.name,
            "message" => &mut self.message,
            "at" => &mut self.at,
            "actual" => &mut self.actual,
            "expected" => &mut self.expected,
            _ => return,
        };
        if slot.is_none() {
            *slot = Some(one_line(&value, MAX_MESSAGE));
        }
    }
}

/// Whether `report` holds only errors outside any test (vitest's unhandled errors) of a run in
/// which no test ran, passed or failed, and no test file failed.
fn no_test_ran(report: &Report) -> bool {
    let counts = &report.counts;
    counts.tests_passed == Some(0)
        && counts.tests_failed == Some(0)
        && counts.files.unwrap_or(0) == 0
        && counts.suites_errored.unwrap_or(0) == 0
        && !report.diagnostics.is_empty()
        && report.diagnostics.iter().all(|d| {
            d.test.is_none() && !d.root_cause && d.code.as_deref() != Some("coverage-threshold")
        })
}

/// The note a file reporter prints to stdout once it wrote its report: `JSON report written to
/// /p/.verdict/runs/current/vitest.json`.
fn is_report_written(text: &str) -> bool {
    // Checked on every line of a block: the reporter's name in capitals rules out most lines by
    // their first two bytes (`Error: …`, `- Expected`, `❯ …`).
    let bytes = text.as_bytes();
    bytes.len() > 2
        && bytes[..2].iter().all(u8::is_ascii_uppercase)
        && text
            .split_once(" report written to ")
            .is_some_and(|(reporter, _)| reporter.bytes().all(|b| b.is_ascii_uppercase()))
}

/// The lines of the run's summary after the counts: ` Start at  04:13:46`, ` Duration  512ms …`.
fn is_summary_tail(text: &str) -> bool {
    text.starts_with("Start at ") || text.starts_with("Duration ")
}

/// A line of a code frame: `12|     expect(…)`, `   |   ^`.
fn is_code_frame(text: &str) -> bool {
    if text.starts_with('|') {
        return true;
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && text[digits..].starts_with('|')
}

/// Whether a header's file and a frame's file are the same (one may be absolute, but not a file
/// of vitest's own).
fn same_file(header: &str, frame: &str) -> bool {
    let long = if header.len() > frame.len() {
        header
    } else {
        frame
    };
    header == frame || (!is_internal(long) && crate::js_test::same_file(header, frame))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        VitestSummarizer.parse(log.as_bytes())
    }

    #[test]
    fn a_shared_error_gives_each_header_a_diagnostic() {
        let report = parse(concat!(
            "⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯\n\n",
            " FAIL  test/hooks.test.js > database > reads a row\n",
            " FAIL  test/hooks.test.js > database > writes a row\n",
            "Error: could not connect to the database\n",
            " ❯ test/hooks.test.js:5:11\n",
            "      5|     throw new Error('could not connect to the database');\n",
            "       |           ^\n\n",
            "⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/2]⎯\n\n",
            " Test Files  1 failed (1)\n",
            "      Tests  2 failed | 1 passed (3)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.diagnostics.len(), 2);
        let d = &report.diagnostics[1];
        assert_eq!(d.test.as_deref(), Some("database > writes a row"));
        assert_eq!(d.location().as_deref(), Some("test/hooks.test.js:5:11"));
        assert_eq!(report.counts.tests_failed, Some(2));
        assert_eq!(
            report.summary.as_deref(),
            Some("Tests 2 failed | 1 passed (3)")
        );
    }

    #[test]
    fn diffs_become_the_detail() {
        let report = parse(concat!(
            "⎯⎯⎯ Failed Tests 1 ⎯⎯⎯\n",
            " FAIL  a.test.js > adds\n",
            "AssertionError: expected 3 to be 4 // Object.is equality\n\n",
            "- Expected\n+ Received\n\n- 4\n+ 3\n\n",
            " ❯ a.test.js:3:17\n",
            "⎯⎯⎯[1/1]⎯\n",
        ));
        let d = &report.diagnostics[0];
        assert_eq!(d.message, "AssertionError: expected 3 to be 4");
        assert_eq!(d.detail.as_deref(), Some("Expected: 4, Received: 3"));
    }

    #[test]
    fn config_errors_are_errored() {
        let report = parse(concat!(
            "failed to load config from /p/vitest.config.js\n\n",
            "⎯⎯⎯⎯⎯⎯⎯ Startup Error ⎯⎯⎯⎯⎯⎯⎯⎯\n",
            "Error: Build failed with 1 error:\n\n",
            "[PARSE_ERROR] Expected `,`\n",
            "   ╭─[ vitest.config.js:7:5 ]\n",
            "   │\n",
        ));
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(
            report.error.as_deref(),
            Some(
                "failed to load config from /p/vitest.config.js: Error: Build failed with 1 error: \
                 [PARSE_ERROR] Expected `,` (vitest.config.js:7:5)"
            )
        );
    }

    /// vitest writes its failures to stderr and its summary to stdout: through one pipe the
    /// summary may come first (seen with the dot reporter and `--silent`).
    #[test]
    fn failures_after_the_summary_are_read() {
        let report = parse(concat!(
            " RUN  v4.1.0 C:/work/app\n\nx\n\n",
            " Test Files  1 failed (1)\n",
            "      Tests  1 failed (1)\n\n",
            "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n",
            " FAIL  |unit| src/a.test.ts > parses a range\n",
            "AssertionError: expected 6 to be undefined\n\n",
            "- Expected:\nundefined\n\n+ Received:\n6\n\n",
            " ❯ src/a.test.ts:5:33\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("parses a range"));
        assert_eq!(d.location().as_deref(), Some("src/a.test.ts:5:33"));
        assert_eq!(
            d.detail.as_deref(),
            Some("Expected: undefined, Received: 6")
        );
        assert_eq!(report.counts.tests_failed, Some(1));
    }

    /// vitest 3's log of a `beforeAll` that threw, as one pipe interleaved it: the summary
    /// inside the block, before its frame. The block goes on past the summary.
    #[test]
    fn a_hook_error_keeps_its_frame_after_the_summary() {
        let report = parse(concat!(
            "⎯⎯⎯⎯⎯⎯ Failed Suites 1 ⎯⎯⎯⎯⎯⎯⎯\n\n",
            " FAIL  src/u.test.ts > db\n",
            "Error: cannot connect to db\n\n",
            " Test Files  1 failed (1)\n",
            "      Tests  1 passed | 1 skipped (2)\n",
            "   Start at  04:13:46\n",
            " ❯ src/u.test.ts:3:27\n",
            "      3|   beforeAll(() => { throw new Error(\"cannot connect to db\"); });\n",
            "       |                           ^\n\n",
            "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯\n\n",
            "   Duration  512ms (transform 75ms, setup 0ms, collect 56ms, tests 5ms)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert_eq!(d.location().as_deref(), Some("src/u.test.ts:3:27"));
        assert_eq!(d.test.as_deref(), Some("db"));
        assert!(d.root_cause && d.test_error);
        assert_eq!(report.counts.suites_errored, Some(1));
    }

    /// vitest 3.2.7 (verdict's own run, both pipes drained; the project's path shortened):
    /// stderr's `Failed Suites` block was read in two parts, and stdout's summary and the JSON
    /// reporter's note landed between a `beforeAll`'s header and its error. The error still
    /// belongs to the header.
    #[test]
    fn a_hook_error_after_the_summary_and_the_report_note_is_its_headers() {
        let report = parse(LOG_HOOKS_INTERLEAVED);
        let hook = report
            .diagnostics
            .iter()
            .find(|d| d.test.as_deref() == Some("before all"))
            .expect("the beforeAll's failure");
        assert_eq!(hook.message, "Error: beforeAll broke");
        assert_eq!(hook.location().as_deref(), Some("test/db.test.js:17:11"));
        assert!(hook.root_cause && hook.test_error);
        assert_eq!(report.counts.suites_errored, Some(2));
        assert!(
            report
                .diagnostics
                .iter()
                .all(|d| d.message != "test failed"),
            "{:#?}",
            report.diagnostics
        );
        assert!(is_report_written("JSON report written to /p/vitest.json"));
        assert!(!is_report_written("Error: report written to disk"));
    }

    const LOG_HOOKS_INTERLEAVED: &str = r#"
 RUN  v3.2.7 /tmp/project

 ❯ test/db.test.js (3 tests | 1 failed | 1 skipped) 8ms
   × after all > fails 6ms
     → expected 1 to be 2 // Object.is equality
   ✓ after all > passes 0ms
   ↓ before all > never runs

⎯⎯⎯⎯⎯⎯ Failed Suites 2 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/db.test.js > after all
Error: afterAll broke
 ❯ test/db.test.js:5:11
      3| describe('after all', () => {
      4|   afterAll(() => {
      5|     throw new Error('afterAll broke');
       |           ^
      6|   });
      7|   it('fails', () => {

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/3]⎯

 FAIL  test/db.test.js > before all

 Test Files  1 failed (1)
      Tests  1 failed | 1 passed | 1 skipped (3)
   Start at  12:19:49
   Duration  310ms (transform 36ms, setup 0ms, collect 13ms, tests 8ms, environment 0ms, prepare 126ms)

JSON report written to /tmp/project/.verdict/runs/current/vitest.json
Error: beforeAll broke
 ❯ test/db.test.js:17:11
     15| describe('before all', () => {
     16|   beforeAll(() => {
     17|     throw new Error('beforeAll broke');
       |           ^
     18|   });
     19|   it('never runs', () => {

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[2/3]⎯


⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/db.test.js > after all > fails
AssertionError: expected 1 to be 2 // Object.is equality

- Expected
+ Received

- 2
+ 1

 ❯ test/db.test.js:8:15
      6|   });
      7|   it('fails', () => {
      8|     expect(1).toBe(2);
       |               ^
      9|   });
     10|   it('passes', () => {

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[3/3]⎯


"#;

    /// The summary can land anywhere in a block, also before an assertion's diff.
    #[test]
    fn a_diff_after_the_summary_is_the_blocks() {
        let report = parse(concat!(
            "⎯⎯⎯ Failed Tests 1 ⎯⎯⎯\n",
            " FAIL  a.test.js > adds\n",
            "AssertionError: expected 3 to be 4 // Object.is equality\n\n",
            " Test Files  1 failed (1)\n",
            "      Tests  1 failed (1)\n",
            "- Expected\n+ Received\n\n- 4\n+ 3\n\n",
            " ❯ a.test.js:3:17\n",
            "⎯⎯⎯[1/1]⎯\n",
            "----------|---------|\n",
        ));
        let d = &report.diagnostics[0];
        assert_eq!(d.detail.as_deref(), Some("Expected: 4, Received: 3"));
        assert_eq!(d.location().as_deref(), Some("a.test.js:3:17"));
    }

    /// A test environment that is not installed: vitest runs no test and prints an unhandled
    /// error. Nothing was verified.
    #[test]
    fn unhandled_errors_without_any_test_are_errored() {
        let report = parse(concat!(
            " MISSING DEPENDENCY  Cannot find dependency 'jsdom'\n\n",
            "⎯⎯⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯⎯⎯\n\n",
            "⎯⎯⎯⎯⎯⎯ Unhandled Error ⎯⎯⎯⎯⎯⎯⎯\n",
            "Error: [vitest-pool]: Failed to start forks worker for test files /p/test/dom.test.js.\n",
            " ❯ node_modules/vitest/dist/chunks/index.ER9afepi.js:6037:94\n\n",
            "Caused by: Error: Cannot find package 'jsdom' imported from /p/node_modules/vitest/dist/chunks/index.C7Nn66Gy.js\n",
            "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯\n\n",
            " Test Files  no tests\n",
            "      Tests  no tests\n",
            "     Errors  1 error\n",
        ));
        assert_eq!(report.outcome, Outcome::Errored);
        let error = report.error.as_deref().unwrap_or("");
        assert_eq!(error, "vitest ran no test: Cannot find dependency 'jsdom'");
        let d = &report.diagnostics[0];
        assert!(
            d.detail
                .as_deref()
                .is_some_and(|detail| detail.contains("Cannot find package 'jsdom'")),
            "{d:?}"
        );
    }

    #[test]
    fn coverage_thresholds_fail_the_run() {
        let report = parse(concat!(
            " Test Files  1 passed (1)\n",
            "      Tests  1 passed (1)\n",
            "ERROR: Coverage for lines (50%) does not meet global threshold (80%)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
    }

    /// vitest 1's stdout alone: the failures are only in the file tree, which was not read.
    #[test]
    fn the_file_tree_gives_the_failures_of_a_stdout_only_log() {
        let report = parse(concat!(
            " ❯ tests/a.test.ts  (3 tests | 1 failed) 12ms\n",
            "   ❯ tests/a.test.ts > Suite > parses a range\n",
            "     → Cannot read properties of undefined (reading 'x')\n",
            " ❯ tests/b.test.ts  (0 test)\n",
            " ✓ tests/c.test.ts  (2 tests) 3ms\n\n",
            " Test Files  2 failed | 1 passed (3)\n",
            "      Tests  1 failed | 4 passed (5)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.diagnostics.len(), 2);
        let d = &report.diagnostics[0];
        assert_eq!(d.file.as_deref(), Some("tests/a.test.ts"));
        assert_eq!(d.test.as_deref(), Some("Suite > parses a range"));
        assert_eq!(
            d.message,
            "Cannot read properties of undefined (reading 'x')"
        );
        assert!(report.diagnostics[1].root_cause);
    }

    /// vitest 1's verbose reporter lists every test on a line of its own, a failed one with `×`.
    #[test]
    fn verbose_lines_of_failed_tests_are_read() {
        let report = parse(concat!(
            " ✓ src/a.test.ts > formatters > formats a number\n",
            " × src/a.test.ts > formatters > formats a date 12ms\n",
            "   → expected '1/2' to be '2/1'\n\n",
            " Test Files  1 failed (1)\n",
            "      Tests  1 failed | 1 passed (2)\n",
        ));
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("formatters > formats a date"));
        assert_eq!(d.message, "expected '1/2' to be '2/1'");
    }

    /// vitest 2 to 4 list a failed test by its title and time, under a project label; the error
    /// block, when the log has it, is the one reported.
    #[test]
    fn tree_failures_yield_to_the_error_blocks() {
        let tree = concat!(
            " ❯ |unit| src/a.test.ts (2 tests | 1 failed) 9ms\n",
            "     × adds two numbers 5ms\n",
            "       → expected 3 to be 4 // Object.is equality\n",
        );
        let report = parse(&format!("{tree} Tests  1 failed | 1 passed (2)\n"));
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("adds two numbers"));
        assert_eq!(d.message, "expected 3 to be 4");
        let report = parse(&format!(
            "{tree}⎯⎯⎯ Failed Tests 1 ⎯⎯⎯\n FAIL  |unit| src/a.test.ts > math > adds two numbers\nAssertionError: expected 3 to be 4\n ❯ src/a.test.ts:3:17\n⎯⎯⎯[1/1]⎯\n"
        ));
        assert_eq!(report.diagnostics.len(), 1);
        assert_eq!(
            report.diagnostics[0].location().as_deref(),
            Some("src/a.test.ts:3:17")
        );
    }

    /// Two runs in one log (watch mode, or a workspace's packages): the second run's passing
    /// summary replaced the first run's failing one, and the log was a pass.
    #[test]
    fn a_failed_run_stays_failed_when_a_later_run_passes() {
        let report = parse(concat!(
            " RUN  v3.2.4 /p\n\n",
            " Test Files  1 failed | 1 passed (2)\n",
            "      Tests  2 failed | 5 passed (7)\n\n",
            " RUN  v3.2.4 /p\n\n",
            " Test Files  2 passed (2)\n",
            "      Tests  7 passed (7)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.tests_failed, Some(2));
        assert_eq!(report.counts.tests_passed, Some(12));
        assert_eq!(report.counts.files, Some(1));
    }

    /// A log without the runner's closing summary (empty, or cut off when the process died) was
    /// "no failure found".
    #[test]
    fn a_log_without_the_summary_is_not_a_pass() {
        assert_eq!(parse("").outcome, Outcome::Errored);
        let report = parse(" ✓ test/a.test.js (1 test) 3ms\n");
        assert_eq!(report.outcome, Outcome::Errored);
        assert!(report.error.is_some_and(|e| e.contains("summary")));
    }
}
