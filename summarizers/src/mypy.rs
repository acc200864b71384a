//! The `mypy` summarizer: the Python type checker's standard lines, and its `-O json` output.
//!
//! What a mypy log holds, and how each part is read:
//! - A diagnostic: `shop/cart.py:13: error: Incompatible return value type (got "str", expected
//!   "int")  [return-value]`, with `:col` after the line under `--show-column-numbers` and
//!   `:col:end_line:end_col` under `--show-error-end`. The code in brackets is the rule; mypy
//!   before 0.990 and `--hide-error-codes` print none.
//! - Notes: `file:line: note: …`. A note at the line of the error just before it is that error's
//!   hint (the overload variants, a link to the docs), as `-O json` attaches it; any other note (a
//!   revealed type) is a diagnostic of its own, of severity info. `file: note: In function "f":`
//!   (`--show-error-context`) only says where the next errors are, and is skipped.
//! - `--pretty` wraps a long message onto unindented lines (the code alone on the last one) and
//!   shows the source line and a `^~~~` marker indented below it; the indented lines are skipped.
//! - The summary: `Found 12 errors in 3 files (checked 5 source files)`, or `(errors prevented
//!   further checking)` when an error stopped mypy early (a syntax error, a file it cannot read, a
//!   plugin it cannot import), or `Success: no issues found in 3 source files`. It gives the counts
//!   and is the evidence that mypy checked something.
//! - What stops mypy before it checks anything as configured is errored: its usage error
//!   (`mypy: error: unrecognized arguments: …`), a target it cannot find (`Can't find package
//!   'x'`), an error without a line (`src/x.py: error: Cannot read file: …`), an error located in
//!   its configuration file (a plugin that does not import), an internal error or a traceback, and a
//!   configuration file it could not read (`pyproject.toml: Expected ']' …`): mypy then warns and
//!   checks without the configuration, so even its success is no pass. An unrecognized option in
//!   the configuration is only a note.
//!
//! [`from_json`] reads the `-O json` output (mypy 1.11 and later): one JSON object per line with
//! a 0-based column and the notes of an error joined in its `hint`, and no summary line. Lines that
//! are not JSON objects (the same usage and configuration errors, on standard error) are read as
//! above.

use std::collections::HashSet;

use serde::Deserialize;
use verdict_model::{
    Diagnostic, Evidence, Kind, LineParser, Outcome, Report, Severity, Summarizer,
};

use crate::text::clip;

const TOOL: &str = "mypy";

/// The longest message kept, in characters.
const MAX_MESSAGE: usize = 400;
/// The longest hint kept (the notes of an error), in characters.
const MAX_DETAIL: usize = 600;
/// How many unindented lines a `--pretty` message may wrap onto.
const MAX_WRAPPED: usize = 10;
/// How many distinct file names are remembered to count the files with errors.
const MAX_FILES: usize = 100_000;

/// Lines mypy prints instead of checking, when it cannot find or read what it was told to check.
const FATAL_PREFIXES: [&str; 9] = [
    "Can't find package '",
    "Can't find module '",
    "There are no .py[i] files in directory '",
    "Duplicate module named '",
    "mypy: can't read file '",
    "mypy: can't decode file '",
    "mypy: error: ",
    "Traceback (most recent call last):",
    // `error: Missing target module, package, files, or command.` and mypy's other refusals.
    "error: ",
];

/// Parses mypy's standard output.
#[derive(Debug, Default, Clone, Copy)]
pub struct MypySummarizer;

impl Summarizer for MypySummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Type
    }

    fn sniff(&self, sample: &str) -> u8 {
        let mut score = 0;
        for line in sample.lines().take(5_000) {
            let line = line.trim_end();
            if parse_summary(line).is_some() || line.starts_with("usage: mypy ") {
                return 95;
            }
            // An object of `-O json`.
            if line.starts_with("{\"file\": ") && line.contains("\"severity\": ") {
                score = score.max(90);
            }
            // What mypy prints when it cannot find what it was told to check.
            if FATAL_PREFIXES[..6].iter().any(|p| line.starts_with(p)) {
                score = score.max(70);
            }
            if let Some(header) = parse_header(line)
                && header.line.is_some()
                && is_python(header.file)
            {
                // The bracketed code is mypy's mark; a bare `file.py:3: error:` could be another
                // Python tool's.
                score = score.max(if header.code.is_some() { 85 } else { 60 });
            }
        }
        score
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }
}

/// Reads mypy's `-O json` output: one object per line, and any other line as the standard
/// output is read (usage and configuration errors). There is no summary line: the counts are the
/// errors read, and a clean run gives no evidence of what it checked. [`MypySummarizer`] reads
/// the same objects in a log; this is it for a text held in memory.
pub fn from_json(text: &str) -> Report {
    MypySummarizer.parse(text.as_bytes())
}

/// One line of `-O json` output.
#[derive(Deserialize)]
struct JsonError {
    file: String,
    line: i64,
    column: i64,
    message: String,
    hint: Option<String>,
    code: Option<String>,
    severity: String,
}

/// A diagnostic line, split.
#[derive(Debug, PartialEq, Eq)]
struct Header<'a> {
    file: &'a str,
    line: Option<u32>,
    column: Option<u32>,
    severity: &'a str,
    message: &'a str,
    code: Option<&'a str>,
}

/// Splits `file[:line[:col[:end_line:end_col]]]: severity: message[  [code]]`.
fn parse_header(line: &str) -> Option<Header<'_>> {
    let (at, severity, marker) = [
        (": error: ", "error"),
        (": note: ", "note"),
        (": warning: ", "warning"),
    ]
    .iter()
    .filter_map(|(marker, s)| Some((line.find(marker)?, *s, *marker)))
    .min_by_key(|(at, ..)| *at)?;
    let mut location = &line[..at];
    let rest = &line[at + marker.len()..];
    let mut numbers = Vec::new();
    while numbers.len() < 4
        && let Some((head, last)) = location.rsplit_once(':')
        && !last.is_empty()
        && last.bytes().all(|b| b.is_ascii_digit())
    {
        numbers.push(last.parse::<u32>().ok()?);
        location = head;
    }
    numbers.reverse();
    let file = location;
    if file.is_empty() || file.starts_with(char::is_whitespace) || numbers.len() == 3 {
        return None;
    }
    let (message, code) = split_code(rest);
    Some(Header {
        file,
        line: numbers.first().copied(),
        column: numbers.get(1).copied(),
        severity,
        message,
        code,
    })
}

/// Splits the `  [code]` off the end of a message.
fn split_code(text: &str) -> (&str, Option<&str>) {
    let text = text.trim_end();
    if let Some(open) = text.rfind('[')
        && text.ends_with(']')
        && (open == 0 || text[..open].ends_with(' '))
    {
        let code = &text[open + 1..text.len() - 1];
        if !code.is_empty()
            && code.starts_with(|c: char| c.is_ascii_lowercase())
            && code
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return (text[..open].trim_end(), Some(code));
        }
    }
    (text, None)
}

/// The summary line, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Summary {
    /// `Success: no issues found in N source files`.
    Success { checked: u64 },
    /// `Found N errors in M files (…)`; `checked` is `None` when errors prevented checking.
    Found {
        errors: u64,
        files: u64,
        checked: Option<u64>,
    },
}

/// Reads `Success: …` or `Found N errors in M files (…)`.
fn parse_summary(line: &str) -> Option<Summary> {
    let line = crate::text::before_replacement(line);
    let number = |text: &str| -> Option<u64> { text.parse().ok() };
    if let Some(rest) = line.strip_prefix("Success: no issues found in ") {
        let checked = number(
            rest.strip_suffix(" source files")
                .or_else(|| rest.strip_suffix(" source file"))?,
        )?;
        return Some(Summary::Success { checked });
    }
    let rest = line.strip_prefix("Found ")?;
    let (errors, rest) = rest.split_once(' ')?;
    let rest = rest
        .strip_prefix("errors in ")
        .or_else(|| rest.strip_prefix("error in "))?;
    let (files, rest) = rest.split_once(' ')?;
    let rest = rest
        .strip_prefix("files (")
        .or_else(|| rest.strip_prefix("file ("))?;
    let checked = if rest == "errors prevented further checking)" {
        None
    } else {
        let rest = rest.strip_prefix("checked ")?;
        let (n, tail) = rest.split_once(' ')?;
        if !tail.starts_with("source file") {
            return None;
        }
        Some(number(n)?)
    };
    Some(Summary::Found {
        errors: number(errors)?,
        files: number(files)?,
        checked,
    })
}

/// Whether `line` says mypy stopped without checking: a refusal, a traceback, a crash.
fn is_fatal(line: &str) -> bool {
    FATAL_PREFIXES.iter().any(|p| line.starts_with(p)) || line.contains("INTERNAL ERROR")
}

/// Whether an error is the cause of others: a syntax error stops mypy before it checks the rest,
/// and a module that cannot be imported turns what uses it into `Any` or more errors.
fn is_root_cause(message: &str, code: Option<&str>) -> bool {
    matches!(
        code,
        Some("syntax" | "import-not-found" | "import-untyped" | "import")
    ) || message.starts_with("Cannot find implementation or library stub")
        || message.starts_with("Skipping analyzing ")
}

/// Whether `file` is a Python source or stub.
fn is_python(file: &str) -> bool {
    file.ends_with(".py") || file.ends_with(".pyi")
}

/// Whether `file` is a configuration file rather than code: mypy reports errors in its own
/// configuration (`mypy.ini:2: error: Error importing plugin …`) like errors in code.
fn is_config(file: &str) -> bool {
    [".ini", ".toml", ".cfg"]
        .iter()
        .any(|ext| file.ends_with(ext))
}

/// The streaming parser.
#[derive(Default)]
struct Parser {
    report: Report0,
}

/// What the parser has read so far.
#[derive(Default)]
struct Report0 {
    diagnostics: Vec<Diagnostic>,
    dropped: u64,
    /// The index of the last error kept and its place, which its notes share.
    last_error: Option<(usize, String, Option<u32>)>,
    /// The message of the last header still wrapped onto the next lines (`--pretty`).
    wrapping: Option<usize>,
    wrapped: usize,
    summary: Option<(Summary, String)>,
    /// Why mypy checked nothing as configured, first reason first.
    fatal: Option<String>,
    /// Errors located in code, and the files they are in.
    errors: u64,
    files: HashSet<String>,
    notes: Vec<String>,
    ran: bool,
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        let line = line.trim_end();
        if line.is_empty() {
            self.report.wrapping = None;
            return;
        }
        if line.starts_with(char::is_whitespace) {
            // A code wrapped alone onto its line is indented by a space when the message filled
            // the line before it (` [no-any-return]`).
            let trimmed = line.trim_start();
            if self.report.wrapping.is_some() && split_code(trimmed).0.is_empty() {
                self.continue_message(trimmed);
                return;
            }
            // A `--pretty` source line and its marker, the usage text, a traceback's frames.
            self.report.wrapping = None;
            return;
        }
        // `-O json` output, read by the same parser: usage and configuration errors around it
        // are standard lines.
        if line.starts_with('{')
            && let Ok(error) = serde_json::from_str::<JsonError>(line)
        {
            self.json_error(error);
            return;
        }
        if let Some(summary) = parse_summary(line) {
            self.report.wrapping = None;
            self.report.summary = Some((summary, line.to_owned()));
            return;
        }
        if let Some(header) = parse_header(line) {
            self.header(&header);
            return;
        }
        if self.continue_message(line) {
            return;
        }
        self.other(line);
    }

    fn finish(self: Box<Self>) -> Report {
        self.report.finish()
    }
}

impl Parser {
    /// A diagnostic line.
    fn header(&mut self, header: &Header<'_>) {
        self.report.wrapping = None;
        self.report.ran = true;
        if header.file == "mypy" && header.line.is_none() {
            // `mypy: error: unrecognized arguments: --x`, after the usage text.
            self.report.fatal(&line_text(header));
            return;
        }
        match header.severity {
            "note" => self.note(header),
            _ => self.error(header),
        }
    }

    fn error(&mut self, header: &Header<'_>) {
        let r = &mut self.report;
        let severity = if header.severity == "warning" {
            Severity::Warning
        } else {
            Severity::Error
        };
        // A crash is reported as an error at the line mypy was checking.
        let crashed = header.message.starts_with("INTERNAL ERROR");
        if severity == Severity::Error
            && (crashed || header.line.is_none() || is_config(header.file))
        {
            r.fatal(&line_text(header));
        }
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Type,
            severity,
            clip(header.message, MAX_MESSAGE),
        )
        .at(header.file, header.line, header.column);
        if let Some(code) = header.code {
            d = d.with_code(code);
        }
        if is_root_cause(header.message, header.code) {
            d = d.as_root_cause();
        }
        if severity == Severity::Error {
            r.errors += 1;
            if r.files.len() < MAX_FILES {
                r.files.insert(header.file.to_owned());
            }
        }
        if let Some(index) = r.push(d) {
            r.last_error = Some((index, header.file.to_owned(), header.line));
            if header.code.is_none() {
                r.wrapping = Some(index);
                r.wrapped = 0;
            }
        } else {
            r.last_error = None;
        }
    }

    fn note(&mut self, header: &Header<'_>) {
        let r = &mut self.report;
        if header.line.is_none() {
            // `In function "f":`, `At top level:`: where the next errors are.
            return;
        }
        if let Some((index, file, line)) = &r.last_error
            && file == header.file
            && *line == header.line
            && let Some(d) = r.diagnostics.get_mut(*index)
        {
            let detail = match d.detail.take() {
                Some(detail) => format!("{detail}\n{}", header.message),
                None => header.message.to_owned(),
            };
            d.detail = Some(clip(&detail, MAX_DETAIL));
            return;
        }
        r.last_error = None;
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Type,
            Severity::Info,
            clip(header.message, MAX_MESSAGE),
        )
        .at(header.file, header.line, header.column);
        if let Some(code) = header.code {
            d = d.with_code(code);
        }
        r.push(d);
    }

    /// An unindented line after a message that has not shown its code yet: `--pretty` wrapped it.
    fn continue_message(&mut self, line: &str) -> bool {
        let r = &mut self.report;
        let Some(index) = r.wrapping else {
            return false;
        };
        // What says mypy stopped is never part of a message.
        if is_fatal(line) || line.starts_with("usage: mypy ") {
            r.wrapping = None;
            return false;
        }
        r.wrapped += 1;
        if r.wrapped > MAX_WRAPPED {
            r.wrapping = None;
            return false;
        }
        let (text, code) = split_code(line);
        let Some(d) = r.diagnostics.get_mut(index) else {
            return false;
        };
        if !text.is_empty() {
            d.message = clip(&format!("{} {text}", d.message), MAX_MESSAGE);
        }
        if let Some(code) = code {
            d.code = Some(code.to_owned());
            d.root_cause = d.root_cause || is_root_cause(&d.message, Some(code));
            r.wrapping = None;
        }
        true
    }

    /// A line that is neither a diagnostic nor the summary.
    fn other(&mut self, line: &str) {
        let r = &mut self.report;
        if is_fatal(line) {
            r.ran = true;
            r.fatal(line);
            return;
        }
        if line.starts_with("usage: mypy ") {
            r.ran = true;
            return;
        }
        // `pyproject.toml: Expected ']' …`, `mypy.ini: [mypy]: strict: Not a boolean: maybe`.
        if let Some((file, message)) = line.split_once(": ")
            && is_config(file)
            && !file.contains(' ')
        {
            r.ran = true;
            if message.contains("Unrecognized option: ") {
                r.notes.push(clip(line, MAX_MESSAGE));
            } else {
                r.fatal(&format!("mypy could not read its configuration: {line}"));
            }
        }
    }

    /// An object of the `-O json` output.
    fn json_error(&mut self, error: JsonError) {
        let line = u32::try_from(error.line).ok().filter(|n| *n > 0);
        // The JSON column is 0-based; the standard lines', like every report's, 1-based.
        let column = u32::try_from(error.column)
            .ok()
            .map(|c| c.saturating_add(1));
        let header = Header {
            file: &error.file,
            line,
            column,
            severity: match error.severity.as_str() {
                "note" => "note",
                "warning" => "warning",
                _ => "error",
            },
            message: &error.message,
            code: error.code.as_deref(),
        };
        self.header(&header);
        let r = &mut self.report;
        r.wrapping = None;
        if let Some(hint) = error.hint
            && header.severity != "note"
            && let Some((index, ..)) = r.last_error
            && let Some(d) = r.diagnostics.get_mut(index)
        {
            d.detail = Some(clip(&hint, MAX_DETAIL));
        }
    }
}

/// A header as one line of text, for an error message.
fn line_text(header: &Header<'_>) -> String {
    let place = match header.line {
        Some(line) => format!("{}:{line}", header.file),
        None => header.file.to_owned(),
    };
    clip(
        &format!("{place}: {}: {}", header.severity, header.message),
        MAX_MESSAGE,
    )
}

impl Report0 {
    /// Keeps a diagnostic, or counts it once enough are kept; returns its index.
    fn push(&mut self, d: Diagnostic) -> Option<usize> {
        if self.diagnostics.len() < verdict_model::model::MAX_DIAGNOSTICS {
            self.diagnostics.push(d);
            Some(self.diagnostics.len() - 1)
        } else {
            self.dropped += 1;
            None
        }
    }

    /// Records why mypy checked nothing as configured; the first reason is kept.
    fn fatal(&mut self, reason: &str) {
        if self.fatal.is_none() {
            self.fatal = Some(clip(reason, MAX_MESSAGE));
        }
    }

    fn finish(self) -> Report {
        let mut report = Report::new(TOOL, Outcome::Passed);
        if self.ran {
            report.saw(Evidence::Ran);
        }
        let in_code = self.diagnostics.iter().any(|d| {
            d.severity == Severity::Error
                && d.line.is_some()
                && !d.file.as_deref().is_some_and(is_config)
        });
        match self.summary {
            Some((
                Summary::Found {
                    errors,
                    files,
                    checked,
                },
                line,
            )) => {
                report.counts.errors = Some(errors);
                report.counts.files = Some(files);
                report.summary = Some(line);
                report.outcome = Outcome::Failed;
                if checked.is_none() && in_code {
                    report.note("errors prevented further checking: mypy checked nothing else");
                }
            }
            Some((Summary::Success { .. }, line)) => {
                report.counts.errors = Some(0);
                report.summary = Some(line);
            }
            None if self.errors > 0 => {
                report.counts.errors = Some(self.errors);
                report.counts.files = Some(self.files.len() as u64);
                report.outcome = Outcome::Failed;
            }
            None => {}
        }
        for d in self.diagnostics {
            report.push(d);
        }
        report.diagnostics_dropped += self.dropped;
        for note in self.notes {
            report.note(note);
        }
        // A syntax error stops mypy too, but it is an error in the code, located there: the run
        // failed. What stopped it anywhere else means nothing was checked as configured.
        if let Some(reason) = self.fatal {
            report.outcome = Outcome::Errored;
            report.error = Some(reason);
        }
        report
    }
}
