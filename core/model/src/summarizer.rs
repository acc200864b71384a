//! The [`Summarizer`] trait: a tool's raw output in, a [`Report`] out.
//!
//! A summarizer is a pure parser. It never runs anything and never fails: what it cannot
//! understand it notes in the report ([`Report::note`]) — and if the output shows a failure it
//! cannot attribute, the outcome is [`Outcome::Errored`](crate::Outcome::Errored), never a pass.
//!
//! Parsing is line-oriented and streaming: [`Summarizer::parser`] returns a [`LineParser`] that is
//! fed one clean line at a time by [`crate::lines`] and holds only what it needs (bounded by
//! [`crate::model::MAX_DIAGNOSTICS`]), so a gigabyte log streams through in constant memory.

use std::io::{self, Read};

use crate::lines;
use crate::model::{Kind, Report};

/// A parser for one tool's output format.
///
/// Contract:
/// - [`Summarizer::name`] is stable; it is the `--tool` value and [`Report::tool`].
/// - [`Summarizer::sniff`] looks at a sample of cleaned text (the start of the log, and its end when
///   the input can be read from both ends) and says how sure it is, 0–100, that the log is this
///   tool's. It must be cheap and must not claim logs of other tools: 90+ only for markers that no
///   other supported tool prints.
/// - [`Summarizer::parser`] returns a fresh line parser; [`LineParser::finish`] gives the report.
///   Counts come from the tool's own summary line when it printed one.
pub trait Summarizer: Send + Sync {
    /// The tool's name: `tsc`, `eslint`, `jest`, `vitest`, `mocha`, `cargo`, `pytest`, `generic`.
    fn name(&self) -> &'static str;

    /// The kind of diagnostics this tool mostly reports.
    fn kind(&self) -> Kind;

    /// How sure this summarizer is, 0–100, that `sample` is its tool's output.
    fn sniff(&self, sample: &str) -> u8;

    /// A fresh streaming parser.
    fn parser(&self) -> Box<dyn LineParser>;

    /// Whether the tool prints nothing at all when it finds nothing (tsc, eslint's default
    /// formatter), so that an empty log of it is a pass. Any other tool's passing log shows that
    /// it ran ([`Report::evidence`]).
    fn silent_on_success(&self) -> bool {
        false
    }

    /// Parses a whole log held in memory.
    fn parse(&self, log: &[u8]) -> Report {
        let mut parser = self.parser();
        lines::for_each_line_in(log, |line| parser.line(line));
        let mut report = parser.finish();
        report.redact();
        report.refresh_fingerprints();
        report
    }

    /// Parses a log from a reader, in bounded memory.
    fn parse_reader(&self, reader: &mut dyn Read) -> io::Result<(Report, lines::Stats)> {
        let mut parser = self.parser();
        let stats = lines::for_each_line(reader, |line| parser.line(line))?;
        let mut report = parser.finish();
        report.redact();
        report.refresh_fingerprints();
        Ok((report, stats))
    }
}

/// A streaming parser: one call per line, then one call to get the report.
pub trait LineParser {
    /// Feeds the next line: ANSI stripped, no line terminator, at most
    /// [`lines::MAX_LINE`](crate::lines::MAX_LINE) bytes.
    fn line(&mut self, line: &str);

    /// Ends the input and returns what was understood.
    fn finish(self: Box<Self>) -> Report;
}
