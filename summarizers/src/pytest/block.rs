//! A failure's block being read: the lines under a `___ test_x ___` rule (the `E` lines, the
//! traceback's places, a doctest's report), and the message and detail they come to.

use super::lines::{
    doctest_example, is_exception_line, is_xdist_worker_line, project_path, python_frame,
    traceback_entry, xdist_crash,
};
use crate::text::clip;

/// How long a detail may be.
const MAX_DETAIL: usize = 200;
/// Lines of an `E` group kept: the exception and a few lines of its explanation.
const MAX_GROUP: usize = 12;
/// Files whose last traceback line a block remembers.
const MAX_BLOCK_FILES: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BlockKind {
    /// A failing test, by its short name.
    Test,
    /// `ERROR at setup of x` / `ERROR at teardown of x`.
    Setup,
    /// `ERROR collecting tests/test_x.py`.
    Collect,
    /// `ImportError while loading conftest '…'`.
    Conftest,
    /// A `--tb=line` failure: only a place and a message.
    Line,
}

/// Which part of a failing doctest's report is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DoctestPart {
    Expected,
    Got,
}

/// What a failing doctest printed: the example that failed and its expected and actual output.
#[derive(Debug, Default)]
struct Doctest {
    /// The last `>>> ` line of the numbered source (`004     >>> double(2)`): the failing example.
    pub(super) example: Option<String>,
    expected: Vec<String>,
    got: Vec<String>,
    /// `Got nothing`: the example printed nothing.
    got_nothing: bool,
    part: Option<DoctestPart>,
    /// The block's place line says `DocTestFailure`: it is a doctest's report.
    pub(super) failed: bool,
}

/// Lines of a doctest's expected or actual output kept.
const MAX_DOCTEST_LINES: usize = 8;

/// A failure block being read, then kept until the end to be joined with its node id.
#[derive(Debug)]
pub(super) struct Block {
    pub(super) kind: BlockKind,
    pub(super) title: String,
    /// A `[doctest] pkg.mod.f` block: the title is the name pytest gives the doctest, whose dots
    /// are not classes.
    pub(super) doctest: bool,
    /// What a doctest's report shows, when the block is one.
    doctest_report: Doctest,
    /// The node id of the test a pytest-xdist worker crashed in: xdist titles that block with
    /// the test's file only.
    pub(super) crashed: Option<String>,
    /// The last traceback line seen in each file, in the order files were first seen.
    pub(super) files: Vec<(String, u32)>,
    /// The last traceback line in the project.
    pub(super) last: Option<(String, u32)>,
    /// The place a `SyntaxError` points at (`E     File "x.py", line 2`).
    pub(super) syntax: Option<(String, u32)>,
    group: Vec<String>,
    in_group: bool,
    /// The last unindented `SomeError: message` line (the `--tb=native` form).
    exception: Option<String>,
    pub(super) fallback: Option<String>,
    /// Captured output follows; nothing more in the block is the report's.
    captured: bool,
}

impl Block {
    pub(super) fn new(kind: BlockKind, title: String) -> Block {
        Block {
            kind,
            title,
            doctest: false,
            doctest_report: Doctest::default(),
            crashed: None,
            files: Vec::new(),
            last: None,
            syntax: None,
            group: Vec::new(),
            in_group: false,
            exception: None,
            fallback: None,
            captured: false,
        }
    }

    pub(super) fn place(&mut self, file: String, line: u32) {
        if let Some(entry) = self.files.iter_mut().find(|(f, _)| *f == file) {
            entry.1 = line;
        } else if self.files.len() < MAX_BLOCK_FILES {
            self.files.push((file.clone(), line));
        }
        self.last = Some((file, line));
    }

    pub(super) fn line(&mut self, line: &str, rootdir: Option<&str>) {
        if self.captured {
            return;
        }
        if let Some(rest) = line.strip_prefix('E')
            && (rest.is_empty() || rest.starts_with(' '))
        {
            if !self.in_group {
                self.group.clear();
                self.in_group = true;
            }
            let content = rest.trim();
            if let Some((file, n)) = python_frame(content) {
                // A `SyntaxError` shows where the parser stopped as a frame inside `E` lines.
                if let Some(file) = project_path(file, rootdir) {
                    self.syntax = Some((file, n));
                }
            }
            if self.group.len() < MAX_GROUP {
                self.group.push(content.to_owned());
            }
            return;
        }
        self.in_group = false;
        if line.starts_with("----") && line.contains(" Captured ") {
            self.captured = true;
            return;
        }
        if self.doctest_line(line) || is_xdist_worker_line(line) {
            return;
        }
        if let Some(nodeid) = xdist_crash(line) {
            self.crashed = Some(nodeid.to_owned());
            self.exception = Some(line.trim().to_owned());
            return;
        }
        if let Some((file, n)) = python_frame(line.trim_start()) {
            if let Some(file) = project_path(file, rootdir) {
                self.place(file, n);
            }
            return;
        }
        if let Some(rest) = line.strip_prefix("file ") {
            // A missing fixture: `file /abs/tests/test_x.py, line 18`.
            if let Some((file, n)) = rest.rsplit_once(", line ")
                && let (Some(file), Ok(n)) = (project_path(file, rootdir), n.trim().parse())
            {
                self.place(file, n);
            }
            return;
        }
        if let Some((file, n, rest)) = traceback_entry(line) {
            if let Some(file) = project_path(file, rootdir) {
                self.place(file, n);
            }
            // A doctest's report ends with the example's place: `/abs/pkg/mod.py:4:
            // DocTestFailure` (`UnexpectedException` when the example raised).
            if rest == "DocTestFailure" || rest == "UnexpectedException" {
                self.doctest_report.failed = true;
            }
            return;
        }
        if is_exception_line(line) {
            self.exception = Some(line.to_owned());
            return;
        }
        if self.fallback.is_none() && !line.trim().is_empty() {
            self.fallback = Some(line.trim().to_owned());
        }
    }

    /// Reads the lines of a doctest's report (`Expected:`, `Got:` and their indented output, the
    /// numbered source with the failing example); `true` when the line was one of them.
    fn doctest_line(&mut self, line: &str) -> bool {
        let report = &mut self.doctest_report;
        if let Some(part) = report.part {
            // doctest indents the output it shows by four spaces.
            if let Some(output) = line.strip_prefix("    ") {
                let lines = match part {
                    DoctestPart::Expected => &mut report.expected,
                    DoctestPart::Got => &mut report.got,
                };
                if lines.len() < MAX_DOCTEST_LINES {
                    lines.push(output.trim().to_owned());
                }
                return true;
            }
            report.part = None;
        }
        match line {
            "Expected:" => report.part = Some(DoctestPart::Expected),
            "Got:" => report.part = Some(DoctestPart::Got),
            "Got nothing" => report.got_nothing = true,
            _ => match doctest_example(line) {
                Some(example) => report.example = Some(example.to_owned()),
                None => return false,
            },
        }
        true
    }

    /// A failing doctest's message (`Expected: 5 Got: 4`, or the exception an example raised)
    /// and detail (the example), when the block is a doctest's report.
    fn doctest_message(&self) -> Option<(String, Option<String>)> {
        let report = &self.doctest_report;
        if !report.failed {
            return None;
        }
        if report.expected.is_empty() && report.got.is_empty() && !report.got_nothing {
            // `UNEXPECTED EXCEPTION: …`, then the traceback: its last line is the exception.
            let exception = self.exception.clone()?;
            return Some((exception, report.example.clone()));
        }
        let output = |lines: &[String]| {
            lines
                .iter()
                .map(String::as_str)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let got = if report.got_nothing && report.got.is_empty() {
            "Got nothing".to_owned()
        } else {
            format!("Got: {}", output(&report.got))
        };
        let message = format!("Expected: {} {got}", output(&report.expected));
        Some((message, report.example.clone()))
    }

    /// The message and detail: the raised exception's line from the last `E` group, and the rest
    /// of the group.
    pub(super) fn message(&self) -> (Option<String>, Option<String>) {
        if let Some((message, detail)) = self.doctest_message() {
            return (Some(message), detail);
        }
        if !self.group.is_empty() {
            let at = self
                .group
                .iter()
                .position(|l| is_exception_line(l))
                .unwrap_or(0);
            let message = self.group.get(at).cloned();
            let rest: Vec<&str> = self
                .group
                .iter()
                .enumerate()
                .filter(|(i, l)| *i != at && !l.is_empty())
                .map(|(_, l)| l.as_str())
                .collect();
            let detail = (!rest.is_empty()).then(|| clip(&rest.join(" "), MAX_DETAIL));
            return (message, detail);
        }
        (
            self.exception.clone().or_else(|| self.fallback.clone()),
            None,
        )
    }
}
