//! `verdict summarize`: a log of any size in, the digest (or the Report as JSON) out.
//!
//! The log streams through the parser in bounded memory. Every summarizer comes from
//! [`summarizers::all`], behind the check of how the log ended (a crash, a tool that never ran:
//! `verdict_summarizers::ending`), so `--tool` never lowers that bar. The format is taken from `--tool`, or
//! detected from a sample: the log's first and last [`SAMPLE_BYTES`] for a file; for stdin, which
//! cannot be read from its end, the start — and when the start is not conclusive, every summarizer
//! reads the stream at once and the choice is made at the end, once the tail is known.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use verdict_core::digest::{self, DEFAULT_BUDGET};
use verdict_core::lines::{self, MAX_LINE, Stats};
use verdict_core::{LineParser, Outcome, Report, Summarizer};
use verdict_summarizers::{self as summarizers, MIN_CONFIDENCE, SAMPLE_BYTES};

const EXAMPLES: &str = "\
Examples:
  npx tsc --noEmit 2>&1 | verdict summarize
  verdict summarize --tool jest --budget 300 jest.log
  cargo clippy 2>&1 | verdict summarize --format json

The tool is detected from the log when --tool is not given. A log is a pass only when it shows
that its tool ran and found nothing: a log no summarizer recognises, an empty one (name the tool:
tsc and eslint print nothing when all is well), a crash (Segmentation fault, Killed, npm ERR!
with a non-zero code), a runner's summary that never came, or a tool that never ran (command not
found, a missing npm script) is could not verify (exit 2), with --tool as without.

Exit codes: 0 pass, 1 failures in the code, 2 nothing could be verified or bad usage.";

/// Arguments of `verdict summarize`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    /// The tool that wrote the log [default: detected from the log]
    #[arg(long, value_name = "TOOL", value_parser = clap::builder::PossibleValuesParser::new(summarizers::names()))]
    tool: Option<String>,

    /// Hard limit of the digest, in tokens (o200k)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET, value_parser = parse_budget)]
    budget: usize,

    /// What to print
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    /// The log to read; `-` or nothing reads stdin
    #[arg(value_name = "FILE")]
    input: Option<PathBuf>,
}

/// Output formats of `verdict summarize`.
#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// The digest a coding agent receives.
    Text,
    /// The Report, as JSON.
    Json,
}

fn parse_budget(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "`{text}` is not a token budget (a whole number, at least 1)"
        )),
    }
}

/// Runs the command and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<u8> {
    let (report, log_path) = match args.input.as_deref() {
        None => (summarize_stdin(args.tool.as_deref())?, None),
        Some(path) if path.as_os_str() == "-" => (summarize_stdin(args.tool.as_deref())?, None),
        Some(path) => {
            let report = summarize_file(path, args.tool.as_deref())
                .with_context(|| format!("failed to read {}", path.display()))?;
            (report, Some(path.display().to_string()))
        }
    };
    let mut stdout = io::stdout().lock();
    match args.format {
        Format::Text => {
            let input = digest::Input {
                report: &report,
                log: log_path.as_deref(),
            };
            let options = digest::Options {
                budget: args.budget,
            };
            let digest = digest::render(&[input], &options);
            writeln!(stdout, "{}", digest.text)?;
        }
        Format::Json => {
            serde_json::to_writer_pretty(&mut stdout, &report)?;
            writeln!(stdout)?;
        }
    }
    stdout.flush()?;
    Ok(report.outcome.exit_code() as u8)
}

/// Summarizes a file: detection sees its start and its end. A file that cannot seek (a named
/// pipe, `<(command)`) is read as a stream, like stdin.
fn summarize_file(path: &std::path::Path, tool: Option<&str>) -> Result<Report> {
    let mut file = File::open(path)?;
    if !file.metadata()?.is_file() {
        return summarize_stream(file, tool);
    }
    let summarizer = match tool {
        Some(name) => lookup(name)?,
        None => {
            let len = file.metadata()?.len();
            let mut sample = read_up_to(&mut file, SAMPLE_BYTES)?;
            if len > sample.len() as u64 {
                let tail_start = len
                    .saturating_sub(SAMPLE_BYTES as u64)
                    .max(sample.len() as u64);
                file.seek(SeekFrom::Start(tail_start))?;
                sample.extend(read_up_to(&mut file, SAMPLE_BYTES)?);
            }
            file.seek(SeekFrom::Start(0))?;
            summarizers::detect(&lines::clean(&sample)).summarizer
        }
    };
    let (report, stats) = summarizer.parse_reader(&mut file)?;
    Ok(finish(report, &stats))
}

/// Summarizes stdin: detection sees its start; when that is not conclusive, all summarizers read
/// the stream and the choice is made at its end.
fn summarize_stdin(tool: Option<&str>) -> Result<Report> {
    summarize_stream(io::stdin().lock(), tool)
}

/// Summarizes a stream that can only be read once, from its start.
fn summarize_stream(mut stdin: impl Read, tool: Option<&str>) -> Result<Report> {
    if let Some(name) = tool {
        let (report, stats) = lookup(name)?.parse_reader(&mut stdin)?;
        return Ok(finish(report, &stats));
    }
    let head = read_up_to(&mut stdin, SAMPLE_BYTES)?;
    let head_text = lines::clean(&head);
    let detection = summarizers::detect(&head_text);
    let complete = head.len() < SAMPLE_BYTES;
    let mut input = io::Cursor::new(head).chain(stdin);
    if complete || detection.confidence >= MIN_CONFIDENCE {
        let (report, stats) = detection.summarizer.parse_reader(&mut input)?;
        return Ok(finish(report, &stats));
    }
    let mut fan_out = FanOut::new(head_text);
    let stats = lines::for_each_line(&mut input, |line| fan_out.line(line))?;
    let mut report = fan_out.finish();
    report.refresh_fingerprints();
    Ok(finish(report, &stats))
}

fn lookup(name: &str) -> Result<&'static dyn Summarizer> {
    match summarizers::by_name(name) {
        Some(summarizer) => Ok(summarizer),
        None => bail!("unknown tool `{name}`"),
    }
}

/// Reads at most `limit` bytes, fewer only at the end of the input.
fn read_up_to(reader: &mut impl Read, limit: usize) -> io::Result<Vec<u8>> {
    let mut buffer = Vec::with_capacity(limit.min(1 << 20));
    reader.take(limit as u64).read_to_end(&mut buffer)?;
    Ok(buffer)
}

/// Adds what the reader saw to the report, and fails closed on input that is not a log.
fn finish(mut report: Report, stats: &Stats) -> Report {
    if stats.looks_binary() {
        let mut errored = Report::errored(
            &report.tool,
            format!(
                "the input is binary data, not a tool's log ({} of {} bytes are control bytes)",
                stats.binary_bytes, stats.bytes
            ),
        );
        errored.counts = report.counts;
        errored.diagnostics = report.diagnostics;
        errored.diagnostics_dropped = report.diagnostics_dropped;
        return errored;
    }
    if stats.long_lines > 0 {
        report.note(format!(
            "{} lines longer than {} KiB were cut",
            stats.long_lines,
            MAX_LINE / 1024
        ));
    }
    if stats.invalid_utf8_lines > 0 {
        report.note(format!(
            "{} lines held invalid UTF-8, replaced by U+FFFD",
            stats.invalid_utf8_lines
        ));
    }
    if report.outcome == Outcome::Passed && stats.bytes == 0 {
        report.note("the log is empty");
    }
    report
}

/// Every summarizer reading one stream, for stdin whose start did not tell the format.
struct FanOut {
    parsers: Vec<(&'static dyn Summarizer, Box<dyn LineParser>)>,
    head: String,
    tail: VecDeque<String>,
    tail_bytes: usize,
}

impl FanOut {
    fn new(head: String) -> Self {
        FanOut {
            parsers: summarizers::all()
                .iter()
                .map(|s| (*s, s.parser()))
                .collect(),
            head,
            tail: VecDeque::new(),
            tail_bytes: 0,
        }
    }

    fn line(&mut self, line: &str) {
        for (_, parser) in &mut self.parsers {
            parser.line(line);
        }
        self.tail_bytes += line.len() + 1;
        self.tail.push_back(line.to_owned());
        while self.tail_bytes > SAMPLE_BYTES {
            match self.tail.pop_front() {
                Some(old) => self.tail_bytes -= old.len() + 1,
                None => break,
            }
        }
    }

    fn finish(self) -> Report {
        let mut sample = self.head;
        for line in &self.tail {
            sample.push_str(line);
            sample.push('\n');
        }
        let chosen = summarizers::detect(&sample).summarizer.name();
        let mut fallback = None;
        for (summarizer, parser) in self.parsers {
            if summarizer.name() == chosen {
                return parser.finish();
            }
            if summarizer.name() == "generic" {
                fallback = Some(parser);
            }
        }
        match fallback {
            Some(parser) => parser.finish(),
            None => Report::errored("generic", "no summarizer could read the log"),
        }
    }
}
