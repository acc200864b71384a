//! libtest's human output: each test binary's run (`running N tests` to its `test result:`
//! line), the `test x ... FAILED` lines, the failure blocks and the list of failures, and the
//! targets cargo says failed without libtest's report.

use std::collections::HashSet;

use verdict_model::{Diagnostic, Kind, LineParser, Severity, TestCase, TestStatus};

use super::panic::Panic;
use super::parser::{Parser, add};
use super::{MAX_DETAIL, MAX_MESSAGE, MAX_TESTS, TOOL};
use crate::text::{clip, count_of};

/// How many of a test binary's last output lines are kept, for a target that fails without
/// libtest's report.
const MAX_OUTPUT_LINES: usize = 3;

/// A libtest failure block being read (`---- name stdout ----` up to the next block).
#[derive(Default)]
pub(super) struct Block {
    pub(super) name: String,
    pub(super) panic: Panic,
}

/// One test binary's run as libtest prints it on standard output, from `running N tests` to the
/// next.
#[derive(Default)]
pub(super) struct Run {
    /// `N` of `running N tests`.
    pub(super) header: Option<u64>,
    /// Tests that libtest reported one by one: passed, failed, ignored.
    pub(super) reported: [u64; 3],
    /// The last `test result:` line read, and the last whose counts add up to the header.
    last: Option<TestResult>,
    agreeing: Option<TestResult>,
    /// Failing tests named by `test x ... FAILED` lines (and `x --- FAILED` in the terse format).
    pub(super) failing: Vec<String>,
    /// Failing tests named by libtest's list of failures (`failures:` and the names indented
    /// under it), printed once every test has finished: with `--nocapture` a test's output can
    /// run into a line that names a failure (a doc-test's `Couldn't compile the test.` has no
    /// line end), but never into this list.
    listed: Vec<String>,
    /// The tests named by `test x ... ok|FAILED|ignored` lines, kept once the run's summary
    /// says which of its failures are libtest's own (see [`Parser::finish_run`]).
    pub(super) tests: Vec<TestCase>,
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
pub(super) struct FailedTarget {
    /// The target as cargo names it for a re-run: `--lib`, `-p pkg --test custom`.
    pub(super) target: String,
    /// `signal: 11, SIGSEGV: invalid memory reference`, `exit status: 1`.
    pub(super) status: Option<String>,
    /// What was printed last before cargo's line (the target's own output, for a `harness =
    /// false` target).
    pub(super) output: Vec<String>,
}

impl FailedTarget {
    /// The failure of the whole target, when its process ended otherwise than libtest does on
    /// failing tests: libtest reported no failure for it.
    pub(super) fn diagnostic(&self) -> Option<Diagnostic> {
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
    pub(super) passed: u64,
    pub(super) failed: u64,
    pub(super) ignored: u64,
    /// Tests a filter left out (`3 filtered out`).
    pub(super) filtered: u64,
    pub(super) line: String,
}

impl TestResult {
    /// Reads `test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; …`
    /// (`rest` is what follows `test result: `); with the number of tests that ran, which is what
    /// `running N tests` announces (filtered-out tests do not run).
    pub(super) fn read(rest: &str, line: &str) -> (TestResult, u64) {
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

/// The test name of a failure block's header, `---- x::y stdout ----`.
fn block_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("---- ")?;
    rest.strip_suffix(" stdout ----")
        .or_else(|| rest.strip_suffix(" stderr ----"))
}

/// Whether a line is libtest's terse progress (`-q`): a run of result characters (`.`, `i`, `F`),
/// and at the end of a row the count so far (` 5/17`).
pub(super) fn is_terse_progress(line: &str) -> bool {
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

impl Parser {
    pub(super) fn finish_block(&mut self) {
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

    pub(super) fn report_test(&mut self, name: &str, panic: &Panic) {
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

    pub(super) fn test_failed(&mut self, name: &str) {
        if self.failing.len() < MAX_TESTS && self.failing_seen.insert(name.to_owned()) {
            self.failing.push(name.to_owned());
        }
    }

    /// A test named failing by a `test x ... FAILED` line or (when `listed`) by the failures
    /// list: it counts once its run's result is known (see [`Parser::finish_run`]).
    pub(super) fn run_failed(&mut self, name: &str, listed: bool) {
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
    pub(super) fn finish_run(&mut self) {
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
    pub(super) fn output(&mut self, line: &str) {
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

    pub(super) fn finish_loose(&mut self) {
        if let Some(loose) = self.loose_current.take()
            && self.loose.len() < 1000
        {
            self.loose.push(loose);
        }
    }

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

    /// Keeps a test for the report, bounded as [`verdict_model::Report::push_test`] bounds a
    /// report's.
    pub(super) fn keep_test(&mut self, test: TestCase) {
        if self.tests.len() < verdict_model::model::MAX_TESTS {
            self.tests.push(test);
        } else {
            self.tests_dropped += 1;
        }
    }
}

impl Parser {
    /// A line inside a failure block: what the test printed, whatever it looks like; only the
    /// next block or libtest's list of the failures (`failures:`, printed after the last block)
    /// ends it. `true` when the block took the line.
    pub(super) fn block_line(&mut self, line: &str) -> bool {
        let Some(block) = self.block.as_mut() else {
            return false;
        };
        if line == "failures:" {
            self.finish_block();
            self.in_failures_list = true;
            return true;
        }
        if !line.starts_with("---- ") || block_name(line).is_none() {
            block.panic.line(line);
            return true;
        }
        false
    }

    /// `---- x::y stdout ----`: a failure block starts; `true` when the line was its header.
    pub(super) fn block_start(&mut self, line: &str) -> bool {
        let Some(name) = block_name(line) else {
            return false;
        };
        self.finish_pending();
        self.finish_block();
        self.finish_loose();
        self.in_failures_list = false;
        self.block = Some(Block {
            name: name.to_owned(),
            panic: Panic::default(),
        });
        true
    }

    /// `test result: FAILED. 1 passed; 2 failed; …`: the end of a test binary's run.
    pub(super) fn test_result_line(&mut self, line: &str) -> bool {
        let Some(rest) = line.strip_prefix("test result: ") else {
            return false;
        };
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
        true
    }

    /// `test x::y ... ok|FAILED|ignored`: a test has finished.
    pub(super) fn test_status_line(&mut self, line: &str) -> bool {
        let Some((name, status)) = line
            .strip_prefix("test ")
            .and_then(|rest| rest.rsplit_once(" ... "))
        else {
            return false;
        };
        if status.starts_with("error: ") || status.starts_with("warning: ") {
            // cargo's line on stderr glued to libtest's unfinished `test x ... ` on stdout (a
            // log that merged the two streams mid-line, when the test binary crashed): cargo's
            // line is what says what happened.
            self.line(status);
            return true;
        }
        // libtest reports a test once it has finished: a panic printed before is complete
        // (`--nocapture`).
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
        true
    }

    /// `thread 'x' panicked at …` outside a failure block: `--nocapture`, or a test binary that
    /// panicked outside a test.
    pub(super) fn loose_panic_line(&mut self, line: &str) -> bool {
        if !(line.starts_with("thread '") && line.contains("panicked at ") && self.block.is_none())
        {
            return false;
        }
        self.finish_loose();
        let name = line["thread '".len()..]
            .split_once('\'')
            .map(|(n, _)| n.to_owned())
            .unwrap_or_default();
        let mut panic = Panic::default();
        panic.line(line);
        self.loose_current = Some((name, panic));
        true
    }

    /// `running 3 tests`: the next binary's header (cargo's `Running` line is on the other
    /// stream).
    pub(super) fn running_line(&mut self, line: &str) -> bool {
        let Some(n) = line
            .strip_prefix("running ")
            .and_then(|rest| rest.strip_suffix(" tests").or(rest.strip_suffix(" test")))
            .and_then(|n| n.parse().ok())
        else {
            return false;
        };
        if self
            .run
            .as_ref()
            .is_some_and(|run| run.header.is_some() || run.last.is_some())
        {
            self.finish_run();
        }
        self.run.get_or_insert_with(Run::default).header = Some(n);
        self.output.clear();
        true
    }
}
