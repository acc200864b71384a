//! The `ruff` summarizer: `ruff check` and `ruff format --check`, in their human and JSON formats.
//!
//! What a ruff log holds, and how each part is read:
//! - The default `full` format: a header `F401 [*] `os` imported but unused` (the rule's code,
//!   `[*]` when ruff can fix it, the message), then ` --> src/a.py:1:8`, a code frame, and
//!   `help:` / `note:` lines (the first `help:` becomes the diagnostic's detail). A syntax error
//!   is headed `invalid-syntax: …` and the formatter's check `unformatted: File would be
//!   reformatted`; both are followed by the same location line.
//! - The `concise` format: `src/a.py:1:8: F401 [*] `os` imported but unused`, one line each.
//! - The summary: `Found 9 errors.` (`Found 3 errors (3 fixed, 0 remaining).` with `--fix`; the
//!   remaining ones are the count) and `[*] 5 fixable with `--fix` (…).`, which joins it; `All
//!   checks passed!` on a clean run. The formatter's check ends with `2 files would be
//!   reformatted, 1 file already formatted` or `3 files already formatted`.
//! - `--output-format json`: an array of diagnostics, pretty-printed one field a line, read one
//!   top-level object at a time as it streams past; `[]` on a clean run. [`from_json`] reads the
//!   same output whole (what the verifier reads from ruff's `-o` file).
//! - Nothing could be checked: `ruff failed` and its `  Cause: …` lines (a configuration ruff
//!   cannot read, an unknown rule), or the argument parser's `error: invalid value …`: errored,
//!   with the causes as the reason.
//! - `warning: No Python files found under the given path(s)` precedes `All checks passed!` when
//!   there was nothing to lint: errored, since a check of no file is no pass.
//! - `-v` prints `[…][ruff::commands::check][DEBUG] Checked 2 files in: 7.6ms`: the evidence that
//!   files were checked ([`Evidence::Checked`]), which the verifier's pass needs (ruff's JSON is
//!   `[]` whether it checked a thousand files or none).

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;
use verdict_model::{
    Diagnostic, Evidence, Kind, LineParser, Outcome, Report, Severity, Summarizer,
};

use crate::text::clip;

const TOOL: &str = "ruff";

/// The longest message kept, in characters.
const MAX_MESSAGE: usize = 400;
/// The longest detail kept (the `help:` line), in characters.
const MAX_DETAIL: usize = 200;
/// How many distinct file names are remembered to count the files with diagnostics.
const MAX_FILES: usize = 100_000;
/// The largest object of the JSON output read; ruff's are a few hundred bytes.
const MAX_JSON_OBJECT: usize = 1 << 20;
/// How many summary lines are kept.
const MAX_SUMMARY_LINES: usize = 4;
/// How many `Cause:` lines and lines after them make the reason of a failed run.
const MAX_CAUSES: usize = 6;

/// The codes ruff prints as words rather than as a rule code: a file it cannot parse, and a file
/// the formatter would change. Only these are read as word headers, so that rustc's `warning:` and
/// `error:` above its own `-->` lines are never taken for ruff's.
const WORD_CODES: &[&str] = &["invalid-syntax", "unformatted"];

/// A rule code (`F401`, `PLR0913`, `ASYNC100`) or one of [`WORD_CODES`], then the message.
const CODE: &str = r"(?:(?P<code>[A-Z]{1,7}[0-9]{1,4})(?P<fix> \[\*\])? |(?P<word>invalid-syntax|unformatted): )(?P<message>.*)";

/// The header of a diagnostic in the `full` format.
static HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{CODE}$")).expect("a valid pattern"));

/// The location line below a `full` header: ` --> src/a.py:1:8`.
static LOCATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*--> (?P<file>.+?):(?P<line>[0-9]+):(?P<column>[0-9]+)$")
        .expect("a valid pattern")
});

/// A diagnostic in the `concise` format: `src/a.py:1:8: F401 [*] …`.
static CONCISE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        "^(?P<file>[^ ].*?):(?P<line>[0-9]+):(?P<column>[0-9]+): {CODE}$"
    ))
    .expect("a valid pattern")
});

/// The summary of `ruff check`: `Found 9 errors.`, `Found 3 errors (3 fixed, 0 remaining).`
static FOUND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Found (?P<found>[0-9]+) errors?(?: \((?P<fixed>[0-9]+) fixed, (?P<remaining>[0-9]+) remaining\))?\.$")
        .expect("a valid pattern")
});

/// The summary of `ruff format --check`: `2 files would be reformatted, 1 file already formatted`.
static FORMATTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(?P<changed>[0-9]+) files? would be reformatted)?(?:, )?(?:(?P<unchanged>[0-9]+) files? already formatted)?$")
        .expect("a valid pattern")
});

/// The `-v` line that says how many files were checked.
static CHECKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\]\[ruff::commands::(?:check|format)\]\[DEBUG\] (?:Checked|Formatted) (?P<files>[0-9]+) files? in").expect("a valid pattern")
});

/// Parses ruff output (see the module docs).
#[derive(Debug, Default, Clone, Copy)]
pub struct RuffSummarizer;

impl Summarizer for RuffSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Lint
    }

    fn sniff(&self, sample: &str) -> u8 {
        sniff(sample)
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }
}

/// How sure the sample is ruff's: its summary lines and crash banner are its own; a diagnostic
/// needs a Python file beside a ruff code.
fn sniff(sample: &str) -> u8 {
    let mut previous_header = false;
    let mut best = 0;
    for line in sample.lines().take(20_000) {
        best = best.max(sniff_line(line, previous_header));
        if best >= 95 {
            break;
        }
        previous_header = maybe_header(line) && HEADER.is_match(line);
    }
    best
}

/// How sure one line is ruff's, given whether the line before was a `full` header.
fn sniff_line(line: &str, previous_header: bool) -> u8 {
    let line = crate::text::before_replacement(line);
    let own = (line.starts_with("[*] ") && line.contains(" fixable with "))
        || line == "ruff failed"
        || line.starts_with("unformatted: File would be reformatted")
        || line.contains("\"url\": \"https://docs.astral.sh/ruff/")
        || line == "warning: No Python files found under the given path(s)"
        // `-v`'s log lines, named by ruff's own modules.
        || (line.starts_with('[') && (line.contains("][ruff::") || line.contains("][ruff_")))
        // The argument parser's list of ruff's output formats, below an unknown one.
        || line.contains(" grouped, github, gitlab, pylint, rdjson");
    let location = || {
        previous_header
            && LOCATION
                .captures(line)
                .is_some_and(|c| is_python(&c["file"]))
    };
    let concise = || {
        line.contains(".py")
            && CONCISE
                .captures(line)
                .is_some_and(|c| is_python(&c["file"]))
    };
    if own {
        95
    } else if (line.ends_with(" already formatted") && FORMATTED.is_match(line)) || location() {
        90
    } else if concise() {
        85
    } else if line == "All checks passed!" {
        80
    } else {
        0
    }
}

/// A cheap test that `line` may be a `full` header: it starts with a capital or a word code.
fn maybe_header(line: &str) -> bool {
    line.starts_with(|c: char| c.is_ascii_uppercase())
        || WORD_CODES.iter().any(|word| line.starts_with(word))
}

/// Whether `file` is one ruff checks: Python, stubs, notebooks (and its own config files).
fn is_python(file: &str) -> bool {
    [
        ".py",
        ".pyi",
        ".ipynb",
        ".pyw",
        "pyproject.toml",
        "ruff.toml",
    ]
    .iter()
    .any(|ext| file.ends_with(ext))
}

/// Where the parser is in the output.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading human output (or nothing yet).
    #[default]
    Text,
    /// Inside the JSON array, between objects.
    Json,
    /// Inside one top-level object of the JSON array.
    JsonObject,
    /// After the JSON array's `]`.
    JsonDone,
    /// After `ruff failed`: its causes.
    Failed,
}

/// The streaming parser.
#[derive(Debug)]
struct Parser {
    report: Report,
    state: State,
    /// A `full` header waiting for its location line.
    header: Option<Header>,
    /// The last diagnostic read, held for a `help:` line that may follow.
    current: Option<Diagnostic>,
    /// The files named by diagnostics.
    files: HashSet<String>,
    diagnostics: u64,
    /// The count of the summary line (`Found N errors`, the remaining ones after `--fix`; the files
    /// the formatter would change).
    counted: Option<u64>,
    /// `All checks passed!` or `N files already formatted` without a failure.
    clean: bool,
    /// The summary lines, joined.
    summary: Vec<String>,
    /// `warning: No Python files found …`.
    no_files: bool,
    /// The JSON object being read.
    object: String,
    /// Whether the object being read grew past [`MAX_JSON_OBJECT`].
    object_too_big: bool,
    /// `ruff failed`, then its causes.
    causes: Vec<String>,
    crashed: bool,
    /// The argument parser's `error: …` lines, and others.
    errors: Vec<String>,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            report: Report::new(TOOL, Outcome::Passed),
            state: State::Text,
            header: None,
            current: None,
            files: HashSet::new(),
            diagnostics: 0,
            counted: None,
            clean: false,
            summary: Vec::new(),
            no_files: false,
            object: String::new(),
            object_too_big: false,
            causes: Vec::new(),
            crashed: false,
            errors: Vec::new(),
        }
    }
}

/// A `full` header: its code and message.
#[derive(Debug)]
struct Header {
    code: String,
    message: String,
}

impl Parser {
    fn text_line(&mut self, line: &str) {
        // Cheap tests first: most lines of a log are code frames, which start with a space.
        let location = self.header.is_some() && line.trim_start().starts_with("-->");
        if location
            && let Some(caps) = LOCATION.captures(line)
            && let Some(header) = self.header.take()
        {
            let diagnostic = diagnostic(
                &header.code,
                &header.message,
                &caps["file"],
                caps["line"].parse().ok(),
                caps["column"].parse().ok(),
            );
            self.hold(diagnostic);
        } else if let Some(help) = line.strip_prefix("help: ") {
            if let Some(current) = &mut self.current
                && current.detail.is_none()
            {
                current.detail = Some(clip(help, MAX_DETAIL));
            }
        } else if let Some(caps) = maybe_header(line).then(|| HEADER.captures(line)).flatten() {
            self.flush();
            let code = caps
                .name("code")
                .or_else(|| caps.name("word"))
                .map_or("", |m| m.as_str());
            self.header = Some(Header {
                code: code.to_owned(),
                message: caps["message"].to_owned(),
            });
        } else if let Some(caps) = (!line.starts_with(' '))
            .then(|| CONCISE.captures(line))
            .flatten()
        {
            self.flush();
            let code = caps
                .name("code")
                .or_else(|| caps.name("word"))
                .map_or("", |m| m.as_str());
            let diagnostic = diagnostic(
                code,
                &caps["message"],
                &caps["file"],
                caps["line"].parse().ok(),
                caps["column"].parse().ok(),
            );
            self.hold(diagnostic);
        } else {
            self.other_line(line);
        }
    }

    /// A line that is no diagnostic: a summary, a warning, an error, the start of JSON.
    fn other_line(&mut self, line: &str) {
        let summary = crate::text::before_replacement(line);
        if summary.ends_with(" reformatted") || summary.ends_with(" already formatted") {
            self.format_summary(line);
            return;
        }
        if line.starts_with(' ') || line.starts_with(|c: char| c.is_ascii_digit()) {
            // Code frames and diffs.
            return;
        }
        if let Some(caps) = FOUND.captures(line) {
            self.flush();
            let count = caps.name("remaining").or_else(|| caps.name("found"));
            if let Some(n) = count.and_then(|m| m.as_str().parse::<u64>().ok()) {
                self.add_count(n);
            }
            self.push_summary(line);
        } else if (line.starts_with("[*] ") && line.contains(" fixable"))
            || line.starts_with("No fixes available")
        {
            self.push_summary(line);
        } else if crate::text::before_replacement(line) == "All checks passed!" {
            self.flush();
            self.clean = true;
            self.push_summary(line);
        } else if line == "ruff failed" {
            self.flush();
            self.crashed = true;
            self.state = State::Failed;
        } else if line.starts_with("warning: No Python files found") {
            self.no_files = true;
        } else if let Some(caps) = CHECKED.captures(line) {
            if caps["files"].parse::<u64>().is_ok_and(|n| n > 0) {
                self.report.saw(Evidence::Checked);
            }
        } else if line.starts_with("error: ") {
            if self.errors.len() < MAX_CAUSES {
                self.errors.push(clip(line, MAX_MESSAGE));
            }
        } else if self.state == State::JsonDone || self.nothing_read() {
            // A JSON array starts a log, or follows another run's.
            self.json_start(line);
        }
    }

    /// The formatter's check summary.
    fn format_summary(&mut self, line: &str) {
        let line = crate::text::before_replacement(line);
        let Some(caps) = FORMATTED.captures(line) else {
            return;
        };
        self.flush();
        let changed: u64 = caps
            .name("changed")
            .and_then(|m| m.as_str().parse().ok())
            .unwrap_or(0);
        if caps.name("changed").is_none() && caps.name("unchanged").is_none() {
            return;
        }
        self.add_count(changed);
        self.clean = changed == 0;
        self.push_summary(line);
    }

    /// Adds the count of a summary line: a log of several runs counts them all.
    fn add_count(&mut self, n: u64) {
        self.counted = Some(self.counted.unwrap_or(0).saturating_add(n));
    }

    /// Keeps a summary line; a log of many runs keeps the first few.
    fn push_summary(&mut self, line: &str) {
        if self.summary.len() < MAX_SUMMARY_LINES {
            self.summary.push(clip(line, MAX_MESSAGE));
        }
    }

    /// Whether nothing of ruff's has been read yet.
    fn nothing_read(&self) -> bool {
        self.diagnostics == 0 && self.summary.is_empty() && self.header.is_none()
    }

    /// A line that may open `--output-format json`: `[`, `[]`, or a whole array on one line.
    fn json_start(&mut self, line: &str) {
        match line.trim_end() {
            "[" => {
                self.state = State::Json;
                self.report.saw(Evidence::Ran);
            }
            "[]" => {
                self.state = State::JsonDone;
                self.report.saw(Evidence::Ran);
            }
            other if other.starts_with("[{") && other.ends_with(']') => {
                self.state = State::JsonDone;
                self.report.saw(Evidence::Ran);
                match serde_json::from_str::<Vec<JsonDiagnostic>>(other) {
                    Ok(list) => list.into_iter().for_each(|d| self.json_diagnostic(d)),
                    Err(error) => self.unreadable(&error.to_string()),
                }
            }
            _ => {}
        }
    }

    fn json_line(&mut self, line: &str) {
        match (self.state, line.trim_end()) {
            (State::Json, "]") => self.state = State::JsonDone,
            (State::Json, "{") | (State::Json, "  {") => {
                self.state = State::JsonObject;
                self.object.clear();
                self.object.push('{');
                self.object_too_big = false;
            }
            (State::JsonObject, "}") | (State::JsonObject, "  }") | (State::JsonObject, "  },") => {
                self.state = State::Json;
                self.object.push('}');
                if self.object_too_big {
                    self.unreadable("an object is larger than 1 MiB");
                } else {
                    let object = std::mem::take(&mut self.object);
                    match serde_json::from_str::<JsonDiagnostic>(&object) {
                        Ok(d) => self.json_diagnostic(d),
                        Err(error) => self.unreadable(&error.to_string()),
                    }
                }
            }
            (State::JsonObject, _) => {
                if self.object.len() + line.len() > MAX_JSON_OBJECT {
                    self.object_too_big = true;
                } else {
                    self.object.push_str(line);
                    self.object.push('\n');
                }
            }
            // Other lines between objects (stderr interleaved) are not JSON's.
            _ => self.other_line(line),
        }
    }

    fn json_diagnostic(&mut self, json: JsonDiagnostic) {
        let diagnostic = json.into_diagnostic();
        self.hold(diagnostic);
        self.flush();
    }

    fn unreadable(&mut self, error: &str) {
        // A diagnostic ruff reported that could not be read still counts against the pass.
        self.diagnostics += 1;
        self.report.note(format!(
            "a diagnostic of ruff's JSON output could not be read: {error}"
        ));
    }

    fn failed_line(&mut self, line: &str) {
        if self.causes.len() >= MAX_CAUSES {
            return;
        }
        if let Some(cause) = line.trim_start().strip_prefix("Cause: ") {
            self.causes.push(cause.to_owned());
        } else if !line.is_empty()
            && !line.starts_with(' ')
            && !line.starts_with(|c: char| c.is_ascii_digit())
        {
            // The message below a TOML error's frame: `invalid type: string "long", expected i64`.
            self.causes.push(line.to_owned());
        }
    }

    /// Holds a diagnostic until the lines after it (its `help:`) are read.
    fn hold(&mut self, diagnostic: Diagnostic) {
        self.flush();
        self.current = Some(diagnostic);
    }

    fn flush(&mut self) {
        if let Some(diagnostic) = self.current.take() {
            if let Some(file) = &diagnostic.file
                && self.files.len() < MAX_FILES
                && !self.files.contains(file)
            {
                self.files.insert(file.clone());
            }
            self.diagnostics += 1;
            self.report.push(diagnostic);
        }
    }
}

/// A diagnostic of ruff's.
fn diagnostic(
    code: &str,
    message: &str,
    file: &str,
    line: Option<u32>,
    column: Option<u32>,
) -> Diagnostic {
    let mut diagnostic = Diagnostic::new(
        TOOL,
        Kind::Lint,
        Severity::Error,
        clip(message, MAX_MESSAGE),
    )
    .at(file, line, column)
    .with_code(code);
    // A file ruff cannot parse is not linted: the syntax error hides whatever else is wrong.
    if code == "invalid-syntax" {
        diagnostic = diagnostic.as_root_cause();
    }
    diagnostic
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        match self.state {
            State::Text | State::JsonDone => self.text_line(line),
            State::Json | State::JsonObject => self.json_line(line),
            State::Failed => self.failed_line(line),
        }
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.flush();
        let mut report = std::mem::replace(&mut self.report, Report::new(TOOL, Outcome::Passed));
        let json = matches!(
            self.state,
            State::Json | State::JsonObject | State::JsonDone
        );
        if self.crashed {
            report.outcome = Outcome::Errored;
            report.error = Some(failure_reason(&self.causes));
            return report;
        }
        if matches!(self.state, State::Json | State::JsonObject) && self.diagnostics == 0 {
            report.outcome = Outcome::Errored;
            report.error = Some("ruff's JSON output ended before its closing `]`".to_owned());
            return report;
        }
        let found = if json {
            Some(self.diagnostics)
        } else {
            self.counted
        };
        let failures = found.unwrap_or(0).max(self.diagnostics);
        report.outcome = if failures > 0 {
            Outcome::Failed
        } else if !self.clean && !json && !self.errors.is_empty() {
            // The argument parser's error, or another error with no summary: nothing was checked.
            report.error = Some(self.errors.join("; "));
            Outcome::Errored
        } else {
            Outcome::Passed
        };
        if found.is_some() || self.clean {
            report.counts.errors = Some(found.unwrap_or(0));
            report.counts.files = Some(self.files.len() as u64);
        }
        if self.no_files && failures == 0 {
            // Nothing was linted: ruff says all checks passed, but it checked no file, and a
            // check of nothing is no pass.
            report.saw(Evidence::Ran);
            report.outcome = Outcome::Errored;
            report.error = Some("ruff found no Python file to check".to_owned());
        } else if !self.summary.is_empty() {
            report.summary = Some(clip(&self.summary.join(" "), MAX_MESSAGE));
        }
        report
    }
}

/// Why `ruff failed`: its causes, joined.
fn failure_reason(causes: &[String]) -> String {
    if causes.is_empty() {
        "ruff failed".to_owned()
    } else {
        format!("ruff failed: {}", clip(&causes.join(": "), MAX_MESSAGE))
    }
}

/// One diagnostic of `--output-format json`, the fields read.
#[derive(Debug, Deserialize)]
struct JsonDiagnostic {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: String,
    #[serde(default)]
    filename: Option<String>,
    #[serde(default)]
    location: Option<JsonLocation>,
    #[serde(default)]
    severity: Option<String>,
    #[serde(default)]
    fix: Option<JsonFix>,
}

#[derive(Debug, Deserialize)]
struct JsonLocation {
    row: Option<u32>,
    column: Option<u32>,
}

#[derive(Debug, Deserialize)]
struct JsonFix {
    #[serde(default)]
    message: Option<String>,
}

impl JsonDiagnostic {
    fn into_diagnostic(self) -> Diagnostic {
        let (line, column) = self.location.map_or((None, None), |l| (l.row, l.column));
        let code = self.code.unwrap_or_default();
        let mut diagnostic = diagnostic(&code, &self.message, "", line, column);
        diagnostic.file = self.filename;
        if code.is_empty() {
            diagnostic.code = None;
        }
        diagnostic.severity = match self.severity.as_deref() {
            Some("warning") => Severity::Warning,
            Some("info") => Severity::Info,
            _ => Severity::Error,
        };
        if let Some(help) = self.fix.and_then(|fix| fix.message) {
            diagnostic.detail = Some(clip(&help, MAX_DETAIL));
        }
        diagnostic
    }
}

/// Reads the whole output of `ruff check --output-format json` (or `ruff format --check
/// --output-format json`): a failure for each diagnostic, a pass for `[]`, errored when the text
/// is no such output. The file names are ruff's, absolute.
pub fn from_json(text: &str) -> Report {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Report::errored(TOOL, "ruff wrote no JSON output");
    }
    let list: Vec<JsonDiagnostic> = match serde_json::from_str(trimmed) {
        Ok(list) => list,
        Err(error) => {
            return Report::errored(
                TOOL,
                format!("ruff's JSON output could not be read: {error}"),
            );
        }
    };
    let mut parser = Parser {
        state: State::JsonDone,
        ..Parser::default()
    };
    parser.report.saw(Evidence::Ran);
    for json in list {
        parser.json_diagnostic(json);
    }
    Box::new(parser).finish()
}
