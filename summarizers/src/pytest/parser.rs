//! The parser's state, and the order each line is offered to the steps that read it; `finish`
//! runs the steps that make the report.

use std::collections::{HashMap, VecDeque};

use verdict_model::{Diagnostic, LineParser, Outcome, Report, TestCase};

use super::block::{Block, BlockKind};
use super::entries::Entry;
use super::failures::relative_to_found_rootdir;
use super::lines::{
    DOUBLE_COLON, final_counts, is_result, project_path, rootdir_from, traceback_entry,
};
use super::timeout::Timeout;
use super::{MAX_ENTRIES, TOOL, XPASS_STRICT};

/// The section of pytest's report a line is in, opened by its `===` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Section {
    None,
    Errors,
    Failures,
    Warnings,
    Summary,
    Other,
}

/// What the parser has read so far; each phase's file reads and writes its part.
#[derive(Default)]
pub(super) struct Parser {
    pub(super) rootdir: Option<String>,
    pub(super) section: Option<Section>,
    pub(super) block: Option<Block>,
    pub(super) blocks: Vec<Block>,
    pub(super) entries: Vec<Entry>,
    pub(super) verbose: Vec<Entry>,
    pub(super) warnings: Vec<Diagnostic>,
    pub(super) warning_test: Option<String>,
    pub(super) started: bool,
    /// How deep inside pytest sessions that a test ran (pytester's `runpytest`, a subprocess)
    /// the log is: their output, printed with `-s` or shown as a test's captured output, has
    /// pytest's own shape but reports nothing of this run.
    pub(super) nested: u32,
    /// `entries` and `verbose` by short name, built at the end.
    pub(super) entry_index: HashMap<String, Vec<usize>>,
    pub(super) verbose_index: HashMap<String, Vec<usize>>,
    /// Unused `FAILED` entries by file, for `--tb=line` failures, built at the end.
    pub(super) line_index: HashMap<String, VecDeque<usize>>,
    /// Failures beyond the cap: counted, not read.
    pub(super) dropped: u64,
    pub(super) skipping: bool,
    pub(super) final_line: Option<String>,
    pub(super) final_counts: Option<String>,
    /// The closing counts of the sessions before the last, when one log holds several runs (a CI
    /// step running `pytest tests/unit` then `pytest tests/integration`): the counts are their
    /// sum, and the summary is their closing lines.
    pub(super) earlier_counts: Vec<String>,
    pub(super) earlier_lines: Vec<String>,
    pub(super) collection_errors: Option<u64>,
    pub(super) usage: bool,
    pub(super) error: Option<String>,
    pub(super) internal: Option<String>,
    pub(super) interrupted: bool,
    /// What pytest-timeout showed of the last test that ran past its time limit.
    pub(super) timeout: Option<Timeout>,
    /// pytest-cov's failure of `--cov-fail-under` (`Required test coverage of 95% not reached.
    /// Total coverage: 14.29%`).
    pub(super) coverage: Option<String>,
    /// After pytest-sugar's `Results (0.22s):` line, whose count lines make the closing line.
    pub(super) sugar_results: bool,
    /// Inside pytest-timeout's dump of the threads' stacks (between its two `+++ Timeout +++`
    /// rules): nothing there is pytest's report.
    pub(super) in_timeout_dump: bool,
    /// The indentation of a log quoted as a block (pytest's own documentation, a Markdown list
    /// item, an email): set by an indented `test session starts` rule, until a line leaves it.
    pub(super) indent: Option<usize>,
    /// The node id `-v` printed last without its result: the test that was running when the log
    /// ends, if it ends early.
    pub(super) running: Option<String>,
    /// pytest-xdist runs several tests at once: the last one printed is not the one running.
    pub(super) xdist: bool,
    /// A progress line (`test_a.py .F  [ 50%]`) since the last closing line: a run was going on.
    pub(super) progress_since_closing: bool,
    /// A conftest or a test file did not import: pytest stops before any test, and after a
    /// conftest's failure without a closing line.
    pub(super) load_failed: bool,
    /// Each result `-v` printed (`tests/a.py::test_x PASSED [ 10%]`), for the report's tests:
    /// kept only when they are as many as the closing line counts (see [`Parser::finish`]).
    pub(super) tests: Vec<TestCase>,
    pub(super) tests_dropped: u64,
    /// Tests of `tests` that passed and errored in tear-down: one test, counted twice by pytest.
    pub(super) teardown_errors: u64,
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        // A UTF-8 BOM (PowerShell's `Out-File -Encoding utf8`) before the session's first rule.
        let line = line.strip_prefix('\u{FEFF}').unwrap_or(line);
        let line = self.unindent(line);
        if line.ends_with("%]") {
            self.progress_since_closing = true;
        }
        if self.nested_line(line) || self.timeout_line(line) || self.sugar_results_line(line) {
            return;
        }
        let Some(&first) = line.as_bytes().first() else {
            if let Some(block) = self.block.as_mut() {
                block.line(line, self.rootdir.as_deref());
            }
            return;
        };
        if self.marker_line(first, line) {
            return;
        }
        if self.usage && self.error.is_none() && line.contains(": error: ") {
            self.error = Some(line.to_owned());
            return;
        }
        if self.summary_or_warnings_line(line) || self.skipped_line(line) {
            return;
        }
        if self.block_line(line) {
            return;
        }
        if self.section == Some(Section::Failures) {
            self.tb_line_failure(line);
            return;
        }
        self.progress_line(line);
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.close_block();
        let mut report = Report::new(TOOL, Outcome::Passed);
        let blocks = std::mem::take(&mut self.blocks);
        self.index_entries();
        self.push_block_diagnostics(&blocks, &mut report);
        self.push_unpaired_entries(&mut report);
        let timed_out = self.push_run_problems(&mut report);
        if self.rootdir.is_none() {
            relative_to_found_rootdir(&blocks, &mut report);
        }
        self.count(&mut report);
        report.outcome = self.outcome(&mut report, timed_out);
        report
    }
}

impl Parser {
    /// A line under the short test summary or the warnings summary; `true` when it was one.
    fn summary_or_warnings_line(&mut self, line: &str) -> bool {
        match self.section {
            Some(Section::Summary) => {
                if !self.summary_entry(line)
                    && let Some(counts) = final_counts(line)
                {
                    self.closing_line(line, counts);
                }
                true
            }
            Some(Section::Warnings) => {
                // `-q` closes its warnings summary with the undecorated closing line.
                if !line.starts_with(' ')
                    && let Some(counts) = final_counts(line)
                {
                    self.closing_line(line, counts);
                    self.section = Some(Section::Other);
                } else {
                    self.warning_line(line);
                }
                true
            }
            _ => false,
        }
    }

    /// A line of a block that is not a failure's (a passing test's output); `true` when skipping.
    fn skipped_line(&mut self, line: &str) -> bool {
        if !self.skipping {
            return false;
        }
        // `-q` prints the closing line undecorated, and pytest-cov's report before it ends
        // with a `___ coverage: … ___` block of its own.
        if self.section == Some(Section::Other)
            && let Some(counts) = final_counts(line)
        {
            self.closing_line(line, counts);
        }
        true
    }

    /// A line of the failure block being read; `true` when a block is open.
    fn block_line(&mut self, line: &str) -> bool {
        if self.block.is_some()
            && (line.starts_with(|c: char| c.is_ascii_digit()) || line.starts_with("no tests "))
            && line.contains(" in ")
            && let Some(counts) = final_counts(line)
        {
            // pytest before 6 printed no short summary by default: with `-q` the undecorated
            // closing line follows the last failure's block.
            self.close_block();
            self.closing_line(line, counts);
            self.section = Some(Section::Other);
            return true;
        }
        let Some(block) = self.block.as_mut() else {
            return false;
        };
        if self.rootdir.is_none() && block.kind == BlockKind::Collect {
            self.rootdir = rootdir_from(line, &block.title);
        }
        block.line(line, self.rootdir.as_deref());
        true
    }

    /// A line under `FAILURES` outside any block: with `--tb=line`, one failure per line.
    fn tb_line_failure(&mut self, line: &str) {
        // A strict xpass has no traceback, only its reason (pytest 8 prints it once, pytest 9
        // twice; the copy that pairs with no entry is dropped at the end).
        if line.starts_with(XPASS_STRICT) {
            let mut block = Block::new(BlockKind::Line, String::new());
            block.fallback = Some(line.trim_end().to_owned());
            if self.blocks.len() < MAX_ENTRIES {
                self.blocks.push(block);
            }
            return;
        }
        // One `path:line: message` per failure, with no block around it.
        if let Some((file, n, message)) = traceback_entry(line) {
            // A failure in the standard library or a package has no place in the project,
            // but still stands for one failure.
            let mut block = Block::new(BlockKind::Line, String::new());
            if let Some(file) = project_path(file, self.rootdir.as_deref()) {
                block.place(file, n);
            }
            block.fallback = Some(message.to_owned());
            if self.blocks.len() < MAX_ENTRIES {
                self.blocks.push(block);
            } else {
                self.dropped += 1;
            }
        }
    }

    /// A line of the run itself, outside the report's sections: a `-v` result, a test's result
    /// after its live logs, or the closing line.
    fn progress_line(&mut self, line: &str) {
        if DOUBLE_COLON.find(line.as_bytes()).is_some() {
            self.verbose_entry(line);
            return;
        }
        if self.running.is_some() && is_result(line) {
            // The result of a test whose live logs came between it and its node id.
            self.running = None;
        }
        if let Some(counts) = final_counts(line) {
            self.closing_line(line, counts);
        }
    }
}
