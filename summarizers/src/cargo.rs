//! The `cargo` summarizer: rustc's diagnostics, clippy's lints, libtest's results and cargo's own
//! errors, in the human format a CI log shows and in the JSON formats (`--message-format=json`,
//! libtest's `--format json`).
//!
//! What a cargo log holds, and how each part is read:
//! - rustc diagnostics: a header (`error[E0308]: mismatched types`, `warning: unused variable: `x``,
//!   `error: expected one of …` for syntax errors, which have no code), the primary location on the
//!   next line (`  --> src/x.rs:3:5`), then a code frame, `= note:` / `= help:` lines and
//!   sub-diagnostics, until a blank line. Lints carry their name only in a note
//!   (`#[warn(unused_variables)]`) or, for clippy, in the help link (`…/index.html#needless_range_loop`);
//!   that name becomes the code.
//! - cargo's summaries: `error: could not compile `pkg` (lib) due to 3 previous errors; 2 warnings
//!   emitted` and `warning: `pkg` (lib) generated 2 warnings`: the error and warning counts.
//! - libtest: `test x::y ... FAILED` lines, one `---- x::y stdout ----` block per failure with the
//!   panic (`thread 'x::y' panicked at src/x.rs:3:5:` and the message on the next lines), and one
//!   `test result: FAILED. 1 passed; 2 failed; …` line per test binary; the counts are their sum.
//!   A block holds what the test printed, whatever it looks like: a `test result:` line in it is
//!   the test's, not libtest's, and only the next block or libtest's `failures:` list ends it.
//!   Output that escapes libtest's capture (a child process writing to the inherited standard
//!   output) can still print lines that look like libtest's between the real ones, so each test
//!   binary's run (from cargo's `Running …` or `Doc-tests …` line to the next) counts only once:
//!   by its last `test result:` that agrees with its `running N tests` header, and the failures
//!   its `test x ... FAILED` lines name count only when that result has failures.
//! - A test binary that ends without its summary: cargo names it (`error: test failed, to rerun
//!   pass `--lib``) and, unless it exited with libtest's 101, says how it ended (`process didn't
//!   exit successfully: `…` (signal: 11, SIGSEGV: …)`). A crash (the code under test aborted,
//!   overflowed its stack), a test that called `process::exit(1)`, and a `harness = false` target
//!   that exited non-zero (it reports only through its output) are each one failure of that
//!   target, with what was printed last before cargo's line. A libtest binary that ended before its
//!   summary (`running 3 tests` and one `... ok`) without cargo seeing a failure (a test called
//!   `process::exit(0)`) verified nothing of its remaining tests: the run is errored.
//!
//!   cargo's lines are on standard error and libtest's on standard output, and a log that drains
//!   both pipes at once may interleave them out of order: a test binary's run is therefore read
//!   from libtest's lines alone (`running N tests` to the next), and cargo's from cargo's.
//! - cargo's own errors (an invalid manifest, a missing `Cargo.toml`, a dependency that cannot be
//!   loaded) come before anything is compiled: nothing was verified, so the run is errored.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use verdict_model::{
    Diagnostic, Evidence, Kind, LineParser, Outcome, Report, Severity, Summarizer, TestCase,
    TestStatus,
};

use crate::text::{clip, count_of, split_location};

const TOOL: &str = "cargo";

/// The longest detail kept (expected/found, the panic message's extra lines).
const MAX_DETAIL: usize = 200;
/// The longest message kept.
const MAX_MESSAGE: usize = 300;
/// How many failing test names are remembered to report the ones that printed no failure block.
const MAX_TESTS: usize = 10_000;
/// How many lines of a panic message are kept (the first is the message, the rest the detail).
const MAX_PANIC_LINES: usize = 8;
/// How many errors that cargo printed without a location are kept.
const MAX_UNLOCATED: usize = 20;
/// How many of a test binary's last output lines are kept, for a target that fails without
/// libtest's report.
const MAX_OUTPUT_LINES: usize = 3;
/// How many failing test targets are reported.
const MAX_TARGET_FAILURES: usize = 100;

/// `panicked at `, searched with a prebuilt finder on every line of a failure block.
static PANICKED: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("panicked at "));

/// The levels of a JSON compiler message that count as diagnostics.
static LEVEL_ERROR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("\"level\":\"error\""));
static LEVEL_WARNING: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("\"level\":\"warning\""));

/// `: error` and `: warning`, which follow the location in `--message-format short`.
static SHORT_ERROR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(": error"));
static SHORT_WARNING: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(": warning"));

/// Parses cargo output.
#[derive(Debug, Default, Clone, Copy)]
pub struct CargoSummarizer;

impl Summarizer for CargoSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Build
    }

    fn sniff(&self, sample: &str) -> u8 {
        // Markers no other supported tool prints: rustc's error codes with their location arrow,
        // cargo's summaries, libtest's result line and cargo's JSON messages.
        if sample.contains("could not compile `")
            || sample.contains("{\"reason\":\"compiler-")
            || (sample.contains("test result: ") && sample.contains("running "))
            || (sample.contains("error[E") && sample.contains("--> "))
        {
            return 95;
        }
        if sample.contains("   Compiling ")
            || sample.contains("    Finished `")
            || sample.contains("    Checking ")
            || sample.contains("     Running ")
        {
            return 80;
        }
        // Cargo's own errors, printed before anything is built.
        if sample.contains("` (lib) generated ")
            || sample.contains("could not find `Cargo.toml`")
            || sample.contains("--> Cargo.toml:")
            || sample.contains("failed to load manifest")
            || sample.contains("failed to parse manifest")
        {
            return 80;
        }
        // cargo could not reach its registry: nothing was built.
        if sample.contains("error: Unable to update registry `")
            || sample.contains("warning: spurious network error (")
            || (sample.contains("    Updating `") && sample.contains("` index"))
        {
            return 80;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }
}

/// A rustc diagnostic being read: its header and whatever of its body has been seen.
struct Pending {
    severity: Severity,
    code: Option<String>,
    message: String,
    location: Option<(String, u32, Option<u32>)>,
    /// The primary label of the code frame (`expected `u32`, found `&str``).
    label: Option<String>,
    /// The first `= note:` / `= help:` / `help:` that says something about this code.
    help: Option<String>,
    /// What the linker said went wrong (`undefined symbol: foo`), in the notes of rustc's
    /// `linking with `cc` failed`, which otherwise show only the linker's command line.
    linker: Option<String>,
    /// Lines read since the header (the location must be the first).
    lines: u32,
}

/// A libtest failure block being read (`---- name stdout ----` up to the next block).
#[derive(Default)]
struct Block {
    name: String,
    panic: Panic,
}

/// What a failure block (or a loose panic) says. The nextest summarizer reads the output nextest
/// shows of each failing test with it too.
#[derive(Default, Clone)]
pub(crate) struct Panic {
    location: Option<(String, u32, Option<u32>)>,
    /// The message lines: the first is the message, the rest the detail.
    lines: Vec<String>,
    /// Whether message lines are still being read.
    reading: bool,
    /// An old-style (`panicked at 'msg', file:l:c`) message still open across lines.
    quoted: bool,
    /// A fallback message when nothing panicked (`Error: …`, `Test executable failed`).
    fallback: Option<String>,
    /// What a `#[should_panic(expected = …)]` test expected, when it panicked with another
    /// message (libtest's `note: panic did not contain expected string`).
    expected: Option<String>,
    /// Whether the lines of that note are being read.
    in_expected_note: bool,
}

/// One test binary's run as libtest prints it on standard output, from `running N tests` to the
/// next.
#[derive(Default)]
struct Run {
    /// `N` of `running N tests`.
    header: Option<u64>,
    /// Tests that libtest reported one by one: passed, failed, ignored.
    reported: [u64; 3],
    /// The last `test result:` line read, and the last whose counts add up to the header.
    last: Option<TestResult>,
    agreeing: Option<TestResult>,
    /// Failing tests named by `test x ... FAILED` lines (and `x --- FAILED` in the terse format).
    failing: Vec<String>,
    /// Failing tests named by libtest's list of failures (`failures:` and the names indented
    /// under it), printed once every test has finished: with `--nocapture` a test's output can
    /// run into a line that names a failure (a doc-test's `Couldn't compile the test.` has no
    /// line end), but never into this list.
    listed: Vec<String>,
    /// The tests named by `test x ... ok|FAILED|ignored` lines, kept once the run's summary
    /// says which of its failures are libtest's own (see [`Parser::finish_run`]).
    tests: Vec<TestCase>,
}

impl Run {
    /// Whether no test of this run was named by a `test x ... ok` line (the terse format names
    /// only failures): its tests are not listed at all, rather than its failures alone.
    fn named_nothing(&self) -> bool {
        self.reported.iter().sum::<u64>() == 0
    }
}

/// A target cargo says failed: `error: test failed, to rerun pass `--test custom``, and how its
/// process ended when that was not libtest's exit code for failing tests.
struct FailedTarget {
    /// The target as cargo names it for a re-run: `--lib`, `-p pkg --test custom`.
    target: String,
    /// `signal: 11, SIGSEGV: invalid memory reference`, `exit status: 1`.
    status: Option<String>,
    /// What was printed last before cargo's line (the target's own output, for a `harness =
    /// false` target).
    output: Vec<String>,
}

impl FailedTarget {
    /// The failure of the whole target, when its process ended otherwise than libtest does on
    /// failing tests: libtest reported no failure for it.
    fn diagnostic(&self) -> Option<Diagnostic> {
        let status = self.status.as_deref()?;
        let message = if status.starts_with("signal") {
            format!("the test binary crashed ({status})")
        } else {
            format!("the test target failed ({status})")
        };
        // The target as cargo names it for a re-run stands for the test: it is what failed, and
        // what a person passes to run it again.
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Test,
            Severity::Error,
            clip(&message, MAX_MESSAGE),
        )
        .with_test(self.target.clone());
        if !self.output.is_empty() {
            d = d.with_detail(clip(&self.output.join("; "), MAX_DETAIL));
        }
        if status.starts_with("signal") {
            // A crash takes the tests after it down with it: it comes first.
            d = d.as_root_cause();
        }
        Some(d)
    }
}

/// The counts of a `test result:` line, and the line.
#[derive(Clone)]
struct TestResult {
    passed: u64,
    failed: u64,
    ignored: u64,
    /// Tests a filter left out (`3 filtered out`).
    filtered: u64,
    line: String,
}

impl TestResult {
    /// Reads `test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; …`
    /// (`rest` is what follows `test result: `); with the number of tests that ran, which is what
    /// `running N tests` announces (filtered-out tests do not run).
    fn read(rest: &str, line: &str) -> (TestResult, u64) {
        let result = TestResult {
            passed: count_of(rest, "passed").unwrap_or(0),
            failed: count_of(rest, "failed").unwrap_or(0),
            ignored: count_of(rest, "ignored").unwrap_or(0),
            filtered: count_of(rest, "filtered").unwrap_or(0),
            line: line.to_owned(),
        };
        let ran = result.passed
            + result.failed
            + result.ignored
            + count_of(rest, "measured").unwrap_or(0);
        (result, ran)
    }
}

#[derive(Default)]
struct Parser {
    report: Report0,
    /// cargo's `could not compile` summary cut at a terminal's width before its counts ended:
    /// the next line is the rest of it.
    cut_summary: Option<String>,
    /// The test binary's run being read.
    run: Option<Run>,
    /// The last lines that nothing else took: a `harness = false` target's output.
    output: std::collections::VecDeque<String>,
    /// Whether a binary's failing `test result:` was read and cargo has not started another
    /// binary since: cargo's `test failed` line then names that binary, and the lines kept since
    /// are the next one's, read early from the other pipe.
    libtest_ended: bool,
    pending: Option<Pending>,
    block: Option<Block>,
    /// Failing tests from `test x ... FAILED` lines, in order, and the ones reported from a block.
    failing: Vec<String>,
    failing_seen: HashSet<String>,
    reported: HashSet<String>,
    /// Panics printed outside a block (`--nocapture`), by test name.
    loose: Vec<(String, Panic)>,
    loose_current: Option<(String, Panic)>,
    /// Errors printed without a location: cargo's own, or rustc's linking errors.
    unlocated: Vec<String>,
    /// Whether the last unlocated error takes `Caused by:` lines.
    caused_by: bool,
    /// Which part of a failed build script's output (under `Caused by:`) is being read.
    script_output: ScriptOutput,
    /// Lint names learned from their first occurrence, by [`lint_key`].
    lint_names: HashMap<String, String>,
    /// Whether the current failures list (`failures:` followed by indented names) is being read.
    in_failures_list: bool,
    /// Every test libtest reported by name (`test x ... ok`), for the report's `tests`.
    tests: Vec<TestCase>,
    tests_dropped: u64,
}

/// The parts of a failed build script's output that cargo shows under `Caused by:`.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum ScriptOutput {
    /// Not in a build script's output (cargo's own `Caused by:` lines).
    #[default]
    None,
    /// `--- stdout`: mostly `cargo:` directives and what the script looked at (openssl-sys
    /// prints some sixty lines of them), which would fill the message before the reason.
    Stdout,
    /// `--- stderr`: the reason, usually a panic.
    Stderr,
    /// The panic's backtrace in `--- stderr`.
    Backtrace,
}

/// The parts of the report built up while reading.
#[derive(Default)]
struct Report0 {
    diagnostics: Vec<Diagnostic>,
    dropped: u64,
    errors: Option<u64>,
    /// Errors counted by rustc itself (`aborting due to …`), used when cargo printed no summary.
    rustc_errors: Option<u64>,
    /// Warnings per compiled target (`` `pkg` (lib) ``): cargo states them twice when a target
    /// fails with warnings (`generated 9 warnings`, then `…; 9 warnings emitted`).
    target_warnings: HashMap<String, u64>,
    rustc_warnings: Option<u64>,
    passed: Option<u64>,
    failed: Option<u64>,
    ignored: Option<u64>,
    /// Tests left out by a filter, summed over the binaries that left some out.
    filtered: Option<u64>,
    compile_failed: bool,
    /// `error: test failed, to rerun pass …` and friends: a failure cargo saw.
    test_failed_marker: bool,
    /// The targets cargo says failed, in order.
    failed_targets: Vec<FailedTarget>,
    /// Test binaries that ended before their summary: how many, and the first one's reported
    /// tests and header.
    incomplete: usize,
    first_incomplete: Option<(u64, u64)>,
    /// Why the run is errored when a binary ended early with cargo none the wiser.
    incomplete_error: Option<String>,
    compile_summary: Option<String>,
    warning_summary: Option<String>,
    first_failed_result: Option<String>,
    last_result: Option<String>,
    finished: Option<String>,
    /// cargo's last `Compiling …`/`Checking …` line when no `Finished` line came after it: a
    /// build still going when the log ended.
    building: Option<String>,
    /// Why rustc itself did not finish: `(signal: 9, SIGKILL: kill)`.
    compiler_killed: Option<String>,
    build_failed_json: bool,
    /// Whether cargo's JSON `build-finished` message came: the evidence of a build without a
    /// `Finished` line in the log (its standard error not captured).
    build_finished_json: bool,
    /// A manifest or cargo-level error that has a location (`--> Cargo.toml:8:14`).
    manifest_error: Option<String>,
    ice: Option<String>,
    /// A system library the linker could not find (`unable to find library -lXrandr`): the
    /// build failed for want of the machine, not of the code.
    missing_library: Option<String>,
    /// Errors without a location other than a missing library.
    other_unlocated: bool,
    notes: Vec<String>,
}

fn add(slot: &mut Option<u64>, n: u64) {
    *slot = Some(slot.unwrap_or(0) + n);
}

impl Report0 {
    fn full(&self) -> bool {
        self.diagnostics.len() >= verdict_model::model::MAX_DIAGNOSTICS
    }

    fn target_warned(&mut self, target: &str, n: u64) {
        const MAX_TARGETS: usize = 10_000;
        if let Some(seen) = self.target_warnings.get_mut(target) {
            *seen = (*seen).max(n);
        } else if self.target_warnings.len() < MAX_TARGETS {
            self.target_warnings.insert(target.to_owned(), n);
        }
    }

    fn push(&mut self, diagnostic: Diagnostic) {
        if self.diagnostics.len() < verdict_model::model::MAX_DIAGNOSTICS {
            self.diagnostics.push(diagnostic);
        } else {
            self.dropped += 1;
        }
    }
}

/// The lint name in `#[warn(clippy::needless_range_loop)]`, `#[deny(unused)]`,
/// `#[allow(clippy::x)]`, or at the end of a clippy help link.
fn lint_name(note: &str) -> Option<&str> {
    if let Some(at) = note.find("rust-clippy/") {
        let rest = &note[at..];
        let name = rest.rsplit_once('#')?.1;
        let name = name.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '_');
        if !name.is_empty() {
            return Some(name);
        }
        return None;
    }
    for open in ["#[warn(", "#[deny(", "#[forbid(", "#[expect(", "#[allow("] {
        if let Some(at) = note.find(open) {
            let rest = &note[at + open.len()..];
            let end = rest.find(')')?;
            return Some(&rest[..end]);
        }
    }
    None
}

/// The part of a lint's message that every occurrence shares: the message without the names it
/// quotes (`function `a` is never used` → `function `` is never used`).
fn lint_key(message: &str) -> String {
    let mut key = String::with_capacity(message.len());
    for (i, part) in message.split('`').enumerate() {
        if i % 2 == 0 {
            key.push_str(part);
        }
        key.push('`');
    }
    key
}

/// Whether an error message without a code is a syntax error: the parser's messages.
fn is_syntax_error(message: &str) -> bool {
    message.starts_with("expected ")
        || message.starts_with("unexpected ")
        || message.starts_with("this file contains an unclosed delimiter")
        || message.starts_with("mismatched closing delimiter")
        || message.starts_with("unmatched ")
        || message.starts_with("unterminated ")
        || message.starts_with("unknown start of token")
        || message.starts_with("incorrect close delimiter")
}

/// Whether a rustc code marks a likely root cause: unresolved imports and paths, a module file or
/// crate that cannot be found.
fn is_root_code(code: &str) -> bool {
    matches!(code, "E0432" | "E0433" | "E0583" | "E0463")
}

/// Whether a code is a rustc error code (`E0308`) rather than a lint name.
fn is_error_code(code: &str) -> bool {
    code.len() == 5 && code.starts_with('E') && code[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The number after `due to ` in `could not compile … due to 3 previous errors` (`previous error`
/// without a number is one).
fn due_to(line: &str) -> Option<u64> {
    let rest = &line[line.find("due to ")? + "due to ".len()..];
    if rest.starts_with("previous error") {
        return Some(1);
    }
    let digits: &str = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    digits.parse().ok()
}

/// The warning count in `… generated 3 warnings (1 duplicate)`, less the duplicates cargo already
/// reported for another target.
fn generated(line: &str) -> Option<u64> {
    let rest = &line[line.find(" generated ")? + " generated ".len()..];
    let digits: &str = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    let n: u64 = digits.parse().ok()?;
    let duplicates = count_of(rest, "duplicate")
        .or_else(|| count_of(rest, "duplicates"))
        .unwrap_or(0);
    Some(n.saturating_sub(duplicates))
}

/// Warnings in `…; 2 warnings emitted` / `1 warning emitted`.
fn emitted(line: &str) -> Option<u64> {
    count_of(line, "warnings").or_else(|| count_of(line, "warning"))
}

/// The test name of a failure block's header, `---- x::y stdout ----`.
fn block_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("---- ")?;
    rest.strip_suffix(" stdout ----")
        .or_else(|| rest.strip_suffix(" stderr ----"))
}

/// Whether a line is libtest's terse progress (`-q`): a run of result characters (`.`, `i`, `F`),
/// and at the end of a row the count so far (` 5/17`).
fn is_terse_progress(line: &str) -> bool {
    let (marks, count) = match line.rsplit_once(' ') {
        Some((marks, count)) => (marks, Some(count)),
        None => (line, None),
    };
    let marks_ok = marks.bytes().all(|b| matches!(b, b'.' | b'i' | b'F'));
    let count_ok = count.is_none_or(|count| {
        count.split_once('/').is_some_and(|(done, total)| {
            !done.is_empty()
                && !total.is_empty()
                && done.bytes().all(|b| b.is_ascii_digit())
                && total.bytes().all(|b| b.is_ascii_digit())
        })
    });
    (count.is_some() || !marks.is_empty()) && marks_ok && count_ok
}

/// The test name and file/line of a doc-test: `src/lib.rs - add (line 8)`.
fn doctest_location(name: &str) -> Option<(String, u32)> {
    let (file, rest) = name.split_once(" - ")?;
    let line = rest.rsplit_once("(line ")?.1.strip_suffix(')')?;
    Some((file.to_owned(), line.parse().ok()?))
}

impl Panic {
    /// Feeds one line of a failure block or of the output around a loose panic.
    pub(crate) fn line(&mut self, line: &str) {
        if line.starts_with("note: panic did not contain expected string") {
            // After the panic: `      panic message: "bang"`, ` expected substring: "boom"`.
            self.reading = false;
            self.in_expected_note = true;
            return;
        }
        if self.in_expected_note {
            let trimmed = line.trim();
            if trimmed.starts_with("panic message:") {
                return;
            }
            self.in_expected_note = false;
            if let Some(expected) = trimmed.strip_prefix("expected substring:") {
                self.expected = Some(clip(expected.trim(), MAX_MESSAGE));
                return;
            }
        }
        // libtest of 2016 indented the panic line of a failure block by a tab, and placed it
        // by file and line only (`\tthread 'x' panicked at 'msg', src/x.rs:9`).
        let unindented = line.trim_start_matches(['\t', ' ']);
        if let Some(at) = PANICKED.find(unindented.as_bytes())
            && unindented.starts_with("thread '")
            && self.location.is_none()
            && self.lines.is_empty()
        {
            let rest = &unindented[at + "panicked at ".len()..];
            if let Some(quoted) = rest.strip_prefix('\'') {
                // Before Rust 1.73: `panicked at 'message', src/x.rs:3:5`.
                self.quoted = true;
                self.reading = true;
                self.quoted_line(quoted);
            } else {
                self.location = split_location(rest.trim_end().trim_end_matches(':'))
                    .map(|(f, l, c)| (f.to_owned(), l, c));
                self.reading = true;
            }
            return;
        }
        if self.reading {
            if self.quoted {
                self.quoted_line(line);
                return;
            }
            if line.is_empty()
                || line.starts_with("note: ")
                || line.starts_with("stack backtrace:")
                || line.starts_with("thread '")
            {
                self.reading = false;
                return;
            }
            if self.lines.len() < MAX_PANIC_LINES {
                self.lines.push(line.trim().to_owned());
            }
            return;
        }
        if self.fallback.is_none() && self.lines.is_empty() {
            if let Some(rest) = line.strip_prefix("note: test did not panic as expected") {
                self.fallback = Some("test did not panic as expected".to_owned());
                if let Some(location) = rest.strip_prefix(" at ") {
                    self.location =
                        split_location(location.trim()).map(|(f, l, c)| (f.to_owned(), l, c));
                }
            } else if line.starts_with("Error: ") {
                // A test that returned `Err`: libtest prints the error's Debug form.
                self.fallback = Some(line.to_owned());
            } else if line.starts_with("error") && line.contains(": ") {
                // A doc-test that does not compile shows rustc's diagnostics.
                self.fallback = Some(line.to_owned());
            } else if line.starts_with("Test executable failed") {
                self.fallback = Some(line.to_owned());
            }
        }
    }

    /// Reads one line of an old-style quoted panic message, which ends with `', file:l:c`.
    fn quoted_line(&mut self, line: &str) {
        if let Some((message, location)) = line.rsplit_once("', ")
            && let Some((f, l, c)) = split_location(location.trim())
        {
            if self.lines.len() < MAX_PANIC_LINES {
                self.lines.push(message.trim().to_owned());
            }
            self.location = Some((f.to_owned(), l, c));
            self.quoted = false;
            self.reading = false;
            return;
        }
        if self.lines.len() < MAX_PANIC_LINES {
            self.lines.push(line.trim().to_owned());
        }
    }

    /// The failure of test `name` that this panic explains: its message (else `fallback`), where
    /// it panicked, and the rest of the message as the detail.
    pub(crate) fn test_diagnostic(&self, tool: &str, name: &str, fallback: &str) -> Diagnostic {
        let message = self.message().unwrap_or_else(|| fallback.to_owned());
        let mut d = Diagnostic::new(
            tool,
            Kind::Test,
            Severity::Error,
            clip(&message, MAX_MESSAGE),
        )
        .with_test(name);
        if let Some((file, line, column)) = &self.location {
            d = d.at(file.clone(), Some(*line), *column);
        }
        if let Some(detail) = self.detail() {
            d = d.with_detail(detail);
        }
        d
    }

    /// Whether the panic (or a fallback line) said anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.location.is_none() && self.lines.is_empty() && self.fallback.is_none()
    }

    fn message(&self) -> Option<String> {
        self.lines
            .iter()
            .find(|l| !l.is_empty())
            .cloned()
            .or_else(|| self.fallback.clone())
    }

    fn detail(&self) -> Option<String> {
        // The panic's message alone reads like any failure: say what the test wanted instead.
        let mismatch = self
            .expected
            .as_ref()
            .map(|expected| format!("panic did not contain expected string {expected}"));
        let first = self.lines.iter().position(|l| !l.is_empty());
        let rest: Vec<&str> = first
            .map(|first| &self.lines[first + 1..])
            .unwrap_or_default()
            .iter()
            .map(|l| l.trim_end_matches(','))
            .filter(|l| !l.is_empty())
            .collect();
        let detail: Vec<&str> = mismatch.as_deref().into_iter().chain(rest).collect();
        if detail.is_empty() {
            None
        } else {
            Some(clip(&detail.join(", "), MAX_DETAIL))
        }
    }
}

impl Parser {
    fn finish_pending(&mut self) {
        let Some(mut p) = self.pending.take() else {
            return;
        };
        if let Some(code) = p.code.as_deref().filter(|c| !is_error_code(c))
            && self.lint_names.len() < 1000
        {
            let key = lint_key(&p.message);
            self.lint_names
                .entry(key)
                .or_insert_with(|| code.to_owned());
        }
        let Some((file, line, column)) = p.location.take() else {
            if p.severity == Severity::Error {
                match p.linker.as_deref().filter(|l| is_missing_library(l)) {
                    Some(library) => {
                        self.report
                            .missing_library
                            .get_or_insert_with(|| library.to_owned());
                    }
                    None => self.report.other_unlocated = true,
                }
                let message = match p.linker {
                    Some(linker) => format!("{}: {linker}", p.message),
                    None => p.message,
                };
                self.unlocated_error(message);
            }
            // A warning without a location is cargo talking about itself (an unused manifest
            // key, a profile setting); it says nothing about the code.
            return;
        };
        if file.ends_with("Cargo.toml")
            || file.ends_with("Cargo.lock")
            || file.ends_with(".cargo/config.toml")
        {
            // Cargo's own errors point into the manifest: nothing was built.
            if p.severity == Severity::Error && self.report.manifest_error.is_none() {
                self.report.manifest_error = Some(format!("{file}:{line}: {}", p.message));
            }
        }
        if self.report.full() {
            // Beyond the cap a diagnostic is only counted; building it would cost the time.
            self.report.dropped += 1;
            return;
        }
        if p.code.is_none() && !self.lint_names.is_empty() {
            // rustc names a lint only at its first occurrence; later ones share its message.
            p.code = self.lint_names.get(&lint_key(&p.message)).cloned();
        }
        let kind = match p.code.as_deref() {
            Some(code) if !is_error_code(code) => Kind::Lint,
            _ => Kind::Build,
        };
        let root = match p.code.as_deref() {
            Some(code) => is_root_code(code),
            None => p.severity == Severity::Error && is_syntax_error(&p.message),
        };
        let mut d = Diagnostic::new(TOOL, kind, p.severity, clip(&p.message, MAX_MESSAGE)).at(
            file,
            Some(line),
            column,
        );
        if let Some(code) = p.code {
            d = d.with_code(code);
        }
        if let Some(detail) = p.label.or(p.help) {
            d = d.with_detail(clip(&detail, MAX_DETAIL));
        }
        if root {
            d = d.as_root_cause();
        }
        self.report.push(d);
    }

    /// What a line of a `Caused by:` chain adds to its error: a failed build script's output is
    /// read for its reason (its standard error without the backtrace), and the build script's
    /// long path is left out of cargo's `process didn't exit successfully: `…` (exit status: 101)`.
    fn caused_by_part(&mut self, line: &str) -> Option<String> {
        let trimmed = line.trim();
        if line.starts_with("   ")
            && trimmed.split(' ').next().is_some_and(|status| {
                matches!(
                    status,
                    "Compiling" | "Checking" | "Building" | "Finished" | "Fresh" | "Downloaded"
                )
            })
        {
            // cargo's status line (right-aligned, so indented by more than the chain's two
            // spaces): the chain has ended.
            self.caused_by = false;
            return None;
        }
        match trimmed {
            "--- stdout" => {
                self.script_output = ScriptOutput::Stdout;
                return None;
            }
            "--- stderr" => {
                self.script_output = ScriptOutput::Stderr;
                return None;
            }
            _ => {}
        }
        match self.script_output {
            ScriptOutput::Stdout | ScriptOutput::Backtrace => None,
            ScriptOutput::Stderr => {
                if trimmed == "stack backtrace:" {
                    self.script_output = ScriptOutput::Backtrace;
                    return None;
                }
                if trimmed.starts_with("note: ") {
                    return None;
                }
                if trimmed.starts_with("thread '")
                    && let Some(at) = PANICKED.find(trimmed.as_bytes())
                {
                    // `thread 'main' (12570) panicked at /…/build/main.rs:207:9:`
                    return Some(trimmed[at..].trim_end_matches(':').to_owned());
                }
                Some(trimmed.to_owned())
            }
            ScriptOutput::None => {
                if let Some(rest) = trimmed.strip_prefix("process didn't exit successfully: `")
                    && let Some((_, status)) = rest.rsplit_once("` (")
                {
                    return Some(format!("process didn't exit successfully ({status}"));
                }
                Some(trimmed.to_owned())
            }
        }
    }

    fn unlocated_error(&mut self, message: String) {
        if self.unlocated.len() < MAX_UNLOCATED {
            self.unlocated.push(clip(&message, MAX_MESSAGE));
        }
    }

    fn finish_block(&mut self) {
        let Some(mut block) = self.block.take() else {
            return;
        };
        if block.panic.location.is_none() && block.panic.lines.is_empty() {
            // With `--nocapture` the panic was printed as it happened, and the block holds only
            // libtest's note (`panic did not contain expected string`): the panic says where.
            self.finish_loose();
            if let Some((_, loose)) = self.loose.iter().find(|(name, _)| *name == block.name) {
                block.panic.location.clone_from(&loose.location);
                block.panic.lines.clone_from(&loose.lines);
            }
        }
        self.report_test(&block.name, &block.panic);
    }

    fn report_test(&mut self, name: &str, panic: &Panic) {
        if name.is_empty() || self.reported.contains(name) {
            return;
        }
        if self.report.full() {
            self.report.dropped += 1;
            if self.reported.len() < MAX_TESTS {
                self.reported.insert(name.to_owned());
            }
            return;
        }
        let mut d = panic.test_diagnostic(TOOL, name, "test failed");
        if let Some((file, line)) = doctest_location(name) {
            d = d.at(file, Some(line), None);
        }
        if self.reported.len() < MAX_TESTS {
            self.reported.insert(name.to_owned());
        }
        self.report.push(d);
    }

    fn test_failed(&mut self, name: &str) {
        if self.failing.len() < MAX_TESTS && self.failing_seen.insert(name.to_owned()) {
            self.failing.push(name.to_owned());
        }
    }

    /// A test named failing by a `test x ... FAILED` line or (when `listed`) by the failures
    /// list: it counts once its run's result is known (see [`Parser::finish_run`]).
    fn run_failed(&mut self, name: &str, listed: bool) {
        match self.run.as_mut() {
            Some(run) => {
                let names = if listed {
                    &mut run.listed
                } else {
                    &mut run.failing
                };
                if names.len() < MAX_TESTS && !names.iter().any(|n| n == name) {
                    names.push(name.to_owned());
                }
            }
            None => self.test_failed(name),
        }
    }

    /// Ends the current test binary's run: its result counts, and so do the failures it named
    /// when that result has some.
    fn finish_run(&mut self) {
        let Some(mut run) = self.run.take() else {
            return;
        };
        // The last result that adds up to the header is libtest's own: a line a test printed
        // around it cannot both come last and agree, unless it says the same.
        let result = run.agreeing.take().or(run.last.take());
        let failing = match &result {
            // A binary whose own summary has no failure failed no test, whatever leaked into the
            // log before it.
            Some(result) if result.failed == 0 => Vec::new(),
            // The list names every failure exactly; the `FAILED` lines only give the order.
            _ if !run.listed.is_empty() => {
                let listed = std::mem::take(&mut run.listed);
                let mut failing: Vec<String> = std::mem::take(&mut run.failing)
                    .into_iter()
                    .filter(|name| listed.contains(name))
                    .collect();
                for name in listed {
                    if !failing.contains(&name) {
                        failing.push(name);
                    }
                }
                failing
            }
            _ => std::mem::take(&mut run.failing),
        };
        // The run's named tests, but `FAILED` lines its summary does not stand behind (a test's
        // own output that looks like libtest's): its failures are the ones just decided.
        let failing_names: HashSet<&str> = failing.iter().map(String::as_str).collect();
        let mut named_failures: HashSet<String> = HashSet::new();
        for test in std::mem::take(&mut run.tests) {
            if test.status == TestStatus::Failed
                && (!failing_names.contains(test.name.as_str())
                    || !named_failures.insert(test.name.clone()))
            {
                continue;
            }
            self.keep_test(test);
        }
        for name in &failing {
            if !named_failures.contains(name) && !run.named_nothing() {
                // Named only by the list of failures (`--nocapture` ran output into its line).
                self.keep_test(TestCase {
                    name: name.clone(),
                    file: None,
                    status: TestStatus::Failed,
                    duration_ms: None,
                });
            }
        }
        for name in &failing {
            self.test_failed(name);
        }
        if result.is_none()
            && let Some(n) = run.header
        {
            let reported: u64 = run.reported.iter().sum();
            self.report.incomplete += 1;
            self.report.first_incomplete.get_or_insert((reported, n));
        }
        let Some(result) = result else {
            // No summary: what libtest reported test by test is all there is.
            let r = &mut self.report;
            add(&mut r.passed, run.reported[0]);
            add(&mut r.failed, run.reported[1]);
            add(&mut r.ignored, run.reported[2]);
            return;
        };
        let r = &mut self.report;
        add(&mut r.passed, result.passed);
        add(&mut r.failed, result.failed);
        add(&mut r.ignored, result.ignored);
        if result.filtered > 0 {
            add(&mut r.filtered, result.filtered);
        }
        if result.failed > 0 {
            r.first_failed_result
                .get_or_insert_with(|| result.line.clone());
        }
        r.last_result = Some(result.line);
    }

    /// Keeps a line that nothing else took: the output of a `harness = false` target, shown
    /// with its failure.
    fn output(&mut self, line: &str) {
        if is_status_line(line) {
            // cargo's own `   Compiling x`, never a target's.
            return;
        }
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        if self.output.len() == MAX_OUTPUT_LINES {
            self.output.pop_front();
        }
        self.output.push_back(clip(line, MAX_MESSAGE));
    }

    fn finish_loose(&mut self) {
        if let Some(loose) = self.loose_current.take()
            && self.loose.len() < 1000
        {
            self.loose.push(loose);
        }
    }

    /// A line of cargo's JSON message format.
    fn json_line(&mut self, line: &str) {
        if line.starts_with("{\"reason\":\"build-finished\"") {
            if line.contains("\"success\":false") {
                self.report.build_failed_json = true;
            }
            self.report.build_finished_json = true;
            return;
        }
        if !line.starts_with("{\"reason\":\"compiler-message\"") {
            return;
        }
        if self.report.full() {
            // Beyond the cap a message is only counted; reading its JSON would cost the time.
            let bytes = line.as_bytes();
            if LEVEL_ERROR.find(bytes).is_some() || LEVEL_WARNING.find(bytes).is_some() {
                self.report.dropped += 1;
            }
            return;
        }
        let Ok(json) = serde_json::from_str::<JsonLine>(line) else {
            if self.report.notes.len() < 5 {
                self.report.notes.push(
                    "a compiler message in JSON could not be read (cut at 64 KiB?)".to_owned(),
                );
            }
            return;
        };
        let Some(m) = json.message else {
            return;
        };
        let severity = match m.level.as_str() {
            "error" | "error: internal compiler error" => Severity::Error,
            "warning" => Severity::Warning,
            _ => return,
        };
        let code = m.code.map(|c| c.code);
        if m.message.starts_with("aborting due to") {
            if let Some(n) = due_to(&m.message) {
                add(&mut self.report.rustc_errors, n);
            }
            return;
        }
        let primary = m.spans.iter().find(|s| s.is_primary);
        let Some(span) = primary else {
            if severity == Severity::Warning
                && (m.message.ends_with("warnings emitted")
                    || m.message.ends_with("warning emitted"))
            {
                return;
            }
            if severity == Severity::Error {
                self.unlocated_error(m.message);
            }
            return;
        };
        // A span inside a macro of another crate (std's `assert_eq!`) is shown by rustc at the
        // macro's call in the user's code: follow the expansion back to it.
        let mut shown = span;
        let mut depth = 0;
        while is_foreign(&shown.file_name) && depth < 16 {
            match shown.expansion.as_deref() {
                Some(expansion) => shown = &expansion.span,
                None => break,
            }
            depth += 1;
        }
        let location = Some((
            shown.file_name.clone(),
            shown.line_start,
            Some(shown.column_start),
        ));
        let label = span.label.clone().filter(|l| !l.is_empty());
        let help = m
            .children
            .iter()
            .find(|c| !is_boilerplate(&c.message))
            .map(|c| c.message.clone());
        let code = code.or_else(|| {
            m.children
                .iter()
                .find_map(|c| lint_name(&c.message).map(str::to_owned))
        });
        self.finish_pending();
        self.pending = Some(Pending {
            severity,
            code,
            message: m.message,
            location,
            label,
            help,
            linker: None,
            lines: 1,
        });
        self.finish_pending();
    }

    /// A line of libtest's JSON format (`--format json`).
    /// Records a test a `test x ... ok` line named, in the current binary's run when there is one.
    fn push_test(&mut self, name: &str, status: TestStatus) {
        let test = TestCase {
            name: name.to_owned(),
            file: None,
            status,
            duration_ms: None,
        };
        let held = self.run.as_ref().map_or(0, |run| run.tests.len());
        if self.tests.len() + held >= verdict_model::model::MAX_TESTS {
            self.tests_dropped += 1;
        } else if let Some(run) = self.run.as_mut() {
            run.tests.push(test);
        } else {
            self.tests.push(test);
        }
    }

    /// Keeps a test for the report, bounded as [`Report::push_test`] bounds a report's.
    fn keep_test(&mut self, test: TestCase) {
        if self.tests.len() < verdict_model::model::MAX_TESTS {
            self.tests.push(test);
        } else {
            self.tests_dropped += 1;
        }
    }

    fn libtest_json_line(&mut self, line: &str) {
        let Ok(event) = serde_json::from_str::<TestEvent>(line) else {
            return;
        };
        match (event.kind.as_str(), event.event.as_str()) {
            ("test", "ok" | "ignored" | "failed") if event.name.is_some() => {
                let name = event.name.unwrap_or_default();
                let status = match event.event.as_str() {
                    "ok" => TestStatus::Passed,
                    "ignored" => TestStatus::Skipped,
                    _ => TestStatus::Failed,
                };
                self.keep_test(TestCase {
                    name: name.clone(),
                    file: None,
                    status,
                    duration_ms: None,
                });
                if status != TestStatus::Failed {
                    return;
                }
                self.test_failed(&name);
                let mut panic = Panic::default();
                for l in event.stdout.as_deref().unwrap_or("").lines() {
                    panic.line(l);
                }
                self.report_test(&name, &panic);
            }
            ("suite", "ok" | "failed") => {
                add(&mut self.report.passed, event.passed.unwrap_or(0));
                add(&mut self.report.failed, event.failed.unwrap_or(0));
                add(&mut self.report.ignored, event.ignored.unwrap_or(0));
                if let Some(n) = event.filtered_out.filter(|&n| n > 0) {
                    add(&mut self.report.filtered, n);
                }
            }
            _ => {}
        }
    }

    fn header(&mut self, line: &str) -> bool {
        let (severity, rest) = if let Some(rest) = line.strip_prefix("error") {
            (Severity::Error, rest)
        } else if let Some(rest) = line.strip_prefix("warning") {
            (Severity::Warning, rest)
        } else {
            return false;
        };
        let (code, message) = if let Some(rest) = rest.strip_prefix('[') {
            let Some((code, message)) = rest.split_once("]: ") else {
                return false;
            };
            (Some(code.to_owned()), message)
        } else if let Some(message) = rest.strip_prefix(": ") {
            (None, message)
        } else {
            return false;
        };
        self.finish_pending();
        self.caused_by = false;
        // Cargo's own lines that share the shape of a diagnostic.
        if severity == Severity::Error {
            // Cargo before 1.36 wrote `Could not compile `x`.`, and `build failed` at the end.
            if message == "build failed" {
                return true;
            }
            if message.starts_with("could not compile `")
                || message.starts_with("Could not compile `")
            {
                self.report.compile_failed = true;
                if let Some(n) = due_to(message) {
                    add(&mut self.report.errors, n);
                }
                if let Some(n) = message.split_once("; ").and_then(|(_, w)| emitted(w)) {
                    let target = message["could not compile ".len()..]
                        .split(" due to")
                        .next()
                        .unwrap_or("");
                    self.report.target_warned(target, n);
                }
                self.report
                    .compile_summary
                    .get_or_insert_with(|| line.to_owned());
                return true;
            }
            if message.starts_with("aborting due to") {
                if let Some(n) = due_to(message) {
                    add(&mut self.report.rustc_errors, n);
                }
                if let Some(n) = message.split_once("; ").and_then(|(_, w)| emitted(w)) {
                    add(&mut self.report.rustc_warnings, n);
                }
                return true;
            }
            if let Some(rest) = message
                .strip_prefix("test failed, to rerun pass `")
                .or_else(|| message.strip_prefix("doctest failed, to rerun pass `"))
            {
                self.report.test_failed_marker = true;
                if self.report.failed_targets.len() < MAX_TARGET_FAILURES {
                    // It follows what the binary it names printed, unless that binary was
                    // libtest's, whose output ended with its result.
                    let output = if std::mem::take(&mut self.libtest_ended) {
                        Vec::new()
                    } else {
                        std::mem::take(&mut self.output).into()
                    };
                    self.report.failed_targets.push(FailedTarget {
                        target: clip(rest.split('`').next().unwrap_or(""), MAX_MESSAGE),
                        status: None,
                        output,
                    });
                }
                return true;
            }
            if message.ends_with(" targets failed:") || message.ends_with(" target failed:") {
                self.report.test_failed_marker = true;
                return true;
            }
            if message.starts_with("internal compiler error") {
                self.report.ice.get_or_insert_with(|| message.to_owned());
                return true;
            }
        } else {
            if message.starts_with('`') && message.contains(" generated ") {
                if let Some(n) = generated(message) {
                    let target = message.split(" generated ").next().unwrap_or("");
                    self.report.target_warned(target, n);
                }
                self.report
                    .warning_summary
                    .get_or_insert_with(|| line.to_owned());
                return true;
            }
            if message.ends_with("warnings emitted") || message.ends_with("warning emitted") {
                if let Some(n) = emitted(message) {
                    add(&mut self.report.rustc_warnings, n);
                }
                return true;
            }
            if message.starts_with("build failed, waiting for other jobs") {
                return true;
            }
        }
        self.pending = Some(Pending {
            severity,
            code,
            message: message.to_owned(),
            location: None,
            label: None,
            help: None,
            linker: None,
            lines: 0,
        });
        true
    }

    /// A line inside a rustc diagnostic: the location, the code frame, notes.
    fn body(&mut self, line: &str) {
        let Some(p) = self.pending.as_mut() else {
            return;
        };
        p.lines += 1;
        let trimmed = line.trim_start();
        if p.location.is_none()
            && p.linker.is_none()
            && let Some(problem) = linker_problem(trimmed)
        {
            p.linker = Some(clip(problem, MAX_DETAIL));
        }
        if let Some(location) = trimmed.strip_prefix("--> ") {
            if p.lines == 1 {
                p.location =
                    split_location(location.trim_end()).map(|(f, l, c)| (f.to_owned(), l, c));
            }
            return;
        }
        if let Some(note) = trimmed
            .strip_prefix("= note: ")
            .or_else(|| trimmed.strip_prefix("= help: "))
        {
            if (p.code.is_none() || p.code.as_deref().is_some_and(|c| !is_error_code(c)))
                && let Some(name) = lint_name(note)
            {
                // The help link names a clippy lint exactly; a `#[warn(…)]` note may name
                // the lint group (`unused`) after the lint itself.
                if p.code.is_none() || note.contains("rust-clippy/") {
                    p.code = Some(if note.contains("rust-clippy/") && !name.contains("::") {
                        format!("clippy::{name}")
                    } else {
                        name.to_owned()
                    });
                }
            }
            if p.help.is_none() && !is_boilerplate(note) {
                p.help = Some(note.to_owned());
            }
            return;
        }
        if p.label.is_none() && trimmed.starts_with('|') {
            // The primary label follows the first run of carets: `|     ^^^ expected `u32``.
            if let Some(at) = trimmed.find('^') {
                let after = trimmed[at..].trim_start_matches('^');
                if let Some(label) = after.strip_prefix(' ')
                    && !label.is_empty()
                {
                    p.label = Some(label.trim().to_owned());
                }
            }
            return;
        }
        if p.help.is_none()
            && let Some(help) = trimmed.strip_prefix("help: ")
        {
            p.help = Some(help.to_owned());
        }
    }
}

/// What went wrong in a linker's message: `rust-lld: error: undefined symbol: foo` (lld, the
/// default on x86-64 Linux since Rust 1.90), `/x/src/lib.rs:2: undefined reference to `foo'` (GNU
/// ld), `cannot find -lfoo`, `unable to find library -lfoo` (lld).
fn linker_problem(line: &str) -> Option<&str> {
    // Built once: every line of a diagnostic before its location is looked at.
    static MARKERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 4]> =
        std::sync::LazyLock::new(|| {
            [
                "undefined symbol: ",
                "undefined reference to ",
                "cannot find -l",
                "unable to find library ",
            ]
            .map(memchr::memmem::Finder::new)
        });
    MARKERS
        .iter()
        .find_map(|marker| marker.find(line.as_bytes()))
        .map(|at| line[at..].trim_end())
}

/// Whether a linker's problem is a library missing from the machine (`cannot find -lfoo`,
/// `unable to find library -lfoo`) rather than a symbol missing from the code.
fn is_missing_library(problem: &str) -> bool {
    problem.starts_with("cannot find -l") || problem.starts_with("unable to find library ")
}

/// A diagnostic in `--message-format short`: `src/lib.rs:3:5: error[E0308]: mismatched types`,
/// `src/lib.rs:1:5: warning: unused import: `x``. The location comes first, then the header.
fn short_diagnostic(line: &str) -> Option<Pending> {
    let first = *line.as_bytes().first()?;
    if first.is_ascii_whitespace() || first == b'|' || first == b'=' {
        return None;
    }
    let bytes = line.as_bytes();
    let at = SHORT_ERROR
        .find(bytes)
        .into_iter()
        .chain(SHORT_WARNING.find(bytes))
        .min()?;
    let (file, line_no, column) = split_location(&line[..at])?;
    let column = column?;
    if file.contains(' ') && !file.contains(['/', '\\']) {
        return None;
    }
    let header = &line[at + 2..];
    let (severity, rest) = if let Some(rest) = header.strip_prefix("error") {
        (Severity::Error, rest)
    } else {
        (Severity::Warning, header.strip_prefix("warning")?)
    };
    let (code, message) = match rest.strip_prefix('[') {
        Some(rest) => {
            let (code, message) = rest.split_once("]: ")?;
            (Some(code.to_owned()), message)
        }
        None => (None, rest.strip_prefix(": ")?),
    };
    Some(Pending {
        severity,
        code,
        message: message.to_owned(),
        location: Some((file.to_owned(), line_no, Some(column))),
        label: None,
        help: None,
        linker: None,
        lines: 1,
    })
}

/// Notes that every lint carries and that say nothing about this occurrence.
fn is_boilerplate(note: &str) -> bool {
    note.starts_with("for further information visit")
        || note.contains("on by default")
        || note.contains("implied by `")
        || note.starts_with("to override `")
        || note.starts_with("the lint level is defined here")
        || note.starts_with("`#[")
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        if let Some(cut) = self.cut_summary.take() {
            if continues_cut(line) {
                let whole = format!("{cut}{line}");
                return self.line(&whole);
            }
            self.read_line(&cut);
        }
        if is_cut_summary(line) {
            self.cut_summary = Some(line.to_owned());
            return;
        }
        self.read_line(line);
    }

    fn finish(mut self: Box<Self>) -> Report {
        if let Some(cut) = self.cut_summary.take() {
            self.read_line(&cut);
        }
        self.finish_report()
    }
}

/// The longest summary line whose rest is looked for on the next line.
const MAX_CUT_SUMMARY: usize = 512;

/// Whether `line` is cargo's `could not compile` summary cut short by a terminal that wrapped
/// it: `error: could not compile `app` (lib) due to 106 previous` before `errors; 2 warnings
/// emitted`. Its count, or the warnings after it, would be read wrong or not at all.
fn is_cut_summary(line: &str) -> bool {
    if line.len() > MAX_CUT_SUMMARY {
        return false;
    }
    let Some(rest) = line
        .strip_prefix("error: could not compile `")
        .or_else(|| line.strip_prefix("error: Could not compile `"))
    else {
        return false;
    };
    // cargo's forms end in `previous error(s)`, `N warning(s) emitted`, or (cargo before
    // 1.36) the name and a period.
    let ended = rest.ends_with("previous error")
        || rest.ends_with("previous errors")
        || rest.ends_with(" emitted")
        || rest.ends_with("`.")
        || rest.ends_with("`");
    !ended
}

/// Whether `line` can be the rest of a cut summary: not blank and not a line of its own.
fn continues_cut(line: &str) -> bool {
    !line.trim().is_empty()
        && line.len() <= MAX_CUT_SUMMARY
        && !line.starts_with("error")
        && !line.starts_with("warning")
        && !line.starts_with("  ")
}

impl Parser {
    fn read_line(&mut self, line: &str) {
        if line.starts_with("  process didn't exit successfully: `")
            && let Some((command, status)) = line.rsplit_once("` (")
            && status.starts_with("signal")
            && command.contains("rustc --crate-name ")
        {
            // The compiler itself died (killed, out of memory): no verdict on the code.
            self.report
                .compiler_killed
                .get_or_insert_with(|| format!("rustc was stopped by a signal ({status}"));
        }
        let Some(&first) = line.as_bytes().first() else {
            // A blank line ends a rustc diagnostic; a panic message ends there too.
            self.finish_pending();
            if let Some(block) = self.block.as_mut() {
                block.panic.line(line);
            }
            return;
        };
        if let Some(block) = self.block.as_mut() {
            // A block is what the test printed; only the next block or libtest's list of the
            // failures (`failures:`, printed after the last block) ends it.
            if line == "failures:" {
                self.finish_block();
                self.in_failures_list = true;
                return;
            }
            if !line.starts_with("---- ") || block_name(line).is_none() {
                block.panic.line(line);
                return;
            }
        }
        match first {
            b'{' => {
                if line.starts_with("{\"reason\":") {
                    self.json_line(line);
                } else if line.starts_with("{ \"type\": ") || line.starts_with("{\"type\":") {
                    self.libtest_json_line(line);
                }
                return;
            }
            // Inside a failure block, `error: …` is the test's own output (or a doc-test's
            // compiler error), which belongs to the block.
            b'e' | b'w' if self.block.is_none() && self.header(line) => return,
            b'-' if line.starts_with("---- ") => {
                if let Some(name) = block_name(line) {
                    self.finish_pending();
                    self.finish_block();
                    self.finish_loose();
                    self.in_failures_list = false;
                    self.block = Some(Block {
                        name: name.to_owned(),
                        panic: Panic::default(),
                    });
                    return;
                }
            }
            b't' => {
                if let Some(rest) = line.strip_prefix("test result: ") {
                    self.in_failures_list = false;
                    self.output.clear();
                    let (result, ran) = TestResult::read(rest, line);
                    // Only a failing binary is named by cargo's `test failed` line next.
                    self.libtest_ended = result.failed > 0;
                    let run = self.run.get_or_insert_with(Run::default);
                    if run.header == Some(ran) {
                        run.agreeing = Some(result.clone());
                    }
                    run.last = Some(result);
                    return;
                }
                if let Some(rest) = line.strip_prefix("test ")
                    && let Some((name, status)) = rest.rsplit_once(" ... ")
                {
                    if status.starts_with("error: ") || status.starts_with("warning: ") {
                        // cargo's line on stderr glued to libtest's unfinished `test x ... ` on
                        // stdout (a log that merged the two streams mid-line, when the test
                        // binary crashed): cargo's line is what says what happened.
                        self.line(status);
                        return;
                    }
                    // libtest reports a test once it has finished: a panic printed before is
                    // complete (`--nocapture`).
                    self.finish_loose();
                    let name = name.strip_suffix(" - should panic").unwrap_or(name);
                    let slot = if status.starts_with("FAILED") {
                        self.run_failed(name, false);
                        Some((1, TestStatus::Failed))
                    } else if status.starts_with("ok") {
                        Some((0, TestStatus::Passed))
                    } else if status.starts_with("ignored") {
                        Some((2, TestStatus::Skipped))
                    } else {
                        None
                    };
                    if let Some((slot, status)) = slot {
                        self.push_test(name, status);
                        if let Some(run) = self.run.as_mut() {
                            run.reported[slot] += 1;
                        }
                    }
                    return;
                }
                if line.starts_with("thread '")
                    && line.contains("panicked at ")
                    && self.block.is_none()
                {
                    // A panic outside a failure block: `--nocapture`, or a test binary that
                    // panicked outside a test.
                    self.finish_loose();
                    let name = line["thread '".len()..]
                        .split_once('\'')
                        .map(|(n, _)| n.to_owned())
                        .unwrap_or_default();
                    let mut panic = Panic::default();
                    panic.line(line);
                    self.loose_current = Some((name, panic));
                    return;
                }
            }
            b'f' if line == "failures:" => {
                self.finish_block();
                self.in_failures_list = true;
                return;
            }
            b'C' if line == "Caused by:" => {
                self.finish_pending();
                self.caused_by = !self.unlocated.is_empty();
                self.script_output = ScriptOutput::None;
                return;
            }
            b'r' => {
                if let Some(n) = line
                    .strip_prefix("running ")
                    .and_then(|rest| rest.strip_suffix(" tests").or(rest.strip_suffix(" test")))
                    .and_then(|n| n.parse().ok())
                {
                    // The next binary's header (cargo's `Running` line is on the other stream).
                    if self
                        .run
                        .as_ref()
                        .is_some_and(|run| run.header.is_some() || run.last.is_some())
                    {
                        self.finish_run();
                    }
                    self.run.get_or_insert_with(Run::default).header = Some(n);
                    self.output.clear();
                    return;
                }
            }
            b' ' => {
                let trimmed = line.trim_start();
                if trimmed.starts_with("Running ") || trimmed.starts_with("Doc-tests ") {
                    // cargo starts the next test binary. What was printed before is kept: a
                    // capture that reads the two pipes can take the binary's first lines before
                    // this one. libtest's own lines, on the binary's pipe, bound the output.
                    self.libtest_ended = false;
                    return;
                }
                if let Some(rest) = trimmed.strip_prefix("process didn't exit successfully: `")
                    && let Some(target) = self.report.failed_targets.last_mut()
                    && target.status.is_none()
                {
                    // Under cargo's `Caused by:` for the target it just named.
                    target.status = rest
                        .rsplit_once("` (")
                        .map(|(_, status)| clip(status.trim_end_matches(')'), MAX_MESSAGE));
                    return;
                }
                if self.in_failures_list {
                    let name = line.trim();
                    if !name.is_empty() {
                        let name = name.to_owned();
                        self.run_failed(&name, true);
                    }
                    return;
                }
                if self.caused_by && self.pending.is_none() && self.block.is_none() {
                    // `Caused by:` chains of cargo's own errors are indented by two spaces.
                    if let Some(part) = self.caused_by_part(line)
                        && let Some(last) = self.unlocated.last_mut()
                        && last.len() < MAX_MESSAGE
                    {
                        last.push_str(": ");
                        last.push_str(&part);
                    }
                    return;
                }
            }
            _ => {}
        }
        if let Some(short) = short_diagnostic(line) {
            // `--message-format short`: one line per diagnostic, nothing follows it.
            self.finish_pending();
            self.pending = Some(short);
            self.finish_pending();
            return;
        }
        if let Some(rest) = line.strip_suffix(" --- FAILED") {
            // libtest's terse format (`-q`) names failures this way in recent versions.
            let rest = rest.trim().to_owned();
            self.finish_loose();
            self.run_failed(&rest, false);
            return;
        }
        if self.loose_current.is_some() && is_terse_progress(line) {
            // libtest's terse progress (`..`, ` 5/17`) between a loose panic's message and the
            // test's result: libtest has moved on, the message has ended.
            self.finish_loose();
            return;
        }
        if line.starts_with("    Finished ") {
            self.report.finished = Some(line.trim().to_owned());
            self.report.building = None;
        } else if line.starts_with("   Compiling ") || line.starts_with("    Checking ") {
            self.report.building = Some(line.trim().to_owned());
        }
        if self.pending.is_some() {
            self.body(line);
        } else if let Some(block) = self.block.as_mut() {
            block.panic.line(line);
        } else if let Some((_, panic)) = self.loose_current.as_mut() {
            panic.line(line);
            if !panic.reading {
                self.finish_loose();
            }
        } else {
            self.output(line);
        }
    }

    fn finish_report(mut self: Box<Self>) -> Report {
        self.finish_pending();
        self.finish_block();
        self.finish_loose();
        self.finish_run();
        let failed_targets = std::mem::take(&mut self.report.failed_targets);
        let mut ended = 0;
        for failure in failed_targets.iter().filter_map(FailedTarget::diagnostic) {
            // The target failed; a crash or an early exit hides which test, so it counts once.
            add(&mut self.report.failed, 1);
            ended += 1;
            self.report.push(failure);
        }
        // A libtest binary that ended before its summary is one of those cargo saw fail (the
        // two streams cannot be paired line by line, but they can be counted), or one that
        // exited 0 in the middle of its tests.
        let silent = self.report.incomplete.saturating_sub(ended);
        if silent > 0 {
            let (reported, n) = self.report.first_incomplete.unwrap_or((0, 0));
            let which = if silent == self.report.incomplete {
                format!("a test binary ended before its summary ({reported} of {n} tests reported)")
            } else {
                format!("{silent} test binaries ended before their summary")
            };
            self.report.incomplete_error = Some(format!(
                "{which} and cargo did not see it fail: a test may have called `process::exit`"
            ));
        }
        // Failing tests that printed no block: use a loose panic of the same name if there was
        // one, else say only that the test failed.
        let failing = std::mem::take(&mut self.failing);
        let loose = std::mem::take(&mut self.loose);
        for name in &failing {
            if !self.reported.contains(name) {
                let panic = loose
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, p)| p.clone())
                    .unwrap_or_default();
                self.report_test(name, &panic);
            }
        }

        let r = &mut self.report;
        let compiled_errors = r.compile_failed
            || r.diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error && d.kind != Kind::Test);
        // Errors without a location next to a failed compilation are the compiler's (a linker
        // error); alone, they are cargo's own and nothing was built.
        let mut error = None;
        if !self.unlocated.is_empty() {
            if r.compile_failed {
                for message in std::mem::take(&mut self.unlocated) {
                    r.push(Diagnostic::new(TOOL, Kind::Build, Severity::Error, message));
                }
            } else {
                error = self.unlocated.first().cloned();
            }
        }

        let mut report = Report::new(TOOL, Outcome::Passed);
        if r.build_finished_json {
            report.saw(Evidence::Checked);
        }
        report.tests = std::mem::take(&mut self.tests);
        report.tests_dropped = self.tests_dropped;
        report.counts.errors = r.errors.or(r.rustc_errors);
        report.counts.warnings = if r.target_warnings.is_empty() {
            r.rustc_warnings
        } else {
            Some(r.target_warnings.values().sum())
        };
        report.counts.tests_passed = r.passed;
        report.counts.tests_failed = r.failed;
        report.counts.tests_skipped = r.ignored;
        report.counts.tests_deselected = r.filtered;
        let tests_failed =
            r.failed.unwrap_or(0) > 0 || r.diagnostics.iter().any(|d| d.kind == Kind::Test);
        report.summary = r
            .compile_summary
            .clone()
            .or_else(|| r.first_failed_result.clone())
            .or_else(|| r.last_result.clone())
            .or_else(|| r.warning_summary.clone())
            .or_else(|| r.finished.clone());

        let manifest = r.manifest_error.clone();
        report.outcome = if let Some(ice) = r.ice.clone() {
            report.error = Some(ice);
            Outcome::Errored
        } else if let Some(manifest) = manifest.filter(|_| !r.compile_failed) {
            report.error = Some(manifest);
            Outcome::Errored
        } else if let Some(incomplete) = r.incomplete_error.clone() {
            // The rest of that binary's tests never ran: nothing says they pass, whatever else
            // failed.
            report.error = Some(incomplete);
            Outcome::Errored
        } else if let Some(library) = r.missing_library.clone().filter(|_| {
            !r.other_unlocated
                && r.failed.unwrap_or(0) == 0
                && !r
                    .diagnostics
                    .iter()
                    .any(|d| d.severity == Severity::Error && d.file.is_some())
        }) {
            // Nothing in the code failed: the machine lacks a library, and the tests never ran.
            report.error = Some(format!(
                "the linker could not find a system library ({library}): install it; the code \
                 was not verified"
            ));
            Outcome::Errored
        } else if let Some(killed) = r.compiler_killed.clone().filter(|_| {
            !r.diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error && d.kind != Kind::Test)
        }) {
            report.error = Some(killed);
            Outcome::Errored
        } else if compiled_errors || tests_failed || r.errors.unwrap_or(0) > 0 {
            Outcome::Failed
        } else if let Some(error) = error {
            report.error = Some(error);
            Outcome::Errored
        } else if r.test_failed_marker || r.build_failed_json {
            report.error = Some(match failed_targets.first() {
                // Only cargo's standard error was kept: libtest's report went elsewhere.
                Some(target) => format!(
                    "cargo says the tests of `{}` failed, but the log holds no test output \
                     (standard output not captured?)",
                    target.target
                ),
                None => "cargo reported a failure, but the log shows no error or failing test"
                    .to_owned(),
            });
            Outcome::Errored
        } else if let Some(building) = r.building.clone() {
            // cargo ends every build it finishes with `Finished`: this one was cut off (killed,
            // out of memory) while it was still compiling.
            report.error = Some(format!(
                "the log ends while cargo was still building (`{building}`), before its \
                 `Finished` line"
            ));
            Outcome::Errored
        } else {
            Outcome::Passed
        };
        report.diagnostics = std::mem::take(&mut r.diagnostics);
        report.diagnostics_dropped = r.dropped;
        for note in std::mem::take(&mut r.notes) {
            report.note(note);
        }
        report
    }
}

/// One line of `--message-format=json`; only what is read.
#[derive(Deserialize)]
struct JsonLine {
    message: Option<JsonMessage>,
}

#[derive(Deserialize)]
struct JsonMessage {
    level: String,
    message: String,
    code: Option<JsonCode>,
    #[serde(default)]
    spans: Vec<JsonSpan>,
    #[serde(default)]
    children: Vec<JsonChild>,
}

#[derive(Deserialize)]
struct JsonCode {
    code: String,
}

#[derive(Deserialize)]
struct JsonSpan {
    file_name: String,
    line_start: u32,
    column_start: u32,
    #[serde(default)]
    is_primary: bool,
    label: Option<String>,
    expansion: Option<Box<JsonExpansion>>,
}

#[derive(Deserialize)]
struct JsonExpansion {
    span: JsonSpan,
}

/// Whether a span's file is outside the package: the standard library's sources, another crate's.
fn is_foreign(file: &str) -> bool {
    file.starts_with('/') || file.starts_with('<') || file.contains(".cargo/registry/")
}

#[derive(Deserialize)]
struct JsonChild {
    message: String,
}

/// One event of libtest's JSON format; only what is read.
#[derive(Deserialize)]
struct TestEvent {
    #[serde(rename = "type")]
    kind: String,
    event: String,
    name: Option<String>,
    stdout: Option<String>,
    passed: Option<u64>,
    failed: Option<u64>,
    ignored: Option<u64>,
    filtered_out: Option<u64>,
}

/// Whether `line` is one of cargo's status lines: a capitalised verb right-aligned to twelve
/// columns (`    Finished `, `   Doc-tests `), then the rest.
fn is_status_line(line: &str) -> bool {
    let bytes = line.as_bytes();
    if bytes.len() < 14 || bytes[12] != b' ' || bytes[0] != b' ' {
        return false;
    }
    let verb = line[..12].trim_start();
    verb.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
        && verb.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        CargoSummarizer.parse(log.as_bytes())
    }

    #[test]
    fn rustc_error_with_code_location_and_label() {
        let report = parse(
            "error[E0308]: mismatched types\n --> src/lib.rs:21:5\n   |\n20 | pub fn version() -> u32 {\n   |                     --- expected `u32` because of return type\n21 |     \"1.0\"\n   |     ^^^^^ expected `u32`, found `&str`\n\nerror: could not compile `broken` (lib) due to 1 previous error\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.errors, Some(1));
        let d = &report.diagnostics[0];
        assert_eq!(d.code.as_deref(), Some("E0308"));
        assert_eq!(d.location().as_deref(), Some("src/lib.rs:21:5"));
        assert_eq!(d.detail.as_deref(), Some("expected `u32`, found `&str`"));
    }

    #[test]
    fn clippy_lint_takes_its_name_from_the_help_link() {
        let report = parse(
            "warning: the loop variable `i` is only used to index `values`\n --> src/lib.rs:7:14\n  |\n7 |     for i in 0..values.len() {\n  |              ^^^^^^^^^^^^^^^\n  |\n  = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#needless_range_loop\n  = note: `#[warn(clippy::needless_range_loop)]` on by default\n\nwarning: `clippy` (lib) generated 1 warning\n",
        );
        assert_eq!(report.outcome, Outcome::Passed);
        assert_eq!(report.counts.warnings, Some(1));
        assert_eq!(
            report.diagnostics[0].code.as_deref(),
            Some("clippy::needless_range_loop")
        );
        assert_eq!(report.diagnostics[0].kind, Kind::Lint);
    }

    #[test]
    fn old_style_panic_and_old_compile_summary() {
        let report = parse(
            "running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\nthread 't' panicked at 'assertion failed: `(left == right)`\n  left: `1`,\n right: `2`', src/lib.rs:5:9\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("t"));
        assert_eq!(d.location().as_deref(), Some("src/lib.rs:5:9"));
        assert_eq!(d.message, "assertion failed: `(left == right)`");
        assert_eq!(d.detail.as_deref(), Some("left: `1`, right: `2`"));
        assert_eq!(
            due_to("error: could not compile `x` due to previous error"),
            Some(1)
        );
    }

    #[test]
    fn cargo_errors_without_a_build_are_errored() {
        let report = parse(
            "error: failed to load manifest for dependency `shop-utils`\n\nCaused by:\n  failed to read `/x/Cargo.toml`\n\nCaused by:\n  No such file or directory (os error 2)\n",
        );
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(
            report.error.as_deref(),
            Some(
                "failed to load manifest for dependency `shop-utils`: failed to read `/x/Cargo.toml`: No such file or directory (os error 2)"
            )
        );
    }

    #[test]
    fn warnings_less_duplicates() {
        assert_eq!(
            generated("`a` (lib test) generated 1 warning (1 duplicate)"),
            Some(0)
        );
        assert_eq!(
            generated(
                "`a` (lib) generated 8 warnings (run `cargo fix --lib -p a` to apply 5 suggestions)"
            ),
            Some(8)
        );
    }

    #[test]
    fn diagnostics_beyond_the_cap_are_counted() {
        let n = verdict_model::model::MAX_DIAGNOSTICS + 5;
        let log: String = (0..n)
            .map(|i| format!("error[E0308]: mismatched types\n --> src/a.rs:{i}:1\n\n"))
            .collect();
        let report = parse(&log);
        assert_eq!(report.diagnostics_found(), n as u64);
    }

    /// A log that merged stdout and stderr mid-line: cargo's `error: test failed` after libtest's
    /// unfinished `test tests::fine ... ` of a binary that then crashed. The crash was lost, and
    /// the run errored as a binary that ended before its summary.
    #[test]
    fn cargo_error_glued_to_an_unfinished_test_line_is_read() {
        let report = parse(
            "     Running unittests src/lib.rs (target/debug/deps/segv-1)\n\nrunning 2 tests\ntest tests::fine ... error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `target/debug/deps/segv-1` (signal: 11, SIGSEGV: invalid memory reference)\n   Doc-tests segv\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: 1 target failed:\n    `--lib`\n",
        );
        assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
        assert!(
            report.diagnostics[0].message.contains("SIGSEGV"),
            "{report:#?}"
        );
    }

    #[test]
    fn garbage_does_not_panic() {
        for log in [
            "error",
            "error[",
            "error[E0308]",
            "thread '",
            "thread 'x' panicked at ",
            "---- x stdout ----\n",
            "test result: ",
            "{\"reason\":\"compiler-message\"",
            "error: x\n  \n",
            "--> :",
        ] {
            let _ = parse(log);
        }
    }

    /// A terminal 80 columns wide cuts cargo's summary inside its count; copied from there, the
    /// log holds it on two lines. The count is read whole, and the warnings after it too.
    #[test]
    fn a_summary_cut_at_the_terminals_width_is_read_whole() {
        let summary = "error: could not compile `verdict-core` (lib) due to 106 previous errors; 2 warnings emitted";
        let (cut, rest) = summary.split_at(80);
        let report = parse(&format!(
            "src\\main.rs:12:9: error[E0308]: mismatched types\n{cut}\n{rest}\n"
        ));
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.errors, Some(106));
        assert_eq!(report.counts.warnings, Some(2));
        // Cut inside the count (a narrower terminal, or a longer package name).
        let (cut, rest) = summary.split_at(summary.find("6 previous").unwrap_or(0));
        let report = parse(&format!("{cut}\n{rest}\n\n"));
        assert_eq!(report.counts.errors, Some(106));
        // A summary that ends where its line does is read as it is.
        let report = parse(
            "error: could not compile `x` (lib) due to 3 previous errors\nerror: could not compile `y` (lib) due to 1 previous error\n",
        );
        assert_eq!(report.counts.errors, Some(4));
    }

    #[test]
    fn short_message_format_places_each_diagnostic() {
        let report = parse(
            "    Checking app v0.1.0 (/w/app)\nsrc/lib.rs:1:5: warning: unused import: `std::fmt`\nsrc\\main.rs:12:9: error[E0308]: mismatched types\nerror: could not compile `app` (lib) due to 1 previous error; 1 warning emitted\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.errors, Some(1));
        let places: Vec<_> = report.diagnostics.iter().map(|d| d.location()).collect();
        assert_eq!(
            places,
            [
                Some("src/lib.rs:1:5".to_owned()),
                Some("src\\main.rs:12:9".to_owned())
            ]
        );
        assert_eq!(report.diagnostics[1].code.as_deref(), Some("E0308"));
        assert!(short_diagnostic("note: see issue 12:5: error").is_none());
        assert!(short_diagnostic("   --> src/lib.rs:1:5: error: x").is_none());
    }

    /// Cargo before 1.36 capitalised its summary and ended with `error: build failed`.
    #[test]
    fn old_cargo_summaries_are_cargo_s_own() {
        let report = parse(
            "error[E0308]: mismatched types\n --> src/lib.rs:1:1\n\nerror: aborting due to previous error\n\nerror: Could not compile `x`.\n\nTo learn more, run the command again with --verbose.\nerror: build failed\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.errors, Some(1));
        assert_eq!(report.diagnostics.len(), 1, "{report:#?}");
    }

    /// libtest of 2016 indented the panic by a tab: the failure had no place.
    #[test]
    fn a_tab_indented_old_panic_is_placed() {
        let report = parse(
            "running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\n\tthread 't' panicked at 'boom', tests/a.rs:9\n\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured\n\nerror: test failed\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(
            report.diagnostics[0].location().as_deref(),
            Some("tests/a.rs:9")
        );
        assert_eq!(report.diagnostics[0].message, "boom");
    }

    /// A library missing from the machine made the build fail, not the code.
    #[test]
    fn a_missing_system_library_is_not_a_code_failure() {
        let report = parse(
            "error: linking with `cc` failed: exit status: 1\n  |\n  = note: rust-lld: error: unable to find library -lXrandr\n\n\nerror: could not compile `x` (lib test) due to 1 previous error\n",
        );
        assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
        assert!(report.error.is_some_and(|e| e.contains("-lXrandr")));
        let report = parse(
            "error: linking with `cc` failed: exit status: 1\n  |\n  = note: rust-lld: error: undefined symbol: foo\n\n\nerror: could not compile `x` (bin \"x\") due to 1 previous error\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
    }

    /// A build cut off while compiling (cargo killed, out of memory) was a pass: no error, no
    /// failing test.
    #[test]
    fn a_build_cut_off_while_compiling_is_not_a_pass() {
        let report = parse("   Compiling libc v0.2.150\n   Compiling app v0.1.0 (/work/app)\n");
        assert_eq!(report.outcome, Outcome::Errored);
        assert!(report.error.is_some_and(|e| e.contains("Compiling app")));
        let report = parse(
            "   Compiling app v0.1.0 (/work/app)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.50s\n",
        );
        assert_eq!(report.outcome, Outcome::Passed);
    }
}
