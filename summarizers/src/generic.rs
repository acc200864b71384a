//! The `generic` summarizer: the fallback for every tool verdict has no summarizer of its own for.
//!
//! It knows no tool's format, only the shapes most tools share:
//! - `file:line[:col]: severity: message [code]` — gcc and clang (`main.c:3:10: error: … [-Wformat=]`),
//!   mypy (`src/a.py:12: error: …  [arg-type]`), and many linters; Go's `file.go:12:5: message`
//!   has no severity and is taken as an error;
//! - Python tracebacks (`Traceback (most recent call last):` … `File "x.py", line 3, in f` …
//!   `KeyError: 'port'`): the last line is the message, the last frame outside the standard
//!   library and installed packages is the place;
//! - Go and Rust panics (`panic: …` with `\tmain.go:12` frames, `thread 'main' panicked at
//!   src/main.rs:3:5:`), linker errors (`main.c:(.text+0xa): undefined reference to `f'`);
//! - lines that only say something failed (`error: …`, `fatal: …`, `FAILED …`, `make: *** […]
//!   Error 2`): signs of failure with no place;
//! - TAP, as Node.js's own test runner (`node --test --test-reporter=tap`) and other TAP producers
//!   write it: each `not ok N - name` is a failing test (but for `# TODO` and `# SKIP`), placed and
//!   explained by its YAML block (`location: '/app/a.test.js:8:1'`, `error: …`); a suite that
//!   failed only because its subtests did (`failureType: 'subtestsFailed'`) is not counted again;
//!   the `# pass N` / `# fail N` / `# skipped N` totals are the counts.
//!
//! Counts are taken only from a summary the tool printed (mypy's `Found 3 errors in 2 files
//! (checked 5 source files)`, clang's `2 errors generated.`); gcc prints none, so they stay unknown.
//! The outcome is failed when errors could be placed, errored when the log shows failure signs but
//! nothing placeable, passed when it shows a summary, TAP or warnings and no failure — and errored
//! when it shows nothing this reader understands (an empty log included): a log of an unknown
//! tool is "could not verify", never "no failure found". [`GenericSummarizer::sniff`] always says 0: it is chosen
//! only when no other summarizer claims a log.

use verdict_model::{
    Diagnostic, Evidence, Kind, LineParser, Outcome, Report, Severity, Summarizer,
};

use crate::tap_stream::{Names, Tap};
use crate::text::{clip, count_of};

const TOOL: &str = "generic";
const MAX_MESSAGE: usize = 300;
/// Lines a panic's frames are looked for in.
const MAX_PANIC_LINES: u32 = 60;

/// The fallback parser for any other tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct GenericSummarizer;

impl Summarizer for GenericSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Custom
    }

    fn sniff(&self, _sample: &str) -> u8 {
        // The fallback claims nothing: `detect` picks it when no other summarizer is sure.
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser {
            tap: Tap::new(TOOL, Names::Nested),
            report: Report::new(TOOL, Outcome::Passed),
            traceback: None,
            held: None,
            panic: None,
            go_test: None,
            failure_sign: None,
            placed_error: false,
            error_lines: 0,
            open_message: false,
            summary: None,
            errors: None,
            warnings: None,
            files: None,
            first: None,
        })
    }
}

/// `: error: `, searched with a prebuilt finder: a substring search per line would build its
/// searcher every time.
static FILE_ERROR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(": error: "));

/// The parts of `file:line[:col]: [severity:] message`.
struct Located<'a> {
    file: &'a str,
    line: u32,
    column: Option<u32>,
    severity: Option<&'a str>,
    message: &'a str,
}

/// Severity words a located line may carry before its message.
const SEVERITIES: &[&str] = &[
    "fatal error",
    "error",
    "warning",
    "note",
    "info",
    "Error",
    "Warning",
    "ERROR",
    "WARNING",
    "Note",
    "Info",
    "remark",
];

/// Splits `file:line[:col]: [severity:] message`; the file holds no colon and starts with no
/// blank. Written by hand: a regex with captures ran at a tenth of the speed.
fn located(line: &str) -> Option<Located<'_>> {
    let bytes = line.as_bytes();
    let colon = memchr::memchr(b':', bytes)?;
    if colon == 0 || bytes[0].is_ascii_whitespace() {
        return None;
    }
    let digits = |from: usize| {
        let end = bytes[from..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(bytes.len(), |n| from + n);
        (end > from).then_some(end)
    };
    let line_end = digits(colon + 1)?;
    if bytes.get(line_end) != Some(&b':') {
        return None;
    }
    let line_no: u32 = line[colon + 1..line_end].parse().ok()?;
    let mut rest_start = line_end + 1;
    let mut column = None;
    if let Some(col_end) = digits(line_end + 1)
        && bytes.get(col_end) == Some(&b':')
    {
        column = line[line_end + 1..col_end].parse().ok();
        rest_start = col_end + 1;
    }
    let rest = line[rest_start..].trim_start();
    let mut severity = None;
    let mut message = rest;
    for word in SEVERITIES {
        if let Some(after) = rest.strip_prefix(word) {
            let after = after.trim_start();
            if let Some(after) = after.strip_prefix(':') {
                severity = Some(*word);
                message = after.trim_start();
                break;
            }
        }
    }
    Some(Located {
        file: &line[..colon],
        line: line_no,
        column,
        severity,
        message,
    })
}

/// Source files whose diagnostics come from compilers.
const BUILD_EXTENSIONS: &[&str] = &[
    ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".m", ".mm", ".go", ".rs", ".swift", ".java",
    ".kt", ".cs", ".zig", ".f90", ".s",
];

fn has_extension(file: &str, extensions: &[&str]) -> bool {
    extensions.iter().any(|e| file.ends_with(e))
}

/// A trailing `[code]` (`[-Wformat=]`, mypy's `  [arg-type]`): the message without it, and the
/// code.
fn split_code(message: &str) -> (&str, Option<&str>) {
    let trimmed = message.trim_end();
    if let Some(open) = trimmed.rfind(" [") {
        let code = &trimmed[open + 2..];
        if let Some(code) = code.strip_suffix(']')
            && !code.is_empty()
            && code.len() <= 60
            && !code.contains(' ')
            && !code.contains('[')
        {
            return (trimmed[..open].trim_end(), Some(code));
        }
    }
    (trimmed, None)
}

/// Whether a file belongs to the standard library or an installed package rather than the
/// project: its frames say where the error surfaced, not where to fix it.
fn is_foreign(file: &str) -> bool {
    file.starts_with('<')
        || file.contains("/lib/python")
        || file.contains("site-packages/")
        || file.contains("dist-packages/")
        || file.contains("/node_modules/")
        || file.contains("/go/src/runtime/")
        || file.starts_with("/usr/")
        || file.starts_with("node:")
}

/// Whether a message names code that cannot be found or parsed: the cause of what follows.
fn is_root_cause(message: &str, code: Option<&str>) -> bool {
    matches!(
        code,
        Some("import-not-found" | "import-untyped" | "import" | "syntax" | "misc-import")
    ) || message.contains("No such file or directory")
        || message.starts_with("ModuleNotFoundError")
        || message.starts_with("ImportError")
        || message.starts_with("SyntaxError")
        || message.starts_with("IndentationError")
        || message.starts_with("Cannot find module")
        || message.contains("cannot find package")
        || message.contains("no required module provides package")
        || message.starts_with("Cannot find implementation or library stub")
}

/// A Python traceback being read.
#[derive(Default)]
struct Traceback {
    /// The last frame outside the standard library and packages.
    place: Option<(String, u32)>,
    /// Any last frame, for when all are foreign.
    last: Option<(String, u32)>,
}

/// A Go or Rust panic whose place is still being looked for.
struct Panic {
    message: String,
    lines: u32,
    /// Rust prints the place first and the message on the next line.
    place: Option<(String, u32, Option<u32>)>,
    awaiting_message: bool,
}

struct Parser {
    report: Report,
    tap: Tap,
    traceback: Option<Traceback>,
    /// A finished traceback held back one line: a chained exception replaces it.
    held: Option<Diagnostic>,
    panic: Option<Panic>,
    /// The test a Go `--- FAIL: TestX` line opened.
    go_test: Option<String>,
    /// The first line that shows a failure but no place.
    failure_sign: Option<String>,
    /// An error diagnostic with a place.
    placed_error: bool,
    error_lines: u64,
    /// Whether the last diagnostic's message may continue on the next line (mypy `--pretty`).
    open_message: bool,
    summary: Option<String>,
    errors: Option<u64>,
    warnings: Option<u64>,
    files: Option<u64>,
    /// The first character of the input that is not white space: `{` or `[` starts a JSON
    /// document, which no line of a log reader understands.
    first: Option<char>,
}

impl Parser {
    fn push(&mut self, d: Diagnostic) {
        if d.severity == Severity::Error {
            self.error_lines += 1;
            if d.line.is_some() {
                self.placed_error = true;
            } else {
                self.sign(&d.message);
            }
        }
        self.report.push(d);
    }

    fn sign(&mut self, line: &str) {
        if self.failure_sign.is_none() {
            self.failure_sign = Some(clip(line.trim(), MAX_MESSAGE));
        }
    }

    fn release_held(&mut self) {
        if let Some(d) = self.held.take() {
            self.push(d);
        }
    }

    fn finish_panic(&mut self) {
        let Some(panic) = self.panic.take() else {
            return;
        };
        let root = is_root_cause(&panic.message, None);
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Custom,
            Severity::Error,
            clip(&panic.message, MAX_MESSAGE),
        );
        if let Some((file, line, column)) = panic.place {
            d = d.at(file, Some(line), column);
        }
        if root {
            d = d.as_root_cause();
        }
        self.push(d);
    }

    /// A line while a traceback is open: a frame, code, or the exception that ends it.
    fn traceback_line(&mut self, line: &str) {
        let Some(tb) = self.traceback.as_mut() else {
            return;
        };
        if let Some(frame) = line.trim_start().strip_prefix("File \"") {
            if let Some((file, rest)) = frame.split_once("\", line ") {
                let digits = &rest[..rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len())];
                if let Ok(n) = digits.parse::<u32>() {
                    if !is_foreign(file) {
                        tb.place = Some((file.to_owned(), n));
                    }
                    tb.last = Some((file.to_owned(), n));
                }
            }
            return;
        }
        if line.starts_with(' ') || line.starts_with('\t') || line.is_empty() {
            return;
        }
        // The first unindented line ends the traceback: the exception.
        let Some(tb) = self.traceback.take() else {
            return;
        };
        let (message, _) = split_code(line);
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Custom,
            Severity::Error,
            clip(message, MAX_MESSAGE),
        );
        if let Some((file, n)) = tb.place.or(tb.last) {
            d = d.at(file, Some(n), None);
        }
        if is_root_cause(line, None) {
            d = d.as_root_cause();
        }
        self.held = Some(d);
    }

    fn located(&mut self, line: &str) -> bool {
        // Cheap gate: a colon followed by a digit (`:12`), or a linker's `:(.text`.
        let bytes = line.as_bytes();
        let gate = memchr::memchr_iter(b':', bytes).any(|i| {
            bytes
                .get(i + 1)
                .is_some_and(|b| b.is_ascii_digit() || *b == b'(')
        });
        if !gate {
            // `src/nope.py: error: Cannot read file`: an error with a file and no line.
            if let Some(at) = FILE_ERROR.find(bytes)
                && let (file, message) = (&line[..at], &line[at + ": error: ".len()..])
                && !file.is_empty()
                && !file.contains(' ')
                && file.contains('.')
            {
                let d = Diagnostic::new(
                    TOOL,
                    Kind::Custom,
                    Severity::Error,
                    clip(message, MAX_MESSAGE),
                )
                .at(file, None, None);
                self.push(d);
                return true;
            }
            return false;
        }
        if let Some(d) = linker_error(line) {
            self.error_lines += 1;
            self.placed_error = true;
            self.report.push(d);
            return true;
        }
        let Some(found) = located(line) else {
            return false;
        };
        let file = found.file;
        if file.contains("//") || file.starts_with("http") {
            return false;
        }
        let line_no = found.line;
        let column = found.column;
        let severity_text = found.severity.map(str::to_ascii_lowercase);
        let raw = found.message;
        let severity = match severity_text.as_deref() {
            Some("error" | "fatal error") => Severity::Error,
            Some("warning") => Severity::Warning,
            Some(_) => return true, // notes, remarks: context for the line before
            None => {
                // Without a severity, only a compiler's `file:line:col: message` (Go) is
                // trusted; anything else could be grep output or a log line.
                if column.is_some() && has_extension(file, BUILD_EXTENSIONS) && !raw.is_empty() {
                    Severity::Error
                } else if let Some(test) = self.go_test.clone().filter(|_| line.starts_with(' ')) {
                    let d =
                        Diagnostic::new(TOOL, Kind::Test, Severity::Error, clip(raw, MAX_MESSAGE))
                            .at(file.trim(), Some(line_no), column)
                            .with_test(test);
                    self.push(d);
                    return true;
                } else {
                    return false;
                }
            }
        };
        if self.report.diagnostics.len() >= verdict_model::model::MAX_DIAGNOSTICS {
            // Beyond the cap a diagnostic is only counted; building it would cost the time.
            self.report.diagnostics_dropped += 1;
            if severity == Severity::Error {
                self.error_lines += 1;
                self.placed_error = true;
            }
            self.open_message = false;
            return true;
        }
        let (message, code) = split_code(raw);
        let kind = if has_extension(file, BUILD_EXTENSIONS) {
            Kind::Build
        } else if file.ends_with(".py") || file.ends_with(".pyi") {
            Kind::Type
        } else {
            Kind::Custom
        };
        let mut d = Diagnostic::new(TOOL, kind, severity, clip(message, MAX_MESSAGE)).at(
            file.trim(),
            Some(line_no),
            column,
        );
        if let Some(code) = code {
            d = d.with_code(code);
        }
        if severity == Severity::Error && is_root_cause(message, code) {
            d = d.as_root_cause();
        }
        // mypy's `--pretty` wraps a long message onto the next lines, the code last.
        self.open_message = code.is_none() && (file.ends_with(".py") || file.ends_with(".pyi"));
        self.push(d);
        true
    }

    /// Appends a wrapped line to the last diagnostic's message (and takes its code when the line
    /// ends with it).
    fn continue_message(&mut self, line: &str) {
        let Some(last) = self.report.diagnostics.last_mut() else {
            return;
        };
        let (text, code) = split_code(line.trim());
        let text = text.trim();
        if let Some(code) = code.or_else(|| {
            text.strip_prefix('[')
                .and_then(|c| c.strip_suffix(']'))
                .filter(|c| !c.contains(' '))
        }) {
            if text.starts_with('[') {
                // The code alone on the line.
            } else {
                last.message.push(' ');
                last.message.push_str(text);
            }
            last.code = Some(code.to_owned());
            last.root_cause = last.root_cause || is_root_cause(&last.message, Some(code));
        } else {
            last.message.push(' ');
            last.message.push_str(text);
            // Still no code: the message may go on.
            self.open_message = last.message.len() < MAX_MESSAGE;
        }
        last.message = clip(&last.message, MAX_MESSAGE);
        last.refresh_fingerprint();
    }

    /// A summary the tool printed itself.
    fn summary_line(&mut self, line: &str) -> bool {
        let first = line.as_bytes().first().copied().unwrap_or(0);
        if first == b'F' && line.starts_with("Found ") && line.contains(" error") {
            // mypy: `Found 3 errors in 2 files (checked 5 source files)`; ruff: `Found 3
            // errors.`
            self.errors = count_of(line, "errors").or_else(|| count_of(line, "error"));
            self.files = count_of(line, "files").or_else(|| count_of(line, "file"));
            self.summary = Some(line.to_owned());
            return true;
        }
        if first == b'S' && line.starts_with("Success: no issues found") {
            self.summary = Some(line.to_owned());
            return true;
        }
        if first.is_ascii_digit() && line.ends_with(" generated.") {
            // clang: `2 errors generated.`, `1 warning and 2 errors generated.`
            self.errors = count_of(line, "errors").or_else(|| count_of(line, "error"));
            self.warnings = count_of(line, "warnings").or_else(|| count_of(line, "warning"));
            self.summary = Some(line.to_owned());
            return true;
        }
        false
    }
}

/// `main.c:(.text+0xa): undefined reference to `helper'`: a linker error, placed at the object's
/// source file.
fn linker_error(line: &str) -> Option<Diagnostic> {
    let at = line.find(":(.")?;
    let file = &line[..at];
    let rest = &line[at..];
    let message = rest.split_once("): ")?.1;
    if file.contains(' ')
        || !message.contains("undefined reference") && !message.contains("multiple definition")
    {
        return None;
    }
    Some(
        Diagnostic::new(
            TOOL,
            Kind::Build,
            Severity::Error,
            clip(message, MAX_MESSAGE),
        )
        .at(file, None, None)
        .with_detail("linker error"),
    )
}

/// Lines that say something failed without saying where.
fn is_failure_sign(line: &str) -> bool {
    let Some(&first) = line.as_bytes().first() else {
        return false;
    };
    match first {
        b'e' => line.starts_with("error:") || line.starts_with("error["),
        b'E' => {
            line.starts_with("Error:") || line.starts_with("ERROR") || line.starts_with("Error ")
        }
        b'F' => {
            line.starts_with("FAILED")
                || line.starts_with("FAIL ")
                || line == "FAIL"
                || line.starts_with("FATAL")
        }
        b'f' => line.starts_with("fatal:") || line.starts_with("fatal error:"),
        b'm' => {
            line.starts_with("make: ***") || (line.starts_with("make[") && line.contains("]: ***"))
        }
        b'c' => line.starts_with("collect2: error:"),
        b'n' => line.starts_with("npm ERR!") || line.starts_with("npm error"),
        b'/' => line.contains("/ld: ") && line.contains("error"),
        _ => false,
    }
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        if self.first.is_none() {
            self.first = line
                .trim_start_matches('\u{feff}')
                .trim_start()
                .chars()
                .next();
        }
        if self.tap.line(line, &mut self.report) {
            return;
        }
        if self.panic_line(line) {
            return;
        }
        if self.traceback.is_some() {
            self.traceback_line(line);
            return;
        }
        if self.held.is_some() && !line.is_empty() {
            if line.starts_with("During handling of the above exception")
                || line.starts_with("The above exception was the direct cause")
            {
                // A chained exception follows; the last one is what was raised.
                self.held = None;
                return;
            }
            self.release_held();
        }
        let Some(&first) = line.as_bytes().first() else {
            self.open_message = false;
            return;
        };
        if self.open_message {
            self.open_message = false;
            let trimmed = line.trim();
            let code_alone =
                trimmed.starts_with('[') && trimmed.ends_with(']') && !trimmed.contains(' ');
            // A line with its own place and severity (mypy's `a.py:5: note: …` after the error
            // it explains) is not the message wrapped.
            let own_place = || located(line).is_some_and(|l| l.severity.is_some());
            if code_alone
                || (first != b' '
                    && !line.starts_with("Found ")
                    && !line.contains(": error:")
                    && !own_place())
            {
                self.continue_message(line);
                return;
            }
        }
        if first == b'T' && line.starts_with("Traceback (most recent call last):") {
            self.traceback = Some(Traceback::default());
            return;
        }
        if self.crash_start(first, line) {
            return;
        }
        if self.summary_line(line) {
            return;
        }
        if self.located(line) {
            return;
        }
        if is_failure_sign(line) {
            self.sign(line);
        }
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.tap.close(&mut self.report);
        // A named failing test is a failure of the code, placed or not.
        self.error_lines += self.tap.failures;
        self.placed_error |= self.tap.failures > 0;
        if let Some(tb) = self.traceback.take() {
            // A traceback cut off before its exception line.
            let mut d = Diagnostic::new(
                TOOL,
                Kind::Custom,
                Severity::Error,
                "Python traceback (cut off)",
            );
            if let Some((file, n)) = tb.place.or(tb.last) {
                d = d.at(file, Some(n), None);
            }
            self.push(d);
        }
        self.release_held();
        self.finish_panic();
        let mut report = std::mem::replace(&mut self.report, Report::new(TOOL, Outcome::Passed));
        report.counts.errors = self.errors;
        report.counts.warnings = self.warnings;
        report.counts.files = self.files;
        report.summary = self.summary.take();
        if self.tap.seen {
            report.saw(Evidence::Checked);
            report.counts.tests_passed = self.tap.pass;
            report.counts.tests_failed = self.tap.fail;
            report.counts.tests_skipped = self.tap.skipped;
            if self.tap.fail.is_some_and(|n| n > 0) && !self.placed_error {
                self.sign(&format!(
                    "TAP: {} tests failed",
                    self.tap.fail.unwrap_or_default()
                ));
            }
        }
        let tap_counted = self.tap.seen && self.tap.fail.is_some();
        if self.error_lines > 0 && self.errors.is_none() && !tap_counted {
            report.note(format!(
                "{} error lines recognised; the tool printed no count of its own",
                self.error_lines
            ));
        }
        let tool_errors = self.errors.unwrap_or(0) > 0;
        report.outcome = if self.placed_error {
            Outcome::Failed
        } else if let Some(sign) = self.failure_sign.take() {
            report.error = Some(sign);
            Outcome::Errored
        } else if tool_errors {
            report.error = report.summary.clone();
            Outcome::Errored
        } else if matches!(self.first, Some('{' | '[')) {
            // A JSON report of a tool verdict has no reader for (pytest-json-report, a custom
            // runner's): its failures are fields, not lines, and "no failure found" would be a
            // guess.
            report.error = Some(
                "the input is a JSON document of a format verdict does not read; give the tool's \
                 log or its JUnit XML report"
                    .to_owned(),
            );
            Outcome::Errored
        } else if report.summary.is_some() || self.tap.seen || !report.diagnostics.is_empty() {
            Outcome::Passed
        } else {
            // Nothing in the log is a line this reader knows: no tool can be said to have passed.
            report.error = Some(if self.first.is_none() {
                EMPTY.to_owned()
            } else {
                UNPLACED.to_owned()
            });
            Outcome::Errored
        };
        report
    }
}

impl Parser {
    /// A line after a Go or Rust panic's header: its message, or the frame that places it;
    /// `true` when the panic took the line.
    fn panic_line(&mut self, line: &str) -> bool {
        let Some(panic) = self.panic.as_mut() else {
            return false;
        };
        panic.lines += 1;
        if panic.awaiting_message {
            panic.message = line.trim().to_owned();
            panic.awaiting_message = false;
            self.finish_panic();
            return true;
        }
        // Go: `\t/path/to/main.go:12 +0x1d` frames; the first one in the project is the place.
        if let Some(frame) = line.strip_prefix('\t') {
            let path = frame.split(" +0x").next().unwrap_or(frame);
            if let Some((file, n)) = path.rsplit_once(':')
                && let (false, Ok(n)) = (is_foreign(file), n.parse::<u32>())
            {
                panic.place = Some((file.to_owned(), n, None));
                self.finish_panic();
                return true;
            }
        }
        if panic.lines > MAX_PANIC_LINES {
            self.finish_panic();
        }
        false
    }

    /// A panic's header (Go's `panic: `, Rust's `thread 'main' panicked at`) or a Go test's
    /// `--- FAIL: `; `true` when the line was one of them.
    fn crash_start(&mut self, first: u8, line: &str) -> bool {
        if first == b'p' && line.starts_with("panic: ") {
            self.finish_panic();
            self.panic = Some(Panic {
                message: line.to_owned(),
                lines: 0,
                place: None,
                awaiting_message: false,
            });
            return true;
        }
        if first == b't'
            && line.starts_with("thread '")
            && let Some(at) = line.find("' panicked at ")
        {
            // Rust: `thread 'main' panicked at src/main.rs:3:5:` then the message.
            let rest = line[at + "' panicked at ".len()..].trim_end_matches(':');
            let place = crate::text::split_location(rest).map(|(f, l, c)| (f.to_owned(), l, c));
            self.finish_panic();
            self.panic = Some(Panic {
                message: "panicked".to_owned(),
                lines: 0,
                place,
                awaiting_message: true,
            });
            return true;
        }
        if first == b'-' && line.starts_with("--- FAIL: ") {
            let name = line["--- FAIL: ".len()..]
                .split(" (")
                .next()
                .unwrap_or("")
                .to_owned();
            self.sign(line);
            self.go_test = Some(name);
            return true;
        }
        false
    }
}

/// The error of a log in which the generic reader found nothing it understands.
pub const UNPLACED: &str = "verdict cannot tell which tool wrote this log: no summarizer \
    recognises it, and it holds no failure, TAP or summary line the generic reader knows (name \
    the tool with --tool, or give its JUnit XML report)";

/// The error of an empty log read by the generic reader.
pub const EMPTY: &str = "the log is empty: nothing shows that a tool ran (name the tool with \
    --tool when it prints nothing on success, as tsc and eslint do)";

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        GenericSummarizer.parse(log.as_bytes())
    }

    /// pytest-json-report's report (and any JSON a tool writes that verdict has no reader for)
    /// was "no failure found", a pass, over a failing test.
    #[test]
    fn an_unknown_json_document_is_not_a_pass() {
        let report = parse(
            "{\"created\": 1.5, \"exitcode\": 1, \"summary\": {\"failed\": 1, \"passed\": 1}, \"tests\": [{\"nodeid\": \"test_x.py::test_a\", \"outcome\": \"failed\"}]}\n",
        );
        assert_eq!(report.outcome, Outcome::Errored);
        assert!(report.error.is_some_and(|e| e.contains("JSON document")));
        assert_eq!(parse("\n[]\n").outcome, Outcome::Errored);
        assert_eq!(parse("all good {\n").error.as_deref(), Some(UNPLACED));
    }

    #[test]
    fn gcc_and_mypy_lines() {
        let report = parse(
            "a.c:3:10: fatal error: x.h: No such file or directory\nsrc/a.py:12: error: Bad thing  [arg-type]\nb.c:7:24: warning: format ‘%s’ expects [-Wformat=]\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.errors, None);
        let d = &report.diagnostics;
        assert!(d[0].root_cause);
        assert_eq!(d[1].code.as_deref(), Some("arg-type"));
        assert_eq!(d[1].message, "Bad thing");
        assert_eq!(d[2].code.as_deref(), Some("-Wformat="));
        assert_eq!(d[2].severity, Severity::Warning);
    }

    #[test]
    fn traceback_last_line_is_the_message() {
        let report = parse(
            "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\n  File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\n    x\njson.decoder.JSONDecodeError: Expecting value\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(
            report.diagnostics[0].message,
            "json.decoder.JSONDecodeError: Expecting value"
        );
        assert_eq!(
            report.diagnostics[0].location().as_deref(),
            Some("app.py:3")
        );
    }

    #[test]
    fn failure_without_a_place_is_errored() {
        let report = parse("make: *** No rule to make target 'x'.  Stop.\n");
        assert_eq!(report.outcome, Outcome::Errored);
        assert!(report.error.is_some());
        assert_eq!(
            parse("Success: no issues found in 1 source file\n").outcome,
            Outcome::Passed
        );
        assert_eq!(parse("ok 1 - adds\n1..1\n").outcome, Outcome::Passed);
    }

    /// A log of a tool no summarizer knows, with no line the generic reader understands, was
    /// "no failure found": a pass of whatever wrote it.
    /// mypy's notes for an error without a code were read as its message wrapped.
    #[test]
    fn a_note_is_not_the_message_of_the_error_before() {
        let report = parse(
            "a.py:5: error: Function is missing a return type annotation\na.py:5: note: Use \"-> None\" if function does not return a value\nFound 1 error in 1 file (checked 1 source file)\n",
        );
        assert_eq!(
            report.diagnostics[0].message,
            "Function is missing a return type annotation"
        );
    }

    #[test]
    fn a_log_with_nothing_understood_is_not_a_pass() {
        let report = parse("all good\n12:30: lunch\n");
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(report.error.as_deref(), Some(UNPLACED));
        let report = parse("");
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(report.error.as_deref(), Some(EMPTY));
    }

    #[test]
    fn go_and_rust_panics() {
        let report = parse(
            "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/home/u/app/main.go:12 +0x1d\nexit status 2\n",
        );
        assert_eq!(
            report.diagnostics[0].location().as_deref(),
            Some("/home/u/app/main.go:12")
        );
        let report = parse("thread 'main' panicked at src/main.rs:5:3:\nboom\n");
        assert_eq!(report.diagnostics[0].message, "boom");
        assert_eq!(
            report.diagnostics[0].location().as_deref(),
            Some("src/main.rs:5:3")
        );
    }

    #[test]
    fn diagnostics_beyond_the_cap_are_counted() {
        let n = verdict_model::model::MAX_DIAGNOSTICS + 5;
        let log: String = (0..n).map(|i| format!("a.c:{i}:1: error: bad\n")).collect();
        let report = parse(&log);
        assert_eq!(report.diagnostics_found(), n as u64);
        assert_eq!(report.outcome, Outcome::Failed);
    }

    #[test]
    fn garbage_does_not_panic() {
        for log in [
            ":",
            "a:",
            "a:1",
            "a:1:",
            ":1:2: error:",
            "Traceback (most recent call last):",
            "panic: ",
            "thread '",
            "x.c:(.text",
            "--- FAIL: ",
        ] {
            let _ = parse(log);
        }
    }
}
