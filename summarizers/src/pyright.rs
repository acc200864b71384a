//! The `pyright` summarizer: the Python type checker's text output, and its `--outputjson` report.
//!
//! What a pyright log holds, and how each part is read:
//! - For each file with diagnostics, its path on a line of its own, then one line per diagnostic,
//!   indented by two spaces: `  /abs/app/a.py:3:5 - error: Message (reportXxx)`. A diagnostic
//!   without a position reads `  /abs/app/a.py: error: …`. The severity is `error`, `warning` or
//!   `information`.
//! - A message of several lines goes on under its header, indented by two spaces and two
//!   no-break spaces; those lines become the diagnostic's detail. The rule (`reportXxx`) is
//!   written after the message's last line, so it is read when the diagnostic ends.
//! - The summary, always last: `9 errors, 1 warning, 2 informations`. It gives the counts.
//! - What pyright prints instead of checking, or beside its check: a configuration it could not
//!   read (`Config file "…" could not be parsed.`, `Config "typeCheckingMode" entry must contain
//!   …`, `Pyproject file parse attempt 1 error: …`) — it then checks with its defaults and exits
//!   3, or even 1: the run did not check what the project configured, so it is errored; an
//!   unknown option or a path that does not exist (exit 4); `No source files found.` (with
//!   `--verbose`). All of these are "could not verify".
//! - `--stats` and `--verbose` add `Found 3 source files` and `Total files checked: 3`: evidence
//!   that files were checked.
//!
//! [`from_json`] reads `pyright --outputjson`: its `generalDiagnostics` (positions 0-based) and
//! its `summary` (`filesAnalyzed`, `errorCount`, `warningCount`, `informationCount`). What pyright
//! writes to stderr around the JSON in the same log (a broken configuration) is read as in the text
//! output. A report that analyzed no file is no pass.

use std::collections::HashSet;

use serde::Deserialize;
use verdict_model::{
    Diagnostic, Evidence, Fingerprint, Kind, LineParser, Outcome, Report, Severity, Summarizer,
};

use crate::text::{clip, split_location};

const TOOL: &str = "pyright";

/// The longest message kept, in characters.
const MAX_MESSAGE: usize = 400;
/// The longest detail kept (the message's further lines), in characters.
const MAX_DETAIL: usize = 300;
/// How many further lines of one message are read.
const MAX_MESSAGE_LINES: usize = 50;
/// How many distinct file names are remembered to count the files with errors or warnings.
const MAX_FILES: usize = 100_000;

/// Parses pyright's text output.
#[derive(Debug, Default, Clone, Copy)]
pub struct PyrightSummarizer;

impl Summarizer for PyrightSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Type
    }

    fn sniff(&self, sample: &str) -> u8 {
        let lines = || sample.lines().take(5_000);
        // The summary line is pyright's alone (basedpyright prints the same).
        if lines().any(|line| parse_summary(line).is_some()) {
            return 95;
        }
        // A diagnostic line: its ` - error: ` differs from tsc's ` - error TS2322: `.
        if lines().any(|line| parse_header(line).is_some()) {
            return 85;
        }
        if lines().any(|line| {
            line.starts_with("Pyproject file parse attempt ")
                || line.starts_with("Config file \"")
                || line == "pyright --help for usage"
                || line.starts_with("File or directory \"file://")
                    && line.contains("\" does not exist")
        }) {
            return 80;
        }
        if lines().any(|line| crate::text::script_runs(line, &["pyright", "basedpyright"])) {
            return 40;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }
}

/// The severity words pyright prints, in the order it checks them.
const SEVERITIES: [(&str, Severity); 3] = [
    ("error", Severity::Error),
    ("warning", Severity::Warning),
    ("information", Severity::Info),
];

/// A diagnostic's first line, split into its parts.
#[derive(Debug, PartialEq, Eq)]
struct Header<'a> {
    file: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    severity: Severity,
    /// The first line of the message, the rule still on it when the message has one line.
    message: &'a str,
}

/// Parses a diagnostic's first line, or `None` for any other line: `  <file>:<l>:<c> - <severity>:
/// <message>`, `  <file>: <severity>: <message>` (no position), `   <severity>: <message>` (no
/// file).
fn parse_header(line: &str) -> Option<Header<'_>> {
    let rest = line.strip_prefix("  ")?;
    for (word, severity) in SEVERITIES {
        // The first occurrence is the header's: the message may quote anything.
        let Some(at) = find_severity(rest, word) else {
            continue;
        };
        let before = &rest[..at];
        let message = &rest[at + word.len() + 2..];
        let header = |file, line, column| {
            Some(Header {
                file,
                line,
                column,
                severity,
                message,
            })
        };
        if let Some(location) = before.strip_suffix(" - ") {
            let (file, line, column) = split_location(location)?;
            return header(Some(file).filter(|f| !starts_blank(f)), Some(line), column);
        }
        let before = before.strip_suffix(' ')?;
        if before.is_empty() {
            return header(None, None, None);
        }
        let file = before.strip_suffix(':')?;
        return (!file.is_empty() && !starts_blank(file))
            .then(|| header(Some(file), None, None))?;
    }
    None
}

/// Where `<word>: ` starts in `text` after a space, as a header writes its severity.
fn find_severity(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text.get(from..)?.find(word) {
        let at = from + found;
        from = at + word.len();
        if text[..at].ends_with(' ') && text[at + word.len()..].starts_with(": ") {
            return Some(at);
        }
    }
    None
}

/// Whether `text` starts with white space: a message's further line, never a path.
fn starts_blank(text: &str) -> bool {
    text.starts_with(char::is_whitespace)
}

/// The rule at the end of a message's last line, and the line without it: `Message
/// (reportOperatorIssue)` gives `("Message", Some("reportOperatorIssue"))`.
fn split_rule(text: &str) -> (&str, Option<&str>) {
    let trimmed = text.trim_end();
    let Some(open) = trimmed.strip_suffix(')').and_then(|t| t.rfind(" (")) else {
        return (trimmed, None);
    };
    let rule = &trimmed[open + 2..trimmed.len() - 1];
    if rule.starts_with("report") && rule.bytes().all(|b| b.is_ascii_alphanumeric()) {
        (&trimmed[..open], Some(rule))
    } else {
        (trimmed, None)
    }
}

/// The counts of a summary line: `9 errors, 1 warning, 2 informations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Summary {
    errors: u64,
    warnings: u64,
    informations: u64,
}

/// Parses a summary line, or `None` for any other line.
fn parse_summary(line: &str) -> Option<Summary> {
    let mut parts = crate::text::before_replacement(line).split(", ");
    let mut count = |one: &str, many: &str| -> Option<u64> {
        let (number, word) = parts.next()?.split_once(' ')?;
        if word != one && word != many || number.is_empty() {
            return None;
        }
        if !number.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        number.parse().ok()
    };
    let summary = Summary {
        errors: count("error", "errors")?,
        warnings: count("warning", "warnings")?,
        informations: count("information", "informations")?,
    };
    parts.next().is_none().then_some(summary)
}

/// Whether a line says pyright could not check the project as configured or as asked: a
/// configuration file it could not read or values it rejected (it then checks with its
/// defaults), a command line it rejected, a path that does not exist.
fn is_fatal(line: &str) -> bool {
    const PREFIXES: [&str; 14] = [
        "Config file \"",
        "Config \"",
        "Config contains unrecognized setting",
        "Config executionEnvironments",
        "Configuration file not found at",
        "Pyproject file parse attempt",
        "File or directory \"",
        "Unexpected option",
        "Error reading settings",
        "venvPath ",
        "venv ",
        "typeshedPath ",
        "site-packages directory cannot be located",
        "Defined constant \"",
    ];
    PREFIXES.iter().any(|p| line.starts_with(p))
        || line.starts_with("Index ") && line.contains(" array should be a string")
        || line.starts_with("Ignoring path \"") && line.contains(" array because")
        // Command-line values: `--level`, `--pythonversion`, `--pythonplatform`, conflicts.
        || line.starts_with('\'')
            && (line.contains("' is not a valid value for --")
                || line.contains("' is not a supported Python")
                || line.contains("' option requires a value")
                || line.contains("' option cannot be used with"))
}

/// Whether a fatal error is one of the attempts to parse pyproject.toml, which pyright follows
/// with the line naming the file.
fn is_retried(fatal: &str) -> bool {
    fatal.contains(": Pyproject file parse attempt ")
}

/// Whether a fatal line is about the command line rather than a configuration file.
fn is_command_line(line: &str) -> bool {
    line.starts_with("Unexpected option")
        || line.starts_with("File or directory \"")
        || line.starts_with('\'')
}

/// Whether a line shows pyright or the node process running it crashed.
fn is_crash(line: &str) -> bool {
    line.starts_with("Worker process exited unexpectedly")
        || line.starts_with("Failed to start child process")
        || line.starts_with("Error performing analysis")
        || line.starts_with("FATAL ERROR: ")
        || line.contains("JavaScript heap out of memory")
        || line.starts_with("RangeError: Maximum call stack size exceeded")
        || line.starts_with("npm ERR!")
        || line.starts_with("npm error")
}

/// A number of files pyright says it found or checked: `Found 3 source files`, `Total files
/// checked: 3`.
fn files_checked(line: &str) -> Option<u64> {
    let number = line
        .strip_prefix("Found ")
        .and_then(|rest| {
            rest.strip_suffix(" source files")
                .or(rest.strip_suffix(" source file"))
        })
        .or_else(|| line.strip_prefix("Total files checked: "))?;
    number.trim().parse().ok()
}

/// The diagnostic being read: its header is known, its message may go on.
struct Pending {
    /// `None` once the report holds its maximum: the diagnostic is only counted.
    diagnostic: Option<Diagnostic>,
    /// The further lines of the message but the last, joined.
    detail: String,
    /// The last line read of the message (the first line while there is no other): the one the
    /// rule is written after.
    last: String,
    lines: usize,
}

struct Parser {
    report: Report,
    pending: Option<Pending>,
    summary: Option<Summary>,
    /// Diagnostics seen by severity: errors, warnings, informations.
    seen: [u64; 3],
    /// Distinct files with an error or a warning.
    files: HashSet<String>,
    files_overflow: bool,
    /// Why nothing could be checked as configured, from the first line that says so.
    fatal: Option<String>,
    /// `No source files found.`
    no_files: bool,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            report: Report::new(TOOL, Outcome::Passed),
            pending: None,
            summary: None,
            seen: [0; 3],
            files: HashSet::new(),
            files_overflow: false,
            fatal: None,
            no_files: false,
        }
    }
}

impl Parser {
    fn start(&mut self, header: Header<'_>) {
        self.flush();
        self.seen[severity_index(header.severity)] += 1;
        if header.severity != Severity::Info
            && let Some(file) = header.file
            && !self.files.contains(file)
        {
            if self.files.len() < MAX_FILES {
                self.files.insert(file.to_owned());
            } else {
                self.files_overflow = true;
            }
        }
        let diagnostic = if self.report.diagnostics.len() < verdict_model::model::MAX_DIAGNOSTICS {
            let mut diagnostic = Diagnostic::new(TOOL, Kind::Type, header.severity, "");
            diagnostic.file = header.file.map(str::to_owned);
            diagnostic.line = header.line;
            diagnostic.column = header.column;
            Some(diagnostic)
        } else {
            self.report.diagnostics_dropped += 1;
            None
        };
        self.pending = Some(Pending {
            diagnostic,
            detail: String::new(),
            last: clip(header.message, MAX_MESSAGE * 4),
            lines: 0,
        });
    }

    /// A further line of the pending message.
    fn continue_message(&mut self, line: &str) {
        let Some(pending) = self.pending.as_mut() else {
            return;
        };
        pending.lines += 1;
        if pending.diagnostic.is_none() || pending.lines > MAX_MESSAGE_LINES {
            return;
        }
        if pending.lines > 1 {
            let previous = std::mem::take(&mut pending.last);
            push_detail(&mut pending.detail, &previous);
        } else if let Some(diagnostic) = pending.diagnostic.as_mut() {
            // The first line was the message.
            diagnostic.message = clip(pending.last.trim(), MAX_MESSAGE);
        }
        pending.last = clip(line.trim(), MAX_DETAIL * 4);
    }

    /// Ends the pending diagnostic: its rule is read from its last line.
    fn flush(&mut self) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        let Some(mut diagnostic) = pending.diagnostic else {
            return;
        };
        let (last, rule) = split_rule(&pending.last);
        if pending.lines == 0 {
            diagnostic.message = clip(last.trim(), MAX_MESSAGE);
        } else {
            let mut detail = pending.detail;
            push_detail(&mut detail, last);
            diagnostic.detail = Some(clip(&detail, MAX_DETAIL));
        }
        diagnostic.code = rule.map(str::to_owned);
        diagnostic.root_cause = is_root_cause(&diagnostic);
        diagnostic.fingerprint = Fingerprint::default();
        self.report.push(diagnostic);
    }

    /// An unindented line that is neither a file's path nor the summary.
    fn other(&mut self, line: &str) {
        if line == "No source files found." {
            self.no_files = true;
        } else if self.fatal.as_deref().is_none_or(is_retried) && is_fatal(line) {
            // A later line of a failed pyproject.toml parse says which file it was.
            let line = clip(line.trim(), MAX_MESSAGE);
            self.fatal = Some(if is_command_line(&line) {
                format!("pyright rejected its command line: {line}")
            } else {
                format!("pyright could not check as configured: {line}")
            });
        } else if self.fatal.is_none() && is_crash(line) {
            self.fatal = Some(format!(
                "pyright crashed: {}",
                clip(line.trim(), MAX_MESSAGE)
            ));
        } else if let Some(files) = files_checked(line) {
            self.report.saw(if files > 0 {
                Evidence::Checked
            } else {
                Evidence::Ran
            });
        } else if line.starts_with("No configuration file found")
            || line.starts_with("Loading configuration file at ")
            || line.starts_with("pyright ") && line[8..].starts_with(|c: char| c.is_ascii_digit())
            || crate::text::script_runs(line, &["pyright", "basedpyright"])
        {
            self.report.saw(Evidence::Ran);
        }
    }

    fn finish_report(mut self) -> Report {
        self.flush();
        let mut report = self.report;
        let [errors, warnings, _] = self.seen;
        let (errors, warnings) = match self.summary {
            Some(summary) => (summary.errors, summary.warnings),
            None => (errors, warnings),
        };
        // A run that printed neither a summary nor a diagnostic counted nothing.
        if self.summary.is_some() || self.seen != [0; 3] {
            report.counts.errors = Some(errors);
            report.counts.warnings = Some(warnings);
            if !self.files_overflow {
                report.counts.files = Some(self.files.len() as u64);
            }
        }
        report.outcome = if errors > 0 {
            Outcome::Failed
        } else {
            Outcome::Passed
        };
        if let Some(fatal) = self.fatal {
            report.outcome = Outcome::Errored;
            report.error = Some(fatal);
        } else if self.no_files {
            report.outcome = Outcome::Errored;
            report.error = Some("pyright found no source file to check".to_owned());
        } else if self.summary.is_none() && report.outcome == Outcome::Passed && self.seen != [0; 3]
        {
            report.outcome = Outcome::Errored;
            report.error = Some("pyright printed no summary line: the run did not finish".into());
        }
        report
    }
}

fn severity_index(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

/// Adds a further line of a message to a detail, with a space between.
fn push_detail(detail: &mut String, line: &str) {
    let line = line.trim();
    if line.is_empty() || detail.len() > MAX_DETAIL * 4 {
        return;
    }
    if !detail.is_empty() {
        detail.push(' ');
    }
    detail.push_str(line);
}

/// Whether an error is likely the cause of others: a syntax error (pyright gives those no rule),
/// a module or a name that cannot be imported, an import cycle.
fn is_root_cause(diagnostic: &Diagnostic) -> bool {
    diagnostic.severity == Severity::Error
        && match diagnostic.code.as_deref() {
            None => true,
            Some(rule) => {
                matches!(rule, "reportMissingImports" | "reportImportCycles")
                    || rule == "reportAttributeAccessIssue"
                        && diagnostic.message.ends_with("is unknown import symbol")
            }
        }
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        if let Some(header) = parse_header(line) {
            self.start(header);
            return;
        }
        if starts_blank(line) {
            if !line.trim().is_empty() {
                self.continue_message(line);
            }
            return;
        }
        self.flush();
        if line.is_empty() {
            return;
        }
        if let Some(summary) = parse_summary(line) {
            self.report.summary = Some(line.trim_end().to_owned());
            self.summary = Some(summary);
        } else {
            self.other(line);
        }
    }

    fn finish(self: Box<Self>) -> Report {
        self.finish_report()
    }
}

/// `pyright --outputjson`, as far as a report needs it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonReport {
    #[serde(default)]
    general_diagnostics: Vec<JsonDiagnostic>,
    summary: JsonSummary,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonSummary {
    files_analyzed: u64,
    error_count: u64,
    warning_count: u64,
    #[serde(default)]
    information_count: u64,
}

#[derive(Deserialize)]
struct JsonDiagnostic {
    #[serde(default)]
    file: Option<String>,
    severity: String,
    message: String,
    #[serde(default)]
    range: Option<JsonRange>,
    #[serde(default)]
    rule: Option<String>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
struct JsonRange {
    start: JsonPosition,
    end: JsonPosition,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
struct JsonPosition {
    line: u32,
    character: u32,
}

/// Reads `pyright --outputjson` (see the module docs). Lines around the JSON (what pyright
/// wrote to stderr in the same log) are read as in the text output. Output that holds no JSON
/// report of pyright is "could not verify".
pub fn from_json(text: &str) -> Report {
    try_from_json(text).unwrap_or_else(|| {
        let mut report = Report::errored(
            TOOL,
            "pyright printed no JSON report (`--outputjson`) that could be read",
        );
        if let Some(line) = text.lines().rev().find(|l| !l.trim().is_empty()) {
            report.notes.push(format!(
                "the output ended: {}",
                clip(line.trim(), MAX_MESSAGE)
            ));
        }
        report
    })
}

/// Like [`from_json`], but `None` when `text` holds no JSON report of pyright, for a caller that
/// falls back to the text output.
pub fn try_from_json(text: &str) -> Option<Report> {
    let (start, end) = json_span(text)?;
    let json: JsonReport = serde_json::from_str(&text[start..end]).ok()?;
    let mut around = Parser::default();
    for line in text[..start].lines().chain(text[end..].lines()) {
        around.other(line.trim_end());
    }
    let mut report = Report::new(TOOL, Outcome::Passed);
    for diagnostic in &json.general_diagnostics {
        report.push(json_diagnostic(diagnostic));
    }
    let summary = &json.summary;
    report.counts.errors = Some(summary.error_count);
    report.counts.warnings = Some(summary.warning_count);
    let files: HashSet<&str> = json
        .general_diagnostics
        .iter()
        .filter(|d| d.severity == "error" || d.severity == "warning")
        .filter_map(|d| d.file.as_deref())
        .collect();
    report.counts.files = Some(files.len() as u64);
    report.outcome = if summary.error_count > 0 {
        Outcome::Failed
    } else {
        Outcome::Passed
    };
    if let Some(fatal) = around.fatal {
        report.outcome = Outcome::Errored;
        report.error = Some(fatal);
    } else if summary.files_analyzed == 0 && summary.error_count == 0 {
        report.outcome = Outcome::Errored;
        report.error = Some("pyright analyzed no file".to_owned());
    }
    if summary.files_analyzed > 0 {
        report.saw(Evidence::Checked);
        report.summary = Some(summary_line(summary));
    }
    Some(report)
}

/// The span of the JSON object in `text`: from a line that is `{` to the last line that is `}`,
/// as pyright prints it, or the whole text when it is nothing else.
fn json_span(text: &str) -> Option<(usize, usize)> {
    let mut start = None;
    let mut end = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if start.is_none() && trimmed == "{" {
            start = Some(offset);
        } else if start.is_some() && trimmed == "}" {
            end = Some(offset + line.len());
        }
        offset += line.len();
    }
    match (start, end) {
        (Some(start), Some(end)) => Some((start, end)),
        _ => {
            let trimmed = text.trim();
            let at = text.find(trimmed)?;
            (trimmed.starts_with('{') && trimmed.ends_with('}')).then_some((at, at + trimmed.len()))
        }
    }
}

/// What pyright prints for these counts: `9 errors, 1 warning, 2 informations`.
fn summary_line(summary: &JsonSummary) -> String {
    let count = |n: u64, one: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    format!(
        "{}, {}, {}",
        count(summary.error_count, "error"),
        count(summary.warning_count, "warning"),
        count(summary.information_count, "information")
    )
}

/// One diagnostic of the JSON report, as the text output reads the same one.
fn json_diagnostic(json: &JsonDiagnostic) -> Diagnostic {
    let severity = match json.severity.as_str() {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => Severity::Info,
    };
    let mut lines = json.message.lines();
    let first = lines.next().unwrap_or_default();
    let mut diagnostic =
        Diagnostic::new(TOOL, Kind::Type, severity, clip(first.trim(), MAX_MESSAGE));
    let mut detail = String::new();
    for line in lines.take(MAX_MESSAGE_LINES) {
        push_detail(&mut detail, line);
    }
    if !detail.is_empty() {
        diagnostic.detail = Some(clip(&detail, MAX_DETAIL));
    }
    diagnostic.file = json.file.clone();
    // pyright's text output shows no position for an empty range; neither does this.
    let origin = JsonPosition {
        line: 0,
        character: 0,
    };
    if let Some(range) = json.range.filter(|r| r.start != origin || r.end != origin) {
        diagnostic.line = Some(range.start.line.saturating_add(1));
        diagnostic.column = Some(range.start.character.saturating_add(1));
    }
    diagnostic.code = json.rule.clone();
    diagnostic.root_cause = is_root_cause(&diagnostic);
    diagnostic
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_with_and_without_a_position_or_a_file() {
        let header = parse_header("  /p/a.py:3:5 - error: Bad thing (reportX)").expect("header");
        assert_eq!(header.file, Some("/p/a.py"));
        assert_eq!((header.line, header.column), (Some(3), Some(5)));
        assert_eq!(header.severity, Severity::Error);
        assert_eq!(header.message, "Bad thing (reportX)");
        let header = parse_header("  /p/a.py: warning: Stub missing").expect("header");
        assert_eq!((header.file, header.line), (Some("/p/a.py"), None));
        let header = parse_header("   information: no file").expect("header");
        assert_eq!(header.file, None);
        assert_eq!(header.severity, Severity::Info);
        // tsc's pretty lines, a message's further line, and the file line are no headers.
        assert!(parse_header("src/a.ts:3:7 - error TS2322: Type").is_none());
        assert!(parse_header("  \u{a0}\u{a0}Attribute \"x\" is unknown (reportX)").is_none());
        assert!(parse_header("/p/a.py").is_none());
    }

    #[test]
    fn the_rule_is_split_from_the_end_of_a_message() {
        assert_eq!(split_rule("A b (reportFoo)"), ("A b", Some("reportFoo")));
        assert_eq!(split_rule("A b (not a rule)"), ("A b (not a rule)", None));
        assert_eq!(split_rule("f(x)"), ("f(x)", None));
    }

    #[test]
    fn summaries_take_singular_and_plural_words() {
        assert_eq!(
            parse_summary("1 error, 2 warnings, 0 informations "),
            Some(Summary {
                errors: 1,
                warnings: 2,
                informations: 0
            })
        );
        assert!(parse_summary("1 error, 2 warnings").is_none());
        assert!(parse_summary("x errors, 2 warnings, 0 informations").is_none());
        assert!(parse_summary("1 errors, 2 warnings, 0 informations, 3 more").is_none());
    }

    #[test]
    fn garbage_and_endless_lines_never_panic() {
        let long = "  /a.py:1:1 - error: ".to_owned() + &"x (".repeat(100_000);
        let garbage = String::from_utf8_lossy(&[0xff, b' ', b' ', 0xc3, b':', b'9']).into_owned();
        for text in [
            long.as_str(),
            garbage.as_str(),
            "  : error: ",
            "   error: ",
            "{",
            "}\n{",
        ] {
            let report = crate::ending::Checked(PyrightSummarizer).parse(text.as_bytes());
            assert_ne!(report.outcome, Outcome::Passed, "{text:.40}");
            let _ = from_json(text);
        }
    }
}
