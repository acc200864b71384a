//! Reports that are one JSON document rather than a log: jest's `--json` report, vitest's
//! `--reporter=json`, mocha's `--reporter json`. A person hands one to `verdict summarize`
//! (`verdict summarize results.json`); read as a log, its one long line holds nothing the log
//! parser knows, and a report of 40 failures would pass.
//!
//! A summarizer whose tool writes such a report reads its input with [`parse`] or
//! [`parse_reader`]: an input that starts with `{` is read whole (up to [`MAX_DOCUMENT`] bytes)
//! and its leading JSON object handed to the summarizer's document parser; anything else — or an
//! object the document parser does not take — goes through the line parser as usual. The document
//! path is whole-input, not line by line, because these reports are often a single line far longer
//! than [`verdict_model::lines::MAX_LINE`].

use std::io::{self, Read};

use verdict_model::lines::{self, Stats};
use verdict_model::{Evidence, LineParser, Report};

/// The largest JSON report read whole; a larger one is an errored report, not unbounded memory.
pub(crate) const MAX_DOCUMENT: usize = 128 * 1024 * 1024;

/// Parses a JSON document the way one tool's report is read; `None` when the object is not that
/// tool's report.
pub(crate) type DocumentParser = fn(&[u8]) -> Option<Report>;

/// Whether a cleaned sample starts as a JSON object does.
pub(crate) fn starts_as_object(sample: &str) -> bool {
    sample
        .trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
        .starts_with('{')
}

/// Whether an input is a document rather than a log: it starts, after white space and a
/// byte-order mark, as JSON (`{`, `[`) or XML (`<`) does. A log line may start with `[` too
/// (Maven's `[INFO]`, Jenkins' `[Pipeline]` and the time its Timestamper writes before each
/// line, `[2024-05-01T12:34:56.789Z]`): `[` is a document only when JSON starts there.
pub(crate) fn starts_as_document(input: &[u8]) -> bool {
    let start = skip_space(input);
    match input.get(start) {
        Some(b'{' | b'<') => true,
        Some(b'[') => starts_as_json(&input[start..]),
        _ => false,
    }
}

/// How much of an input that starts with `[` is read to tell JSON from a log line.
const JSON_PROBE: usize = 4096;

/// Whether `input` starts with a JSON value, complete or cut short within [`JSON_PROBE`] bytes.
fn starts_as_json(input: &[u8]) -> bool {
    let probe = &input[..input.len().min(JSON_PROBE)];
    let mut values =
        serde_json::Deserializer::from_slice(probe).into_iter::<serde::de::IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => true,
        // An array longer than the probe ends too soon; a log line is not JSON at all.
        Some(Err(error)) => error.is_eof(),
        None => false,
    }
}

/// What an input starts with.
enum Start<'a> {
    /// A complete JSON object: its bytes (what follows it, a log after the report, is left).
    Object(&'a [u8]),
    /// `{` that does not begin a complete JSON object: why not.
    Broken(String),
    /// Anything else.
    Log,
}

/// What `input` starts with, after white space and a byte-order mark.
fn leading_object(input: &[u8]) -> Start<'_> {
    let start = skip_space(input);
    let rest = &input[start..];
    if rest.first() != Some(&b'{') {
        return Start::Log;
    }
    let mut values =
        serde_json::Deserializer::from_slice(rest).into_iter::<serde::de::IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => Start::Object(&rest[..values.byte_offset()]),
        Some(Err(error)) => Start::Broken(error.to_string()),
        None => Start::Log,
    }
}

fn skip_space(input: &[u8]) -> usize {
    let bom = if input.starts_with(&[0xef, 0xbb, 0xbf]) {
        3
    } else {
        0
    };
    bom + input[bom..]
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(input.len() - bom)
}

/// Parses a whole input held in memory: as a document when it is one, else line by line. An
/// input that starts as a JSON object and is not one (a report cut off when its tool was killed)
/// is errored: none of `tool`'s logs starts with `{`.
pub(crate) fn parse(
    input: &[u8],
    document: DocumentParser,
    tool: &str,
    parser: Box<dyn LineParser>,
) -> Report {
    let by_lines = |mut parser: Box<dyn LineParser>| {
        lines::for_each_line_in(input, |line| parser.line(line));
        parser.finish()
    };
    let mut report = match leading_object(input) {
        Start::Object(object) => match document(object) {
            // The tool's whole machine-readable report: the evidence a pass needs.
            Some(mut report) => {
                report.saw(Evidence::Checked);
                report
            }
            None => by_lines(parser),
        },
        Start::Broken(error) => Report::errored(
            tool,
            format!("the input starts as a JSON report but is not valid JSON (cut off?): {error}"),
        ),
        Start::Log => by_lines(parser),
    };
    report.refresh_fingerprints();
    report
}

/// Parses an input from a reader: one that starts with `{` is read whole and parsed as
/// [`parse`] does (bounded by [`MAX_DOCUMENT`]); anything else streams through the line parser.
pub(crate) fn parse_reader(
    reader: &mut dyn Read,
    document: DocumentParser,
    tool: &str,
    parser: Box<dyn LineParser>,
) -> io::Result<(Report, Stats)> {
    let mut head = Vec::with_capacity(4096);
    (&mut *reader).take(4096).read_to_end(&mut head)?;
    let starts_as_json = head.get(skip_space(&head)) == Some(&b'{');
    if !starts_as_json {
        let mut parser = parser;
        let stats = lines::for_each_line(io::Cursor::new(head).chain(reader), |line| {
            parser.line(line)
        })?;
        let mut report = parser.finish();
        report.refresh_fingerprints();
        return Ok((report, stats));
    }
    let mut input = head;
    (&mut *reader)
        .take((MAX_DOCUMENT + 1 - input.len().min(MAX_DOCUMENT)) as u64)
        .read_to_end(&mut input)?;
    let stats = Stats {
        bytes: input.len() as u64,
        ..Stats::default()
    };
    if input.len() > MAX_DOCUMENT {
        let report = Report::errored(
            tool,
            format!(
                "the input starts as a JSON report larger than {} MiB; verdict reads reports up \
                 to that size",
                MAX_DOCUMENT / (1024 * 1024)
            ),
        );
        return Ok((report, stats));
    }
    let report = parse(&input, document, tool, parser);
    Ok((report, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log whose lines start with a bracket (Jenkins' Timestamper, Maven) is no JSON array;
    /// an array, whole or longer than what is probed, is.
    #[test]
    fn a_bracket_starts_a_document_only_as_json() {
        assert!(!starts_as_document(
            b"[2022-01-12T19:00:00.613Z] Started by timer\n"
        ));
        assert!(!starts_as_document(b"[INFO] Scanning for projects...\n"));
        assert!(!starts_as_document(b"[Pipeline] Start of Pipeline\n"));
        assert!(starts_as_document(
            b"  [{\"filePath\": \"/a.js\", \"messages\": []}]\n"
        ));
        let long = format!("[{}", "{\"messages\": []},".repeat(1000));
        assert!(starts_as_document(long.as_bytes()));
        assert!(starts_as_document(b"[]"));
    }

    #[test]
    fn the_leading_object_ends_where_json_does() {
        let object = |input: &[u8]| match leading_object(input) {
            Start::Object(object) => Some(object.to_vec()),
            Start::Broken(_) => Some(b"broken".to_vec()),
            Start::Log => None,
        };
        assert_eq!(
            object(b"\xef\xbb\xbf  {\"a\": [1, {\"b\": \"}\"}]}\nPASS x").as_deref(),
            Some(&b"{\"a\": [1, {\"b\": \"}\"}]}"[..])
        );
        assert_eq!(object(b"{\"a\": ").as_deref(), Some(&b"broken"[..]));
        assert_eq!(object(b"[1]"), None);
        assert_eq!(object(b"   "), None);
        assert_eq!(object(b""), None);
    }

    #[test]
    fn samples_that_start_as_objects() {
        assert!(starts_as_object("\u{feff}\n  {\"stats\": {}}"));
        assert!(!starts_as_object("PASS src/a.test.js\n{\"x\": 1}"));
    }
}
