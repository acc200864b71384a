//! Where the loop's events go: NDJSON (a file, stdout), a line per step on stderr for people
//! under a live status line, and the result on stdout.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use verdict_core::agent_loop::driver::{Event, LoopEnd, LoopEvent};
use verdict_core::state::RunState;

use super::args::{Args, LoopFormat};
use super::describe::{describe, labels, phase};
use crate::global::{self, Verbosity};

/// Where the events go: NDJSON (a file, stdout), and a line per step on stderr for people — under
/// a live status line (the attempt, the phase, the time it has taken) when stderr is a terminal.
pub(super) struct Output {
    file: Option<std::io::BufWriter<std::fs::File>>,
    jsonl: bool,
    /// `-q`: no line per step; `-v`: every event's NDJSON line on stderr too.
    verbosity: Verbosity,
    started: Instant,
    status: Option<indicatif::ProgressBar>,
    attempt: Option<(u64, u64)>,
    /// The flaky failures of the last verification, for the result.
    flaky: Vec<String>,
    error: Option<std::io::Error>,
}

impl Output {
    pub(super) fn new(args: &Args) -> Result<Arc<Mutex<Output>>> {
        let file = match &args.events {
            Some(path) => Some(std::io::BufWriter::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .with_context(|| format!("failed to open {}", path.display()))?,
            )),
            None => None,
        };
        let status = global::live_view().then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner:.cyan} {msg} {elapsed}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            bar.set_message("starting");
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Ok(Arc::new(Mutex::new(Output {
            file,
            jsonl: args.format == LoopFormat::Jsonl,
            verbosity: global::get().verbosity,
            started: Instant::now(),
            status,
            attempt: None,
            flaky: Vec::new(),
            error: None,
        })))
    }

    pub(super) fn event(&mut self, event: &LoopEvent) {
        let line = event.to_line();
        if let Some(file) = &mut self.file
            && let Err(error) = writeln!(file, "{line}").and_then(|()| file.flush())
        {
            self.error.get_or_insert(error);
        }
        if self.jsonl {
            let mut stdout = std::io::stdout().lock();
            if let Err(error) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
                self.error.get_or_insert(error);
            }
        }
        match &event.event {
            Event::AttemptStarted { attempt, of, .. } => {
                // The attempt's number, of the attempts the run may make (more than
                // --max-attempts after an interrupted attempt, which does not count), as the
                // prompt says.
                self.attempt = Some((u64::from(*attempt), u64::from(*of)));
            }
            Event::VerificationFinished(verified) => self.flaky = labels(&verified.flaky),
            _ => {}
        }
        if self.verbosity == Verbosity::Verbose {
            match &self.status {
                Some(bar) => bar.println(&line),
                None => eprintln!("{line}"),
            }
        }
        if let Some(text) = describe(event).filter(|_| self.verbosity != Verbosity::Quiet) {
            let elapsed = self.started.elapsed().as_secs();
            let line = format!(
                "verdict loop [{:>2}:{:02}] {text}",
                elapsed / 60,
                elapsed % 60
            );
            match &self.status {
                Some(bar) => bar.println(line),
                None => eprintln!("{line}"),
            }
        }
        if let Some(bar) = &self.status
            && let Some(phase) = phase(event)
        {
            let attempt = match self.attempt {
                Some((n, of)) => format!("attempt {n}/{of} · "),
                None => String::new(),
            };
            bar.set_message(format!("{attempt}{phase}"));
            // The elapsed time counts the phase.
            bar.reset_elapsed();
        }
    }

    pub(super) fn finish(&mut self, end: &LoopEnd) -> Result<()> {
        if let Some(bar) = self.status.take() {
            bar.finish_and_clear();
        }
        if let Some(error) = self.error.take() {
            return Err(error).context("failed to write the events");
        }
        if self.jsonl {
            return Ok(());
        }
        let mut stdout = std::io::stdout().lock();
        let attempts = match end.attempts {
            1 => "1 attempt".to_owned(),
            n => format!("{n} attempts"),
        };
        writeln!(
            stdout,
            "verdict loop: run {} {} after {attempts}: {}",
            end.run, end.state, end.reason
        )?;
        if !self.flaky.is_empty() {
            writeln!(
                stdout,
                "flaky (failed, then passed when run again; not blamed on the agent): {}",
                self.flaky.join(", ")
            )?;
        }
        if end.state != RunState::Passed
            && let Some(digest) = &end.digest
            && !digest.is_empty()
        {
            writeln!(stdout, "\n{digest}")?;
        }
        if end.state == RunState::Interrupted {
            writeln!(stdout, "\n`verdict loop --resume` continues this run.")?;
        }
        stdout.flush()?;
        Ok(())
    }
}
