//! `verdict summarize`: a log of any size in, the digest (or the Report as JSON) out.
//!
//! The log streams through the parsers in bounded memory. Every summarizer comes from
//! [`summarizers::all`], behind the check of how the log ended (a crash, a tool that never ran:
//! `verdict_summarizers::ending`), so `--tool` never lowers that bar. With `--tool`, the whole log
//! is that tool's. Without it, the log is split into the runs it holds ([`sections`]: an
//! `npm run ci` running eslint, tsc and jest gives three reports), each run's tool recognised from
//! its start — and, for a file's first run whose start is not conclusive, from the file's first
//! and last [`SAMPLE_BYTES`].
//!
//! A log named as a file is read only when it is a regular file: `/dev/zero`, a FIFO or a
//! directory is refused at once (a stream is piped to stdin instead).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use verdict_core::digest::{self, DEFAULT_BUDGET};
use verdict_core::lines::{self, MAX_LINE, Stats};
use verdict_core::{Outcome, Report, Summarizer};
use verdict_summarizers::{self as summarizers, SAMPLE_BYTES, sections};

use crate::budget;
use crate::exit::ExitCode;
use crate::global::{self, Verbosity};

const EXAMPLES: &str = "\
Examples:
  npx tsc --noEmit 2>&1 | verdict summarize
  verdict summarize --tool jest --budget 300 jest.log
  cargo clippy 2>&1 | verdict summarize --format json
  verdict -q summarize pytest.log          # prints nothing for a pass

The tool is detected from the log when --tool is not given; a log that holds several tools' runs
(npm run ci: eslint, then tsc, then jest) gets one headline per tool, and fails when any failed
(--format json then prints an object with the outcome and the reports). A log is a pass only when it shows
that its tool ran and found nothing: a log no summarizer recognises, an empty one (name the tool:
tsc and eslint print nothing when all is well), a crash (Segmentation fault, Killed, npm ERR!
with a non-zero code), a runner's summary that never came, a tool that never ran (command not
found, a missing npm script), or a log with no line of the tool --tool names (another tool's log)
is could not verify (exit 2), with --tool as without.

Exit codes: 0 pass, 1 failures in the code, 2 nothing could be verified or bad usage.";

/// Arguments of `verdict summarize`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    /// The tool that wrote the log [default: detected from the log]
    #[arg(long, value_name = "TOOL", value_parser = clap::builder::PossibleValuesParser::new(summarizers::names()))]
    tool: Option<String>,

    /// Hard limit of the digest, in tokens (o200k)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET, value_parser = budget::parse)]
    budget: usize,

    /// What to print
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,

    /// The log to read; `-` or nothing reads stdin
    #[arg(value_name = "FILE")]
    input: Option<PathBuf>,
}

/// Output formats of `verdict summarize`, named as `verdict run`'s are.
#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// The digest a coding agent receives (`text`, its older name, is accepted too)
    #[value(alias = "text")]
    Human,
    /// The Report, as JSON.
    Json,
}

/// Runs the command and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    if matches!(args.format, Format::Human) {
        // The digest counts tokens: the table decodes while the log is read and parsed.
        digest::tokens::warm();
    }
    let (reports, log_path) = match args.input.as_deref() {
        None => (summarize_stdin(args.tool.as_deref())?, None),
        Some(path) if path.as_os_str() == "-" => (summarize_stdin(args.tool.as_deref())?, None),
        Some(path) => {
            let reports = summarize_file(path, args.tool.as_deref())
                .with_context(|| format!("failed to read {}", path.display()))?;
            (reports, Some(path.display().to_string()))
        }
    };
    let verbosity = global::get().verbosity;
    if verbosity == Verbosity::Verbose {
        for report in &reports {
            eprintln!("verdict: {}", verbose_line(report));
        }
    }
    let outcome = worst(&reports);
    let mut stdout = io::stdout().lock();
    match args.format {
        // Under -q a pass prints nothing: the exit code says it.
        Format::Human if verbosity == Verbosity::Quiet && outcome == Outcome::Passed => {}
        Format::Human => {
            let inputs: Vec<digest::Input<'_>> = reports
                .iter()
                .map(|report| digest::Input {
                    report,
                    log: log_path.as_deref(),
                })
                .collect();
            // A log of this project names its files relative to where it is read; any other
            // log's paths are shown relative to the directory they share.
            let options = digest::Options::new(args.budget).in_project(Path::new("."));
            let digest = digest::render(&inputs, &options);
            writeln!(stdout, "{}", digest.text)?;
        }
        Format::Json => {
            match reports.as_slice() {
                [report] => serde_json::to_writer_pretty(&mut stdout, report)?,
                several => serde_json::to_writer_pretty(
                    &mut stdout,
                    &Several {
                        outcome: worst(several),
                        reports: several,
                    },
                )?,
            }
            writeln!(stdout)?;
        }
    }
    stdout.flush()?;
    Ok(ExitCode::of(outcome))
}

/// What `-v` says of one report: the tool the log was read as, and what was found in it.
fn verbose_line(report: &Report) -> String {
    let mut line = format!(
        "read as {}: {}, {} diagnostics",
        report.tool,
        report.outcome.as_str(),
        report.diagnostics_found()
    );
    if let Some(summary) = &report.summary {
        line.push_str(&format!("; its summary: {summary}"));
    }
    if let Some(error) = &report.error {
        line.push_str(&format!("; {}", error.lines().next().unwrap_or_default()));
    }
    line
}

/// The JSON of a log that held several tools' runs: the worst outcome, and each tool's report.
#[derive(serde::Serialize)]
struct Several<'a> {
    outcome: Outcome,
    reports: &'a [Report],
}

/// The worst outcome of `reports`: a log fails when any of its runs failed.
pub(crate) fn worst(reports: &[Report]) -> Outcome {
    reports
        .iter()
        .map(|r| r.outcome)
        .max_by_key(|o| match o {
            Outcome::Passed => 0,
            Outcome::Failed => 1,
            Outcome::Errored => 2,
        })
        .unwrap_or(Outcome::Errored)
}

/// Summarizes a file: detection sees its start and its end. Only a regular file is read: a
/// device (`/dev/zero`), a FIFO or a directory is refused at once, since reading it could never
/// end or never start (a stream goes through stdin, `-`).
pub(crate) fn summarize_file(path: &std::path::Path, tool: Option<&str>) -> Result<Vec<Report>> {
    let file = verdict_core::files::open_regular(path)?;
    summarize_open(file, tool)
}

/// Summarizes a regular file already opened (see [`summarize_file`]).
pub(crate) fn summarize_open(mut file: File, tool: Option<&str>) -> Result<Vec<Report>> {
    if let Some(name) = tool {
        let (report, stats) = lookup(name)?.parse_reader(&mut file)?;
        return Ok(finish(vec![report], &stats));
    }
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
    let hint = summarizers::detect(&lines::clean(&sample)).summarizer;
    let (reports, stats) =
        sections::summarize_all_reader_with(&mut file, sections::Sections::with_hint(hint))?;
    Ok(finish(reports, &stats))
}

/// Summarizes stdin: the runs of each tool it holds, each recognised from its own start (see
/// [`sections`]).
fn summarize_stdin(tool: Option<&str>) -> Result<Vec<Report>> {
    summarize_stream(io::stdin().lock(), tool)
}

/// Summarizes a stream that can only be read once, from its start.
pub(crate) fn summarize_stream(mut stdin: impl Read, tool: Option<&str>) -> Result<Vec<Report>> {
    if let Some(name) = tool {
        let (report, stats) = lookup(name)?.parse_reader(&mut stdin)?;
        return Ok(finish(vec![report], &stats));
    }
    let (reports, stats) = sections::summarize_all_reader(&mut stdin)?;
    Ok(finish(reports, &stats))
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

/// Adds what the reader saw to the reports, and fails closed on input that is not a log.
fn finish(mut reports: Vec<Report>, stats: &Stats) -> Vec<Report> {
    // What a summarizer set directly is redacted too: the JSON, the digest and MCP's answer
    // show only redacted text.
    reports.iter_mut().for_each(Report::redact);
    if stats.looks_binary() {
        let tool = match reports.as_slice() {
            [only] => only.tool.clone(),
            _ => "generic".to_owned(),
        };
        let mut errored = Report::errored(
            &tool,
            format!(
                "the input is binary data, not a tool's log ({} of {} bytes are control bytes)",
                stats.binary_bytes, stats.bytes
            ),
        );
        for report in reports {
            errored.counts = report.counts;
            errored.diagnostics.extend(report.diagnostics);
            errored.diagnostics_dropped += report.diagnostics_dropped;
        }
        return vec![errored];
    }
    let Some(first) = reports.first_mut() else {
        return vec![Report::errored(
            "generic",
            "no summarizer could read the log",
        )];
    };
    if stats.long_lines > 0 {
        first.note(format!(
            "{} lines longer than {} KiB were cut",
            stats.long_lines,
            MAX_LINE / 1024
        ));
    }
    if stats.invalid_utf8_lines > 0 {
        first.note(format!(
            "{} lines held invalid UTF-8, replaced by U+FFFD",
            stats.invalid_utf8_lines
        ));
    }
    if first.outcome == Outcome::Passed && stats.bytes == 0 {
        first.note("the log is empty");
    }
    reports
}
