//! The `unittest` summarizer: `python -m unittest` (and runners built on it), at the default and
//! `-v` verbosity.
//!
//! unittest prints its progress (`.F.Esx` or one `name (id) ... ok` line per test), then one
//! block per problem — a rule of `=`, `FAIL: test_x (pkg.mod.Class.test_x)` (`ERROR:`,
//! `UNEXPECTED SUCCESS:`; before Python 3.11 the id is only `pkg.mod.Class`), a rule of `-`, the
//! traceback — and closes with `Ran 14 tests in 0.004s` and `OK`, `OK (skipped=2, expected
//! failures=1)`, `FAILED (failures=4, errors=3, skipped=2, expected failures=1, unexpected
//! successes=1)` or `NO TESTS RAN` (Python 3.12+, exit 5).
//!
//! Each block is a failing test named by its full id (what `TestCase.id()` says, a subtest's
//! parameters after it), placed at the traceback's frame in the test's own module (the module the
//! id starts with), else at its last frame in the project, and explained by the exception line. A
//! doctest run through `load_tests` and `doctest.DocTestSuite` fails as `FAIL: mean (shop.mathx)`
//! with doctest's own report inside: it is placed at the failing example (`File "…/mathx.py",
//! line 20, in shop.mathx.mean`) and explained by it. A test module that does not import (`ImportError:
//! Failed to import test module: tests.test_broken`) is a root cause in that file. Counts are the
//! closing line's, added up over the runs of one log; a log without it did not finish, and a run
//! of no test is errored. A header or a frame line that a console wrapped at its width
//! (PowerShell) is joined back with the next lines.
//!
//! At `-v` the progress lines name every test, passing ones too: they are the report's tests
//! (read by the `unittest_verbose` module) when they name exactly the tests `Ran N tests` counts.

use std::sync::LazyLock;

use regex::Regex;
use verdict_model::{
    Diagnostic, Kind, LineParser, Outcome, Report, Severity, Summarizer, TestCase,
};

use crate::text::clip;
use crate::unittest_verbose::Verbose;

const TOOL: &str = "unittest";
const MAX_MESSAGE: usize = 300;

/// `Ran 14 tests in 0.004s`.
static RAN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Ran (\d+) tests? in [\d.]+s$").expect("valid regex"));

/// A block's header: `FAIL: test_x (pkg.mod.Class.test_x) (n=3)`.
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \(([^()\s]+)\)(?: (.*))?$")
        .expect("valid regex")
});

/// The summarizer for `python -m unittest`.
#[derive(Debug, Default, Clone, Copy)]
pub struct UnittestSummarizer;

impl Summarizer for UnittestSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        // `Ran N tests in Xs` is unittest's closing line (Django's runner, built on it, too).
        if sample.lines().any(|l| ran(l).is_some()) {
            return 90;
        }
        let rule = "=".repeat(70);
        if sample.contains(&rule) && sample.lines().any(|l| HEADER.is_match(l)) {
            return 60;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser {
            report: Report::new(TOOL, Outcome::Passed),
            block: None,
            in_blocks: false,
            dash_pending: false,
            ran: None,
            done: Sessions::default(),
            unexpected_listed: 0,
            header: None,
            frame: None,
            verbose: Verbose::default(),
            tests: Some(Vec::new()),
        })
    }
}

/// The kind of a block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Fail,
    Error,
    UnexpectedSuccess,
}

/// A doctest example's report inside a block.
#[derive(Default)]
struct Doctest {
    place: Option<(String, u32)>,
    example: Option<String>,
    expected: Option<String>,
    got: Option<String>,
    raised: Option<String>,
    /// The section whose first indented line is awaited: `example`, `expected`, `got`, `raised`.
    section: Option<&'static str>,
}

/// A block being read.
struct Block {
    kind: BlockKind,
    /// The test's id, with a subtest's parameters after it.
    id: String,
    /// The module-and-class part of the id, to find the test's own frames.
    test_id: String,
    /// Whether the `-` rule after the header was seen: the body follows it.
    body: bool,
    in_traceback: bool,
    test_frame: Option<(String, u32)>,
    project_frame: Option<(String, u32)>,
    exception: Option<String>,
    import_error: bool,
    doctest: Option<Doctest>,
}

struct Parser {
    report: Report,
    block: Option<Block>,
    /// Whether the `=` rule of the first block was seen.
    in_blocks: bool,
    /// A `-` rule inside a body: the end of the blocks when `Ran …` follows, a doctest's
    /// separator otherwise.
    dash_pending: bool,
    ran: Option<u64>,
    /// The runs that ended before the last one, when one log holds several (`python -m unittest`
    /// run in two folders, a CI step per package): their counts are added up.
    done: Sessions,
    unexpected_listed: u64,
    /// A block's header that a console wrapped (PowerShell breaks lines at its width): its start,
    /// joined with the next lines until it reads as a header.
    header: Option<String>,
    /// A traceback's frame line that a console wrapped, joined with the next line.
    frame: Option<String>,
    /// The `-v` lines of the run being read.
    verbose: Verbose,
    /// The tests of the runs read so far; `None` once a run's lines did not name all its tests.
    tests: Option<Vec<TestCase>>,
}

impl Parser {
    /// A run's `Ran N tests`: its `-v` lines are its tests when they name all `n`.
    fn end_listing(&mut self, n: u64) {
        let listed = std::mem::take(&mut self.verbose).finish(n);
        match (self.tests.as_mut(), listed) {
            (Some(tests), Some(listed)) => tests.extend(listed),
            _ => self.tests = None,
        }
    }
}

/// Closing lines kept for the summary of a log with several runs.
const MAX_CLOSINGS: usize = 4;

/// The runs of a log that reached their closing line, added up.
#[derive(Default)]
struct Sessions {
    count: u64,
    ran: u64,
    failures: u64,
    errors: u64,
    skipped: u64,
    expected: u64,
    unexpected: u64,
    /// A run said `FAILED`.
    failed: bool,
    /// A run ran no test (`NO TESTS RAN`, or `Ran 0 tests`).
    empty: bool,
    closings: Vec<String>,
    /// The last closing line, as unittest wrote it.
    last: String,
}

impl Sessions {
    fn add(&mut self, ran: u64, closing: &str) {
        let count = |key: &str| closing_count(closing, key);
        self.count += 1;
        self.ran = self.ran.saturating_add(ran);
        self.failures = self.failures.saturating_add(count("failures"));
        self.errors = self.errors.saturating_add(count("errors"));
        self.skipped = self.skipped.saturating_add(count("skipped"));
        self.expected = self.expected.saturating_add(count("expected failures"));
        self.unexpected = self
            .unexpected
            .saturating_add(count("unexpected successes"));
        self.failed |= closing.starts_with("FAILED");
        self.empty |= closing.starts_with("NO TESTS RAN") || ran == 0;
        closing.clone_into(&mut self.last);
        if self.closings.len() < MAX_CLOSINGS {
            self.closings.push(format!("Ran {ran} tests: {closing}"));
        }
    }
}

/// The count of `Ran 14 tests in 0.004s` (up to any bytes that were not UTF-8, which carry no
/// text).
fn ran(line: &str) -> Option<u64> {
    let line = line.split('\u{FFFD}').next().unwrap_or(line).trim_end();
    RAN.captures(line)?[1].parse().ok()
}

/// `  File "/app/tests/test_a.py", line 11, in test_x` → the path and line.
fn frame(line: &str) -> Option<(String, u32)> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (file, rest) = rest.split_once("\", line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((file.to_owned(), digits.parse().ok()?))
}

/// `ValueError: bad`, `AssertionError`, `requests.exceptions.HTTPError: 404`: the line naming the
/// exception raised, unlike a source line's rest that a console wrapped to column 0.
fn is_exception_line(line: &str) -> bool {
    let name = line
        .split_once(':')
        .map_or(line, |(name, _)| name)
        .trim_end();
    let last = name.rsplit('.').next().unwrap_or(name);
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        && last.starts_with(|c: char| c.is_ascii_uppercase())
}

/// The most a wrapped header or frame line is joined up to.
const MAX_JOINED: usize = 2000;

/// A frame line that ends before its function's name: the console wrapped the rest.
fn is_cut_frame(line: &str) -> bool {
    frame(line).is_none()
        || line
            .rsplit_once(", in ")
            .is_none_or(|(_, function)| function.trim().is_empty())
}

/// `FAIL: `, `ERROR: `, `UNEXPECTED SUCCESS: `: a block's header, maybe cut by a console.
fn is_header_start(line: &str) -> bool {
    line.starts_with("FAIL: ")
        || line.starts_with("ERROR: ")
        || line.starts_with("UNEXPECTED SUCCESS: ")
}

/// Frames of the standard library and installed packages say where an error surfaced.
fn is_foreign(file: &str) -> bool {
    let file = &*file.replace('\\', "/");
    file.starts_with('<')
        || file.contains("/lib/python")
        || file.contains("site-packages/")
        || file.contains("dist-packages/")
}

/// Whether `file` is the module a test id starts with (`tests/test_cart.py` for
/// `tests.test_cart.TotalTest.test_x`).
fn is_module_of(file: &str, id: &str) -> bool {
    let Some(stem) = file.strip_suffix(".py") else {
        return false;
    };
    let dotted = stem.replace(['/', '\\'], ".");
    let mut rest = dotted.as_str();
    loop {
        if id.starts_with(rest) && (id.len() == rest.len() || id[rest.len()..].starts_with('.')) {
            return true;
        }
        match rest.split_once('.') {
            Some((_, tail)) => rest = tail,
            None => return false,
        }
    }
}

impl Parser {
    /// A block whose header does not read as `FAIL: name (id)`: named by the header's text.
    fn start_raw_block(&mut self, header: &str) {
        let (kind, name) = if let Some(rest) = header.strip_prefix("FAIL: ") {
            (BlockKind::Fail, rest)
        } else if let Some(rest) = header.strip_prefix("ERROR: ") {
            (BlockKind::Error, rest)
        } else {
            let rest = header
                .strip_prefix("UNEXPECTED SUCCESS: ")
                .unwrap_or(header);
            (BlockKind::UnexpectedSuccess, rest)
        };
        let name = name.trim();
        self.start_block(kind, name, name, None);
    }

    fn start_block(&mut self, kind: BlockKind, name: &str, inner: &str, rest: Option<&str>) {
        self.finish_block();
        // Python 3.11+ prints the whole id in the parentheses; before, only its module and class
        // (and a doctest's is always its module).
        let base = if inner.ends_with(&format!(".{name}")) || inner == name {
            inner.to_owned()
        } else {
            format!("{inner}.{name}")
        };
        let id = match rest.map(str::trim).filter(|r| !r.is_empty()) {
            Some(params) => format!("{base} {params}"),
            None => base.clone(),
        };
        if kind == BlockKind::UnexpectedSuccess {
            self.unexpected_listed += 1;
        }
        // A module that did not import is the test `unittest.loader._FailedTest.<module>`.
        let test_id = base
            .strip_prefix("unittest.loader._FailedTest.")
            .or_else(|| base.strip_prefix("unittest.loader.ModuleImportFailure."))
            .unwrap_or(&base)
            .to_owned();
        self.block = Some(Block {
            kind,
            id,
            test_id,
            body: false,
            in_traceback: false,
            test_frame: None,
            project_frame: None,
            exception: None,
            import_error: false,
            doctest: None,
        });
    }

    fn body_line(&mut self, line: &str) {
        let joined;
        let line = match self.frame.take() {
            Some(mut start) => {
                start.push_str(line);
                joined = start;
                joined.as_str()
            }
            None => line,
        };
        let Some(block) = self.block.as_mut() else {
            return;
        };
        if !block.body {
            // The `-` rule ends the header (a doctest's `Doctest: shop.mathx.mean` line is
            // above it).
            if line.starts_with("----------") && line.bytes().all(|b| b == b'-') {
                block.body = true;
            }
            return;
        }
        if line.starts_with("Traceback (most recent call last):") {
            // A chained exception: the last one is what was raised.
            block.in_traceback = true;
            block.exception = None;
            return;
        }
        if line.starts_with("ImportError: Failed to import test module:")
            || line.starts_with("ImportError: Failed to call load_tests:")
        {
            block.import_error = true;
            block.exception = Some(clip(line.trim(), MAX_MESSAGE));
            return;
        }
        if let Some(doctest) = block.doctest.as_mut() {
            doctest_line(doctest, line);
            return;
        }
        if !line.starts_with(' ')
            && let Some(place) = frame(line)
            && block
                .exception
                .as_deref()
                .is_some_and(|e| e.starts_with("AssertionError: Failed doctest test"))
        {
            // doctest's own report: `File "…/mathx.py", line 20, in shop.mathx.mean` at column 0.
            block.doctest = Some(Doctest {
                place: Some(place),
                ..Doctest::default()
            });
            return;
        }
        if block.in_traceback {
            if line.starts_with("  File \"") && is_cut_frame(line) && line.len() < MAX_JOINED {
                // `  File "…", line ` and `122, in test_x` on the next line.
                self.frame = Some(line.to_owned());
                return;
            }
            if let Some((file, n)) = frame(line).filter(|_| line.starts_with("  File ")) {
                if !is_foreign(&file) && is_module_of(&file, &block.test_id) {
                    block.test_frame = Some((file.clone(), n));
                }
                if !is_foreign(&file) {
                    block.project_frame = Some((file, n));
                }
                return;
            }
            if is_exception_line(line) {
                block.exception = Some(clip(line.trim(), MAX_MESSAGE));
                block.in_traceback = false;
            }
        }
    }

    fn finish_block(&mut self) {
        let Some(block) = self.block.take() else {
            return;
        };
        let (mut file, mut line) = match block.test_frame.or(block.project_frame) {
            Some((file, line)) => (Some(file), Some(line)),
            None => (None, None),
        };
        let mut message = match block.kind {
            BlockKind::UnexpectedSuccess => {
                "unexpected success: the test is marked expectedFailure and passed".to_owned()
            }
            _ => block
                .exception
                .clone()
                .unwrap_or_else(|| "test failed".to_owned()),
        };
        if let Some(doctest) = &block.doctest {
            if let Some((f, l)) = &doctest.place {
                file = Some(f.clone());
                line = Some(*l);
            }
            let example = doctest.example.as_deref().unwrap_or("?");
            message = match (&doctest.raised, &doctest.expected, &doctest.got) {
                (Some(raised), _, _) => format!("Failed example: {example} raised {raised}"),
                (None, expected, got) => format!(
                    "Failed example: {example} expected {} got {}",
                    expected.as_deref().unwrap_or("nothing"),
                    got.as_deref().unwrap_or("nothing")
                ),
            };
        }
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Test,
            Severity::Error,
            clip(&message, MAX_MESSAGE),
        )
        .with_test(clip(&block.id, MAX_MESSAGE));
        if let Some(file) = file {
            d = d.at(file, line, None);
        }
        if block.import_error {
            // unittest counts the module as one erroring test: it is in the failed count already.
            d = d.as_root_cause();
        }
        self.report.push(d);
    }
}

/// A count of the closing line: `failures` in `FAILED (failures=4, errors=3, expected failures=1)`
/// is 4; a count it does not name is 0.
fn closing_count(closing: &str, key: &str) -> u64 {
    let Some((_, inside)) = closing.split_once('(') else {
        return 0;
    };
    inside
        .trim_end_matches(')')
        .split(", ")
        .find_map(|part| {
            let (name, n) = part.split_once('=')?;
            (name.trim() == key).then(|| n.trim().parse().ok())?
        })
        .unwrap_or(0)
}

/// One line of doctest's report of a failing example.
fn doctest_line(doctest: &mut Doctest, line: &str) {
    match line {
        "Failed example:" => doctest.section = Some("example"),
        "Expected:" => doctest.section = Some("expected"),
        "Got:" => doctest.section = Some("got"),
        "Expected nothing" => doctest.expected = Some("nothing".to_owned()),
        "Got nothing" => doctest.got = Some("nothing".to_owned()),
        "Exception raised:" => doctest.section = Some("raised"),
        _ => {
            let Some(text) = line.strip_prefix("    ") else {
                return;
            };
            let text = clip(text.trim(), 120);
            match doctest.section {
                Some("example") if doctest.example.is_none() => doctest.example = Some(text),
                Some("expected") if doctest.expected.is_none() => doctest.expected = Some(text),
                Some("got") if doctest.got.is_none() => doctest.got = Some(text),
                // The exception's own line ends the traceback doctest shows.
                Some("raised")
                    if !line.starts_with("      ")
                        && !text.starts_with("Traceback (")
                        && !text.starts_with("File ") =>
                {
                    doctest.raised = Some(text);
                }
                _ => {}
            }
        }
    }
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        if self.dash_pending {
            self.dash_pending = false;
            if let Some(n) = ran(line) {
                self.finish_block();
                self.in_blocks = false;
                self.ran = Some(n);
                self.end_listing(n);
                return;
            }
            // A doctest report's own separator.
            self.body_line(
                "----------------------------------------------------------------------",
            );
        }
        if self.ran.is_some() {
            // Awaiting the closing line: `OK …`, `FAILED (…)`, `NO TESTS RAN`.
            let text = line.trim();
            if text.starts_with("OK")
                || text.starts_with("FAILED")
                || text.starts_with("NO TESTS RAN")
            {
                // The run is over; another may follow in the same log.
                if let Some(ran) = self.ran.take() {
                    self.done.add(ran, text);
                }
            }
            return;
        }
        if line.len() >= 70 && line.bytes().all(|b| b == b'=') {
            self.in_blocks = true;
            self.finish_block();
            return;
        }
        if let Some(n) = ran(line) {
            // No blocks: the rule before `Ran` was a progress line's end.
            self.finish_block();
            self.ran = Some(n);
            self.end_listing(n);
            return;
        }
        if !self.in_blocks {
            self.verbose.line(line);
            return;
        }
        let joined;
        let line = match self.header.take() {
            Some(mut start) => {
                if line.starts_with("----------") && line.bytes().all(|b| b == b'-') {
                    // The header never read as one: keep the block, named by what it says.
                    self.start_raw_block(&start);
                    self.body_line(line);
                    return;
                }
                start.push_str(line);
                joined = start;
                joined.as_str()
            }
            None => line,
        };
        let in_header = self.block.is_none() || self.block.as_ref().is_some_and(|b| !b.body);
        if in_header && is_header_start(line) && !HEADER.is_match(line) && line.len() < MAX_JOINED {
            self.header = Some(line.to_owned());
            return;
        }
        if in_header && let Some(captures) = HEADER.captures(line) {
            let kind = match &captures[1] {
                "FAIL" => BlockKind::Fail,
                "ERROR" => BlockKind::Error,
                _ => BlockKind::UnexpectedSuccess,
            };
            let (name, inner) = (captures[2].to_owned(), captures[3].to_owned());
            let rest = captures.get(4).map(|m| m.as_str().to_owned());
            self.start_block(kind, &name, &inner, rest.as_deref());
            return;
        }
        if self.block.as_ref().is_some_and(|b| b.body)
            && line.len() >= 70
            && line.bytes().all(|b| b == b'-')
        {
            self.dash_pending = true;
            return;
        }
        self.body_line(line);
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.finish_block();
        let mut report = self.report;
        let mut done = self.done;
        // The last run printed `Ran N tests` and no closing line after it.
        let cut = self.ran.is_some();
        if let Some(ran) = self.ran {
            done.add(ran, "");
        }
        let (failures, errors, skipped) = (done.failures, done.errors, done.skipped);
        let (expected, unexpected) = (done.expected, done.unexpected);
        if self.unexpected_listed < unexpected {
            // Python before 3.11 lists no block for them.
            for _ in self.unexpected_listed..unexpected {
                report.push(Diagnostic::new(
                    TOOL,
                    Kind::Test,
                    Severity::Error,
                    "unexpected success: a test marked expectedFailure passed",
                ));
            }
        }
        if done.count == 0 {
            report.outcome = if report.errors().next().is_some() {
                Outcome::Failed
            } else {
                Outcome::Errored
            };
            if report.outcome == Outcome::Errored {
                report.error = Some(
                    "the log ends before unittest's summary (`Ran N tests`, then `OK` or `FAILED`)"
                        .to_owned(),
                );
            }
            return report;
        }
        if let Some(tests) = self.tests.filter(|t| !t.is_empty() && !cut) {
            for test in tests {
                report.push_test(test);
            }
        }
        let ran = done.ran;
        let closing = &done.last;
        let failed = failures + errors + unexpected;
        report.counts.tests_failed = Some(failed);
        report.counts.tests_skipped = Some(skipped);
        report.counts.tests_passed = Some(ran.saturating_sub(failed + skipped + expected));
        report.summary = Some(done.closings.join("; "));
        report.outcome = if done.failed || failed > 0 {
            if report.errors().next().is_some() {
                Outcome::Failed
            } else {
                report.error = Some(format!(
                    "unittest says {closing} but the log names no failure"
                ));
                Outcome::Errored
            }
        } else if done.empty {
            report.error = Some(format!("unittest ran no test ({closing})"));
            Outcome::Errored
        } else if cut {
            report.error = Some(
                "the log ends after `Ran N tests` but before unittest's `OK` or `FAILED`"
                    .to_owned(),
            );
            Outcome::Errored
        } else {
            Outcome::Passed
        };
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        UnittestSummarizer.parse(log.as_bytes())
    }

    const RULE: &str = "======================================================================";
    const DASH: &str = "----------------------------------------------------------------------";

    #[test]
    fn python_39_ids_name_the_class_only() {
        let log = format!(
            "F.\n{RULE}\nFAIL: test_x (pkg.test_a.ATest)\n{DASH}\nTraceback (most recent call last):\n  File \"/app/pkg/test_a.py\", line 7, in test_x\n    self.assertEqual(1, 2)\nAssertionError: 1 != 2\n\n{DASH}\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n"
        );
        let report = parse(&log);
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("pkg.test_a.ATest.test_x"));
        assert_eq!(d.location().as_deref(), Some("/app/pkg/test_a.py:7"));
        assert_eq!(d.message, "AssertionError: 1 != 2");
        assert_eq!(report.counts.tests_passed, Some(1));
    }

    #[test]
    fn no_tests_and_cut_logs_are_errored() {
        let log = format!("\n{DASH}\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n");
        assert_eq!(parse(&log).outcome, Outcome::Errored);
        let log = format!("\n{DASH}\nRan 0 tests in 0.000s\n\nOK\n");
        assert_eq!(parse(&log).outcome, Outcome::Errored);
        assert_eq!(parse("..F.\n").outcome, Outcome::Errored);
        let log = format!("..\n{DASH}\nRan 2 tests in 0.000s\n\nOK (skipped=1)\n");
        assert_eq!(parse(&log).outcome, Outcome::Passed);
    }

    #[test]
    fn the_runs_of_one_log_are_added_up() {
        let log = format!(
            "..\n{DASH}\nRan 2 tests in 0.1s\n\nOK\n$ python -m unittest\n.F\n{RULE}\nFAIL: test_x (t.T.test_x)\n{DASH}\nTraceback (most recent call last):\n  File \"/app/t.py\", line 3, in test_x\n    self.fail()\nAssertionError: None\n\n{DASH}\nRan 2 tests in 0.1s\n\nFAILED (failures=1)\n"
        );
        let report = parse(&log);
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.tests_passed, Some(3));
        assert_eq!(report.counts.tests_failed, Some(1));
        // A later run cut before its closing line leaves the log unverified.
        let cut = format!("..\n{DASH}\nRan 2 tests in 0.1s\n\nOK\n.\n{DASH}\nRan 1 test in 0.1s\n");
        assert_eq!(parse(&cut).outcome, Outcome::Errored);
    }

    #[test]
    fn headers_and_frames_a_console_wrapped_are_joined() {
        // PowerShell breaks lines at its width, after a space or inside a word.
        let log = format!(
            "E\n{RULE}\nERROR: \ntest_long_name (tests.test_a.ATe\nst.test_long_name)\n{DASH}\nTraceback (most recent call last):\n  File \"D:\\app\\tests\\test_a.py\", line \n12, in \ntest_long_name\n    run(1, \n2)\nKeyError: 'x'\n\n{DASH}\nRan 1 test in 0.1s\n\nFAILED (errors=1)\n"
        );
        let report = parse(&log);
        assert_eq!(report.outcome, Outcome::Failed);
        let d = report.diagnostics.first().expect("a failure");
        assert_eq!(d.test.as_deref(), Some("tests.test_a.ATest.test_long_name"));
        assert_eq!(d.file.as_deref(), Some("D:\\app\\tests\\test_a.py"));
        assert_eq!(d.line, Some(12));
        assert_eq!(d.message, "KeyError: 'x'");
    }

    #[test]
    fn garbage_does_not_panic() {
        for log in [
            RULE,
            "FAIL: x (y)",
            "Ran 1 tests in 1s\nFAILED (failures=x)",
            "File \"",
        ] {
            let _ = parse(log);
        }
    }
}
