//! The `jest` summarizer: jest's default and verbose reporters, as a CI log shows them.
//!
//! What jest prints, and what becomes of it:
//! - `PASS path` / `FAIL path` (with a `(1.2 s)` timing, or a project badge, sometimes) names the
//!   test file the failure blocks below it belong to;
//! - each failure is a block `  ● Suite › nested › test name`, its lines indented by four: the
//!   error (`expect(received).toBe(expected) // Object.is equality`, `TypeError: …`), the
//!   `Expected: …` / `Received: …` lines or a `- Expected` / `+ Received` diff, a code frame, and
//!   `at fn (path:line:col)` frames. One diagnostic per block: the test name is the header as jest
//!   prints it — the describe titles and the test title joined with ` › ` (the JSON report's
//!   `ancestorTitles` and `title`) — the location is the first frame in the test file;
//! - `  ● Test suite failed to run` is a test file that does not load (a missing module, a syntax
//!   error, a hook outside any test that threw): a root cause, counted in
//!   [`Counts::suites_errored`](verdict_model::Counts). For `Jest encountered an unexpected token`
//!   the message is the error under `Details:` (babel's `SyntaxError: … (2:0)`, Node's `Cannot use
//!   import statement outside a module` below the `path:line` it names), not jest's advice;
//! - a coverage threshold not met (jest 29's `Jest: "global" coverage threshold for lines (80%)
//!   not met: 50%`, jest 30's `Jest: Coverage for lines (50%) does not meet "global" threshold
//!   (80%)`) fails a run whose tests passed;
//! - `  ● Console` blocks and verbose `console.log` blocks are output, not failures, and so is any
//!   `  ● ` line under a `PASS` header (what a test printed; jest lists failures under `FAIL`);
//!   nor are the `●  TCPSERVERWRAP` blocks `--detectOpenHandles` prints after the summary (a note
//!   names them);
//!   a `●  Cannot log after tests are done.` block is a failure (jest exits 1 for it);
//! - with more than 20 test files jest repeats every failure after `Summary of all failing tests`:
//!   the repeats are not counted twice;
//! - the counts come from `Tests:       2 failed, 1 skipped, 1 todo, 5 passed, 8 total` (skipped and
//!   todo both count as skipped) and `Test Suites: 1 failed, 2 passed, 3 total` (failed suites are
//!   the files with failures); the `Tests:` line is the summary;
//! - the status a terminal shows while files run (`Test Suites: 6 failed, 6 of 7 total`) counts
//!   only once `Ran all test suites` follows it (a run that skipped files ends that way too);
//!   without it the log was cut off during the run. An error jest throws after its summary, with
//!   a stack under it, makes a passing run errored;
//! - `● Validation Error:` and the other column-0 `●` blocks (bad configuration or command line),
//!   a crash before any test (a config file that does not parse) and `No tests found, exiting
//!   with code 1` mean nothing was verified: the outcome is errored.

use std::collections::HashSet;

use verdict_model::{Diagnostic, Kind, LineParser, Outcome, Report, Summarizer};

use crate::js_test::{
    Diff, MAX_BLOCK_LINES, MAX_DETAIL, MAX_MESSAGE, Unprefixed, coverage_threshold, failure,
    is_code_frame, is_diff_label, is_error_line, is_full, no_tests, one_line, same_file,
    strip_equality_note, unprefixed_sample, v8_frame,
};
use crate::text::{clip, count_of, split_location};

/// Parses jest output.
#[derive(Debug, Default, Clone, Copy)]
pub struct JestSummarizer;

impl Summarizer for JestSummarizer {
    fn name(&self) -> &'static str {
        "jest"
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        // A JSON report (`--json`), whose test results hold jest's human messages.
        if let Some(score) = crate::jest_json::sniff_document(sample, "jest") {
            return score;
        }
        let sample = &*unprefixed_sample(sample);
        // The summary lines and `Ran all test suites.` are jest's alone.
        if sample.contains("Test Suites: ") && sample.contains("Tests:       ")
            || sample.contains("Ran all test suites")
        {
            return 95;
        }
        if sample.contains("● Validation Error:")
            || sample.contains("No tests found, exiting with code")
            || sample.contains("No tests found related to files changed since last commit")
            || sample.contains("jestjs.io/docs")
            || sample.contains("● Test suite failed to run")
            || sample.contains("●  process.exit called with")
        {
            return 90;
        }
        if sample.contains("  ● ") && sample.contains(" › ") {
            return 85;
        }
        // A crash before jest printed anything of its own: its packages are named in the stack,
        // or its config is named where it threw. A config only listed (a scanner's file list)
        // says nothing of a run.
        if sample.contains("node_modules/jest-") || names_config_in_a_crash(sample) {
            return 60;
        }
        // Only the package manager's echo of the script is left (jest writes its results to
        // stderr, and a log that kept only stdout has none of them).
        if crate::js_test::runs_script(sample, "jest") {
            return 50;
        }
        let headers = sample.lines().any(|line| {
            let line = line.strip_prefix(' ').unwrap_or(line);
            (line.starts_with("FAIL ") || line.starts_with("PASS "))
                && !line.contains(" > ")
                && !line.contains(" [ ")
        });
        if headers && sample.contains("  ● ") {
            80
        } else if headers {
            40
        } else {
            0
        }
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Unprefixed::wrap(Box::new(Parser::new()))
    }

    fn parse(&self, log: &[u8]) -> Report {
        crate::document::parse(log, crate::jest_json::jest_document, "jest", self.parser())
    }

    fn parse_reader(
        &self,
        reader: &mut dyn std::io::Read,
    ) -> std::io::Result<(Report, verdict_model::lines::Stats)> {
        crate::document::parse_reader(
            reader,
            crate::jest_json::jest_document,
            "jest",
            self.parser(),
        )
    }
}

const TOOL: &str = "jest";

/// Whether `sample` names jest's config where something threw: as the place of an error
/// (`jest.config.js:4`, as node prints a config that does not parse), or on an error's line.
fn names_config_in_a_crash(sample: &str) -> bool {
    sample.match_indices("jest.config.").any(|(at, _)| {
        let line_start = sample[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = sample[at..].find('\n').map_or(sample.len(), |i| at + i);
        let rest = &sample[at + "jest.config.".len()..line_end];
        let place = rest
            .trim_start_matches(|c: char| c.is_ascii_alphanumeric())
            .strip_prefix(':')
            .is_some_and(|after| after.starts_with(|c: char| c.is_ascii_digit()));
        place || sample[line_start..line_end].contains("Error")
    })
}

/// The longest first line of a failure that is read as a label for the line after it.
const MAX_LABEL: usize = 40;

/// How many of the open handles `--detectOpenHandles` lists are named in the report's note.
const MAX_OPEN_HANDLES_NAMED: usize = 5;

/// What a `●` block is.
#[derive(Debug)]
enum BlockKind {
    /// A failing test, with its full name.
    Test(String),
    /// `Test suite failed to run`: the file did not load.
    Suite,
    /// `Console` output: read past, not reported.
    Console,
    /// An error jest reports outside any test, its message as the title: `●  process.exit called
    /// with "1"` (two spaces: the title is empty). jest prints it under whatever file's header
    /// came last, and once for each file a worker runs after it, so it is located by its own
    /// stack frame and reported once.
    Outside,
    /// An open handle `--detectOpenHandles` found after the run (`●  TCPSERVERWRAP`, titled like
    /// an error outside the tests): something a test left running, not a failure — jest's exit
    /// code and report are those of the tests.
    OpenHandle,
}

/// The `●` block being read. Bounded: a few short strings, whatever the block's length.
#[derive(Debug)]
struct Block {
    kind: BlockKind,
    /// The report is full and this is no repeat: the block is only counted, its lines not read.
    count_only: bool,
    /// The test file from the last `FAIL` header.
    file: Option<String>,
    message: Option<String>,
    /// `Expected: …` / `Received: …` lines.
    expected_received: Vec<String>,
    diff: Diff,
    /// For `Jest encountered an unexpected token`: the `SyntaxError` line under `Details:`.
    syntax_error: Option<String>,
    /// Past the `Details:` line of `Jest encountered an unexpected token`, where the real error is.
    in_details: bool,
    /// The `path:line` under `Details:` (Node.js prints where a file fails to parse), when it is
    /// the block's test file.
    details_location: Option<(u32, Option<u32>)>,
    /// Past the message: in the code frame or the stack.
    in_frames: bool,
    /// The first frame in the test file.
    frame: Option<(u32, Option<u32>)>,
    /// The first frame in the project's code, when none is in the test file.
    fallback: Option<(String, u32, Option<u32>)>,
    lines: usize,
}

impl Block {
    fn new(kind: BlockKind, file: Option<String>) -> Block {
        Block {
            kind,
            count_only: false,
            file,
            message: None,
            expected_received: Vec::new(),
            diff: Diff::default(),
            syntax_error: None,
            in_details: false,
            details_location: None,
            in_frames: false,
            frame: None,
            fallback: None,
            lines: 0,
        }
    }

    /// Reads one line of the block, indentation removed.
    fn line(&mut self, text: &str) {
        if self.count_only || matches!(self.kind, BlockKind::Console) {
            return;
        }
        self.lines += 1;
        if text.starts_with("at ") {
            self.in_frames = true;
            if self.frame.is_none() {
                self.frame_line(text);
            }
            return;
        }
        if is_code_frame(text) {
            self.in_frames = true;
            return;
        }
        if self.lines > MAX_BLOCK_LINES {
            return;
        }
        if self.message.is_none() {
            self.message = Some(text.to_owned());
            return;
        }
        // A short label ending with a colon (`Configuration error:`) says what follows: the
        // message is the label and the line after it.
        if self.lines == 2
            && let Some(message) = &mut self.message
            && message.ends_with(':')
            && message.len() <= MAX_LABEL
        {
            message.push(' ');
            message.push_str(text);
            return;
        }
        if self.message.as_deref() == Some("Jest encountered an unexpected token") {
            // What precedes `Details:` is jest's advice, the same for every such error; what
            // follows is the error itself: Node's `path:line` and the error line (`Cannot use
            // import statement outside a module`), or babel's `SyntaxError: path: … (2:0)`.
            if text == "Details:" {
                self.in_details = true;
                return;
            }
            if self.in_details
                && self.details_location.is_none()
                && self.syntax_error.is_none()
                && let Some((file, line, column)) = split_location(text)
                && self
                    .file
                    .as_deref()
                    .is_some_and(|test| same_file(test, file))
            {
                self.details_location = Some((line, column));
                return;
            }
            if self.syntax_error.is_none()
                && (text.starts_with("SyntaxError:") || self.in_details && is_error_line(text))
            {
                self.syntax_error = Some(text.to_owned());
                return;
            }
        }
        if self.in_frames {
            return;
        }
        // A snapshot of one line that no longer matches is printed as `Snapshot: "Receipt #41"`
        // over `Received: "Receipt #42"`, not as a diff (`Snapshot name: …` is the header above).
        if text.starts_with("Expected")
            || text.starts_with("Received")
            || text.starts_with("Snapshot: ")
        {
            // `Received:` alone introduces a multi-line value: nothing to show on one line.
            if self.expected_received.len() < 4 && !text.ends_with(':') {
                self.expected_received.push(one_line(text, 100));
            }
        } else if text.starts_with("New snapshot was not written") {
            let sentence = text.split_inclusive(". ").next().unwrap_or(text);
            self.expected_received.push(one_line(sentence, 100));
        } else if let Some(rest) = text.strip_prefix('-') {
            if !is_diff_label(rest) {
                self.diff.push_expected(rest);
            }
        } else if let Some(rest) = text.strip_prefix('+')
            && !is_diff_label(rest)
        {
            self.diff.push_received(rest);
        }
    }

    fn frame_line(&mut self, text: &str) {
        let Some(frame) = v8_frame(text) else {
            return;
        };
        if frame.is_internal() {
            return;
        }
        if self
            .file
            .as_deref()
            .is_some_and(|file| same_file(file, frame.file))
        {
            self.frame = Some((frame.line, frame.column));
        } else if self.fallback.is_none() {
            self.fallback = Some((frame.file.to_owned(), frame.line, frame.column));
        }
    }

    fn into_diagnostic(self) -> Option<Diagnostic> {
        let Block {
            kind,
            file,
            message,
            expected_received,
            diff,
            syntax_error,
            details_location,
            frame,
            fallback,
            ..
        } = self;
        let mut detail = if expected_received.is_empty() {
            diff.render("Expected", "Received")
        } else {
            Some(clip(&expected_received.join(", "), MAX_DETAIL))
        };
        let (message, location) = match &kind {
            BlockKind::Console | BlockKind::OpenHandle => return None,
            BlockKind::Outside => (message.unwrap_or_default(), frame),
            BlockKind::Test(_) => {
                let message = message.unwrap_or_else(|| "test failed".to_owned());
                (strip_equality_note(&message).to_owned(), frame)
            }
            BlockKind::Suite => {
                let mut message = message.unwrap_or_else(|| "test suite failed to run".to_owned());
                if let Some(syntax_error) = syntax_error {
                    detail = Some(message);
                    message = syntax_error;
                }
                let message = strip_syntax_error_path(&message).into_owned();
                // Babel's syntax errors end with `(line:col)` and have no frame in the file;
                // ts-jest's type errors start with `file:line:col - error TS…`.
                let location = frame
                    .or_else(|| trailing_line_col(&message))
                    .or_else(|| leading_location_in(&message, file.as_deref()))
                    .or(details_location);
                (message, location)
            }
        };
        let mut diagnostic = failure(TOOL, clip(&message, MAX_MESSAGE));
        match (file, location, fallback) {
            (Some(file), location, _) => {
                diagnostic.file = Some(file);
                if let Some((line, column)) = location {
                    diagnostic.line = Some(line);
                    diagnostic.column = column;
                }
            }
            (None, _, Some((file, line, column))) => {
                diagnostic.file = Some(file);
                diagnostic.line = Some(line);
                diagnostic.column = column;
            }
            (None, _, None) => {}
        }
        match kind {
            BlockKind::Test(name) => diagnostic.test = Some(name),
            _ => diagnostic.root_cause = true,
        }
        diagnostic.detail = detail;
        diagnostic.refresh_fingerprint();
        Some(diagnostic)
    }
}

/// A column-0 `●` block: `● Validation Error:`, `● Unrecognized CLI Parameter:`, or a warning.
#[derive(Debug)]
struct TopBlock {
    header: String,
    warning: bool,
    text: String,
    /// The first paragraph has ended; the rest (examples, documentation links) is not kept.
    done: bool,
}

#[derive(Debug)]
struct Parser {
    report: Report,
    /// The test file of the last `FAIL`/`PASS` header.
    file: Option<String>,
    /// The last header was `PASS`: jest prints no failure under it, so a `  ● ` line there is
    /// what the tests printed (a list, a status line), not a failing test.
    file_passed: bool,
    block: Option<Block>,
    top: Option<TopBlock>,
    /// The first configuration or command-line error.
    config_error: Option<String>,
    /// After `Summary of all failing tests`: failures already reported are repeated.
    repeat: bool,
    /// Fingerprints and lines of what was reported, to skip the repeats.
    seen: HashSet<(u64, Option<u32>)>,
    saw_summary: bool,
    /// The live status jest redraws while it runs (`Test Suites: 6 failed, 6 of 7 total`), kept
    /// until `Ran all test suites` says it was the last one: the files failed and the tests'
    /// counts of the `Tests:` line under it.
    progress: Option<Progress>,
    /// An error jest threw after its summary (`Error: kill EPERM` from a custom runner), once a
    /// stack frame under it confirms it, and whether that frame was seen.
    late_crash: Option<(String, bool)>,
    saw_fail: bool,
    saw_any_jest_line: bool,
    suites_errored: u64,
    /// `No tests found, exiting with code N`, and whether N is 0.
    no_tests: Option<(String, bool)>,
    /// The Snapshot Summary's `› 1 snapshot obsolete from 1 test suite. …` and the first file it
    /// names (`↳ test/a.test.js`).
    obsolete: Option<String>,
    obsolete_file: Option<String>,
    /// A Node.js error printed outside any block before jest ran a test.
    crash: Option<String>,
    /// A `path:line` printed above such an error (Node.js shows where a file fails to parse).
    crash_location: Option<String>,
    /// After `Jest has detected the following 2 open handles potentially keeping Jest from
    /// exiting:`, until the next run's file header: `●  NAME` blocks are open handles.
    in_open_handles: bool,
    /// How many open handles were listed, and the first few as `NAME at file:line`.
    open_handles: u64,
    open_handles_named: Vec<String>,
    lines: u64,
}

impl Parser {
    fn new() -> Parser {
        Parser {
            report: Report::new(TOOL, Outcome::Passed),
            file: None,
            file_passed: false,
            block: None,
            top: None,
            config_error: None,
            repeat: false,
            seen: HashSet::new(),
            saw_summary: false,
            progress: None,
            late_crash: None,
            saw_fail: false,
            saw_any_jest_line: false,
            suites_errored: 0,
            no_tests: None,
            obsolete: None,
            obsolete_file: None,
            crash: None,
            crash_location: None,
            in_open_handles: false,
            open_handles: 0,
            open_handles_named: Vec::new(),
            lines: 0,
        }
    }

    fn finish_block(&mut self) {
        let Some(block) = self.block.take() else {
            return;
        };
        if matches!(block.kind, BlockKind::OpenHandle) {
            self.open_handles += 1;
            if self.open_handles_named.len() < MAX_OPEN_HANDLES_NAMED {
                let name = block.message.unwrap_or_default();
                // With no test file to hold it to, the block's first frame in the project's
                // code is where the handle was opened.
                let at = match block.fallback {
                    Some((file, line, _)) => format!(" at {file}:{line}"),
                    None => String::new(),
                };
                self.open_handles_named
                    .push(clip(&format!("{name}{at}"), MAX_MESSAGE));
            }
            return;
        }
        let is_suite = matches!(block.kind, BlockKind::Suite);
        let is_outside = matches!(block.kind, BlockKind::Outside);
        if is_full(&self.report) && !self.repeat {
            // Only counted from here on: no need to build it.
            if !matches!(block.kind, BlockKind::Console) {
                self.suites_errored += u64::from(is_suite);
                self.report.diagnostics_dropped += 1;
            }
            return;
        }
        let Some(diagnostic) = block.into_diagnostic() else {
            return;
        };
        let key = (diagnostic.fingerprint.0, diagnostic.line);
        // An error outside the tests is printed again for each file after it: one is enough.
        if (self.repeat || is_outside) && self.seen.contains(&key) {
            return;
        }
        if self.seen.len() < verdict_model::model::MAX_DIAGNOSTICS {
            self.seen.insert(key);
        }
        if is_suite {
            self.suites_errored += 1;
        }
        self.report.push(diagnostic);
    }

    fn finish_top(&mut self) {
        let Some(top) = self.top.take() else {
            return;
        };
        if top.warning || self.config_error.is_some() {
            return;
        }
        let text = one_line(&top.text, MAX_MESSAGE);
        self.config_error = Some(if text.is_empty() {
            top.header
        } else {
            format!("{} {text}", top.header)
        });
    }

    /// Counts a run's summary that `Ran all test suites` confirmed after its partial total.
    fn commit_summary(&mut self, progress: &Progress) {
        self.saw_summary = true;
        self.repeat = false;
        self.seen.clear();
        let counts = &mut self.report.counts;
        add_count(&mut counts.files, count_of(&progress.suites, "failed"));
        if let Some(rest) = &progress.tests {
            add_count(&mut counts.tests_failed, count_of(rest, "failed"));
            add_count(&mut counts.tests_passed, count_of(rest, "passed"));
            add_count(
                &mut counts.tests_skipped,
                Some(count_of(rest, "skipped").unwrap_or(0) + count_of(rest, "todo").unwrap_or(0)),
            );
            self.report.summary = Some(one_line(&format!("Tests:{rest}"), MAX_MESSAGE));
        }
    }

    /// A line with less than four spaces of indentation: a header, a summary line, or output.
    fn structural_line(&mut self, indent: usize, text: &str) {
        // jest's GitHub Actions reporter (`reporters: [['github-actions', {silent: false}], …]`)
        // wraps each file's header, and then each file's failures again, in log groups.
        let text = match text.strip_prefix("::group::") {
            Some(rest) if indent == 0 => rest,
            _ => text,
        };
        if indent == 0 && self.group_line(text) {
            return;
        }
        if indent == 2 && self.block_header(text) {
            return;
        }
        self.finish_block();
        if indent <= 1 && self.file_header(text) {
            return;
        }
        if self.obsolete_line(indent, text) || indent != 0 {
            return;
        }
        self.finish_top();
        if let Some(header) = text.strip_prefix("● ") {
            self.saw_any_jest_line = true;
            self.top = Some(TopBlock {
                header: header.trim_end().to_owned(),
                warning: header.contains("Warning"),
                text: String::new(),
                done: false,
            });
            return;
        }
        self.column_zero_line(text);
    }

    /// `::endgroup::`, or `Errors thrown in <file>` (the GitHub Actions reporter's groups);
    /// `true` when the line was one of them.
    fn group_line(&mut self, text: &str) -> bool {
        if text.starts_with("::endgroup::") {
            self.finish_block();
            return true;
        }
        let Some(file) = text.strip_prefix("Errors thrown in ") else {
            return false;
        };
        // The failures of one file, which the default reporter may have printed already.
        self.finish_block();
        self.finish_top();
        self.file = Some(file.trim().to_owned());
        self.file_passed = false;
        self.repeat = true;
        true
    }

    /// `  ● Suite › test`: a block starts (a failure, a suite that failed to run, console
    /// output, an open handle); or the text of a column-0 `●` block goes on. `true` when taken.
    fn block_header(&mut self, text: &str) -> bool {
        let Some(name) = text.strip_prefix("● ") else {
            if let Some(top) = &mut self.top {
                add_top_text(top, text);
                return true;
            }
            return false;
        };
        self.finish_block();
        self.saw_any_jest_line = true;
        let kind = match name.trim_end() {
            "Test suite failed to run" => BlockKind::Suite,
            "Console" => BlockKind::Console,
            name if name.starts_with(' ') && self.in_open_handles => BlockKind::OpenHandle,
            name if name.starts_with(' ') => BlockKind::Outside,
            _ if self.file_passed && !self.repeat => BlockKind::Console,
            name => BlockKind::Test(name.to_owned()),
        };
        let outside = matches!(kind, BlockKind::Outside | BlockKind::OpenHandle);
        let file = if outside { None } else { self.file.clone() };
        let mut block = Block::new(kind, file);
        if outside {
            block.message = Some(name.trim().to_owned());
        }
        block.count_only =
            is_full(&self.report) && !self.repeat && !matches!(block.kind, BlockKind::OpenHandle);
        self.block = Some(block);
        true
    }

    /// `FAIL path` / `PASS path`: the test file whose blocks follow; `true` when it was one.
    fn file_header(&mut self, text: &str) -> bool {
        let Some(rest) = text
            .strip_prefix("FAIL ")
            .or_else(|| text.strip_prefix("PASS "))
        else {
            return false;
        };
        self.finish_top();
        self.saw_any_jest_line = true;
        self.in_open_handles = false;
        if self
            .late_crash
            .as_ref()
            .is_some_and(|(_, confirmed)| !confirmed)
        {
            self.late_crash = None;
        }
        if text.starts_with('F') {
            self.saw_fail = true;
        }
        self.file_passed = text.starts_with('P');
        self.file = Some(header_file(rest).to_owned());
        true
    }

    /// `› 1 snapshot obsolete from 1 test suite.` and the `↳ file` under it; `true` when taken.
    fn obsolete_line(&mut self, indent: usize, text: &str) -> bool {
        if indent <= 1
            && let Some(rest) = text.strip_prefix("› ")
            && rest.contains(" obsolete from ")
        {
            self.obsolete = Some(one_line(rest, MAX_MESSAGE));
            return true;
        }
        if indent == 3
            && self.obsolete.is_some()
            && self.obsolete_file.is_none()
            && let Some(file) = text.strip_prefix("↳ ")
        {
            self.obsolete_file = Some(file.to_owned());
            return true;
        }
        false
    }

    /// A column-0 line outside any block: the summary's lines, jest's notices after it, or what
    /// a crash printed.
    fn column_zero_line(&mut self, text: &str) {
        match text.as_bytes().first() {
            Some(b'T') => {
                if let Some(rest) = text.strip_prefix("Tests:") {
                    self.tests_summary(rest, text);
                } else if let Some(rest) = text.strip_prefix("Test Suites:") {
                    self.suites_summary(rest);
                } else if text.starts_with("Test run was interrupted") {
                    self.report.note("jest: the test run was interrupted");
                }
            }
            Some(b'S') if text.starts_with("Snapshots:") && text.contains(" obsolete") => {
                self.obsolete_snapshots(text);
            }
            Some(b'R') if text.starts_with("Ran all test suites") => {
                if let Some(progress) = self.progress.take() {
                    self.commit_summary(&progress);
                }
            }
            Some(b'S') if text.starts_with("Summary of all failing tests") => {
                self.repeat = true;
            }
            Some(b'J') if text.starts_with("Jest has detected the following") => {
                // `--detectOpenHandles`, after the summary: the `●` blocks that follow name what
                // keeps jest from exiting.
                self.in_open_handles = true;
            }
            Some(b'J') if text.starts_with("Jest: ") && text.contains(" threshold") => {
                // jest 29's `Jest: "global" coverage threshold for lines (80%) not met: 50%`,
                // jest 30's `Jest: Coverage for lines (50%) does not meet "global" threshold
                // (80%)`: the tests passed, the run did not.
                self.report.push(coverage_threshold(TOOL, text));
            }
            Some(b'N') if text.starts_with("No tests found") => {
                let passes = text.contains("exiting with code 0");
                self.no_tests = Some((text.trim_end().to_owned(), passes));
            }
            _ => self.crash_line(text),
        }
    }

    /// `Tests:       2 failed, 5 passed, 7 total` (`rest` follows `Tests:`): a run's counts, or
    /// the second line of the status of a run under way.
    fn tests_summary(&mut self, rest: &str, text: &str) {
        if let Some(progress) = &mut self.progress
            && progress.tests.is_none()
        {
            progress.tests = Some(rest.to_owned());
            return;
        }
        self.saw_summary = true;
        // The run is over: a log holding another run reports its failures anew.
        self.repeat = false;
        self.seen.clear();
        // Each run's counts add up: a monorepo's `npm test --workspaces` or `pnpm -r test`
        // prints one summary per package.
        let counts = &mut self.report.counts;
        add_count(&mut counts.tests_failed, count_of(rest, "failed"));
        add_count(&mut counts.tests_passed, count_of(rest, "passed"));
        add_count(
            &mut counts.tests_skipped,
            Some(count_of(rest, "skipped").unwrap_or(0) + count_of(rest, "todo").unwrap_or(0)),
        );
        self.report.summary = Some(one_line(text, MAX_MESSAGE));
    }

    /// `Test Suites: 1 failed, 2 passed, 3 total` (`rest` follows `Test Suites:`).
    fn suites_summary(&mut self, rest: &str) {
        if is_partial_total(rest) {
            // The status line of a run under way, redrawn in a terminal, or the summary of a run
            // that skipped some files: `Ran all test suites` tells.
            self.progress = Some(Progress {
                suites: rest.to_owned(),
                tests: None,
            });
            return;
        }
        self.progress = None;
        self.saw_summary = true;
        add_count(&mut self.report.counts.files, count_of(rest, "failed"));
    }

    /// `Snapshots:   1 obsolete, …`: obsolete snapshots (or snapshot files) fail jest's run
    /// unless `-u` removed them, though every test passed: `success` is false and jest exits 1.
    fn obsolete_snapshots(&mut self, text: &str) {
        let message = self
            .obsolete
            .take()
            .unwrap_or_else(|| format!("obsolete snapshots ({})", one_line(text, MAX_MESSAGE)));
        let mut diagnostic = failure(TOOL, message);
        diagnostic.kind = Kind::Custom;
        diagnostic.code = Some("obsolete-snapshot".to_owned());
        diagnostic.file = self.obsolete_file.take();
        diagnostic.refresh_fingerprint();
        self.report.push(diagnostic);
    }

    /// Any other column-0 line: an error jest threw after its summary, or before it printed
    /// anything (with the `path:line` Node.js shows above a file that does not parse).
    fn crash_line(&mut self, text: &str) {
        if self.saw_summary && self.late_crash.is_none() && is_error_line(text) {
            self.late_crash = Some((one_line(text, MAX_MESSAGE), false));
        }
        if self.crash.is_none() && !self.saw_any_jest_line {
            if is_error_line(text) {
                self.crash = Some(one_line(text, MAX_MESSAGE));
            } else if self.lines <= 3
                && self.crash_location.is_none()
                && (text.starts_with('/') || text.starts_with("file:"))
                && split_location(text).is_some()
            {
                self.crash_location = Some(text.trim_end().to_owned());
            }
        }
    }
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        self.lines += 1;
        let text = line.trim_ascii_start();
        let indent = line.len() - text.len();
        if text.is_empty() {
            if let Some(top) = &mut self.top {
                top.done |= !top.text.is_empty();
            }
            return;
        }
        if let Some((_, confirmed)) = &mut self.late_crash
            && !*confirmed
        {
            if text.starts_with("at ") {
                *confirmed = true;
            } else {
                self.late_crash = None;
            }
        }
        if indent >= 4 {
            if let Some(block) = &mut self.block {
                block.line(text.trim_ascii_end());
            } else if let Some(top) = &mut self.top {
                add_top_text(top, text);
            }
            return;
        }
        self.structural_line(indent, text.trim_ascii_end());
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.finish_block();
        self.finish_top();
        let mut report = self.report;
        if self.open_handles > 0 {
            let more = self.open_handles - self.open_handles_named.len() as u64;
            let mut list = self.open_handles_named.join(", ");
            if more > 0 {
                list.push_str(&format!(" and {more} more"));
            }
            report.note(format!(
                "jest detected {} open handle{} potentially keeping it from exiting: {list}",
                self.open_handles,
                if self.open_handles == 1 { "" } else { "s" }
            ));
        }
        if self.saw_summary || self.suites_errored > 0 {
            report.counts.suites_errored = Some(self.suites_errored);
        }
        let failed = report.counts.tests_failed.unwrap_or(0) > 0
            || report.counts.files.unwrap_or(0) > 0
            || self.suites_errored > 0
            || !report.diagnostics.is_empty();
        let late_crash = self
            .late_crash
            .and_then(|(crash, confirmed)| confirmed.then_some(crash));
        if let Some(error) = self.config_error {
            report.outcome = Outcome::Errored;
            report.error = Some(error);
        } else if failed {
            if let Some(crash) = late_crash {
                report.note(format!("jest crashed after its summary: {crash}"));
            }
            report.outcome = Outcome::Failed;
        } else if let Some((message, passes)) = self.no_tests {
            no_tests(&mut report, message, passes);
        } else if let Some(crash) = late_crash.filter(|_| self.saw_summary) {
            // The tests passed, then jest itself threw: it exits non-zero.
            report.outcome = Outcome::Errored;
            report.error = Some(format!("jest crashed after its summary: {crash}"));
        } else if self.saw_summary {
            report.outcome = Outcome::Passed;
        } else if let Some(progress) = self.progress {
            report.outcome = Outcome::Errored;
            report.error = Some(format!(
                "the log ends while jest is still running (`Test Suites:{}`)",
                progress.suites
            ));
        } else if let Some(crash) = self.crash {
            report.outcome = Outcome::Errored;
            report.error = Some(match self.crash_location {
                Some(location) => format!("{crash} ({location})"),
                None => crash,
            });
        } else if self.saw_fail {
            // A `FAIL` header with no failure block and no summary: a cut log.
            report.outcome = Outcome::Errored;
            report.error = Some("jest reported a failing test file but no failure".to_owned());
        } else {
            // jest ends every run it finishes with its `Tests:` summary: without it, nothing says
            // the tests passed (the process died, or the log was cut).
            report.outcome = Outcome::Errored;
            report.error = Some("the log ends before jest's summary (`Tests: …`)".to_owned());
        }
        report
    }
}

/// Adds one run's count to the counts of the runs before it (none yet is zero).
fn add_count(total: &mut Option<u64>, count: Option<u64>) {
    *total = Some(total.unwrap_or(0) + count.unwrap_or(0));
}

/// jest's status of a run under way: its `Test Suites:` line and the `Tests:` line under it,
/// after the label.
#[derive(Debug)]
struct Progress {
    suites: String,
    tests: Option<String>,
}

/// Whether a `Test Suites:` line counts only part of the files: `6 failed, 6 of 7 total`.
fn is_partial_total(rest: &str) -> bool {
    rest.trim_end().ends_with(" total") && rest.contains(" of ")
}

/// Adds a line to the first paragraph of a column-0 `●` block.
fn add_top_text(top: &mut TopBlock, text: &str) {
    if top.done || top.text.len() > MAX_MESSAGE {
        return;
    }
    if !top.text.is_empty() {
        top.text.push(' ');
    }
    top.text.push_str(text.trim());
}

/// The file of a `FAIL`/`PASS` header: what follows the badge, without a timing or a project
/// badge (`FAIL  client  test/a.test.js (5.2 s)`).
fn header_file(rest: &str) -> &str {
    let mut rest = rest.trim();
    if rest.ends_with(')')
        && let Some(open) = rest.rfind(" (")
    {
        let inside = &rest[open + 2..rest.len() - 1];
        if inside.ends_with('s') && inside.starts_with(|c: char| c.is_ascii_digit()) {
            rest = rest[..open].trim_end();
        }
    }
    // A project's display name stands before the path: `FAIL server server/api.test.js`, or
    // with colour `FAIL  server  server/api.test.js`. Test paths with spaces are rarer than
    // display names, so the path is the last word when that word looks like a file.
    match rest.rsplit_once(' ') {
        Some((_, last)) if last.contains('.') => last,
        _ => rest,
    }
}

/// `SyntaxError: /abs/path/a.test.js: Unexpected token (6:3)` without the absolute path, which
/// differs from machine to machine (the block's header already names the file).
fn strip_syntax_error_path(message: &str) -> std::borrow::Cow<'_, str> {
    let Some(rest) = message.strip_prefix("SyntaxError: ") else {
        return message.into();
    };
    match rest.split_once(": ") {
        Some((path, tail)) if !path.contains(' ') && path.contains(['/', '\\']) => {
            format!("SyntaxError: {tail}").into()
        }
        _ => message.into(),
    }
}

/// The `line:col` of a message that starts with `file:line:col - ` (a TypeScript diagnostic), when
/// the file is the test file.
fn leading_location_in(message: &str, test_file: Option<&str>) -> Option<(u32, Option<u32>)> {
    let (location, _) = message.split_once(" - ")?;
    let (file, line, column) = split_location(location)?;
    same_file(test_file?, file).then_some((line, column))
}

/// The `(line:col)` a Babel syntax error ends with.
fn trailing_line_col(message: &str) -> Option<(u32, Option<u32>)> {
    let inner = message.strip_suffix(')')?;
    let open = inner.rfind('(')?;
    let (line, column) = inner[open + 1..].split_once(':')?;
    Some((line.parse().ok()?, Some(column.parse().ok()?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        JestSummarizer.parse(log.as_bytes())
    }

    #[test]
    fn header_files_lose_timing_and_project_badges() {
        assert_eq!(header_file("test/a.test.js"), "test/a.test.js");
        assert_eq!(header_file(" test/a.test.js (5.123 s)"), "test/a.test.js");
        assert_eq!(
            header_file(" client  test/a.test.js (12 ms)"),
            "test/a.test.js"
        );
    }

    #[test]
    fn code_frames_are_recognised() {
        assert!(is_code_frame("> 11 |     expect(cart.total()).toBe(11);"));
        assert!(is_code_frame("10 |   test('x', () => {"));
        assert!(is_code_frame("|                          ^"));
        assert!(!is_code_frame("3 !== 4"));
        assert!(!is_code_frame("Expected: 11"));
    }

    #[test]
    fn a_failure_block_becomes_one_diagnostic() {
        let report = parse(
            "FAIL test/cart.test.js (5.2 s)\n  ● Cart › totals\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 11\n    Received: 7\n\n    > 11 |     expect(cart.total()).toBe(11);\n\n      at Object.toBe (test/cart.test.js:11:26)\n\nTests:       1 failed, 1 total\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("Cart › totals"));
        assert_eq!(d.message, "expect(received).toBe(expected)");
        assert_eq!(d.detail.as_deref(), Some("Expected: 11, Received: 7"));
        assert_eq!(d.location().as_deref(), Some("test/cart.test.js:11:26"));
    }

    #[test]
    fn github_actions_timestamps_keep_the_blocks() {
        let report = parse(concat!(
            "2024-05-01T12:34:56.7890123Z FAIL test/a.test.js\n",
            "2024-05-01T12:34:56.7890123Z   ● a › b\n",
            "2024-05-01T12:34:56.7890123Z \n",
            "2024-05-01T12:34:56.7890123Z     TypeError: x is not a function\n",
            "2024-05-01T12:34:56.7890123Z       at Object.<anonymous> (test/a.test.js:3:5)\n",
            "2024-05-01T12:34:57.0000000Z Tests:       1 failed, 1 total\n",
        ));
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("a › b"));
        assert_eq!(d.location().as_deref(), Some("test/a.test.js:3:5"));
        assert_eq!(report.counts.tests_failed, Some(1));
    }

    /// A one-line snapshot that no longer matches: jest prints both sides on lines of their own
    /// (jest 27 and 28 as jest 30), and the snapshot's side was once left out of the detail.
    #[test]
    fn one_line_snapshot_mismatches_keep_both_sides() {
        let report = parse(concat!(
            "FAIL test/snap.test.js\n",
            "  ● renders a header\n\n",
            "    expect(received).toMatchSnapshot()\n\n",
            "    Snapshot name: `renders a header 1`\n\n",
            "    Snapshot: \"Receipt #41\"\n",
            "    Received: \"Receipt #42\"\n\n",
            "      at Object.toMatchSnapshot (test/snap.test.js:6:25)\n\n",
            "Tests:       1 failed, 1 total\n",
        ));
        let d = &report.diagnostics[0];
        assert_eq!(
            d.detail.as_deref(),
            Some("Snapshot: \"Receipt #41\", Received: \"Receipt #42\"")
        );
        assert_eq!(d.location().as_deref(), Some("test/snap.test.js:6:25"));
    }

    #[test]
    fn open_handles_after_the_summary_are_a_note() {
        let report = parse(concat!(
            "FAIL test/a.test.js\n",
            "  ● a › fails\n\n",
            "    Error: boom\n\n",
            "      at Object.<anonymous> (test/a.test.js:3:11)\n\n",
            "Tests:       1 failed, 1 passed, 2 total\n",
            "Jest has detected the following 2 open handles potentially keeping Jest from exiting:\n\n",
            "  ●  TCPSERVERWRAP\n\n",
            "      at Object.listen (test/server.test.js:5:10)\n\n",
            "  ●  Timeout\n\n",
            "      at Object.<anonymous> (node_modules/x/index.js:1:1)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.diagnostics.len(), 1);
        assert_eq!(report.diagnostics[0].test.as_deref(), Some("a › fails"));
        assert_eq!(
            report.notes,
            [
                "jest detected 2 open handles potentially keeping it from exiting: TCPSERVERWRAP at test/server.test.js:5, Timeout"
            ]
        );
    }

    #[test]
    fn console_blocks_are_not_failures() {
        let report = parse(
            "PASS test/log.test.js\n  ● Console\n\n    console.log\n      hi\n\n      at Object.log (test/log.test.js:2:11)\n\nTests:       1 passed, 1 total\n",
        );
        assert_eq!(report.outcome, Outcome::Passed);
        assert!(report.diagnostics.is_empty());
    }

    #[test]
    fn babel_syntax_errors_lose_the_absolute_path() {
        let report = parse(
            "FAIL test/s.test.js\n  ● Test suite failed to run\n\n    SyntaxError: /tmp/p/test/s.test.js: Unexpected token, expected \",\" (6:3)\n\nTests:       0 total\n",
        );
        let d = &report.diagnostics[0];
        assert_eq!(
            d.message,
            "SyntaxError: Unexpected token, expected \",\" (6:3)"
        );
        assert_eq!(d.location().as_deref(), Some("test/s.test.js:6:3"));
        assert!(d.root_cause);
        assert_eq!(report.counts.suites_errored, Some(1));
        assert_eq!(report.outcome, Outcome::Failed);
    }

    #[test]
    fn validation_errors_are_errored() {
        let report = parse(
            "● Validation Error:\n\n  Option \"testTimeout\" must be of type:\n    number\n  but instead received:\n    string\n\n  Example:\n  {\n",
        );
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(
            report.error.as_deref(),
            Some(
                "Validation Error: Option \"testTimeout\" must be of type: number but instead received: string"
            )
        );
    }

    #[test]
    fn coverage_thresholds_fail_the_run() {
        let report = parse(
            "PASS test/a.test.js\nJest: \"global\" coverage threshold for lines (80%) not met: 50%\nTests:       1 passed, 1 total\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(
            report.diagnostics[0].code.as_deref(),
            Some("coverage-threshold")
        );
    }

    /// jest 30's wording of a threshold not met was once not read: the run was errored.
    #[test]
    fn jest_30_coverage_thresholds_fail_the_run() {
        let report = parse(
            "PASS src/x.test.js\nJest: Coverage for statements (66.66%) does not meet \"global\" threshold (95%)\nTests:       1 passed, 1 total\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(
            report.diagnostics[0].code.as_deref(),
            Some("coverage-threshold")
        );
    }

    /// The error under `Details:` (as jest 29 prints it on Node.js 20), not jest's advice above it.
    #[test]
    fn unexpected_tokens_are_the_error_under_details() {
        let report = parse(concat!(
            "FAIL src/esm.test.js\n",
            "  ● Test suite failed to run\n\n",
            "    Jest encountered an unexpected token\n\n",
            "    Here's what you can do:\n",
            "     • If you are trying to use TypeScript, see https://jestjs.io/docs/getting-started#using-typescript\n\n",
            "    Details:\n\n",
            "    /tmp/p/src/esm.test.js:1\n",
            "    ({\"Object.<anonymous>\":function(module,exports,require,__dirname,__filename,jest){import { y } from \"./y\";\n",
            "                                                                                      ^^^^^^\n\n",
            "    SyntaxError: Cannot use import statement outside a module\n\n",
            "      at Runtime.createScriptFromCode (node_modules/jest-runtime/build/index.js:1505:14)\n\n",
            "Tests:       0 total\n",
        ));
        let d = &report.diagnostics[0];
        assert_eq!(
            d.message,
            "SyntaxError: Cannot use import statement outside a module"
        );
        assert_eq!(d.location().as_deref(), Some("src/esm.test.js:1"));
        assert!(d.root_cause);
    }

    #[test]
    fn ts_jest_type_errors_are_located() {
        let report = parse(
            "FAIL test/a.test.ts\n  ● Test suite failed to run\n\n    test/a.test.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n",
        );
        let d = &report.diagnostics[0];
        assert!(d.root_cause);
        assert_eq!(d.location().as_deref(), Some("test/a.test.ts:3:7"));
        assert_eq!(report.outcome, Outcome::Failed);
    }

    /// `Configuration error:` (a moduleNameMapper that resolves nothing) was the whole message
    /// of every such file, the module it could not find left out.
    #[test]
    fn a_label_line_takes_the_line_after_it() {
        let report = parse(concat!(
            "FAIL __tests__/a.test.jsx\n",
            "  ● Test suite failed to run\n\n",
            "    Configuration error:\n\n",
            "    Could not locate module @/components/A mapped as:\n",
            "    C:\\p\\$1.\n\n",
            "      at Object.mock (__tests__/a.test.jsx:5:6)\n\n",
            "Tests:       0 total\n",
        ));
        let d = &report.diagnostics[0];
        assert_eq!(
            d.message,
            "Configuration error: Could not locate module @/components/A mapped as:"
        );
        assert_eq!(d.location().as_deref(), Some("__tests__/a.test.jsx:5:6"));
    }

    /// jest 19's terminal status, redrawn while files run, was read as the run's summary: a log
    /// cut off during the run was a failure of six files, counted once per redraw.
    #[test]
    fn a_status_line_without_ran_all_is_a_run_cut_off() {
        let report = parse(concat!(
            " RUNS  ...basic-table.test.tsx\n\n",
            "Test Suites: 6 failed, 6 of 7 total\n",
            "Tests:       0 total\n",
            "Time:        4s\n",
            "Test Suites: 6 failed, 6 of 7 total\n",
            "Tests:       0 total\n",
        ));
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(report.counts.files, None);
        assert!(report.error.is_some_and(|e| e.contains("6 of 7 total")));
    }

    /// A run that skipped files ends with a partial total too, then `Ran all test suites`.
    #[test]
    fn a_partial_total_before_ran_all_is_the_summary() {
        let report = parse(concat!(
            "Test Suites: 1 failed, 2 skipped, 39 passed, 40 of 42 total\n",
            "Tests:       1 failed, 3 skipped, 106 passed, 110 total\n",
            "Ran all test suites in 2 projects.\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.files, Some(1));
        assert_eq!(report.counts.tests_passed, Some(106));
        assert_eq!(report.counts.tests_skipped, Some(3));
    }

    /// A custom runner that threw after the summary (`Error: kill EPERM`) made jest exit 1, and
    /// the run was a pass.
    #[test]
    fn an_error_thrown_after_the_summary_is_errored() {
        let report = parse(concat!(
            "Tests:       2 passed, 2 total\n",
            "Ran all test suites in 2 projects.\n",
            "Error: kill EPERM\n",
            "    at ChildProcess.kill (node:internal/child_process:511:26)\n",
        ));
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(
            report.error.as_deref(),
            Some("jest crashed after its summary: Error: kill EPERM")
        );
        let printed = parse("Tests:       2 passed, 2 total\nError: a message a test printed\n");
        assert_eq!(printed.outcome, Outcome::Passed);
    }

    /// A log that kept only stdout has the package manager's echo of the script and nothing of
    /// jest's: it is jest's, and not a pass.
    #[test]
    fn a_script_echo_alone_is_jests_and_errored() {
        let log = "\n> app@1.0.0 test\n> jest --runInBand --verbose\n\ninfo: server started\n";
        assert_eq!(JestSummarizer.sniff(log), 50);
        assert_eq!(parse(log).outcome, Outcome::Errored);
    }

    /// A config that threw names jest; one a code scanner lists among its files does not
    /// (sonar-scanner's blame warnings in a GitLab pipeline after jest had passed).
    #[test]
    fn a_listed_config_is_not_a_jest_crash() {
        let thrown =
            "/app/jest.config.js:4\n  bail: 1,\n  ^^^^\n\nSyntaxError: Unexpected identifier\n";
        assert_eq!(JestSummarizer.sniff(thrown), 60);
        let named = "Error: Jest: Failed to parse the TypeScript config file /app/jest.config.ts\n";
        assert_eq!(JestSummarizer.sniff(named), 60);
        let listed = "WARN: Missing blame information for the following files:\nWARN:   * gateway/jest.config.js\nWARN:   * gateway/index.js\n";
        assert_eq!(JestSummarizer.sniff(listed), 0);
    }

    /// A log without the runner's closing summary (empty, or cut off when the process died) was
    /// "no failure found".
    #[test]
    fn a_log_without_the_summary_is_not_a_pass() {
        assert_eq!(parse("").outcome, Outcome::Errored);
        let report = parse("PASS test/a.test.js\n  ✓ adds (3 ms)\n");
        assert_eq!(report.outcome, Outcome::Errored);
        assert!(report.error.is_some_and(|e| e.contains("summary")));
    }
}
