//! The session's sections: the `===` rules that open them, the `___` headers of failure blocks,
//! a run's closing line, the warnings summary, sessions nested in a test's output, a quoted log's
//! indentation, and the lines that mark the run wherever they come (pytest's own errors, the
//! rootdir, pytest-cov and pytest-sugar).

use verdict_model::{Diagnostic, Kind, Severity};

use super::block::{Block, BlockKind};
use super::lines::{
    final_counts, forward_slashes, indented_session_start, project_path, traceback_entry,
};
use super::parser::{Parser, Section};
use super::{MAX_ENTRIES, MAX_MESSAGE, TOOL};
use crate::text::{clip, count_of};

/// Sessions in one log whose counts are added up.
const MAX_SESSIONS: usize = 1000;

impl Parser {
    pub(super) fn close_block(&mut self) {
        if let Some(block) = self.block.take()
            && self.blocks.len() < MAX_ENTRIES
        {
            self.blocks.push(block);
        }
    }

    pub(super) fn rule(&mut self, line: &str) -> bool {
        let title = line.trim_matches(|c| c == '=' || c == ' ');
        if title.len() + 2 > line.len() {
            return false;
        }
        if let Some(counts) = final_counts(line) {
            self.close_block();
            self.closing_line(line, counts);
            self.section = Some(Section::Other);
            return true;
        }
        let section = match title {
            "ERRORS" => Section::Errors,
            "FAILURES" => Section::Failures,
            "warnings summary" => Section::Warnings,
            "short test summary info" => Section::Summary,
            "test session starts" => {
                self.session_starts();
                Section::None
            }
            _ => Section::Other,
        };
        self.close_block();
        self.skipping = false;
        self.section = Some(section);
        true
    }

    /// A session starts: the counts of the one before, if any, are kept to be added up.
    fn session_starts(&mut self) {
        self.started = true;
        self.keep_earlier();
    }

    /// The counts of the run before, kept to be added up.
    fn keep_earlier(&mut self) {
        if let Some(counts) = self.final_counts.take()
            && self.earlier_counts.len() < MAX_SESSIONS
        {
            self.earlier_counts.push(counts);
            if let Some(line) = self.final_line.take() {
                self.earlier_lines.push(line);
            }
        }
    }

    /// A run's closing line. A second one after progress lines ends another run, whose start `-q`
    /// does not mark; without them it is the same run's (a test printed a line of that shape).
    pub(super) fn closing_line(&mut self, line: &str, counts: &str) {
        if self.progress_since_closing {
            self.keep_earlier();
        }
        self.progress_since_closing = false;
        self.final_line = Some(line.to_owned());
        self.final_counts = Some(counts.to_owned());
    }

    fn block_header(&mut self, line: &str) -> bool {
        // pytest-sugar shows each failure as it happens, under a `――― test_x ―――` rule (U+2015)
        // and outside any `FAILURES` or `ERRORS` section.
        let sugar = line.starts_with("―――") && line.ends_with('―');
        // pytest centres the title in at least one `_` on each side: a long test name gets
        // `__ TestClass.test_with_a_long_name ___`, or less.
        let rule = line.starts_with('_')
            && line.ends_with('_')
            && line.trim_start_matches('_').starts_with(' ')
            && line.trim_end_matches('_').ends_with(' ');
        if !sugar && !rule {
            return false;
        }
        let title = line.trim_matches(|c| c == '_' || c == '―' || c == ' ');
        if title.is_empty() || line.starts_with("_ _") {
            return false;
        }
        self.close_block();
        let failures = matches!(self.section, Some(Section::Errors | Section::Failures))
            || (sugar && matches!(self.section, None | Some(Section::None)));
        if !failures {
            // `PASSES` (`-rA`, `-rP`) shows a block for each passing test that printed
            // something: its output, no failure.
            self.skipping = true;
            return true;
        }
        if self.blocks.len() >= MAX_ENTRIES {
            // Beyond the cap a failure is only counted, and its lines are skipped unread.
            self.dropped += 1;
            self.skipping = true;
            return true;
        }
        self.skipping = false;
        let (kind, title) = if let Some(file) = title.strip_prefix("ERROR collecting ") {
            self.load_failed = true;
            (BlockKind::Collect, file)
        } else if let Some(name) = title
            .strip_prefix("ERROR at setup of ")
            .or_else(|| title.strip_prefix("ERROR at teardown of "))
        {
            (BlockKind::Setup, name)
        } else {
            (BlockKind::Test, title)
        };
        // A doctest's block is titled `[doctest] pkg.mod.f`; its node id ends with `pkg.mod.f`.
        let doctest = title.strip_prefix("[doctest] ");
        let mut block = Block::new(kind, doctest.unwrap_or(title).to_owned());
        block.doctest = doctest.is_some();
        self.block = Some(block);
        true
    }

    pub(super) fn warning_line(&mut self, line: &str) {
        if !line.starts_with(' ') {
            if !line.is_empty() && !line.starts_with("-- Docs") {
                self.warning_test = Some(line.trim().to_owned());
            }
            return;
        }
        let Some((file, n, rest)) = traceback_entry(line.trim_start()) else {
            return;
        };
        let Some(file) = project_path(file, self.rootdir.as_deref()) else {
            return;
        };
        let (category, message) = rest.split_once(": ").unwrap_or(("", rest));
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Test,
            Severity::Warning,
            clip(message, MAX_MESSAGE),
        )
        .at(file, Some(n), None);
        if !category.is_empty() {
            d = d.with_code(category);
        }
        if let Some(test) = self.warning_test.as_deref().filter(|t| t.contains("::")) {
            d = d.with_test(test);
        }
        if self.warnings.len() < 1000 {
            self.warnings.push(d);
        }
    }

    /// Whether a line belongs to a pytest session that a test ran, which starts with its own
    /// `test session starts` rule before this session's closing line (after it, the log goes on
    /// with a second run, as a CI step running pytest twice writes) and ends with its own closing
    /// line.
    pub(super) fn nested_line(&mut self, line: &str) -> bool {
        if self.started
            && self.final_counts.is_none()
            && line.ends_with('=')
            && line.contains("= test session starts =")
        {
            self.nested = self.nested.saturating_add(1);
            return true;
        }
        if self.nested == 0 {
            return false;
        }
        if line.ends_with('=') && final_counts(line).is_some() {
            self.nested -= 1;
        }
        true
    }

    /// The line without the indentation of a quoted log; a line outside it ends the quote.
    pub(super) fn unindent<'a>(&mut self, line: &'a str) -> &'a str {
        match self.indent {
            Some(width) => {
                if line.len() >= width && line.as_bytes()[..width].iter().all(|&b| b == b' ') {
                    &line[width..]
                } else if line.trim().is_empty() {
                    ""
                } else {
                    self.indent = None;
                    line
                }
            }
            None if line.starts_with(' ') => match indented_session_start(line) {
                Some(width) => {
                    self.indent = Some(width);
                    &line[width..]
                }
                None => line,
            },
            None => line,
        }
    }
}

impl Parser {
    /// A line that marks the session whatever section it is in (a rule, a block's header,
    /// pytest's own errors and interruptions, the rootdir, pytest-cov's and pytest-sugar's
    /// lines); `true` when it was one.
    pub(super) fn marker_line(&mut self, first: u8, line: &str) -> bool {
        match first {
            // Some terminals (nox on Windows) leave a space after a rule.
            b'=' if line.trim_end().ends_with('=') && self.rule(line.trim_end()) => true,
            b'_' | 0xE2 if self.block_header(line) => true,
            b'F' if line.starts_with("FAIL Required test coverage of ") => {
                // pytest-cov's `--cov-fail-under`: every test may pass, and the run fails.
                self.coverage = Some(clip(&line["FAIL ".len()..], MAX_MESSAGE));
                true
            }
            b'T' if line.starts_with("Test session starts (platform: ") => {
                // pytest-sugar's header instead of the `test session starts` rule.
                self.session_starts();
                self.close_block();
                self.section = Some(Section::None);
                true
            }
            b'R' if line.starts_with("Results (") && line.ends_with("):") => {
                // pytest-sugar's counts instead of the closing line: one per line below.
                self.close_block();
                self.section = Some(Section::Other);
                self.final_counts = None;
                self.sugar_results = true;
                true
            }
            b'!' if line.starts_with("!!!") => {
                self.interruption(line);
                true
            }
            b'r' if self.rootdir.is_none() => match line.strip_prefix("rootdir: ") {
                Some(rest) => {
                    let root = forward_slashes(rest.split(", ").next().unwrap_or(rest));
                    let root = root.trim_end_matches('/');
                    self.rootdir = Some(format!("{root}/"));
                    true
                }
                None => false,
            },
            b'I' => self.internal_error_or_conftest(line),
            b'E' if line.starts_with("ERROR: ") => {
                self.stopped(line);
                true
            }
            _ => false,
        }
    }

    /// `!!! Interrupted: 2 errors during collection !!!`, or a `KeyboardInterrupt`.
    fn interruption(&mut self, line: &str) {
        let title = line.trim_matches(|c| c == '!' || c == ' ');
        if let Some(rest) = title.strip_prefix("Interrupted: ") {
            if rest.contains("during collection") {
                self.collection_errors =
                    count_of(rest, "errors").or_else(|| count_of(rest, "error"));
            } else {
                self.interrupted = true;
            }
        } else if title.contains("KeyboardInterrupt") {
            self.interrupted = true;
        }
    }

    /// `INTERNALERROR> …`, or `ImportError while loading conftest '…'` which opens a block;
    /// `true` when the line was one of them.
    fn internal_error_or_conftest(&mut self, line: &str) -> bool {
        if let Some(rest) = line.strip_prefix("INTERNALERROR> ") {
            // The last unindented line is the exception that stopped pytest.
            if !rest.starts_with(' ') && !rest.starts_with("Traceback") && !rest.is_empty() {
                self.internal = Some(rest.to_owned());
            }
            return true;
        }
        if line.starts_with("ImportError while loading conftest") {
            self.close_block();
            let path = line.split('\'').nth(1).unwrap_or("conftest.py");
            self.block = Some(Block::new(BlockKind::Conftest, path.to_owned()));
            self.load_failed = true;
            self.section = Some(Section::Other);
            return true;
        }
        false
    }

    /// `ERROR: …`: pytest stopped before running (a usage error, a path that does not exist),
    /// or pytest-cov's coverage failure.
    pub(super) fn stopped(&mut self, line: &str) {
        if line.starts_with("ERROR: usage:") {
            self.usage = true;
        } else if let Some(rest) = line.strip_prefix("ERROR: Coverage failure: ") {
            // pytest-cov 5 and later, before its own `FAIL Required test coverage …`.
            self.coverage
                .get_or_insert_with(|| format!("coverage failure: {rest}"));
        } else {
            self.error
                .get_or_insert_with(|| line["ERROR: ".len()..].to_owned());
        }
    }
}
