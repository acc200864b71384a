//! The `eslint` summarizer: the default `stylish` format and the `-f json` report.
//!
//! What an eslint log holds, and how each part is read:
//! - `stylish` (the default): a file's path on a line of its own, then one row per problem,
//!   `  12:5  error  'x' is defined but never used  no-unused-vars` (line:column, severity, the
//!   message with its final period dropped, the rule id; no rule id for a fatal `Parsing error: …`),
//!   a blank line, and at the end `✖ 61 problems (55 errors, 6 warnings)` and `25 errors and 2
//!   warnings potentially fixable with the `--fix` option.` The `✖` line gives the counts; the
//!   files are those printed with at least one row. A clean run prints nothing.
//! - `-f json` (and `-f json-with-metadata`, the same results inside `{"results":[…]}`): one
//!   array of results (`filePath`, `messages[{ruleId, severity, message, line, column, fatal}]`,
//!   `errorCount`, `warningCount`, …), usually on one line. Each result object is cut out of the
//!   stream as its braces close and parsed on its own, so memory is bounded by one input block
//!   and one result (whose long strings, such as the file's `source`, are cut short when it spans
//!   blocks), not by the report. Once the report holds all the diagnostics it keeps, only each
//!   result's `errorCount` and `warningCount` are read.
//! - `-f unix` (`/p/a.js:3:7: 'x' is not defined. [Error/no-undef]`) and `-f compact`
//!   (`/p/a.js: line 3, col 7, Error - 'x' is not defined. (no-undef)`): each row names its file;
//!   the log ends with a bare total, `22 problems`. The rows give the counts.
//! - `next lint`, which prints eslint's findings its own way: `./src/a.tsx` above rows without
//!   indent, `10:27  Warning: 'req' is defined but never used.  rule`, and no summary.
//! - Crashes: `Oops! Something went wrong! :(`, `ESLint: 9.x.y`, then the error (an invalid or
//!   missing config, a config that does not load, no files matching the pattern): nothing was
//!   linted, so the run is errored with eslint's message. The banner is found by its first words
//!   anywhere in a line: a narrow console wraps it, and PowerShell's leftovers may precede it.
//!
//! A message of several lines (typescript-eslint's `Parsing error: ESLint was configured to run
//! on …` explains itself over five) goes on at the start of the lines below its row, before the
//! blank line that ends the file: those lines are its detail, not file paths. A row without a
//! rule id may go further: react-hooks' compiler rules print paragraphs separated by blank lines,
//! a `file:line:col` line and a code frame, and put the rule id after the frame's last line. Such
//! a message ends at that rule id, at the next row or summary, or at a path after a blank line.
//!
//! A GitHub Actions problem matcher writes `##[warning]` or `##[error]` before the rows it
//! matched; that marker is dropped.
//!
//! Warnings alone pass, as eslint's exit code does, unless eslint says `ESLint found too many
//! warnings (maximum: N).` (`--max-warnings`).
//!
//! A JSON report is one line, often longer than the line reader's limit
//! ([`verdict_model::lines::MAX_LINE`]). [`EslintSummarizer::parse_reader`] therefore hands a
//! report found at the start of the input to the JSON reader as raw bytes, around the line reader;
//! the line parser alone (for callers that feed it lines) notes a report that was cut and
//! does not pass it.

use std::borrow::Cow;
use std::io::{self, Read};

use serde::Deserialize;
use verdict_model::lines::{MAX_LINE, Splitter, Stats};
use verdict_model::model::MAX_DIAGNOSTICS;
use verdict_model::{
    Diagnostic, Evidence, Fingerprint, Kind, LineParser, Outcome, Report, Severity, Summarizer,
};

use crate::js_test::{RunnerPrefixes, unprefixed_sample};
use crate::text::clip;

const TOOL: &str = "eslint";

/// The longest message kept, in characters.
const MAX_MESSAGE: usize = 400;
/// The longest crash message kept, in characters.
const MAX_ERROR: usize = 400;
/// How many lines of a crash's message are kept (the stack trace that follows is not).
const MAX_ERROR_LINES: usize = 4;
/// How much of the input's start is searched for a JSON report that begins after a preamble
/// (npm's `> eslint -f json .`).
const JSON_HEAD: usize = 64 * 1024;
/// The read block of [`EslintSummarizer::parse_reader`].
const BLOCK: usize = 256 * 1024;

/// Rules whose findings are likely causes of others: modules that cannot be resolved.
const ROOT_CAUSE_RULES: &[&str] = &[
    "import/no-unresolved",
    "import-x/no-unresolved",
    "import/named",
    "n/no-missing-import",
    "n/no-missing-require",
    "node/no-missing-import",
    "node/no-missing-require",
];

/// Parses eslint output.
#[derive(Debug, Default, Clone, Copy)]
pub struct EslintSummarizer;

impl Summarizer for EslintSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    // A clean run prints nothing (eslint's default formatter, tsc without `--diagnostics`).
    fn silent_on_success(&self) -> bool {
        true
    }

    fn kind(&self) -> Kind {
        Kind::Lint
    }

    fn sniff(&self, sample: &str) -> u8 {
        let sample = &*unprefixed_sample(sample);
        // The summary, the fixable line and the crash banner are eslint's alone.
        if sample.contains("potentially fixable with the `--fix` option")
            || sample.contains(CRASH_BANNER)
            || sample.contains("ESLint couldn't find ")
            || sample.lines().any(|l| parse_summary(l).is_some())
        {
            return 95;
        }
        let start = sample.trim_start();
        if (start.starts_with("[{\"filePath\":")
            || start.starts_with("{\"results\":[{\"filePath\":"))
            && sample.contains("\"messages\":")
        {
            return 95;
        }
        if sample.contains("\"filePath\":") && sample.contains("\"errorCount\":") {
            return 80;
        }
        // The `unix` and `compact` formatters: every row names its file and ends in its rule.
        if sample
            .lines()
            .take(5_000)
            .any(|l| parse_flat_row(l).is_some())
        {
            return 90;
        }
        // `next lint`: its rows have no indent and a capitalised severity.
        let next_rows = sample
            .lines()
            .take(5_000)
            .filter(|l| parse_next_row(l).is_some())
            .take(3)
            .count();
        if next_rows > 0
            && (sample.contains("> next lint")
                || sample.contains("Need to disable some ESLint rules"))
            || next_rows >= 3
        {
            return 90;
        }
        // Only the script line that ran it: a clean run prints nothing. Any other tool's own
        // output is surer than this.
        if sample
            .lines()
            .take(5_000)
            .any(|l| crate::text::script_runs(l, &["eslint"]))
            && !sample.lines().any(|l| parse_row(l).is_some())
        {
            return 40;
        }
        // Rows without their summary (a log cut short).
        let rows = sample
            .lines()
            .filter(|l| parse_row(l).is_some())
            .take(3)
            .count();
        if rows >= 3 {
            return 70;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }

    fn parse(&self, log: &[u8]) -> Report {
        let mut input = log;
        match self.parse_reader(&mut input) {
            Ok((report, _)) => report,
            // Reading a slice cannot fail; this is for the type's sake.
            Err(error) => Report::errored(TOOL, format!("failed to read the log: {error}")),
        }
    }

    fn parse_reader(&self, reader: &mut dyn Read) -> io::Result<(Report, Stats)> {
        let mut parser = Parser::default();
        let mut splitter = Splitter::default();
        let mut raw = Stats::default();
        let mut block = vec![0u8; BLOCK];

        // The start of the input, read whole (up to JSON_HEAD), to find a JSON report after a
        // short preamble before the line reader could cut it.
        let mut head = Vec::with_capacity(JSON_HEAD);
        (&mut *reader)
            .take(JSON_HEAD as u64)
            .read_to_end(&mut head)?;
        let mut pending: &[u8] = &head;
        if let Some(at) = json_start(pending) {
            splitter.push(&pending[..at], &mut |line: &str| parser.line(line));
            parser.start_raw_json();
            pending = &pending[at..];
        }
        let mut head_done = false;
        loop {
            while !pending.is_empty() {
                if parser.raw_json_active() {
                    let used = parser.feed_raw(pending);
                    count_raw(&pending[..used], &mut raw);
                    pending = &pending[used..];
                } else {
                    splitter.push(pending, &mut |line: &str| parser.line(line));
                    pending = &[];
                }
            }
            if !head_done {
                head_done = true;
                if head.len() < JSON_HEAD {
                    break;
                }
            }
            let n = loop {
                match reader.read(&mut block) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if n == 0 {
                break;
            }
            pending = &block[..n];
        }
        let mut stats = splitter.finish(&mut |line: &str| parser.line(line));
        stats.bytes += raw.bytes;
        stats.lines += raw.lines;
        stats.binary_bytes += raw.binary_bytes;
        Ok((Box::new(parser).finish(), stats))
    }
}

/// Adds raw JSON bytes to the reader's statistics, as the line reader counts them.
fn count_raw(bytes: &[u8], stats: &mut Stats) {
    stats.bytes += bytes.len() as u64;
    stats.lines += memchr::memchr_iter(b'\n', bytes).count() as u64;
    // Counted in chunks of 255 into a byte-wide counter, with comparisons only: the loop
    // vectorizes (several GiB/s, where a per-byte `matches!` runs at a few hundred MiB/s).
    for chunk in bytes.chunks(255) {
        let mut binary: u8 = 0;
        for &b in chunk {
            let control =
                (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r') & (b != 0x0c) & (b != 0x1b);
            binary += u8::from(control);
        }
        stats.binary_bytes += u64::from(binary);
    }
}

/// Where a JSON report starts in `head`: at the start of a line, `[` then `{"filePath"`, or
/// `{"results":[` (`json-with-metadata`), whitespace allowed between the tokens.
fn json_start(head: &[u8]) -> Option<usize> {
    let mut line_start = 0;
    loop {
        if looks_like_report(&head[line_start..]) {
            return Some(line_start);
        }
        let nl = memchr::memchr(b'\n', &head[line_start..])?;
        line_start += nl + 1;
    }
}

/// Whether `text` begins with the opening of an eslint JSON report.
fn looks_like_report(text: &[u8]) -> bool {
    fn skip_ws(text: &[u8]) -> &[u8] {
        let text = text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(text);
        let n = text
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            .count();
        &text[n..]
    }
    let text = skip_ws(text);
    if let Some(rest) = text.strip_prefix(b"[") {
        let rest = skip_ws(rest);
        let Some(rest) = rest.strip_prefix(b"{") else {
            return false;
        };
        return skip_ws(rest).starts_with(b"\"filePath\"");
    }
    if let Some(rest) = text.strip_prefix(b"{") {
        let rest = skip_ws(rest);
        let Some(rest) = rest.strip_prefix(b"\"results\"") else {
            return false;
        };
        let rest = skip_ws(rest);
        let Some(rest) = rest.strip_prefix(b":") else {
            return false;
        };
        return skip_ws(rest).starts_with(b"[");
    }
    false
}

/// `✖ 61 problems (55 errors, 6 warnings)`: the errors and warnings.
fn parse_summary(line: &str) -> Option<(u64, u64)> {
    let at = line.find(" problem")?;
    crate::text::trailing_digits(&line[..at])
        .parse::<u64>()
        .ok()?;
    let rest = &line[at + " problem".len()..];
    let rest = rest.strip_prefix('s').unwrap_or(rest);
    let inner = rest.strip_prefix(" (")?;
    let inner = &inner[..inner.find(')')?];
    let (errors, warnings) = inner.split_once(", ")?;
    let number = |part: &str, word: &str| -> Option<u64> {
        let (n, label) = part.split_once(' ')?;
        (label == word || label.strip_suffix('s') == Some(word))
            .then(|| n.parse().ok())
            .flatten()
    };
    Some((number(errors, "error")?, number(warnings, "warning")?))
}

/// One stylish row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Row<'a> {
    line: u32,
    column: u32,
    severity: Severity,
    message: &'a str,
    rule: Option<&'a str>,
}

/// Parses `  12:5  error  'x' is defined but never used  no-unused-vars`.
///
/// Byte by byte rather than with a pattern: rows are most of a stylish log.
fn parse_row(line: &str) -> Option<Row<'_>> {
    let bytes = line.as_bytes();
    if !bytes.starts_with(b"  ") {
        return None;
    }
    let mut i = skip_spaces(bytes, 2);
    let (line_no, next) = number(bytes, i)?;
    if bytes.get(next) != Some(&b':') {
        return None;
    }
    let (column, next) = number(bytes, next + 1)?;
    if bytes.get(next) != Some(&b' ') {
        return None;
    }
    i = skip_spaces(bytes, next);
    let rest = &bytes[i..];
    let (severity, len) = if rest.starts_with(b"error ") {
        (Severity::Error, 5)
    } else if rest.starts_with(b"warning ") {
        (Severity::Warning, 7)
    } else {
        return None;
    };
    let start = skip_spaces(bytes, i + len);
    let rest = trim_end_spaces(line.get(start..)?);
    if rest.is_empty() {
        return None;
    }
    // The rule id is the last column, two spaces or more after the message; it has no space of
    // its own, so the row's last space tells. A fatal error has none, and its message may hold
    // anything.
    let mut message = rest;
    let mut rule = None;
    if let Some(last) = memchr::memrchr(b' ', rest.as_bytes())
        && last > 0
        && rest.as_bytes()[last - 1] == b' '
        && !rest.starts_with("Parsing error")
        && is_rule_id(&rest[last + 1..])
    {
        message = trim_end_spaces(&rest[..last]);
        rule = Some(&rest[last + 1..]);
    }
    Some(Row {
        line: line_no,
        column,
        severity,
        message,
        rule,
    })
}

/// One row of the `unix` or `compact` formatter, which names its file on every row.
#[derive(Debug, PartialEq, Eq)]
struct FlatRow<'a> {
    file: &'a str,
    row: Row<'a>,
}

/// Parses a row of eslint's `unix` formatter, `/p/a.js:3:7: 'x' is not defined. [Error/no-undef]`
/// (`[Error]` alone for a fatal error), or of its `compact` formatter, `/p/a.js: line 3, col 7,
/// Error - 'x' is not defined. (no-undef)`.
fn parse_flat_row(line: &str) -> Option<FlatRow<'_>> {
    let line = trim_end_spaces(line);
    if line.ends_with(']') {
        parse_unix_row(line)
    } else if line.ends_with(')') {
        parse_compact_row(line)
    } else {
        None
    }
}

fn parse_unix_row(line: &str) -> Option<FlatRow<'_>> {
    let open = line.rfind(" [")?;
    let tag = &line[open + 2..line.len() - 1];
    let (severity, rule) = match tag.split_once('/') {
        Some((severity, rule)) => (severity, Some(rule)),
        None => (tag, None),
    };
    let severity = match severity {
        "Error" => Severity::Error,
        "Warning" => Severity::Warning,
        _ => return None,
    };
    if rule.is_some_and(|r| !is_rule_id(r)) {
        return None;
    }
    let head = &line[..open];
    // The file may hold colons (`C:\p`): the location is the first `:L:C: ` after it.
    let bytes = head.as_bytes();
    let mut from = 0;
    while let Some(found) = memchr::memchr(b':', &bytes[from..]) {
        let at = from + found;
        from = at + 1;
        let Some((line_no, next)) = number(bytes, at + 1) else {
            continue;
        };
        if bytes.get(next) != Some(&b':') {
            continue;
        }
        let Some((column, next)) = number(bytes, next + 1) else {
            continue;
        };
        if at == 0 || !bytes[next..].starts_with(b": ") {
            continue;
        }
        return Some(FlatRow {
            file: &head[..at],
            row: Row {
                line: line_no,
                column,
                severity,
                message: head[next + 2..].trim(),
                rule,
            },
        });
    }
    None
}

fn parse_compact_row(line: &str) -> Option<FlatRow<'_>> {
    let at = line.find(": line ")?;
    let bytes = line.as_bytes();
    let (line_no, next) = number(bytes, at + ": line ".len())?;
    let rest = line[next..].strip_prefix(", col ")?;
    let (column, used) = number(rest.as_bytes(), 0)?;
    let rest = rest[used..].strip_prefix(", ")?;
    let (severity, rest) = if let Some(rest) = rest.strip_prefix("Error - ") {
        (Severity::Error, rest)
    } else {
        (Severity::Warning, rest.strip_prefix("Warning - ")?)
    };
    let (message, rule) = match rest.rfind(" (") {
        Some(open) if is_rule_id(&rest[open + 2..rest.len() - 1]) => {
            (&rest[..open], Some(&rest[open + 2..rest.len() - 1]))
        }
        _ => (rest, None),
    };
    Some(FlatRow {
        file: &line[..at],
        row: Row {
            line: line_no,
            column,
            severity,
            message,
            rule,
        },
    })
}

/// Parses a row of `next lint`, which prints eslint's findings its own way: no indent, the
/// severity capitalised with a colon, `10:27  Warning: 'req' is defined but never used.  rule`.
fn parse_next_row(line: &str) -> Option<Row<'_>> {
    let bytes = line.as_bytes();
    let (line_no, next) = number(bytes, 0)?;
    if bytes.get(next) != Some(&b':') {
        return None;
    }
    let (column, next) = number(bytes, next + 1)?;
    let rest = line.get(skip_spaces(bytes, next)..)?;
    if next == rest.len() {
        return None;
    }
    let (severity, rest) = if let Some(rest) = rest.strip_prefix("Error: ") {
        (Severity::Error, rest)
    } else {
        (Severity::Warning, rest.strip_prefix("Warning: ")?)
    };
    let rest = trim_end_spaces(rest);
    let (message, rule) = match memchr::memrchr(b' ', rest.as_bytes()) {
        Some(last)
            if last > 0 && rest.as_bytes()[last - 1] == b' ' && is_rule_id(&rest[last + 1..]) =>
        {
            (trim_end_spaces(&rest[..last]), Some(&rest[last + 1..]))
        }
        _ => (rest, None),
    };
    Some(Row {
        line: line_no,
        column,
        severity,
        message,
        rule,
    })
}

/// The total the `unix` and `compact` formatters end with: `22 problems`, `1 problem`.
fn parse_total(line: &str) -> Option<u64> {
    let line = line.trim_end();
    let n = line
        .strip_suffix(" problems")
        .or_else(|| line.strip_suffix(" problem"))?;
    n.parse().ok()
}

/// `text` without its trailing spaces (bytes, not chars: the rows' padding is ASCII).
fn trim_end_spaces(text: &str) -> &str {
    let kept = text.len() - text.bytes().rev().take_while(|&b| b == b' ').count();
    &text[..kept]
}

/// The index of the first byte at or after `from` that is not a space.
fn skip_spaces(bytes: &[u8], from: usize) -> usize {
    from + bytes
        .get(from..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| b == b' ').count())
}

/// The decimal number at `from`, and the index after it.
fn number(bytes: &[u8], from: usize) -> Option<(u32, usize)> {
    let digits = bytes
        .get(from..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let mut n = 0u32;
    for &b in &bytes[from..from + digits] {
        n = n * 10 + u32::from(b - b'0');
    }
    Some((n, from + digits))
}

/// Whether `text` can be a rule id: `no-unused-vars`, `@typescript-eslint/no-explicit-any`,
/// `react-hooks/exhaustive-deps`.
fn is_rule_id(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'/' | b'@' | b'.'))
}

/// The start of the banner eslint prints when it crashes, `Oops! Something went wrong! :(`, short
/// enough to survive a console that wraps it (`Oops! Something went` / `wrong! :(`).
const CRASH_BANNER: &str = "Oops! Something went";

/// How many lines an open message (a row without a rule id) may go on for; a React Compiler
/// message with its code frame takes about twenty.
const MAX_OPEN_LINES: usize = 80;

/// The rule id a multi-line message ends with: the last column, two spaces or more after the
/// text (`  41 |  react-hooks/set-state-in-effect`). Only a plugin's or a hyphenated rule counts
/// here, so that code in a frame is not taken for one.
fn trailing_rule_id(line: &str) -> Option<&str> {
    let line = trim_end_spaces(line);
    let last = memchr::memrchr(b' ', line.as_bytes())?;
    let rule = &line[last + 1..];
    (last > 0
        && line.as_bytes()[last - 1] == b' '
        && is_rule_id(rule)
        && rule.contains(['-', '/'])
        && rule
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'@'))
    .then_some(rule)
}

/// Whether a trimmed line is part of a code frame: `36 |   useEffect(…`, `> 38 |   …`, `|   ^^^`.
fn is_code_frame_line(trimmed: &str) -> bool {
    let rest = trimmed.strip_prefix('>').unwrap_or(trimmed).trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    rest[digits..].trim_start().starts_with('|')
}

/// Whether a line can be the path stylish prints above a file's rows: absolute (`/p/a.js`,
/// `C:\p\a.js`), or a single word (a relative path).
fn looks_like_path(line: &str) -> bool {
    let bytes = line.as_bytes();
    bytes.first() == Some(&b'/')
        || bytes.starts_with(b"\\\\")
        || (bytes.len() > 2
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && matches!(bytes[2], b'\\' | b'/'))
        || !line.contains(' ')
}

/// Whether a line ends with `:line:column`, as the header of a code frame does
/// (`C:\\p\\a.tsx:13:9`); stylish never puts a location after a file's path.
fn ends_with_location(line: &str) -> bool {
    let mut rest = line;
    for _ in 0..2 {
        let Some((head, digits)) = rest.rsplit_once(':') else {
            return false;
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        rest = head;
    }
    !rest.is_empty()
}

/// Gives the last diagnostic its rule id, found after its message.
fn set_rule(report: &mut Report, rule: &str) {
    let Some(diagnostic) = report.diagnostics.last_mut() else {
        return;
    };
    diagnostic.code = Some(rule.to_owned());
    if diagnostic.severity == Severity::Error && ROOT_CAUSE_RULES.contains(&rule) {
        diagnostic.root_cause = true;
    }
    diagnostic.refresh_fingerprint();
}

/// Whether a line starts a crash message that eslint prints instead of linting, without its
/// `Oops!` banner.
fn starts_crash(line: &str) -> bool {
    line.starts_with("Invalid option '")
        || line.starts_with("Invalid value for option '")
        || line.starts_with("ESLint couldn't find ")
        || line.starts_with("No files matching the pattern ")
}

/// Adds a diagnostic for one problem, in either format, or only counts it once the report is
/// full (building one costs more than reading its line). Returns whether it was kept.
fn push(report: &mut Report, file: Option<&str>, row: &Row<'_>, fatal: bool) -> bool {
    let Row {
        line,
        column,
        severity,
        message,
        rule,
    } = *row;
    if report.diagnostics.len() >= MAX_DIAGNOSTICS {
        report.diagnostics_dropped += 1;
        return false;
    }
    // Line 0 is eslint's way of saying "no line" (a file ignored by a pattern).
    let line = (line > 0).then_some(line);
    let column = line.and((column > 0).then_some(column));
    let root = fatal
        || message.starts_with("Parsing error")
        || rule.is_some_and(|r| ROOT_CAUSE_RULES.contains(&r));
    // Built in one go: each builder method would recompute the fingerprint.
    let mut d = Diagnostic {
        tool: TOOL.to_owned(),
        kind: Kind::Lint,
        severity,
        file: file.map(str::to_owned),
        line,
        column,
        code: rule.map(str::to_owned),
        message: clip(message, MAX_MESSAGE),
        test: None,
        detail: None,
        root_cause: root && severity == Severity::Error,
        test_error: false,
        fingerprint: Fingerprint::default(),
    };
    d.refresh_fingerprint();
    report.push(d);
    true
}

/// The longest detail kept: the further lines of a multi-line message.
const MAX_DETAIL: usize = 200;

/// Appends a further line of its message to the last diagnostic's detail.
fn append_detail(report: &mut Report, line: &str) {
    let Some(diagnostic) = report.diagnostics.last_mut() else {
        return;
    };
    let detail = diagnostic.detail.get_or_insert_with(String::new);
    if detail.chars().count() >= MAX_DETAIL {
        return;
    }
    if !detail.is_empty() {
        detail.push(' ');
    }
    detail.push_str(line.trim());
    if detail.chars().count() > MAX_DETAIL {
        *detail = clip(detail, MAX_DETAIL);
    }
}

/// One result of eslint's JSON report, the fields read. Strings borrow from the input where
/// they hold no escape.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonResult<'a> {
    #[serde(borrow)]
    file_path: Cow<'a, str>,
    #[serde(default, borrow)]
    messages: Vec<JsonMessage<'a>>,
    #[serde(default)]
    error_count: u64,
    #[serde(default)]
    warning_count: u64,
}

/// A result's counts alone, for when the report holds all the diagnostics it keeps: the messages
/// are skipped, not built.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonCounts {
    #[serde(default)]
    error_count: u64,
    #[serde(default)]
    warning_count: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonMessage<'a> {
    #[serde(default, borrow)]
    rule_id: Option<Cow<'a, str>>,
    #[serde(default)]
    severity: u8,
    #[serde(default, borrow)]
    message: Cow<'a, str>,
    line: Option<u32>,
    column: Option<u32>,
    #[serde(default)]
    fatal: bool,
}

/// What the JSON report said, summed over its results.
#[derive(Default)]
struct JsonTotals {
    reports: u64,
    errors: u64,
    warnings: u64,
    files: u64,
    /// Result objects that could not be read.
    unreadable: u64,
    /// Whether a report was cut (a line longer than the line reader's limit) or did not end.
    incomplete: bool,
}

/// Reads one result object of the JSON report into the report and the totals.
fn read_result(object: &[u8], report: &mut Report, totals: &mut JsonTotals) {
    if report.diagnostics.len() >= MAX_DIAGNOSTICS {
        // Only the counts are wanted: read the two numbers where they are, without parsing the
        // rest (most of a result's bytes are its file's `source`).
        if let (Some(errors), Some(warnings)) = (
            number_field(object, b"\"errorCount\""),
            number_field(object, b"\"warningCount\""),
        ) {
            totals.add(errors, warnings);
            report.diagnostics_dropped += errors + warnings;
            return;
        }
        match serde_json::from_slice::<JsonCounts>(object) {
            Ok(counts) => {
                totals.add(counts.error_count, counts.warning_count);
                // The messages are counted without being read: one per problem.
                report.diagnostics_dropped += counts.error_count + counts.warning_count;
            }
            Err(error) => totals.unreadable(report, &error),
        }
        return;
    }
    let result = match serde_json::from_slice::<JsonResult<'_>>(object) {
        Ok(result) => result,
        Err(error) => return totals.unreadable(report, &error),
    };
    totals.add(result.error_count, result.warning_count);
    for message in &result.messages {
        let severity = match message.severity {
            2 => Severity::Error,
            1 => Severity::Warning,
            _ => Severity::Info,
        };
        // As stylish prints it: the first line, without the final period; the further lines
        // are the detail.
        let mut lines = message.message.lines();
        let text = lines.next().unwrap_or("");
        let text = match text.strip_suffix('.') {
            Some(stripped) if !stripped.ends_with(' ') => stripped,
            _ => text,
        };
        let row = Row {
            line: message.line.unwrap_or(0),
            column: message.column.unwrap_or(0),
            severity,
            message: text,
            rule: message.rule_id.as_deref(),
        };
        let kept = push(report, Some(&result.file_path), &row, message.fatal);
        if kept {
            for line in lines.take(MAX_CONTINUATION_LINES) {
                append_detail(report, line);
            }
        }
    }
}

/// How many further lines of a multi-line message are read into its detail.
const MAX_CONTINUATION_LINES: usize = 10;

/// The number after `key` (a quoted key, `"errorCount"`) in a result object. The first match is
/// the result's own field: no other object in a result has that key, and inside a string value a
/// quote is escaped, so the quoted key cannot appear there.
fn number_field(object: &[u8], key: &[u8]) -> Option<u64> {
    let at = memchr::memmem::find(object, key)? + key.len();
    let rest = &object[at..];
    let ws = |text: &[u8]| {
        text.iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            .count()
    };
    let rest = &rest[ws(rest)..];
    let rest = rest.strip_prefix(b":")?;
    let rest = &rest[ws(rest)..];
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 18 {
        return None;
    }
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

impl JsonTotals {
    fn add(&mut self, errors: u64, warnings: u64) {
        self.errors += errors;
        self.warnings += warnings;
        if errors + warnings > 0 {
            self.files += 1;
        }
    }

    fn unreadable(&mut self, report: &mut Report, error: &serde_json::Error) {
        self.unreadable += 1;
        report.note(format!(
            "a result of eslint's JSON report could not be read: {error}"
        ));
    }
}

/// The longest string kept whole in a result object copied across input blocks; the rest of a
/// longer one (a file's `source`) is dropped before parsing.
const MAX_JSON_STRING: usize = 4 * 1024;
/// The largest result object read; a larger one is counted as unreadable.
const MAX_JSON_OBJECT: usize = 16 << 20;
/// The deepest nesting followed.
const MAX_JSON_DEPTH: usize = 256;

/// Cuts the result objects out of an eslint JSON report as it streams past.
///
/// It follows strings and brackets only, which is all it needs to know where each result starts
/// and ends; each result is then parsed by serde. An object that ends in the input it started in
/// is handed over where it lies; one that spans inputs is copied, its long strings cut to
/// [`MAX_JSON_STRING`], so memory is one input block plus one (cut) result object.
#[derive(Default)]
struct JsonScanner {
    /// The open containers, `[` or `{`.
    stack: Vec<u8>,
    in_string: bool,
    escape: bool,
    /// Hex digits of a `\uXXXX` escape still to come; a string is never cut inside one.
    hex_left: usize,
    /// Whether a result object is open.
    capturing: bool,
    /// Where the open result object starts in the current input, while it is not copied.
    direct: Option<usize>,
    /// The open result object, copied once it spans inputs.
    capture: Vec<u8>,
    /// Braces open in the result object; it ends when they are all closed.
    braces: u64,
    /// Whether the open result object is too large and is only followed to its end.
    discarding: bool,
    /// The length of the current string in the copy, and whether its rest is dropped.
    string_len: usize,
    cutting: bool,
    /// Result objects too large to read.
    oversized: u64,
    /// Whether the nesting went deeper than [`MAX_JSON_DEPTH`].
    too_deep: bool,
}

/// What one step of [`JsonScanner::scan`] leaves: the index to go on from, or the end of this
/// input (with the end of the top-level value, when it ended).
enum Step {
    At(usize),
    End(Option<usize>),
}

impl JsonScanner {
    /// Whether an object opening now is a result: an element of the top-level array, or of the
    /// array directly inside the top-level object (`{"results":[…]}`).
    fn at_result_parent(&self) -> bool {
        matches!(self.stack.as_slice(), [b'['] | [b'{', b'['])
    }

    /// Whether bytes are being copied into `capture`.
    fn copying(&self) -> bool {
        self.capturing && self.direct.is_none() && !self.discarding
    }

    /// Feeds bytes; calls `on_result` with each complete result object. Returns the index just
    /// after the end of the top-level value when it ends within `bytes`.
    fn feed(&mut self, bytes: &[u8], on_result: &mut impl FnMut(&[u8])) -> Option<usize> {
        let end = self.scan(bytes, on_result);
        if let Some(start) = self.direct.take()
            && self.capturing
            && !self.discarding
        {
            // The object goes on in the next input: keep what it has so far.
            let stop = end.unwrap_or(bytes.len());
            self.capture.extend_from_slice(&bytes[start..stop]);
            self.string_len = 0;
        }
        end
    }

    /// Scans `bytes` one step at a time: inside a string, inside a result object, or between
    /// them. Returns the index just after the end of the top-level value when it ends here.
    fn scan(&mut self, bytes: &[u8], on_result: &mut impl FnMut(&[u8])) -> Option<usize> {
        let mut i = 0;
        while i < bytes.len() {
            let step = if self.in_string {
                self.scan_string(bytes, i)
            } else if self.capturing {
                self.scan_result(bytes, i, on_result)
            } else {
                self.scan_outside(bytes, i)
            };
            match step {
                Step::At(next) => i = next,
                Step::End(end) => return end,
            }
        }
        None
    }

    /// Inside a string: up to its next escape or its closing quote.
    fn scan_string(&mut self, bytes: &[u8], i: usize) -> Step {
        if self.escape {
            self.escape = false;
            let b = bytes[i];
            self.push_string_byte(b);
            if b == b'u' {
                self.hex_left = 4;
            }
            return Step::At(i + 1);
        }
        let Some(offset) = memchr::memchr2(b'"', b'\\', &bytes[i..]) else {
            self.push_string_chunk(&bytes[i..]);
            return Step::End(None);
        };
        self.push_string_chunk(&bytes[i..i + offset]);
        let i = i + offset;
        if bytes[i] == b'\\' {
            if self.copying() && !self.cutting && self.string_len + 6 > MAX_JSON_STRING {
                self.cutting = true;
            }
            self.push_string_byte(b'\\');
            self.escape = true;
        } else {
            self.in_string = false;
            self.cutting = false;
            self.hex_left = 0;
            self.string_len = 0;
            if self.copying() {
                self.capture.push(b'"');
            }
        }
        Step::At(i + 1)
    }

    /// Inside a result object, where only strings and braces matter: up to the next of them,
    /// handing the object to `on_result` when its last brace closes.
    fn scan_result(&mut self, bytes: &[u8], i: usize, on_result: &mut impl FnMut(&[u8])) -> Step {
        let Some(offset) = memchr::memchr3(b'"', b'{', b'}', &bytes[i..]) else {
            if self.copying() {
                self.capture.extend_from_slice(&bytes[i..]);
            }
            return Step::End(None);
        };
        if self.copying() {
            self.capture.extend_from_slice(&bytes[i..i + offset]);
        }
        let i = i + offset;
        let b = bytes[i];
        if self.copying() {
            self.capture.push(b);
        }
        match b {
            b'"' => {
                self.in_string = true;
                self.string_len = 0;
            }
            b'{' => self.braces += 1,
            _ => {
                self.braces = self.braces.saturating_sub(1);
                if self.braces == 0 {
                    self.capturing = false;
                    match self.direct.take() {
                        Some(start) => on_result(&bytes[start..=i]),
                        None if !self.discarding => on_result(&self.capture),
                        None => {}
                    }
                    self.discarding = false;
                    self.capture.clear();
                }
            }
        }
        if self.capture.len() > MAX_JSON_OBJECT {
            // Too large to read: follow it to its end without keeping it.
            self.capture = Vec::new();
            self.oversized += 1;
            self.discarding = true;
        }
        Step::At(i + 1)
    }

    /// Between result objects: one byte of the structure around them.
    fn scan_outside(&mut self, bytes: &[u8], i: usize) -> Step {
        let b = bytes[i];
        match b {
            b'"' => self.in_string = true,
            b'{' if self.at_result_parent() => {
                self.capturing = true;
                self.discarding = false;
                self.braces = 1;
                self.direct = Some(i);
                self.capture.clear();
            }
            b'{' | b'[' => {
                if self.stack.len() < MAX_JSON_DEPTH {
                    self.stack.push(b);
                } else {
                    self.too_deep = true;
                }
            }
            b'}' | b']' => {
                self.stack.pop();
                if self.stack.is_empty() {
                    return Step::End(Some(i + 1));
                }
            }
            _ => {}
        }
        Step::At(i + 1)
    }

    fn push_string_byte(&mut self, b: u8) {
        if self.copying() && !self.cutting {
            self.capture.push(b);
            self.string_len += 1;
        }
    }

    /// Copies part of a string that holds no quote and no backslash, cutting a long string at a
    /// character boundary.
    fn push_string_chunk(&mut self, mut chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        let copying = self.copying();
        if self.hex_left > 0 {
            let n = self.hex_left.min(chunk.len());
            if copying && !self.cutting {
                self.capture.extend_from_slice(&chunk[..n]);
                self.string_len += n;
            }
            self.hex_left -= n;
            chunk = &chunk[n..];
        }
        if !copying || self.cutting {
            return;
        }
        let room = MAX_JSON_STRING.saturating_sub(self.string_len);
        if chunk.len() <= room {
            self.capture.extend_from_slice(chunk);
            self.string_len += chunk.len();
            return;
        }
        let mut cut = room;
        while cut > 0 && chunk.get(cut).is_some_and(|b| b & 0xC0 == 0x80) {
            cut -= 1;
        }
        self.capture.extend_from_slice(&chunk[..cut]);
        self.string_len += cut;
        self.cutting = true;
    }
}

/// Where a JSON report is being read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonSource {
    /// Lines from the line reader.
    Lines,
    /// Raw bytes, around the line reader ([`EslintSummarizer::parse_reader`]).
    Raw,
    /// Raw bytes, between two reports: whitespace until the next one or other output.
    RawBetween,
}

struct Parser {
    report: Report,
    /// The JSON report being read, and from where.
    json: Option<(JsonScanner, JsonSource)>,
    json_totals: JsonTotals,
    /// The path line stylish printed last, and how many rows followed it.
    file: Option<String>,
    file_rows: u64,
    /// Whether the last line was a row (a multi-line message may go on below it), whether that
    /// row's diagnostic was kept, and how many lines continued it.
    after_row: bool,
    last_row_kept: bool,
    continuation_lines: usize,
    /// Whether the last row had no rule id: its message may go on over several paragraphs and a
    /// code frame (React Compiler rules), blank lines included, up to the line that ends with the
    /// rule id. Holds whether a blank line was seen since.
    open_message: Option<bool>,
    /// Rows seen, and files with at least one row.
    row_errors: u64,
    row_warnings: u64,
    row_files: u64,
    /// The `✖` lines' counts, summed.
    summary: Option<(u64, u64)>,
    /// The `unix` and `compact` formatters' totals (`22 problems`), summed, and the file of
    /// their last row.
    flat_total: Option<u64>,
    flat_file: Option<String>,
    too_many_warnings: Option<String>,
    /// Inside `Oops! Something went wrong!`: the lines of eslint's message.
    in_crash: bool,
    crash_lines: Vec<String>,
    crash_done: bool,
    /// The first sign of a failure around eslint (npm's, yarn's or pnpm's error lines).
    failure_sign: Option<String>,
    /// The prefixes of a monorepo task runner (turbo, pnpm) that each line loses.
    prefixes: RunnerPrefixes,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            report: Report::new(TOOL, Outcome::Passed),
            json: None,
            json_totals: JsonTotals::default(),
            file: None,
            file_rows: 0,
            after_row: false,
            last_row_kept: false,
            continuation_lines: 0,
            open_message: None,
            row_errors: 0,
            row_warnings: 0,
            row_files: 0,
            summary: None,
            flat_total: None,
            flat_file: None,
            too_many_warnings: None,
            in_crash: false,
            crash_lines: Vec::new(),
            crash_done: false,
            failure_sign: None,
            prefixes: RunnerPrefixes::default(),
        }
    }
}

impl Parser {
    fn start_raw_json(&mut self) {
        self.json = Some((JsonScanner::default(), JsonSource::Raw));
    }

    fn raw_json_active(&self) -> bool {
        matches!(
            self.json,
            Some((_, JsonSource::Raw | JsonSource::RawBetween))
        )
    }

    /// Feeds raw bytes to the JSON report; returns how many were used. Bytes after the last
    /// report that are not another report go back to the line reader.
    fn feed_raw(&mut self, bytes: &[u8]) -> usize {
        let mut used = 0;
        while used < bytes.len() {
            let Some((scanner, source)) = self.json.as_mut() else {
                return used;
            };
            if *source == JsonSource::RawBetween {
                let ws = bytes[used..]
                    .iter()
                    .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                    .count();
                used += ws;
                if used == bytes.len() {
                    return used;
                }
                if looks_like_report(&bytes[used..]) || matches!(bytes[used], b'[' | b'{') {
                    *scanner = JsonScanner::default();
                    *source = JsonSource::Raw;
                } else {
                    self.json = None;
                    return used;
                }
                continue;
            }
            let (report, totals) = (&mut self.report, &mut self.json_totals);
            let end = scanner.feed(&bytes[used..], &mut |object| {
                read_result(object, report, totals)
            });
            match end {
                Some(end) => {
                    used += end;
                    self.end_json_report();
                    if let Some((_, source)) = self.json.as_mut() {
                        *source = JsonSource::RawBetween;
                    }
                }
                None => return bytes.len(),
            }
        }
        used
    }

    /// Feeds one line of a JSON report read line by line.
    fn json_line(&mut self, line: &str) {
        let Some((scanner, _)) = self.json.as_mut() else {
            return;
        };
        let (report, totals) = (&mut self.report, &mut self.json_totals);
        let mut on_result = |object: &[u8]| read_result(object, report, totals);
        let mut end = scanner.feed(line.as_bytes(), &mut on_result);
        if end.is_none() {
            end = scanner.feed(b"\n", &mut on_result).map(|_| line.len());
        }
        if end.is_some() {
            self.end_json_report();
            self.json = None;
        } else if line.len() + 4 >= MAX_LINE {
            // The line reader cut this line: the rest of the report is lost.
            self.json_totals.incomplete = true;
            self.report.note(format!(
                "eslint's JSON report is on a line longer than {} KiB, cut by the line reader; \
                 only its start was read",
                MAX_LINE / 1024
            ));
            self.json = None;
        }
    }

    fn end_json_report(&mut self) {
        self.json_totals.reports += 1;
        // A whole report, one result per file linted: the evidence a pass needs.
        self.report.saw(Evidence::Checked);
        if let Some((scanner, _)) = &self.json {
            self.json_totals.unreadable += scanner.oversized;
            if scanner.too_deep {
                self.json_totals.incomplete = true;
            }
        }
    }

    /// Ends the rows of the current stylish file.
    fn end_file(&mut self) {
        if self.file.take().is_some() && self.file_rows > 0 {
            self.row_files += 1;
        }
        self.file_rows = 0;
    }

    /// A row under the current file's path.
    fn row(&mut self, row: Row<'_>) {
        self.file_rows += 1;
        match row.severity {
            Severity::Error => self.row_errors += 1,
            _ => self.row_warnings += 1,
        }
        self.last_row_kept = push(&mut self.report, self.file.as_deref(), &row, false);
        self.after_row = true;
        self.continuation_lines = 0;
        self.open_message = row.rule.is_none().then_some(false);
    }

    /// A row of the `unix` or `compact` formatter, which names its own file. Rows come grouped
    /// by file, so a new file starts where the name changes.
    fn flat_row(&mut self, flat: FlatRow<'_>) {
        self.end_file();
        if self.flat_file.as_deref() != Some(flat.file) {
            self.row_files += 1;
            self.flat_file = Some(flat.file.to_owned());
        }
        match flat.row.severity {
            Severity::Error => self.row_errors += 1,
            _ => self.row_warnings += 1,
        }
        self.last_row_kept = push(&mut self.report, Some(flat.file), &flat.row, false);
        self.after_row = false;
    }

    /// A line while the last row's message is open ([`Parser::open_message`]). Returns whether
    /// the line belonged to the message; otherwise the message is closed and the line is read as
    /// usual.
    fn open_message_line(&mut self, line: &str) -> bool {
        let Some(seen_blank) = self.open_message else {
            return false;
        };
        let trimmed = line.trim();
        if trimmed.is_empty() {
            self.open_message = Some(true);
            return true;
        }
        self.continuation_lines += 1;
        let ends_message = parse_row(line).is_some()
            || self.continuation_lines > MAX_OPEN_LINES
            || (line.contains(" problem") && parse_summary(line).is_some())
            || line.starts_with(CRASH_BANNER)
            // After a blank line, a path at the start of the line is the next file's header,
            // unless it names a line and column: that heads the message's code frame.
            || seen_blank
                && !line.starts_with([' ', '\t'])
                && looks_like_path(trimmed)
                && !ends_with_location(trimmed);
        if ends_message {
            self.open_message = None;
            // Still inside the file: the blank lines were the message's.
            self.after_row = false;
            return false;
        }
        if let Some(rule) = trailing_rule_id(line) {
            self.open_message = None;
            self.after_row = false;
            if self.last_row_kept {
                set_rule(&mut self.report, rule);
            }
            return true;
        }
        if self.last_row_kept
            && self.continuation_lines <= MAX_CONTINUATION_LINES
            && !is_code_frame_line(trimmed)
            && !ends_with_location(trimmed)
        {
            append_detail(&mut self.report, line);
        }
        true
    }

    fn crash_line(&mut self, line: &str) {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            // A blank line ends the message, unless its last line announces more: eslint 8's
            // `Failed to read JSON file at …/.eslintrc.json:` gives the reason after a blank line.
            if self
                .crash_lines
                .last()
                .is_some_and(|last| !last.ends_with(':'))
            {
                self.crash_done = true;
            }
            return;
        }
        if self.crash_done || trimmed.starts_with("at ") {
            self.crash_done = !self.crash_lines.is_empty();
            return;
        }
        // The version line, and the banner's end where a console wrapped it.
        if self.crash_lines.is_empty()
            && (trimmed.starts_with("ESLint: ") || trimmed.starts_with("wrong! :("))
        {
            return;
        }
        if self.crash_lines.len() < MAX_ERROR_LINES {
            self.crash_lines.push(clip(trimmed, MAX_ERROR));
        }
    }
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        // PowerShell's redirection starts the output with a byte order mark.
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        let line = self.prefixes.strip(line);
        if matches!(self.json, Some((_, JsonSource::Lines))) {
            self.json_line(line);
            return;
        }
        if self.open_message.is_some() && self.open_message_line(line) {
            return;
        }
        let Some(&first) = line.as_bytes().first() else {
            self.after_row = false;
            self.end_file();
            if self.in_crash {
                self.crash_line(line);
            }
            return;
        };
        if self.in_crash {
            self.crash_line(line);
            return;
        }
        if first == b' ' {
            self.indented_line(line);
            return;
        }
        if self.after_row {
            // A multi-line message goes on at the start of the line (typescript-eslint's
            // "However, that TSConfig does not include this file"): files are separated by a
            // blank line, so this is no file's path.
            if self.last_row_kept && self.continuation_lines < MAX_CONTINUATION_LINES {
                append_detail(&mut self.report, line);
            }
            self.continuation_lines += 1;
            return;
        }
        if self.marker_line(first, line) || self.row_line(first, line) {
            return;
        }
        self.file_line(line);
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.end_file();
        if self.json.is_some() {
            if matches!(self.json, Some((_, JsonSource::Raw | JsonSource::Lines))) {
                self.json_totals.incomplete = true;
                self.report
                    .note("eslint's JSON report ends before it closes");
            }
            self.end_json_report();
        }
        let flat_total = self.flat_total;
        let mut report = self.report;
        let json = self.json_totals;
        let (errors, warnings, files) = if json.reports > 0 {
            (
                json.errors + self.summary.map_or(0, |s| s.0),
                json.warnings + self.summary.map_or(0, |s| s.1),
                json.files + self.row_files,
            )
        } else if let Some((errors, warnings)) = self.summary {
            (errors, warnings, self.row_files)
        } else {
            let rows = self.row_errors + self.row_warnings;
            match flat_total {
                Some(total) if total != rows => report.note(format!(
                    "eslint counts {total} problems, the log lists {rows}"
                )),
                Some(_) => {}
                None if rows > 0 => {
                    report.note("no `✖ N problems` summary: the counts are the rows printed");
                }
                None => {}
            }
            (self.row_errors, self.row_warnings, self.row_files)
        };
        let json_broken = json.incomplete || json.unreadable > 0;
        if json_broken {
            report.note(format!(
                "eslint's JSON report was not read whole ({} results unreadable); its counts are \
                 unknown",
                json.unreadable
            ));
        }
        let crash = (!self.crash_lines.is_empty() || self.in_crash).then(|| {
            if self.crash_lines.is_empty() {
                "eslint crashed: Oops! Something went wrong!".to_owned()
            } else {
                clip(&self.crash_lines.join(" "), MAX_ERROR)
            }
        });
        // Counts only when eslint linted and its report was read whole: a crash or a cut report
        // has no counts of its own.
        let linted = json.reports > 0
            || self.summary.is_some()
            || flat_total.is_some()
            || self.row_errors + self.row_warnings > 0;
        if (crash.is_none() || linted) && !json_broken {
            report.counts.errors = Some(errors);
            report.counts.warnings = Some(warnings);
            report.counts.files = Some(files);
        }
        if let Some(crash) = crash {
            report.outcome = Outcome::Errored;
            report.error = Some(crash);
        } else if errors > 0 {
            report.outcome = Outcome::Failed;
        } else if let Some(too_many) = self.too_many_warnings {
            // The warnings fail the run: say so where the digest shows it, not only in the exit
            // code.
            report.outcome = Outcome::Failed;
            let mut d = Diagnostic::new(TOOL, Kind::Lint, Severity::Error, too_many.clone());
            d.root_cause = true;
            report.push(d);
            report.summary.get_or_insert(too_many);
        } else if json_broken {
            report.outcome = Outcome::Errored;
            report.error = Some("eslint's JSON report could not be read whole".to_owned());
        } else if let Some(sign) = self.failure_sign {
            report.outcome = Outcome::Errored;
            report.error = Some(sign);
        } else {
            report.outcome = Outcome::Passed;
        }
        report
    }
}

impl Parser {
    /// An indented line: a row without its file (a log that starts in the middle still counts),
    /// the fixable line, a crash's indented detail, a stack frame.
    fn indented_line(&mut self, line: &str) {
        if let Some(row) = parse_row(line) {
            self.row(row);
            return;
        }
        // The fixable line, a crash's indented detail, a stack frame.
        let trimmed = line.trim_start();
        if trimmed.starts_with("ELIFECYCLE") && self.failure_sign.is_none() {
            self.failure_sign = Some(clip(trimmed, MAX_ERROR));
        }
    }

    /// A column-0 line that is no row: a JSON report, the problems summary, a crash, the
    /// package manager's failure; `true` when it was one.
    fn marker_line(&mut self, first: u8, line: &str) -> bool {
        // A report printed over several lines (`jq .`) opens with a lone `[`.
        if matches!(first, b'[' | b'{')
            && (looks_like_report(line.as_bytes()) || line.trim_end() == "[")
        {
            self.end_file();
            self.json = Some((JsonScanner::default(), JsonSource::Lines));
            self.json_line(line);
            return true;
        }
        if line.contains(" problem")
            && let Some((errors, warnings)) = parse_summary(line)
        {
            self.end_file();
            let (e, w) = self.summary.unwrap_or((0, 0));
            self.summary = Some((e + errors, w + warnings));
            self.report.summary = Some(line.trim().to_owned());
            return true;
        }
        // Anywhere in the line: a console's leftovers may stand before it.
        if line.contains(CRASH_BANNER) {
            self.end_file();
            self.in_crash = true;
            return true;
        }
        if line.starts_with("ESLint found too many warnings") {
            self.too_many_warnings = Some(line.trim_end().to_owned());
            return true;
        }
        if starts_crash(line) {
            self.in_crash = true;
            self.crash_line(line);
            return true;
        }
        if self.failure_sign.is_none()
            && (line.starts_with("npm ERR!")
                || line.starts_with("npm error")
                || line.starts_with("error Command failed"))
        {
            self.failure_sign = Some(clip(line.trim(), MAX_ERROR));
            return true;
        }
        false
    }

    /// One of the rows of a format without files' headers (`unix`, `compact`, `visualstudio`)
    /// or its total; `true` when it was one.
    fn row_line(&mut self, first: u8, line: &str) -> bool {
        if first.is_ascii_digit()
            && let Some(row) = parse_next_row(line)
        {
            self.row(row);
            // Its rows follow each other without indent: none is a message's further line.
            self.after_row = false;
            self.open_message = None;
            return true;
        }
        if matches!(line.as_bytes().last(), Some(b']' | b')'))
            && let Some(flat) = parse_flat_row(line)
        {
            self.flat_row(flat);
            return true;
        }
        if first.is_ascii_digit()
            && let Some(total) = parse_total(line)
        {
            self.end_file();
            self.flat_total = Some(self.flat_total.unwrap_or(0) + total);
            self.report.summary = Some(line.trim().to_owned());
            return true;
        }
        false
    }

    /// Any other line: a file's path, whose rows follow.
    fn file_line(&mut self, line: &str) {
        // A file's path; its rows follow. Or the package manager's line that ran eslint, all
        // that a clean run shows of it.
        if self.report.evidence == Evidence::Nothing && crate::text::script_runs(line, &["eslint"])
        {
            self.report.saw(Evidence::Ran);
        }
        // `next lint`'s clean run, said in eslint's name.
        if line.contains("No ESLint warnings or errors") {
            self.report.saw(Evidence::Checked);
        }
        self.end_file();
        self.file = Some(line.trim_end().to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        EslintSummarizer.parse(log.as_bytes())
    }

    fn lines(log: &str) -> Report {
        let mut parser = EslintSummarizer.parser();
        verdict_model::lines::for_each_line_in(log.as_bytes(), |line| parser.line(line));
        parser.finish()
    }

    #[test]
    fn rows() {
        let row = parse_row("  12:5   error    'x' is defined but never used  no-unused-vars")
            .expect("row");
        assert_eq!((row.line, row.column), (12, 5));
        assert_eq!(row.message, "'x' is defined but never used");
        assert_eq!(row.rule, Some("no-unused-vars"));
        let fatal = parse_row("  5:60  error  Parsing error: Unexpected token  )").expect("fatal");
        assert_eq!(fatal.message, "Parsing error: Unexpected token  )");
        assert_eq!(fatal.rule, None);
        let scoped = parse_row(
            "  3:1  warning  Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any",
        )
        .expect("scoped");
        assert_eq!(scoped.rule, Some("@typescript-eslint/no-explicit-any"));
        assert_eq!(parse_row("  12:5  note  x"), None);
        assert_eq!(parse_row("    at foo (x.js:1:2)"), None);
    }

    #[test]
    fn multi_line_messages_stay_with_their_file() {
        let report = parse(
            "\n/p/a.ts\n  0:0  error  Parsing error: ESLint was configured to run on `<tsconfigRootDir>/a.ts` using `parserOptions.project`: <tsconfigRootDir>/tsconfig.json\nHowever, that TSConfig does not include this file. Either:\n- Change ESLint's list of included files to not include this file\n  3:1  error  'x' is not defined  no-undef\n\n/p/b.ts\n  1:1  warning  Unexpected console statement  no-console\n\n✖ 3 problems (2 errors, 1 warning)\n",
        );
        let files: Vec<&str> = report
            .diagnostics
            .iter()
            .filter_map(|d| d.file.as_deref())
            .collect();
        assert_eq!(files, ["/p/a.ts", "/p/a.ts", "/p/b.ts"]);
        assert_eq!(report.counts.files, Some(2));
        let first = &report.diagnostics[0];
        assert!(first.root_cause);
        assert_eq!(first.line, None);
        assert_eq!(
            first.detail.as_deref(),
            Some(
                "However, that TSConfig does not include this file. Either: - Change ESLint's list of included files to not include this file"
            )
        );
    }

    #[test]
    fn messages_with_paragraphs_and_code_frames_keep_their_file_and_rule() {
        // The shape of react-hooks' compiler rules (eslint-plugin-react-hooks 6).
        let report = parse(
            "\nC:\\p\\a.jsx\n  38:7  error  Error: Calling setState synchronously within an effect can trigger cascading renders\n\nEffects are intended to synchronize state.\n* Update external systems.\n\nC:\\p\\a.jsx:38:7\n  36 |   useEffect(() => {\n> 38 |       setOpen(false)\n     |       ^^^^^^^ Avoid calling setState() directly\n  41 |  react-hooks/set-state-in-effect\n  43:31  error  Redundant double negation  no-extra-boolean-cast\n\nC:\\p\\b.jsx\n  1:1  error  'x' is not defined  no-undef\n\n✖ 3 problems (3 errors, 0 warnings)\n",
        );
        let seen: Vec<(Option<&str>, Option<&str>)> = report
            .diagnostics
            .iter()
            .map(|d| (d.file.as_deref(), d.code.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [
                (
                    Some("C:\\p\\a.jsx"),
                    Some("react-hooks/set-state-in-effect")
                ),
                (Some("C:\\p\\a.jsx"), Some("no-extra-boolean-cast")),
                (Some("C:\\p\\b.jsx"), Some("no-undef")),
            ]
        );
        assert_eq!(report.counts.files, Some(2));
        assert_eq!(
            report.diagnostics[0].detail.as_deref(),
            Some("Effects are intended to synchronize state. * Update external systems.")
        );
        // A row without a rule id before the next file still ends with that file's path.
        let report = parse(
            "\n/p/a.ts\n  0:0  error  Parsing error: x was not found\n\n/p/b.ts\n  1:1  error  'y' is not defined  no-undef\n\n✖ 2 problems (2 errors, 0 warnings)\n",
        );
        let files: Vec<Option<&str>> = report
            .diagnostics
            .iter()
            .map(|d| d.file.as_deref())
            .collect();
        assert_eq!(files, [Some("/p/a.ts"), Some("/p/b.ts")]);
    }

    #[test]
    fn unix_compact_and_next_lint_rows() {
        let unix = parse_flat_row(
            "C:\\p\\a.tsx:48:6: React Hook useEffect has a missing dependency. [Warning/react-hooks/exhaustive-deps]",
        )
        .expect("unix");
        assert_eq!(unix.file, "C:\\p\\a.tsx");
        assert_eq!((unix.row.line, unix.row.column), (48, 6));
        assert_eq!(unix.row.rule, Some("react-hooks/exhaustive-deps"));
        let fatal = parse_flat_row("/p/a.js:5:60: Parsing error: Unexpected token ) [Error]")
            .expect("fatal");
        assert_eq!(
            (fatal.row.severity, fatal.row.rule),
            (Severity::Error, None)
        );
        let compact =
            parse_flat_row("/p/a.js: line 3, col 7, Error - 'x' is not defined. (no-undef)")
                .expect("compact");
        assert_eq!(
            (compact.file, compact.row.rule),
            ("/p/a.js", Some("no-undef"))
        );
        assert_eq!(parse_flat_row("see [docs]"), None);
        let next = parse_next_row(
            "72:84  Error: `'` can be escaped with `&apos;`.  react/no-unescaped-entities",
        )
        .expect("next");
        assert_eq!(next.rule, Some("react/no-unescaped-entities"));
        assert_eq!(next.severity, Severity::Error);

        let report = parse(
            "/p/a.js:3:7: 'x' is not defined. [Error/no-undef]\n/p/a.js:4:1: Unexpected console statement. [Warning/no-console]\n/p/b.js:1:1: 'y' is not defined. [Error/no-undef]\n\n3 problems\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(
            (report.counts.errors, report.counts.warnings),
            (Some(2), Some(1))
        );
        assert_eq!(report.counts.files, Some(2));
        assert!(report.notes.is_empty(), "{:?}", report.notes);

        let report = parse(
            "\n> app@0.1.0 lint\n> next lint\n\n\n./src/a.tsx\n10:27  Warning: 'req' is defined but never used.  @typescript-eslint/no-unused-vars\n72:84  Error: `'` can be escaped.  react/no-unescaped-entities\n\n./src/b.tsx\n1:1  Error: Do not use a.  rule-x\n\ninfo  - Need to disable some ESLint rules? Learn more here: https://nextjs.org/docs\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(
            (report.counts.errors, report.counts.warnings),
            (Some(2), Some(1))
        );
        assert_eq!(report.counts.files, Some(2));
        assert_eq!(report.diagnostics[1].file.as_deref(), Some("./src/a.tsx"));
    }

    #[test]
    fn problem_matcher_annotations_and_script_lines() {
        let report = parse(
            "/p/a.js\n##[warning]  1:54  warning  'x' is defined but never used  no-unused-vars\n\n✖ 1 problem (0 errors, 1 warning)\n",
        );
        assert_eq!(report.diagnostics[0].file.as_deref(), Some("/p/a.js"));
        assert_eq!(report.outcome, Outcome::Passed);
        assert!(EslintSummarizer.sniff("\n> app@1.0.0 lint\n> eslint .\n\n") >= 30);
        assert_eq!(
            EslintSummarizer.sniff("\n> app@1.0.0 lint\n> echo eslint\n"),
            0
        );
    }

    #[test]
    fn github_actions_timestamps_are_dropped() {
        let report = parse(
            "2024-05-01T12:34:56.7890123Z \n2024-05-01T12:34:56.7890123Z /p/a.js\n2024-05-01T12:34:56.7890123Z   1:1  error  'x' is not defined  no-undef\n2024-05-01T12:34:56.7890123Z\n2024-05-01T12:34:56.7890123Z ✖ 1 problem (1 error, 0 warnings)\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.diagnostics[0].file.as_deref(), Some("/p/a.js"));
        assert_eq!(report.counts.errors, Some(1));
    }

    #[test]
    fn a_log_cut_at_its_start_or_with_a_byte_order_mark_still_fails() {
        let report = parse("  3:1  error  'x' is not defined  no-undef\n");
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.diagnostics[0].file, None);
        let bom = "\u{feff}[{\"filePath\":\"/p/a.js\",\"messages\":[{\"ruleId\":\"no-undef\",\"severity\":2,\"message\":\"'x' is not defined.\",\"line\":1,\"column\":1}],\"errorCount\":1,\"warningCount\":0}]\n";
        assert_eq!(parse(bom).outcome, Outcome::Failed);
        assert_eq!(lines(bom).outcome, Outcome::Failed);
    }

    #[test]
    fn counts_are_read_where_they_are() {
        let object = br#"{"filePath":"/p/\"errorCount\":9.js","messages":[{"message":"x \"errorCount\": 7"}],"errorCount" : 2,"warningCount":
 3}"#;
        assert_eq!(number_field(object, b"\"errorCount\""), Some(2));
        assert_eq!(number_field(object, b"\"warningCount\""), Some(3));
        assert_eq!(number_field(b"{}", b"\"errorCount\""), None);
    }

    #[test]
    fn summaries() {
        assert_eq!(
            parse_summary("✖ 61 problems (55 errors, 6 warnings)"),
            Some((55, 6))
        );
        assert_eq!(
            parse_summary("✖ 1 problem (1 error, 0 warnings)"),
            Some((1, 0))
        );
        assert_eq!(
            parse_summary("x 1 problem (0 errors, 1 warning)"),
            Some((0, 1))
        );
        assert_eq!(parse_summary("no problems here"), None);
        // Garbage that once split an `é` in two.
        assert_eq!(parse_summary("  ✖3é problems (1 error, 0 warnings)"), None);
    }

    #[test]
    fn warnings_alone_pass_unless_capped() {
        let log = "\n/p/a.js\n  1:1  warning  Unexpected console statement  no-console\n\n✖ 1 problem (0 errors, 1 warning)\n\n";
        let report = parse(log);
        assert_eq!(report.outcome, Outcome::Passed);
        assert_eq!(report.counts.warnings, Some(1));
        assert_eq!(report.counts.files, Some(1));
        let capped = parse(&format!(
            "{log}ESLint found too many warnings (maximum: 0).\n"
        ));
        assert_eq!(capped.outcome, Outcome::Failed);
    }

    #[test]
    fn json_reports_in_any_layout() {
        let compact = r#"[{"filePath":"/p/a.js","messages":[{"ruleId":null,"fatal":true,"severity":2,"message":"Parsing error: Unexpected token )","line":5,"column":60}],"errorCount":1,"warningCount":0,"source":"x\"y\u00e9"},{"filePath":"/p/b.js","messages":[],"errorCount":0,"warningCount":0}]"#;
        let pretty = "> eslint -f json .\n\n[\n  {\n    \"filePath\": \"/p/a.js\",\n    \"messages\": [{\"ruleId\": \"no-undef\", \"severity\": 2, \"message\": \"'x' is not defined.\", \"line\": 1, \"column\": 2}],\n    \"errorCount\": 1,\n    \"warningCount\": 0\n  }\n]\n";
        for report in [parse(compact), lines(compact), parse(pretty), lines(pretty)] {
            assert_eq!(report.outcome, Outcome::Failed);
            assert_eq!(report.counts.errors, Some(1));
            assert_eq!(report.counts.files, Some(1));
            assert_eq!(report.diagnostics.len(), 1);
            assert!(report.notes.is_empty(), "{:?}", report.notes);
        }
        let fatal = &parse(compact).diagnostics[0];
        assert!(fatal.root_cause);
        assert_eq!(fatal.message, "Parsing error: Unexpected token )");
        assert_eq!(parse(pretty).diagnostics[0].message, "'x' is not defined");
    }

    #[test]
    fn long_strings_are_cut_and_repeated_reports_summed() {
        let source = "é".repeat(100_000);
        let one = format!(
            r#"[{{"filePath":"/p/a.js","messages":[{{"ruleId":"semi","severity":1,"message":"Missing semicolon.","line":1,"column":2}}],"errorCount":0,"warningCount":1,"source":"{source}\\u00e9\\n"}}]"#
        );
        let log = format!("{one}\n{one}\n");
        let report = parse(&log);
        assert_eq!(report.outcome, Outcome::Passed);
        assert_eq!(report.counts.warnings, Some(2));
        assert_eq!(report.diagnostics.len(), 2);
        assert!(report.notes.is_empty(), "{:?}", report.notes);
        // Fed line by line, the report is longer than a line may be: never a pass.
        let cut = lines(&log);
        assert_ne!(cut.outcome, Outcome::Passed);
        assert!(!cut.notes.is_empty());
    }

    #[test]
    fn a_report_that_does_not_end_is_never_a_pass() {
        let report = parse(
            r#"[{"filePath":"/p/a.js","messages":[],"errorCount":0,"warningCount":0},{"filePath":"#,
        );
        assert_eq!(report.outcome, Outcome::Errored);
    }

    #[test]
    fn crashes_are_errored_with_eslint_message() {
        let report = parse(
            "\nOops! Something went wrong! :(\n\nESLint: 9.39.5\n\nTypeError: Key \"rules\": Key \"eqeqeq\":\n\tValue \"sometimes\" should be equal to one of the allowed values.\n\n    at Config.validateRulesConfig (/x/config.js:1:1)\n",
        );
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(
            report.error.as_deref(),
            Some(
                "TypeError: Key \"rules\": Key \"eqeqeq\": Value \"sometimes\" should be equal to one of the allowed values."
            )
        );
        // Wrapped by a narrow console (PowerShell at 28 columns).
        let report = parse(
            "Oops! Something went \r\nwrong! :(\r\n\r\nESLint: 9.29.0\r\n\r\nError: ENOENT: no such \r\nfile or directory, open 'C:\r\n\\Users\\a.test.ts'\r\n    at async open (node:int\r\n",
        );
        assert_eq!(report.outcome, Outcome::Errored);
        assert!(
            report
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with("Error: ENOENT: no such")),
            "{report:#?}"
        );
        // A console's leftovers glued before the banner.
        let report = parse(
            "At C:\\Program Files\\nodejs\\npm.ps1:29 Oops! Something went wrong! :(\n\nESLint: 9.29.0\n\nError: ENOENT: no such file\n",
        );
        assert_eq!(report.outcome, Outcome::Errored);
        assert!(EslintSummarizer.sniff("At C:\\npm.ps1:29 Oops! Something went wrong! :(\n") >= 90);
        let report = parse(
            "Invalid option '--ext' - perhaps you meant '-c'?\nYou're using eslint.config.js, some command line flags are no longer available.\n",
        );
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(parse("").outcome, Outcome::Passed);
        assert_eq!(
            parse("npm ERR! code ELIFECYCLE\n").outcome,
            Outcome::Errored
        );
    }
}
