//! The `nextest` summarizer: `cargo nextest run`, the test runner many Rust projects use in CI
//! instead of `cargo test`.
//!
//! What its log holds, and how each part is read:
//! - the build of the test binaries first: cargo's and rustc's lines, read by the cargo
//!   summarizer; when the build fails nextest adds `error: command `… cargo test --no-run …`
//!   exited with code 101`, which says nothing more and is left out;
//! - `Starting 10 tests across 2 binaries (1 test skipped)`, then one status line per test as it
//!   ends: `FAIL [   0.510s] ( 2/10) nxdemo tests::adds_wrong` — the status (`PASS`, `FAIL`,
//!   `SIGSEGV` and the other signals, `ABORT`, `TIMEOUT`, `LEAK`, `LEAK-FAIL`, `TRY 2 FAIL` for an
//!   attempt of a retried test, `FLAKY 2/3`), the time, a counter (absent before nextest 0.9.8x),
//!   the binary id (`nxdemo`, `nxdemo::integration`, `nxdemo::bin/nxdemo`) and the test name;
//!   `SKIP` (with `--status-level skip`) names a test not run, and `SLOW`, `TERMINATING` and
//!   `START` say nothing about the result;
//! - after a failing status line, the test's captured output: since nextest 0.9.95 `  stdout ───`
//!   and `  stderr ───` with the output indented by four spaces (`── stdout ──` unindented with
//!   `--no-output-indent`), before it `──── STDOUT:             nxdemo tests::x` (and `--- STDOUT: … ---` before that). The panic in
//!   it (`thread 'x' panicked at src/lib.rs:10:23:` and its message) says why the test failed,
//!   read as the cargo summarizer reads libtest's failure blocks; libtest's own lines in it
//!   (`test result: FAILED. 0 passed; 1 failed; …`) describe a run of that one test and are not
//!   counted;
//! - `Summary [   2.973s] 10 tests run: 2 passed, 7 failed, 1 timed out, 1 skipped` (`3/12 tests
//!   run` when a failure cancelled the rest): the counts; then the failing (and flaky) tests'
//!   status lines again, and with `--failure-output final` their output only there;
//! - nextest's own errors: `error: no tests to run`, a setup script that failed, a config it
//!   cannot read. A run without its summary, or that ran no test, verified nothing.

use std::collections::HashMap;

use verdict_model::{
    Diagnostic, Kind, LineParser, Outcome, Report, Summarizer, TestCase, TestStatus,
};

use crate::cargo::{CargoSummarizer, Panic};
use crate::text::{clip, count_of};

const TOOL: &str = "nextest";

/// How many distinct tests are remembered (their last status and what their output said).
const MAX_TESTS: usize = 10_000;
/// The longest message kept.
const MAX_MESSAGE: usize = 300;

/// Parses `cargo nextest run` output.
#[derive(Debug, Default, Clone, Copy)]
pub struct NextestSummarizer;

impl Summarizer for NextestSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        // A nextest log also holds cargo's build and libtest's lines (in each failing test's
        // output), which the cargo summarizer claims at 95: nextest's own lines must win.
        let starting = sample.contains("    Starting ") && sample.contains(" across ");
        let summary = sample.contains("     Summary [")
            && (sample.contains(" tests run: ") || sample.contains(" test run: "));
        if sample.contains(" Nextest run ID ") || (starting && sample.contains(" binar")) || summary
        {
            return 98;
        }
        // A build that failed: nextest names the command it built the tests with.
        if sample.contains("error: command `") && sample.contains(" test --no-run ") {
            return 97;
        }
        if sample.contains("error: no tests to run") && sample.contains("nextest") {
            return 90;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser {
            build: Some(CargoSummarizer.parser()),
            ..Parser::default()
        })
    }
}

/// What a status line says of a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Passed,
    /// Passed on a later try (`TRY 2 PASS`, `FLAKY 2/3`).
    Flaky,
    Failed,
    /// Killed by a signal (`SIGSEGV`, `SIGABRT`) or aborted (`ABORT`, on Windows).
    Crashed,
    TimedOut,
    /// Passed, but a process it started kept its output open, and the profile fails such tests.
    LeakFailed,
    /// Not run (`SKIP`, printed with `--status-level skip`): ignored or filtered out.
    Skipped,
    /// `SLOW`, `TERMINATING`, `START`, `RETRY`: not a result.
    Progress,
}

impl Status {
    fn failed(self) -> bool {
        matches!(
            self,
            Status::Failed | Status::Crashed | Status::TimedOut | Status::LeakFailed
        )
    }
}

/// A status line: `FAIL [   0.510s] ( 2/10) nxdemo tests::adds_wrong`.
struct StatusLine<'a> {
    /// The status word as printed (`SIGABRT`, `TRY 2 FAIL`).
    word: &'a str,
    status: Status,
    /// What is between the brackets, trimmed (`0.510s`, `>  1.000s`).
    time: &'a str,
    binary: &'a str,
    test: &'a str,
    /// A try that another will follow: its counter is not a number yet (`(───)`).
    retrying: bool,
}

/// Reads a status line, or `None` when `line` is not one.
fn status_line(line: &str) -> Option<StatusLine<'_>> {
    let trimmed = line.trim_start();
    let (word, rest) = trimmed.split_once(" [")?;
    let word = word.trim_end();
    // Status words are upper case, with digits, `/`, `-` and `+` (`TRY 2 FAIL`, `FLAKY 2/3`,
    // `LEAK-FAIL`, `FAIL + LEAK`, `FL+LK`); anything else (`Summary`, a test's output) is not a
    // status line.
    if word.is_empty()
        || !word.starts_with(|c: char| c.is_ascii_uppercase())
        || !word
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b" /-+".contains(&b))
    {
        return None;
    }
    let (time, rest) = rest.split_once("] ")?;
    let rest = rest.trim_start();
    // The counter: `( 2/10)` or `(─────)` for a test that has not finished.
    let (rest, retrying) = match rest.strip_prefix('(') {
        Some(counter) => {
            let (counter, rest) = counter.split_once(") ")?;
            let retrying = word.starts_with("TRY ") && counter.starts_with(['─', '-']);
            (rest.trim_start(), retrying)
        }
        None => (rest, false),
    };
    let (binary, test) = rest.split_once(' ')?;
    let test = test.trim();
    if binary.is_empty() || test.is_empty() {
        return None;
    }
    let status = if let Some(attempt) = word.strip_prefix("TRY ") {
        // `TRY 2 PASS` after a failed try: flaky. `TRY 1 FAIL`: this try failed; the next
        // status line of the test says whether a later one passed. A try's status is nextest's
        // short one (`FL+LK`, `LKFAIL`, `TMT`, `SEGV`, `SIG 9`).
        let (_, short) = attempt.split_once(' ')?;
        match short {
            "PASS" | "LEAK" | "TMPASS" => Status::Flaky,
            other => result_of(other).or_else(|| short_signal(other))?,
        }
    } else if word.starts_with("FLAKY") {
        Status::Flaky
    } else if word.starts_with("FLKY-FL") {
        // A flaky test the profile counts as failed (`flaky-result = "fail"`).
        Status::Failed
    } else if word.starts_with("RETRY") {
        Status::Progress
    } else {
        result_of(word)?
    };
    Some(StatusLine {
        word,
        status,
        time: time.trim(),
        binary,
        test,
        retrying,
    })
}

/// The result a status stands for, in its long form (`FAIL + LEAK`, `ABORT SIG 9`) or its
/// short one (`FL+LK`, `LKFAIL`, `TMT`), as nextest prints them.
fn result_of(word: &str) -> Option<Status> {
    Some(match word {
        "PASS" | "LEAK" | "TIMEOUT-PASS" | "TMPASS" => Status::Passed,
        // A failure whose process also leaked handles is a failure first.
        "FAIL" | "FAIL + LEAK" | "FL+LK" => Status::Failed,
        // The test binary could not be started.
        "XFAIL" => Status::Failed,
        "TIMEOUT" | "TMT" => Status::TimedOut,
        "LEAK-FAIL" | "LKFAIL" => Status::LeakFailed,
        "ABORT" => Status::Crashed,
        "SKIP" => Status::Skipped,
        "SLOW" | "SLOW + LEAK" | "TERMINATING" | "START" | "CANCEL" => Status::Progress,
        signal if signal.starts_with("SIG") && signal.len() > 3 => Status::Crashed,
        // A signal without a name: `ABORT SIG 64`, `SIG 64` in a try's short form.
        numbered
            if numbered
                .strip_prefix("ABORT SIG ")
                .or_else(|| numbered.strip_prefix("SIG "))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            Status::Crashed
        }
        _ => return None,
    })
}

/// A signal's name as a try's short status gives it, without `SIG` (`TRY 2 SEGV`).
fn short_signal(word: &str) -> Option<Status> {
    const SIGNALS: &[&str] = &[
        "ABRT", "BUS", "FPE", "HUP", "ILL", "INT", "KILL", "PIPE", "QUIT", "SEGV", "SYS", "TERM",
        "TRAP", "USR1", "USR2", "XCPU", "XFSZ",
    ];
    SIGNALS.contains(&word).then_some(Status::Crashed)
}

/// A status line's time (`0.510s`, `>  1.000s`) in milliseconds.
fn seconds_to_ms(time: &str) -> Option<u64> {
    let seconds: f64 = time
        .trim_start_matches('>')
        .trim()
        .strip_suffix('s')?
        .parse()
        .ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

/// The header of a test's captured output, in the format since nextest 0.9.95 (`stdout ───`,
/// `── stdout ──` with `--no-output-indent`) or the ones before (`──── STDOUT:  bin test`,
/// `--- STDOUT:  bin test ---`, `--- TRY 2 STDERR: bin test ---`). With the test it names, when
/// it names one.
fn section_header(line: &str) -> Option<Option<&str>> {
    let trimmed = line.trim();
    let bare = trimmed.trim_matches(|c: char| c == '─' || c == ' ');
    if bare.len() < trimmed.len() && matches!(bare, "stdout" | "stderr" | "output") {
        return Some(None);
    }
    // `──── STDOUT:  bin test` (0.9.8x to 0.9.94), `--- STDOUT:  bin test ---` (before).
    let inner = match trimmed.strip_prefix("──── ") {
        Some(inner) => inner,
        None => trimmed.strip_prefix("--- ")?.strip_suffix(" ---")?,
    };
    let inner = match inner.strip_prefix("TRY ") {
        Some(rest) => rest.split_once(' ')?.1,
        None => inner,
    };
    let (kind, rest) = inner.split_once(':')?;
    if !matches!(kind, "STDOUT" | "STDERR" | "OUTPUT") {
        return None;
    }
    Some(rest.trim().split_once(' ').map(|(_, test)| test.trim()))
}

/// What is known of one test.
struct Test {
    binary: String,
    name: String,
    status: Status,
    /// The status word and time of its last result (`SIGABRT`, `2.003s`).
    word: String,
    time: String,
    /// What its output said, for a failing test: read from the output of its last failing try.
    panic: Panic,
    /// A line nextest wrote into the output itself: `(test aborted with signal 6: SIGABRT)`.
    note: Option<String>,
    /// Its last result was a failed try that another was to follow.
    retrying: bool,
}

/// The counts of the summary line.
#[derive(Default)]
struct Summary {
    line: String,
    passed: u64,
    failed: u64,
    skipped: u64,
    /// `3/12 tests run` after a failure cancelled the rest: 9 not run.
    not_run: u64,
}

#[derive(Default)]
struct Parser {
    /// The cargo summarizer, fed the build before nextest starts the tests.
    build: Option<Box<dyn LineParser>>,
    started: bool,
    summary: Option<Summary>,
    tests: Vec<Test>,
    index: HashMap<(String, String), usize>,
    /// The test whose output is being read, and whether it is (the output of a passing try is
    /// read past).
    section: Option<usize>,
    in_section: bool,
    /// The test of the last status line: an output header of the current format names none.
    last_test: Option<usize>,
    /// Whether the output lines are indented (nextest 0.9.95's default): by how much.
    indent: Option<usize>,
    /// nextest could not build the test binaries (`cargo test --no-run` failed).
    build_failed: bool,
    no_tests: bool,
    /// nextest's own errors, other than the run's failure it states at the end.
    errors: Vec<String>,
    /// Tests not remembered once [`MAX_TESTS`] are.
    dropped: u64,
}

impl Parser {
    fn status(&mut self, status: StatusLine<'_>) {
        self.in_section = false;
        self.section = None;
        let key = (status.binary.to_owned(), status.test.to_owned());
        let index = match self.index.get(&key) {
            Some(&index) => index,
            None if self.tests.len() < MAX_TESTS => {
                self.tests.push(Test {
                    binary: key.0.clone(),
                    name: key.1.clone(),
                    status: Status::Progress,
                    word: String::new(),
                    time: String::new(),
                    panic: Panic::default(),
                    note: None,
                    retrying: false,
                });
                self.index.insert(key, self.tests.len() - 1);
                self.tests.len() - 1
            }
            None => {
                self.dropped += 1;
                self.last_test = None;
                return;
            }
        };
        self.last_test = Some(index);
        if status.status == Status::Progress {
            return;
        }
        let test = &mut self.tests[index];
        let was_final = self.summary.is_some() && test.status != Status::Progress;
        if !was_final {
            // The summary lists results already seen (`FLAKY 2/2` for `TRY 2 PASS`): the
            // result is the one from the run, but a test seen only there counts.
            test.status = status.status;
            test.word = status.word.to_owned();
            test.time = status.time.to_owned();
            test.retrying = status.retrying;
        }
        if status.status.failed() && !was_final {
            // A new failing try: what its output says replaces what an earlier try's said.
            test.panic = Panic::default();
            test.note = None;
        }
    }

    /// A line of a test's captured output.
    fn output(&mut self, line: &str) {
        let Some(index) = self.section else {
            return;
        };
        if self.indent.is_none() && !line.trim().is_empty() {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            self.indent = Some(if spaces >= 4 { 4 } else { 0 });
        }
        let indent = self.indent.unwrap_or(0);
        let line = if line.len() >= indent && line.as_bytes()[..indent].iter().all(|&b| b == b' ') {
            &line[indent..]
        } else {
            line.trim_start()
        };
        let test = &mut self.tests[index];
        let trimmed = line.trim();
        if let Some(note) = trimmed
            .strip_prefix("(test ")
            .and_then(|rest| rest.strip_suffix(')'))
        {
            // nextest's own word on how the process ended: `(test aborted with signal 6:
            // SIGABRT)`, `(test timed out)`.
            test.note = Some(format!("test {note}"));
            return;
        }
        test.panic.line(line);
    }

    /// Whether `line` is nextest's own, after a test's output: indented output ends at the first
    /// line that is not, and unindented output at nextest's closing lines.
    fn ends_section(&self, line: &str) -> bool {
        if line.is_empty() {
            return false;
        }
        if self.indent == Some(4) && !line.starts_with("    ") {
            return true;
        }
        line.starts_with("error: test run failed")
            || (line.starts_with("warning: ") && line.contains(" tests were not run"))
            || line.trim_start().starts_with("Cancelling due to ")
    }

    fn summary_line(&mut self, rest: &str) {
        let Some((_, counts)) = rest.split_once("] ") else {
            return;
        };
        let run = counts
            .split_once(" tests run:")
            .or(counts.split_once(" test run:"));
        let not_run = run
            .and_then(|(ran, _)| ran.split_once('/'))
            .and_then(|(ran, total)| {
                total
                    .parse::<u64>()
                    .ok()?
                    .checked_sub(ran.parse::<u64>().ok()?)
            })
            .unwrap_or(0);
        let failed = count_of(counts, "failed")
            .unwrap_or(0)
            .saturating_add(count_of(counts, "timed out").unwrap_or(0))
            .saturating_add(count_of(counts, "exec failed").unwrap_or(0));
        self.summary = Some(Summary {
            line: clip(counts.trim(), MAX_MESSAGE),
            passed: count_of(counts, "passed").unwrap_or(0),
            failed,
            skipped: count_of(counts, "skipped").unwrap_or(0),
            not_run,
        });
    }

    fn diagnostic(test: &Test) -> Diagnostic {
        let fallback = match test.status {
            Status::TimedOut => format!(
                "test timed out after {}",
                test.time.trim_start_matches('>').trim()
            ),
            Status::Crashed => test
                .note
                .clone()
                .unwrap_or_else(|| format!("test crashed ({})", test.word)),
            Status::LeakFailed => {
                "test leaked: a process it started kept its output open after it ended".to_owned()
            }
            _ => test.note.clone().unwrap_or_else(|| {
                if test.word.contains("LEAK") || test.word.contains("LK") {
                    // `FAIL + LEAK`, `FL+LK`.
                    "test failed, and a process it started kept its output open".to_owned()
                } else if test.word.ends_with("XFAIL") {
                    "the test binary could not be started".to_owned()
                } else {
                    "test failed".to_owned()
                }
            }),
        };
        let mut d = test.panic.test_diagnostic(TOOL, &test.name, &fallback);
        if test.retrying {
            // The run was cancelled before the next try: nextest counts the test as not run.
            let cancelled = "a try failed, and the log has no later one: the run stopped first";
            d.detail = Some(match d.detail.take() {
                Some(detail) => clip(&format!("{cancelled}; {detail}"), MAX_MESSAGE),
                None => cancelled.to_owned(),
            });
        }
        if matches!(test.status, Status::TimedOut | Status::Crashed) && !test.panic.is_empty() {
            // The panic's message says what happened before; how the test ended comes first.
            let detail = d.detail.take();
            let said = std::mem::replace(&mut d.message, clip(&fallback, MAX_MESSAGE));
            d.detail = Some(clip(
                &match detail {
                    Some(detail) => format!("{said}, {detail}"),
                    None => said,
                },
                MAX_MESSAGE,
            ));
        }
        d
    }
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        if !self.started {
            if line.trim_start().starts_with("Starting ") && line.contains(" across ") {
                self.started = true;
                return;
            }
            if line.starts_with("error: command `") && line.contains(" --no-run") {
                // The build failed; cargo's lines before said why.
                self.build_failed = true;
                return;
            }
            if line.starts_with("error: no tests to run") {
                self.no_tests = true;
                return;
            }
            if let Some(rest) = line.trim_start().strip_prefix("Summary [") {
                // A run whose tests were all filtered out starts none.
                self.summary_line(rest);
                self.started = true;
                return;
            }
            if let Some(build) = self.build.as_mut() {
                build.line(line);
            }
            return;
        }
        if let Some(status) = status_line(line) {
            self.status(status);
            return;
        }
        if let Some(named) = section_header(line) {
            let index = match named {
                Some(test) => self
                    .tests
                    .iter()
                    .rposition(|t| t.name == test)
                    .or(self.last_test),
                None => self.last_test,
            };
            // Only a failing try's output says why it failed; a flaky test's passing try, or a
            // test shown with `--success-output`, has nothing to say.
            // Only a failing try's output says why it failed (a test shown with
            // `--success-output` has nothing to say), and output shown again after the summary
            // (`--failure-output immediate-final`) has been read already.
            let summary_seen = self.summary.is_some();
            self.section = index.filter(|&i| {
                let test = &self.tests[i];
                test.status.failed() && (!summary_seen || test.panic.is_empty())
            });
            self.in_section = true;
            // The format before 0.9.95, which names the test, does not indent the output.
            self.indent = named.map(|_| 0);
            return;
        }
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("Summary [") {
            self.in_section = false;
            self.section = None;
            self.summary_line(rest);
            return;
        }
        if trimmed.starts_with("────") {
            self.in_section = false;
            self.section = None;
            return;
        }
        if self.in_section && self.ends_section(line) {
            self.in_section = false;
            self.section = None;
        }
        if self.in_section {
            self.output(line);
            return;
        }
        if let Some(error) = line.strip_prefix("error: ") {
            if error.starts_with("no tests to run") {
                self.no_tests = true;
            } else if !error.starts_with("test run failed") && self.errors.len() < 20 {
                self.errors.push(clip(error, MAX_MESSAGE));
            }
        }
    }

    fn finish(mut self: Box<Self>) -> Report {
        let build = match self.build.take() {
            Some(build) => build.finish(),
            None => Report::new("cargo", Outcome::Passed),
        };
        let mut report = Report::new(TOOL, Outcome::Passed);
        // The build's diagnostics (compile errors, warnings) come first.
        let compile_failed = build.outcome == Outcome::Failed;
        report.counts.errors = build.counts.errors;
        report.counts.warnings = build.counts.warnings;
        for mut d in build.diagnostics {
            d.tool = TOOL.to_owned();
            report.push(d);
        }
        report.diagnostics_dropped += build.diagnostics_dropped;
        for note in build.notes {
            report.note(note);
        }

        let (passed, failing) = self.push_tests(&mut report);

        match &self.summary {
            Some(summary) => {
                report.counts.tests_passed = Some(summary.passed);
                // The summary's own count: a test cancelled between two tries failed a try,
                // but nextest counts it as not run.
                report.counts.tests_failed = Some(summary.failed);
                report.counts.tests_skipped = Some(summary.skipped);
                report.summary = Some(summary.line.clone());
                if summary.not_run > 0 {
                    report.note(format!(
                        "{} tests were not run: a failure cancelled the run (--no-fail-fast runs them all)",
                        summary.not_run
                    ));
                }
            }
            None if self.started => {
                report.counts.tests_passed = Some(passed);
                report.counts.tests_failed = Some(failing);
            }
            None => {}
        }
        let summary_failed = self.summary.as_ref().map_or(0, |s| s.failed);
        let ran = self
            .summary
            .as_ref()
            .map(|s| s.passed + s.failed)
            .unwrap_or(passed + failing);

        report.outcome = if compile_failed {
            Outcome::Failed
        } else if build.outcome == Outcome::Errored && !self.started {
            report.error = build
                .error
                .or(Some("cargo failed before nextest ran".to_owned()));
            Outcome::Errored
        } else if self.build_failed && !self.started {
            report.error = Some(
                "nextest could not build the test binaries, and the log does not say why"
                    .to_owned(),
            );
            Outcome::Errored
        } else if failing > 0 || summary_failed > 0 {
            Outcome::Failed
        } else if let Some(error) = self.errors.first() {
            report.error = Some(error.clone());
            Outcome::Errored
        } else if self.no_tests || (self.summary.is_some() && ran == 0) {
            report.error = Some("nextest ran no test".to_owned());
            Outcome::Errored
        } else if !self.started {
            report.error = Some("the log holds no nextest run".to_owned());
            Outcome::Errored
        } else if self.summary.is_none() {
            report.error = Some(format!(
                "the run ended before nextest's summary ({passed} tests passed by then)"
            ));
            Outcome::Errored
        } else {
            Outcome::Passed
        };
        report
    }
}

impl Parser {
    /// Each test the log shows ended, with a diagnostic for each failure and a note naming the
    /// flaky ones; the numbers that passed and failed.
    fn push_tests(&self, report: &mut Report) -> (u64, u64) {
        let mut failing = 0u64;
        let (mut passed, mut flaky) = (0u64, 0u64);
        for test in &self.tests {
            let status = match test.status {
                Status::Passed => {
                    passed += 1;
                    TestStatus::Passed
                }
                Status::Flaky => {
                    passed += 1;
                    flaky += 1;
                    TestStatus::Passed
                }
                status if status.failed() => {
                    failing += 1;
                    report.push(Parser::diagnostic(test));
                    TestStatus::Failed
                }
                Status::Skipped => TestStatus::Skipped,
                // Started, never ended in the log.
                _ => continue,
            };
            report.push_test(TestCase {
                name: test.name.clone(),
                file: None,
                status,
                duration_ms: seconds_to_ms(&test.time),
            });
        }
        report.diagnostics_dropped += self.dropped;
        report.tests_dropped += self.dropped;
        if flaky > 0 {
            let names: Vec<String> = self
                .tests
                .iter()
                .filter(|t| t.status == Status::Flaky)
                .take(5)
                .map(|t| format!("{} {}", t.binary, t.name))
                .collect();
            report.note(format!(
                "{flaky} flaky test{} passed on a retry: {}",
                if flaky == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
        (passed, failing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_of_every_shape() {
        let read = |line: &str| {
            status_line(line).map(|s| {
                (
                    s.word.to_owned(),
                    s.status,
                    s.binary.to_owned(),
                    s.test.to_owned(),
                )
            })
        };
        assert_eq!(
            read("        FAIL [   0.510s] ( 2/10) nxdemo tests::adds_wrong"),
            Some((
                "FAIL".into(),
                Status::Failed,
                "nxdemo".into(),
                "tests::adds_wrong".into()
            ))
        );
        assert_eq!(
            read("        PASS [   0.004s] my-crate::integration some::test"),
            Some((
                "PASS".into(),
                Status::Passed,
                "my-crate::integration".into(),
                "some::test".into()
            ))
        );
        assert_eq!(
            read("  TRY 2 PASS [   0.011s] (2/4) nxdemo::integration flaky").map(|r| r.1),
            Some(Status::Flaky)
        );
        assert_eq!(
            read("  TRY 1 FAIL [   0.028s] (───) nxdemo::integration flaky").map(|r| r.1),
            Some(Status::Failed)
        );
        assert_eq!(
            read("     SIGSEGV [   0.031s] ( 7/10) nxdemo::integration crashes").map(|r| r.1),
            Some(Status::Crashed)
        );
        assert_eq!(
            read(" TERMINATING [>  2.000s] (─────) nxdemo::integration slow").map(|r| r.1),
            Some(Status::Progress)
        );
        assert_eq!(
            read("        SKIP [         ] (───) nxdemo cart::discounts").map(|r| r.1),
            Some(Status::Skipped)
        );
        let status = |line: &str| status_line(line).map(|s| s.status);
        assert_eq!(
            status(" FAIL + LEAK [  21.451s] integration-tests::integration test_run"),
            Some(Status::Failed)
        );
        assert_eq!(
            status("   LEAK-FAIL [   0.004s] (4/9) crate leaky_test"),
            Some(Status::LeakFailed)
        );
        assert_eq!(
            status(" TRY 1 LKFAIL [   1.161s] (───) crate t"),
            Some(Status::LeakFailed)
        );
        assert_eq!(
            status("  TRY 2 FL+LK [   0.1s] (───) crate t"),
            Some(Status::Failed)
        );
        assert_eq!(
            status("   TRY 2 TMT [  60.402s] (1/3) crate t"),
            Some(Status::TimedOut)
        );
        assert_eq!(
            status("  TRY 2 SEGV [   0.1s] (───) crate t"),
            Some(Status::Crashed)
        );
        assert_eq!(
            status(" ABORT SIG 9 [   0.312s] (5/6) crate t"),
            Some(Status::Crashed)
        );
        assert_eq!(
            status("       XFAIL [   0.001s] (3/6) crate t"),
            Some(Status::Failed)
        );
        assert_eq!(
            status(" FLKY-FL 2/2 [   0.1s] (2/2) crate t"),
            Some(Status::Failed)
        );
        assert_eq!(
            status("TIMEOUT-PASS [   5.0s] (2/2) crate t"),
            Some(Status::Passed)
        );
        assert_eq!(read("     Summary [   0.267s] 4 tests run: 3 passed"), None);
        assert_eq!(read("    thread 'x' panicked at src/lib.rs:1:1:"), None);
        assert_eq!(read("    [1, 2] was not [1, 3]"), None);
    }

    #[test]
    fn output_headers_old_and_new() {
        assert_eq!(section_header("  stdout ───"), Some(None));
        assert_eq!(section_header("── stderr ──"), Some(None));
        assert_eq!(
            section_header("--- STDERR:              nxdemo tests::x ---"),
            Some(Some("tests::x"))
        );
        assert_eq!(
            section_header("--- TRY 2 STDOUT:        nxdemo::it flaky ---"),
            Some(Some("flaky"))
        );
        assert_eq!(
            section_header("──── STDERR:             nxdemo::integration flaky"),
            Some(Some("flaky"))
        );
        assert_eq!(section_header("────────────"), None);
        assert_eq!(section_header("    stdout"), None);
        assert_eq!(section_header("---- tests::x stdout ----"), None);
    }

    /// A summary of one test (`1 test run`) was not recognised as nextest's.
    #[test]
    fn a_summary_of_one_test_is_nextest() {
        let log = "────────────\n     Summary [   0.003s] 1 test run: 1 passed, 0 skipped\n";
        assert_eq!(NextestSummarizer.sniff(log), 98);
        assert_eq!(
            NextestSummarizer.parse(log.as_bytes()).outcome,
            Outcome::Passed
        );
    }

    #[test]
    fn garbage_does_not_panic() {
        let report = NextestSummarizer.parse(
            "    Starting 1 test across 1 binary\n        FAIL [\n  stdout ───\n\u{0}\u{1}\n     Summary [ 1 tests run: x/y\n"
                .as_bytes(),
        );
        assert_ne!(report.outcome, Outcome::Passed);
    }

    /// With `--status-level skip` nextest names the tests it does not run: they are listed as
    /// skipped, counted by the summary line alone.
    #[test]
    fn skipped_tests_are_listed() {
        let log = "    Starting 2 tests across 1 binary (1 test skipped)\n        SKIP [         ] (───) nx cart::discounts\n        PASS [   0.009s] (1/2) nx cart::empties\n        FAIL [   0.094s] (2/2) nx cart::adds\n     Summary [   0.400s] 2 tests run: 1 passed, 1 failed, 1 skipped\n";
        let report = NextestSummarizer.parse(log.as_bytes());
        let tests: Vec<(&str, TestStatus, Option<u64>)> = report
            .tests
            .iter()
            .map(|t| (t.name.as_str(), t.status, t.duration_ms))
            .collect();
        assert_eq!(
            tests,
            [
                ("cart::discounts", TestStatus::Skipped, None),
                ("cart::empties", TestStatus::Passed, Some(9)),
                ("cart::adds", TestStatus::Failed, Some(94)),
            ]
        );
        assert_eq!(report.counts.tests_skipped, Some(1));
        assert_eq!(report.counts.tests_passed, Some(1));
    }
}
