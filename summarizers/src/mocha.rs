//! The `mocha` summarizer: the spec reporter (mocha's default), as a CI log shows it. The dot,
//! list and min reporters end with the same summary and failure list, and are read the same way.
//!
//! What mocha prints, and what becomes of it:
//! - first the tree of suites and tests as they run (`✔ name`, `1) name`, `- pending`), with
//!   console output in between: read past;
//! - then the summary, `N passing (Xms)`, `N pending`, `N failing`: the counts (pending counts as
//!   skipped; failures include failing hooks, as mocha counts them), and together the summary;
//! - then one numbered block per failure: `  1) Suite` with the nested titles on the next lines,
//!   the last ending with `:`, then the error (`AssertionError [ERR_ASSERTION]: Expected values to
//!   be strictly equal:` with the values on the next line, `TypeError: …`), a `+ expected -
//!   actual` diff, and `at fn (file:line:col)` frames. The test name is the suite titles and the
//!   test title joined with ` > ` (the JSON report's `fullTitle` joins them with spaces; mocha
//!   before 6 prints it so, on one line, and the test tree above splits it); a hook
//!   failure is named as mocha names it (`Suite > "before each" hook for "test"`). The location
//!   is the test function's frame (`at Context.<anonymous> (…)`), else the first frame in the
//!   project, else the file a timeout names; files are kept as printed, without `file://`. A
//!   failure with no frame in the project (a thrown string) takes the file of another failure of
//!   the same top-level suite;
//! - `Exception during run:` (mocha loads every test file before it runs any, so one that does
//!   not load stops the run) is a root cause, located at the printed `file:line` or the first
//!   frame in the project; if nothing points into the project, the outcome is errored;
//! - `Error: No test files found`, a configuration that does not parse, mocha's own `✖ ERROR: …`
//!   (a `require` of a missing file), or a run of no test (`0 passing`) mean nothing was
//!   verified: the outcome is errored, with the error line as the reason.

use std::collections::HashMap;

use verdict_model::{
    Diagnostic, Kind, LineParser, Outcome, Report, Severity, Summarizer, TestCase, TestStatus,
};

use crate::js_test::{
    Diff, MAX_BLOCK_LINES, MAX_MESSAGE, Unprefixed, failure, is_error_line, is_full, is_internal,
    one_line, strip_file_url, unprefixed_sample, v8_frame,
};
use crate::text::{clip, split_location};

/// Parses mocha output, and the JSON report of `--reporter json` given as a whole input.
#[derive(Debug, Default, Clone, Copy)]
pub struct MochaSummarizer;

impl Summarizer for MochaSummarizer {
    fn name(&self) -> &'static str {
        "mocha"
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        if crate::document::starts_as_object(sample) {
            // `--reporter json`: the stats mocha counts, then the tests.
            let json = sample.contains("\"stats\"")
                && sample.contains("\"passes\"")
                && sample.contains("\"pending\"");
            return if json { 95 } else { 0 };
        }
        if sample.contains("\n{\n  \"stats\": {") && sample.contains("\"passes\"") {
            // `--reporter json` after what the tests printed to standard output.
            return 95;
        }
        let sample = &*unprefixed_sample(sample);
        // `N passing (Xms)` is mocha's alone.
        let passing = sample.lines().any(|line| {
            let text = line.trim_start();
            text.starts_with(|c: char| c.is_ascii_digit())
                && count_before(text, " passing").is_some()
        });
        if passing {
            return 90;
        }
        // The TAP reporter's totals. Node's own test runner writes TAP too, with `# Subtest:`
        // lines and a `# duration_ms` total that mocha's has not.
        if sample.contains("\n# pass ")
            && sample.contains("\n# fail ")
            && (sample.starts_with("ok ") || sample.contains("\nok ") || sample.contains("not ok "))
            && !sample.contains("# Subtest:")
            && !sample.contains("\n# duration_ms ")
        {
            return 60;
        }
        if sample.contains("Error: No test files found") {
            return 85;
        }
        if sample.contains("Exception during run:") {
            return 80;
        }
        if sample.contains("node_modules/mocha/") || sample.contains(".mocharc") {
            return 70;
        }
        // The spec reporter's passing tests without its summary (a run cut off): `    ✔ title`,
        // indented under their suite. Node's spec reporter times each test in fractional
        // milliseconds (`✔ adds (0.93ms)`), mocha never does.
        let checks = sample
            .lines()
            .any(|l| l.starts_with("    ") && l.trim_start().starts_with("✔ "));
        let node_timing = sample.lines().any(|l| {
            l.strip_suffix("ms)")
                .and_then(|l| l.rsplit_once(" ("))
                .is_some_and(|(_, ms)| ms.contains('.'))
        });
        if checks && !node_timing {
            return 35;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(AfterOutput {
            log: Unprefixed::wrap(Box::new(Parser::new())),
            json: None,
            complete: false,
        })
    }

    fn parse(&self, log: &[u8]) -> Report {
        crate::document::parse(log, json_document, "mocha", self.parser())
    }

    fn parse_reader(
        &self,
        reader: &mut dyn std::io::Read,
    ) -> std::io::Result<(Report, verdict_model::lines::Stats)> {
        crate::document::parse_reader(reader, json_document, "mocha", self.parser())
    }
}

const TOOL: &str = "mocha";

/// The most title lines one failure header is read for.
const MAX_TITLES: usize = 16;

/// The most numbered failures of the test tree whose suites are remembered (each at most
/// [`MAX_TITLES`] titles of [`MAX_MESSAGE`] bytes): memory stays bounded on any log.
const MAX_TREE_FAILURES: usize = 1_000;

/// The failure block being read. Bounded: a few short strings, whatever the block's length.
#[derive(Debug, Default)]
struct Block {
    /// Its number in the failure list (`3)`).
    number: u64,
    /// The report is full: the block is only counted, its lines are not read.
    count_only: bool,
    titles: Vec<String>,
    /// The last title line (the one ending with `:`) has been read.
    titled: bool,
    message: Option<String>,
    /// The message ends with `:` and its values follow on the next line.
    message_continues: bool,
    diff: Diff,
    /// In a diff: whether `+` marks the expected side (mocha's) or the actual one (Node's).
    diff_sign_is_expected: Option<bool>,
    /// The frame of the test function (`at Context.<anonymous> (…)`).
    context_frame: Option<(String, u32, Option<u32>)>,
    first_frame: Option<(String, u32, Option<u32>)>,
    lines: usize,
    /// A TAP failure: the message comes first, then the error's stack, which repeats it.
    tap: bool,
    /// In a TAP failure's stack: only its frames are read.
    tap_stack: bool,
}

impl Block {
    fn line(&mut self, text: &str) {
        if self.count_only {
            return;
        }
        if !self.titled {
            self.title(text);
            return;
        }
        if text.is_empty() {
            return;
        }
        self.lines += 1;
        if text.starts_with("at ") {
            self.frame(text);
            return;
        }
        if self.lines > MAX_BLOCK_LINES {
            return;
        }
        let Some(message) = &mut self.message else {
            self.message_continues = text.ends_with(':');
            self.message = Some(text.to_owned());
            return;
        };
        if self.tap && (self.tap_stack || is_error_line(text)) {
            self.tap_stack = true;
            return;
        }
        if text == "+ expected - actual" {
            // mocha's own diff: cleaner than Node's, which may precede it.
            self.diff.clear();
            self.diff_sign_is_expected = Some(true);
            self.message_continues = false;
            return;
        }
        // Node's assertion diff (`+` the actual side), possibly with `... Lines skipped`; with
        // colour, Node 22 writes the legend as `actual expected` (the words coloured, no signs)
        // and the diff inline, character by character.
        if text.starts_with("+ actual - expected") || text == "actual expected" {
            if self.diff_sign_is_expected.is_none() {
                self.diff_sign_is_expected = Some(false);
            }
            self.message_continues = false;
            return;
        }
        if self.message_continues {
            self.message_continues = false;
            if text.len() <= 120 {
                message.push(' ');
                message.push_str(text);
                return;
            }
        }
        let Some(plus_is_expected) = self.diff_sign_is_expected else {
            return;
        };
        let (plus, rest) = match (text.strip_prefix('+'), text.strip_prefix('-')) {
            (Some(rest), _) => (true, rest),
            (None, Some(rest)) => (false, rest),
            (None, None) => return,
        };
        if plus == plus_is_expected {
            self.diff.push_expected(rest);
        } else {
            self.diff.push_received(rest);
        }
    }

    fn title(&mut self, text: &str) {
        if text.is_empty() || self.count_only {
            return;
        }
        let (title, last) = match text.strip_suffix(':') {
            Some(title) => (title, true),
            None => (text, false),
        };
        if self.titles.len() < MAX_TITLES {
            self.titles.push(title.to_owned());
        }
        self.titled = last || self.titles.len() >= MAX_TITLES;
    }

    fn frame(&mut self, text: &str) {
        if self.context_frame.is_some() {
            return;
        }
        let Some(frame) = v8_frame(text) else {
            return;
        };
        if frame.is_internal() {
            return;
        }
        let location = (frame.file.to_owned(), frame.line, frame.column);
        let func = frame.func.strip_prefix("async ").unwrap_or(frame.func);
        if func.starts_with("Context.") {
            self.context_frame = Some(location);
        } else if self.first_frame.is_none() {
            self.first_frame = Some(location);
        }
    }

    fn into_diagnostic(self) -> Diagnostic {
        let mut message = self.message.unwrap_or_else(|| "test failed".to_owned());
        // Node's assertion code adds nothing to `AssertionError`.
        if let Some(rest) = message.strip_prefix("AssertionError [ERR_ASSERTION]:") {
            message = format!("AssertionError:{rest}");
        }
        // A timeout names the test file at its end: `… ensure it resolves. (/p/test/a.js)`.
        let mut timeout_file = None;
        if message.contains("Timeout of ")
            && message.ends_with(')')
            && let Some(open) = message.rfind(" (")
        {
            let file = strip_file_url(&message[open + 2..message.len() - 1]).to_owned();
            message.truncate(open);
            timeout_file = Some(file);
        }
        let mut diagnostic = failure(TOOL, clip(&message, MAX_MESSAGE));
        diagnostic.test = Some(self.titles.join(" > "));
        if let Some((file, line, column)) = self.context_frame.or(self.first_frame) {
            diagnostic.file = Some(file);
            diagnostic.line = Some(line);
            diagnostic.column = column;
        } else {
            diagnostic.file = timeout_file;
        }
        diagnostic.detail = self.diff.render("expected", "actual");
        diagnostic.refresh_fingerprint();
        diagnostic
    }
}

/// An `Exception during run:` or another error printed before any test ran.
#[derive(Debug, Default)]
struct Crash {
    /// `Exception during run:` was printed: mocha stopped while loading the test files.
    during_run: bool,
    message: Option<String>,
    /// The `file:line` Node.js prints above a syntax error, or the first frame in the project.
    location: Option<(String, u32, Option<u32>)>,
    /// The location points into Node.js or a dependency.
    internal_location: Option<String>,
    lines: usize,
}

impl Crash {
    fn line(&mut self, text: &str) {
        self.lines += 1;
        if self.lines > MAX_BLOCK_LINES {
            return;
        }
        if text.starts_with("at ") {
            if self.location.is_none()
                && let Some(frame) = v8_frame(text)
                && !frame.is_internal()
            {
                self.location = Some((frame.file.to_owned(), frame.line, frame.column));
            }
            return;
        }
        if self.message.is_none() && is_error_line(text) {
            self.message = Some(one_line(text, MAX_MESSAGE));
            return;
        }
        // A compiler's diagnostic under the error (ts-node): `test/a.ts:3:7 - error TS2322: …`.
        if self.location.is_none()
            && self.message.is_some()
            && let Some((location, _)) = text.split_once(" - ")
            && let Some((file, line, column)) = split_location(location)
            && !file.contains(' ')
            && !is_internal(file)
        {
            self.location = Some((file.to_owned(), line, column));
        }
        if self.message.is_none() && self.location.is_none() && self.internal_location.is_none() {
            let candidate = strip_file_url(text);
            if (candidate.starts_with(['/', '.']) || candidate.get(1..3) == Some(":/"))
                && let Some((file, line, column)) = split_location(candidate)
            {
                if is_internal(file) {
                    self.internal_location = Some(candidate.to_owned());
                } else {
                    self.location = Some((file.to_owned(), line, column));
                }
            }
        }
    }
}

#[derive(Debug)]
struct Parser {
    report: Report,
    /// After `N failing`: the numbered failure blocks.
    in_failures: bool,
    last_number: u64,
    block: Option<Block>,
    crash: Option<Crash>,
    summary: Vec<String>,
    saw_passing: bool,
    no_tests: Option<String>,
    /// The TAP reporter's totals (`# pass N`, `# fail N`) and its skipped tests (`ok N … # SKIP`),
    /// which it counts in neither.
    tap: Option<Tap>,
    /// The suites of the test tree above the current line: their depth and title.
    suites: Vec<(usize, String)>,
    /// The titles of each numbered failure of the test tree (its suites, then its own title):
    /// mocha before 6 names a failure on one line, the titles joined by spaces.
    tree_failures: HashMap<u64, Vec<String>>,
    /// Passing and pending tests the test tree named, each pushed to the report's tests: the
    /// list is kept only when they are as many as the summary counts (another reporter names
    /// none, or only its failures).
    tree_named: u64,
}

/// What mocha's TAP reporter (`--reporter tap`) printed: `ok N title` and `not ok N title` lines,
/// each failure followed by its indented message and stack, then `# tests`, `# pass`, `# fail`.
#[derive(Debug, Default)]
struct Tap {
    passed: Option<u64>,
    failed: Option<u64>,
    skipped: u64,
}

impl Parser {
    fn new() -> Parser {
        Parser {
            report: Report::new(TOOL, Outcome::Passed),
            in_failures: false,
            last_number: 0,
            block: None,
            crash: None,
            summary: Vec::new(),
            saw_passing: false,
            no_tests: None,
            tap: None,
            suites: Vec::new(),
            tree_failures: HashMap::new(),
            tree_named: 0,
        }
    }

    /// A line of the test tree: a suite's title, a passing or pending test, or a numbered
    /// failure, whose suites are remembered.
    fn tree_line(&mut self, indent: usize, text: &str) {
        // The spec reporter indents two spaces a level; a title's own leading space (` a
        // worker`) does not make it a level deeper.
        let depth = indent / 2;
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        if let Some(title) = text.get(digits..).and_then(|rest| rest.strip_prefix(") "))
            && let Ok(number) = text[..digits].parse::<u64>()
        {
            if self.tree_failures.len() < MAX_TREE_FAILURES {
                let mut titles: Vec<String> = self
                    .suites
                    .iter()
                    .filter(|(at, _)| *at < depth)
                    .map(|(_, title)| title.clone())
                    .collect();
                titles.push(clip(title, MAX_MESSAGE));
                self.tree_failures.insert(number, titles);
            }
            return;
        }
        let is_test = text.starts_with(['✓', '✔', '√', '-']) || text.starts_with("âœ“");
        if is_test {
            self.tree_test(depth, text);
            return;
        }
        // A stack printed between the tests (an unhandled rejection) is no suite.
        if digits > 0 || text.starts_with("at ") {
            return;
        }
        while self.suites.last().is_some_and(|(at, _)| *at >= depth) {
            self.suites.pop();
        }
        if self.suites.len() < MAX_TITLES {
            self.suites.push((depth, clip(text, MAX_MESSAGE)));
        }
    }

    /// A passing (`✔ title (12ms)`) or pending (`- title`) test of the tree, named as its
    /// failure would be: the suites around it and its title joined with ` > `.
    fn tree_test(&mut self, depth: usize, text: &str) {
        let (status, marked) = match text.strip_prefix('-') {
            Some(rest) => (TestStatus::Skipped, rest),
            None => {
                let marker = if text.starts_with("âœ“") {
                    "âœ“".len()
                } else {
                    text.chars().next().map_or(0, char::len_utf8)
                };
                (TestStatus::Passed, &text[marker..])
            }
        };
        let (title, duration_ms) = split_duration(marked.trim());
        let mut name = String::new();
        for (_, suite) in self.suites.iter().filter(|(at, _)| *at < depth) {
            name.push_str(suite);
            name.push_str(" > ");
        }
        name.push_str(title);
        self.tree_named += 1;
        self.report.push_test(TestCase {
            name,
            file: None,
            status,
            duration_ms,
        });
    }

    fn finish_block(&mut self) {
        if let Some(mut block) = self.block.take() {
            // mocha before 6 titles a failure on one line: its suites, found in the test tree,
            // split it as mocha 6 and later do.
            if block.titles.len() == 1
                && let Some(titles) = self.tree_failures.get(&block.number)
                && titles.len() > 1
                && same_words(&titles.join(" "), &block.titles[0])
            {
                block.titles.clone_from(titles);
            }
            // A TAP failure is no part of a spec reporter's test tree.
            let named = !block.tap;
            let test = named.then(|| block.titles.join(" > "));
            if is_full(&self.report) {
                // Only counted from here on: no need to build it.
                self.report.diagnostics_dropped += 1;
            } else {
                self.report.push(block.into_diagnostic());
            }
            if let Some(name) = test {
                self.report.push_test(TestCase {
                    name,
                    file: None,
                    status: TestStatus::Failed,
                    duration_ms: None,
                });
            }
        }
    }

    /// `N passing (Xms)`, `N pending`, `N failing`.
    fn summary_line(&mut self, text: &str) -> bool {
        let counts = &mut self.report.counts;
        if let Some(n) = count_before(text, " passing") {
            counts.tests_passed = Some(n);
            counts.tests_failed.get_or_insert(0);
            counts.tests_skipped.get_or_insert(0);
            self.saw_passing = true;
            self.summary.clear();
        } else if let Some(n) = count_before(text, " pending") {
            counts.tests_skipped = Some(n);
        } else if let Some(n) = count_before(text, " failing") {
            counts.tests_failed = Some(n);
            self.finish_block();
            self.in_failures = true;
            self.last_number = 0;
        } else {
            return false;
        }
        if self.summary.len() < 3 {
            self.summary.push(text.to_owned());
        }
        true
    }

    /// A failure header `N) title`, when `text` is one.
    fn failure_header(&mut self, text: &str) -> bool {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let Some(title) = text.get(digits..).and_then(|rest| rest.strip_prefix(") ")) else {
            return false;
        };
        let Ok(number) = text[..digits].parse::<u64>() else {
            return false;
        };
        if number <= self.last_number {
            return false;
        }
        self.finish_block();
        self.last_number = number;
        let mut block = Block {
            number,
            count_only: is_full(&self.report),
            ..Block::default()
        };
        block.title(title.trim_end());
        self.block = Some(block);
        true
    }
}

impl Parser {
    /// A column-0 line of the TAP reporter, when `text` is one.
    fn tap_line(&mut self, text: &str) -> bool {
        if let Some(rest) = text.strip_prefix("not ok ") {
            let Some(title) = tap_title(rest) else {
                return false;
            };
            self.finish_block();
            self.tap.get_or_insert_default();
            let mut block = Block {
                count_only: is_full(&self.report),
                titled: true,
                tap: true,
                ..Block::default()
            };
            block.titles.push(title.to_owned());
            self.block = Some(block);
            return true;
        }
        if let Some(rest) = text.strip_prefix("ok ") {
            if tap_title(rest).is_none() {
                return false;
            }
            self.finish_block();
            let tap = self.tap.get_or_insert_default();
            tap.skipped += u64::from(rest.contains(" # SKIP"));
            return true;
        }
        let Some(tap) = &mut self.tap else {
            return false;
        };
        let count = |label: &str| text.strip_prefix(label)?.trim().parse::<u64>().ok();
        if let Some(n) = count("# pass ") {
            tap.passed = Some(n);
        } else if let Some(n) = count("# fail ") {
            tap.failed = Some(n);
        } else if !text.starts_with("# tests ") && !text.starts_with("1..") {
            return false;
        }
        self.finish_block();
        true
    }
}

/// The title of a TAP result line after `ok ` or `not ok `: `3 Parser nested parses`.
fn tap_title(rest: &str) -> Option<&str> {
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let title = rest[digits..].strip_prefix(' ')?;
    Some(title.split(" # SKIP").next().unwrap_or(title).trim())
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        let text = line.trim_ascii();
        let indent = line.len() - line.trim_ascii_start().len();
        if indent == 0
            && matches!(text.as_bytes().first(), Some(b'n' | b'o' | b'#' | b'1'))
            && self.tap_line(text)
        {
            return;
        }
        if let Some(first) = text.as_bytes().first()
            && first.is_ascii_digit()
        {
            if indent >= 1 && self.summary_line(text) {
                return;
            }
            if self.in_failures && (1..=4).contains(&indent) && self.failure_header(text) {
                return;
            }
        }
        if let Some(block) = &mut self.block {
            block.line(text);
            return;
        }
        if let Some(crash) = &mut self.crash {
            crash.line(text);
            return;
        }
        if let Some(rest) = text.strip_prefix("Exception during run:") {
            let mut crash = Crash {
                during_run: true,
                ..Crash::default()
            };
            crash.line(rest.trim());
            crash.lines = 0;
            self.crash = Some(crash);
            return;
        }
        if indent > 0 && !self.saw_passing && !self.in_failures {
            self.tree_line(indent, text);
            return;
        }
        if indent > 0 || self.saw_passing {
            return;
        }
        if text.starts_with("Error: No test files found") {
            self.no_tests = Some(text.to_owned());
        } else if let Some(error) = cli_error(text) {
            // mocha's own `✖ ERROR: Error [ERR_MODULE_NOT_FOUND]: Cannot find module …` (a
            // `require` of a missing file): the error line is the reason it stopped.
            if self.crash.is_none() {
                let mut crash = Crash::default();
                crash.line(error);
                if crash.message.is_none() {
                    crash.message = Some(one_line(error, MAX_MESSAGE));
                }
                self.crash = Some(crash);
            }
        } else if text.starts_with("Warning: ") {
            self.report.note(clip(text, MAX_MESSAGE));
        } else if is_error_line(text) || text.starts_with("file:") || text.starts_with('/') {
            // Node.js printing an error that stopped mocha: the location, then the error.
            let mut crash = Crash::default();
            crash.line(text);
            if crash.message.is_some()
                || crash.location.is_some()
                || crash.internal_location.is_some()
            {
                self.crash = Some(crash);
            }
        }
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.finish_block();
        fill_files_from_suites(&mut self.report);
        if let Some(tap) = &self.tap {
            let found = self.report.diagnostics_found();
            let counts = &mut self.report.counts;
            counts.tests_failed = Some(tap.failed.unwrap_or(found));
            counts.tests_passed = tap.passed.or(counts.tests_passed);
            counts.tests_skipped = Some(tap.skipped);
            self.saw_passing |= tap.passed.is_some();
        }
        let mut report = self.report;
        if !self.summary.is_empty() {
            report.summary = Some(self.summary.join(", "));
        }
        let counts = &report.counts;
        if self.tap.is_some()
            || counts.tests_passed.unwrap_or(0) + counts.tests_skipped.unwrap_or(0)
                != self.tree_named
        {
            // The log did not name every test (the dot or TAP reporter, a log cut off): a list
            // of some is no list of the run's tests.
            report.tests = Vec::new();
            report.tests_dropped = 0;
        }
        let counts = &report.counts;
        let ran_no_test = self.saw_passing
            && counts.tests_passed == Some(0)
            && counts.tests_failed.unwrap_or(0) == 0
            && counts.tests_skipped.unwrap_or(0) == 0;
        if let Some(message) = self.no_tests {
            report.outcome = Outcome::Errored;
            report.error = Some(message);
        } else if counts.tests_failed.unwrap_or(0) > 0 || !report.diagnostics.is_empty() {
            report.outcome = Outcome::Failed;
        } else if let Some(crash) = self.crash.filter(|c| c.during_run || !self.saw_passing) {
            let message = crash.message.unwrap_or_else(|| "mocha stopped".to_owned());
            match crash.location {
                // A file of the project that does not load: a failure in the code.
                Some((file, line, column))
                    if crash.during_run || message.starts_with("SyntaxError") =>
                {
                    report.outcome = Outcome::Failed;
                    report.push(
                        Diagnostic::new(TOOL, Kind::Test, Severity::Error, message)
                            .at(file, Some(line), column)
                            .as_root_cause(),
                    );
                }
                location => {
                    // Nothing in the project to point at: mocha itself could not run.
                    report.outcome = Outcome::Errored;
                    report.error = Some(match location {
                        Some((file, line, _)) => format!("{message} ({file}:{line})"),
                        None => message,
                    });
                }
            }
        } else if ran_no_test {
            report.outcome = Outcome::Errored;
            report.error = Some("mocha ran no test (0 passing)".to_owned());
        } else if !self.saw_passing {
            // mocha ends every run it finishes with `N passing`: without it, nothing says the
            // tests passed (a log cut off, a reporter or a report verdict cannot read).
            report.outcome = Outcome::Errored;
            report.error = Some(
                "the log holds no mocha summary (`N passing`): the run did not finish, or its \
                 output is not one verdict reads"
                    .to_owned(),
            );
        }
        report
    }
}

/// A test title and the time the spec reporter printed after it (`adds (12ms)`), for a slow
/// test only.
fn split_duration(title: &str) -> (&str, Option<u64>) {
    let timed = title.strip_suffix("ms)").and_then(|rest| {
        let open = rest.rfind(" (")?;
        let ms = &rest[open + 2..];
        let ms = (!ms.is_empty() && ms.bytes().all(|b| b.is_ascii_digit()))
            .then(|| ms.parse().ok())??;
        Some((&title[..open], Some(ms)))
    });
    timed.unwrap_or((title, None))
}

/// The error of mocha's CLI error line: `✖ ERROR: …` (`×` where the terminal has no `✖`).
fn cli_error(text: &str) -> Option<&str> {
    text.strip_prefix("✖ ERROR:")
        .or_else(|| text.strip_prefix("× ERROR:"))
        .map(str::trim)
        .filter(|error| !error.is_empty())
}

/// Whether `a` and `b` are the same words: a suite titled ` a worker` prints with two spaces.
fn same_words(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// The number before `label` at the start of `text`: `count_before("8 passing (95ms)", "
/// passing")` is `Some(8)`. The label must end the text or be followed by a space.
fn count_before(text: &str, label: &str) -> Option<u64> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let rest = text.get(digits..)?.strip_prefix(label)?;
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    text[..digits].parse().ok()
}

/// Gives a failure with no file (a thrown string has no stack) the file of another failure in
/// the same top-level suite: mocha suites are nearly always one per file.
fn fill_files_from_suites(report: &mut Report) {
    if report
        .diagnostics
        .iter()
        .all(|d| d.file.is_some() && d.line.is_some())
    {
        return;
    }
    let suite = |d: &Diagnostic| -> Option<String> {
        let test = d.test.as_deref()?;
        Some(test.split(" > ").next().unwrap_or(test).to_owned())
    };
    let mut files: HashMap<String, String> = HashMap::new();
    for d in &report.diagnostics {
        if let (Some(suite), Some(file)) = (suite(d), &d.file) {
            files.entry(suite).or_insert_with(|| file.clone());
        }
    }
    let relative: Vec<String> = files
        .values()
        .filter(|f| !f.starts_with('/'))
        .cloned()
        .collect();
    for d in &mut report.diagnostics {
        // A timeout names its file absolute; the frames of the same run print it relative.
        if let Some(file) = &d.file
            && file.starts_with('/')
            && let Some(short) = relative.iter().find(|r| file.ends_with(&format!("/{r}")))
        {
            d.file = Some(short.clone());
            d.refresh_fingerprint();
        }
        if d.file.is_none()
            && let Some(file) = suite(d).and_then(|s| files.get(&s))
        {
            d.file = Some(file.clone());
            d.refresh_fingerprint();
        }
    }
    fill_files_from_tap_titles(report);
}

/// The TAP reporter joins the suite titles and the test title with plain spaces, so a failure
/// without a frame (a thrown string) cannot be matched by its suite. It takes the file of the
/// failures whose full titles share the most leading words with its own, when those all agree.
fn fill_files_from_tap_titles(report: &mut Report) {
    let located: Vec<(Vec<String>, String)> = report
        .diagnostics
        .iter()
        .filter_map(|d| {
            let test = d.test.as_deref()?;
            let file = d.file.as_ref()?;
            Some((test.split(' ').map(str::to_owned).collect(), file.clone()))
        })
        .collect();
    for d in &mut report.diagnostics {
        let Some(test) = d.test.as_deref() else {
            continue;
        };
        if d.file.is_some() || test.contains(" > ") {
            continue;
        }
        let words: Vec<&str> = test.split(' ').collect();
        let shared = |other: &[String]| {
            words
                .iter()
                .zip(other)
                .take_while(|(a, b)| **a == b.as_str())
                .count()
        };
        let best = located.iter().map(|(w, _)| shared(w)).max().unwrap_or(0);
        // Sharing every word but the last would make them the same test: a suite is shorter.
        if best == 0 || best >= words.len() {
            continue;
        }
        let mut files = located
            .iter()
            .filter(|(w, _)| shared(w) == best)
            .map(|(_, f)| f);
        if let Some(first) = files.next()
            && files.all(|f| f == first)
        {
            d.file = Some(first.clone());
            d.refresh_fingerprint();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        MochaSummarizer.parse(log.as_bytes())
    }

    #[test]
    fn node_22_coloured_legend_is_not_part_of_the_message() {
        // mocha 10 under FORCE_COLOR on Node 22: the legend has no signs once the colour is gone.
        let report = parse(concat!(
            "  0 passing (5ms)\n  1 failing\n\n",
            "  1) strings\n       slugifies a title:\n\n",
            "      \x1b[31mAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n",
            "\x1b[32mactual\x1b[39m \x1b[31mexpected\x1b[39m\n\n",
            "'hello_-big_-world'\n\x1b[0m\n",
            "      + expected - actual\n\n      -hello_big_world\n      +hello-big-world\n",
            "      at Context.<anonymous> (test/strings.test.js:10:12)\n",
        ));
        let d = &report.diagnostics[0];
        assert_eq!(
            d.message,
            "AssertionError: Expected values to be strictly equal:"
        );
        assert_eq!(
            d.detail.as_deref(),
            Some("expected: hello-big-world, actual: hello_big_world")
        );
    }

    #[test]
    fn mocha_5_one_line_titles_are_split_by_the_tree() {
        // Before mocha 6 a failure's suites and title share one line; the tree splits them.
        let log = "\n  Queue\n     a worker\n      ✓ works\n      1) process a lifo queue\n\n\n  1 passing (5ms)\n  1 failing\n\n  1) Queue  a worker process a lifo queue:\n     Error: boom\n      at Context.<anonymous> (test/q.js:9:5)\n\n";
        let report = parse(log);
        let d = report.diagnostics.first().expect("a failure");
        assert_eq!(
            d.test.as_deref(),
            Some("Queue > a worker > process a lifo queue")
        );
        assert_eq!((d.file.as_deref(), d.line), (Some("test/q.js"), Some(9)));
    }

    #[test]
    fn a_numbered_failure_becomes_one_diagnostic() {
        let report = parse(concat!(
            "  math\n    1) adds\n\n\n  0 passing (5ms)\n  1 failing\n\n",
            "  1) math\n       average\n         adds:\n\n",
            "      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n",
            "3 !== 4\n\n      + expected - actual\n\n      -3\n      +4\n      \n",
            "      at Context.<anonymous> (test/math.test.js:14:12)\n",
            "      at process.processImmediate (node:internal/timers:483:21)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("math > average > adds"));
        assert_eq!(
            d.message,
            "AssertionError: Expected values to be strictly equal: 3 !== 4"
        );
        assert_eq!(d.detail.as_deref(), Some("expected: 4, actual: 3"));
        assert_eq!(d.location().as_deref(), Some("test/math.test.js:14:12"));
        assert_eq!(
            report.summary.as_deref(),
            Some("0 passing (5ms), 1 failing")
        );
    }

    #[test]
    fn the_test_tree_is_not_read_as_failures() {
        let report = parse("  a\n    1) one\n    ✔ two\n\n  1 passing (1ms)\n");
        assert!(report.diagnostics.is_empty());
        assert_eq!(report.outcome, Outcome::Passed);
    }

    #[test]
    fn a_test_file_that_does_not_parse_is_a_root_cause() {
        let report = parse(concat!(
            "\n Exception during run: /p/test/broken.test.js:6\n  };\n  ^\n\n",
            "SyntaxError: missing ) after argument list\n",
            "    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert!(d.root_cause);
        assert_eq!(d.message, "SyntaxError: missing ) after argument list");
        assert_eq!(d.location().as_deref(), Some("/p/test/broken.test.js:6"));
    }

    #[test]
    fn ts_node_compile_errors_are_located() {
        let report = parse(concat!(
            "\n Exception during run: TSError: ⨯ Unable to compile TypeScript:\n",
            "test/a.test.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n",
            "    at createTSError (/p/node_modules/ts-node/src/index.ts:859:12)\n",
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(
            report.diagnostics[0].location().as_deref(),
            Some("test/a.test.ts:3:7")
        );
    }

    #[test]
    fn no_test_is_errored() {
        assert_eq!(
            parse("Error: No test files found: \"test\"\n").outcome,
            Outcome::Errored
        );
        assert_eq!(parse("\n\n  0 passing (1ms)\n\n").outcome, Outcome::Errored);
        // mocha ends every finished run with its summary: a log without one passed nothing.
        assert_eq!(parse("").outcome, Outcome::Errored);
    }
}

/// The log parser, and mocha's JSON report where it follows what the tests printed: the JSON
/// reporter writes to standard output, after any `console.log` of the tests, a document that
/// starts with a `{` line and ends with a `}` line. When one is there and reads as mocha's report,
/// it is the result; the lines before it are the tests' own output.
struct AfterOutput {
    log: Box<dyn LineParser>,
    /// The report's lines, from its `{` line on.
    json: Option<Vec<u8>>,
    /// Its `}` line has been read.
    complete: bool,
}

impl LineParser for AfterOutput {
    fn line(&mut self, line: &str) {
        // The log parser reads every line: a `{` line the tests printed themselves must not hide
        // the rest of the log from it.
        self.log.line(line);
        match self.json.as_mut() {
            Some(json) if !self.complete && line != "{" => {
                if json.len() + line.len() < crate::document::MAX_DOCUMENT {
                    json.extend_from_slice(line.as_bytes());
                    json.push(b'\n');
                }
                self.complete = line == "}";
            }
            // The report's own `{` is the last one at the start of a line before its end (its
            // nested objects are indented); a `{` line a test printed before it is left behind.
            _ if line == "{" => {
                self.json = Some(b"{\n".to_vec());
                self.complete = false;
            }
            _ => {}
        }
    }

    fn finish(self: Box<Self>) -> Report {
        let report = self
            .json
            .filter(|_| self.complete)
            .and_then(|json| json_document(&json));
        match report {
            Some(report) => report,
            None => self.log.finish(),
        }
    }
}

/// mocha's JSON report (`--reporter json`): the parts read.
#[derive(serde::Deserialize)]
struct JsonReport {
    stats: JsonStats,
    #[serde(default)]
    failures: Vec<JsonFailure>,
    #[serde(default)]
    passes: Vec<JsonTest>,
    #[serde(default)]
    pending: Vec<JsonTest>,
}

/// A passing or pending test of the JSON report.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonTest {
    #[serde(default)]
    full_title: String,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    duration: Option<f64>,
}

#[derive(serde::Deserialize)]
struct JsonStats {
    tests: Option<u64>,
    passes: u64,
    pending: Option<u64>,
    failures: Option<u64>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonFailure {
    #[serde(default)]
    full_title: String,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default)]
    err: JsonError,
}

/// What mocha writes of an error: its own properties, `message` and `stack`.
#[derive(Default, serde::Deserialize)]
struct JsonError {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    stack: Option<String>,
    #[serde(default)]
    actual: Option<serde_json::Value>,
    #[serde(default)]
    expected: Option<serde_json::Value>,
}

/// A JSON document given to `verdict summarize` as mocha's `--reporter json` report; `None` when
/// it is not one. The counts are mocha's stats; each failure (a test or a hook) is named by its
/// `fullTitle` (the titles joined with spaces: the report keeps no other separator), placed at
/// the first frame of its stack in its file, with the error's first line as the message.
fn json_document(json: &[u8]) -> Option<Report> {
    let parsed: JsonReport = serde_json::from_slice(json).ok()?;
    let mut report = Report::new("mocha", Outcome::Passed);
    let milliseconds = |d: Option<f64>| {
        d.filter(|d| d.is_finite() && *d >= 0.0)
            .map(|d| d.round() as u64)
    };
    let file = |file: &Option<String>| file.as_deref().map(|f| strip_file_url(f).to_owned());
    for (tests, status) in [
        (&parsed.passes, TestStatus::Passed),
        (&parsed.pending, TestStatus::Skipped),
    ] {
        for test in tests {
            report.push_test(TestCase {
                name: test.full_title.clone(),
                file: file(&test.file),
                status,
                duration_ms: milliseconds(test.duration),
            });
        }
    }
    for failed in &parsed.failures {
        report.push_test(TestCase {
            name: failed.full_title.clone(),
            file: file(&failed.file),
            status: TestStatus::Failed,
            duration_ms: milliseconds(failed.duration),
        });
    }
    for failed in &parsed.failures {
        if is_full(&report) {
            report.diagnostics_dropped += 1;
            continue;
        }
        report.push(json_failure(failed));
    }
    let stats = &parsed.stats;
    let failed = stats.failures.unwrap_or(parsed.failures.len() as u64);
    report.counts.tests_passed = Some(stats.passes);
    report.counts.tests_failed = Some(failed);
    report.counts.tests_skipped = stats.pending;
    let ran = stats.tests.unwrap_or(stats.passes + failed);
    report.outcome = if failed > 0 || !parsed.failures.is_empty() {
        Outcome::Failed
    } else if ran == 0 && stats.passes == 0 {
        report.error = Some("mocha ran no test: nothing was verified".to_owned());
        Outcome::Errored
    } else {
        Outcome::Passed
    };
    Some(report)
}

fn json_failure(failed: &JsonFailure) -> Diagnostic {
    let err = &failed.err;
    let stack = err.stack.as_deref().unwrap_or("");
    // The stack starts with the error as mocha prints it (`TypeError: boom`, the message's
    // lines after it) up to the first frame; an `AssertionError [ERR_ASSERTION]` reads as the log
    // parser reports it.
    let header: Vec<&str> = stack
        .lines()
        .take_while(|line| !line.trim_start().starts_with("at "))
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    let message = if !header.is_empty() {
        header.join(" ").replacen(" [ERR_ASSERTION]", "", 1)
    } else {
        let lines: Vec<&str> = err
            .message
            .as_deref()
            .unwrap_or("")
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .collect();
        if lines.is_empty() {
            "test failed".to_owned()
        } else {
            lines.join(" ")
        }
    };
    let mut diagnostic = failure("mocha", one_line(&message, MAX_MESSAGE));
    diagnostic.test = Some(failed.full_title.clone());
    let file = failed.file.as_deref().map(strip_file_url);
    let in_file = |frame: &str| match file {
        Some(file) => file == frame || file.ends_with(&format!("/{frame}")),
        None => !is_internal(frame),
    };
    // The test function's own frame (`at Context.<anonymous> (…)`), else the first in its file.
    let frames: Vec<_> = stack
        .lines()
        .filter_map(|line| v8_frame(line.trim()))
        .filter(|frame| in_file(frame.file))
        .collect();
    let frame = frames
        .iter()
        .find(|frame| frame.func.starts_with("Context."))
        .or(frames.first());
    match (frame, file) {
        (Some(frame), _) => {
            diagnostic.file = Some(frame.file.to_owned());
            diagnostic.line = Some(frame.line);
            diagnostic.column = frame.column;
        }
        (None, Some(file)) => diagnostic.file = Some(file.to_owned()),
        (None, None) => {}
    }
    let value = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if let (Some(expected), Some(actual)) = (&err.expected, &err.actual) {
        diagnostic.detail = Some(one_line(
            &format!("expected: {}, actual: {}", value(expected), value(actual)),
            crate::js_test::MAX_DETAIL,
        ));
    }
    diagnostic
}
