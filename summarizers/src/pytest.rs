//! The `pytest` summarizer: pytest's terminal report in any verbosity (`-q`, default, `-v`) and
//! traceback style (`--tb=auto|long|short|line|native|no`).
//!
//! A pytest log is read by its sections, each opened by a `=== title ===` rule:
//! - `ERRORS` and `FAILURES` hold one block per problem, opened by a `___ title ___` rule: a
//!   failing test (`test_x`, `TestK.test_m`, `test_x[1-2]`), an error in a fixture (`ERROR at setup
//!   of test_x`), a test file that cannot be imported (`ERROR collecting tests/test_x.py`). In a
//!   block, `E   …` lines hold the exception (the last group of them is the one raised) and the
//!   traceback entries give the places (`tests/test_x.py:12: AssertionError`, `tests/test_x.py:12:
//!   in test_y`, `File "…/tests/test_x.py", line 12, in test_y`). With `--tb=line` there are no
//!   blocks, one `/abs/tests/test_x.py:12: assert …` line per failure instead.
//! - `short test summary info` names each failure by its node id (`FAILED tests/test_x.py::test_y -
//!   AssertionError: …`); the blocks only show the short name, so the two are joined at the end.
//! - the closing line (`=== 2 failed, 5 passed, 1 skipped in 0.12s ===`, undecorated with `-q`)
//!   holds the counts.
//!
//! A run that never ran a test is errored: no tests collected (exit 5), a usage error, an
//! `INTERNALERROR`. A conftest that fails to import and test files that fail to collect are the
//! code failing to load: failed, with the import or syntax error as the root cause. A log without
//! its closing line otherwise never passes: it was cut or pytest died, so it is errored, keeping
//! the failures it shows and naming the test `-v` printed last without a result.
//!
//! Several runs in one log (a session rule each, or `-q` runs told apart by their progress lines)
//! have their counts added up. A log quoted as an indented block (pytest's own documentation, a
//! Markdown list item) is read without its indentation, from an indented session rule or `$
//! pytest` prompt to the first line outside it. Windows tracebacks' `\` paths are read with `/`,
//! as node ids name them; pytest before 5 closes with `in 0.12 seconds`.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::sync::LazyLock;

use regex::Regex;
use verdict_model::{
    Diagnostic, Kind, LineParser, Outcome, Report, Severity, Summarizer, TestCase, TestStatus,
};

use crate::text::{clip, count_of};

const TOOL: &str = "pytest";
const MAX_DETAIL: usize = 200;
const MAX_MESSAGE: usize = 300;
/// How a strict xpass names its failure (the reason follows).
const XPASS_STRICT: &str = "[XPASS(strict)]";
/// Lines of an `E` group kept: the exception and a few lines of its explanation.
const MAX_GROUP: usize = 12;
/// Files whose last traceback line a block remembers.
const MAX_BLOCK_FILES: usize = 8;
/// Short-summary and `-v` entries remembered to name the failures of the blocks.
const MAX_ENTRIES: usize = verdict_model::model::MAX_DIAGNOSTICS;
/// Sessions in one log whose counts are added up.
const MAX_SESSIONS: usize = 1000;

/// `::`, the separator of node ids, searched with a prebuilt finder on every plain line.
static DOUBLE_COLON: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new("::"));

/// Parses pytest output.
#[derive(Debug, Default, Clone, Copy)]
pub struct PytestSummarizer;

impl Summarizer for PytestSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        if sample.contains(" test session starts ")
            || sample.contains("short test summary info")
            || sample.contains("ImportError while loading conftest")
            || sample.contains("ERROR: usage: pytest")
            || (sample.contains("platform ") && sample.contains(", pytest-"))
        {
            return 95;
        }
        if sample.contains("INTERNALERROR> ") {
            return 90;
        }
        // The report's own banners, seen without the session's header: what follows the closing
        // line of a run that prints its summary first, or a log cut above them.
        if sample.lines().take(5_000).any(is_report_banner) {
            return 70;
        }
        // `-q` prints little more than the closing line.
        if sample
            .lines()
            .rev()
            .take(20)
            .any(|l| final_counts(l).is_some())
        {
            return 60;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }
}

/// pytest's `==== FAILURES ====` and `==== ERRORS ====` rules, and the `____ ERROR collecting
/// tests/test_a.py ____` rule that heads a collection error.
fn is_report_banner(line: &str) -> bool {
    let line = line.trim_end();
    let banner = |rule: char, title: &str| {
        line.strip_prefix(rule)
            .and_then(|rest| rest.trim_start_matches(rule).strip_prefix(' '))
            .and_then(|rest| rest.strip_suffix(rule))
            .map(|rest| rest.trim_end_matches(rule).trim_end())
            .is_some_and(|inner| title_matches(inner, title))
    };
    fn title_matches(inner: &str, title: &str) -> bool {
        match title.strip_suffix(' ') {
            Some(prefix) => inner.starts_with(title) && inner.len() > prefix.len() + 1,
            None => inner == title,
        }
    }
    (line.starts_with("===") && (banner('=', "FAILURES") || banner('=', "ERRORS")))
        || (line.starts_with("___") && banner('_', "ERROR collecting "))
}

/// `2 failed, 5 passed, 1 skipped in 0.12s`, with or without its `=` rule, or `no tests ran in
/// 0.01s`: the counts part. pytest before 5.0 wrote the time as `in 0.12 seconds`.
fn final_counts(line: &str) -> Option<&str> {
    static FINAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^=* ?((?:(?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|(?:pytest-)?warnings?|deselected|rerun|subtests passed|subtests failed)|(?:\d+/)?\d+ tests? collected(?: \(\d+ deselected\))?)(?:, )?)+|no tests (?:ran|collected(?: \(\d+ deselected\))?))(?: in [\d.]+ ?s(?:econds)?(?: \([\d:.]+\))?)? ?=*$",
        )
        .expect("valid regex")
    });
    // Bytes that were not UTF-8 (U+FFFD once read) carry no text: what comes before them is the
    // line pytest wrote.
    let line = match line.find('\u{FFFD}') {
        Some(at) => line[..at].trim_end(),
        None => line.trim_end(),
    };
    let trimmed = line.trim_matches(|c| c == '=' || c == ' ');
    let first = trimmed.as_bytes().first()?;
    if !(first.is_ascii_digit() || trimmed.starts_with("no tests ")) {
        return None;
    }
    let captures = FINAL.captures(line)?;
    captures.get(1).map(|m| m.as_str())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Errors,
    Failures,
    Warnings,
    Summary,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum BlockKind {
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
    example: Option<String>,
    expected: Vec<String>,
    got: Vec<String>,
    /// `Got nothing`: the example printed nothing.
    got_nothing: bool,
    part: Option<DoctestPart>,
    /// The block's place line says `DocTestFailure`: it is a doctest's report.
    failed: bool,
}

/// Lines of a doctest's expected or actual output kept.
const MAX_DOCTEST_LINES: usize = 8;

/// `004     >>> double(2)`, a numbered source line of a doctest report showing an example:
/// `>>> double(2)`.
fn doctest_example(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits < 3 {
        return None;
    }
    let rest = line[digits..].strip_prefix(' ')?.trim();
    rest.starts_with(">>> ").then_some(rest)
}

/// `worker 'gw0' crashed while running 'test_c.py::test_crash'`, pytest-xdist's report of a
/// worker that died in a test (`os._exit`, a segfault): the node id of that test.
pub(crate) fn xdist_crash(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("worker '")?;
    let (_, rest) = rest.split_once("' crashed while running '")?;
    rest.strip_suffix('\'').filter(|id| !id.is_empty())
}

/// `[gw0] linux -- Python 3.11.7 /path/bin/python`: the line pytest-xdist opens each failure's
/// report with, naming the worker and its interpreter — nothing about the failure.
fn is_xdist_worker_line(line: &str) -> bool {
    line.starts_with("[gw") && line.contains("] ") && line.contains(" -- Python ")
}

/// A failure block being read, then kept until the end to be joined with its node id.
#[derive(Debug)]
struct Block {
    kind: BlockKind,
    title: String,
    /// A `[doctest] pkg.mod.f` block: the title is the name pytest gives the doctest, whose dots
    /// are not classes.
    doctest: bool,
    /// What a doctest's report shows, when the block is one.
    doctest_report: Doctest,
    /// The node id of the test a pytest-xdist worker crashed in: xdist titles that block with
    /// the test's file only.
    crashed: Option<String>,
    /// The last traceback line seen in each file, in the order files were first seen.
    files: Vec<(String, u32)>,
    /// The last traceback line in the project.
    last: Option<(String, u32)>,
    /// The place a `SyntaxError` points at (`E     File "x.py", line 2`).
    syntax: Option<(String, u32)>,
    group: Vec<String>,
    in_group: bool,
    /// The last unindented `SomeError: message` line (the `--tb=native` form).
    exception: Option<String>,
    fallback: Option<String>,
    /// Captured output follows; nothing more in the block is the report's.
    captured: bool,
}

impl Block {
    fn new(kind: BlockKind, title: String) -> Block {
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

    fn place(&mut self, file: String, line: u32) {
        if let Some(entry) = self.files.iter_mut().find(|(f, _)| *f == file) {
            entry.1 = line;
        } else if self.files.len() < MAX_BLOCK_FILES {
            self.files.push((file.clone(), line));
        }
        self.last = Some((file, line));
    }

    fn line(&mut self, line: &str, rootdir: Option<&str>) {
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
    fn message(&self) -> (Option<String>, Option<String>) {
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

/// `File "path", line 12, in f` (a native traceback frame): the path and line.
fn python_frame(text: &str) -> Option<(&str, u32)> {
    let rest = text.strip_prefix("File \"")?;
    let (file, rest) = rest.split_once("\", line ")?;
    let digits = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    Some((file, digits.parse().ok()?))
}

/// `path.py:12: rest` (a traceback entry in pytest's own styles, or a `--tb=line` failure): the
/// path, the line and the rest.
fn traceback_entry(line: &str) -> Option<(&str, u32, &str)> {
    let first = *line.as_bytes().first()?;
    if first == b' ' || first == b'\t' {
        return None;
    }
    // `memchr` on the colon is much cheaper than a substring search for `.py:`.
    let at = memchr::memchr_iter(b':', line.as_bytes()).find(|&i| line[..i].ends_with(".py"))?;
    let (file, rest) = line.split_at(at);
    let rest = rest.strip_prefix(':')?;
    let end = rest.find(':')?;
    let n: u32 = rest[..end].parse().ok()?;
    if file.contains(' ') && !file.starts_with('/') {
        return None;
    }
    Some((file, n, rest[end + 1..].trim()))
}

/// A file in the project, relative to the rootdir; `None` for the standard library, installed
/// packages and pytest itself, whose frames say nothing about where the code fails.
fn project_path(file: &str, rootdir: Option<&str>) -> Option<String> {
    let file = &*forward_slashes(file);
    let file = match rootdir.and_then(|root| file.strip_prefix(root)) {
        Some(relative) => relative.trim_start_matches('/'),
        None => file,
    };
    if rootdir.is_none()
        && file.starts_with('/')
        && !file.contains("/lib/python")
        && !file.contains("-packages/")
    {
        // Without a `rootdir:` line (`-q`) an absolute path may be the project's; it is made
        // relative once a node id names the file it ends with.
        return Some(file.to_owned());
    }
    if file.starts_with('/')
        || is_drive_path(file)
        || file.starts_with('~')
        || file.starts_with('<')
        || file.starts_with("..")
        || file.contains("site-packages/")
        || file.contains("dist-packages/")
        || file.is_empty()
    {
        return None;
    }
    Some(file.strip_prefix("./").unwrap_or(file).to_owned())
}

/// A Windows path with `/` for `\`: pytest's node ids use `/` everywhere, its tracebacks the
/// platform's separator, and a failure is named by both.
fn forward_slashes(path: &str) -> Cow<'_, str> {
    if path.contains('\\') {
        Cow::Owned(path.replace('\\', "/"))
    } else {
        Cow::Borrowed(path)
    }
}

/// The results `-v` prints after a test's node id, each with the space before it.
const RESULTS: [&str; 6] = [
    " PASSED", " FAILED", " ERROR", " SKIPPED", " XFAIL", " XPASS",
];

/// Whether `text` starts with the result `-v` prints after a test's node id.
fn is_result(text: &str) -> bool {
    ["PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"]
        .iter()
        .any(|word| text.starts_with(word))
}

/// `C:/Users/…`: an absolute Windows path (with its separators already turned to `/`).
fn is_drive_path(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() > 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'/'
}

/// Whether `path` (relative, or absolute when the rootdir is unknown) is the relative `file`.
fn same_file(path: &str, file: &str) -> bool {
    path == file
        || (path.starts_with('/')
            && path.ends_with(file)
            && path[..path.len() - file.len()].ends_with('/'))
}

/// The rootdir, from an absolute path in `line` that ends with the relative `file` (`-q` prints no
/// `rootdir:` line, but a file that fails to import is named both ways).
fn rootdir_from(line: &str, file: &str) -> Option<String> {
    if file.is_empty() {
        return None;
    }
    let end = line.find(&format!("/{file}"))?;
    let start = line[..end].rfind(['\'', '"', ' ']).map_or(0, |i| i + 1);
    let root = &line[start..end];
    root.starts_with('/').then(|| format!("{root}/"))
}

/// `ValueError: …`, `json.decoder.JSONDecodeError: …`, `AssertionError`: the line that names the
/// exception raised.
fn is_exception_line(line: &str) -> bool {
    // The name is what comes before the first `: `, made of a dotted name's characters only: it
    // ends at the first other byte, which must start that `: ` (or end the line).
    let bytes = line.as_bytes();
    let end = bytes
        .iter()
        .take(81)
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))
        .unwrap_or(bytes.len().min(81));
    if end == 0
        || end > 80
        || !bytes[0].is_ascii_alphabetic()
        || !(end == bytes.len() || line[end..].starts_with(": "))
    {
        return false;
    }
    let name = &line[..end];
    let last = name.rsplit('.').next().unwrap_or(name);
    last.ends_with("Error")
        || last.ends_with("Exception")
        || last.ends_with("Exit")
        || last.ends_with("Interrupt")
        || last == "Failed"
        || last == "StopIteration"
        || last.ends_with("Warning")
}

/// Whether a failure's message shows code that does not load.
fn is_load_error(message: &str) -> bool {
    message.starts_with("ModuleNotFoundError")
        || message.starts_with("ImportError")
        || message.starts_with("SyntaxError")
        || message.starts_with("IndentationError")
        || message.starts_with("TabError")
}

/// Whether a short-summary entry's message is the message of a `--tb=line` failure. pytest 6 and
/// 7 cut the entry to the terminal's width and end it with `...` (`ZeroDivisionError: division
/// ...` for `ZeroDivisionError: division by zero`): what is left of it must begin the line's.
fn same_line_message(entry: &str, line: &str) -> bool {
    match entry.strip_suffix("...") {
        Some(stem) if !stem.trim().is_empty() && line.len() > stem.len() => line.starts_with(stem),
        _ => entry.chars().take(30).eq(line.chars().take(30)),
    }
}

/// `SUBFAILED(i=1) tests/a.py::K::test_m - AssertionError: …`, pytest 9's short-summary entry of
/// a failing subtest (`unittest`'s `subTest`, the `subtests` fixture): what follows the label.
fn subtest_failed(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("SUBFAILED")?;
    let rest = match rest.strip_prefix('(') {
        // The label is the subtest's parameters or message; it ends at the first `) `, as a
        // parametrized node id after it may hold one too.
        Some(label) => &label[label.find(") ")? + 2..],
        None => rest.strip_prefix(' ')?,
    };
    (!rest.is_empty()).then_some(rest)
}

/// `K.test_m (i=1)` or `K.test_m [message] (i=1)`, the title of a failing subtest's block: the
/// test's own short name, `K.test_m`.
fn subtest_of(title: &str) -> Option<&str> {
    let name = title.strip_suffix(')')?;
    let name = &name[..name.rfind(" (")?];
    let name = match name.rfind(" [") {
        Some(at) if name.ends_with(']') => &name[..at],
        _ => name,
    };
    (!name.is_empty() && !name.contains(' ')).then_some(name)
}

/// A failure named by node id: a `FAILED`/`ERROR` line of the short summary, or of `-v`.
#[derive(Debug)]
struct Entry {
    error: bool,
    nodeid: String,
    message: Option<String>,
    used: bool,
}

/// The file of a node id: `tests/a.py::test_x` → `tests/a.py`.
fn entry_file(nodeid: &str) -> &str {
    DOUBLE_COLON
        .find(nodeid.as_bytes())
        .map_or(nodeid, |i| &nodeid[..i])
}

/// Node ids by the short name their failure blocks show.
fn index_by_short_name(entries: &[Entry]) -> HashMap<String, Vec<usize>> {
    let mut index: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        index.entry(short_name(&e.nodeid)).or_default().push(i);
    }
    index
}

/// The short name a block shows for a node id: `tests/a.py::K::test_m[x]` → `K.test_m[x]`.
fn short_name(nodeid: &str) -> String {
    match nodeid.split_once("::") {
        Some((_, rest)) => rest.replace("::", "."),
        None => nodeid.to_owned(),
    }
}

/// The node id a block's short name stands for in `file`: `K.test_m[x.y]` → `file::K::test_m[x.y]`.
fn node_id(file: &str, short: &str) -> String {
    let mut out = String::with_capacity(file.len() + short.len() + 4);
    out.push_str(file);
    out.push_str("::");
    let mut depth = 0;
    for c in short.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            '.' if depth == 0 => {
                out.push_str("::");
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// `FAILED tests/a.py::test_x[a - b] - AssertionError: …` → node id and message.
fn split_entry(rest: &str) -> (String, Option<String>) {
    // A parametrized id may itself hold ` - `: look for the separator after its brackets.
    let search_from = match (rest.find('['), rest.find(" - ")) {
        (Some(open), Some(dash)) if open < dash => rest[open..].find("] ").map_or(0, |i| open + i),
        _ => 0,
    };
    match rest[search_from..].find(" - ") {
        Some(i) => (
            rest[..search_from + i].to_owned(),
            Some(rest[search_from + i + 3..].to_owned()),
        ),
        None => (rest.trim_end().to_owned(), None),
    }
}

#[derive(Default)]
struct Parser {
    rootdir: Option<String>,
    section: Option<Section>,
    block: Option<Block>,
    blocks: Vec<Block>,
    entries: Vec<Entry>,
    verbose: Vec<Entry>,
    warnings: Vec<Diagnostic>,
    warning_test: Option<String>,
    started: bool,
    /// How deep inside pytest sessions that a test ran (pytester's `runpytest`, a subprocess)
    /// the log is: their output, printed with `-s` or shown as a test's captured output, has
    /// pytest's own shape but reports nothing of this run.
    nested: u32,
    /// `entries` and `verbose` by short name, built at the end.
    entry_index: HashMap<String, Vec<usize>>,
    verbose_index: HashMap<String, Vec<usize>>,
    /// Unused `FAILED` entries by file, for `--tb=line` failures, built at the end.
    line_index: HashMap<String, VecDeque<usize>>,
    /// Failures beyond the cap: counted, not read.
    dropped: u64,
    skipping: bool,
    final_line: Option<String>,
    final_counts: Option<String>,
    /// The closing counts of the sessions before the last, when one log holds several runs (a CI
    /// step running `pytest tests/unit` then `pytest tests/integration`): the counts are their
    /// sum, and the summary is their closing lines.
    earlier_counts: Vec<String>,
    earlier_lines: Vec<String>,
    collection_errors: Option<u64>,
    usage: bool,
    error: Option<String>,
    internal: Option<String>,
    interrupted: bool,
    /// What pytest-timeout showed of the last test that ran past its time limit.
    timeout: Option<Timeout>,
    /// pytest-cov's failure of `--cov-fail-under` (`Required test coverage of 95% not reached.
    /// Total coverage: 14.29%`).
    coverage: Option<String>,
    /// After pytest-sugar's `Results (0.22s):` line, whose count lines make the closing line.
    sugar_results: bool,
    /// Inside pytest-timeout's dump of the threads' stacks (between its two `+++ Timeout +++`
    /// rules): nothing there is pytest's report.
    in_timeout_dump: bool,
    /// The indentation of a log quoted as a block (pytest's own documentation, a Markdown list
    /// item, an email): set by an indented `test session starts` rule, until a line leaves it.
    indent: Option<usize>,
    /// The node id `-v` printed last without its result: the test that was running when the log
    /// ends, if it ends early.
    running: Option<String>,
    /// pytest-xdist runs several tests at once: the last one printed is not the one running.
    xdist: bool,
    /// A progress line (`test_a.py .F  [ 50%]`) since the last closing line: a run was going on.
    progress_since_closing: bool,
    /// A conftest or a test file did not import: pytest stops before any test, and after a
    /// conftest's failure without a closing line.
    load_failed: bool,
    /// Each result `-v` printed (`tests/a.py::test_x PASSED [ 10%]`), for the report's tests:
    /// kept only when they are as many as the closing line counts (see [`Parser::finish`]).
    tests: Vec<TestCase>,
    tests_dropped: u64,
    /// Tests of `tests` that passed and errored in tear-down: one test, counted twice by pytest.
    teardown_errors: u64,
}

/// `    ===== test session starts =====`, or the prompt before a quoted run (`    $ pytest -q`,
/// `-q` prints no rule): the width of the indentation before it.
fn indented_session_start(line: &str) -> Option<usize> {
    let text = line.trim_start_matches(' ');
    let width = line.len() - text.len();
    let rule = text.starts_with("==") && text.contains(" test session starts ");
    let prompt = text.starts_with("$ ") && (text.contains("pytest") || text.contains("py.test"));
    (width > 0 && (rule || prompt)).then_some(width)
}

/// A test that ran past pytest-timeout's limit, as the plugin's dump of the threads' stacks shows
/// it. With `--timeout-method=thread` (the default where there is no `SIGALRM`, and pytest-timeout's
/// fallback) the plugin ends the whole process after the dump: the log stops there, with no
/// failure report and no closing line, and this is all that says what failed.
#[derive(Debug, Default)]
struct Timeout {
    /// The node id `-v` printed before the dump (`tests/a.py::test_x `), or the file of the
    /// progress line it interrupted (`tests/a.py ..F`).
    nodeid: Option<String>,
    file: Option<String>,
    /// The dump is in the main thread's stack, where the test runs.
    in_main: bool,
    /// The deepest frame in the project of the main thread, and of any other thread: the place
    /// and function.
    main: Option<(String, u32, String)>,
    other: Option<(String, u32, String)>,
}

/// `+++++ Timeout +++++`, the rule pytest-timeout opens and closes its dump of the threads' stacks
/// with, after what the line already held (`-v`'s node id, the progress line's file and dots):
/// that text.
fn timeout_rule(line: &str) -> Option<&str> {
    if line.as_bytes().last() != Some(&b'+') {
        return None;
    }
    let at = line.find("+ Timeout +")?;
    let before = line[..at].trim_end_matches('+');
    line[at..]
        .bytes()
        .all(|b| b == b'+' || b == b' ' || b"Timeout".contains(&b))
        .then_some(before)
}

/// `File "path", line 12, in test_x` → the function, `test_x`.
fn frame_function(text: &str) -> Option<&str> {
    let (_, function) = text.rsplit_once(", in ")?;
    let function = function.trim();
    (!function.is_empty()).then_some(function)
}

impl Parser {
    fn close_block(&mut self) {
        if let Some(block) = self.block.take()
            && self.blocks.len() < MAX_ENTRIES
        {
            self.blocks.push(block);
        }
    }

    fn rule(&mut self, line: &str) -> bool {
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

    /// Why a log without its closing line is errored, naming the test it stopped in.
    fn cut_error(&mut self) -> String {
        match self.running.take().filter(|_| !self.xdist) {
            Some(test) => {
                format!("the log ends before pytest's summary line, while {test} was running")
            }
            None => "the log ends before pytest's summary line".to_owned(),
        }
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
    fn closing_line(&mut self, line: &str, counts: &str) {
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

    fn summary_entry(&mut self, line: &str) -> bool {
        let (error, rest) = if let Some(rest) = line.strip_prefix("FAILED ") {
            (false, rest)
        } else if let Some(rest) = line.strip_prefix("ERROR ") {
            (true, rest)
        } else if let Some(rest) = subtest_failed(line) {
            (false, rest)
        } else {
            return false;
        };
        if self.entries.len() >= MAX_ENTRIES {
            if self.blocks.is_empty() {
                // `--tb=no`: the summary is the only record of these failures.
                self.dropped += 1;
            }
            return true;
        }
        let (nodeid, message) = split_entry(rest);
        {
            self.entries.push(Entry {
                error,
                nodeid,
                message,
                used: false,
            });
        }
        true
    }

    /// `tests/a.py::test_x FAILED    [ 10%]` (`-v`), or `[gw0] [ 10%] FAILED tests/a.py::test_x`
    /// (pytest-xdist).
    fn verbose_entry(&mut self, line: &str) {
        if !line.contains("::") {
            return;
        }
        if !self.xdist {
            self.track_running(line);
        }
        self.verbose_test(line);
        let (error, nodeid) = if let Some(rest) = line.strip_prefix("[gw") {
            self.xdist = true;
            let rest = rest.split_once("] ").map_or("", |(_, r)| r);
            let rest = rest.split_once("] ").map_or(rest, |(_, r)| r);
            if let Some(id) = rest.strip_prefix("FAILED ") {
                (false, id)
            } else if let Some(id) = rest.strip_prefix("ERROR ") {
                (true, id)
            } else {
                return;
            }
        } else {
            let line = line.split(" [").next().unwrap_or(line).trim_end();
            if let Some(id) = line.strip_suffix(" FAILED") {
                (false, id)
            } else if let Some(id) = line.strip_suffix(" ERROR") {
                (true, id)
            } else {
                return;
            }
        };
        if self.verbose.len() < MAX_ENTRIES {
            self.verbose.push(Entry {
                error,
                nodeid: nodeid.trim().to_owned(),
                message: None,
                used: false,
            });
        }
    }

    /// A test's result as `-v` prints it, for the report's tests: `tests/a.py::test_x PASSED
    /// [ 10%]`, or pytest-xdist's `[gw0] [ 10%] PASSED tests/a.py::test_x`.
    fn verbose_test(&mut self, line: &str) {
        let (word, nodeid) = if let Some(rest) = line.strip_prefix("[gw") {
            let rest = rest.split_once("] ").map_or("", |(_, r)| r);
            let rest = rest.split_once("] ").map_or(rest, |(_, r)| r);
            match rest.split_once(' ') {
                Some((word, nodeid)) => (word, nodeid.trim()),
                None => return,
            }
        } else {
            // The result follows the node id's last part, and a reason may follow it
            // (`SKIPPED (not ready)`, `XFAIL (flaky)`), then the progress (` [ 10%]`).
            let Some(last_part) = line.rfind("::") else {
                return;
            };
            let tail = &line[last_part..];
            let found = match tail.find(' ') {
                // The usual node id, without a space in its parameters: the result is the word
                // after it, or the line is no result.
                Some(space) if !tail[..space].contains('[') || tail[..space].ends_with(']') => {
                    let at = last_part + space;
                    let word = line[at + 1..].split(' ').next().unwrap_or("");
                    RESULTS
                        .iter()
                        .any(|result| &result[1..] == word)
                        .then_some((at, word))
                }
                _ => RESULTS
                    .iter()
                    .filter_map(|word| {
                        let at = last_part + tail.find(word)?;
                        let end = at + word.len();
                        let ends = line[end..].is_empty() || line[end..].starts_with(' ');
                        ends.then_some((at, &word[1..]))
                    })
                    .min_by_key(|(at, _)| *at),
            };
            match found {
                Some((at, word)) => (word, line[..at].trim()),
                None => return,
            }
        };
        let status = match word {
            // An unexpected pass counts apart from the passed tests, but it passed.
            "PASSED" | "XPASS" => TestStatus::Passed,
            "FAILED" => TestStatus::Failed,
            "ERROR" => TestStatus::Errored,
            "SKIPPED" | "XFAIL" => TestStatus::Skipped,
            _ => return,
        };
        if !nodeid.contains("::") || nodeid.contains(' ') && !nodeid.contains('[') {
            return;
        }
        if status == TestStatus::Errored
            && let Some(last) = self.tests.last_mut()
            && last.status == TestStatus::Passed
            && last.name == nodeid
        {
            // A test that passed and whose fixture then failed in tear-down: pytest counts a
            // pass and an error, and its JUnit report (pytest 9) one test, errored.
            last.status = TestStatus::Errored;
            self.teardown_errors += 1;
            return;
        }
        if self.tests.len() < verdict_model::model::MAX_TESTS {
            self.tests.push(TestCase {
                name: nodeid.to_owned(),
                file: Some(entry_file(nodeid).to_owned()),
                status,
                duration_ms: None,
            });
        } else {
            self.tests_dropped += 1;
        }
    }

    /// `tests/a.py::test_x PASSED [ 50%]` ends a test; `tests/a.py::test_y ` with no result (yet)
    /// starts one, whose result comes later on the line or on a line of its own.
    fn track_running(&mut self, line: &str) {
        let Some(at) = line.find(".py::") else {
            return;
        };
        if line[..at].contains(' ') {
            return;
        }
        let (nodeid, rest) = line.split_once(' ').unwrap_or((line, ""));
        self.running = (!is_result(rest.trim_start())).then(|| nodeid.to_owned());
    }

    fn warning_line(&mut self, line: &str) {
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

    /// Finds the entry a block stands for, by short name and place: an `ERROR` entry for an error
    /// in a fixture, a `FAILED` one for a failing test.
    fn take_entry(&mut self, block: &Block, error: bool) -> Option<(String, Option<String>)> {
        self.take_entry_of(block, error).or_else(|| {
            // pytest-sugar names an error in a fixture `FAILED` in its short summary.
            if error {
                self.take_entry_of(block, false)
            } else {
                None
            }
        })
    }

    fn take_entry_of(&mut self, block: &Block, error: bool) -> Option<(String, Option<String>)> {
        for (list, index) in [
            (&mut self.entries, &self.entry_index),
            (&mut self.verbose, &self.verbose_index),
        ] {
            // A failing subtest's block is titled `K.test_m (i=1)`, its entry names `K.test_m`.
            let Some(candidates) = index
                .get(&block.title)
                .or_else(|| index.get(subtest_of(&block.title)?))
            else {
                continue;
            };
            let mut chosen = None;
            for &i in candidates {
                let Some(e) = list.get(i) else { continue };
                if e.used || e.error != error {
                    continue;
                }
                let file = entry_file(&e.nodeid);
                let in_block = block.files.iter().any(|(f, _)| same_file(f, file));
                if chosen.is_none() || in_block {
                    chosen = Some(i);
                    if in_block {
                        break;
                    }
                }
            }
            if let Some(i) = chosen
                && let Some(e) = list.get_mut(i)
            {
                e.used = true;
                return Some((e.nodeid.clone(), e.message.clone()));
            }
        }
        None
    }

    /// The entry of the failure `nodeid`, marked used; the node id alone when no entry names it.
    fn take_entry_by_id(&mut self, nodeid: &str) -> (String, Option<String>) {
        for list in [&mut self.entries, &mut self.verbose] {
            if let Some(e) = list
                .iter_mut()
                .find(|e| !e.used && !e.error && e.nodeid == nodeid)
            {
                e.used = true;
                return (e.nodeid.clone(), e.message.clone());
            }
        }
        (nodeid.to_owned(), None)
    }

    /// Finds the `FAILED` entry of a `--tb=line` failure: the first unused one in its file.
    fn take_line_entry(&mut self, file: &str) -> Option<(String, Option<String>)> {
        let key = if self.line_index.contains_key(file) {
            file.to_owned()
        } else {
            // An absolute path (no rootdir known): the file it ends with.
            self.line_index
                .keys()
                .take(1000)
                .find(|k| same_file(file, k))?
                .clone()
        };
        let list = if self.entries.is_empty() {
            &mut self.verbose
        } else {
            &mut self.entries
        };
        let queue = self.line_index.get_mut(&key)?;
        while let Some(i) = queue.pop_front() {
            if let Some(e) = list.get_mut(i)
                && !e.used
            {
                e.used = true;
                return Some((e.nodeid.clone(), e.message.clone()));
            }
        }
        None
    }

    fn block_diagnostic(
        &mut self,
        block: &Block,
        assigned: Option<(String, Option<String>)>,
    ) -> Diagnostic {
        let (message, detail) = block.message();
        match block.kind {
            BlockKind::Collect | BlockKind::Conftest => {
                let file = if block.kind == BlockKind::Collect {
                    Some(block.title.clone())
                } else {
                    // The conftest's own frame, relative, rather than the absolute path pytest
                    // names it by.
                    block
                        .files
                        .iter()
                        .rev()
                        .find(|(f, _)| f.ends_with("conftest.py") && !f.starts_with('/'))
                        .or(block.files.first())
                        .map(|(f, _)| f.clone())
                        .or_else(|| Some(block.title.clone()))
                };
                if block.kind == BlockKind::Collect {
                    for list in [&mut self.entries, &mut self.verbose] {
                        if let Some(e) = list
                            .iter_mut()
                            .find(|e| e.error && !e.used && e.nodeid == block.title)
                        {
                            e.used = true;
                        }
                    }
                }
                let message =
                    message.unwrap_or_else(|| "could not import the test file".to_owned());
                let mut d = Diagnostic::new(
                    TOOL,
                    Kind::Test,
                    Severity::Error,
                    clip(&message, MAX_MESSAGE),
                );
                if let Some(file) = file {
                    let line = block
                        .syntax
                        .as_ref()
                        .filter(|(f, _)| *f == file)
                        .or_else(|| block.files.iter().find(|(f, _)| *f == file))
                        .map(|(_, n)| *n);
                    d = d.at(file, line, None);
                }
                if let Some(detail) = detail {
                    d = d.with_detail(detail);
                }
                d.as_root_cause()
            }
            BlockKind::Test | BlockKind::Setup | BlockKind::Line => {
                let found = if assigned.is_some() {
                    assigned
                } else if let Some(nodeid) = &block.crashed {
                    // A crashed xdist worker's block names the test only in its text.
                    Some(self.take_entry_by_id(nodeid))
                } else if block.kind == BlockKind::Line {
                    let file = block
                        .last
                        .as_ref()
                        .map(|(f, _)| f.clone())
                        .unwrap_or_default();
                    self.take_line_entry(&file)
                } else {
                    self.take_entry(block, block.kind == BlockKind::Setup)
                };
                let (nodeid, entry_message) = match found {
                    Some((id, m)) => (Some(id), m),
                    None => (None, None),
                };
                let test_file = nodeid
                    .as_deref()
                    .and_then(|id| id.split("::").next().filter(|_| id.contains("::")))
                    .map(str::to_owned)
                    .or_else(|| {
                        (block.kind == BlockKind::Test)
                            .then(|| block.files.first().map(|(f, _)| f.clone()))
                            .flatten()
                    });
                let test = match (&nodeid, &test_file) {
                    (Some(id), _) => Some(id.clone()),
                    // pytest names a doctest `file::pkg.mod.f`: its dots are no classes.
                    (None, Some(file)) if block.doctest => Some(format!("{file}::{}", block.title)),
                    (None, Some(file)) if block.kind != BlockKind::Line => {
                        Some(node_id(file, &block.title))
                    }
                    _ if !block.title.is_empty() => Some(block.title.clone()),
                    _ => None,
                };
                let place = test_file
                    .as_ref()
                    .and_then(|file| block.files.iter().find(|(f, _)| same_file(f, file)))
                    .or(block.last.as_ref())
                    .cloned()
                    .map(|(file, line)| match &test_file {
                        // An absolute `--tb=line` path, now known to be the test file.
                        Some(test_file)
                            if file.starts_with('/') && file.ends_with(test_file.as_str()) =>
                        {
                            (test_file.clone(), line)
                        }
                        _ => (file, line),
                    });
                let message = message
                    .or(entry_message)
                    .unwrap_or_else(|| "test failed".to_owned());
                let root = is_load_error(&message);
                let mut d = Diagnostic::new(
                    TOOL,
                    Kind::Test,
                    Severity::Error,
                    clip(&message, MAX_MESSAGE),
                );
                if let Some((file, line)) = place {
                    d = d.at(file, Some(line), None);
                } else if let Some(file) = test_file {
                    d = d.at(file, None, None);
                }
                if let Some(test) = test {
                    d = d.with_test(test);
                }
                if let Some(detail) = detail {
                    d = d.with_detail(detail);
                }
                if root {
                    d = d.as_root_cause();
                }
                if block.kind == BlockKind::Setup {
                    // pytest counts a fixture that raised as an error around the test, not as
                    // the test failing (`1 error`), and so must everything that reads this.
                    d = d.as_test_error();
                }
                d
            }
        }
    }
}

impl Parser {
    /// Whether a line belongs to a pytest session that a test ran, which starts with its own
    /// `test session starts` rule before this session's closing line (after it, the log goes on
    /// with a second run, as a CI step running pytest twice writes) and ends with its own closing
    /// line.
    fn nested_line(&mut self, line: &str) -> bool {
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
}

impl Parser {
    /// Reads pytest-sugar's counts (`       9 passed`, `      16 failed` and, under it, `         -
    /// tests/test_x.py:10 test_x` for each failing test); `true` for the lines that are its.
    fn sugar_results_line(&mut self, line: &str) -> bool {
        if !self.sugar_results {
            return false;
        }
        let trimmed = line.trim();
        if line.starts_with(' ')
            && let Some(count) = final_counts(trimmed)
        {
            let counts = self.final_counts.get_or_insert_with(String::new);
            if counts.len() < MAX_MESSAGE {
                if !counts.is_empty() {
                    counts.push_str(", ");
                }
                counts.push_str(count);
            }
            self.final_line = Some(counts.clone());
            return true;
        }
        if trimmed.is_empty() || (line.starts_with(' ') && trimmed.starts_with("- ")) {
            return true;
        }
        self.sugar_results = false;
        false
    }

    /// Reads pytest-timeout's dump of the threads' stacks; `true` for the lines that belong to it.
    fn timeout_line(&mut self, line: &str) -> bool {
        if let Some(before) = timeout_rule(line) {
            if self.in_timeout_dump {
                self.in_timeout_dump = false;
                return true;
            }
            self.in_timeout_dump = true;
            let before = before.trim();
            let mut timeout = Timeout::default();
            if before.contains("::") {
                timeout.nodeid = Some(before.to_owned());
            } else if let Some(file) = before.split(' ').next().filter(|f| f.ends_with(".py")) {
                timeout.file = Some(file.to_owned());
            }
            self.timeout = Some(timeout);
            return true;
        }
        if !self.in_timeout_dump {
            return false;
        }
        let Some(timeout) = self.timeout.as_mut() else {
            return true;
        };
        if line.starts_with('~') && line.contains(" Stack of ") {
            timeout.in_main = line.contains(" Stack of MainThread ");
        } else if let Some((file, n)) = python_frame(line.trim_start())
            && let Some(file) = project_path(file, self.rootdir.as_deref())
        {
            let function = frame_function(line).unwrap_or_default().to_owned();
            let frame = Some((file, n, function));
            if timeout.in_main {
                timeout.main = frame;
            } else {
                timeout.other = frame;
            }
        }
        true
    }

    /// The failure of a test that pytest-timeout stopped the whole run in: the log ends in the
    /// plugin's dump, with no report of pytest's.
    fn timeout_diagnostic(&mut self) -> Option<Diagnostic> {
        let timeout = self.timeout.take()?;
        let (place, function) = match timeout.main.or(timeout.other) {
            Some((file, line, function)) => (Some((file, line)), Some(function)),
            None => (None, None),
        };
        // Without `-v` the node id is the progress line's file and the test function the stack
        // shows (a class or parameters of its own are not in the log).
        let test = timeout.nodeid.or_else(|| {
            let file = timeout.file?;
            let function = function.filter(|f| f.starts_with("test"))?;
            place
                .as_ref()
                .is_some_and(|(f, _)| same_file(f, &file))
                .then(|| format!("{file}::{function}"))
        });
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Test,
            Severity::Error,
            "Timeout: the test ran past its time limit and pytest-timeout ended the run",
        );
        let test_file = test.as_deref().map(entry_file).map(str::to_owned);
        match (place, test_file) {
            (Some((file, line)), _) => d = d.at(file, Some(line), None),
            (None, Some(file)) => d = d.at(file, None, None),
            (None, None) => {}
        }
        if let Some(test) = test {
            d = d.with_test(test);
        }
        Some(d)
    }
}

impl Parser {
    /// The line without the indentation of a quoted log; a line outside it ends the quote.
    fn unindent<'a>(&mut self, line: &'a str) -> &'a str {
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
        match first {
            // Some terminals (nox on Windows) leave a space after a rule.
            b'=' if line.trim_end().ends_with('=') && self.rule(line.trim_end()) => return,
            b'_' | 0xE2 if self.block_header(line) => return,
            b'F' if line.starts_with("FAIL Required test coverage of ") => {
                // pytest-cov's `--cov-fail-under`: every test may pass, and the run fails.
                self.coverage = Some(clip(&line["FAIL ".len()..], MAX_MESSAGE));
                return;
            }
            b'T' if line.starts_with("Test session starts (platform: ") => {
                // pytest-sugar's header instead of the `test session starts` rule.
                self.session_starts();
                self.close_block();
                self.section = Some(Section::None);
                return;
            }
            b'R' if line.starts_with("Results (") && line.ends_with("):") => {
                // pytest-sugar's counts instead of the closing line: one per line below.
                self.close_block();
                self.section = Some(Section::Other);
                self.final_counts = None;
                self.sugar_results = true;
                return;
            }
            b'!' if line.starts_with("!!!") => {
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
                return;
            }
            b'r' if self.rootdir.is_none() => {
                if let Some(rest) = line.strip_prefix("rootdir: ") {
                    let root = forward_slashes(rest.split(", ").next().unwrap_or(rest));
                    let root = root.trim_end_matches('/');
                    self.rootdir = Some(format!("{root}/"));
                    return;
                }
            }
            b'I' => {
                if let Some(rest) = line.strip_prefix("INTERNALERROR> ") {
                    // The last unindented line is the exception that stopped pytest.
                    if !rest.starts_with(' ') && !rest.starts_with("Traceback") && !rest.is_empty()
                    {
                        self.internal = Some(rest.to_owned());
                    }
                    return;
                }
                if line.starts_with("ImportError while loading conftest") {
                    self.close_block();
                    let path = line.split('\'').nth(1).unwrap_or("conftest.py");
                    self.block = Some(Block::new(BlockKind::Conftest, path.to_owned()));
                    self.load_failed = true;
                    self.section = Some(Section::Other);
                    return;
                }
            }
            b'E' if line.starts_with("ERROR: ") => {
                // pytest stopped before running: a usage error, a path that does not exist.
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
                return;
            }
            _ => {}
        }
        if self.usage && self.error.is_none() && line.contains(": error: ") {
            self.error = Some(line.to_owned());
            return;
        }
        match self.section {
            Some(Section::Summary) => {
                if !self.summary_entry(line)
                    && let Some(counts) = final_counts(line)
                {
                    self.closing_line(line, counts);
                }
                return;
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
                return;
            }
            _ => {}
        }
        if self.skipping {
            // `-q` prints the closing line undecorated, and pytest-cov's report before it ends
            // with a `___ coverage: … ___` block of its own.
            if self.section == Some(Section::Other)
                && let Some(counts) = final_counts(line)
            {
                self.closing_line(line, counts);
            }
            return;
        }
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
            return;
        }
        if let Some(block) = self.block.as_mut() {
            if self.rootdir.is_none() && block.kind == BlockKind::Collect {
                self.rootdir = rootdir_from(line, &block.title);
            }
            block.line(line, self.rootdir.as_deref());
            return;
        }
        if self.section == Some(Section::Failures) {
            // `--tb=line`: a strict xpass has no traceback, only its reason (pytest 8 prints it
            // once, pytest 9 twice; the copy that pairs with no entry is dropped at the end).
            if line.starts_with(XPASS_STRICT) {
                let mut block = Block::new(BlockKind::Line, String::new());
                block.fallback = Some(line.trim_end().to_owned());
                if self.blocks.len() < MAX_ENTRIES {
                    self.blocks.push(block);
                }
                return;
            }
            // `--tb=line`: one `path:line: message` per failure, with no block around it.
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
            return;
        }
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

    fn finish(mut self: Box<Self>) -> Report {
        self.close_block();
        let mut report = Report::new(TOOL, Outcome::Passed);
        let blocks = std::mem::take(&mut self.blocks);
        self.entry_index = index_by_short_name(&self.entries);
        self.verbose_index = index_by_short_name(&self.verbose);
        let named = if self.entries.is_empty() {
            &self.verbose
        } else {
            &self.entries
        };
        for (i, e) in named.iter().enumerate().filter(|(_, e)| !e.error) {
            self.line_index
                .entry(entry_file(&e.nodeid).to_owned())
                .or_default()
                .push_back(i);
        }
        // `--tb=line` prints one line per failure, at the deepest frame (often not in the test
        // file), in the order of the short summary: walk both in order, pairing a line with the
        // next entry that has the same message or file (some failures, a strict xpass, print no
        // line).
        let use_verbose = self.entries.is_empty();
        let failed: Vec<usize> = if use_verbose {
            &self.verbose
        } else {
            &self.entries
        }
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.error)
        .map(|(i, _)| i)
        .collect();
        let mut next = 0;
        for block in &blocks {
            let mut assigned = None;
            if block.kind == BlockKind::Line {
                let list = if use_verbose {
                    &mut self.verbose
                } else {
                    &mut self.entries
                };
                let file = block.last.as_ref().map_or("", |(f, _)| f.as_str());
                let message = block.fallback.as_deref().unwrap_or("");
                let xpass = block.last.is_none() && message.starts_with(XPASS_STRICT);
                for k in next..failed.len().min(next + 5) {
                    let Some(e) = failed.get(k).and_then(|&i| list.get_mut(i)) else {
                        break;
                    };
                    let entry_file = e.nodeid.split("::").next().unwrap_or("");
                    let same_message = e
                        .message
                        .as_deref()
                        .is_some_and(|m| same_line_message(m, message));
                    let same_place = e.message.is_none() && same_file(file, entry_file);
                    // pytest 8 names a strict xpass in the short summary without its reason.
                    let bare_xpass = xpass && e.message.is_none();
                    if !e.used && (same_message || same_place || bare_xpass) {
                        e.used = true;
                        assigned = Some((e.nodeid.clone(), e.message.clone()));
                        next = k + 1;
                        break;
                    }
                }
            }
            if assigned.is_none()
                && block.kind == BlockKind::Line
                && block.last.is_none()
                && block
                    .fallback
                    .as_deref()
                    .is_some_and(|m| m.starts_with(XPASS_STRICT))
            {
                // A repeated strict-xpass reason: its test is already paired or in the summary.
                continue;
            }
            let d = self.block_diagnostic(block, assigned);
            report.push(d);
        }
        // Failures named only in the short summary (`--tb=no`, or more failures than blocks).
        for e in self.entries.iter().filter(|e| !e.used) {
            let message = e
                .message
                .clone()
                .unwrap_or_else(|| "test failed".to_owned());
            let collecting = !e.nodeid.contains("::");
            let mut d = Diagnostic::new(
                TOOL,
                Kind::Test,
                Severity::Error,
                clip(&message, MAX_MESSAGE),
            );
            let file = e.nodeid.split("::").next().unwrap_or("");
            if !file.is_empty() {
                d = d.at(file, None, None);
            }
            if collecting {
                d = d.as_root_cause();
            } else {
                d = d.with_test(e.nodeid.clone());
                if is_load_error(&message) {
                    d = d.as_root_cause();
                }
                if e.error {
                    // `ERROR tests/a.py::test_x`: a fixture raised around the test.
                    d = d.as_test_error();
                }
            }
            report.push(d);
        }
        if self.entries.is_empty() {
            for e in self.verbose.iter().filter(|e| !e.used) {
                let file = e.nodeid.split("::").next().unwrap_or("").to_owned();
                let mut d = Diagnostic::new(TOOL, Kind::Test, Severity::Error, "test failed")
                    .at(file, None, None)
                    .with_test(e.nodeid.clone());
                if e.error {
                    d = d.as_test_error();
                }
                report.push(d);
            }
        }
        let mut timed_out = false;
        if self.started
            && self.final_counts.is_none()
            && self.internal.is_none()
            && let Some(d) = self.timeout_diagnostic()
        {
            report.push(d);
            // pytest-timeout ended the run on purpose: the test that hung is the failure.
            timed_out = true;
        }
        if let Some(coverage) = self.coverage.take() {
            report.push(
                Diagnostic::new(TOOL, Kind::Custom, Severity::Error, coverage)
                    .with_code("coverage"),
            );
        }
        for w in std::mem::take(&mut self.warnings) {
            report.push(w);
        }
        report.diagnostics_dropped += self.dropped;

        if self.rootdir.is_none() {
            // `-q` prints no rootdir: find it from an absolute path that ends with a file the
            // log also names relatively, and make the remaining absolute paths relative.
            let relative: Vec<&str> = report
                .diagnostics
                .iter()
                .filter_map(|d| d.test.as_deref().and_then(|t| t.split("::").next()))
                .chain(
                    blocks
                        .iter()
                        .flat_map(|b| b.files.iter().map(|(f, _)| f.as_str())),
                )
                .filter(|f| !f.starts_with('/'))
                .take(1000)
                .collect();
            let root = blocks
                .iter()
                .flat_map(|b| b.files.iter().map(|(f, _)| f.as_str()))
                .chain(report.diagnostics.iter().filter_map(|d| d.file.as_deref()))
                .filter(|f| f.starts_with('/'))
                .find_map(|abs| {
                    relative
                        .iter()
                        .find(|r| same_file(abs, r))
                        .map(|r| abs[..abs.len() - r.len()].to_owned())
                });
            if let Some(root) = root {
                for d in &mut report.diagnostics {
                    if let Some(rel) = d.file.as_deref().and_then(|f| f.strip_prefix(&*root)) {
                        d.file = Some(rel.to_owned());
                        d.refresh_fingerprint();
                    }
                }
            }
        }
        let sessions: Vec<&str> = self
            .earlier_counts
            .iter()
            .map(String::as_str)
            .chain(self.final_counts.as_deref())
            .collect();
        // A label's count summed over the sessions, or `None` when no session has it.
        let total = |labels: &[&str]| -> Option<u64> {
            sessions
                .iter()
                .filter_map(|counts| labels.iter().find_map(|label| count_of(counts, label)))
                .reduce(|a, b| a.saturating_add(b))
        };
        if !sessions.is_empty() {
            let c = &mut report.counts;
            c.tests_passed = Some(total(&["passed"]).unwrap_or(0));
            c.tests_failed = Some(total(&["failed"]).unwrap_or(0));
            // JUnit and most dashboards count an expected failure as skipped.
            c.tests_skipped =
                Some(total(&["skipped"]).unwrap_or(0) + total(&["xfailed"]).unwrap_or(0));
            // pytest's own words for them, so that the digest counts as pytest does.
            c.tests_xfailed = total(&["xfailed"]);
            c.tests_xpassed = total(&["xpassed"]);
            // `-k`, `-m` and `--deselect` leave tests out without skipping them.
            c.tests_deselected = total(&["deselected"]);
            c.errors = total(&["errors", "error"]);
            c.warnings = total(&["warnings", "warning"]);
        }
        report.counts.suites_errored = self.collection_errors;
        let c = &report.counts;
        let counted = [
            c.tests_passed,
            c.tests_failed,
            c.tests_skipped,
            c.tests_xpassed,
            c.errors,
        ]
        .iter()
        .map(|n| n.unwrap_or(0))
        .sum::<u64>();
        if self.tests.len() as u64 + self.tests_dropped + self.teardown_errors == counted {
            // `-v` named every test the closing line counts (without `-v`, or with files that
            // failed to collect, it names some or none: no list then).
            report.tests = std::mem::take(&mut self.tests);
            report.tests_dropped = self.tests_dropped;
        }
        let lines: Vec<&str> = self
            .earlier_lines
            .iter()
            .chain(&self.final_line)
            .map(|l| l.trim_matches(|c| c == '=' || c == ' '))
            .collect();
        report.summary = (!lines.is_empty()).then(|| clip(&lines.join("; "), MAX_MESSAGE));

        let failing = report.counts.tests_failed.unwrap_or(0) > 0
            || report.counts.errors.unwrap_or(0) > 0
            || report.errors().next().is_some();
        let ran = [
            "passed", "failed", "skipped", "xfailed", "xpassed", "error", "errors",
        ]
        .iter()
        .any(|label| total(&[label]).unwrap_or(0) > 0);
        // `--collect-only` ends with `34 tests collected in 0.05s`: nothing ran, and nothing had
        // to.
        let collected_only = ["tests collected", "test collected"]
            .iter()
            .any(|label| total(&[label]).unwrap_or(0) > 0);
        report.outcome = if let Some(internal) = self.internal.take() {
            report.error = Some(format!("INTERNALERROR: {internal}"));
            Outcome::Errored
        } else if self.usage || (self.error.is_some() && !failing) {
            report.error = Some(
                self.error
                    .take()
                    .unwrap_or_else(|| "pytest was called with invalid arguments".to_owned()),
            );
            Outcome::Errored
        } else if self.final_counts.is_none()
            && !self.load_failed
            && !timed_out
            && self.collection_errors.is_none()
        {
            // A run that ends says so in its closing line; without it the log was cut, or pytest
            // died (a crash in a test, the runner killed), or this is not its report: what it
            // shows failing is kept, but what passed is unknown.
            report.error = Some(self.cut_error());
            Outcome::Errored
        } else if failing {
            Outcome::Failed
        } else if self.interrupted {
            report.error = Some("pytest was interrupted before it finished".to_owned());
            Outcome::Errored
        } else if self.final_counts.is_some() && !ran && !collected_only {
            // Exit code 5: nothing was collected, or everything was deselected.
            report.error = Some(
                report
                    .summary
                    .clone()
                    .unwrap_or_else(|| "no tests ran".to_owned()),
            );
            Outcome::Errored
        } else if self.final_counts.is_none() {
            report.error = Some(self.cut_error());
            Outcome::Errored
        } else {
            Outcome::Passed
        };
        report
    }
}

/// The diagnostic of one failure known by its node id, from the text pytest printed for it: the
/// body of its block under `FAILURES` or `ERRORS`, which is also the text of the failure's element
/// in `--junitxml` output. [`crate::junit`] uses it so that a failure read from the XML gets the
/// same message, place and fingerprint as the same failure read from the log.
///
/// A `nodeid` without `::` is a test file that failed to collect; `setup` marks an error in a
/// fixture (setup or teardown). `message` stands in when the text names no exception. Absolute
/// paths are made relative to `rootdir` (absolute, ending with `/`) when it is known, else to
/// the rootdir found from an absolute path to the test's own file, or to its first directory.
pub(crate) fn failure_from_text(
    nodeid: &str,
    setup: bool,
    text: &str,
    message: Option<&str>,
    rootdir: Option<&str>,
) -> Diagnostic {
    let file = entry_file(nodeid);
    let rootdir = rootdir.map(str::to_owned).or_else(|| {
        text.lines()
            .take(1000)
            .find_map(|line| rootdir_from(line, file))
            .or_else(|| {
                // `tests/test_x.py` failing in `/abs/tests/conftest.py`: the rootdir is what
                // comes before the test file's first directory in a path of the project.
                let (top, _) = file.split_once('/')?;
                text.lines().take(1000).find_map(|line| {
                    let line = line.trim_start_matches(['E', ' ']);
                    let line = line.strip_prefix("File \"").unwrap_or(line);
                    if !line.starts_with('/') || line.contains("/lib/python") {
                        return None;
                    }
                    let end = line.find(&format!("/{top}/"))?;
                    Some(format!("{}/", &line[..end]))
                })
            })
    });
    let mut block = if nodeid.contains("::") {
        let kind = if setup {
            BlockKind::Setup
        } else {
            BlockKind::Test
        };
        Block::new(kind, short_name(nodeid))
    } else {
        Block::new(BlockKind::Collect, nodeid.to_owned())
    };
    for line in text.lines() {
        block.line(line, rootdir.as_deref());
    }
    Parser::default().block_diagnostic(
        &block,
        Some((nodeid.to_owned(), message.map(str::to_owned))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_banners_are_pytests_own() {
        assert!(is_report_banner(
            "================== FAILURES ==================="
        ));
        assert!(is_report_banner("=== ERRORS ==="));
        assert!(is_report_banner(
            "____ ERROR collecting tests/test_a.py ____"
        ));
        assert!(!is_report_banner("=== FAILURES in the log ==="));
        assert!(!is_report_banner("==================================="));
        assert!(!is_report_banner("____ ERROR collecting ____"));
        assert!(!is_report_banner("FAILURES"));
    }

    fn parse(log: &str) -> Report {
        PytestSummarizer.parse(log.as_bytes())
    }

    #[test]
    fn a_log_cut_before_its_summary_never_passes() {
        // A UTF-8 BOM hid the session's rule, and the run died in a test.
        let log = "\u{FEFF}===== test session starts =====\ncollected 3 items\n\ntests/test_a.py::test_x PASSED [ 33%]\ntests/test_a.py::test_y ";
        let report = parse(log);
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(
            report.error.as_deref(),
            Some(
                "the log ends before pytest's summary line, while tests/test_a.py::test_y was running"
            )
        );
        assert_eq!(
            parse("tests/test_a.py::test_x PASSED [ 33%]\n").outcome,
            Outcome::Errored
        );
    }

    #[test]
    fn quiet_closing_line_after_the_warnings_summary() {
        let log = "..  [100%]\n===== warnings summary =====\ntests/test_a.py::test_x\n  /app/a.py:4: DeprecationWarning: old\n    x()\n\n-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html\n2 passed, 1 warning in 0.10s\n";
        let report = parse(log);
        assert_eq!(report.outcome, Outcome::Passed);
        assert_eq!(report.counts.tests_passed, Some(2));
        assert_eq!(report.counts.warnings, Some(1));
    }

    #[test]
    fn old_quiet_runs_are_added_up() {
        // pytest before 6: no short summary, the closing line right after the last block.
        let log = ".   [100%]\n1 passed in 0.12 seconds\n.F   [100%]\n===== FAILURES =====\n_____ test_two _____\n\n>       assert 0\nE       assert 0\n\ntest_b.py:8: AssertionError\n1 failed, 1 passed in 0.12 seconds\n";
        let report = parse(log);
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.tests_passed, Some(2));
        assert_eq!(report.counts.tests_failed, Some(1));
    }

    #[test]
    fn rules_with_a_trailing_space() {
        let log = "===== test session starts ===== \ncollected 1 item\n\ntest_a.py .   \n\n===== 1 passed in 0.22s ===== \n";
        let report = parse(log);
        assert_eq!(report.outcome, Outcome::Passed);
        assert_eq!(report.counts.tests_passed, Some(1));
    }

    #[test]
    fn a_long_title_has_a_short_rule() {
        let log = "===== FAILURES =====\n__ TestVeryLongClassName.test_with_a_long_name ___\n\n>       assert 0\nE       assert 0\n\nsite/lib/python3.12/site-packages/x.py:9: AssertionError\ntests/test_a.py:4: AssertionError\n===== short test summary info =====\nFAILED tests/test_a.py::TestVeryLongClassName::test_with_a_long_name\n===== 1 failed in 0.1s =====\n";
        let report = parse(log);
        assert_eq!(report.errors().count(), 1);
        let d = report.diagnostics.first().expect("a failure");
        assert_eq!(
            (d.file.as_deref(), d.line),
            (Some("tests/test_a.py"), Some(4))
        );
        // A line of captured output is not a title.
        assert!(parse("__init__\n").diagnostics.is_empty());
    }

    #[test]
    fn a_quoted_log_is_read_without_its_indentation() {
        let log = "Here is a run:\n\n    $ pytest\n    ===== test session starts =====\n    collected 1 item\n\n    test_a.py F    [100%]\n\n    ===== FAILURES =====\n    _____ test_x _____\n\n        def test_x():\n    >       assert 1 == 2\n    E       assert 1 == 2\n\n    test_a.py:2: AssertionError\n    ===== 1 failed in 0.12s =====\n\nThat is all.\n";
        let report = parse(log);
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.tests_failed, Some(1));
        let d = report.diagnostics.first().expect("a failure");
        assert_eq!((d.file.as_deref(), d.line), (Some("test_a.py"), Some(2)));
    }

    #[test]
    fn final_line_with_every_label() {
        let line = "= 2 failed, 5 passed, 1 skipped, 1 xfailed, 1 xpassed, 3 warnings, 1 error, 2 deselected, 1 rerun in 0.12s =";
        assert!(final_counts(line).is_some());
        assert!(final_counts("5 passed, 1 skipped in 0.02s").is_some());
        assert!(final_counts("no tests ran in 0.01s").is_some());
        // pytest before 5.0.
        assert_eq!(
            final_counts("=== 5 passed, 1 skipped in 84.63 seconds ==="),
            Some("5 passed, 1 skipped")
        );
        assert!(final_counts("= 1 passed, 1 pytest-warnings in 0.01 seconds =").is_some());
        // `--collect-only`.
        assert!(final_counts("=== 34 tests collected in 0.05s ===").is_some());
        assert!(final_counts("1 test collected in 0.01s").is_some());
        assert!(final_counts("35 tests collected, 1 error in 0.21s").is_some());
        assert!(final_counts("2/34 tests collected (32 deselected) in 0.03s").is_some());
        assert!(final_counts("no tests collected in 0.01s").is_some());
        assert!(final_counts("= no tests collected (34 deselected) in 0.05s =").is_some());
        assert!(final_counts("==== 3 passed in 61.20s (0:01:01) ====").is_some());
        assert!(final_counts("5 passing (3ms)").is_none());
    }

    #[test]
    fn node_ids_keep_dots_inside_parameters() {
        assert_eq!(
            node_id("tests/a.py", "K.test_m[1.5-x]"),
            "tests/a.py::K::test_m[1.5-x]"
        );
        assert_eq!(short_name("tests/a.py::K::test_m[1.5]"), "K.test_m[1.5]");
        assert_eq!(
            split_entry("tests/a.py::t[a - b] - AssertionError: x"),
            (
                "tests/a.py::t[a - b]".to_owned(),
                Some("AssertionError: x".to_owned())
            )
        );
    }

    #[test]
    fn tb_line_strict_xpass_does_not_take_the_next_failure() {
        // pytest 8: the xpass has its reason in FAILURES but none in the short summary.
        let pytest8 = concat!(
            "rootdir: /r\n=== FAILURES ===\n[XPASS(strict)] strict xfail\n",
            "/r/tests/test_m.py:33: assert 45 == 40\n=== short test summary info ===\n",
            "FAILED tests/test_m.py::test_xpass\n",
            "FAILED tests/test_m.py::test_slow - assert 45 == 40\n=== 2 failed in 0.01s ===\n",
        );
        // pytest 9: the reason twice in FAILURES, and in the short summary.
        let pytest9 = concat!(
            "rootdir: /r\n=== FAILURES ===\n[XPASS(strict)] strict xfail\n",
            "[XPASS(strict)] strict xfail\n/r/tests/test_m.py:33: assert 45 == 40\n",
            "=== short test summary info ===\n",
            "FAILED tests/test_m.py::test_xpass - [XPASS(strict)] strict xfail\n",
            "FAILED tests/test_m.py::test_slow - assert 45 == 40\n=== 2 failed in 0.01s ===\n",
        );
        for log in [pytest8, pytest9] {
            let report = parse(log);
            assert_eq!(report.diagnostics.len(), 2, "{log}");
            let xpass = &report.diagnostics[0];
            assert_eq!(xpass.test.as_deref(), Some("tests/test_m.py::test_xpass"));
            assert_eq!(xpass.message, "[XPASS(strict)] strict xfail");
            assert_eq!(xpass.line, None);
            let slow = &report.diagnostics[1];
            assert_eq!(slow.test.as_deref(), Some("tests/test_m.py::test_slow"));
            assert_eq!(slow.location().as_deref(), Some("tests/test_m.py:33"));
        }
    }

    #[test]
    fn tb_line_pairs_pytest6_cut_summary_entries_by_their_opening() {
        // pytest 6 cuts a short-summary entry to the terminal's width: `division ...`. Read as
        // 30 characters the entries matched no line, and each line took the next entry of its
        // file instead: the messages and places of different tests.
        let report = parse(concat!(
            "rootdir: /r\n=== FAILURES ===\n",
            "/r/app/calc.py:2: ZeroDivisionError: division by zero\n",
            "/r/tests/test_c.py:34: AssertionError: assert 2.5 == 2.0\n",
            "=== short test summary info ===\n",
            "FAILED tests/test_c.py::test_divide - ZeroDivisionError: division ...\n",
            "FAILED tests/test_c.py::test_ids[with [brackets]] - AssertionError: ...\n",
            "=== 2 failed in 0.01s ===\n",
        ));
        let found: Vec<_> = report
            .diagnostics
            .iter()
            .map(|d| (d.test.as_deref(), d.location(), d.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    Some("tests/test_c.py::test_divide"),
                    Some("app/calc.py:2".to_owned()),
                    "ZeroDivisionError: division by zero"
                ),
                (
                    Some("tests/test_c.py::test_ids[with [brackets]]"),
                    Some("tests/test_c.py:34".to_owned()),
                    "AssertionError: assert 2.5 == 2.0"
                ),
            ]
        );
    }

    #[test]
    fn a_timeout_that_ended_the_run_is_the_failing_test() {
        // pytest-timeout's thread method dumps the stacks and ends the process: no report, no
        // closing line.
        let log = concat!(
            "=== test session starts ===\nrootdir: /r\ncollected 2 items\n\n",
            "tests/test_t.py .++++ Timeout ++++\n",
            "~~~~ Stack of Thread-1 (1) ~~~~\n",
            "  File \"/r/tests/helper.py\", line 3, in serve\n",
            "~~~~ Stack of MainThread (2) ~~~~\n",
            "  File \"/usr/lib/python3.11/threading.py\", line 9, in run\n",
            "  File \"/r/tests/test_t.py\", line 26, in test_hangs\n",
            "    time.sleep(5)\n",
            "++++ Timeout ++++\n",
        );
        let report = parse(log);
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("tests/test_t.py::test_hangs"));
        assert_eq!(d.location().as_deref(), Some("tests/test_t.py:26"));
        // With `-v` the node id is printed before the dump.
        let verbose = log.replace(
            "tests/test_t.py .",
            "tests/test_t.py::K::test_hangs[a - b] ",
        );
        let report = parse(&verbose);
        assert_eq!(
            report.diagnostics[0].test.as_deref(),
            Some("tests/test_t.py::K::test_hangs[a - b]")
        );
        // A dump in a test's captured output, of a run that went on to its report, is no
        // failure of its own.
        let finished = format!("{log}=== 1 passed in 1.00s ===\n");
        assert_eq!(parse(&finished).outcome, Outcome::Passed);
    }

    #[test]
    fn coverage_under_its_minimum_fails_a_run_whose_tests_passed() {
        // pytest-cov 4 prints only its `FAIL` line, 5 and later an `ERROR:` line before it too;
        // pytest exits 1, and the closing line says `1 passed`.
        let cov4 = concat!(
            "=== test session starts ===\ncollected 1 item\n\nt.py .\n",
            "TOTAL                21     21     0%\n\n",
            "FAIL Required test coverage of 95% not reached. Total coverage: 0.00%\n",
            "=== 1 passed in 0.09s ===\n",
        );
        let cov7 = concat!(
            "=== test session starts ===\ncollected 1 item\n\nt.py .\n",
            "ERROR: Coverage failure: total of 14 is less than fail-under=95\n",
            "=== tests coverage ===\nTOTAL                21     18    14%\n",
            "FAIL Required test coverage of 95% not reached. Total coverage: 14.29%\n",
            "=== 1 passed in 0.15s ===\n",
        );
        for (log, total) in [(cov4, "0.00%"), (cov7, "14.29%")] {
            let report = parse(log);
            assert_eq!(report.outcome, Outcome::Failed, "{log}");
            assert_eq!(report.error, None);
            assert_eq!(report.diagnostics.len(), 1);
            assert_eq!(
                report.diagnostics[0].message,
                format!("Required test coverage of 95% not reached. Total coverage: {total}")
            );
        }
    }

    #[test]
    fn a_failing_subtest_is_its_tests_failure() {
        // pytest 9 titles the block `K.test_m (i=1)`: read as a test of its own it was
        // `tests/a.py::K::test_m (i=1)`, no node id.
        assert_eq!(
            subtest_failed("SUBFAILED(i=1) tests/a.py::K::t - AssertionError: x"),
            Some("tests/a.py::K::t - AssertionError: x")
        );
        assert_eq!(
            subtest_failed("SUBFAILED(i=1) a.py::t[x) y] - E"),
            Some("a.py::t[x) y] - E")
        );
        assert_eq!(subtest_failed("SUBFAILED(i=1)"), None);
        assert_eq!(subtest_of("K.test_m (i=1)"), Some("K.test_m"));
        assert_eq!(subtest_of("test_m [custom] (i=1)"), Some("test_m"));
        assert_eq!(subtest_of("test_m[a b]"), None);
        let report = parse(concat!(
            "rootdir: /r\n=== FAILURES ===\n___ K.t (i=1) ___\nE   AssertionError: 1\n",
            "tests/a.py:8: AssertionError\n___ K.t (i=2) ___\nE   AssertionError: 2\n",
            "tests/a.py:8: AssertionError\n=== short test summary info ===\n",
            "SUBFAILED(i=1) tests/a.py::K::t - AssertionError: 1\n",
            "SUBFAILED(i=2) tests/a.py::K::t - AssertionError: 2\n",
            "=== 2 failed, 1 passed in 0.04s ===\n",
        ));
        let found: Vec<_> = report
            .diagnostics
            .iter()
            .map(|d| (d.test.as_deref(), d.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (Some("tests/a.py::K::t"), "AssertionError: 1"),
                (Some("tests/a.py::K::t"), "AssertionError: 2")
            ]
        );
    }

    #[test]
    fn short_traceback_names_the_test_file_line() {
        let report = parse(
            "=== FAILURES ===\n___ test_add ___\ntests/test_a.py:4: in test_add\n    helper()\nsrc/m.py:9: in helper\n    raise ValueError('x')\nE   ValueError: x\n=== short test summary info ===\nFAILED tests/test_a.py::test_add - ValueError: x\n=== 1 failed in 0.01s ===\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("tests/test_a.py::test_add"));
        assert_eq!(d.location().as_deref(), Some("tests/test_a.py:4"));
        assert_eq!(d.message, "ValueError: x");
    }

    #[test]
    fn no_tests_ran_is_errored() {
        let report = parse("collected 0 items\n\n=== no tests ran in 0.01s ===\n");
        assert_eq!(report.outcome, Outcome::Errored);
    }

    #[test]
    fn garbage_does_not_panic() {
        for log in [
            "=",
            "___",
            "E",
            "E ",
            "FAILED ",
            "ERROR ",
            "x.py:",
            "x.py:1",
            "File \"",
            "File \"x\", line ",
            "[gw0",
            "___ ERROR collecting ___\n",
            "+ Timeout +",
            "++ Timeout ++\n  File \"",
            "=== test session starts ===\n++ Timeout ++\n  File \"x\", line 1, in \n",
        ] {
            let _ = parse(log);
        }
    }
}
