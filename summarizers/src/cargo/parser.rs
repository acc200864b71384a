//! The parser's state, the tally of the report it builds, and the order each line is offered
//! to the steps that read it (a summary cut at the terminal's width is joined first).

use std::collections::{HashMap, HashSet};

use verdict_model::{Diagnostic, LineParser, Report, TestCase};

use super::MAX_MESSAGE;
use super::compiler::{Pending, ScriptOutput, short_diagnostic};
use super::libtest::{Block, FailedTarget, Run, is_terse_progress};
use super::panic::Panic;
use crate::text::clip;

/// What the parser has read so far; each phase's file reads and writes its part.
#[derive(Default)]
pub(super) struct Parser {
    pub(super) report: Report0,
    /// cargo's `could not compile` summary cut at a terminal's width before its counts ended:
    /// the next line is the rest of it.
    cut_summary: Option<String>,
    /// The test binary's run being read.
    pub(super) run: Option<Run>,
    /// The last lines that nothing else took: a `harness = false` target's output.
    pub(super) output: std::collections::VecDeque<String>,
    /// Whether a binary's failing `test result:` was read and cargo has not started another
    /// binary since: cargo's `test failed` line then names that binary, and the lines kept since
    /// are the next one's, read early from the other pipe.
    pub(super) libtest_ended: bool,
    pub(super) pending: Option<Pending>,
    pub(super) block: Option<Block>,
    /// Failing tests from `test x ... FAILED` lines, in order, and the ones reported from a block.
    pub(super) failing: Vec<String>,
    pub(super) failing_seen: HashSet<String>,
    pub(super) reported: HashSet<String>,
    /// Panics printed outside a block (`--nocapture`), by test name.
    pub(super) loose: Vec<(String, Panic)>,
    pub(super) loose_current: Option<(String, Panic)>,
    /// Errors printed without a location: cargo's own, or rustc's linking errors.
    pub(super) unlocated: Vec<String>,
    /// Whether the last unlocated error takes `Caused by:` lines.
    pub(super) caused_by: bool,
    /// Which part of a failed build script's output (under `Caused by:`) is being read.
    pub(super) script_output: ScriptOutput,
    /// Lint names learned from their first occurrence, by `compiler::lint_key`.
    pub(super) lint_names: HashMap<String, String>,
    /// Whether the current failures list (`failures:` followed by indented names) is being read.
    pub(super) in_failures_list: bool,
    /// Every test libtest reported by name (`test x ... ok`), for the report's `tests`.
    pub(super) tests: Vec<TestCase>,
    pub(super) tests_dropped: u64,
}

/// The parts of the report built up while reading.
#[derive(Default)]
pub(super) struct Report0 {
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) dropped: u64,
    pub(super) errors: Option<u64>,
    /// Errors counted by rustc itself (`aborting due to …`), used when cargo printed no summary.
    pub(super) rustc_errors: Option<u64>,
    /// Warnings per compiled target (`` `pkg` (lib) ``): cargo states them twice when a target
    /// fails with warnings (`generated 9 warnings`, then `…; 9 warnings emitted`).
    pub(super) target_warnings: HashMap<String, u64>,
    pub(super) rustc_warnings: Option<u64>,
    pub(super) passed: Option<u64>,
    pub(super) failed: Option<u64>,
    pub(super) ignored: Option<u64>,
    /// Tests left out by a filter, summed over the binaries that left some out.
    pub(super) filtered: Option<u64>,
    pub(super) compile_failed: bool,
    /// `error: test failed, to rerun pass …` and friends: a failure cargo saw.
    pub(super) test_failed_marker: bool,
    /// The targets cargo says failed, in order.
    pub(super) failed_targets: Vec<FailedTarget>,
    /// Test binaries that ended before their summary: how many, and the first one's reported
    /// tests and header.
    pub(super) incomplete: usize,
    pub(super) first_incomplete: Option<(u64, u64)>,
    /// Why the run is errored when a binary ended early with cargo none the wiser.
    pub(super) incomplete_error: Option<String>,
    pub(super) compile_summary: Option<String>,
    pub(super) warning_summary: Option<String>,
    pub(super) first_failed_result: Option<String>,
    pub(super) last_result: Option<String>,
    pub(super) finished: Option<String>,
    /// cargo's last `Compiling …`/`Checking …` line when no `Finished` line came after it: a
    /// build still going when the log ended.
    pub(super) building: Option<String>,
    /// Why rustc itself did not finish: `(signal: 9, SIGKILL: kill)`.
    pub(super) compiler_killed: Option<String>,
    pub(super) build_failed_json: bool,
    /// Whether cargo's JSON `build-finished` message came: the evidence of a build without a
    /// `Finished` line in the log (its standard error not captured).
    pub(super) build_finished_json: bool,
    /// A manifest or cargo-level error that has a location (`--> Cargo.toml:8:14`).
    pub(super) manifest_error: Option<String>,
    pub(super) ice: Option<String>,
    /// A system library the linker could not find (`unable to find library -lXrandr`): the
    /// build failed for want of the machine, not of the code.
    pub(super) missing_library: Option<String>,
    /// Errors without a location other than a missing library.
    pub(super) other_unlocated: bool,
    pub(super) notes: Vec<String>,
}

pub(super) fn add(slot: &mut Option<u64>, n: u64) {
    *slot = Some(slot.unwrap_or(0) + n);
}

impl Report0 {
    pub(super) fn full(&self) -> bool {
        self.diagnostics.len() >= verdict_model::model::MAX_DIAGNOSTICS
    }

    pub(super) fn target_warned(&mut self, target: &str, n: u64) {
        const MAX_TARGETS: usize = 10_000;
        if let Some(seen) = self.target_warnings.get_mut(target) {
            *seen = (*seen).max(n);
        } else if self.target_warnings.len() < MAX_TARGETS {
            self.target_warnings.insert(target.to_owned(), n);
        }
    }

    pub(super) fn push(&mut self, diagnostic: Diagnostic) {
        if self.diagnostics.len() < verdict_model::model::MAX_DIAGNOSTICS {
            self.diagnostics.push(diagnostic);
        } else {
            self.dropped += 1;
        }
    }
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
    /// Reads one whole line (a cut summary already joined with its rest): each step below
    /// takes the lines it knows, in this order.
    fn read_line(&mut self, line: &str) {
        self.compiler_killed(line);
        let Some(&first) = line.as_bytes().first() else {
            // A blank line ends a rustc diagnostic; a panic message ends there too.
            self.finish_pending();
            if let Some(block) = self.block.as_mut() {
                block.panic.line(line);
            }
            return;
        };
        if self.block_line(line) || self.marker_line(first, line) {
            return;
        }
        self.plain_line(line);
    }

    /// `process didn't exit successfully: `rustc --crate-name …` (signal: 9, SIGKILL: kill)`:
    /// the compiler itself died (killed, out of memory), which is no verdict on the code.
    pub(super) fn compiler_killed(&mut self, line: &str) {
        if line.starts_with("  process didn't exit successfully: `")
            && let Some((command, status)) = line.rsplit_once("` (")
            && status.starts_with("signal")
            && command.contains("rustc --crate-name ")
        {
            self.report
                .compiler_killed
                .get_or_insert_with(|| format!("rustc was stopped by a signal ({status}"));
        }
    }

    /// A line that marks where the log is, found by its first byte: JSON messages, diagnostic
    /// headers, libtest's blocks and results, `Caused by:`, indented lines; `true` when taken.
    fn marker_line(&mut self, first: u8, line: &str) -> bool {
        match first {
            b'{' => {
                if line.starts_with("{\"reason\":") {
                    self.json_line(line);
                } else if line.starts_with("{ \"type\": ") || line.starts_with("{\"type\":") {
                    self.libtest_json_line(line);
                }
                true
            }
            // Inside a failure block, `error: …` is the test's own output (or a doc-test's
            // compiler error), which belongs to the block.
            b'e' | b'w' if self.block.is_none() && self.header(line) => true,
            b'-' if line.starts_with("---- ") => self.block_start(line),
            b't' => {
                self.test_result_line(line)
                    || self.test_status_line(line)
                    || self.loose_panic_line(line)
            }
            b'f' if line == "failures:" => {
                self.finish_block();
                self.in_failures_list = true;
                true
            }
            b'C' if line == "Caused by:" => {
                self.finish_pending();
                self.caused_by = !self.unlocated.is_empty();
                self.script_output = ScriptOutput::None;
                true
            }
            b'r' => self.running_line(line),
            b' ' => self.indented_line(line),
            _ => false,
        }
    }

    /// An indented line: cargo starting a test binary, how a failed target's process ended,
    /// libtest's list of failures, a `Caused by:` chain; `true` when taken.
    fn indented_line(&mut self, line: &str) -> bool {
        let trimmed = line.trim_start();
        if trimmed.starts_with("Running ") || trimmed.starts_with("Doc-tests ") {
            // cargo starts the next test binary. What was printed before is kept: a capture
            // that reads the two pipes can take the binary's first lines before this one.
            // libtest's own lines, on the binary's pipe, bound the output.
            self.libtest_ended = false;
            return true;
        }
        if let Some(rest) = trimmed.strip_prefix("process didn't exit successfully: `")
            && let Some(target) = self.report.failed_targets.last_mut()
            && target.status.is_none()
        {
            // Under cargo's `Caused by:` for the target it just named.
            target.status = rest
                .rsplit_once("` (")
                .map(|(_, status)| clip(status.trim_end_matches(')'), MAX_MESSAGE));
            return true;
        }
        if self.in_failures_list {
            let name = line.trim();
            if !name.is_empty() {
                let name = name.to_owned();
                self.run_failed(&name, true);
            }
            return true;
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
            return true;
        }
        false
    }

    /// Any other line: a short-format diagnostic, a terse failure, cargo's progress, or a line
    /// of whatever is being read (a diagnostic's body, a block, a loose panic, a target's
    /// output).
    fn plain_line(&mut self, line: &str) {
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
}
